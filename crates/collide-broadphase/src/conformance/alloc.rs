//! An allocation counter for the "a warm broadphase allocates nothing per frame" tests of every crate.
//!
//! ```
//! use collide_broadphase::conformance::CountingAllocator;
//!
//! #[global_allocator]
//! static ALLOC: CountingAllocator = CountingAllocator;
//!
//! fn main() {
//!     let before = CountingAllocator::bytes();
//!     let buffer: Vec<u64> = Vec::with_capacity(1000); // a warm frame would allocate nothing here
//!     assert!(CountingAllocator::bytes() - before >= 8000);
//!     drop(buffer);
//! }
//! ```
//!
//! It counts the bytes every allocation and growing reallocation of the whole process asks for (rayon's job
//! queue included, which grows by a block now and then: bound the mean per frame, not every frame), and what each
//! thread asks for ([`CountingAllocator::thread_bytes`], for code that runs on one thread: the test harness's own
//! thread allocates too). A test binary that installs it measures its own process only, so each such test is its
//! own integration-test file.
//!
//! [`PermutingRun`] drives a broadphase through a scene whose bodies are permuted every few calls (the
//! simulation's spatial reorder), measuring what its `on_resize` and its calls allocate.

use crate::Broadphase;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that forwards every call to [`System`] and counts the bytes asked for.
pub struct CountingAllocator;

static BYTES: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The bytes this thread allocated: a `Cell` with a constant initialiser and no destructor, so that the
    /// allocator can read it at any time, even while the thread's other locals are torn down.
    static THREAD_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl CountingAllocator {
    /// The bytes allocated (or grown by reallocation) so far in this process, when this is its global allocator.
    #[must_use]
    pub fn bytes() -> usize {
        BYTES.load(Ordering::Relaxed)
    }

    /// The bytes allocated (or grown) so far by the calling thread alone: for code that runs on one thread, whose
    /// test must not count what the test harness's own thread allocates meanwhile (it prints the test's name as the
    /// test starts: 900 bytes that fell, one run in twenty, inside a warm radix sort's measurement).
    #[must_use]
    pub fn thread_bytes() -> usize {
        THREAD_BYTES.with(std::cell::Cell::get)
    }
}

/// Count `bytes` for the process and for the calling thread.
fn count(bytes: usize) {
    BYTES.fetch_add(bytes, Ordering::Relaxed);
    THREAD_BYTES.with(|b| b.set(b.get() + bytes));
}

// SAFETY (lint exception): a global allocator is the only way to observe allocations; it forwards every call to
// `System` unchanged and only adds a relaxed counter.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait; every call is forwarded to System")]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// A scene whose bodies are permuted every few calls, for the tests that check a warm broadphase follows a
/// permutation without allocating: body `id`'s box at call `f` is the caller's `scene(f, id)`, whatever index the
/// body has; every [`PermutingRun::every`] calls the bodies are renumbered — a random permutation and a spatial
/// sort (by the Morton key of their centres) in turn — and the broadphase told through `on_resize`, the previous
/// boxes carried along for the exact motion hint (when the run gives it). The run keeps its state from one
/// [`PermutingRun::run`] to the next: warm up with one, measure with the next.
///
/// Only the calls to the broadphase are measured (its `on_resize` and its `find_pairs`, each on its own), not the
/// run's own bookkeeping; the test binary must install [`CountingAllocator`] as its global allocator.
pub struct PermutingRun {
    /// Calls between two permutations.
    pub every: usize,
    hinted: bool,
    /// Per index, the body it holds now.
    ids: Vec<u32>,
    call: usize,
    permutations: usize,
    rng: collide_math::Rng,
    aabbs: Vec<crate::Aabb>,
    previous: Vec<crate::Aabb>,
    moved: Vec<bool>,
    out: crate::PairList,
    scratch: (Vec<u32>, Vec<crate::Aabb>),
}

/// What one [`PermutingRun::run`] allocated and saw.
#[derive(Clone, Debug, Default)]
pub struct PermutedBytes {
    /// Bytes allocated inside the broadphase's `on_resize` calls.
    pub resize: usize,
    /// Bytes allocated inside its `find_pairs` calls.
    pub frames: usize,
    /// Permutations announced.
    pub permutations: usize,
    /// The stats of every call right after a permutation.
    pub after: Vec<crate::Stats>,
}

impl PermutingRun {
    /// A run of `n` bodies permuted every `every` calls, with the exact motion hint when `hinted`.
    #[must_use]
    pub fn new(n: usize, every: usize, hinted: bool) -> Self {
        Self {
            every: every.max(1),
            hinted,
            ids: (0..n as u32).collect(),
            call: 0,
            permutations: 0,
            rng: collide_math::Rng::new(0x9E2_3171),
            aabbs: Vec::with_capacity(n),
            previous: Vec::with_capacity(n),
            moved: Vec::with_capacity(n),
            out: crate::PairList::new(),
            scratch: (Vec::with_capacity(n), Vec::with_capacity(n)),
        }
    }

    /// `calls` more calls of `bp` on `scene`, permuting every [`PermutingRun::every`] calls.
    pub fn run(
        &mut self,
        bp: &mut dyn Broadphase,
        calls: usize,
        scene: &dyn Fn(usize, u32) -> crate::Aabb,
    ) -> PermutedBytes {
        let mut seen = PermutedBytes::default();
        for _ in 0..calls {
            let permuted = self.call > 0 && self.call.is_multiple_of(self.every);
            if permuted {
                let n = self.ids.len();
                let map = if self.permutations.is_multiple_of(2) {
                    super::reorder::random_order(&mut self.rng, n)
                } else {
                    let centres: Vec<_> = self.previous.iter().map(crate::Aabb::center).collect();
                    let bounds = self.previous.iter().fold(crate::Aabb::EMPTY, |b, a| b.union(a));
                    let side = (bounds.max - bounds.min).max_element();
                    super::reorder::spatial_order(&centres, bounds.min, side)
                };
                let resize = crate::Resize { old_to_new: &map, new_len: n };
                resize.permute(&mut self.ids, &mut self.scratch.0);
                resize.permute(&mut self.previous, &mut self.scratch.1);
                let before = CountingAllocator::bytes();
                bp.on_resize(&resize);
                seen.resize += CountingAllocator::bytes() - before;
                self.permutations += 1;
                seen.permutations += 1;
            }
            self.aabbs.clear();
            self.aabbs.extend(self.ids.iter().map(|&id| scene(self.call, id)));
            self.moved.clear();
            let (aabbs, previous) = (&self.aabbs, &self.previous);
            self.moved
                .extend((0..aabbs.len()).map(|i| previous.get(i).is_none_or(|p| !crate::same_bits(p, &aabbs[i]))));
            let frame = crate::Frame::new(&self.aabbs).with_step(self.call as u64);
            let frame = if self.hinted { frame.with_moved(&self.moved) } else { frame };
            let before = CountingAllocator::bytes();
            bp.find_pairs(&frame, &mut self.out);
            seen.frames += CountingAllocator::bytes() - before;
            if permuted {
                seen.after.push(bp.stats());
            }
            self.previous.clone_from(&self.aabbs);
            self.call += 1;
        }
        seen
    }

    /// Blocks of `block` calls until `quiet` blocks in a row allocate nothing, neither in `on_resize` nor in the
    /// calls, within `max_blocks` blocks: those quiet blocks, or the last block when the run never got there. A
    /// structure that allocates per permutation or per frame allocates in every block and never gets there; a rare
    /// allocation of rayon's job queue only restarts the count.
    pub fn run_until_quiet(
        &mut self,
        bp: &mut dyn Broadphase,
        (block, quiet, max_blocks): (usize, usize, usize),
        scene: &dyn Fn(usize, u32) -> crate::Aabb,
    ) -> Result<Vec<PermutedBytes>, PermutedBytes> {
        let (mut run, mut last_noisy) = (Vec::new(), PermutedBytes::default());
        for _ in 0..max_blocks {
            let seen = self.run(bp, block, scene);
            if seen.resize + seen.frames > 0 {
                run.clear();
                last_noisy = seen;
                continue;
            }
            run.push(seen);
            if run.len() == quiet {
                return Ok(run);
            }
        }
        Err(last_noisy)
    }

    /// The pairs of the last call (a test checks the scene has some).
    #[must_use]
    pub fn last_pairs(&self) -> &crate::PairList {
        &self.out
    }
}
