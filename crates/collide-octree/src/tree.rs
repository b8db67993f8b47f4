//! The data structure, the bottom layer of the crate: the node pool shared by the three variants, the rules of
//! where a body is stored, and the small geometric helpers every search uses. Everything else imports this
//! module; it imports nothing of the crate.
//!
//! A tree is two flat arrays: `nodes` (children of a node are 8 consecutive entries, addressed by a `u32`) and
//! `items` (every stored box with its body id, the items of one node contiguous). Both are cleared and refilled
//! every build (`build.rs`), so a tree that has grown to a scene's size allocates nothing afterwards.

use collide_broadphase::ownership;
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

/// Rename the body of every item of `items` by `old_to_new`.
pub(crate) fn rename_items(items: &mut [Item], old_to_new: &[u32]) {
    for it in items {
        it.id = old_to_new[it.id as usize];
    }
}

/// The bytes of an [`Item`], for the `bytes_touched` estimates.
pub(crate) const ITEM_BYTES: u64 = size_of::<Item>() as u64;

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

    /// `true` when `p` lies in the half-open membership cell (the [ownership rule](collide_broadphase::ownership)
    /// of the dup variant: a pair is reported by the leaf that owns the min corner of its intersection).
    #[inline]
    pub fn owns_point(&self, p: Vec3) -> bool {
        ownership::owns(self.lo_t, self.hi_t, p)
    }
}

/// The bytes of a [`Node`], for the `bytes_touched` estimates.
pub(crate) const NODE_BYTES: u64 = size_of::<Node>() as u64;

/// The children (bit `k` = child `k`) whose half-open cells a box `[min, max]` touches: the lower child on an axis
/// when `min < c`, the upper when `max >= c`. Child `k` is upper on x when `k & 1`, on y when `k & 2`, on z when
/// `k & 4`. Build (dup) and every query use this one function, so they agree on boundaries bit for bit.
#[inline]
pub(crate) fn child_mask(min: Vec3, max: Vec3, c: Vec3) -> u8 {
    let (lower, upper) = sides(min, max, c);
    CHILD_MASKS[(lower | upper << 3) as usize]
}

/// Per axis (bit 0 = x), whether a box `[min, max]` reaches below `c` (`lower`) and at or above it (`upper`).
/// Vector compares and a table instead of per-axis conditions: which side of a plane a body lies on is a coin
/// flip, the compiler turned the conditions into branches, and their mispredictions were the largest cost of
/// the build in perf.
#[inline]
pub(crate) fn sides(min: Vec3, max: Vec3, c: Vec3) -> (u32, u32) {
    (min.cmplt(c).bitmask(), max.cmpge(c).bitmask())
}

/// [`child_mask`] by `lower | upper << 3` (see [`sides`]).
static CHILD_MASKS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let (lower, upper) = (i & 7, i >> 3);
        let mut mask = 0xFFu8;
        let patterns = [(0x55u8, 0xAAu8), (0x33, 0xCC), (0x0F, 0xF0)];
        let mut axis = 0;
        while axis < 3 {
            let mut m = 0;
            if lower >> axis & 1 == 1 {
                m |= patterns[axis].0;
            }
            if upper >> axis & 1 == 1 {
                m |= patterns[axis].1;
            }
            mask &= m;
            axis += 1;
        }
        table[i] = mask;
        i += 1;
    }
    table
};

/// The child whose half-open cell holds point `p`.
#[inline]
pub(crate) fn child_of_point(p: Vec3, c: Vec3) -> usize {
    usize::from(p.x >= c.x) | (usize::from(p.y >= c.y) << 1) | (usize::from(p.z >= c.z) << 2)
}

/// The relative slack that covers float rounding wherever a search bounds boxes by a width computed as
/// `max − min` (a node's `max_w`, a slab's widest extent) and then subtracts it again: `min − (max − min)` may
/// land one rounding step above the true `min` of the widest box, which would drop a touching pair. 2⁻²⁰ of the
/// magnitudes involved is far above f32's 2⁻²⁴ rounding and far below any box size that matters; scanning a few
/// boxes too many is harmless.
pub(crate) const ROUNDING_SLACK: f32 = 1.0 / (1 << 20) as f32;

/// The interval `[p − w, p + w]`, grown by [`ROUNDING_SLACK`]: it holds every box of width at most `w` on an
/// axis that meets the coordinate `p` there, so only boxes meeting it can overlap one of them. A nodup slab's
/// layer of the subtree is `layer(c, w)` around the plane `c`; a window of boxes sorted by `min` that can meet
/// `[q.min, q.max]` starts at `layer(q.min, w).0`.
#[inline]
pub(crate) fn layer(p: f32, w: f32) -> (f32, f32) {
    let slack = (p.abs() + w) * ROUNDING_SLACK;
    (p - w - slack, p + w + slack)
}

/// The widest extent on `axis` in `v`, grown by [`ROUNDING_SLACK`] (the rounding of `max − min`).
pub(crate) fn widest(v: &[Item], axis: usize) -> f32 {
    let w = v.iter().fold(0.0f32, |w, it| w.max(it.aabb.max[axis] - it.aabb.min[axis]));
    w * (1.0 + ROUNDING_SLACK)
}

/// The positions in `v`, sorted by `min` on axis `A` and at most `w` wide there, of the boxes that can meet
/// `[min, max]` on that axis: a binary search for `min.A >= min − w` ([`layer`]'s lower end), then every box
/// until `min.A > max`.
#[inline]
pub(crate) fn window_on<const A: usize>(v: &[Item], w: f32, min: f32, max: f32) -> std::ops::Range<usize> {
    let from = layer(min, w).0;
    let lo = v.partition_point(|t| t.aabb.min[A] < from);
    lo..lo + v[lo..].partition_point(|t| t.aabb.min[A] <= max)
}

/// The positions in `items` of `node`'s own items whose x interval can meet `[min_x, max_x]` (the node's items
/// are sorted by `min.x` and at most `max_w` wide): [`window_on`] on x, written out for the node's range of the
/// item array (delegating cost the loose queries 2% more instructions).
#[inline]
pub(crate) fn window(node: &Node, items: &[Item], min_x: f32, max_x: f32) -> std::ops::Range<usize> {
    let (start, end) = (node.start as usize, node.end as usize);
    let own = &items[start..end];
    let from = layer(min_x, node.max_w).0;
    let lo = own.partition_point(|t| t.aabb.min.x < from);
    let hi = lo + own[lo..].partition_point(|t| t.aabb.min.x <= max_x);
    start + lo..start + hi
}

/// The centre of a box as the loose variant uses it (one formula everywhere), halved before it is summed: the sum
/// of two coordinates near `f32::MAX` overflows to infinity, which no half-open cell holds (found by the
/// broadphase fuzz target: a box at `z = f32::MAX` stored where its centre's cell is not). Halving is exact, so
/// every other box gets the same centre as `(min + max) / 2`.
#[inline]
pub(crate) fn center(aabb: &Aabb) -> Vec3 {
    aabb.min * 0.5 + aabb.max * 0.5
}

/// `true` when splitting a dup node of `count` items into children of `counts` items would duplicate bodies
/// *and* not reduce the pair tests (Σ cₖ(cₖ−1) ≥ count(count−1)): the bodies are as large as the cells, or
/// overlap one another, and further splits only multiply references. Without this rule a body covering the
/// whole cell, two overlapping parallel sticks or a dense crowd make every level split all eight children until
/// `max_depth`: 8^depth nodes. A split without duplicates is always allowed (a tight cluster in one octant: the
/// build first re-centres the node on it, `build.rs`'s `tighten`, and otherwise it goes down a chain of nodes,
/// O(count) per level, bounded by `max_depth`).
pub(crate) fn split_is_useless(counts: &[u32; 8], count: usize) -> bool {
    let refs: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let tests: u64 = counts.iter().map(|&c| u64::from(c) * u64::from(c).saturating_sub(1)).sum();
    let count = count as u64;
    refs > count && tests >= count * count.saturating_sub(1)
}

/// `true` when a nodup node of `count` bodies is refused its split: it is small (at most [`NODUP_REFUSE_LOADS`]
/// times `max_leaf`) and the split would keep more than [`NODUP_MAX_STAY`] of its bodies in it (they straddle
/// its planes). It then stays a leaf, its bodies swept together. In a dense crowd of equal bodies the share
/// that straddles doubles with every level (cells 4 body widths wide keep more than half), so the last splits
/// move few bodies down and add a level of small nodes whose own bodies must be paired with their subtree
/// through slabs and layers, each with its own small sorts and sweeps. At the dense moment of the `cluster`
/// scene refusing them cut the search's instructions by 8% and its mispredicted branches by 30% (valgrind).
/// Large nodes always split: their straddlers may be sheets along the planes, which the slabs pair far better
/// than one sweep would. Scenes of bodies small against the cells never reach the share.
pub(crate) fn split_keeps_too_many(stay: usize, count: usize, max_leaf: u32) -> bool {
    count <= NODUP_REFUSE_LOADS * max_leaf as usize && stay as f64 > NODUP_MAX_STAY * count as f64
}

/// See [`split_keeps_too_many`]. Measured on the `cluster` scene's dense moment: 0.3 is better than 0.5 (which
/// refuses only cells 4 body widths wide), 0.25 already refuses cells 8 wide, whose leaves' sweeps then grow.
pub(crate) const NODUP_MAX_STAY: f64 = 0.3;

/// See [`split_keeps_too_many`]: a cap of 8 leaves' worth of bodies did as well as none on the `cluster` scene.
pub(crate) const NODUP_REFUSE_LOADS: usize = 8;

/// One octree: node pool and items (built by a `TreeBuilder`, which keeps its scratch apart).
#[derive(Debug, Default)]
pub(crate) struct Tree {
    /// Node 0 is the root (absent when no body was inserted); a node's children follow it in the pool.
    pub nodes: Vec<Node>,
    /// Stored boxes, grouped by node.
    pub items: Vec<Item>,
    /// Bodies inserted by the last build (items count duplicates; this does not).
    pub bodies: usize,
}

impl Tree {
    /// Forget the contents (keeps the allocations).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.items.clear();
        self.bodies = 0;
    }

    /// Rename every item's body by `old_to_new` (a permutation: the tree's shape and item order do not depend on
    /// the bodies' names). O(items).
    pub fn rename(&mut self, old_to_new: &[u32]) {
        rename_items(&mut self.items, old_to_new);
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
