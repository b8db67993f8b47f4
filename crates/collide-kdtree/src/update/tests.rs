use super::*;
use collide_math::{Rng, Vec3};

fn sorted_on<const A: usize>(v: &[Item]) -> bool {
    v.windows(2).all(|w| w[0].aabb.min[A] <= w[1].aabb.min[A])
}

/// Nearly sorted input takes the insertion sort; reversed input exhausts the budget and takes the full sort.
/// Both end sorted with the same items.
#[test]
fn the_node_sort_sorts_nearly_sorted_and_shuffled_lists() {
    let mut rng = Rng::new(2);
    let mut v: Vec<Item> =
        (0..500).map(|i| Item { aabb: Aabb::from_center_radius(Vec3::new(0.0, i as f32, 0.0), 0.5), id: i }).collect();
    for _ in 0..20 {
        let (a, b) = (rng.below(500) as usize, rng.below(500) as usize);
        v.swap(a, b);
    }
    let mut ids: Vec<u32> = v.iter().map(|it| it.id).collect();
    sort_on::<1>(&mut v);
    assert!(sorted_on::<1>(&v));
    v.reverse();
    sort_on::<1>(&mut v);
    assert!(sorted_on::<1>(&v));
    let mut after: Vec<u32> = v.iter().map(|it| it.id).collect();
    ids.sort_unstable();
    after.sort_unstable();
    assert_eq!(ids, after);
}

#[test]
fn chunks_cut_the_items_evenly_at_node_boundaries() {
    // Ten nodes of 10 items each, then one of 100: four chunks.
    let mut spans = Vec::new();
    let mut at = 0;
    for len in [10u32; 10].into_iter().chain([100]) {
        spans.push(Span { start: at, own_end: at + len, sub_end: at + len });
        at += len;
    }
    let mut bounds = [0; MAX_CHUNKS + 1];
    cut_by_items(&spans, at as usize, 4, &mut bounds);
    assert_eq!(&bounds[..5], &[0, 5, 10, 11, 11], "the large node is a chunk of its own");
}
