use super::*;

/// What the module doc promises of the pairs: centres spread over the sampling cube, the second shape placed from
/// the first up to `SPREAD` (or `SPREAD_SPHERE`) times their reach — beyond touching as well as deep inside — and
/// unit rotations.
#[test]
fn random_pairs_spread_over_the_cube_and_up_to_beyond_their_reach() {
    let mut rng = Rng::new(3);
    let (mut lowest, mut highest) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let (mut nearest, mut furthest) = (f32::INFINITY, 0.0_f32);
    for _ in 0..2000 {
        let (a, b) = box_pair(&mut rng);
        let reach = a.half_extents.length() + b.half_extents.length();
        let ratio = (b.center - a.center).length() / reach;
        assert!(ratio <= SPREAD + 1e-4, "{ratio}");
        (nearest, furthest) = (nearest.min(ratio), furthest.max(ratio));
        (lowest, highest) = (lowest.min(a.center), highest.max(a.center));
        assert!((a.rotation.length() - 1.0).abs() < 1e-5);
    }
    assert!(nearest < 0.05 && furthest > 0.95 * SPREAD, "{nearest}..{furthest}");
    assert!(lowest.max_element() < -9.0 && highest.min_element() > 9.0, "{lowest} {highest}");
    let (mut furthest, mut lowest) = (0.0_f32, Vec3::splat(f32::INFINITY));
    for _ in 0..2000 {
        let (c, r, b) = sphere_box_pair(&mut rng);
        let ratio = (c - b.center).length() / (b.half_extents.length() + r);
        assert!(ratio <= SPREAD_SPHERE + 1e-4 && (0.05..1.0).contains(&r), "{ratio} {r}");
        (furthest, lowest) = (furthest.max(ratio), lowest.min(b.center));
    }
    assert!(furthest > 0.95 * SPREAD_SPHERE && lowest.max_element() < -9.0, "{furthest} {lowest}");
}
