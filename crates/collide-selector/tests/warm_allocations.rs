//! A warmed-up `auto` allocates nothing per frame: its features, model, policy and decision log work in buffers
//! allocated once, and probes and switches reuse the candidates' own buffers. Its own test binary, because it
//! counts every allocation of the process with a global allocator.
//!
//! The selector runs in its forced-switch mode, which hands over to the next candidate every few frames through
//! a probe (warm start, side-by-side frames, switch): so the warm-up takes every candidate through every density
//! of the scene, and the measured frames contain probes, switches and log entries, not only quiet frames — the
//! same code paths the policy drives, on a schedule that does not depend on the machine's timing. rayon's job
//! queue may still allocate a block now and then, so the bound is a few kilobytes over many frames, where
//! rebuilding any structure would cost hundreds of kilobytes per frame.

use collide_broadphase::{Broadphase, Frame, PairList};
use collide_math::{Aabb, Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};
use collide_sap::{MultiBoxPruning, SweepAndPrune};
use collide_selector::{Candidate, PolicyConfig, Prior, Selector};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the bytes every allocation and growing reallocation asks for.
struct Counting;

static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY (lint exception): a global allocator is the only way to observe allocations; it forwards every call to
// `System` unchanged and only adds a relaxed counter.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait; every call is forwarded to System")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.fetch_add(new_size.saturating_sub(layout.size()), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Frame `f` of a cycle of `period` frames: a cloud that breathes between its full size and a dense half of it,
/// so that the candidates trade places and every buffer meets its largest demand in the first cycle.
fn frame(base: &[Vec3], f: usize, period: usize, out: &mut Vec<Aabb>) {
    let phase = (f % period) as f32 / period as f32;
    let scale = 0.5 + 0.5 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    let centre = Vec3::splat(30.0);
    out.clear();
    out.extend(base.iter().map(|&c| Aabb::from_center_radius(centre + (c - centre) * scale, 0.5)));
}

#[test]
fn a_warm_selector_allocates_nothing_per_frame_even_while_probing_and_switching() {
    let mut rng = Rng::new(11);
    let base: Vec<Vec3> = (0..20_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
    let candidates = vec![
        Candidate { name: "octree-dup", broadphase: Box::new(Octree::new(Variant::Dup, OctreeConfig::default())) },
        Candidate { name: "sap", broadphase: Box::new(SweepAndPrune::default()) },
        Candidate { name: "mbp", broadphase: Box::new(MultiBoxPruning::new(0)) },
    ];
    // Every 6 frames: a 4-frame probe, then the switch.
    let mut auto = Selector::new(candidates, PolicyConfig::default(), Prior::builtin(), 6);
    let (mut aabbs, mut out) = (Vec::new(), PairList::new());
    // 36 frames, a multiple of the 18 it takes to hand over to each of the three candidates once.
    let period = 36;
    for f in 0..4 * period {
        frame(&base, f, period, &mut aabbs);
        auto.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
    }
    assert!(auto.candidates().all(|c| c.frames > 0 || c.probes > 0), "every candidate has run once");
    let (probes, switches) = (auto.totals().probes, auto.totals().switches);
    let frames = 4 * period;
    let before = BYTES.load(Ordering::Relaxed);
    for f in 0..frames {
        frame(&base, f, period, &mut aabbs);
        auto.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
    }
    let per_frame = (BYTES.load(Ordering::Relaxed) - before) / frames;
    assert_eq!(auto.totals().probes - probes, frames as u64 / 6, "the measured frames probed");
    assert_eq!(auto.totals().switches - switches, frames as u64 / 6, "and switched");
    assert!(per_frame < 1024, "{per_frame} bytes allocated per warm frame");
}
