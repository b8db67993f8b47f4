use super::*;

const POLICY: GridPolicy = GridPolicy { bodies_per_region: 8.0, min_width_in_mean_boxes: 2.0, max_per_axis: 16 };

#[test]
fn the_auto_grid_aims_at_the_policy_and_respects_the_floor_and_cap() {
    // 1000 unit boxes spread over [0, 100]³: 8 bodies per region wants 125 regions, 5 per axis.
    let aabbs: Vec<Aabb> = (0..1000)
        .map(|i| {
            let c = Vec3::new((i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32) * 10.0 + 5.0;
            Aabb::from_center_radius(c, 0.5)
        })
        .collect();
    assert_eq!(RegionGrid::plan(&aabbs, 0, &POLICY).res(), [5, 5, 5]);
    // Boxes 30 wide: the floor (2 × 30 = 60 of a 120 extent) leaves 2 regions per axis.
    let wide: Vec<Aabb> = aabbs.iter().map(|b| Aabb::from_center_radius(b.center(), 15.0)).collect();
    assert_eq!(RegionGrid::plan(&wide, 0, &POLICY).res(), [2, 2, 2]);
    // A requested count is capped; a flat scene gets one region across.
    assert_eq!(RegionGrid::plan(&aabbs, 40, &POLICY).res(), [16, 16, 16]);
    let flat: Vec<Aabb> = aabbs.iter().map(|b| Aabb::new(b.min.with_z(0.0), b.max.with_z(0.0))).collect();
    assert_eq!(RegionGrid::plan(&flat, 0, &POLICY).res()[2], 1);
    assert_eq!(RegionGrid::plan(&[], 0, &POLICY).count(), 1);
}

#[test]
fn cells_clamp_so_that_regions_partition_space() {
    let aabbs = [Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), Aabb::new(Vec3::splat(9.0), Vec3::splat(10.0))];
    let grid = RegionGrid::plan(&aabbs, 5, &POLICY);
    assert_eq!(grid.count(), 125);
    assert_eq!(grid.cell(-1.0e9, 0), 0);
    assert_eq!(grid.cell(1.0e9, 1), 4);
    assert_eq!(grid.cell(4.0, 2), 2);
    let far = Aabb::new(Vec3::new(-5.0, 3.9, 5.0), Vec3::new(2.5, 4.1, 50.0));
    let range = grid.range(&far);
    assert_eq!(range, [0, 1, 2, 1, 2, 4]);
    let mut seen = Vec::new();
    grid.for_each(&range, |r| seen.push(r));
    assert_eq!(seen.len(), range_len(&range));
    assert!(seen.iter().all(|&r| range_contains(&range, grid.coords(r)) && grid.index(grid.coords(r)) == r));
    assert_eq!(grid.region_of(Vec3::new(2.5, 4.1, 50.0)), grid.index([1, 2, 4]));
    assert_eq!(range_len(&NO_REGIONS), 0);
    // The four-lane range is the scalar cells', at the walls, outside, and for non-finite coordinates.
    let special = [-1.0e30, -5.0, -0.0, 0.0, 1.999_999, 2.0, 4.0, 9.999_999, 10.0, 1.0e30, f32::MAX, f32::MIN];
    let special = special.into_iter().chain([f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    for x in special.chain((0..200).map(|i| i as f32 * 0.0617 - 1.0)) {
        let b = Aabb::new(Vec3::new(x, -x, x * 0.5), Vec3::new(x + 0.3, 4.0, x));
        let scalar = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
        let want: Vec<u16> = (0..6).map(|i| grid.cell(scalar[i], i % 3)).collect();
        assert_eq!(grid.range(&b).to_vec(), want, "{b:?}");
        assert_eq!(grid.range_if_valid(&b), b.is_valid().then(|| grid.range(&b)), "{b:?}");
    }
    assert!(grid.outgrown(&Aabb::new(Vec3::ZERO, Vec3::splat(50.0))));
    assert!(!grid.outgrown(&Aabb::new(Vec3::ZERO, Vec3::splat(12.0))));
}

/// 1000 unit boxes on a lattice in `[0, 100]³`, with `far` replacing bodies at the given places.
fn lattice_with(far: &[(usize, Aabb)]) -> Vec<Aabb> {
    let mut aabbs: Vec<Aabb> = (0..1000)
        .map(|i| {
            let c = Vec3::new((i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32) * 10.0 + 5.0;
            Aabb::from_center_radius(c, 0.5)
        })
        .collect();
    for &(i, b) in far {
        aabbs[i] = b;
    }
    aabbs
}

#[test]
fn far_bodies_and_invalid_boxes_do_not_stretch_the_grid() {
    let plain = RegionGrid::plan(&lattice_with(&[]), 0, &POLICY);
    assert_eq!(plain.res(), [5, 5, 5]);
    // Bodies at ±1e30 (one of them where the sample looks), one spanning everything, and invalid boxes.
    let far = Aabb::from_center_radius(Vec3::splat(1.0e30), 1.0);
    let spanning = Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30));
    let nan = Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE);
    let infinite = Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY);
    let scene = lattice_with(&[(0, far), (333, spanning), (500, nan), (777, infinite), (999, nan)]);
    let grid = RegionGrid::plan(&scene, 0, &POLICY);
    assert_eq!(grid.res(), [5, 5, 5], "the bulk decides the grid");
    let b = grid.bounds();
    assert!(b.min.cmpge(Vec3::splat(0.0)).all() && b.max.cmple(Vec3::splat(100.0)).all(), "{b:?}");
    // The far bodies are in the border regions, which reach to infinity.
    assert_eq!(grid.range(&far), [4, 4, 4, 4, 4, 4]);
    assert_eq!(grid.range(&spanning), [0, 0, 0, 4, 4, 4]);
    // A scene that is all spread out keeps its full bounds.
    let spread: Vec<Aabb> = (0..200).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32 * 1e28), 1.0)).collect();
    assert_eq!(RegionGrid::plan(&spread, 0, &POLICY).bounds().max.x, 199.0e28 + 1.0);
    assert_eq!(sampled_bounds(&[nan, infinite]), Aabb::EMPTY);
}

/// A grid away from the origin, 3 regions per axis over [10, 22] × [100, 106] × [-8, -2]: the cells, range,
/// regions in a range and region boxes are the ones worked out by hand from the borders 10, 14, 18, 22 (x),
/// 100, 102, 104, 106 (y) and -8, -6, -4, -2 (z).
#[test]
fn cells_ranges_and_region_boxes_of_a_grid_away_from_the_origin() {
    let aabbs = [
        Aabb::new(Vec3::new(10.0, 100.0, -8.0), Vec3::new(11.0, 101.0, -7.0)),
        Aabb::new(Vec3::new(21.0, 105.0, -3.0), Vec3::new(22.0, 106.0, -2.0)),
    ];
    let grid = RegionGrid::plan(&aabbs, 3, &POLICY);
    assert_eq!(grid.res(), [3, 3, 3]);
    assert_eq!([grid.cell(16.0, 0), grid.cell(103.5, 1), grid.cell(-2.5, 2)], [1, 1, 2]);
    assert_eq!([grid.cell(13.9, 0), grid.cell(100.5, 1), grid.cell(-6.5, 2)], [0, 0, 0]);
    let b = Aabb::new(Vec3::new(10.5, 101.0, -5.0), Vec3::new(15.0, 102.5, -5.0));
    let range = grid.range(&b);
    assert_eq!(range, [0, 0, 1, 1, 1, 1]);
    assert_eq!(grid.range_if_valid(&b), Some(range));
    assert_eq!(grid.region_of(Vec3::new(16.0, 103.5, -2.5)), (3 + 1) * 3 + 2);

    let mut visited = Vec::new();
    grid.for_each(&range, |r| visited.push(r));
    // (x · 3 + y) · 3 + z for x, y in 0..=1, z = 1.
    assert_eq!(visited, [1, 4, 10, 13]);
    assert!(visited.iter().all(|&r| range_contains(&range, grid.coords(r))));
    assert!(range_contains(&range, [1, 1, 1]));
    for outside in [[0, 0, 0], [0, 0, 2], [2, 0, 1], [0, 2, 1]] {
        assert!(!range_contains(&range, outside), "{outside:?}");
    }

    let boxes = [
        (0, Aabb::new(Vec3::new(10.0, 100.0, -8.0), Vec3::new(14.0, 102.0, -6.0))),
        (13, Aabb::new(Vec3::new(14.0, 102.0, -6.0), Vec3::new(18.0, 104.0, -4.0))),
        (26, Aabb::new(Vec3::new(18.0, 104.0, -4.0), Vec3::new(22.0, 106.0, -2.0))),
        (5, Aabb::new(Vec3::new(10.0, 102.0, -4.0), Vec3::new(14.0, 104.0, -2.0))),
    ];
    for (r, want) in boxes {
        assert_eq!(grid.region_box(r), want, "region {r}");
    }
}

/// The bulk bounds take the trimmed sample's extent on an axis only where the full extent is more than
/// `OUTLIER_RATIO` times it, and never from a sample with no extent.
#[test]
fn bulk_bounds_replace_only_axes_stretched_past_the_ratio() {
    let full = Aabb::new(Vec3::ZERO, Vec3::splat(100.0));
    // x: 100 > 4 × 10, stretched; y: 100 = 4 × 25, not more; z: the sample has no extent.
    let sampled = Aabb::new(Vec3::new(10.0, 0.0, 50.0), Vec3::new(20.0, 25.0, 50.0));
    assert_eq!(bulk_bounds(full, sampled), Aabb::new(Vec3::new(10.0, 0.0, 0.0), Vec3::new(20.0, 100.0, 100.0)));
}

/// A grid over [0, 10]³ is outgrown by bounds more than 4 times wider on an axis, or, on an axis it cuts into
/// several regions, more than 4 times narrower; exactly 4 times is not outgrown, and an axis with one region
/// cannot be outgrown by shrinking.
#[test]
fn a_grid_is_outgrown_past_four_times_its_bounds() {
    let aabbs = [Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), Aabb::new(Vec3::splat(9.0), Vec3::splat(10.0))];
    let grid = RegionGrid::plan(&aabbs, 4, &POLICY);
    let one = RegionGrid::plan(&aabbs, 1, &POLICY);
    assert_eq!((grid.res(), one.res()), ([4; 3], [1; 3]));
    let x_wide = |w: f32| Aabb::new(Vec3::ZERO, Vec3::new(w, 10.0, 10.0));
    for (w, want) in [(10.0, false), (40.0, false), (41.0, true), (2.5, false), (2.0, true)] {
        assert_eq!(grid.outgrown(&x_wide(w)), want, "4 regions, x extent {w}");
    }
    for (w, want) in [(10.0, false), (2.0, false), (0.5, false), (41.0, true)] {
        assert_eq!(one.outgrown(&x_wide(w)), want, "1 region, x extent {w}");
    }
}

/// A requested count cuts only the axes with an extent: a flat scene keeps one region across its flat axis.
#[test]
fn a_requested_count_leaves_a_flat_axis_one_region_across() {
    let flat = [
        Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)),
        Aabb::new(Vec3::new(9.0, 9.0, 0.0), Vec3::new(10.0, 10.0, 0.0)),
    ];
    let grid = RegionGrid::plan(&flat, 4, &POLICY);
    assert_eq!(grid.res(), [4, 4, 1]);
    assert_eq!(grid.range(&flat[1]), [3, 3, 0, 3, 3, 0]);
}

/// The mean box size counts a box at most `OUTLIER_RATIO` (4) times the bulk's extent. 64 unit boxes on the
/// diagonal at even indices (the sample: every second of 128) and 64 boxes spanning ±1e30 at odd ones. The
/// sample trims 2 boxes a side: the bulk is [2, 62]³, extent 60, so a spanning box counts 4 × 60 = 240 and the
/// mean size is (64 × 1 + 64 × 240) / 128 = 120.5. With 1 body per region the volume asks for regions
/// 60 / 128^⅓ ≈ 11.9 wide, but the floor (a quarter of the mean: 30.125) binds: round(60 / 30.125) = 2 per axis.
/// (Counting the spanning boxes as 60 + 4 or 60 / 4 would let the volume decide: 5 per axis.)
#[test]
fn huge_boxes_count_at_most_four_bulk_extents_in_the_mean_size() {
    let policy = GridPolicy { bodies_per_region: 1.0, min_width_in_mean_boxes: 0.25, max_per_axis: 16 };
    let spanning = Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30));
    let aabbs: Vec<Aabb> = (0..128)
        .map(|i| {
            if i % 2 == 0 { Aabb::new(Vec3::splat((i / 2) as f32), Vec3::splat((i / 2 + 1) as f32)) } else { spanning }
        })
        .collect();
    assert_eq!(sampled_bounds(&aabbs), Aabb::new(Vec3::splat(2.0), Vec3::splat(62.0)));
    let grid = RegionGrid::plan(&aabbs, 0, &policy);
    assert_eq!(grid.bounds(), Aabb::new(Vec3::splat(2.0), Vec3::splat(62.0)));
    assert_eq!(grid.res(), [2, 2, 2]);
}
