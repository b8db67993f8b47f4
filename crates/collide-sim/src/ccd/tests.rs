use super::*;
use crate::testing::{head_on_boxes, spheres, swept};
use crate::tunnelling::crossed_obstacles;
use collide_math::{Aabb, Quat};

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
    let sweep = swept(&start, &bodies, &mut aabbs, &mut moved);
    assert_eq!(moved, [true, false, false], "only `a` is fast");
    assert!(aabbs[0].overlaps(&aabbs[1]) && aabbs[0].overlaps(&aabbs[2]), "its swept box reaches both");
    let pairs = [Pair::new(0, 2), Pair::new(0, 1)];
    Impacts::default().resolve(&sweep, &elastic(), &pairs, &[], &mut bodies);
    let (position, velocity) = (&bodies.position, &bodies.velocity);
    assert!((position[0].x - 2.0).abs() < 1e-5, "a stopped touching b: {}", position[0]);
    assert_eq!((position[1], position[2]), (start[1], start[2]));
    assert!(velocity[0].length() < 1e-3 && (velocity[1] - v).length() < 1e-3, "{velocity:?}");
    assert_eq!(velocity[2], Vec3::ZERO, "c was not hit");
}

/// A flat box (half extents 0.05 × 0.5 × 0.5) shot face-first at a thin wall, 12 units in one step: without
/// `ccd` the pass counts it; with `ccd` it stops touching the wall's face and bounces straight back (e = 1,
/// a face hit along its centre gives no torque).
#[test]
fn a_fast_box_stops_at_the_wall_and_bounces_back() {
    let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 2.0, 2.0), Quat::IDENTITY);
    let start = [Vec3::new(-2.0, 0.0, 0.0)];
    let v = Vec3::new(720.0, 0.0, 0.0);
    let end = [start[0] + v / 60.0];
    let mut bodies = spheres(&start, &end, &[v]);
    bodies.make_box(0, Vec3::new(0.05, 0.5, 0.5), Quat::IDENTITY);
    let obb = bodies.obb(0).unwrap();
    let mut aabbs = vec![obb.aabb()];
    let sweep = swept(&start, &bodies, &mut aabbs, &mut [false]);
    assert!(aabbs[0].min.x < -2.0 && aabbs[0].max.x > 10.0, "the swept box covers the path: {:?}", aabbs[0]);
    assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 1, "without ccd it went through");
    Impacts::default().resolve(&sweep, &elastic(), &[], &[wall], &mut bodies);
    let p = bodies.position[0];
    assert!((p.x - -0.06).abs() < 1e-4 && p.y.abs() < 1e-6, "stopped touching the wall's face: {p}");
    let (w, u) = (bodies.spin().unwrap().angular_velocity[0], bodies.velocity[0]);
    assert!((u + v).length() < 1e-2 && w.length() < 1e-3, "bounced straight back: {u}, spin {w}");
    assert_eq!(crossed_obstacles(&start, &bodies, &[wall]), 0);
}

/// Two boxes head-on, each 6 units per step, 4 apart: the step would take each past the other (see the tunnel
/// count's test); with `ccd` they meet at t = 0.25 (a gap of 3 closed at 12), exchange velocities (equal masses,
/// e = 1) and stop touching; linear momentum is kept.
#[test]
fn fast_boxes_meet_head_on_at_their_time_of_impact() {
    let (mut bodies, sweep) = head_on_boxes();
    Impacts::default().resolve(&sweep, &elastic(), &[Pair::new(0, 1)], &[], &mut bodies);
    let (p, u) = (&bodies.position, &bodies.velocity);
    assert!((p[0].x - 1.5).abs() < 1e-4 && (p[1].x - 2.5).abs() < 1e-4, "touching at t = 0.25: {p:?}");
    assert!((u[0].x + 360.0).abs() < 0.1 && (u[1].x - 360.0).abs() < 0.1, "velocities exchanged: {u:?}");
    assert!((u[0] + u[1]).length() < 0.1, "momentum kept: {u:?}");
}
