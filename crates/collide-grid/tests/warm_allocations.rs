//! A warmed-up grid allocates nothing per frame: the planner's sample, the body chunks' per-partition vectors, every
//! partition's records, extents, keys, offsets and pair buffer are kept across frames. Its own test binary, because it
//! counts every allocation of the process with a global allocator.
//!
//! The scene cycles through the same few configurations, so that after one cycle every buffer has met its largest
//! demand: a cloud that breathes between its full size and a dense quarter of it, a tenth of the bodies 8× larger
//! (two levels for the hierarchical grid). rayon's job queue may still allocate a block now and then, so the bound
//! is a few hundred bytes per frame over many frames, where rebuilding the buffers would cost megabytes.

use collide_broadphase::conformance::{CountingAllocator, PermutingRun};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList};
use collide_grid::{Grid, GridConfig, Kind};
use collide_math::{Rng, Vec3};
use std::sync::{Mutex, PoisonError};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frame `f` of a cycle of `period` frames.
fn frame(base: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    out.clear();
    out.extend((0..base.len()).map(|i| body(base, f, period, i)));
}

/// Body `i`'s box at frame `f` of that cycle.
fn body(base: &[Vec3], f: usize, period: usize, i: usize) -> Aabb {
    let phase = (f % period) as f32 / period as f32;
    let scale = 0.25 + 0.75 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    let c = Vec3::splat(40.0) + (base[i] - Vec3::splat(40.0)) * scale;
    Aabb::from_center_radius(c, if i.is_multiple_of(10) { 4.0 } else { 0.5 })
}

/// The tests of this binary count the allocations of the whole process: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_warm_grid_allocates_nothing_per_frame() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    // Enough bodies for the parallel body pass and partitions (above the default threshold of 8192).
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(80.0))).collect();
    let period = 6;
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let mut bp = Grid::new(kind, GridConfig::default());
        let (mut aabbs, mut out) = (Vec::new(), PairList::new());
        for f in 0..2 * period {
            frame(&base, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs), &mut out);
        }
        let frames = 4 * period;
        let before = CountingAllocator::bytes();
        for f in 0..frames {
            frame(&base, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs), &mut out);
        }
        let per_frame = (CountingAllocator::bytes() - before) / frames;
        assert!(
            per_frame < 1024,
            "{}: {per_frame} bytes allocated per warm frame (the scene's boxes alone are {} bytes)",
            bp.name(),
            aabbs.len() * size_of::<Aabb>()
        );
        assert!(!out.is_empty());
    }
}

/// A warm grid takes a permutation (the simulation's spatial reorder, every 5 frames: a random permutation and a
/// spatial sort in turn) for free: its `on_resize` allocates nothing and keeps the plan and the levels met last, so
/// the frames after it allocate no more than the others and make one body pass, like the frame before.
#[test]
fn a_warm_grid_follows_permutations_without_allocating() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(80.0))).collect();
    let period = 6;
    let scene = |f: usize, id: u32| body(&base, f, period, id as usize);
    for kind in [Kind::Uniform, Kind::Hierarchical] {
        let mut bp = Grid::new(kind, GridConfig::default());
        let mut run = PermutingRun::new(base.len(), 5, false);
        // Warm through a whole cycle of the breathing and the permutations together: a spatial sort every 20
        // calls meets the breathing's 6 phases at calls 10, 30 and 50 in three different phases, so the cycle is
        // 60 calls, and the body chunks' vectors per partition meet their largest demand (a spatial sort at the
        // largest extent) only within it.
        run.run(&mut bp, 10 * period, &scene);
        let calls = 5 * period;
        let seen = run.run(&mut bp, calls, &scene);
        assert_eq!(seen.permutations, 6, "{}", bp.name());
        assert_eq!(seen.resize, 0, "{}: on_resize allocated {} bytes", bp.name(), seen.resize);
        let per_frame = seen.frames / calls;
        assert!(per_frame < 1024, "{}: {per_frame} bytes allocated per warm frame", bp.name());
        for s in &seen.after {
            assert_eq!(s.get("body_passes"), Some(1.0), "{}: {s}", bp.name());
        }
        assert!(!run.last_pairs().is_empty());
    }
}
