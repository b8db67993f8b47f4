//! Order-preserving float keys and an LSD radix sort on `u64` keys.
//!
//! Sorting the endpoints of 10⁵–10⁶ boxes is the bulk of every rebuild (sort-and-sweep, SAP initialisation), and
//! comparison sorts spend most of their time on unpredictable branches. Floats are mapped to `u32` keys whose
//! unsigned order is the float order, so a radix sort — O(n) per pass, three 11-bit passes — can sort them.

/// The `u32` whose unsigned order is the order of `f` (for finite floats; `-0.0` and `+0.0` map to the same key).
///
/// Positive floats get their sign bit set; negative floats are bit-inverted, which reverses their order.
/// `-0.0` is first turned into `+0.0` (`f + 0.0`): the two compare equal as floats, and two boxes touching at
/// zero must compare equal here too, or a begin at `+0.0` would sort after an end at `-0.0` and lose the pair.
#[inline(always)]
#[must_use]
pub fn float_key(f: f32) -> u32 {
    let bits = (f + 0.0).to_bits();
    if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 }
}

/// The inverse of [`float_key`] (`-0.0` comes back as `+0.0`).
#[inline]
#[must_use]
pub fn key_float(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 { key & 0x7FFF_FFFF } else { !key })
}

const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = 1 << DIGIT_BITS;

/// Sort `keys` by their bits `low_bit..64` (stable on the bits below), using `scratch` as the second buffer.
///
/// LSD radix sort with 11-bit digits: ⌈(64 − low_bit)/11⌉ passes of O(n + 2048) each, all histograms taken in one
/// read pass; a pass whose digit is the same for every key (common for the high bits of clustered values) is
/// skipped. `scratch` is resized to `keys.len()` and reused, so a warmed-up caller allocates nothing.
pub fn sort_by_high_bits(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, low_bit: u32) {
    let n = keys.len();
    if n < 64 {
        // Below a cache line of keys the histograms cost more than a comparison sort.
        keys.sort_by_key(|&k| k >> low_bit); // stable; small enough for the stack buffer
        return;
    }
    let passes = (64 - low_bit).div_ceil(DIGIT_BITS) as usize;
    let mut hist = [[0u32; BUCKETS]; 6];
    for &k in keys.iter() {
        for (p, h) in hist.iter_mut().enumerate().take(passes) {
            h[((k >> (low_bit + p as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    scratch.clear();
    scratch.resize(n, 0);
    for (p, h) in hist.iter_mut().enumerate().take(passes) {
        let shift = low_bit + p as u32 * DIGIT_BITS;
        if h.iter().any(|&c| c as usize == n) {
            continue;
        }
        let mut sum = 0u32;
        for c in h.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        for &k in keys.iter() {
            let d = ((k >> shift) as usize) & (BUCKETS - 1);
            scratch[h[d] as usize] = k;
            h[d] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

#[cfg(test)]
mod tests;
