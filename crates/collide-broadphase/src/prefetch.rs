//! A hint to the processor: bring a value into the cache now, because it will be read soon.
//!
//! Passes that read bodies through pair indices (the narrowphase reads both bodies of every pair; resolution
//! gathers the bodies of every contact) jump around the body columns: at 10⁶ bodies every read misses the cache,
//! and a loop that waits for each miss in turn runs at the speed of memory latency. Prefetching the bodies of
//! the pair a few iterations ahead keeps several misses in flight instead, while the current pair is computed.

/// Ask for the cache line holding `*value` (a hint: it never faults and changes no result; on targets without a
/// prefetch instruction it does nothing).
#[inline(always)]
pub fn read<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let address: *const i8 = std::ptr::from_ref(value).cast();
        // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever the address; this one
        // comes from a live reference anyway. `sse` is part of the x86_64 baseline.
        #[allow(unsafe_code, reason = "_mm_prefetch takes a raw pointer; a prefetch cannot fault or change memory")]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(address);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
