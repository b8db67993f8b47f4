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
//! first. The join: as `lbvh`'s, O(n + k) for small uniform bodies. A rebuild: `lbvh`'s build. Memory: `lbvh`'s,
//! plus 4 bytes per inner node for the refit order.

use crate::bounds::{area, is_usable};
use crate::flat::{FlatBvh, LEAF};
use crate::karras::Builder;
use crate::traverse::{self, JoinScratch, Task};
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{Pair, Parallelism, Tally};
use collide_math::Aabb;

/// The factor by which the refitted tree's SAH cost may grow over its value after the last build.
pub(crate) const DEGRADE: f32 = 1.1;

/// Calls in streaming mode after which the incremental structures are tried again.
pub(crate) const PROBE: u32 = 64;

/// The most calls between two tries of the incremental structures.
pub(crate) const PROBE_MAX: u32 = 1024;

/// A try of the incremental structures that ends back in streaming mode within this many calls failed.
pub(crate) const PROBE_FAILED: u32 = 8;

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
    /// The inner nodes, children before parents: the refit's order. Valid for `bvh`'s topology.
    order: Vec<u32>,
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
        if self.order.len() != self.bvh.nodes.len() {
            return Err(format!("{} nodes in the refit order, {} in the tree", self.order.len(), self.bvh.nodes.len()));
        }
        Ok(())
    }

    /// One call: the tree refitted to `aabbs` (or rebuilt, see the module docs), and every overlapping pair of
    /// usable boxes appended to `out`. Unusable boxes must have been reported by the caller.
    pub(crate) fn run(&mut self, aabbs: &[Aabb], parallelism: Parallelism, out: &mut Vec<Pair>) -> Tally {
        let mut tally = Tally::default();
        let refitted = self.active && self.cost <= DEGRADE * self.baseline && self.refit(aabbs, &mut tally);
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
    fn refit(&mut self, aabbs: &[Aabb], tally: &mut Tally) -> bool {
        let bvh = &mut self.bvh;
        if bvh.keys.len() != aabbs.len() {
            return false;
        }
        let m = bvh.len;
        for k in 0..m {
            let b = aabbs[crate::morton::key_index(bvh.keys[k]) as usize];
            if !is_usable(&b) {
                return false;
            }
            bvh.leaf_boxes[k] = b;
        }
        // The items left out of the tree must still be unusable.
        if bvh.keys[m..].iter().any(|&key| is_usable(&aabbs[crate::morton::key_index(key) as usize])) {
            return false;
        }
        let mut sum = 0.0;
        for &s in &self.order {
            let child = bvh.nodes[s as usize].child;
            let mut boxes = [Aabb::EMPTY; 2];
            for c in 0..2 {
                boxes[c] = if child[c] & LEAF != 0 {
                    bvh.leaf_boxes[(child[c] & !LEAF) as usize]
                } else {
                    let n = &bvh.nodes[child[c] as usize];
                    n.boxes[0].union(&n.boxes[1])
                };
            }
            sum += area(&boxes[0].union(&boxes[1]));
            bvh.nodes[s as usize].boxes = boxes;
        }
        self.cost = self.normalise(sum);
        *tally += Tally::work((m + self.order.len()) as u64, (m * 32 + self.order.len() * 64) as u64);
        true
    }

    /// The refit order of the current tree: inner nodes, children before parents. O(nodes).
    fn order_nodes(&mut self) {
        self.order.clear();
        if self.bvh.nodes.is_empty() {
            return;
        }
        self.stack.clear();
        self.stack.push((self.bvh.root, false));
        while let Some((i, done)) = self.stack.pop() {
            if done {
                self.order.push(i);
                continue;
            }
            self.stack.push((i, true));
            for c in self.bvh.nodes[i as usize].child {
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

#[cfg(test)]
mod tests;
