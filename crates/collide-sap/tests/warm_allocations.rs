//! A warmed-up sweep-and-prune family allocates nothing per frame: endpoint arrays, region buffers, the pair set,
//! keys, sweep records and chunk buffers are all kept across frames. Its own test binary, because it counts
//! every allocation of the process with a global allocator.
//!
//! The scene cycles through the same configurations (every body oscillates about its place), so that after one
//! cycle every buffer has met its largest demand. rayon's job queue may still allocate a block now and then, so
//! the bound is a few hundred bytes per frame on average, where rebuilding the buffers would cost megabytes.

use collide_broadphase::conformance::CountingAllocator;
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_math::{Aabb, Rng, Vec3};
use collide_sap::{MultiBoxPruning, PairCount, SortSweep, SweepAndPrune};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frame `f` of a cycle of `period` frames: body `i` at `base[i] + dir[i] · 0.5 · sin(2π f / period)`, slow
/// enough for insertion sort, far enough to cross region borders now and then.
fn frame(base: &[Vec3], dir: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    let s = 0.5 * (f as f32 / period as f32 * std::f32::consts::TAU).sin();
    out.clear();
    out.extend(base.iter().zip(dir).map(|(&c, &d)| Aabb::from_center_radius(c + d * s, 0.5)));
}

/// An algorithm under test: its name, its body count and its constructor.
struct Case {
    name: &'static str,
    bodies: usize,
    make: fn() -> Box<dyn Broadphase>,
}

#[test]
fn a_warm_sweep_and_prune_family_allocates_nothing_per_frame() {
    let mut rng = Rng::new(9);
    let period = 16;
    // Enough bodies for the parallel paths (above the default threshold); pair counting, whose per-axis lists
    // grow as n², on a tenth of them.
    let cases = [
        Case { name: "sap", bodies: 30_000, make: || Box::new(SweepAndPrune::default()) },
        Case { name: "mbp", bodies: 30_000, make: || Box::new(MultiBoxPruning::new(0)) },
        Case { name: "sort-sweep", bodies: 30_000, make: || Box::new(SortSweep::new()) },
        Case { name: "pair-count", bodies: 3_000, make: || Box::new(PairCount::new()) },
    ];
    for Case { name, bodies: n, make } in cases {
        // The same density at every size.
        let width = 90.0 * (n as f32 / 30_000.0).cbrt();
        let base: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(width))).collect();
        let dir: Vec<Vec3> = (0..n).map(|_| rng.unit_vector()).collect();
        let mut bp = make();
        let (mut aabbs, mut out) = (Vec::new(), PairList::new());
        for f in 0..2 * period {
            frame(&base, &dir, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
        }
        let frames = 3 * period;
        let before = CountingAllocator::bytes();
        for f in 0..frames {
            frame(&base, &dir, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
        }
        let per_frame = (CountingAllocator::bytes() - before) / frames;
        assert!(
            per_frame < 1024,
            "{name}: {per_frame} bytes allocated per warm frame (the scene's boxes alone are {} bytes)",
            aabbs.len() * size_of::<Aabb>()
        );
        assert!(!out.is_empty());
        if name == "sap" {
            assert_eq!(bp.stats().get("init"), Some(0.0), "sap: the warm frames are incremental: {}", bp.stats());
            assert!(bp.stats().get("region_transfers").unwrap() > 0.0, "{}", bp.stats());
        }
    }
}
