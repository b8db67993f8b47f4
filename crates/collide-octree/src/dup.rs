//! Octree with duplicates: pair search in the leaves, each pair reported once by the min-corner rule.
//!
//! A body is stored in every leaf its box touches, so two overlapping bodies may meet in several leaves. The
//! pair is reported only in the leaf whose half-open membership cell holds `max(a.min, b.min)`, the min corner
//! of the boxes' intersection. That point lies in both boxes, and the membership cells partition space, so
//! exactly one leaf owns it, and that leaf stores both boxes (a box is inserted into every child whose
//! half-open cell it touches, see [`child_mask`]). No hash set, no sort: one comparison per overlapping pair.

use crate::tree::{Item, NONE, Node, STACK, child_mask, window};
use collide_broadphase::Pair;

/// Pairs of the leaves among `nodes[range]`; returns the box tests made. O(Σ m²) for leaf loads m.
pub(crate) fn self_pairs(nodes: &[Node], items: &[Item], range: std::ops::Range<usize>, out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    for node in &nodes[range] {
        if node.is_leaf() {
            tests += leaf_pairs(node, &items[node.start as usize..node.end as usize], out);
        }
    }
    tests
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
            if a.aabb.overlaps(&b.aabb) && node.owns_point(a.aabb.min.max(b.aabb.min)) {
                out.push(Pair::new(a.id, b.id));
            }
        }
    }
    tests
}

/// Pairs of `q` with the live bodies of a dup tree (`live[id]`): the leaves `q` touches, same min-corner rule.
/// O(depth + leaves touched · leaf load) expected.
pub(crate) fn query(nodes: &[Node], items: &[Item], q: &Item, live: &[bool], out: &mut Vec<Pair>) -> u64 {
    if nodes.is_empty() {
        return 0;
    }
    let mut tests = 0;
    let mut stack = [0u32; STACK];
    let mut sp = 1;
    while sp > 0 {
        sp -= 1;
        let node = &nodes[stack[sp] as usize];
        if node.first_child == NONE {
            let own = &items[window(node, items, q.aabb.min.x, q.aabb.max.x)];
            tests += own.len() as u64;
            for t in own {
                if q.aabb.overlaps(&t.aabb) && live[t.id as usize] && node.owns_point(q.aabb.min.max(t.aabb.min)) {
                    out.push(Pair::new(q.id, t.id));
                }
            }
        } else {
            let mut m = child_mask(q.aabb.min, q.aabb.max, node.c);
            while m != 0 {
                stack[sp] = node.first_child + m.trailing_zeros();
                sp += 1;
                m &= m - 1;
            }
        }
    }
    tests
}
