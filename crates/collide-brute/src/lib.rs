//! Brute force: test every pair of boxes.
//!
//! This is the oracle of collide. It is [`reference_pairs`] — the plainest possible double loop — behind the
//! [`Broadphase`] trait, so that the app, the bench and the meta-broadphase can run "the truth" like any other
//! algorithm, and so that every other algorithm's figures have a baseline.
//!
//! # Complexity
//! - Time: n(n−1)/2 box tests per call, whatever the scene: Θ(n²). 10 000 bodies = 5·10⁷ tests.
//! - Memory: nothing beyond the output.
//! - Best case: tiny n (below a few hundred bodies it beats every structure, having no bookkeeping).
//! - Worst case: every case; the cost does not depend on positions, speed or clustering at all.
//!
//! # Invalid boxes
//! [`reference_pairs`] skips them (they overlap nothing); [`find_pairs`](Broadphase::find_pairs) first reads every
//! box once to find them, so that [`InvalidBoxes::Panic`](collide_broadphase::InvalidBoxes) can name the body —
//! O(n), nothing beside the n²/2 tests.
//!
//! # Performance tips
//! Use it only to check other algorithms, or for scenes of at most a few hundred bodies.

use collide_broadphase::invalid::first_invalid;
use collide_broadphase::{Broadphase, Frame, PairList, Stats, reference_pairs};

/// The O(n²) brute-force broadphase. Registry name: `brute`.
#[derive(Debug, Default, Clone)]
pub struct BruteForce {
    last_tests: u64,
    last_bytes: u64,
}

impl BruteForce {
    /// A brute-force broadphase.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Broadphase for BruteForce {
    fn name(&self) -> &'static str {
        "brute"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let n = frame.aabbs.len() as u64;
        self.last_tests = n * n.saturating_sub(1) / 2;
        // The boxes are read from memory once; every later pass over them hits the cache (or, past the cache's
        // size, streams them again — brute force is not run at those sizes).
        self.last_bytes = n * size_of::<collide_broadphase::Aabb>() as u64;
        let mut from = 0;
        while let Some(i) = first_invalid(&frame.aabbs[from..]) {
            frame.reject_invalid(from + i);
            from += i + 1;
        }
        reference_pairs(frame.aabbs, out);
    }

    fn stats(&self) -> Stats {
        Stats::new().with_work(self.last_tests, 0, self.last_bytes)
    }
}

#[cfg(test)]
mod tests;
