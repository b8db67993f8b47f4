use super::*;
use collide_math::Quat;
use std::f32::consts::FRAC_PI_4;

fn unit_box() -> Obb {
    Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY)
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-5
}

#[test]
fn face_edge_and_vertex_regions() {
    // Face: the centre above the top face.
    let c = sphere_box(Vec3::new(0.2, 1.5, -0.3), 1.0, &unit_box()).unwrap();
    assert!(close(c.normal, Vec3::Y) && (c.depth - 0.5).abs() < 1e-6);
    assert!(close(c.point, Vec3::new(0.2, 0.75, -0.3)), "{:?}", c.point);
    // Edge: beyond the +x+y edge, on its diagonal.
    let s = 1.0 + 0.5 / 2f32.sqrt();
    let c = sphere_box(Vec3::new(s, s, 0.0), 1.0, &unit_box()).unwrap();
    assert!(close(c.normal, Vec3::new(1.0, 1.0, 0.0).normalize()));
    assert!((c.depth - 0.5).abs() < 1e-5);
    // Vertex: beyond the +x+y+z corner, on its diagonal.
    let s = 1.0 + 0.5 / 3f32.sqrt();
    let c = sphere_box(Vec3::splat(s), 1.0, &unit_box()).unwrap();
    assert!(close(c.normal, Vec3::ONE.normalize()) && (c.depth - 0.5).abs() < 1e-5);
}

#[test]
fn centre_inside_pushes_out_through_the_nearest_face() {
    let c = sphere_box(Vec3::new(0.1, -0.7, 0.2), 0.5, &unit_box()).unwrap();
    assert_eq!(c.normal, -Vec3::Y, "the bottom face is 0.3 away, the others further");
    assert!((c.depth - 0.8).abs() < 1e-6);
    // Midway between the bottom face (y = −1) and the sphere's far point (y = −0.7 + 0.5).
    assert!(close(c.point, Vec3::new(0.1, -0.6, 0.2)));
    // The centre exactly at the box's centre: every face ties, the first axis's positive face wins.
    let c = sphere_box(Vec3::ZERO, 0.5, &unit_box()).unwrap();
    assert_eq!((c.normal, c.depth), (Vec3::X, 1.5));
}

#[test]
fn touching_and_apart() {
    let c = sphere_box(Vec3::new(0.0, 0.0, 2.0), 1.0, &unit_box()).unwrap();
    assert_eq!((c.normal, c.depth), (Vec3::Z, 0.0));
    assert!(sphere_box(Vec3::new(0.0, 0.0, 2.001), 1.0, &unit_box()).is_none());
    // Near a corner, inside the corner's bounding cube but outside the rounded box.
    assert!(sphere_box(Vec3::splat(1.9), 1.0, &unit_box()).is_none());
}

#[test]
fn rotated_box_about_one_and_two_axes() {
    // 45° about z: the +x+y edge now points along +x at distance √2.
    let b = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::from_rotation_z(FRAC_PI_4));
    let c = sphere_box(Vec3::new(2.0, 0.0, 0.0), 1.0, &b).unwrap();
    assert!(close(c.normal, Vec3::X));
    assert!((c.depth - (2f32.sqrt() - 1.0)).abs() < 1e-5);
    assert!(sphere_box(Vec3::new(2.0 + 2f32.sqrt() - 1.0 + 1e-3, 0.0, 0.0), 1.0, &b).is_none());
    // 45° about z then about x: a box face normal is (0, cos 45°, sin 45°) rotated... take a face axis and
    // place the sphere along it: the normal must be that axis.
    let q = Quat::from_rotation_x(FRAC_PI_4) * Quat::from_rotation_z(FRAC_PI_4);
    let b = Obb::new(Vec3::new(3.0, -1.0, 2.0), Vec3::new(1.0, 0.5, 2.0), q);
    let axis = q * Vec3::Y;
    let c = sphere_box(b.center + axis * 1.25, 1.0, &b).unwrap();
    assert!(close(c.normal, axis) && (c.depth - 0.25).abs() < 1e-5, "{c:?}");
}

#[test]
fn invalid_input_gives_none() {
    assert!(sphere_box(Vec3::new(f32::NAN, 0.0, 0.0), 1.0, &unit_box()).is_none());
    assert!(sphere_box(Vec3::ZERO, f32::NAN, &unit_box()).is_none());
    assert!(sphere_box(Vec3::ZERO, -1.0, &unit_box()).is_none());
    let nan_box = Obb::new(Vec3::ZERO, Vec3::new(1.0, f32::NAN, 1.0), Quat::IDENTITY);
    assert!(sphere_box(Vec3::ZERO, 1.0, &nan_box).is_none());
    let bad_rotation = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::from_xyzw(0.0, 0.0, 0.0, 2.0));
    assert!(sphere_box(Vec3::ZERO, 1.0, &bad_rotation).is_none());
}

/// The contact point is midway through the overlap, from the sphere's deepest point to the box's face, with a
/// radius other than 1 (where `r` and `1/r` agree): a centre outside the box and one inside.
#[test]
fn the_contact_point_lies_midway_through_the_overlap_outside_and_inside() {
    let slab = Obb::new(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0), Quat::IDENTITY);
    // Outside: the face at x = 2, the sphere's deepest point at 2.3 - 0.5 = 1.8.
    let c = sphere_box(Vec3::new(2.3, 0.0, 0.0), 0.5, &slab).unwrap();
    assert!(close(c.normal, Vec3::X) && (c.depth - 0.2).abs() < 1e-5, "{c:?}");
    assert!(close(c.point, Vec3::new(1.9, 0.0, 0.0)), "{c:?}");
    // Inside, 0.2 from the face at x = 2: the sphere's deepest point at 1.8 - 0.5 = 1.3, the face at 2.
    let c = sphere_box(Vec3::new(1.8, 0.0, 0.0), 0.5, &slab).unwrap();
    assert!(close(c.normal, Vec3::X) && (c.depth - 0.7).abs() < 1e-5, "{c:?}");
    assert!(close(c.point, Vec3::new(1.65, 0.0, 0.0)), "{c:?}");
}

/// A centre outside the box whose distance to it underflows: 10⁻²⁵ below a box of size 0, the squared distance
/// (10⁻⁵⁰) is 0 in f32. The contact still gets a unit normal (any face's will do), never 0/0.
#[test]
fn a_distance_that_underflows_still_gives_a_unit_normal() {
    let point = Obb::new(Vec3::ZERO, Vec3::ZERO, Quat::IDENTITY);
    let c = sphere_box(Vec3::new(0.0, -1e-25, 0.0), 1.0, &point).unwrap();
    assert!(c.normal.is_finite() && (c.normal.length() - 1.0).abs() < 1e-6, "{c:?}");
    assert_eq!(c.depth, 1.0);
}
