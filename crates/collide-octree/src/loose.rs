//! Loose octree: every body in exactly one node, chosen by its centre and size.
//!
//! A node's loose bound is its cell grown by `(looseness − 1)/2` of the edge on every side. A body goes down into
//! the child whose cell holds its centre when its box fits that child's loose bound, else it stays. Loose bounds
//! of siblings overlap, so two overlapping bodies may sit in unrelated nodes: the pair search is a query per
//! body from the root, visiting every node whose loose bound the body's box touches, and a pair is reported
//! by the body stored first (items are in node order) — each overlapping pair is tested from both sides but
//! written once. Every candidate passes the exact [`Aabb::overlaps`](collide_math::Aabb::overlaps) before it
//! is written.

use crate::tree::{ITEM_BYTES, Item, NODE_BYTES, NONE, Node, STACK, window};
use collide_broadphase::{Pair, Tally};

/// Pairs whose first-stored body is one of the items of `nodes[range]`. Work: the nodes each query visits.
pub(crate) fn self_pairs(nodes: &[Node], items: &[Item], range: std::ops::Range<usize>, out: &mut Vec<Pair>) -> Tally {
    let (mut tests, mut visited, mut queries) = (0, 0, 0);
    for node in &nodes[range] {
        for pos in node.start as usize..node.end as usize {
            tests += query(nodes, items, &items[pos], pos + 1, out, &mut visited);
            queries += 1;
        }
    }
    // Each visit reads the node and its children's loose bounds (in the same cache lines as the children).
    Tally { pair_tests: tests, work: queries + visited, bytes_touched: queries * ITEM_BYTES + visited * NODE_BYTES }
}

/// Test `q` against the stored bodies at positions `>= after` in every node whose loose bound `q` touches;
/// returns the tests, and counts the nodes visited in `visited`.
#[inline]
fn query(nodes: &[Node], items: &[Item], q: &Item, after: usize, out: &mut Vec<Pair>, visited: &mut u64) -> u64 {
    if nodes.is_empty() {
        return 0;
    }
    let (mut tests, mut pops) = (0, 0);
    let mut stack = [0u32; STACK];
    let mut sp = 1;
    while sp > 0 {
        sp -= 1;
        pops += 1;
        let node = &nodes[stack[sp] as usize];
        let w = window(node, items, q.aabb.min.x, q.aabb.max.x);
        let (from, end) = (w.start.max(after), w.end);
        if from < end {
            tests += (end - from) as u64;
            for t in &items[from..end] {
                if q.aabb.overlaps(&t.aabb) {
                    out.push(Pair::new(q.id, t.id));
                }
            }
        }
        if node.first_child != NONE {
            for k in 0..8 {
                let ci = node.first_child + k;
                if nodes[ci as usize].loose.overlaps(&q.aabb) {
                    stack[sp] = ci;
                    sp += 1;
                }
            }
        }
    }
    *visited += pops;
    tests
}
