//! Bodies moving between the regions of regional incremental SAP: each frame's gather of the members' boxes,
//! bodies leaving a region, bodies entering one (and new bodies, entered like bodies from outside), and the
//! renumbering after a resize.
//!
//! # The pair rule
//! All regions share one persistent pair set, and every event is *individually* true of this frame's boxes:
//! a begin passing an end adds the pair only after the exact overlap test on this frame's boxes, and an end
//! passing a begin means the intervals are separated on that axis now. So the same event seen in several regions
//! (a pair whose bodies share several regions) is idempotent, and no region can contradict another. What regions
//! cannot see are pairs whose shared regions changed:
//! - a body that **enters** a region is tested against that region's bodies (one sweep, see [`enter`]), which
//!   finds every pair that overlaps now and shares no region it shared before;
//! - every pair of the set with a body that changed regions is **re-tested** before the sort (`update.rs`), and
//!   dropped if its boxes no longer overlap (a pair whose bodies stopped sharing any region cannot overlap: the
//!   intersection of two boxes lies in a region both are entered in, because the cell of a coordinate is
//!   monotone).
//!
//! A pair whose bodies share a region before and after the frame is kept right by that region's events, exactly
//! as in the thesis's algorithm. The output is the set, so each pair is reported once by construction.

use crate::endpoints::{body, is_end, merge_into, of_box, order, relabel};
use crate::region::{Quantizer, Region};
use collide_broadphase::radix::float_key;
use collide_broadphase::region_grid::{RegionRange, range_contains};
use collide_broadphase::{Aabb, Pair, Tally};

/// Gather the members' boxes of this frame into the region's local keys and quantised intervals: one random read
/// of a box per member, then everything the sort reads is local. O(m). Out of line, and its work counted by the
/// caller: inlined into the frame's parallel closure, or with a write to the region's tally here, LLVM did not
/// vectorise its loops (+45% instructions in the gather, +9% in the thesis-slow frame).
#[inline(never)]
pub(crate) fn gather(region: &mut Region, aabbs: &[Aabb], quantizer: &Quantizer) {
    // Per member: an id and a box read, a box, three keys and three quantised intervals written.
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
pub(crate) fn leave(region: &mut Region, ranges: &[RegionRange]) {
    let c = region.coords;
    compact(region, |id| range_contains(&ranges[id as usize], c).then_some(id));
}

/// Keep the members for which `keep` gives a (possibly new) body id, renumber them in order and relabel the
/// endpoints. O(endpoints of the region).
pub(crate) fn compact(region: &mut Region, mut keep: impl FnMut(u32) -> Option<u32>) {
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
    let m = region.members.len() as u64;
    region.members.truncate(kept);
    region.tally += Tally::work(m, m * 8);
    if !dropped {
        return;
    }
    // Every endpoint read, relabelled and written back (or dropped).
    region.tally += Tally::work(6 * m, 6 * m * 2 * 8);
    let remap = &region.remap;
    for axis in &mut region.axes {
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
pub(crate) fn enter(region: &mut Region, aabbs: &[Aabb]) {
    region.adds.clear();
    region.tests = 0;
    if region.entering.is_empty() {
        return;
    }
    let first = region.members.len() as u32;
    region.members.extend_from_slice(&region.entering);
    // The entering bodies' endpoints made and sorted, every array merged (read and written), x swept.
    let (k, m) = (region.entering.len() as u64, region.members.len() as u64);
    region.tally += Tally::work(6 * k + 8 * m, 6 * k * 3 * 8 + 6 * m * 2 * 8 + 2 * m * 8);
    for (k, axis) in region.axes.iter_mut().enumerate() {
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
