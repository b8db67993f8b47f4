//! Morton codes: boxes ordered along a Z-order curve, so that boxes near each other in space are near each other
//! in the order, and a binary tree over that order (`karras.rs`) is a spatial hierarchy.
//!
//! Each box is reduced to its centre, the centres are quantised to a 1024³ grid over their bounds, and the
//! three 10-bit coordinates are interleaved into a 30-bit code (`x` highest: `x9 y9 z9 x8 … z0`). Sorting by
//! the code sorts by the octree cell at every depth at once: two codes sharing their top `3d` bits lie in the
//! same cell of depth `d`. The code sits in the high half of a 64-bit key whose low half is the box's index,
//! so every key is unique and equal codes keep their index order — Karras's tie-break (§4: "augment each key
//! with its index"), here for free, because the keys are sorted with the low half as the tie-break already.
//!
//! Boxes that may not enter a tree (see `bounds::is_usable`) get the code [`UNUSABLE`], above every real code,
//! so that one sort puts them after the usable ones and the tree is built over a prefix of the keys.

use collide_math::{Aabb, Vec3};

/// Quantisation steps per axis: 10 bits, three axes in 30 bits.
const STEPS: f32 = 1024.0;

/// The code of a box left out of the tree: above every 30-bit code, so it sorts last.
pub(crate) const UNUSABLE: u32 = u32::MAX;

/// The centre of `b`, computed as `min/2 + max/2` so that boxes near `f32::MAX` do not overflow to infinity.
#[inline(always)]
#[must_use]
pub(crate) fn center(b: &Aabb) -> Vec3 {
    b.min * 0.5 + b.max * 0.5
}

/// Spread the low 10 bits of `v` so that two zero bits separate each (`abc` → `a00b00c`); higher bits are
/// ignored.
#[inline(always)]
#[must_use]
pub(crate) fn spread(v: u32) -> u32 {
    let v = (v & 0x3FF).wrapping_mul(0x0001_0001) & 0xFF00_00FF;
    let v = v.wrapping_mul(0x0000_0101) & 0x0F00_F00F;
    let v = v.wrapping_mul(0x0000_0011) & 0xC30C_30C3;
    v.wrapping_mul(0x0000_0005) & 0x4924_9249
}

/// The 1024³ grid over the centres' bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Grid {
    origin: Vec3,
    /// Steps per unit on each axis; 0 on an axis where every centre is equal (one cell there).
    scale: Vec3,
}

impl Grid {
    /// The grid over centres spanning `lo ..= hi`. The scale is computed in f64, so that a span wider than
    /// `f32::MAX` (centres at ±3e38) still gives a finite, non-zero scale.
    #[must_use]
    pub(crate) fn new(lo: Vec3, hi: Vec3) -> Self {
        let axis = |l: f32, h: f32| {
            let span = f64::from(h) - f64::from(l);
            if span > 0.0 { (f64::from(STEPS) / span) as f32 } else { 0.0 }
        };
        Self { origin: lo, scale: Vec3::new(axis(lo.x, hi.x), axis(lo.y, hi.y), axis(lo.z, hi.z)) }
    }

    /// The 30-bit code of centre `c`. A centre outside the bounds is clamped onto the grid (never happens for the
    /// centres the grid was made from, but costs nothing), and `(c - origin)` overflowing to infinity clamps too.
    #[inline(always)]
    #[must_use]
    pub(crate) fn code(&self, c: Vec3) -> u32 {
        let q = ((c - self.origin) * self.scale).clamp(Vec3::ZERO, Vec3::splat(STEPS - 1.0));
        // `as u32` truncates towards zero and saturates (NaN to 0): a code is always produced.
        (spread(q.x as u32) << 2) | (spread(q.y as u32) << 1) | spread(q.z as u32)
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
            for bit in 0..10 {
                assert_eq!((s >> (3 * bit)) & 1, (v >> bit) & 1, "v {v} bit {bit}");
            }
            assert_eq!(s & !0x0924_9249, 0);
        }
    }

    #[test]
    fn codes_order_by_octree_cell() {
        let grid = Grid::new(Vec3::ZERO, Vec3::splat(8.0));
        // The lower-x half of the grid comes first (x is the top bit), then y, then z.
        let lower = grid.code(Vec3::new(3.9, 7.9, 7.9));
        let upper = grid.code(Vec3::new(4.1, 0.0, 0.0));
        assert!(lower < upper);
        assert_eq!(grid.code(Vec3::ZERO), 0);
        assert_eq!(grid.code(Vec3::splat(8.0)), 0x3FFF_FFFF, "the far corner is the last cell");
        assert_eq!(grid.code(Vec3::splat(-5.0)), 0, "clamped");
        // A flat axis has one cell: the code depends on the other axes only.
        let flat = Grid::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(8.0, 2.0, 8.0));
        assert_eq!(flat.code(Vec3::new(1.0, 2.0, 1.0)) & 0x1249_2492, 0);
    }

    #[test]
    fn huge_spans_stay_finite() {
        let grid = Grid::new(Vec3::splat(-3.0e38), Vec3::splat(3.0e38));
        assert!(grid.scale.is_finite() && grid.scale.cmpgt(Vec3::ZERO).all());
        assert!(grid.code(Vec3::splat(-3.0e38)) < grid.code(Vec3::ZERO));
        assert!(grid.code(Vec3::ZERO) < grid.code(Vec3::splat(3.0e38)));
        let b = Aabb::new(Vec3::splat(3.0e38), Vec3::splat(3.4e38));
        assert!(center(&b).is_finite());
        assert_eq!(key_index(key(UNUSABLE, 77)), 77);
        assert!(key(0x3FFF_FFFF, u32::MAX) < key(UNUSABLE, 0));
    }
}
