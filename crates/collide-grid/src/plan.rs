//! The frame's plan: where the cells are. Pure data and the functions that place a box or a point in it; the
//! bottom layer of the crate (everything else reads a [`Plan`], only `planner.rs` writes one).
//!
//! Space is cut three ways:
//! - along **x** into [slabs](Plan::slab_of), unequal intervals whose boundaries are sampled starts of the boxes:
//!   a slab ends after a number of cell widths or, in parallel, once it holds its share of the sample (see
//!   `planner.rs`); one parallel task each. Inside a slab, x is not cut again: the bodies of a cell are sorted by
//!   `min.x` and swept, which prunes x far finer than any cell could;
//! - along **y and z** into square cells of edge [`Level::cell`], one grid per [`Level`] (the uniform grid has one
//!   level, the hierarchical grid one per power of two of the body sizes);
//! - and the cells of a level are **hashed** onto a torus of `2^a × 2^b` columns ([`Level::column`]): cell
//!   `(j, k)` goes to column `(j mod 2^a, k mod 2^b)`. The torus is sized from the body count, never from the
//!   world: a world a thousand times wider than its clusters folds onto the same few thousand columns, and cells
//!   far apart that land on one column only share its sweep (the four-lane box test rejects them).
//!
//! Every cell function is **monotone** in the coordinate (a rounded subtraction and product, a floor, a clamp),
//! which is all the ownership rule needs to report each pair once: the cell of the min corner of two boxes'
//! intersection lies within both boxes' cell ranges, whatever the rounding, for coordinates up to ±f32::MAX.

use collide_broadphase::sweep::SweepBox;
use glam::{IVec4, Vec4};

/// The most levels of the hierarchical grid: body sizes spanning 2³¹ to one. A body larger than the top
/// level's cells stays there, entered in every column of the torus it covers (at most all of them).
pub const MAX_LEVELS: usize = 32;

/// The most columns per axis of a level's torus (2¹⁶): the counters of a slab's columns are `u32` offsets, and
/// a torus is sized from the body count anyway, so only a hand-set cell size in a flat world could ask for more.
pub const MAX_TORUS_BITS: u32 = 16;

/// One grid of square cells in y and z, hashed onto a torus of columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The cell edge in y and z: positive and finite.
    pub cell: f64,
    /// `1 / cell`, in the precision the cells are computed in.
    inv: f32,
    /// y and z of cell `(0, 0)`'s low corner, twice: `[y, z, y, z]`, for the four cells of a box at once.
    origin: Vec4,
    /// The torus has `2^bits[0]` columns along y and `2^bits[1]` along z; each at most [`MAX_TORUS_BITS`].
    bits: [u32; 2],
    /// `2^bits − 1`: a cell index masked is its column coordinate.
    mask: [i32; 2],
}

impl Default for Level {
    /// A unit cell at the origin on a one-column torus.
    fn default() -> Self {
        Self::new(1.0, [0.0; 2], [0; 2])
    }
}

/// The cells a box covers along one axis, hashed onto the torus: from `first`, `count` of them around it. Two
/// halves of a word (a torus has at most 2¹⁶ cells along an axis), so that a row entry is 32 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxisSpan {
    /// The first cell, hashed.
    pub first: u16,
    /// How many, less one: `0..` the torus's cells along the axis.
    pub more: u16,
}

impl AxisSpan {
    /// How many cells.
    #[inline(always)]
    #[must_use]
    pub fn count(self) -> u32 {
        u32::from(self.more) + 1
    }
}

/// Cells are clamped to `±CELL_LIMIT` before they become integers: monotone still, exact below it, and small
/// enough for the conversion of [`Level::cells`].
const CELL_LIMIT: f32 = ((1 << 22) - 1) as f32;

/// 1.5 · 2²³: a float of magnitude below 2²² plus this has its integer part in its low mantissa bits.
const MAGIC: f32 = 12_582_912.0;

/// The cells a box covers at a level: the first cell on y and z, and how many columns of the torus it covers along
/// each (at most the torus size: a box wider than the torus covers every column once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The box's first cell on y and z, before hashing.
    pub first: [i32; 2],
    /// Columns covered along y and z: `1..=2^bits`.
    pub count: [u32; 2],
}

impl Level {
    /// A level of cells `cell` wide whose cell `(0, 0)` starts at `origin` (y, z), on a torus of
    /// `2^bits[0] × 2^bits[1]` columns. `cell` must be positive and finite.
    #[must_use]
    pub fn new(cell: f64, origin: [f64; 2], bits: [u32; 2]) -> Self {
        debug_assert!(cell > 0.0 && cell.is_finite(), "cell size {cell}");
        let bits = bits.map(|b| b.min(MAX_TORUS_BITS));
        let (y, z) = (origin[0] as f32, origin[1] as f32);
        Self { cell, inv: (1.0 / cell) as f32, origin: Vec4::new(y, z, y, z), bits, mask: bits.map(|b| (1 << b) - 1) }
    }

    /// The torus's columns along y and z.
    #[must_use]
    pub fn torus(&self) -> [usize; 2] {
        self.bits.map(|b| 1usize << b)
    }

    /// The torus's column count.
    #[must_use]
    pub fn columns(&self) -> usize {
        1 << (self.bits[0] + self.bits[1])
    }

    /// The cells of four coordinates `[y, z, y', z']`: `floor((v − origin) / cell)`, clamped to `±CELL_LIMIT`.
    /// Monotone in each coordinate (a rounded subtraction and product, a floor, a clamp), and the one formula for
    /// both placing boxes and owning pairs.
    #[inline(always)]
    #[must_use]
    pub fn cells(&self, v: Vec4) -> IVec4 {
        let t = ((v - self.origin) * self.inv).clamp(Vec4::splat(-CELL_LIMIT), Vec4::splat(CELL_LIMIT)).floor();
        // An exact integer below 2²² in magnitude, read off the bits of `t + MAGIC` (one add and one subtraction for
        // four lanes): a saturating `as` cast checked every lane for NaN and overflow, which the clamp has ruled out.
        let bits = (t + Vec4::splat(MAGIC)).to_array().map(f32::to_bits);
        IVec4::from_array(bits.map(|b| b as i32)) - IVec4::splat(MAGIC.to_bits() as i32)
    }

    /// The column of cell `(j, k)`: both indices reduced modulo the torus (two's complement, so negative cells
    /// wrap too).
    #[inline(always)]
    #[must_use]
    pub fn column(&self, j: i32, k: i32) -> usize {
        (((j & self.mask[0]) << self.bits[1]) | (k & self.mask[1])) as usize
    }

    /// Column `c`'s row (its cell along y, hashed), its place along z, and the bits of the place along z.
    #[inline(always)]
    #[must_use]
    pub fn row_and_z(&self, c: usize) -> (usize, usize, u32) {
        (c >> self.bits[1], c & self.mask[1] as usize, self.bits[1])
    }

    /// The column owning the point `(y, z)`.
    #[inline(always)]
    #[must_use]
    pub fn column_of_point(&self, y: f32, z: f32) -> usize {
        let c = self.cells(Vec4::new(y, z, y, z));
        self.column(c.x, c.y)
    }

    /// The cells the record `r` (made for a sweep on x) covers.
    #[inline(always)]
    #[must_use]
    pub fn span(&self, r: &SweepBox) -> Span {
        let (lo, hi) = (r.min::<0>(), r.max::<0>());
        let c = self.cells(Vec4::new(lo.y, lo.z, hi.y, hi.z));
        // `hi >= lo` (monotone cells of `min <= max`), and both within ±2^29.
        let count = |d: i32, axis: usize| (d as u32 + 1).min(1 << self.bits[axis]);
        Span { first: [c.x, c.y], count: [count(c.z - c.x, 0), count(c.w - c.y, 1)] }
    }

    /// Call `f` with every column of `span`, each once.
    #[inline(always)]
    pub fn for_each_column_of(&self, span: Span, mut f: impl FnMut(usize)) {
        let [my, mz] = self.mask;
        let (j0, k0) = (span.first[0] & my, span.first[1] & mz);
        let row = |j: i32| (j << self.bits[1]) as usize;
        if span.count[0] <= 2 && span.count[1] <= 2 {
            // A box no wider than a cell covers one or two columns along each axis.
            let (j1, k1) = ((j0 + 1) & my, (k0 + 1) & mz);
            f(row(j0) | k0 as usize);
            if span.count[1] == 2 {
                f(row(j0) | k1 as usize);
            }
            if span.count[0] == 2 {
                f(row(j1) | k0 as usize);
                if span.count[1] == 2 {
                    f(row(j1) | k1 as usize);
                }
            }
            return;
        }
        for j in 0..span.count[0] as i32 {
            let row = row((j0 + j) & my);
            for k in 0..span.count[1] as i32 {
                f(row | ((k0 + k) & mz) as usize);
            }
        }
    }

    /// The cells a record covers along y and z, hashed onto the torus.
    #[inline(always)]
    #[must_use]
    pub fn axis_spans(&self, r: &SweepBox) -> [AxisSpan; 2] {
        let span = self.span(r);
        [0, 1].map(|a| AxisSpan { first: (span.first[a] & self.mask[a]) as u16, more: (span.count[a] - 1) as u16 })
    }

    /// Call `f` with every column the record `r` covers, each once.
    #[inline(always)]
    pub fn for_each_column(&self, r: &SweepBox, f: impl FnMut(usize)) {
        self.for_each_column_of(self.span(r), f);
    }

    /// The number of columns `r` covers.
    #[cfg(test)]
    #[must_use]
    pub fn column_count(&self, r: &SweepBox) -> usize {
        let span = self.span(r);
        span.count[0] as usize * span.count[1] as usize
    }

    /// The cell `(j, k)` that the record `r` covers in column `c` (its span holds each column once): for debug
    /// views and messages.
    #[must_use]
    pub fn cell_in_column(&self, r: &SweepBox, c: usize) -> (i32, i32) {
        let span = self.span(r);
        let want = [(c >> self.bits[1]) as i32, c as i32 & self.mask[1]];
        // The first cell plus its distance to the wanted column along each axis, modulo the torus.
        let at = |a: usize| span.first[a].wrapping_add(want[a].wrapping_sub(span.first[a]) & self.mask[a]);
        (at(0), at(1))
    }

    /// The y–z square of cell `(j, k)` (for debug views).
    #[must_use]
    pub fn cell_square(&self, j: i32, k: i32) -> ([f32; 2], [f32; 2]) {
        let o = [f64::from(self.origin.x), f64::from(self.origin.y)];
        let lo = [o[0] + f64::from(j) * self.cell, o[1] + f64::from(k) * self.cell];
        (lo.map(|v| v as f32), lo.map(|v| (v + self.cell) as f32))
    }
}

/// `true` when `b` is a box the grid places: the contract's [`is_valid_box`](collide_broadphase::is_valid_box).
/// Any other box overlaps nothing (the trait's contract for invalid boxes): it is left out of every cell.
pub use collide_broadphase::is_valid_box as is_valid;

/// How the frame's space is cut (see the module docs). Rebuilt by the planner every frame; the buffers are kept.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The inner slab boundaries, strictly ascending and finite: slab `s` covers `[bounds[s − 1], bounds[s])`,
    /// the first and last slabs reach to −∞ and +∞.
    pub slab_bounds: Vec<f32>,
    /// Where [`Plan::slab_of`] starts looking: bins of x between the first and last boundary, each holding the
    /// number of boundaries in the bins before it (made by [`Plan::index_slabs`]).
    pub slab_index: SlabIndex,
    /// The levels, finest first; `levels[l + 1].cell == 2 · levels[l].cell` for the hierarchical grid. One level
    /// for the uniform grid. Never empty once planned.
    pub levels: Vec<Level>,
    /// A body of largest side `e` lives at level `ceil(log2(e / level_extent))` (clamped to the levels), so
    /// that every level's cells are between one and two cell factors of its bodies' size. Positive; infinite
    /// for the uniform grid (every body at level 0).
    pub level_extent: f32,
}

impl Plan {
    /// The number of slabs.
    #[must_use]
    pub fn slabs(&self) -> usize {
        self.slab_bounds.len() + 1
    }

    /// The slab holding `x`: the number of boundaries at or below it. Monotone in `x`. O(1) for slabs of similar
    /// widths: the bin of `x` says how many boundaries lie in earlier bins (all below `x`, since the bin function
    /// is monotone), and the few in its own bin are stepped over.
    #[inline(always)]
    #[must_use]
    pub fn slab_of(&self, x: f32) -> usize {
        let counts = &self.slab_index.counts;
        let from = match counts.len() {
            0 => 0,
            len => counts[self.slab_index.bin(x).min(len - 1)] as usize,
        };
        self.slab_after(from, x)
    }

    /// The slab holding `x`, which is not before slab `from`: steps over the boundaries from there.
    #[inline(always)]
    #[must_use]
    pub fn slab_after(&self, from: usize, x: f32) -> usize {
        let mut s = from;
        while s < self.slab_bounds.len() && self.slab_bounds[s] <= x {
            s += 1;
        }
        s
    }

    /// Index the slab boundaries for [`Plan::slab_of`] (after setting them): four bins per slab.
    pub fn index_slabs(&mut self) {
        let (bounds, index) = (&self.slab_bounds, &mut self.slab_index);
        index.counts.clear();
        let (Some(&first), Some(&last)) = (bounds.first(), bounds.last()) else {
            return;
        };
        let bins = 4 * bounds.len();
        index.origin = first;
        index.inv = if last > first { bins as f32 / (last - first) } else { 0.0 };
        // counts[t] = boundaries whose bin is before t, for t up to one past the last boundary's bin (which may
        // round to `bins`); an x in a later bin has every boundary below it.
        let top = index.bin(last) + 1;
        index.counts.resize(top + 1, 0);
        for &b in bounds {
            let t = index.bin(b) + 1;
            index.counts[t] += 1;
        }
        for t in 1..=top {
            index.counts[t] += index.counts[t - 1];
        }
    }

    /// Where slab `s` starts (−∞ for the first): an entry of slab `s` starting before this is a ghost there.
    #[must_use]
    pub fn slab_start(&self, s: usize) -> f32 {
        if s == 0 { f32::NEG_INFINITY } else { self.slab_bounds[s - 1] }
    }

    /// Where slab `s` ends (+∞ for the last).
    #[must_use]
    pub fn slab_end(&self, s: usize) -> f32 {
        self.slab_bounds.get(s).copied().unwrap_or(f32::INFINITY)
    }

    /// The level of a box whose largest side is `extent`.
    #[inline(always)]
    #[must_use]
    pub fn level_of(&self, extent: f32) -> usize {
        level_for_ratio(extent / self.level_extent).min(self.levels.len() - 1)
    }

    /// The level of the record `r`.
    #[inline(always)]
    #[must_use]
    pub fn level_of_record(&self, r: &SweepBox) -> usize {
        if self.levels.len() == 1 {
            return 0;
        }
        self.level_of((r.max::<0>() - r.min::<0>()).max_element())
    }
}

/// Bins of x for finding a slab: `counts[t]` boundaries lie in bins before bin `t` ([`Plan::slab_of`]).
#[derive(Clone, Debug, Default)]
pub struct SlabIndex {
    origin: f32,
    inv: f32,
    counts: Vec<u32>,
}

impl SlabIndex {
    /// The bin of `x`: monotone in `x` (a rounded subtraction and product, a saturating cast), past the last bin
    /// for `x` beyond it.
    #[inline(always)]
    fn bin(&self, x: f32) -> usize {
        ((x - self.origin) * self.inv) as usize
    }
}

/// `ceil(log2(ratio))` for `ratio > 1`, else 0, read off the float's bits (no `log2` call): the power of two at
/// or above the ratio. A NaN or infinite ratio is past every level.
#[inline(always)]
#[must_use]
pub fn level_for_ratio(ratio: f32) -> usize {
    if ratio <= 1.0 {
        return 0;
    }
    if !ratio.is_finite() {
        return usize::MAX;
    }
    let bits = ratio.to_bits();
    let exponent = (bits >> 23) as usize - 127;
    exponent + usize::from(bits & 0x7F_FFFF != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use collide_broadphase::Aabb;
    use collide_math::Vec3;

    #[test]
    fn cells_are_floors_clamped_and_monotone() {
        let level = Level::new(0.5, [1.0, -1.0], [4, 4]);
        let c = level.cells(Vec4::new(1.0, -1.0, 1.49, -1.01));
        assert_eq!(c, IVec4::new(0, 0, 0, -1));
        let c = level.cells(Vec4::new(1e30, -1e30, f32::MAX, -f32::MAX));
        let limit = (1 << 22) - 1;
        assert_eq!(c, IVec4::new(limit, -limit, limit, -limit));
        let c = level.cells(Vec4::new(1.0 + 0.5 * 4_194_302.5, -1.0 - 0.5 * 3.5, 1.0 - 0.5 * 4_194_302.5, -1.0));
        assert_eq!(c, IVec4::new(4_194_302, -4, -4_194_303, 0));
        // Monotone across the clamp and the float's coarse steps.
        let vs = [-f32::MAX, -1e30, -3e8, -2.0e8, -1.0, 0.0, 0.7, 1.2e8, 2.7e8, 1e30, f32::MAX];
        let cells: Vec<i32> = vs.iter().map(|&v| level.cells(Vec4::splat(v)).x).collect();
        assert!(cells.windows(2).all(|w| w[0] <= w[1]), "{cells:?}");
    }

    #[test]
    fn cells_hash_onto_the_torus_and_wide_boxes_cover_it_once() {
        // Cells 2 wide from (y, z) = (−10, 4), on a torus of 4 × 8 columns.
        let level = Level::new(2.0, [-10.0, 4.0], [2, 3]);
        assert_eq!(level.torus(), [4, 8]);
        assert_eq!(level.columns(), 32);
        assert_eq!(level.cells(Vec4::new(-10.0, 7.9, -10.1, 3.9)), IVec4::new(0, 1, -1, -1));
        // Cell (5, −1) wraps to (1, 7).
        assert_eq!(level.column(5, -1), 8 + 7);
        assert_eq!(level.column_of_point(1.0, 3.0), level.column(5, -1));
        // A box over cells y 0..=1 and z 0..=0 covers two columns; one 100 wide covers all 4 along y once.
        let small = SweepBox::on::<0>(&Aabb::new(Vec3::new(0.0, -10.0, 4.0), Vec3::new(1.0, -7.0, 5.0)), 0);
        let mut seen = Vec::new();
        level.for_each_column(&small, |c| seen.push(c));
        assert_eq!(seen, [level.column(0, 0), level.column(1, 0)]);
        assert_eq!(level.column_count(&small), 2);
        let spans = |r: &SweepBox| level.axis_spans(r).map(|s| (s.first, s.count()));
        assert_eq!(spans(&small), [(0, 2), (0, 1)]);
        let wide = SweepBox::on::<0>(&Aabb::new(Vec3::new(0.0, -50.0, 4.0), Vec3::new(1.0, 50.0, 4.5)), 1);
        let mut seen = Vec::new();
        level.for_each_column(&wide, |c| seen.push(c));
        seen.sort_unstable();
        assert_eq!(seen, [0, 8, 16, 24]);
        // Two cells each way at the torus's edge wrap: cells (3, 7) and (4, 8) are columns (3, 7) and (0, 0).
        let corner = SweepBox::on::<0>(&Aabb::new(Vec3::new(0.0, -3.0, 18.0), Vec3::new(1.0, -1.0, 20.0)), 4);
        assert_eq!(spans(&corner), [(3, 2), (7, 2)]);
        let mut seen = Vec::new();
        level.for_each_column(&corner, |c| seen.push(c));
        assert_eq!(seen, [3 * 8 + 7, 3 * 8, 7, 0]);
        // Boxes at ±1e30 and ±f32::MAX: monotone cells, every column at most once.
        let huge = SweepBox::on::<0>(&Aabb::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX)), 2);
        assert_eq!(level.column_count(&huge), 32);
        let far = level.span(&SweepBox::on::<0>(&Aabb::new(Vec3::splat(1e30), Vec3::splat(1.1e30)), 3));
        assert_eq!(far.count, [1, 1], "{far:?}");
        // The cell a box covers in a column, back from the column.
        for c in 0..32 {
            let (j, k) = level.cell_in_column(&huge, c);
            assert_eq!(level.column(j, k), c);
        }
        assert_eq!(level.cell_in_column(&small, level.column(1, 0)), (1, 0));
        assert_eq!(level.cell_square(1, 0), ([-8.0, 4.0], [-6.0, 6.0]));
    }

    #[test]
    fn slabs_partition_x_and_levels_double() {
        let mut plan = Plan {
            slab_bounds: vec![-1.0, 0.0, 5.0],
            levels: vec![Level::default(); 4],
            level_extent: 0.5,
            ..Plan::default()
        };
        plan.index_slabs();
        assert_eq!(plan.slabs(), 4);
        assert_eq!([-2.0, -1.0, -0.0, 0.0, 4.9, 5.0, 1e30].map(|x| plan.slab_of(x)), [0, 1, 2, 2, 2, 3, 3]);
        assert_eq!(plan.slab_of(f32::NEG_INFINITY), 0);
        assert_eq!(plan.slab_after(1, 7.0), 3);
        assert_eq!(plan.slab_start(0), f32::NEG_INFINITY);
        assert_eq!((plan.slab_start(2), plan.slab_end(2)), (0.0, 5.0));
        assert_eq!(plan.slab_end(3), f32::INFINITY);
        // Level l holds extents up to 0.5 · 2^l; past the last level, the last.
        assert_eq!([0.0, 0.5, 0.51, 1.0, 1.5, 2.0, 2.1, 1e9].map(|e| plan.level_of(e)), [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!([0.5, 1.0, 2.0, 3.0, 4.0, 1e-3].map(level_for_ratio), [0, 0, 1, 2, 2, 0]);
        assert_eq!(level_for_ratio(f32::INFINITY), usize::MAX);
        // The index agrees with counting the boundaries, on boundaries, between them, near and far.
        let mut rng = collide_math::Rng::new(4);
        let mut bounds: Vec<f32> = (0..40).map(|_| rng.range_f32(-100.0, 100.0)).collect();
        bounds.extend([1e6, 1e6 + 1.0, 1.0000001e6]);
        bounds.sort_by(f32::total_cmp);
        bounds.dedup();
        plan.slab_bounds = bounds.clone();
        plan.index_slabs();
        let mut xs: Vec<f32> = (0..2000).map(|_| rng.range_f32(-150.0, 150.0)).collect();
        xs.extend(bounds.iter().flat_map(|&b| [b, b.next_down(), b.next_up()]));
        xs.extend([-1e30, 1e30, 5e5, f32::MAX]);
        for x in xs {
            assert_eq!(plan.slab_of(x), bounds.partition_point(|&b| b <= x), "x = {x}");
        }
    }
}
