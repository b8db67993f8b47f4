//! [`PermutingRun`] counts what a broadphase allocates in its `on_resize` and its calls, and
//! `run_until_quiet` waits for blocks that allocate nothing in either. Every crate's "a warm broadphase follows a
//! permutation without allocating" test rests on these counts, so they are pinned here against broadphases whose
//! allocations are known: one that allocates nothing, one that allocates in every call, one only in `on_resize`.
//!
//! Its own test binary: [`CountingAllocator`] is this process's global allocator.

use collide_broadphase::conformance::{CountingAllocator, PermutingRun};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Resize};
use collide_math::Vec3;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Allocates `per_call` bytes (kept, so they are not freed and asked for again) in each `find_pairs`, and
/// `per_resize` in each `on_resize`.
struct Allocating {
    per_call: usize,
    per_resize: usize,
    kept: Vec<Vec<u8>>,
}

impl Broadphase for Allocating {
    fn name(&self) -> &'static str {
        "allocating"
    }
    fn find_pairs(&mut self, _frame: &Frame<'_>, out: &mut PairList) {
        // No pairs: only the allocations matter here, and the reference would allocate its own scratch.
        out.clear();
        if self.per_call > 0 {
            self.kept.push(vec![1; self.per_call]);
        }
    }
    fn on_resize(&mut self, _resize: &Resize<'_>) {
        if self.per_resize > 0 {
            self.kept.push(vec![1; self.per_resize]);
        }
    }
}

/// Body `id`'s box at every call: on a line, a little apart.
fn scene(_call: usize, id: u32) -> Aabb {
    Aabb::from_center_radius(Vec3::new(id as f32 * 0.9, 0.0, 0.0), 0.5)
}

fn allocating(per_call: usize, per_resize: usize) -> Allocating {
    // Room for the kept buffers from the start, so that the kept list itself does not grow inside a call.
    Allocating { per_call, per_resize, kept: Vec::with_capacity(1000) }
}

#[test]
fn a_permuting_run_counts_what_the_broadphase_allocates_in_its_calls_and_its_resizes() {
    // Warm the run's own buffers and the pair list first.
    let mut run = PermutingRun::new(64, 4, true);
    let mut quiet = allocating(0, 0);
    let _ = run.run(&mut quiet, 8, &scene);
    let seen = run.run(&mut quiet, 12, &scene);
    assert_eq!((seen.resize, seen.frames), (0, 0), "a broadphase that allocates nothing");
    assert_eq!(seen.permutations, 3, "calls 8..20, every fourth permuted");

    let mut per_call = allocating(1000, 0);
    let seen = run.run(&mut per_call, 12, &scene);
    assert!(seen.frames >= 12 * 1000, "12 calls of 1000 bytes each: {}", seen.frames);
    assert_eq!(seen.resize, 0);

    let mut per_resize = allocating(0, 5000);
    let seen = run.run(&mut per_resize, 12, &scene);
    assert!(seen.resize >= 3 * 5000, "3 resizes of 5000 bytes each: {}", seen.resize);
    assert_eq!(seen.frames, 0);

    // `run_until_quiet` waits for blocks that allocate nothing anywhere. (One test, not two: the counter is the
    // whole process's, and tests run on threads side by side.)
    let mut run = PermutingRun::new(64, 4, false);
    let _ = run.run(&mut quiet, 8, &scene);
    let blocks = run.run_until_quiet(&mut quiet, (8, 3, 10), &scene).expect("a broadphase that allocates nothing");
    assert_eq!(blocks.len(), 3);
    // Allocations in the calls alone, or in the resizes alone, each keep every block noisy.
    for (per_call, per_resize) in [(100, 0), (0, 100)] {
        let mut noisy = allocating(per_call, per_resize);
        let last = run.run_until_quiet(&mut noisy, (8, 3, 10), &scene).expect_err("never quiet");
        assert!(last.frames + last.resize >= 100, "the last noisy block: {last:?}");
    }
}
