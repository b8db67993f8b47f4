use crate::{KdConfig, KdTree};
use collide_broadphase::InvalidBoxes;
use collide_broadphase::conformance::reorder::permutation_frames;
use collide_broadphase::conformance::{assert_conforms, assert_parallel_paths, pair_snapshot, snapshot_scenes};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Parallelism, reference_pairs};
use collide_math::{Rng, Vec3};

/// A threshold low enough that the kit's small scenes take the parallel paths (the shipped
/// [`Parallelism::default`] is tested by the tests that use `KdConfig::default()`).
const FORCED: Parallelism = Parallelism::with_min_work(64);

/// Run `f` on a rayon pool of two threads, so that the parallel paths run even on a one-core machine.
fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

fn config(max_leaf: u32, max_depth: u32) -> KdConfig {
    KdConfig { max_leaf, max_depth, parallelism: FORCED, ..KdConfig::default() }
}

/// Find `aabbs`' pairs with `bp`, check its invariants, and assert the pairs equal the brute-force reference.
fn assert_matches_reference(bp: &mut dyn Broadphase, frame: &Frame<'_>, label: &str) -> PairList {
    let (mut out, mut want) = (PairList::new(), PairList::new());
    bp.find_pairs(frame, &mut out);
    if let Err(e) = bp.validate() {
        panic!("{label}: {e}");
    }
    reference_pairs(frame.aabbs, &mut want);
    out.sort();
    assert_eq!(out, want, "{label}");
    out
}

#[test]
fn conforms_with_default_parameters() {
    assert_conforms(|| Box::new(KdTree::default()));
}

#[test]
fn conforms_with_small_leaves_shallow_depths_and_forced_parallelism() {
    on_two_threads(|| {
        for (leaf, depth) in [(1, 32), (2, 4), (8, 0), (3, 1), (32, 12), (1, 48)] {
            assert_conforms(|| Box::new(KdTree::new(config(leaf, depth))));
        }
    });
}

/// Every parallel section of the tree runs under the kit, at its forced threshold and at the shipped one (its
/// large sequence), on a pool of three threads: the first frame's plan, one side of a node per thread; the
/// update's place and write passes; the search.
#[test]
fn parallel_paths_run_under_the_kit() {
    assert_parallel_paths(&|| Box::new(KdTree::default()), &["kd plan", "kd place", "kd write", "kd pairs"]);
}

/// A period of one frame and the tightest ratio: the balance check runs every frame and moves planes whenever the
/// sides differ at all, so re-planned subtrees meet every sequence of the kit.
#[test]
fn conforms_when_planes_move_every_frame() {
    on_two_threads(|| {
        let every_frame = KdConfig { period: 1.0 / 120.0, max_ratio: 1.0, ..config(4, 32) };
        assert_conforms(|| Box::new(KdTree::new(every_frame)));
    });
}

#[test]
fn snapshots_of_small_scenes() {
    for scene in snapshot_scenes() {
        let name = format!("kd-{}", scene.name);
        insta::assert_snapshot!(name, pair_snapshot(&mut KdTree::default(), scene.name));
    }
}

#[test]
fn all_bodies_at_one_point_terminate_with_every_pair() {
    for half in [0.0, 0.5] {
        let aabbs = vec![Aabb::from_center_radius(Vec3::splat(3.0), half); 300];
        let mut bp = KdTree::new(config(1, 48));
        for step in 0..3 {
            let out = assert_matches_reference(&mut bp, &Frame::new(&aabbs).with_step(step), "one point");
            assert_eq!(out.len(), 300 * 299 / 2);
        }
        assert_eq!(bp.stats().get("nodes"), Some(1.0), "no plane separates them: {}", bp.stats());
    }
}

/// Invalid boxes in release builds: they overlap nothing, the others' pairs are exact, and a body whose box
/// becomes valid again is back in the answer.
#[test]
fn invalid_boxes_overlap_nothing_and_come_back() {
    let mut rng = Rng::new(41);
    let mut aabbs: Vec<Aabb> = (0..2000)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(30.0)), rng.range_f32(0.2, 1.5)))
        .collect();
    let good = aabbs.clone();
    let nan = Aabb::new(Vec3::new(f32::NAN, 1.0, 1.0), Vec3::splat(2.0));
    let inf = Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY));
    let inverted = Aabb::new(Vec3::splat(5.0), Vec3::new(6.0, 4.0, 6.0));
    let bad = [(3, nan), (500, inf), (1999, inverted), (1000, Aabb::new(Vec3::splat(1.0), Vec3::splat(f32::NAN)))];
    on_two_threads(|| {
        let mut bp = KdTree::new(config(4, 32));
        for step in 0..6u64 {
            // Frames 1..4 carry the invalid boxes; frame 0 and 5 do not.
            aabbs.clone_from(&good);
            if (1..5).contains(&step) {
                for &(i, b) in &bad {
                    aabbs[i] = b;
                }
            }
            let (mut out, mut want) = (PairList::new(), PairList::new());
            let frame = Frame::new(&aabbs).with_step(step).with_invalid_boxes(InvalidBoxes::OverlapNothing);
            bp.find_pairs(&frame, &mut out);
            bp.validate().unwrap();
            // The reference without the invalid bodies: theirs are the pairs nobody may report.
            let mut masked = aabbs.clone();
            for &(i, _) in bad.iter().filter(|_| (1..5).contains(&step)) {
                masked[i] = Aabb::new(Vec3::splat(1.0e9 + i as f32 * 10.0), Vec3::splat(1.0e9 + i as f32 * 10.0));
            }
            reference_pairs(&masked, &mut want);
            out.sort();
            assert_eq!(out, want, "step {step}");
            let excluded = bp.stats().get("excluded").unwrap();
            assert_eq!(excluded, if (1..5).contains(&step) { 4.0 } else { 0.0 }, "step {step}");
        }
    });
}

#[test]
#[should_panic(expected = "body 7: ")]
fn invalid_boxes_panic_naming_the_body_when_asked_to() {
    let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 1.0); 10];
    aabbs[7] = Aabb::new(Vec3::splat(2.0), Vec3::splat(1.0));
    let mut bp = KdTree::new(KdConfig::default());
    bp.find_pairs(&Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::Panic), &mut PairList::new());
}

/// Coordinates near ±10³⁰ and one body larger than the rest of the world: exact pairs, a valid tree.
#[test]
fn huge_coordinates_and_a_huge_body() {
    let mut rng = Rng::new(5);
    for scale in [1.0e30f32, -1.0e30, 1.0e4] {
        let shift = Vec3::new(scale, -scale, scale * 0.5);
        let mut aabbs: Vec<Aabb> = (0..800)
            .map(|_| {
                let c = shift + rng.point_in(Vec3::ZERO, Vec3::splat(scale.abs() * 1.0e-3));
                Aabb::from_center_radius(c, scale.abs() * rng.range_f32(1.0e-6, 4.0e-5))
            })
            .collect();
        aabbs.insert(400, Aabb::new(shift - Vec3::splat(scale.abs()), shift + Vec3::splat(scale.abs())));
        let mut bp = KdTree::new(config(4, 32));
        let out = assert_matches_reference(&mut bp, &Frame::new(&aabbs), &format!("scale {scale}"));
        assert_eq!(out.iter().filter(|p| p.a == 400 || p.b == 400).count(), 800, "the huge body meets all");
    }
}

/// `n` boxes uniform in `[0, side]³` with half edges in `half`.
fn uniform(rng: &mut Rng, n: usize, side: f32, half: (f32, f32)) -> Vec<Aabb> {
    (0..n)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(side)), rng.range_f32(half.0, half.1)))
        .collect()
}

/// The root's sides as a ratio in `[0, 1]` (smaller over larger).
fn root_ratio(bp: &KdTree) -> f64 {
    let (l, r) = bp.root_sides().expect("the root has split");
    l.min(r) as f64 / l.max(r).max(1) as f64
}

/// The test of adaptation: a uniform cloud is pulled in 30 frames into a cluster around an off-centre
/// point, where its bodies keep jiggling. Within one period (0.2 s: 12 frames at 60 Hz) of the cluster's forming,
/// the root's sides are back inside [0.5, 2], and they stay there; the same run without balance checks ends
/// with the root far out of balance (so the scene does unbalance it). Pairs are exact throughout.
#[test]
fn the_root_rebalances_within_one_period_after_an_off_centre_cluster_forms() {
    const DT: f32 = 1.0 / 60.0;
    let (formed, period_frames) = (60u64, 12u64);
    let mut rng = Rng::new(61);
    let start: Vec<Vec3> = uniform(&mut rng, 5000, 100.0, (0.5, 0.5)).iter().map(Aabb::center).collect();
    let target = Vec3::new(85.0, 20.0, 75.0);
    let mut adaptive = KdTree::new(KdConfig { period: 0.2, ..config(16, 32) });
    let mut frozen = KdTree::new(KdConfig { period: 1.0e6, ..config(16, 32) });
    let mut aabbs = Vec::new();
    on_two_threads(|| {
        for frame in 0..formed + 3 * period_frames {
            // Frames 30..60 pull every body to a tenth of its distance from the target; then it jiggles.
            let pull = ((frame as f32 - 30.0) / 30.0).clamp(0.0, 1.0) * 0.9;
            aabbs.clear();
            aabbs.extend(start.iter().map(|&c| {
                let jiggle = if frame > formed { rng.unit_vector() * 0.05 } else { Vec3::ZERO };
                Aabb::from_center_radius(c + (target - c) * pull + jiggle, 0.5)
            }));
            let f = Frame::new(&aabbs).with_step(frame).with_dt(DT);
            for bp in [&mut adaptive, &mut frozen] {
                if frame % 6 == 0 {
                    assert_matches_reference(bp, &f, &format!("frame {frame}"));
                } else {
                    bp.find_pairs(&f, &mut PairList::new());
                }
            }
            if frame >= formed + period_frames {
                let ratio = root_ratio(&adaptive);
                assert!(ratio >= 0.5, "frame {frame}: the root's sides are {:?}", adaptive.root_sides());
            }
        }
    });
    assert!(root_ratio(&frozen) < 0.5, "without checks the root stays unbalanced: {:?}", frozen.root_sides());
}

/// Balance checks come once per period of accumulated simulated time, whatever the step: every 12th frame at
/// 60 Hz with the study's 0.2 s (the f32 steps' rounding does not push it to the 13th), every frame when a step
/// is longer than the period, never while the clock is paused.
#[test]
fn balance_checks_come_every_period_of_simulated_time() {
    let mut rng = Rng::new(3);
    let aabbs = uniform(&mut rng, 500, 50.0, (0.2, 1.0));
    let checks = |bp: &mut KdTree, dt: f32, frames: u64| -> Vec<u64> {
        (0..frames)
            .filter(|&step| {
                bp.find_pairs(&Frame::new(&aabbs).with_step(step).with_dt(dt), &mut PairList::new());
                bp.stats().get("balance_check") == Some(1.0)
            })
            .collect()
    };
    let mut bp = KdTree::new(config(8, 32));
    assert_eq!(checks(&mut bp, 1.0 / 60.0, 50), [12, 24, 36, 48], "frame 0 plans the tree, then every 12 frames");
    assert_eq!(checks(&mut bp, 0.5, 3), [0, 1, 2]);
    assert_eq!(checks(&mut bp, 0.0, 30), [] as [u64; 0]);
}

/// "It never needs a full rebuild": bodies moving through a uniform cloud for 300 frames (24 balance checks)
/// cross planes all the time, and the checks re-plan small subtrees whose sides drifted apart, but no frame after
/// the first re-plans a subtree of more than a small part of the bodies, and the pairs stay exact.
#[test]
fn a_moving_uniform_cloud_never_re_plans_the_whole_tree() {
    let n = 4000;
    let mut rng = Rng::new(8);
    let mut centre: Vec<Vec3> = uniform(&mut rng, n, 60.0, (0.5, 0.5)).iter().map(Aabb::center).collect();
    let velocity: Vec<Vec3> = (0..n).map(|_| rng.unit_vector() * 0.3).collect();
    let mut bp = KdTree::new(config(16, 32));
    let mut aabbs = Vec::new();
    let (mut checks, mut most_planned) = (0, 0.0f64);
    on_two_threads(|| {
        for frame in 0..300u64 {
            for (c, v) in centre.iter_mut().zip(&velocity) {
                *c = (*c + *v).rem_euclid(Vec3::splat(60.0));
            }
            aabbs.clear();
            aabbs.extend(centre.iter().map(|&c| Aabb::from_center_radius(c, 0.5)));
            let f = Frame::new(&aabbs).with_step(frame).with_dt(1.0 / 60.0);
            if frame % 25 == 0 {
                assert_matches_reference(&mut bp, &f, &format!("frame {frame}"));
            } else {
                bp.find_pairs(&f, &mut PairList::new());
            }
            let stats = bp.stats();
            if frame > 0 {
                most_planned = most_planned.max(stats.get("largest_replan").unwrap());
            }

            checks += stats.get("balance_check").unwrap() as u32;
        }
    });
    assert_eq!(checks, 24, "frame 0 plans the tree; then frames 12, 24, …, 288");
    assert!(most_planned < n as f64 / 8.0, "a frame re-planned a subtree of {most_planned} of {n} bodies");
}

#[test]
fn stats_count_what_the_tree_did() {
    // Ten identical boxes: one leaf, whose sweep cannot prune: 45 tests, 45 pairs.
    let same = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 10];
    let mut bp = KdTree::new(config(32, 32));
    let mut out = PairList::new();
    bp.find_pairs(&Frame::new(&same), &mut out);
    let s = bp.stats();
    assert_eq!(out.len(), 45);
    assert_eq!(s.pair_tests, 45, "{s}");
    assert_eq!((s.get("nodes"), s.get("leaves"), s.get("height")), (Some(1.0), Some(1.0), Some(0.0)), "{s}");
    assert_eq!(s.get("max_leaf_load"), Some(10.0));

    // Two far groups of 20 small boxes, and 5 long boxes across the gap between them as thick as the groups: only
    // a plane on x in the gap cuts no small box, so the root splits the groups there and keeps the 5 long boxes,
    // which straddle it; the first frame's plan places every body (counted as re-inserted).
    let mut rng = Rng::new(2);
    let mut aabbs: Vec<Aabb> = (0..40)
        .map(|i| {
            let x = if i < 20 { 10.0 } else { 90.0 };
            Aabb::from_center_radius(Vec3::new(x, 0.0, 0.0) + rng.point_in(Vec3::ZERO, Vec3::splat(5.0)), 0.3)
        })
        .collect();
    aabbs.extend((0..5).map(|i| Aabb::new(Vec3::new(12.0 + i as f32, -1.0, -1.0), Vec3::new(88.0, 6.0, 6.0))));
    let mut bp = KdTree::new(config(32, 32));
    bp.find_pairs(&Frame::new(&aabbs), &mut out);
    let s = bp.stats();
    assert_eq!((s.get("nodes"), s.get("leaves"), s.get("height")), (Some(3.0), Some(2.0), Some(1.0)), "{s}");
    assert_eq!(s.get("inner_bodies"), Some(5.0), "{s}");
    assert_eq!(s.get("reinserted"), Some(45.0), "{s}");
    assert_eq!(s.get("replanned_bodies"), Some(0.0), "the first plan is no re-plan: {s}");
    assert!(s.work > 45 && s.bytes_touched > 45 * 28, "{s}");
    assert_eq!(bp.root_sides(), Some((20, 20)));
    // The same boxes again: nothing moves, nothing is planned.
    bp.find_pairs(&Frame::new(&aabbs).with_step(1), &mut out);
    let s = bp.stats();
    assert_eq!(
        (s.get("reinserted"), s.get("replanned_bodies"), s.get("splits")),
        (Some(0.0), Some(0.0), Some(0.0)),
        "{s}"
    );
    assert_eq!(s.get("root_balance"), Some(1.0));
}

/// A leaf that fills up is split on the next frame; a subtree that empties collapses into a leaf.
#[test]
fn leaves_split_when_they_fill_and_collapse_when_they_empty() {
    let mut rng = Rng::new(12);
    let sparse = uniform(&mut rng, 200, 100.0, (0.2, 0.4));
    let mut bp = KdTree::new(config(8, 32));
    let mut out = PairList::new();
    bp.find_pairs(&Frame::new(&sparse), &mut out);
    let leaves = bp.stats().get("leaves").unwrap();
    // Half the bodies crowd into one corner: that leaf overflows, and is split on the frame after.
    let mut crowded = sparse.clone();
    for b in crowded.iter_mut().step_by(2) {
        let c = b.center() * 0.05;
        *b = Aabb::from_center_radius(c, 0.05);
    }
    bp.find_pairs(&Frame::new(&crowded).with_step(1), &mut out);
    assert!(bp.stats().get("max_leaf_load").unwrap() > 8.0, "{}", bp.stats());
    assert_matches_reference(&mut bp, &Frame::new(&crowded).with_step(2), "split");
    let s = bp.stats();
    assert!(s.get("splits").unwrap() >= 1.0 && s.get("max_leaf_load").unwrap() <= 8.0, "{s}");
    assert!(s.get("collapsed").unwrap() >= 1.0, "the emptied subtrees collapse in the same frame: {s}");
    assert!(s.get("leaves").unwrap() < leaves + 20.0, "{s}");
}

/// A resize patches the tree: removed bodies leave it, added ones are placed from the root, the planes stay
/// (nothing is re-planned), and the tree is valid between the resize and the next frame.
#[test]
fn a_resize_patches_the_tree_instead_of_planning_it_anew() {
    let mut rng = Rng::new(19);
    let aabbs = uniform(&mut rng, 3000, 80.0, (0.3, 1.2));
    let mut bp = KdTree::new(config(16, 32));
    bp.find_pairs(&Frame::new(&aabbs), &mut PairList::new());
    // Every third body goes; 200 new ones come at the end.
    let mut old_to_new = vec![collide_broadphase::Resize::REMOVED; aabbs.len()];
    let mut next: Vec<Aabb> = Vec::new();
    for (i, b) in aabbs.iter().enumerate() {
        if i % 3 != 0 {
            old_to_new[i] = next.len() as u32;
            next.push(*b);
        }
    }
    next.extend(uniform(&mut rng, 200, 80.0, (0.3, 1.2)));
    bp.on_resize(&collide_broadphase::Resize { old_to_new: &old_to_new, new_len: next.len() });
    bp.validate().unwrap();
    assert_matches_reference(&mut bp, &Frame::new(&next).with_step(1), "after the resize");
    let s = bp.stats();
    assert_eq!(s.get("reinserted"), Some(200.0), "only the new bodies are placed: {s}");
    assert!(s.get("replanned_bodies").unwrap() < 300.0, "no re-plan of the tree: {s}");
}

/// A permutation (the simulation's spatial reorder) renames the items in place: the call right after it, on bodies
/// that did not move, re-places and re-plans nothing — with and without the hint — and every call answers brute
/// force's pairs (the kit checks them).
#[test]
fn a_permutation_renames_the_items_without_re_placing_a_body() {
    for hinted in [true, false] {
        let frames = permutation_frames(&mut KdTree::default(), 4000, hinted).unwrap_or_else(|f| panic!("{f}"));
        for s in &frames.after {
            assert_eq!(s.get("reinserted"), Some(0.0), "hinted {hinted}: {s}");
            assert_eq!(s.get("replanned_bodies"), Some(0.0), "hinted {hinted}: {s}");
        }
    }
}

/// The shipped parallelism (8192 items) on two threads: a scene above it runs the parallel place, write and
/// search, frame after frame, and matches the reference.
#[test]
fn a_large_scene_on_two_threads_with_the_shipped_parallelism() {
    let mut rng = Rng::new(77);
    let mut aabbs = uniform(&mut rng, 12_000, 120.0, (0.3, 1.0));
    let mut bp = KdTree::default();
    assert_eq!(bp.config().parallelism, Parallelism::default());
    on_two_threads(|| {
        for step in 0..3 {
            assert_matches_reference(&mut bp, &Frame::new(&aabbs).with_step(step), &format!("step {step}"));
            for b in &mut aabbs {
                let d = rng.unit_vector() * 0.7;
                *b = Aabb::new(b.min + d, b.max + d);
            }
        }
    });
}

#[test]
fn debug_geometry_shows_every_node_clipped_to_the_bodies() {
    let mut rng = Rng::new(4);
    let aabbs = uniform(&mut rng, 1000, 50.0, (0.2, 0.8));
    let mut bp = KdTree::new(config(8, 32));
    bp.find_pairs(&Frame::new(&aabbs), &mut PairList::new());
    let mut geometry = collide_broadphase::DebugGeometry::default();
    bp.debug_geometry(&mut geometry);
    let hull = aabbs.iter().fold(Aabb::EMPTY, |h, b| h.union(b));
    assert_eq!(geometry.boxes.len() as f64, bp.stats().get("nodes").unwrap());
    assert_eq!(geometry.boxes[0].aabb, hull, "the root's infinite region, clipped");
    assert!(geometry.boxes.iter().all(|b| hull.contains(&b.aabb) && b.aabb.is_valid()));
    let deepest = geometry.boxes.iter().map(|b| b.depth).max().unwrap();
    assert_eq!(f64::from(deepest), bp.stats().get("height").unwrap());
}

#[test]
fn params_map_to_the_config() {
    let p = collide_broadphase::Params::from_numbers(
        crate::PARAMS,
        [("max_leaf", 7.0), ("period", 0.5), ("max_ratio", 3.0), ("max_depth", 20.0)],
    )
    .unwrap();
    let c = KdTree::from_params(&p).config();
    assert_eq!((c.max_leaf, c.max_depth, c.period, c.max_ratio), (7, 20, 0.5, 3.0));
    let d = KdTree::from_params(&collide_broadphase::Params::defaults(crate::PARAMS)).config();
    assert_eq!((d.max_leaf, d.max_depth, d.period, d.max_ratio), (64, 32, 0.2, 2.0), "the study's period and ratio");
    assert_eq!(KdTree::default().name(), "kd");
}
