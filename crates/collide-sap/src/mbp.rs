//! Multi-box pruning (PhysX's MBP): a coarse grid of regions, a sort-and-sweep in each.
//!
//! One sweep axis gets crowded in 3-D: the slab of the world that a box's interval spans holds a fixed *fraction*
//! of all bodies, so a single sort-and-sweep makes O(n²) tests as n grows. Cutting the world into R³ regions
//! cuts each slab to the region's width: a body is tested only against bodies of its own regions that overlap
//! it on the sweep axis, which for well-sized regions is a handful.
//!
//! A body that spans several regions is entered in each, so the same pair can be found in several regions; it
//! is reported only by the region that contains the **minimum corner of the two boxes' intersection**. That
//! corner lies in both boxes, so its region is one both bodies were entered in — exactly one region reports the
//! pair, with no hash set or sort-and-dedup pass. Pairs of bodies that sit in one region each skip the check.
//!
//! Regions are independent, so they are processed in parallel (rayon) in chunks of about equal body counts.
//!
//! # Complexity
//! - Time: O(n) bounds and region assignment, O(Σ m_r log m_r) per-region sorts (m_r = bodies in region r,
//!   small), O(Σ s_r) sweep tests where s_r counts pairs of region r overlapping on the sweep axis.
//!   With regions a few times larger than the bodies and ~16–64 bodies each, that is O(n) per frame whatever the
//!   speed of the bodies.
//! - Memory: O(n · copies) entries, where `copies` is the mean number of regions per body (≈ (1 + size/region)³).
//! - Best case: bodies spread evenly, smaller than a region: linear time, embarrassingly parallel.
//! - Worst case: one dense cluster inside one region (it degrades to sort-and-sweep on that cluster), or bodies
//!   larger than regions (each body copied into many regions). Everything at one point is n²/2 tests, as for all.
//!
//! # Performance tips
//! Leave `regions_per_axis` at 0 (auto): it sizes regions for about [`MultiBoxPruning::BODIES_PER_REGION`] bodies
//! each and never smaller than twice the mean box size. Set it by hand for strongly clustered scenes, where a
//! finer grid splits the clusters. From [`MultiBoxPruning::PARALLEL_MIN`] bodies the regions run on all threads.

use collide_broadphase::Aabb as Bounds;
use collide_broadphase::radix::float_key;
use collide_broadphase::{Aabb, Broadphase, DebugBox, DebugGeometry, Frame, Pair, PairList, Stats};
use rayon::prelude::*;

/// The largest region count per axis.
pub const MAX_REGIONS_PER_AXIS: usize = 128;

/// The region grid of one frame: the world bounds cut into `res` regions per axis.
#[derive(Clone, Copy, Debug, Default)]
struct Grid {
    origin: [f32; 3],
    /// Regions per unit length on each axis.
    inv: [f32; 3],
    res: [usize; 3],
}

impl Grid {
    /// The region coordinate of `x` on `axis`. Monotone in `x`, which is all the ownership rule needs.
    #[inline(always)]
    fn cell(&self, x: f32, axis: usize) -> usize {
        let c = (x - self.origin[axis]) * self.inv[axis];
        // `as` saturates (NaN → 0); the clamp keeps the far wall inside the last region.
        (c.max(0.0) as usize).min(self.res[axis] - 1)
    }

    #[inline(always)]
    fn cells(&self, p: [f32; 3]) -> [usize; 3] {
        [self.cell(p[0], 0), self.cell(p[1], 1), self.cell(p[2], 2)]
    }

    #[inline(always)]
    fn index(&self, c: [usize; 3]) -> usize {
        (c[0] * self.res[1] + c[1]) * self.res[2] + c[2]
    }

    fn count(&self) -> usize {
        self.res.iter().product()
    }
}

/// The scratch of one parallel chunk of regions.
#[derive(Clone, Debug, Default)]
struct Chunk {
    regions: std::ops::Range<usize>,
    keys: Vec<u64>,
    boxes: Vec<Aabb>,
    ids: Vec<u32>,
    out: Vec<Pair>,
    tests: u64,
}

/// Multi-box pruning: sort-and-sweep per region of a coarse grid. Registry name: `mbp`.
#[derive(Clone, Debug, Default)]
pub struct MultiBoxPruning {
    /// Regions per axis; 0 chooses from the body count and sizes each frame.
    regions_per_axis: usize,
    grid: Grid,
    /// Each body's region range, low corner then high corner.
    ranges: Vec<[u16; 6]>,
    /// `true` when the body spans more than one region (its pairs need the ownership check).
    multi: Vec<bool>,
    /// `offsets[r]..offsets[r + 1]` are region r's entries.
    offsets: Vec<u32>,
    /// Bodies grouped by region (a counting sort).
    entries: Vec<u32>,
    chunks: Vec<Chunk>,
    tests: u64,
}

impl MultiBoxPruning {
    /// The auto resolution aims at this many bodies per region.
    pub const BODIES_PER_REGION: f32 = 32.0;
    /// From this many bodies the regions run in parallel.
    pub const PARALLEL_MIN: usize = 8_000;

    /// Multi-box pruning with `regions_per_axis` regions on each axis (0 = auto).
    #[must_use]
    pub fn new(regions_per_axis: usize) -> Self {
        Self { regions_per_axis: regions_per_axis.min(MAX_REGIONS_PER_AXIS), ..Self::default() }
    }

    /// The region grid for these boxes: bounds, then regions per axis (fixed, or auto from count and box size).
    fn plan(&self, aabbs: &[Aabb]) -> Grid {
        let mut bounds = Bounds::EMPTY;
        let mut size_sum = [0f64; 3];
        for b in aabbs {
            bounds = bounds.union(b);
            let e = b.extents();
            for k in 0..3 {
                size_sum[k] += f64::from(e[k]);
            }
        }
        let extent = bounds.extents();
        let n = aabbs.len().max(1) as f32;
        let live: Vec<usize> = (0..3).filter(|&k| extent[k] > 0.0).collect();
        let mut res = [1usize; 3];
        if self.regions_per_axis > 0 {
            for &k in &live {
                res[k] = self.regions_per_axis;
            }
        } else if !live.is_empty() {
            // Region edge s so that a region holds about BODIES_PER_REGION bodies in a uniform world, but at least
            // twice the mean box size (smaller regions copy every body into many of them).
            let volume: f32 = live.iter().map(|&k| extent[k]).product();
            let mut s = (volume * Self::BODIES_PER_REGION / n).powf(1.0 / live.len() as f32);
            for &k in &live {
                s = s.max(2.0 * (size_sum[k] / f64::from(n)) as f32);
            }
            for &k in &live {
                res[k] = ((extent[k] / s).round() as usize).clamp(1, MAX_REGIONS_PER_AXIS);
            }
        }
        let mut grid = Grid { res, ..Grid::default() };
        for k in 0..3 {
            grid.origin[k] = bounds.min[k];
            grid.inv[k] = if extent[k] > 0.0 { res[k] as f32 / extent[k] } else { 0.0 };
        }
        grid
    }

    /// Assign bodies to regions: a counting sort of (region, body) entries. O(n · copies).
    fn assign(&mut self, aabbs: &[Aabb]) {
        let grid = self.grid;
        let regions = grid.count();
        self.offsets.clear();
        self.offsets.resize(regions + 1, 0);
        self.ranges.clear();
        self.multi.clear();
        for b in aabbs {
            let lo = grid.cells(b.min.to_array());
            let hi = grid.cells(b.max.to_array());
            self.ranges.push([lo[0] as u16, lo[1] as u16, lo[2] as u16, hi[0] as u16, hi[1] as u16, hi[2] as u16]);
            self.multi.push(lo != hi);
            for_each_region(&grid, lo, hi, |r| self.offsets[r + 1] += 1);
        }
        for r in 0..regions {
            self.offsets[r + 1] += self.offsets[r];
        }
        self.entries.clear();
        self.entries.resize(self.offsets[regions] as usize, 0);
        // Fill with a moving cursor per region (offsets[r] advances), then shift back.
        for (i, rg) in self.ranges.iter().enumerate() {
            let lo = [rg[0] as usize, rg[1] as usize, rg[2] as usize];
            let hi = [rg[3] as usize, rg[4] as usize, rg[5] as usize];
            let (offsets, entries) = (&mut self.offsets, &mut self.entries);
            for_each_region(&grid, lo, hi, |r| {
                entries[offsets[r] as usize] = i as u32;
                offsets[r] += 1;
            });
        }
        for r in (1..=regions).rev() {
            self.offsets[r] = self.offsets[r - 1];
        }
        self.offsets[0] = 0;
    }

    /// Split the regions into `k` contiguous chunks of about equal entry counts.
    fn split(&mut self, k: usize) {
        let regions = self.grid.count();
        let total = self.offsets[regions] as usize;
        self.chunks.resize_with(k, Chunk::default);
        let mut r = 0;
        for (c, chunk) in self.chunks.iter_mut().enumerate() {
            let start = r;
            let target = total * (c + 1) / k;
            while r < regions && (self.offsets[r + 1] as usize) <= target {
                r += 1;
            }
            if c + 1 == k {
                r = regions;
            }
            chunk.regions = start..r;
        }
    }
}

#[inline]
fn for_each_region(grid: &Grid, lo: [usize; 3], hi: [usize; 3], mut f: impl FnMut(usize)) {
    for x in lo[0]..=hi[0] {
        for y in lo[1]..=hi[1] {
            let row = (x * grid.res[1] + y) * grid.res[2];
            for z in lo[2]..=hi[2] {
                f(row + z);
            }
        }
    }
}

/// Sort-and-sweep every region of `chunk` on x, reporting each pair in the region that owns it.
fn run_chunk(chunk: &mut Chunk, grid: &Grid, aabbs: &[Aabb], offsets: &[u32], entries: &[u32], multi: &[bool]) {
    chunk.out.clear();
    chunk.tests = 0;
    for r in chunk.regions.clone() {
        let ents = &entries[offsets[r] as usize..offsets[r + 1] as usize];
        if ents.len() < 2 {
            continue;
        }
        chunk.keys.clear();
        chunk.keys.extend(ents.iter().map(|&b| (u64::from(float_key(aabbs[b as usize].min.x)) << 32) | u64::from(b)));
        // Regions hold tens of bodies: pdqsort on u64 beats a radix sort's histogram set-up here.
        chunk.keys.sort_unstable();
        chunk.boxes.clear();
        chunk.ids.clear();
        for &k in &chunk.keys {
            chunk.boxes.push(aabbs[k as u32 as usize]);
            chunk.ids.push(k as u32);
        }
        let (boxes, ids) = (&chunk.boxes, &chunk.ids);
        for i in 0..boxes.len() {
            let a = &boxes[i];
            let mut j = i + 1;
            while j < boxes.len() && boxes[j].min.x <= a.max.x {
                let b = &boxes[j];
                if a.overlaps(b) {
                    let (ia, ib) = (ids[i], ids[j]);
                    let owned = if multi[ia as usize] | multi[ib as usize] {
                        grid.index(grid.cells(a.min.max(b.min).to_array())) == r
                    } else {
                        true
                    };
                    if owned {
                        chunk.out.push(Pair::new(ia, ib));
                    }
                }
                j += 1;
            }
            chunk.tests += (j - i - 1) as u64;
        }
    }
}

impl Broadphase for MultiBoxPruning {
    fn name(&self) -> &'static str {
        "mbp"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        out.clear();
        self.grid = self.plan(aabbs);
        self.assign(aabbs);
        let k = if aabbs.len() < Self::PARALLEL_MIN { 1 } else { 8 * rayon::current_num_threads() };
        self.split(k);
        let (grid, offsets, entries, multi) = (&self.grid, &self.offsets, &self.entries, &self.multi);
        if k == 1 {
            run_chunk(&mut self.chunks[0], grid, aabbs, offsets, entries, multi);
        } else {
            self.chunks.par_iter_mut().for_each(|c| run_chunk(c, grid, aabbs, offsets, entries, multi));
        }
        self.tests = self.chunks.iter().map(|c| c.tests).sum();
        out.reserve(self.chunks.iter().map(|c| c.out.len()).sum());
        for c in &self.chunks {
            out.extend_from_slice(&c.out);
        }
    }

    fn stats(&self) -> Stats {
        let regions = self.grid.count();
        let entries = self.offsets.get(regions).copied().unwrap_or(0);
        let mut stats = Stats::new();
        stats.pair_tests = self.tests;
        stats.with("regions", regions as f64).with("region_entries", f64::from(entries))
    }

    fn validate(&self) -> Result<(), String> {
        // Every body is entered exactly once in each region of its range, and nowhere else.
        let regions = self.grid.count();
        let mut expected = 0usize;
        for rg in &self.ranges {
            expected += (0..3).map(|k| usize::from(rg[k + 3] - rg[k]) + 1).product::<usize>();
        }
        let got = self.offsets.get(regions).copied().unwrap_or(0) as usize;
        if got != expected {
            return Err(format!("{got} region entries, expected {expected} from the bodies' region ranges"));
        }
        for r in 0..regions {
            for &b in &self.entries[self.offsets[r] as usize..self.offsets[r + 1] as usize] {
                let rg = self.ranges[b as usize];
                let c = [
                    r / (self.grid.res[1] * self.grid.res[2]),
                    (r / self.grid.res[2]) % self.grid.res[1],
                    r % self.grid.res[2],
                ];
                if (0..3).any(|k| c[k] < usize::from(rg[k]) || c[k] > usize::from(rg[k + 3])) {
                    return Err(format!("body {b} entered in region {r} outside its range {rg:?}"));
                }
            }
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        let g = &self.grid;
        // A degenerate axis (all boxes at one coordinate) has one region of zero width.
        let edge = |k: usize, c: usize| if g.inv[k] > 0.0 { g.origin[k] + c as f32 / g.inv[k] } else { g.origin[k] };
        for x in 0..g.res[0] {
            for y in 0..g.res[1] {
                for z in 0..g.res[2] {
                    let c = [x, y, z];
                    let lo: [f32; 3] = std::array::from_fn(|k| edge(k, c[k]));
                    let hi: [f32; 3] = std::array::from_fn(|k| edge(k, c[k] + 1));
                    out.boxes.push(DebugBox { aabb: Aabb::new(lo.into(), hi.into()), depth: 0 });
                }
            }
        }
    }
}
