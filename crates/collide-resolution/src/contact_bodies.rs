//! The bodies of a step's contacts: what resolution numbers densely and the walls visit.
//!
//! The contacts of a step touch a minority of the bodies, scattered through the body arrays. They are marked in a
//! bitset — one bit per body, O(n / 64) to clear — with, per 64-bit word, the count of marked bodies in the words
//! before it. That count gives every marked body its *rank*, its place among the marked ones in body order, in
//! O(1); and the marked bodies of a range of bodies are found word by word, ascending, in O(range / 64 + marked).
//! The [`Solver`](crate::Solver) copies the marked bodies into a dense array by rank; the simulation's walls visit
//! each range's marked bodies on the range's own task.

use collide_broadphase::Pair;
use std::ops::Range;

/// The bodies of a step's contacts: marked from the contacts' pairs by [`ContactBodies::mark`], numbered by rank
/// in body order. Its buffers live across steps: a warm set allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ContactBodies {
    /// Bit `i % 64` of word `i / 64`: body `i` is in a contact of this step.
    marks: Vec<u64>,
    /// Per mark word: the marked bodies in the words before it (`marks.len() + 1` entries; the last is the total).
    ranks: Vec<u32>,
}

impl ContactBodies {
    /// Mark the bodies of `pairs` among `bodies` bodies, forgetting the last step's, and number them. Every index
    /// must be below `bodies`. O(bodies / 64 + pairs), serial: plain stores into a bitset that stays in the cache
    /// cost less than atomic ones from two threads.
    pub fn mark(&mut self, bodies: usize, pairs: impl IntoIterator<Item = Pair>) {
        self.marks.clear();
        self.marks.resize(bodies.div_ceil(64), 0);
        for pair in pairs {
            self.marks[pair.a as usize / 64] |= 1 << (pair.a % 64);
            self.marks[pair.b as usize / 64] |= 1 << (pair.b % 64);
        }
        self.ranks.clear();
        let mut total = 0;
        for w in &self.marks {
            self.ranks.push(total);
            total += w.count_ones();
        }
        self.ranks.push(total);
    }

    /// How many bodies are marked.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ranks.last().map_or(0, |&r| r as usize)
    }

    /// `true` when no body is marked.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The marked bodies in `range` (whose start is a multiple of 64), ascending.
    pub fn in_range(&self, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        self.ranked_in(range).map(|(i, _)| i)
    }

    /// [`ContactBodies::in_range`] with each body's rank: consecutive, from the rank of the range's first word.
    pub(crate) fn ranked_in(&self, range: Range<usize>) -> impl Iterator<Item = (usize, u32)> + '_ {
        debug_assert!(range.start.is_multiple_of(64));
        let words = range.start / 64..range.end.div_ceil(64).min(self.marks.len());
        let first = self.ranks.get(words.start).copied().unwrap_or(0);
        self.marks[words.clone()]
            .iter()
            .zip(words)
            .flat_map(|(&w, index)| {
                let mut bits = w;
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let bit = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        index * 64 + bit
                    })
                })
            })
            .zip(first..)
    }

    /// Marked body `i`'s rank: its place among the marked bodies, in body order.
    pub(crate) fn rank(&self, i: u32) -> u32 {
        let (w, bit) = (i as usize / 64, i % 64);
        self.ranks[w] + (self.marks[w] & ((1u64 << bit) - 1)).count_ones()
    }
}

#[cfg(test)]
mod tests;
