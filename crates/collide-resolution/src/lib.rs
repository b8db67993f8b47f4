//! Collision response: what happens after two bodies are found touching.
//!
//! Two corrections, applied pair by pair in a fixed order (the simulation sorts the pairs, so every broadphase
//! gives the same result):
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

use collide_math::{Aabb, Vec3};

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

/// Push two overlapping spheres apart along the line of centres, split by inverse mass. Returns the
/// penetration depth that was removed, or `None` when they do not overlap (or both are immovable).
///
/// Coincident centres are separated along +Y (a deterministic choice; any axis would do).
pub fn push_out(a: &mut BodyState, ra: f32, b: &mut BodyState, rb: f32) -> Option<f32> {
    let w = a.inv_mass + b.inv_mass;
    if w <= 0.0 {
        return None;
    }
    let d = a.position - b.position;
    let dist2 = d.length_squared();
    let r = ra + rb;
    if dist2 >= r * r {
        return None;
    }
    let dist = dist2.sqrt();
    let normal = if dist > 0.0 { d / dist } else { Vec3::Y };
    let depth = r - dist;
    a.position += normal * (depth * a.inv_mass / w);
    b.position -= normal * (depth * b.inv_mass / w);
    Some(depth)
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
