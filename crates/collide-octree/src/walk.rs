//! Moving bodies against the static tree, all in one walk.
//!
//! One root-down query per moving body touched a random leaf of a tree of 10⁵ bodies each time: at 10% of 10⁵
//! bodies moving, the queries were 60–80% of the frame, most of it cache misses in the binary searches of the
//! leaves' items. Here the static tree is walked once, depth first, and every node receives the moving bodies
//! that touch its region, scattered down from its parent as the build scatters items: each node's items are
//! read once, while hot, against all the moving bodies near it.
//!
//! Each pair is found once because each static body is stored once (nodup, loose), or because only the leaf
//! owning the min corner of the pair's intersection reports it (dup, as in `dup.rs`). A moving body that
//! overlaps a static body stored in node N touches N's region (its half-open cell for dup and nodup, its loose
//! bound for loose), hence every ancestor's, so it reaches N: the same [`child_mask`] rule as the build.

use crate::slabs::{SWEEP_AXIS, split};
use crate::tree::{ITEM_BYTES, Item, NODE_BYTES, NONE, Node, Variant, child_mask, window, window_on};
use collide_broadphase::ownership::owner_point;
use collide_broadphase::{Pair, Tally};
use collide_math::{Aabb, Vec3};

/// How many items' worth of work one moving body's walk counts for in the parallel threshold: it is carried
/// through every level of the static tree and tested against the static bodies near it there (15 box tests per
/// moving body at 10⁵ bodies, crate docs), several times an item's share of a rebuild's scan. 8 sends the walk to
/// the threads from 1024 moving bodies.
pub(crate) const WORK_PER_MOVING_BODY: usize = 8;

/// Scratch of [`pairs`] for one task chunk, kept across frames: a stack of the moving bodies carried to the
/// nodes on the current path, each node's above its parent's, and the children each of them touches.
#[derive(Debug, Default)]
pub(crate) struct WalkStack {
    list: Vec<Item>,
    masks: Vec<u8>,
}

/// The static tree's inner nodup nodes, their own bodies split into slabs by the plane they straddle
/// ([`split`]), built once with the tree. A node's own bodies sorted by `min.x` are a poor index for a query:
/// those straddling the y and z planes spread over the whole cell in x, and an x window tested ~20 of them for
/// every moving body, at every level (57 tests per moving body in all at 10⁵ bodies; 15 with slabs). A slab is a
/// thin layer along its plane: a moving body away from it skips it on one box test, and one near it searches a
/// window on an axis the slab spreads over.
#[derive(Debug, Default)]
pub(crate) struct SlabIndex {
    /// Per node of the tree: its entry in `nodes`, or [`NONE`] (leaves, few own bodies, other variants).
    of_node: Vec<u32>,
    nodes: Vec<NodeSlabs>,
    items: Vec<Item>,
}

/// One node's slabs: slab `s` is `items[b[s]..b[s + 1]]`, sorted by `min` on `SWEEP_AXIS[s]`, inside `bound[s]`,
/// its bodies at most `width[s]` wide on that axis.
#[derive(Clone, Copy, Debug)]
struct NodeSlabs {
    b: [u32; 4],
    bound: [Aabb; 3],
    width: [f32; 3],
}

/// From this many own bodies an inner node's are indexed as slabs; fewer are scanned as they are.
const SLAB_INDEX_MIN: usize = 16;

/// Up to this many own bodies a node is scanned from its first body for each moving body: a binary search's
/// dependent loads cost more than reading a few boxes in order.
const SCAN_MAX: usize = 32;

impl SlabIndex {
    /// Index the tree `nodes`, `items` (nothing unless `variant` is nodup). O(inner bodies · log).
    pub(crate) fn build(&mut self, variant: Variant, nodes: &[Node], items: &[Item]) -> Tally {
        self.clear();
        if variant != Variant::Nodup {
            return Tally::default();
        }
        for node in nodes {
            let own = &items[node.start as usize..node.end as usize];
            if node.is_leaf() || own.len() < SLAB_INDEX_MIN {
                self.of_node.push(NONE);
                continue;
            }
            self.of_node.push(self.nodes.len() as u32);
            let b = split(own, node.c, &mut self.items);
            let mut ns =
                NodeSlabs { b: b.map(|x| x as u32), bound: [Aabb::new(Vec3::ZERO, Vec3::ZERO); 3], width: [0.0; 3] };
            for (slab, &axis) in SWEEP_AXIS.iter().enumerate() {
                let (mut lo, mut hi, mut w) = (Vec3::INFINITY, Vec3::NEG_INFINITY, 0.0f32);
                for it in &self.items[b[slab]..b[slab + 1]] {
                    lo = lo.min(it.aabb.min);
                    hi = hi.max(it.aabb.max);
                    w = w.max(it.aabb.max[axis as usize] - it.aabb.min[axis as usize]);
                }
                ns.bound[slab] = Aabb::new(lo, hi);
                ns.width[slab] = w;
            }
            self.nodes.push(ns);
        }
        // Nodes read; indexed bodies scattered into slabs and read again for the bounds.
        let (n, m) = (nodes.len() as u64, self.items.len() as u64);
        Tally::work(n + m, n * NODE_BYTES + 3 * m * ITEM_BYTES)
    }

    /// Rename the indexed bodies by `old_to_new` (a permutation: the slabs do not depend on the bodies' names).
    pub(crate) fn rename(&mut self, old_to_new: &[u32]) {
        crate::tree::rename_items(&mut self.items, old_to_new);
    }

    /// Forget the index (keeps the allocations).
    pub(crate) fn clear(&mut self) {
        self.of_node.clear();
        self.nodes.clear();
        self.items.clear();
    }
}

/// The tasks of [`pairs`]: the root's own bodies, then one per root child (its subtree).
pub(crate) fn tasks(nodes: &[Node]) -> usize {
    match nodes.first() {
        None => 0,
        Some(root) if root.is_leaf() => 1,
        Some(_) => 9,
    }
}

/// Pairs of the moving bodies `moving` with the live bodies (`live[id]`) of the static tree `nodes`, `items`, for
/// the tasks `range` (see [`tasks`]).
pub(crate) fn pairs(
    walk: &Walk<'_>,
    moving: &[Item],
    range: std::ops::Range<usize>,
    stack: &mut WalkStack,
    out: &mut Vec<Pair>,
) -> Tally {
    let Some(root) = walk.nodes.first() else { return Tally::default() };
    let mut tally = Tally::default();
    for task in range {
        if task == 0 {
            tally += walk.own_pairs(0, moving, out);
            continue;
        }
        // The moving bodies touching child k, at the bottom of the stack.
        let (k, WalkStack { list, masks }) = (task - 1, &mut *stack);
        grow(list, masks, moving.len());
        let mut at = 0;
        for q in moving {
            list[at] = *q;
            at += usize::from(walk.mask(root, q) >> k & 1);
        }
        tally += Tally::work(moving.len() as u64, (moving.len() + at) as u64 * ITEM_BYTES);
        if at > 0 {
            tally += walk.node(root.first_child as usize + k, 0, at, at, stack, out);
        }
    }
    tally
}

/// Make the stack hold at least `len` entries. It only grows: slots above the top hold stale bodies, and a
/// warm walk writes them without clearing or allocating.
fn grow(list: &mut Vec<Item>, masks: &mut Vec<u8>, len: usize) {
    if list.len() < len {
        list.resize(len, Item::default());
        masks.resize(len, 0);
    }
}

/// The static tree and what a walk of it needs: its nodes and items, its slab index, and which of its bodies
/// are still live (`live[id]`: at rest since the tree was built).
pub(crate) struct Walk<'a> {
    pub variant: Variant,
    pub nodes: &'a [Node],
    pub items: &'a [Item],
    pub slabs: &'a SlabIndex,
    pub live: &'a [bool],
}

impl Walk<'_> {
    /// The children of the inner node `node` whose region `q` touches (bit `k` = child `k`).
    #[inline]
    fn mask(&self, node: &Node, q: &Item) -> u8 {
        if self.variant == Variant::Loose {
            let children = &self.nodes[node.first_child as usize..node.first_child as usize + 8];
            children.iter().enumerate().fold(0, |m, (k, ch)| m | u8::from(ch.loose.overlaps(&q.aabb)) << k)
        } else {
            child_mask(q.aabb.min, q.aabb.max, node.c)
        }
    }

    /// Pairs of node `ni`'s own bodies and below with the moving bodies `list[s..e]`, which touch its region;
    /// the stack above `top` is free.
    fn node(&self, ni: usize, s: usize, e: usize, top: usize, scratch: &mut WalkStack, out: &mut Vec<Pair>) -> Tally {
        let node = &self.nodes[ni];
        let mut tally = self.own_pairs(ni, &scratch.list[s..e], out);
        if node.is_leaf() {
            return tally;
        }
        // The children's lists go on the stack above `top`, child by child: count, then scatter. Most bodies
        // touch one child, so the loop over a body's children is well predicted.
        let first = node.first_child as usize;
        let live = (0..8).fold(0u8, |m, k| {
            let child = &self.nodes[first + k];
            m | u8::from(!(child.is_leaf() && child.start == child.end)) << k
        });
        let mut counts = [0usize; 8];
        for i in s..e {
            let m = self.mask(node, &scratch.list[i]) & live;
            scratch.masks[i] = m;
            for (k, n) in counts.iter_mut().enumerate() {
                *n += usize::from(m >> k & 1);
            }
        }
        let mut at = [0usize; 8];
        let mut end = top;
        for k in 0..8 {
            at[k] = end;
            end += counts[k];
        }
        grow(&mut scratch.list, &mut scratch.masks, end);
        for i in s..e {
            let (q, mut m) = (scratch.list[i], scratch.masks[i]);
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                scratch.list[at[k]] = q;
                at[k] += 1;
                m &= m - 1;
            }
        }
        // The children read, the carried bodies read and scattered.
        let (carried, scattered) = ((e - s) as u64, (end - top) as u64);
        tally += Tally::work(8 + carried + scattered, 8 * NODE_BYTES + (carried + scattered) * ITEM_BYTES);
        let mut from = top;
        for (k, &count) in counts.iter().enumerate() {
            if count > 0 {
                tally += self.node(first + k, from, from + count, end, scratch, out);
            }
            from += count;
        }
        tally
    }

    /// Pairs of node `ni`'s own live bodies with `moving`.
    #[inline]
    fn own_pairs(&self, ni: usize, moving: &[Item], out: &mut Vec<Pair>) -> Tally {
        let node = &self.nodes[ni];
        if node.start == node.end {
            return Tally::default();
        }
        if let Some(&k) = self.slabs.of_node.get(ni).filter(|&&k| k != NONE) {
            return Tally::tests(self.slab_pairs(&self.slabs.nodes[k as usize], moving, out));
        }
        let own = &self.items[node.start as usize..node.end as usize];
        let mut tests = 0;
        for q in moving {
            // Own items are sorted by `min.x`: the ones that can meet `q` on x are a window of them.
            let own = if own.len() <= SCAN_MAX {
                own
            } else {
                &self.items[window(node, self.items, q.aabb.min.x, q.aabb.max.x)]
            };
            for t in own {
                if t.aabb.min.x > q.aabb.max.x {
                    break;
                }
                tests += 1;
                if q.aabb.overlaps(&t.aabb)
                    && self.live[t.id as usize]
                    && (self.variant != Variant::Dup || node.owns_point(owner_point(q.aabb.min, t.aabb.min)))
                {
                    out.push(Pair::new(q.id, t.id));
                }
            }
        }
        Tally::tests(tests)
    }

    /// Pairs of a nodup node's own live bodies, given as slabs, with `moving`.
    fn slab_pairs(&self, ns: &NodeSlabs, moving: &[Item], out: &mut Vec<Pair>) -> u64 {
        let mut tests = 0;
        for (slab, &axis) in SWEEP_AXIS.iter().enumerate() {
            let v = &self.slabs.items[ns.b[slab] as usize..ns.b[slab + 1] as usize];
            if v.is_empty() {
                continue;
            }
            for q in moving.iter().filter(|q| q.aabb.overlaps(&ns.bound[slab])) {
                let (w, a) = (ns.width[slab], axis as usize);
                let w = match axis {
                    0 => window_on::<0>(v, w, q.aabb.min[a], q.aabb.max[a]),
                    1 => window_on::<1>(v, w, q.aabb.min[a], q.aabb.max[a]),
                    _ => window_on::<2>(v, w, q.aabb.min[a], q.aabb.max[a]),
                };
                tests += w.len() as u64;
                for t in &v[w] {
                    if q.aabb.overlaps(&t.aabb) && self.live[t.id as usize] {
                        out.push(Pair::new(q.id, t.id));
                    }
                }
            }
        }
        tests
    }
}
