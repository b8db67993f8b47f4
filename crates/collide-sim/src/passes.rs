//! The step's passes over the bodies: integration, boxes, and the spheres' walls (the walls of bodies that spin
//! are in `spin_passes.rs`). Each goes over the body columns once, in chunks of [`bodies_per_chunk`] bodies — on
//! rayon's threads when the [`Parallelism`] says so for the body count, in order on this thread otherwise. The
//! chunks are fixed ranges of bodies, whatever the thread count, and each body's result depends on that body
//! alone, so the passes give the same bits on any number of threads.
//!
//! Walls touch few bodies: only a body whose box left the container when it moved, or that resolution pushed,
//! can be outside it after the step. The box pass lists the first kind per chunk (with the wall's own
//! comparison, so that the list is exactly the bodies the wall would change), resolution hands over the second
//! (the contacts' bodies, [`ContactBodies`]), and the wall pass visits those two lists instead of every body.

use collide_broadphase::Parallelism;
use collide_math::{Aabb, Vec3};
use collide_resolution::{ContactBodies, bodies_per_chunk};
use rayon::prelude::*;

/// `v += g·dt; p += v·dt` for every body (without gravity, velocities are only read). A body whose state is not
/// finite gets a non-finite position here (`NaN·dt` and `∞·dt` are not finite for any finite `dt`, `∞·0` is NaN),
/// so that the box pass, which sees the positions, finds it. Without gravity the velocity column is not written
/// (a stream fewer at 10⁶ bodies); the one bit that differs from `v += 0` is the sign of a zero component (`−0 + 0`
/// is `+0`), which no physics sees and no golden hash in the tests does.
///
/// **Vectorised across bodies.** Written over `Vec3`s, the loop compiled to one body at a time — two lanes of a
/// packed multiply-add and one scalar lane, since a `Vec3` is 12 bytes. The columns are read here as flat `f32`
/// arrays instead: `p[k] += v[k]·dt` is the same arithmetic on the same floats in the same order (so the same
/// bits), and the compiler runs it four floats to a register. With gravity, the velocity's increment repeats every
/// three floats, so the loop goes by groups of four bodies (twelve floats, three registers) against the increment
/// laid out for four bodies.
pub fn integrate(parallelism: Parallelism, position: &mut [Vec3], velocity: &mut [Vec3], gravity: Vec3, dt: f32) {
    let (g, size) = (gravity * dt, bodies_per_chunk(parallelism));
    let chunk = |(p, v): (&mut [Vec3], &mut [Vec3])| {
        let p: &mut [f32] = bytemuck::cast_slice_mut(p);
        if g == Vec3::ZERO {
            let v: &[f32] = bytemuck::cast_slice(v);
            for (p, v) in p.iter_mut().zip(v) {
                *p += *v * dt;
            }
        } else {
            let v: &mut [f32] = bytemuck::cast_slice_mut(v);
            let step = [g.x, g.y, g.z];
            let step4: [f32; 12] = std::array::from_fn(|k| step[k % 3]);
            let (mut pc, mut vc) = (p.chunks_exact_mut(12), v.chunks_exact_mut(12));
            for (p, v) in (&mut pc).zip(&mut vc) {
                for k in 0..12 {
                    v[k] += step4[k];
                    p[k] += v[k] * dt;
                }
            }
            // The last bodies of a chunk that is not a multiple of four.
            for (k, (p, v)) in pc.into_remainder().iter_mut().zip(vc.into_remainder()).enumerate() {
                *v += step[k % 3];
                *p += *v * dt;
            }
        }
    };
    if parallelism.is_parallel(position.len()) {
        position.par_chunks_mut(size).zip(velocity.par_chunks_mut(size)).for_each(chunk);
    } else {
        position.chunks_mut(size).zip(velocity.chunks_mut(size)).for_each(chunk);
    }
}

/// One chunk of the box pass: its index, boxes, motion flags and list of bodies outside.
type BoxChunk<'a> = (usize, ((&'a mut [Aabb], &'a mut [bool]), &'a mut Vec<u32>));

/// One chunk of the wall pass: its index, positions, velocities and contact stamps.
type WallChunk<'a> = (usize, ((&'a mut [Vec3], &'a mut [Vec3]), &'a mut [u64]));

/// What the box pass needs to know besides the bodies.
pub struct BoxPass<'a> {
    /// The container (the walls the pass lists bodies against).
    pub container: Aabb,
    /// Boxes `0..known` are the previous step's boxes of the same bodies; the others are new.
    pub known: usize,
    /// Per chunk: the bodies of the chunk that are outside the container (filled by the pass).
    pub outside: &'a mut Vec<Vec<u32>>,
}

/// Write every body's box and motion flag (`moved[i]`: box `i` differs from the one it replaces, or is new), and list per chunk the bodies that the walls may have to put back: every body the wall would change, and
/// a few more within a rounding margin of the walls (the wall leaves a body inside as it is, so listing one more
/// changes nothing). Returns `true` when some radius or box is not finite.
///
/// Straight-line code per body with one rare branch: the box is two three-lane operations, the motion flag two
/// three-lane comparisons with the old box, and the wall test compares the box with the container shrunk
/// by the margin, negated so that a NaN lists the body. Only the listed bodies are then checked for finiteness: a
/// body with a non-finite position or radius has a box that fails the wall test.
///
/// `aabb_of(i, centre, radius)` is body `i`'s box: [`sphere_aabb`] in a scene of spheres (the compiler inlines it
/// into the loop), the box's orientation for a box body in a scene with boxes.
pub fn boxes(
    parallelism: Parallelism,
    position: &[Vec3],
    radius: &[f32],
    aabbs: &mut [Aabb],
    moved: &mut [bool],
    pass: BoxPass<'_>,
    aabb_of: impl Fn(usize, Vec3, f32) -> Aabb + Sync,
) -> bool {
    let (n, size) = (position.len(), bodies_per_chunk(parallelism));
    pass.outside.resize_with(n.div_ceil(size), Vec::new);
    let (container, known) = (pass.container, pass.known);
    // The wall's test is `p < min + r` (and `p > max − r`); the box's is `p − r < min`. They can disagree by the
    // rounding of those sums, a few units in the last place of the container's coordinates: a margin of 10⁻⁵ of
    // them lists every body the wall changes, and the bodies within a hair of a wall besides.
    let scale = container.min.abs().max(container.max.abs()).max(container.max - container.min).max_element();
    let margin = Vec3::splat(scale * 1e-5);
    let (lo, hi) = (container.min + margin, container.max - margin);
    let chunk = |(c, ((slots, moved), outside)): BoxChunk<'_>| {
        let start = c * size;
        outside.clear();
        let bodies = position[start..start + slots.len()].iter().zip(&radius[start..start + slots.len()]);
        for (k, ((slot, moved), (&p, &r))) in slots.iter_mut().zip(moved.iter_mut()).zip(bodies).enumerate() {
            let new = aabb_of(start + k, p, r);
            *moved = (start + k >= known) | (slot.min.cmpne(new.min) | slot.max.cmpne(new.max)).any();
            *slot = new;
            let inside = new.min.cmpge(lo).all() & new.max.cmple(hi).all();
            if !inside {
                outside.push((start + k) as u32);
            }
        }
        // Not finite: a non-finite position or radius gives a box with an infinite or NaN corner, which is never
        // inside.
        outside.iter().any(|&i| {
            let b = &slots[i as usize - start];
            !(b.max - b.min).is_finite()
        })
    };
    if parallelism.is_parallel(n) {
        let chunks = aabbs.par_chunks_mut(size).zip(moved.par_chunks_mut(size));
        chunks.zip(pass.outside.par_iter_mut()).enumerate().map(chunk).reduce(|| false, |x, y| x | y)
    } else {
        let chunks = aabbs.chunks_mut(size).zip(moved.chunks_mut(size));
        chunks.zip(pass.outside.iter_mut()).enumerate().map(chunk).fold(false, |x, y| x | y)
    }
}

/// A sphere's box: the `aabb_of` of [`boxes`] for spheres.
#[inline]
pub fn sphere_aabb(_: usize, center: Vec3, radius: f32) -> Aabb {
    Aabb::from_center_radius(center, radius)
}

/// The columns the wall pass writes.
pub struct WallColumns<'a> {
    /// Centres.
    pub position: &'a mut [Vec3],
    /// Velocities.
    pub velocity: &'a mut [Vec3],
    /// The step of each body's last contact.
    pub last_contact: &'a mut [u64],
}

/// The bodies the walls visit: those the earlier phases found may be outside the container.
#[derive(Clone, Copy)]
pub struct WallLists<'a> {
    /// Per chunk of [`bodies_per_chunk`] bodies: those the box pass listed outside (or nearly) when it built their
    /// boxes.
    pub outside: &'a [Vec<u32>],
    /// The bodies of this step's contacts, which resolution may have pushed out (and which get their
    /// `last_contact` stamp).
    pub contact_bodies: &'a ContactBodies,
}

/// Put back inside `container` (restitution `e`) every body of this step's contacts (which resolution may have
/// pushed out), stamping its `last_contact` with `step`, and every body the box pass listed as outside. The other
/// bodies are where their boxes were, inside: the wall would not change them.
pub fn walls(
    parallelism: Parallelism,
    columns: WallColumns<'_>,
    radius: &[f32],
    lists: WallLists<'_>,
    (container, e, step): (Aabb, f32, u64),
) {
    let size = bodies_per_chunk(parallelism);
    let WallLists { outside, contact_bodies } = lists;
    let chunk = |(c, ((p, v), last)): WallChunk<'_>| {
        let (start, len) = (c * size, p.len());
        let mut wall = |i: usize| {
            let r = radius[i];
            collide_resolution::wall(&mut p[i - start], &mut v[i - start], Vec3::splat(r), &container, e);
        };
        for i in contact_bodies.in_range(start..start + len) {
            wall(i);
            last[i - start] = step;
        }
        // A body on both lists is put back twice: the wall is idempotent (a body against it is not past it).
        for &i in outside.get(c).map_or(&[][..], Vec::as_slice) {
            wall(i as usize);
        }
    };
    let (position, velocity, last_contact) = (columns.position, columns.velocity, columns.last_contact);
    if parallelism.is_parallel(position.len()) {
        let chunks = position.par_chunks_mut(size).zip(velocity.par_chunks_mut(size));
        chunks.zip(last_contact.par_chunks_mut(size)).enumerate().for_each(chunk);
    } else {
        let chunks = position.chunks_mut(size).zip(velocity.chunks_mut(size));
        chunks.zip(last_contact.chunks_mut(size)).enumerate().for_each(chunk);
    }
}

#[cfg(test)]
mod tests;
