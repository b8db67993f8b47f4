//! "Nothing in the step allocates once warm": a counting allocator (this test binary's own, so that it sees only
//! this file's threads) counts the allocations of simulation steps after warm-up — response on, the contacts
//! flowing to resolution, the motion hint, a scripted scene — with the brute-force reference, whose own
//! buffers are allocation-free once grown, so that what is counted is the step's.
//!
//! The count is global, not per thread: the step runs on rayon's threads (`on_worker`), and its passes on several
//! of them. Each config runs in a local pool of two threads, once with every parallel section forced on and once
//! at the shipped threshold (with enough bodies for the step's own passes to go parallel there too).
#![allow(unsafe_code, reason = "a GlobalAlloc impl is unsafe by definition; it only forwards to System")]

use collide_broadphase::Parallelism;
use collide_broadphase::conformance::{in_pool, with_default_parallelism};
use collide_sim::{Plan, Simulation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// Allocations (and reallocations) made by any thread of this test binary.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

struct Counting;

// SAFETY: every call forwards to `System` with the caller's arguments unchanged; the counter is a
// static atomic, which neither allocates nor panics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Allocations of `measured` steps after `warmup` steps of the config given by `overrides`, on a pool of two
/// threads with every default threshold at `parallelism`.
fn step_allocations(overrides: &[&str], warmup: u64, measured: u64, parallelism: Parallelism) -> u64 {
    // The count is the process's: one measurement at a time (the test harness runs tests on several threads).
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    let plan = Plan::parse("algorithm = \"brute\"\n", "test", &overrides).unwrap();
    in_pool(2, || {
        let mut sim = with_default_parallelism(parallelism, || Simulation::of(&plan).unwrap());
        // `run` reserves its records up front; clearing keeps that capacity for the measured run.
        sim.run(warmup + measured, |_, _| {});
        sim.respawn();
        sim.run(warmup, |_, _| {});
        sim.clear_records();
        // Every thread of the pool started (a worker allocates its queues when it starts, and on this VM one may
        // start late): a scene as small as `tunnel` warms up before the second one has, and its start would be
        // counted as the step's.
        rayon::broadcast(|_| ());
        let before = allocations();
        sim.run(measured, |_, _| {});
        allocations() - before
    })
}

#[test]
fn a_warm_step_allocates_nothing() {
    for overrides in [
        &["scenario=uniform", "bodies=2000", "resting_fraction=0.5"][..],
        &["scenario=rain", "bodies=1000"][..],
        &["scenario=cluster", "bodies=1000"][..],
        // Continuous detection: start positions, swept boxes, the event heap, the obstacle pass.
        &["scenario=tunnel", "ccd=true"][..],
        &["scenario=tunnel", "ccd=false"][..],
        // Boxes: the shape-dispatching narrowphase and its manifolds, the solver's spin path, the rotation and
        // the walls with spin; spheres with friction; boxes against the tunnel's obstacle.
        &["scenario=uniform", "bodies=2000", "shape=mixed", "half_extents_spread=0.4"][..],
        &["scenario=rain", "bodies=1000", "shape=mixed", "friction=0.5"][..],
        &["scenario=uniform", "bodies=1000", "friction=0.5"][..],
        &["scenario=tunnel", "shape=mixed", "ccd=true"][..],
    ] {
        // The cluster's pull (steps 60–120) makes the pair buffers grow; measure after it, once they have.
        let warmup = if overrides[0] == "scenario=cluster" { 150 } else { 30 };
        for parallelism in [Parallelism::with_min_work(0), Parallelism::default()] {
            assert_eq!(step_allocations(overrides, warmup, 60, parallelism), 0, "{overrides:?}, {parallelism:?}");
        }
    }
    // Past the shipped threshold (8192 items) the step's own passes run in parallel without being forced; brute
    // force would take seconds here, so `grid` (allocation-free once warm) finds the pairs.
    let big = ["scenario=uniform", "bodies=20000", "algorithm=grid"];
    assert_eq!(step_allocations(&big, 20, 20, Parallelism::default()), 0, "{big:?} at the shipped threshold");
    let mixed = ["scenario=uniform", "bodies=20000", "algorithm=grid", "shape=mixed"];
    assert_eq!(step_allocations(&mixed, 20, 20, Parallelism::default()), 0, "{mixed:?} at the shipped threshold");
    // Reordered every 4 steps past the threshold: the keys, the parallel sort and the parallel column gathers.
    let reordered = ["scenario=uniform", "bodies=20000", "algorithm=grid", "shape=mixed", "reorder_every=4"];
    assert_eq!(step_allocations(&reordered, 20, 20, Parallelism::default()), 0, "{reordered:?}");
}

/// A spatial reorder every 3 steps hands each broadphase a permutation (`on_resize`): every algorithm remaps
/// without allocating once warm, whether it keeps state between frames (sap, bvh-dynamic, kd, the octrees, auto)
/// or rebuilds.
#[test]
fn a_warm_step_with_reordering_allocates_nothing_for_every_algorithm() {
    for d in collide_algorithms::ALGORITHMS {
        let algorithm = format!("algorithm={}", d.name);
        let overrides = ["scenario=uniform", "bodies=2000", "shape=mixed", "reorder_every=3", algorithm.as_str()];
        for parallelism in [Parallelism::with_min_work(0), Parallelism::default()] {
            assert_eq!(step_allocations(&overrides, 30, 60, parallelism), 0, "{overrides:?}, {parallelism:?}");
        }
    }
}
