//! Collision response: what happens after two bodies are found touching.
//!
//! It consumes the narrowphase's [`Contact`]s ([`resolve_contact`]): the resolution knows normals and depths, not
//! shapes, so spheres, boxes and whatever comes next resolve the same way. Two corrections, applied contact by
//! contact in ascending pair order (so every broadphase gives the same result, whatever order it found the pairs
//! in):
//!
//! 1. **Push-out** along the minimum translation vector — the contact normal times the penetration depth — split
//!    between the bodies by inverse mass, so a heavy body barely moves and an immovable one (inverse mass 0) not
//!    at all. Without it, bodies that overlap after a step stay stuck together and collide again every step.
//! 2. **Impulse** on the velocities along the line of centres, with restitution `e` (1 elastic, 0 perfectly
//!    plastic). Only *approaching* pairs get one: a pair already separating after a previous impulse would
//!    otherwise be pulled back together. With `e = 1` it is the elastic formula of the seed studies,
//!    `v1' = v1 − 2·m2/(m1+m2) · ⟨v1−v2, c1−c2⟩/‖c1−c2‖² · (c1−c2)`, written with the unnormalised centre
//!    difference so that bodies exactly on an axis keep exactly zero off-axis components — the
//!    trigonometric form of the seed study drifts off the axis through its angles.
//!
//! [`wall`] keeps a body inside the container: it reflects the velocity component into the wall and puts the
//! body back inside.
//!
//! Masses travel as **inverse** masses throughout: 0 means immovable, and no formula divides by a mass.
//!
//! **Bodies that spin** (boxes, and any body in a scene with friction) respond through [`resolve_manifold`]: the
//! same push-out, then impulses at each contact point with their angular terms (`r × n` through the inverse inertia
//! tensor in world space), Newton's restitution per point, Coulomb friction, and an energy guard — the design is in
//! the `spin` module's docs. [`spin_wall`] is the walls' counterpart (a box meets a wall at its corners), and
//! [`advance_rotation`] turns a free body for a step, keeping its energy and angular momentum.
//!
//! A step's contacts go through [`Solver`], which gets the one-by-one answer on several threads: contacts that
//! share no body commute, so it sorts the contacts by pair once and gives each a *level* — one more than the
//! highest level among the earlier contacts of its bodies —; a level's contacts share no body and run in
//! parallel, the levels in order (the design is in the `solver` module). The answer is bit for bit the one-by-one
//! answer in ascending pair order, on any thread count, whatever order the broadphase found the pairs in.
//! [`Solver::solve_spin`] is the same solver for a step with bodies that spin: the links carry the index of their
//! manifold, the contacts' bodies a second local array with their rotation, and sphere–sphere links without
//! friction still take the spheres' path. The caller marks the contacts' bodies first ([`ContactBodies`]): the
//! solver numbers them by that set, and the caller hands the same set on to whatever visits the contacts' bodies
//! after resolution (the simulation's walls).
//!
//! # Complexity
//!
//! A contact is O(1). A step of c contacts among n bodies, m of them in a contact: O(n / 64) for the body marks
//! and their ranks, O(c + m) for the counting sort by pair (each body's few contacts as the smaller body put in
//! order by insertion) and for the levels (one serial pass over the sorted contacts), O(m) to copy the bodies in
//! and out, and O(c) to resolve, in parallel within a level. The levels are as many as the longest chain of
//! contacts whose pairs ascend along it — a few in a scene of scattered contacts, where most contacts are in the
//! first; a chain of bodies numbered along it has one contact per level, resolved on the calling thread. Memory:
//! 32 bytes per body in a contact, about 56 per contact, 1 bit per body; with rotation, 64 more bytes per body in a
//! contact. A contact with rotation costs up to [`ITERATIONS`] sweeps over its points (at most [`MAX_POINTS`]), each
//! a few dot and cross products per point; most converge in two or three.
//!
//! # Performance tips
//!
//! The contacts' bodies are copied into a dense array in body order before resolving and back after, so that the
//! levels work on a few megabytes even at 10⁶ bodies. What costs is reaching bodies scattered through the body
//! arrays (bodies spawned in random order); the second thread keeps more cache misses in flight. The sort and
//! the levels are serial passes over that dense array (about a fifth of a millisecond per 10⁵ contacts).

mod contact_bodies;
mod solver;
mod spin;

pub use contact_bodies::ContactBodies;
pub use solver::{Solver, SphereColumns, SpinColumns, bodies_per_chunk};
pub use spin::{
    ITERATIONS, MAX_POINTS, Material, SpinState, WallShape, advance_rotation, box_inverse_inertia, resolve_manifold,
    rotational_energy, sphere_inverse_inertia, spin_wall,
};

use collide_math::{Aabb, Vec3};
use collide_narrowphase::Contact;

/// A body as the response sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// The centre.
    pub position: Vec3,
    /// The velocity.
    pub velocity: Vec3,
    /// 1 / mass; 0 for an immovable body.
    pub inv_mass: f32,
}

/// Resolve one contact of the narrowphase: push the bodies apart along its normal by its depth, split by
/// inverse mass ([`push_apart`]), then exchange momentum with restitution `e` ([`impulse`]). `None` is a pair
/// the narrowphase found touching but that an earlier contact of the same step has since separated: it gets
/// no push, and the impulse only if they still approach.
pub fn resolve_contact(a: &mut BodyState, b: &mut BodyState, contact: Option<&Contact>, e: f32) {
    if let Some(c) = contact {
        push_apart(a, b, c.normal, c.depth);
    }
    impulse(a, b, e);
}

/// Move `a` along `normal` and `b` against it so that `depth` of interpenetration is removed, split by inverse
/// mass (an immovable body, inverse mass 0, stays). Nothing happens for `depth <= 0` (touching is not
/// overlapping) or when both bodies are immovable. Returns `true` when the bodies moved.
pub fn push_apart(a: &mut BodyState, b: &mut BodyState, normal: Vec3, depth: f32) -> bool {
    let w = a.inv_mass + b.inv_mass;
    if w <= 0.0 || depth <= 0.0 {
        return false;
    }
    a.position += normal * (depth * a.inv_mass / w);
    b.position -= normal * (depth * b.inv_mass / w);
    true
}

/// Exchange momentum between two touching bodies along the line of centres, with restitution `e`.
/// Returns `true` when an impulse was applied (the bodies were approaching).
///
/// Momentum is conserved exactly (up to rounding); kinetic energy is conserved for `e = 1` and lost for
/// `e < 1`.
pub fn impulse(a: &mut BodyState, b: &mut BodyState, e: f32) -> bool {
    let w = a.inv_mass + b.inv_mass;
    let d = a.position - b.position;
    let dist2 = d.length_squared();
    if w <= 0.0 || dist2 == 0.0 {
        return false;
    }
    let approach = (a.velocity - b.velocity).dot(d);
    if approach >= 0.0 {
        return false; // separating or sliding: no impulse
    }
    // k·d is the relative velocity's component along the centre line; (1+e) of it is removed, shared so that
    // m1·Δv1 = −m2·Δv2. With masses: Δv1 = −(1+e)·m2/(m1+m2)·k·d = −(1+e)·w1/(w1+w2)·k·d.
    let k = (1.0 + e) * approach / dist2;
    a.velocity -= d * (k * a.inv_mass / w);
    b.velocity += d * (k * b.inv_mass / w);
    true
}

/// Keep a body of half extents `half` inside `container`: a body past a wall is put back against it and its
/// velocity component into the wall is reflected with restitution `e`. Returns `true` when a wall was hit.
pub fn wall(position: &mut Vec3, velocity: &mut Vec3, half: Vec3, container: &Aabb, e: f32) -> bool {
    let mut hit = false;
    for axis in 0..3 {
        let lo = container.min[axis] + half[axis];
        let hi = container.max[axis] - half[axis];
        if position[axis] < lo {
            position[axis] = lo;
            if velocity[axis] < 0.0 {
                velocity[axis] = -velocity[axis] * e;
            }
            hit = true;
        } else if position[axis] > hi {
            position[axis] = hi;
            if velocity[axis] > 0.0 {
                velocity[axis] = -velocity[axis] * e;
            }
            hit = true;
        }
    }
    hit
}

#[cfg(test)]
mod tests;
