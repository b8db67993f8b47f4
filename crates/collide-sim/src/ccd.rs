//! Continuous collision detection for spheres and boxes, static obstacles, and the `tunnelled` counter.
//!
//! Active only in a scene with obstacles, with `ccd = true`, or whose speed moves a sphere further than its
//! diameter in a step ([`Continuous::active`]); elsewhere the step never calls into this module, so the other
//! scenes pay nothing. Without `ccd` the module only counts: the state, and so the hash, is the same as without
//! it.
//!
//! - [`Continuous::begin`] keeps every body's position at the start of the step (one copy of the column).
//! - [`Continuous::sweep`], after the box pass: a body whose displacement this step exceeds its radius (a box: its
//!   smallest half extent) is *fast*; its box becomes the union of its boxes before and after the step (with or
//!   without `ccd`: the counter needs the pairs that met during the step, and the discrete narrowphase drops those
//!   that do not touch at the end, so the physics without `ccd` is unchanged).
//! - [`Continuous::events`], after the broadphase: for every pair with a fast body, the time of impact of the two
//!   shapes on the step's motions (`toi_solids`: sphere–sphere, sphere–box, box–box); for every fast body and
//!   obstacle, the same against the standing obstacle. A box keeps its end-of-step orientation along the whole
//!   step (motion within a step is linear, the lecture's assumption): a fast box is fast by its translation, and
//!   the turn of one step is seen by the discrete test at its end. Without `ccd` a pair that met (`t > 0`) but
//!   does not touch at the end is counted as tunnelled. With `ccd` the events are processed in ascending
//!   `(t, a, b)` order from a min-heap (bodies touching at the start and moving apart, just bounced, are no
//!   event): the bodies go to their place at `t` and get the response there — two spheres the impulse of the
//!   scene's restitution along the line of centres, a pair with a box (or a box and an obstacle) the rotating
//!   response at the contact's points (restitution, friction, torque) — and **the rest of their step's motion is
//!   dropped** (they stay at the impact point with the new velocity). A body stopped earlier in the step is
//!   **measured again**: it stands still at its stop for the rest of the step, and its partner's motion from the
//!   event's `t` on is tested against it, the answer going back into the heap; an event whose bodies are all
//!   stopped is dropped (the discrete narrowphase that follows handles any overlap), as is an obstacle event of a
//!   stopped body, and a box pair that only grazes (no contact at the impact) changes nothing.
//! - [`keep_on_start_side`], in the wall phase with `ccd`: a body the contact solver pushed through an obstacle (a
//!   neighbour's push-out in a crowd; a body's own motion was stopped at the face) is put back on the side it
//!   started on, touching the face — an obstacle is static and impenetrable. Counted over the run
//!   ([`Continuous::held`]): 0 in a sparse scene, where the times of impact alone keep every body on its side.
//! - [`push_out_of_obstacles`] and [`push_boxes_out_of_obstacles`], in the wall phase: the discrete test of every
//!   body against every obstacle, pushed out along the contact normal with the velocity's normal part reflected
//!   (a box: the rotating response at the manifold's points).
//! - [`crossed_obstacles`], at the end of the step: the bodies whose centre changed side of an obstacle's
//!   mid-plane (across its thinnest axis) along a path that met the obstacle — pushed out on the far side or not
//!   touched at all, they went through.
//!
//! The events are a function of the set of pairs (not their order) and are processed serially in a total order,
//! so the state is the same for every broadphase and thread count.

use crate::Bodies;
use crate::scenario::Setup;
use collide_broadphase::Pair;
use collide_math::{Aabb, Obb, Vec3};
use collide_narrowphase::{Manifold, Shape, Solid, solid_contact, sphere_box, toi_solids};
use collide_resolution::{BodyState, Material, RigidState, resolve_manifold};
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

/// The step's continuous detection: the start positions, the fast bodies and the event queue, kept between steps
/// so that nothing allocates once warm.
#[derive(Default)]
pub struct Continuous {
    /// Every body's centre at the start of the step.
    start: Vec<Vec3>,
    /// Per body: its displacement this step exceeds its radius (a box's: its smallest half extent).
    fast: Vec<bool>,
    /// Per body: stopped at an impact this step (only with `ccd`).
    stopped: Vec<bool>,
    /// The bodies whose `stopped` flag is set, to clear them.
    stopped_list: Vec<u32>,
    /// The events, as a min-heap.
    heap: BinaryHeap<Event>,
    /// No fast body this step (nothing to test).
    none_fast: bool,
    /// Over the run: bodies [`keep_on_start_side`] put back on their side of an obstacle.
    held: u64,
}

/// How far body `i` may move in a step before it counts as fast: a sphere's radius, a box's smallest half extent
/// (the half of its thinnest side — moving further, it can pass a thin thing between two discrete tests).
fn reach(bodies: &Bodies, i: usize) -> f32 {
    match bodies.shape(i) {
        Shape::Sphere => bodies.radius[i],
        Shape::Box => bodies.spin.half_extents[i].min_element(),
    }
}

/// Body `i` as a solid centred at `center` (its shape, size and end-of-step orientation; `Solid::new`, whose box
/// columns exist only when the rotational columns are enabled).
fn solid_at(bodies: &Bodies, i: usize, center: Vec3) -> Solid {
    let s = &bodies.spin;
    match bodies.shape(i) {
        Shape::Sphere => Solid::Sphere(center, bodies.radius[i]),
        Shape::Box => Solid::new(Shape::Box, center, bodies.radius[i], s.half_extents[i], s.rotation[i]),
    }
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

/// `true` when `a` and `b`, overlapping at the start of the step, move into each other: their relative motion runs
/// against the contact normal (spheres: against the line of centres, as before boxes existed).
fn approaching(a: &Solid, da: Vec3, b: &Solid, db: Vec3) -> bool {
    match (a, b) {
        (Solid::Sphere(ca, _), Solid::Sphere(cb, _)) => (*ca - *cb).dot(da - db) < 0.0,
        _ => solid_contact(a, b).is_some_and(|m| (da - db).dot(m.normal) < 0.0),
    }
}

impl Continuous {
    /// `true` when the scene needs this module: `ccd` on, obstacles to count crossings of, or a scene speed at
    /// which a sphere moves further than the smallest diameter in a step of `dt` — the least at which two spheres
    /// meeting head-on can pass through each other unseen. Other scenes (a script may speed bodies up:
    /// `cluster`'s pull) are not counted, so that they pay nothing. Thin boxes do not switch the counter on by
    /// their speed: counting costs a time of impact per pair with a fast body, and a scene of boxes at speed —
    /// `configs/mixed.toml` at 10⁵ bodies — would pay 10 ms a step for a count it did not ask for; `ccd = true`
    /// or an obstacle switches it on.
    #[must_use]
    pub fn active(setup: &Setup, dt: f32) -> bool {
        let smallest = setup.radius * (1.0 - setup.radius_spread);
        setup.ccd || !setup.obstacles.is_empty() || setup.speed * dt > 2.0 * smallest
    }

    /// Keep the start positions. O(n).
    pub fn begin(&mut self, position: &[Vec3]) {
        self.start.clear();
        self.start.extend_from_slice(position);
    }

    /// Forget the start positions (a step that renumbered bodies): no body is fast, no crossing is counted.
    pub fn forget(&mut self, position: &[Vec3]) {
        self.begin(position);
    }

    /// Mark the fast bodies — those whose displacement this step exceeds their [`reach`] — and sweep their boxes
    /// (the union of the boxes before and after the step); their motion flag is set. A box's box before the step
    /// is its box after, moved back by the displacement: continuous detection takes a box at its end-of-step
    /// orientation along the whole step. O(n).
    pub fn sweep(&mut self, bodies: &Bodies, aabbs: &mut [Aabb], moved: &mut [bool]) {
        let n = bodies.len();
        self.fast.clear();
        self.fast.resize(n, false);
        self.none_fast = true;
        for i in 0..n {
            let (p0, p1, r) = (self.start[i], bodies.position[i], reach(bodies, i));
            let d = p1 - p0;
            if d.length_squared() > r * r {
                self.fast[i] = true;
                self.none_fast = false;
                let before = match bodies.shape(i) {
                    Shape::Sphere => Aabb::from_center_radius(p0, bodies.radius[i]),
                    Shape::Box => Aabb::new(aabbs[i].min - d, aabbs[i].max - d),
                };
                aabbs[i] = Aabb::new(aabbs[i].min.min(before.min), aabbs[i].max.max(before.max));
                moved[i] = true;
            }
        }
    }

    /// The times of impact of this step's pairs and obstacles (`toi_solids`: every pair of shapes). With `ccd`,
    /// processed in order (see the module docs); without, the pairs that met during the step and do not touch at
    /// its end are counted. Returns the tunnelled pairs. O(p) for p pairs plus O(f·k) for f fast bodies and k
    /// obstacles, and O(e log e) for e events with `ccd`.
    pub fn events(
        &mut self,
        ccd: bool,
        material: &Material,
        pairs: &[Pair],
        obstacles: &[Obb],
        bodies: &mut Bodies,
    ) -> u32 {
        if self.none_fast {
            return 0;
        }
        let (start, fast) = (&self.start, &self.fast);
        let motion = |i: usize| (solid_at(bodies, i, start[i]), bodies.position[i] - start[i]);
        let mut tunnelled = 0;
        self.heap.clear();
        for pair in pairs {
            let (a, b) = (pair.a as usize, pair.b as usize);
            if !(fast[a] || fast[b]) {
                continue;
            }
            let ((sa, da), (sb, db)) = (motion(a), motion(b));
            let Some(t) = toi_solids(&sa, da, &sb, db) else { continue };
            if t == 0.0 && !approaching(&sa, da, &sb, db) {
                // Touching at the start and moving apart (just bounced): no impact, nothing to stop.
                continue;
            }
            if ccd {
                self.heap.push(Reverse((key(t), pair.a, pair.b, 0)));
            } else if t > 0.0 {
                let end = |i: usize| solid_at(bodies, i, bodies.position[i]);
                if solid_contact(&end(a), &end(b)).is_none() {
                    tunnelled += 1;
                }
            }
        }
        if !ccd {
            return tunnelled;
        }
        for (i, &is_fast) in fast.iter().enumerate() {
            if !is_fast {
                continue;
            }
            let (s, d) = motion(i);
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
        self.process(material, obstacles, bodies);
        0
    }

    /// Pop the events in `(t, a, b)` order and resolve each at its time of impact (module docs).
    fn process(&mut self, material: &Material, obstacles: &[Obb], bodies: &mut Bodies) {
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
                let d = bodies.position[ai] - self.start[ai];
                let p = self.start[ai] + d * t;
                if self.obstacle_impact(bodies, ai, p, d, obstacle, material) {
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
                    let d = bodies.position[i] - self.start[i];
                    (self.start[i] + d * t, d * (1.0 - t))
                }
            };
            let ((ca, da), (cb, db)) = (at(ai, now & 1 != 0), at(bi, now & 2 != 0));
            if now != mask {
                // Measure again from `t`: a stopped body stands at its stop, the other moves on from its place at
                // `t` over the rest of the step.
                let (sa, sb) = (solid_at(bodies, ai, ca), solid_at(bodies, bi, cb));
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

    /// Body `i` meets `obstacle` at `p` on its path `d`: placed there, its velocity's normal part reflected with the
    /// restitution (a sphere), or the rotating response at the contact's points against the immovable obstacle (a
    /// box). Returns `false` for a box that grazes the obstacle without a contact (nothing changes).
    fn obstacle_impact(&self, bodies: &mut Bodies, i: usize, p: Vec3, d: Vec3, obstacle: &Obb, m: &Material) -> bool {
        let solid = solid_at(bodies, i, p);
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
        let mut state = rigid_state(bodies, i, p);
        resolve_manifold(
            &mut state,
            &mut RigidState::fixed(obstacle.center),
            contact.normal,
            contact.points(),
            false,
            m,
        );
        store(bodies, i, &state);
        true
    }

    fn stop(&mut self, i: usize) {
        if !self.stopped[i] {
            self.stopped[i] = true;
            self.stopped_list.push(i as u32);
        }
    }

    /// The bodies that went through an obstacle this step ([`crossed_obstacles`]).
    #[must_use]
    pub fn crossings(&self, bodies: &Bodies, obstacles: &[Obb]) -> u32 {
        if obstacles.is_empty() {
            return 0;
        }
        crossed_obstacles(&self.start, bodies, obstacles)
    }

    /// With `ccd`: the bodies a crowd pushed through an obstacle put back on their side ([`keep_on_start_side`]).
    pub fn keep_sides(&mut self, bodies: &mut Bodies, obstacles: &[Obb], e: f32) {
        self.held += u64::from(keep_on_start_side(&self.start, bodies, obstacles, e));
    }

    /// Over the run: how many times a body was put back on its side of an obstacle ([`keep_on_start_side`]).
    #[must_use]
    pub fn held(&self) -> u64 {
        self.held
    }
}

/// Bodies `a` and `b`, each `(index, place at the impact, rest of its motion)`, meet: two spheres get the
/// impulse of the restitution along the line of centres (`collide_resolution::impulse`, the spheres' answer
/// before boxes existed); a pair with a box gets the rotating response at the contact's points (restitution,
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
    let (sa, sb) = (solid_at(bodies, ai, ca), solid_at(bodies, bi, cb));
    let Some(contact) = impact_contact(&sa, &sb, da - db) else { return false };
    let (mut ra, mut rb) = (rigid_state(bodies, ai, ca), rigid_state(bodies, bi, cb));
    resolve_manifold(&mut ra, &mut rb, contact.normal, contact.points(), false, m);
    store(bodies, ai, &ra);
    store(bodies, bi, &rb);
    true
}

/// Body `i` at `position` as the rotating response sees it (the rotational columns are enabled: it is a box, or
/// the partner of one).
fn rigid_state(bodies: &Bodies, i: usize, position: Vec3) -> RigidState {
    let s = &bodies.spin;
    let (v, m) = (bodies.velocity[i], bodies.inv_mass[i]);
    RigidState::from_body_frame(position, v, m, s.rotation[i], s.angular_velocity[i], s.inv_inertia[i])
}

/// Write a response's position, velocity and angular velocity back to body `i`.
fn store(bodies: &mut Bodies, i: usize, state: &RigidState) {
    (bodies.position[i], bodies.velocity[i]) = (state.position, state.velocity);
    bodies.spin.angular_velocity[i] = state.body_angular_velocity();
}

/// The outward normal of `obstacle` for a solid touching it: the contact's when there is one (there may not be,
/// by rounding, at exactly touching), else — a sphere — from the closest point, else against the motion `d`.
fn obstacle_normal(solid: &Solid, obstacle: &Obb, d: Vec3) -> Vec3 {
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

/// The discrete test of every body against every obstacle: a body that overlaps one is pushed out along the
/// contact normal by the depth, and the velocity's part into the obstacle is reflected with restitution `e`.
/// O(n·k), serial.
/// Boxes (`shape`, empty when every body is a sphere) are left to [`push_boxes_out_of_obstacles`].
pub fn push_out_of_obstacles(
    position: &mut [Vec3],
    velocity: &mut [Vec3],
    radius: &[f32],
    shape: &[Shape],
    obstacles: &[Obb],
    e: f32,
) {
    for (i, ((p, v), &r)) in position.iter_mut().zip(velocity.iter_mut()).zip(radius).enumerate() {
        if shape.get(i) == Some(&Shape::Box) {
            continue;
        }
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
}

/// The discrete test of every box body against every obstacle (`box_box`): a box that overlaps one is pushed out
/// by the deepest point's depth and gets the impulses of `resolve_manifold` at the manifold's points against the
/// immovable obstacle — restitution, friction and torque, as against a wall. O(b·k) for b boxes, serial.
pub fn push_boxes_out_of_obstacles(bodies: &mut Bodies, obstacles: &[Obb], material: &Material) {
    for i in 0..bodies.len() {
        let Some(obb) = bodies.obb(i) else { continue };
        let mut state = rigid_state(bodies, i, obb.center);
        let mut hit = false;
        for obstacle in obstacles {
            if stays_clear(state.position, state.position, bodies.radius[i], obstacle) {
                continue; // the bounding sphere is clear of the obstacle's slab: two dot products, not `box_box`
            }
            let body = Solid::Box(Obb { center: state.position, ..obb });
            if let Some(m) = solid_contact(&body, &Solid::Box(*obstacle)) {
                let mut fixed = RigidState::fixed(obstacle.center);
                resolve_manifold(&mut state, &mut fixed, m.normal, m.points(), true, material);
                hit = true;
            }
        }
        if hit {
            store(bodies, i, &state);
        }
    }
}

/// An obstacle's thinnest axis (unit, in the world) and its half thickness along it: the axis across which a body
/// goes *through* the obstacle rather than around it.
fn thin_axis(obstacle: &Obb) -> (Vec3, f32) {
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
fn stays_clear(p0: Vec3, p1: Vec3, r: f32, obstacle: &Obb) -> bool {
    let (thin, half) = thin_axis(obstacle);
    let (s0, s1) = ((p0 - obstacle.center).dot(thin), (p1 - obstacle.center).dot(thin));
    let clear = half + r;
    (s0 > clear && s1 > clear) || (s0 < -clear && s1 < -clear)
}

/// `true` when body `i` went through `obstacle` between `p0` and its position now: its centre changed side of the
/// obstacle's mid-plane across the thin axis, and its path met the obstacle (`toi_solids`: a sphere, or a box at its
/// end-of-step orientation), so that a body that went around the obstacle's rim does not count.
/// `thin` is the obstacle's [`thin_axis`], which the callers compute once per obstacle.
fn went_through(bodies: &Bodies, i: usize, p0: Vec3, obstacle: &Obb, thin: Vec3) -> bool {
    let p1 = bodies.position[i];
    let side = |p: Vec3| (p - obstacle.center).dot(thin);
    (side(p0) < 0.0) != (side(p1) < 0.0)
        && toi_solids(&solid_at(bodies, i, p0), p1 - p0, &Solid::Box(*obstacle), Vec3::ZERO).is_some()
}

/// How many bodies went through an obstacle between `start` and their positions now ([`went_through`]). O(n·k).
#[must_use]
pub fn crossed_obstacles(start: &[Vec3], bodies: &Bodies, obstacles: &[Obb]) -> u32 {
    let mut crossed = 0;
    for obstacle in obstacles {
        let (thin, _) = thin_axis(obstacle);
        for (i, &p0) in start.iter().enumerate() {
            crossed += u32::from(went_through(bodies, i, p0, obstacle, thin));
        }
    }
    crossed
}

/// With `ccd`, after the contact solver: a body that went through an obstacle this step ([`went_through`]) is put
/// back on the side it started on, touching the obstacle's face (its centre moved along the thin axis only), with
/// its velocity's part toward the obstacle reflected with restitution `e`. A body's own motion never gets there —
/// its time of impact stopped it at the face — but a crowd can: a neighbour's push-out in the solver, an
/// overlap left by a spinning box, may carry a body that stands against a thin obstacle across it. An obstacle is
/// static and impenetrable, so it wins. Returns how many bodies were put back. O(n·k), serial.
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
mod tests {
    use super::*;

    /// Spheres of radius 0.5 at `start`, with `velocity`, then moved to `end` (the step's integration).
    fn spheres(start: &[Vec3], end: &[Vec3], velocity: &[Vec3]) -> Bodies {
        let mut bodies = Bodies::default();
        for (&p, &v) in start.iter().zip(velocity) {
            bodies.push_sphere(p, v, 0.5);
        }
        bodies.position.copy_from_slice(end);
        bodies
    }

    fn elastic() -> Material {
        Material { restitution: 1.0, friction: 0.0, rest_speed: 0.0 }
    }

    /// A fast body `a` heading for `b` and, behind it, `c`: the first impact (with `b`) stops `a` and hands its
    /// velocity to `b` (equal masses, e = 1); the later event `a`–`c`, measured again with `a` standing at its
    /// stop, does not happen — `a` does not jump on to `c`, and `c` keeps its state.
    #[test]
    fn a_body_stopped_by_an_earlier_impact_is_measured_again() {
        let start = [Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0)];
        let v = Vec3::new(600.0, 0.0, 0.0);
        let end = [start[0] + v / 60.0, start[1], start[2]];
        let mut bodies = spheres(&start, &end, &[v, Vec3::ZERO, Vec3::ZERO]);
        let mut aabbs: Vec<Aabb> = end.iter().map(|&p| Aabb::from_center_radius(p, 0.5)).collect();
        let mut moved = [false; 3];
        let mut ccd = Continuous::default();
        ccd.begin(&start);
        ccd.sweep(&bodies, &mut aabbs, &mut moved);
        assert_eq!(moved, [true, false, false], "only `a` is fast");
        assert!(aabbs[0].overlaps(&aabbs[1]) && aabbs[0].overlaps(&aabbs[2]), "its swept box reaches both");
        let pairs = [Pair::new(0, 2), Pair::new(0, 1)];
        assert_eq!(ccd.events(true, &elastic(), &pairs, &[], &mut bodies), 0);
        let (position, velocity) = (&bodies.position, &bodies.velocity);
        assert!((position[0].x - 2.0).abs() < 1e-5, "a stopped touching b: {}", position[0]);
        assert_eq!((position[1], position[2]), (start[1], start[2]));
        assert!(velocity[0].length() < 1e-3 && (velocity[1] - v).length() < 1e-3, "{velocity:?}");
        assert_eq!(velocity[2], Vec3::ZERO, "c was not hit");
    }

    /// Without `ccd` the same motion changes nothing and counts both pairs `a` passed through.
    #[test]
    fn without_ccd_the_pairs_passed_through_are_counted() {
        let start = [Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0)];
        let end = [Vec3::new(10.0, 0.0, 0.0), start[1], start[2]];
        let mut bodies = spheres(&start, &end, &[Vec3::X; 3]);
        let mut aabbs: Vec<Aabb> = end.iter().map(|&p| Aabb::from_center_radius(p, 0.5)).collect();
        let mut ccd = Continuous::default();
        ccd.begin(&start);
        ccd.sweep(&bodies, &mut aabbs, &mut [false; 3]);
        let pairs = [Pair::new(0, 1), Pair::new(0, 2)];
        assert_eq!(ccd.events(false, &elastic(), &pairs, &[], &mut bodies), 2);
        assert_eq!(bodies.position, end);
    }

    /// A body through a wall is counted; one that went around its rim, or stayed on its side, is not.
    #[test]
    fn crossings_count_paths_through_the_obstacle_only() {
        let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 1.0, 1.0), collide_math::Quat::IDENTITY);
        let start = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(-1.0, 5.0, 0.0), Vec3::new(-1.0, 0.0, 0.0)];
        let end = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(-0.2, 0.0, 0.0)];
        let mut bodies = spheres(&start, &end, &[Vec3::X; 3]);
        bodies.radius.fill(0.1);
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1);
        // The same paths for flat boxes (half extents 0.1 × 0.5 × 0.5): the box passing 5 above the wall's rim
        // (which reaches 1) is not counted either, though its bounding sphere (radius 0.71) would be.
        let flat = Vec3::new(0.1, 0.5, 0.5);
        for i in 0..3 {
            bodies.make_box(i, flat, collide_math::Quat::IDENTITY);
        }
        bodies.position[1].y = 1.55;
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1, "the rim at 1 and the box's bottom at 1.05");
    }

    /// A box the solver left across a thin wall (its centre 0.03 past the mid-plane, having started 1 before it) is
    /// put back on its start side touching the wall's face, its velocity into the wall reflected; a sphere that
    /// went around the wall's rim, and one that stayed on its side, are left alone.
    #[test]
    fn a_body_pushed_through_an_obstacle_is_put_back_on_its_side() {
        let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 1.0, 1.0), collide_math::Quat::IDENTITY);
        let start = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(-1.0, 5.0, 0.0), Vec3::new(-1.0, 0.0, 0.5)];
        let end = [Vec3::new(0.03, 0.2, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(-0.5, 0.0, 0.5)];
        let mut bodies = spheres(&start, &end, &[Vec3::new(2.0, 1.0, 0.0), Vec3::X, Vec3::X]);
        bodies.make_box(0, Vec3::new(0.1, 0.2, 0.3), collide_math::Quat::from_rotation_z(0.5));
        let obb = bodies.obb(0).unwrap();
        // How far the turned box reaches along x: its half extents projected on the world's x axis.
        let reach = obb.aabb().half_extents().x;
        assert_eq!(keep_on_start_side(&start, &mut bodies, &[wall], 0.5), 1);
        let p = bodies.position[0];
        assert!((p.x - -(0.01 + reach)).abs() < 1e-6, "touching the face on its side: {p} (reach {reach})");
        assert_eq!((p.y, p.z), (0.2, 0.0), "moved across the wall only");
        assert_eq!(bodies.velocity[0], Vec3::new(-1.0, 1.0, 0.0), "x reflected with e = 0.5");
        assert_eq!(&bodies.position[1..], &end[1..], "around the rim, or on its side: untouched");
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 0);
    }

    /// A flat box (half extents 0.05 × 0.5 × 0.5) shot face-first at a thin wall, 12 units in one step: without
    /// `ccd` the pass counts it; with `ccd` it stops touching the wall's face and bounces straight back (e = 1,
    /// a face hit along its centre gives no torque).
    #[test]
    fn a_fast_box_stops_at_the_wall_and_bounces_back() {
        let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 2.0, 2.0), collide_math::Quat::IDENTITY);
        let start = [Vec3::new(-2.0, 0.0, 0.0)];
        let v = Vec3::new(720.0, 0.0, 0.0);
        let end = [start[0] + v / 60.0];
        let mut bodies = spheres(&start, &end, &[v]);
        bodies.make_box(0, Vec3::new(0.05, 0.5, 0.5), collide_math::Quat::IDENTITY);
        let obb = bodies.obb(0).unwrap();
        let mut aabbs = vec![obb.aabb()];
        let mut ccd = Continuous::default();
        ccd.begin(&start);
        ccd.sweep(&bodies, &mut aabbs, &mut [false]);
        assert!(aabbs[0].min.x < -2.0 && aabbs[0].max.x > 10.0, "the swept box covers the path: {:?}", aabbs[0]);
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1, "without ccd it went through");
        assert_eq!(ccd.events(true, &elastic(), &[], &[wall], &mut bodies), 0);
        let p = bodies.position[0];
        assert!((p.x - -0.06).abs() < 1e-4 && p.y.abs() < 1e-6, "stopped touching the wall's face: {p}");
        let (w, u) = (bodies.spin.angular_velocity[0], bodies.velocity[0]);
        assert!((u + v).length() < 1e-2 && w.length() < 1e-3, "bounced straight back: {u}, spin {w}");
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 0);
    }

    /// Two boxes head-on, each 6 units per step, 4 apart: the step takes each past the other. With `ccd` they
    /// meet at t = 0.25 (a gap of 3 closed at 12), exchange velocities (equal masses, e = 1) and stop touching;
    /// linear momentum is kept. Without `ccd` the pair is counted.
    #[test]
    fn fast_boxes_meet_head_on_at_their_time_of_impact() {
        let run = |ccd_on: bool| {
            let start = [Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0)];
            let v = Vec3::new(360.0, 0.0, 0.0);
            let end = [start[0] + v / 60.0, start[1] - v / 60.0];
            let mut bodies = spheres(&start, &end, &[v, -v]);
            for i in 0..2 {
                bodies.make_box(i, Vec3::new(0.5, 0.5, 0.5), collide_math::Quat::IDENTITY);
            }
            let mut aabbs: Vec<Aabb> = (0..2).map(|i| bodies.obb(i).unwrap().aabb()).collect();
            let mut ccd = Continuous::default();
            ccd.begin(&start);
            ccd.sweep(&bodies, &mut aabbs, &mut [false; 2]);
            assert!(aabbs[0].overlaps(&aabbs[1]), "the swept boxes meet");
            let counted = ccd.events(ccd_on, &elastic(), &[Pair::new(0, 1)], &[], &mut bodies);
            (counted, bodies)
        };
        let (counted, bodies) = run(false);
        assert_eq!(counted, 1);
        assert!(bodies.position[0].x > bodies.position[1].x, "without ccd they passed through each other");
        let (counted, bodies) = run(true);
        assert_eq!(counted, 0);
        let (p, u) = (&bodies.position, &bodies.velocity);
        assert!((p[0].x - 1.5).abs() < 1e-4 && (p[1].x - 2.5).abs() < 1e-4, "touching at t = 0.25: {p:?}");
        assert!((u[0].x + 360.0).abs() < 0.1 && (u[1].x - 360.0).abs() < 0.1, "velocities exchanged: {u:?}");
        assert!((u[0] + u[1]).length() < 0.1, "momentum kept: {u:?}");
    }
}
