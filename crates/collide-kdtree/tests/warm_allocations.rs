//! A warmed-up kd tree allocates nothing per frame: nodes, spans, items, the update's movers and arrivals, the
//! planner's scratch and the search's layers and pair buffers are all kept across frames. Its own test binary,
//! because it counts every allocation of the process with a global allocator.
//!
//! The scene cycles through the same configurations, so that every buffer meets its largest demand within a few
//! cycles — including the edits: the cloud breathes between its full size and a dense quarter, so leaves split
//! and collapse and the balance check re-plans nodes, every cycle. The tree's edits follow the cloud from a
//! history of their own (a re-plan's sample is taken in the order its bodies were left in), so the shape, and
//! with it the search's pair buffer per chunk, settles after a few cycles, not always after the first: the
//! warm-up runs cycles until [`QUIET_CYCLES`] in a row allocate nothing, within [`MAX_WARMUP_CYCLES`]. A tree that
//! allocates per frame or per edit never gets there. rayon's job queue may still allocate a block now and then,
//! so the bound after the warm-up is a few hundred bytes per frame, where rebuilding the buffers would cost
//! megabytes.

use collide_broadphase::conformance::{CountingAllocator, PermutingRun};
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_kdtree::{KdConfig, KdTree};
use collide_math::{Aabb, Rng, Vec3};
use std::sync::{Mutex, PoisonError};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frame `f` of a cycle of `period` frames: a cloud that breathes between its full size and a dense quarter of it
/// around an off-centre point, with a tenth of the bodies at rest.
fn frame(base: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    let phase = (f % period) as f32 / period as f32;
    let scale = 0.25 + 0.75 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    let toward = Vec3::new(45.0, 40.0, 20.0);
    out.clear();
    out.extend(base.iter().enumerate().map(|(i, &c)| {
        let c = if i % 10 == 0 { c } else { toward + (c - toward) * scale };
        Aabb::from_center_radius(c, 0.5)
    }));
}

/// The most warm-up cycles before a test gives up, and the quiet cycles in a row that end the warm-up.
const MAX_WARMUP_CYCLES: usize = 20;
const QUIET_CYCLES: usize = 2;

/// The tests of this binary count the allocations of the whole process: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_warm_kd_tree_allocates_nothing_per_frame() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    // Enough bodies for the parallel update and search (thousands of items), on two threads.
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
    let period = 12;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
    pool.install(|| {
        // A balance check every other frame, so that re-plans happen within every cycle.
        let mut bp = KdTree::new(KdConfig { period: 1.0 / 30.0, ..KdConfig::default() });
        let (mut aabbs, mut out) = (Vec::new(), PairList::new());
        let (mut quiet, mut cycles) = (0, 0);
        while quiet < QUIET_CYCLES {
            assert!(cycles < MAX_WARMUP_CYCLES, "still allocating after {cycles} cycles of warm-up");
            let before = CountingAllocator::bytes();
            for f in 0..period {
                frame(&base, f, period, &mut aabbs);
                bp.find_pairs(&Frame::new(&aabbs).with_step((cycles * period + f) as u64), &mut out);
            }
            quiet = if CountingAllocator::bytes() == before { quiet + 1 } else { 0 };
            cycles += 1;
        }
        let frames = 4 * period;
        let (mut rebalanced, mut splits) = (0.0, 0.0);
        let before = CountingAllocator::bytes();
        for f in 0..frames {
            frame(&base, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
            let stats = bp.stats();
            rebalanced += stats.get("rebalanced").unwrap_or(0.0);
            splits += stats.get("splits").unwrap_or(0.0);
        }
        let per_frame = (CountingAllocator::bytes() - before) / frames;
        assert!(
            per_frame < 512,
            "{per_frame} bytes allocated per warm frame (the scene's boxes alone are {} bytes)",
            aabbs.len() * size_of::<Aabb>()
        );
        assert!(!out.is_empty());
        assert!(rebalanced > 0.0 && splits > 0.0, "the edits ran: {rebalanced} re-balanced, {splits} splits");
    });
}

/// A warm kd tree follows a permutation (the simulation's spatial reorder, every 6 frames: a random permutation
/// and a spatial sort in turn) without allocating: its `on_resize` renames the items in place, allocating nothing
/// at all, and the frames keep the bound of the others — with the breathing cloud's splits, collapses and re-plans
/// going on, with and without the hint.
#[test]
fn a_warm_kd_tree_follows_permutations_without_allocating() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
    let period = 12;
    let mut boxes = Vec::new();
    let mut frames = Vec::new();
    for f in 0..period {
        frame(&base, f, period, &mut boxes);
        frames.push(boxes.clone());
    }
    let scene = |f: usize, id: u32| frames[f % period][id as usize];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
    pool.install(|| {
        for hinted in [false, true] {
            let mut bp = KdTree::new(KdConfig { period: 1.0 / 30.0, ..KdConfig::default() });
            let mut run = PermutingRun::new(base.len(), 6, hinted);
            let warm = run.run_until_quiet(&mut bp, (period, QUIET_CYCLES, MAX_WARMUP_CYCLES), &scene);
            warm.unwrap_or_else(|last| panic!("hinted {hinted}: still allocating: {last:?}"));
            let calls = 4 * period;
            let seen = run.run(&mut bp, calls, &scene);
            assert_eq!(seen.permutations, 8, "hinted {hinted}");
            assert_eq!(seen.resize, 0, "hinted {hinted}: the permutations' on_resize allocated {} bytes", seen.resize);
            let per_frame = seen.frames / calls;
            assert!(per_frame < 512, "hinted {hinted}: {per_frame} bytes allocated per warm frame");
            assert!(!run.last_pairs().is_empty());
        }
    });
}
