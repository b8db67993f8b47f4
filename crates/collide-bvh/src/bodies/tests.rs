use super::*;

const POLICY: FatPolicy = FatPolicy { margin: 0.1, horizon: 10.0, max_reach: 2.0, multiplier: 1.0, spread: 0.5 };

#[test]
fn a_fat_box_reaches_along_the_motion_only() {
    let b = Aabb::from_center_radius(Vec3::new(1.0, 0.0, 0.0), 0.5);
    // Moved +0.1 x per call over 4 calls.
    let anchor = Anchor { center: Vec3::new(0.6, 0.0, 0.0), at: 6 };
    let fat = POLICY.dynamic_box(&b, anchor, 10, 0.5);
    assert!(fat.contains(&b));
    assert!((fat.max.x - (b.max.x + 0.1 + 1.0)).abs() < 1e-5, "{fat:?}");
    assert!((fat.min.x - (b.min.x - 0.1)).abs() < 1e-6, "{fat:?}");
    assert!((fat.max.y - (b.max.y + 0.1)).abs() < 1e-6);
    // Unknown speed: the base margin only, as for a body at rest.
    assert_eq!(POLICY.dynamic_box(&b, Anchor::UNKNOWN, 10, 0.5), POLICY.static_box(&b));
    // At the most jitter the reach is capped at twice the size (half a horizon, 0.4 per call × 5, fits).
    let quick = Anchor { center: Vec3::new(-1.0, 0.0, 0.0), at: 5 };
    assert!((POLICY.dynamic_box(&b, quick, 10, 0.99).max.x - (b.max.x + 0.1 + 2.0)).abs() < 1e-5);
    // A body too fast for half a horizon within the cap: the base margin alone.
    let fast = Anchor { center: Vec3::new(-99.0, 0.0, 0.0), at: 9 };
    assert_eq!(POLICY.dynamic_box(&b, fast, 10, 0.9), POLICY.static_box(&b));
}

#[test]
fn huge_and_degenerate_boxes_stay_inside_their_fat_boxes() {
    for b in [
        Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30)),
        Aabb::new(Vec3::splat(3.0e38), Vec3::splat(3.4e38)),
        Aabb::from_center_radius(Vec3::ONE, 0.0),
    ] {
        let anchor = Anchor { center: -crate::morton::center(&b), at: 1 };
        for fat in [POLICY.dynamic_box(&b, anchor, 3, 0.3), POLICY.static_box(&b)] {
            assert!(crate::bounds::is_usable(&fat) && fat.contains(&b), "{b:?} in {fat:?}");
        }
    }
}

#[test]
fn jitter_spreads_and_proxies_name_their_place() {
    let j: Vec<f32> = (0..1000).map(|i| jitter(i, 7)).collect();
    assert!(j.iter().all(|&x| (0.0..1.0).contains(&x)));
    let mean = j.iter().sum::<f32>() / 1000.0;
    assert!((mean - 0.5).abs() < 0.05, "{mean}");
    let mut p = Proxy::PLACELESS;
    assert_eq!(p.place(), None);
    p.set_place(Some((Stage::Static, 12)));
    assert_eq!(p.place(), Some((Stage::Static, 12)));
    assert!(!p.is_dynamic());
    p.set_place(Some((Stage::Dynamic, 12)));
    assert!(p.is_dynamic());
}
