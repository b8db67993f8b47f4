//! "Nothing in the step allocates once warm": a counting allocator (this test binary's own, so that it sees only
//! this file's threads) counts the allocations of simulation steps after warm-up — response on, the contacts
//! flowing to resolution, the motion hint, a scripted scene — with the brute-force reference, whose own
//! buffers are allocation-free once grown, so that what is counted is the step's.
#![allow(unsafe_code, reason = "a GlobalAlloc impl is unsafe by definition; it only forwards to System")]

use collide_sim::{Config, Simulation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Allocations (and reallocations) made by this thread.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call forwards to `System` with the caller's arguments unchanged; the counter is a
// const-initialised thread-local `Cell`, which neither allocates nor panics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Allocations of `measured` steps after `warmup` steps of the config given by `overrides`.
fn step_allocations(overrides: &[&str], warmup: u64, measured: u64) -> u64 {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    let mut sim = Simulation::new(&Config::parse("algorithm = \"brute\"\n", "test", &overrides).unwrap()).unwrap();
    // `run` reserves its records up front; clearing keeps that capacity for the measured run.
    sim.run(warmup + measured, |_, _| {});
    sim.respawn();
    sim.run(warmup, |_, _| {});
    sim.clear_records();
    let before = allocations();
    sim.run(measured, |_, _| {});
    allocations() - before
}

#[test]
fn a_warm_step_allocates_nothing() {
    for overrides in [
        &["scenario=uniform", "bodies=2000", "resting_fraction=0.5"][..],
        &["scenario=rain", "bodies=1000"][..],
        &["scenario=cluster", "bodies=1000"][..],
    ] {
        // The cluster's pull (steps 60–120) makes the pair buffers grow; measure after it, once they have.
        let warmup = if overrides[0] == "scenario=cluster" { 150 } else { 30 };
        assert_eq!(step_allocations(overrides, warmup, 60), 0, "{overrides:?}");
    }
}
