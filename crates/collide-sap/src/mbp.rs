//! Multi-box pruning (PhysX's MBP): a coarse grid of regions, a sort-and-sweep in each.
//!
//! One sweep axis gets crowded in 3-D: the slab of the world that a box's interval spans holds a fixed *fraction*
//! of all bodies, so a single sort-and-sweep makes O(n²) tests as n grows. Cutting the world into R³ regions
//! cuts each slab to the region's width: a body is tested only against bodies of its own regions that overlap
//! it on the sweep axis, which for well-sized regions is a handful.
//!
//! A body that spans several regions is entered in each, so the same pair can be found in several regions; it
//! is reported only by the region that contains the **minimum corner of the two boxes' intersection**
//! (`collide_broadphase::ownership`). That corner lies in both boxes, so its region is one both bodies were
//! entered in — exactly one region reports the pair, with no hash set or sort-and-dedup pass. Pairs of bodies
//! that sit in one region each skip the check.
//!
//! The grid is `collide_broadphase::region_grid`'s, planned every frame; each region's sort-and-sweep is the shared box
//! sweep (`collide_broadphase::sweep`) over records named by their place in the region, so that the ownership
//! check of the pairs found reads the region's own records. Regions are independent, so they are processed in
//! parallel (rayon) in chunks of about equal entry counts.
//!
//! The grid covers the bulk of the bodies: a few far ones (at ±1e30, say) go to the border regions instead of
//! stretching every region over the whole range (`collide_broadphase::region_grid`'s plan), which would put all the others
//! into one region and make this one sort-and-sweep of everything. An invalid box (`collide_broadphase::invalid`)
//! is in no region: the pass that computes every body's regions leaves it out.
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
//! finer grid splits the clusters. From [`Parallelism::DEFAULT_MIN_WORK`] bodies the regions run on all threads.

use collide_broadphase::ownership::owner_point;
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::radix::float_key;
use collide_broadphase::region_grid::{GridPolicy, NO_REGIONS, RegionGrid, RegionRange, range_contains, range_len};
use collide_broadphase::sweep::{PairSink, SinkBuffer, SweepBox, sweep_sparse};
use collide_broadphase::{Aabb, Broadphase, DebugBox, DebugGeometry, Frame, Pair, PairList, Parallelism, Stats, Tally};

/// The largest region count per axis, requested or automatic: 128³ = 2.1 M regions. The grid is planned and
/// filled every frame, and the counting sort that groups the bodies by region clears and sums one offset per
/// region — 8 MB at the cap, more than the boxes of 3·10⁵ bodies. The automatic grid asks for 32 per axis at 10⁶
/// bodies, so the cap only bounds a hand-set `regions_per_axis`.
pub const MAX_REGIONS_PER_AXIS: usize = 128;

/// Multi-box pruning's automatic grid ([`GridPolicy`]).
const GRID: GridPolicy = GridPolicy {
    // About 32 bodies per region: each region is a sort of its bodies and a sweep of them, cheap when small; with
    // smaller regions the copies of bodies spanning several and the per-region overhead grow faster than the
    // sweeps shrink.
    bodies_per_region: MultiBoxPruning::BODIES_PER_REGION,
    // Regions at least 2 mean boxes wide: a body is then copied into (1 + 1/2)³ ≈ 3.4 regions at most on
    // average. Rebuilt every frame, a copy costs one entry of the counting sort and one record of a sweep, and
    // there are no transfers, so smaller regions still pay where SAP, which keeps its regions, takes 4.
    min_width_in_mean_boxes: 2.0,
    max_per_axis: MAX_REGIONS_PER_AXIS,
};

/// The scratch of one chunk of regions, kept across frames: a region's sort keys, its sweep records and the
/// sweep's pair buffer.
#[derive(Clone, Debug, Default)]
struct RegionScratch {
    keys: Vec<u64>,
    boxes: Vec<SweepBox>,
    sink: SinkBuffer,
}

/// Multi-box pruning: sort-and-sweep per region of a coarse grid. Registry name: `mbp`.
#[derive(Clone, Debug, Default)]
pub struct MultiBoxPruning {
    /// Regions per axis; 0 chooses from the body count and sizes each frame.
    regions_per_axis: usize,
    /// When the regions run on rayon's threads.
    parallelism: Parallelism,
    grid: RegionGrid,
    /// Each body's regions.
    ranges: Vec<RegionRange>,
    /// `true` when the body spans more than one region (its pairs need the ownership check).
    multi: Vec<bool>,
    /// `offsets[r]..offsets[r + 1]` are region r's entries.
    offsets: Vec<u32>,
    /// Bodies grouped by region (a counting sort).
    entries: Vec<u32>,
    chunks: PairChunks<RegionScratch>,
    tally: Tally,
}

impl MultiBoxPruning {
    /// The auto resolution aims at this many bodies per region.
    pub const BODIES_PER_REGION: f32 = 32.0;

    /// Multi-box pruning with `regions_per_axis` regions on each axis (0 = auto).
    #[must_use]
    pub fn new(regions_per_axis: usize) -> Self {
        Self { regions_per_axis: regions_per_axis.min(MAX_REGIONS_PER_AXIS), ..Self::default() }
    }

    /// The same with `parallelism` deciding when the regions run on rayon's threads.
    #[must_use]
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }

    /// Assign bodies to regions: a counting sort of (region, body) entries. O(n · copies). An invalid box is in
    /// no region ([`NO_REGIONS`]), so no sweep meets it.
    fn assign(&mut self, frame: &Frame<'_>) {
        let (grid, aabbs) = (self.grid, frame.aabbs);
        let regions = grid.count();
        self.offsets.clear();
        self.offsets.resize(regions + 1, 0);
        self.ranges.clear();
        self.multi.clear();
        for (i, b) in aabbs.iter().enumerate() {
            let range = grid.range_if_valid(b).unwrap_or_else(|| {
                frame.reject_invalid(i);
                NO_REGIONS
            });
            self.ranges.push(range);
            self.multi.push(range[..3] != range[3..]);
            grid.for_each(&range, |r| self.offsets[r + 1] += 1);
        }
        for r in 0..regions {
            self.offsets[r + 1] += self.offsets[r];
        }
        self.entries.clear();
        self.entries.resize(self.offsets[regions] as usize, 0);
        // Fill with a moving cursor per region (offsets[r] advances), then shift back.
        for (i, range) in self.ranges.iter().enumerate() {
            let (offsets, entries) = (&mut self.offsets, &mut self.entries);
            grid.for_each(range, |r| {
                entries[offsets[r] as usize] = i as u32;
                offsets[r] += 1;
            });
        }
        for r in (1..=regions).rev() {
            self.offsets[r] = self.offsets[r - 1];
        }
        self.offsets[0] = 0;
        // Per body its box read and its range written; per entry two counting passes and a write; the offsets
        // cleared, summed and shifted.
        let (n, e, r) = (aabbs.len() as u64, self.entries.len() as u64, regions as u64);
        self.tally += Tally::work(n + e + r, n * (24 + 12 + 1) + e * 3 * 4 + r * 3 * 4);
    }
}

/// The regions whose entries start in `tasks` (a range of `entries`), each swept; pairs to `out`.
#[allow(clippy::too_many_arguments, reason = "the frame's grouped bodies; a struct would only rename them")]
fn chunk_pairs(
    tasks: std::ops::Range<usize>,
    grid: &RegionGrid,
    aabbs: &[Aabb],
    offsets: &[u32],
    entries: &[u32],
    multi: &[bool],
    scratch: &mut RegionScratch,
    out: &mut Vec<Pair>,
) -> Tally {
    let regions = grid.count();
    let first = offsets[..regions].partition_point(|&o| (o as usize) < tasks.start);
    let mut tally = Tally::default();
    for r in first..regions {
        let (start, end) = (offsets[r] as usize, offsets[r + 1] as usize);
        if start >= tasks.end {
            break;
        }
        if end - start >= 2 {
            tally += region_pairs(r, &entries[start..end], grid, aabbs, multi, scratch, out);
        }
    }
    tally
}

/// Sort-and-sweep region `r` (its bodies `ents`) on x, reporting each pair in the region that owns it.
fn region_pairs(
    r: usize,
    ents: &[u32],
    grid: &RegionGrid,
    aabbs: &[Aabb],
    multi: &[bool],
    s: &mut RegionScratch,
    out: &mut Vec<Pair>,
) -> Tally {
    s.keys.clear();
    s.keys.extend(ents.iter().map(|&b| (u64::from(float_key(aabbs[b as usize].min.x)) << 32) | u64::from(b)));
    // Regions hold tens of bodies: pdqsort on u64 beats a radix sort's histogram set-up here.
    s.keys.sort_unstable();
    s.boxes.clear();
    s.boxes.extend(s.keys.iter().map(|&k| SweepBox::on::<0>(&aabbs[k as u32 as usize], k as u32)));
    // A pair of bodies that each sit in one region is this region's; otherwise the region holding the min corner
    // of the boxes' intersection owns it.
    let owned = |a: &SweepBox, b: &SweepBox| {
        !(multi[a.id() as usize] | multi[b.id() as usize])
            || grid.region_of(owner_point(a.min::<0>(), b.min::<0>())) == r
    };
    let before = out.len();
    let tests = sweep_sparse(&s.boxes, 0..s.boxes.len(), owned, &mut PairSink::new(out, &mut s.sink));
    // Per entry: its box read twice (key, record), a key made and sorted, a record written.
    let (m, found) = (ents.len() as u64, (out.len() - before) as u64);
    Tally { pair_tests: tests, work: 2 * m + found, bytes_touched: m * (2 * 24 + 2 * 8 + 28) + found * 8 }
}

// `on_resize` keeps the trait's default, `reset`, which is a no-op here: the grid is planned and the regions sorted anew every frame, and
// nothing but buffers is carried from one to the next, so a resize — a permutation included — costs nothing and the
// next frame is an ordinary one.
impl Broadphase for MultiBoxPruning {
    fn name(&self) -> &'static str {
        "mbp"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        out.clear();
        self.tally = Tally::default();
        self.grid = RegionGrid::plan(aabbs, self.regions_per_axis, &GRID);
        self.assign(frame);
        let (grid, offsets, entries, multi) = (&self.grid, &self.offsets[..], &self.entries[..], &self.multi[..]);
        self.tally += self.chunks.run(
            self.parallelism,
            "mbp regions",
            aabbs.len(),
            entries.len(),
            out.as_mut_vec(),
            |tasks, out, scratch| chunk_pairs(tasks, grid, aabbs, offsets, entries, multi, scratch, out),
        );
    }

    fn stats(&self) -> Stats {
        let regions = self.grid.count();
        let entries = self.offsets.get(regions).copied().unwrap_or(0);
        Stats::from(self.tally).with("regions", regions as f64).with("region_entries", f64::from(entries))
    }

    fn validate(&self) -> Result<(), String> {
        // Every body is entered exactly once in each region of its range, and nowhere else.
        let regions = self.grid.count();
        if self.offsets.is_empty() && self.ranges.is_empty() {
            return Ok(()); // never run (or handed over before its first frame): nothing to check
        }
        if self.offsets.len() != regions + 1 {
            return Err(format!("{} region offsets for {regions} regions", self.offsets.len()));
        }
        let expected: usize = self.ranges.iter().map(range_len).sum();
        let got = self.offsets.get(regions).copied().unwrap_or(0) as usize;
        if got != expected {
            return Err(format!("{got} region entries, expected {expected} from the bodies' region ranges"));
        }
        for r in 0..regions {
            for &b in &self.entries[self.offsets[r] as usize..self.offsets[r + 1] as usize] {
                let range = self.ranges[b as usize];
                if !range_contains(&range, self.grid.coords(r)) {
                    return Err(format!("body {b} entered in region {r} outside its range {range:?}"));
                }
            }
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        out.boxes.extend((0..self.grid.count()).map(|r| DebugBox { aabb: self.grid.region_box(r), depth: 0 }));
    }
}
