//! The build: level by level within a subtree, the eight subtrees under the root in parallel.
//!
//! A subtree is built breadth-first: all nodes of one depth are split in one sweep over a contiguous buffer of
//! the level's items (`cur`), scattering the items that go down into `next`, grouped by child. The items a node
//! keeps (all of them in a leaf; the straddlers of an inner node in the variants that keep some) are copied to
//! `items` in node order. Every level is a sequential pass over at most one copy of the items (plus the
//! duplicates of the dup variant), so the build is O(n · depth) with streaming memory access.
//!
//! A large tree (at least [`Parallelism::min_work`] items) splits its root first (one pass over all items), then
//! builds the eight children's subtrees independently, each in its own [`SubtreeBuilder`] — on rayon's threads
//! when [`Parallelism::is_parallel`] — and joins them into one pool (a copy of the nodes and items with their
//! indices shifted, a few percent of the build). The builders keep their buffers across frames, so a warm build
//! allocates nothing. Node order is then "root, its 8 children, subtree 0's deeper nodes, subtree 1's, …":
//! children still follow their parent, which is all the searches and `validate` assume.

use crate::tree::{
    ITEM_BYTES, Item, NODE_BYTES, NONE, Node, Shape, Tree, Variant, center, child_mask, child_of_point, sides,
    split_is_useless, split_keeps_too_many,
};
use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_broadphase::region_grid::{bulk_bounds, sampled_bounds_of};
use collide_broadphase::{Parallelism, Tally};
use collide_math::{Aabb, Vec3};

/// Where the build sends one item of a splitting node (`STAY` = keep it in the node).
const STAY: u8 = 8;

/// The scratch of one tree's build, kept across frames: the input, one builder for the whole tree or its root,
/// one per root child.
#[derive(Debug, Default)]
pub(crate) struct TreeBuilder {
    input: Vec<Item>,
    main: SubtreeBuilder,
    parts: Vec<SubtreeBuilder>,
}

/// Builds one subtree: its nodes (node 0 its root) and items, with indices local to it.
#[derive(Debug, Default)]
struct SubtreeBuilder {
    /// The input sorted by `min.x` ([`SubtreeBuilder::presort`]), its keys and the radix sort's second buffer.
    sorted: Vec<Item>,
    keys: Vec<u64>,
    keys_scratch: Vec<u64>,
    nodes: Vec<Node>,
    items: Vec<Item>,
    /// The items of the level being split, grouped by node.
    cur: Vec<Item>,
    /// The items of the next level, grouped by node: `next[..next_len]`. The buffer only grows (the slots past
    /// `next_len` hold stale items), so the scatter never pays for initialising slots it then overwrites.
    next: Vec<Item>,
    next_len: usize,
    /// The level's codes: a child mask (dup) or a child index or [`STAY`] per item.
    codes: Vec<u8>,
    /// The first node whose items are in `cur` (the nodes created by the last level).
    first_of_next: usize,
    /// The work of the last build (the `Stats` numbers; see the crate docs).
    tally: Tally,
}

/// Byte `k` of `SPREAD[mask]` is bit `k` of `mask`: summing these counts the items of all 8 children at once in
/// byte lanes, without the data-dependent loop over a mask's bits (up to 255 items between flushes).
static SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut k = 0;
        while k < 8 {
            table[mask] |= ((mask as u64 >> k) & 1) << (8 * k);
            k += 1;
        }
        mask += 1;
    }
    table
};

impl TreeBuilder {
    /// The buffer to fill with the bodies to insert before calling [`TreeBuilder::build`] (cleared).
    pub fn input(&mut self) -> &mut Vec<Item> {
        self.input.clear();
        &mut self.input
    }

    /// Forget the input (keeps the allocations).
    pub fn clear(&mut self) {
        self.input.clear();
    }

    /// Build `tree` from the items in [`TreeBuilder::input`]. O(n · depth) time (plus duplicates for dup).
    pub fn build(&mut self, tree: &mut Tree, shape: &Shape, parallelism: Parallelism) -> Tally {
        tree.nodes.clear();
        let Self { input, main, parts } = self;
        tree.bodies = input.len();
        if input.is_empty() {
            tree.items.clear();
            return Tally::default();
        }
        let (mut bmin, mut bmax) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for it in input.iter() {
            bmin = bmin.min(it.aabb.min);
            bmax = bmax.max(it.aabb.max);
        }
        let mut tally = Tally::work(input.len() as u64, input.len() as u64 * ITEM_BYTES);
        // The root covers the bulk of the bodies: a few far ones (at ±1e30, say) fall in the border cells, whose
        // membership reaches to infinity, instead of stretching the root so that the others need 100 levels to
        // separate (`collide_broadphase::region_grid::bulk_bounds`: the full bounds unless they are 4× a trimmed
        // sample's, O(64) per build).
        let bulk = bulk_bounds(Aabb::new(bmin, bmax), sampled_bounds_of(input, |it| &it.aabb));
        let (bmin, bmax) = (bulk.min, bulk.max);
        // A cubic root keeps cells cubic, which the loose variant's size test assumes. The geometric cell only
        // places split planes: membership uses the infinite root faces, so rounding in `bmin + side` cannot lose
        // a body.
        let side = (bmax - bmin).max_element();
        // Clamped so that a scene spanning more than f32's range (±3e38) still has a finite centre.
        let (lo, hi) = (bmin, (bmin + Vec3::splat(side)).min(Vec3::MAX));
        let root = Node {
            lo,
            hi,
            c: midpoint(lo, hi),
            lo_t: Vec3::NEG_INFINITY,
            hi_t: Vec3::INFINITY,
            loose: Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
            max_w: 0.0,
            first_child: NONE,
            start: 0,
            end: input.len() as u32,
            depth: 0,
        };
        // Below the parallel threshold one builder makes the whole tree; above it the root's children are
        // subtrees (built in parallel when rayon has several threads, each presorted on its own).
        let whole = input.len() < parallelism.min_work();
        main.build(input, root, shape, whole);
        tally += main.tally;
        if whole || main.nodes.len() == 1 {
            // Small, or the root stayed a leaf: the main builder holds the whole tree. Swapping keeps both
            // buffers warm (they alternate between builder and tree).
            std::mem::swap(&mut tree.nodes, &mut main.nodes);
            std::mem::swap(&mut tree.items, &mut main.items);
            return tally;
        }

        // The root split: `main.nodes` is the root and its 8 children, whose ranges index `main.cur`.
        parts.resize_with(8, SubtreeBuilder::default);
        let (children, level) = (&main.nodes[1..9], &main.cur[..]);
        parallelism.for_each("octree subtree build", input.len(), parts, |k, part| {
            let mut child = children[k];
            let input = &level[child.start as usize..child.end as usize];
            child.start = 0;
            child.end = input.len() as u32;
            part.build(input, child, shape, true);
        });
        for part in parts.iter() {
            tally += part.tally;
        }
        tally + join(tree, main, parts, parallelism)
    }
}

/// Join the root (`main`) and the eight subtrees `parts` into `tree`: root, the 8 subtree roots, then each
/// subtree's deeper nodes; root items, then each subtree's. Returns the copy's work.
fn join(tree: &mut Tree, main: &SubtreeBuilder, parts: &[SubtreeBuilder], parallelism: Parallelism) -> Tally {
    tree.nodes.push(main.nodes[0]);
    let (mut node_base, mut item_base) = (9u32, main.items.len() as u32);
    let mut bases = [(0, 0); 8];
    for (k, part) in parts.iter().enumerate() {
        bases[k] = (node_base, item_base);
        node_base += part.nodes.len() as u32 - 1;
        item_base += part.items.len() as u32;
    }
    let shift = |mut n: Node, (nb, ib): (u32, u32)| {
        if n.first_child != NONE {
            // Local node j > 0 becomes nb + j − 1 (local node 0 is the subtree root, placed at 1 + k).
            n.first_child = nb + n.first_child - 1;
        }
        n.start += ib;
        n.end += ib;
        n
    };
    for (part, &base) in parts.iter().zip(&bases) {
        tree.nodes.push(shift(part.nodes[0], base));
    }
    for (part, &base) in parts.iter().zip(&bases) {
        tree.nodes.extend(part.nodes[1..].iter().map(|&n| shift(n, base)));
    }
    // The items are copied by the threads too: at 10⁶ bodies a serial copy was a tenth of the build. Resizing
    // instead of clearing writes only the growth; every slot is then overwritten.
    let items = item_base as usize;
    tree.items.resize(items, Item::default());
    let (own, mut rest) = tree.items.split_at_mut(main.items.len());
    own.copy_from_slice(&main.items);
    let mut copies: [(&mut [Item], &[Item]); 8] = Default::default();
    for (copy, part) in copies.iter_mut().zip(parts) {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(part.items.len());
        *copy = (head, &part.items);
        rest = tail;
    }
    parallelism.for_each("octree join", items, &mut copies, |_, (to, from)| to.copy_from_slice(from));
    let nodes = tree.nodes.len() as u64;
    Tally::work(items as u64 + nodes, 2 * (items as u64 * ITEM_BYTES + nodes * NODE_BYTES))
}

impl SubtreeBuilder {
    /// Build the subtree under `root`, whose items are `input[root.start..root.end]`, into `nodes` (the root is
    /// node 0) and `items`; with `whole == false` only the root is split, and its children's ranges index `cur`.
    fn build(&mut self, input: &[Item], root: Node, shape: &Shape, whole: bool) {
        self.nodes.clear();
        self.items.clear();
        self.tally = Tally::default();
        self.nodes.push(root);
        if whole {
            let sorted = self.presort(input);
            self.level(&sorted, 0..1, shape);
            self.sorted = sorted;
        } else {
            self.level(input, 0..1, shape);
        }
        while whole && self.nodes.len() > self.first_of_next {
            let (level, cur) = (self.first_of_next..self.nodes.len(), std::mem::take(&mut self.cur));
            self.level(&cur, level, shape);
            // `level` left the new items in `cur`; the old buffer becomes the next level's `next`.
            self.next = cur;
        }
    }

    /// `input` sorted by `min.x` (a radix sort of the keys, then one gather). Every split scatters its items
    /// stably, so each node's items then come out in the order [`SubtreeBuilder::seal`] wants and its sort only
    /// confirms it (O(m) on sorted input): one O(n) sort instead of an O(m log m) sort per node, on each subtree's
    /// own thread (a tree's root split, serial, is not presorted; its own items are sorted by `seal`).
    fn presort(&mut self, input: &[Item]) -> Vec<Item> {
        let (keys, scratch) = (&mut self.keys, &mut self.keys_scratch);
        keys.clear();
        keys.extend(input.iter().enumerate().map(|(i, it)| u64::from(float_key(it.aabb.min.x)) << 32 | i as u64));
        sort_by_high_bits(keys, scratch, 32);
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.extend(keys.iter().map(|&k| input[(k & 0xFFFF_FFFF) as usize]));
        // Keys: made, a histogram pass and three scatter passes (read and written); items: gathered.
        let n = input.len() as u64;
        self.tally += Tally::work(n, n * (8 * 8 + 2 * ITEM_BYTES));
        sorted
    }

    /// Split or seal the nodes `level`, whose items are in `src`; afterwards their children's items are in `cur`.
    fn level(&mut self, src: &[Item], level: std::ops::Range<usize>, shape: &Shape) {
        self.next_len = 0;
        self.first_of_next = self.nodes.len();
        // The level's items are contiguous in `src`: each read by the classification (or the copy of a leaf).
        let read = u64::from(self.nodes[level.end - 1].end - self.nodes[level.start].start);
        let kept_before = self.items.len();
        for ni in level {
            // While a node waits for its level, `start..end` index `src`; afterwards, `items`.
            let node = self.nodes[ni];
            let own = &src[node.start as usize..node.end as usize];
            if own.len() <= shape.max_leaf as usize || node.depth >= shape.max_depth {
                self.keep_all(ni, own);
            } else {
                self.split(ni, own, shape);
            }
        }
        std::mem::swap(&mut self.cur, &mut self.next);
        // Counted once per level, not per node: items read, scattered down, kept (copied, then sorted by `seal`).
        let (down, kept) = (self.next_len as u64, (self.items.len() - kept_before) as u64);
        self.tally += Tally::work(read + down + kept, (read + down + 2 * kept) * ITEM_BYTES);
    }

    /// Node `ni` becomes a leaf holding `own`.
    fn keep_all(&mut self, ni: usize, own: &[Item]) {
        let start = self.items.len() as u32;
        self.items.extend_from_slice(own);
        let n = &mut self.nodes[ni];
        n.start = start;
        n.end = self.items.len() as u32;
        self.seal(ni);
    }

    /// Split node `ni` whose items are `own`: create its 8 children, keep the items that stay, and scatter the
    /// others into `next` grouped by child. A split that the variant's rule refuses (see [`split_is_useless`],
    /// [`split_keeps_too_many`]) leaves the node a leaf — unless the node's items sit in a small part of its cell
    /// ([`tighten`]): the split is then tried again around them.
    fn split(&mut self, ni: usize, own: &[Item], shape: &Shape) {
        let mut node = self.nodes[ni];
        let mut tightened = false;
        // At most twice round: the second time around the node's items (one call site keeps `classify` inlined).
        let (counts, mut children) = loop {
            let children = children_of(&node, shape);
            let counts = self.classify(own, node.c, &children, shape);
            // Refused, or every item would go down one child: a chain of nodes towards a crowd in a corner of the
            // cell, which ends in one leaf at `max_depth` when far bodies made the root huge.
            if !tightened && counts.is_none_or(|c| c[..8].contains(&(own.len() as u32))) {
                tightened = true;
                self.tally += Tally::work(own.len() as u64, own.len() as u64 * ITEM_BYTES);
                if let Some(tight) = tighten(&node, own) {
                    node = tight;
                    self.nodes[ni] = tight;
                    continue;
                }
            }
            break (counts, children);
        };
        let Some(counts) = counts else {
            self.keep_all(ni, own);
            return;
        };
        let stays = self.scatter(own, &counts, &mut children, shape.variant);
        let start = self.items.len() as u32;
        self.items.extend_from_slice(&self.next[stays]);
        let first = self.nodes.len();
        let n = &mut self.nodes[ni];
        n.start = start;
        n.end = self.items.len() as u32;
        n.first_child = first as u32;
        self.nodes.extend_from_slice(&children);
        self.seal(ni);
    }

    /// The code of every item of a splitting node into `codes` — a child mask (dup) or a child index or
    /// [`STAY`] (nodup, loose) — and the items per child (index 8: the items that stay); `None` when the
    /// variant's rule refuses the split.
    fn classify(&mut self, own: &[Item], c: Vec3, children: &[Node; 8], shape: &Shape) -> Option<[u32; 9]> {
        let mut counts = [0u32; 9];
        self.codes.clear();
        match shape.variant {
            Variant::Dup => {
                for chunk in own.chunks(255) {
                    let mut lanes = 0u64;
                    for it in chunk {
                        let mask = child_mask(it.aabb.min, it.aabb.max, c);
                        self.codes.push(mask);
                        lanes += SPREAD[mask as usize];
                    }
                    for (k, n) in counts[..8].iter_mut().enumerate() {
                        *n += (lanes >> (8 * k) & 0xFF) as u32;
                    }
                }
                let refused = split_is_useless(counts[..8].try_into().expect("8 children"), own.len());
                (!refused).then_some(counts)
            }
            Variant::Nodup => {
                for it in own {
                    // One child when the box lies on one side of every plane; its index is then `upper`.
                    let (lower, upper) = sides(it.aabb.min, it.aabb.max, c);
                    let code = if lower ^ upper == 7 { upper as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
                let refused = split_keeps_too_many(counts[STAY as usize] as usize, own.len(), shape.max_leaf);
                (!refused).then_some(counts)
            }
            Variant::Loose => {
                for it in own {
                    let k = child_of_point(center(&it.aabb), c);
                    let code = if children[k].loose.contains(&it.aabb) { k as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
                Some(counts)
            }
        }
    }

    /// Scatter `own` by the codes of [`SubtreeBuilder::classify`]: children's items to `next`, grouped by child
    /// (setting the children's ranges there); the items that stay (nodup, loose) to a ninth group after them, in
    /// the same pass. Returns the stays' range in `next`: scratch past the level's end, which the next node's
    /// children overwrite once the caller has copied them to `items` (this node is processed now, so they follow
    /// the earlier nodes' items). One branch-free pass: whether an item stays is a coin flip in a crowd.
    fn scatter(
        &mut self,
        own: &[Item],
        counts: &[u32; 9],
        children: &mut [Node; 8],
        variant: Variant,
    ) -> std::ops::Range<usize> {
        let mut offsets = [0usize; 9];
        let mut at = self.next_len;
        for (k, ch) in children.iter_mut().enumerate() {
            offsets[k] = at;
            ch.start = at as u32;
            at += counts[k] as usize;
            ch.end = at as u32;
        }
        offsets[STAY as usize] = at;
        let stays = at..at + counts[STAY as usize] as usize;
        if self.next.len() < stays.end {
            self.next.resize(stays.end, Item::default());
        }
        self.next_len = at;
        let next = &mut self.next;
        if variant == Variant::Dup {
            for (it, &mask) in own.iter().zip(&self.codes) {
                let mut m = mask;
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    next[offsets[k]] = *it;
                    offsets[k] += 1;
                    m &= m - 1;
                }
            }
        } else {
            for (it, &code) in own.iter().zip(&self.codes) {
                let k = code as usize;
                next[offsets[k]] = *it;
                offsets[k] += 1;
            }
        }
        stays
    }

    /// Sort node `ni`'s own items by `min.x` and record their widest x extent: every scan of them becomes a
    /// sweep over a window instead of a full pass (the root of a nodup tree holds every body crossing one of
    /// the three central planes — thousands at 10⁵ bodies — and their all-pairs test was most of its time).
    fn seal(&mut self, ni: usize) {
        let n = &mut self.nodes[ni];
        let own = &mut self.items[n.start as usize..n.end as usize];
        if own.len() > 1 {
            own.sort_unstable_by(|a, b| a.aabb.min.x.total_cmp(&b.aabb.min.x));
        }
        n.max_w = own.iter().fold(0.0, |w, it| w.max(it.aabb.max.x - it.aabb.min.x));
    }
}

/// `(lo + hi) / 2` without overflow: halving is exact, so for every other pair of floats this is the same value.
#[inline]
fn midpoint(lo: Vec3, hi: Vec3) -> Vec3 {
    lo * 0.5 + hi * 0.5
}

/// `node` with its geometric cell shrunk to a cube around its items, when they fill at most half its side: the
/// bounds of the items that do not cover the whole cell (a box spanning the cell goes into every child whatever
/// the split), clipped to the cell, grown into a cube inside the cell. `None` when no such cube exists.
///
/// Only the split plane moves: the membership cell `[lo_t, hi_t)` stays, and the children still partition it
/// (their planes lie inside the cell), so the ownership rule and every search hold as before. A crowd that fills
/// its cell (a dense cluster) keeps its cell — tightening would not separate it — and pays one pass over its
/// items. One body at 1e30 among bodies in `[0, 100]³` makes the root 10³⁰ wide; without this the others went
/// down a chain of nodes into one leaf at `max_depth` and were all tested against each other.
fn tighten(node: &Node, own: &[Item]) -> Option<Node> {
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for it in own {
        let covers = it.aabb.min.cmple(node.lo).all() && it.aabb.max.cmpge(node.hi).all();
        if !covers {
            lo = lo.min(it.aabb.min);
            hi = hi.max(it.aabb.max);
        }
    }
    let (lo, hi) = (lo.max(node.lo), hi.min(node.hi));
    let side = (hi - lo).max_element();
    let cell = (node.hi - node.lo).max_element();
    // `!(… <= …)` also refuses NaN: no item inside the cell leaves `lo > hi`.
    if !(lo.cmple(hi).all() && side <= 0.5 * cell) {
        return None;
    }
    // A cube of `side` from `lo`, moved back inside the cell where it would stick out.
    let lo = lo.min(node.hi - Vec3::splat(side)).max(node.lo);
    let hi = (lo + Vec3::splat(side)).min(node.hi);
    Some(Node { lo, hi, c: midpoint(lo, hi), ..*node })
}

/// The 8 children of `node`, without items yet: octant `k` is upper on x when `k & 1`, on y when `k & 2`, on z
/// when `k & 4`; cells, membership cells and loose bounds cut at the parent's centre.
fn children_of(node: &Node, shape: &Shape) -> [Node; 8] {
    let c = node.c;
    let mut children = [*node; 8];
    for (k, ch) in children.iter_mut().enumerate() {
        for axis in 0..3 {
            if k >> axis & 1 == 1 {
                ch.lo[axis] = c[axis];
                ch.lo_t[axis] = c[axis];
            } else {
                ch.hi[axis] = c[axis];
                ch.hi_t[axis] = c[axis];
            }
        }
        ch.c = midpoint(ch.lo, ch.hi);
        let margin = (ch.hi - ch.lo) * ((shape.looseness - 1.0) * 0.5);
        ch.loose = Aabb::new(ch.lo - margin, ch.hi + margin);
        ch.first_child = NONE;
        ch.depth = node.depth + 1;
    }
    children
}
