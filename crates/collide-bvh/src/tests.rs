use crate::{DynamicBvh, DynamicConfig, LbvhConfig, LinearBvh};
use collide_broadphase::conformance::reorder::permutation_frames;
use collide_broadphase::conformance::{assert_conforms, pair_snapshot, snapshot_scenes};
use collide_broadphase::{
    Aabb, Broadphase, DebugGeometry, Frame, InvalidBoxes, PairList, Parallelism, Resize, Stats, reference_pairs,
};
use collide_math::{Rng, Vec3};

/// A threshold low enough that the kit's small scenes take the parallel paths (the shipped
/// [`Parallelism::default`] is what the default-tuned tests and the warm-allocation tests run).
const FORCED: Parallelism = Parallelism::with_min_work(16);

fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

/// The pairs of the usable boxes of `aabbs` (an unusable box overlaps nothing), sorted: the independent answer.
fn reference(aabbs: &[Aabb]) -> PairList {
    let valid: Vec<Aabb> = aabbs
        .iter()
        .map(|b| if b.is_valid() { *b } else { Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)) })
        .collect();
    let mut want = PairList::new();
    reference_pairs(&valid, &mut want);
    want
}

/// Run `bp` on `frame`, check its invariants, and assert its pairs are the reference's; returns its stats.
fn check(bp: &mut dyn Broadphase, frame: &Frame<'_>, label: &str) -> Stats {
    let mut out = PairList::new();
    bp.find_pairs(frame, &mut out);
    if let Err(e) = bp.validate() {
        panic!("{label}: validate: {e}");
    }
    out.sort();
    assert_eq!(out, reference(frame.aabbs), "{label}");
    bp.stats()
}

/// `n` cubes of half edge 0.5 uniform in a cube sized for about 2% volume fraction, each with a velocity of
/// `speed` units per call in a random direction.
fn cloud(seed: u64, n: usize, speed: f32) -> (Vec<Vec3>, Vec<Vec3>, f32) {
    let width = (n as f32 * 26.0).cbrt();
    let mut rng = Rng::new(seed);
    let centers = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(width))).collect();
    let velocities = (0..n).map(|_| rng.unit_vector() * speed).collect();
    (centers, velocities, width)
}

fn boxes_of(centers: &[Vec3]) -> Vec<Aabb> {
    centers.iter().map(|&c| Aabb::from_center_radius(c, 0.5)).collect()
}

/// Move every centre by its velocity, bouncing off the walls of `[0, width]³`.
fn advance(centers: &mut [Vec3], velocities: &mut [Vec3], width: f32) {
    for (c, v) in centers.iter_mut().zip(velocities.iter_mut()) {
        *c += *v;
        for a in 0..3 {
            if c[a] < 0.0 || c[a] > width {
                c[a] = c[a].clamp(0.0, width);
                v[a] = -v[a];
            }
        }
    }
}

fn dynamic(config: DynamicConfig) -> DynamicBvh {
    DynamicBvh::with_config(config)
}

/// The behaviour before the refit path and streaming mode: past `rebuild_share` of the bodies moving, a bulk
/// rebuild (the tests of the rebuild path run it).
fn rebuilding(rebuild_share: f32) -> DynamicConfig {
    DynamicConfig {
        rebuild_share,
        refit_max: rebuild_share,
        streaming: false,
        multiplier: 0.0,
        spread: 0.0,
        ..DynamicConfig::default()
    }
}

#[test]
fn lbvh_conforms() {
    assert_conforms(|| Box::new(LinearBvh::new()));
    on_two_threads(|| assert_conforms(|| Box::new(LinearBvh::with_config(LbvhConfig { parallelism: FORCED }))));
}

#[test]
fn bvh_dynamic_conforms_with_default_tuning() {
    assert_conforms(|| Box::new(DynamicBvh::new()));
    on_two_threads(|| {
        assert_conforms(|| Box::new(dynamic(DynamicConfig { parallelism: FORCED, ..DynamicConfig::default() })))
    });
}

/// Every path of the update: never leaving the re-insertions after the second call (`rebuild_share` 1: every
/// move re-inserted, the teleporting sequence included), always rebuilding (the former behaviour, 0), settling
/// after one still call (the static tree busy), no prediction (horizon 0) and a long one, the refit path on
/// every call with its queries and with its joins, and streaming on every call; serial and with the parallel
/// passes forced.
#[test]
fn bvh_dynamic_conforms_on_every_path() {
    let only = |rebuild_share| DynamicConfig {
        rebuild_share,
        refit_max: 1.0,
        stream_ratio: f32::INFINITY,
        ..DynamicConfig::default()
    };
    let variants = [
        only(1.0),
        DynamicConfig { settle: 1, horizon: 0.0, ..only(1.0) },
        DynamicConfig { settle: 3, horizon: 400.0, margin: 0.0, ..only(1.0) },
        DynamicConfig { settle: 2, ..rebuilding(0.0) },
        DynamicConfig { join_share: 1.0, ..only(0.0) },
        DynamicConfig { join_share: 0.0, settle: 2, ..only(0.0) },
        DynamicConfig { refit_max: 0.0, stream_ratio: 0.0, ..DynamicConfig::default() },
    ];
    for config in variants {
        for parallelism in [Parallelism::SERIAL, FORCED] {
            let config = DynamicConfig { parallelism, ..config };
            on_two_threads(|| assert_conforms(|| Box::new(dynamic(config))));
        }
    }
}

#[test]
fn snapshots_of_small_scenes() {
    for scene in snapshot_scenes() {
        let lbvh = pair_snapshot(&mut LinearBvh::new(), scene.name);
        insta::assert_snapshot!(format!("lbvh-{}", scene.name), lbvh);
        let dynamic = pair_snapshot(&mut DynamicBvh::new(), scene.name);
        insta::assert_snapshot!(format!("bvh-dynamic-{}", scene.name), dynamic);
    }
}

/// Slow coherent motion (the `slow` scene's regime, scaled down): after the second call no frame rebuilds, only
/// a few bodies a frame are re-inserted, the cache holds every pair and more, rotations happen, and the tree
/// stays shallow. Every frame equals the reference and validates.
#[test]
fn slow_motion_reinserts_few_bodies_and_never_rebuilds() {
    let n = 3000;
    let (mut centers, mut velocities, width) = cloud(5, n, 0.01);
    let mut bp = DynamicBvh::new();
    let (mut reinserted, mut rotations) = (0.0, 0.0);
    for frame in 0..200 {
        let aabbs = boxes_of(&centers);
        let s = check(&mut bp, &Frame::new(&aabbs), &format!("frame {frame}"));
        let rebuilt = s.get("rebuilt").unwrap();
        assert_eq!(rebuilt, if frame < 2 { 1.0 } else { 0.0 }, "frame {frame}: {s}");
        if frame >= 2 {
            reinserted += s.get("reinserted").unwrap();
            rotations += s.get("rotations").unwrap();
            assert!(s.get("cached_pairs").unwrap() >= s.get("new_pairs").unwrap());
            assert!(s.get("height").unwrap() < 3.0 * (n as f64).log2(), "{s}");
        }
        advance(&mut centers, &mut velocities, width);
    }
    let per_frame = reinserted / 198.0;
    assert!(per_frame > 0.0 && per_frame < 0.05 * n as f64, "{per_frame} re-insertions a frame");
    assert!(rotations > 0.0);
}

/// The tour's `grow` phase: small bodies fast enough to leave their fat boxes every call (so every call is a bulk
/// rebuild) beside every tenth body 8× larger, slow for its size. Rebuilding back to back, the large bodies get
/// no reach either: the cache stays within twice the answer (with reaches it was 8× at 10⁵ bodies, ~150 ms a
/// frame against sap's 25).
#[test]
fn back_to_back_rebuilds_keep_the_cache_near_the_answer() {
    let n = 3000;
    let (mut centers, mut velocities, width) = cloud(21, n, 0.15);
    let radius = |i: usize| if i.is_multiple_of(10) { 4.0 } else { 0.5 };
    let mut bp = dynamic(rebuilding(0.04));
    for frame in 0..12 {
        let aabbs: Vec<Aabb> =
            centers.iter().enumerate().map(|(i, &c)| Aabb::from_center_radius(c, radius(i))).collect();
        let s = check(&mut bp, &Frame::new(&aabbs), &format!("frame {frame}"));
        assert_eq!(s.get("rebuilt"), Some(1.0), "frame {frame}: {s}");
        let (cached, answer) = (s.get("cached_pairs").unwrap(), reference(&aabbs).len() as f64);
        if frame >= 3 {
            assert!(cached <= 2.0 * answer, "frame {frame}: {cached} cached pairs for {answer} overlapping ones");
        }
        advance(&mut centers, &mut velocities, width);
    }
}

/// The tour's `cluster` phase: a dense crowd at a speed near the reach threshold, so that the faster half leaves
/// its fat boxes every call or two and every other call is a bulk rebuild. Rebuilding every other call, the slower
/// half gets no reach either: the cache stays within twice the answer.
#[test]
fn rebuilds_every_other_call_keep_the_cache_near_the_answer() {
    let n = 3000;
    let (mut centers, mut velocities, _) = cloud(29, n, 0.043);
    let width = 16.0;
    for c in &mut centers {
        *c *= width / (n as f32 * 26.0).cbrt();
    }
    let mut bp = dynamic(rebuilding(0.04));
    let mut rebuilds = 0.0;
    for frame in 0..40 {
        let aabbs = boxes_of(&centers);
        let s = check(&mut bp, &Frame::new(&aabbs), &format!("frame {frame}"));
        let (cached, answer) = (s.get("cached_pairs").unwrap(), reference(&aabbs).len() as f64);
        if frame >= 10 {
            rebuilds += s.get("rebuilt").unwrap();
            assert!(cached <= 2.0 * answer, "frame {frame}: {cached} cached pairs for {answer} overlapping ones; {s}");
        }
        advance(&mut centers, &mut velocities, width);
    }
    assert!(rebuilds >= 10.0, "{rebuilds} rebuilds in 30 calls");
}

/// The tour's `rest` phase: 90% of the bodies at rest (they settle into the static tree), the other 10% too
/// fast for a reach, so more than `rebuild_share` of the bodies leave their fat boxes every call and every call
/// rebuilds. Those rebuilds keep the static tree and its pairs: each costs under a third of the box tests of the
/// full rebuild that settled the resting bodies (before, every call rebuilt both trees: as many tests, ~30 ms a
/// frame at 10⁵ bodies beside the octree's 5). Every frame checked against brute force, serial and parallel.
#[test]
fn rebuilds_among_resting_bodies_keep_the_static_tree() {
    let n = 3000;
    for parallelism in [Parallelism::default(), FORCED] {
        let (mut centers, mut velocities, width) = cloud(23, n, 0.3);
        for v in velocities.iter_mut().skip(n / 10) {
            *v = Vec3::ZERO;
        }
        let config = DynamicConfig { settle: 4, parallelism, ..rebuilding(0.04) };
        let mut bp = dynamic(config);
        let mut previous: Vec<Aabb> = Vec::new();
        let mut full_rebuild_tests = None;
        for frame in 0..30 {
            let aabbs = boxes_of(&centers);
            let moved: Vec<bool> = if previous.is_empty() {
                vec![true; n]
            } else {
                aabbs.iter().zip(&previous).map(|(a, b)| !collide_broadphase::same_bits(a, b)).collect()
            };
            let label = format!("{parallelism:?}, frame {frame}");
            let s = check(&mut bp, &Frame::new(&aabbs).with_moved(&moved), &label);
            assert_eq!(s.get("rebuilt"), Some(1.0), "{label}: {s}");
            if full_rebuild_tests.is_none() && s.get("static_bodies") == Some(0.9 * n as f64) {
                full_rebuild_tests = Some(s.pair_tests);
            } else if let Some(full) = full_rebuild_tests {
                assert_eq!(s.get("static_bodies"), Some(0.9 * n as f64), "{label}: {s}");
                assert!(3 * s.pair_tests < full, "{label}: {} tests, the full rebuild {full}", s.pair_tests);
            }
            previous = aabbs;
            advance(&mut centers, &mut velocities, width);
        }
        assert!(full_rebuild_tests.is_some(), "{parallelism:?}: the resting bodies never settled");
    }
}

/// Teleporting bodies: every frame moves everything, so after the two first calls every call streams (and the
/// streaming tree, degraded by every call's teleports, is rebuilt at least every other call); with streaming off
/// every call is a bulk rebuild. Both stay right.
#[test]
fn fast_motion_streams_every_frame() {
    for streaming in [true, false] {
        let mut rng = Rng::new(9);
        let mut bp = dynamic(DynamicConfig { streaming, ..DynamicConfig::default() });
        let mut rebuilds = 0.0;
        for frame in 0..20 {
            let aabbs: Vec<Aabb> =
                (0..800).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(30.0)), 0.6)).collect();
            let s = check(&mut bp, &Frame::new(&aabbs), &format!("streaming {streaming}, frame {frame}"));
            assert_eq!(s.get("reinserted"), Some(0.0));
            let streamed = s.get("streamed").unwrap();
            rebuilds += s.get("rebuilt").unwrap();
            if frame >= 2 {
                assert_eq!(streamed, if streaming { 1.0 } else { 0.0 }, "frame {frame}: {s}");
            }
            if !streaming {
                assert_eq!(s.get("rebuilt"), Some(1.0), "{s}");
            }
        }
        assert!(rebuilds >= 10.0, "streaming {streaming}: {rebuilds} rebuilds");
    }
}

/// With the exact motion hint, bodies at rest settle into the static tree after `settle` calls; a settled body
/// that starts moving goes back to the dynamic tree; without the hint nothing settles. Both through the
/// incremental path (`rebuild_share` 1) and through a bulk rebuild every call (0). Every frame is checked.
#[test]
fn resting_bodies_settle_into_the_static_tree_with_the_hint() {
    let n = 1000;
    for (hinted, rebuild_share) in [(true, 1.0), (false, 1.0), (true, 0.0), (false, 0.0)] {
        let (mut centers, mut velocities, width) = cloud(12, n, 0.05);
        for v in velocities.iter_mut().skip(100) {
            *v = Vec3::ZERO; // 90% at rest
        }
        let config = DynamicConfig { settle: 5, ..rebuilding(rebuild_share) };
        let mut bp = dynamic(config);
        let mut previous: Vec<Aabb> = Vec::new();
        for frame in 0..40 {
            if frame == 25 {
                velocities[500] = Vec3::X * 0.3; // a settled body starts moving
            }
            let aabbs = boxes_of(&centers);
            let moved: Vec<bool> = if previous.is_empty() {
                vec![true; n]
            } else {
                aabbs.iter().zip(&previous).map(|(a, b)| !collide_broadphase::same_bits(a, b)).collect()
            };
            let f = Frame::new(&aabbs);
            let f = if hinted { f.with_moved(&moved) } else { f };
            let s = check(&mut bp, &f, &format!("hinted {hinted}, rebuild_share {rebuild_share}, frame {frame}"));
            let statics = s.get("static_bodies").unwrap();
            if !hinted {
                assert_eq!(statics, 0.0, "frame {frame}: {s}");
            } else if frame == 20 {
                assert_eq!(statics, 900.0, "frame {frame}: {s}");
            } else if frame == 30 {
                assert_eq!(statics, 899.0, "frame {frame}: the moving body left: {s}");
            }
            previous = aabbs;
            advance(&mut centers, &mut velocities, width);
        }
    }
}

/// Invalid boxes (NaN, infinite, inverted) overlap nothing and do not disturb the others, in both algorithms,
/// through frames where bodies become invalid and valid again (with and without the motion hint); huge finite
/// coordinates stay correct.
#[test]
fn invalid_boxes_overlap_nothing_and_huge_boxes_count() {
    let (centers, _, _) = cloud(3, 600, 0.0);
    let base = boxes_of(&centers);
    let inverted = Aabb::new(Vec3::new(9.0, 0.0, 0.0), Vec3::new(1.0, 40.0, 40.0));
    let nan = Aabb::new(Vec3::new(f32::NAN, 1.0, 1.0), Vec3::splat(2.0));
    let infinite = Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY));
    let huge = Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30));
    let far = Aabb::from_center_radius(Vec3::splat(3.0e38), 1.0e37);
    let quiet = |rebuild_share| DynamicConfig { rebuild_share, ..DynamicConfig::default() };
    let contenders: [(&str, Box<dyn Broadphase>); 3] = [
        ("lbvh", Box::new(LinearBvh::default())),
        ("bvh-dynamic", Box::new(dynamic(quiet(1.0)))),
        ("bvh-dynamic-rebuilding", Box::new(dynamic(quiet(0.0)))),
    ];
    for (name, mut bp) in contenders {
        for hinted in [false, true] {
            bp.reset();
            let mut previous: Vec<Aabb> = Vec::new();
            for frame in 0..8 {
                let mut aabbs = base.clone();
                // A few bodies invalid, which ones changing from frame to frame; huge and far ones throughout.
                for (k, bad) in [inverted, nan, infinite].iter().enumerate() {
                    aabbs[(frame * 7 + k * 101) % 600] = *bad;
                }
                aabbs[3] = huge;
                aabbs[4] = far;
                if frame % 2 == 1 {
                    // Inverted on x but inside body 10's fat box: a containment test alone would keep it.
                    let b = base[10];
                    aabbs[10] = Aabb::new(Vec3::new(b.max.x, b.min.y, b.min.z), Vec3::new(b.min.x, b.max.y, b.max.z));
                }
                let moved: Vec<bool> = if previous.len() == aabbs.len() {
                    aabbs.iter().zip(&previous).map(|(a, b)| !collide_broadphase::same_bits(a, b)).collect()
                } else {
                    vec![true; aabbs.len()]
                };
                let f = Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::OverlapNothing);
                let f = if hinted { f.with_moved(&moved) } else { f };
                let s = check(bp.as_mut(), &f, &format!("{name}, hinted {hinted}, frame {frame}"));
                assert!(s.pair_tests > 0);
                previous = aabbs;
            }
        }
    }
}

#[test]
#[should_panic(expected = "body 7: ")]
fn an_invalid_box_panics_naming_the_body_when_asked_lbvh() {
    let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 1.0); 10];
    aabbs[7] = Aabb::new(Vec3::ONE, Vec3::ZERO);
    let mut bp = LinearBvh::default();
    bp.find_pairs(&Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::Panic), &mut PairList::new());
}

#[test]
#[should_panic(expected = "body 7: ")]
fn an_invalid_box_panics_naming_the_body_when_asked_dynamic() {
    let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 1.0); 10];
    let mut bp = dynamic(DynamicConfig::default());
    let panic = InvalidBoxes::Panic;
    bp.find_pairs(&Frame::new(&aabbs).with_invalid_boxes(panic), &mut PairList::new());
    aabbs[7].max.y = f32::NAN;
    bp.find_pairs(&Frame::new(&aabbs).with_invalid_boxes(panic), &mut PairList::new());
}

/// Bodies removed and added: a small batch is patched into the trees and the cache (no rebuild next call), a
/// large one rebuilds; both stay right. Removed bodies' leaves are gone (validate counts them), renumbered
/// bodies keep their pairs.
#[test]
fn resizes_patch_small_batches_and_rebuild_large_ones() {
    let (mut centers, mut velocities, width) = cloud(21, 2000, 0.02);
    let mut bp = DynamicBvh::new();
    for frame in 0..6 {
        check(&mut bp, &Frame::new(&boxes_of(&centers)), &format!("warm-up {frame}"));
        advance(&mut centers, &mut velocities, width);
    }
    let mut rng = Rng::new(4);
    for (round, (remove, add)) in [(10, 5), (0, 30), (25, 0), (800, 900)].into_iter().enumerate() {
        let n = centers.len();
        // Remove `remove` bodies (the last ones move into their slots), then append `add`.
        let mut old_to_new: Vec<u32> = (0..n as u32).collect();
        for _ in 0..remove {
            let i = rng.below(centers.len() as u32) as usize;
            let last = centers.len() - 1;
            centers.swap_remove(i);
            velocities.swap_remove(i);
            let from = old_to_new.iter().position(|&x| x == last as u32).unwrap();
            let gone = old_to_new.iter().position(|&x| x == i as u32).unwrap();
            old_to_new[gone] = Resize::REMOVED;
            if from != gone {
                old_to_new[from] = i as u32;
            }
        }
        for _ in 0..add {
            centers.push(rng.point_in(Vec3::ZERO, Vec3::splat(width)));
            velocities.push(rng.unit_vector() * 0.02);
        }
        let resize = Resize { old_to_new: &old_to_new, new_len: centers.len() };
        resize.check().unwrap();
        bp.on_resize(&resize);
        bp.validate().unwrap();
        let s = check(&mut bp, &Frame::new(&boxes_of(&centers)), &format!("round {round}"));
        let large = remove + add > centers.len() / 4;
        assert_eq!(s.get("rebuilt"), Some(if large { 1.0 } else { 0.0 }), "round {round}: {s}");
        advance(&mut centers, &mut velocities, width);
        check(&mut bp, &Frame::new(&boxes_of(&centers)), &format!("round {round}, next"));
    }
}

/// A permutation (the simulation's spatial reorder) renames the trees and the cache in place: the call right after
/// it, on bodies that did not move, neither rebuilds nor re-inserts a body — with the hint the resting bodies stay
/// in the static tree — and every call answers brute force's pairs (the kit checks them).
#[test]
fn a_permutation_is_remapped_without_a_rebuild_or_a_reinsertion() {
    for hinted in [true, false] {
        let mut bp = dynamic(DynamicConfig { streaming: false, ..DynamicConfig::default() });
        let frames = permutation_frames(&mut bp, 4000, hinted).unwrap_or_else(|f| panic!("{f}"));
        for s in &frames.after {
            assert_eq!((s.get("rebuilt"), s.get("reinserted")), (Some(0.0), Some(0.0)), "hinted {hinted}: {s}");
            let statics = s.get("static_bodies").unwrap();
            assert_eq!(statics > 3000.0, hinted, "hinted {hinted}: the resting bodies stay static: {s}");
        }
    }
}

/// `warm_start` builds from the frame it is given: the next call answers right and rebuilds once with the
/// speeds it now sees, the one after is incremental.
#[test]
fn warm_start_builds_from_the_given_frame() {
    let (mut centers, mut velocities, width) = cloud(8, 1500, 0.01);
    let mut bp = DynamicBvh::new();
    let aabbs = boxes_of(&centers);
    bp.warm_start(&Frame::new(&aabbs), reference(&aabbs).as_slice());
    bp.validate().unwrap();
    for (frame, rebuilt) in [(1, 1.0), (2, 0.0), (3, 0.0)] {
        advance(&mut centers, &mut velocities, width);
        let s = check(&mut bp, &Frame::new(&boxes_of(&centers)), &format!("frame {frame}"));
        assert_eq!(s.get("rebuilt"), Some(rebuilt), "frame {frame}: {s}");
    }
}

/// `validate` sees a broken cache and a broken fat box (tests poke the private fields).
#[test]
fn validate_catches_a_wrong_cache_and_a_wrong_fat_box() {
    let (mut centers, mut velocities, width) = cloud(2, 500, 0.02);
    let mut bp = DynamicBvh::new();
    for frame in 0..4 {
        check(&mut bp, &Frame::new(&boxes_of(&centers)), &format!("frame {frame}"));
        advance(&mut centers, &mut velocities, width);
    }
    let good = bp.cache.clone();
    // A pair whose fat boxes do not overlap (bodies 0 and 1 are far apart in this cloud), then one cached twice.
    let far = (1..500).find(|&j| !bp.proxies[0].fat.overlaps(&bp.proxies[j].fat)).unwrap();
    bp.cache.push_unchecked(collide_broadphase::Pair::new(0, far as u32));
    assert!(bp.validate().is_err_and(|e| e.contains("extra")), "{:?}", bp.validate());
    bp.cache = good.clone();
    let twice = *bp.cache.iter().next().unwrap();
    bp.cache.push_unchecked(twice);
    assert!(bp.validate().is_err_and(|e| e.contains("twice")), "{:?}", bp.validate());
    bp.cache = good;
    bp.validate().unwrap();
    let fat = bp.proxies[17].fat;
    bp.proxies[17].fat.max.x += 1.0;
    assert!(bp.validate().is_err_and(|e| e.contains("body 17")), "{:?}", bp.validate());
    bp.proxies[17].fat = fat;
    bp.validate().unwrap();
}

/// The debug geometry is the trees' nodes by depth: roots at depth 0, every box inside its parent's, the leaves'
/// fat boxes around the bodies' boxes. For `lbvh`: its inner nodes, n − 1 boxes.
#[test]
fn debug_geometry_shows_the_nodes_by_depth() {
    let (centers, _, _) = cloud(6, 400, 0.0);
    let aabbs = boxes_of(&centers);
    let mut out = PairList::new();
    let mut lbvh = LinearBvh::new();
    lbvh.find_pairs(&Frame::new(&aabbs), &mut out);
    let mut g = DebugGeometry::default();
    lbvh.debug_geometry(&mut g);
    assert_eq!(g.boxes.len(), aabbs.len() - 1);
    let world = aabbs.iter().fold(Aabb::EMPTY, |u, b| u.union(b));
    assert_eq!(g.boxes.iter().filter(|b| b.depth == 0).map(|b| b.aabb).collect::<Vec<_>>(), [world]);
    assert!(g.boxes.iter().all(|b| world.contains(&b.aabb)));
    let mut dynamic = DynamicBvh::new();
    dynamic.find_pairs(&Frame::new(&aabbs), &mut out);
    g.clear();
    dynamic.debug_geometry(&mut g);
    assert_eq!(g.boxes.len(), 2 * aabbs.len() - 1, "every node of the one tree in use");
    let root = g.boxes.iter().find(|b| b.depth == 0).unwrap().aabb;
    assert!(root.contains(&world) && g.boxes.iter().all(|b| root.contains(&b.aabb)));
    assert!(g.boxes.iter().any(|b| b.depth > 8));
}

/// `lbvh`'s counters describe its tree: n − 1 nodes, a height between log₂ n and a small multiple of it, and at
/// least one test per pair.
#[test]
fn lbvh_stats_describe_the_tree() {
    let (centers, _, _) = cloud(7, 4096, 0.0);
    let aabbs = boxes_of(&centers);
    let mut bp = LinearBvh::new();
    let s = check(&mut bp, &Frame::new(&aabbs), "cloud");
    assert_eq!(s.get("leaves"), Some(4096.0));
    assert_eq!(s.get("nodes"), Some(4095.0));
    let height = s.get("height").unwrap();
    assert!((12.0..=40.0).contains(&height), "{s}");
    assert!(s.pair_tests >= reference(&aabbs).len() as u64 && s.work > 4096 && s.bytes_touched > 4096 * 24, "{s}");
}

#[test]
fn params_map_to_the_config() {
    let p = collide_broadphase::Params::from_numbers(
        crate::DYNAMIC_PARAMS,
        [("horizon", 30.0), ("margin", 0.2), ("settle", 4.0), ("rebuild_share", 0.5)],
    )
    .unwrap();
    let c = DynamicBvh::from_params(&p).config();
    assert_eq!((c.horizon, c.margin, c.settle, c.rebuild_share), (30.0, 0.2, 4, 0.5));
    let d = DynamicBvh::from_params(&collide_broadphase::Params::defaults(crate::DYNAMIC_PARAMS)).config();
    assert_eq!(d, DynamicConfig::default());
    assert_eq!(DynamicBvh::new().name(), "bvh-dynamic");
    assert_eq!(LinearBvh::new().name(), "lbvh");
}

/// Eight clusters of `per` bodies (2% volume fraction, half edge 0.5), each in a cube of width `w`, with their
/// corners `spacing` cluster widths apart: `spacing` 1000 is the `far-clusters` scene, 2 the same clusters close
/// together. The clusters' inner arrangement is the same either way, so both have the same pairs.
fn eight_clusters(per: usize, spacing: f32) -> Vec<Aabb> {
    let (centers, _, w) = cloud(21, per, 0.0);
    let mut boxes = Vec::with_capacity(8 * per);
    for corner in 0..8u32 {
        let offset = Vec3::new((corner & 1) as f32, (corner >> 1 & 1) as f32, (corner >> 2) as f32) * (spacing * w);
        boxes.extend(centers.iter().map(|&c| Aabb::from_center_radius(c + offset, 0.5)));
    }
    boxes
}

/// The lead's `far-clusters` defect: eight dense clusters at the corners of a world a thousand cluster widths
/// wide fell into a few Morton cells each, the tree over their equal codes was the tree of the body indices, and
/// both trees tested nearly every pair of each cluster (700 ms a frame at 10⁵ bodies). Now each costs at most a
/// small multiple of the box tests of the same clusters close together — the same pairs, no huge world.
#[test]
fn far_clusters_cost_what_near_clusters_cost() {
    let (far, near) = (eight_clusters(1500, 1000.0), eight_clusters(1500, 2.0));
    let tests = |bp: &mut dyn Broadphase, boxes: &[Aabb], label: &str| {
        // Three calls: the dynamic tree's first two are rebuilds, its third a frame of its own (nothing moved).
        (0..3).map(|_| check(bp, &Frame::new(boxes), label).pair_tests).sum::<u64>()
    };
    for (name, make) in [
        ("lbvh", (|| Box::new(LinearBvh::new()) as Box<dyn Broadphase>) as fn() -> Box<dyn Broadphase>),
        ("bvh-dynamic", || Box::new(DynamicBvh::new())),
    ] {
        // On two threads, at the shipped threshold: 12 000 bodies take the parallel build.
        let (far_tests, near_tests) =
            on_two_threads(|| (tests(&mut *make(), &far, name), tests(&mut *make(), &near, name)));
        assert!(
            far_tests <= 2 * near_tests,
            "{name}: {far_tests} box tests for far clusters, {near_tests} for the same clusters near each other"
        );
    }
}

/// Most bodies leaving their fat boxes each call, with streaming off and the refit path allowed up to every
/// body: every call after the first two refits the trees (no bulk rebuild unless the tree degraded), with
/// rotations, through its queries and through its joins, serial and with the parallel
/// passes forced; every call equals brute force and validates.
#[test]
fn the_refit_path_takes_calls_where_most_bodies_moved() {
    for (join_share, parallelism) in
        [(1.0, Parallelism::SERIAL), (0.0, Parallelism::SERIAL), (1.0, FORCED), (0.0, FORCED)]
    {
        let n = 2000;
        let (mut centers, mut velocities, width) = cloud(31, n, 0.2);
        let config = DynamicConfig {
            rebuild_share: 0.04,
            refit_max: 1.0,
            join_share,
            streaming: false,
            margin: 0.0,
            multiplier: 0.0,
            spread: 0.0,
            parallelism,
            ..DynamicConfig::default()
        };
        let mut bp = dynamic(config);
        let (mut refits, mut rotations) = (0.0, 0.0);
        for frame in 0..40 {
            let aabbs = boxes_of(&centers);
            let label = format!("join_share {join_share}, {parallelism:?}, frame {frame}");
            let s = on_two_threads(|| check(&mut bp, &Frame::new(&aabbs), &label));
            if frame >= 2 {
                // A refit, or a rebuild when the last refit left the tree degraded.
                let refitted = s.get("refitted").unwrap();
                assert_eq!(refitted + s.get("rebuilt").unwrap(), 1.0, "{label}: {s}");
                if refitted == 1.0 {
                    assert!(s.get("reinserted").unwrap() > 0.04 * n as f64, "{label}: {s}");
                }
                refits += refitted;
                rotations += s.get("rotations").unwrap();
            }
            advance(&mut centers, &mut velocities, width);
        }
        assert!(refits >= 30.0, "join_share {join_share}: {refits} refits in 38 calls");
        assert!(rotations > 0.0, "join_share {join_share}: no rotation");
    }
}

/// A crowd streamed while it moves fast goes back to the incremental structures once it came to rest (with the
/// motion hint at once, without it at the next probe), and then boxes bit for bit unchanged cost no tree work: no
/// re-insertion, no refit, no rebuild, no node visited.
#[test]
fn streaming_ends_at_rest_and_unchanged_boxes_cost_no_tree_work() {
    for hinted in [true, false] {
        let n = 1500;
        let (mut centers, mut velocities, width) = cloud(37, n, 0.6);
        let mut bp = DynamicBvh::new();
        let mut previous: Vec<Aabb> = Vec::new();
        let mut streamed = 0.0;
        let frames = 40 + crate::stream::PROBE as usize;
        for frame in 0..frames {
            if frame == 12 {
                velocities.iter_mut().for_each(|v| *v = Vec3::ZERO);
            }
            let aabbs = boxes_of(&centers);
            let moved: Vec<bool> = aabbs
                .iter()
                .enumerate()
                .map(|(i, a)| previous.get(i).is_none_or(|b| !collide_broadphase::same_bits(a, b)))
                .collect();
            let f = Frame::new(&aabbs);
            let f = if hinted { f.with_moved(&moved) } else { f };
            let label = format!("hinted {hinted}, frame {frame}");
            let s = check(&mut bp, &f, &label);
            if frame < 12 {
                streamed += s.get("streamed").unwrap();
            }
            // At rest since call 12: with the hint streaming ends at once (then two rebuilds, the second with
            // speeds, and one more when the crowd settles into the static tree); without it, at the next probe of
            // the incremental structures.
            if frame >= frames - 10 {
                let work: Vec<_> = ["streamed", "reinserted", "refitted", "rebuilt", "tree_visits", "new_pairs"]
                    .iter()
                    .map(|k| s.get(k).unwrap())
                    .collect();
                assert_eq!(work, vec![0.0; 6], "{label}: {s}");
            }
            previous = aabbs;
            advance(&mut centers, &mut velocities, width);
        }
        assert!(streamed >= 6.0, "hinted {hinted}: streamed {streamed} of the 12 moving calls");
    }
}

/// The same calls give the same pairs in the same order on 1, 2 and 4 threads, on every path (streaming,
/// refit with queries, refit with joins, re-insertions), with the parallel passes forced and as shipped.
#[test]
fn every_path_is_deterministic_across_thread_counts() {
    let configs = [
        DynamicConfig::default(),
        DynamicConfig { refit_max: 1.0, stream_ratio: f32::INFINITY, join_share: 1.0, ..DynamicConfig::default() },
        DynamicConfig { refit_max: 1.0, stream_ratio: f32::INFINITY, join_share: 0.0, ..DynamicConfig::default() },
    ];
    for config in configs {
        for parallelism in [Parallelism::default(), FORCED] {
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
                pool.install(|| {
                    let (mut centers, mut velocities, width) = cloud(41, 3000, 0.15);
                    let mut bp = dynamic(DynamicConfig { parallelism, ..config });
                    let mut all = Vec::new();
                    for _ in 0..25 {
                        let aabbs = boxes_of(&centers);
                        let mut out = PairList::new();
                        bp.find_pairs(&Frame::new(&aabbs), &mut out);
                        all.push(out.as_mut_vec().clone());
                        advance(&mut centers, &mut velocities, width);
                    }
                    all
                })
            };
            let one = run(1);
            assert_eq!(one, run(2), "{config:?}");
            assert_eq!(one, run(4), "{config:?}");
        }
    }
}

/// A permutation in streaming mode renames the streaming tree's leaves in place: the calls after it keep
/// streaming (no reset to the incremental structures) and answer brute force's pairs (the kit checks them).
/// Without the motion hint: the kit's bodies rest after the permutation, and with the hint rest ends streaming.
#[test]
fn a_permutation_while_streaming_renames_the_streaming_tree() {
    for hinted in [false] {
        let mut bp = dynamic(DynamicConfig { refit_max: 0.0, stream_ratio: 0.0, ..DynamicConfig::default() });
        let frames = permutation_frames(&mut bp, 4000, hinted).unwrap_or_else(|f| panic!("{f}"));
        for s in &frames.after {
            assert_eq!(s.get("streamed"), Some(1.0), "hinted {hinted}: {s}");
        }
        bp.validate().unwrap();
    }
}

/// A fresh dynamic tree is cheap for a few calls (nobody has left a fat box yet) and says so through
/// `settling_calls`, boxed as the meta-broadphase holds it: in a moving cloud its calls from the second to the
/// last settling one do less work than its calls after them.
#[test]
fn a_fresh_dynamic_tree_is_cheap_for_its_settling_calls_and_says_so() {
    use crate::dynamic::SETTLING_CALLS;
    let boxed: Box<dyn Broadphase> = Box::new(DynamicBvh::new());
    assert_eq!(boxed.settling_calls(), SETTLING_CALLS);
    let lbvh: Box<dyn Broadphase> = Box::new(LinearBvh::new());
    assert_eq!(lbvh.settling_calls(), 1, "rebuilt every call: settled at once");

    let n = 3000;
    let (mut centers, mut velocities, width) = cloud(11, n, 0.05);
    let mut bp = DynamicBvh::new();
    let settle = SETTLING_CALLS as usize;
    let mut work = Vec::new();
    for frame in 0..settle + 20 {
        let aabbs = boxes_of(&centers);
        let s = check(&mut bp, &Frame::new(&aabbs), &format!("frame {frame}"));
        work.push((s.pair_tests + s.work) as f64);
        advance(&mut centers, &mut velocities, width);
    }
    // The young calls swing both ways (the cheap ones before anybody left a fat box, then the call where many
    // do at once); from the settling calls on, each call is within 2× of the later ones' mean.
    let settled = work[settle..].iter().sum::<f64>() / (work.len() - settle) as f64;
    let young = work[1..settle].iter().copied().fold(f64::INFINITY, f64::min);
    assert!(young < 0.5 * settled, "cheapest young call {young:.0} against settled {settled:.0}: {work:?}");
    assert!(work[settle..].iter().all(|&w| w < 2.0 * settled && w > 0.5 * settled), "{work:?}");
}
