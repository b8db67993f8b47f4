//! One slab's cells: the data a parallel task builds and searches, kept across frames.
//!
//! A slab's **entries** are the boxes that reach into it along x: *members* start in it, *ghosts* start in an
//! earlier slab and reach into this one; each is one sweep record. Each entry is copied into every **bucket** it
//! belongs to — the columns its box covers at its own level (as a member of that level), and in the hierarchical
//! grid the columns it covers at every coarser level present in the slab (as a *query*: finer bodies are tested
//! against a coarser level's members there, never against each other).

use crate::build::{RowEntry, X_BINS};
use crate::plan::{AxisSpan, MAX_LEVELS, Plan};
use collide_broadphase::sweep::{SinkBuffer, SweepBox};
use collide_broadphase::{Pair, Tally};

/// Marks a level with no buckets in a [`Layout`].
pub const NONE: u32 = u32::MAX;

/// The two kinds of bucket: a level's own bodies, and the finer bodies tested against them there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bodies living at the level.
    Members = 0,
    /// Bodies of finer levels, entered at a coarser one to meet its members (never each other).
    Queries = 1,
}

/// Which buckets a slab has, level by level, and how they are numbered. A level present in the slab (some entry
/// lives at it) has one member bucket per column of its torus; a present level with a finer present level has as
/// many query buckets too. A level's buckets go row by row (the columns along y), and within a row the member
/// buckets of its columns along z, then the query buckets: the order the build fills them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Levels some entry of the slab lives at (bit `l`).
    pub present: u64,
    /// Levels that take queries: every present level but the finest (`present` without its lowest bit).
    pub queried: u64,
    /// The first bucket of each level, or [`NONE`].
    pub base: [u32; MAX_LEVELS],
    /// Buckets in all.
    pub buckets: u32,
}

impl Default for Layout {
    fn default() -> Self {
        Self { present: 0, queried: 0, base: [NONE; MAX_LEVELS], buckets: 0 }
    }
}

impl Layout {
    /// The buckets of a slab whose entries live at the levels `present`, on `plan`'s tori.
    #[must_use]
    pub fn new(present: u64, plan: &Plan) -> Self {
        let mut layout = Self { present, queried: present & present.wrapping_sub(1), ..Self::default() };
        let mut next = 0u32;
        for l in levels(present) {
            layout.base[l] = next;
            next += (plan.levels[l].columns() * layout.kinds(l)) as u32;
        }
        layout.buckets = next;
        layout
    }

    /// 2 when level `l` takes queries, else 1.
    #[inline(always)]
    #[must_use]
    pub fn kinds(&self, l: usize) -> usize {
        1 + (self.queried >> l & 1) as usize
    }

    /// The bucket of `kind` at column `c` of level `l` (present, and taking queries for [`Kind::Queries`]).
    #[inline(always)]
    #[must_use]
    pub fn bucket(&self, plan: &Plan, l: usize, kind: Kind, c: usize) -> usize {
        let (row, z, bits) = plan.levels[l].row_and_z(c);
        self.base[l] as usize + (((row * self.kinds(l) + kind as usize) << bits) | z)
    }

    /// Call `f` with every bucket an entry at level `level` goes to: its columns at that level, and its columns
    /// at every coarser level that takes queries.
    #[inline(always)]
    pub fn for_each_bucket(&self, plan: &Plan, r: &SweepBox, level: usize, mut f: impl FnMut(usize)) {
        plan.levels[level].for_each_column(r, |c| f(self.bucket(plan, level, Kind::Members, c)));
        for l in levels(self.queried & !low_mask(level)) {
            plan.levels[l].for_each_column(r, |c| f(self.bucket(plan, l, Kind::Queries, c)));
        }
    }
}

/// Bits `0..=level` set.
#[inline(always)]
fn low_mask(level: usize) -> u64 {
    if level >= 63 { u64::MAX } else { (2u64 << level) - 1 }
}

/// The levels of a bit set, finest first.
pub fn levels(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let l = set.trailing_zeros() as usize;
            set &= set - 1;
            l
        })
    })
}

/// One slab: its entries, its buckets, and what its search found. Every buffer is kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Slab {
    /// The slab's entries, members and ghosts, in no order (copied from the body chunks).
    pub records: Vec<SweepBox>,
    /// The level of each record (hierarchical grid; empty for the uniform grid, where all are level 0).
    pub levels: Vec<u8>,
    /// The cells of each record along y and z, at the level being built.
    pub spans: Vec<[AxisSpan; 2]>,
    /// The buckets of this frame.
    pub layout: Layout,
    /// Bucket `b` is `cells[offsets[b]..offsets[b + 1]]`; `offsets.len() == layout.buckets + 1` and the offsets
    /// ascend from 0 to `cells.len()`.
    pub offsets: Vec<u32>,
    /// The entries copied into their buckets, in bucket order; within a bucket by bin of x, then in the records'
    /// order (both sorts are stable), so nearly sorted by `min.x`. The search sorts a bucket by `min.x` when it is
    /// too large to test pair by pair.
    pub cells: Vec<SweepBox>,
    /// The rows of the level being built: its members, grouped by (row along y, bin of x) (see `build.rs`).
    pub rows: Rows,
    /// The query rows of the level being built: the finer records meeting it in this slab, grouped the same way
    /// (hierarchical grid only; filled only at levels that take queries, and read only there).
    pub query_rows: Rows,
    /// The per-column counters of the row being split into columns.
    pub counts: Vec<u32>,
    /// The pairs this slab owns, found by its search.
    pub pairs: Vec<Pair>,
    /// The sweeps' pair buffer.
    pub sink: SinkBuffer,
    /// What the build and search of this slab did.
    pub tally: Tally,
    /// Buckets with at least one entry, found by the search.
    pub occupied: u64,
    /// The most entries in one bucket.
    pub max_occupancy: u64,
    /// Entries in query buckets (hierarchical grid).
    pub queries: u64,
}

/// Records grouped by row of a level, and within a row by bin of x: row `j` is
/// `entries[offsets[j · X_BINS]..offsets[(j + 1) · X_BINS]]`.
#[derive(Clone, Debug, Default)]
pub struct Rows {
    /// The records, each copied into every row its box covers, with their cells along z.
    pub entries: Vec<RowEntry>,
    /// One more than the (row, bin) keys: where each starts, then the end.
    pub offsets: Vec<u32>,
}

impl Rows {
    /// The entries of row `j`.
    #[inline(always)]
    #[must_use]
    pub fn row(&self, j: usize) -> &[RowEntry] {
        &self.entries[self.offsets[j * X_BINS] as usize..self.offsets[(j + 1) * X_BINS] as usize]
    }
}

impl Slab {
    /// The records of bucket `b`.
    #[inline(always)]
    #[must_use]
    pub fn bucket(&self, b: usize) -> &[SweepBox] {
        &self.cells[self.offsets[b] as usize..self.offsets[b + 1] as usize]
    }

    /// Forget the last frame (keeping the buffers).
    pub fn clear(&mut self) {
        self.records.clear();
        self.levels.clear();
        self.spans.clear();
        self.layout = Layout::default();
        self.offsets.clear();
        self.cells.clear();
        self.pairs.clear();
        self.tally = Tally::default();
        (self.occupied, self.max_occupancy, self.queries) = (0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Level;
    use collide_broadphase::Aabb;
    use collide_math::Vec3;

    #[test]
    fn layouts_give_queries_to_every_present_level_but_the_finest() {
        let mut plan = Plan { level_extent: 1.0, ..Plan::default() };
        plan.levels = (0..4).map(|l| Level::new(2f64.powi(l), [0.0; 2], [1, 1])).collect();
        // Levels 1 and 3 present: level 1 has 4 member buckets, level 3 four members and four queries, row by row.
        let layout = Layout::new(0b1010, &plan);
        assert_eq!(layout.queried, 0b1000);
        assert_eq!((layout.base[1], layout.base[3], layout.base[0]), (0, 4, NONE));
        assert_eq!(layout.buckets, 12);
        let buckets = |l, kind| (0..4).map(|c| layout.bucket(&plan, l, kind, c)).collect::<Vec<_>>();
        assert_eq!(buckets(1, Kind::Members), [0, 1, 2, 3]);
        assert_eq!(buckets(3, Kind::Members), [4, 5, 8, 9]);
        assert_eq!(buckets(3, Kind::Queries), [6, 7, 10, 11]);
        // A level-1 entry over one column goes to its column at level 1 and, as a query, at level 3.
        let r = SweepBox::on::<0>(&Aabb::new(Vec3::splat(0.1), Vec3::splat(0.2)), 0);
        let mut seen = Vec::new();
        layout.for_each_bucket(&plan, &r, 1, |b| seen.push(b));
        assert_eq!(seen, [0, 6]);
        // A level-3 entry only to its own.
        seen.clear();
        layout.for_each_bucket(&plan, &r, 3, |b| seen.push(b));
        assert_eq!(seen, [4]);
        assert_eq!(levels(0b1011).collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(low_mask(63), u64::MAX);
    }
}
