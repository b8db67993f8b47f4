//! A warmed-up kd tree allocates nothing per frame: nodes, spans, items, the update's movers and arrivals, the
//! planner's scratch and the search's layers and pair buffers are all kept across frames. Its own test binary,
//! because it counts every allocation of the process with a global allocator.
//!
//! The scene cycles through the same configurations, so that after one cycle every buffer has met its largest
//! demand — including the edits: the cloud breathes between its full size and a dense quarter, so leaves split
//! and collapse and the balance check re-plans nodes, every cycle. rayon's job queue may still allocate a block
//! now and then, so the bound is a few hundred bytes per frame, where rebuilding the buffers would cost
//! megabytes.

use collide_broadphase::conformance::CountingAllocator;
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_kdtree::{KdConfig, KdTree};
use collide_math::{Aabb, Rng, Vec3};

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

#[test]
fn a_warm_kd_tree_allocates_nothing_per_frame() {
    let mut rng = Rng::new(5);
    // Enough bodies for the parallel update and search (thousands of items), on two threads.
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
    let period = 12;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
    pool.install(|| {
        // A balance check every other frame, so that re-plans happen within every cycle.
        let mut bp = KdTree::new(KdConfig { period: 1.0 / 30.0, ..KdConfig::default() });
        let (mut aabbs, mut out) = (Vec::new(), PairList::new());
        for f in 0..3 * period {
            frame(&base, f, period, &mut aabbs);
            bp.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
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
