//! Octree with duplicates: the pair search in the leaves, each pair reported once by the min-corner rule.
//!
//! A body is stored in every leaf its box touches, so two overlapping bodies may meet in several leaves. The
//! pair is reported only in the leaf whose half-open membership cell holds the min corner of the two boxes'
//! intersection ([`owner_point`]): that point lies in both boxes, and the membership cells partition space, so
//! exactly one leaf owns it, and that leaf stores both boxes (a box is inserted into every child whose
//! half-open cell it touches, see [`child_mask`](crate::tree::child_mask)). No hash set, no sort: one comparison
//! per overlapping pair (see `collide_broadphase::ownership`).

use crate::tree::{ITEM_BYTES, Item, NODE_BYTES, Node};
use collide_broadphase::ownership::owner_point;
use collide_broadphase::{Pair, Tally};

/// Pairs of the leaves among `nodes[range]`. O(Σ m²) for leaf loads m.
pub(crate) fn self_pairs(nodes: &[Node], items: &[Item], range: std::ops::Range<usize>, out: &mut Vec<Pair>) -> Tally {
    let (visited, mut read, mut tests) = (range.len() as u64, 0, 0);
    for node in &nodes[range] {
        if node.is_leaf() {
            read += u64::from(node.end - node.start);
            tests += leaf_pairs(node, &items[node.start as usize..node.end as usize], out);
        }
    }
    Tally { pair_tests: tests, work: visited + read, bytes_touched: visited * NODE_BYTES + read * ITEM_BYTES }
}

#[inline]
fn leaf_pairs(node: &Node, own: &[Item], out: &mut Vec<Pair>) -> u64 {
    // Items are sorted by min.x: a sweep, stopping at the first item that starts right of `a`.
    let mut tests = 0;
    for (i, a) in own.iter().enumerate() {
        for b in &own[i + 1..] {
            if b.aabb.min.x > a.aabb.max.x {
                break;
            }
            tests += 1;
            if a.aabb.overlaps(&b.aabb) && node.owns_point(owner_point(a.aabb.min, b.aabb.min)) {
                out.push(Pair::new(a.id, b.id));
            }
        }
    }
    tests
}
