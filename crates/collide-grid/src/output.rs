//! The pairs written straight into the caller's output: each partition's search gets a block of it, sized from
//! what the partition found last frame, and writes there in parallel; what overflows a block goes to the
//! partition's own spill vector; at the end the few holes left below the total are filled from the pairs past
//! it and the spills, and the output is cut to the total.
//!
//! **Why.** Gathering each partition's pairs into its own vector and copying them into the output in partition
//! order wrote every pair twice and copied them on one thread: at `power-law`'s 2.3 million pairs a frame at
//! 10⁵ bodies, 18 MB written, then read and written again serially, a few milliseconds of a frame that should
//! cost a few tens. Here a pair is written once, where it stays, unless its block overflowed (a partition
//! finding more than last frame's count plus an eighth) or it lies past the total and fills a hole of a
//! partition that found fewer: a few percent of them, moved once, on one thread.
//!
//! **Determinism.** The blocks are laid out in partition order from last frame's counts, the holes filled in a
//! fixed order: the output is a function of the plan and the frames so far, never of the scheduling, so a run
//! on a given number of threads writes the same pairs in the same order every time (the pair set is the same on
//! any number; its order follows the partitions, which the thread count sets, as before).
//!
//! **Cost.** O(partitions) to lay out and split; O(pairs moved) to gather: the spills and the pairs past the
//! total, about the blocks' slack. The output is cut to the total at the end of a frame and laid out again at
//! the next: the slots past the last total (the blocks' slack, about an eighth) are written with defaults first,
//! and its buffer grows only when the blocks need more than it ever held.

use collide_broadphase::Pair;

/// A partition's block of the output and what it wrote, kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The block is `start..start + capacity` of the output.
    pub start: usize,
    /// Its length, from the pairs the partition found last frame ([`capacity`]).
    pub capacity: usize,
    /// The pairs written into it this frame.
    pub written: usize,
    /// The pairs found past it.
    pub spill: Vec<Pair>,
}

/// What holds a partition's [`Block`] (its search, `search.rs`).
pub trait HasBlock {
    /// The block.
    fn block(&self) -> &Block;
    /// The block, to change.
    fn block_mut(&mut self) -> &mut Block;
}

impl HasBlock for Block {
    fn block(&self) -> &Block {
        self
    }
    fn block_mut(&mut self) -> &mut Block {
        self
    }
}

/// A partition's block: the pairs it finds, written at `block[len]` until the block is full, then into `spill`.
pub struct Sink<'a> {
    block: &'a mut [Pair],
    len: usize,
    spill: &'a mut Vec<Pair>,
}

impl<'a> Sink<'a> {
    /// A sink writing into `block` first, then into `spill` (cleared).
    pub fn new(block: &'a mut [Pair], spill: &'a mut Vec<Pair>) -> Self {
        spill.clear();
        Self { block, len: 0, spill }
    }

    /// Write `pair` (the searches use [`Sink::push_if`]; the tests write pairs one by one).
    #[cfg(test)]
    pub fn push(&mut self, pair: Pair) {
        if let Some(slot) = self.block.get_mut(self.len) {
            *slot = pair;
            self.len += 1;
        } else {
            self.spill.push(pair);
        }
    }

    /// Write `pair` when `keep`, without a branch on `keep` while the block has room: the pair is stored in the
    /// next slot either way and the slot taken only when kept. The searches' candidates along x fail on y or z
    /// about half the time (`power-law`: 4.8 million candidates for 2.3 million pairs), a branch mispredicted
    /// on every other one.
    #[inline(always)]
    pub fn push_if(&mut self, pair: Pair, keep: bool) {
        if let Some(slot) = self.block.get_mut(self.len) {
            *slot = pair;
            self.len += usize::from(keep);
        } else if keep {
            self.spill.push(pair);
        }
    }

    /// Write the pairs of `pairs` whose bit is set in `mask` (bits 0 to 3), in order, without a branch on the bits
    /// while the block has room for all four: each is stored in the next slot and the slot taken when its bit is set.
    #[inline(always)]
    pub fn push_4(&mut self, pairs: [Pair; 4], mask: u32) {
        if let Some(slots) = self.block.get_mut(self.len..self.len + 4) {
            let mut taken = 0;
            for (k, pair) in pairs.into_iter().enumerate() {
                slots[taken] = pair;
                taken += (mask >> k & 1) as usize;
            }
            self.len += taken;
        } else {
            for (k, pair) in pairs.into_iter().enumerate() {
                self.push_if(pair, mask >> k & 1 == 1);
            }
        }
    }

    /// The block's next `n` slots, when it has room for them all: a run writes them in order from the first, its
    /// count in a register, and takes what it kept with [`Sink::take`] (`search.rs`'s cube runs).
    #[inline(always)]
    pub fn room(&mut self, n: usize) -> Option<&mut [Pair]> {
        self.block.get_mut(self.len..self.len + n)
    }

    /// Take the first `n` of the slots [`Sink::room`] gave: the pairs written there are kept.
    #[inline(always)]
    pub fn take(&mut self, n: usize) {
        debug_assert!(self.len + n <= self.block.len(), "taking more slots than the block has");
        self.len += n;
    }

    /// Put the pairs written into the block from slot `from` smaller index first. A scan that writes many pairs
    /// of one body (`search.rs`'s cube runs) writes them as (that body, the other) and orders them here, a plain
    /// loop over the pairs kept, instead of ordering each candidate, kept or not, as it writes it (a compare and
    /// two conditional moves a lane, a fifth of the run's loop). The pairs it spilled were ordered as they went.
    pub fn order_from(&mut self, from: usize) {
        for p in &mut self.block[from..self.len] {
            *p = Pair { a: p.a.min(p.b), b: p.a.max(p.b) };
        }
    }

    /// The pairs written into the block.
    #[must_use]
    pub fn written(&self) -> usize {
        self.len
    }

    /// All the pairs written.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len + self.spill.len()
    }
}

/// Each partition's block next frame: its count this frame and an eighth more, and 16 (a partition that found
/// nothing may find a few).
#[must_use]
pub fn capacity(found: usize) -> usize {
    found + found / 8 + 16
}

/// Lay the partitions' blocks out in `out` from their capacities (set by the last frame) and size `out` to hold
/// them: O(partitions), and O(growth) to fill the new part of `out` with defaults.
pub fn lay_out<T: HasBlock>(searches: &mut [T], out: &mut Vec<Pair>) {
    let mut start = 0;
    for s in searches.iter_mut().map(HasBlock::block_mut) {
        s.start = start;
        start += s.capacity;
    }
    out.resize(start, Pair::default());
}

/// After the searches: fill the holes below the total (each block's unwritten tail) with the pairs written past
/// it, then with the spills, in partition order; cut `out` to the total; and set each partition's capacity for
/// the next frame. O(partitions + pairs moved).
pub fn gather<T: HasBlock>(items: &mut [T], out: &mut Vec<Pair>) {
    let searches = &*items;
    let total: usize = searches.iter().map(|s| s.block().written + s.block().spill.len()).sum();
    // The blocks end at `end`; past it, up to the total, the output grows (the first frame, or more pairs than
    // the blocks hold).
    let end = searches.last().map_or(0, |s| s.block().start + s.block().capacity);
    if out.len() < total {
        out.resize(total, Pair::default());
    }
    // The holes below the total, ascending: each partition's unwritten tail, from partition `hole` on, then
    // `end..total`.
    let mut hole = 0;
    let next_hole = |hole: &mut usize| -> Option<std::ops::Range<usize>> {
        while *hole <= searches.len() {
            let range = match searches.get(*hole).map(HasBlock::block) {
                Some(s) => s.start + s.written..(s.start + s.capacity).min(total),
                None => end..total,
            };
            *hole += 1;
            if !range.is_empty() {
                return Some(range);
            }
        }
        None
    };
    let mut free = next_hole(&mut hole).unwrap_or(0..0);
    // First the pairs written at or past the total, partition by partition.
    for s in searches.iter().map(HasBlock::block) {
        let mut from = s.start.max(total)..s.start + s.written;
        while !from.is_empty() {
            if free.is_empty() {
                free = next_hole(&mut hole).expect("a hole below the total for every pair past it");
            }
            let n = from.len().min(free.len());
            out.copy_within(from.start..from.start + n, free.start);
            (from.start, free.start) = (from.start + n, free.start + n);
        }
    }
    // Then the spills.
    for spill in searches.iter().map(|s| &s.block().spill) {
        let mut at = 0;
        while at < spill.len() {
            if free.is_empty() {
                free = next_hole(&mut hole).expect("a hole below the total for every spilled pair");
            }
            let n = (spill.len() - at).min(free.len());
            out[free.start..free.start + n].copy_from_slice(&spill[at..at + n]);
            (at, free.start) = (at + n, free.start + n);
        }
    }
    debug_assert!(free.is_empty() && next_hole(&mut hole).is_none(), "every hole below the total is filled");
    out.truncate(total);
    for s in items.iter_mut().map(HasBlock::block_mut) {
        s.capacity = capacity(s.written + s.spill.len());
    }
}

#[cfg(test)]
mod tests;
