use crate::PairList;
use collide_math::Aabb;

/// The right answer, by definition: every pair `i < j` whose boxes overlap, in `(i, j)` order.
///
/// O(n²) time — n(n−1)/2 tests — and O(1) memory beyond the output. The conformance kit compares every other
/// algorithm with this function, and `collide-brute` is this function behind the [`Broadphase`] trait.
/// It is deliberately the plainest possible loop so that its correctness can be read off the page.
///
/// [`Broadphase`]: crate::Broadphase
pub fn reference_pairs(aabbs: &[Aabb], out: &mut PairList) {
    out.clear();
    for (i, a) in aabbs.iter().enumerate() {
        for (j, b) in aabbs.iter().enumerate().skip(i + 1) {
            if a.overlaps(b) {
                out.push(i as u32, j as u32);
            }
        }
    }
}
