//! The build: level by level within a subtree, the eight subtrees under the root in parallel.
//!
//! A subtree is built breadth-first: all nodes of one depth are split in one sweep over a contiguous buffer of
//! the level's items (`cur`), scattering the items that go down into `next`, grouped by child. The items a node
//! keeps (all of them in a leaf; the straddlers of an inner node in the variants that keep some) are copied to
//! `items` in node order. Every level is a sequential pass over at most one copy of the items (plus the
//! duplicates of the dup variant), so the build is O(n · depth) with streaming memory access.
//!
//! A large tree splits its root first (one pass over all items), then builds the eight children's subtrees
//! independently, each in its own [`Builder`] — on rayon's threads when there are several — and joins them into
//! one pool (a copy of the nodes and items with their indices shifted, a few percent of the build). The builders
//! keep their buffers across frames, so a warm build allocates nothing. Node order is then "root, its 8
//! children, subtree 0's deeper nodes, subtree 1's, …": children still follow their parent, which is all the
//! searches and `validate` assume.

use crate::par::PAR_MIN_WORK;
use crate::tree::{
    Item, NONE, Node, Shape, Tree, Variant, center, child_mask, child_of_point, sides, split_is_useless,
    split_keeps_too_many,
};
use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_math::{Aabb, Vec3};
use rayon::prelude::*;

/// Where the build sends one item of a splitting node (`STAY` = keep it in the node).
const STAY: u8 = 8;

/// From this many items a tree is built as eight subtrees (in parallel when rayon has several threads). Tests
/// use a small value so that the conformance scenes, which are small, exercise the joined trees too.
const SUBTREES_MIN: usize = if cfg!(test) { 64 } else { PAR_MIN_WORK };

/// The scratch of a tree's build: the input, one builder for the whole tree or its root, one per root child.
#[derive(Debug, Default)]
pub(crate) struct Builders {
    pub(crate) input: Vec<Item>,
    main: Builder,
    parts: Vec<Builder>,
}

/// Builds one subtree: its nodes (node 0 its root) and items, with indices local to it.
#[derive(Debug, Default)]
struct Builder {
    /// The input sorted by `min.x` ([`Builder::presort`]), its keys and the radix sort's second buffer.
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

impl Tree {
    /// Build the tree from the items in [`Tree::input`]. O(n · depth) time (plus duplicates for dup).
    pub fn build(&mut self, shape: &Shape) {
        self.nodes.clear();
        let Builders { input, main, parts } = &mut self.builders;
        self.bodies = input.len();
        if input.is_empty() {
            self.items.clear();
            return;
        }
        let (mut bmin, mut bmax) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for it in input.iter() {
            bmin = bmin.min(it.aabb.min);
            bmax = bmax.max(it.aabb.max);
        }
        // A cubic root keeps cells cubic, which the loose variant's size test assumes. The geometric cell only
        // places split planes: membership uses the infinite root faces, so rounding in `bmin + side` cannot lose
        // a body.
        let side = (bmax - bmin).max_element();
        let (lo, hi) = (bmin, bmin + Vec3::splat(side));
        let root = Node {
            lo,
            hi,
            c: (lo + hi) * 0.5,
            lo_t: Vec3::NEG_INFINITY,
            hi_t: Vec3::INFINITY,
            loose: Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
            max_w: 0.0,
            first_child: NONE,
            start: 0,
            end: input.len() as u32,
            depth: 0,
        };
        let whole = input.len() < SUBTREES_MIN;
        main.build(input, root, shape, whole);
        if whole || main.nodes.len() == 1 {
            // Small, or the root stayed a leaf: the main builder holds the whole tree. Swapping keeps both
            // buffers warm (they alternate between builder and tree).
            std::mem::swap(&mut self.nodes, &mut main.nodes);
            std::mem::swap(&mut self.items, &mut main.items);
            return;
        }

        // The root split: `main.nodes` is the root and its 8 children, whose ranges index `main.cur`.
        parts.resize_with(8, Builder::default);
        let (children, level) = (&main.nodes[1..9], &main.cur[..]);
        let subtree = |(k, part): (usize, &mut Builder)| {
            let mut child = children[k];
            let input = &level[child.start as usize..child.end as usize];
            child.start = 0;
            child.end = input.len() as u32;
            part.build(input, child, shape, true);
        };
        let parallel = rayon::current_num_threads() > 1;
        if parallel {
            parts.par_iter_mut().enumerate().for_each(subtree);
        } else {
            parts.iter_mut().enumerate().for_each(subtree);
        }

        // Join: root, the 8 subtree roots, then each subtree's deeper nodes; root items, then each subtree's.
        self.nodes.push(main.nodes[0]);
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
            self.nodes.push(shift(part.nodes[0], base));
        }
        for (part, &base) in parts.iter().zip(&bases) {
            self.nodes.extend(part.nodes[1..].iter().map(|&n| shift(n, base)));
        }
        // The items are copied by the threads too: at 10⁶ bodies a serial copy was a tenth of the build. Resizing
        // instead of clearing writes only the growth; every slot is then overwritten.
        self.items.resize(item_base as usize, Item::default());
        let (own, mut rest) = self.items.split_at_mut(main.items.len());
        own.copy_from_slice(&main.items);
        let mut slices: [&mut [Item]; 8] = Default::default();
        for (slice, part) in slices.iter_mut().zip(parts.iter()) {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(part.items.len());
            *slice = head;
            rest = tail;
        }
        if parallel {
            slices.par_iter_mut().zip(&parts[..]).for_each(|(slice, part)| slice.copy_from_slice(&part.items));
        } else {
            slices.iter_mut().zip(&parts[..]).for_each(|(slice, part)| slice.copy_from_slice(&part.items));
        }
    }
}

impl Builder {
    /// Build the subtree under `root`, whose items are `input[root.start..root.end]`, into `nodes` (the root is
    /// node 0) and `items`; with `whole == false` only the root is split, and its children's ranges index `cur`.
    fn build(&mut self, input: &[Item], root: Node, shape: &Shape, whole: bool) {
        self.nodes.clear();
        self.items.clear();
        self.nodes.push(root);
        if whole {
            let sorted = self.presort(input);
            self.level(&sorted, 0..1, shape);
            self.sorted = sorted;
        } else {
            self.level(input, 0..1, shape);
        }
        while whole && self.nodes.len() > self.level_start() {
            let (level, cur) = (self.level_start()..self.nodes.len(), std::mem::take(&mut self.cur));
            self.level(&cur, level, shape);
            // `level` left the new items in `cur`; the old buffer becomes the next level's `next`.
            self.next = cur;
        }
    }

    /// `input` sorted by `min.x` (a radix sort of the keys, then one gather). Every split scatters its items
    /// stably, so each node's items then come out in the order [`Builder::seal`] wants and its sort only confirms
    /// it (O(m) on sorted input): one O(n) sort instead of an O(m log m) sort per node, on each subtree's own
    /// thread (a tree's root split, serial, is not presorted; its own items are sorted by `seal`).
    fn presort(&mut self, input: &[Item]) -> Vec<Item> {
        let (keys, scratch) = (&mut self.keys, &mut self.keys_scratch);
        keys.clear();
        keys.extend(input.iter().enumerate().map(|(i, it)| u64::from(float_key(it.aabb.min.x)) << 32 | i as u64));
        sort_by_high_bits(keys, scratch, 32);
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.extend(keys.iter().map(|&k| input[(k & 0xFFFF_FFFF) as usize]));
        sorted
    }

    /// Split or seal the nodes `level`, whose items are in `src`; afterwards their children's items are in `cur`.
    fn level(&mut self, src: &[Item], level: std::ops::Range<usize>, shape: &Shape) {
        self.next_len = 0;
        self.first_of_next = self.nodes.len();
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
    }

    /// The first node of the level whose items are in `cur`.
    fn level_start(&self) -> usize {
        self.first_of_next
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
    /// others into `next` grouped by child. A dup split that would not reduce the pair tests is refused and the
    /// node becomes a leaf (see [`split_is_useless`]).
    fn split(&mut self, ni: usize, own: &[Item], shape: &Shape) {
        let node = self.nodes[ni];
        let c = node.c;
        let mut children = [node; 8];
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
            ch.c = (ch.lo + ch.hi) * 0.5;
            let margin = (ch.hi - ch.lo) * ((shape.looseness - 1.0) * 0.5);
            ch.loose = Aabb::new(ch.lo - margin, ch.hi + margin);
            ch.first_child = NONE;
            ch.depth = node.depth + 1;
        }

        // Classify: a child mask (dup) or a child index / STAY (nodup, loose), remembered for the scatter pass.
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
                if split_is_useless(counts[..8].try_into().expect("8 children"), own.len()) {
                    self.keep_all(ni, own);
                    return;
                }
            }
            Variant::Nodup => {
                for it in own {
                    // One child when the box lies on one side of every plane; its index is then `upper`.
                    let (lower, upper) = sides(it.aabb.min, it.aabb.max, c);
                    let code = if lower ^ upper == 7 { upper as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
                if split_keeps_too_many(counts[STAY as usize] as usize, own.len(), shape.max_leaf) {
                    self.keep_all(ni, own);
                    return;
                }
            }
            Variant::Loose => {
                for it in own {
                    let k = child_of_point(center(&it.aabb), c);
                    let code = if children[k].loose.contains(&it.aabb) { k as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
            }
        }

        // Children's items go to `next`, grouped by child; the items that stay (nodup, loose) are scattered in the
        // same pass to a ninth group after them, then copied to `items`: this node is processed now, so they
        // follow the earlier nodes' items. One branch-free pass: whether an item stays is a coin flip in a crowd.
        let base = self.next_len;
        let mut offsets = [0usize; 9];
        let mut at = base;
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
        // The stays' group is scratch past the level's end: the next node's children overwrite it.
        self.next_len = at;
        let next = &mut self.next;
        if shape.variant == Variant::Dup {
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
