//! The frame's plan: where the cells are and where each cell's bodies are stored. Pure data and the functions
//! that place a box in it; the bottom layer of the crate (everything else reads a [`Plan`], only `planner.rs`
//! writes one).
//!
//! Space is cut in y and z only, into **cells** ([`Cells`]); x is never cut: a cell's bodies are sorted by
//! `min.x` and swept. Cells come in **levels**: level 0's cells are [`Cells::edge`] wide, and level `l`'s cell
//! `(j, k)` is the union of level 0's cells `(j', k')` with `j' >> l == j` and `k' >> l == k` — the same integer
//! cells shifted, never a second float computation, so levels nest exactly. A box is **small** at a level when
//! its corners' cells there differ by at most one on each axis; its *natural level* ([`natural_level`]) is the
//! finest level where it is small, and it stays small at every coarser one (nesting). Every body is stored once,
//! in the cell of its **min corner** at its level: two small boxes that overlap then have min corners whose cells
//! differ by at most one on each axis (see `search.rs`), so a cell's bodies meet only the bodies of its 3 × 3
//! neighbourhood.
//!
//! The cells of a level are **hashed** onto a torus of `2^a × 2^b` columns ([`Level::locate`]): cell `(j, k)` goes
//! to column `(j mod 2^a, k mod 2^b)`. The torus is sized from the body count, never from the world, so a world
//! a thousand times wider than its clusters folds onto the same few thousand columns; bodies of cells folded
//! together share a bucket and are compared in vain (`search.rs`). A level's torus rows are cut into
//! **partitions**, the unit of the parallel build and search: a partition holds the buckets of a run of rows.
//!
//! The cell function is **monotone** in the coordinate (a rounded subtraction and product, a floor, a clamp to
//! ±(2²² − 1)), which is all the search's rule needs, for coordinates up to ±`f32::MAX`: at level 22 every box
//! is small, so there are [`MAX_LEVELS`] levels at most.

use glam::{IVec4, Vec4};

/// Levels of the hierarchy: level-0 cells are clamped to ±(2²² − 1), so every box is small at level 22.
pub const MAX_LEVELS: usize = 23;

/// The most columns per axis of a level's torus (2¹⁶): a torus is sized from the body count, and the bucket
/// offsets of a partition are `u32`.
pub const MAX_TORUS_BITS: u32 = 16;

/// Cells are clamped to `±CELL_LIMIT` before they become integers: monotone still, exact below it, and small
/// enough for the conversion of [`Cells::of`].
const CELL_LIMIT: f32 = ((1 << 22) - 1) as f32;

/// 1.5 · 2²³: a float of magnitude below 2²² plus this has its integer part in its low mantissa bits.
const MAGIC: f32 = 12_582_912.0;

/// Level 0's cells in y and z: an edge per axis and the corner of cell `(0, 0)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cells {
    /// The cell edge along y and z: positive and finite.
    pub edge: [f64; 2],
    /// `1 / edge`, twice: `[y, z, y, z]`, in the precision the cells are computed in.
    inv: Vec4,
    /// y and z of cell `(0, 0)`'s low corner, twice.
    origin: Vec4,
}

impl Default for Cells {
    /// Unit cells at the origin.
    fn default() -> Self {
        Self::new([1.0; 2], [0.0; 2])
    }
}

impl Cells {
    /// Cells `edge` wide from `origin` (y, z). `edge` must be positive and finite.
    #[must_use]
    pub fn new(edge: [f64; 2], origin: [f64; 2]) -> Self {
        debug_assert!(edge.iter().all(|e| *e > 0.0 && e.is_finite()), "cell edge {edge:?}");
        let inv = edge.map(|e| (1.0 / e) as f32);
        let o = origin.map(|o| o as f32);
        Self { edge, inv: Vec4::new(inv[0], inv[1], inv[0], inv[1]), origin: Vec4::new(o[0], o[1], o[0], o[1]) }
    }

    /// The level-0 cells of four coordinates `[y, z, y', z']`: `floor((v − origin) / edge)`, clamped to
    /// ±(2²² − 1). Monotone in each coordinate (a rounded subtraction and product, a floor, a clamp), and the one
    /// formula for both placing boxes and accepting pairs.
    #[inline(always)]
    #[must_use]
    pub fn of(&self, v: Vec4) -> IVec4 {
        let t = ((v - self.origin) * self.inv).clamp(Vec4::splat(-CELL_LIMIT), Vec4::splat(CELL_LIMIT));
        // `t + MAGIC` rounds to the nearest integer, kept in the low mantissa bits; one less where that rounded up
        // is the floor, and its bits are the integer (two adds, a subtraction, a comparison for four lanes: a
        // floor on SSE2 is a dozen instructions, and a saturating `as` cast checked every lane for NaN and
        // overflow, which the clamp has ruled out — `v` is finite, `v − origin` at worst infinite).
        let magic = Vec4::splat(MAGIC);
        let nearest = (t + magic) - magic;
        let floor = nearest - Vec4::select(nearest.cmpgt(t), Vec4::ONE, Vec4::ZERO);
        let bits = (floor + magic).to_array().map(f32::to_bits);
        IVec4::from_array(bits.map(|b| b as i32)) - IVec4::splat(MAGIC.to_bits() as i32)
    }

    /// The level-0 cells of a box's corners on y and z: `[min y, min z, max y, max z]`.
    #[inline(always)]
    #[must_use]
    pub fn of_box(&self, min: [f32; 2], max: [f32; 2]) -> IVec4 {
        self.of(Vec4::new(min[0], min[1], max[0], max[1]))
    }

    /// The y–z square of cell `(j, k)` at `level` (for debug views).
    #[must_use]
    pub fn square(&self, level: usize, j: i32, k: i32) -> ([f32; 2], [f32; 2]) {
        let scale = f64::from(1u32 << level);
        let (o, e) = ([f64::from(self.origin.x), f64::from(self.origin.y)], self.edge.map(|e| e * scale));
        let lo = [o[0] + f64::from(j) * e[0], o[1] + f64::from(k) * e[1]];
        (lo.map(|v| v as f32), [lo[0] + e[0], lo[1] + e[1]].map(|v| v as f32))
    }
}

/// `true` when a box whose level-0 corner cells are `c` (`[min y, min z, max y, max z]`) is small at `level`:
/// its corners' cells there differ by at most one on each axis.
#[inline(always)]
#[must_use]
pub fn small_at(c: IVec4, level: usize) -> bool {
    ((c.z >> level) - (c.x >> level) <= 1) & ((c.w >> level) - (c.y >> level) <= 1)
}

/// The finest level where a box whose level-0 corner cells are `c` is small. With `d` its widest span in level-0
/// cells, it is `floor(log2 d)` or one more: at a finer level the span is at least two cells, and at
/// `floor(log2 d) + 1` the cells are wider than the box. At most 22 (the cells' clamp).
#[inline(always)]
#[must_use]
pub fn natural_level(c: IVec4) -> usize {
    let d = (c.z - c.x).max(c.w - c.y);
    if d <= 1 {
        return 0;
    }
    let l = (31 - (d as u32).leading_zeros()) as usize;
    if small_at(c, l) { l } else { l + 1 }
}

/// One level's torus and partitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// The torus has `2^bits[0]` columns (rows) along y and `2^bits[1]` along z; each at most [`MAX_TORUS_BITS`].
    pub bits: [u32; 2],
    /// Its rows are cut into `2^part_bits` partitions of equal row counts (`part_bits <= bits[0]`).
    pub part_bits: u32,
    /// The index of its first partition among the plan's.
    pub first_part: u32,
}

impl Level {
    /// A level on a torus of `2^bits[0] × 2^bits[1]` columns, its rows in `2^part_bits` partitions from
    /// `first_part`.
    #[must_use]
    pub fn new(bits: [u32; 2], part_bits: u32, first_part: u32) -> Self {
        let bits = bits.map(|b| b.min(MAX_TORUS_BITS));
        Self { bits, part_bits: part_bits.min(bits[0]), first_part }
    }

    /// The torus's columns along y and z.
    #[must_use]
    pub fn torus(&self) -> [usize; 2] {
        self.bits.map(|b| 1usize << b)
    }

    /// The partitions of the level.
    #[must_use]
    pub fn parts(&self) -> usize {
        1 << self.part_bits
    }

    /// Rows per partition, as a power of two.
    #[inline(always)]
    #[must_use]
    pub fn row_bits(&self) -> u32 {
        self.bits[0] - self.part_bits
    }

    /// Buckets per partition: a bucket per column of its rows.
    #[must_use]
    pub fn part_buckets(&self) -> usize {
        1 << (self.row_bits() + self.bits[1])
    }

    /// The partition and the bucket in it of the cell `(j, k)` of this level (not yet hashed): row `j mod 2^a` and
    /// column `k mod 2^b` of the torus (two's complement, so negative cells wrap too).
    #[inline(always)]
    #[must_use]
    pub fn locate(&self, j: i32, k: i32) -> (usize, usize) {
        let row = (j as u32 & ((1 << self.bits[0]) - 1)) as usize;
        let column = (k as u32 & ((1 << self.bits[1]) - 1)) as usize;
        let row_bits = self.row_bits();
        let part = self.first_part as usize + (row >> row_bits);
        (part, ((row & ((1 << row_bits) - 1)) << self.bits[1]) | column)
    }
}

/// Bins of `min.x` for ordering a partition's entries before their buckets: [`X_BINS`] of them over the scene's
/// bulk bounds along x, so that a crowd of a few dozen records along a column spreads over bins nearly one each.
pub const X_BINS: usize = 256;

/// The bins of `min.x` ([`X_BINS`] from `origin`), monotone in `x`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XBins {
    origin: f32,
    scale: f32,
}

impl XBins {
    /// Bins over `lo..=hi`.
    #[must_use]
    pub fn new(lo: f32, hi: f32) -> Self {
        let scale = X_BINS as f32 / (hi - lo);
        Self { origin: lo, scale: if scale.is_finite() && scale > 0.0 { scale } else { 0.0 } }
    }

    /// The bin of `x`: a rounded subtraction and product, a saturating cast, a clamp — monotone.
    #[inline(always)]
    #[must_use]
    pub fn bin(&self, x: f32) -> usize {
        (((x - self.origin) * self.scale).max(0.0) as usize).min(X_BINS - 1)
    }
}

/// How the frame's space is cut (see the module docs). Rebuilt by the planner every frame; the buffers are kept.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Level 0's cells.
    pub cells: Cells,
    /// The levels: only those of `present` are used.
    pub levels: [Level; MAX_LEVELS],
    /// The level a body of each natural level lives at: itself or coarser (`map[l] >= l`, and non-decreasing),
    /// always a present level once planned: the planner merges a level into a coarser one where the model says its
    /// bodies cost less there than standing alone (`planner.rs`).
    pub map: [u8; MAX_LEVELS],
    /// The levels that have buckets this frame (bit `l`): every level a body lives at.
    pub present: u32,
    /// The present levels to cut into cubes for the coarser levels' scans (`cubes.rs`), where the cost model
    /// rates reading cubes cheaper than reading columns; never the coarsest.
    pub cut: u32,
    /// The level of each partition: the present levels' partitions, finest level first.
    pub part_level: Vec<u8>,
    /// Bins of `min.x` over the bulk of the scene, for ordering crowds ([`XBins`]).
    pub x_bins: XBins,
}

impl Plan {
    /// The present levels finer than `level`: whose columns a body of `level` scans.
    #[inline(always)]
    #[must_use]
    pub fn finer(&self, level: usize) -> u32 {
        self.present & (low_mask(level) >> 1)
    }

    /// The partitions of present level `level`.
    #[must_use]
    pub fn level_parts(&self, level: usize) -> std::ops::Range<usize> {
        let lv = &self.levels[level];
        lv.first_part as usize..lv.first_part as usize + lv.parts()
    }

    /// The number of partitions.
    #[must_use]
    pub fn parts(&self) -> usize {
        self.part_level.len()
    }
}

/// Bits `0..=level` set.
#[inline(always)]
#[must_use]
pub fn low_mask(level: usize) -> u32 {
    if level >= 31 { u32::MAX } else { (2u32 << level) - 1 }
}

/// The levels of a bit set, finest first.
pub fn levels(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let l = set.trailing_zeros() as usize;
            set &= set - 1;
            l
        })
    })
}

/// `true` when `b` is a box the grid places: the contract's [`is_valid_box`](collide_broadphase::is_valid_box).
/// Any other box overlaps nothing (the trait's contract for invalid boxes): it is left out of every cell.
#[inline(always)]
#[must_use]
pub fn is_valid(b: &collide_broadphase::Aabb) -> bool {
    collide_broadphase::is_valid_box(b)
}

#[cfg(test)]
mod tests;
