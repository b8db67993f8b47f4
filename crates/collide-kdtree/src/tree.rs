//! The data structure, the bottom layer of the crate: the node array, the item array, and the rules of where a
//! body is stored. Everything else imports this module; it imports nothing of the crate.
//!
//! A tree is three flat arrays. `nodes` holds the nodes in **pre-order**: a node, then its left subtree, then its
//! right subtree, so the left child is the next node and a subtree is a contiguous range `i..end`. `items` holds
//! every stored box next to its body id, grouped by node in the same pre-order, so a node's own items are
//! contiguous and so are the items of a whole subtree. `spans` says where each node's items are; it is rewritten
//! every frame, while `nodes` changes only when the tree's shape does.

use collide_math::{Aabb, Vec3, Vec3A};

/// "No node": the parent of the root, the right child of a leaf.
pub(crate) const NONE: u32 = u32::MAX;

/// The deepest tree a parameter may ask for (the root is depth 0). A balanced tree of 10⁷ bodies in leaves of
/// 8 is 21 levels deep; the limit only stops a degenerate scene from growing a chain.
pub const MAX_DEPTH_LIMIT: u32 = 48;

/// One stored box: the body's box copied next to its id, so that the sweeps read memory in order instead of
/// chasing ids into the frame's box array.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub(crate) struct Item {
    pub aabb: Aabb,
    pub id: u32,
}

/// The bytes of an [`Item`], for the `bytes_touched` estimates.
pub(crate) const ITEM_BYTES: u64 = size_of::<Item>() as u64;

/// One kd node. Its region is the half-open box `[lo, hi)`, infinite on the root's faces, so that the regions of
/// the leaves partition space and every finite box fits the root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    /// The region's lower corner (invariant: a child's region is its parent's cut at the parent's plane — the
    /// left child's `hi[axis]` and the right child's `lo[axis]` are the plane, every other bound is the
    /// parent's).
    pub lo: Vec3,
    /// The region's upper corner, exclusive.
    pub hi: Vec3,
    /// An inner node's split plane `x[axis] = plane` (invariant: finite, and `lo[axis] <= plane <= hi[axis]`).
    pub plane: f32,
    /// An inner node's split axis, 0 = x.
    pub axis: u8,
    /// The axis the node's own items are sorted on and swept along (invariant: the items are sorted by `min` on
    /// it; an inner node's is not its split axis, along which its own bodies all overlap).
    pub sweep: u8,
    /// 0 for the root (invariant: a child is one deeper than its parent, and no node is deeper than `max_depth`).
    pub depth: u8,
    /// The body count at which the planner last refused to split this leaf (0: it did not), so that a crowd that
    /// cannot be split is not re-examined every frame (see `edit.rs`).
    pub refused: u32,
    /// The parent, or [`NONE`] for the root (invariant: the parent's subtree range holds this node).
    pub parent: u32,
    /// The right child, or [`NONE`] for a leaf; the left child is the next node (invariant: pre-order — the
    /// left subtree is `self + 1..right` and the right subtree `right..end`).
    pub right: u32,
    /// One past the last node of the subtree.
    pub end: u32,
}

impl Node {
    /// A leaf over the region `[lo, hi)`.
    pub fn leaf(lo: Vec3, hi: Vec3, depth: u32, parent: u32, sweep: u8) -> Self {
        Self { lo, hi, plane: 0.0, axis: 0, sweep, depth: depth as u8, refused: 0, parent, right: NONE, end: NONE }
    }

    /// The root of an empty tree: a leaf over all space.
    pub fn root() -> Self {
        Self { end: 1, ..Self::leaf(Vec3::NEG_INFINITY, Vec3::INFINITY, 0, NONE, 0) }
    }

    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.right == NONE
    }

    /// `true` when `b` lies in the region: `lo <= min` and `max < hi` on every axis.
    #[inline]
    pub fn fits(&self, b: &Aabb) -> bool {
        // On four lanes and with `&`, not `&&`: two comparisons and one mask, no branch between them.
        let (min, max) = (Vec3A::from(b.min), Vec3A::from(b.max));
        (min.cmpge(Vec3A::from(self.lo)) & max.cmplt(Vec3A::from(self.hi))).all()
    }

    /// `true` when the region can hold a box that meets the closed box `h` (a box in the region has `min >= lo`
    /// and `max < hi`, so none can meet `h` when `h.max < lo` or `h.min >= hi` on some axis).
    #[inline]
    pub fn meets(&self, h: &Aabb) -> bool {
        h.max.cmpge(self.lo).all() && h.min.cmplt(self.hi).all()
    }

    /// Where an inner node sends `b`: left when it ends before the plane, right when it starts at or after it,
    /// else it straddles the plane and stays. A box touching the plane from the left (`max == plane`) stays, so a
    /// left body and a right body never touch: their boxes are apart by the plane.
    #[inline]
    pub fn side(&self, b: &Aabb) -> Side {
        let a = self.axis as usize;
        if b.max[a] < self.plane {
            Side::Left
        } else if b.min[a] >= self.plane {
            Side::Right
        } else {
            Side::Stay
        }
    }

    /// The left child's region: this one up to the plane.
    pub fn left_region(&self) -> (Vec3, Vec3) {
        let mut hi = self.hi;
        hi[self.axis as usize] = self.plane;
        (self.lo, hi)
    }

    /// The right child's region: this one from the plane.
    pub fn right_region(&self) -> (Vec3, Vec3) {
        let mut lo = self.lo;
        lo[self.axis as usize] = self.plane;
        (lo, self.hi)
    }
}

/// The bytes of a [`Node`], for the `bytes_touched` estimates.
pub(crate) const NODE_BYTES: u64 = size_of::<Node>() as u64;

/// Where [`Node::side`] sends a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Left,
    Right,
    Stay,
}

/// Where a node's items are in the item array, this frame. Pre-order makes three numbers enough (invariant:
/// `start <= own_end <= sub_end`; a leaf's `sub_end` is its `own_end`; an inner node's left child starts at its
/// `own_end`, its right child at the left child's `sub_end`, and its `sub_end` is the right child's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    /// The first of the node's own items.
    pub start: u32,
    /// One past the node's own items: its subtree's items follow.
    pub own_end: u32,
    /// One past the last item of the subtree.
    pub sub_end: u32,
}

impl Span {
    /// The node's own items.
    #[inline]
    pub fn own(&self) -> std::ops::Range<usize> {
        self.start as usize..self.own_end as usize
    }

    /// The number of the node's own items.
    #[inline]
    pub fn own_len(&self) -> usize {
        (self.own_end - self.start) as usize
    }

    /// The number of items in the subtree, its own included.
    #[inline]
    pub fn population(&self) -> usize {
        (self.sub_end - self.start) as usize
    }
}

/// Set every span's `sub_end` from the starts: a subtree's items end where the next node after it (`end`, in
/// pre-order) starts, or at `total` for the subtrees that reach the end of the array. The spans' `start`s must
/// already tile the items in pre-order.
pub(crate) fn set_sub_ends(nodes: &[Node], spans: &mut [Span], total: u32) {
    for n in (0..nodes.len()).rev() {
        let end = nodes[n].end as usize;
        spans[n].sub_end = if end < nodes.len() { spans[end].start } else { total };
    }
}

/// `true` when `b` is a box the tree may store: the contract's
/// [`is_valid_box`](collide_broadphase::is_valid_box) (finite corners, `min <= max` on every axis).
pub(crate) use collide_broadphase::is_valid_box as is_valid;

/// The middle of `b` on `axis`, without overflow for coordinates near `f32::MAX`.
#[inline]
pub(crate) fn centre(b: &Aabb, axis: usize) -> f32 {
    b.min[axis] * 0.5 + b.max[axis] * 0.5
}

/// The axis, not `except`, along which the centres of `items` spread widest (ties to the lower axis); 0 for no
/// items. A sweep along it tests the fewest boxes that are apart on the other axes.
pub(crate) fn spread_axis(items: &[Item], except: Option<usize>) -> u8 {
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for it in items {
        let c = it.aabb.min * 0.5 + it.aabb.max * 0.5;
        lo = lo.min(c);
        hi = hi.max(c);
    }
    let spread = hi - lo;
    let mut best = None;
    for axis in 0..3 {
        if Some(axis) != except && best.is_none_or(|b: usize| spread[axis] > spread[b]) {
            best = Some(axis);
        }
    }
    best.unwrap_or(0) as u8
}

#[cfg(test)]
mod tests;
