//! The permutations the kit renumbers its bodies by, as the simulation does when it sorts them in space: a
//! random one (no locality at all, every index changes) and a spatial sort (the bodies ordered by the Morton key
//! of their centres, what the simulation sends). Both as `old_to_new` maps for [`Resize`].
//!
//! [`permutation_frames`] runs a broadphase through permutations on a larger scene than the kit's sequences and
//! hands back its counters, for the tests that check an incremental algorithm remaps instead of rebuilding.

use super::{Checker, Failure};
use crate::{Aabb, Broadphase, Frame, Resize, Stats, same_bits};
use collide_math::{Rng, Vec3};

/// Bits per axis of the kit's Morton keys: 2¹⁰ steps across the world, 30-bit keys.
const BITS: u32 = 10;

/// The Morton key of `p` in the cube `[lo, lo + side]³`: each coordinate quantised to 10 bits (clamped to
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

/// What [`permutation_frames`] saw of a broadphase.
#[derive(Clone, Debug, Default)]
pub struct PermutationFrames {
    /// The stats of each call right after a permutation (a random one, a spatial sort, and the two back to
    /// back). No body moved since the call before the permutation, so a structure that remapped has nothing to
    /// re-place, re-insert, rebuild or sort: its counters read like [`PermutationFrames::unpermuted`]'s.
    pub after: Vec<Stats>,
    /// The stats of a call on unmoved bodies with no permutation before it: what such a call costs.
    pub unpermuted: Stats,
}

/// Bodies of [`permutation_frames`]'s scene at rest: enough for the static structures (an octree's static tree,
/// a dynamic tree's static tree) to form.
const RESTING: f32 = 0.8;

/// Run `bp` on a scene of `n` unit cubes (2% of the volume, 80% of them at rest, the others drifting a
/// twentieth of their size per call) with the exact motion hint when `hinted`: 40 warm-up calls, then a call on
/// unmoved bodies, then three permutations with moving calls between — a random one, a spatial sort, and the
/// two back to back — each followed by a call on unmoved bodies, and ten moving calls to end. Every call is
/// checked against brute force and `validate()`, which must also hold right after each `on_resize`; the
/// previous boxes follow their bodies, so the hint stays exact. Returns the stats of the calls on unmoved bodies:
/// the tests of an incremental algorithm assert that the calls after a permutation did not rebuild.
pub fn permutation_frames(bp: &mut dyn Broadphase, n: usize, hinted: bool) -> Result<PermutationFrames, Box<Failure>> {
    let side = (n as f32 * 50.0).cbrt();
    let mut rng = Rng::new(0x0DE2_5EED);
    let mut centres: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(side))).collect();
    let mut velocities: Vec<Vec3> =
        (0..n).map(|_| if rng.chance(RESTING) { Vec3::ZERO } else { rng.unit_vector() * 0.05 }).collect();
    let (mut checker, mut previous, mut moved) = (Checker::default(), Vec::new(), Vec::new());
    let mut frames = PermutationFrames::default();
    let mut step = 0u64;
    // One call on this call's boxes: checked, its stats returned; `previous` becomes its boxes.
    let mut call = |bp: &mut dyn Broadphase, centres: &[Vec3], previous: &mut Vec<Aabb>| {
        let aabbs: Vec<Aabb> = centres.iter().map(|&c| Aabb::from_center_radius(c, 0.5)).collect();
        moved.clear();
        moved.extend((0..n).map(|i| previous.get(i).is_none_or(|p| !same_bits(p, &aabbs[i]))));
        let frame = Frame::new(&aabbs).with_step(step);
        let frame = if hinted { frame.with_moved(&moved) } else { frame };
        step += 1;
        checker.check(bp, &frame, "permutation-frames")?;
        *previous = aabbs;
        Ok::<_, Box<Failure>>(bp.stats())
    };
    let advance = |centres: &mut Vec<Vec3>, velocities: &mut Vec<Vec3>| {
        for (c, v) in centres.iter_mut().zip(velocities.iter_mut()) {
            *c += *v;
            for axis in 0..3 {
                if !(0.0..=side).contains(&c[axis]) {
                    c[axis] = c[axis].clamp(0.0, side);
                    v[axis] = -v[axis];
                }
            }
        }
    };
    for _ in 0..40 {
        advance(&mut centres, &mut velocities);
        call(bp, &centres, &mut previous)?;
    }
    frames.unpermuted = call(bp, &centres, &mut previous)?;
    for spatial in [&[false][..], &[true], &[false, true]] {
        for _ in 0..2 {
            advance(&mut centres, &mut velocities);
            call(bp, &centres, &mut previous)?;
        }
        for &sorted in spatial {
            let map = if sorted { spatial_order(&centres, Vec3::ZERO, side) } else { random_order(&mut rng, n) };
            let resize = Resize { old_to_new: &map, new_len: n };
            permute(&resize, &mut centres);
            permute(&resize, &mut velocities);
            permute(&resize, &mut previous);
            bp.on_resize(&resize);
            if let Err(message) = bp.validate() {
                let problem = Some("validate() failed right after a permutation's on_resize".to_owned());
                return Err(Box::new(Failure {
                    scene: "permutation-frames".into(),
                    n,
                    invalid: Some(message),
                    problem,
                    ..Failure::default()
                }));
            }
        }
        frames.after.push(call(bp, &centres, &mut previous)?);
    }
    for _ in 0..10 {
        advance(&mut centres, &mut velocities);
        call(bp, &centres, &mut previous)?;
    }
    Ok(frames)
}
