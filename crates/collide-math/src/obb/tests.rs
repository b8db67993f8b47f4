use super::*;
use std::f32::consts::FRAC_PI_4;

#[test]
fn rotated_box_aabb_grows_by_the_diagonal() {
    let b = Obb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0), Quat::from_rotation_z(FRAC_PI_4));
    let aabb = b.aabb();
    let d = 2f32.sqrt();
    assert!((aabb.max.x - d).abs() < 1e-5 && (aabb.max.y - d).abs() < 1e-5);
    assert!((aabb.max.z - 1.0).abs() < 1e-6);
    assert!(b.is_valid());
}

#[test]
fn closest_point_clamps_outside_and_keeps_inside() {
    let b = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    assert_eq!(b.closest_point(Vec3::new(3.0, 0.5, -4.0)), Vec3::new(1.0, 0.5, -1.0));
    assert_eq!(b.closest_point(Vec3::splat(0.25)), Vec3::splat(0.25));
}
