//! Octree without duplicates: a body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The subtree walk of a straddler visits only the children its box
//! touches ([`child_mask`]), which is what keeps the root's straddlers from costing O(n) each.

use crate::tree::{Item, NONE, Node, STACK, child_mask, window};
use collide_broadphase::Pair;

/// Pairs found at the nodes `nodes[range]` (their own bodies among themselves and against their subtrees).
pub(crate) fn self_pairs(nodes: &[Node], items: &[Item], range: std::ops::Range<usize>, out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    for node in &nodes[range] {
        let own = &items[node.start as usize..node.end as usize];
        for (i, a) in own.iter().enumerate() {
            // Own items are sorted by min.x: sweep until the first that starts right of `a`.
            for b in &own[i + 1..] {
                if b.aabb.min.x > a.aabb.max.x {
                    break;
                }
                tests += 1;
                if a.aabb.overlaps(&b.aabb) {
                    out.push(Pair::new(a.id, b.id));
                }
            }
            if node.first_child != NONE {
                tests += descend(nodes, items, node, a, None, out);
            }
        }
    }
    tests
}

/// Test `q` against the bodies of `from`'s strict subtree whose cells it touches; `live` filters stored bodies
/// (the static tree's moved ones).
#[inline]
fn descend(nodes: &[Node], items: &[Item], from: &Node, q: &Item, live: Option<&[bool]>, out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    let mut stack = [0u32; STACK];
    let mut sp = 0;
    let push_children = |node: &Node, stack: &mut [u32; STACK], sp: &mut usize| {
        let mut m = child_mask(q.aabb.min, q.aabb.max, node.c);
        while m != 0 {
            stack[*sp] = node.first_child + m.trailing_zeros();
            *sp += 1;
            m &= m - 1;
        }
    };
    push_children(from, &mut stack, &mut sp);
    while sp > 0 {
        sp -= 1;
        let node = &nodes[stack[sp] as usize];
        if node.end > node.start {
            let own = &items[window(node, items, q.aabb.min.x, q.aabb.max.x)];
            tests += own.len() as u64;
            for t in own {
                if q.aabb.overlaps(&t.aabb) && live.is_none_or(|l| l[t.id as usize]) {
                    out.push(Pair::new(q.id, t.id));
                }
            }
        }
        if node.first_child != NONE {
            push_children(node, &mut stack, &mut sp);
        }
    }
    tests
}

/// Pairs of `q` with the live bodies of a nodup tree: the root's bodies, then the walk down the cells `q`
/// touches. O(depth + bodies in the visited nodes).
pub(crate) fn query(nodes: &[Node], items: &[Item], q: &Item, live: &[bool], out: &mut Vec<Pair>) -> u64 {
    let Some(root) = nodes.first() else { return 0 };
    let own = &items[window(root, items, q.aabb.min.x, q.aabb.max.x)];
    let mut tests = own.len() as u64;
    for t in own {
        if q.aabb.overlaps(&t.aabb) && live[t.id as usize] {
            out.push(Pair::new(q.id, t.id));
        }
    }
    if root.first_child != NONE {
        tests += descend(nodes, items, root, q, Some(live), out);
    }
    tests
}
