//! The linear BVH's data: leaves in Morton order and the binary radix tree over them (Karras 2012), stored so
//! that a visit of a node reads one cache line — the node holds its two children's boxes.
//!
//! The binary radix tree over `m` sorted unique keys has `m − 1` inner nodes, one per gap between neighbouring
//! keys: the node of gap `s` (between positions `s` and `s + 1`) covers the largest range of positions around
//! the gap whose keys share a longer prefix than the two keys at the gap do, and it splits that range there —
//! children `first ..= s` and `s + 1 ..= last`, each an inner node or, when one position, that leaf. So node
//! `s` is numbered by its split, every node can be found from the keys alone (`karras.rs`), and a node knows its
//! children's ranges from its own (`first ..= s`, `s + 1 ..= last`), which lets the self-join treat a small
//! subtree as the run of sorted leaves it is (`traverse.rs`).
//! The root is the node of the gap whose keys share the shortest prefix.

use crate::morton;
use crate::refine::MAX_HEIGHT;
use collide_broadphase::{DebugBox, DebugGeometry};
use collide_math::Aabb;

/// Marks a child that is a leaf; the low bits are then its sorted position.
pub(crate) const LEAF: u32 = 1 << 31;

/// An inner node: its two children and their boxes, 64 bytes, one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Inner {
    /// The children's boxes: a leaf child's own box, an inner child's union of the leaf boxes it covers.
    pub boxes: [Aabb; 2],
    /// The children: an inner node's index, or a leaf's sorted position with [`LEAF`] set. Child 0 covers
    /// `first ..= s`, child 1 `s + 1 ..= last` of this node's range (`s` its index), so the two partition it.
    pub child: [u32; 2],
    /// The first sorted position the node covers.
    pub first: u32,
    /// The last sorted position the node covers.
    pub last: u32,
}

/// A linear BVH over the usable boxes of one frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlatBvh {
    /// One key per input box, `morton::key(code, item)`, by ascending code: the `len` usable boxes first, then the
    /// unusable ones (code `morton::UNUSABLE`). Unique, because the item index is part of the key. Equal codes are
    /// in index order, or in a long run in the order of the run's own sub-codes (`refine.rs`).
    pub keys: Vec<u64>,
    /// The usable boxes in key order: `leaf_boxes[k]` is the box of item `morton::key_index(keys[k])`.
    pub leaf_boxes: Vec<Aabb>,
    /// The `len − 1` inner nodes (none for fewer than two leaves), node `s` splitting at gap `s`; every leaf and
    /// every inner node but the root is the child of exactly one node.
    pub nodes: Vec<Inner>,
    /// The root: an inner node's index, or leaf 0 (`LEAF`) when there is one leaf.
    pub root: u32,
    /// The number of usable boxes (leaves).
    pub len: usize,
    /// The height of the tree: 0 for one leaf, 1 + the children's for an inner node.
    pub height: u32,
}

impl FlatBvh {
    /// Every inner node's box into `out`, the root at depth 0. Allocates nothing (the app draws it every frame):
    /// the depth-first stack is an array, which the tree's height — at most `refine::MAX_HEIGHT`, one level per
    /// bit of the composite keys — cannot overflow (a node is popped before its two children are pushed). O(n).
    pub(crate) fn debug_geometry(&self, out: &mut DebugGeometry) {
        let nodes = &self.nodes;
        if nodes.is_empty() {
            return;
        }
        let mut stack = [(0u32, 0u32); MAX_HEIGHT as usize + 2];
        let mut top = 1;
        stack[0] = (self.root, 0);
        let r = &nodes[self.root as usize];
        out.boxes.push(DebugBox { aabb: r.boxes[0].union(&r.boxes[1]), depth: 0 });
        while top > 0 {
            top -= 1;
            let (i, depth) = stack[top];
            let node = &nodes[i as usize];
            for c in 0..2 {
                if node.child[c] & LEAF == 0 {
                    out.boxes.push(DebugBox { aabb: node.boxes[c], depth: depth + 1 });
                    stack[top] = (node.child[c], depth + 1);
                    top += 1;
                }
            }
        }
    }

    /// The item (input index) of the leaf at sorted position `k`.
    #[inline(always)]
    #[must_use]
    pub(crate) fn item(&self, k: u32) -> u32 {
        morton::key_index(self.keys[k as usize])
    }

    /// Forget the tree (keeping the allocations).
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.leaf_boxes.clear();
        self.nodes.clear();
        self.len = 0;
        self.root = LEAF;
        self.height = 0;
    }

    /// Check every invariant: the keys sorted, unique, each item once, the usable items first; each node's
    /// children partitioning its range and their boxes the exact unions of the leaf boxes they cover; every leaf
    /// reached once; the height. With `boxes`, the input the tree was built from, also each leaf box against its
    /// item's box and the usable/unusable split against the boxes themselves.
    pub(crate) fn check(&self, boxes: Option<&[Aabb]>) -> Result<(), String> {
        let items = boxes.map_or(self.keys.len(), <[Aabb]>::len);
        if self.keys.len() != items {
            return Err(format!("{} keys for {items} boxes", self.keys.len()));
        }
        let mut seen = vec![false; items];
        // Codes ascend; within a run of equal codes the order may be refined (`refine.rs`), not by index.
        for (k, w) in self.keys.windows(2).enumerate() {
            if w[0] >> 32 > w[1] >> 32 {
                return Err(format!("keys {k} and {} out of order", k + 1));
            }
        }
        for (k, &key) in self.keys.iter().enumerate() {
            let item = morton::key_index(key) as usize;
            if std::mem::replace(seen.get_mut(item).ok_or(format!("key {k} names item {item} of {items}"))?, true) {
                return Err(format!("item {item} has two keys"));
            }
            let coded = (key >> 32) as u32 != morton::UNUSABLE;
            if coded != (k < self.len) {
                return Err(format!("item {item} (coded: {coded}) at position {k} of {} usable", self.len));
            }
            if let Some(boxes) = boxes {
                if crate::bounds::is_usable(&boxes[item]) != coded {
                    return Err(format!("item {item}'s box {:?} is coded {coded}", boxes[item]));
                }
                if coded && self.leaf_boxes[k] != boxes[item] {
                    return Err(format!("leaf {k} holds {:?}, item {item} is {:?}", self.leaf_boxes[k], boxes[item]));
                }
            }
        }
        if self.nodes.len() != self.len.saturating_sub(1) || self.leaf_boxes.len() != self.len {
            return Err(format!(
                "{} nodes and {} leaf boxes for {} leaves",
                self.nodes.len(),
                self.leaf_boxes.len(),
                self.len
            ));
        }
        if self.len < 2 {
            return if self.height == 0 { Ok(()) } else { Err(format!("height {} without nodes", self.height)) };
        }
        // Walk from the root with each node's expected range; a leaf must be met exactly at its position.
        let mut reached = vec![false; self.len];
        let mut stack = vec![(self.root, 0u32, self.len as u32 - 1, 0u32)];
        let mut height = 0;
        while let Some((i, first, last, depth)) = stack.pop() {
            let node = self.nodes.get(i as usize).ok_or(format!("inner child {i} out of range"))?;
            let split = i;
            let ranges = [(first, split), (split + 1, last)];
            if !(first <= split && split < last) || (node.first, node.last) != (first, last) {
                return Err(format!("node {i} covers {first}..={last}, records {}..={}", node.first, node.last));
            }
            for (c, &(lo, hi)) in ranges.iter().enumerate() {
                let union = self.leaf_boxes[lo as usize..=hi as usize].iter().fold(Aabb::EMPTY, |u, b| u.union(b));
                if node.boxes[c] != union {
                    return Err(format!("node {i} child {c} box {:?}, its leaves' union {union:?}", node.boxes[c]));
                }
                if node.child[c] & LEAF != 0 {
                    let k = node.child[c] & !LEAF;
                    if lo != hi || k != lo || std::mem::replace(&mut reached[k as usize], true) {
                        return Err(format!("node {i} child {c}: leaf {k} where {lo}..={hi} is covered"));
                    }
                    height = height.max(depth + 1);
                } else {
                    stack.push((node.child[c], lo, hi, depth + 1));
                }
            }
        }
        if let Some(k) = reached.iter().position(|&r| !r) {
            return Err(format!("leaf {k} is in no node"));
        }
        if height != self.height {
            return Err(format!("height {} recorded, {height} found", self.height));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
