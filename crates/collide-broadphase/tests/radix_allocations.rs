//! `sort_by_high_bits` allocates nothing once its scratch buffer is warm, at any length. Its comparison sort is kept
//! for short inputs, where the standard library's stable sort works in a stack buffer; on a long input that sort
//! asks the heap for a buffer of its own on every call, so a length test turned the wrong way round would allocate
//! every frame of every broadphase that sorts endpoints.
//!
//! Its own test binary: the counting allocator below is this process's global allocator.

use collide_broadphase::radix::sort_by_high_bits;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only a counter is added.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait; every call is forwarded to System")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_warm_radix_sort_allocates_nothing_at_any_length() {
    for n in [0, 1, 63, 64, 65, 1000, 20_000] {
        // Keys in a scrambled order (a multiplicative hash of the index), so every pass moves them.
        let fresh: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let mut keys = Vec::with_capacity(n);
        let mut scratch = Vec::new();
        keys.extend_from_slice(&fresh);
        sort_by_high_bits(&mut keys, &mut scratch, 0);
        // Both buffers now hold n keys' capacity: the next sorts of n keys reuse them.
        for _ in 0..3 {
            keys.clear();
            keys.extend_from_slice(&fresh);
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            sort_by_high_bits(&mut keys, &mut scratch, 0);
            assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), before, "a warm sort of {n} keys allocated");
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{n} keys sorted");
        }
    }
}
