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
//! queue included, which grows by a block now and then: bound the mean per frame, not every frame). A test binary
//! that installs it measures its own process only, so each such test is its own integration-test file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that forwards every call to [`System`] and counts the bytes asked for.
pub struct CountingAllocator;

static BYTES: AtomicUsize = AtomicUsize::new(0);

impl CountingAllocator {
    /// The bytes allocated (or grown by reallocation) so far in this process, when this is its global allocator.
    #[must_use]
    pub fn bytes() -> usize {
        BYTES.load(Ordering::Relaxed)
    }
}

// SAFETY (lint exception): a global allocator is the only way to observe allocations; it forwards every call to
// `System` unchanged and only adds a relaxed counter.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait; every call is forwarded to System")]
unsafe impl GlobalAlloc for CountingAllocator {
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
