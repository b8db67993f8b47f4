use super::*;
use collide_math::{Rng, Vec3};

/// The permutation sample the feature sampler draws (2048 of `n`).
fn feature_sample(n: usize) -> Vec<u32> {
    let mut s: Vec<u32> = (0..2048u64.min(n as u64)).map(|k| (k * 2_654_435_761 % n as u64) as u32).collect();
    s.sort_unstable();
    s
}

#[test]
fn sub_boxes_hold_about_the_target_in_a_few_dense_cubes() {
    let mut rng = Rng::new(4);
    let aabbs: Vec<Aabb> =
        (0..100_000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(200.0)), 0.5)).collect();
    let sample = feature_sample(aabbs.len());
    let mut sub = SubBox::default();
    let mut seen = Vec::new();
    for _ in 0..8 {
        let k = sub.draw(&aabbs, &sample, 4000, CUBES);
        assert!((1000..16_000).contains(&k), "{k} bodies for a target of 4000");
        let ids = sub.ids();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        // Dense: the bodies are neighbours, not a thinned-out random subset — each has many others of the sample
        // within the width a cube holding its share would have.
        let cube = (200f32.powi(3) * k as f32 / (100_000.0 * CUBES as f32)).cbrt();
        let near = |i: u32| {
            let c = aabbs[i as usize].center();
            ids.iter().filter(|&&j| (aabbs[j as usize].center() - c).abs().max_element() <= cube).count()
        };
        let lonely = ids.iter().step_by(50).filter(|&&i| near(i) < k / (8 * CUBES)).count();
        assert_eq!(lonely, 0, "sampled bodies far from the others of their cube");
        seen.push(ids[0]);
    }
    seen.dedup();
    assert!(seen.len() > 4, "successive probes see different parts of the scene");
    let boxes = sub.gather(&aabbs).to_vec();
    assert_eq!(boxes.len(), sub.ids().len());
    assert!(sub.ids().iter().zip(&boxes).all(|(&i, b)| aabbs[i as usize] == *b));
}

#[test]
fn a_sample_holds_large_bodies_in_their_share_of_the_scene() {
    // One body in ten eight times larger: by overlap, a cube would take large bodies from up to four of their
    // radii around it; by centre it takes them as often as the scene has them.
    let mut rng = Rng::new(6);
    let aabbs: Vec<Aabb> = (0..50_000)
        .map(|i| {
            let r = if i % 10 == 0 { 4.0 } else { 0.5 };
            Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(150.0)), r)
        })
        .collect();
    let sample = feature_sample(aabbs.len());
    let mut sub = SubBox::default();
    let (mut large, mut all) = (0, 0);
    for _ in 0..10 {
        sub.draw(&aabbs, &sample, 2000, CUBES);
        all += sub.ids().len();
        large += sub.ids().iter().filter(|&&i| i % 10 == 0).count();
    }
    let share = large as f64 / all as f64;
    assert!((0.07..0.13).contains(&share), "large bodies are {share:.3} of the samples, 0.1 of the scene");
}

#[test]
fn the_cubes_of_one_sample_reach_several_far_clusters() {
    // Eight clusters at the corners of a world a thousand cluster widths wide.
    let mut rng = Rng::new(8);
    let corner = |k: usize| Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32) * 10_000.0;
    let aabbs: Vec<Aabb> = (0..40_000)
        .map(|i| Aabb::from_center_radius(corner(i % 8) + rng.point_in(Vec3::ZERO, Vec3::splat(10.0)), 0.1))
        .collect();
    let sample = feature_sample(aabbs.len());
    let mut sub = SubBox::default();
    for _ in 0..6 {
        sub.draw(&aabbs, &sample, 1600, CUBES);
        let mut clusters: Vec<usize> = sub.ids().iter().map(|&i| i as usize % 8).collect();
        clusters.sort_unstable();
        clusters.dedup();
        assert!(clusters.len() >= 2, "one sample sees clusters {clusters:?}");
    }
}

#[test]
fn a_crowd_at_one_point_is_capped_and_invalid_boxes_never_centre_a_cube() {
    let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 10_000];
    aabbs[0] = Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN));
    let sample: Vec<u32> = (0..100).collect();
    let mut sub = SubBox::default();
    let k = sub.draw(&aabbs, &sample, 500, CUBES);
    assert_eq!(k, OVERFULL * 500, "capped");
    assert!(sub.ids().iter().all(|&i| i != 0), "a NaN box is in no cube");
    let nothing = vec![Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)); 10];
    assert_eq!(sub.draw(&nothing, &[0, 1, 2], 5, CUBES), 0);
}

#[test]
fn a_permutation_renames_the_sample_in_place_and_it_gathers_the_same_boxes() {
    let mut rng = Rng::new(6);
    let aabbs: Vec<Aabb> =
        (0..20_000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(100.0)), 0.5)).collect();
    let mut sub = SubBox::default();
    assert!(sub.draw(&aabbs, &feature_sample(aabbs.len()), 2000, CUBES) > 0);
    let before = sub.gather(&aabbs).to_vec();
    // A random permutation of the bodies (Fisher–Yates), applied to the boxes and to the sample.
    let mut map: Vec<u32> = (0..aabbs.len() as u32).collect();
    for i in (1..map.len()).rev() {
        map.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let mut permuted = aabbs.clone();
    for (old, &new) in map.iter().enumerate() {
        permuted[new as usize] = aabbs[old];
    }
    sub.permute(&Resize { old_to_new: &map, new_len: map.len() });
    // The same boxes in the same order: a scout's structure over the sample stays valid.
    assert_eq!(sub.gather(&permuted), &before[..]);
}

/// A scene without clusters is sampled as one cube, of the scene's density: four small cubes far apart would be four
/// small clusters, which a tree splits at its root. A clustered one takes [`CUBES`].
#[test]
fn an_even_scene_is_sampled_as_one_dense_cube_and_a_clustered_one_as_several() {
    assert_eq!(cubes_for(1.0), 1);
    assert_eq!(cubes_for(2.0), 1, "rapier's streams measure up to 2");
    assert_eq!(cubes_for(CLUSTERED_FROM), CUBES);
    let mut rng = Rng::new(9);
    let aabbs: Vec<Aabb> =
        (0..100_000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(200.0)), 0.5)).collect();
    let sample = feature_sample(aabbs.len());
    let mut sub = SubBox::default();
    // The width of one cube holding 4000 of the 100 000 bodies.
    let width = (200f32.powi(3) * 4000.0 / 100_000.0).cbrt();
    let extent = |sub: &SubBox| {
        let centres: Vec<Vec3> = sub.ids().iter().map(|&i| aabbs[i as usize].center()).collect();
        let lo = centres.iter().fold(Vec3::splat(f32::INFINITY), |a, &c| a.min(c));
        let hi = centres.iter().fold(Vec3::splat(f32::NEG_INFINITY), |a, &c| a.max(c));
        (hi - lo).max_element()
    };
    for _ in 0..6 {
        let k = sub.draw(&aabbs, &sample, 4000, 1);
        assert!((2000..8000).contains(&k), "{k} bodies for a target of 4000");
        assert!(extent(&sub) <= 1.3 * width, "one cube: {} across, a cube {width}", extent(&sub));
        sub.draw(&aabbs, &sample, 4000, CUBES);
        assert!(extent(&sub) > 1.3 * width, "four cubes span more than one");
    }
}

/// The sub-box as its documentation states it, recomputed for bodies on a line (centre `x`, all valid): cubes
/// centred on the sample's bodies from `next` on; each cube's half width the distance to the sampled body ranked
/// `⌈target · s / (n · count)⌉` (1-based, within 1..s); every body whose centre lies within a half width of a
/// cube; past four times the target, the cubes shrunk by `∛(target / listed)` and the bodies listed again, then cut
/// to four times the target.
fn documented_sub_box(xs: &[f32], sample: &[u32], target: usize, count: usize, next: usize) -> Vec<u32> {
    let (n, s) = (xs.len() as f64, sample.len());
    let mut cubes: Vec<(f32, f32)> = (0..count)
        .map(|c| {
            let centre = xs[sample[(next + c) % s] as usize];
            let mut distances: Vec<f32> = sample.iter().map(|&i| (xs[i as usize] - centre).abs()).collect();
            distances.sort_by(f32::total_cmp);
            let rank = ((target as f64 / (n * count as f64)) * s as f64).ceil() as usize;
            (centre, distances[rank.clamp(1, s) - 1])
        })
        .collect();
    let list = |cubes: &[(f32, f32)]| -> Vec<u32> {
        (0..xs.len() as u32).filter(|&i| cubes.iter().any(|&(c, h)| (xs[i as usize] - c).abs() <= h)).collect()
    };
    let mut ids = list(&cubes);
    if ids.len() > 4 * target {
        let shrink = (target as f32 / ids.len() as f32).cbrt();
        cubes.iter_mut().for_each(|c| c.1 *= shrink);
        ids = list(&cubes);
    }
    ids.truncate(4 * target);
    ids
}

/// On a line of bodies a unit apart, sampled every other body, and on the same line after a crowd of 400 at 0
/// (listed past four times the target, so the cubes shrink), and on a line of four bodies a place (more than the
/// target plus four listed, not yet four times it): the bodies listed are the documented ones, for one cube and
/// for several, and successive draws start their cubes where the last left off.
#[test]
fn a_sub_box_lists_the_bodies_its_documentation_says() {
    let line: Vec<f32> = (0..101).map(|i| i as f32).collect();
    let mut crowded = line.clone();
    crowded.extend(std::iter::repeat_n(0.0, 400));
    // Four bodies at each place, the places spreading from 0 both ways (0, −1, 1, −2, 2, …): the cube of six
    // centred on body 0 reaches the places −1 to 1, and lists twelve, more than the target plus four and less
    // than four times it.
    let quadrupled: Vec<f32> = (0..404)
        .map(|i| {
            let k = i / 4;
            if k % 2 == 0 { (k / 2) as f32 } else { -((k + 1) / 2) as f32 }
        })
        .collect();
    let mut windows = 0;
    for (name, xs) in [("line", &line), ("crowded line", &crowded), ("quadrupled line", &quadrupled)] {
        let aabbs: Vec<Aabb> = xs.iter().map(|&x| Aabb::from_center_radius(Vec3::new(x, 0.0, 0.0), 0.25)).collect();
        let sample: Vec<u32> = (0..xs.len() as u32).step_by(2).collect();
        for (target, count) in [(10, 1), (6, 1), (10, 2), (6, 3), (30, 4)] {
            let mut sub = SubBox::default();
            let mut next = 0;
            for draw in 0..3 {
                let listed = sub.draw(&aabbs, &sample, target, count);
                let expected = documented_sub_box(xs, &sample, target, count, next);
                assert_eq!(sub.ids(), expected, "{name}, target {target}, {count} cubes, draw {draw}");
                assert_eq!(listed, expected.len());
                windows += usize::from(listed > target + 4 && listed < 4 * target);
                next += count;
            }
        }
    }
    assert!(windows > 0, "no draw listed more than the target plus four and less than four times it");
}

/// Cubes are centred only on valid bodies, trying each body of the sample at most once: with fewer valid ones than
/// cubes asked for, fewer cubes are drawn, and the next draw starts after the last body tried.
#[test]
fn a_sub_box_tries_each_sampled_body_once_and_skips_invalid_ones() {
    let mut aabbs: Vec<Aabb> = (0..30).map(|i| Aabb::from_center_radius(Vec3::X * (10 * i) as f32, 0.5)).collect();
    aabbs[10] = Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN));
    let sample = [0u32, 10, 20];
    let mut sub = SubBox::default();
    // Three cubes asked, two valid centres: bodies 0 and 20, each cube as wide as the distance to the nearest
    // other valid sampled body (⌈3·3/(30·3)⌉ = 1st: itself, 0), so each holds its own centre.
    assert_eq!(sub.draw(&aabbs, &sample, 3, 3), 2);
    assert_eq!(sub.ids(), [0, 20]);
    // Three bodies were tried: the next cube is centred on sample[3 % 3] = body 0 again, not on body 20.
    assert_eq!(sub.draw(&aabbs, &sample, 3, 1), 1);
    assert_eq!(sub.ids(), [0]);
}
