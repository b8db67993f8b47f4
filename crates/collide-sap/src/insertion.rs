//! Kernel: the thesis's insertion sort of one almost sorted endpoint array, with the pair events of its swaps.
//!
//! Each endpoint that moves left past one of the other kind is an event: a begin passing an end means the two
//! intervals may have started to overlap on this axis (the full box test decides whether the pair is added); an
//! end passing a begin means they stopped (the pair is removed if it is in the set). O(n + swaps): each endpoint
//! pair that changed order swaps exactly once, so `swaps` is the number of inversions since the last frame —
//! linear in n when bodies move a small fraction of their size per frame, quadratic when they cross the world.
//!
//! The events are recorded, not applied: every array of a frame reads the set as it was, and `update.rs`
//! applies all removes, then all adds (see there why the order of arrays does not matter).

use crate::endpoints::{body, is_end, order};
use crate::pairset::PairSet;
use crate::region::{RegionAxis, overlap16};
use collide_broadphase::{Aabb, Pair};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The shared swap budget of a frame: every (region, axis) array draws from it.
pub(crate) struct Budget {
    pub limit: u64,
    pub spent: AtomicU64,
    pub stop: AtomicBool,
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Self { limit, spent: AtomicU64::new(0), stop: AtomicBool::new(false) }
    }

    /// `true` once some array ran out of budget: the frame will be rebuilt.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What every array of a frame reads: this frame's boxes, the pair set as it was, the bodies that have a pair
/// (bit per body), and the budget.
pub(crate) struct FrameView<'a> {
    pub aabbs: &'a [Aabb],
    pub pairs: &'a PairSet,
    pub paired: &'a [u64],
    pub budget: &'a Budget,
}

/// What an array's sort reads of its region: the members (local index → body) and their quantised intervals.
pub(crate) struct RegionView<'a> {
    pub members: &'a [u32],
    pub quant: &'a [Vec<u32>; 3],
}

#[inline(always)]
pub(crate) fn bit(bits: &[u64], b: u32) -> bool {
    bits[b as usize / 64] & (1 << (b % 64)) != 0
}

/// Insertion-sort `state.endpoints` (axis `axis` of the region `region`, values already refreshed), recording
/// pair events in `state.adds` and `state.removes` and exact tests in `state.tests`. Specialised by the kind of
/// the moving endpoint, so that what depends only on it is loaded once per element instead of once per swap: a
/// moving end whose body has no pair skips every probe, and a moving begin keeps its own quantised intervals in
/// registers. O(n + swaps); `None` when the swaps exceed `budget` (the array is then a valid permutation but
/// only partly sorted).
pub(crate) fn sort_axis(
    state: &mut RegionAxis,
    axis: usize,
    region: &RegionView<'_>,
    frame: &FrameView<'_>,
    budget: u64,
) -> Option<u64> {
    let (q1, q2) = (&region.quant[(axis + 1) % 3], &region.quant[(axis + 2) % 3]);
    let members = region.members;
    let (aabbs, pairs, paired) = (frame.aabbs, frame.pairs, frame.paired);
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
        if swaps > budget || (i % 4096 == 0 && frame.budget.stopped()) {
            return None;
        }
    }
    Some(swaps)
}

#[cfg(test)]
mod tests;
