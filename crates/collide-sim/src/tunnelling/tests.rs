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
