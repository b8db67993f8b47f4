//! Searching a partition's buckets: every pair reported exactly once, by where the bodies are stored, with no
//! deduplication and no check per pair.
//!
//! A body is stored once, in the cell of its min corner at its level. Two small boxes `a`, `b` that overlap have
//! min corners whose cells differ by at most one on each axis: on y, say `a.min.y <= b.min.y`; then
//! `b.min.y <= a.max.y` (they overlap), so `cell(a.min.y) <= cell(b.min.y) <= cell(a.max.y) <= cell(a.min.y) + 1`
//! — the cell function is monotone and `a` is small. Nothing but monotonicity is used, so rounding cannot break
//! it. So a cell's members meet the members of its own cell and of its eight neighbours, and half of those
//! suffice: each cell's bucket is searched within itself, and against the buckets of its four **forward
//! neighbours** `(0, +1)`, `(+1, −1)`, `(+1, 0)`, `(+1, +1)`; the other four are the forward neighbours of the
//! cells around it.
//!
//! The cells are hashed onto a torus, so a bucket may hold several cells folded together. Every torus has at least
//! four columns along each axis (`planner.rs`), so a cell's nine neighbourhood offsets land on nine distinct
//! buckets: two overlapping boxes, whose real offset `d` is within one cell, meet only where one of them is
//! searched against the bucket at offset `d` from its own — from `a` when `d` is forward, from `b` when `−d` is,
//! within one bucket when `d = 0` (each pair of a bucket once) — and never elsewhere. Bodies of folded cells far
//! apart share buckets and are compared in vain, never reported twice. Exactly once, with nothing checked but the
//! overlap.
//!
//! Across levels: a body of a coarser level scans, at each finer present level, the columns whose cells could hold
//! the min corner of a box that overlaps it — one cell before its own min corner's to its max corner's on y and
//! z (the rule above, at the finer level: the finer box is small there, and the coarser one's cells there span
//! its box) — each torus column at most once. A finer body lives in one column, so each such pair is met once;
//! finer bodies never scan, and bodies of one level meet only by the forward stencil. A finer level cut into
//! cubes (`cubes.rs`) is read by its cubes instead: each cube at most once per scanning body, each finer body in
//! one cube, so each pair is met once there too.
//!
//! A bucket is compared with the buckets it meets all against all, eight of its records at a time held in
//! four-lane vectors, against each record of the others in turn: a cell holds a few bodies, and that costs less per
//! pair than a sweep's merge costs per body (a merge step a record in each of nine buckets). The three buckets of
//! the next row are adjacent columns, one range of records. Crowded buckets (`part.rs`) are sorted and merged.

use crate::cubes::{Cubes, Quad};
use crate::output::{Block, HasBlock, Sink};
use crate::part::{CROWD, Part};
use crate::plan::{Level, Plan, levels};
use collide_broadphase::sweep::SweepBox;
use collide_broadphase::{Pair, Tally};
use glam::{IVec4, Vec4};

/// One partition's search: where its pairs go and its counters, kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// Its block of the output and its spill (`output.rs`).
    pub block: Block,
    /// Tests made and entries compared.
    pub tally: Tally,
    /// Buckets holding at least one entry.
    pub occupied: u64,
    /// The most entries in one bucket.
    pub max_occupancy: u64,
    /// What this partition's bodies read of the finer levels.
    pub scans: Scans,
    /// The search's time, in nanoseconds, averaged over the last frames that ran it in parallel: where the
    /// parallel search splits the partitions in two (`grid.rs`). Only the split depends on it, never the output.
    pub nanos: u64,
}

/// What a partition's bodies read of the finer levels: rows of a level's columns, or columns of its cubes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scans {
    /// Rows of finer levels' tori scanned (levels not cut into cubes).
    pub rows: u64,
    /// Columns of cubes read.
    pub cube_columns: u64,
    /// Pairs written without a test: bodies of cubes inside the scanning box.
    pub untested: u64,
}

impl std::ops::AddAssign for Scans {
    fn add_assign(&mut self, o: Self) {
        (self.rows, self.cube_columns, self.untested) =
            (self.rows + o.rows, self.cube_columns + o.cube_columns, self.untested + o.untested);
    }
}

impl HasBlock for Search {
    fn block(&self) -> &Block {
        &self.block
    }
    fn block_mut(&mut self) -> &mut Block {
        &mut self.block
    }
}

/// A range of one partition's records (one bucket, or adjacent buckets of a row) as the search reads it.
#[derive(Clone, Copy)]
struct Span<'a> {
    part: &'a Part,
    start: usize,
    end: usize,
}

impl<'a> Span<'a> {
    fn len(&self) -> usize {
        self.end - self.start
    }

    fn records(&self) -> &'a [SweepBox] {
        &self.part.records[self.start..self.end]
    }
}

/// One row of a level's buckets of one kind: its partition and the offsets of its columns.
#[derive(Clone, Copy)]
struct Row<'a> {
    part: &'a Part,
    /// `columns + 1` offsets.
    offsets: &'a [u32],
}

impl<'a> Row<'a> {
    /// Row `j` (not yet hashed) of level `lv`, from the built `parts`.
    fn new(lv: &Level, parts: &'a [Part], j: i32) -> Self {
        let (p, first) = lv.locate(j, 0);
        let part = &parts[p];
        Self { part, offsets: &part.offsets[first..=first + (1 << lv.bits[1])] }
    }

    /// The records of columns `k0..=k1` of the row (`k0 <= k1`, within the torus).
    #[inline(always)]
    fn span(&self, k0: usize, k1: usize) -> Span<'a> {
        Span { part: self.part, start: self.offsets[k0] as usize, end: self.offsets[k1 + 1] as usize }
    }

    /// The records of the columns `k − 1`, `k`, `k + 1` around column `k`, on the torus: one span, or two where
    /// they wrap around its edge (the second empty when they do not). `columns >= 4`.
    #[inline(always)]
    fn around(&self, k: usize, columns: usize) -> [Span<'a>; 2] {
        let empty = Span { part: self.part, start: 0, end: 0 };
        if k == 0 {
            [self.span(0, 1), self.span(columns - 1, columns - 1)]
        } else if k + 1 == columns {
            [self.span(k - 1, k), self.span(0, 0)]
        } else {
            [self.span(k - 1, k + 1), empty]
        }
    }

    /// The records of `count` consecutive columns from column `k` (any integer, reduced onto the torus), each
    /// column once: one span, or two where they wrap around the torus's edge (the second empty when they do not).
    #[inline(always)]
    fn columns(&self, k: i32, count: usize, columns: usize) -> [Span<'a>; 2] {
        let empty = Span { part: self.part, start: 0, end: 0 };
        if count >= columns {
            return [self.span(0, columns - 1), empty];
        }
        let first = k as usize & (columns - 1);
        match first + count - 1 {
            last if last < columns => [self.span(first, last), empty],
            last => [self.span(first, columns - 1), self.span(0, last - columns)],
        }
    }
}

/// Four lanes of `v` from `q` (the extent arrays have slack entries at their end).
#[inline(always)]
fn lanes(v: &[f32], q: usize) -> Vec4 {
    let four: [f32; 4] = v[q..q + 4].try_into().expect("four lanes");
    Vec4::from(four)
}

/// Bits `0..n` set, for `n <= 8`: the lanes of a block of eight records that hold one.
#[inline(always)]
fn first_lanes(n: usize) -> u32 {
    (1u32 << n.min(8)) - 1
}

/// Candidates waiting to be tested whole, at most this many: a record of the other span and the lanes of the
/// block it met along x. Each comparison writes its candidate into the next slot and takes the slot only when it
/// met something, without a branch on whether it did: which comparisons meet is unpredictable, and that branch
/// mispredicted on most that did (one thread, `uniform` at 10⁵ bodies: 4.6 ms a frame with it, 3.9 without).
const FOUND: usize = 16;

/// A batch of candidates, `(where, lanes)`, collected without a branch on whether each comparison met (see
/// [`FOUND`]): every comparison is written to the next slot, and the slot taken only when its lanes are not empty.
struct Found {
    slots: [(u32, u32); FOUND],
    n: usize,
}

impl Found {
    fn new() -> Self {
        Self { slots: [(0, 0); FOUND], n: 0 }
    }

    /// Collect the comparison at `at` that met the lanes `m` (maybe none); a full batch goes to `flush`.
    #[inline(always)]
    fn push(&mut self, at: u32, m: u32, flush: impl FnOnce(&[(u32, u32)])) {
        self.slots[self.n] = (at, m);
        self.n += usize::from(m != 0);
        if self.n == FOUND {
            flush(&self.slots);
            self.n = 0;
        }
    }

    /// The candidates collected since the last full batch, to `flush`; the batch is left empty.
    #[inline(always)]
    fn drain(&mut self, flush: impl FnOnce(&[(u32, u32)])) {
        if self.n > 0 {
            flush(&self.slots[..self.n]);
            self.n = 0;
        }
    }
}

/// The candidates `found` — record `i` of `b` against the lanes `m` of the block of `a`'s records from `q` —
/// whose extents overlap along x: each tested whole, and kept when the boxes overlap. Returns the boxes tested
/// whole. Out of line, and after the comparisons' loop: a few blocks in a hundred meet one, and inline its
/// registers crowded the loop.
#[cold]
#[inline(never)]
fn test(a: &[SweepBox], q: usize, found: &[(u32, u32)], b: &[SweepBox], out: &mut Sink<'_>) -> u64 {
    let mut tests = 0;
    for &(i, mut m) in found {
        let y = &b[i as usize];
        tests += m.count_ones();
        while m != 0 {
            let x = &a[q + m.trailing_zeros() as usize];
            out.push_if(Pair::new(x.id(), y.id()), x.overlaps(y));
            m &= m - 1;
        }
    }
    u64::from(tests)
}

/// Every overlapping pair of a record of `a` and one of the spans `others` — and, with `inner`, of two records of
/// `a`. All against all, eight records of `a` at a time held in four-lane vectors, against each record of the
/// others in turn, along x; the few that overlap there are tested whole. Returns the boxes tested whole (the
/// comparisons along x play the part of a sweep's order) and the blocks compared along x.
#[inline(never)]
fn all_pairs(a: Span<'_>, inner: bool, others: &[Span<'_>], out: &mut Sink<'_>) -> Tally {
    let (lo, neg_hi, records) = (&a.part.lo, &a.part.neg_hi, &a.part.records);
    let mut found = Found::new();
    let mut tests = 0;
    let mut q = a.start;
    while q < a.end {
        // The block's `−lo` and `hi`: with the other record's `lo` and `−hi` splat, `a.lo <= hi` reads
        // `−hi <= −a.lo`, and each comparison overwrites the splat, not the block's bounds.
        let (neg_lo0, hi0, neg_lo1, hi1) = (-lanes(lo, q), -lanes(neg_hi, q), -lanes(lo, q + 4), -lanes(neg_hi, q + 4));
        let live = first_lanes(a.end - q);
        let meets = |l: f32, nh: f32| {
            let (l, nh) = (Vec4::splat(l), Vec4::splat(nh));
            let low = (nh.cmple(neg_lo0) & l.cmple(hi0)).bitmask();
            let high = (nh.cmple(neg_lo1) & l.cmple(hi1)).bitmask();
            low | high << 4
        };
        if inner {
            // The block's records against the later records of `a`: each pair once.
            let mut flush = |f: &[(u32, u32)]| tests += test(records, q, f, records, out);
            for i in q + 1..a.end {
                found.push(i as u32, meets(lo[i], neg_hi[i]) & live & first_lanes(i - q), &mut flush);
            }
            found.drain(flush);
        }
        for b in others {
            let (blo, bhi) = (&b.part.lo[b.start..b.end], &b.part.neg_hi[b.start..b.end]);
            let mut flush = |f: &[(u32, u32)]| tests += test(records, q, f, b.records(), out);
            for (i, (&l, &nh)) in blo.iter().zip(bhi).enumerate() {
                found.push(i as u32, meets(l, nh) & live, &mut flush);
            }
            found.drain(flush);
        }
        q += 8;
    }
    // Blocks compared: each block of `a` against each later record of `a` and each record of the others.
    let blocks = a.len().div_ceil(8) as u64;
    let against = others.iter().map(|b| b.len() as u64).sum::<u64>() + if inner { a.len() as u64 } else { 0 };
    Tally { pair_tests: tests, work: blocks * against, bytes_touched: blocks * against * 8 }
}

/// The most records a bucket has for [`few_pairs`]: each held splat in two vectors.
const FEW: usize = 4;

/// [`all_pairs`] for a bucket `a` of at most [`FEW`] records (a sparse scene's cells hold one or two): each of
/// its records splat against the others' records four at a time, so that no lane waits on a record `a` does not
/// have. Each block of four of the others is loaded once for all of `a`'s records.
fn few_pairs(a: Span<'_>, inner: bool, others: &[Span<'_>], out: &mut Sink<'_>) -> Tally {
    match a.len() {
        1 => few::<1>(a, inner, others, out),
        2 => few::<2>(a, inner, others, out),
        3 => few::<3>(a, inner, others, out),
        _ => few::<4>(a, inner, others, out),
    }
}

/// [`few_pairs`] for a bucket of exactly `N` records: the comparisons for records it does not have are not made.
#[inline(never)]
fn few<const N: usize>(a: Span<'_>, inner: bool, others: &[Span<'_>], out: &mut Sink<'_>) -> Tally {
    debug_assert_eq!(a.len(), N);
    // Per record of `a`: `−lo` and `hi` splat.
    let splats: [(Vec4, Vec4); N] =
        std::array::from_fn(|k| (Vec4::splat(-a.part.lo[a.start + k]), Vec4::splat(-a.part.neg_hi[a.start + k])));
    let mut tests = 0;
    let mut blocks = 0;
    let mut found = Found::new();
    let mut scan = |b: Span<'_>, below: usize, out: &mut Sink<'_>| {
        let mut flush = |f: &[(u32, u32)]| tests += test_few::<N>(a, f, b.part, out);
        let (lo, neg_hi) = (&b.part.lo, &b.part.neg_hi);
        let mut q = b.start;
        while q < b.end {
            let (l, nh) = (lanes(lo, q), lanes(neg_hi, q));
            // Lanes `4k..4k + 4`: record `k` of `a` against records `q..q + 4` of `b`.
            let mut m = 0;
            for (k, &(nl, h)) in splats.iter().enumerate() {
                m |= (nh.cmple(nl) & l.cmple(h)).bitmask() << (4 * k);
            }
            // The lanes past `b`'s end, and within `a` itself the pairs not after their first record.
            let live = 0x1111 * ((1u32 << (b.end - q).min(4)) - 1);
            let m = m & live & below_mask(q, below);
            blocks += 1;
            found.push(q as u32, m, &mut flush);
            q += 4;
        }
        found.drain(flush);
    };
    if inner && N > 1 {
        scan(Span { part: a.part, start: a.start + 1, end: a.end }, a.start, out);
    }
    for &b in others {
        scan(b, usize::MAX, out);
    }
    Tally { pair_tests: tests, work: blocks, bytes_touched: blocks * 16 }
}

/// The candidates `found` of [`few`] — the block of `b`'s records from `q` against the lanes `m` (bits `4k..4k +
/// 4` for record `k` of `a`) — tested whole, the pairs that overlap kept. Returns the boxes tested.
#[inline(never)]
fn test_few<const N: usize>(a: Span<'_>, found: &[(u32, u32)], b: &Part, out: &mut Sink<'_>) -> u64 {
    let mut tests = 0;
    for &(q, m) in found {
        tests += u64::from(m.count_ones());
        for k in 0..N {
            let mut lanes_k = m >> (4 * k) & 0xF;
            while lanes_k != 0 {
                let (x, y) = (&a.part.records[a.start + k], &b.records[q as usize + lanes_k.trailing_zeros() as usize]);
                out.push_if(Pair::new(x.id(), y.id()), x.overlaps(y));
                lanes_k &= lanes_k - 1;
            }
        }
    }
    tests
}

/// Within one bucket (`first` its first record, `usize::MAX` between buckets): the lanes of a block of four from
/// record `q` whose record comes after record `k` of the bucket, for each `k` (bits `4k..4k + 4`), so that each
/// pair is met once.
#[inline(always)]
fn below_mask(q: usize, first: usize) -> u32 {
    if first == usize::MAX {
        return 0xFFFF;
    }
    let mut mask = 0;
    for k in 0..FEW {
        // Record `first + k` meets the records from `first + k + 1` on: lanes `j` with `q + j > first + k`.
        let from = (first + k + 1).saturating_sub(q).min(4);
        mask |= (0xF << from & 0xF) << (4 * k);
    }
    mask
}

/// Every overlapping pair of record `x` (a span of one, its `−lo` and `hi` splat in `neg_lo`, `hi`) and a record of
/// `b`: `b`'s records four at a time against it along x, the few that overlap there tested whole ([`test_few`]). Returns the boxes tested
/// whole and the blocks compared.
#[inline(never)]
fn one_pairs(x: Span<'_>, neg_lo: Vec4, hi: Vec4, b: Span<'_>, out: &mut Sink<'_>) -> Tally {
    let (lo, neg_hi) = (&b.part.lo, &b.part.neg_hi);
    let (mut tests, mut blocks) = (0, 0);
    let mut found = Found::new();
    let mut flush = |f: &[(u32, u32)]| tests += test_few::<1>(x, f, b.part, out);
    let mut q = b.start;
    while q < b.end {
        let m =
            (lanes(neg_hi, q).cmple(neg_lo) & lanes(lo, q).cmple(hi)).bitmask() & ((1u32 << (b.end - q).min(4)) - 1);
        blocks += 1;
        found.push(q as u32, m, &mut flush);
        q += 4;
    }
    found.drain(flush);
    Tally { pair_tests: tests, work: blocks, bytes_touched: blocks * 32 }
}

/// Every overlapping pair of a body of level `level` (the records of `part`) and a body of a finer present level:
/// each body scans, at each finer level, the columns whose cells could hold the min corner of a box that overlaps
/// it — one cell before its own min corner's to its max corner's, on y and z — each column of the torus at most
/// once. A finer body lives in one column, so each such pair is met once, and nowhere else: bodies of one level
/// meet by the stencil only, and finer bodies never scan. A finer level cut into cubes is read by its cubes
/// instead ([`cube_pairs`]). Returns the work and what was read.
fn scan_finer(
    plan: &Plan,
    level: usize,
    part: &Part,
    parts: &[Part],
    cubes: &[Cubes],
    out: &mut Sink<'_>,
) -> (Tally, Scans) {
    let (mut tally, mut scans) = (Tally::default(), Scans::default());
    for (i, x) in part.records.iter().enumerate() {
        let one = Span { part, start: i, end: i + 1 };
        let (min, max) = (x.min::<0>(), x.max::<0>());
        let c = plan.cells.of_box([min.y, min.z], [max.y, max.z]);
        let (neg_lo, hi) = (Vec4::splat(-x.lo()), Vec4::splat(x.hi()));
        for l in levels(plan.finer(level)) {
            if cubes[l].built {
                let (t, s) = cube_pairs(x, c, &cubes[l], out);
                tally += t;
                scans += s;
                continue;
            }
            let lv = &plan.levels[l];
            let [t_rows, t_columns] = lv.torus();
            let (j0, j1, k0, k1) = ((c.x >> l) - 1, c.z >> l, (c.y >> l) - 1, c.w >> l);
            let count = ((k1 - k0 + 1) as usize).min(t_columns);
            for j in j0..j0 + ((j1 - j0 + 1) as usize).min(t_rows) as i32 {
                scans.rows += 1;
                for span in Row::new(lv, parts, j).columns(k0, count, t_columns) {
                    if span.len() > 0 {
                        tally += one_pairs(one, neg_lo, hi, span, out);
                    }
                }
            }
        }
    }
    (tally, scans)
}

/// Every overlapping pair of record `x` (its level-0 cells on y and z `c`, its `−lo` and `hi` splat in `neg_lo`,
/// `hi`) and a body of `level`, cut into `cubes`: per column of cubes it reaches, the run of cubes along x it
/// reaches, split where the cubes are inside its box — their pairs written without a test — from the rest,
/// tested whole four at a time. Returns the work, the columns read and the pairs written untested.
#[inline(never)]
fn cube_pairs(x: &SweepBox, c: IVec4, cubes: &Cubes, out: &mut Sink<'_>) -> (Tally, Scans) {
    let Some(w) = cubes.window(c, x.lo(), x.hi()) else {
        return (Tally::default(), Scans::default());
    };
    // `x`'s bounds as the records' are compared with them: `−max` against `−min`, `min` against `max`.
    let (min, max) = (x.min::<0>(), x.max::<0>());
    let splat = [max.x, max.y, max.z, -min.x, -min.y, -min.z].map(Vec4::splat);
    let (mut tested, mut written) = (0u64, 0u64);
    // The runs write their pairs unordered; from here on they are put smaller index first at the end.
    let first_slot = out.written();
    // The run along x inside the box, when there is one.
    let (s0, s1) = (w.from[2], w.to[2]);
    let (i0, i1) = (w.inside_from[2].max(s0), w.inside_to[2].min(s1));
    for j in w.from[0]..=w.to[0] {
        let j_inside = w.inside_from[0] <= j && j <= w.inside_to[0];
        for k in w.from[1]..=w.to[1] {
            if !(j_inside && w.inside_from[1] <= k && k <= w.inside_to[1]) {
                tested += cube_run::<WHOLE>(x.id(), &splat, cubes, cubes.run(j, k, s0, s1), out);
            } else if i0 <= i1 {
                // Inside on y and z: only x can fail, and only outside the cubes inside on x too.
                if s0 < i0 {
                    tested += cube_run::<ALONG_X>(x.id(), &splat, cubes, cubes.run(j, k, s0, i0 - 1), out);
                }
                written += cube_run::<UNTESTED>(x.id(), &splat, cubes, cubes.run(j, k, i0, i1), out);
                if i1 < s1 {
                    tested += cube_run::<ALONG_X>(x.id(), &splat, cubes, cubes.run(j, k, i1 + 1, s1), out);
                }
            } else {
                tested += cube_run::<ALONG_X>(x.id(), &splat, cubes, cubes.run(j, k, s0, s1), out);
            }
        }
    }
    out.order_from(first_slot);
    let cube_columns = ((w.to[0] - w.from[0] + 1) * (w.to[1] - w.from[1] + 1)) as u64;
    let work = tested.div_ceil(4) + written + cube_columns;
    let tally = Tally { pair_tests: tested, work, bytes_touched: tested * 28 + written * 4 + cube_columns * 8 };
    (tally, Scans { rows: 0, cube_columns, untested: written })
}

/// How [`cube_run`] tests its records: not at all (cubes inside the box on every axis),
const UNTESTED: u8 = 0;
/// along x only (cubes inside it on y and z: their records overlap it there),
const ALONG_X: u8 = 1;
/// or on all three axes.
const WHOLE: u8 = 2;

/// The records `range` of `cubes` against the box `id` whose bounds are `splat` (`max.x`, `max.y`, `max.z`,
/// `−min.x`, `−min.y`, `−min.z`): whole boxes four at a time, a [`Quad`] at a time, each lane's pair written to
/// the next slot and the slot taken when they overlap, without a branch — within reach of the box most records
/// overlap it; tested along x only, or not at all, as `TEST` says ([`ALONG_X`], [`UNTESTED`]). Returns the
/// records of the range.
///
/// **Why the run takes its slots first:** written through the sink block by block, the loop stored the sink's
/// count back to memory and checked the block's room on every block of four: with the seven arrays the records
/// were kept in then, about 85 instructions a block, where the runs average three to four blocks (`power-law`,
/// 10⁵ bodies: 322 000 runs, 4.3 million records a frame). Given the run's slots at once, the count stays in a
/// register and a block's stores need one check.
#[inline(always)]
fn cube_run<const TEST: u8>(
    id: u32,
    splat: &[Vec4; 6],
    cubes: &Cubes,
    range: std::ops::Range<usize>,
    out: &mut Sink<'_>,
) -> u64 {
    let len = range.len();
    if len == 0 {
        return 0;
    }
    // The quads holding the run; the lanes of the first before it and of the last past it are never kept.
    let (first, last) = (range.start / 4, (range.end - 1) / 4);
    let quads = &cubes.quads[first..=last];
    let (head, tail) = (0xFu32 << (range.start % 4) & 0xF, 0xFu32 >> (3 - (range.end - 1) % 4));
    let kept = |i: usize, q: &Quad| {
        let live = if i == 0 { head } else { 0xF } & if i + 1 == quads.len() { tail } else { 0xF };
        let v = |a: usize| Vec4::from_array(q.bounds[a]);
        match TEST {
            UNTESTED => live,
            ALONG_X => (v(0).cmple(splat[0]) & v(3).cmple(splat[3])).bitmask() & live,
            _ => {
                let m = (v(0).cmple(splat[0]) & v(1).cmple(splat[1]) & v(2).cmple(splat[2]))
                    & (v(3).cmple(splat[3]) & v(4).cmple(splat[4]) & v(5).cmple(splat[5]));
                m.bitmask() & live
            }
        }
    };
    // Built without `Pair::new`'s check: a lane not kept may be the padding (body 0) or another cube's record,
    // either of which can be the scanning body itself; its slot is overwritten, never taken.
    let pair = |b: u32| Pair { a: id.min(b), b: id.max(b) };
    let Some(slots) = out.room(4 * quads.len()) else {
        for (i, q) in quads.iter().enumerate() {
            out.push_4(q.ids.map(pair), kept(i, q));
        }
        return len as u64;
    };
    let mut taken = 0;
    for (i, q) in quads.iter().enumerate() {
        let m = kept(i, q);
        // Lane `k`'s pair goes to the slot after the lanes kept before it: overwritten unless kept. Written as
        // (scanning body, record), smaller index not first: [`cube_pairs`] orders the pairs it kept at its end.
        let (t1, t2, t3) = (m & 1, (m & 1) + (m >> 1 & 1), (m & 1) + (m >> 1 & 1) + (m >> 2 & 1));
        let Some(w) = slots[taken..].first_chunk_mut::<4>() else { unreachable!("4 slots a quad") };
        w[0] = Pair { a: id, b: q.ids[0] };
        w[t1 as usize & 3] = Pair { a: id, b: q.ids[1] };
        w[t2 as usize & 3] = Pair { a: id, b: q.ids[2] };
        w[t3 as usize & 3] = Pair { a: id, b: q.ids[3] };
        taken += (t3 + (m >> 3)) as usize;
    }
    out.take(taken);
    len as u64
}

/// Every overlapping pair of `a` (small: not a crowd) within itself (with `inner`) and with the spans `others`:
/// [`few_pairs`] for a bucket of a few records, else [`all_pairs`].
fn small_pairs(a: Span<'_>, inner: bool, others: &[Span<'_>], out: &mut Sink<'_>) -> Tally {
    if a.len() <= FEW { few_pairs(a, inner, others, out) } else { all_pairs(a, inner, others, out) }
}

/// Record `head` (whose `hi` key is `hi`) against the records of `records` from `from` on (sorted by start, keys
/// beside them) until one starts past it; the pairs that overlap are kept. Returns the boxes tested. Out of line:
/// inline, its registers crowded the merge's loop.
#[cold]
#[inline(never)]
fn scan(head: &SweepBox, hi: u32, keys: &[[u32; 2]], records: &[SweepBox], from: usize, out: &mut Sink<'_>) -> u64 {
    let mut tests = 0;
    for (k, r) in keys[from..].iter().zip(&records[from..]) {
        if k[0] > hi {
            break;
        }
        tests += 1;
        out.push_if(Pair::new(head.id(), r.id()), head.overlaps(r));
    }
    tests
}

/// Every overlapping pair of two records of `a`, a crowd (sorted): along its keys a record and the next overlap
/// along x only now and then, and only then is it scanned against the records after it. Returns the boxes tested.
#[inline(never)]
fn sweep_crowd(a: Span<'_>, pairs: &mut Sink<'_>) -> u64 {
    let (keys, records) = (&a.part.keys[a.start..a.end], a.records());
    let mut tests = 0;
    for (i, w) in keys.windows(2).enumerate() {
        if w[1][0] <= w[0][1] {
            tests += scan(&records[i], w[0][1], keys, records, i + 1, pairs);
        }
    }
    tests
}

/// Every overlapping pair of a record of crowd `a` and one of crowd `b` (both sorted): a merge of their keys along
/// x, without a branch on which head comes first (a coin flip: mispredicted every other step); the head that comes
/// first is scanned against the other crowd only when the two heads overlap along x. Returns the boxes tested.
#[inline(never)]
fn merge_crowds(a: Span<'_>, b: Span<'_>, pairs: &mut Sink<'_>) -> u64 {
    let (ka, kb, ra, rb) = (&a.part.keys[a.start..a.end], &b.part.keys[b.start..b.end], a.records(), b.records());
    let (mut i, mut j, mut tests) = (0, 0, 0);
    while i < ka.len() && j < kb.len() {
        let (x, y) = (ka[i], kb[j]);
        if x[0].max(y[0]) <= x[1].min(y[1]) {
            tests +=
                if x[0] <= y[0] { scan(&ra[i], x[1], kb, rb, j, pairs) } else { scan(&rb[j], y[1], ka, ra, i, pairs) };
        }
        let take = x[0] <= y[0];
        i += usize::from(take);
        j += usize::from(!take);
    }
    tests
}

/// The pairs of `a`, a crowd (sorted: see `part.rs`), within itself and with the member spans `others`: merged
/// with each bucket of the others that is a crowd too, and all against all with each smaller one, the side with
/// fewer blocks of eight held in vectors.
fn crowd_pairs(a: Span<'_>, others: &[Span<'_>], pairs: &mut Sink<'_>) -> Tally {
    let mut tally =
        Tally { pair_tests: sweep_crowd(a, pairs), work: a.len() as u64, bytes_touched: a.len() as u64 * 8 };
    for &span in others {
        for b in buckets(span).into_iter().flatten() {
            if b.len() > CROWD {
                let steps = (a.len() + b.len()) as u64;
                tally += Tally { pair_tests: merge_crowds(a, b, pairs), work: steps, bytes_touched: steps * 8 };
            } else {
                tally += oriented(a, &[b], pairs);
            }
        }
    }
    tally
}

/// Every overlapping pair of a record of `a` and one of the spans `others` (never within `a`): all against all,
/// with `a` in blocks of eight against the others' records, or each of the others in blocks against `a`'s,
/// whichever compares fewer blocks.
fn oriented(a: Span<'_>, others: &[Span<'_>], pairs: &mut Sink<'_>) -> Tally {
    let blocks = |n: usize| n.div_ceil(8);
    let total: usize = others.iter().map(Span::len).sum();
    let swapped: usize = others.iter().map(|b| blocks(b.len()) * a.len()).sum();
    if blocks(a.len()) * total <= swapped {
        small_pairs(a, false, others, pairs)
    } else {
        others
            .iter()
            .filter(|b| b.len() > 0)
            .map(|&b| small_pairs(b, false, &[a], pairs))
            .fold(Tally::default(), |t, u| t + u)
    }
}

/// The non-empty buckets of a span of at most three adjacent columns of one row, for the crowds' sweeps.
fn buckets(s: Span<'_>) -> [Option<Span<'_>>; 3] {
    let offsets = &s.part.offsets;
    let first = offsets.partition_point(|&o| (o as usize) <= s.start).saturating_sub(1);
    std::array::from_fn(|i| {
        let b = first + i;
        (b + 1 < offsets.len() && (offsets[b] as usize) < s.end && offsets[b] < offsets[b + 1]).then(|| Span {
            part: s.part,
            start: offsets[b] as usize,
            end: offsets[b + 1] as usize,
        })
    })
}

/// Find the pairs partition `p` of `plan` owns (see the module docs): written into `slots`, its block of the
/// output, then into `search`'s spill (`output.rs`); `parts` are every partition, built.
pub fn search_part(p: usize, plan: &Plan, parts: &[Part], cubes: &[Cubes], search: &mut Search, slots: &mut [Pair]) {
    let level = usize::from(plan.part_level[p]);
    let lv = &plan.levels[level];
    let Search { block: Block { spill, written, .. }, tally, occupied, max_occupancy, scans, .. } = search;
    let pairs = &mut Sink::new(slots, spill);
    let (mut done, mut entries) = (Tally::default(), 0u64);
    let (mut occupied_here, mut most) = (0u64, 0u64);
    let rows = 1i32 << lv.row_bits();
    let first_row = ((p - lv.first_part as usize) << lv.row_bits()) as i32;
    let columns = 1usize << lv.bits[1];
    for j in first_row..first_row + rows {
        let (here, next) = (Row::new(lv, parts, j), Row::new(lv, parts, j + 1));
        for k in 0..columns {
            let a = here.span(k, k);
            occupied_here += u64::from(a.len() > 0);
            most = most.max(a.len() as u64);
            if a.len() == 0 {
                continue;
            }
            // The forward neighbours: the next column of this row, the three columns around `k` of the next.
            let right = here.span((k + 1) & (columns - 1), (k + 1) & (columns - 1));
            let [below, wrapped] = next.around(k, columns);
            let others = [right, below, wrapped];
            entries += a.len() as u64 + others.iter().map(|s| s.len() as u64).sum::<u64>();
            done += if a.len() > CROWD { crowd_pairs(a, &others, pairs) } else { small_pairs(a, true, &others, pairs) };
        }
    }
    // Bodies of this level against the finer levels' (the hierarchy).
    let (across, scanned) = scan_finer(plan, level, &parts[p], parts, cubes, pairs);
    (*occupied, *max_occupancy, *scans, *written) = (occupied_here, most, scanned, pairs.written());
    // Besides the comparisons: per bucket met its offsets read; per pair 8 B written.
    let buckets = rows as u64 * columns as u64;
    *tally = done + across + Tally::work(entries + buckets, (entries + buckets) * 8 + pairs.len() as u64 * 8);
}
