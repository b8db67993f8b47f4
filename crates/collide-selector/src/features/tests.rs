use super::*;
use collide_math::{Rng, Vec3};

fn cloud(rng: &mut Rng, n: usize, width: f32, r: f32) -> Vec<Aabb> {
    (0..n).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(width)), r)).collect()
}

#[test]
fn uniform_scenes_measure_one_and_clusters_more() {
    let mut rng = Rng::new(3);
    let uniform = cloud(&mut rng, 60_000, 100.0, 0.5);
    let mut s = FeatureSampler::new();
    let f = s.measure(&Frame::new(&uniform), Some(0));
    assert_eq!(s.sample_len(), SAMPLE_MAX.min(60_000 / SAMPLE_DIVISOR));
    assert!((0.85..1.15).contains(&f.clustering), "uniform clustering {}", f.clustering);
    assert!((f.size_spread - 1.0).abs() < 1e-6);
    // Half the bodies in a corner 1/1000 of the volume.
    let mut clustered = uniform.clone();
    for b in clustered.iter_mut().step_by(2) {
        let c = b.center() / 10.0;
        *b = Aabb::from_center_radius(c, 0.5);
    }
    let f = FeatureSampler::new().measure(&Frame::new(&clustered), Some(0));
    assert!(f.clustering > 20.0, "clustered {}", f.clustering);
}

/// A body far out — always sampled at index 0 — does not make an ordinary scene look clustered: the clustering
/// grid spans the centres' inner quantiles, not their extremes.
#[test]
fn a_body_far_out_does_not_make_a_uniform_scene_look_clustered() {
    let uniform = cloud(&mut Rng::new(3), 3000, 40.0, 0.5);
    let plain = FeatureSampler::new().measure(&Frame::new(&uniform), None);
    let mut far = uniform.clone();
    far.insert(0, Aabb::from_center_radius(Vec3::splat(1.0e30), 0.5));
    let with_far = FeatureSampler::new().measure(&Frame::new(&far), None);
    assert!((0.7..1.3).contains(&plain.clustering), "uniform clustering {}", plain.clustering);
    assert!(
        (with_far.clustering / plain.clustering - 1.0).abs() < 0.1,
        "{} with the far body against {} without",
        with_far.clustering,
        plain.clustering
    );
}

#[test]
fn speed_is_displacement_over_size_and_resting_counts_still_boxes() {
    let mut rng = Rng::new(5);
    let mut a = cloud(&mut rng, 10_000, 50.0, 0.5);
    let mut s = FeatureSampler::new();
    let f0 = s.measure(&Frame::new(&a), Some(0));
    assert!(!f0.speed_known, "no speed without a previous frame or a hint");
    // Every other body moves by 0.25 along x (a quarter of its size of 1), the rest stay.
    for b in a.iter_mut().step_by(2) {
        *b = Aabb::new(b.min + Vec3::X * 0.25, b.max + Vec3::X * 0.25);
    }
    // The hint is a first frame's only: a measured displacement overrides it.
    let f = s.measure(&Frame::new(&a).with_speed(7.0), Some(5000));
    assert!(f.speed_known);
    assert!((f.resting - 0.5).abs() < 0.05, "resting {}", f.resting);
    assert!((f.speed_mean - 0.125).abs() < 0.01, "mean {}", f.speed_mean);
    assert_eq!(f.pairs_per_body, 0.5);
    // The motion hint, when given, decides the resting fraction.
    let moved = vec![true; a.len()];
    let f = s.measure(&Frame::new(&a).with_moved(&moved), Some(0));
    assert_eq!(f.resting, 0.0);
}

#[test]
fn a_first_frame_takes_its_speed_from_the_hint_and_forgetting_drops_the_scene() {
    let mut rng = Rng::new(5);
    let a = cloud(&mut rng, 5_000, 50.0, 0.5);
    let mut s = FeatureSampler::new();
    let f = s.measure(&Frame::new(&a).with_speed(0.004), None);
    assert!(f.speed_known && (f.speed_mean - 0.004).abs() < 1e-9, "{f}");
    assert!(f.to_string().contains("speed 0.004"), "{f}");
    s.forget();
    assert_eq!(*s.last(), Features::default(), "a reset forgets the last scene's features");
    let f = s.measure(&Frame::new(&a).with_speed(f32::NAN), None);
    assert!(!f.speed_known, "a NaN hint is no hint");
    assert!(f.to_string().contains("speed unknown"), "{f}");
}

/// Pairs per body by brute force.
fn true_pairs_per_body(a: &[Aabb]) -> f64 {
    let mut pairs = collide_broadphase::PairList::new();
    collide_broadphase::reference_pairs(a, &mut pairs);
    pairs.len() as f64 / a.len() as f64
}

#[test]
fn pairs_per_body_are_estimated_from_the_sample_within_a_third_of_the_truth() {
    // Sparse, dense, clustered and mixed-size scenes, at sample rates from a third to a fiftieth; brute force
    // counts the truth.
    let mut rng = Rng::new(9);
    let mut scenes: Vec<(&str, Vec<Aabb>)> = vec![
        ("sparse", cloud(&mut rng, 20_000, 60.0, 0.5)),
        ("dense", cloud(&mut rng, 20_000, 25.0, 0.5)),
        ("small n", cloud(&mut rng, 3_000, 14.0, 0.5)),
    ];
    let mut clustered = cloud(&mut rng, 40_000, 120.0, 0.5);
    for b in clustered.iter_mut().take(30_000) {
        *b = Aabb::from_center_radius(b.center() / 6.0, 0.5);
    }
    scenes.push(("clustered", clustered));
    let mut mixed = cloud(&mut rng, 20_000, 40.0, 0.5);
    for b in mixed.iter_mut().step_by(10) {
        *b = Aabb::from_center_radius(b.center(), 2.0);
    }
    scenes.push(("mixed sizes", mixed));
    for (name, a) in &scenes {
        let truth = true_pairs_per_body(a);
        let estimate = FeatureSampler::new().measure(&Frame::new(a), None).pairs_per_body;
        assert!((estimate / truth - 1.0).abs() < 0.33, "{name}: estimated {estimate:.3}, truth {truth:.3}");
    }
    // Nothing overlapping: nothing estimated; every box at one point: a crowd.
    let apart: Vec<Aabb> = (0..4000).map(|i| Aabb::from_center_radius(Vec3::X * (3 * i) as f32, 0.5)).collect();
    assert_eq!(FeatureSampler::new().measure(&Frame::new(&apart), None).pairs_per_body, 0.0);
    let heap = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 4000];
    assert!(FeatureSampler::new().measure(&Frame::new(&heap), None).pairs_per_body > 1000.0);
}

#[test]
fn size_spread_sees_one_body_in_ten_eight_times_larger() {
    let mut rng = Rng::new(7);
    let mut a = cloud(&mut rng, 20_480, 200.0, 0.5);
    for b in a.iter_mut().step_by(10) {
        *b = Aabb::from_center_radius(b.center(), 4.0);
    }
    let f = FeatureSampler::new().measure(&Frame::new(&a), Some(0));
    assert!((f.size_spread - 8.0).abs() < 1e-3, "spread {}", f.size_spread);
}

#[test]
fn the_sample_is_distinct_sorted_and_redrawn_on_resize() {
    let mut s = FeatureSampler::new();
    for n in [1, 63, 64, 1000, 70_000, 1_000_003] {
        s.draw_sample(n);
        let len = s.sample.len();
        assert!(len <= SAMPLE_MAX && len <= n);
        assert!(s.sample.windows(2).all(|w| w[0] < w[1]), "n = {n}");
        assert!(s.sample.iter().all(|&i| (i as usize) < n));
    }
    let a = vec![Aabb::from_center_radius(Vec3::ZERO, 1.0); 500];
    s.measure(&Frame::new(&a), Some(0));
    assert_eq!(s.sample_len(), 64);
    s.measure(&Frame::new(&a[..100]), Some(0));
    assert_eq!(s.sample_len(), 64, "100 bodies: the floor of 64");
    assert!(s.sample.iter().all(|&i| i < 100));
}

#[test]
fn a_permutation_keeps_the_sampled_bodies_and_their_speed() {
    let mut rng = Rng::new(8);
    let mut a = cloud(&mut rng, 10_000, 50.0, 0.5);
    let mut s = FeatureSampler::new();
    s.measure(&Frame::new(&a), Some(0));
    // Every other body moves by 0.25 along x; then all of them are renumbered (reversed), as a reorder would.
    for b in a.iter_mut().step_by(2) {
        *b = Aabb::new(b.min + Vec3::X * 0.25, b.max + Vec3::X * 0.25);
    }
    let n = a.len() as u32;
    let map: Vec<u32> = (0..n).map(|i| n - 1 - i).collect();
    let sampled_before: Vec<u32> = s.sample().iter().map(|&i| map[i as usize]).collect();
    s.permute(&Resize { old_to_new: &map, new_len: a.len() });
    a.reverse();
    // The same bodies, under their new indices, ascending.
    let mut expected = sampled_before;
    expected.sort_unstable();
    assert_eq!(s.sample(), expected);
    // Their displacement since the last frame is measured across the renumbering: half moved a quarter of
    // their size.
    let f = s.measure(&Frame::new(&a), Some(0));
    assert!(f.speed_known, "the speed survives a permutation");
    assert!((f.resting - 0.5).abs() < 0.05, "resting {}", f.resting);
    assert!((f.speed_mean - 0.125).abs() < 0.01, "mean {}", f.speed_mean);
}
