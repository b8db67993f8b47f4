use super::*;

#[test]
fn apart_touching_and_overlapping_spheres() {
    assert!(sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(2.1, 0.0, 0.0), 1.0).is_none());
    let touch = sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(2.0, 0.0, 0.0), 1.0).unwrap();
    assert_eq!(touch.depth, 0.0);
    assert_eq!(touch.normal, -Vec3::X, "from b toward a");
    assert_eq!(touch.point, Vec3::new(1.0, 0.0, 0.0));
    let c = sphere_sphere(Vec3::new(0.0, 1.5, 0.0), 1.0, Vec3::ZERO, 1.0).unwrap();
    assert_eq!(c.normal, Vec3::Y);
    assert!((c.depth - 0.5).abs() < 1e-6);
    let same = sphere_sphere(Vec3::ONE, 1.0, Vec3::ONE, 0.5).unwrap();
    assert_eq!((same.normal, same.depth), (Vec3::Y, 1.5));
    assert!(sphere_sphere(Vec3::new(f32::NAN, 0.0, 0.0), 1.0, Vec3::ZERO, 1.0).is_none());
    assert!(sphere_sphere(Vec3::ZERO, f32::NAN, Vec3::ZERO, 1.0).is_none());
}

#[test]
fn boxes_overlap_but_spheres_do_not_in_the_corner() {
    // Diagonal neighbours: the cubes around them overlap, the balls do not.
    let d = Vec3::splat(1.9);
    assert!(
        collide_math::Aabb::from_center_radius(Vec3::ZERO, 1.0)
            .overlaps(&collide_math::Aabb::from_center_radius(d, 1.0))
    );
    assert!(sphere_sphere(Vec3::ZERO, 1.0, d, 1.0).is_none());
}

/// Two unequal spheres away from the origin: the point is midway between b's surface and a's along the normal,
/// and the depth is the radii's sum less the distance.
#[test]
fn the_contact_point_of_unequal_spheres_lies_midway_through_their_overlap() {
    let ca = Vec3::new(10.0, 5.0, -3.0);
    let cb = ca + Vec3::new(2.3, 0.0, 0.0);
    let c = sphere_sphere(ca, 2.0, cb, 0.5).unwrap();
    assert_eq!(c.normal, -Vec3::X, "from b toward a");
    assert!((c.depth - 0.2).abs() < 1e-5, "{}", c.depth);
    // b's surface at ca.x + 1.8, a's at ca.x + 2.0.
    assert!((c.point - Vec3::new(11.9, 5.0, -3.0)).length() < 1e-5, "{:?}", c.point);
}

/// Spheres touch when the distance between their centres is at most the sum of their radii — compared as
/// squares, for radii whose sum is not 2 (where `r²` and `2r` agree).
#[test]
fn spheres_touch_exactly_up_to_the_sum_of_their_radii() {
    // r = 0.7: 0.8 apart is apart (0.64 > 0.49), 0.69 apart overlaps.
    assert!(sphere_sphere(Vec3::ZERO, 0.3, Vec3::new(0.0, 0.8, 0.0), 0.4).is_none());
    assert!(sphere_sphere(Vec3::ZERO, 0.3, Vec3::new(0.0, 0.69, 0.0), 0.4).is_some());
    // r = 3.5: 3.4 apart overlaps (11.56 <= 12.25), 3.6 apart does not.
    assert!(sphere_sphere(Vec3::ZERO, 2.0, Vec3::new(0.0, 0.0, 3.4), 1.5).is_some());
    assert!(sphere_sphere(Vec3::ZERO, 2.0, Vec3::new(0.0, 0.0, 3.6), 1.5).is_none());
}
