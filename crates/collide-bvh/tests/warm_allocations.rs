//! A warmed-up BVH allocates nothing per frame: keys, leaf boxes, nodes, the build's atomics, the join's plan and
//! stacks, the dynamic tree's pools, move list, pair cache and chunk buffers are all kept across frames. Its own
//! test binary, because it counts every allocation of the process with a global allocator.
//!
//! Both regimes of `bvh-dynamic` are measured: slow drift (the incremental path: re-insertions, queries, the
//! cache's merges) and a cloud that breathes between its full size and a dense quarter (the bulk rebuild every
//! frame). rayon's job queue may allocate a block now and then, so the bound is a few hundred bytes per frame on
//! average, where rebuilding the buffers would cost megabytes per frame. Drawing the debug geometry into a kept
//! buffer allocates nothing either.

use collide_broadphase::conformance::CountingAllocator;
use collide_broadphase::{Broadphase, DebugGeometry, Frame, PairList};
use collide_bvh::{DynamicBvh, LinearBvh};
use collide_math::{Aabb, Rng, Vec3};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Enough bodies for the parallel paths at the shipped threshold.
const N: usize = 30_000;

/// Frame `f` of a cloud breathing with period `period` between its full size and a dense quarter of it.
fn breathing(base: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    let phase = (f % period) as f32 / period as f32;
    let scale = 0.25 + 0.75 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    out.clear();
    out.extend(
        base.iter().map(|&c| Aabb::from_center_radius(Vec3::splat(40.0) + (c - Vec3::splat(40.0)) * scale, 0.5)),
    );
}

/// Frame `f` of a slow drift: each body on a small circle of its own, so that the scene comes back to itself and
/// every buffer meets its largest demand within the warm-up.
fn drifting(base: &[Vec3], f: usize, out: &mut Vec<Aabb>) {
    out.clear();
    out.extend(base.iter().enumerate().map(|(i, &c)| {
        let angle = (f as f32 * 0.004 + i as f32) * std::f32::consts::TAU;
        Aabb::from_center_radius(c + Vec3::new(angle.cos(), angle.sin(), 0.0) * 0.8, 0.5)
    }));
}

/// The mean bytes allocated per call over `frames` calls after `warm` calls of `scene`, and the sums of the
/// named counters `totals` over the measured calls.
fn bytes_per_frame<const K: usize>(
    bp: &mut dyn Broadphase,
    warm: usize,
    frames: usize,
    scene: impl Fn(usize, &mut Vec<Aabb>),
    totals: [&str; K],
) -> (usize, [f64; K]) {
    let (mut aabbs, mut out) = (Vec::new(), PairList::new());
    let mut sums = [0.0; K];
    for f in 0..warm {
        scene(f, &mut aabbs);
        bp.find_pairs(&Frame::new(&aabbs), &mut out);
    }
    let before = CountingAllocator::bytes();
    for f in warm..warm + frames {
        scene(f, &mut aabbs);
        bp.find_pairs(&Frame::new(&aabbs), &mut out);
        let s = bp.stats();
        for (sum, name) in sums.iter_mut().zip(totals) {
            *sum += s.get(name).unwrap_or(0.0);
        }
    }
    assert!(!out.is_empty());
    let per_frame = (CountingAllocator::bytes() - before) / frames;
    // The debug view draws the structure every frame into a kept buffer: once it has grown, nothing either.
    let mut geometry = DebugGeometry::default();
    bp.debug_geometry(&mut geometry);
    let drawn = CountingAllocator::bytes();
    geometry.clear();
    bp.debug_geometry(&mut geometry);
    assert_eq!(CountingAllocator::bytes(), drawn, "{}: the debug geometry allocated", bp.name());
    assert!(!geometry.boxes.is_empty());
    (per_frame, sums)
}

#[test]
fn a_warm_bvh_allocates_nothing_per_frame() {
    let mut rng = Rng::new(5);
    let base: Vec<Vec3> = (0..N).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(80.0))).collect();
    let period = 6;
    let breathe = |f, out: &mut Vec<Aabb>| breathing(&base, f, period, out);
    let (lbvh, _) = bytes_per_frame(&mut LinearBvh::new(), 2 * period, 4 * period, breathe, []);
    assert!(lbvh < 1024, "lbvh: {lbvh} bytes allocated per warm frame");
    let (rebuilding, [rebuilt]) = bytes_per_frame(&mut DynamicBvh::new(), 2 * period, 4 * period, breathe, ["rebuilt"]);
    assert!(rebuilding < 1024, "bvh-dynamic, rebuilding: {rebuilding} bytes allocated per warm frame");
    assert_eq!(rebuilt, 4.0 * period as f64, "every breathing frame is a rebuild");
    // One full turn of the drift (250 frames) warms every buffer; the next turn is measured.
    let drift_scene = |f, out: &mut Vec<Aabb>| drifting(&base, f, out);
    let (drift, [reinserted, rebuilt]) =
        bytes_per_frame(&mut DynamicBvh::new(), 250, 250, drift_scene, ["reinserted", "rebuilt"]);
    assert!(drift < 1024, "bvh-dynamic, drifting: {drift} bytes allocated per warm frame");
    assert!(
        reinserted > 250.0 && rebuilt < 25.0,
        "mostly the incremental path: {reinserted} re-insertions, {rebuilt} rebuilds"
    );
}
