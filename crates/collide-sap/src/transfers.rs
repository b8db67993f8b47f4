//! The regions of regional incremental SAP: a coarse grid fixed per warm-up, each region with its own three
//! sorted endpoint arrays, and the transfers of bodies between regions.
//!
//! # Why regions
//! Insertion sort swaps an endpoint with every endpoint it passes, so a frame costs displacement × endpoint
//! density per axis. In one global array the density on an axis is 2n / W: every body's endpoints are spread over
//! the whole world's width, whatever their other two coordinates. A region of width W/R on every axis holds
//! n/R³ bodies over a width W/R, a density of 2n / (W·R²): **R² times fewer swaps** for the same motion, and
//! arrays of a few thousand endpoints that stay in L1/L2 while they are sorted.
//!
//! # The pair rule
//! All regions share one persistent pair set, and every event is *individually* true of this frame's boxes:
//! a begin passing an end adds the pair only after the exact overlap test on this frame's boxes, and an end
//! passing a begin means the intervals are separated on that axis now. So the same event seen in several regions
//! (a pair whose bodies share several regions) is idempotent, and no region can contradict another. What regions
//! cannot see are pairs whose shared regions changed:
//! - a body that **enters** a region is tested against that region's bodies (one sweep, see [`enter`]), which
//!   finds every pair that overlaps now and shares no region it shared before;
//! - every pair of the set with a body that changed regions is **re-tested** before the sort, and dropped if its
//!   boxes no longer overlap (a pair whose bodies stopped sharing any region cannot overlap: the intersection of
//!   two boxes lies in a region both are entered in, because the cell of a coordinate is monotone).
//!
//! A pair whose bodies share a region before and after the frame is kept right by that region's events, exactly
//! as in the thesis's algorithm. The output is the set, so each pair is reported once by construction.

use crate::endpoints::{body, is_end, merge_into, of_box, order, relabel};
use crate::update::AxisState;
use collide_broadphase::radix::float_key;
use collide_broadphase::{Aabb, Pair};

/// The largest region count per axis of SAP's grid.
pub const MAX_SAP_REGIONS_PER_AXIS: usize = 64;

/// A body's regions: low cell per axis, then high cell per axis (inclusive).
pub(crate) type Range = [u16; 6];

/// The range of a body in no region (not yet inserted): empty because low > high.
pub(crate) const NO_RANGE: Range = [1, 1, 1, 0, 0, 0];

/// The region grid. Cells outside the planned bounds clamp to the border regions, which therefore extend to
/// infinity: bodies may leave the bounds without leaving the grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegionGrid {
    origin: [f32; 3],
    /// Regions per unit length on each axis (0 on an axis with one region).
    inv: [f32; 3],
    pub res: [usize; 3],
    /// The bounds the grid was planned for.
    pub bounds: Aabb,
}

impl Default for RegionGrid {
    fn default() -> Self {
        Self { origin: [0.0; 3], inv: [0.0; 3], res: [1; 3], bounds: Aabb::EMPTY }
    }
}

impl RegionGrid {
    /// A grid over the bounds of `aabbs`: `regions_per_axis` on every axis that has an extent, or (0) about
    /// `bodies_per_region` bodies per region in a uniform world, with regions at least four mean box sizes wide.
    pub fn plan(aabbs: &[Aabb], regions_per_axis: usize, bodies_per_region: f32) -> Self {
        let mut bounds = Aabb::EMPTY;
        let mut size_sum = [0f64; 3];
        for b in aabbs {
            bounds = bounds.union(b);
            let e = b.extents();
            for (k, s) in size_sum.iter_mut().enumerate() {
                *s += f64::from(e[k]);
            }
        }
        let extent = bounds.extents();
        let live: Vec<usize> = (0..3).filter(|&k| extent[k].is_finite() && extent[k] > 0.0).collect();
        let mut res = [1usize; 3];
        let n = aabbs.len().max(1) as f32;
        if regions_per_axis > 0 {
            for &k in &live {
                res[k] = regions_per_axis.min(MAX_SAP_REGIONS_PER_AXIS);
            }
        } else if !live.is_empty() {
            let volume: f32 = live.iter().map(|&k| extent[k]).product();
            let mut s = (volume * bodies_per_region / n).powf(1.0 / live.len() as f32);
            for &k in &live {
                s = s.max(4.0 * (size_sum[k] / f64::from(n)) as f32);
            }
            for &k in &live {
                res[k] = ((extent[k] / s).round() as usize).clamp(1, MAX_SAP_REGIONS_PER_AXIS);
            }
        }
        let mut grid = Self { res, bounds, ..Self::default() };
        for k in 0..3 {
            grid.origin[k] = if extent[k].is_finite() { bounds.min[k] } else { 0.0 };
            grid.inv[k] = if res[k] > 1 { res[k] as f32 / extent[k] } else { 0.0 };
        }
        grid
    }

    /// `true` when `bounds` grew or shrank so much (4× on an axis) that the grid no longer fits the scene.
    pub fn outgrown(&self, bounds: &Aabb) -> bool {
        let (a, b) = (self.bounds.extents(), bounds.extents());
        (0..3).any(|k| b[k] > 4.0 * a[k] || (self.res[k] > 1 && 4.0 * b[k] < a[k]))
    }

    pub fn count(&self) -> usize {
        self.res.iter().product()
    }

    /// The cell of `x` on `axis`: monotone in `x`, clamped to the grid.
    #[inline(always)]
    fn cell(&self, x: f32, axis: usize) -> u16 {
        let c = (x - self.origin[axis]) * self.inv[axis];
        (c.max(0.0) as usize).min(self.res[axis] - 1) as u16
    }

    /// The regions of a box.
    #[inline(always)]
    pub fn range(&self, b: &Aabb) -> Range {
        let (lo, hi) = (b.min, b.max);
        [
            self.cell(lo.x, 0),
            self.cell(lo.y, 1),
            self.cell(lo.z, 2),
            self.cell(hi.x, 0),
            self.cell(hi.y, 1),
            self.cell(hi.z, 2),
        ]
    }

    /// The cell coordinates of region `r`.
    pub fn coords(&self, r: usize) -> [u16; 3] {
        let [_, ry, rz] = self.res;
        [(r / (ry * rz)) as u16, ((r / rz) % ry) as u16, (r % rz) as u16]
    }

    /// Call `f` with every region of `range`.
    #[inline]
    pub fn for_each(&self, range: &Range, mut f: impl FnMut(usize)) {
        for x in range[0]..=range[3] {
            for y in range[1]..=range[4] {
                let row = (usize::from(x) * self.res[1] + usize::from(y)) * self.res[2];
                for z in range[2]..=range[5] {
                    f(row + usize::from(z));
                }
            }
        }
    }
}

/// `true` when the region at cell `c` is in `range`.
#[inline(always)]
pub(crate) fn contains(range: &Range, c: [u16; 3]) -> bool {
    (0..3).all(|k| range[k] <= c[k] && c[k] <= range[k + 3])
}

/// The 16-bit quantisation of the overlap filter, fixed with the grid: bodies outside its bounds clamp to the
/// border values, which keeps the filter conservative.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quantizer {
    origin: [f32; 3],
    scale: [f32; 3],
}

impl Quantizer {
    pub fn new(b: &Aabb) -> Self {
        let mut q = Self::default();
        for k in 0..3 {
            let extent = b.max[k] - b.min[k];
            q.origin[k] = if extent.is_finite() { b.min[k] } else { 0.0 };
            q.scale[k] = if extent.is_finite() && extent > 0.0 { 65535.0 / extent } else { 0.0 };
        }
        q
    }

    /// `lo << 16 | hi` of a box on `axis`, rounded outwards: real overlap implies quantised overlap.
    #[inline(always)]
    fn quantize(&self, lo: f32, hi: f32, axis: usize) -> u32 {
        let l = ((lo - self.origin[axis]) * self.scale[axis]).clamp(0.0, 65535.0);
        let h = ((hi - self.origin[axis]) * self.scale[axis]).clamp(0.0, 65535.0);
        // Non-negative: truncation is the floor, and the ceiling adds one where truncation lost something (no
        // libm call: `floor`/`ceil` are not inlined without SSE4.1).
        let (ql, th) = (l as u32, h as u32);
        let qh = th + u32::from((th as f32) < h);
        (ql << 16) | qh
    }
}

/// One region's bookkeeping besides its three axes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    pub coords: [u16; 3],
    /// Local index → body: the endpoints of the region name bodies by their index here.
    pub members: Vec<u32>,
    /// Per axis and member, this frame's `float_key(min) << 32 | float_key(max)` (see [`gather`]).
    pub keys: [Vec<u64>; 3],
    /// Per axis and member, the quantised interval of the overlap filter.
    pub quant: [Vec<u32>; 3],
    /// This frame's boxes of the members (the gather buffer).
    boxes: Vec<Aabb>,
    /// Bodies to insert this frame (they entered the region, or are new).
    pub entering: Vec<u32>,
    /// Bodies leaving this frame (only counted: the range of each body says whether it stays).
    pub leaving: u32,
    /// Pairs found by this frame's `enter`, and its exact tests.
    pub adds: Vec<u64>,
    pub tests: u64,
    new_endpoints: Vec<u64>,
    remap: Vec<u32>,
    open_old: Vec<u32>,
    open_new: Vec<u32>,
}

/// Gather the members' boxes of this frame into the region's local keys and quantised intervals: one random read
/// of a box per member, then everything the sort reads is local. O(m).
pub(crate) fn gather(region: &mut Region, aabbs: &[Aabb], quantizer: &Quantizer) {
    // Members are scattered over the body array, so every read is a cache miss (the frame's main cost at 10⁵
    // bodies). A first loop that only copies the boxes keeps many misses in flight at once; computing the keys in
    // the same loop stalled on each miss in turn: thesis-slow at 10⁵ bodies went from ~11 to ~8 ms serial CPU.
    region.boxes.clear();
    region.boxes.extend(region.members.iter().map(|&id| aabbs[id as usize]));
    let m = region.boxes.len();
    for k in 0..3 {
        region.keys[k].resize(m, 0);
        region.quant[k].resize(m, 0);
    }
    for (j, b) in region.boxes.iter().enumerate() {
        for k in 0..3 {
            let (lo, hi) = (b.min[k], b.max[k]);
            region.keys[k][j] = (u64::from(float_key(lo)) << 32) | u64::from(float_key(hi));
            region.quant[k][j] = quantizer.quantize(lo, hi, k);
        }
    }
}

/// Drop the bodies that left this region (their range no longer contains it) from its members and its arrays,
/// renumbering the rest in order. Order-preserving: the arrays stay sorted. O(endpoints of the region).
pub(crate) fn leave(axes: &mut [AxisState], region: &mut Region, ranges: &[Range]) {
    let c = region.coords;
    compact(axes, region, |id| contains(&ranges[id as usize], c).then_some(id));
}

/// Keep the members for which `keep` gives a (possibly new) body id, renumber them in order and relabel the
/// endpoints. O(endpoints of the region).
pub(crate) fn compact(axes: &mut [AxisState], region: &mut Region, mut keep: impl FnMut(u32) -> Option<u32>) {
    region.remap.clear();
    let mut kept = 0;
    let mut dropped = false;
    for j in 0..region.members.len() {
        match keep(region.members[j]) {
            Some(id) => {
                region.members[kept] = id;
                region.remap.push(kept as u32);
                kept += 1;
            }
            None => {
                region.remap.push(u32::MAX);
                dropped = true;
            }
        }
    }
    region.members.truncate(kept);
    if !dropped {
        return;
    }
    let remap = &region.remap;
    for axis in axes {
        axis.endpoints.retain_mut(|e| {
            let to = remap[body(*e) as usize];
            *e = relabel(*e, to);
            to != u32::MAX
        });
    }
}

/// Insert the entering bodies (Tracy, Buss & Woods 2009): sort their endpoints and merge them into each axis, after
/// finding their pairs with one sweep of the x axis that merges old and new endpoints on the fly and tests only
/// pairs involving an entering body. O(m + k log k + k·o) for m bodies, k entering, o open intervals on x.
pub(crate) fn enter(axes: &mut [AxisState], region: &mut Region, aabbs: &[Aabb]) {
    region.adds.clear();
    region.tests = 0;
    if region.entering.is_empty() {
        return;
    }
    let first = region.members.len() as u32;
    region.members.extend_from_slice(&region.entering);
    for (k, axis) in axes.iter_mut().enumerate() {
        let fresh = &mut region.new_endpoints;
        fresh.clear();
        for (t, &id) in region.entering.iter().enumerate() {
            fresh.extend_from_slice(&of_box(&aabbs[id as usize], k, first + t as u32));
        }
        fresh.sort_unstable_by_key(|&e| order(e));
        if k == 0 {
            let (open_old, open_new) = (&mut region.open_old, &mut region.open_new);
            let (adds, tests) = (&mut region.adds, &mut region.tests);
            sweep_entering(&axis.endpoints, fresh, &region.members, aabbs, [open_old, open_new], adds, tests);
        }
        merge_into(&mut axis.endpoints, fresh);
    }
}

/// The sweep of [`enter`]: at an entering body's begin test every open interval; at an old body's begin only the
/// open entering ones, so that each pair is tested once. Endpoints name local indices into `members`.
fn sweep_entering(
    old: &[u64],
    fresh: &[u64],
    members: &[u32],
    aabbs: &[Aabb],
    [open_old, open_new]: [&mut Vec<u32>; 2],
    adds: &mut Vec<u64>,
    tests: &mut u64,
) {
    open_old.clear();
    open_new.clear();
    let (mut i, mut j) = (0, 0);
    while j < fresh.len() {
        // Fresh endpoints all consumed ends the sweep: later old begins have no open entering interval.
        let from_new = i == old.len() || order(fresh[j]) < order(old[i]);
        let e = if from_new { fresh[j] } else { old[i] };
        if from_new {
            j += 1;
        } else {
            i += 1;
        }
        let id = members[body(e) as usize];
        let list = if from_new { &mut *open_new } else { &mut *open_old };
        if is_end(e) {
            if let Some(p) = list.iter().position(|&o| o == id) {
                list.swap_remove(p);
            }
            continue;
        }
        let a = &aabbs[id as usize];
        let others = open_new.iter().chain(if from_new { &open_old[..] } else { &[][..] });
        for &o in others {
            *tests += 1;
            if a.overlaps(&aabbs[o as usize]) {
                adds.push(Pair::new(id, o).key());
            }
        }
        if from_new { open_new.push(id) } else { open_old.push(id) }
    }
}
