use crate::{Cubing, Grid, GridConfig, Kind};
use collide_broadphase::conformance::{
    assert_conforms, assert_parallel_paths, check_parallel, pair_snapshot, snapshot_scenes,
};
use collide_broadphase::{Aabb, Broadphase, Frame, InvalidBoxes, PairList, Parallelism, reference_pairs};
use collide_math::{Rng, Vec3};

const KINDS: [Kind; 2] = [Kind::Uniform, Kind::Hierarchical];

/// A threshold low enough that the kit's small scenes take the parallel paths: several body chunks and partitions
/// (the shipped [`Parallelism::default`] is tested by the tests that use `GridConfig::default()`).
const FORCED: Parallelism = Parallelism::with_min_work(16);

/// Run `f` on a rayon pool of two threads, so that the parallel paths run even on a one-core machine.
fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

fn make(kind: Kind, cell_factor: f32, cell_size: f32, parallelism: Parallelism) -> Grid {
    Grid::new(kind, GridConfig { cell_factor, cell_size, parallelism, ..GridConfig::default() })
}

/// Find `aabbs`' pairs with `bp`, check its invariants, and assert the pairs equal the brute-force reference.
fn assert_matches_reference(bp: &mut dyn Broadphase, aabbs: &[Aabb], label: &str) -> PairList {
    let (mut out, mut want) = (PairList::new(), PairList::new());
    bp.find_pairs(&Frame::new(aabbs), &mut out);
    if let Err(e) = bp.validate() {
        panic!("{label}: validate: {e}");
    }
    reference_pairs(aabbs, &mut want);
    out.sort();
    assert_eq!(out.len(), want.len(), "{label}");
    assert_eq!(out, want, "{label}");
    out
}

#[test]
fn conforms_with_default_parameters() {
    assert_conforms(|| Box::new(Grid::uniform()));
    assert_conforms(|| Box::new(Grid::hierarchical()));
}

#[test]
fn conforms_on_the_parallel_paths_with_several_cell_sizes() {
    on_two_threads(|| {
        for kind in KINDS {
            for (factor, size) in [(2.0, 0.0), (0.25, 0.0), (1.0, 0.0), (8.0, 0.0), (2.0, 0.3), (2.0, 40.0)] {
                assert_conforms(|| Box::new(make(kind, factor, size, FORCED)));
            }
        }
    });
}

/// Every parallel section runs under the kit, at a forced threshold and at the shipped one (the kit's 12 000-body
/// sequence), on a pool of three threads: the body pass, the partitions' builds, the finer levels' cubes and the
/// searches.
#[test]
fn parallel_paths_run_under_the_kit() {
    for kind in KINDS {
        let make = move || Box::new(Grid::new(kind, GridConfig::default())) as Box<dyn Broadphase>;
        assert_parallel_paths(&make, &["grid bodies", "grid parts", "grid search"]);
        // The cubes are cut only where a coarser level scans a finer one: among the kit's scenes (forced
        // threshold), not in its large sequence of one size; the shipped threshold's cubes are run by
        // `cubes::tests::cubes_on_the_shipped_parallel_path`. Cut wherever they can be, the kit's answers hold.
        // (The config made inside: the kit forces its threshold through the default parallelism.)
        let make = move || {
            Box::new(Grid::new(kind, GridConfig { cubes: Cubing::Always, ..GridConfig::default() }))
                as Box<dyn Broadphase>
        };
        let ran = check_parallel(&make, 3).expect("conforms");
        assert!(ran.forced.iter().any(|&(s, count)| s == "grid cubes" && count > 0), "{kind:?}: {ran:?}");
    }
}

#[test]
fn snapshots_of_small_scenes() {
    for kind in KINDS {
        for scene in snapshot_scenes() {
            let mut grid = Grid::new(kind, GridConfig::default());
            let name = format!("{}-{}", grid.name(), scene.name);
            insta::assert_snapshot!(name, pair_snapshot(&mut grid, scene.name));
        }
    }
}

#[test]
fn far_apart_clusters_in_a_huge_world() {
    let mut rng = Rng::new(9);
    let mut aabbs = Vec::new();
    for c in 0..8 {
        let center = Vec3::new((c & 1) as f32, (c >> 1 & 1) as f32, (c >> 2) as f32) * 1.0e5 - 5.0e4;
        for _ in 0..400 {
            aabbs.push(Aabb::from_center_radius(center + rng.point_in(Vec3::splat(-20.0), Vec3::splat(20.0)), 0.8));
        }
    }
    on_two_threads(|| {
        for kind in KINDS {
            let mut grid = make(kind, 2.0, 0.0, FORCED);
            assert_matches_reference(&mut grid, &aabbs, &format!("{kind:?}"));
        }
    });
}

/// Invalid boxes (a NaN, an infinity, min > max) overlap nothing: `InvalidBoxes::OverlapNothing` leaves them out
/// and answers the reference pairs of the valid boxes alone, whatever the invalid ones would have straddled; the
/// invalid ones are counted. (Under `InvalidBoxes::Panic` grids panic instead: `scatter`'s tests check that message.)
#[test]
fn invalid_boxes_overlap_nothing_and_never_corrupt_the_answer() {
    let mut rng = Rng::new(21);
    let mut aabbs: Vec<Aabb> =
        (0..3000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(40.0)), 0.8)).collect();
    let bad = [
        Aabb::new(Vec3::new(f32::NAN, 1.0, 1.0), Vec3::splat(2.0)),
        Aabb::new(Vec3::splat(-1.0), Vec3::new(50.0, f32::INFINITY, 50.0)),
        Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY)),
        Aabb::new(Vec3::new(30.0, 10.0, 10.0), Vec3::new(10.0, 30.0, 30.0)),
        Aabb::EMPTY,
    ];
    for (k, b) in bad.iter().enumerate() {
        aabbs[k * 500 + 7] = *b;
    }
    let valid: Vec<bool> = aabbs.iter().map(|b| b.is_valid()).collect();
    let mut want = PairList::new();
    reference_pairs(&aabbs, &mut want);
    want.as_mut_vec().retain(|p| valid[p.a as usize] && valid[p.b as usize]);
    on_two_threads(|| {
        for kind in KINDS {
            for parallelism in [FORCED, Parallelism::SERIAL] {
                let mut grid = make(kind, 4.0, 0.0, parallelism);
                let mut out = PairList::new();
                grid.find_pairs(&Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::OverlapNothing), &mut out);
                grid.validate().unwrap();
                out.sort();
                assert_eq!(out, want, "{kind:?}");
                assert_eq!(grid.stats().get("invalid_boxes"), Some(bad.len() as f64));
            }
        }
    });
}

/// Huge but finite coordinates stay correct: clusters at ±1e30, ±1e20 and near the origin, boxes from a millionth
/// to 1e28 wide, one box from −3e38 to 3e38.
#[test]
fn huge_coordinates_stay_correct() {
    let mut rng = Rng::new(33);
    let mut aabbs = Vec::new();
    for center in [1.0e30f32, -1.0e30, 1.0e20, -4.0e20, 0.0] {
        let scale = if center == 0.0 { 1.0 } else { center.abs() * 1.0e-3 };
        for _ in 0..300 {
            let c = Vec3::splat(center) + rng.point_in(Vec3::splat(-scale), Vec3::splat(scale));
            aabbs.push(Aabb::from_center_radius(c, scale * rng.range_f32(0.001, 0.2)));
        }
    }
    aabbs.push(Aabb::new(Vec3::splat(-3.0e38), Vec3::splat(3.0e38)));
    aabbs.push(Aabb::from_center_radius(Vec3::splat(1.0e30), 1.0e28));
    on_two_threads(|| {
        for kind in KINDS {
            for parallelism in [FORCED, Parallelism::SERIAL] {
                let out =
                    assert_matches_reference(&mut make(kind, 4.0, 0.0, parallelism), &aabbs, &format!("{kind:?}"));
                assert!(out.len() > aabbs.len(), "the giant box overlaps everything");
            }
        }
    });
}

/// One box covering the world among many small ones costs a pass over them, not a square: it lives alone at a
/// level of its own and scans every column of the small ones' level once. The tests stay within a few per body,
/// and the pairs are the reference's.
#[test]
fn one_huge_body_among_many_small_is_linear() {
    let mut rng = Rng::new(8);
    let n = 20_000;
    let mut aabbs: Vec<Aabb> =
        (0..n).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(200.0)), 0.5)).collect();
    aabbs[n / 2] = Aabb::new(Vec3::splat(-10.0), Vec3::splat(210.0));
    for kind in KINDS {
        let mut grid = Grid::new(kind, GridConfig::default());
        assert_matches_reference(&mut grid, &aabbs, &format!("{kind:?}"));
        let stats = grid.stats();
        assert!(stats.pair_tests < 8 * n as u64, "{kind:?}: {stats}");
        assert_eq!(stats.get("levels"), Some(2.0), "{kind:?}: {stats}");
        let rows = stats.get("scanned_rows").unwrap();
        assert!((1.0..=1024.0).contains(&rows), "{kind:?}: the huge body scans each row of the torus once: {stats}");
    }
}

/// The worst case: every box in one cell. All n(n − 1)/2 pairs, each reported once, by sweeps in one bucket.
#[test]
fn everything_in_one_cell_is_every_pair() {
    let mut rng = Rng::new(5);
    let aabbs: Vec<Aabb> =
        (0..1500).map(|_| Aabb::from_center_radius(Vec3::splat(3.0) + rng.unit_vector() * 0.01, 1.0)).collect();
    for kind in KINDS {
        let mut grid = make(kind, 4.0, 0.0, Parallelism::SERIAL);
        let out = assert_matches_reference(&mut grid, &aabbs, &format!("{kind:?}"));
        assert_eq!(out.len(), 1500 * 1499 / 2);
        let stats = grid.stats();
        // One cell, or a cell boundary through the crowd: two.
        assert!(stats.get("max_occupancy").unwrap() >= 750.0, "{stats}");
    }
}

#[test]
fn stats_count_the_cells_and_the_work() {
    // Cells 4 wide (fixed) from (y, z) = (0.5, 0.5), the sampled bounds' corner: boxes 0 and 1 overlap in cell
    // (0, 0); box 2 is alone in cell (2, 2); box 3 straddles z = 4.5, over cells (2, 0) and (2, 1), and lives in
    // (2, 0), the cell of its min corner.
    let aabbs = [
        Aabb::new(Vec3::new(0.0, 0.5, 0.5), Vec3::new(1.0, 1.5, 1.5)),
        Aabb::new(Vec3::new(0.5, 1.0, 1.0), Vec3::new(1.5, 2.0, 2.0)),
        Aabb::new(Vec3::new(0.0, 8.5, 8.5), Vec3::new(1.0, 9.5, 9.5)),
        Aabb::new(Vec3::new(0.0, 8.5, 3.5), Vec3::new(1.0, 9.5, 4.5)),
    ];
    let mut grid = make(Kind::Uniform, 4.0, 4.0, Parallelism::SERIAL);
    let out = assert_matches_reference(&mut grid, &aabbs, "four");
    assert_eq!(out.len(), 1);
    let s = grid.stats();
    assert_eq!(s.get("cell_size"), Some(4.0), "{s}");
    assert_eq!((s.get("partitions"), s.get("levels"), s.get("scanned_rows")), (Some(1.0), Some(1.0), Some(0.0)));
    // Four entries, one per body, in three occupied cells of the bounds' 3 × 3, on a torus of 4 × 4.
    assert_eq!(s.get("cells"), Some(16.0), "{s}");
    assert_eq!(s.get("entries"), Some(4.0), "{s}");
    assert_eq!(s.get("occupied_cells"), Some(3.0), "{s}");
    assert_eq!(s.get("max_occupancy"), Some(2.0));
    assert_eq!(s.get("mean_occupancy"), Some(4.0 / 3.0));
    assert_eq!(s.pair_tests, 1, "one bucket of two, the others' neighbours empty: one test");
    assert!(s.work > 0 && s.bytes_touched > 0, "{s}");
}

#[test]
fn params_map_to_the_config() {
    let p =
        collide_broadphase::Params::from_numbers(crate::PARAMS, [("cell_factor", 3.0), ("cell_size", 2.5)]).unwrap();
    let grid = Grid::from_params(Kind::Hierarchical, &p);
    assert_eq!(grid.config().cell_factor, 3.0);
    assert_eq!(grid.config().cell_size, 2.5);
    assert_eq!(grid.name(), "hgrid");
    let d = Grid::from_params(Kind::Uniform, &collide_broadphase::Params::defaults(crate::PARAMS));
    assert_eq!((d.name(), d.config()), ("grid", GridConfig::default()));
    assert!(collide_broadphase::Params::from_numbers(crate::PARAMS, [("cell_factor", 0.1)]).is_err());
    // A factor below 1/4 and a non-finite cell size are clamped.
    let clamped =
        Grid::new(Kind::Uniform, GridConfig { cell_factor: 0.01, cell_size: f32::NAN, ..GridConfig::default() });
    assert_eq!((clamped.config().cell_factor, clamped.config().cell_size), (0.25, 0.0));
}

/// The debug view draws the occupied cells: every body's min corner lies in a drawn cell of its level, and each
/// cell is drawn once.
#[test]
fn debug_geometry_draws_every_occupied_cell_once() {
    let mut rng = Rng::new(12);
    let aabbs: Vec<Aabb> = (0..2000)
        .map(|i| {
            Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(60.0)), if i % 10 == 0 { 3.0 } else { 0.4 })
        })
        .collect();
    on_two_threads(|| {
        for kind in KINDS {
            let mut grid = make(kind, 4.0, 0.0, FORCED);
            grid.find_pairs(&Frame::new(&aabbs), &mut PairList::new());
            let mut geometry = collide_broadphase::DebugGeometry::default();
            grid.debug_geometry(&mut geometry);
            assert!(!geometry.boxes.is_empty());
            for b in &aabbs {
                assert!(geometry.boxes.iter().any(|d| d.aabb.contains_point(b.min)), "{kind:?}: {b:?} in no cell");
            }
            for (i, d) in geometry.boxes.iter().enumerate() {
                let same = geometry.boxes[i + 1..].iter().filter(|e| e.aabb == d.aabb && e.depth == d.depth).count();
                assert_eq!(same, 0, "{kind:?}: cell {:?} drawn twice", d.aabb);
            }
        }
    });
}

/// The shipped threshold: a scene above it takes the parallel paths with default tuning on two threads (several
/// body chunks and partitions), and the same scene below it, serial, answers the same.
#[test]
fn default_parallelism_above_and_below_the_threshold() {
    let mut rng = Rng::new(19);
    let aabbs: Vec<Aabb> = (0..Parallelism::DEFAULT_MIN_WORK + 3000)
        .map(|i| {
            Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(70.0)), if i % 10 == 0 { 2.0 } else { 0.5 })
        })
        .collect();
    on_two_threads(|| {
        for kind in KINDS {
            let mut grid = Grid::new(kind, GridConfig::default());
            assert_matches_reference(&mut grid, &aabbs, &format!("{kind:?} parallel"));
            assert!(grid.stats().get("partitions").unwrap() >= 8.0, "{}", grid.stats());
            let small = &aabbs[..Parallelism::DEFAULT_MIN_WORK - 1];
            assert_matches_reference(&mut grid, small, &format!("{kind:?} serial"));
        }
    });
}

/// Mixed sizes: the levels follow the planner's cost model, and every body is stored once whatever it chooses. At
/// 1:8 with a tenth of the bodies large (the mixed-sizes scene, sparse), cells sized for the large bodies cost
/// about what two levels do; at 1:64 with a few large bodies, merging would put every small body in a few huge
/// cells: two levels, the large bodies scanning the small ones' columns. The pairs are the reference's.
#[test]
fn mixed_sizes_choose_their_levels() {
    let mut rng = Rng::new(2);
    let eight: Vec<Aabb> = (0..8000)
        .map(|i| {
            Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(150.0)), if i % 10 == 0 { 4.0 } else { 0.5 })
        })
        .collect();
    let sixty_four: Vec<Aabb> = (0..8000)
        .map(|i| {
            Aabb::from_center_radius(
                rng.point_in(Vec3::ZERO, Vec3::splat(300.0)),
                if i % 400 == 0 { 32.0 } else { 0.5 },
            )
        })
        .collect();
    for kind in KINDS {
        let mut grid = make(kind, 1.1, 0.0, Parallelism::SERIAL);
        assert_matches_reference(&mut grid, &eight, &format!("{kind:?} 1:8"));
        let s = grid.stats();
        assert_eq!(s.get("entries"), Some(8000.0), "{s}");
        assert!(s.get("levels").unwrap() <= 2.0, "{s}");
        assert_matches_reference(&mut grid, &sixty_four, &format!("{kind:?} 1:64"));
        let s = grid.stats();
        assert_eq!((s.get("entries"), s.get("levels")), (Some(8000.0), Some(2.0)), "{s}");
        assert!(s.get("scanned_rows").unwrap() >= 20.0, "each large body scans rows of the small ones: {s}");
    }
}

/// A frame with fewer bodies after a larger one, an empty frame, a reset and a resize all leave a valid grid that
/// answers the next frame right.
#[test]
fn shrinking_empty_reset_and_resize() {
    let mut rng = Rng::new(4);
    let big: Vec<Aabb> =
        (0..5000).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), 0.6)).collect();
    on_two_threads(|| {
        for kind in KINDS {
            let mut grid = make(kind, 4.0, 0.0, FORCED);
            assert_matches_reference(&mut grid, &big, "big");
            assert_matches_reference(&mut grid, &big[..300], "small");
            assert_matches_reference(&mut grid, &[], "empty");
            grid.reset();
            grid.validate().unwrap();
            assert_matches_reference(&mut grid, &big[100..900], "after reset");
            grid.on_resize(&collide_broadphase::Resize { old_to_new: &[0, 1], new_len: 3 });
            grid.validate().unwrap();
            assert_matches_reference(&mut grid, &big[..4000], "after resize");
        }
    });
}

/// Power-law sizes (radii from 0.5 up with density `r^−2.5`, up to a fifth of the world): every level of `hgrid`
/// present, the coarse bodies' scans of every finer level; and the pairs written straight into the output
/// through frames whose pair count grows (blocks overflow into the spills) and shrinks (holes below the total,
/// filled from the pairs past it), on the forced parallel paths and serially. Each frame against brute force,
/// and the same frames in the same order twice give the same output, pair for pair.
#[test]
fn power_law_sizes_and_blocks_that_overflow_and_shrink() {
    let frame = |seed: u64, scale: f32| -> Vec<Aabb> {
        let mut rng = Rng::new(seed);
        let (w, a) = (30.0f64, 1.0 - 2.5f64);
        let big = 0.2 * w;
        (0..2500)
            .map(|_| {
                let u = f64::from(rng.next_f32());
                let r = ((0.5f64.powf(a) - u * (0.5f64.powf(a) - big.powf(a))).powf(1.0 / a) as f32) * scale;
                Aabb::from_center_radius(rng.point_in(Vec3::splat(-15.0 + r), Vec3::splat(15.0 - r)), r)
            })
            .collect()
    };
    // Sparse, dense (about four times the pairs), sparse again, dense again.
    let frames = [frame(1, 0.6), frame(2, 1.0), frame(3, 0.6), frame(4, 1.0), frame(4, 1.0)];
    on_two_threads(|| {
        for kind in KINDS {
            for parallelism in [FORCED, Parallelism::SERIAL] {
                let mut grid = make(kind, crate::DEFAULT_CELL_FACTOR, 0.0, parallelism);
                let mut last = PairList::new();
                for (f, aabbs) in frames.iter().enumerate() {
                    let out = assert_matches_reference(&mut grid, aabbs, &format!("{kind:?} frame {f}"));
                    last = out;
                }
                assert!(grid.stats().get("levels").unwrap() >= 3.0, "{:?}", grid.stats());
                // Two grids fed the same frames write the same pairs in the same order.
                let (mut a, mut b) = (make(kind, 1.1, 0.0, parallelism), make(kind, 1.1, 0.0, parallelism));
                let (mut out_a, mut out_b) = (PairList::new(), PairList::new());
                for aabbs in &frames {
                    a.find_pairs(&Frame::new(aabbs), &mut out_a);
                    b.find_pairs(&Frame::new(aabbs), &mut out_b);
                    assert_eq!(out_a.as_slice(), out_b.as_slice(), "{kind:?}: the output's order");
                }
                out_a.sort();
                assert_eq!(out_a, last);
            }
        }
    });
}

/// The searches collect the comparisons that meet into batches of [`FOUND`](crate::search) candidates, without a
/// branch on whether each met: a bucket of one to four records (`few`), one of a dozen or of twenty (`all_pairs`, its own records too) and a
/// coarse body over a finer level's column (its columns, and its cubes) each meet far more than a batch here —
/// long boxes along x beside a neighbour bucket of 150 boxes strung along them, half of which overlap them on y
/// — and every pair of every batch is found: against brute force.
#[test]
fn candidates_past_a_batch_are_all_tested() {
    let strung = |rng: &mut Rng, out: &mut Vec<Aabb>| {
        for i in 0..150 {
            // Every other one beside the long boxes on y, not over them.
            let y = if i % 2 == 0 { 0.3 } else { 0.93 };
            let x = i as f32 * 0.66 + rng.next_f32() * 0.1;
            out.push(Aabb::new(Vec3::new(x, y, 1.1), Vec3::new(x + 0.5, y + 0.05, 1.4)));
        }
    };
    for long in [1, 2, 3, 4, 12, 20] {
        let mut rng = Rng::new(long as u64);
        let mut aabbs: Vec<Aabb> = (0..long)
            .map(|i| {
                let d = i as f32 * 0.01;
                Aabb::new(Vec3::new(d, 0.1 + d, 0.1), Vec3::new(100.0 - d, 0.9, 1.2))
            })
            .collect();
        strung(&mut rng, &mut aabbs);
        for kind in KINDS {
            let mut grid = make(kind, 1.0, 1.0, Parallelism::SERIAL);
            assert_matches_reference(&mut grid, &aabbs, &format!("{kind:?}, {long} long boxes"));
        }
    }
    // A coarse body over a column of finer ones, read by its columns and by its cubes.
    let mut aabbs = vec![Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(100.0, 3.5, 3.5))];
    strung(&mut Rng::new(9), &mut aabbs);
    for cubes in [Cubing::Never, Cubing::Always] {
        let config = GridConfig { cell_size: 1.0, cubes, ..GridConfig::default() };
        let mut grid = Grid::new(Kind::Hierarchical, config);
        let out = assert_matches_reference(&mut grid, &aabbs, &format!("one coarse body, cubes {cubes:?}"));
        assert!(out.len() > 16 * 4, "{} pairs: the batches never filled", out.len());
    }
}
