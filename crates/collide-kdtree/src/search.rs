//! The pair search: every node's own bodies among themselves, and an inner node's own bodies against the bodies
//! of its subtree that come near them.
//!
//! Bodies in two subtrees that are not nested never overlap: their regions are apart by a plane, and each box lies
//! in its node's region (a left body ends before the plane, a right body starts at or after it). So a pair is
//! either two own bodies of one node — one sweep of the node's items, which are sorted on its sweep axis — or an
//! inner node's own body with a body below it. The own bodies of an inner node all straddle its plane, so a body
//! below that overlaps one of them overlaps their **hull** (the union of their boxes, a slab around the plane as
//! thin as the widest of them): one walk of the subtree, skipping every node whose region misses the hull,
//! gathers those bodies into the node's **layer**, which is sorted and swept against the own bodies. Each pair is
//! found once, at the node of the higher of its two bodies. This is the octree-nodup search with one plane per
//! node instead of three, so one slab instead of three; the hull replaces nodup's `plane ± widest extent`, which
//! needed a rounding slack (the hull's bounds are the bodies' own coordinates).

use crate::tree::{ITEM_BYTES, Item, NODE_BYTES, Node, Span};
use collide_broadphase::sweep::{PairSink, SinkBuffer, SweepBox, sort_by_lo, sweep, sweep_two};
use collide_broadphase::{Aabb, Pair, Tally};
use std::ops::Range;

/// The bytes of a sweep record, for the `bytes_touched` estimates.
const RECORD_BYTES: u64 = size_of::<SweepBox>() as u64;

/// One chunk's scratch, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct SearchScratch {
    own: Vec<SweepBox>,
    layer: Vec<SweepBox>,
    /// The [`PairSink`]'s buffer: kept here, it is not zeroed on every sweep.
    sink: SinkBuffer,
}

/// The pairs found at the nodes `range`, appended to `out`; returns the work done.
pub(crate) fn pairs(
    nodes: &[Node],
    spans: &[Span],
    items: &[Item],
    range: Range<usize>,
    out: &mut Vec<Pair>,
    scratch: &mut SearchScratch,
) -> Tally {
    let SearchScratch { own, layer, sink } = scratch;
    let mut sink = PairSink::new(out, sink);
    let mut tally = Tally::work(range.len() as u64, range.len() as u64 * NODE_BYTES);
    for n in range {
        let (node, span) = (&nodes[n], &spans[n]);
        let mine = &items[span.own()];
        if mine.is_empty() {
            continue;
        }
        let sweep_axis = usize::from(node.sweep);
        records(mine, sweep_axis, own);
        let m = mine.len() as u64;
        tally += Tally { pair_tests: sweep(own, &mut sink), work: m, bytes_touched: m * (ITEM_BYTES + RECORD_BYTES) };
        if !node.is_leaf() {
            tally += layer_pairs(nodes, spans, items, n, mine, own, layer, &mut sink);
        }
    }
    tally
}

/// The pairs of inner node `n`'s own bodies `mine` (as records `own`, sorted) with the bodies of its subtree:
/// gather the layer, sort it, sweep it against `own`.
#[allow(clippy::too_many_arguments, reason = "one node's search: the tree's three arrays, the node, and scratch")]
fn layer_pairs(
    nodes: &[Node],
    spans: &[Span],
    items: &[Item],
    n: usize,
    mine: &[Item],
    own: &[SweepBox],
    layer: &mut Vec<SweepBox>,
    sink: &mut PairSink<'_>,
) -> Tally {
    let node = &nodes[n];
    let hull = mine.iter().fold(Aabb::EMPTY, |h, it| h.union(&it.aabb));
    let axis = usize::from(node.sweep);
    let (mut visited, mut read, mut kept) = (0u64, 0u64, 0usize);
    let mut d = n + 1;
    while d < node.end as usize {
        let below = &nodes[d];
        visited += 1;
        if !below.meets(&hull) {
            d = below.end as usize;
            continue;
        }
        let those = &items[spans[d].own()];
        read += those.len() as u64;
        if layer.len() < kept + those.len() {
            // Grown once to the largest layer met, never shrunk: the gather writes past its count.
            layer.resize(kept + those.len(), SweepBox::default());
        }
        kept = match axis {
            0 => gather::<0>(those, &hull, layer, kept),
            1 => gather::<1>(those, &hull, layer, kept),
            _ => gather::<2>(those, &hull, layer, kept),
        };
        d += 1;
    }
    let layer = &mut layer[..kept];
    let kept = kept as u64;
    let mut tally = Tally::work(
        visited + read + kept,
        visited * NODE_BYTES + read * ITEM_BYTES + kept * RECORD_BYTES + mine.len() as u64 * ITEM_BYTES,
    );
    if !layer.is_empty() {
        sort_by_lo(layer);
        tally += Tally { pair_tests: sweep_two(own, layer, sink), work: kept, bytes_touched: 2 * kept * RECORD_BYTES };
    }
    tally
}

/// Write to `layer` from `kept` on, as records on axis `A`, the items of `those` that overlap `hull`; returns the
/// new count. Every item is written and the count advances only on an overlap: whether a body near a plane
/// reaches the straddlers' hull is a coin flip, and the branch of a filter mispredicted on it (`layer` has room
/// for all of `those` past `kept`).
#[inline]
fn gather<const A: usize>(those: &[Item], hull: &Aabb, layer: &mut [SweepBox], kept: usize) -> usize {
    let mut k = kept;
    for it in those {
        layer[k] = SweepBox::on::<A>(&it.aabb, it.id);
        k += usize::from(it.aabb.overlaps(hull));
    }
    k
}

/// `v` (sorted by `min` on `axis`) as sweep records on `axis`, into `out`.
fn records(v: &[Item], axis: usize, out: &mut Vec<SweepBox>) {
    out.clear();
    match axis {
        0 => out.extend(v.iter().map(|it| SweepBox::on::<0>(&it.aabb, it.id))),
        1 => out.extend(v.iter().map(|it| SweepBox::on::<1>(&it.aabb, it.id))),
        _ => out.extend(v.iter().map(|it| SweepBox::on::<2>(&it.aabb, it.id))),
    }
}
