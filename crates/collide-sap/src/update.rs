//! The per-frame pass of incremental SAP: refresh the endpoint values, insertion-sort the three axes and collect
//! the pair events — the three axes in parallel.
//!
//! # Why the axes can run in parallel
//! For a pair of bodies, the crossings of its endpoints on all three axes decide its fate, and the last one
//! wins in the serial algorithm. But the outcome does not depend on which is last: an end passing a begin on any
//! axis means the boxes are separated *on that axis in this frame* (each endpoint pair swaps at most once), and a
//! begin passing an end is settled by the full overlap test *with this frame's boxes*, which is then false
//! whenever some axis had a separation. So each axis can sort on its own thread, reading the old pair set, and
//! record "remove k" (only for keys in the set) and "add k" (only when the full test passes); applying all
//! removes and all adds afterwards gives the serial result.
//!
//! # Why the prepared arrays
//! The pass is bound by memory latency, not by the swaps themselves: endpoints are in sorted order while boxes are
//! in body order, so every value refresh and every overlap test is a random access. [`Prepared`] copies the
//! boxes once per frame, sequentially, into per-axis arrays of 8 bytes per body (exact keys, for the refresh)
//! and 4 bytes per body (16-bit quantised intervals, rounded outwards, for a conservative overlap filter). The
//! filter rejects ~99% of begin-passes-end events from a 400 KB array (10⁵ bodies) instead of a 2.4 MB one;
//! only survivors are tested exactly on the original boxes.

use crate::endpoints::{END, body, is_end, order};
use crate::pairset::PairSet;
use crate::radix::float_key;
use collide_broadphase::{Aabb, Pair};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// One axis: its sorted endpoints and this frame's events and counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct AxisState {
    /// 2·live endpoints, sorted by `endpoints::order` (value, then begin before end).
    pub endpoints: Vec<u64>,
    /// Keys of pairs to add (the full test passed) and to remove (in the set, separated on this axis).
    pub adds: Vec<u64>,
    pub removes: Vec<u64>,
    pub swaps: u64,
    pub tests: u64,
    /// `false` when the swap budget ran out.
    pub finished: bool,
}

/// This frame's boxes in the layouts the pass reads randomly.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prepared {
    /// Per axis and body: `float_key(min) << 32 | float_key(max)`.
    keys: [Vec<u64>; 3],
    /// Per axis and body: the interval quantised to 16 bits, `lo << 16 | hi`, rounded outwards.
    quant: [Vec<u32>; 3],
    origin: [f32; 3],
    scale: [f32; 3],
    /// Bit per body: in at least one pair of the set at the start of the frame. An end passing a begin needs a
    /// set probe only when both bodies have a pair — ~2% of such events in the thesis workload — and this
    /// bitset (12 KB at 10⁵ bodies) answers from L1.
    paired: Vec<u64>,
}

impl Prepared {
    /// Set the quantisation grid to the bounds of `aabbs` (after that, each frame's bounds serve the next frame;
    /// bodies outside are clamped, which keeps the filter conservative).
    pub fn fit(&mut self, aabbs: &[Aabb]) {
        let mut b = Aabb::EMPTY;
        for a in aabbs {
            b = b.union(a);
        }
        self.set_bounds(b);
    }

    fn set_bounds(&mut self, b: Aabb) {
        for k in 0..3 {
            let extent = b.max[k] - b.min[k];
            self.origin[k] = if extent.is_finite() { b.min[k] } else { 0.0 };
            self.scale[k] = if extent.is_finite() && extent > 0.0 { 65535.0 / extent } else { 0.0 };
        }
    }

    /// Fill the arrays from `aabbs`: one sequential pass. O(n).
    pub fn build(&mut self, aabbs: &[Aabb]) {
        let mut bounds = Aabb::EMPTY;
        for k in 0..3 {
            self.keys[k].clear();
            self.quant[k].clear();
        }
        for a in aabbs {
            bounds = bounds.union(a);
            for k in 0..3 {
                let (lo, hi) = (a.min[k], a.max[k]);
                self.keys[k].push((u64::from(float_key(lo)) << 32) | u64::from(float_key(hi)));
                // Floor and ceiling of monotone maps: real overlap implies quantised overlap.
                let ql = ((lo - self.origin[k]) * self.scale[k]).floor().clamp(0.0, 65535.0) as u32;
                let qh = ((hi - self.origin[k]) * self.scale[k]).ceil().clamp(0.0, 65535.0) as u32;
                self.quant[k].push((ql << 16) | qh);
            }
        }
        self.set_bounds(bounds);
    }

    /// Mark the bodies of `pairs` in the `paired` bitset. O(n/64 + capacity of the set).
    pub fn mark_paired(&mut self, n: usize, pairs: &PairSet) {
        self.paired.clear();
        self.paired.resize(n.div_ceil(64), 0);
        for key in pairs.iter() {
            let p = Pair::from_key(key);
            for b in [p.a, p.b] {
                self.paired[b as usize / 64] |= 1 << (b % 64);
            }
        }
    }

    #[inline(always)]
    fn is_paired(&self, b: usize) -> bool {
        self.paired[b / 64] & (1 << (b % 64)) != 0
    }
}

/// Refresh, sort and collect events on one axis (see the module docs).
fn run_axis(
    state: &mut AxisState,
    axis: usize,
    prep: &Prepared,
    aabbs: &[Aabb],
    pairs: &PairSet,
    budget: u64,
    stop: &AtomicBool,
) {
    state.adds.clear();
    state.removes.clear();
    state.tests = 0;
    let keys = &prep.keys[axis];
    for e in state.endpoints.iter_mut() {
        let id = body(*e);
        let k = keys[id as usize];
        let value = if is_end(*e) { k & 0xFFFF_FFFF } else { k >> 32 };
        *e = (value << 32) | (*e & (END | (END - 1)));
    }
    let (k1, k2) = ((axis + 1) % 3, (axis + 2) % 3);
    let result = sort_axis(state, prep, (k1, k2), aabbs, pairs, budget, stop);
    if result.is_none() {
        // The frame will be rebuilt: tell the other axes to stop too.
        stop.store(true, Ordering::Relaxed);
    }
    state.finished = result.is_some();
    state.swaps = result.unwrap_or(budget);
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
fn sort_axis(
    state: &mut AxisState,
    prep: &Prepared,
    (k1, k2): (usize, usize),
    aabbs: &[Aabb],
    pairs: &PairSet,
    budget: u64,
    stop: &AtomicBool,
) -> Option<u64> {
    let (q1, q2) = (&prep.quant[k1], &prep.quant[k2]);
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
            let probe = prep.is_paired(a);
            while j > 0 {
                let prev = e[j - 1];
                if order(prev) <= key {
                    break;
                }
                if probe && !is_end(prev) {
                    let b = body(prev) as usize;
                    if prep.is_paired(b) {
                        let k = Pair::new(a as u32, b as u32).key();
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
                        if aabbs[a].overlaps(&aabbs[b]) {
                            state.adds.push(Pair::new(a as u32, b as u32).key());
                        }
                    }
                }
                e[j] = prev;
                j -= 1;
            }
        }
        e[j] = cur;
        swaps += (i - j) as u64;
        if swaps > budget || (i % 4096 == 0 && stop.load(Ordering::Relaxed)) {
            return None;
        }
    }
    Some(swaps)
}

/// Run the three axes (in parallel when `parallel`), then apply the events to `pairs`. Returns `false` when an
/// axis ran out of budget (`pairs` is then left as it was, and the arrays must be rebuilt).
pub(crate) fn run(
    axes: &mut [AxisState; 3],
    prep: &Prepared,
    aabbs: &[Aabb],
    pairs: &mut PairSet,
    budget: u64,
    parallel: bool,
) -> (bool, u64, u64) {
    {
        let shared: &PairSet = pairs;
        let stop = AtomicBool::new(false);
        if parallel {
            axes.par_iter_mut().enumerate().for_each(|(k, s)| run_axis(s, k, prep, aabbs, shared, budget, &stop));
        } else {
            for (k, s) in axes.iter_mut().enumerate() {
                if !stop.load(Ordering::Relaxed) {
                    run_axis(s, k, prep, aabbs, shared, budget, &stop);
                } else {
                    s.finished = false;
                    s.swaps = 0;
                }
            }
        }
    }
    if !axes.iter().all(|s| s.finished) {
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
