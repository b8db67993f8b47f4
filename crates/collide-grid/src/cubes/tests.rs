use crate::{Cubing, Grid, GridConfig, Kind};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Parallelism, Stats, reference_pairs};
use collide_math::{Rng, Vec3};

/// Serial, and every level but the coarsest cut into cubes where it can be (the cost model's choice is
/// `planner.rs`'s to test).
const SERIAL_CUBED: GridConfig = GridConfig {
    cell_factor: crate::DEFAULT_CELL_FACTOR,
    cell_size: 0.0,
    parallelism: Parallelism::SERIAL,
    cubes: Cubing::Always,
};

/// Find `aabbs`' pairs with `grid`, validate it, and assert the pairs are brute force's; returns its stats and
/// the pair count.
fn against_brute_force(grid: &mut Grid, aabbs: &[Aabb], label: &str) -> (Stats, usize) {
    let (mut out, mut want) = (PairList::new(), PairList::new());
    grid.find_pairs(&Frame::new(aabbs), &mut out);
    grid.validate().unwrap_or_else(|e| panic!("{label}: {e}"));
    reference_pairs(aabbs, &mut want);
    out.sort();
    assert_eq!(out, want, "{label}");
    (grid.stats(), out.len())
}

fn small_and_large(n: usize, world: f32, large_every: usize, large: f32, seed: u64) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let r = if i % large_every == 0 { large } else { 0.5 };
            Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(world)), r)
        })
        .collect()
}

/// A box covering thousands of small ones: most of the cubes it reaches lie inside it, and their pairs are
/// written without a test — all of them brute force's pairs, none missing.
#[test]
fn a_large_box_writes_the_pairs_of_the_cubes_inside_it_untested() {
    let mut aabbs = small_and_large(12_000, 60.0, usize::MAX, 0.0, 3);
    aabbs[77] = Aabb::new(Vec3::splat(10.0), Vec3::splat(45.0));
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let mut grid = Grid::new(kind, SERIAL_CUBED);
        let (s, pairs) = against_brute_force(&mut grid, &aabbs, &format!("{kind:?}"));
        assert_eq!(s.get("cubed_levels"), Some(1.0), "{kind:?}: {s}");
        let untested = s.get("untested_pairs").unwrap();
        // The large box meets about a fifth of the small ones; the cubes strictly inside it hold most of them.
        assert!(untested > 0.5 * pairs as f64 / 2.0 && untested < pairs as f64, "{kind:?}: {pairs} pairs, {s}");
        assert!(s.get("cube_columns").unwrap() > 0.0 && s.get("scanned_rows") == Some(0.0), "{kind:?}: {s}");
    }
}

/// Large slabs thin along one axis and wide along the others, among small boxes: a slab thin along x is inside
/// many columns on y and z yet reaches no cube inside it along x, so those columns are tested along x alone; one
/// thin along y or z has no column inside it on both, and is tested whole. Every pair is brute force's, on the
/// first frame (the output's blocks too small: the runs spill) and the next (the runs write into their blocks).
#[test]
fn slabs_thin_along_one_axis_are_tested_along_the_axes_they_can_fail_on() {
    let mut aabbs = small_and_large(12_000, 60.0, usize::MAX, 0.0, 13);
    aabbs[5] = Aabb::new(Vec3::new(30.0, 5.0, 5.0), Vec3::new(30.6, 50.0, 50.0));
    aabbs[6] = Aabb::new(Vec3::new(5.0, 20.2, 5.0), Vec3::new(50.0, 20.5, 50.0));
    aabbs[7] = Aabb::new(Vec3::new(8.0, 8.0, 40.0), Vec3::new(52.0, 52.0, 40.3));
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let mut grid = Grid::new(kind, SERIAL_CUBED);
        for frame in ["first frame", "second frame"] {
            let (s, pairs) = against_brute_force(&mut grid, &aabbs, &format!("{kind:?}, {frame}"));
            assert_eq!(s.get("cubed_levels"), Some(1.0), "{kind:?}: {s}");
            // The three slabs meet a few hundred small boxes each, none of them inside a cube inside a slab.
            assert!(pairs > 600 && s.get("untested_pairs") == Some(0.0), "{kind:?}, {frame}: {pairs} pairs, {s}");
        }
    }
}

/// Boxes on the cells' own boundaries: small boxes one cell wide on a lattice of the cell edge (fixed), so that
/// their min corners lie exactly on cube boundaries, and large boxes whose faces lie on them too, touching the
/// small ones face to face (touching is overlapping). The reach, the inside cubes and the clipping are exact.
#[test]
fn boxes_on_the_cube_boundaries_are_met_exactly() {
    let mut aabbs = Vec::new();
    for x in 0..24 {
        for y in 0..24 {
            for z in 0..24 {
                let min = Vec3::new(x as f32, y as f32, z as f32);
                aabbs.push(Aabb::new(min, min + Vec3::ONE));
            }
        }
    }
    aabbs.push(Aabb::new(Vec3::splat(4.0), Vec3::splat(12.0)));
    aabbs.push(Aabb::new(Vec3::new(3.0, 9.0, 1.0), Vec3::new(19.0, 21.0, 17.0)));
    aabbs.push(Aabb::new(Vec3::new(-5.0, 0.0, 16.0), Vec3::new(0.0, 8.0, 24.0)));
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        for cell_size in [1.0, 2.0, 0.5] {
            let config = GridConfig { cell_size, ..SERIAL_CUBED };
            let mut grid = Grid::new(kind, config);
            let (s, _) = against_brute_force(&mut grid, &aabbs, &format!("{kind:?}, cells {cell_size}"));
            assert_eq!(s.get("cubed_levels"), Some(1.0), "{kind:?}: {s}");
            assert!(s.get("untested_pairs").unwrap() > 0.0, "{kind:?}: {s}");
        }
    }
}

/// A level whose cubes would be too many — two clusters of small bodies far apart along x, so that the empty
/// cubes between them outnumber the bodies — is not cut, and the large bodies scan its columns.
#[test]
fn a_sparse_level_is_scanned_by_its_columns() {
    let mut aabbs = small_and_large(3000, 40.0, 25, 5.0, 7);
    aabbs.extend(small_and_large(3000, 40.0, 25, 5.0, 8).iter().map(|b| {
        let far = Vec3::new(400.0, 0.0, 0.0);
        Aabb::new(b.min + far, b.max + far)
    }));
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let mut grid = Grid::new(kind, SERIAL_CUBED);
        let (s, _) = against_brute_force(&mut grid, &aabbs, &format!("{kind:?}"));
        assert!(s.get("levels").unwrap() >= 2.0, "{kind:?}: {s}");
        assert_eq!(s.get("cubed_levels"), Some(0.0), "{kind:?}: {s}");
        assert!(s.get("scanned_rows").unwrap() > 0.0 && s.get("cube_columns") == Some(0.0), "{kind:?}: {s}");
    }
}

/// Above the shipped threshold ([`Parallelism::DEFAULT_MIN_WORK`] bodies) on two threads: the cubes cut in
/// parallel, level by level, and read by the partitions' searches in parallel.
#[test]
fn cubes_on_the_shipped_parallel_path() {
    let aabbs = small_and_large(3 * Parallelism::DEFAULT_MIN_WORK / 2, 70.0, 40, 3.0, 11);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
    pool.install(|| {
        for kind in [Kind::Uniform, Kind::Hierarchical] {
            let mut grid = Grid::new(kind, GridConfig { cubes: Cubing::Always, ..GridConfig::default() });
            assert!(grid.config().parallelism.is_parallel(aabbs.len()));
            let (s, _) = against_brute_force(&mut grid, &aabbs, &format!("{kind:?}"));
            assert!(s.get("cubed_levels").unwrap() >= 1.0 && s.get("cube_columns").unwrap() > 0.0, "{kind:?}: {s}");
        }
    });
}

/// The invariants' check sees a cube that lies: a record's bound changed, a record moved to another cube.
#[test]
fn validate_names_a_cube_that_does_not_match_its_records() {
    let mut aabbs = small_and_large(4000, 30.0, usize::MAX, 0.0, 5);
    aabbs[0] = Aabb::new(Vec3::splat(2.0), Vec3::splat(20.0));
    let mut grid = Grid::new(Kind::Hierarchical, SERIAL_CUBED);
    against_brute_force(&mut grid, &aabbs, "built");
    let cubes = grid.cubes_mut().iter_mut().find(|c| c.built).expect("a level cut into cubes");
    let (mut bounds, id) = cubes.record(5);
    bounds[1] += 0.25;
    cubes.set_record(5, (bounds, id));
    let e = grid.validate().unwrap_err();
    assert!(e.contains("cubes of level") && e.contains("bounds"), "{e}");
    against_brute_force(&mut grid, &aabbs, "rebuilt");
    let cubes = grid.cubes_mut().iter_mut().find(|c| c.built).expect("a level cut into cubes");
    let last = cubes.offsets.len() - 2;
    let first = cubes.offsets.iter().position(|&o| o > 0).expect("a record") - 1;
    // The first record leaves its cube for the last one: offsets shifted, order kept.
    cubes.offsets[first + 1..=last].iter_mut().for_each(|o| *o -= 1);
    let n = *cubes.offsets.last().unwrap() as usize;
    let records: Vec<_> = (0..n).map(|i| cubes.record(i)).collect();
    for i in 0..n {
        cubes.set_record(i, records[(i + 1) % n]);
    }
    let e = grid.validate().unwrap_err();
    assert!(e.contains("not its min corner's"), "{e}");
}
