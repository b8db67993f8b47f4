//! Endpoints: one `u64` per interval end, the element of the sorted per-axis arrays SAP keeps (data; the
//! insertion sort over them is `insertion.rs`).
//!
//! The thesis stores an endpoint as a record (value, begin/end flag, body index). Packed into one `u64`
//! — `float_key(value)` in bits 32..64, the end flag in bit 31, the body in bits 0..31 — the whole record moves
//! with one load and one store, an axis of 10⁵ bodies is 1.6 MB (it stays in L2/L3 while insertion sort walks
//! it), and the **sort order is the integer order of the top 33 bits**: value first, and on equal values a
//! begin (flag 0) before an end (flag 1). That tie rule is what closed intervals need: two boxes that touch
//! exactly (`max_a == min_b`) overlap (`Aabb::overlaps`), so `begin_b` must sort before `end_a`.
//!
//! The body index takes no part in the order: relabelling bodies after a resize cannot unsort an array, and
//! insertion sort never swaps two endpoints with equal value and flag (such a swap could not change a pair).

use collide_broadphase::Aabb;
use collide_broadphase::radix::float_key;

/// The end flag: set on an interval's end (max), clear on its begin (min).
pub const END: u64 = 1 << 31;
/// The body-index bits.
pub const ID_MASK: u64 = END - 1;
/// The largest body count an endpoint can name.
pub const MAX_BODIES: usize = 1 << 31;

/// The endpoint of `body` with `value`, an end when `end`.
#[inline(always)]
#[must_use]
pub fn make(value: f32, end: bool, body: u32) -> u64 {
    (u64::from(float_key(value)) << 32) | (u64::from(end) << 31) | u64::from(body)
}

/// The body of an endpoint.
#[inline(always)]
#[must_use]
pub fn body(e: u64) -> u32 {
    (e & ID_MASK) as u32
}

/// `true` for an end, `false` for a begin.
#[inline(always)]
#[must_use]
pub fn is_end(e: u64) -> bool {
    e & END != 0
}

/// The sort key: value, then begin before end.
#[inline(always)]
#[must_use]
pub fn order(e: u64) -> u64 {
    e >> 31
}

/// The endpoint with its body index replaced.
#[inline(always)]
#[must_use]
pub fn relabel(e: u64, body: u32) -> u64 {
    (e & !ID_MASK) | u64::from(body)
}

/// The begin and end endpoints of `aabb` on `axis`.
#[inline(always)]
#[must_use]
pub fn of_box(aabb: &Aabb, axis: usize, body: u32) -> [u64; 2] {
    [make(aabb.min[axis], false, body), make(aabb.max[axis], true, body)]
}

/// Merge the sorted `extra` endpoints into the sorted `endpoints`, in place from the back. O(n + k).
pub fn merge_into(endpoints: &mut Vec<u64>, extra: &[u64]) {
    let n = endpoints.len();
    endpoints.resize(n + extra.len(), 0);
    let (mut i, mut j, mut w) = (n, extra.len(), n + extra.len());
    while j > 0 {
        // Ties go to `extra` last, so equal keys keep "old before new" — any order would do.
        if i > 0 && order(endpoints[i - 1]) > order(extra[j - 1]) {
            endpoints[w - 1] = endpoints[i - 1];
            i -= 1;
        } else {
            endpoints[w - 1] = extra[j - 1];
            j -= 1;
        }
        w -= 1;
    }
}

/// The first position where the array is out of order, if any.
#[must_use]
pub fn first_unsorted(endpoints: &[u64]) -> Option<usize> {
    endpoints.windows(2).position(|w| order(w[0]) > order(w[1])).map(|p| p + 1)
}

#[cfg(test)]
mod tests;
