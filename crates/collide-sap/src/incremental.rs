//! Incremental sweep-and-prune, as the thesis describes it (chapter 3.3), plus the initialisation, batched
//! insertion/removal and the fall-back that make it usable at scale. See the crate docs for the essay.

use crate::endpoints::{self, MAX_BODIES, body, first_unsorted, is_end, merge_into, of_box, order};
use crate::mbp::MultiBoxPruning;
use crate::pairset::PairSet;
use crate::radix::sort_by_high_bits;
use crate::update::{self, AxisState, Prepared};
use collide_broadphase::{Aabb, Broadphase, Frame, Pair, PairList, Resize, Stats};

/// How the last [`find_pairs`](Broadphase::find_pairs) call got its pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UpdateMode {
    /// Insertion sort of last frame's endpoints, pairs patched on each crossing.
    #[default]
    Incremental,
    /// First frame, after a reset, or after a resize the structure could not patch: full sort plus one sweep.
    Init,
    /// The swap budget ran out (bodies moved too far): full sort plus one sweep instead of finishing the
    /// insertion sort — the guard against the thesis's feedback loop.
    Rebuild,
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    swaps: [u64; 3],
    tests: u64,
    added: u64,
    removed: u64,
    inserted: u64,
    mode: UpdateMode,
}

/// Incremental sweep-and-prune with a persistent pair set. Registry name: `sap`.
#[derive(Clone, Debug)]
pub struct SweepAndPrune {
    /// Per axis, the 2·`live` endpoints of the bodies in the structure, sorted by `endpoints::order`.
    axes: [AxisState; 3],
    /// This frame's boxes in compact per-axis layouts (see `update`).
    prep: Prepared,
    /// Exactly the overlapping pairs among the bodies in `axes`, as of their values in `axes`.
    pairs: PairSet,
    /// Bodies in `axes` (ids are `0..live + pending.len()`, not necessarily the first `live`).
    live: usize,
    /// Bodies announced by `on_resize` whose boxes arrive with the next frame; not yet in `axes`.
    pending: Vec<u32>,
    /// `false` until the first frame (or after `reset`): the next frame initialises.
    initialized: bool,
    /// Swap budget per body, per axis and frame (0 = unlimited).
    rebuild_swaps_per_body: f64,
    /// Frames left to rebuild directly after the budget ran out, and the current back-off.
    cooldown: u32,
    backoff: u32,
    counters: Counters,
    // Scratch, kept so that a warmed-up frame allocates nothing.
    scratch: Vec<u64>,
    new_endpoints: Vec<u64>,
    keys: Vec<u64>,
    init_pairs: PairList,
    init_finder: MultiBoxPruning,
    open: Vec<u32>,
    open_new: Vec<u32>,
    open_pos: Vec<u32>,
    is_new: Vec<bool>,
}

impl Default for SweepAndPrune {
    fn default() -> Self {
        Self::new(Self::DEFAULT_REBUILD_SWAPS_PER_BODY)
    }
}

impl SweepAndPrune {
    /// The default swap budget per body, per axis and frame. Measured with the `sap_timing` example on the thesis
    /// workload at 10⁵ bodies, a swap costs ~13 ns (the random accesses it implies) and a full rebuild (radix
    /// sorts plus multi-box pruning) ~20 ms, i.e. ~5 swaps per body and axis; slow motion (1/64 of the thesis
    /// speed) makes 5–7 at 10⁵ bodies and ~60 at 10⁶. The budget lets all of those run incrementally and stops
    /// full-speed frames (~350 per body and axis at 10⁵) after a tenth of their swaps.
    pub const DEFAULT_REBUILD_SWAPS_PER_BODY: f64 = 32.0;
    /// From this many bodies the three axes sort on separate threads.
    pub const PARALLEL_MIN: usize = 20_000;

    /// Incremental SAP that rebuilds a frame when insertion sort would need more than `rebuild_swaps_per_body · n`
    /// swaps on an axis (0 = never: the thesis's pure algorithm, quadratic at high speed).
    #[must_use]
    pub fn new(rebuild_swaps_per_body: f64) -> Self {
        Self {
            axes: Default::default(),
            prep: Prepared::default(),
            pairs: PairSet::default(),
            live: 0,
            pending: Vec::new(),
            initialized: false,
            rebuild_swaps_per_body: rebuild_swaps_per_body.max(0.0),
            cooldown: 0,
            backoff: 0,
            counters: Counters::default(),
            scratch: Vec::new(),
            new_endpoints: Vec::new(),
            keys: Vec::new(),
            init_pairs: PairList::new(),
            init_finder: MultiBoxPruning::new(0),
            open: Vec::new(),
            open_new: Vec::new(),
            open_pos: Vec::new(),
            is_new: Vec::new(),
        }
    }

    /// How the last call updated the structure.
    #[must_use]
    pub fn last_mode(&self) -> UpdateMode {
        self.counters.mode
    }

    /// Initialise from `aabbs` and a pair set already known to be exactly their overlapping pairs (for example
    /// the output of the broadphase that ran before a switch). The endpoints are radix-sorted and the pairs copied
    /// in: O(n + p), no sweep. The next [`find_pairs`](Broadphase::find_pairs) with boxes indexed like `aabbs`
    /// continues incrementally. Pairs may come in any order and repeat; a wrong set stays wrong until a reset.
    pub fn warm_start(&mut self, aabbs: &[Aabb], known_pairs: &[Pair]) {
        self.init(aabbs, Some(known_pairs));
    }

    /// Sort every axis from scratch and fill the pair set, from `known` or by multi-box pruning. O(n) radix sorts
    /// plus the sweep — never an insertion sort of a random order, which would be Θ(n²).
    fn init(&mut self, aabbs: &[Aabb], known: Option<&[Pair]>) {
        let n = aabbs.len();
        assert!(n < MAX_BODIES, "sweep-and-prune holds at most 2^31 - 1 bodies, got {n}");
        for (k, axis) in self.axes.iter_mut().enumerate() {
            let axis = &mut axis.endpoints;
            axis.clear();
            for (i, b) in aabbs.iter().enumerate() {
                axis.extend_from_slice(&of_box(b, k, i as u32));
            }
            // Bits 31.. are value and flag: the sort order; the body bits below need no order.
            sort_by_high_bits(axis, &mut self.scratch, 31);
        }
        self.prep.fit(aabbs);
        self.pairs.clear();
        let pairs = match known {
            Some(p) => p,
            None => {
                // One sweep of the sorted x axis would test every body against the ~n·(2h/W) bodies of its slab;
                // the per-region sweeps of multi-box pruning find the same pairs in O(n) for uniform scenes.
                self.init_finder.find_pairs(&Frame::new(aabbs), &mut self.init_pairs);
                self.counters.tests += self.init_finder.stats().get("pair_tests").unwrap_or(0.0) as u64;
                self.init_pairs.as_slice()
            }
        };
        self.pairs.reserve_total(pairs.len());
        for p in pairs {
            self.pairs.insert(p.key());
        }
        self.live = n;
        self.pending.clear();
        self.initialized = true;
    }

    /// Refresh every endpoint's value and insertion-sort the three axes, patching the pair set (see `update`).
    /// `false` when the swap budget ran out (the structure is then inconsistent and must be re-initialised).
    fn update_incremental(&mut self, aabbs: &[Aabb]) -> bool {
        let budget = if self.rebuild_swaps_per_body > 0.0 {
            (self.rebuild_swaps_per_body * self.live.max(1) as f64) as u64
        } else {
            u64::MAX
        };
        self.prep.build(aabbs);
        self.prep.mark_paired(aabbs.len(), &self.pairs);
        let parallel = self.live >= Self::PARALLEL_MIN;
        let (ok, added, removed) = update::run(&mut self.axes, &self.prep, aabbs, &mut self.pairs, budget, parallel);
        let c = &mut self.counters;
        for (k, axis) in self.axes.iter().enumerate() {
            c.swaps[k] = axis.swaps;
            c.tests += axis.tests;
        }
        c.added = added;
        c.removed = removed;
        ok
    }

    /// Insert the pending bodies (Tracy, Buss & Woods 2009): sort their endpoints, merge them into each axis in
    /// O(n + k log k), then find their pairs with one sweep of the x axis that tests only pairs involving a new
    /// body: O(n + k·o) where o is the number of intervals open at a new body's begin.
    fn insert_pending(&mut self, aabbs: &[Aabb]) {
        let n = self.live + self.pending.len();
        self.pending.sort_unstable();
        for (k, axis) in self.axes.iter_mut().enumerate() {
            let axis = &mut axis.endpoints;
            self.new_endpoints.clear();
            for &id in &self.pending {
                self.new_endpoints.extend_from_slice(&of_box(&aabbs[id as usize], k, id));
            }
            self.new_endpoints.sort_unstable_by_key(|&e| order(e));
            merge_into(axis, &self.new_endpoints);
        }
        self.is_new.clear();
        self.is_new.resize(n, false);
        for &id in &self.pending {
            self.is_new[id as usize] = true;
        }
        self.open_pos.clear();
        self.open_pos.resize(n, 0);
        self.open.clear();
        self.open_new.clear();
        // Open lists with swap-remove through `open_pos`: O(1) per endpoint. At a new body's begin test every
        // open interval; at an old body's begin only the open new ones, so each new pair is tested once.
        for &e in &self.axes[0].endpoints {
            let id = body(e);
            let fresh = self.is_new[id as usize];
            if is_end(e) {
                let list = if fresh { &mut self.open_new } else { &mut self.open };
                let p = self.open_pos[id as usize] as usize;
                list.swap_remove(p);
                if let Some(&moved) = list.get(p) {
                    self.open_pos[moved as usize] = p as u32;
                }
                continue;
            }
            let a = &aabbs[id as usize];
            let candidates = self.open_new.iter().chain(if fresh { &self.open[..] } else { &[][..] });
            for &o in candidates {
                self.counters.tests += 1;
                if a.overlaps(&aabbs[o as usize]) {
                    self.pairs.insert(Pair::new(id, o).key());
                }
            }
            let list = if fresh { &mut self.open_new } else { &mut self.open };
            self.open_pos[id as usize] = list.len() as u32;
            list.push(id);
        }
        self.counters.inserted = self.pending.len() as u64;
        self.live = n;
        self.pending.clear();
    }

    /// Swap two endpoints of different values on the y axis, breaking the sort (for `validate` tests).
    #[cfg(test)]
    pub(crate) fn unsort_for_test(&mut self) {
        let axis = &mut self.axes[1].endpoints;
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
        if !self.initialized || aabbs.len() != self.live + self.pending.len() {
            // First frame, or a body count that no resize announced: start afresh, which is always correct.
            self.init(aabbs, None);
            self.counters.mode = UpdateMode::Init;
        } else if self.cooldown > 0 {
            // While bodies move fast, answer with multi-box pruning alone and leave the arrays unsorted: sorting
            // them (3 radix sorts) and filling the set would double the cost of a frame nobody continues from.
            // The frame after the cool-down initialises, and the one after that tries insertion sort again.
            self.cooldown -= 1;
            self.init_finder.find_pairs(frame, out);
            self.counters.tests = self.init_finder.stats().get("pair_tests").unwrap_or(0.0) as u64;
            self.counters.mode = UpdateMode::Rebuild;
            if self.cooldown == 0 {
                self.initialized = false;
            }
            return;
        } else if self.update_incremental(aabbs) {
            self.backoff = 0;
            if !self.pending.is_empty() {
                self.insert_pending(aabbs);
            }
        } else {
            // Too many swaps: bodies moved far. Finishing the insertion sort could cost Θ(n²); a rebuild costs
            // O(n). Skip the incremental attempt for a few frames, doubling the wait while it keeps failing.
            self.init(aabbs, None);
            self.counters.mode = UpdateMode::Rebuild;
            self.backoff = (self.backoff * 2).clamp(1, 16);
            self.cooldown = self.backoff;
        }
        out.clear();
        out.reserve(self.pairs.len());
        for key in self.pairs.iter() {
            out.push_pair(Pair::from_key(key));
        }
    }

    fn stats(&self) -> Stats {
        let c = &self.counters;
        Stats::new()
            .with("pair_tests", c.tests as f64)
            .with("swaps", (c.swaps[0] + c.swaps[1] + c.swaps[2]) as f64)
            .with("swaps_x", c.swaps[0] as f64)
            .with("swaps_y", c.swaps[1] as f64)
            .with("swaps_z", c.swaps[2] as f64)
            .with("pairs_added", c.added as f64)
            .with("pairs_removed", c.removed as f64)
            .with("pairs", self.pairs.len() as f64)
            .with("bodies_inserted", c.inserted as f64)
            .with(
                "rebuilt",
                match c.mode {
                    UpdateMode::Incremental => 0.0,
                    UpdateMode::Init => 1.0,
                    UpdateMode::Rebuild => 2.0,
                },
            )
    }

    fn on_resize(&mut self, resize: &Resize<'_>) {
        if !self.initialized {
            return;
        }
        if resize.old_len() != self.live + self.pending.len() {
            self.reset();
            return;
        }
        let map = resize.old_to_new;
        // Drop removed bodies' endpoints and relabel the rest in one order-preserving pass per axis: the body
        // bits take no part in the sort order, so the arrays stay sorted. O(n).
        for axis in &mut self.axes {
            axis.endpoints.retain_mut(|e| {
                let new = map[body(*e) as usize];
                *e = endpoints::relabel(*e, new);
                new != Resize::REMOVED
            });
        }
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
        self.pending.retain_mut(|id| {
            *id = map[*id as usize];
            *id != Resize::REMOVED
        });
        self.live = self.axes[0].endpoints.len() / 2;
        self.pending.extend(resize.added());
        // A batch larger than a quarter of the structure is cheaper to rebuild than to merge and sweep.
        if self.pending.len() * 4 > self.live.max(16) {
            self.reset();
        }
    }

    fn reset(&mut self) {
        self.initialized = false;
        self.live = 0;
        self.pending.clear();
        for axis in &mut self.axes {
            axis.endpoints.clear();
        }
        self.pairs.clear();
        self.cooldown = 0;
        self.backoff = 0;
    }

    fn validate(&self) -> Result<(), String> {
        let n = self.live + self.pending.len();
        // Per body and axis, the keys of its begin and end (read back from the arrays).
        let mut lo = vec![[u64::MAX; 3]; n];
        let mut hi = vec![[u64::MAX; 3]; n];
        for (k, axis) in self.axes.iter().map(|a| &a.endpoints).enumerate() {
            let name = ["x", "y", "z"][k];
            if axis.len() != 2 * self.live {
                return Err(format!("axis {name} holds {} endpoints for {} bodies", axis.len(), self.live));
            }
            if let Some(p) = first_unsorted(axis) {
                return Err(format!("axis {name} is not sorted at position {p}"));
            }
            for &e in axis {
                let id = body(e) as usize;
                let slot = if is_end(e) { hi.get_mut(id) } else { lo.get_mut(id) }
                    .ok_or_else(|| format!("axis {name} names body {id} of {n}"))?;
                if slot[k] != u64::MAX {
                    return Err(format!(
                        "body {id} has two {} endpoints on axis {name}",
                        if is_end(e) { "end" } else { "begin" }
                    ));
                }
                slot[k] = order(e);
            }
        }
        let overlaps = |a: usize, b: usize| (0..3).all(|k| lo[a][k] <= hi[b][k] && lo[b][k] <= hi[a][k]);
        for key in self.pairs.iter() {
            let p = Pair::from_key(key);
            if p.a >= p.b || p.b as usize >= n || lo[p.a as usize][0] == u64::MAX || lo[p.b as usize][0] == u64::MAX {
                return Err(format!("pair {p} names a body outside the structure"));
            }
            if !overlaps(p.a as usize, p.b as usize) {
                return Err(format!("pair {p} is in the set but the boxes do not overlap"));
            }
        }
        // Every overlapping pair is in the set: a sweep of the x axis (O(n + overlaps on x)).
        let mut open: Vec<usize> = Vec::new();
        let mut found = 0usize;
        for &e in self.axes[0].endpoints.iter() {
            let id = body(e) as usize;
            if is_end(e) {
                open.retain(|&o| o != id);
                continue;
            }
            for &o in &open {
                if overlaps(id, o) {
                    found += 1;
                    if !self.pairs.contains(Pair::new(id as u32, o as u32).key()) {
                        return Err(format!(
                            "pair {} overlaps but is missing from the set",
                            Pair::new(id as u32, o as u32)
                        ));
                    }
                }
            }
            open.push(id);
        }
        if found != self.pairs.len() {
            return Err(format!("the set holds {} pairs, the sweep finds {found}", self.pairs.len()));
        }
        Ok(())
    }
}
