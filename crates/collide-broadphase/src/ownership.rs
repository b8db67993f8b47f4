//! The min-corner rule: how a structure that stores a body in several cells reports each pair once, without a
//! hash set or a sort-and-deduplicate pass.
//!
//! When two boxes overlap, their intersection is a box, and its min corner `max(a.min, b.min)` ([`owner_point`])
//! lies in both of them. Cut space into cells that **partition** it — half-open cells `[lo, hi)` whose outer
//! faces reach to infinity, so that every point lies in exactly one ([`owns`]) — and store each body in every
//! cell its box touches. Then the cell holding the owner point stores both bodies, and it is the only cell that
//! may report the pair: one extra comparison per pair found, none per pair tested in vain. The octree with
//! duplicates applies it to its leaves (and to the moving bodies' walk of its static tree), multi-box pruning
//! to the regions of its grid (`RegionGrid::region_of` of the `grid` module, whose border
//! regions extend to infinity); a uniform grid or a BVH with duplicated references would use it the same way.
//!
//! The rule needs the *same* cell function for storing and for reporting: a box is stored in every cell whose
//! half-open extent its closed extent meets (`min < hi` and `max >= lo` per axis), which the owner point's cell
//! always is.

use collide_math::Vec3;

/// The min corner of the intersection of two overlapping boxes, given their min corners: the point whose cell
/// reports the pair.
#[inline(always)]
#[must_use]
pub fn owner_point(a_min: Vec3, b_min: Vec3) -> Vec3 {
    a_min.max(b_min)
}

/// `true` when `p` lies in the half-open cell `[lo, hi)` (on every axis `lo <= p < hi`; infinite bounds make the
/// outer faces of a partition reach everything).
#[inline(always)]
#[must_use]
pub fn owns(lo: Vec3, hi: Vec3, p: Vec3) -> bool {
    p.cmpge(lo).all() && p.cmplt(hi).all()
}

#[cfg(test)]
mod tests;
