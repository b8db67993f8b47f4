//! The solver's bodies that spin: contacts of boxes (manifolds) and contacts with friction, on the same levels.
//!
//! A step with boxes, or with friction, resolves through [`Solver::solve_spin`]: the same ranks, sort by pair and
//! levels as the spheres' [`Solver::solve`], with a second local array beside the bodies' states — each
//! marked body's rotation, angular velocity, inverse inertia, half extents and shape, one cache line — and each
//! link resolved by [`resolve_manifold`] at its manifold's points. A sphere–sphere link without friction still
//! takes the spheres' path (its normal passes through both centres: no torque), so a scene's spheres answer as
//! they do without boxes. The levels keep every body's contacts in ascending pair order, so the answer is the
//! one-by-one answer on any thread count, as for spheres.

use super::{Link, Local, NO_MANIFOLD, Solver, SphereColumns, bodies_per_chunk, for_chunks, resolve};
use crate::ContactBodies;
use crate::spin::{Material, SpinState, resolve_manifold};
use collide_broadphase::{Pair, Parallelism};
use collide_math::{Quat, Vec3};
use collide_narrowphase::{Contact, Manifold, Shape, ShapeColumns, Solid, solid_contact};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A marked body's rotation while resolving, as `f32` bits: rotation (4), angular velocity (3), inverse inertia
/// (3), half extents (3), shape (1); one cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
pub(super) struct LocalSpin([AtomicU32; 16]);

/// What a body that spins is besides its [`Local`] state.
#[derive(Clone, Copy, Debug)]
struct Spin {
    rotation: Quat,
    angular_velocity: Vec3,
    inv_inertia: Vec3,
    half_extents: Vec3,
    shape: Shape,
}

impl LocalSpin {
    fn store(&self, s: &Spin) {
        let (q, w, i, h) = (s.rotation, s.angular_velocity, s.inv_inertia, s.half_extents);
        let values = [q.x, q.y, q.z, q.w, w.x, w.y, w.z, i.x, i.y, i.z, h.x, h.y, h.z];
        for (slot, x) in self.0.iter().zip(values) {
            slot.store(x.to_bits(), Relaxed);
        }
        self.0[13].store(s.shape as u32, Relaxed);
    }

    /// Store the angular velocity only (nothing else changes while resolving).
    fn store_angular_velocity(&self, w: Vec3) {
        for (slot, x) in self.0[4..7].iter().zip([w.x, w.y, w.z]) {
            slot.store(x.to_bits(), Relaxed);
        }
    }

    fn load(&self) -> Spin {
        let x = |i: usize| f32::from_bits(self.0[i].load(Relaxed));
        Spin {
            rotation: Quat::from_xyzw(x(0), x(1), x(2), x(3)),
            angular_velocity: Vec3::new(x(4), x(5), x(6)),
            inv_inertia: Vec3::new(x(7), x(8), x(9)),
            half_extents: Vec3::new(x(10), x(11), x(12)),
            shape: if self.0[13].load(Relaxed) == Shape::Box as u32 { Shape::Box } else { Shape::Sphere },
        }
    }
}

/// The body columns [`Solver::solve_spin`] reads: the narrowphase's shape columns (centres, radii, shapes, half
/// extents, rotations) and the motion and mass columns beside them, all indexed by body.
#[derive(Clone, Copy, Debug)]
pub struct SpinColumns<'a> {
    /// Centres, radii, shapes, half extents and rotations.
    pub shapes: ShapeColumns<'a>,
    /// Velocities.
    pub velocity: &'a [Vec3],
    /// Inverse masses.
    pub inv_mass: &'a [f32],
    /// Angular velocities, in each body's own frame.
    pub angular_velocity: &'a [Vec3],
    /// Inverse principal inertias (body frame).
    pub inv_inertia: &'a [Vec3],
}

impl Solver {
    /// [`Solver::solve`] for bodies that spin: the sphere–sphere `contacts` and the `manifolds` of the pairs with a
    /// box (all pairs distinct) resolved with `material`'s restitution and friction, one by one in ascending pair
    /// order as far as the answer can tell, each measured again (by the narrowphase's test for the pair's shapes)
    /// when an earlier contact of the step moved one of its bodies. `bodies` are the contacts' bodies, marked by the
    /// caller ([`ContactBodies::mark`]). Write the results back with [`Solver::write_back`] and
    /// [`Solver::write_back_spin`].
    pub fn solve_spin(
        &mut self,
        parallelism: Parallelism,
        contacts: &[(Pair, Contact)],
        manifolds: &[(Pair, Manifold)],
        bodies: &ContactBodies,
        columns: &SpinColumns<'_>,
        material: &Material,
    ) {
        let shapes = &columns.shapes;
        self.link(parallelism, contacts, manifolds, bodies);
        let spheres = SphereColumns {
            position: shapes.position,
            velocity: columns.velocity,
            inv_mass: columns.inv_mass,
            radius: shapes.radius,
        };
        self.load(parallelism, bodies, &spheres);
        self.spin.resize_with(bodies.len(), LocalSpin::default);
        let spin = &self.spin;
        for_chunks(parallelism, shapes.position.len(), |range| {
            for (i, r) in bodies.ranked_in(range) {
                // The columns hold the angular velocity in the body's frame; resolution works in the world's.
                spin[r as usize].store(&Spin {
                    rotation: shapes.rotation[i],
                    angular_velocity: shapes.rotation[i] * columns.angular_velocity[i],
                    inv_inertia: columns.inv_inertia[i],
                    half_extents: shapes.half_extents[i],
                    shape: shapes.shape[i],
                });
            }
        });
        self.sort_by_pair(bodies.len());
        self.level_links(bodies.len());
        let (state, spin) = (&self.state, &self.spin);
        self.run_levels(parallelism, |link| {
            if link.manifold == NO_MANIFOLD && material.friction == 0.0 {
                resolve(state, link, material.restitution);
            } else {
                resolve_spin(state, spin, link, manifolds, material);
            }
        });
    }

    /// Copy the resolved angular velocities of `bodies` (those given to [`Solver::solve_spin`]) back into
    /// `angular_velocity`, in the body's frame, each range of [`bodies_per_chunk`] bodies by its own task.
    pub fn write_back_spin(&self, parallelism: Parallelism, bodies: &ContactBodies, angular_velocity: &mut [Vec3]) {
        debug_assert_eq!(bodies.len(), self.spin.len(), "the bodies of the last solve");
        let size = bodies_per_chunk(parallelism);
        let copy = |(c, w): (usize, &mut [Vec3])| {
            let start = c * size;
            for (i, r) in bodies.ranked_in(start..start + w.len()) {
                let spin = self.spin[r as usize].load();
                w[i - start] = spin.rotation.inverse() * spin.angular_velocity;
            }
        };
        if parallelism.is_parallel(angular_velocity.len()) {
            angular_velocity.par_chunks_mut(size).enumerate().for_each(copy);
        } else {
            angular_velocity.chunks_mut(size).enumerate().for_each(copy);
        }
    }
}

/// One contact of bodies that spin: its manifold (the narrowphase's, or measured again where the bodies are now
/// when an earlier contact moved one), then [`resolve_manifold`]. A pair that an earlier contact separated gets
/// no push, and impulses only at the points that still approach (as the spheres' path does).
fn resolve_spin(state: &[Local], spin: &[LocalSpin], link: &Link, manifolds: &[(Pair, Manifold)], m: &Material) {
    let (a, b) = (link.a as usize, link.b as usize);
    let ((s1, r1), (s2, r2)) = (state[a].load(), state[b].load());
    let (k1, k2) = (spin[a].load(), spin[b].load());
    let spinning = |s: crate::BodyState, k: &Spin| SpinState {
        position: s.position,
        velocity: s.velocity,
        inv_mass: s.inv_mass,
        rotation: k.rotation,
        angular_velocity: k.angular_velocity,
        inv_inertia: k.inv_inertia,
    };
    let (mut ra, mut rb) = (spinning(s1, &k1), spinning(s2, &k2));
    let found = if link.manifold == NO_MANIFOLD {
        // A sphere–sphere contact: the point midway through the overlap, from the centres and the normal.
        let (n, d) = (link.normal, link.depth);
        let point = (rb.position + n * r2 + ra.position - n * r1) * 0.5;
        Manifold::from(Contact { normal: n, depth: d, point })
    } else {
        manifolds[link.manifold as usize].1
    };
    let (manifold, push) = if link.fresh {
        (found, true)
    } else {
        let solid = |s: &SpinState, k: &Spin, r: f32| Solid::new(k.shape, s.position, r, k.half_extents, s.rotation);
        match solid_contact(&solid(&ra, &k1, r1), &solid(&rb, &k2, r2)) {
            Some(now) => (now, true),
            None => (found, false),
        }
    };
    resolve_manifold(&mut ra, &mut rb, manifold.normal, manifold.points(), push, m);
    let motion = |r: &SpinState| crate::BodyState { position: r.position, velocity: r.velocity, inv_mass: r.inv_mass };
    state[a].store_motion(&motion(&ra));
    state[b].store_motion(&motion(&rb));
    spin[a].store_angular_velocity(ra.angular_velocity);
    spin[b].store_angular_velocity(rb.angular_velocity);
}

#[cfg(test)]
mod tests;
