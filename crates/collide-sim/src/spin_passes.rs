//! The passes over bodies that spin (scenes with boxes or friction): the rotation's integration and the walls with
//! spin. A scene of spheres without friction runs neither (it has no spin columns; see [`crate::Bodies`]).
//!
//! As the spheres' passes (`passes.rs`), each goes over fixed chunks of [`bodies_per_chunk`] bodies, on rayon's
//! threads past the [`Parallelism`] threshold, and each body's result depends on that body alone: the same bits
//! on any thread count.

use crate::bodies::Spin;
use crate::passes::WallLists;
use collide_broadphase::Parallelism;
use collide_math::{Aabb, Quat, Vec3};
use collide_narrowphase::Shape;
use collide_resolution::{Material, SpinState, WallShape, advance_rotation, bodies_per_chunk, spin_wall};
use rayon::prelude::*;

/// Turn every box for `dt` ([`advance_rotation`]: its rotation and, for a box whose inertia differs between axes,
/// its precessing angular velocity). Spheres keep their rotation: nothing shows it, and their angular velocity
/// (with friction) is constant in free flight.
pub fn rotate(parallelism: Parallelism, spin: &mut Spin, dt: f32) {
    let size = bodies_per_chunk(parallelism);
    let (shape, inv_inertia) = (&spin.shape, &spin.inv_inertia);
    let chunk = |(c, (q, w)): (usize, (&mut [Quat], &mut [Vec3]))| {
        let start = c * size;
        for (k, (q, w)) in q.iter_mut().zip(w.iter_mut()).enumerate() {
            let i = start + k;
            if shape[i] == Shape::Box && *w != Vec3::ZERO {
                (*q, *w) = advance_rotation(*q, *w, inv_inertia[i], dt);
            }
        }
    };
    let (rotation, angular_velocity) = (&mut spin.rotation, &mut spin.angular_velocity);
    if parallelism.is_parallel(rotation.len()) {
        rotation.par_chunks_mut(size).zip(angular_velocity.par_chunks_mut(size)).enumerate().for_each(chunk);
    } else {
        rotation.chunks_mut(size).zip(angular_velocity.chunks_mut(size)).enumerate().for_each(chunk);
    }
}

/// The columns the spin wall pass writes.
pub struct SpinWallColumns<'a> {
    /// Centres.
    pub position: &'a mut [Vec3],
    /// Velocities.
    pub velocity: &'a mut [Vec3],
    /// The step of each body's last contact.
    pub last_contact: &'a mut [u64],
    /// Angular velocities.
    pub angular_velocity: &'a mut [Vec3],
}

/// What the spin wall pass reads: the bodies' fixed columns and the contact's material.
pub struct SpinWallSetup<'a> {
    /// Sphere radii.
    pub radius: &'a [f32],
    /// Inverse masses.
    pub inv_mass: &'a [f32],
    /// Shapes.
    pub shape: &'a [Shape],
    /// Rotations.
    pub rotation: &'a [Quat],
    /// Box half extents.
    pub half_extents: &'a [Vec3],
    /// Inverse principal inertias.
    pub inv_inertia: &'a [Vec3],
    /// The container.
    pub container: Aabb,
    /// Restitution, friction and resting speed.
    pub material: Material,
    /// This step (for `last_contact`).
    pub step: u64,
}

/// One chunk of the spin wall pass: its index, positions, velocities, contact stamps and angular velocities.
type SpinChunk<'a> = (usize, (((&'a mut [Vec3], &'a mut [Vec3]), &'a mut [u64]), &'a mut [Vec3]));

/// The walls for a scene of bodies that spin: every body of this step's contacts, which also gets its
/// `last_contact` stamp, and the bodies the box pass listed outside. A box meets each wall it is past with its
/// corners ([`spin_wall`]: push-out, impulses with restitution, friction and torque); a sphere with friction
/// likewise at its lowest point; a sphere without friction as in a scene of spheres ([`collide_resolution::wall`]).
pub fn spin_walls(
    parallelism: Parallelism,
    columns: SpinWallColumns<'_>,
    setup: &SpinWallSetup<'_>,
    lists: WallLists<'_>,
) {
    let size = bodies_per_chunk(parallelism);
    let s = setup;
    let WallLists { outside, contact_bodies } = lists;
    let chunk = |(c, (((p, v), last), w)): SpinChunk<'_>| {
        let (start, len) = (c * size, p.len());
        let mut wall = |i: usize| {
            let k = i - start;
            if s.shape[i] == Shape::Sphere && s.material.friction == 0.0 {
                collide_resolution::wall(
                    &mut p[k],
                    &mut v[k],
                    Vec3::splat(s.radius[i]),
                    &s.container,
                    s.material.restitution,
                );
                return;
            }
            let mut state =
                SpinState::from_body_frame(p[k], v[k], s.inv_mass[i], s.rotation[i], w[k], s.inv_inertia[i]);
            let shape = match s.shape[i] {
                Shape::Box => WallShape::Box(s.half_extents[i]),
                Shape::Sphere => WallShape::Sphere(s.radius[i]),
            };
            if spin_wall(&mut state, shape, &s.container, &s.material) {
                (p[k], v[k], w[k]) = (state.position, state.velocity, state.body_angular_velocity());
            }
        };
        for i in contact_bodies.in_range(start..start + len) {
            wall(i);
            last[i - start] = s.step;
        }
        // A body on both lists meets the walls twice: a body against a wall is not past it, so the second time
        // changes nothing.
        for &i in outside.get(c).map_or(&[][..], Vec::as_slice) {
            wall(i as usize);
        }
    };
    let SpinWallColumns { position, velocity, last_contact, angular_velocity } = columns;
    if parallelism.is_parallel(position.len()) {
        let chunks = position.par_chunks_mut(size).zip(velocity.par_chunks_mut(size));
        let chunks = chunks.zip(last_contact.par_chunks_mut(size)).zip(angular_velocity.par_chunks_mut(size));
        chunks.enumerate().for_each(chunk);
    } else {
        let chunks = position.chunks_mut(size).zip(velocity.chunks_mut(size));
        let chunks = chunks.zip(last_contact.chunks_mut(size)).zip(angular_velocity.chunks_mut(size));
        chunks.enumerate().for_each(chunk);
    }
}
