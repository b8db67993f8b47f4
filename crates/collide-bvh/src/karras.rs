//! Building a [`FlatBvh`] in parallel: Morton keys, one radix sort, every inner node on its own (Karras 2012),
//! then a bottom-up refit.
//!
//! 1. **Keys.** The bounds of the centres of a fixed sample of boxes (`sampled_centres`: a pass over every box
//!    cost as much as the keys' own pass), then each box's key — its Morton code over those bounds and its index
//!    — written in parallel. Unusable boxes get a code above every real one.
//! 2. **Sort.** The shared LSD radix sort (`collide_broadphase::radix`) on the code half of the keys: 11-bit
//!    passes — two for the 21-bit codes of up to 2²¹ boxes (`morton::bits_for`), three above —, stable, so equal
//!    codes stay in index order and the keys come out fully sorted. Then the
//!    leaf boxes are gathered in key order (the traversal reads them in order).
//! 3. **Hierarchy and refit in one climb.** The tree is the binary radix tree of the sorted keys (see `flat.rs`;
//!    it is unique, so any construction gives Karras's tree). Karras 2012 finds each inner node on its own —
//!    its range's direction and other end by an exponential and a binary search over the keys, its split by
//!    another binary search — then refits the boxes bottom-up in a second pass, where from every leaf a task
//!    climbs and an atomic counter at each node lets the second child to arrive compute the node and go on.
//!    Here the climb does both (Apetrei 2014, "Fast and simple agglomerative LBVH construction"): a subtree
//!    covering `l ..= r` knows its parent without any search — the node of gap `l − 1` or of gap `r`, whichever
//!    pair of keys shares the longer prefix (the nearer split is the lower node); ties cannot happen between
//!    distinct sorted keys. The subtree writes its name, box and height into its side of the parent and swaps
//!    its far range end into the parent's exchange slot: the first to arrive finds the slot empty and stops; the
//!    second gets its sibling's range end, so it knows the parent's whole range, reads its sibling's box (the
//!    swap's acquire–release orders it), and climbs on as the parent. Each inner node is made once, by a task
//!    that knows both children are done, and a node costs a constant instead of Karras's O(log range) searches
//!    plus a second pass. Duplicate codes need no care for correctness: the index half makes the keys unique,
//!    which is Karras's tie-break for duplicates. For the tree's quality they do: the gather notes
//!    any run of more than `refine::LONG_RUN` equal codes, and such runs are ordered again by codes over their own
//!    bounds before the climb, which then reads the split depths inside them from the refiner (`refine.rs`).
//! 4. **Pack.** What the climb shares lives in atomics; a last parallel pass copies each node into the one
//!    cache line the traversal reads, and empties the exchange slots for the next frame.
//!
//! Safe Rust throughout: each parallel pass writes its own elements through `Parallelism::for_each`, and what
//! tasks share is atomic.

use crate::bounds::is_usable;
use crate::flat::{FlatBvh, Inner, LEAF};
use crate::morton::{self, Grid, UNUSABLE};
use crate::refine::{LONG_RUN, Refiner};
use collide_broadphase::region_grid::{bulk_bounds, sampled_bounds};
use collide_broadphase::{Parallelism, Tally, radix};
use collide_math::{Aabb, Vec3};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// No parent (the root) in the atomic parent links.
const NONE: u32 = u32::MAX;

/// One side of an inner node while the climb builds it: the child's name, box (f32 bits) and height.
#[derive(Debug, Default)]
struct Side {
    child: AtomicU32,
    min: [AtomicU32; 3],
    max: [AtomicU32; 3],
    height: AtomicU32,
}

impl Side {
    fn store(&self, child: u32, b: &Aabb, height: u32) {
        self.child.store(child, Ordering::Relaxed);
        for a in 0..3 {
            self.min[a].store(b.min[a].to_bits(), Ordering::Relaxed);
            self.max[a].store(b.max[a].to_bits(), Ordering::Relaxed);
        }
        self.height.store(height, Ordering::Relaxed);
    }

    fn load(&self) -> (u32, Aabb, u32) {
        let f = |v: &[AtomicU32; 3]| Vec3::from_array(v.each_ref().map(|x| f32::from_bits(x.load(Ordering::Relaxed))));
        (self.child.load(Ordering::Relaxed), Aabb::new(f(&self.min), f(&self.max)), self.height.load(Ordering::Relaxed))
    }
}

/// An inner node while the climb builds it.
#[derive(Debug)]
struct Pending {
    sides: [Side; 2],
    /// The exchange slot: [`NONE`] until the first child arrives, then that child's far range end.
    other: AtomicU32,
    /// The range the node covers, written by the second child to arrive.
    first: AtomicU32,
    last: AtomicU32,
}

impl Default for Pending {
    fn default() -> Self {
        Self {
            sides: Default::default(),
            other: AtomicU32::new(NONE),
            first: AtomicU32::new(0),
            last: AtomicU32::new(0),
        }
    }
}

/// What the build keeps across frames besides the tree: the sort's second buffer, the climb's nodes, the
/// refiner's buffers. A warm builder allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    scratch: Vec<u64>,
    /// The inner nodes as the climb builds them; every exchange slot is [`NONE`] between builds.
    pending: Vec<Pending>,
    /// The root and the tree's height, written by the task that completes the root.
    root: AtomicU32,
    height: AtomicU32,
    /// Long runs of equal codes, ordered again (`refine.rs`).
    refiner: Refiner,
}

/// Boxes whose centres [`sampled_centres`] reads: a fixed stride through the scene.
const CENTRE_SAMPLE: usize = 1024;

/// The bounds of the centres of a fixed sample of at most [`CENTRE_SAMPLE`] usable boxes (every
/// `n / CENTRE_SAMPLE`-th): the grid's span. A pass over every box cost as much as the keys' own; a centre outside
/// the sample's bounds (in a uniform scene, about one in a thousand per side) only clamps onto a border cell.
/// Inverted (`+∞ … −∞`) when no sampled box is usable.
fn sampled_centres(boxes: &[Aabb]) -> (Vec3, Vec3) {
    let step = boxes.len().div_ceil(CENTRE_SAMPLE).max(1);
    boxes
        .iter()
        .step_by(step)
        .filter(|b| is_usable(b))
        .map(morton::center)
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), c| (lo.min(c), hi.max(c)))
}

impl Builder {
    /// Rebuild `bvh` over `boxes` (the usable ones; see the module docs). Returns the work done.
    pub(crate) fn build(&mut self, bvh: &mut FlatBvh, boxes: &[Aabb], parallelism: Parallelism) -> Tally {
        let mut tally = self.sort_keys(bvh, boxes, parallelism);
        let m = bvh.len;
        // Gather the leaf boxes in key order: the traversal then reads them in order. The vectors keep their
        // length from frame to frame, so that resizing them does not write what the passes write again.
        bvh.leaf_boxes.resize(m, Aabb::EMPTY);
        let long_run = AtomicBool::new(false);
        let keys = &bvh.keys;
        parallelism.for_each("lbvh_gather", m, &mut bvh.leaf_boxes, |k, b| {
            *b = boxes[morton::key_index(keys[k]) as usize];
            // A run of more than LONG_RUN equal codes starts here.
            if k + LONG_RUN < m && keys[k] >> 32 == keys[k + LONG_RUN] >> 32 {
                long_run.store(true, Ordering::Relaxed);
            }
        });
        tally += Tally::work(m as u64, (m * (8 + 2 * size_of::<Aabb>())) as u64);
        self.refiner.active = false;
        if long_run.into_inner() {
            // Rare (a dense crowd in a huge world): order the runs again and gather their new order.
            self.refiner.refine(&mut bvh.keys[..m], boxes);
            let keys = &bvh.keys;
            parallelism.for_each("lbvh_gather", m, &mut bvh.leaf_boxes, |k, b| {
                *b = boxes[morton::key_index(keys[k]) as usize];
            });
            tally += Tally::work(3 * m as u64, (m * (24 + 2 * size_of::<Aabb>())) as u64);
        }
        bvh.root = LEAF;
        bvh.height = 0;
        bvh.nodes.resize(m.saturating_sub(1), Inner::default());
        if m >= 2 {
            tally += self.climb(bvh, parallelism);
            tally += self.pack(bvh, parallelism);
        }
        tally
    }

    /// Steps 1 and 2: the keys of every box, sorted; `bvh.len` is set to the number of usable boxes.
    fn sort_keys(&mut self, bvh: &mut FlatBvh, boxes: &[Aabb], parallelism: Parallelism) -> Tally {
        let n = boxes.len();
        // The grid spans where the bulk of the centres is: a few bodies at ±1e30 would otherwise give every other
        // body the same code, and the tree, ordered by index alone, would pair everything with everything. Far
        // centres clamp onto the grid's border cells.
        let (lo, hi) = sampled_centres(boxes);
        let bulk = bulk_bounds(Aabb::new(lo, hi), sampled_bounds(boxes));
        let grid = Grid::new(bulk.min.max(lo), bulk.max.min(hi), morton::bits_for(n));
        bvh.keys.resize(n, 0);
        parallelism.for_each("lbvh_keys", n, &mut bvh.keys, |i, key| {
            let b = &boxes[i];
            let code = if is_usable(b) { grid.code(morton::center(b)) } else { UNUSABLE };
            *key = morton::key(code, i as u32);
        });
        // 11-bit passes over the code half, each skipped when every key has the same digit (the codes of up to 2²¹
        // boxes have 21 bits: two passes); the index half is already in order (stable sort).
        radix::sort_by_high_bits(&mut bvh.keys, &mut self.scratch, 32);
        bvh.len = bvh.keys.partition_point(|&k| k >> 32 < u64::from(UNUSABLE));
        let bytes = n * (size_of::<Aabb>() + 8) + 3 * n * 16;
        Tally::work((1 + 3) * n as u64, bytes as u64)
    }

    /// Step 3: from every leaf a task climbs, building each inner node when its second child arrives.
    fn climb(&mut self, bvh: &mut FlatBvh, parallelism: Parallelism) -> Tally {
        let m = bvh.len;
        if self.pending.len() < m - 1 {
            self.pending.resize_with(m - 1, Pending::default);
        }
        let keys = &bvh.keys[..m];
        let (pending, root, height, refiner) = (&self.pending, &self.root, &self.height, &self.refiner);
        let gap = |s: usize| refiner.gap(keys, s);
        parallelism.for_each("lbvh_climb", m, &mut bvh.leaf_boxes, |k, leaf_box| {
            let (mut first, mut last) = (k, k);
            let (mut name, mut b, mut h) = (k as u32 | LEAF, *leaf_box, 0);
            loop {
                if first == 0 && last == m - 1 {
                    root.store(name, Ordering::Relaxed);
                    height.store(h, Ordering::Relaxed);
                    return;
                }
                // The parent splits at the neighbouring gap whose keys share the longer prefix: it is the lower
                // of the two nodes there (out of range counts as the shortest).
                let right_is_parent = first == 0 || (last < m - 1 && gap(last) > gap(first - 1));
                let (parent, side, far) = if right_is_parent { (last, 0, first) } else { (first - 1, 1, last) };
                let node = &pending[parent];
                node.sides[side].store(name, &b, h);
                let other = node.other.swap(far as u32, Ordering::AcqRel);
                if other == NONE {
                    return; // the sibling is not done; the task that finishes it goes on
                }
                if right_is_parent {
                    last = other as usize;
                } else {
                    first = other as usize;
                }
                let (_, sibling, sibling_height) = node.sides[1 - side].load();
                node.first.store(first as u32, Ordering::Relaxed);
                node.last.store(last as u32, Ordering::Relaxed);
                name = parent as u32;
                b = b.union(&sibling);
                h = 1 + h.max(sibling_height);
            }
        });
        bvh.root = self.root.load(Ordering::Relaxed);
        bvh.height = self.height.load(Ordering::Relaxed);
        // Two arrivals per node, each storing one side and swapping.
        Tally::work(2 * m as u64, (2 * m * size_of::<Pending>()) as u64)
    }

    /// Step 4: each node copied from the climb's atomics into its cache line; the exchange slots emptied.
    fn pack(&mut self, bvh: &mut FlatBvh, parallelism: Parallelism) -> Tally {
        let m = bvh.len;
        let pending = &self.pending;
        parallelism.for_each("lbvh_pack", m, &mut bvh.nodes, |s, node| {
            let p = &pending[s];
            let ((c0, b0, _), (c1, b1, _)) = (p.sides[0].load(), p.sides[1].load());
            let (first, last) = (p.first.load(Ordering::Relaxed), p.last.load(Ordering::Relaxed));
            *node = Inner { boxes: [b0, b1], child: [c0, c1], first, last };
            p.other.store(NONE, Ordering::Relaxed);
        });
        Tally::work(m as u64, (m * (size_of::<Inner>() + size_of::<Pending>())) as u64)
    }
}

#[cfg(test)]
mod tests;
