use super::*;

#[test]
fn sphere_box_is_a_cube_and_touching_spheres_overlap() {
    let s = Sphere::new(Vec3::new(1.0, 2.0, 3.0), 0.5);
    assert_eq!(s.aabb(), Aabb::new(Vec3::new(0.5, 1.5, 2.5), Vec3::new(1.5, 2.5, 3.5)));
    assert!(s.overlaps(&Sphere::new(Vec3::new(2.0, 2.0, 3.0), 0.5)));
    assert!(!s.overlaps(&Sphere::new(Vec3::new(2.0, 2.0, 3.0), 0.49)));
    assert!(!Sphere::new(Vec3::ZERO, -1.0).is_valid());
}
