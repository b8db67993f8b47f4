//! The permutations the kit renumbers its bodies by, as the simulation does when it sorts them in space: a
//! random one (no locality at all, every index changes) and a spatial sort (the bodies ordered by the Morton key
//! of their centres, what the simulation sends). Both as `old_to_new` maps for [`Resize`].

use crate::Resize;
use collide_math::{Rng, Vec3};

/// Bits per axis of the kit's Morton keys: 2¹⁰ steps across the world, 30-bit keys.
const BITS: u32 = 10;

/// The Morton key of `p` in the cube `[lo, lo + side]³`: each coordinate quantised to [`BITS`] bits (clamped to
/// the cube), interleaved `x y z` from the highest bit down.
#[must_use]
pub fn morton_key(p: Vec3, lo: Vec3, side: f32) -> u32 {
    let steps = (1u32 << BITS) as f32;
    let q = ((p - lo) / side * steps).clamp(Vec3::ZERO, Vec3::splat(steps - 1.0));
    let (x, y, z) = (q.x as u32, q.y as u32, q.z as u32);
    (0..BITS).rev().fold(0, |key, bit| key << 3 | (x >> bit & 1) << 2 | (y >> bit & 1) << 1 | (z >> bit & 1))
}

/// The `old_to_new` map that sorts bodies with centres `centres` by their Morton key in the cube `[lo, lo +
/// side]³`, equal keys in index order: new body `k` is the `k`-th along the curve.
#[must_use]
pub fn spatial_order(centres: &[Vec3], lo: Vec3, side: f32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..centres.len() as u32).collect();
    order.sort_by_key(|&i| (morton_key(centres[i as usize], lo, side), i));
    let mut old_to_new = vec![0; centres.len()];
    for (new, &old) in order.iter().enumerate() {
        old_to_new[old as usize] = new as u32;
    }
    old_to_new
}

/// A uniformly random `old_to_new` map of `n` bodies (Fisher–Yates).
#[must_use]
pub fn random_order(rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut old_to_new: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        old_to_new.swap(i, rng.below(i as u32 + 1) as usize);
    }
    old_to_new
}

/// Reorder `values`, one per old body, by the permutation `resize` (a fresh scratch: the kit's own arrays are not
/// what the no-allocation tests measure).
pub fn permute<T: Clone>(resize: &Resize<'_>, values: &mut Vec<T>) {
    resize.permute(values, &mut Vec::new());
}
