//! `validate()`: the invariants of the tree, checked after every frame by the conformance kit. O(n + nodes);
//! allocates (a test-time tool, never called in the hot path). It reads the three arrays and the body lists, not
//! the `KdTree` that holds them, so that it sits below the public type.

use crate::tree::Item;
use crate::tree::{NONE, Node, Side, Span, is_valid};

/// What `validate` reads.
pub(crate) struct TreeView<'a> {
    pub nodes: &'a [Node],
    pub spans: &'a [Span],
    pub items: &'a [Item],
    /// The body count.
    pub bodies: usize,
    /// Bodies left out for an invalid box.
    pub excluded: &'a [u32],
    /// Bodies waiting to be placed (added by a resize since the last frame).
    pub pending: &'a [u32],
    pub max_depth: u32,
}

/// Check every invariant; the message names the first one broken.
pub(crate) fn validate(t: &TreeView<'_>) -> Result<(), String> {
    let root = t.nodes.first().ok_or("no root")?;
    if root.parent != NONE || root.depth != 0 || root.end as usize != t.nodes.len() {
        return Err(format!("the root is not a root: {root:?} of {} nodes", t.nodes.len()));
    }
    if root.lo != Node::root().lo || root.hi != Node::root().hi {
        return Err(format!("the root's region is {:?}..{:?}, not all space", root.lo, root.hi));
    }
    for i in 0..t.nodes.len() {
        check_links(t.nodes, i, t.max_depth)?;
    }
    check_spans(t)?;
    let mut seen = vec![0u8; t.bodies];
    for (n, node) in t.nodes.iter().enumerate() {
        let own = &t.items[t.spans[n].own()];
        for it in own {
            check_item(node, n, it, t.bodies)?;
            let slot = &mut seen[it.id as usize];
            *slot += 1;
            if *slot > 1 {
                return Err(format!("body {} is stored twice", it.id));
            }
        }
        let s = usize::from(node.sweep);
        if let Some(w) = own.windows(2).find(|w| w[0].aabb.min[s] > w[1].aabb.min[s]) {
            return Err(format!("node {n}'s items are not sorted on axis {s}: {} before {}", w[0].id, w[1].id));
        }
    }
    for (&id, what) in t.excluded.iter().map(|id| (id, "excluded")).chain(t.pending.iter().map(|id| (id, "pending"))) {
        let slot = seen.get_mut(id as usize).ok_or_else(|| format!("{what} body {id} of {}", t.bodies))?;
        if *slot != 0 {
            return Err(format!("{what} body {id} is also stored (or listed twice)"));
        }
        *slot = 1;
    }
    match seen.iter().position(|&s| s == 0) {
        Some(id) => Err(format!("body {id} is neither stored, excluded nor pending")),
        None => Ok(()),
    }
}

/// Node `i`'s links: pre-order ranges, parent and depth of its children, their regions cut at its plane.
fn check_links(nodes: &[Node], i: usize, max_depth: u32) -> Result<(), String> {
    let node = &nodes[i];
    let end = node.end as usize;
    if end <= i || end > nodes.len() {
        return Err(format!("node {i}'s subtree ends at {end}, outside {}..={}", i + 1, nodes.len()));
    }
    if u32::from(node.depth) > max_depth {
        return Err(format!("node {i} at depth {} > max_depth {max_depth}", node.depth));
    }
    if node.is_leaf() {
        return if end == i + 1 { Ok(()) } else { Err(format!("leaf {i} has a subtree up to {end}")) };
    }
    let (l, r) = (i + 1, node.right as usize);
    if r <= l || r >= end {
        return Err(format!("node {i}'s right child {r} is outside {}..{end}", l + 1));
    }
    let a = usize::from(node.axis);
    if a > 2 || !node.plane.is_finite() || !(node.lo[a] <= node.plane && node.plane <= node.hi[a]) {
        return Err(format!("node {i}'s plane {} on axis {a} is not inside its region", node.plane));
    }
    if node.sweep == node.axis {
        return Err(format!("inner node {i} sweeps along its own split axis"));
    }
    for (c, region, last) in [(l, node.left_region(), r), (r, node.right_region(), end)] {
        let child = &nodes[c];
        if child.parent as usize != i || child.end as usize != last {
            return Err(format!(
                "node {c} is not the child of {i} it should be (parent {}, end {})",
                child.parent, child.end
            ));
        }
        if child.depth != node.depth + 1 {
            return Err(format!("node {c} at depth {} under node {i} at depth {}", child.depth, node.depth));
        }
        if (child.lo, child.hi) != region {
            return Err(format!("node {c}'s region is not its parent's cut at the plane"));
        }
    }
    Ok(())
}

/// The spans tile the item array in pre-order.
fn check_spans(t: &TreeView<'_>) -> Result<(), String> {
    if t.spans.len() != t.nodes.len() {
        return Err(format!("{} spans for {} nodes", t.spans.len(), t.nodes.len()));
    }
    if t.spans[0].start != 0 || t.spans[0].sub_end as usize != t.items.len() {
        return Err(format!("the root's items are {:?}, not all {} of them", t.spans[0], t.items.len()));
    }
    for (i, (node, s)) in t.nodes.iter().zip(t.spans).enumerate() {
        let bad = if s.start > s.own_end || s.own_end > s.sub_end {
            true
        } else if node.is_leaf() {
            s.sub_end != s.own_end
        } else {
            let (l, r) = (t.spans[i + 1], t.spans[node.right as usize]);
            l.start != s.own_end || r.start != l.sub_end || r.sub_end != s.sub_end
        };
        if bad {
            return Err(format!("node {i}'s span {s:?} does not fit its children's"));
        }
    }
    Ok(())
}

/// Item `it` of node `n`: a valid box of a body that exists, stored where a descent from the root puts it — in
/// the node's region, and straddling the plane of an inner node.
fn check_item(node: &Node, n: usize, it: &Item, bodies: usize) -> Result<(), String> {
    if it.id as usize >= bodies {
        return Err(format!("node {n} holds body {} of {bodies}", it.id));
    }
    if !is_valid(&it.aabb) {
        return Err(format!("node {n} holds body {} with an invalid box {:?}", it.id, it.aabb));
    }
    if !node.fits(&it.aabb) {
        return Err(format!("body {} ({:?}) lies outside node {n}'s region", it.id, it.aabb));
    }
    if !node.is_leaf() && node.side(&it.aabb) != Side::Stay {
        return Err(format!("body {} is kept in inner node {n} but does not straddle its plane", it.id));
    }
    Ok(())
}
