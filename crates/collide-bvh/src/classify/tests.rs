use super::*;
use collide_math::Vec3;

/// The scan sizes the new fat boxes of the first `share` of a chunk's leaving bodies — exactly as the policy
/// sizes them — and leaves the rest to the caller; every move keeps its old fat box.
#[test]
fn the_scan_sizes_a_share_of_the_new_fat_boxes() {
    let n = 100;
    let aabbs: Vec<Aabb> = (0..n).map(|i| Aabb::from_center_radius(Vec3::new(i as f32 * 3.0, 0.0, 0.0), 0.5)).collect();
    // Every tenth body is placed with a fat box it has left; the others fit theirs.
    let proxies: Vec<Proxy> = (0..n)
        .map(|i| {
            let mut p = Proxy::PLACELESS;
            p.set_place(Some((Stage::Dynamic, i as u32)));
            let shift = if i % 10 == 0 { Vec3::splat(5.0) } else { Vec3::ZERO };
            p.fat = Aabb::new(aabbs[i].min - 0.1 + shift, aabbs[i].max + 0.1 + shift);
            p
        })
        .collect();
    let still: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let anchors = vec![Anchor::UNKNOWN; n];
    let policy = FatPolicy { margin: 0.05, horizon: 120.0, max_reach: 2.0, multiplier: 1.0, spread: 0.5 };
    for (share, sized) in [(1.0, 10), (0.03, 3), (0.0, 0)] {
        let scan = Scan {
            aabbs: &aabbs,
            moved: None,
            proxies: &proxies,
            still: &still,
            now: 7,
            settle: 16,
            invalid_boxes: InvalidBoxes::OverlapNothing,
            anchors: &anchors,
            policy,
            share,
        };
        let mut moves = Vec::new();
        scan.run(&mut Chunks::default(), Parallelism::SERIAL, &mut moves);
        assert_eq!(moves.iter().map(|m| m.body).collect::<Vec<_>>(), (0..10).map(|k| 10 * k).collect::<Vec<_>>());
        for (k, m) in moves.iter().enumerate() {
            let i = m.body as usize;
            assert_eq!(m.old_fat, proxies[i].fat);
            let want = (k < sized).then(|| policy.dynamic_box(&aabbs[i], anchors[i], 7, jitter(m.body, 7)));
            assert_eq!(m.fat, want, "share {share}, move {k}");
        }
    }
}
