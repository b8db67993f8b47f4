//! The few box functions both hierarchies need beyond `collide_math::Aabb`: the surface-area cost, the check
//! that a box may enter a tree, and the debug-build report of one that may not.

use collide_math::Aabb;

/// Half the surface area of `b`: the cost measure of the surface-area heuristic (SAH). The probability that a
/// random ray — and, for small query boxes, a random query — meets a box is proportional to its area, so the
/// expected cost of a hierarchy is the sum of its nodes' areas; the factor 2 changes no comparison.
///
/// In f32 a box about 1e19 wide overflows to infinity. Every decision taken from areas is a comparison that
/// then comes out false (or chooses arbitrarily among infinities), which costs tree quality for such boxes but
/// never correctness: which sibling a leaf gets, or whether a rotation happens, does not change what the tree
/// holds.
#[inline(always)]
#[must_use]
pub(crate) fn area(b: &Aabb) -> f32 {
    let e = b.max - b.min;
    e.x * e.y + e.y * e.z + e.z * e.x
}

/// `true` when `b` may enter a hierarchy: the contract's [`is_valid_box`] (finite corners, `min <= max`).
///
/// The workspace's contract for any other box (non-finite or inverted) is that it **overlaps nothing**: it is
/// never reported in a pair, and it must not corrupt the answer for the other bodies. An inverted box can
/// satisfy `Aabb::overlaps` against a large box (`[5, 3]` and `[0, 10]` pass both comparisons), and a NaN
/// poisons every union above it, so such boxes are kept out of every structure rather than filtered later.
pub(crate) use collide_broadphase::is_valid_box as is_usable;

/// `true` when `b` lies inside `fat` and is not inverted — so, `fat` being finite, `b` is usable and may stay
/// where it is. Nine comparisons combined without branches (as `Aabb::overlaps`): glam's `BVec3` masks took 14
/// instructions a body more in the dynamic tree's scan.
#[inline(always)]
#[must_use]
pub(crate) fn fits(b: &Aabb, fat: &Aabb) -> bool {
    (b.min.x >= fat.min.x)
        & (b.min.y >= fat.min.y)
        & (b.min.z >= fat.min.z)
        & (b.max.x <= fat.max.x)
        & (b.max.y <= fat.max.y)
        & (b.max.z <= fat.max.z)
        & (b.min.x <= b.max.x)
        & (b.min.y <= b.max.y)
        & (b.min.z <= b.max.z)
}

#[cfg(test)]
mod tests;
