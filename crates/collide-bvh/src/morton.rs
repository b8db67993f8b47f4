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
mod tests {
    use super::*;

    #[test]
    fn spread_interleaves_ten_bits() {
        assert_eq!(spread(0), 0);
        assert_eq!(spread(1), 1);
        assert_eq!(spread(0b11), 0b1001);
        assert_eq!(spread(0x3FF), 0x0924_9249);
        // Bits above the tenth are dropped.
        assert_eq!(spread(0x400), 0);
        for v in 0..1024u32 {
            let s = spread(v);
            assert_eq!(SPREAD[v as usize], s);
            for bit in 0..10 {
                assert_eq!((s >> (3 * bit)) & 1, (v >> bit) & 1, "v {v} bit {bit}");
            }
            assert_eq!(s & !0x0924_9249, 0);
        }
    }

    #[test]
    fn codes_order_by_octree_cell() {
        let grid = Grid::new(Vec3::ZERO, Vec3::splat(8.0), MAX_BITS);
        // The lower-x half of the grid comes first (x is the top bit), then y, then z.
        let lower = grid.code(Vec3::new(3.9, 7.9, 7.9));
        let upper = grid.code(Vec3::new(4.1, 0.0, 0.0));
        assert!(lower < upper);
        assert_eq!(grid.code(Vec3::ZERO), 0);
        assert_eq!(grid.code(Vec3::splat(8.0)), 0x3FFF_FFFF, "the far corner is the last cell");
        assert_eq!(grid.code(Vec3::splat(-5.0)), 0, "clamped");
        // A flat axis has one cell: the code depends on the other axes only.
        let flat = Grid::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(8.0, 2.0, 8.0), MAX_BITS);
        assert_eq!(flat.code(Vec3::new(1.0, 2.0, 1.0)) & 0x1249_2492, 0);
    }

    #[test]
    fn huge_spans_stay_finite() {
        let grid = Grid::new(Vec3::splat(-3.0e38), Vec3::splat(3.0e38), MAX_BITS);
        assert!(grid.scale.is_finite() && grid.scale.cmpgt(Vec3::ZERO).all());
        assert!(grid.code(Vec3::splat(-3.0e38)) < grid.code(Vec3::ZERO));
        assert!(grid.code(Vec3::ZERO) < grid.code(Vec3::splat(3.0e38)));
        let b = Aabb::new(Vec3::splat(3.0e38), Vec3::splat(3.4e38));
        assert!(center(&b).is_finite());
        assert_eq!(key_index(key(UNUSABLE, 77)), 77);
        assert!(key(0x3FFF_FFFF, u32::MAX) < key(UNUSABLE, 0));
        // Seven bits: 128 steps, the far corner the last 21-bit code.
        let coarse = Grid::new(Vec3::ZERO, Vec3::splat(8.0), 7);
        assert_eq!(coarse.code(Vec3::splat(8.0)), (1 << 21) - 1);
        assert_eq!(coarse.code(Vec3::splat(4.0)), 0b111 << 18);
        assert_eq!((bits_for(1000), bits_for(1 << 21), bits_for(3 << 20)), (7, 7, MAX_BITS));
    }
}
