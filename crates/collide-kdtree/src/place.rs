//! Kernel: where a body belongs. Every body is stored in exactly one node, the one a descent from the root by
//! [`Node::side`] stops at — the deepest node whose plane it straddles, or the leaf whose region holds it. That
//! node depends only on the planes and the box, never on history, so the tree after any sequence of frames holds
//! each body where a fresh placement would, and `validate` can check it.
//!
//! Bodies move a little between frames, so the search starts at the node a body was in: [`place`] climbs while
//! the box has left the node's region, then descends. Climbing to the first ancestor whose region holds the box
//! and descending from there gives the root's answer: every node above that ancestor sends the box towards it,
//! since the box lies inside the ancestor's region and so on one side of each plane above. A body that stayed
//! where it was costs one region test and one side test.

use crate::tree::{Node, Side};
use collide_math::Aabb;

/// The node that holds `b`, searching from `from` (any node; the node the body was in last frame is the fast
/// start). `b` must be finite ([`crate::tree::is_valid`]): the root's infinite region then holds it.
#[inline]
pub(crate) fn place(nodes: &[Node], from: u32, b: &Aabb) -> u32 {
    let mut i = from;
    while !nodes[i as usize].fits(b) && i != 0 {
        i = nodes[i as usize].parent;
    }
    descend(nodes, i, b)
}

/// The node under `from` (inclusive) whose plane `b` straddles, or the leaf `b` reaches.
#[inline]
pub(crate) fn descend(nodes: &[Node], from: u32, b: &Aabb) -> u32 {
    let mut i = from;
    loop {
        let node = &nodes[i as usize];
        if node.is_leaf() {
            return i;
        }
        i = match node.side(b) {
            Side::Left => i + 1,
            Side::Right => node.right,
            Side::Stay => return i,
        };
    }
}

#[cfg(test)]
mod tests;
