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

/// Boxes of side `size` centred on a 1-spaced lattice `size`-apart cells, so that none overlaps.
fn lattice(n: usize, size: f32) -> Vec<Aabb> {
    (0..n)
        .map(|i| {
            let c = Vec3::new((i % 40) as f32, (i / 40 % 40) as f32, (i / 1600) as f32) * (3.0 * size);
            Aabb::from_center_radius(c, 0.5 * size)
        })
        .collect()
}

fn shifted(a: &[Aabb], by: Vec3, every: usize) -> Vec<Aabb> {
    a.iter().enumerate().map(|(i, b)| if i % every == 0 { Aabb::new(b.min + by, b.max + by) } else { *b }).collect()
}

/// The model's inputs, exactly: the log of n and its square over ten, the logs of the others offset and clamped.
#[test]
fn the_regressors_are_the_documented_logarithms() {
    let f = Features {
        n: 1000,
        pairs_per_body: 3.0,
        speed_mean: 0.5,
        speed_known: true,
        clustering: 2.0,
        size_spread: 8.0,
        resting: 0.25,
    };
    let ln_n = 1000f64.ln();
    let expected = [1.0, ln_n, ln_n * ln_n / 10.0, 4f64.ln(), 0.501f64.ln(), 0.25, 8f64.ln(), 2f64.ln()];
    for (k, (got, want)) in f.regressors().iter().zip(expected).enumerate() {
        assert!((got - want).abs() < 1e-12, "{}: {got} against {want}", REGRESSOR_NAMES[k]);
    }
    // Wild values are clamped to the calibrated range.
    let wild = Features {
        n: 0,
        pairs_per_body: -1.0,
        speed_mean: 100.0,
        clustering: 1e9,
        size_spread: 0.1,
        resting: 2.0,
        ..f
    };
    let r = wild.regressors();
    assert_eq!([r[1], r[3], r[5], r[6]], [0.0, 0.0, 1.0, 0.0]);
    assert!((r[4] - 10.001f64.ln()).abs() < 1e-12 && (r[7] - 1e3f64.ln()).abs() < 1e-12, "{r:?}");
}

/// Speed is the mean over the sample of each centre's displacement (on all three axes) over its box's size, per
/// frame passed; resting counts the boxes whose centre did not move, or, with a motion hint, those it marks
/// unmoved. The returned features are the ones `last` keeps, and they count this frame's bodies.
#[test]
fn speed_is_the_mean_displacement_in_three_axes_over_size_per_frame() {
    let a = lattice(4000, 2.0);
    let mut s = FeatureSampler::new();
    let first = s.measure(&Frame::new(&a), Some(0));
    assert_eq!(first.n, 4000);
    assert_eq!(*s.last(), first);
    assert_eq!(s.sample().len(), s.sample_len());
    assert!(!s.sample().is_empty());
    // One body in four moves by (0, 0.6, 0.8): a distance of 1, half its size of 2.
    let b = shifted(&a, Vec3::new(0.0, 0.6, 0.8), 4);
    let sampled_moving = s.sample().iter().filter(|&&i| i % 4 == 0).count() as f64 / s.sample_len() as f64;
    let f = s.measure_over(&Frame::new(&b), Some(0), 4);
    assert_eq!(*s.last(), f);
    // Per frame over 4 frames: 0.5 / 4 for the moving share of the sample.
    assert!((f.speed_mean - sampled_moving * 0.5 / 4.0).abs() < 1e-6, "{} ({sampled_moving})", f.speed_mean);
    assert!((f.resting - (1.0 - sampled_moving)).abs() < 1e-12, "resting {}", f.resting);
    // A hint marking the first half of the bodies moved: exactly the sampled share below 2000 moved.
    let moved: Vec<bool> = (0..4000).map(|i| i < 2000).collect();
    let unmoved = s.sample().iter().filter(|&&i| i >= 2000).count() as f64 / s.sample_len() as f64;
    let f = s.measure(&Frame::new(&b).with_moved(&moved), Some(0));
    assert!((f.resting - unmoved).abs() < 1e-12 && unmoved > 0.3 && unmoved < 0.7, "resting {}", f.resting);
    // Fewer bodies: a new sample, counted.
    assert_eq!(s.measure(&Frame::new(&b[..3000]), Some(0)).n, 3000);
}

/// The size spread is the 99th percentile size over the median, measured on the first call and then only every
/// eighth: a scene that grows keeps its old spread until then. Boxes of no size spread nothing.
#[test]
fn the_size_spread_is_measured_every_eighth_call_and_is_one_for_points() {
    let mut a = lattice(2000, 2.0);
    for b in a.iter_mut().step_by(10) {
        *b = Aabb::from_center_radius(b.center(), 8.0); // size 16: eight times the median's 2
    }
    let mut s = FeatureSampler::new();
    assert!((s.measure(&Frame::new(&a), Some(0)).size_spread - 8.0).abs() < 1e-6);
    let even = lattice(2000, 2.0);
    for call in 1..SLOW_FEATURES_EVERY {
        let f = s.measure(&Frame::new(&even), Some(0));
        assert!((f.size_spread - 8.0).abs() < 1e-6, "call {call}: {}", f.size_spread);
    }
    assert!((s.measure(&Frame::new(&even), Some(0)).size_spread - 1.0).abs() < 1e-6, "the eighth call measures");
    let points = vec![Aabb::from_center_radius(Vec3::ONE, 0.0); 500];
    assert_eq!(FeatureSampler::new().measure(&Frame::new(&points), Some(0)).size_spread, 1.0);
}

/// A renumbering that is not a permutation (bodies removed), or one of another count than the sample's, leaves
/// the sample alone: the next measurement draws it again for the new count.
#[test]
fn only_a_permutation_of_the_sampled_count_renames_the_sample() {
    let a = lattice(3000, 2.0);
    let mut s = FeatureSampler::new();
    s.measure(&Frame::new(&a), Some(0));
    let before = s.sample().to_vec();
    // Body 0 removed, the others shifted down: old_len 3000, not a permutation.
    let map: Vec<u32> = (0..3000u32).map(|i| if i == 0 { u32::MAX } else { i - 1 }).collect();
    s.permute(&Resize { old_to_new: &map, new_len: 2999 });
    assert_eq!(s.sample(), before);
    // A permutation of 2000 bodies when 3000 were sampled.
    let reverse: Vec<u32> = (0..2000u32).rev().collect();
    s.permute(&Resize { old_to_new: &reverse, new_len: 2000 });
    assert_eq!(s.sample(), before);
}

/// With every body sampled (fewer than the sample's floor), the estimate is the exact count: a heap of ten
/// boxes at one point has 45 pairs, 4.5 a body; two boxes that overlap have one pair, half a body's.
#[test]
fn a_fully_sampled_crowd_is_estimated_exactly() {
    let heap = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 10];
    assert_eq!(FeatureSampler::new().measure(&Frame::new(&heap), None).pairs_per_body, 4.5);
    let two = [Aabb::from_center_radius(Vec3::ZERO, 0.5), Aabb::from_center_radius(Vec3::X * 0.5, 0.5)];
    assert_eq!(FeatureSampler::new().measure(&Frame::new(&two), None).pairs_per_body, 0.5);
    let one = [Aabb::from_center_radius(Vec3::ZERO, 0.5)];
    assert_eq!(FeatureSampler::new().measure(&Frame::new(&one), None).pairs_per_body, 0.0);
}

/// The clustering grid on a scene small enough to be sampled whole (64 bodies), counted by hand: along x, 32
/// bodies at 100, 30 at 116 and one each at 107.5 and 108; y flat; on z, one body of the 32 lifted to 5 — beyond
/// the trimmed span, which is flat there. The grid spans x from 100 to 116 in 16 cells, with the top edge kept
/// inside the last cell: 100 is cell 0, 107.5 and 108 (exactly on a boundary) cell 7, 116 cell 15; on the flat
/// axes every centre, the lifted one too, is cell 0. Occupancies 32, 30 and 2: Σk² = 1928, over
/// `s·(1 + s/4096)` for s = 64.
#[test]
fn clustering_counts_the_squares_of_a_grid_over_the_trimmed_span() {
    let at = |x: f32, z: f32| Aabb::from_center_radius(Vec3::new(x, 0.0, z), 0.5);
    let mut a = vec![at(100.0, 0.0); 31];
    a.push(at(100.0, 5.0));
    a.extend(std::iter::repeat_n(at(116.0, 0.0), 30));
    a.push(at(107.5, 0.0));
    a.push(at(108.0, 0.0));
    let f = FeatureSampler::new().measure(&Frame::new(&a), Some(0));
    let s = 64.0;
    let expected = 1928.0 / (s * (1.0 + s / 4096.0));
    assert_eq!(f.clustering, expected, "Σk² {} against 1928", f.clustering * s * (1.0 + s / 4096.0));
}

/// The sample spreads over the whole range of indices, not a run of neighbours: in a scene stored in order
/// (bodies sorted in space, as the simulation sorts them) a run would see one corner.
#[test]
fn the_sample_spreads_over_every_tenth_of_the_bodies() {
    let mut s = FeatureSampler::new();
    s.draw_sample(100_000);
    let mut tenths = [0usize; 10];
    for &i in s.sample() {
        tenths[i as usize / 10_000] += 1;
    }
    let even = s.sample_len() / 10;
    assert!(tenths.iter().all(|&t| t.abs_diff(even) < even / 5), "{tenths:?}");
}

/// The pair count behind the estimate, against brute force, on boxes with integer corners (so that many touch
/// exactly, on every axis: touching counts as overlapping) sorted by their lower x as the estimate sorts them.
#[test]
fn the_sweep_counts_the_pairs_brute_force_finds_touching_ones_included() {
    let mut rng = Rng::new(21);
    let mut boxes: Vec<Aabb> = (0..400)
        .map(|_| {
            let min = Vec3::new(rng.below(12) as f32, rng.below(12) as f32, rng.below(12) as f32);
            let size = Vec3::new(1.0 + rng.below(2) as f32, 1.0 + rng.below(2) as f32, 1.0 + rng.below(2) as f32);
            Aabb::new(min, min + size)
        })
        .collect();
    boxes.sort_unstable_by(|a, b| a.min.x.total_cmp(&b.min.x));
    let mut pairs = collide_broadphase::PairList::new();
    collide_broadphase::reference_pairs(&boxes, &mut pairs);
    assert!(pairs.len() > 1000, "a scene with many pairs: {}", pairs.len());
    assert_eq!(sweep_count(&boxes), pairs.len());
}

/// The estimate as its documentation states it, recomputed by brute force: the sampled boxes inflated about
/// their centres by λ = 1, q^(−1/3), 2·q^(−1/3), 4·q^(−1/3) in turn (q the sampled share), the first λ whose
/// pairs reach an eighth of the sample giving `pairs / (s·q·λ³)`, else the last; and which λ that was (0 to 3).
fn documented_estimate(a: &[Aabb], sample: &[u32]) -> (f64, usize) {
    let (n, s) = (a.len() as f64, sample.len() as f64);
    let q = s / n;
    let spread = q.powf(-1.0 / 3.0);
    let mut estimate = (0.0, 0);
    for (k, lambda) in [1.0, spread, 2.0 * spread, 4.0 * spread].into_iter().enumerate() {
        let inflated: Vec<Aabb> = sample
            .iter()
            .map(|&i| {
                let b = a[i as usize];
                let half = b.extents() * (0.5 * lambda as f32);
                Aabb::new(b.center() - half, b.center() + half)
            })
            .collect();
        let mut pairs = collide_broadphase::PairList::new();
        collide_broadphase::reference_pairs(&inflated, &mut pairs);
        estimate = (pairs.len() as f64 / (s * q * lambda.powi(3)), k);
        if pairs.len() * 8 >= sample.len() {
            break;
        }
    }
    estimate
}

/// On a sparse lattice (no sampled boxes overlap until inflated two or three times), a crowd (the first λ
/// suffices) and a random cloud, the estimate is the documented one.
#[test]
fn the_pair_estimate_inflates_the_sample_as_documented() {
    let mut rng = Rng::new(4);
    // The lattice's boxes shrunk about their centres: the sparser, the later the λ that finds enough pairs.
    let shrunk = |radius: f32| -> Vec<Aabb> {
        lattice(8000, 1.0).iter().map(|b| Aabb::from_center_radius(b.center(), radius)).collect()
    };
    let scenes = [
        ("lattice", lattice(8000, 1.0)),
        ("sparser lattice", shrunk(0.25)),
        ("sparsest lattice", shrunk(0.15)),
        ("crowd", vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 6400]),
        ("cloud", cloud(&mut rng, 9000, 40.0, 0.5)),
    ];
    let mut lambdas_used = Vec::new();
    for (name, a) in &scenes {
        let mut s = FeatureSampler::new();
        let estimate = s.measure(&Frame::new(a), None).pairs_per_body;
        let (expected, used) = documented_estimate(a, s.sample());
        lambdas_used.push(used);
        assert!(expected > 0.0, "{name}: a scene the estimate sees");
        assert!((estimate / expected - 1.0).abs() < 1e-9, "{name}: {estimate} against {expected}");
    }
    lambdas_used.sort_unstable();
    lambdas_used.dedup();
    assert_eq!(lambdas_used, [0, 1, 2, 3], "every inflation is the one that answers in some scene: {lambdas_used:?}");
}
