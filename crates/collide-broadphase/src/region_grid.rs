//! The coarse region grid of region-based broadphases (multi-box pruning, regional sweep-and-prune, and the grids
//! to come): how many regions, where their borders are, and which regions a box touches.
//!
//! # Planning
//! [`RegionGrid::plan`] covers the bounds of the boxes with `res` regions per axis. With `regions_per_axis > 0`
//! every axis that has an extent gets that many (capped); with 0 the grid is sized from the scene: the region
//! edge `s` that would hold [`GridPolicy::bodies_per_region`] bodies if they were spread uniformly, but never less
//! than [`GridPolicy::min_width_in_mean_boxes`] times the mean box size on any axis. A box of width `b` at a
//! random place touches `1 + b/s` regions per axis on average, so it is copied into `(1 + b/s)³` of them: about
//! 3.4 regions at `s = 2b`, 2 at `s = 4b`, 1.3 at `s = 10b`. The floor only binds in dense scenes (a uniform scene
//! at 2% volume fraction puts 32 bodies in a region 9 box widths wide); there it stops the grid from buying
//! smaller regions with more copies. Each algorithm's policy explains its numbers.
//!
//! # Bounds: where the bulk of the bodies is
//! The grid covers the bounds of the valid boxes (an invalid box is in no region: see [`crate::invalid`]) — unless
//! a few far bodies stretch them. One body at 1e30 among bodies in `[0, 100]³` would make every region 10²⁸ wide
//! and pile all the others into one, turning multi-box pruning into one sort-and-sweep of everything. So the plan
//! also looks at a fixed sample of [`SAMPLE`] boxes ([`sampled_bounds`]), trimmed of its few extreme boxes per
//! axis; on an axis where the full bounds are more than [`OUTLIER_RATIO`] times wider than the trimmed sample's,
//! the grid covers the sample's bounds instead, and the far bodies land in the border regions, which reach to
//! infinity. For every scene without such outliers the trimmed sample spans nearly the full bounds and the plan
//! is the full bounds' own. The sample costs O([`SAMPLE`]) per plan whatever the body count.
//!
//! # Cells
//! The cell of a coordinate is monotone in it and clamped to the grid, so the border regions extend to infinity:
//! a box leaving the planned bounds stays in the grid, and the regions partition space (which the
//! [ownership rule](crate::ownership) needs). A box's regions are a [`RegionRange`], inclusive on every axis.

use crate::Aabb;
use crate::invalid::is_valid_box;
use collide_math::Vec3;
use glam::Vec3A;

/// Boxes read by [`sampled_bounds`]: a fixed stride through the scene.
pub const SAMPLE: usize = 64;

/// An axis whose full bounds are wider than this many times the trimmed sample's is planned on the sample's
/// bounds (see the module docs). A uniform scene's trimmed sample spans about 95% of its bounds; a scene whose
/// full bounds are 4 times its bulk's has at most a few far bodies per sample, which the trim removes.
pub const OUTLIER_RATIO: f32 = 4.0;

/// The bounds of a fixed sample of at most [`SAMPLE`] valid boxes (every `n / SAMPLE`-th), with the `len / 32`
/// smallest mins and largest maxes of the sample dropped on each axis, so that a few far bodies do not count.
/// [`Aabb::EMPTY`] when no sampled box is valid. O([`SAMPLE`]), whatever the body count; allocates nothing.
#[must_use]
pub fn sampled_bounds(aabbs: &[Aabb]) -> Aabb {
    sampled_bounds_of(aabbs, |b| b)
}

/// [`sampled_bounds`] of items that hold a box (an octree's items, say).
#[must_use]
pub fn sampled_bounds_of<T>(items: &[T], aabb: impl Fn(&T) -> &Aabb) -> Aabb {
    let (mut mins, mut maxs) = ([[0f32; SAMPLE]; 3], [[0f32; SAMPLE]; 3]);
    let mut len = 0;
    let step = items.len().div_ceil(SAMPLE).max(1);
    for b in items.iter().step_by(step).map(aabb).filter(|b| is_valid_box(b)) {
        for k in 0..3 {
            mins[k][len] = b.min[k];
            maxs[k][len] = b.max[k];
        }
        len += 1;
    }
    if len == 0 {
        return Aabb::EMPTY;
    }
    let trim = len / 32;
    let mut bounds = Aabb::EMPTY;
    for k in 0..3 {
        let (lo, hi) = (&mut mins[k][..len], &mut maxs[k][..len]);
        bounds.min[k] = *lo.select_nth_unstable_by(trim, f32::total_cmp).1;
        bounds.max[k] = *hi.select_nth_unstable_by(len - 1 - trim, f32::total_cmp).1;
    }
    // Trimming mins and maxes apart can cross them over in a crowd at one point; then there is no extent.
    Aabb::new(bounds.min.min(bounds.max), bounds.max)
}

/// `full` (the bounds of every valid box) on each axis where it is at most [`OUTLIER_RATIO`] times wider than the
/// trimmed sample `sampled` ([`sampled_bounds`]), the sample's bounds on the others: where the bulk of the bodies
/// is (see the module docs). Structures sized on it leave the far bodies to cells that reach to infinity.
#[must_use]
pub fn bulk_bounds(full: Aabb, sampled: Aabb) -> Aabb {
    let mut bounds = full;
    for k in 0..3 {
        let trimmed = sampled.max[k] - sampled.min[k];
        if trimmed > 0.0 && full.max[k] - full.min[k] > OUTLIER_RATIO * trimmed {
            (bounds.min[k], bounds.max[k]) = (sampled.min[k], sampled.max[k]);
        }
    }
    bounds
}

/// How an algorithm wants its automatic grid sized (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridPolicy {
    /// The auto grid aims at this many bodies per region in a uniform scene.
    pub bodies_per_region: f32,
    /// Regions are at least this many mean box sizes wide on every axis.
    pub min_width_in_mean_boxes: f32,
    /// The most regions per axis, automatic or requested.
    pub max_per_axis: usize,
}

/// A box's regions: the low cell on x, y, z, then the high cell on x, y, z (inclusive).
pub type RegionRange = [u16; 6];

/// The range of a box in no region (not entered yet): empty because low > high.
pub const NO_REGIONS: RegionRange = [1, 1, 1, 0, 0, 0];

/// `true` when the region at cell `coords` is in `range`.
#[inline(always)]
#[must_use]
pub fn range_contains(range: &RegionRange, coords: [u16; 3]) -> bool {
    (0..3).all(|k| range[k] <= coords[k] && coords[k] <= range[k + 3])
}

/// The number of regions in `range` (0 for [`NO_REGIONS`]).
#[must_use]
pub fn range_len(range: &RegionRange) -> usize {
    (0..3).map(|k| (usize::from(range[k + 3]) + 1).saturating_sub(usize::from(range[k]))).product()
}

/// A grid of regions over a scene's bounds (see the module docs). Region `r` is at cell coordinates
/// [`coords(r)`](RegionGrid::coords), z fastest.
#[derive(Clone, Copy, Debug)]
pub struct RegionGrid {
    origin: [f32; 3],
    /// Regions per unit length on each axis (0 on an axis with one region).
    inv: [f32; 3],
    res: [usize; 3],
    /// The bounds the grid was planned for.
    bounds: Aabb,
    /// `origin`, `inv` and the last cell per axis as four-lane vectors, for [`RegionGrid::range`].
    lanes: Lanes,
}

/// The grid's numbers on four lanes (see [`RegionGrid::range`]).
#[derive(Clone, Copy, Debug)]
struct Lanes {
    origin: Vec3A,
    inv: Vec3A,
    last: Vec3A,
}

impl Default for RegionGrid {
    /// One region holding everything.
    fn default() -> Self {
        let mut grid = Self {
            origin: [0.0; 3],
            inv: [0.0; 3],
            res: [1; 3],
            bounds: Aabb::EMPTY,
            lanes: Lanes { origin: Vec3A::ZERO, inv: Vec3A::ZERO, last: Vec3A::ZERO },
        };
        grid.set_lanes();
        grid
    }
}

impl RegionGrid {
    /// A grid over the bounds of `aabbs` (or of their bulk, when a few far bodies stretch them: see the module
    /// docs): `regions_per_axis` on every axis that has an extent, or (0) sized by `policy`. O(n). Invalid boxes
    /// cannot make it degenerate, but the caller leaves them out of every region.
    #[must_use]
    pub fn plan(aabbs: &[Aabb], regions_per_axis: usize, policy: &GridPolicy) -> Self {
        // Box sizes count up to OUTLIER_RATIO times the bulk's extent, so that one box spanning ±1e30 does not
        // make the mean box size, and with it the regions' floor, astronomical (no box of an ordinary scene is
        // that large, so its plan is unchanged).
        let bulk = sampled_bounds(aabbs);
        let cap = Vec3::select(bulk.min.cmple(bulk.max), bulk.extents() * OUTLIER_RATIO, Vec3::INFINITY);
        // Invalid boxes need no test here (the caller leaves them out of every region): `min`/`max` drop a NaN,
        // an infinite corner stretches the full bounds so far that the bulk's are used, and a NaN or infinite
        // extent counts as `cap`. At worst an inverted box shrinks the mean size a little.
        let mut bounds = Aabb::EMPTY;
        let mut size_sum = [0f64; 3];
        for b in aabbs {
            // The box first: glam's `min`/`max` return their second argument when the first is NaN.
            bounds = Aabb::new(b.min.min(bounds.min), b.max.max(bounds.max));
            let e = b.extents().min(cap);
            for (k, s) in size_sum.iter_mut().enumerate() {
                *s += f64::from(e[k]);
            }
        }
        let bounds = bulk_bounds(bounds, bulk);
        let extent = bounds.extents();
        let live = |k: usize| extent[k].is_finite() && extent[k] > 0.0;
        let mut res = [1usize; 3];
        let n = aabbs.len().max(1) as f32;
        let axes = (0..3).filter(|&k| live(k)).count();
        if regions_per_axis > 0 {
            for (k, r) in res.iter_mut().enumerate() {
                if live(k) {
                    *r = regions_per_axis.min(policy.max_per_axis);
                }
            }
        } else if axes > 0 {
            let volume: f32 = (0..3).filter(|&k| live(k)).map(|k| extent[k]).product();
            let mut s = (volume * policy.bodies_per_region / n).powf(1.0 / axes as f32);
            for k in (0..3).filter(|&k| live(k)) {
                s = s.max(policy.min_width_in_mean_boxes * (size_sum[k] / f64::from(n)) as f32);
            }
            for k in (0..3).filter(|&k| live(k)) {
                res[k] = ((extent[k] / s).round() as usize).clamp(1, policy.max_per_axis);
            }
        }
        let mut grid = Self { res, bounds, ..Self::default() };
        for k in 0..3 {
            grid.origin[k] = if extent[k].is_finite() { bounds.min[k] } else { 0.0 };
            grid.inv[k] = if res[k] > 1 { res[k] as f32 / extent[k] } else { 0.0 };
        }
        grid.set_lanes();
        grid
    }

    fn set_lanes(&mut self) {
        let last = self.res.map(|r| (r - 1) as f32);
        self.lanes = Lanes { origin: self.origin.into(), inv: self.inv.into(), last: last.into() };
    }

    /// The number of regions.
    #[must_use]
    pub fn count(&self) -> usize {
        self.res.iter().product()
    }

    /// Regions per axis.
    #[must_use]
    pub fn res(&self) -> [usize; 3] {
        self.res
    }

    /// The bounds the grid was planned for.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// `true` when `bounds` grew or shrank so much (4× on an axis) that a grid kept across frames no longer fits
    /// the scene: its border regions would hold most bodies, or a few inner regions all of them.
    #[must_use]
    pub fn outgrown(&self, bounds: &Aabb) -> bool {
        let (a, b) = (self.bounds.extents(), bounds.extents());
        (0..3).any(|k| b[k] > 4.0 * a[k] || (self.res[k] > 1 && 4.0 * b[k] < a[k]))
    }

    /// The cell of `x` on `axis`: monotone in `x`, clamped to the grid.
    #[inline(always)]
    #[must_use]
    pub fn cell(&self, x: f32, axis: usize) -> u16 {
        let c = (x - self.origin[axis]) * self.inv[axis];
        // `as` saturates (NaN → 0); the clamp keeps the far wall inside the last region.
        (c.max(0.0) as usize).min(self.res[axis] - 1) as u16
    }

    /// The regions a box touches: [`cell`](Self::cell) of each corner coordinate, on four lanes. Clamping before
    /// the conversion instead of after gives the same cells (the last cell is a whole number; a NaN clamps to 0, as
    /// `as` makes it) in about half the instructions of six scalar cells.
    #[inline(always)]
    #[must_use]
    pub fn range(&self, b: &Aabb) -> RegionRange {
        let (lo, hi) = (self.cells(Vec3A::from(b.min)), self.cells(Vec3A::from(b.max)));
        [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
    }

    /// The regions a box touches when it is valid ([`is_valid_box`]), `None` when it is not: the one pass in which
    /// region-based algorithms compute every body's regions also obeys the invalid-box contract, its corners
    /// loaded once for both.
    #[inline(always)]
    #[must_use]
    pub fn range_if_valid(&self, b: &Aabb) -> Option<RegionRange> {
        let (min, max) = (Vec3A::from(b.min), Vec3A::from(b.max));
        let valid = (min.cmpge(Vec3A::splat(f32::MIN)) & min.cmple(max) & max.cmple(Vec3A::splat(f32::MAX))).all();
        let (lo, hi) = (self.cells(min), self.cells(max));
        valid.then_some([lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]])
    }

    /// [`cell`](Self::cell) of the three coordinates of `p`.
    #[inline(always)]
    fn cells(&self, p: Vec3A) -> [u16; 3] {
        let l = &self.lanes;
        // `max` returns its second operand for a NaN lane: 0, as `cell`'s saturating `as` does.
        let c = ((p - l.origin) * l.inv).max(Vec3A::ZERO).min(l.last);
        [c.x as u16, c.y as u16, c.z as u16]
    }

    /// The region holding the point `p`.
    #[inline(always)]
    #[must_use]
    pub fn region_of(&self, p: Vec3) -> usize {
        self.index([self.cell(p.x, 0), self.cell(p.y, 1), self.cell(p.z, 2)])
    }

    /// The region at cell coordinates `c`.
    #[inline(always)]
    #[must_use]
    pub fn index(&self, c: [u16; 3]) -> usize {
        (usize::from(c[0]) * self.res[1] + usize::from(c[1])) * self.res[2] + usize::from(c[2])
    }

    /// The cell coordinates of region `r`.
    #[must_use]
    pub fn coords(&self, r: usize) -> [u16; 3] {
        let [_, ry, rz] = self.res;
        [(r / (ry * rz)) as u16, ((r / rz) % ry) as u16, (r % rz) as u16]
    }

    /// Call `f` with every region of `range`, in index order.
    #[inline]
    pub fn for_each(&self, range: &RegionRange, mut f: impl FnMut(usize)) {
        for x in range[0]..=range[3] {
            for y in range[1]..=range[4] {
                let row = (usize::from(x) * self.res[1] + usize::from(y)) * self.res[2];
                for z in range[2]..=range[5] {
                    f(row + usize::from(z));
                }
            }
        }
    }

    /// Region `r`'s box inside the planned bounds (for debug views: the border regions really reach further).
    #[must_use]
    pub fn region_box(&self, r: usize) -> Aabb {
        let c = self.coords(r);
        let extent = self.bounds.extents();
        let edge = |k: usize, i: usize| {
            if extent[k].is_finite() { self.bounds.min[k] + extent[k] * i as f32 / self.res[k] as f32 } else { 0.0 }
        };
        let lo: [f32; 3] = std::array::from_fn(|k| edge(k, usize::from(c[k])));
        let hi: [f32; 3] = std::array::from_fn(|k| edge(k, usize::from(c[k]) + 1));
        Aabb::new(lo.into(), hi.into())
    }
}

#[cfg(test)]
mod tests;
