//! The tunnel count: how many times a step let a body pass through another or through an obstacle unseen.
//!
//! - [`tunnelled_pairs`], after the broadphase, without `ccd`: a pair with a fast body whose shapes met during the
//!   step (a time of impact `t > 0` on the step's motions, [`toi_solids`]) but do not touch at its end went through
//!   each other. Nothing moves: the state is the same as without the count.
//! - [`crossed_obstacles`], at the end of the step: the bodies whose centre changed side of an obstacle's
//!   mid-plane (across its thinnest axis) along a path that met the obstacle — pushed out on the far side or not
//!   touched at all, they went through ([`went_through`]).
//!
//! With `ccd` the pair count is 0 by construction (every meeting is resolved or, measured again, did not happen),
//! and so is the obstacle count: a body's own motion stops at the face, and a body a crowd pushed through is put
//! back on its side before the count (`obstacles::keep_on_start_side`).

use crate::Bodies;
use crate::obstacles::{thin_axis, went_through};
use crate::sweep::Sweep;
use collide_broadphase::Pair;
use collide_math::{Obb, Vec3};
use collide_narrowphase::solid_contact;

/// How many of `pairs` went through each other this step: a fast body in the pair, a time of impact `t > 0` on the
/// step's motions (bodies touching at the start and moving apart do not count), and no contact at the end. O(p) for
/// p pairs with a fast body.
#[must_use]
pub fn tunnelled_pairs(sweep: &Sweep, pairs: &[Pair], bodies: &Bodies) -> u32 {
    if !sweep.any_fast() {
        return 0;
    }
    let end = |i: u32| bodies.solid_at(i as usize, bodies.position[i as usize]);
    let tunnelled = sweep
        .meetings(pairs, bodies)
        .filter(|&(pair, t)| t > 0.0 && solid_contact(&end(pair.a), &end(pair.b)).is_none());
    tunnelled.count() as u32
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{head_on_boxes, spheres, swept};
    use collide_math::{Aabb, Quat};

    /// A fast body passing through two others is counted twice, and nothing moves.
    #[test]
    fn without_ccd_the_pairs_passed_through_are_counted() {
        let start = [Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0)];
        let end = [Vec3::new(10.0, 0.0, 0.0), start[1], start[2]];
        let bodies = spheres(&start, &end, &[Vec3::X; 3]);
        let mut aabbs: Vec<Aabb> = end.iter().map(|&p| Aabb::from_center_radius(p, 0.5)).collect();
        let sweep = swept(&start, &bodies, &mut aabbs, &mut [false; 3]);
        let pairs = [Pair::new(0, 1), Pair::new(0, 2)];
        assert_eq!(tunnelled_pairs(&sweep, &pairs, &bodies), 2);
        assert_eq!(bodies.position, end);
    }

    /// Two boxes head-on, each 6 units per step, 4 apart: the step takes each past the other, and the pair is
    /// counted.
    #[test]
    fn boxes_passing_through_each_other_are_counted() {
        let (bodies, sweep) = head_on_boxes();
        assert_eq!(tunnelled_pairs(&sweep, &[Pair::new(0, 1)], &bodies), 1);
        assert!(bodies.position[0].x > bodies.position[1].x, "they passed through each other");
    }

    /// A body through a wall is counted; one that went around its rim, or stayed on its side, is not.
    #[test]
    fn crossings_count_paths_through_the_obstacle_only() {
        let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 1.0, 1.0), Quat::IDENTITY);
        let start = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(-1.0, 5.0, 0.0), Vec3::new(-1.0, 0.0, 0.0)];
        let end = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(-0.2, 0.0, 0.0)];
        let mut bodies = spheres(&start, &end, &[Vec3::X; 3]);
        bodies.radius.fill(0.1);
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1);
        // The same paths for flat boxes (half extents 0.1 × 0.5 × 0.5): the box passing 5 above the wall's rim
        // (which reaches 1) is not counted either, though its bounding sphere (radius 0.71) would be.
        let flat = Vec3::new(0.1, 0.5, 0.5);
        for i in 0..3 {
            bodies.make_box(i, flat, Quat::IDENTITY);
        }
        bodies.position[1].y = 1.55;
        assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1, "the rim at 1 and the box's bottom at 1.05");
    }
}
