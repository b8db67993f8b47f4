//! Octree without duplicates: the pair search. A body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The pair search pairs each inner node's straddlers, slab by slab
//! (`slabs.rs`), with the layer of its subtree near the slab's plane (see [`self_pairs`]); the moving bodies walk
//! a static tree (`walk.rs`) by the same [`child_mask`](crate::tree::child_mask).

use crate::slabs::{SLAB_PAIRING_MIN, SlabScratch, leaf_pairs, slab_pairs, split, sweep_whole};
use crate::strips::{RECORD_BYTES, StripCut, bucket, bucket_starts, record, records, windows};
use crate::tree::{ITEM_BYTES, Item, NODE_BYTES, NONE, Node, STACK, layer, widest};
use collide_broadphase::radix::float_key;
use collide_broadphase::sweep::{PairSink, SinkBuffer, SweepBox, sort_by_lo, sweep_two};
use collide_broadphase::{Pair, Tally};
use collide_math::Vec3;

/// The pair search's scratch for one task chunk, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct NodupScratch {
    node: NodeScratch,
    /// The [`PairSink`]'s buffer: kept here, it is not zeroed on every sweep.
    sink: SinkBuffer,
}

/// The scratch of [`node_pairs`] (and of a leaf's strips).
#[derive(Debug, Default)]
struct NodeScratch {
    /// The node's own bodies split into slabs ([`split`]).
    slabs_buf: Vec<Item>,
    /// Per slab, the subtree's bodies inside the slab's layer.
    layers: [Vec<Item>; 3],
    /// Strips of the two sides of a slab–layer pairing ([`cross_strips`]).
    cross: CrossScratch,
    slabs: SlabScratch,
}

/// The pair search's tasks: one per node.
pub(crate) fn tasks(nodes: &[Node]) -> usize {
    nodes.len()
}

/// Pairs of the nodes `range`; returns the box tests made.
///
/// Node N's pairs are its own bodies among themselves and its own bodies against its strict subtree. Every own
/// body of an inner node straddles one of the node's three planes; [`split`] sorts them into three **slabs** by
/// the first plane each straddles. A body of the x slab (widest x extent `w`) lies inside the **layer**
/// `c.x ± w`, so only subtree bodies meeting that layer can overlap it: one walk down the subtree, pruned to the
/// cells that meet a layer, gathers each layer's bodies, and each slab is swept against its layer in the plane
/// ([`cross_strips`]: sorted along one in-plane axis, cut into strips across the other). A pair is found
/// exactly once: at the node of its higher body, in the one slab that body belongs to.
///
/// This replaced carrying every ancestor's slabs down the tree as active lists ("runs"), which copied each
/// straddler into every descendant cell it touched and made one small sort-and-sweep per node and run: at the
/// dense cluster those copies and sweeps were half of the search.
pub(crate) fn self_pairs(
    nodes: &[Node],
    items: &[Item],
    range: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
    scratch: &mut NodupScratch,
) -> Tally {
    let mut out = PairSink::new(out, &mut scratch.sink);
    let mut tally = Tally::work(range.len() as u64, range.len() as u64 * NODE_BYTES);
    for ni in range {
        let node = &nodes[ni];
        let own = &items[node.start as usize..node.end as usize];
        if node.is_leaf() {
            tally += leaf_pairs(own, &mut scratch.node.slabs, &mut out);
        } else if !own.is_empty() {
            tally += node_pairs(nodes, items, node, own, &mut scratch.node, &mut out);
        }
    }
    tally
}

/// Pairs of the inner node `node` (own bodies `own`): among themselves, and each slab against its layer of the
/// subtree.
fn node_pairs(
    nodes: &[Node],
    items: &[Item],
    node: &Node,
    own: &[Item],
    sc: &mut NodeScratch,
    out: &mut PairSink<'_>,
) -> Tally {
    let NodeScratch { slabs_buf, layers, cross, slabs } = sc;
    slabs_buf.clear();
    let b = split(own, node.c, slabs_buf);
    let (sx, sy, sz) = (&slabs_buf[b[0]..b[1]], &slabs_buf[b[1]..b[2]], &slabs_buf[b[2]..b[3]]);
    let m = own.len() as u64;
    let mut tally = Tally::work(m, 2 * m * ITEM_BYTES);
    tally += if own.len() < SLAB_PAIRING_MIN {
        sweep_whole::<0>(own, slabs, out)
    } else {
        slab_pairs(sx, sy, sz, node.c, slabs, out)
    };

    // The layers: `c ± w` across each plane with a non-empty slab (empty: `lo > hi`, nothing meets it).
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for (axis, slab) in [sx, sy, sz].into_iter().enumerate() {
        if !slab.is_empty() {
            (lo[axis], hi[axis]) = layer(node.c[axis], widest(slab, axis));
        }
    }
    for l in layers.iter_mut() {
        l.clear();
    }
    tally += gather(nodes, items, node, lo, hi, layers);
    let [lx, ly, lz] = layers;
    // Each slab is swept on the axis `split` sorted it on, in strips across its third axis.
    if !sx.is_empty() && !lx.is_empty() {
        tally += cross_strips::<1, 2>(sx, lx, cross, out);
    }
    if !sy.is_empty() && !ly.is_empty() {
        tally += cross_strips::<0, 2>(sy, ly, cross, out);
    }
    if !sz.is_empty() && !lz.is_empty() {
        tally += cross_strips::<0, 1>(sz, lz, cross, out);
    }
    tally
}

/// Into `layers[axis]`, the bodies of `node`'s strict subtree whose boxes meet the layer `lo[axis]..=hi[axis]`
/// on that axis; cells that meet no layer are skipped. Returns the nodes and items read.
fn gather(nodes: &[Node], items: &[Item], node: &Node, lo: Vec3, hi: Vec3, layers: &mut [Vec<Item>; 3]) -> Tally {
    let (mut visited, mut read) = (0u64, 0u64);
    let mut stack = [0u32; STACK];
    let mut sp = 0;
    for k in 0..8 {
        stack[sp] = node.first_child + k;
        sp += 1;
    }
    while sp > 0 {
        sp -= 1;
        let d = &nodes[stack[sp] as usize];
        visited += 1;
        // The cell's closed hull `lo_t..=hi_t` holds every body stored below it.
        let meets = d.hi_t.cmpge(lo) & d.lo_t.cmple(hi);
        if !meets.any() {
            continue;
        }
        read += u64::from(d.end - d.start);
        for it in &items[d.start as usize..d.end as usize] {
            let m = (it.aabb.max.cmpge(lo) & it.aabb.min.cmple(hi)).bitmask();
            if m != 0 {
                for (axis, layer) in layers.iter_mut().enumerate() {
                    if m >> axis & 1 != 0 {
                        layer.push(*it);
                    }
                }
            }
        }
        if d.first_child != NONE {
            for k in 0..8 {
                stack[sp] = d.first_child + k;
                sp += 1;
            }
        }
    }
    let written: u64 = layers.iter().map(|l| l.len() as u64).sum();
    Tally::work(visited + read, visited * NODE_BYTES + (read + written) * ITEM_BYTES)
}

/// Scratch of [`cross_strips`].
#[derive(Debug, Default)]
struct CrossScratch {
    xs: Vec<SweepBox>,
    ys: Vec<SweepBox>,
    x_starts: Vec<usize>,
    y_starts: Vec<usize>,
    /// [`windows`]' counts and write positions.
    at: Vec<usize>,
    /// The layer's sort keys: strip, `min` on the sweep axis, index.
    keys: Vec<u64>,
}

/// Bits of a layer's sort key ([`cross_strips`]) for the strip (at most 1025 strips) and for the body's index
/// (larger layers take the slower path); the 32 between are the body's `min` on the sweep axis.
const KEY_STRIP_BITS: u32 = 11;
const KEY_INDEX_BITS: u32 = 64 - KEY_STRIP_BITS - 32;

/// Below this many bodies on both sides, one sweep.
const CROSS_STRIPS_MIN: usize = 48;

/// Pairs between `xs` (sorted by `min` on axis `A`) and `ys` (in any order), both spread over axes `A` and `B`:
/// both are cut on `B` into strips at least as wide as their widest body (by `min`), and each strip of `ys` is
/// swept once against the same and the neighbouring strips of `xs`, gathered into one sorted window
/// ([`windows`]): two overlapping boxes start less than one strip apart on `B`. `ys`' strips are sorted on `A`
/// by one sort of integer keys.
fn cross_strips<const A: usize, const B: usize>(
    xs: &[Item],
    ys: &[Item],
    sc: &mut CrossScratch,
    out: &mut PairSink<'_>,
) -> Tally {
    let CrossScratch { xs: xb, ys: yb, x_starts, y_starts, at, keys } = sc;
    // Both sides read and made into records; the layer's windows copy slab records up to three times.
    let m = (xs.len() + ys.len()) as u64;
    let whole = Tally::work(m, m * (ITEM_BYTES + RECORD_BYTES));
    if xs.len() + ys.len() < CROSS_STRIPS_MIN {
        return whole + Tally::tests(sweep_both::<A>(xs, ys, xb, yb, out));
    }
    let Some(cut) = StripCut::across::<B>(xs.iter().chain(ys)) else {
        return whole + Tally::tests(sweep_both::<A>(xs, ys, xb, yb, out));
    };
    let (n, strip) = (cut.n, |it: &Item| cut.strip::<B>(it));
    windows::<A>(xs, n, strip, xb, x_starts, at);
    if ys.len() < 1 << KEY_INDEX_BITS {
        // The layer comes from many cells in tree order. One sort of `u64` keys (strip, then `min` on `A`, then
        // the index) orders it by strip and each strip on `A`: sorting each strip's records after a scatter cost
        // about twice as many instructions (28-byte moves, `total_cmp` on floats).
        keys.clear();
        keys.extend(ys.iter().enumerate().map(|(i, it)| {
            (strip(it) as u64) << (64 - KEY_STRIP_BITS)
                | u64::from(float_key(it.aabb.min[A])) << KEY_INDEX_BITS
                | i as u64
        }));
        keys.sort_unstable();
        bucket_starts(keys.iter().map(|&k| (k >> (64 - KEY_STRIP_BITS)) as usize), n, y_starts);
        yb.clear();
        yb.extend(keys.iter().map(|&k| record::<A>(&ys[(k & ((1 << KEY_INDEX_BITS) - 1)) as usize])));
    } else {
        bucket::<A>(ys, n, strip, yb, y_starts);
        for i in 0..n {
            sort_by_lo(&mut yb[y_starts[i]..y_starts[i + 1]]);
        }
    }
    let mut tests = 0;
    for i in 0..n {
        tests += sweep_two(&xb[x_starts[i]..x_starts[i + 1]], &yb[y_starts[i]..y_starts[i + 1]], out);
    }
    let (windowed, sorted) = (xb.len() as u64, ys.len() as u64);
    Tally {
        pair_tests: tests,
        work: m + windowed + sorted,
        bytes_touched: m * ITEM_BYTES + (windowed + sorted) * RECORD_BYTES + sorted * 8 * 2,
    }
}

/// `xs` against `ys` in one sweep on axis `A` (`xs` sorted on it), through the sweep records `xb` and `yb`;
/// returns the box tests.
fn sweep_both<const A: usize>(
    xs: &[Item],
    ys: &[Item],
    xb: &mut Vec<SweepBox>,
    yb: &mut Vec<SweepBox>,
    out: &mut PairSink<'_>,
) -> u64 {
    records::<A>(xs, xb);
    records::<A>(ys, yb);
    sort_by_lo(yb);
    sweep_two(xb, yb, out)
}
