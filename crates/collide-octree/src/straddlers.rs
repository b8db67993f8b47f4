//! Pairs among the own bodies of an inner nodup node, slab by slab.
//!
//! Every own body of an inner node straddles at least one of the node's three central planes, and the bodies
//! straddling the x plane all overlap in x: among them a sweep on x prunes nothing. At the root of the dense
//! cluster (10⁵ bodies pulled to 1/4 of their cloud) that made 5.6 M of the frame's 20.6 M box tests. So the
//! bodies are split by the first plane they straddle into three slabs, each swept along an axis it spreads over:
//! the x slab on y, the y and z slabs on x. Two bodies of different slabs can only meet near the line
//! where their planes cross; each side's candidates are those within a window around that line (the other
//! slab's widest extent across its plane, so the filter never drops an overlapping pair), swept along the line. A
//! large slab is swept strip by strip ([`strip_pairs`]): 2.26 M tests of the dense frame became 0.87 M. The
//! same slabs are paired with the layers of the node's subtree ([`crate::nodup`]).

use crate::nodup::{Rec, Sink, recs, sweep, sweep_two};
use crate::tree::{Item, sides};
use collide_math::Vec3;

/// Below this many own bodies the plain sweep on x is cheaper than pairing slabs.
pub(crate) const SLABS_MIN: usize = 32;

/// Scratch of [`slab_pairs`], kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Slabs {
    near: [Vec<Rec>; 2],
    strips: Strips,
}

/// Scratch of [`strip_pairs`].
#[derive(Debug, Default)]
pub(crate) struct Strips {
    /// The bodies grouped by strip, and by pairs of strips (`2j`, `2j + 1`); both start where `starts[2j]` says.
    single: Vec<Rec>,
    double: Vec<Rec>,
    starts: Vec<usize>,
    /// Write positions of the scatter.
    at: Vec<usize>,
}

/// The axis each slab of [`split`] is sorted on: the x slab on y, the y and z slabs on x.
pub(crate) const SWEEP_AXIS: [u8; 3] = [1, 0, 0];

/// Append `own` (sorted by `min.x`, each straddling at least one plane through `c`) to `dst` as three slabs, by
/// the first plane each body straddles, each sorted on an axis it spreads over ([`SWEEP_AXIS`]: the x slab on y,
/// the y and z slabs on x, the order `own` is already in, so only the x slab is sorted). Returns the slabs' bounds in `dst`
/// (slab `s` is `dst[b[s]..b[s + 1]]`). [`slab_pairs`] pairs them among themselves; the nodup search pairs each
/// with its layer of the subtree.
pub(crate) fn split(own: &[Item], c: Vec3, dst: &mut Vec<Item>) -> [usize; 4] {
    let base = dst.len();
    let mut counts = [0usize; 3];
    let codes = own.iter().map(|it| {
        let (lower, upper) = sides(it.aabb.min, it.aabb.max, c);
        debug_assert!(lower & upper != 0, "an inner node's own body straddles one of its planes");
        ((lower & upper).trailing_zeros() as usize).min(2)
    });
    for s in codes.clone() {
        counts[s] += 1;
    }
    let b = [base, base + counts[0], base + counts[0] + counts[1], base + own.len()];
    dst.resize(b[3], Item::default());
    let mut at = [b[0], b[1], b[2]];
    for (it, s) in own.iter().zip(codes) {
        dst[at[s]] = *it;
        at[s] += 1;
    }
    // `own` is sorted by min.x and the scatter is stable, so the y and z slabs already are.
    sort_on::<1>(&mut dst[b[0]..b[1]]);
    b
}

/// Pairs among the own bodies of an inner node split at `c`, given as the slabs of [`split`]; returns the box
/// tests made.
pub(crate) fn slab_pairs(sx: &[Item], sy: &[Item], sz: &[Item], c: Vec3, s: &mut Slabs, out: &mut Sink<'_>) -> u64 {
    let Slabs { near: [n0, n1], strips } = s;
    let mut tests = strip_pairs::<1, 2>(sx, strips, out)
        + strip_pairs::<0, 2>(sy, strips, out)
        + strip_pairs::<0, 1>(sz, strips, out);
    let (wx, wy, wz) = (widest(sx, 0), widest(sy, 1), widest(sz, 2));

    // x slab × y slab, near the line x = c.x, y = c.y: along z.
    near::<1, 2>(sx, c.y, wy, n0);
    near::<0, 2>(sy, c.x, wx, n1);
    sort_recs(n0);
    sort_recs(n1);
    tests += sweep_two(n0, n1, out);
    // y slab × z slab, near y = c.y, z = c.z: along x, the order both slabs are in.
    near::<2, 0>(sy, c.z, wz, n0);
    near::<1, 0>(sz, c.y, wy, n1);
    tests += sweep_two(n0, n1, out);
    // x slab × z slab, near x = c.x, z = c.z: along y.
    near::<2, 1>(sx, c.z, wz, n0);
    near::<0, 1>(sz, c.x, wx, n1);
    sort_recs(n1);
    tests + sweep_two(n0, n1, out)
}

/// Pairs among a leaf's bodies (sorted by `min.x`): a sweep on x, in strips across y when the leaf is large.
pub(crate) fn leaf_pairs(own: &[Item], s: &mut Slabs, out: &mut Sink<'_>) -> u64 {
    strip_pairs::<0, 1>(own, &mut s.strips, out)
}

/// Below this many bodies a slab is swept whole.
const STRIPS_MIN: usize = 64;

/// Pairs among `v`, a slab's bodies sorted by `min` on axis `A` and spread over axes `A` and `B`. A sweep on `A`
/// alone tests each body against every body of the slab within its extent on `A`, however far away on `B`: at
/// the root of the dense cluster that was 15 tests per pair, and every level of the tree costs the root's. So the
/// slab is cut on `B` into strips at least as wide as its widest body (by `min`; a stable scatter keeps each
/// strip sorted on `A`); a body can only meet bodies of its own strip and the neighbouring ones. The strips are
/// taken two by two: each pair of strips (`2j`, `2j + 1`), scattered together and so still sorted, is swept as
/// one, and strip `2j + 1` is swept against strip `2j + 2`. The same box tests as sweeping each strip and then
/// each strip against the next, but a body is the scanning side of two scans instead of three (a scan's setup
/// costs as much as a few tests): 3.5% of the instructions of the dense frame. See [`StripCut`] for the width.
fn strip_pairs<const A: usize, const B: usize>(v: &[Item], sc: &mut Strips, out: &mut Sink<'_>) -> u64 {
    let Strips { single, double, starts, at } = sc;
    if v.len() < STRIPS_MIN {
        recs::<A>(v, single);
        return sweep(single, out);
    }
    let Some(cut) = StripCut::across::<B>(v) else {
        recs::<A>(v, single);
        return sweep(single, out);
    };
    let (n, strip) = (cut.n, |it: &Item| cut.strip::<B>(it));
    bucket_starts(v.iter().map(strip), n, starts);
    // Stable scatters of `v` (sorted on `A`) into strips and into pairs of strips, both sorted on `A`.
    single.clear();
    single.resize(v.len(), Rec::default());
    double.clear();
    double.resize(v.len(), Rec::default());
    at.clear();
    at.extend_from_slice(&starts[..n]);
    // Then, at `n + j`, the write position in pair of strips `j`.
    at.extend((0..n).step_by(2).map(|j| starts[j]));
    for it in v {
        let k = strip(it);
        let r = Rec::on::<A>(it);
        single[at[k]] = r;
        at[k] += 1;
        double[at[n + k / 2]] = r;
        at[n + k / 2] += 1;
    }
    let mut tests = 0;
    for j in (0..n).step_by(2) {
        let end = starts[(j + 2).min(n)];
        tests += sweep(&double[starts[j]..end], out);
        if j + 2 < n {
            tests += sweep_two(&single[starts[j + 1]..end], &single[end..starts[j + 3]], out);
        }
    }
    tests
}

/// Strips across axis `B`: `n` of them, `s` wide from `lo`, each at least as wide as the widest body there,
/// so that two overlapping boxes start in the same or neighbouring strips. The 1% slack on the width covers the
/// rounding of the strip index (at most 1025 strips, so it is off by less than 10⁻³ of a strip).
pub(crate) struct StripCut {
    lo: f32,
    s: f32,
    pub(crate) n: usize,
}

impl StripCut {
    /// The strips for `v` (by `min` on `B`); `None` when there would be fewer than three (one sweep is as good)
    /// or the bodies have no extent to size them by.
    pub(crate) fn across<'a, const B: usize>(v: impl IntoIterator<Item = &'a Item>) -> Option<Self> {
        let (mut lo, mut hi, mut w) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f32);
        for it in v {
            lo = lo.min(it.aabb.min[B]);
            hi = hi.max(it.aabb.min[B]);
            w = w.max(it.aabb.max[B] - it.aabb.min[B]);
        }
        let s = (w * 1.01).max((hi - lo) / 1024.0);
        let n = ((hi - lo) / s) as usize + 1;
        (s > 0.0 && s.is_finite() && n >= 3).then_some(Self { lo, s, n })
    }

    /// The strip `it` starts in.
    #[inline(always)]
    pub(crate) fn strip<const B: usize>(&self, it: &Item) -> usize {
        (((it.aabb.min[B] - self.lo) / self.s) as usize).min(self.n - 1)
    }
}

/// `starts[i]..starts[i + 1]` (of `n + 1`): where bucket `i` of the bucket numbers `keys` goes, in order.
pub(crate) fn bucket_starts(keys: impl Iterator<Item = usize>, n: usize, starts: &mut Vec<usize>) {
    starts.clear();
    starts.resize(n + 1, 0);
    for k in keys {
        starts[k + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
}

pub(crate) fn sort_on<const A: usize>(v: &mut [Item]) {
    v.sort_unstable_by(|a, b| a.aabb.min[A].total_cmp(&b.aabb.min[A]));
}

/// Sort sweep records by where they start on their sweep axis.
pub(crate) fn sort_recs(v: &mut [Rec]) {
    v.sort_unstable_by(|a, b| a.lo().total_cmp(&b.lo()));
}

/// Pairs among `v` (sorted by `min` on axis `A`) in one sweep on `A`.
/// Pairs among `v` (sorted by `min` on axis `A`) in one sweep, through the scratch's sweep records.
pub(crate) fn sweep_items<const A: usize>(v: &[Item], s: &mut Slabs, out: &mut Sink<'_>) -> u64 {
    recs::<A>(v, &mut s.strips.single);
    sweep(&s.strips.single, out)
}

/// The widest extent on `axis` in `v`, grown by a little more than the rounding of `max − min`.
pub(crate) fn widest(v: &[Item], axis: usize) -> f32 {
    let w = v.iter().fold(0.0f32, |w, it| w.max(it.aabb.max[axis] - it.aabb.min[axis]));
    w * (1.0 + 1.0 / (1 << 20) as f32)
}

/// The interval `[p − w, p + w]` that holds every body straddling the plane at `p` with extent at most `w`
/// across it, grown by a slack that covers the rounding of `p ± w`: only bodies meeting it can overlap one.
pub(crate) fn layer(p: f32, w: f32) -> (f32, f32) {
    let slack = (p.abs() + w) * (1.0 / (1 << 20) as f32);
    (p - w - slack, p + w + slack)
}

/// Into `out`, in order, as sweep records on axis `S`, the items of `v` whose extent on axis `A` meets
/// `[p − w, p + w]`: a body straddling the plane at `p` with extent at most `w` lies inside that interval, so
/// only these can overlap it ([`layer`]).
fn near<const A: usize, const S: usize>(v: &[Item], p: f32, w: f32, out: &mut Vec<Rec>) {
    out.clear();
    let (lo, hi) = layer(p, w);
    out.extend(v.iter().filter(|it| it.aabb.max[A] >= lo && it.aabb.min[A] <= hi).map(Rec::on::<S>));
}
