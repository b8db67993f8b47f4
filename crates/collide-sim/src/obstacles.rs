//! Static obstacles (the `tunnel`'s wall: a list of `Obb`s in the [`Setup`](crate::Setup), tested against every
//! body each step rather than put in the broadphase): their geometry, the discrete push-out of every body, and —
//! with `ccd` — the bodies a crowd pushed through one put back on their side.
//!
//! - [`push_out_of_obstacles`], in the wall phase: the discrete test of every body against every obstacle, pushed
//!   out along the contact normal with the velocity's normal part reflected (a box: the spin response at the
//!   manifold's points).
//! - [`keep_on_start_side`], in the wall phase with `ccd`: a body the contact solver pushed through an obstacle (a
//!   neighbour's push-out in a crowd; a body's own motion was stopped at the face by its time of impact) is put
//!   back on the side it started on, touching the face — an obstacle is static and impenetrable.
//! - [`went_through`]: whether a body's path this step crossed an obstacle — what the tunnel count counts and what
//!   [`keep_on_start_side`] undoes.

use crate::Bodies;
use collide_math::{Obb, Vec3};
use collide_narrowphase::{Solid, solid_contact, sphere_box, toi_solids};
use collide_resolution::{Material, SpinState, resolve_manifold};

/// An obstacle's thinnest axis (unit, in the world) and its half thickness along it: the axis across which a body
/// goes *through* the obstacle rather than around it.
pub fn thin_axis(obstacle: &Obb) -> (Vec3, f32) {
    let axes = obstacle.axes();
    let h = obstacle.half_extents;
    if h.x <= h.y && h.x <= h.z {
        (axes.x_axis, h.x)
    } else if h.y <= h.z {
        (axes.y_axis, h.y)
    } else {
        (axes.z_axis, h.z)
    }
}

/// `true` when a body of bounding radius `r` moving from `p0` to `p1` stays further than `r` from the slab of the
/// obstacle's thin axis on one side: it cannot touch the obstacle (two dot products, before any time of impact).
pub fn stays_clear(p0: Vec3, p1: Vec3, r: f32, obstacle: &Obb) -> bool {
    let (thin, half) = thin_axis(obstacle);
    let (s0, s1) = ((p0 - obstacle.center).dot(thin), (p1 - obstacle.center).dot(thin));
    let clear = half + r;
    (s0 > clear && s1 > clear) || (s0 < -clear && s1 < -clear)
}

/// The outward normal of `obstacle` for a solid touching it: the contact's when there is one (there may not be,
/// by rounding, at exactly touching), else — a sphere — from the closest point, else against the motion `d`.
pub fn obstacle_normal(solid: &Solid, obstacle: &Obb, d: Vec3) -> Vec3 {
    let against = || (-d).try_normalize().unwrap_or(Vec3::Y);
    match *solid {
        Solid::Sphere(p, r) => {
            if let Some(c) = sphere_box(p, r, obstacle) {
                return c.normal;
            }
            let away = p - obstacle.closest_point(p);
            away.try_normalize().unwrap_or_else(against)
        }
        Solid::Box(_) => solid_contact(solid, &Solid::Box(*obstacle)).map_or_else(against, |m| m.normal),
    }
}

/// `true` when body `i` went through `obstacle` between `p0` and its position now: its centre changed side of the
/// obstacle's mid-plane across the thin axis, and its path met the obstacle (`toi_solids`: a sphere, or a box at its
/// end-of-step orientation), so that a body that went around the obstacle's rim does not count.
/// `thin` is the obstacle's [`thin_axis`], which the callers compute once per obstacle.
pub fn went_through(bodies: &Bodies, i: usize, p0: Vec3, obstacle: &Obb, thin: Vec3) -> bool {
    let p1 = bodies.position[i];
    let side = |p: Vec3| (p - obstacle.center).dot(thin);
    (side(p0) < 0.0) != (side(p1) < 0.0)
        && toi_solids(&bodies.solid_at(i, p0), p1 - p0, &Solid::Box(*obstacle), Vec3::ZERO).is_some()
}

/// The discrete test of every body against every obstacle, each body on its own (its result depends on it alone):
/// a sphere that overlaps one is pushed out along the contact normal by the depth, and the velocity's part into
/// the obstacle is reflected with the restitution; a box (`box_box`) is pushed out by the deepest point's depth
/// and gets the impulses of `resolve_manifold` at the manifold's points against the immovable obstacle —
/// restitution, friction and torque, as against a wall. O(n·k), serial.
pub fn push_out_of_obstacles(bodies: &mut Bodies, obstacles: &[Obb], material: &Material) {
    for i in 0..bodies.len() {
        match bodies.obb(i) {
            None => push_sphere_out(
                &mut bodies.position[i],
                &mut bodies.velocity[i],
                bodies.radius[i],
                obstacles,
                material.restitution,
            ),
            Some(obb) => push_box_out(bodies, i, obb, obstacles, material),
        }
    }
}

/// A sphere of radius `r` at `p` with velocity `v` pushed out of every obstacle it overlaps, in turn (restitution
/// `e`).
fn push_sphere_out(p: &mut Vec3, v: &mut Vec3, r: f32, obstacles: &[Obb], e: f32) {
    for obstacle in obstacles {
        if let Some(c) = sphere_box(*p, r, obstacle) {
            *p += c.normal * c.depth;
            let vn = v.dot(c.normal);
            if vn < 0.0 {
                *v -= c.normal * ((1.0 + e) * vn);
            }
        }
    }
}

/// Box body `i` (`obb`) pushed out of every obstacle it overlaps, in turn, with the spin response.
fn push_box_out(bodies: &mut Bodies, i: usize, obb: Obb, obstacles: &[Obb], material: &Material) {
    let mut state = bodies.spin_state(i, obb.center);
    let mut hit = false;
    for obstacle in obstacles {
        if stays_clear(state.position, state.position, bodies.radius[i], obstacle) {
            continue; // the bounding sphere is clear of the obstacle's slab: two dot products, not `box_box`
        }
        let body = Solid::Box(Obb { center: state.position, ..obb });
        if let Some(m) = solid_contact(&body, &Solid::Box(*obstacle)) {
            let mut fixed = SpinState::fixed(obstacle.center);
            resolve_manifold(&mut state, &mut fixed, m.normal, m.points(), true, material);
            hit = true;
        }
    }
    if hit {
        bodies.set_spin_state(i, &state);
    }
}

/// With `ccd`, after the contact solver: a body that went through an obstacle this step ([`went_through`]) since
/// `start` is put back on the side it started on, touching the obstacle's face (its centre moved along the thin
/// axis only), with its velocity's part toward the obstacle reflected with restitution `e`. A body's own motion
/// never gets there — its time of impact stopped it at the face — but a crowd can: a neighbour's push-out in the
/// solver, an overlap left by a spinning box, may carry a body that stands against a thin obstacle across it. An
/// obstacle is static and impenetrable, so it wins. Returns how many bodies were put back. O(n·k), serial.
pub fn keep_on_start_side(start: &[Vec3], bodies: &mut Bodies, obstacles: &[Obb], e: f32) -> u32 {
    let mut held = 0;
    for obstacle in obstacles {
        let (thin, half) = thin_axis(obstacle);
        for (i, &p0) in start.iter().enumerate() {
            if !went_through(bodies, i, p0, obstacle, thin) {
                continue;
            }
            // The start side's outward normal, and how far the body reaches along it from its centre.
            let normal = if (p0 - obstacle.center).dot(thin) < 0.0 { -thin } else { thin };
            let reach = match bodies.obb(i) {
                Some(obb) => {
                    let axes = obb.axes();
                    let h = obb.half_extents;
                    h.x * normal.dot(axes.x_axis).abs()
                        + h.y * normal.dot(axes.y_axis).abs()
                        + h.z * normal.dot(axes.z_axis).abs()
                }
                None => bodies.radius[i],
            };
            let p = bodies.position[i];
            let across = (p - obstacle.center).dot(normal);
            bodies.position[i] = p + normal * (half + reach - across);
            let vn = bodies.velocity[i].dot(normal);
            if vn < 0.0 {
                bodies.velocity[i] -= normal * ((1.0 + e) * vn);
            }
            held += 1;
        }
    }
    held
}

#[cfg(test)]
mod tests;
