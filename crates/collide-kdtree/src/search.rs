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
use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_broadphase::sweep::{
    PairSink, SinkBuffer, StripScratch, Strips, SweepBox, sweep, sweep_strips, sweep_two, sweep_two_strips,
};
use collide_broadphase::{Aabb, Pair, Tally};
use std::ops::Range;

/// The bytes of a sweep record, for the `bytes_touched` estimates.
const RECORD_BYTES: u64 = size_of::<SweepBox>() as u64;

/// The bytes of a layer's sort key.
const KEY_BYTES: u64 = size_of::<u64>() as u64;

/// Below this many boxes a sweep is one sweep; from it on, in strips when the boxes spread over several strips
/// ([`Strips`]): the sheets of the dense cluster's upper nodes hold thousands of bodies, and a sweep along one of
/// the sheet's axes tests each against a row across the whole sheet. It was 256: the rapier brownian scene's
/// layers of a few hundred, with a few wide bodies among them, made few strips and paid the scatter for little;
/// at 1024 the kd search took 3–5% fewer instructions there and 1% fewer on the thesis scene and the cluster.
const STRIPS_MIN: usize = 1024;

/// One chunk's scratch, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct SearchScratch {
    node: NodeScratch,
    /// The [`PairSink`]'s buffer: kept here, it is not zeroed on every sweep.
    sink: SinkBuffer,
}

/// The scratch of one node's search.
#[derive(Debug, Default)]
struct NodeScratch {
    own: Vec<SweepBox>,
    /// The layer's records, sorted.
    layer: Vec<SweepBox>,
    /// The layer's sort keys (`min` on the sweep axis, then the item's index), gathered (written past their count:
    /// see [`gather`]) and sorted; and the radix sort's second buffer.
    keys: Vec<u64>,
    keys_scratch: Vec<u64>,
    strips: StripScratch,
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
    let SearchScratch { node: scratch, sink } = scratch;
    let mut sink = PairSink::new(out, sink);
    let mut tally = Tally::work(range.len() as u64, range.len() as u64 * NODE_BYTES);
    for n in range {
        let (node, span) = (&nodes[n], &spans[n]);
        let mine = &items[span.own()];
        if mine.is_empty() {
            continue;
        }
        records(mine.iter(), usize::from(node.sweep), &mut scratch.own);
        let m = mine.len() as u64;
        let tests = sweep_maybe_in_strips(&scratch.own, cross(node), &mut scratch.strips, &mut sink);
        tally += Tally { pair_tests: tests, work: m, bytes_touched: m * (ITEM_BYTES + RECORD_BYTES) };
        if !node.is_leaf() {
            tally += layer_pairs(nodes, spans, items, n, mine, scratch, &mut sink);
        }
    }
    tally
}

/// The cross axis (0 or 1 of a [`SweepBox`] on the node's sweep axis) that strips cut across: for an inner node the
/// axis that is neither its plane's nor its sweep's, the one its own bodies spread over besides the sweep axis.
fn cross(node: &Node) -> usize {
    if node.is_leaf() { 0 } else { usize::from((node.sweep + 1) % 3 == node.axis) }
}

/// Pairs among `own` (sorted by `lo`): in strips across cross axis `k` when there are enough of them.
fn sweep_maybe_in_strips(own: &[SweepBox], k: usize, strips: &mut StripScratch, sink: &mut PairSink<'_>) -> u64 {
    match (own.len() >= STRIPS_MIN).then(|| Strips::across(own, k)).flatten() {
        Some(cut) => sweep_strips(own, &cut, strips, sink),
        None => sweep(own, sink),
    }
}

/// The pairs of inner node `n`'s own bodies `mine` (as records `scratch.own`, sorted) with the bodies of its
/// subtree: gather the layer, sort it, sweep it against the own bodies (in strips when they are many).
fn layer_pairs(
    nodes: &[Node],
    spans: &[Span],
    items: &[Item],
    n: usize,
    mine: &[Item],
    scratch: &mut NodeScratch,
    sink: &mut PairSink<'_>,
) -> Tally {
    let node = &nodes[n];
    let hull = mine.iter().fold(Aabb::EMPTY, |h, it| h.union(&it.aabb));
    let axis = usize::from(node.sweep);
    let keys = &mut scratch.keys;
    let slab = (hull.min[usize::from(node.axis)], hull.max[usize::from(node.axis)]);
    let (mut visited, mut read, mut kept) = (0u64, 0u64, 0usize);
    let mut d = n + 1;
    while d < node.end as usize {
        let below = &nodes[d];
        visited += 1;
        if !below.meets(&hull) {
            d = below.end as usize;
            continue;
        }
        let span = spans[d];
        let those = &items[span.own()];
        read += those.len() as u64;
        if keys.len() < kept + those.len() {
            // Grown to the largest layer met (only the radix sort's path shrinks it): the gather writes past its
            // count.
            keys.resize(kept + those.len(), 0);
        }
        // Monomorphised on the sweep axis and the plane's axis, so that each item's coordinates are read at
        // fixed offsets.
        kept = match (axis, usize::from(node.axis)) {
            (0, 1) => gather::<0, 1>(those, span.start, &slab, keys, kept),
            (0, _) => gather::<0, 2>(those, span.start, &slab, keys, kept),
            (1, 0) => gather::<1, 0>(those, span.start, &slab, keys, kept),
            (1, _) => gather::<1, 2>(those, span.start, &slab, keys, kept),
            (_, 0) => gather::<2, 0>(those, span.start, &slab, keys, kept),
            _ => gather::<2, 1>(those, span.start, &slab, keys, kept),
        };
        d += 1;
    }
    let mut tally = Tally::work(
        visited + read,
        visited * NODE_BYTES + read * ITEM_BYTES + kept as u64 * KEY_BYTES + mine.len() as u64 * ITEM_BYTES,
    );
    if kept == 0 {
        return tally;
    }
    tally += sort_layer(items, axis, kept, keys, &mut scratch.keys_scratch, &mut scratch.layer);
    let (own, layer) = (&scratch.own[..], &scratch.layer[..]);
    let k = cross(node);
    let cut = (own.len() + layer.len() >= STRIPS_MIN).then(|| Strips::across(own.iter().chain(layer), k)).flatten();
    let tests = match cut {
        Some(cut) => sweep_two_strips(own, layer, &cut, &mut scratch.strips, sink),
        None => sweep_two(own, layer, sink),
    };
    tally + Tally::tests(tests)
}

/// From this many bodies a layer's keys are radix-sorted: below it the radix sort's fixed cost (six histograms of
/// 2048 counts zeroed, three prefix sums) outweighs its linear passes, and the many small layers of the lower nodes
/// paid more for it than they had paid for a comparison sort.
const RADIX_MIN: usize = 2048;

/// The layer's first `kept` keys sorted, and the layer written to `layer` in their order as records on `axis`.
/// Large layers take the shared radix sort, the others a comparison sort of the keys.
fn sort_layer(
    items: &[Item],
    axis: usize,
    kept: usize,
    keys: &mut Vec<u64>,
    scratch: &mut Vec<u64>,
    layer: &mut Vec<SweepBox>,
) -> Tally {
    let m = kept as u64;
    // The gather wrote each key's coordinate as its raw bits: made order-preserving here, for the kept keys only.
    for key in &mut keys[..kept] {
        let min = f32::from_bits((*key >> 32) as u32);
        *key = u64::from(float_key(min)) << 32 | (*key & 0xFFFF_FFFF);
    }
    if kept >= RADIX_MIN {
        keys.truncate(kept);
        sort_by_high_bits(keys, scratch, 32);
    } else {
        // The keys past `kept` stay: the next layer's gather writes over them without growing the vector.
        keys[..kept].sort_unstable();
    }
    records(keys[..kept].iter().map(|&k| &items[(k & 0xFFFF_FFFF) as usize]), axis, layer);
    // Keys sorted (three passes, read and written) and the records made from the items in their order.
    Tally::work(3 * m, m * (KEY_BYTES * 6 + ITEM_BYTES + RECORD_BYTES))
}

/// Write to `keys` from `kept` on a sort key for each item of `those` (the items from `first` on in the item
/// array): `min` on sweep axis `A` as its raw bits (made order-preserving in [`sort_layer`], for the kept keys
/// only), then the item's index. The count advances only for the
/// items that reach the straddlers' slab `(lo, hi)` on the plane's axis `P`; returns the new count.
///
/// - **Keys, not records:** a key is 8 bytes where a record is 28, and most items read are dropped (in the rapier
///   brownian scene 42 000 are read a frame and 7 700 kept); the records are made after the sort, for the kept
///   items only. Before, the records were gathered, and small layers sorted as records.
/// - **The slab, not the hull:** the hull's other axes hardly ever drop a body (the straddlers spread over the
///   node), and the sweep compares them anyway; testing one axis at fixed offsets took 5% off the whole kd frame's
///   instructions there (675 → 642 M over 100 frames).
/// - **No branch:** every item is written and the count advances without one: whether a body near a plane
///   reaches the slab is a coin flip, and a filter's branch mispredicted on it (tried again: 11% fewer
///   instructions, 13% slower). `keys` has room for all of `those` past `kept`.
/// - **Not inlined:** inlined into [`pairs`], the loop ran out of registers and reloaded the slab and the items'
///   base from the stack on every item (20 instructions an item, 14 on its own).
#[inline(never)]
fn gather<const A: usize, const P: usize>(
    those: &[Item],
    first: u32,
    &(lo, hi): &(f32, f32),
    keys: &mut [u64],
    kept: usize,
) -> usize {
    let mut k = kept;
    for (i, it) in (first..).zip(those) {
        keys[k] = u64::from(it.aabb.min[A].to_bits()) << 32 | u64::from(i);
        k += usize::from((it.aabb.min[P] <= hi) & (lo <= it.aabb.max[P]));
    }
    k
}

/// The items of `v` (in sweep order on `axis`: a node's own items, or a layer's in its keys' order) as sweep
/// records on `axis`, into `out`.
fn records<'a>(v: impl Iterator<Item = &'a Item>, axis: usize, out: &mut Vec<SweepBox>) {
    out.clear();
    match axis {
        0 => out.extend(v.map(|it| SweepBox::on::<0>(&it.aabb, it.id))),
        1 => out.extend(v.map(|it| SweepBox::on::<1>(&it.aabb, it.id))),
        _ => out.extend(v.map(|it| SweepBox::on::<2>(&it.aabb, it.id))),
    }
}
