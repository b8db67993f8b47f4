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

/// The bodies read for the hint follow no period of the body order: in `mixed-sizes` every tenth body has 8 times
/// the radius, and a stride through 10⁴ bodies (40) read only those, so the hint came out 8 times too slow.
#[test]
fn the_hint_reads_bodies_aligned_with_no_period_of_their_order() {
    for n in [10_000usize, 100_000, 1_000_003] {
        for period in [2usize, 10, 16, 40, 64] {
            // Every `period`-th body is 8 times the size; all move 6 units/s.
            let size = |i: usize| if i.is_multiple_of(period) { 8.0 } else { 1.0 };
            let aabbs: Vec<Aabb> = (0..n).map(|i| Aabb::from_center_radius(Vec3::ZERO, 0.5 * size(i))).collect();
            let velocity = vec![Vec3::Y * 6.0; n];
            let exact = (0..n).map(|i| 0.1 / size(i)).sum::<f32>() / n as f32;
            let hint = speed_hint(&velocity, &aabbs, 1.0 / 60.0);
            assert!((hint / exact - 1.0).abs() < 0.1, "n {n}, period {period}: {hint} against the mean {exact}");
        }
    }
}
