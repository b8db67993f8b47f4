use super::*;
use collide_math::{Rng, Vec3};

fn request(kind: Kind, parts: usize) -> Request {
    Request { kind, cell_factor: 2.0, cell_size: 0.0, parts, cubes: Cubing::Modelled }
}

#[test]
fn uniform_cells_follow_the_median_box_and_tori_the_body_count() {
    let mut rng = Rng::new(1);
    // 10 000 boxes of side 1 (a few of side 50) over x in [0, 1000], y and z in [0, 100].
    let aabbs: Vec<Aabb> = (0..10_000)
        .map(|i| {
            let c = Vec3::new(rng.range_f32(0.0, 1000.0), rng.range_f32(0.0, 100.0), rng.range_f32(0.0, 100.0));
            Aabb::from_center_radius(c, if i % 100 == 0 { 25.0 } else { 0.5 })
        })
        .collect();
    let (mut planner, mut plan) = (Planner::default(), Plan::default());
    planner.plan(&aabbs, &request(Kind::Uniform, 16), &mut plan);
    assert_eq!(plan.cells.edge, [2.0, 2.0]);
    // Side 50 over cells of 2: 25 or 26 cells, natural level 4 or 5. Merging the small bodies into cells of 32
    // or more would put hundreds in a column: the small bodies keep level 0, and the large ones share one level
    // (a level each would make each scan level 0 for a handful of bodies).
    let big = plan.map[5];
    assert_eq!(plan.present, 1 | 1 << big, "{:#b}", plan.present);
    assert_eq!((plan.map[0], plan.map[4]), (0, big));
    assert!(plan.map.windows(2).all(|w| w[0] <= w[1]) && (0..MAX_LEVELS).all(|l| usize::from(plan.map[l]) >= l));
    // Level 0: the bounds' 75 × 75 cells (side 50 reaches 25 past them) fold onto 64 × 64 (at most 4950
    // columns); the large bodies' level holds the bounds' few cells on at least 4 × 4 columns.
    assert_eq!(plan.levels[0].torus(), [64, 64]);
    assert_eq!(plan.levels[usize::from(big)].torus(), [4, 4]);
    // 16 partitions asked for, shared by the levels' work; each level at least one.
    let parts = [plan.levels[0].parts(), plan.levels[usize::from(big)].parts()];
    assert!(parts[0] >= 4 && parts[1] >= 1 && parts[0] + parts[1] <= 32, "{parts:?}");
    assert_eq!(plan.parts(), parts[0] + parts[1]);
    // Serially: one partition per level.
    planner.plan(&aabbs, &request(Kind::Uniform, 1), &mut plan);
    assert_eq!(plan.part_level, [0, big]);
}

#[test]
fn a_level_the_sample_missed_is_added_and_kept() {
    let mut rng = Rng::new(2);
    let mut aabbs: Vec<Aabb> =
        (0..5000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(100.0)), 0.5)).collect();
    aabbs[1] = Aabb::from_center_radius(Vec3::splat(50.0), 10.0);
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let (mut planner, mut plan) = (Planner::default(), Plan::default());
        let req = request(kind, 1);
        planner.plan(&aabbs, &req, &mut plan);
        assert_eq!(plan.present, 1, "{kind:?}: the sample (a stride of 2) misses body 1");
        assert!(!planner.met(1, &req, &mut plan), "nothing new");
        // Side 20 over cells of 2: 10 or 11 cells, natural level 3 or 4.
        let big = natural_level(plan.cells.of_box([40.0; 2], [60.0; 2]));
        assert!(planner.met(1 | 1 << big, &req, &mut plan), "{kind:?}");
        assert_eq!(plan.present, 1 | 1 << big);
        assert_eq!(plan.part_level, [0, big as u8]);
        planner.plan(&aabbs, &req, &mut plan);
        assert_eq!(plan.present, 1 | 1 << big, "{kind:?}: kept from the last frame");
    }
}

#[test]
fn degenerate_scenes_still_get_a_usable_plan() {
    let (mut planner, mut plan) = (Planner::default(), Plan::default());
    for (name, aabbs) in [
        ("empty", vec![]),
        ("one point", vec![Aabb::from_center_radius(Vec3::splat(3.0), 0.0); 100]),
        ("points", (0..100).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32), 0.0)).collect()),
        ("huge", vec![Aabb::new(Vec3::splat(-1e30), Vec3::splat(1e30)); 3]),
    ] {
        for kind in [Kind::Uniform, Kind::Hierarchical] {
            planner.plan(&aabbs, &request(kind, 4), &mut plan);
            let c = plan.cells.edge[0];
            assert!(c > 0.0 && c.is_finite(), "{name}: cell {c}");
            assert_eq!(plan.parts() == 0, name == "empty", "{name}: a partition per level present");
        }
    }
    // Points 1 apart on a diagonal of 100: cells from the density, 99 / 100^(1/3).
    let points: Vec<Aabb> = (0..100).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32), 0.0)).collect();
    planner.plan(&points, &request(Kind::Uniform, 1), &mut plan);
    assert!((plan.cells.edge[0] - 99.0 / 100f64.cbrt()).abs() < 1e-3, "{:?}", plan.cells.edge);
    // A fixed cell size wins.
    let fixed = Request { cell_size: 3.5, ..request(Kind::Uniform, 1) };
    planner.plan(&[Aabb::from_center_radius(Vec3::ZERO, 1.0)], &fixed, &mut plan);
    assert_eq!(plan.cells.edge, [3.5, 3.5]);
}

#[test]
fn tori_fit_the_bounds_or_fold_onto_the_budget() {
    assert_eq!(torus_bits([51.0, 51.0], 10_000.0), [6, 6]);
    assert_eq!(torus_bits([270.0, 70.0], 1e6), [8, 6], "270 cells fold onto 256, 70 onto 64");
    assert_eq!(torus_bits([90.0, 90.0], 1e6), [7, 7], "90 cells are too many to fold onto 64");
    assert_eq!(torus_bits([3.0, 0.5], 10_000.0), [2, 2], "at least four columns along each axis");
    // 50 000 × 50 000 cells, 100 000 entries: folded onto 2^15 columns, square.
    assert_eq!(torus_bits([5e4, 5e4], 1e5), [7, 8]);
    // A flat world: the thin axis keeps its cells.
    assert_eq!(torus_bits([1e6, 2.0], 1e5), [13, 2]);
    assert_eq!(torus_bits([f64::INFINITY, f64::NAN], 10.0), [2, 2]);
    assert_eq!(torus_bits([3e4, 20.0], 1e5), [11, 4], "15 bits: the thin axis keeps its 20 cells, folded onto 16");
    assert_eq!(torus_bits([1e9, 1e9], 1e12), [MAX_TORUS_BITS, MAX_TORUS_BITS]);
}

/// Boxes with radii from a power law (exponent 2.5, up to a fifth of the world), `n` of them: the frames whose
/// rare coarse levels the sample sees a few bodies of, so that the model's costs move from frame to frame.
fn power_law(seed: u64, n: usize) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    let w = (n as f64 / 2500.0).cbrt() * 30.0;
    let (a, big) = (1.0 - 2.5f64, 0.2 * w);
    (0..n)
        .map(|_| {
            let u = f64::from(rng.next_f32());
            let r = (0.5f64.powf(a) - u * (0.5f64.powf(a) - big.powf(a))).powf(1.0 / a) as f32;
            let h = (w / 2.0) as f32;
            Aabb::from_center_radius(rng.point_in(Vec3::splat(-h + r), Vec3::splat(h - r)), r)
        })
        .collect()
}

/// Near a tie the levels stay: frames of one heavy-tailed scene, whose fresh plans choose different levels
/// (a plan of its own per frame, as before last frame's levels were kept), get one set of levels from a planner
/// that plans them all. And what it keeps is the model's rule: last frame's levels while they cost at most
/// [`KEEP_LEVELS`] more than the best, checked against every set of levels it could have kept.
#[test]
fn levels_are_kept_near_a_tie_and_left_when_clearly_beaten() {
    let frames: Vec<Vec<Aabb>> = (0..24).map(|seed| power_law(seed, 20_000)).collect();
    let req = request(Kind::Hierarchical, 8);
    // A frame planned as the grid plans it: from the sample, then again if the body pass meets a level it lacks.
    let plan_frame = |planner: &mut Planner, plan: &mut Plan, aabbs: &[Aabb]| {
        planner.plan(aabbs, &req, plan);
        let met = |plan: &Plan| {
            let cells = |b: &Aabb| plan.cells.of_box([b.min.y, b.min.z], [b.max.y, b.max.z]);
            aabbs.iter().fold(0u32, |set, b| set | 1 << natural_level(cells(b)))
        };
        while planner.met(met(plan), &req, plan) {}
    };
    let mut fresh = Vec::new();
    for aabbs in &frames {
        let (mut planner, mut plan) = (Planner::default(), Plan::default());
        plan_frame(&mut planner, &mut plan, aabbs);
        fresh.push(plan.present);
    }
    fresh.sort_unstable();
    fresh.dedup();
    assert!(fresh.len() > 1, "the fresh plans agree ({fresh:?}): no tie to keep");
    let (mut planner, mut plan) = (Planner::default(), Plan::default());
    let mut kept = Vec::new();
    for aabbs in &frames {
        plan_frame(&mut planner, &mut plan, aabbs);
        kept.push(plan.present);
    }
    assert!(kept.iter().all(|&p| p == kept[0]), "{kept:?}");
    // The rule, from every set of levels as last frame's.
    let natural = planner.last_natural | levels(kept[0]).fold(0, |s, l| s | 1 << l);
    let top = levels(natural).last().expect("levels");
    let mut work = [0.0; MAX_LEVELS];
    let cost = |planner: &Planner, chosen: u32, work: &mut [f64; MAX_LEVELS]| planner.cost(natural, chosen, work).0;
    let finer: Vec<usize> = levels(natural).filter(|&l| l != top).collect();
    let all: Vec<u32> = (0..1u32 << finer.len())
        .map(|s| finer.iter().enumerate().filter(|&(k, _)| s >> k & 1 == 1).fold(1 << top, |set, (_, &l)| set | 1 << l))
        .collect();
    let best = all.iter().map(|&c| cost(&planner, c, &mut work)).fold(f64::INFINITY, f64::min);
    let (mut stayed, mut left) = (0, 0);
    for &last in &all {
        planner.last_chosen = last;
        let map = planner.choose_levels(natural);
        let chosen = levels(natural).fold(0u32, |set, l| set | 1 << map[l]);
        if cost(&planner, last, &mut work) <= best * (1.0 + KEEP_LEVELS) {
            assert_eq!(chosen, last, "{last:#b} is within the margin of the best");
            stayed += 1;
        } else {
            assert_ne!(chosen, last, "{last:#b} is clearly beaten");
            assert!(cost(&planner, chosen, &mut work) <= best * (1.0 + 1e-12));
            left += 1;
        }
    }
    assert!(stayed >= 1 && left >= 1, "{stayed} kept, {left} left: both sides of the rule");
}
