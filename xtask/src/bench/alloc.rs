//! A counting global allocator: the bench's peak-memory figures.
//!
//! Every allocation, reallocation and free of the process goes through [`Counting`], which keeps the bytes
//! currently allocated and the highest value seen since the last [`reset_peak`]. A series measures
//! `peak() − baseline`, where the baseline is the live heap when the series starts: the heap the series added at
//! its worst moment (structures, buffers, output pairs). Two relaxed atomic adds per allocation; the broadphases
//! allocate nothing per frame once warm, so this does not show in their timings.
#![allow(unsafe_code, reason = "a GlobalAlloc impl is unsafe by definition; it only forwards to System")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Live bytes and their peak since the last reset. One static instance counts the whole process; tests use
/// their own, because other test threads allocate and free concurrently.
struct Counter {
    current: AtomicUsize,
    peak: AtomicUsize,
}

impl Counter {
    const fn new() -> Self {
        Self { current: AtomicUsize::new(0), peak: AtomicUsize::new(0) }
    }

    fn grew(&self, bytes: usize) {
        let now = self.current.fetch_add(bytes, Relaxed) + bytes;
        self.peak.fetch_max(now, Relaxed);
    }

    fn shrank(&self, bytes: usize) {
        self.current.fetch_sub(bytes, Relaxed);
    }

    fn current(&self) -> usize {
        self.current.load(Relaxed)
    }

    fn reset_peak(&self) -> usize {
        let now = self.current();
        self.peak.store(now, Relaxed);
        now
    }

    fn peak(&self) -> usize {
        self.peak.load(Relaxed).max(self.current())
    }
}

static COUNTER: Counter = Counter::new();

fn grew(bytes: usize) {
    COUNTER.grew(bytes);
}

fn shrank(bytes: usize) {
    COUNTER.shrank(bytes);
}

/// The system allocator, counting.
pub struct Counting;

#[global_allocator]
static GLOBAL: Counting = Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is; `ptr` came from this allocator, which is `System`'s.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Start a new peak window at the current level; returns that level (the baseline).
pub fn reset_peak() -> usize {
    COUNTER.reset_peak()
}

/// The highest level since the last [`reset_peak`].
#[must_use]
pub fn peak() -> usize {
    COUNTER.peak()
}

/// Bytes above `baseline` at the peak: what a series added at its worst moment.
#[must_use]
pub fn peak_above(baseline: usize) -> u64 {
    peak().saturating_sub(baseline) as u64
}

#[cfg(test)]
mod tests;
