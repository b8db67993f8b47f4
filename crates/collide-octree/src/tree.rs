//! The node pool shared by the three variants, and the level-by-level build.
//!
//! A tree is two flat arrays: `nodes` (children of a node are 8 consecutive entries, addressed by a `u32`) and
//! `items` (every stored box with its body id, the items of one node contiguous). Both are cleared and refilled
//! every build, so a tree that has grown to a scene's size allocates nothing afterwards.
//!
//! The build is breadth-first: all nodes of one depth are split in one sweep over a contiguous buffer of the
//! level's items (`cur`), scattering the items that go down into `next`, grouped by child. The items a node
//! keeps (all of them in a leaf; the straddlers of an inner node in the variants that keep some) are copied to
//! `items` in node order. Every level is a sequential pass over at most one copy of the items (plus the
//! duplicates of the dup variant), so the build is O(n · depth) with streaming memory access.

use collide_math::{Aabb, Vec3};

/// "No node": the `first_child` of a leaf.
pub(crate) const NONE: u32 = u32::MAX;

/// The deepest tree a parameter may ask for; it bounds the fixed traversal stacks.
pub const MAX_DEPTH_LIMIT: u32 = 20;

/// Traversal stack size: a depth-first walk holds at most 7 pending siblings per level plus one node's 8 children.
pub(crate) const STACK: usize = 8 * (MAX_DEPTH_LIMIT as usize + 2);

/// Which octree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// A body goes into every leaf its box overlaps; only leaves hold bodies (`octree-dup`).
    Dup,
    /// A body that straddles a node's split planes stays in that node (`octree-nodup`).
    Nodup,
    /// Cells enlarged by a looseness factor; each body in exactly one node, by centre and size (`octree-loose`).
    Loose,
}

impl Variant {
    /// The registry name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Dup => "octree-dup",
            Self::Nodup => "octree-nodup",
            Self::Loose => "octree-loose",
        }
    }
}

/// The build parameters of one tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shape {
    pub variant: Variant,
    /// A node with more items than this splits (unless at `max_depth`).
    pub max_leaf: u32,
    /// The root is depth 0; nodes at this depth never split.
    pub max_depth: u32,
    /// Loose cells are this many times the cell's edge (loose variant only; ≥ 1).
    pub looseness: f32,
}

/// One stored box: the body's box copied next to its id, so that leaf scans read memory sequentially instead
/// of chasing ids into the frame's box array.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct Item {
    pub aabb: Aabb,
    pub id: u32,
}

/// One octree node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Geometric cell; the children split it at `c`.
    pub lo: Vec3,
    /// Geometric cell, upper corner.
    pub hi: Vec3,
    /// The split point `(lo + hi) / 2`, computed once so that build, queries and `validate` compare with the same
    /// float (an item goes to the upper child on an axis iff its coordinate is `>= c`).
    pub c: Vec3,
    /// Half-open membership cell `[lo_t, hi_t)`: the geometric cell, but infinite on the root's faces, so every
    /// point belongs to exactly one leaf (invariant: children's membership cells partition the parent's).
    pub lo_t: Vec3,
    /// Upper corner of the membership cell (exclusive).
    pub hi_t: Vec3,
    /// Loose bound: the cell grown by `(looseness − 1)/2` of its edge on every side; infinite for the root
    /// (invariant, loose variant: every item of the node lies inside it).
    pub loose: Aabb,
    /// The largest x extent of the node's own items (invariant: own items are sorted by `min.x`), so a query
    /// scans only the window `min.x ∈ [q.min.x − max_w, q.max.x]` of them.
    pub max_w: f32,
    /// The first of 8 consecutive children, or [`NONE`] for a leaf.
    pub first_child: u32,
    /// The node's own items are `items[start..end]`.
    pub start: u32,
    /// End of the node's own items.
    pub end: u32,
    /// 0 for the root.
    pub depth: u32,
}

impl Node {
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.first_child == NONE
    }

    #[inline]
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// `true` when `p` lies in the half-open membership cell.
    #[inline]
    pub fn owns_point(&self, p: Vec3) -> bool {
        p.cmpge(self.lo_t).all() && p.cmplt(self.hi_t).all()
    }
}

/// The children (bit `k` = child `k`) whose half-open cells a box `[min, max]` touches: the lower child on an axis
/// when `min < c`, the upper when `max >= c`. Child `k` is upper on x when `k & 1`, on y when `k & 2`, on z when
/// `k & 4`. Build (dup) and every query use this one function, so they agree on boundaries bit for bit.
#[inline]
pub(crate) fn child_mask(min: Vec3, max: Vec3, c: Vec3) -> u8 {
    // Branch-free: which side of a plane a body lies on is a coin flip, and mispredicted branches here were the
    // largest single cost of the build in perf.
    let axis = |lower: bool, upper: bool, lo_pat: u8, hi_pat: u8| {
        (u8::from(lower).wrapping_neg() & lo_pat) | (u8::from(upper).wrapping_neg() & hi_pat)
    };
    axis(min.x < c.x, max.x >= c.x, 0x55, 0xAA)
        & axis(min.y < c.y, max.y >= c.y, 0x33, 0xCC)
        & axis(min.z < c.z, max.z >= c.z, 0x0F, 0xF0)
}

/// The child whose half-open cell holds point `p`.
#[inline]
pub(crate) fn child_of_point(p: Vec3, c: Vec3) -> usize {
    usize::from(p.x >= c.x) | (usize::from(p.y >= c.y) << 1) | (usize::from(p.z >= c.z) << 2)
}

/// The positions in `items` of `node`'s own items whose x interval can meet `[min_x, max_x]`: a binary search
/// in the node's items, sorted by `min.x`, for `min.x >= min_x − max_w`, then every item until `min.x > max_x`.
/// The slack on the lower bound covers the rounding of `max − min`; scanning a few items too many is harmless.
#[inline]
pub(crate) fn window(node: &Node, items: &[Item], min_x: f32, max_x: f32) -> std::ops::Range<usize> {
    let (start, end) = (node.start as usize, node.end as usize);
    let own = &items[start..end];
    let from = min_x - node.max_w - (min_x.abs() + node.max_w) * (1.0 / (1 << 20) as f32);
    let lo = own.partition_point(|t| t.aabb.min.x < from);
    let hi = lo + own[lo..].partition_point(|t| t.aabb.min.x <= max_x);
    start + lo..start + hi
}

/// The centre of a box as the loose variant uses it (one formula everywhere).
#[inline]
pub(crate) fn center(aabb: &Aabb) -> Vec3 {
    (aabb.min + aabb.max) * 0.5
}

/// `true` when splitting a dup node of `count` items into children of `counts` items would duplicate bodies
/// *and* not reduce the pair tests (Σ cₖ(cₖ−1) ≥ count(count−1)): the bodies are as large as the cells, or
/// overlap one another, and further splits only multiply references. Without this rule a body covering the
/// whole cell, two overlapping parallel sticks or a dense crowd make every level split all eight children until
/// `max_depth`: 8^depth nodes. A split without duplicates is always allowed (a tight cluster in one octant goes
/// down a chain of nodes, O(count) per level, bounded by `max_depth`).
pub(crate) fn split_is_useless(counts: &[u32; 8], count: usize) -> bool {
    let refs: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let tests: u64 = counts.iter().map(|&c| u64::from(c) * u64::from(c).saturating_sub(1)).sum();
    let count = count as u64;
    refs > count && tests >= count * count.saturating_sub(1)
}

/// Where the build sends one item of a splitting node (`STAY` = keep it in the node).
const STAY: u8 = 8;

/// One octree: node pool, items and the build's scratch buffers.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    /// Node 0 is the root (absent when no body was inserted).
    pub nodes: Vec<Node>,
    /// Stored boxes, grouped by node in node order.
    pub items: Vec<Item>,
    /// Bodies inserted by the last build (items count duplicates; this does not).
    pub bodies: usize,
    cur: Vec<Item>,
    next: Vec<Item>,
    codes: Vec<u8>,
}

impl Tree {
    /// Forget the contents (keeps the allocations).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.items.clear();
        self.cur.clear();
        self.bodies = 0;
    }

    /// The buffer the caller fills with the bodies to insert before calling [`Tree::build`].
    pub fn input(&mut self) -> &mut Vec<Item> {
        self.cur.clear();
        &mut self.cur
    }

    /// Build the tree from the items in [`Tree::input`]. O(n · depth) time (plus duplicates for dup).
    pub fn build(&mut self, shape: &Shape) {
        self.nodes.clear();
        self.items.clear();
        self.next.clear();
        self.bodies = self.cur.len();
        if self.cur.is_empty() {
            return;
        }
        let (mut bmin, mut bmax) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for it in &self.cur {
            bmin = bmin.min(it.aabb.min);
            bmax = bmax.max(it.aabb.max);
        }
        // A cubic root keeps cells cubic, which the loose variant's size test assumes. The geometric cell only
        // places split planes: membership uses the infinite root faces, so rounding in `bmin + side` cannot lose
        // a body.
        let side = (bmax - bmin).max_element();
        let (lo, hi) = (bmin, bmin + Vec3::splat(side));
        self.nodes.push(Node {
            lo,
            hi,
            c: (lo + hi) * 0.5,
            lo_t: Vec3::NEG_INFINITY,
            hi_t: Vec3::INFINITY,
            loose: Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
            max_w: 0.0,
            first_child: NONE,
            start: 0,
            end: self.cur.len() as u32,
            depth: 0,
        });
        let mut level = 0..1;
        while !level.is_empty() {
            let next_level = self.nodes.len();
            for ni in level {
                // While a node waits for its level, `start..end` index `cur`; afterwards, `items`.
                let node = self.nodes[ni];
                let (s, e) = (node.start as usize, node.end as usize);
                if e - s <= shape.max_leaf as usize || node.depth >= shape.max_depth {
                    let start = self.items.len() as u32;
                    self.items.extend_from_slice(&self.cur[s..e]);
                    let n = &mut self.nodes[ni];
                    n.start = start;
                    n.end = self.items.len() as u32;
                    self.seal(ni);
                } else {
                    self.split(ni, s, e, shape);
                }
            }
            level = next_level..self.nodes.len();
            std::mem::swap(&mut self.cur, &mut self.next);
            self.next.clear();
        }
    }

    /// Split node `ni` whose items are `cur[s..e]`: create its 8 children, keep the items that stay, and
    /// scatter the others into `next` grouped by child. A dup split that would not reduce the pair tests is
    /// refused and the node becomes a leaf (see [`split_is_useless`]).
    fn split(&mut self, ni: usize, s: usize, e: usize, shape: &Shape) {
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
                for it in &self.cur[s..e] {
                    let mask = child_mask(it.aabb.min, it.aabb.max, c);
                    self.codes.push(mask);
                    let mut m = mask;
                    while m != 0 {
                        counts[m.trailing_zeros() as usize] += 1;
                        m &= m - 1;
                    }
                }
                if split_is_useless(counts[..8].try_into().expect("8 children"), e - s) {
                    let start = self.items.len() as u32;
                    self.items.extend_from_slice(&self.cur[s..e]);
                    let n = &mut self.nodes[ni];
                    n.start = start;
                    n.end = self.items.len() as u32;
                    self.seal(ni);
                    return;
                }
            }
            Variant::Nodup => {
                for it in &self.cur[s..e] {
                    let mask = child_mask(it.aabb.min, it.aabb.max, c);
                    // Exactly one bit: the box lies on one side of every plane.
                    let code = if mask.is_power_of_two() { mask.trailing_zeros() as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
            }
            Variant::Loose => {
                for it in &self.cur[s..e] {
                    let k = child_of_point(center(&it.aabb), c);
                    let code = if children[k].loose.contains(&it.aabb) { k as u8 } else { STAY };
                    self.codes.push(code);
                    counts[code as usize] += 1;
                }
            }
        }

        // Items that stay belong to this node: it is processed now, so they follow the earlier nodes' items.
        let start = self.items.len() as u32;
        if counts[STAY as usize] > 0 {
            for (it, &code) in self.cur[s..e].iter().zip(&self.codes) {
                if code == STAY {
                    self.items.push(*it);
                }
            }
        }
        let first = self.nodes.len();
        let n = &mut self.nodes[ni];
        n.start = start;
        n.end = self.items.len() as u32;
        n.first_child = first as u32;
        self.seal(ni);

        let base = self.next.len();
        let mut offsets = [0usize; 8];
        let mut at = base;
        for (k, ch) in children.iter_mut().enumerate() {
            offsets[k] = at;
            ch.start = at as u32;
            at += counts[k] as usize;
            ch.end = at as u32;
        }
        self.nodes.extend_from_slice(&children);
        self.next.resize(at, Item::default());
        let next = &mut self.next;
        if shape.variant == Variant::Dup {
            for (it, &mask) in self.cur[s..e].iter().zip(&self.codes) {
                let mut m = mask;
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    next[offsets[k]] = *it;
                    offsets[k] += 1;
                    m &= m - 1;
                }
            }
        } else {
            for (it, &code) in self.cur[s..e].iter().zip(&self.codes) {
                if code != STAY {
                    let k = code as usize;
                    next[offsets[k]] = *it;
                    offsets[k] += 1;
                }
            }
        }
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

    /// Shape numbers for [`Stats`](collide_broadphase::Stats), summed into `acc`.
    pub fn shape_stats(&self, acc: &mut ShapeStats) {
        for n in &self.nodes {
            acc.nodes += 1;
            acc.depth = acc.depth.max(n.depth);
            if n.is_leaf() {
                acc.leaves += 1;
                acc.leaf_refs += n.len() as u64;
                acc.max_leaf_load = acc.max_leaf_load.max(n.len() as u64);
            } else {
                acc.inner_bodies += n.len() as u64;
            }
        }
        acc.dup_refs += (self.items.len() - self.bodies.min(self.items.len())) as u64;
    }
}

/// Counters of a tree's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ShapeStats {
    pub nodes: u64,
    pub leaves: u64,
    pub depth: u32,
    pub leaf_refs: u64,
    pub max_leaf_load: u64,
    pub inner_bodies: u64,
    pub dup_refs: u64,
}
