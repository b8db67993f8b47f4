use super::*;
use crate::testing::spheres;
use crate::tunnelling::crossed_obstacles;
use collide_math::Quat;

/// A box the solver left across a thin wall (its centre 0.03 past the mid-plane, having started 1 before it) is
/// put back on its start side touching the wall's face, its velocity into the wall reflected; a sphere that
/// went around the wall's rim, and one that stayed on its side, are left alone.
#[test]
fn a_body_pushed_through_an_obstacle_is_put_back_on_its_side() {
    let wall = Obb::new(Vec3::ZERO, Vec3::new(0.01, 1.0, 1.0), Quat::IDENTITY);
    let start = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(-1.0, 5.0, 0.0), Vec3::new(-1.0, 0.0, 0.5)];
    let end = [Vec3::new(0.03, 0.2, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(-0.5, 0.0, 0.5)];
    let mut bodies = spheres(&start, &end, &[Vec3::new(2.0, 1.0, 0.0), Vec3::X, Vec3::X]);
    bodies.make_box(0, Vec3::new(0.1, 0.2, 0.3), Quat::from_rotation_z(0.5));
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

/// The one pass over the bodies gives each body what the pass of its own shape gives it: a sphere and a box
/// overlapping a thin wall, and a sphere clear of it, against each pushed out alone.
#[test]
fn push_out_treats_each_body_by_its_shape() {
    let wall = Obb::new(Vec3::ZERO, Vec3::new(0.05, 2.0, 2.0), Quat::IDENTITY);
    let material = Material { restitution: 0.5, friction: 0.3, rest_speed: 0.0 };
    let at = [Vec3::new(-0.4, 0.0, 0.0), Vec3::new(0.2, 0.5, 0.0), Vec3::new(3.0, 0.0, 0.0)];
    let velocity = [Vec3::new(2.0, 0.0, 0.0), Vec3::new(-1.0, 0.5, 0.0), Vec3::X];
    let mut bodies = spheres(&at, &at, &velocity);
    bodies.make_box(1, Vec3::new(0.2, 0.3, 0.25), Quat::from_rotation_z(0.3));
    let before = bodies.clone();
    push_out_of_obstacles(&mut bodies, &[wall], &material);
    // The sphere alone.
    let (mut p, mut v) = (before.position[0], before.velocity[0]);
    push_sphere_out(&mut p, &mut v, before.radius[0], &[wall], material.restitution);
    assert_eq!((bodies.position[0], bodies.velocity[0]), (p, v));
    assert!(p.x < -0.5 && v.x < 0.0, "the sphere was pushed out and bounced: {p} {v}");
    // The box alone.
    let mut alone = before.clone();
    push_box_out(&mut alone, 1, before.obb(1).unwrap(), &[wall], &material);
    assert_eq!((bodies.position[1], bodies.velocity[1]), (alone.position[1], alone.velocity[1]));
    assert_eq!(bodies.spin().unwrap().angular_velocity[1], alone.spin().unwrap().angular_velocity[1]);
    assert_ne!(bodies.position[1], before.position[1], "the box was pushed out");
    assert_eq!((bodies.position[2], bodies.velocity[2]), (at[2], velocity[2]), "clear of the wall: untouched");
}
