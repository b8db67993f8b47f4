//! Continuous collision detection: the times of impact of a step's fast bodies, resolved in time order.
//!
//! After the broadphase (which saw the fast bodies' swept boxes, [`Sweep`]): for every pair with a fast body, the
//! time of impact of the two shapes on the step's motions (`toi_solids`: sphere–sphere, sphere–box, box–box); for
//! every fast body and obstacle, the same against the standing obstacle. A box keeps its end-of-step orientation
//! along the whole step (motion within a step is linear, the lecture's assumption): a fast box is fast by its
//! translation, and the turn of one step is seen by the discrete test at its end.
//!
//! The events are processed in ascending `(t, a, b)` order from a min-heap (bodies touching at the start and moving
//! apart, just bounced, are no event): the bodies go to their place at `t` and get the response there — two spheres
//! the impulse of the scene's restitution along the line of centres, a pair with a box (or a box and an obstacle)
//! the spin response at the contact's points (restitution, friction, torque) — and **the rest of their step's
//! motion is dropped** (they stay at the impact point with the new velocity). A body stopped earlier in the step is
//! **measured again**: it stands still at its stop for the rest of the step, and its partner's motion from the
//! event's `t` on is tested against it, the answer going back into the heap; an event whose bodies are all stopped
//! is dropped (the discrete narrowphase that follows handles any overlap), as is an obstacle event of a stopped
//! body, and a box pair that only grazes (no contact at the impact) changes nothing.
//!
//! The events are a function of the set of pairs (not their order) and are processed serially in a total order,
//! so the state is the same for every broadphase and thread count. Without `ccd` the same times of impact only
//! count (`tunnelling.rs`); the obstacles' discrete push-out is `obstacles.rs`.

use crate::Bodies;
use crate::obstacles::{obstacle_normal, stays_clear};
use crate::sweep::{Sweep, approaching};
use collide_broadphase::Pair;
use collide_math::{Obb, Vec3};
use collide_narrowphase::{Manifold, Shape, Solid, solid_contact, toi_solids};
use collide_resolution::{BodyState, Material, SpinState, resolve_manifold};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An obstacle event's second key: `u32::MAX − k` for obstacle `k`, above every body index (at most `u32::MAX / 2`
/// bodies, see the config), so that obstacle and pair events never share a key.
const OBSTACLE: u32 = u32::MAX;

/// How far (relative to the smaller solid's size) a solid is nudged along the relative motion when the contact at
/// an exact time of impact rounds to "apart": enough to overlap by a hair, far too little to matter. Tried in
/// turn.
const IMPACT_NUDGES: [f32; 2] = [1e-4, 1e-3];

/// One time of impact: `(t's bits, a, b, stopped mask)`, min-ordered through `Reverse`. A non-negative `f32`'s bits
/// order as the float does. The mask records which of `a` (bit 0) and `b` (bit 1) were stopped when `t` was
/// measured; an event popped with another mask is measured again.
type Event = Reverse<(u32, u32, u32, u8)>;

/// The heap key of a time of impact: its bits, with `−0` made `+0` (whose bits sort first, not last).
fn key(t: f32) -> u32 {
    if t > 0.0 { t.to_bits() } else { 0 }
}

/// The event queue and the bodies stopped this step, kept between steps so that nothing allocates once warm.
#[derive(Default)]
pub struct Impacts {
    /// Per body: stopped at an impact this step.
    stopped: Vec<bool>,
    /// The bodies whose `stopped` flag is set, to clear them.
    stopped_list: Vec<u32>,
    /// The events, as a min-heap.
    heap: BinaryHeap<Event>,
}

/// `solid` moved by `d`.
fn translated(solid: &Solid, d: Vec3) -> Solid {
    match *solid {
        Solid::Sphere(c, r) => Solid::Sphere(c + d, r),
        Solid::Box(obb) => Solid::Box(Obb { center: obb.center + d, ..obb }),
    }
}

/// The size of a solid: a sphere's radius, a box's largest half extent.
fn size(solid: &Solid) -> f32 {
    match solid {
        Solid::Sphere(_, r) => *r,
        Solid::Box(obb) => obb.half_extents.max_element(),
    }
}

/// The contact of `a` and `b` at their time of impact, where they touch exactly: their manifold, or — when
/// rounding puts them a hair apart — the manifold with `a` nudged by [`IMPACT_NUDGES`] of the smaller solid's size
/// along `relative` (a's motion relative to b's). `None` for a graze that touches nowhere.
fn impact_contact(a: &Solid, b: &Solid, relative: Vec3) -> Option<Manifold> {
    let length = relative.length();
    let unit = if length > 0.0 { relative / length } else { return solid_contact(a, b) };
    let scale = size(a).min(size(b));
    solid_contact(a, b)
        .or_else(|| IMPACT_NUDGES.iter().find_map(|nudge| solid_contact(&translated(a, unit * (nudge * scale)), b)))
}

impl Impacts {
    /// The times of impact of this step's `pairs` with a fast body and of the fast bodies against the `obstacles`,
    /// each resolved in `(t, a, b)` order with `material` (see the module docs): the bodies met are moved to their
    /// impacts, bounced and stopped there. O(p) times of impact for p pairs with a fast body, O(f·k) for f fast
    /// bodies and k obstacles, and O(e log e) for e events.
    pub fn resolve(
        &mut self,
        sweep: &Sweep,
        material: &Material,
        pairs: &[Pair],
        obstacles: &[Obb],
        bodies: &mut Bodies,
    ) {
        if !sweep.any_fast() {
            return;
        }
        let (start, fast) = (sweep.start(), sweep.fast());
        self.heap.clear();
        for (pair, t) in sweep.meetings(pairs, bodies) {
            self.heap.push(Reverse((key(t), pair.a, pair.b, 0)));
        }
        for (i, &is_fast) in fast.iter().enumerate() {
            if !is_fast {
                continue;
            }
            let (s, d) = sweep.motion(bodies, i);
            for (k, obstacle) in obstacles.iter().enumerate() {
                if stays_clear(start[i], bodies.position[i], bodies.radius[i], obstacle) {
                    continue;
                }
                let wall = Solid::Box(*obstacle);
                if let Some(t) = toi_solids(&s, d, &wall, Vec3::ZERO) {
                    if t == 0.0 && d.dot(obstacle_normal(&s, obstacle, d)) >= 0.0 {
                        continue; // touching at the start and moving away
                    }
                    self.heap.push(Reverse((key(t), i as u32, OBSTACLE - k as u32, 0)));
                }
            }
        }
        self.process(start, material, obstacles, bodies);
    }

    /// Pop the events in `(t, a, b)` order and resolve each at its time of impact (module docs).
    fn process(&mut self, start: &[Vec3], material: &Material, obstacles: &[Obb], bodies: &mut Bodies) {
        for &i in &self.stopped_list {
            self.stopped[i as usize] = false;
        }
        self.stopped_list.clear();
        self.stopped.resize(bodies.len(), false);
        while let Some(Reverse((bits, a, b, mask))) = self.heap.pop() {
            let t = f32::from_bits(bits);
            let (a, ai) = (a, a as usize);
            if b > OBSTACLE - obstacles.len() as u32 {
                // A body against obstacle `OBSTACLE − b`: dropped if the body stopped earlier.
                if self.stopped[ai] {
                    continue;
                }
                let obstacle = &obstacles[(OBSTACLE - b) as usize];
                let d = bodies.position[ai] - start[ai];
                let p = start[ai] + d * t;
                if obstacle_impact(bodies, ai, p, d, obstacle, material) {
                    self.stop(ai);
                }
                continue;
            }
            let bi = b as usize;
            let now = u8::from(self.stopped[ai]) | (u8::from(self.stopped[bi]) << 1);
            if now == 3 {
                continue;
            }
            // Where a body is at `t` and its motion over the rest of the step: a stopped body stands at its stop.
            let at = |i: usize, stopped: bool| {
                if stopped {
                    (bodies.position[i], Vec3::ZERO)
                } else {
                    let d = bodies.position[i] - start[i];
                    (start[i] + d * t, d * (1.0 - t))
                }
            };
            let ((ca, da), (cb, db)) = (at(ai, now & 1 != 0), at(bi, now & 2 != 0));
            if now != mask {
                // Measure again from `t`: a stopped body stands at its stop, the other moves on from its place at
                // `t` over the rest of the step.
                let (sa, sb) = (bodies.solid_at(ai, ca), bodies.solid_at(bi, cb));
                let again = toi_solids(&sa, da, &sb, db);
                if let Some(s) = again.filter(|&s| s > 0.0 || approaching(&sa, da, &sb, db)) {
                    let again = (t + s * (1.0 - t)).min(1.0).max(t);
                    self.heap.push(Reverse((key(again), a, b, now)));
                }
                continue;
            }
            if pair_impact(bodies, (ai, ca, da), (bi, cb, db), material) {
                self.stop(ai);
                self.stop(bi);
            }
        }
    }

    fn stop(&mut self, i: usize) {
        if !self.stopped[i] {
            self.stopped[i] = true;
            self.stopped_list.push(i as u32);
        }
    }
}

/// Body `i` meets `obstacle` at `p` on its path `d`: placed there, its velocity's normal part reflected with the
/// restitution (a sphere), or the spin response at the contact's points against the immovable obstacle (a
/// box). Returns `false` for a box that grazes the obstacle without a contact (nothing changes).
fn obstacle_impact(bodies: &mut Bodies, i: usize, p: Vec3, d: Vec3, obstacle: &Obb, m: &Material) -> bool {
    let solid = bodies.solid_at(i, p);
    if bodies.shape(i) == Shape::Sphere {
        let normal = obstacle_normal(&solid, obstacle, d);
        let vn = bodies.velocity[i].dot(normal);
        if vn < 0.0 {
            bodies.velocity[i] -= normal * ((1.0 + m.restitution) * vn);
        }
        bodies.position[i] = p;
        return true;
    }
    let Some(contact) = impact_contact(&solid, &Solid::Box(*obstacle), d) else { return false };
    let mut state = bodies.spin_state(i, p);
    resolve_manifold(&mut state, &mut SpinState::fixed(obstacle.center), contact.normal, contact.points(), false, m);
    bodies.set_spin_state(i, &state);
    true
}

/// Bodies `a` and `b`, each `(index, place at the impact, rest of its motion)`, meet: two spheres get the
/// impulse of the restitution along the line of centres (`collide_resolution::impulse`, the spheres' answer
/// before boxes existed); a pair with a box gets the spin response at the contact's points (restitution,
/// friction and torque). Both are placed at the impact. Returns `false` for a graze without a contact.
fn pair_impact(bodies: &mut Bodies, a: (usize, Vec3, Vec3), b: (usize, Vec3, Vec3), m: &Material) -> bool {
    let ((ai, ca, da), (bi, cb, db)) = (a, b);
    if bodies.shape(ai) == Shape::Sphere && bodies.shape(bi) == Shape::Sphere {
        let mut sa = BodyState { position: ca, velocity: bodies.velocity[ai], inv_mass: bodies.inv_mass[ai] };
        let mut sb = BodyState { position: cb, velocity: bodies.velocity[bi], inv_mass: bodies.inv_mass[bi] };
        collide_resolution::impulse(&mut sa, &mut sb, m.restitution);
        (bodies.position[ai], bodies.velocity[ai]) = (sa.position, sa.velocity);
        (bodies.position[bi], bodies.velocity[bi]) = (sb.position, sb.velocity);
        return true;
    }
    let (sa, sb) = (bodies.solid_at(ai, ca), bodies.solid_at(bi, cb));
    let Some(contact) = impact_contact(&sa, &sb, da - db) else { return false };
    let (mut ra, mut rb) = (bodies.spin_state(ai, ca), bodies.spin_state(bi, cb));
    resolve_manifold(&mut ra, &mut rb, contact.normal, contact.points(), false, m);
    bodies.set_spin_state(ai, &ra);
    bodies.set_spin_state(bi, &rb);
    true
}

#[cfg(test)]
mod tests;
