//! A warmed-up octree allocates nothing per frame: node pool, items, presort keys, slabs, layers, strips and pair
//! buffers are all kept across frames. Its own test binary, because it counts every allocation of the process
//! with a global allocator.
//!
//! The scene cycles through the same few configurations, so that after one cycle every buffer has met its
//! largest demand. rayon's job queue may still allocate a block now and then (crossbeam's injector grows by one
//! block per few dozen jobs), so the bound is a few kilobytes over many frames, where rebuilding the buffers
//! would cost megabytes per frame.

use collide_broadphase::conformance::CountingAllocator;
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_math::{Aabb, Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frame `f` of a cycle of `period` frames: a cloud that breathes between its full size and a dense quarter of
/// it (so that both the sparse and the crowded trees are met), with a tenth of the bodies at rest.
fn frame(base: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    let phase = (f % period) as f32 / period as f32;
    let scale = 0.25 + 0.75 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    out.clear();
    out.extend(base.iter().enumerate().map(|(i, &c)| {
        let c = if i % 10 == 0 { c } else { Vec3::splat(30.0) + (c - Vec3::splat(30.0)) * scale };
        Aabb::from_center_radius(c, 0.5)
    }));
}

#[test]
fn a_warm_octree_allocates_nothing_per_frame() {
    let mut rng = Rng::new(5);
    // Enough bodies for the parallel build and search paths (thousands of items).
    let base: Vec<Vec3> = (0..30_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
    let period = 6;
    for variant in [Variant::Dup, Variant::Nodup, Variant::Loose] {
        let mut bp = Octree::new(variant, OctreeConfig::default());
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
            variant.name(),
            aabbs.len() * size_of::<Aabb>()
        );
        assert!(!out.is_empty());
    }
}
