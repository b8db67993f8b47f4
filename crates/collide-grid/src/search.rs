//! Searching a row's buckets: each pair reported by one bucket only, found by testing every pair of a small
//! bucket or by a sweep along x of a larger one.
//!
//! A pair may be found in several buckets (its two boxes share several columns, or both reach into several
//! slabs); it is reported where the **min corner of the two boxes' intersection** lies (the workspace's ownership
//! rule, `collide_broadphase::ownership`): in the slab holding its x — the later of the two starts, so never
//! between two ghosts — and in the column holding its y and z. Both boxes contain that corner, so both are in that
//! bucket; the check costs a few instructions per pair found and none per pair tested in vain.
//!
//! Ghosts never meet ghosts (their pair belongs to an earlier slab), and in the hierarchical grid queries never
//! meet queries (their pair belongs to a finer level), so a bucket's lists are tested against each other with the
//! two-list kernels rather than merged.

use crate::plan::Level;
use collide_broadphase::Pair;
use collide_broadphase::sweep::{PairSink, SweepBox, all_pairs, all_pairs_two, sweep_sparse, sweep_two_sparse};

/// Buckets of up to this many entries test every pair of them, unsorted; larger ones are sorted by `min.x` and
/// swept. They come out of the build nearly sorted (see `build.rs`), so the sort seldom moves a record and the sweep
/// tests only the boxes within reach along x: past a few entries, fewer tests than all pairs. At most the kernel's
/// `ALL_PAIRS_MAX`.
pub const UNSORTED_MAX: usize = 3;

/// One row of a slab's level, ready to search: its member buckets, then (for a level taking queries) its query
/// buckets, one per column along z, consecutive in `offsets`.
pub struct Row<'a> {
    /// The level.
    pub level: &'a Level,
    /// The row's index along y (hashed).
    pub index: usize,
    /// The offsets of the row's buckets into the cells: `2 · columns + 1` with queries, else `columns + 1`.
    pub offsets: &'a [u32],
    /// Whether the row has query buckets.
    pub queried: bool,
    /// Where the slab starts along x: entries starting before it are ghosts.
    pub start: f32,
}

/// What the searches count.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Box tests.
    pub tests: u64,
    /// Entries sorted by `min.x` for a sweep.
    pub sorted: u64,
    /// Buckets with at least one entry.
    pub occupied: u64,
    /// The most entries in one bucket.
    pub max_occupancy: u64,
    /// Entries in query buckets.
    pub queries: u64,
}

/// Find the pairs `row`'s buckets own (its buckets are ranges of `cells`), into `sink`; buckets of more than
/// [`UNSORTED_MAX`] entries are sorted by `min.x` on the way.
pub fn search_row(row: &Row<'_>, cells: &mut [SweepBox], sink: &mut PairSink<'_>, counts: &mut Counts) {
    let columns = row.level.torus()[1];
    let start = row.start;
    let first_column = row.index * columns;
    for z in 0..columns {
        let m_range = row.offsets[z] as usize..row.offsets[z + 1] as usize;
        let q_range =
            if row.queried { row.offsets[columns + z] as usize..row.offsets[columns + z + 1] as usize } else { 0..0 };
        counts.bucket(m_range.len(), q_range.len());
        if m_range.len() < 2 && (m_range.is_empty() || q_range.is_empty()) {
            continue;
        }
        // Member buckets come before query buckets in `cells`, so both can be borrowed to sort.
        let (head, tail) = cells.split_at_mut(m_range.end);
        let m = &mut head[m_range.clone()];
        let q = &mut tail[q_range.start.saturating_sub(m_range.end)..q_range.end.saturating_sub(m_range.end)];
        let column = first_column + z;
        let owned = |a: &SweepBox, b: &SweepBox| owns(row.level, column, a, b);
        counts.tests += members_pairs(m, start, &owned, sink, &mut counts.sorted);
        if !q.is_empty() {
            counts.tests += query_pairs(m, q, start, &owned, sink, &mut counts.sorted);
        }
    }
}

impl Counts {
    /// A column with `m` member and `q` query entries.
    #[inline(always)]
    fn bucket(&mut self, m: usize, q: usize) {
        self.occupied += u64::from(m > 0) + u64::from(q > 0);
        self.max_occupancy = self.max_occupancy.max(m.max(q) as u64);
        self.queries += q as u64;
    }
}

/// The pairs among a bucket's members: every pair of a small bucket, a sweep of a larger one (sorted here) —
/// never two ghosts (their pair is an earlier slab's).
#[inline(always)]
fn members_pairs(
    m: &mut [SweepBox],
    start: f32,
    owned: &impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
    sorted: &mut u64,
) -> u64 {
    if m.len() < 2 {
        return 0;
    }
    let keep = |a: &SweepBox, b: &SweepBox| ((a.lo() >= start) | (b.lo() >= start)) && owned(a, b);
    if m.len() <= UNSORTED_MAX {
        return all_pairs(m, keep, sink);
    }
    sort_by_lo(m, sorted);
    // One sweep, two ghosts rejected by `keep`: ghosts are a few percent of a slab, and splitting the bucket into
    // ghosts and members for two sweeps cost more than their rare meetings.
    sweep_sparse(m, 0..m.len(), keep, sink)
}

/// The pairs of a bucket's members with the same column's queries (finer bodies), never two ghosts.
#[inline(always)]
fn query_pairs(
    m: &mut [SweepBox],
    q: &mut [SweepBox],
    start: f32,
    owned: &impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
    sorted: &mut u64,
) -> u64 {
    if m.len() <= UNSORTED_MAX && q.len() <= UNSORTED_MAX {
        return all_pairs_two(m, q, |a, b| ((a.lo() >= start) | (b.lo() >= start)) && owned(a, b), sink);
    }
    // `m` is sorted already when above the all-pairs size ([`members_pairs`]); a small list is sorted here, as it
    // meets a long one.
    if m.len() <= UNSORTED_MAX {
        sort_by_lo(m, sorted);
    }
    sort_by_lo(q, sorted);
    let (g, gq) = (m.partition_point(|r| r.lo() < start), q.partition_point(|r| r.lo() < start));
    sweep_two_sparse(m, &q[gq..], owned, sink) + sweep_two_sparse(&m[g..], &q[..gq], owned, sink)
}

/// Buckets larger than this are sorted by pdqsort, smaller ones by an insertion sort: they come out of the build
/// nearly sorted (by bins of x), where an insertion sort costs about a comparison per entry — pdqsort cost 25
/// instructions per entry on the 26-entry buckets of a uniform scene.
const INSERTION_SORT_MAX: usize = 64;

/// Sort a bucket by `min.x`: an insertion sort for a nearly sorted bucket of modest size, pdqsort for a crowd.
fn sort_by_lo(v: &mut [SweepBox], sorted: &mut u64) {
    *sorted += v.len() as u64;
    if v.len() > INSERTION_SORT_MAX {
        v.sort_unstable_by(|a, b| a.lo().total_cmp(&b.lo()));
        return;
    }
    for i in 1..v.len() {
        let r = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].lo() > r.lo() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = r;
    }
}

/// `true` when column `c` of `level` owns the pair of `a` and `b` (whose boxes overlap): the column of their
/// intersection's min corner in y and z.
#[inline(always)]
fn owns(level: &Level, c: usize, a: &SweepBox, b: &SweepBox) -> bool {
    let corner = a.min::<0>().max(b.min::<0>());
    level.column_of_point(corner.y, corner.z) == c
}

/// The pairs of every slab, appended to `out` in slab order.
pub fn collect(slabs: &[crate::slab::Slab], out: &mut Vec<Pair>) {
    out.reserve(slabs.iter().map(|s| s.pairs.len()).sum());
    for slab in slabs {
        out.extend_from_slice(&slab.pairs);
    }
}
