//! The dynamic tree's streaming mode, for runs of calls on which most bodies leave their fat boxes: a linear BVH
//! over the exact boxes, built once and then refitted bottom-up each call, and joined with itself for the exact
//! answer — no fat boxes, no pool trees, no pair cache.
//!
//! **Why.** Where most bodies leave their fat boxes every call (a rigid-body pile falling or stirred, rapier's
//! scenes: bodies move about their own width every few calls), the persistent structures cost more than they
//! save: the bulk rebuild builds a linear BVH, joins it, converts it to pool trees and sorts the cache, and the
//! next call walks that cache only to rebuild again. Profiled on a baked rapier pile of 10⁴ bodies, the join was
//! half of such a call and the build, the conversion, the cache's sort and its walk the other half. Here a call
//! is one bottom-up refit of the last tree with this call's boxes (the topology kept: bodies that move a fraction
//! of their size stay near their Morton neighbours) and the join; the tree is rebuilt when its SAH cost has
//! grown past [`DEGRADE`] times its value after the last build, or when the set of usable boxes changes.
//!
//! **Leaving.** With the motion hint, a call on which at most `rebuild_share` of the boxes changed goes back to the
//! incremental structures (rebuilt from scratch: the scene came to rest); without it, or while most boxes keep
//! changing, every [`PROBE`] calls the incremental structures are tried again (two bulk rebuilds: the first
//! learns the speeds), and the scans of the following calls decide. A try that ends back here within
//! [`PROBE_FAILED`] calls doubles the wait for the next one, up to [`PROBE_MAX`] calls.
//!
//! **Complexity.** A refit: O(n), a gather of the boxes in tree order and one pass over the inner nodes children
//! first, both parallel: the pass is cut into subtrees of at most [`REFIT_CUT`] leaves (a subtree's inner nodes
//! are a contiguous range of the node array, so the pieces write disjoint slices), grouped into at most
//! [`REFIT_TASKS`] tasks, then the few nodes above them on this thread. On rapier's Brownian crowd of 10⁴ bodies
//! the serial refit was 120–135 µs of a 740 µs call on two threads, the join the rest; in parallel it is 88 µs.
//! The join: as `lbvh`'s, O(n + k) for small uniform bodies. A rebuild: `lbvh`'s build. Memory: `lbvh`'s, plus
//! 4 bytes per inner node for the refit order and 12 bytes per piece.

use crate::bounds::{area, is_usable};
use crate::flat::{FlatBvh, Inner, LEAF};
use crate::karras::Builder;
use crate::traverse::{self, JoinScratch, Task};
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{Pair, Parallelism, Tally};
use collide_math::Aabb;
use std::sync::atomic::{AtomicBool, Ordering};

/// The factor by which the refitted tree's SAH cost may grow over its value after the last build.
pub(crate) const DEGRADE: f32 = 1.1;

/// Calls in streaming mode after which the incremental structures are tried again.
pub(crate) const PROBE: u32 = 64;

/// The most calls between two tries of the incremental structures.
pub(crate) const PROBE_MAX: u32 = 1024;

/// A try of the incremental structures that ends back in streaming mode within this many calls failed.
pub(crate) const PROBE_FAILED: u32 = 8;

/// The refit's pieces: subtrees of at most this many leaves, each refitted by one task.
pub(crate) const REFIT_CUT: u32 = 512;

/// The leaves of a refit piece at most: [`REFIT_CUT`], lowered by tests so that small trees have many pieces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefitCut(pub u32);

impl Default for RefitCut {
    fn default() -> Self {
        Self(REFIT_CUT)
    }
}

/// The most tasks a refit's pieces are grouped into (consecutive pieces together): the grouping, and so the
/// order in which the SAH cost is summed, depends on the tree alone, not on the threads.
const REFIT_TASKS: usize = 64;

/// Leaves per task of the self-join, as `lbvh`'s. (512 was tried, for more tasks to balance two loaded threads:
/// no difference beyond the noise, and the per-task outputs kept growing after warm-up — allocations in the warm
/// reorder tests.)
const JOIN_TASK_LEAVES: u32 = 2048;

/// The streaming mode's state, kept across calls (no allocation once warm).
#[derive(Debug, Default)]
pub(crate) struct Stream {
    /// Whether the mode is on: `bvh` holds the last call's tree.
    pub active: bool,
    /// Calls since the mode was entered.
    pub calls: u32,
    bvh: FlatBvh,
    builder: Builder,
    /// The inner nodes of the refit's pieces, each piece's children before parents and the pieces in leaf order:
    /// the refit's order. Valid for `bvh`'s topology.
    order: Vec<u32>,
    /// The pieces: each one's first and last leaf, and its nodes' range in `order`.
    pieces: Vec<Piece>,
    /// The inner nodes above the pieces, children before parents.
    top: Vec<u32>,
    /// The most leaves of a piece.
    pub cut: RefitCut,
    stack: Vec<(u32, bool)>,
    tasks: Vec<Task>,
    pending: Vec<Task>,
    join: PairChunks<JoinScratch>,
    /// The SAH cost after the last build.
    baseline: f32,
    /// What the last call did: rebuilt (else refitted), and the tree's SAH cost.
    pub rebuilt: bool,
    pub cost: f32,
}

impl Stream {
    /// Leave the mode (keeping the allocations).
    pub(crate) fn stop(&mut self) {
        self.active = false;
        self.calls = 0;
        self.bvh.clear();
        self.order.clear();
        self.pieces.clear();
        self.top.clear();
    }

    /// Renumber the bodies by a permutation (`old_to_new`): each key names its item anew, the tree stays as it is.
    /// O(n), no allocation. The keys within a run of equal codes are then no longer in index order, which nothing
    /// reads: the refit finds each leaf's box through its key, and the next build sorts afresh.
    pub(crate) fn permute(&mut self, old_to_new: &[u32]) {
        for key in &mut self.bvh.keys {
            let item = crate::morton::key_index(*key) as usize;
            *key = (*key & !0xFFFF_FFFF) | u64::from(old_to_new[item]);
        }
    }

    /// Every inner node's box, the root at depth 0, without allocating ([`FlatBvh::debug_geometry`]); nothing
    /// when the mode is off.
    pub(crate) fn debug_geometry(&self, out: &mut collide_broadphase::DebugGeometry) {
        if self.active {
            self.bvh.debug_geometry(out);
        }
    }

    /// Check the tree (every node's boxes the exact unions of its leaves', the keys and leaves consistent).
    pub(crate) fn check(&self) -> Result<(), String> {
        if !self.active {
            return Ok(());
        }
        self.bvh.check(None).map_err(|e| format!("streaming tree: {e}"))?;
        if self.order.len() + self.top.len() != self.bvh.nodes.len() {
            return Err(format!(
                "{} + {} nodes in the refit order, {} in the tree",
                self.order.len(),
                self.top.len(),
                self.bvh.nodes.len()
            ));
        }
        let mut next_leaf = 0;
        for p in &self.pieces {
            let root = &self.bvh.nodes[self.order[p.nodes.end as usize - 1] as usize];
            if (root.first, root.last) != (p.first, p.last) || p.first < next_leaf || p.last - p.first >= self.cut.0 {
                return Err(format!("refit piece {p:?} rooted at a node of {}..={}", root.first, root.last));
            }
            if p.nodes.len() != (p.last - p.first) as usize {
                return Err(format!("refit piece {p:?}: {} nodes for {} leaves", p.nodes.len(), p.last - p.first + 1));
            }
            next_leaf = p.last + 1;
        }
        Ok(())
    }

    /// One call: the tree refitted to `aabbs` (or rebuilt, see the module docs), and every overlapping pair of
    /// usable boxes appended to `out`. Unusable boxes must have been reported by the caller.
    pub(crate) fn run(&mut self, aabbs: &[Aabb], parallelism: Parallelism, out: &mut Vec<Pair>) -> Tally {
        let mut tally = Tally::default();
        let refitted =
            self.active && self.cost <= DEGRADE * self.baseline && self.refit(aabbs, parallelism, &mut tally);
        if !refitted {
            tally += self.builder.build(&mut self.bvh, aabbs, parallelism);
            self.order_nodes();
            self.cost = self.measure();
            self.baseline = self.cost;
        }
        self.rebuilt = !refitted;
        self.active = true;
        self.calls += 1;
        traverse::plan(&self.bvh, JOIN_TASK_LEAVES, &mut self.pending, &mut self.tasks);
        tally + traverse::self_pairs(&self.bvh, |item| item, &self.tasks, &mut self.join, parallelism, out)
    }

    /// Refit the tree to `aabbs` and measure its cost. `false`, with the tree unusable, when the boxes no longer fit
    /// it: another count, or a box that became unusable or usable.
    fn refit(&mut self, aabbs: &[Aabb], parallelism: Parallelism, tally: &mut Tally) -> bool {
        let bvh = &mut self.bvh;
        if bvh.keys.len() != aabbs.len() {
            return false;
        }
        let m = bvh.len;
        let unusable = AtomicBool::new(false);
        let keys = &bvh.keys;
        parallelism.for_each("bvh_stream_gather", m, &mut bvh.leaf_boxes[..m], |k, leaf| {
            *leaf = aabbs[crate::morton::key_index(keys[k]) as usize];
            if !is_usable(leaf) {
                unusable.store(true, Ordering::Relaxed);
            }
        });
        // The items left out of the tree must still be unusable.
        if unusable.into_inner()
            || bvh.keys[m..].iter().any(|&key| is_usable(&aabbs[crate::morton::key_index(key) as usize]))
        {
            return false;
        }
        // The pieces in parallel, each task on its own slice of the node array (a subtree over leaves
        // `first..=last` owns nodes `first..last`); then the nodes above them.
        let tasks = self.pieces.len().min(REFIT_TASKS);
        let mut slices: [RefitTask<'_>; REFIT_TASKS] = std::array::from_fn(|_| RefitTask::default());
        let (mut rest, mut at) = (&mut bvh.nodes[..], 0);
        for (t, task) in slices[..tasks].iter_mut().enumerate() {
            let pieces = t * self.pieces.len() / tasks..(t + 1) * self.pieces.len() / tasks;
            let (first, last) = (self.pieces[pieces.start].first as usize, self.pieces[pieces.end - 1].last as usize);
            let (mine, after) = std::mem::take(&mut rest)[first - at..].split_at_mut(last - first);
            (rest, at) = (after, last);
            *task = RefitTask { nodes: mine, base: first, pieces, sum: 0.0 };
        }
        let (leaf_boxes, order, pieces) = (&bvh.leaf_boxes, &self.order, &self.pieces);
        parallelism.for_each("bvh_stream_refit", m, &mut slices[..tasks], |_, task| {
            for p in &pieces[task.pieces.clone()] {
                task.sum += refit_nodes(
                    task.nodes,
                    task.base,
                    &order[p.nodes.start as usize..p.nodes.end as usize],
                    leaf_boxes,
                );
            }
        });
        let sum =
            slices[..tasks].iter().map(|t| t.sum).sum::<f32>() + refit_nodes(&mut bvh.nodes, 0, &self.top, leaf_boxes);
        self.cost = self.normalise(sum);
        let nodes = self.order.len() + self.top.len();
        *tally += Tally::work((m + nodes) as u64, (m * 32 + nodes * 64) as u64);
        true
    }

    /// The refit order of the current tree: its pieces (subtrees of at most `cut` leaves whose parent
    /// covers more), each children first, and the nodes above them, children first. O(nodes).
    fn order_nodes(&mut self) {
        self.order.clear();
        self.pieces.clear();
        self.top.clear();
        if self.bvh.nodes.is_empty() {
            return;
        }
        let nodes = &self.bvh.nodes;
        self.stack.clear();
        self.stack.push((self.bvh.root, false));
        // Depth first, left child first: the pieces come in leaf order.
        while let Some((i, done)) = self.stack.pop() {
            let n = &nodes[i as usize];
            if done {
                self.top.push(i);
                continue;
            }
            if n.last - n.first < self.cut.0 {
                let start = self.order.len() as u32;
                post_order(nodes, i, &mut self.order);
                self.pieces.push(Piece { first: n.first, last: n.last, nodes: start..self.order.len() as u32 });
                continue;
            }
            self.stack.push((i, true));
            for c in n.child.into_iter().rev() {
                if c & LEAF == 0 {
                    self.stack.push((c, false));
                }
            }
        }
    }

    /// The SAH cost of the current tree (see [`Stream::normalise`]). O(nodes).
    fn measure(&self) -> f32 {
        let sum = self.bvh.nodes.iter().map(|n| area(&n.boxes[0].union(&n.boxes[1]))).sum();
        self.normalise(sum)
    }

    /// The sum of the inner nodes' areas over the root's: the expected number of inner nodes a small query opens,
    /// up to a constant. 0 for fewer than two leaves, a flat root or an overflow.
    fn normalise(&self, sum: f32) -> f32 {
        let Some(root) = self.bvh.nodes.get(self.bvh.root as usize).filter(|_| self.bvh.len > 1) else {
            return 0.0;
        };
        let root = area(&root.boxes[0].union(&root.boxes[1]));
        if root > 0.0 && sum.is_finite() { sum / root } else { 0.0 }
    }
}

/// One of a refit's pieces: the subtree over leaves `first..=last`, whose inner nodes are `order[nodes]`.
#[derive(Clone, Debug)]
struct Piece {
    first: u32,
    last: u32,
    nodes: std::ops::Range<u32>,
}

/// A task of the parallel refit: consecutive pieces, the slice of the node array they own (node `base` first), and
/// the sum of their nodes' areas.
#[derive(Debug, Default)]
struct RefitTask<'a> {
    nodes: &'a mut [Inner],
    base: usize,
    pieces: std::ops::Range<usize>,
    sum: f32,
}

/// Refit the nodes `order` (children before parents) of `nodes`, a slice of the node array from node `base` that
/// holds them and every inner child they have; returns the sum of their areas.
fn refit_nodes(nodes: &mut [Inner], base: usize, order: &[u32], leaf_boxes: &[Aabb]) -> f32 {
    let mut sum = 0.0;
    for &s in order {
        let child = nodes[s as usize - base].child;
        let mut boxes = [Aabb::EMPTY; 2];
        for c in 0..2 {
            boxes[c] = if child[c] & LEAF != 0 {
                leaf_boxes[(child[c] & !LEAF) as usize]
            } else {
                let n = &nodes[child[c] as usize - base];
                n.boxes[0].union(&n.boxes[1])
            };
        }
        sum += area(&boxes[0].union(&boxes[1]));
        nodes[s as usize - base].boxes = boxes;
    }
    sum
}

/// Append the inner nodes of the subtree at inner node `root` to `out`, children before parents. Recursion depth:
/// the subtree's height, at most `refine::MAX_HEIGHT`.
fn post_order(nodes: &[Inner], root: u32, out: &mut Vec<u32>) {
    for c in nodes[root as usize].child {
        if c & LEAF == 0 {
            post_order(nodes, c, out);
        }
    }
    out.push(root);
}

#[cfg(test)]
mod tests;
