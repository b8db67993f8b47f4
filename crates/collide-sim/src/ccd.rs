//! Continuous collision detection for spheres, static obstacles, and the `tunnelled` counter.
//!
//! Active only in a scene with obstacles, with `ccd = true`, or whose speed moves a body further than its
//! diameter in a step ([`Continuous::active`]); elsewhere the step never calls into this module, so the other
//! scenes pay nothing. Without `ccd` the module only counts: the state, and so the hash, is the same as without
//! it.
//!
//! - [`Continuous::begin`] keeps every body's position at the start of the step (one copy of the column).
//! - [`Continuous::sweep`], after the box pass: a body whose displacement this step exceeds its radius is
//!   *fast*; its box becomes the union of its boxes before and after the step (with or without `ccd`: the counter
//!   needs the pairs that met during the step, and the discrete narrowphase drops those that do not touch at the
//!   end, so the physics without `ccd` is unchanged).
//! - [`Continuous::events`], after the broadphase: for every pair with a fast body, `toi_sphere_sphere` on the
//!   step's motions; for every fast body and obstacle, `toi_sphere_box`. Without `ccd` a pair that met (`t > 0`)
//!   but does not touch at the end is counted as tunnelled. With `ccd` the events are processed in ascending
//!   `(t, a, b)` order from a min-heap (bodies touching at the start and moving apart, just bounced, are no
//!   event): the bodies go to their place at `t`, get the impulse of the scene's
//!   restitution there, and **the rest of their step's motion is dropped** (they stay at the impact point with
//!   the new velocity). A body stopped earlier in the step is **measured again**: it stands still at its stop for
//!   the rest of the step, and its partner's motion from the event's `t` on is tested against it, the answer
//!   going back into the heap; an event whose bodies are all stopped is dropped (the discrete narrowphase that
//!   follows handles any overlap), as is an obstacle event of a stopped body.
//! - [`push_out_of_obstacles`], in the wall phase: the discrete test of every body against every obstacle
//!   (`sphere_box`), pushed out along the contact normal with the velocity's normal part reflected.
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
use collide_narrowphase::{Shape, Solid, solid_contact, sphere_box, sphere_sphere, toi_sphere_box, toi_sphere_sphere};
use collide_resolution::{BodyState, Material, RigidState, resolve_manifold};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An obstacle event's second key: `u32::MAX − k` for obstacle `k`, above every body index (at most `u32::MAX / 2`
/// bodies, see the config), so that obstacle and pair events never share a key.
const OBSTACLE: u32 = u32::MAX;

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
    /// Per body: its displacement this step exceeds its radius.
    fast: Vec<bool>,
    /// Per body: stopped at an impact this step (only with `ccd`).
    stopped: Vec<bool>,
    /// The bodies whose `stopped` flag is set, to clear them.
    stopped_list: Vec<u32>,
    /// The events, as a min-heap.
    heap: BinaryHeap<Event>,
    /// No fast body this step (nothing to test).
    none_fast: bool,
}

/// The body columns the events read and write.
pub struct Columns<'a> {
    pub position: &'a mut [Vec3],
    pub velocity: &'a mut [Vec3],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
    /// Each body's shape; empty when every body is a sphere. Pairs with a box have no event.
    pub shape: &'a [Shape],
}

/// `true` when body `i` is a box (`shape` empty: every body is a sphere).
fn is_box(shape: &[Shape], i: usize) -> bool {
    shape.get(i) == Some(&Shape::Box)
}

impl Continuous {
    /// `true` when the scene needs this module: `ccd` on, obstacles to count crossings of, or a scene speed at
    /// which a body moves further than the smallest diameter in a step of `dt` — the least at which two spheres
    /// meeting head-on can pass through each other unseen. Other scenes (a script may speed bodies up:
    /// `cluster`'s pull) are not counted, so that they pay nothing.
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

    /// Mark the fast bodies and sweep their boxes (the union of the boxes before and after the step); their
    /// motion flag is set. Boxes (`shape`, empty when every body is a sphere) are never fast: continuous detection
    /// covers spheres. O(n).
    pub fn sweep(
        &mut self,
        position: &[Vec3],
        radius: &[f32],
        shape: &[Shape],
        aabbs: &mut [Aabb],
        moved: &mut [bool],
    ) {
        let n = position.len();
        self.fast.clear();
        self.fast.resize(n, false);
        self.none_fast = true;
        for i in 0..n {
            if is_box(shape, i) {
                continue;
            }
            let (p0, p1, r) = (self.start[i], position[i], radius[i]);
            if (p1 - p0).length_squared() > r * r {
                self.fast[i] = true;
                self.none_fast = false;
                let before = Aabb::from_center_radius(p0, r);
                aabbs[i] = Aabb::new(aabbs[i].min.min(before.min), aabbs[i].max.max(before.max));
                moved[i] = true;
            }
        }
    }

    /// The times of impact of this step's pairs and obstacles. With `ccd`, processed in order (see the module
    /// docs); without, the pairs that met during the step and do not touch at its end are counted. Returns the
    /// tunnelled pairs. O(p) for p pairs plus O(f·k) for f fast bodies and k obstacles, and O(e log e) for e
    /// events with `ccd`.
    pub fn events(&mut self, ccd: bool, e: f32, pairs: &[Pair], obstacles: &[Obb], bodies: Columns<'_>) -> u32 {
        if self.none_fast {
            return 0;
        }
        let (start, fast) = (&self.start, &self.fast);
        let (position, radius) = (&*bodies.position, bodies.radius);
        let motion = |i: usize| (start[i], position[i] - start[i]);
        let mut tunnelled = 0;
        self.heap.clear();
        for pair in pairs {
            let (a, b) = (pair.a as usize, pair.b as usize);
            if !(fast[a] || fast[b]) || is_box(bodies.shape, a) || is_box(bodies.shape, b) {
                continue;
            }
            let ((ca, da), (cb, db)) = (motion(a), motion(b));
            let Some(t) = toi_sphere_sphere(ca, radius[a], da, cb, radius[b], db) else { continue };
            if t == 0.0 && !approaching(ca - cb, da - db) {
                // Touching at the start and moving apart (just bounced): no impact, nothing to stop.
                continue;
            }
            if ccd {
                self.heap.push(Reverse((key(t), pair.a, pair.b, 0)));
            } else if t > 0.0 && sphere_sphere(position[a], radius[a], position[b], radius[b]).is_none() {
                tunnelled += 1;
            }
        }
        if !ccd {
            return tunnelled;
        }
        for (i, &is_fast) in fast.iter().enumerate() {
            if !is_fast {
                continue;
            }
            let (c, d) = motion(i);
            for (k, obstacle) in obstacles.iter().enumerate() {
                if let Some(t) = toi_sphere_box(c, radius[i], d, obstacle) {
                    if t == 0.0 && d.dot(obstacle_normal(c, radius[i], obstacle, d)) >= 0.0 {
                        continue; // touching at the start and moving away
                    }
                    self.heap.push(Reverse((key(t), i as u32, OBSTACLE - k as u32, 0)));
                }
            }
        }
        self.process(e, obstacles, bodies);
        0
    }

    /// Pop the events in `(t, a, b)` order and resolve each at its time of impact (module docs).
    fn process(&mut self, e: f32, obstacles: &[Obb], bodies: Columns<'_>) {
        let Columns { position, velocity, radius, inv_mass, .. } = bodies;
        for &i in &self.stopped_list {
            self.stopped[i as usize] = false;
        }
        self.stopped_list.clear();
        self.stopped.resize(position.len(), false);
        while let Some(Reverse((bits, a, b, mask))) = self.heap.pop() {
            let t = f32::from_bits(bits);
            let (a, ai) = (a, a as usize);
            if b > OBSTACLE - obstacles.len() as u32 {
                // A body against obstacle `OBSTACLE − b`: dropped if the body stopped earlier.
                if self.stopped[ai] {
                    continue;
                }
                let obstacle = &obstacles[(OBSTACLE - b) as usize];
                let p = self.start[ai] + (position[ai] - self.start[ai]) * t;
                let normal = obstacle_normal(p, radius[ai], obstacle, position[ai] - self.start[ai]);
                let vn = velocity[ai].dot(normal);
                if vn < 0.0 {
                    velocity[ai] -= normal * ((1.0 + e) * vn);
                }
                position[ai] = p;
                self.stop(ai);
                continue;
            }
            let bi = b as usize;
            let now = u8::from(self.stopped[ai]) | (u8::from(self.stopped[bi]) << 1);
            if now == 3 {
                continue;
            }
            if now != mask {
                // Measure again from `t`: a stopped body stands at its stop, the other moves on from its place at
                // `t` over the rest of the step.
                let at = |i: usize, stopped: bool| {
                    if stopped {
                        (position[i], Vec3::ZERO)
                    } else {
                        let d = position[i] - self.start[i];
                        (self.start[i] + d * t, d * (1.0 - t))
                    }
                };
                let ((ca, da), (cb, db)) = (at(ai, now & 1 != 0), at(bi, now & 2 != 0));
                let again = toi_sphere_sphere(ca, radius[ai], da, cb, radius[bi], db);
                if let Some(s) = again.filter(|&s| s > 0.0 || approaching(ca - cb, da - db)) {
                    let again = (t + s * (1.0 - t)).min(1.0).max(t);
                    self.heap.push(Reverse((key(again), a, b, now)));
                }
                continue;
            }
            let place = |i: usize, stopped: bool| {
                if stopped { position[i] } else { self.start[i] + (position[i] - self.start[i]) * t }
            };
            let mut sa =
                BodyState { position: place(ai, now & 1 != 0), velocity: velocity[ai], inv_mass: inv_mass[ai] };
            let mut sb =
                BodyState { position: place(bi, now & 2 != 0), velocity: velocity[bi], inv_mass: inv_mass[bi] };
            collide_resolution::impulse(&mut sa, &mut sb, e);
            (position[ai], velocity[ai], position[bi], velocity[bi]) =
                (sa.position, sa.velocity, sb.position, sb.velocity);
            self.stop(ai);
            self.stop(bi);
        }
    }

    fn stop(&mut self, i: usize) {
        if !self.stopped[i] {
            self.stopped[i] = true;
            self.stopped_list.push(i as u32);
        }
    }

    /// The bodies that went through an obstacle this step ([`crossed_obstacles`]); 0 when no body was fast.
    #[must_use]
    pub fn crossings(&self, position: &[Vec3], radius: &[f32], obstacles: &[Obb]) -> u32 {
        if obstacles.is_empty() {
            return 0;
        }
        crossed_obstacles(&self.start, position, radius, obstacles)
    }
}

/// `true` when two bodies `p = ca − cb` apart with relative motion `v = da − db` are closing in.
fn approaching(p: Vec3, v: Vec3) -> bool {
    p.dot(v) < 0.0
}

/// The outward normal of `obstacle` for a sphere at `p` touching it: the contact's when `sphere_box` finds one
/// (it may not, by rounding, at exactly touching), else from the closest point, else against the motion `d`.
fn obstacle_normal(p: Vec3, r: f32, obstacle: &Obb, d: Vec3) -> Vec3 {
    if let Some(c) = sphere_box(p, r, obstacle) {
        return c.normal;
    }
    let away = p - obstacle.closest_point(p);
    away.try_normalize().or_else(|| (-d).try_normalize()).unwrap_or(Vec3::Y)
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
        if is_box(shape, i) {
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
        let s = &mut bodies.spin;
        let (v, w, inertia) = (bodies.velocity[i], s.angular_velocity[i], s.inv_inertia[i]);
        let mut state = RigidState::from_body_frame(obb.center, v, bodies.inv_mass[i], obb.rotation, w, inertia);
        let mut hit = false;
        for obstacle in obstacles {
            let body = Solid::Box(Obb { center: state.position, ..obb });
            if let Some(m) = solid_contact(&body, &Solid::Box(*obstacle)) {
                let mut fixed = RigidState::fixed(obstacle.center);
                resolve_manifold(&mut state, &mut fixed, m.normal, m.points(), true, material);
                hit = true;
            }
        }
        if hit {
            (bodies.position[i], bodies.velocity[i], s.angular_velocity[i]) =
                (state.position, state.velocity, state.body_angular_velocity());
        }
    }
}

/// How many bodies went through an obstacle between `start` and `end`: the centre is on the other side of the
/// obstacle's mid-plane across its thinnest axis, and the path from `start` to `end` met the obstacle
/// (`toi_sphere_box`), so that a body that went around its rim is not counted. O(n·k).
#[must_use]
pub fn crossed_obstacles(start: &[Vec3], end: &[Vec3], radius: &[f32], obstacles: &[Obb]) -> u32 {
    let mut crossed = 0;
    for ((&p0, &p1), &r) in start.iter().zip(end).zip(radius) {
        for obstacle in obstacles {
            let axes = obstacle.axes();
            let h = obstacle.half_extents;
            let thin = if h.x <= h.y && h.x <= h.z {
                axes.x_axis
            } else if h.y <= h.z {
                axes.y_axis
            } else {
                axes.z_axis
            };
            let side = |p: Vec3| (p - obstacle.center).dot(thin);
            let (s0, s1) = (side(p0), side(p1));
            if (s0 < 0.0) != (s1 < 0.0) && toi_sphere_box(p0, r, p1 - p0, obstacle).is_some() {
                crossed += 1;
            }
        }
    }
    crossed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fast body `a` heading for `b` and, behind it, `c`: the first impact (with `b`) stops `a` and hands its
    /// velocity to `b` (equal masses, e = 1); the later event `a`–`c`, measured again with `a` standing at its
    /// stop, does not happen — `a` does not jump on to `c`, and `c` keeps its state.
    #[test]
    fn a_body_stopped_by_an_earlier_impact_is_measured_again() {
        let start = [Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0)];
        let v = Vec3::new(600.0, 0.0, 0.0);
        let (radius, inv_mass) = ([0.5; 3], [1.0; 3]);
        let mut position = [start[0] + v / 60.0, start[1], start[2]];
        let mut velocity = [v, Vec3::ZERO, Vec3::ZERO];
        let mut aabbs: Vec<Aabb> = position.iter().map(|&p| Aabb::from_center_radius(p, 0.5)).collect();
        let mut moved = [false; 3];
        let mut ccd = Continuous::default();
        ccd.begin(&start);
        ccd.sweep(&position, &radius, &[], &mut aabbs, &mut moved);
        assert_eq!(moved, [true, false, false], "only `a` is fast");
        assert!(aabbs[0].overlaps(&aabbs[1]) && aabbs[0].overlaps(&aabbs[2]), "its swept box reaches both");
        let pairs = [Pair::new(0, 2), Pair::new(0, 1)];
        let columns = Columns {
            position: &mut position,
            velocity: &mut velocity,
            radius: &radius,
            inv_mass: &inv_mass,
            shape: &[],
        };
        assert_eq!(ccd.events(true, 1.0, &pairs, &[], columns), 0);
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
        let (mut position, mut velocity, radius, inv_mass) = (end, [Vec3::X; 3], [0.5; 3], [1.0; 3]);
        let mut aabbs: Vec<Aabb> = end.iter().map(|&p| Aabb::from_center_radius(p, 0.5)).collect();
        let mut ccd = Continuous::default();
        ccd.begin(&start);
        ccd.sweep(&end, &radius, &[], &mut aabbs, &mut [false; 3]);
        let pairs = [Pair::new(0, 1), Pair::new(0, 2)];
        let columns = Columns {
            position: &mut position,
            velocity: &mut velocity,
            radius: &radius,
            inv_mass: &inv_mass,
            shape: &[],
        };
        assert_eq!(ccd.events(false, 1.0, &pairs, &[], columns), 2);
        assert_eq!(position, end);
    }

    /// A body through a wall is counted; one that went around its rim, or stayed on its side, is not.
    #[test]
    fn crossings_count_paths_through_the_obstacle_only() {
        let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 1.0, 1.0), collide_math::Quat::IDENTITY);
        let start = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(-1.0, 5.0, 0.0), Vec3::new(-1.0, 0.0, 0.0)];
        let end = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(-0.2, 0.0, 0.0)];
        assert_eq!(crossed_obstacles(&start, &end, &[0.1; 3], &[wall]), 1);
    }
}
