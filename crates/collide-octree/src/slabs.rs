//! Kernel: the own bodies of an inner nodup node split into three slabs by the plane they straddle, and the
//! pairs among them, slab by slab and strip by strip.
//!
//! Every own body of an inner node straddles at least one of the node's three central planes, and the bodies
//! straddling the x plane all overlap in x: among them a sweep on x prunes nothing. At the root of the dense
//! cluster (10⁵ bodies pulled to 1/4 of their cloud) that made 5.6 M of the frame's 20.6 M box tests. So the
//! bodies are split by the first plane they straddle into three slabs, each swept along an axis it spreads over:
//! the x slab on y, the y and z slabs on x. Two bodies of different slabs can only meet near the line
//! where their planes cross; each side's candidates are those within a window around that line (the other
//! slab's widest extent across its plane, so the filter never drops an overlapping pair), swept along the line. A
//! large slab is swept strip by strip ([`strip_pairs`]): 2.26 M tests of the dense frame became 0.87 M. The
//! same slabs are paired with the layers of the node's subtree (`nodup.rs`) and indexed for the moving bodies'
//! walk of a static tree (`walk.rs`).

use crate::strips::{RECORD_BYTES, StripCut, bucket_starts, record, records, sort_on};
use crate::tree::{ITEM_BYTES, Item, layer, sides, widest};
use collide_broadphase::Tally;
use collide_broadphase::sweep::{PairSink, SweepBox, sort_by_lo, sweep, sweep_two};
use collide_math::Vec3;

/// Below this many own bodies an inner node's bodies are paired by one plain sweep on x rather than slab by slab.
pub(crate) const SLAB_PAIRING_MIN: usize = 32;

/// The scratch of the slab and strip pairings, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct SlabScratch {
    /// Each side's bodies near the line where two slabs' planes cross ([`slab_pairs`]).
    near: [Vec<SweepBox>; 2],
    strips: StripScratch,
}

/// Scratch of [`strip_pairs`].
#[derive(Debug, Default)]
struct StripScratch {
    /// The bodies grouped by strip, and by pairs of strips (`2j`, `2j + 1`); both start where `starts[2j]` says.
    single: Vec<SweepBox>,
    double: Vec<SweepBox>,
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

/// Pairs among the own bodies of an inner node split at `c`, given as the slabs of [`split`]: each slab in
/// strips, then each two slabs near the line where their planes cross.
pub(crate) fn slab_pairs(
    sx: &[Item],
    sy: &[Item],
    sz: &[Item],
    c: Vec3,
    s: &mut SlabScratch,
    out: &mut PairSink<'_>,
) -> Tally {
    let SlabScratch { near: [n0, n1], strips } = s;
    let mut tally = strip_pairs::<1, 2>(sx, strips, out);
    tally += strip_pairs::<0, 2>(sy, strips, out);
    tally += strip_pairs::<0, 1>(sz, strips, out);
    let (wx, wy, wz) = (widest(sx, 0), widest(sy, 1), widest(sz, 2));
    let mut tests = 0;
    // x slab × y slab, near the line x = c.x, y = c.y: along z.
    near::<1, 2>(sx, c.y, wy, n0);
    near::<0, 2>(sy, c.x, wx, n1);
    let mut made = n0.len() + n1.len();
    sort_by_lo(n0);
    sort_by_lo(n1);
    tests += sweep_two(n0, n1, out);
    // y slab × z slab, near y = c.y, z = c.z: along x, the order both slabs are in.
    near::<2, 0>(sy, c.z, wz, n0);
    near::<1, 0>(sz, c.y, wy, n1);
    made += n0.len() + n1.len();
    tests += sweep_two(n0, n1, out);
    // x slab × z slab, near x = c.x, z = c.z: along y.
    near::<2, 1>(sx, c.z, wz, n0);
    near::<0, 1>(sz, c.x, wx, n1);
    made += n0.len() + n1.len();
    sort_by_lo(n1);
    tests += sweep_two(n0, n1, out);
    // Each slab read three times (its widest extent, two filters), the near records written.
    let read = 3 * (sx.len() + sy.len() + sz.len()) as u64;
    tally
        + Tally {
            pair_tests: tests,
            work: read + made as u64,
            bytes_touched: read * ITEM_BYTES + made as u64 * RECORD_BYTES,
        }
}

/// Pairs among a leaf's bodies (sorted by `min.x`): a sweep on x, in strips across y when the leaf is large.
pub(crate) fn leaf_pairs(own: &[Item], s: &mut SlabScratch, out: &mut PairSink<'_>) -> Tally {
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
fn strip_pairs<const A: usize, const B: usize>(v: &[Item], sc: &mut StripScratch, out: &mut PairSink<'_>) -> Tally {
    let StripScratch { single, double, starts, at } = sc;
    let m = v.len() as u64;
    let cut = if v.len() < STRIPS_MIN { None } else { StripCut::across::<B>(v) };
    let Some(cut) = cut else {
        records::<A>(v, single);
        return Tally { pair_tests: sweep(single, out), work: m, bytes_touched: m * (ITEM_BYTES + RECORD_BYTES) };
    };
    let (n, strip) = (cut.n, |it: &Item| cut.strip::<B>(it));
    bucket_starts(v.iter().map(strip), n, starts);
    // Stable scatters of `v` (sorted on `A`) into strips and into pairs of strips, both sorted on `A`.
    single.clear();
    single.resize(v.len(), SweepBox::default());
    double.clear();
    double.resize(v.len(), SweepBox::default());
    at.clear();
    at.extend_from_slice(&starts[..n]);
    // Then, at `n + j`, the write position in pair of strips `j`.
    at.extend((0..n).step_by(2).map(|j| starts[j]));
    for it in v {
        let k = strip(it);
        let r = record::<A>(it);
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
    // Read twice (the cut, the scatter), written twice as records.
    Tally { pair_tests: tests, work: 2 * m, bytes_touched: 2 * m * (ITEM_BYTES + RECORD_BYTES) }
}

/// Pairs among `v` (sorted by `min` on axis `A`) in one sweep on `A`.
pub(crate) fn sweep_whole<const A: usize>(v: &[Item], s: &mut SlabScratch, out: &mut PairSink<'_>) -> Tally {
    records::<A>(v, &mut s.strips.single);
    let m = v.len() as u64;
    Tally { pair_tests: sweep(&s.strips.single, out), work: m, bytes_touched: m * (ITEM_BYTES + RECORD_BYTES) }
}

/// Into `out`, in order, as sweep records on axis `S`, the items of `v` whose extent on axis `A` meets
/// `[p − w, p + w]`: a body straddling the plane at `p` with extent at most `w` lies inside that interval, so
/// only these can overlap it ([`layer`]).
fn near<const A: usize, const S: usize>(v: &[Item], p: f32, w: f32, out: &mut Vec<SweepBox>) {
    out.clear();
    let (lo, hi) = layer(p, w);
    out.extend(v.iter().filter(|it| it.aabb.max[A] >= lo && it.aabb.min[A] <= hi).map(record::<S>));
}
