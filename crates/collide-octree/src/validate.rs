//! `validate()`: the invariants of the trees and of the static/dynamic split, checked after every frame by the
//! conformance kit. O(n + nodes); allocates (a test-time tool, never called in the hot path).

use crate::octree::{Octree, Parts};
use crate::tree::{NONE, Tree, Variant, center, child_mask, child_of_point, split_is_useless, split_keeps_too_many};

/// Check every invariant of `octree`; the message names the first one broken.
pub(crate) fn validate(octree: &Octree) -> Result<(), String> {
    let p = octree.parts();
    check_tree(&p, p.static_tree, "static")?;
    check_tree(&p, p.dynamic_tree, "dynamic")?;
    let n = p.in_static.len();
    if !p.prev.is_empty() && p.prev.len() != n {
        return Err(format!("remembered {} boxes for {n} bodies", p.prev.len()));
    }
    // Split consistency: every body is live in exactly one tree.
    let mut seen = vec![0u8; n];
    for it in &p.static_tree.items {
        let id = it.id as usize;
        if id >= n {
            return Err(format!("static tree holds body {id} of {n}"));
        }
        if p.in_static[id] {
            seen[id] = 1;
            if p.prev.get(id).is_some_and(|prev| *prev != it.aabb) {
                return Err(format!("static body {id} is stored with a box it no longer has"));
            }
        }
    }
    let live = seen.iter().filter(|&&s| s == 1).count();
    if live + p.static_stale != p.static_tree.bodies {
        return Err(format!(
            "static tree: {} bodies built, {live} live + {} stale",
            p.static_tree.bodies, p.static_stale
        ));
    }
    if let Some(i) = (0..n).find(|&i| p.in_static[i] && seen[i] == 0) {
        return Err(format!("body {i} is marked static but is not in the static tree"));
    }
    for it in &p.dynamic_tree.items {
        let id = it.id as usize;
        if id >= n || p.in_static[id] {
            return Err(format!("dynamic tree holds body {id}, which is static or out of range"));
        }
        seen[id] = 2;
    }
    if let Some(i) = seen.iter().position(|&s| s == 0) {
        return Err(format!("body {i} is in neither tree"));
    }
    Ok(())
}

fn check_tree(p: &Parts<'_>, tree: &Tree, which: &str) -> Result<(), String> {
    let shape = p.shape;
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
        if node.is_leaf() && e - s > shape.max_leaf as usize && node.depth < shape.max_depth {
            // Dup refuses a split that would not reduce the pair tests; nodup one that would keep too many bodies.
            let mut counts = [0u32; 8];
            let mut stay = 0;
            for it in &tree.items[s..e] {
                let mask = child_mask(it.aabb.min, it.aabb.max, node.c);
                for (k, c) in counts.iter_mut().enumerate() {
                    *c += u32::from(mask >> k & 1);
                }
                stay += usize::from(!mask.is_power_of_two());
            }
            let refused = match shape.variant {
                Variant::Dup => split_is_useless(&counts, e - s),
                Variant::Nodup => split_keeps_too_many(stay, e - s, shape.max_leaf),
                Variant::Loose => false,
            };
            if !refused {
                return fail(format!("leaf {ni} holds {} > max_leaf {} above max depth", e - s, shape.max_leaf));
            }
        }
        if node.first_child != NONE {
            let f = node.first_child as usize;
            if f <= ni || f + 8 > tree.nodes.len() {
                return fail(format!("node {ni} has children at {f}, outside the pool"));
            }
            for k in 0..8 {
                let ch = &tree.nodes[f + k];
                // Children partition the parent's membership cell at its centre.
                let octant = (0..3).all(|a| {
                    if k >> a & 1 == 1 {
                        ch.lo_t[a] == node.c[a] && ch.hi_t[a] == node.hi_t[a]
                    } else {
                        ch.lo_t[a] == node.lo_t[a] && ch.hi_t[a] == node.c[a]
                    }
                });
                if ch.depth != node.depth + 1 || !octant {
                    return fail(format!("child {k} of node {ni} is not its octant"));
                }
            }
        }
        for it in &tree.items[s..e] {
            ids[it.id as usize] += 1;
            let b = &it.aabb;
            let ok = match shape.variant {
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
            };
            if !ok {
                return fail(format!(
                    "body {} ({b:?}) is stored in node {ni} against the {:?} rule",
                    it.id, shape.variant
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
