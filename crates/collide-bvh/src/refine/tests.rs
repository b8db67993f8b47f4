use super::*;
use collide_math::Rng;

/// Keys sorted by code, as the builder's sort leaves them.
fn keys_of(boxes: &[Aabb], grid: &Grid) -> Vec<u64> {
    let mut keys: Vec<u64> =
        boxes.iter().enumerate().map(|(i, b)| morton::key(grid.code(morton::center(b)), i as u32)).collect();
    keys.sort_unstable();
    keys
}

/// Two far clusters: each cluster is one code on the world's grid; after refinement each cluster's bodies are
/// in the order of their own Morton codes, every item is still there once, and within each range of positions
/// the shallowest split is unique.
#[test]
fn far_clusters_are_ordered_by_their_own_codes() {
    let mut rng = Rng::new(5);
    let mut boxes = Vec::new();
    for corner in [Vec3::ZERO, Vec3::splat(1.0e6)] {
        boxes.extend(
            (0..600).map(|_| Aabb::from_center_radius(corner + rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), 0.5)),
        );
    }
    let world = Grid::new(Vec3::ZERO, Vec3::splat(1.0e6 + 50.0), morton::MAX_BITS);
    let mut keys = keys_of(&boxes, &world);
    assert_eq!(code(keys[0]), code(keys[599]), "a cluster shares one code");
    let mut r = Refiner::default();
    r.refine(&mut keys, &boxes);
    let mut items: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).collect();
    // The first cluster's items in the order of their codes over the cluster's own bounds.
    let (lo, hi) = (0..600).fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), i| {
        let c = morton::center(&boxes[i]);
        (lo.min(c), hi.max(c))
    });
    let own = Grid::new(lo, hi, morton::MAX_BITS);
    let codes: Vec<u32> = items[..600].iter().map(|&i| own.code(morton::center(&boxes[i as usize]))).collect();
    assert!(codes.windows(2).all(|w| w[0] <= w[1]), "ordered by the cluster's own codes");
    assert!(codes.windows(2).filter(|w| w[0] == w[1]).count() < 10, "and those codes tell nearly all apart");
    items.sort_unstable();
    assert_eq!(items, (0..1200).collect::<Vec<u32>>());
    // A unique shallowest split in every window of positions (a few sizes and places).
    for len in [2, 3, 17, 600, 1200] {
        for first in (0..=keys.len() - len).step_by(97) {
            let gaps: Vec<u32> = (first..first + len - 1).map(|s| r.gap(&keys, s)).collect();
            let min = *gaps.iter().min().unwrap();
            assert_eq!(gaps.iter().filter(|&&g| g == min).count(), 1, "window {first} + {len}: {gaps:?}");
        }
    }
}

/// A cluster inside a cell of a cluster (three scales): the second level of sub-codes tells it apart; a run at
/// one point stays in index order.
#[test]
fn nested_clusters_refine_again_and_a_point_stays_in_index_order() {
    let mut rng = Rng::new(8);
    let mut boxes: Vec<Aabb> =
        (0..300).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(1.0)), 0.001)).collect();
    boxes.extend(
        (0..300).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(50.0), Vec3::splat(50.01)), 1.0e-5)),
    );
    boxes.extend((0..50).map(|_| Aabb::from_center_radius(Vec3::splat(-7.0e6), 1.0)));
    let world = Grid::new(Vec3::splat(-7.0e6), Vec3::splat(1.0e7), morton::MAX_BITS);
    let mut keys = keys_of(&boxes, &world);
    let mut r = Refiner::default();
    r.refine(&mut keys, &boxes);
    let at_point: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).filter(|&i| i >= 600).collect();
    assert!(at_point.windows(2).all(|w| w[0] < w[1]), "coincident centres keep the index order");
    // The tiny cluster's bodies are told apart: few equal neighbours in its own codes' order.
    let tiny: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).filter(|i| (300..600).contains(i)).collect();
    let (lo, hi) = tiny.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &i| {
        let c = morton::center(&boxes[i as usize]);
        (lo.min(c), hi.max(c))
    });
    let own = Grid::new(lo, hi, morton::MAX_BITS);
    let codes: Vec<u32> = tiny.iter().map(|&i| own.code(morton::center(&boxes[i as usize]))).collect();
    assert!(codes.windows(2).all(|w| w[0] <= w[1]), "the tiny cluster is ordered by its own codes");
    assert!(r.depth.iter().all(|&d| d < MAX_HEIGHT));
}
