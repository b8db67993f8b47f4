//! The per-frame pass of incremental SAP: re-test the pairs whose bodies changed regions, refresh the endpoint
//! values, insertion-sort the three axes of every region and collect the pair events — the regions in parallel
//! — then apply the events.
//!
//! # Why the axes (and the regions) can run in parallel
//! For a pair of bodies, the crossings of its endpoints on all three axes decide its fate, and the last one
//! wins in the serial algorithm. But the outcome does not depend on which is last: an end passing a begin on any
//! axis means the boxes are separated *on that axis in this frame* (each endpoint pair swaps at most once), and a
//! begin passing an end is settled by the full overlap test *with this frame's boxes*, which is then false
//! whenever some axis had a separation. So each axis can sort on its own, reading the old pair set, and record
//! "remove k" (only for keys in the set) and "add k" (only when the full test passes); applying all removes and
//! all adds afterwards gives the serial result. The same argument covers regions: an event seen in one region is
//! true of this frame's boxes, whichever region sees it (see `transfers.rs`).

use crate::endpoints::{END, body, is_end, order};
use crate::insertion::{Budget, FrameView, RegionView, sort_axis};
use crate::pairset::PairSet;
use crate::region::{Region, RegionAxis};
use collide_broadphase::{Aabb, Pair, Parallelism, Tally, is_valid_box};
use std::sync::atomic::Ordering;

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
) -> Tally {
    paired.clear();
    paired.resize(aabbs.len().div_ceil(64), 0);
    stale.clear();
    let is_moved = |b: u32| moved[b as usize / 64] & (1 << (b % 64)) != 0;
    let mut tests = 0;
    for key in pairs.iter() {
        let p = Pair::from_key(key);
        if is_moved(p.a) || is_moved(p.b) {
            tests += 1;
            let (a, b) = (&aabbs[p.a as usize], &aabbs[p.b as usize]);
            // A body whose box turned invalid changed regions (to none): its pairs end here.
            if !(a.overlaps(b) && is_valid_box(a) && is_valid_box(b)) {
                stale.push(key);
                continue;
            }
        }
        for b in [p.a, p.b] {
            paired[b as usize / 64] |= 1 << (b % 64);
        }
    }
    let slots = pairs.capacity() as u64;
    Tally { pair_tests: tests, work: slots, bytes_touched: slots * 8 + paired.len() as u64 * 8 }
}

/// Refresh the values of axis `k`'s endpoints from the region's keys, then sort it with events (see the module
/// docs), drawing on the frame's budget.
fn run_axis(state: &mut RegionAxis, k: usize, region: &RegionView<'_>, keys: &[u64], frame: &FrameView<'_>) {
    state.adds.clear();
    state.removes.clear();
    state.tests = 0;
    state.swaps = 0;
    let budget = frame.budget;
    if budget.stopped() {
        state.finished = false;
        return;
    }
    for e in state.endpoints.iter_mut() {
        let key = keys[body(*e) as usize];
        let value = if is_end(*e) { key & 0xFFFF_FFFF } else { key >> 32 };
        *e = (value << 32) | (*e & (END | (END - 1)));
    }
    let left = budget.limit.saturating_sub(budget.spent.load(Ordering::Relaxed));
    let result = sort_axis(state, k, region, frame, left);
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

/// How the sort of a frame's arrays ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sorted {
    /// Every array sorted; the events were applied to the pair set (the pairs that really changed).
    Done { added: u64, removed: u64 },
    /// The swap budget ran out: the pair set was left as it was, and the arrays must be rebuilt.
    OverBudget,
}

/// Refresh and sort every array of every region (regions in parallel when `parallelism` says so for `work`
/// bodies), then apply the events to `pairs`.
pub(crate) fn run(
    regions: &mut [Region],
    aabbs: &[Aabb],
    pairs: &mut PairSet,
    paired: &[u64],
    budget: &Budget,
    parallelism: Parallelism,
) -> Sorted {
    {
        let frame = FrameView { aabbs, pairs, paired, budget };
        parallelism.for_each("sap sort", aabbs.len(), regions, |_, region| {
            let Region { members, axes, keys, quant, tally, .. } = region;
            let view = RegionView { members, quant };
            for (k, axis) in axes.iter_mut().enumerate() {
                run_axis(axis, k, &view, &keys[k], &frame);
                // Every endpoint refreshed (read, its key read, written), every swap a read and a write.
                let n = axis.endpoints.len() as u64;
                *tally += Tally::work(n + axis.swaps, n * (2 * 8 + 4) + axis.swaps * 2 * 8);
            }
        });
    }
    if budget.stopped() || !regions.iter().all(|r| r.axes.iter().all(|a| a.finished)) {
        return Sorted::OverBudget;
    }
    let (mut added, mut removed) = (0, 0);
    for axis in regions.iter().flat_map(|r| &r.axes) {
        for &key in &axis.removes {
            removed += u64::from(pairs.remove(key));
        }
    }
    for axis in regions.iter().flat_map(|r| &r.axes) {
        for &key in &axis.adds {
            added += u64::from(pairs.insert(key));
        }
    }
    Sorted::Done { added, removed }
}
