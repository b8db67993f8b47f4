use super::*;

#[test]
fn the_hint_is_the_mean_displacement_per_step_over_the_box_size() {
    // Boxes of size 1 (radius 0.5); the first half of the bodies at 6 units/s, the second at rest: 0.05 of a box
    // per 1/60 s step on average.
    let aabbs: Vec<Aabb> = (0..10_000).map(|i| Aabb::from_center_radius(Vec3::X * i as f32, 0.5)).collect();
    let velocity: Vec<Vec3> = (0..10_000).map(|i| if i < 5_000 { Vec3::Y * 6.0 } else { Vec3::ZERO }).collect();
    let hint = speed_hint(&velocity, &aabbs, 1.0 / 60.0);
    assert!((hint - 0.05).abs() < 0.005, "{hint}");
    assert_eq!(speed_hint(&[], &[], 1.0 / 60.0), 0.0);
    // A degenerate box or a NaN velocity is left out, not propagated.
    let flat = [Aabb::from_center_radius(Vec3::ZERO, 0.0), Aabb::from_center_radius(Vec3::ZERO, 0.5)];
    let v = [Vec3::X, Vec3::splat(f32::NAN)];
    assert_eq!(speed_hint(&v, &flat, 1.0), 0.0);
}
