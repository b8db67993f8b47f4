//! The box-sweep kernel: boxes sorted along one axis, each tested against the boxes that start within its extent
//! there, and the buffer that collects the pairs found without a branch per test.
//!
//! Every sweep-based search of the workspace ends in these loops: the octree's leaves, slabs, strips and layers,
//! sort-and-sweep, and multi-box pruning's regions. What makes them fast is measured on the octree's hardest
//! frame (10⁵ equal bodies pulled to 64× the uniform density, 671 k pairs):
//! - a [`SweepBox`] record holds the box's extent on the sweep axis and, on the two other axes, the four bounds
//!   `[min b1, min b2, −max b1, −max b2]`, so that the overlap test there is one comparison of four lanes against
//!   the other box's `[max b1, max b2, −min b1, −min b2]` (negation is exact). Read from an `Aabb`, the test
//!   needed two shuffles per box: the records cut the octree-nodup frame's instructions by 10%;
//! - a [`PairSink`] takes every candidate and advances its count only when the boxes overlap: whether two boxes
//!   of a dense crowd overlap is a coin flip, and a branch around the write mispredicted on every other test.
//!
//! The test is [`Aabb::overlaps`] on the two cross axes, closed intervals (touching boxes overlap); the sweep
//! itself settles the sweep axis (a box tested starts within the scanning box's extent there). The tests of this
//! module check the four-lane test against `Aabb::overlaps` on random, touching and signed-zero boxes.

use crate::{Aabb, Pair};
use collide_math::Vec3;

mod strips;
pub use strips::{StripScratch, Strips, sweep_strips, sweep_two_strips};

/// A box as the sweeps read it, for a sweep on axis `A` ([`SweepBox::on`]): its extent on `A`, and on the two
/// other axes `b1 = (A + 1) % 3`, `b2 = (A + 2) % 3` the four bounds `[min b1, min b2, −max b1, −max b2]`.
///
/// Build the records where the boxes are copied anyway (a gather into sweep order, a scatter into strips), so
/// that each sweep reads 28 contiguous bytes per box.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SweepBox {
    lo: f32,
    hi: f32,
    cross: [f32; 4],
    id: u32,
}

impl SweepBox {
    /// `aabb`, named `id`, as a record for a sweep on axis `A`.
    #[inline(always)]
    #[must_use]
    pub fn on<const A: usize>(aabb: &Aabb, id: u32) -> Self {
        let (b1, b2) = ((A + 1) % 3, (A + 2) % 3);
        let (m, x) = (&aabb.min, &aabb.max);
        Self { lo: m[A], hi: x[A], cross: [m[b1], m[b2], -x[b1], -x[b2]], id }
    }

    /// Where the box starts on the sweep axis (the order the sweeps need).
    #[inline(always)]
    #[must_use]
    pub fn lo(&self) -> f32 {
        self.lo
    }

    /// Where the box ends on the sweep axis.
    #[inline(always)]
    #[must_use]
    pub fn hi(&self) -> f32 {
        self.hi
    }

    /// The name given to [`SweepBox::on`].
    #[inline(always)]
    #[must_use]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The box's min corner, for a record made by [`SweepBox::on::<A>`](SweepBox::on) (the same `A`).
    #[inline(always)]
    #[must_use]
    pub fn min<const A: usize>(&self) -> Vec3 {
        let mut m = Vec3::ZERO;
        m[A] = self.lo;
        m[(A + 1) % 3] = self.cross[0];
        m[(A + 2) % 3] = self.cross[1];
        m
    }

    /// The box's max corner, for a record made by [`SweepBox::on::<A>`](SweepBox::on) (the same `A`): the
    /// negated bounds negated back, exactly.
    #[inline(always)]
    #[must_use]
    pub fn max<const A: usize>(&self) -> Vec3 {
        let mut m = Vec3::ZERO;
        m[A] = self.hi;
        m[(A + 1) % 3] = -self.cross[2];
        m[(A + 2) % 3] = -self.cross[3];
        m
    }
}

impl SweepBox {
    /// `true` when the two boxes overlap ([`Aabb::overlaps`]: closed intervals), on the sweep axis too: the test
    /// of records that no sweep ordered ([`all_pairs`]).
    #[inline(always)]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        use glam::{Vec4, Vec4Swizzles};
        // The cross axes four lanes at once, all four asked of the mask at once: written lane by lane, the
        // comparisons were vectorised but each lane's bit extracted and combined on its own (eight more
        // instructions a test in `collide-grid`'s crowds).
        let (c, p) = (Vec4::from_array(self.cross), Vec4::from_array(other.cross));
        (self.lo <= other.hi) & (other.lo <= self.hi) & p.cmple(-c.zwxy()).all()
    }
}

/// Every pair of a few records in any order, each tested once ([`SweepBox::overlaps`]), keeping the overlapping
/// pairs `keep` accepts; returns the tests made, `m(m − 1)/2`. For groups so small that sorting them for a sweep
/// costs more than testing them all (a grid cell of a handful of boxes).
///
/// Branch-free like [`sweep`]: every candidate's two positions in `boxes` are written to the sink's buffer and the
/// count advances when the boxes overlap — in a crowd of boxes about a cell apart that is a coin flip, and a branch
/// mispredicted on half the tests. `keep` then runs on the few that overlapped. A group of more than
/// [`ALL_PAIRS_MAX`] records takes the same loop with a branch per test.
#[inline]
pub fn all_pairs(boxes: &[SweepBox], keep: impl Fn(&SweepBox, &SweepBox) -> bool, sink: &mut PairSink<'_>) -> u64 {
    let len = boxes.len();
    if len > ALL_PAIRS_MAX {
        let tests = all_pairs_branching(boxes, &keep, sink);
        settle(sink);
        return tests;
    }
    let PairSink { out, n, buf } = sink;
    if *n + len * len / 2 > SINK {
        flush(out, buf, n);
    }
    let (from, mut m) = (*n, *n);
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            // `m < SINK`: at most len²/2 candidates, room made above; the mask only spares the bounds check.
            buf[m % SINK] = Pair { a: i as u32, b: j as u32 };
            m += usize::from(a.overlaps(b));
        }
    }
    *n = keep_found(boxes, boxes, &keep, buf, from, m);
    if *n >= SINK / 2 {
        flush(out, buf, n);
    }
    (len * len.saturating_sub(1) / 2) as u64
}

/// Every pair of one record of `xs` and one of `ys`, in any order, each tested once, keeping the overlapping
/// pairs `keep` accepts (called as `keep(box of xs, box of ys)`); returns the tests made, `|xs| · |ys|`. The
/// two-list form of [`all_pairs`], branch-free up to [`ALL_PAIRS_MAX`] records in each list.
#[inline]
pub fn all_pairs_two(
    xs: &[SweepBox],
    ys: &[SweepBox],
    keep: impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
) -> u64 {
    if xs.len() > ALL_PAIRS_MAX || ys.len() > ALL_PAIRS_MAX {
        let mut tests = 0;
        for a in xs {
            tests += all_pairs_two_branching(a, ys, &keep, sink);
        }
        settle(sink);
        return tests;
    }
    let PairSink { out, n, buf } = sink;
    if *n + xs.len() * ys.len() > SINK {
        flush(out, buf, n);
    }
    let (from, mut m) = (*n, *n);
    for (i, a) in xs.iter().enumerate() {
        for (j, b) in ys.iter().enumerate() {
            buf[m % SINK] = Pair { a: i as u32, b: j as u32 };
            m += usize::from(a.overlaps(b));
        }
    }
    *n = keep_found(xs, ys, &keep, buf, from, m);
    if *n >= SINK / 2 {
        flush(out, buf, n);
    }
    (xs.len() * ys.len()) as u64
}

/// The most records per list that [`all_pairs`] and [`all_pairs_two`] test without a branch: their candidates
/// must fit the sink's buffer (32 · 32 ≤ 1024).
pub const ALL_PAIRS_MAX: usize = 32;

/// The overlapping candidates `buf[from..to]`, written as positions in `xs` and `ys`, become the pairs of their
/// ids that `keep` accepts, packed from `from`; returns the new end.
#[inline(always)]
fn keep_found(
    xs: &[SweepBox],
    ys: &[SweepBox],
    keep: &impl Fn(&SweepBox, &SweepBox) -> bool,
    buf: &mut [Pair; SINK],
    from: usize,
    to: usize,
) -> usize {
    let mut w = from;
    for k in from..to {
        let p = buf[k];
        let (a, b) = (&xs[p.a as usize], &ys[p.b as usize]);
        if keep(a, b) {
            buf[w] = Pair { a: a.id, b: b.id };
            w += 1;
        }
    }
    w
}

/// [`all_pairs`] for a large group: a branch and a flush check per pair found.
#[cold]
fn all_pairs_branching(
    boxes: &[SweepBox],
    keep: &impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
) -> u64 {
    let mut tests = 0;
    for (i, a) in boxes.iter().enumerate() {
        tests += all_pairs_two_branching(a, &boxes[i + 1..], keep, sink);
    }
    tests
}

/// Flush a sink at least half full: the branch-free loops ([`scan`]) start below half.
fn settle(sink: &mut PairSink<'_>) {
    if sink.n >= SINK / 2 {
        flush(sink.out, sink.buf, &mut sink.n);
    }
}

/// `a` against every record of `ys`, a branch per test.
fn all_pairs_two_branching(
    a: &SweepBox,
    ys: &[SweepBox],
    keep: &impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
) -> u64 {
    let PairSink { out, n, buf } = sink;
    for b in ys {
        if a.overlaps(b) && keep(a, b) {
            buf[*n] = Pair { a: a.id, b: b.id };
            *n += 1;
            if *n == SINK {
                flush(out, buf, n);
            }
        }
    }
    ys.len() as u64
}

/// Sort sweep records by where they start on their sweep axis. O(m log m).
pub fn sort_by_lo(v: &mut [SweepBox]) {
    v.sort_unstable_by(|a, b| a.lo.total_cmp(&b.lo));
}

/// Pairs a [`PairSink`] holds before it moves them to the output.
const SINK: usize = 1024;

/// The memory of a [`PairSink`]: kept by the caller across calls (one per parallel chunk), because a buffer on
/// the stack per sweep was zeroed on every call — 2% of the octree's dense frame.
#[derive(Clone, Debug)]
pub struct SinkBuffer(Box<[Pair; SINK]>);

impl Default for SinkBuffer {
    fn default() -> Self {
        Self(Box::new([Pair::default(); SINK]))
    }
}

/// Pairs found by the sweeps, gathered in a buffer before they go to the output; the rest go out when it drops.
///
/// Every candidate is written and the count advances only when the boxes overlap. Doing that on the output
/// `Vec` itself (a push, then a truncate) reloaded and stored its length through the pointer on every test; here
/// the count stays in a register and the `Vec` is touched once per `SINK / 2` pairs or more. Pairs go out in
/// order (`a < b`), which only the kept ones pay for.
pub struct PairSink<'a> {
    out: &'a mut Vec<Pair>,
    n: usize,
    buf: &'a mut [Pair; SINK],
}

impl<'a> PairSink<'a> {
    /// A sink appending to `out` through `buffer`.
    pub fn new(out: &'a mut Vec<Pair>, buffer: &'a mut SinkBuffer) -> Self {
        Self { out, n: 0, buf: &mut buffer.0 }
    }
}

impl Drop for PairSink<'_> {
    fn drop(&mut self) {
        flush(self.out, self.buf, &mut self.n);
    }
}

/// Pairs among `boxes`, sorted by [`lo`](SweepBox::lo): each box against those that start within its extent on
/// the sweep axis; returns the box tests made. O(m + tests).
#[inline]
pub fn sweep(boxes: &[SweepBox], sink: &mut PairSink<'_>) -> u64 {
    // The sparse sweeps flush only a full buffer, so a sink handed on from one may hold more than half: its room
    // check below assumes less.
    settle(sink);
    if boxes.len() <= SINK / 2 { sweep_in::<false>(boxes, sink) } else { sweep_in::<true>(boxes, sink) }
}

/// [`sweep`]; `ROOM`: whether a scan can overflow the sink ([`scan`]).
#[inline(always)]
fn sweep_in<const ROOM: bool>(boxes: &[SweepBox], sink: &mut PairSink<'_>) -> u64 {
    let PairSink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    for (i, a) in boxes.iter().enumerate() {
        tests += scan::<ROOM>(a, &boxes[i + 1..], out, buf, &mut m);
    }
    *n = m;
    tests
}

/// [`sweep`] for sweeps where few candidates overlap, for the scanning boxes `scanners` only (each of
/// `boxes[scanners]` against the boxes after it: disjoint ranges covering `0..boxes.len()` find every pair once,
/// so a parallel sweep cuts the scanners into chunks), keeping only the overlapping pairs that `keep` accepts
/// (an ownership rule, say: see `ownership`). A branch per candidate, almost never taken, instead of a write per
/// candidate: on a sweep axis crowded with boxes far apart on the other two axes (one sort-and-sweep of a 3-D
/// scene: 5 000 candidates per pair found) the branch predicts well and the writes of the branch-free loop are
/// pure cost — 13% more instructions for sort-and-sweep; in a dense crowd, where an overlap is a coin flip, the
/// branch-free [`sweep`] wins. The tests counted are the same.
#[inline]
pub fn sweep_sparse(
    boxes: &[SweepBox],
    scanners: std::ops::Range<usize>,
    keep: impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
) -> u64 {
    let PairSink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    for i in scanners {
        tests += scan_sparse(&boxes[i], &boxes[i + 1..], &keep, out, buf, &mut m);
    }
    *n = m;
    tests
}

/// [`sweep_two`] for sweeps where few candidates overlap, keeping only the overlapping pairs that `keep` accepts
/// (called as `keep(box of xs, box of ys)`): the two-list form of [`sweep_sparse`], for structures that keep two
/// kinds of entries apart so as never to test two entries of one kind against each other (a grid cell's bodies
/// entered from a neighbouring cell, a coarse level's bodies against finer ones). Every overlapping pair of one
/// box of `xs` and one of `ys` is tested exactly once. O(|xs| + |ys| + tests).
#[inline]
pub fn sweep_two_sparse(
    xs: &[SweepBox],
    ys: &[SweepBox],
    keep: impl Fn(&SweepBox, &SweepBox) -> bool,
    sink: &mut PairSink<'_>,
) -> u64 {
    let PairSink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    let (mut xs, mut ys) = (xs, ys);
    while let (Some(x), Some(y)) = (xs.first(), ys.first()) {
        if x.lo <= y.lo {
            xs = &xs[1..];
            tests += scan_sparse(x, ys, &keep, out, buf, &mut m);
        } else {
            ys = &ys[1..];
            tests += scan_sparse(y, xs, &|a: &SweepBox, b: &SweepBox| keep(b, a), out, buf, &mut m);
        }
    }
    *n = m;
    tests
}

/// Test `a` against the boxes of `rest` (sorted by `lo`, none starting before `a`) until one starts past `a`'s
/// extent on the sweep axis, writing the overlapping pairs `keep` accepts; returns the tests made. A branch per
/// candidate and a flush check per pair kept ([`sweep_sparse`]).
#[inline(always)]
fn scan_sparse(
    a: &SweepBox,
    rest: &[SweepBox],
    keep: &impl Fn(&SweepBox, &SweepBox) -> bool,
    out: &mut Vec<Pair>,
    buf: &mut [Pair; SINK],
    m: &mut usize,
) -> u64 {
    let c = a.cross;
    let q = [-c[2], -c[3], -c[0], -c[1]];
    let mut k = 0;
    for b in rest.iter().take_while(|b| b.lo <= a.hi) {
        let p = b.cross;
        if (p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]) && keep(a, b) {
            buf[*m % SINK] = Pair { a: a.id, b: b.id };
            *m += 1;
            if *m == SINK {
                flush(out, buf, m);
            }
        }
        k += 1;
    }
    k
}

/// Pairs between `xs` and `ys`, both sorted by [`lo`](SweepBox::lo): walk both in that order; each box is tested
/// against the boxes of the other list that start at or after it and within its extent, so every overlapping
/// pair is tested exactly once (ties go to `xs`' box, which then includes the `ys` box of equal start). Returns
/// the box tests made. O(|xs| + |ys| + tests).
#[inline]
pub fn sweep_two(xs: &[SweepBox], ys: &[SweepBox], sink: &mut PairSink<'_>) -> u64 {
    settle(sink); // as in `sweep`
    if xs.len() + ys.len() <= SINK / 2 {
        sweep_two_in::<false>(xs, ys, sink)
    } else {
        sweep_two_in::<true>(xs, ys, sink)
    }
}

#[inline(always)]
fn select<T: Copy>(c: bool, t: T, f: T) -> T {
    [f, t][usize::from(c)]
}

/// [`sweep_two`]; `ROOM`: whether a scan can overflow the sink ([`scan`]).
#[inline(always)]
fn sweep_two_in<const ROOM: bool>(xs: &[SweepBox], ys: &[SweepBox], sink: &mut PairSink<'_>) -> u64 {
    let PairSink { out, n, buf } = sink;
    let (mut m, mut tests) = (*n, 0);
    let (mut xs, mut ys) = (xs, ys);
    while let (Some(x), Some(y)) = (xs.first(), ys.first()) {
        let take_x = x.lo <= y.lo;
        let (a, rest) = select(take_x, (x, ys), (y, xs));
        xs = &xs[usize::from(take_x)..];
        ys = &ys[usize::from(!take_x)..];
        tests += scan::<ROOM>(a, rest, out, buf, &mut m);
    }
    *n = m;
    tests
}

/// Test `a` against the boxes of `rest` (sorted by `lo`, none starting before `a`) until one starts past `a`'s
/// extent on the sweep axis; returns the tests made. The boxes tested start within `a`'s extent there, so they
/// overlap it on that axis: only the other two are compared, in one four-lane comparison ([`SweepBox`]).
///
/// `n` is the [`PairSink`]'s count, kept in a register by the caller, and below `SINK / 2` between scans (the
/// sink is flushed once half full). The inner loop has neither a bounds check nor a check for a full buffer
/// per test: a sweep whose lists hold at most `SINK / 2` boxes cannot fill the buffer in one scan (`ROOM` off);
/// a larger one (`ROOM` on) runs the loop over at most as many boxes as the buffer has room for and goes on
/// past it on a slow path.
#[inline(always)]
fn scan<const ROOM: bool>(
    a: &SweepBox,
    rest: &[SweepBox],
    out: &mut Vec<Pair>,
    buf: &mut [Pair; SINK],
    n: &mut usize,
) -> u64 {
    let limit = a.hi;
    let c = a.cross;
    let q = [-c[2], -c[3], -c[0], -c[1]];
    let aid = a.id;
    let room = if ROOM { rest.len().min(SINK - *n) } else { rest.len() };
    let mut m = *n;
    let mut k = 0;
    for b in &rest[..room] {
        if b.lo > limit {
            break;
        }
        debug_assert!(a.lo <= b.lo, "the sweep's order");
        // `m < SINK` here (`m` starts below `SINK / 2` and gains at most one per test, of at most `room`, which
        // is below `SINK / 2` without `ROOM`): the mask only spares the bounds check.
        buf[m % SINK] = Pair { a: aid, b: b.id };
        let p = b.cross;
        m += usize::from((p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]));
        k += 1;
    }
    if ROOM && k == room && room < rest.len() {
        // The buffer is full and `rest` goes on.
        flush(out, buf, &mut m);
        k += scan_slow(a, &rest[k..], out, buf, &mut m);
    }
    debug_assert!(m <= SINK, "the sink overflowed");
    if m >= SINK / 2 {
        flush(out, buf, &mut m);
    }
    *n = m;
    k as u64
}

/// [`scan`] past a full buffer: `a` against `rest` until a box starts past its extent, a flush check per test.
#[cold]
#[inline(never)]
fn scan_slow(a: &SweepBox, rest: &[SweepBox], out: &mut Vec<Pair>, buf: &mut [Pair; SINK], n: &mut usize) -> usize {
    let c = a.cross;
    let q = [-c[2], -c[3], -c[0], -c[1]];
    let mut k = 0;
    for b in rest.iter().take_while(|b| b.lo <= a.hi) {
        let p = b.cross;
        buf[*n % SINK] = Pair { a: a.id, b: b.id };
        *n += usize::from((p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]));
        if *n == SINK {
            flush(out, buf, n);
        }
        k += 1;
    }
    k
}

/// Move the `n` pairs kept in `buf` to `out`, each put in order (`a < b`).
fn flush(out: &mut Vec<Pair>, buf: &[Pair; SINK], n: &mut usize) {
    out.extend(buf[..*n].iter().map(|p| Pair::new(p.a, p.b)));
    *n = 0;
}

#[cfg(test)]
mod tests;
