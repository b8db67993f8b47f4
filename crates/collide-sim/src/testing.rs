//! Small scenes for the unit tests of continuous detection, the tunnel count and the obstacles.

use crate::Bodies;
use crate::sweep::Sweep;
use collide_math::{Aabb, Quat, Vec3};

/// Spheres of radius 0.5 at `start`, with `velocity`, then moved to `end` (the step's integration).
pub fn spheres(start: &[Vec3], end: &[Vec3], velocity: &[Vec3]) -> Bodies {
    let mut bodies = Bodies::default();
    for (&p, &v) in start.iter().zip(velocity) {
        bodies.push_sphere(p, v, 0.5);
    }
    bodies.position.copy_from_slice(end);
    bodies
}

/// The step's sweep of `bodies`, which started at `start`: the fast bodies' `aabbs` swept and marked `moved`.
pub fn swept(start: &[Vec3], bodies: &Bodies, aabbs: &mut [Aabb], moved: &mut [bool]) -> Sweep {
    let mut sweep = Sweep::default();
    sweep.begin(start);
    sweep.sweep(bodies, aabbs, moved);
    sweep
}

/// Two unit cubes head-on, each at 360 units/s, 4 apart, after a step of 1/60 s that took each past the other
/// (6 units each); their sweep. Their swept boxes meet.
pub fn head_on_boxes() -> (Bodies, Sweep) {
    let start = [Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0)];
    let v = Vec3::new(360.0, 0.0, 0.0);
    let end = [start[0] + v / 60.0, start[1] - v / 60.0];
    let mut bodies = spheres(&start, &end, &[v, -v]);
    for i in 0..2 {
        bodies.make_box(i, Vec3::new(0.5, 0.5, 0.5), Quat::IDENTITY);
    }
    let mut aabbs: Vec<Aabb> = (0..2).map(|i| bodies.obb(i).unwrap().aabb()).collect();
    let sweep = swept(&start, &bodies, &mut aabbs, &mut [false; 2]);
    assert!(aabbs[0].overlaps(&aabbs[1]), "the swept boxes meet");
    (bodies, sweep)
}
