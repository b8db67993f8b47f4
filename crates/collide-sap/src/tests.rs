//! The crate's tests: the conformance kit for every variant, insta snapshots, and SAP's own behaviour.

use crate::{MultiBoxPruning, PairCount, SortSweep, SweepAndPrune, UpdateMode};
use collide_broadphase::conformance::reorder::permutation_frames;
use collide_broadphase::conformance::{
    assert_conforms, assert_parallel_paths, check_parallel, pair_snapshot, snapshot_scenes,
};
use collide_broadphase::{Aabb, Broadphase, Frame, Pair, PairList, Resize, reference_pairs};
use collide_math::{Rng, Vec3};

/// A variant's constructor.
type Make = fn() -> Box<dyn Broadphase>;

/// Every variant under test, by a snapshot-friendly name.
fn variants() -> Vec<(&'static str, Make)> {
    vec![
        ("sap", || Box::new(SweepAndPrune::default())),
        ("sap-pure", || Box::new(SweepAndPrune::new(0.0))),
        // A budget so small that most moving frames take the rebuild path.
        ("sap-tiny-budget", || Box::new(SweepAndPrune::new(0.5))),
        ("sort-sweep", || Box::new(SortSweep::new())),
        ("mbp", || Box::new(MultiBoxPruning::new(0))),
        ("mbp-1", || Box::new(MultiBoxPruning::new(1))),
        ("mbp-7", || Box::new(MultiBoxPruning::new(7))),
        ("mbp-20", || Box::new(MultiBoxPruning::new(20))),
        ("pair-count", || Box::new(PairCount::new())),
    ]
}

#[test]
fn sap_conforms() {
    assert_conforms(|| Box::new(SweepAndPrune::default()));
}

#[test]
fn sap_without_budget_conforms() {
    assert_conforms(|| Box::new(SweepAndPrune::new(0.0)));
}

#[test]
fn sap_with_tiny_budget_conforms() {
    assert_conforms(|| Box::new(SweepAndPrune::new(0.5)));
}

#[test]
fn sort_sweep_conforms() {
    assert_conforms(|| Box::new(SortSweep::new()));
}

#[test]
fn mbp_conforms_with_auto_one_and_many_regions() {
    for regions in [0, 1, 7, 20] {
        assert_conforms(move || Box::new(MultiBoxPruning::new(regions)));
    }
}

/// Every parallel section runs, and answers right, both with the threshold forced to 0 over the whole kit and at
/// the shipped threshold over the kit's 12 000-body sequence: SAP's leave-and-gather, sort, enter and relabel (the
/// resize) and its initialisation's multi-box pruning; sort-and-sweep's chunks; multi-box pruning's regions. The
/// kit's scenes are small enough for SAP's automatic grid to be a single region, where there is nothing to run in
/// parallel: the forced run takes a grid of 4³ regions, and the automatic grid is asserted at the shipped threshold.
#[test]
fn every_parallel_path_runs_under_the_kit_and_at_the_shipped_threshold() {
    let sap = ["sap leave and gather", "sap sort", "sap enter", "sap relabel", "mbp regions"];
    let budget = SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY;
    assert_parallel_paths(&|| Box::new(SweepAndPrune::with_regions(budget, 4)), &sap);
    let auto_grid = check_parallel(&|| Box::new(SweepAndPrune::default()), 3).unwrap_or_else(|f| panic!("{f}"));
    for section in sap {
        assert!(auto_grid.shipped.iter().any(|&(s, _)| s == section), "{section}: {auto_grid:?}");
    }
    assert_parallel_paths(&|| Box::new(SortSweep::new()), &["sort-sweep"]);
    assert_parallel_paths(&|| Box::new(MultiBoxPruning::new(0)), &["mbp regions"]);
    assert_parallel_paths(&|| Box::new(MultiBoxPruning::new(7)), &["mbp regions"]);
    // Without a swap budget every frame stays incremental.
    assert_parallel_paths(&|| Box::new(SweepAndPrune::with_regions(0.0, 4)), &sap[..4]);
}

#[test]
fn pair_count_conforms() {
    assert_conforms(|| Box::new(PairCount::new()));
}

#[test]
fn snapshots_of_small_scenes() {
    for (name, make) in variants() {
        for scene in snapshot_scenes() {
            insta::assert_snapshot!(format!("{name}-{}", scene.name), pair_snapshot(make().as_mut(), scene.name));
        }
    }
}

/// `n` cubes in `[0, w]³` with velocities of `speed` per frame, as the kit's sequences move them.
struct World {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    half: f32,
    width: f32,
}

impl World {
    fn new(seed: u64, n: usize, width: f32, half: f32, speed: f32) -> Self {
        let mut rng = Rng::new(seed);
        let center = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(width))).collect();
        let velocity = (0..n).map(|_| rng.unit_vector() * speed).collect();
        Self { center, velocity, half, width }
    }

    fn step(&mut self) {
        for (c, v) in self.center.iter_mut().zip(&mut self.velocity) {
            *c += *v;
            for k in 0..3 {
                if c[k] < 0.0 || c[k] > self.width {
                    c[k] = c[k].clamp(0.0, self.width);
                    v[k] = -v[k];
                }
            }
        }
    }

    fn aabbs(&self) -> Vec<Aabb> {
        self.center.iter().map(|&c| Aabb::from_center_radius(c, self.half)).collect()
    }
}

fn sorted_pairs(bp: &mut dyn Broadphase, aabbs: &[Aabb], step: u64) -> PairList {
    let mut out = PairList::new();
    bp.find_pairs(&Frame::new(aabbs).with_step(step), &mut out);
    out.sort();
    out
}

#[test]
fn warm_start_from_known_pairs_equals_a_cold_start() {
    let mut world = World::new(11, 800, 40.0, 1.0, 0.2);
    let first = world.aabbs();
    let mut known = PairList::new();
    reference_pairs(&first, &mut known);
    assert!(known.len() > 50, "the scene must have pairs to carry over");

    // A budget above this scene's swaps (the default would send its fast frames to the rebuild path).
    let mut cold = SweepAndPrune::new(32.0);
    let mut warm = SweepAndPrune::new(32.0);
    let cold_first = sorted_pairs(&mut cold, &first, 0);
    assert_eq!(cold.last_mode(), UpdateMode::Init);
    warm.warm_start(&Frame::new(&first), known.as_slice());
    warm.validate().unwrap();
    for step in 1..40 {
        world.step();
        let aabbs = world.aabbs();
        let a = sorted_pairs(&mut cold, &aabbs, step);
        let b = sorted_pairs(&mut warm, &aabbs, step);
        assert_eq!(a, b, "step {step}");
        assert_eq!(warm.last_mode(), UpdateMode::Incremental, "a warm start continues incrementally");
        assert_eq!(cold.stats().get("swaps"), warm.stats().get("swaps"), "same arrays, same swaps");
        warm.validate().unwrap();
    }
    assert_eq!(cold_first, known);
}

#[test]
fn swaps_are_counted_per_axis() {
    // Two unit boxes apart on x; the second moves past the first on x only: its begin and end each pass both
    // endpoints of the first — four swaps on x, none on y or z.
    let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
    let b = |x: f32| Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0));
    let mut sap = SweepAndPrune::new(0.0);
    let mut out = PairList::new();
    sap.find_pairs(&Frame::new(&[a, b(3.0)]), &mut out);
    assert!(out.is_empty());
    sap.find_pairs(&Frame::new(&[a, b(-3.0)]), &mut out);
    let s = sap.stats();
    assert_eq!((s.get("swaps_x"), s.get("swaps_y"), s.get("swaps_z")), (Some(4.0), Some(0.0), Some(0.0)));
    assert_eq!(s.get("swaps"), Some(4.0));
    // Touching exactly (closed intervals): the begin of b passes the end of a, and the pair is added.
    sap.find_pairs(&Frame::new(&[a, b(1.0)]), &mut out);
    assert_eq!(out.as_slice(), &[Pair::new(0, 1)]);
    assert_eq!(sap.stats().get("pairs_added"), Some(1.0));
    assert!(sap.stats().get("swaps_x").unwrap() >= 3.0);
}

#[test]
fn slow_motion_swaps_far_less_than_fast_motion() {
    let swaps_at = |speed: f32| {
        let mut world = World::new(5, 2000, 50.0, 0.5, speed);
        let mut sap = SweepAndPrune::new(0.0);
        let mut out = PairList::new();
        let mut total = 0.0;
        for step in 0..20 {
            sap.find_pairs(&Frame::new(&world.aabbs()).with_step(step), &mut out);
            if step > 0 {
                total += sap.stats().get("swaps").unwrap();
            }
            world.step();
        }
        total
    };
    let (slow, fast) = (swaps_at(0.01), swaps_at(0.64));
    assert!(fast > 20.0 * slow, "slow {slow}, fast {fast}");
}

#[test]
fn the_swap_budget_switches_to_rebuilds_and_stays_correct() {
    let mut world = World::new(3, 600, 30.0, 0.6, 6.0);
    let mut sap = SweepAndPrune::new(4.0);
    let mut expected = PairList::new();
    let mut rebuilds = 0;
    for step in 0..30 {
        let aabbs = world.aabbs();
        let got = sorted_pairs(&mut sap, &aabbs, step);
        reference_pairs(&aabbs, &mut expected);
        assert_eq!(got, expected, "step {step}");
        sap.validate().unwrap();
        rebuilds += usize::from(sap.last_mode() == UpdateMode::Rebuild);
        assert_eq!(sap.stats().get("rebuild"), Some(f64::from(u8::from(sap.last_mode() == UpdateMode::Rebuild))));
        world.step();
    }
    assert!(rebuilds > 10, "teleport-like speeds must take the rebuild path ({rebuilds} rebuilds)");
}

#[test]
fn small_resizes_are_patched_without_a_rebuild() {
    let mut world = World::new(8, 500, 30.0, 0.8, 0.1);
    let mut sap = SweepAndPrune::new(32.0);
    let mut expected = PairList::new();
    sorted_pairs(&mut sap, &world.aabbs(), 0);
    // Remove bodies 3 and 10 (the last two take their places), add three.
    let n = world.center.len();
    let mut map: Vec<u32> = (0..n as u32).collect();
    map[3] = Resize::REMOVED;
    map[10] = Resize::REMOVED;
    map[n - 1] = 3;
    map[n - 2] = 10;
    world.center.swap_remove(10);
    world.center.swap_remove(3);
    for i in 0..3 {
        world.center.push(Vec3::new(5.0 + i as f32, 5.0, 5.0));
    }
    sap.on_resize(&Resize { old_to_new: &map, new_len: n + 1 });
    sap.validate().unwrap();
    let aabbs = world.aabbs();
    let got = sorted_pairs(&mut sap, &aabbs, 1);
    reference_pairs(&aabbs, &mut expected);
    assert_eq!(got, expected);
    assert_eq!(sap.last_mode(), UpdateMode::Incremental);
    assert_eq!(sap.stats().get("bodies_inserted"), Some(3.0));
    sap.validate().unwrap();
}

/// A permutation (the simulation's spatial reorder) renames the regions' members and the pair set: the call right
/// after it, on bodies that did not move, is incremental — no initialisation, no rebuild, no swap, no transfer —
/// with one region and with many, and every call answers brute force's pairs (the kit checks them).
#[test]
fn a_permutation_is_renamed_without_a_rebuild() {
    for regions in [0, 1] {
        let make = || SweepAndPrune::with_regions(SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY, regions);
        for hinted in [true, false] {
            let frames = permutation_frames(&mut make(), 4000, hinted).unwrap_or_else(|f| panic!("{f}"));
            for s in &frames.after {
                let counts = ["init", "rebuild", "swaps", "region_transfers", "bodies_inserted"].map(|k| s.get(k));
                assert_eq!(counts, [Some(0.0); 5], "regions {regions}, hinted {hinted}: {s}");
            }
        }
    }
}

#[test]
fn validate_catches_an_unsorted_axis_and_a_false_pair() {
    let world = World::new(9, 300, 20.0, 0.8, 0.0);
    let aabbs = world.aabbs();
    let mut sap = SweepAndPrune::default();
    sorted_pairs(&mut sap, &aabbs, 0);
    sap.validate().unwrap();
    let mut broken = sap.clone();
    broken.unsort_for_test();
    let e = broken.validate().unwrap_err();
    assert!(e.contains("axis y") && e.contains("is not sorted"), "{e}");

    let far = (0..aabbs.len() as u32)
        .flat_map(|i| (i + 1..aabbs.len() as u32).map(move |j| (i, j)))
        .find(|&(i, j)| !aabbs[i as usize].overlaps(&aabbs[j as usize]))
        .unwrap();
    let mut broken = sap.clone();
    broken.insert_pair_for_test(Pair::new(far.0, far.1));
    let e = broken.validate().unwrap_err();
    assert!(e.contains("do not overlap"), "{e}");
}

#[test]
fn sap_conforms_with_one_two_and_eight_regions_per_axis() {
    for regions in [1, 2, 8] {
        assert_conforms(move || {
            Box::new(SweepAndPrune::with_regions(SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY, regions))
        });
        assert_conforms(move || Box::new(SweepAndPrune::with_regions(0.0, regions)));
    }
}

/// Run `sap` over `steps` frames of `world`, comparing every frame with brute force and validating.
fn follow(sap: &mut SweepAndPrune, world: &mut World, steps: u64) -> (f64, f64) {
    let mut expected = PairList::new();
    let (mut transfers, mut swaps) = (0.0, 0.0);
    for step in 0..steps {
        let aabbs = world.aabbs();
        let got = sorted_pairs(sap, &aabbs, step);
        reference_pairs(&aabbs, &mut expected);
        assert_eq!(got, expected, "step {step}");
        sap.validate().unwrap_or_else(|e| panic!("step {step}: {e}"));
        if step > 0 {
            transfers += sap.stats().get("region_transfers").unwrap();
            swaps += sap.stats().get("swaps").unwrap();
        }
        world.step();
    }
    (transfers, swaps)
}

#[test]
fn bodies_crossing_region_borders_every_frame_stay_exact() {
    // Regions 5 wide, bodies 1.6 wide moving 2.5 per frame: most bodies change regions every frame, and the
    // budget is off so that every frame goes through the transfers.
    for regions in [4, 8] {
        let mut world = World::new(31, 700, 40.0, 0.8, 2.5);
        let mut sap = SweepAndPrune::with_regions(0.0, regions);
        let (transfers, _) = follow(&mut sap, &mut world, 40);
        assert_eq!(sap.region_count(), regions * regions * regions);
        assert!(transfers > 39.0 * 300.0, "{transfers} transfers");
        assert_eq!(sap.last_mode(), UpdateMode::Incremental);
    }
}

#[test]
fn a_body_spanning_many_regions_is_entered_in_each_and_reported_once() {
    // 8³ regions over [0, 40]³ and one box covering most of the world, moving through it with the others.
    let mut world = World::new(12, 400, 40.0, 0.5, 0.7);
    let mut sap = SweepAndPrune::with_regions(0.0, 8);
    let mut expected = PairList::new();
    for step in 0..30 {
        let mut aabbs = world.aabbs();
        let c = 10.0 + 0.5 * step as f32;
        aabbs[0] = Aabb::new(Vec3::splat(c - 9.0), Vec3::splat(c + 9.0));
        let got = sorted_pairs(&mut sap, &aabbs, step);
        reference_pairs(&aabbs, &mut expected);
        assert_eq!(got, expected, "step {step}");
        sap.validate().unwrap();
        assert!(got.iter().filter(|p| p.a == 0).count() > 20, "the big box overlaps many bodies");
        world.step();
    }
    assert_eq!(sap.last_mode(), UpdateMode::Incremental);
}

#[test]
fn pairs_shared_by_several_regions_are_never_reported_twice() {
    // Boxes as large as the regions: nearly every pair is seen by several regions at once, and its events repeat
    // in each. The output must still hold each pair once.
    let mut world = World::new(44, 300, 16.0, 1.0, 0.3);
    let mut sap = SweepAndPrune::with_regions(0.0, 8);
    let mut out = PairList::new();
    for step in 0..40 {
        let aabbs = world.aabbs();
        sap.find_pairs(&Frame::new(&aabbs).with_step(step), &mut out);
        let mut keys: Vec<u64> = out.iter().map(|p| p.key()).collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "step {step}: a pair was reported twice");
        assert!(out.iter().all(|p| p.a < p.b));
        let mut expected = PairList::new();
        reference_pairs(&aabbs, &mut expected);
        out.sort();
        assert_eq!(out, expected, "step {step}");
        world.step();
    }
}

#[test]
fn regions_cut_the_swaps_of_the_global_arrays() {
    let run = |regions| {
        let mut world = World::new(5, 4000, 60.0, 0.3, 0.05);
        let mut sap = SweepAndPrune::with_regions(0.0, regions);
        follow(&mut sap, &mut world, 12).1
    };
    let (global, regional) = (run(1), run(6));
    assert!(regional * 5.0 < global, "global {global}, regional {regional}");
}

#[test]
fn resizes_enter_new_bodies_into_their_regions() {
    let mut world = World::new(18, 600, 30.0, 0.8, 0.2);
    let mut sap = SweepAndPrune::with_regions(32.0, 4);
    let mut expected = PairList::new();
    sorted_pairs(&mut sap, &world.aabbs(), 0);
    world.step();
    sorted_pairs(&mut sap, &world.aabbs(), 1);
    let n = world.center.len();
    let mut map: Vec<u32> = (0..n as u32).collect();
    map[7] = Resize::REMOVED;
    map[n - 1] = 7;
    world.center.swap_remove(7);
    for i in 0..20 {
        world.center.push(Vec3::new(1.5 * i as f32, 15.0, 15.0));
        world.velocity.push(Vec3::new(0.0, 0.3, 0.0));
    }
    sap.on_resize(&Resize { old_to_new: &map, new_len: n + 19 });
    sap.validate().unwrap();
    let aabbs = world.aabbs();
    let got = sorted_pairs(&mut sap, &aabbs, 2);
    reference_pairs(&aabbs, &mut expected);
    assert_eq!(got, expected);
    assert_eq!(sap.last_mode(), UpdateMode::Incremental);
    assert_eq!(sap.stats().get("bodies_inserted"), Some(20.0));
    sap.validate().unwrap();
    world.step();
    follow(&mut sap, &mut world, 10);
}

/// Every algorithm fills `work` and `bytes_touched`, and both grow with the scene; SAP's slow frames cost less
/// than its first (the initialisation) and report how they were answered.
#[test]
fn stats_report_work_and_bytes() {
    let small = World::new(3, 500, 20.0, 0.5, 0.0).aabbs();
    let large = World::new(3, 5000, 43.0, 0.5, 0.0).aabbs();
    for (name, make) in variants() {
        let mut out = PairList::new();
        let mut measure = |aabbs: &[Aabb]| {
            let mut bp = make();
            bp.find_pairs(&Frame::new(aabbs), &mut out);
            bp.stats()
        };
        let (s, l) = (measure(&small), measure(&large));
        assert!(s.work >= small.len() as u64 && s.bytes_touched >= 24 * small.len() as u64, "{name}: {s}");
        // Ten times the bodies: more than twice the work (a fixed grid's regions cost the same at both sizes).
        assert!(l.work > 2 * s.work && l.bytes_touched > 2 * s.bytes_touched, "{name}: {s} then {l}");
        assert!(l.pair_tests > s.pair_tests, "{name}: {s} then {l}");
    }
    let mut world = World::new(4, 3000, 35.0, 0.5, 0.01);
    let mut sap = SweepAndPrune::default();
    let mut out = PairList::new();
    sap.find_pairs(&Frame::new(&world.aabbs()), &mut out);
    let first = sap.stats();
    assert_eq!((first.get("init"), first.get("rebuild")), (Some(1.0), Some(0.0)), "{first}");
    world.step();
    sap.find_pairs(&Frame::new(&world.aabbs()).with_step(1), &mut out);
    let slow = sap.stats();
    assert_eq!((slow.get("init"), slow.get("rebuild")), (Some(0.0), Some(0.0)), "{slow}");
    assert!(slow.work < first.work && slow.bytes_touched < first.bytes_touched, "{first} then {slow}");
}
