//! Morton codes: boxes ordered along a Z-order curve, so that boxes near each other in space are near each other
//! in the order, and a binary tree over that order (`karras.rs`) is a spatial hierarchy.
//!
//! Each box is reduced to its centre, the centres are quantised to a grid of `2^bits` steps per axis over their
//! bounds, and the three coordinates are interleaved into a `3 · bits`-bit code (`x` highest: `x9 y9 z9 x8 … z0`
//! for 10 bits). Sorting by the code sorts by the octree cell at every depth at once: two codes sharing their top
//! `3d` bits lie in the same cell of depth `d`. The code sits in the high half of a 64-bit key whose low half is
//! the box's index, so every key is unique and equal codes keep their index order — Karras's tie-break (§4:
//! "augment each key with its index"), here for free, because the keys are sorted with the low half as the
//! tie-break already.
//!
//! **How many bits.** The tree needs the codes to tell bodies apart only down to a few per cell: below that the
//! self-join tests small subtrees as runs of leaves anyway (`traverse::BUCKET`), and long runs of equal codes are
//! ordered again (`refine.rs`). So the frame's codes have [`bits_for`] bits per axis: 7 (2 million cells) up to
//! 2²¹ bodies, whose 21-bit codes the radix sort orders in two passes of 11 bits instead of three; 10 above.
//!
//! Boxes that may not enter a tree (see `bounds::is_usable`) get the code [`UNUSABLE`], above every real code,
//! so that one sort puts them after the usable ones and the tree is built over a prefix of the keys.

use collide_math::{Aabb, Vec3};

/// The most quantisation steps per axis: 10 bits, three axes in 30 bits.
pub(crate) const MAX_BITS: u32 = 10;

/// The code of a box left out of the tree: above every 30-bit code, so it sorts last.
pub(crate) const UNUSABLE: u32 = 1 << 30;

/// The bits per axis of the codes of a frame of `n` boxes (see the module docs).
#[must_use]
pub(crate) fn bits_for(n: usize) -> u32 {
    if n <= 1 << 21 { 7 } else { MAX_BITS }
}

/// The centre of `b`, computed as `min/2 + max/2` so that boxes near `f32::MAX` do not overflow to infinity.
#[inline(always)]
#[must_use]
pub(crate) fn center(b: &Aabb) -> Vec3 {
    b.min * 0.5 + b.max * 0.5
}

/// Spread the low 10 bits of `v` so that two zero bits separate each (`abc` → `a00b00c`); higher bits are
/// ignored.
#[must_use]
const fn spread(v: u32) -> u32 {
    let v = (v & 0x3FF).wrapping_mul(0x0001_0001) & 0xFF00_00FF;
    let v = v.wrapping_mul(0x0000_0101) & 0x0F00_F00F;
    let v = v.wrapping_mul(0x0000_0011) & 0xC30C_30C3;
    v.wrapping_mul(0x0000_0005) & 0x4924_9249
}

/// [`spread`] of every 10-bit value, 4 KiB: three loads make a code where the multiplications took 27
/// instructions.
static SPREAD: [u32; 1 << MAX_BITS] = {
    let mut table = [0; 1 << MAX_BITS];
    let mut v = 0;
    while v < table.len() {
        table[v] = spread(v as u32);
        v += 1;
    }
    table
};

/// The grid of `2^bits` steps per axis over the centres' bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Grid {
    origin: Vec3,
    /// Steps per unit on each axis; 0 on an axis where every centre is equal (one cell there).
    scale: Vec3,
    /// The last step.
    last: f32,
}

impl Grid {
    /// The grid of `2^bits` steps per axis (`bits` at most [`MAX_BITS`]) over centres spanning `lo ..= hi`. The
    /// scale is computed in f64, so that a span wider than `f32::MAX` (centres at ±3e38) still gives a finite,
    /// non-zero scale.
    #[must_use]
    pub(crate) fn new(lo: Vec3, hi: Vec3, bits: u32) -> Self {
        debug_assert!((1..=MAX_BITS).contains(&bits));
        let steps = f64::from(1u32 << bits);
        let axis = |l: f32, h: f32| {
            let span = f64::from(h) - f64::from(l);
            if span > 0.0 { (steps / span) as f32 } else { 0.0 }
        };
        let scale = Vec3::new(axis(lo.x, hi.x), axis(lo.y, hi.y), axis(lo.z, hi.z));
        Self { origin: lo, scale, last: (steps - 1.0) as f32 }
    }

    /// The code of centre `c`. A centre outside the bounds is clamped onto the grid's border cells, and
    /// `(c - origin)` overflowing to infinity clamps too.
    #[inline(always)]
    #[must_use]
    pub(crate) fn code(&self, c: Vec3) -> u32 {
        let q = ((c - self.origin) * self.scale).clamp(Vec3::ZERO, Vec3::splat(self.last));
        // `as u32` truncates towards zero and saturates (NaN to 0): a code is always produced, below 2^bits.
        let at = |v: f32| SPREAD[v as u32 as usize & ((1 << MAX_BITS) - 1)];
        (at(q.x) << 2) | (at(q.y) << 1) | at(q.z)
    }
}

/// The sort key of item `index` with Morton code `code`: the code in the high half, the index in the low half.
#[inline(always)]
#[must_use]
pub(crate) fn key(code: u32, index: u32) -> u64 {
    (u64::from(code) << 32) | u64::from(index)
}

/// The item index of a key.
#[inline(always)]
#[must_use]
pub(crate) fn key_index(key: u64) -> u32 {
    key as u32
}

#[cfg(test)]
mod tests;
