//! The dynamic tree's refit path: for calls on which many bodies left their fat boxes, the leaves take their new
//! fat boxes where they are, the changed part of the tree is refitted bottom-up with rotations, and the pairs that
//! appear are found by one self-join of the tree restricted to the changed part — instead of a removal, a sibling
//! search and a query from the root for every moved body.
//!
//! **Why.** On rigid-body scenes (rapier's, baked) bodies move about their own width every few calls, so with
//! displacement-scaled fat boxes a fifth to a half of them leave their boxes each call: too many for one
//! re-insertion each (a few microseconds apiece at 10⁵ bodies, mostly cache misses of the descent), too few, and
//! too coherent, to throw the whole structure away as the bulk rebuild does. A moved body is still near its old
//! leaf, so its leaf can stay where it is; what the tree loses is a little quality, which the rotations and a
//! rebuild on degradation recover.
//!
//! **How** (per call, `m` moved leaves, `d` nodes above them, `h` the height):
//! 1. **mark** each moved leaf and its ancestors *dirty*, climbing until an ancestor is already marked —
//!    O(d) in all, each dirty node marked once;
//! 2. **refit** the dirty nodes children first (one post-order descent that enters dirty nodes only): each
//!    inner node's box and height recomputed from its children after trying Box2D v3's rotation there (Kopta et
//!    al. 2012, "Fast, effective BVH updates for animated scenes", rotate during the refit the same way: the
//!    refit is where the boxes change, so it is where a swap can pay) — O(d);
//! 3. **join** the tree with itself and the dynamic tree with the static one, entering only pairs of nodes of
//!    which at least one is dirty: a pair of clean subtrees holds no moved body, and the cache is already exact
//!    for it. A pair of leaves reached is new exactly when the two *old* fat boxes did not overlap (`cache.rs`).
//!    Where m is a large share of n this is about a self-join of the fat boxes less its clean part, with the
//!    upper levels shared by all the moved bodies instead of descended once per body — O(d + overlapping node
//!    pairs under dirty nodes);
//! 4. **clear** the flags (a memset of one byte per pool node).
//!
//! **Quality.** A refitted leaf keeps its place, so a scene that changes its arrangement (a pile falling) slowly
//! grows overlapping siblings. The rotations undo most of it locally; the SAH cost of the tree (the sum of its
//! inner nodes' areas over the root's, the expected number of nodes a small query opens) is measured after each
//! refit, and when it passes [`DEGRADE`] times its value after the last rebuild, the next call rebuilds.

use crate::bounds::area;
use crate::insert::Changes;
use crate::tree::{NONE, Tree};
use collide_broadphase::Tally;
use collide_math::Aabb;

/// The factor by which the SAH cost may grow over its value after the last rebuild before the next call
/// rebuilds instead of refitting.
pub(crate) const DEGRADE: f32 = 1.3;

impl Tree {
    /// Mark leaf `leaf` and its ancestors dirty, stopping at the first one already marked. `dirty` must have a
    /// flag per pool node ([`Tree::prepare_dirty`]).
    #[inline]
    pub(crate) fn mark_up(&mut self, mut i: u32) {
        while i != NONE && !self.dirty[i as usize] {
            self.dirty[i as usize] = true;
            i = self.nodes[i as usize].parent;
        }
    }

    /// One clear flag per pool node (the pool may have grown since the last refit; no allocation once warm).
    pub(crate) fn prepare_dirty(&mut self) {
        self.dirty.resize(self.nodes.len(), false);
    }

    /// Clear every flag.
    pub(crate) fn clear_dirty(&mut self) {
        self.dirty.fill(false);
    }

    /// Give leaf `leaf` the box `fat` in place, without fixing its ancestors: [`Tree::refit_dirty`] must follow,
    /// after [`Tree::mark_up`] of the leaf.
    #[inline]
    pub(crate) fn set_leaf_box(&mut self, leaf: u32, fat: Aabb) {
        self.nodes[leaf as usize].aabb = fat;
    }

    /// Recompute every dirty inner node's box and height from its children, children first, trying a rotation
    /// at each (the rotation keeps the flags exact: the node it changes takes its new children's). `stack` is the
    /// caller's. O(dirty nodes).
    pub(crate) fn refit_dirty(&mut self, stack: &mut Vec<(u32, bool)>, changes: &mut Changes) {
        if self.root == NONE || !self.dirty[self.root as usize] {
            return;
        }
        stack.clear();
        stack.push((self.root, false));
        while let Some((i, children_done)) = stack.pop() {
            let n = self.nodes[i as usize];
            if n.is_leaf() {
                continue;
            }
            if !children_done {
                stack.push((i, true));
                for c in n.child {
                    if self.dirty[c as usize] {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            changes.visited += 1;
            if self.rotate(i) {
                changes.rotations += 1;
                // The child that changed took a grandchild and gave one away: its flag is its children's.
                for c in self.nodes[i as usize].child {
                    let cn = self.nodes[c as usize];
                    if !cn.is_leaf() {
                        self.dirty[c as usize] = self.dirty[cn.child[0] as usize] | self.dirty[cn.child[1] as usize];
                    }
                }
            }
            self.fit_to_children(i);
        }
    }

    /// The SAH cost of the tree: the sum of the inner nodes' areas over the root's (the expected number of inner
    /// nodes a small query opens, up to a constant). 0 for a tree of fewer than two leaves, or a flat root. One
    /// pass over the pool, O(nodes).
    #[must_use]
    pub(crate) fn sah_cost(&self) -> f32 {
        if self.leaves < 2 {
            return 0.0;
        }
        let sum: f32 = self.nodes.iter().filter(|n| !n.is_free() && !n.is_leaf()).map(|n| area(&n.aabb)).sum();
        let root = area(&self.nodes[self.root as usize].aabb);
        if root > 0.0 && sum.is_finite() { sum / root } else { 0.0 }
    }
}

/// What a restricted join calls for each pair of leaves whose boxes overlap, at least one of them dirty: the two
/// bodies and the two leaves' boxes.
pub(crate) trait LeafPairs {
    fn pair(&mut self, a: u32, fat_a: &Aabb, b: u32, fat_b: &Aabb);
}

/// Every pair of overlapping leaves of `t` with at least one dirty leaf, each once, to `sink`. Pairs of nodes
/// are entered only when they overlap and one of them is dirty; a node pair is split at the larger (by area)
/// inner node. `stack` is the caller's. Returns leaf tests as `pair_tests`, node pairs opened as `work`.
pub(crate) fn dirty_self_pairs(t: &Tree, stack: &mut Vec<(u32, u32)>, sink: &mut impl LeafPairs) -> Tally {
    let mut tally = Tally::default();
    if t.root == NONE || !t.dirty[t.root as usize] {
        return tally;
    }
    let (nodes, dirty) = (&t.nodes, &t.dirty);
    stack.clear();
    stack.push((t.root, t.root));
    while let Some((a, b)) = stack.pop() {
        tally.work += 1;
        if a == b {
            // A subtree against itself: each dirty child against itself, and the children against each other.
            let n = &nodes[a as usize];
            if n.is_leaf() {
                continue;
            }
            let [c0, c1] = n.child;
            let (d0, d1) = (dirty[c0 as usize], dirty[c1 as usize]);
            if d0 {
                stack.push((c0, c0));
            }
            if d1 {
                stack.push((c1, c1));
            }
            if nodes[c0 as usize].aabb.overlaps(&nodes[c1 as usize].aabb) {
                stack.push((c0, c1));
            }
            continue;
        }
        cross_step(t, a, t, b, stack, sink, &mut tally);
    }
    tally
}

/// Every pair of overlapping leaves, one of `a` and one of `b`, with at least one dirty leaf, to `sink` (the
/// dynamic tree against the static one). As [`dirty_self_pairs`].
pub(crate) fn dirty_cross_pairs(ta: &Tree, tb: &Tree, stack: &mut Vec<(u32, u32)>, sink: &mut impl LeafPairs) -> Tally {
    let mut tally = Tally::default();
    if ta.root == NONE || tb.root == NONE {
        return tally;
    }
    let (ra, rb) = (ta.root, tb.root);
    stack.clear();
    stack.push((ra, rb));
    while let Some((a, b)) = stack.pop() {
        tally.work += 1;
        cross_step(ta, a, tb, b, stack, sink, &mut tally);
    }
    tally
}

/// One step of a cross descent: node `a` of `ta` against node `b` of `tb`. Both leaves: the pair goes to `sink`
/// when the boxes overlap and one is dirty. Else the larger inner node is split, and each child pair that
/// overlaps and has a dirty side is pushed.
#[inline]
fn cross_step(
    ta: &Tree,
    a: u32,
    tb: &Tree,
    b: u32,
    stack: &mut Vec<(u32, u32)>,
    sink: &mut impl LeafPairs,
    tally: &mut Tally,
) {
    let (na, nb) = (&ta.nodes[a as usize], &tb.nodes[b as usize]);
    let (da, db) = (ta.dirty[a as usize], tb.dirty[b as usize]);
    if !(da || db) || !na.aabb.overlaps(&nb.aabb) {
        return;
    }
    match (na.is_leaf(), nb.is_leaf()) {
        (true, true) => {
            tally.pair_tests += 1;
            sink.pair(na.body(), &na.aabb, nb.body(), &nb.aabb);
        }
        (false, true) => {
            for c in na.child {
                stack.push((c, b));
            }
        }
        (true, false) => {
            for c in nb.child {
                stack.push((a, c));
            }
        }
        (false, false) => {
            if area(&na.aabb) >= area(&nb.aabb) {
                for c in na.child {
                    stack.push((c, b));
                }
            } else {
                for c in nb.child {
                    stack.push((a, c));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
