//! [`SweepAndPrune`]: regional incremental sweep-and-prune, the thesis's algorithm (chapter 3.3) in every region
//! of a coarse grid, plus the initialisation, batched insertion/removal and the fall-back that make it usable at
//! scale — the public type on top of the regions (`region.rs`), the insertion sort (`insertion.rs`), the
//! transfers (`transfers.rs`) and the frame pass (`update.rs`). See the crate docs for the essay.

use crate::endpoints::{self, MAX_BODIES, of_box};
use crate::insertion::Budget;
use crate::mbp::MultiBoxPruning;
use crate::pairset::PairSet;
use crate::region::{Quantizer, Region};
use crate::update::{self, Sorted};
use crate::{transfers, validate};
use collide_broadphase::radix::sort_by_high_bits;
use collide_broadphase::region_grid::{
    GridPolicy, NO_REGIONS, RegionGrid, RegionRange, range_contains, sampled_bounds,
};
use collide_broadphase::{Aabb, Broadphase, Frame, Pair, PairList, Parallelism, Resize, Stats, Tally};

/// How the last [`find_pairs`](Broadphase::find_pairs) call got its pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UpdateMode {
    /// Insertion sort of last frame's endpoints, pairs patched on each crossing.
    #[default]
    Incremental,
    /// First frame, after a reset, after a resize the structure could not patch, or after the scene outgrew the
    /// region grid: full sort plus one sweep.
    Init,
    /// The swap budget ran out (bodies moved too far): full sort plus one sweep instead of finishing the
    /// insertion sort — the guard against the thesis's feedback loop.
    Rebuild,
}

/// How an incremental frame ended ([`SweepAndPrune::update_incremental`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Incremental {
    /// The structure and the pair set are this frame's.
    Updated,
    /// The swap budget ran out: the structure is inconsistent and must be re-initialised.
    OverBudget,
    /// The scene outgrew the grid: nothing was changed; a new grid must be planned.
    GridOutgrown,
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    swaps: [u64; 3],
    added: u64,
    removed: u64,
    inserted: u64,
    transfers: u64,
    mode: UpdateMode,
    /// Tests, work and bytes (see the crate docs).
    tally: Tally,
}

/// The most regions per axis of SAP's grid, requested or automatic: 64³ = 262 144 regions. Every frame visits
/// each region (its transfers, its gather, its three arrays), and each keeps a dozen vectors; beyond this the
/// per-region constant outweighs the swaps it saves for any scene the workspace runs (the automatic grid asks for
/// 16 per axis at 10⁶ bodies).
pub const MAX_SAP_REGIONS_PER_AXIS: usize = 64;

/// SAP's automatic grid ([`GridPolicy`]).
const GRID: GridPolicy = GridPolicy {
    // About 256 bodies per region measured best with the former `sap_timing` example (128: more transfers and
    // copies; 512 equal): a region's arrays of a few thousand endpoints stay in L1/L2 while they are sorted. The
    // bench's `side-by-side` study (comparison `sap`) now sets the regional SAP beside the thesis's one region.
    bodies_per_region: SweepAndPrune::BODIES_PER_REGION,
    // Regions at least 4 mean boxes wide: a body is copied into (1 + 1/4)³ ≈ 2 regions at most on average, each
    // copy three arrays to sort and refresh every frame, and a body crosses a border (a transfer: a merge and a
    // sweep) at most every few of its own widths. Multi-box pruning, rebuilt every frame, pays less per copy and
    // takes 2.
    min_width_in_mean_boxes: 4.0,
    max_per_axis: MAX_SAP_REGIONS_PER_AXIS,
};

/// Regional incremental sweep-and-prune with a persistent pair set. Registry name: `sap`.
#[derive(Clone, Debug)]
pub struct SweepAndPrune {
    /// Per region: its cell, its members and their three sorted axes (the endpoints of the bodies whose `ranges`
    /// contain it), this frame's transfers.
    regions: Vec<Region>,
    /// The region grid, fixed from the first frame until a reset (or until the scene outgrows it).
    grid: RegionGrid,
    /// Per body: the regions it is entered in ([`NO_REGIONS`] for bodies announced but not inserted yet).
    ranges: Vec<RegionRange>,
    /// The overlap filter's quantisation, fixed with the grid.
    quantizer: Quantizer,
    /// Bit per body: in a pair of the set at the start of the frame (see `update::mark_and_verify`).
    paired: Vec<u64>,
    /// Exactly the overlapping pairs among the inserted bodies, as of their values in the regions' axes.
    pairs: PairSet,
    /// Bodies the structure knows (inserted or announced by `on_resize`).
    len: usize,
    /// Bodies announced by `on_resize` whose boxes arrive with the next frame.
    pending: usize,
    /// `false` until the first frame (or after `reset`): the next frame initialises.
    initialized: bool,
    /// `false` when the next initialisation must plan a new grid.
    grid_planned: bool,
    /// Regions per axis (0 = auto, 1 = the thesis's global arrays).
    regions_per_axis: usize,
    /// Swap budget per body, per axis and frame (0 = unlimited).
    rebuild_swaps_per_body: f64,
    /// When the regions run on rayon's threads.
    parallelism: Parallelism,
    /// Frames left to rebuild directly after the budget ran out, and the current back-off.
    cooldown: u32,
    backoff: u32,
    counters: Counters,
    // Scratch, kept so that a warmed-up frame allocates nothing.
    scratch: Vec<u64>,
    sorted: Vec<u64>,
    keys: Vec<u64>,
    moved: Vec<u64>,
    old_ranges: Vec<RegionRange>,
    local_of: Vec<u32>,
    init_pairs: PairList,
    init_finder: MultiBoxPruning,
}

impl Default for SweepAndPrune {
    fn default() -> Self {
        Self::new(Self::DEFAULT_REBUILD_SWAPS_PER_BODY)
    }
}

impl SweepAndPrune {
    /// The default swap budget per body, per axis and frame. Measured with the former `sap_timing` example at 10⁵
    /// bodies (2 cores, loaded): a swap with its events costs ~13 ns, and multi-box pruning, which answers while the
    /// budget keeps failing, ~7.5 ms — about 2 swaps per body and axis. Regions make 0.13 swaps per body and axis on
    /// thesis-slow at 10⁵ bodies and 0.34 at 10⁶; the thesis's full speed makes ~8 (37 ms incremental against
    /// 7.5 ms for multi-box pruning), so the budget stops those frames. With global arrays (`regions_per_axis =
    /// 1`) thesis-slow makes ~6 and also rebuilds under this budget — set it higher (or 0) to keep them
    /// incremental.
    pub const DEFAULT_REBUILD_SWAPS_PER_BODY: f64 = 4.0;
    /// The longest wait, in frames, before insertion sort is tried again after the budget ran out. A failed try and
    /// the initialisation after it cost ~6 multi-box-pruning frames (thesis speed, 10⁵ bodies); with a wait of 16
    /// they raised the mean over 100 frames from 7.5 to 12 ms CPU, with 64 the mean over 200 frames is 8.7 ms,
    /// and a scene that slows down is back on insertion sort within about a second at 60 Hz.
    pub const MAX_BACKOFF: u32 = 64;
    /// The auto grid aims at this many bodies per region.
    pub const BODIES_PER_REGION: f32 = 256.0;

    /// Regional incremental SAP with the automatic grid that rebuilds a frame when insertion sort would need more
    /// than `rebuild_swaps_per_body · n` swaps per axis (0 = never: quadratic at high speed).
    #[must_use]
    pub fn new(rebuild_swaps_per_body: f64) -> Self {
        Self::with_regions(rebuild_swaps_per_body, 0)
    }

    /// As [`new`](Self::new) with `regions_per_axis` regions on every axis: 0 = auto (about
    /// [`BODIES_PER_REGION`](Self::BODIES_PER_REGION) bodies each), 1 = the thesis's three global arrays.
    #[must_use]
    pub fn with_regions(rebuild_swaps_per_body: f64, regions_per_axis: usize) -> Self {
        Self {
            regions: Vec::new(),
            grid: RegionGrid::default(),
            ranges: Vec::new(),
            quantizer: Quantizer::default(),
            paired: Vec::new(),
            pairs: PairSet::default(),
            len: 0,
            pending: 0,
            initialized: false,
            grid_planned: false,
            regions_per_axis,
            rebuild_swaps_per_body: rebuild_swaps_per_body.max(0.0),
            parallelism: Parallelism::default(),
            cooldown: 0,
            backoff: 0,
            counters: Counters::default(),
            scratch: Vec::new(),
            sorted: Vec::new(),
            keys: Vec::new(),
            moved: Vec::new(),
            old_ranges: Vec::new(),
            local_of: Vec::new(),
            init_pairs: PairList::new(),
            init_finder: MultiBoxPruning::new(0),
        }
    }

    /// The same with `parallelism` deciding when the regions run on rayon's threads (tests lower it to force the
    /// parallel paths on small scenes).
    #[must_use]
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self.init_finder = self.init_finder.with_parallelism(parallelism);
        self
    }

    /// How the last call updated the structure.
    #[must_use]
    pub fn last_mode(&self) -> UpdateMode {
        self.counters.mode
    }

    /// The number of regions of the current grid.
    #[must_use]
    pub fn region_count(&self) -> usize {
        self.grid.count()
    }

    /// Enter every body in its regions with sorted arrays and fill the pair set, from `known` or by multi-box
    /// pruning. Per axis one O(n) radix sort of all endpoints, scattered in order to the regions (so each region's
    /// array comes out sorted) — never an insertion sort of a random order, which would be Θ(n²). A body with an
    /// invalid box is entered in no region ([`NO_REGIONS`]).
    fn init(&mut self, frame: &Frame<'_>, known: Option<&[Pair]>) {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        assert!(n < MAX_BODIES, "sweep-and-prune holds at most 2^31 - 1 bodies, got {n}");
        if !self.grid_planned || self.grid.outgrown(&sampled_bounds(aabbs)) {
            self.grid = RegionGrid::plan(aabbs, self.regions_per_axis, &GRID);
            self.grid_planned = true;
        }
        let count = self.grid.count();
        self.regions.resize_with(count, Region::default);
        for (r, region) in self.regions.iter_mut().enumerate() {
            region.coords = self.grid.coords(r);
            region.entering.clear();
        }
        self.ranges.clear();
        let mut invalid = 0;
        for (i, b) in aabbs.iter().enumerate() {
            self.ranges.push(self.grid.range_if_valid(b).unwrap_or_else(|| {
                frame.reject_invalid(i);
                invalid += 1;
                NO_REGIONS
            }));
        }
        // One region holding every body: its arrays are the sorted endpoints themselves, named by body id.
        let whole = count == 1 && invalid == 0;
        let mut copies = 0;
        for k in 0..3 {
            if whole {
                let axis = &mut self.regions[0].axes[k].endpoints;
                axis.clear();
                axis.extend(aabbs.iter().enumerate().flat_map(|(i, b)| of_box(b, k, i as u32)));
                // Bits 31.. are value and flag: the sort order; the body bits below need no order.
                sort_by_high_bits(axis, &mut self.scratch, 31);
                continue;
            }
            let sorted = &mut self.sorted;
            sorted.clear();
            sorted.extend(aabbs.iter().enumerate().flat_map(|(i, b)| of_box(b, k, i as u32)));
            sort_by_high_bits(sorted, &mut self.scratch, 31);
            for region in &mut self.regions {
                region.axes[k].endpoints.clear();
            }
            for &e in sorted.iter() {
                let regions = &mut self.regions;
                self.grid.for_each(&self.ranges[endpoints::body(e) as usize], |r| {
                    regions[r].axes[k].endpoints.push(e);
                });
            }
            copies += sorted.len();
        }
        self.number_locally(n, whole);
        self.quantizer = Quantizer::new(&self.grid.bounds());
        self.pairs.clear();
        // Per axis 2n endpoints made and radix-sorted (a histogram pass and three scatters), then scattered to
        // the regions and relabelled.
        let e = 6 * n as u64;
        self.counters.tally += Tally::work(e + copies as u64, e * 8 * 8 + copies as u64 * 8 * 3);
        let pairs = match known {
            Some(p) => p,
            None => {
                // Multi-box pruning finds the pairs in O(n) for uniform scenes; a sweep of each region would test
                // every body against the ~m·(2h/w) bodies of its slab in the region.
                self.init_finder.find_pairs(frame, &mut self.init_pairs);
                self.counters.tally += self.init_finder.stats().tally();
                self.init_pairs.as_slice()
            }
        };
        self.pairs.reserve_total(pairs.len());
        for p in pairs {
            self.pairs.insert(p.key());
        }
        self.counters.tally += Tally::work(pairs.len() as u64, pairs.len() as u64 * 2 * 8);
        self.len = n;
        self.pending = 0;
        self.initialized = true;
    }

    /// Give each region's members local indices (in the order of their begins on x) and relabel the endpoints,
    /// which `init` scattered with body ids; `whole` when one region holds every body (local index = body id).
    /// O(n · regions per body).
    fn number_locally(&mut self, n: usize, whole: bool) {
        if whole {
            let members = &mut self.regions[0].members;
            members.clear();
            members.extend(0..n as u32);
            return;
        }
        self.local_of.resize(n, 0);
        let local_of = &mut self.local_of;
        for region in &mut self.regions {
            region.members.clear();
            for &e in &region.axes[0].endpoints {
                if !endpoints::is_end(e) {
                    local_of[endpoints::body(e) as usize] = region.members.len() as u32;
                    region.members.push(endpoints::body(e));
                }
            }
            for axis in &mut region.axes {
                for e in &mut axis.endpoints {
                    *e = endpoints::relabel(*e, local_of[endpoints::body(*e) as usize]);
                }
            }
        }
    }

    /// One incremental frame: transfers out, insertion sort with events, transfers in (see `transfers.rs`).
    fn update_incremental(&mut self, frame: &Frame<'_>) -> Incremental {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        let budget = if self.rebuild_swaps_per_body > 0.0 {
            (3.0 * self.rebuild_swaps_per_body * n.max(1) as f64) as u64
        } else {
            u64::MAX
        };
        if self.grid.count() > 1 && self.grid.outgrown(&sampled_bounds(aabbs)) {
            // The bulk of the bodies moved far outside the planned bounds and crowds the border regions (or the
            // scene shrank into a few). A sample decides: a few far bodies sit in the border regions at no cost.
            return Incremental::GridOutgrown;
        }
        self.find_transfers(frame);
        let c = &mut self.counters;
        c.tally += update::mark_and_verify(aabbs, &self.pairs, &self.moved, &mut self.paired, &mut self.keys);
        let mut removed = 0;
        for &key in &self.keys {
            removed += u64::from(self.pairs.remove(key));
        }
        let (ranges, quantizer) = (&self.ranges, &self.quantizer);
        self.parallelism.for_each("sap leave and gather", n, &mut self.regions, |_, region| {
            region.tally = Tally::default();
            if region.leaving > 0 {
                transfers::leave(region, ranges);
            }
            transfers::gather(region, aabbs, quantizer);
            // Per member: an id and a box read, a box, three keys and three quantised intervals written.
            let m = region.members.len() as u64;
            region.tally += Tally::work(m, m * (4 + 2 * size_of::<Aabb>() as u64 + 3 * (8 + 4)));
        });
        let budget = Budget::new(budget);
        let sorted = update::run(&mut self.regions, aabbs, &mut self.pairs, &self.paired, &budget, self.parallelism);
        for region in &self.regions {
            for (k, axis) in region.axes.iter().enumerate() {
                c.swaps[k] += axis.swaps;
                c.tally.pair_tests += axis.tests;
            }
        }
        let Sorted::Done { added, removed: removed_by_events } = sorted else {
            return Incremental::OverBudget;
        };
        self.parallelism.for_each("sap enter", n, &mut self.regions, |_, region| transfers::enter(region, aabbs));
        let mut added_by_entering = 0;
        for region in &self.regions {
            c.tally += region.tally;
            c.tally.pair_tests += region.tests;
            for &key in &region.adds {
                added_by_entering += u64::from(self.pairs.insert(key));
            }
        }
        c.added = added + added_by_entering;
        c.removed = removed + removed_by_events;
        c.inserted = self.pending as u64;
        // Every event applied is a probe of the pair set (a cache line each, mostly).
        let events = self.keys.len() as u64 + c.added + c.removed;
        c.tally += Tally::work(events, events * 64);
        self.pending = 0;
        Incremental::Updated
    }

    /// Compute every body's regions for this frame, flag the bodies whose regions changed in `moved`, and list the
    /// transfers per region (entering bodies, and a count of leaving ones). O(n + transfers). A body whose box
    /// turned invalid moves to no region (it leaves every region, and its pairs are dropped by
    /// `update::mark_and_verify`); one whose box turned valid again enters its regions like a new body.
    fn find_transfers(&mut self, frame: &Frame<'_>) {
        let aabbs = frame.aabbs;
        // Per body: its box read, its regions computed, read and written.
        let n = aabbs.len() as u64;
        self.counters.tally += Tally::work(n, n * (size_of::<Aabb>() + 2 * size_of::<RegionRange>()) as u64);
        for region in &mut self.regions {
            region.entering.clear();
            region.leaving = 0;
        }
        self.moved.clear();
        self.moved.resize(aabbs.len().div_ceil(64), 0);
        let grid = &self.grid;
        let mut transfers = 0;
        for (i, (b, range)) in aabbs.iter().zip(self.ranges.iter_mut()).enumerate() {
            let new = grid.range_if_valid(b).unwrap_or_else(|| {
                frame.reject_invalid(i);
                NO_REGIONS
            });
            if new == *range {
                continue;
            }
            let old = std::mem::replace(range, new);
            transfers += 1;
            self.moved[i / 64] |= 1 << (i % 64);
            let regions = &mut self.regions;
            if old != NO_REGIONS {
                grid.for_each(&old, |r| {
                    if !range_contains(&new, regions[r].coords) {
                        regions[r].leaving += 1;
                    }
                });
            }
            grid.for_each(&new, |r| {
                if old == NO_REGIONS || !range_contains(&old, regions[r].coords) {
                    regions[r].entering.push(i as u32);
                }
            });
        }
        self.counters.transfers = transfers;
    }

    /// Swap two endpoints of different values on the y axis, breaking the sort (for `validate` tests).
    #[cfg(test)]
    pub(crate) fn unsort_for_test(&mut self) {
        use crate::endpoints::order;
        let axis = self.regions.iter_mut().map(|r| &mut r.axes[1].endpoints).max_by_key(|a| a.len()).expect("a region");
        let p = axis.windows(2).position(|w| order(w[0]) < order(w[1])).expect("two distinct endpoints");
        axis.swap(p, p + 1);
    }

    /// Insert a pair whose boxes do not overlap (for `validate` tests).
    #[cfg(test)]
    pub(crate) fn insert_pair_for_test(&mut self, pair: Pair) {
        self.pairs.insert(pair.key());
    }
}

impl Broadphase for SweepAndPrune {
    fn name(&self) -> &'static str {
        "sap"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        self.counters = Counters::default();
        if !self.initialized || aabbs.len() != self.len {
            // First frame, or a body count that no resize announced: start afresh, which is always correct.
            self.init(frame, None);
            self.counters.mode = UpdateMode::Init;
        } else if self.cooldown > 0 {
            // While bodies move fast, answer with multi-box pruning alone and leave the arrays unsorted: sorting
            // them and filling the set would double the cost of a frame nobody continues from. The frame after
            // the cool-down initialises, and the one after that tries insertion sort again.
            self.cooldown -= 1;
            self.init_finder.find_pairs(frame, out);
            self.counters.tally = self.init_finder.stats().tally();
            self.counters.mode = UpdateMode::Rebuild;
            if self.cooldown == 0 {
                self.initialized = false;
            }
            return;
        } else {
            match self.update_incremental(frame) {
                Incremental::Updated => self.backoff = 0,
                Incremental::OverBudget => {
                    // Too many swaps: bodies moved far. Finishing the insertion sort could cost Θ(n²); a rebuild
                    // costs O(n). Skip the incremental attempt for a few frames, doubling the wait while it keeps
                    // failing.
                    self.init(frame, None);
                    self.counters.mode = UpdateMode::Rebuild;
                    self.backoff = (self.backoff * 2).clamp(1, Self::MAX_BACKOFF);
                    self.cooldown = self.backoff;
                }
                Incremental::GridOutgrown => {
                    self.grid_planned = false;
                    self.init(frame, None);
                    self.counters.mode = UpdateMode::Init;
                }
            }
        }
        out.clear();
        out.reserve(self.pairs.len());
        for key in self.pairs.iter() {
            out.push_pair(Pair::from_key(key));
        }
        // The output: the set's table read, the pairs written.
        let (slots, pairs) = (self.pairs.capacity() as u64, self.pairs.len() as u64);
        self.counters.tally += Tally::work(slots, slots * 8 + pairs * 8);
    }

    fn stats(&self) -> Stats {
        let c = &self.counters;
        Stats::from(c.tally)
            .with("swaps", (c.swaps[0] + c.swaps[1] + c.swaps[2]) as f64)
            .with("swaps_x", c.swaps[0] as f64)
            .with("swaps_y", c.swaps[1] as f64)
            .with("swaps_z", c.swaps[2] as f64)
            .with("pairs_added", c.added as f64)
            .with("pairs_removed", c.removed as f64)
            .with("pairs", self.pairs.len() as f64)
            .with("bodies_inserted", c.inserted as f64)
            .with("regions", self.grid.count() as f64)
            .with("region_transfers", c.transfers as f64)
            .with("init", if c.mode == UpdateMode::Init { 1.0 } else { 0.0 })
            .with("rebuild", if c.mode == UpdateMode::Rebuild { 1.0 } else { 0.0 })
    }

    /// Bodies were added, removed or permuted: the regions' members are renamed (their local indices, and so the
    /// sorted arrays, stay), the pair set refilled under the new names, and each kept body keeps its regions; added
    /// ones enter with the next frame. O(n · regions per body + pairs), through buffers kept from frame to frame: a
    /// permutation (the simulation's spatial reorder) allocates nothing once warm, and the next frame runs the
    /// insertion sort as it would have without it. A batch of added bodies larger than a quarter of the kept
    /// ones resets instead.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if !self.initialized {
            return;
        }
        if resize.old_len() != self.len {
            self.reset();
            return;
        }
        let map = resize.old_to_new;
        // Endpoints name local indices, so relabelling is a pass over the members; a region that lost a member
        // also drops its endpoints and renumbers the rest in one order-preserving pass per array (the index bits
        // take no part in the sort order, so the arrays stay sorted). O(n · regions per body).
        self.parallelism.for_each("sap relabel", self.len, &mut self.regions, |_, region| {
            transfers::compact(region, |id| Some(map[id as usize]).filter(|&to| to != Resize::REMOVED));
        });
        // Keys change with the labels, so the set is refilled: O(p).
        self.keys.clear();
        self.keys.extend(self.pairs.iter());
        self.pairs.clear();
        for &key in &self.keys {
            let p = Pair::from_key(key);
            let (a, b) = (map[p.a as usize], map[p.b as usize]);
            if a != Resize::REMOVED && b != Resize::REMOVED {
                self.pairs.insert(Pair::new(a, b).key());
            }
        }
        // Kept bodies keep their regions; added ones are in none, so the next frame enters them like bodies
        // moving in from outside (one sweep per region, testing only pairs with a new body).
        if resize.is_permutation() {
            // Every body keeps its regions under its new name; the bodies waiting to be entered stay as many.
            resize.permute(&mut self.ranges, &mut self.old_ranges);
            return;
        }
        self.old_ranges.clear();
        self.old_ranges.append(&mut self.ranges);
        self.ranges.resize(resize.new_len, NO_REGIONS);
        let mut pending = resize.new_len;
        for (old, &new) in map.iter().enumerate() {
            if new != Resize::REMOVED {
                self.ranges[new as usize] = self.old_ranges[old];
                pending -= usize::from(self.old_ranges[old] != NO_REGIONS);
            }
        }
        self.len = resize.new_len;
        self.pending = pending;
        // A batch larger than a quarter of the structure is cheaper to rebuild than to merge and sweep.
        if self.pending * 4 > (self.len - self.pending).max(16) {
            self.reset();
        }
    }

    /// Initialise from the frame's boxes and a pair set already known to be exactly their overlapping pairs (the
    /// output of the broadphase that ran before a switch). The endpoints are radix-sorted and the pairs copied in:
    /// O(n + p), no sweep. The next [`find_pairs`](Broadphase::find_pairs) continues incrementally. Pairs may come
    /// in any order and repeat; a wrong set stays wrong until a reset.
    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        self.reset();
        self.init(frame, Some(pairs));
        self.counters.mode = UpdateMode::Init;
    }

    fn reset(&mut self) {
        self.initialized = false;
        self.grid_planned = false;
        self.len = 0;
        self.pending = 0;
        for region in &mut self.regions {
            region.members.clear();
            for axis in &mut region.axes {
                axis.endpoints.clear();
            }
        }
        self.ranges.clear();
        self.pairs.clear();
        self.cooldown = 0;
        self.backoff = 0;
    }

    fn validate(&self) -> Result<(), String> {
        validate::validate(&self.grid, &self.regions, &self.ranges, &self.pairs, self.len)
    }
}
