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
