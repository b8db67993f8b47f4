use crate::PairList;
use crate::invalid::is_valid_box;
use collide_math::Aabb;

/// The right answer, by definition: every pair `i < j` of valid boxes that overlap, in `(i, j)` order.
///
/// An invalid box (not finite, or `min > max` on an axis: see [the contract](crate::invalid)) overlaps nothing,
/// so it is skipped — [`Aabb::overlaps`] alone would pair an inverted box with the boxes spanning its corners.
/// O(n²) time — n(n−1)/2 tests — and O(1) memory beyond the output. The conformance kit compares every other
/// algorithm with this function, and `collide-brute` is this function behind the [`Broadphase`] trait.
/// It is deliberately the plainest possible loop so that its correctness can be read off the page; the validity
/// of `b` is tested only once the boxes overlap, so valid input pays one predictable branch per pair found.
///
/// [`Broadphase`]: crate::Broadphase
pub fn reference_pairs(aabbs: &[Aabb], out: &mut PairList) {
    out.clear();
    for (i, a) in aabbs.iter().enumerate() {
        if !is_valid_box(a) {
            continue;
        }
        for (j, b) in aabbs.iter().enumerate().skip(i + 1) {
            if a.overlaps(b) && is_valid_box(b) {
                out.push(i as u32, j as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests;
