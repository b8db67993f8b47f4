//! `sort_by_high_bits` allocates nothing once its scratch buffer is warm, at any length. Its comparison sort is kept
//! for short inputs, where the standard library's stable sort works in a stack buffer; on a long input that sort
//! asks the heap for a buffer of its own on every call, so a length test turned the wrong way round would allocate
//! every frame of every broadphase that sorts endpoints.
//!
//! Its own test binary: the kit's [`CountingAllocator`] is this process's global allocator.

use collide_broadphase::conformance::CountingAllocator;
use collide_broadphase::radix::sort_by_high_bits;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

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
            // This thread's bytes: the sort runs on it alone, and the harness's thread allocates as the test starts.
            let before = CountingAllocator::thread_bytes();
            sort_by_high_bits(&mut keys, &mut scratch, 0);
            assert_eq!(CountingAllocator::thread_bytes(), before, "a warm sort of {n} keys allocated");
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{n} keys sorted");
        }
    }
}
