use crate::{Octree, OctreeConfig, Variant};
use collide_broadphase::conformance::reorder::permutation_frames;
use collide_broadphase::conformance::{
    Checker, Checks, assert_conforms, assert_conforms_with, assert_parallel_paths, pair_snapshot, snapshot_scenes,
};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Parallelism, reference_pairs};
use collide_math::{Rng, Vec3};

const VARIANTS: [Variant; 3] = [Variant::Dup, Variant::Nodup, Variant::Loose];

/// A threshold low enough that the kit's small scenes take the parallel paths and the joined subtrees (the
/// shipped [`Parallelism::default`] is tested by the tests that use `OctreeConfig::default()`).
const FORCED: Parallelism = Parallelism::with_min_work(64);

/// Run `f` on a rayon pool of two threads, so that the parallel paths run even on a one-core machine.
fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

fn make(variant: Variant, max_leaf: u32, max_depth: u32, static_split: bool) -> Box<dyn Broadphase> {
    let config = OctreeConfig {
        max_leaf,
        max_depth,
        static_split,
        static_min: 1,
        static_share: 0.0,
        parallelism: FORCED,
        ..OctreeConfig::default()
    };
    Box::new(Octree::new(variant, config))
}

/// Find `aabbs`' pairs with `bp`, check its invariants, and assert the pairs equal the brute-force reference.
fn assert_matches_reference(bp: &mut dyn Broadphase, aabbs: &[Aabb], label: &str) -> PairList {
    let (mut out, mut want) = (PairList::new(), PairList::new());
    bp.find_pairs(&Frame::new(aabbs), &mut out);
    bp.validate().unwrap();
    reference_pairs(aabbs, &mut want);
    out.sort();
    assert_eq!(out, want, "{label}");
    out
}

#[test]
fn conforms_with_default_parameters() {
    assert_conforms(|| Box::new(Octree::dup()));
    assert_conforms(|| Box::new(Octree::nodup()));
    assert_conforms(|| Box::new(Octree::loose()));
}

/// Every parallel section of each variant runs, and answers right, both with the threshold forced to 0 over the
/// whole kit and at the shipped threshold over the kit's 12 000-body sequence (moving, resized, mostly resting):
/// the subtree builds and their join, the variant's pair search, and the moving bodies' walk of the static tree.
#[test]
fn every_parallel_path_runs_under_the_kit_and_at_the_shipped_threshold() {
    for v in VARIANTS {
        let search = match v {
            Variant::Dup => "octree-dup pairs",
            Variant::Nodup => "octree-nodup pairs",
            Variant::Loose => "octree-loose pairs",
        };
        let make = move || -> Box<dyn Broadphase> { Box::new(Octree::new(v, OctreeConfig::default())) };
        assert_parallel_paths(&make, &["octree subtree build", "octree join", search, "octree walk"]);
    }
}

/// Split on (`static_min` 1 and `static_share` 0, so that even the small scenes build a static tree and walk it
/// with their moving bodies, e.g. the kit's partly resting sequence) and off.
#[test]
fn conforms_with_small_leaves_and_depths_split_on_and_off() {
    // Small leaves force deep splitting; depth 0 and 1 force the "too full but cannot split" paths. A tree of one
    // leaf (depth 0) cannot keep far bodies apart from the others: nodup's strips, sized by the widest box of the
    // leaf, then sweep everything; the far-outlier cost is checked for every other depth.
    on_two_threads(|| {
        for v in VARIANTS {
            for (leaf, depth) in [(1, 10), (2, 4), (4, 12), (1, 0), (3, 1), (8, 20)] {
                let checks = Checks { outlier_cost: depth > 0, ..Checks::ALL };
                for split in [true, false] {
                    assert_conforms_with(|| make(v, leaf, depth, split), checks);
                }
            }
        }
    });
}

#[test]
fn conforms_with_default_tuning_split_on_and_off() {
    on_two_threads(|| {
        for v in VARIANTS {
            for split in [true, false] {
                assert_conforms(|| make(v, 32, 10, split));
            }
        }
    });
}

#[test]
fn conforms_with_other_looseness_split_on_and_off() {
    for looseness in [1.0, 1.5, 4.0] {
        for static_split in [true, false] {
            let config = OctreeConfig {
                max_leaf: 2,
                looseness,
                static_split,
                static_min: 1,
                static_share: 0.0,
                parallelism: FORCED,
                ..OctreeConfig::default()
            };
            on_two_threads(|| assert_conforms(|| Box::new(Octree::new(Variant::Loose, config))));
        }
    }
}

#[test]
fn snapshots_of_small_scenes() {
    for v in VARIANTS {
        for scene in snapshot_scenes() {
            let name = format!("{}-{}", v.name(), scene.name);
            insta::assert_snapshot!(name, pair_snapshot(&mut Octree::new(v, OctreeConfig::default()), scene.name));
        }
    }
}

/// 90% of bodies at rest, some of them starting and stopping, all checked against the reference and
/// `validate()` every frame: the static tree, its cached pairs, stale entries and rebuilds all get exercised.
#[test]
fn static_dynamic_split_stays_correct_as_bodies_start_and_stop() {
    for v in VARIANTS {
        let mut rng = Rng::new(77);
        let n = 600;
        let mut center: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(40.0))).collect();
        let half: Vec<f32> = (0..n).map(|_| rng.range_f32(0.3, 1.5)).collect();
        let mut moving: Vec<bool> = (0..n).map(|i| i % 10 == 0).collect();
        let mut bp = make(v, 4, 10, true);
        let mut checker = Checker::default();
        let mut aabbs = Vec::new();
        let mut rebuilds = 0;
        for frame in 0..120u64 {
            if frame > 0 {
                for i in 0..n {
                    if moving[i] {
                        center[i] += rng.unit_vector() * 0.6;
                    }
                }
                // Every few frames some bodies start moving and some stop.
                if frame % 7 == 0 {
                    for _ in 0..30 {
                        let i = rng.below(n as u32) as usize;
                        moving[i] = !moving[i];
                    }
                }
            }
            aabbs.clear();
            aabbs.extend(center.iter().zip(&half).map(|(&c, &h)| Aabb::from_center_radius(c, h)));
            if let Err(f) = checker.check(bp.as_mut(), &Frame::new(&aabbs).with_step(frame), "ninety-percent-rest") {
                panic!("{}: {f}", v.name());
            }
            let stats = bp.stats();
            rebuilds += stats.get("static_rebuilt").unwrap() as u32;
            if frame > 2 {
                let resting = moving.iter().filter(|m| !**m).count() as f64;
                assert!(stats.get("static_bodies").unwrap() >= resting * 0.7, "{}: static set too small", v.name());
            }
        }
        assert!(rebuilds >= 2, "{}: the static tree was rebuilt only {rebuilds} times", v.name());
    }
}

/// A permutation (the simulation's spatial reorder) renames the static/dynamic split in place: the call right
/// after it, on bodies that did not move, finds the resting bodies still known (after a reset every body would
/// count as moving, none static) and does what the call on unmoved bodies without a permutation did — there,
/// every body at rest, the tree is rebuilt with them all — with and without the hint, for every variant; every
/// call answers brute force's pairs (the kit checks them).
#[test]
fn a_permutation_keeps_the_static_tree() {
    for v in VARIANTS {
        for hinted in [true, false] {
            let mut bp = Octree::new(v, OctreeConfig::default());
            let frames = permutation_frames(&mut bp, 4000, hinted).unwrap_or_else(|f| panic!("{}: {f}", v.name()));
            let label = format!("{}, hinted {hinted}", v.name());
            assert!(frames.unpermuted.get("static_bodies").unwrap() > 3000.0, "{label}: {}", frames.unpermuted);
            for s in &frames.after {
                assert_eq!(s.get("static_rebuilt"), frames.unpermuted.get("static_rebuilt"), "{label}: {s}");
                assert!(s.get("static_bodies").unwrap() > 3000.0, "{label}: the resting bodies stay static: {s}");
            }
        }
    }
}

#[test]
fn all_bodies_at_one_point_terminate_with_every_pair() {
    for v in VARIANTS {
        let aabbs = vec![Aabb::from_center_radius(Vec3::splat(3.0), 0.0); 200];
        let mut bp = make(v, 1, 20, true);
        let mut out = PairList::new();
        bp.find_pairs(&Frame::new(&aabbs), &mut out);
        assert_eq!(out.len(), 200 * 199 / 2, "{}", v.name());
        bp.validate().unwrap();
        let depth = bp.stats().get("depth").unwrap();
        assert!(depth <= 20.0, "{}: depth {depth}", v.name());
    }
}

/// nodup's sweeps buffer the pairs they find and flush between scans; a scan that keeps more pairs than the
/// buffer has room for (1024, flushed at half) takes a slower path. Here one body overlaps 2000 others in a
/// slab–layer sweep, and 1500 coincident bodies make one leaf sweep whose first scans keep up to 1499 pairs.
#[test]
fn scans_longer_than_the_pair_buffer_match_the_reference() {
    let mut rng = Rng::new(5);
    let mut big: Vec<Aabb> = (0..2000)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(100.0)), rng.range_f32(0.1, 0.5)))
        .collect();
    big.push(Aabb::new(Vec3::splat(-1.0), Vec3::splat(101.0)));
    let point = vec![Aabb::from_center_radius(Vec3::splat(3.0), 0.0); 1500];
    for aabbs in [big, point] {
        for v in VARIANTS {
            let mut bp = make(v, 32, 10, false);
            assert_matches_reference(&mut *bp, &aabbs, &format!("{} with {} bodies", v.name(), aabbs.len()));
        }
    }
}

#[test]
fn body_larger_than_the_root_and_far_coordinates() {
    for v in VARIANTS {
        let mut rng = Rng::new(5);
        let shift = Vec3::new(3.0e5, -2.0e5, 1.0e5);
        let mut aabbs: Vec<Aabb> = (0..300)
            .map(|_| Aabb::from_center_radius(shift + rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), 0.7))
            .collect();
        aabbs.insert(150, Aabb::new(shift - Vec3::splat(1.0e4), shift + Vec3::splat(1.0e4)));
        let mut bp = make(v, 2, 12, true);
        let out = assert_matches_reference(&mut *bp, &aabbs, v.name());
        // The huge body pairs with every other one.
        assert_eq!(out.iter().filter(|p| p.a == 150 || p.b == 150).count(), 300);
    }
}

#[test]
fn stats_count_what_the_tree_did() {
    // 8 unit boxes, one per octant of [0, 4]³, far apart, plus one box across the centre.
    let mut aabbs: Vec<Aabb> = (0..8)
        .map(|k| {
            let c = Vec3::new(
                (k & 1) as f32 * 3.0 + 0.5,
                ((k >> 1) & 1) as f32 * 3.0 + 0.5,
                ((k >> 2) & 1) as f32 * 3.0 + 0.5,
            );
            Aabb::from_center_radius(c, 0.5)
        })
        .collect();
    aabbs.push(Aabb::from_center_radius(Vec3::splat(2.0), 0.25));
    let mut out = PairList::new();

    let mut dup = make(Variant::Dup, 1, 1, false);
    dup.find_pairs(&Frame::new(&aabbs), &mut out);
    let s = dup.stats();
    assert_eq!(out.len(), 0);
    assert_eq!(s.get("nodes"), Some(9.0), "{s}");
    assert_eq!(s.get("leaves"), Some(8.0));
    assert_eq!(s.get("depth"), Some(1.0));
    // The centre box touches all 8 leaves: 7 extra references, 2 bodies in every leaf.
    assert_eq!(s.get("dup_refs"), Some(7.0));
    assert_eq!(s.get("max_leaf_load"), Some(2.0));
    assert_eq!(s.get("mean_leaf_load"), Some(2.0));
    assert_eq!(s.get("inner_bodies"), Some(0.0));
    // Every leaf's two boxes are apart on x, so the leaf sweep (items sorted by min.x) makes no test at all.
    assert_eq!(s.pair_tests, 0);
    assert_eq!(s.get("dynamic_bodies"), Some(9.0));

    let mut nodup = make(Variant::Nodup, 1, 1, false);
    nodup.find_pairs(&Frame::new(&aabbs), &mut out);
    let s = nodup.stats();
    assert_eq!(s.get("inner_bodies"), Some(1.0), "{s}");
    assert_eq!(s.get("dup_refs"), Some(0.0));
    assert_eq!(s.get("max_leaf_load"), Some(1.0));
    // The straddler walks all 8 children, but the x window of each child's items excludes the corner box.
    assert_eq!(s.pair_tests, 0);

    // Ten identical boxes in one leaf: the sweep cannot prune, 45 tests, 45 pairs.
    let same = vec![Aabb::from_center_radius(Vec3::ONE, 0.5); 10];
    for v in VARIANTS {
        let mut bp = make(v, 32, 10, false);
        bp.find_pairs(&Frame::new(&same), &mut out);
        assert_eq!(out.len(), 45, "{}", v.name());
        assert_eq!(bp.stats().pair_tests, 45, "{}", v.name());
        assert_eq!(bp.stats().get("leaves"), Some(1.0), "{}", v.name());
    }

    // Static split: the second identical frame moves everything into the static tree.
    let mut split = make(Variant::Dup, 1, 1, true);
    split.find_pairs(&Frame::new(&aabbs), &mut out);
    split.find_pairs(&Frame::new(&aabbs), &mut out);
    let s = split.stats();
    assert_eq!(s.get("static_bodies"), Some(9.0), "{s}");
    assert_eq!(s.get("dynamic_bodies"), Some(0.0));
    assert_eq!(s.get("static_rebuilt"), Some(1.0));
    split.find_pairs(&Frame::new(&aabbs), &mut out);
    assert_eq!(split.stats().get("static_rebuilt"), Some(0.0));
    assert_eq!(split.stats().pair_tests, 0);
}

#[test]
fn nodup_keeps_root_straddlers_at_the_root() {
    // Every body straddles the root centre: the documented worst case, all in the root.
    let aabbs: Vec<Aabb> = (0..50).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32 * 0.01), 1.0)).collect();
    let mut bp = make(Variant::Nodup, 4, 10, false);
    let mut out = PairList::new();
    bp.find_pairs(&Frame::new(&aabbs), &mut out);
    assert_eq!(bp.stats().get("inner_bodies"), Some(50.0));
    assert_eq!(out.len(), 50 * 49 / 2);
    bp.validate().unwrap();
}

#[test]
fn params_map_to_the_config() {
    let p =
        collide_broadphase::Params::from_numbers(crate::LOOSE_PARAMS, [("max_leaf", 7.0), ("looseness", 1.5)]).unwrap();
    let o = Octree::from_params(Variant::Loose, &p);
    assert_eq!(o.config().max_leaf, 7);
    assert_eq!(o.config().max_depth, 10);
    assert_eq!(o.config().looseness, 1.5);
    assert!(o.config().static_split, "on by default");
    assert_eq!(o.name(), "octree-loose");
    for (value, on) in [(0.0, false), (1.0, true)] {
        let p = collide_broadphase::Params::from_numbers(crate::PARAMS, [("static_split", value)]).unwrap();
        assert_eq!(Octree::from_params(Variant::Dup, &p).config().static_split, on);
    }
    assert!(collide_broadphase::Params::from_numbers(crate::PARAMS, [("static_split", 0.5)]).is_err());
    assert!(collide_broadphase::Params::from_numbers(crate::PARAMS, [("static_split", 2.0)]).is_err());
}

/// A dense cloud of bodies as large as a twentieth of it: hundreds straddle every plane of the upper nodes, so
/// nodup pairs them slab by slab, and the tree is joined from eight subtrees. Moving, checked every frame.
#[test]
fn dense_clouds_match_the_reference() {
    let mut rng = Rng::new(11);
    let n = 2500;
    let mut center: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(30.0))).collect();
    let half: Vec<f32> = (0..n).map(|_| rng.range_f32(0.4, 1.2)).collect();
    for v in VARIANTS {
        for (leaf, depth) in [(32, 10), (4, 6)] {
            let mut bp = make(v, leaf, depth, false);
            let mut aabbs = Vec::new();
            for frame in 0..4 {
                aabbs.clear();
                aabbs.extend(center.iter().zip(&half).map(|(&c, &h)| Aabb::from_center_radius(c, h)));
                assert_matches_reference(&mut *bp, &aabbs, &format!("{} max_leaf {leaf} frame {frame}", v.name()));
                for c in &mut center {
                    // Shrink towards the middle: denser every frame.
                    *c = Vec3::splat(15.0) + (*c - Vec3::splat(15.0)) * 0.7;
                }
            }
            if v == Variant::Nodup {
                assert!(bp.stats().get("inner_bodies").unwrap() > 500.0, "{}", bp.stats());
            }
        }
    }
}

#[test]
fn nodup_sheets_on_the_central_planes() {
    // Three sheets of bodies crossing the root's planes: the root's slabs are cut into strips and swept against
    // the layers of the subtree; far coordinates test the strip index's rounding.
    let mut rng = Rng::new(17);
    let shift = Vec3::new(-4.0e4, 2.0e4, 7.0e3);
    let mut aabbs = Vec::new();
    for i in 0..3000 {
        let mut c = rng.point_in(Vec3::ZERO, Vec3::splat(40.0));
        c[i % 3] = 20.0 + rng.range_f32(-0.5, 0.5);
        aabbs.push(Aabb::from_center_radius(shift + c, rng.range_f32(0.3, 1.0)));
    }
    for (leaf, depth) in [(32, 10), (4, 6)] {
        let mut bp = make(Variant::Nodup, leaf, depth, false);
        assert_matches_reference(&mut *bp, &aabbs, &format!("max_leaf {leaf}"));
        assert!(bp.stats().get("inner_bodies").unwrap() > 1000.0, "{}", bp.stats());
    }
}

/// A small node whose split would keep most of its bodies stays a leaf (nodup), above `max_leaf` and below
/// `max_depth`; `validate` accepts it, and the pairs still equal the reference. A large one still splits.
#[test]
fn nodup_refuses_a_split_that_keeps_most_bodies() {
    let mut rng = Rng::new(23);
    // 200 bodies of width 1 in a cube 4 wide: more than half straddle its central planes.
    let crowd: Vec<Aabb> =
        (0..200).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(0.5), Vec3::splat(3.5)), 0.5)).collect();
    let mut bp = make(Variant::Nodup, 32, 10, false);
    assert_matches_reference(&mut *bp, &crowd, "crowd");
    assert_eq!(bp.stats().get("nodes"), Some(1.0), "{}", bp.stats());
    assert_eq!(bp.stats().get("max_leaf_load"), Some(200.0));

    // The same share of straddlers in a node above 8 × max_leaf bodies: split.
    let big: Vec<Aabb> =
        (0..400).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(0.5), Vec3::splat(3.5)), 0.5)).collect();
    let mut bp = make(Variant::Nodup, 32, 10, false);
    assert_matches_reference(&mut *bp, &big, "big");
    assert!(bp.stats().get("nodes").unwrap() > 1.0, "{}", bp.stats());
    assert!(bp.stats().get("inner_bodies").unwrap() > 200.0, "{}", bp.stats());
}

/// The moving bodies' walk of the static tree in a dense cloud with a fifth of the bodies moving: nodup's static
/// inner nodes hold hundreds of straddlers (the slab index), dup and loose leaves many bodies, and the walk runs
/// in parallel chunks (from 1024 moving bodies). Then half the bodies move and the static tree is dropped
/// (`static_share`). Every frame equals the reference.
#[test]
fn moving_bodies_in_a_dense_resting_cloud_match_the_reference() {
    let mut rng = Rng::new(23);
    let n = 6000;
    let center0: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(35.0))).collect();
    let half: Vec<f32> = (0..n).map(|_| rng.range_f32(0.3, 1.2)).collect();
    for v in VARIANTS {
        let mut bp = Octree::new(v, OctreeConfig::default());
        let mut center = center0.clone();
        let mut aabbs = Vec::new();
        for frame in 0..9 {
            let every = if frame < 6 { 5 } else { 2 };
            for c in center.iter_mut().step_by(every) {
                *c += rng.unit_vector() * 0.8;
            }
            aabbs.clear();
            aabbs.extend(center.iter().zip(&half).map(|(&c, &h)| Aabb::from_center_radius(c, h)));
            assert_matches_reference(&mut bp, &aabbs, &format!("{} frame {frame}", v.name()));
            let s = bp.stats();
            if frame == 5 {
                assert_eq!(s.get("static_bodies"), Some(4800.0), "{}: {s}", v.name());
                assert_eq!(s.get("dynamic_bodies"), Some(1200.0), "{}: {s}", v.name());
                if v == Variant::Nodup {
                    assert!(s.get("inner_bodies").unwrap() > 1000.0, "{s}");
                }
            }
        }
        let s = bp.stats();
        assert_eq!(s.get("static_bodies"), Some(0.0), "{}: half moving, no static tree: {s}", v.name());
        assert_eq!(s.get("dynamic_bodies"), Some(6000.0), "{}: {s}", v.name());
    }
}

/// A uniform cloud of `n` boxes, a tenth of them moving each frame by `step`, the rest at rest: `frames` frames.
fn resting_frames(n: usize, frames: usize, step: f32) -> Vec<Vec<Aabb>> {
    let mut rng = Rng::new(31);
    let mut center: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(40.0))).collect();
    let half: Vec<f32> = (0..n).map(|_| rng.range_f32(0.3, 1.2)).collect();
    (0..frames)
        .map(|f| {
            if f > 0 {
                for c in center.iter_mut().step_by(10) {
                    *c += rng.unit_vector() * step;
                }
            }
            center.iter().zip(&half).map(|(&c, &h)| Aabb::from_center_radius(c, h)).collect()
        })
        .collect()
}

/// The exact motion hint of `frames[f]` against `frames[f - 1]` (every body on the first frame).
fn exact_hint(frames: &[Vec<Aabb>], f: usize) -> Vec<bool> {
    match f {
        0 => vec![true; frames[0].len()],
        _ => frames[f].iter().zip(&frames[f - 1]).map(|(a, b)| !collide_broadphase::same_bits(a, b)).collect(),
    }
}

/// With an exact motion hint the split keeps the same bodies at rest as by comparing boxes, every frame equals
/// the reference, and it touches fewer bytes (n flags instead of 2n boxes). And the hint is what it reads: bodies
/// marked moved leave the static set although their boxes did not change.
#[test]
fn the_motion_hint_replaces_the_comparison() {
    let frames = resting_frames(2000, 12, 0.5);
    for v in VARIANTS {
        let config = OctreeConfig { static_min: 1, ..OctreeConfig::default() };
        let (mut hinted, mut compared) = (Octree::new(v, config), Octree::new(v, config));
        let (mut out, mut want) = (PairList::new(), PairList::new());
        for (f, aabbs) in frames.iter().enumerate() {
            let hint = exact_hint(&frames, f);
            reference_pairs(aabbs, &mut want);
            hinted.find_pairs(&Frame::new(aabbs).with_moved(&hint), &mut out);
            hinted.validate().unwrap();
            out.sort();
            assert_eq!(out, want, "{} frame {f}, hinted", v.name());
            compared.find_pairs(&Frame::new(aabbs), &mut out);
            out.sort();
            assert_eq!(out, want, "{} frame {f}, compared", v.name());
            let (h, c) = (hinted.stats(), compared.stats());
            assert_eq!(h.get("static_bodies"), c.get("static_bodies"), "{} frame {f}", v.name());
            if f >= 3 {
                assert_eq!(h.get("static_bodies"), Some(1800.0), "{} frame {f}: {h}", v.name());
                assert!(h.bytes_touched < c.bytes_touched, "{} frame {f}: {h} against {c}", v.name());
            }
        }
        // The same boxes again, every body marked moved: the hint is believed, the static set is retired.
        let last = frames.last().unwrap();
        hinted.find_pairs(&Frame::new(last).with_moved(&vec![true; last.len()]), &mut out);
        assert_eq!(hinted.stats().get("dynamic_bodies"), Some(2000.0), "{}", v.name());
        out.sort();
        assert_eq!(out, want, "{}", v.name());
        hinted.validate().unwrap();
    }
}

/// `work` and `bytes_touched` are counted where the work is done: more bodies, more of both; a frame where most
/// bodies rest costs less than a full rebuild of the same bodies.
#[test]
fn work_and_bytes_grow_with_the_scene() {
    let small = &resting_frames(500, 1, 0.5)[0];
    let large = &resting_frames(5000, 1, 0.5)[0];
    for v in VARIANTS {
        let mut out = PairList::new();
        let mut measure = |aabbs: &[Aabb]| {
            let mut bp = make(v, 32, 10, false);
            bp.find_pairs(&Frame::new(aabbs), &mut out);
            bp.stats()
        };
        let (s, l) = (measure(small), measure(large));
        assert!(s.work > small.len() as u64, "{}: {s}", v.name());
        assert!(s.bytes_touched > small.len() as u64 * 28, "{}: {s}", v.name());
        assert!(l.work > 5 * s.work && l.bytes_touched > 5 * s.bytes_touched, "{}: {s} then {l}", v.name());
        assert!(l.pair_tests > 5 * s.pair_tests, "{}: {s} then {l}", v.name());
    }
    let frames = resting_frames(5000, 6, 0.5);
    for v in VARIANTS {
        let mut bp = Octree::new(v, OctreeConfig { static_min: 1, ..OctreeConfig::default() });
        let mut out = PairList::new();
        let mut rebuild = Octree::new(v, OctreeConfig { static_split: false, ..OctreeConfig::default() });
        for aabbs in &frames {
            bp.find_pairs(&Frame::new(aabbs), &mut out);
            rebuild.find_pairs(&Frame::new(aabbs), &mut out);
        }
        let (split, full) = (bp.stats(), rebuild.stats());
        assert_eq!(split.get("static_rebuilt"), Some(0.0), "{}: {split}", v.name());
        assert!(
            split.work < full.work && split.bytes_touched < full.bytes_touched,
            "{}: {split} against {full}",
            v.name()
        );
    }
}
