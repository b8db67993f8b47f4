//! The per-frame pass of incremental SAP: refresh the endpoint values, insertion-sort the three axes of every
//! region and collect the pair events — all (region, axis) arrays in parallel.
//!
//! # Why the axes (and the regions) can run in parallel
//! For a pair of bodies, the crossings of its endpoints on all three axes decide its fate, and the last one
//! wins in the serial algorithm. But the outcome does not depend on which is last: an end passing a begin on any
//! axis means the boxes are separated *on that axis in this frame* (each endpoint pair swaps at most once), and a
//! begin passing an end is settled by the full overlap test *with this frame's boxes*, which is then false
//! whenever some axis had a separation. So each axis can sort on its own thread, reading the old pair set, and
//! record "remove k" (only for keys in the set) and "add k" (only when the full test passes); applying all
//! removes and all adds afterwards gives the serial result. The same argument covers regions: an event seen in
//! one region is true of this frame's boxes, whichever region sees it (see `regions`).
//!
//! # Why region-local arrays
//! The pass is bound by memory latency, not by the swaps themselves: endpoints are in sorted order while boxes are
//! in body order, so every value refresh and every overlap test is a random access. Endpoints therefore name a
//! body by its *local* index in its region, and each region gathers its members' boxes once per frame (one
//! random read of a box per member, see `regions::gather`) into local per-axis arrays of 8 bytes per body
//! (exact keys, for the refresh) and 4 bytes per body (16-bit quantised intervals, rounded outwards, for a
//! conservative overlap filter). For a region of a few hundred bodies these are a few KB: the refresh and the
//! filter, which rejects ~99% of begin-passes-end events, run from L1; only survivors are tested exactly on the
//! original boxes. With global arrays (one region) the refresh was ~half of a thesis-slow frame.

use crate::endpoints::{END, body, is_end, order};
use crate::pairset::PairSet;
use crate::regions::Region;
use collide_broadphase::{Aabb, Pair};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One axis of one region: its sorted endpoints and this frame's events and counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct AxisState {
    /// Two endpoints per member of the region, named by local index, sorted by `endpoints::order` (value, then
    /// begin before end).
    pub endpoints: Vec<u64>,
    /// Keys of pairs to add (the full test passed) and to remove (in the set, separated on this axis).
    pub adds: Vec<u64>,
    pub removes: Vec<u64>,
    pub swaps: u64,
    pub tests: u64,
    /// `false` when the swap budget ran out.
    pub finished: bool,
}

/// Re-test the pairs of `pairs` with a body in `moved` (it changed regions: no region may see the pair's
/// separation) on this frame's boxes, collecting the failures in `stale`; mark the bodies of the others in the
/// `paired` bitset. An end passing a begin needs a set probe only when both bodies have a pair — ~2% of such
/// events in the thesis workload — and the bitset (12 KB at 10⁵ bodies) answers from L1/L2.
/// One pass over the set: O(n/64 + capacity of the set).
pub(crate) fn mark_and_verify(
    aabbs: &[Aabb],
    pairs: &PairSet,
    moved: &[u64],
    paired: &mut Vec<u64>,
    stale: &mut Vec<u64>,
) {
    paired.clear();
    paired.resize(aabbs.len().div_ceil(64), 0);
    stale.clear();
    let is_moved = |b: u32| moved[b as usize / 64] & (1 << (b % 64)) != 0;
    for key in pairs.iter() {
        let p = Pair::from_key(key);
        if (is_moved(p.a) || is_moved(p.b)) && !aabbs[p.a as usize].overlaps(&aabbs[p.b as usize]) {
            stale.push(key);
            continue;
        }
        for b in [p.a, p.b] {
            paired[b as usize / 64] |= 1 << (b % 64);
        }
    }
}

#[inline(always)]
fn bit(bits: &[u64], b: u32) -> bool {
    bits[b as usize / 64] & (1 << (b % 64)) != 0
}

/// The shared swap budget of a frame: every (region, axis) array draws from it.
pub(crate) struct Budget {
    pub limit: u64,
    spent: AtomicU64,
    stop: AtomicBool,
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Self { limit, spent: AtomicU64::new(0), stop: AtomicBool::new(false) }
    }
}

/// What every array of a frame reads.
pub(crate) struct Shared<'a> {
    pub aabbs: &'a [Aabb],
    pub pairs: &'a PairSet,
    pub paired: &'a [u64],
    pub budget: &'a Budget,
}

/// Refresh, sort and collect events on one array (see the module docs).
fn run_axis(state: &mut AxisState, axis: usize, region: &Region, sh: &Shared<'_>) {
    state.adds.clear();
    state.removes.clear();
    state.tests = 0;
    state.swaps = 0;
    let budget = sh.budget;
    if budget.stop.load(Ordering::Relaxed) {
        state.finished = false;
        return;
    }
    let keys = &region.keys[axis];
    for e in state.endpoints.iter_mut() {
        let k = keys[body(*e) as usize];
        let value = if is_end(*e) { k & 0xFFFF_FFFF } else { k >> 32 };
        *e = (value << 32) | (*e & (END | (END - 1)));
    }
    let left = budget.limit.saturating_sub(budget.spent.load(Ordering::Relaxed));
    let result = sort_axis(state, axis, region, sh, left);
    state.finished = result.is_some();
    state.swaps = result.unwrap_or(left);
    let spent = budget.spent.fetch_add(state.swaps, Ordering::Relaxed) + state.swaps;
    if result.is_none() || spent > budget.limit {
        // The frame will be rebuilt: tell the other arrays to stop too.
        budget.stop.store(true, Ordering::Relaxed);
        state.finished = false;
    }
    debug_assert!(!state.finished || state.endpoints.windows(2).all(|w| order(w[0]) <= order(w[1])));
}

#[inline(always)]
fn overlap16(qa: u32, qb: u32) -> bool {
    (qa >> 16) <= (qb & 0xFFFF) && (qb >> 16) <= (qa & 0xFFFF)
}

/// The thesis's insertion sort (`endpoints::insertion_sort`), specialised by the kind of the moving endpoint so
/// that what depends only on it is loaded once per element instead of once per swap: a moving end whose body has
/// no pair skips every probe, and a moving begin keeps its own quantised intervals in registers.
/// O(n + swaps); `None` when the swaps exceed `budget`.
fn sort_axis(state: &mut AxisState, axis: usize, region: &Region, sh: &Shared<'_>, budget: u64) -> Option<u64> {
    let (q1, q2) = (&region.quant[(axis + 1) % 3], &region.quant[(axis + 2) % 3]);
    let members = &region.members;
    let (aabbs, pairs, paired) = (sh.aabbs, sh.pairs, sh.paired);
    let e = &mut state.endpoints;
    let mut swaps = 0u64;
    for i in 1..e.len() {
        let cur = e[i];
        let key = order(cur);
        if order(e[i - 1]) <= key {
            continue;
        }
        let a = body(cur) as usize;
        let mut j = i;
        if is_end(cur) {
            // An end moving left past a begin: separated on this axis; remove the pair if it is in the set.
            let ga = members[a];
            let probe = bit(paired, ga);
            while j > 0 {
                let prev = e[j - 1];
                if order(prev) <= key {
                    break;
                }
                if probe && !is_end(prev) {
                    let gb = members[body(prev) as usize];
                    if bit(paired, gb) {
                        let k = Pair::new(ga, gb).key();
                        if pairs.contains(k) {
                            state.removes.push(k);
                        }
                    }
                }
                e[j] = prev;
                j -= 1;
            }
        } else {
            // A begin moving left past an end: overlapping on this axis; filter, then the exact full test.
            let (qa1, qa2) = (q1[a], q2[a]);
            while j > 0 {
                let prev = e[j - 1];
                if order(prev) <= key {
                    break;
                }
                if is_end(prev) {
                    let b = body(prev) as usize;
                    if overlap16(qa1, q1[b]) && overlap16(qa2, q2[b]) {
                        state.tests += 1;
                        let (ga, gb) = (members[a], members[b]);
                        if aabbs[ga as usize].overlaps(&aabbs[gb as usize]) {
                            state.adds.push(Pair::new(ga, gb).key());
                        }
                    }
                }
                e[j] = prev;
                j -= 1;
            }
        }
        e[j] = cur;
        swaps += (i - j) as u64;
        if swaps > budget || (i % 4096 == 0 && sh.budget.stop.load(Ordering::Relaxed)) {
            return None;
        }
    }
    Some(swaps)
}

/// Run every array — `axes[3·r + k]` is axis k of region r — (in parallel when `parallel`), then apply the events
/// to `pairs`. Returns `false` when the swap budget ran out (`pairs` is then left as it was, and the arrays must
/// be rebuilt).
pub(crate) fn run(
    axes: &mut [AxisState],
    regions: &[Region],
    aabbs: &[Aabb],
    pairs: &mut PairSet,
    paired: &[u64],
    budget: &Budget,
    parallel: bool,
) -> (bool, u64, u64) {
    {
        let sh = Shared { aabbs, pairs, paired, budget };
        let job = |(i, s): (usize, &mut AxisState)| run_axis(s, i % 3, &regions[i / 3], &sh);
        if parallel {
            axes.par_iter_mut().enumerate().with_max_len(8).for_each(job);
        } else {
            axes.iter_mut().enumerate().for_each(job);
        }
    }
    if budget.stop.load(Ordering::Relaxed) || !axes.iter().all(|s| s.finished) {
        return (false, 0, 0);
    }
    let (mut added, mut removed) = (0, 0);
    for s in axes.iter() {
        for &key in &s.removes {
            removed += u64::from(pairs.remove(key));
        }
    }
    for s in axes.iter() {
        for &key in &s.adds {
            added += u64::from(pairs.insert(key));
        }
    }
    (true, added, removed)
}
