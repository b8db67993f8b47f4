//! `validate()`: the invariants of the trees and of the static/dynamic split, checked after every frame by the
//! conformance kit. O(n + nodes); allocates (a test-time tool, never called in the hot path). It reads the
//! split and the trees, not the `Octree` that holds them, so that it sits below the public type.

use crate::split::Split;
use crate::tree::{
    Item, NONE, Node, Shape, Tree, Variant, center, child_mask, child_of_point, split_is_useless, split_keeps_too_many,
};
use collide_broadphase::is_valid_box;

/// Check every invariant of an octree of `shape` with the static/dynamic `split` and the `dynamic` tree; the
/// message names the first one broken.
pub(crate) fn validate(shape: &Shape, split: &Split, dynamic: &Tree) -> Result<(), String> {
    check_tree(shape, &split.static_tree, "static")?;
    check_tree(shape, dynamic, "dynamic")?;
    let n = split.in_static.len();
    if !split.prev.is_empty() && split.prev.len() != n {
        return Err(format!("remembered {} boxes for {n} bodies", split.prev.len()));
    }
    // Split consistency: every body is live in exactly one tree.
    let mut seen = vec![0u8; n];
    for it in &split.static_tree.items {
        let id = it.id as usize;
        if id >= n {
            return Err(format!("static tree holds body {id} of {n}"));
        }
        if split.in_static[id] {
            seen[id] = 1;
            if split.prev.get(id).is_some_and(|prev| *prev != it.aabb) {
                return Err(format!("static body {id} is stored with a box it no longer has"));
            }
        }
    }
    let live = seen.iter().filter(|&&s| s == 1).count();
    if live + split.static_stale != split.static_tree.bodies {
        return Err(format!(
            "static tree: {} bodies built, {live} live + {} stale",
            split.static_tree.bodies, split.static_stale
        ));
    }
    if let Some(i) = (0..n).find(|&i| split.in_static[i] && seen[i] == 0) {
        return Err(format!("body {i} is marked static but is not in the static tree"));
    }
    for it in &dynamic.items {
        let id = it.id as usize;
        if id >= n || split.in_static[id] {
            return Err(format!("dynamic tree holds body {id}, which is static or out of range"));
        }
        seen[id] = 2;
    }
    for &i in &split.excluded {
        let i = i as usize;
        if i >= n || seen[i] != 0 {
            return Err(format!("body {i} is excluded for an invalid box but stored, or out of range"));
        }
        if split.prev.get(i).is_some_and(is_valid_box) {
            return Err(format!("body {i} is excluded, but its box {:?} is valid", split.prev[i]));
        }
        seen[i] = 3;
    }
    if let Some(i) = seen.iter().position(|&s| s == 0) {
        return Err(format!("body {i} is in neither tree and its box was not found invalid"));
    }
    Ok(())
}

/// Every node of `tree`: item ranges, depth, leaf loads (or the rule that refused the split), children as
/// octants; every item stored by its variant's rule; each body stored the right number of times.
fn check_tree(shape: &Shape, tree: &Tree, which: &str) -> Result<(), String> {
    let fail = |msg: String| Err(format!("{which} tree: {msg}"));
    if tree.nodes.is_empty() {
        return if tree.items.is_empty() && tree.bodies == 0 {
            Ok(())
        } else {
            fail(format!("no root but {} items", tree.items.len()))
        };
    }
    let mut total = 0;
    let mut ids = vec![0u32; tree.items.iter().map(|i| i.id as usize + 1).max().unwrap_or(0)];
    for (ni, node) in tree.nodes.iter().enumerate() {
        let (s, e) = (node.start as usize, node.end as usize);
        if s > e || e > tree.items.len() {
            return fail(format!("node {ni} item range {s}..{e} outside 0..{}", tree.items.len()));
        }
        total += e - s;
        if node.depth > shape.max_depth {
            return fail(format!("node {ni} at depth {} > max_depth {}", node.depth, shape.max_depth));
        }
        let own = &tree.items[s..e];
        if node.is_leaf()
            && own.len() > shape.max_leaf as usize
            && node.depth < shape.max_depth
            && !refused(shape, node, own)
        {
            return fail(format!("leaf {ni} holds {} > max_leaf {} above max depth", own.len(), shape.max_leaf));
        }
        if node.first_child != NONE {
            let f = node.first_child as usize;
            if f <= ni || f + 8 > tree.nodes.len() {
                return fail(format!("node {ni} has children at {f}, outside the pool"));
            }
            if let Some(k) = (0..8).find(|&k| !is_octant(node, &tree.nodes[f + k], k)) {
                return fail(format!("child {k} of node {ni} is not its octant"));
            }
        }
        for it in own {
            ids[it.id as usize] += 1;
            if !stored_by_rule(shape.variant, tree, node, it) {
                return fail(format!(
                    "body {} ({:?}) is stored in node {ni} against the {:?} rule",
                    it.id, it.aabb, shape.variant
                ));
            }
        }
    }
    if total != tree.items.len() {
        return fail(format!("nodes own {total} items, the array holds {}", tree.items.len()));
    }
    let distinct = ids.iter().filter(|&&c| c > 0).count();
    if distinct != tree.bodies {
        return fail(format!("{distinct} distinct bodies stored, {} inserted", tree.bodies));
    }
    if shape.variant != Variant::Dup && tree.items.len() != tree.bodies {
        return fail(format!("{} items for {} bodies: a body is stored twice", tree.items.len(), tree.bodies));
    }
    Ok(())
}

/// `true` when the variant's rule refused to split the leaf `node` holding `own` (more than `max_leaf` bodies):
/// dup refuses a split that would not reduce the pair tests, nodup one that would keep too many bodies.
fn refused(shape: &Shape, node: &Node, own: &[Item]) -> bool {
    let mut counts = [0u32; 8];
    let mut stay = 0;
    for it in own {
        let mask = child_mask(it.aabb.min, it.aabb.max, node.c);
        for (k, c) in counts.iter_mut().enumerate() {
            *c += u32::from(mask >> k & 1);
        }
        stay += usize::from(!mask.is_power_of_two());
    }
    match shape.variant {
        Variant::Dup => split_is_useless(&counts, own.len()),
        Variant::Nodup => split_keeps_too_many(stay, own.len(), shape.max_leaf),
        Variant::Loose => false,
    }
}

/// `true` when `child` is octant `k` of `node`, one level deeper: children partition the parent's membership
/// cell at its centre.
fn is_octant(node: &Node, child: &Node, k: usize) -> bool {
    let octant = (0..3).all(|a| {
        if k >> a & 1 == 1 {
            child.lo_t[a] == node.c[a] && child.hi_t[a] == node.hi_t[a]
        } else {
            child.lo_t[a] == node.lo_t[a] && child.hi_t[a] == node.c[a]
        }
    });
    child.depth == node.depth + 1 && octant
}

/// `true` when `it` may be stored in `node` of `tree` by the variant's rule.
fn stored_by_rule(variant: Variant, tree: &Tree, node: &Node, it: &Item) -> bool {
    let b = &it.aabb;
    match variant {
        // Stored in every leaf its box touches (half-open), in inner nodes never.
        Variant::Dup => node.is_leaf() && b.min.cmplt(node.hi_t).all() && b.max.cmpge(node.lo_t).all(),
        // Fits its half-open cell; in an inner node, touches more than one child.
        Variant::Nodup => {
            b.min.cmpge(node.lo_t).all()
                && b.max.cmplt(node.hi_t).all()
                && (node.is_leaf() || !child_mask(b.min, b.max, node.c).is_power_of_two())
        }
        // Centre in the cell, box in the loose bound; in an inner node, too big for the centre's child.
        Variant::Loose => {
            node.owns_point(center(b))
                && node.loose.contains(b)
                && (node.is_leaf() || {
                    let k = child_of_point(center(b), node.c);
                    !tree.nodes[node.first_child as usize + k].loose.contains(b)
                })
        }
    }
}
