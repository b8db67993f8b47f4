//! Pairs among the own bodies of an inner nodup node, slab by slab.
//!
//! Every own body of an inner node straddles at least one of the node's three central planes, and the bodies
//! straddling the x plane all overlap in x: among them a sweep on x prunes nothing. At the root of the dense
//! cluster (10⁵ bodies pulled to 1/4 of their cloud) that made 5.6 M of the frame's 20.6 M box tests. So the
//! bodies are split by the first plane they straddle into three slabs, each swept along an axis it spreads over:
//! the x slab on y, the y slab on z, the z slab on x. Two bodies of different slabs can only meet near the line
//! where their planes cross; each side's candidates are those within a window around that line (the other
//! slab's widest extent across its plane, so the filter never drops an overlapping pair), swept along the line.

use crate::nodup::{sweep, sweep_two};
use crate::tree::{Item, sides};
use collide_broadphase::Pair;
use collide_math::Vec3;

/// Below this many own bodies the plain sweep on x is cheaper than sorting slabs.
pub(crate) const SLABS_MIN: usize = 32;

/// Scratch of [`own_pairs`], kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Slabs {
    slabs: [Vec<Item>; 3],
    near: [Vec<Item>; 2],
}

/// Pairs among `own`, the own bodies of an inner node split at `c` (each straddles at least one plane); returns
/// the box tests made.
pub(crate) fn own_pairs(own: &[Item], c: Vec3, s: &mut Slabs, out: &mut Vec<Pair>) -> u64 {
    let Slabs { slabs: [sx, sy, sz], near: [n0, n1] } = s;
    for v in [&mut *sx, &mut *sy, &mut *sz] {
        v.clear();
    }
    for it in own {
        let (lower, upper) = sides(it.aabb.min, it.aabb.max, c);
        let straddled = lower & upper;
        debug_assert!(straddled != 0, "an inner node's own body straddles one of its planes");
        match straddled.trailing_zeros() {
            0 => sx.push(*it),
            1 => sy.push(*it),
            _ => sz.push(*it),
        }
    }
    // `own` is sorted by min.x, so the z slab already is.
    sort_on::<1>(sx);
    sort_on::<2>(sy);
    let mut tests = sweep::<1>(sx, out) + sweep::<2>(sy, out) + sweep::<0>(sz, out);
    let (wx, wy, wz) = (widest::<0>(sx), widest::<1>(sy), widest::<2>(sz));

    // x slab × y slab, near the line x = c.x, y = c.y: along z.
    near::<1>(sx, c.y, wy, n0);
    near::<0>(sy, c.x, wx, n1);
    sort_on::<2>(n0);
    tests += sweep_two::<2>(n0, n1, out);
    // y slab × z slab, near y = c.y, z = c.z: along x.
    near::<2>(sy, c.z, wz, n0);
    near::<1>(sz, c.y, wy, n1);
    sort_on::<0>(n0);
    tests += sweep_two::<0>(n0, n1, out);
    // x slab × z slab, near x = c.x, z = c.z: along y.
    near::<2>(sx, c.z, wz, n0);
    near::<0>(sz, c.x, wx, n1);
    sort_on::<1>(n1);
    tests + sweep_two::<1>(n0, n1, out)
}

fn sort_on<const A: usize>(v: &mut [Item]) {
    v.sort_unstable_by(|a, b| a.aabb.min[A].total_cmp(&b.aabb.min[A]));
}

/// The widest extent on axis `A` in `v`, grown by a little more than the rounding of `max − min`.
fn widest<const A: usize>(v: &[Item]) -> f32 {
    let w = v.iter().fold(0.0f32, |w, it| w.max(it.aabb.max[A] - it.aabb.min[A]));
    w * (1.0 + 1.0 / (1 << 20) as f32)
}

/// Into `out`, in order, the items of `v` whose extent on axis `A` meets `[p − w, p + w]`: a body straddling the
/// plane at `p` with extent at most `w` lies inside that interval, so only these can overlap it. The slack
/// covers the rounding of `p ± w`.
fn near<const A: usize>(v: &[Item], p: f32, w: f32, out: &mut Vec<Item>) {
    out.clear();
    let slack = (p.abs() + w) * (1.0 / (1 << 20) as f32);
    let (lo, hi) = (p - w - slack, p + w + slack);
    out.extend(v.iter().filter(|it| it.aabb.max[A] >= lo && it.aabb.min[A] <= hi));
}
