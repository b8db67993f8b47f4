//! Sections cut into contiguous chunks, each with state of its own kept across frames, on top of
//! [`Parallelism::for_each`].
//!
//! `collide_broadphase::parallel::PairChunks` serves sections whose only output is pairs. The dynamic tree's
//! sections also return other things per chunk — the bodies that left their fat boxes, the stale cache entries,
//! the bounds of a chunk of centres — which the caller reads back in chunk order after the run; this is the same
//! runner with the chunk states left readable.

use collide_broadphase::Parallelism;
use std::ops::Range;

/// Chunks of a parallel section: enough that work stealing evens out chunks of unequal cost, few enough that
/// merging their results is negligible. A fixed count, not one per thread, so that the chunk boundaries — and the
/// order of anything the chunks append — are the same whatever the pool.
const PARALLEL_CHUNKS: usize = 64;

/// One chunk: its range of items and its state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chunk<S> {
    /// The items of this chunk in the last run.
    pub range: Range<usize>,
    /// What the chunk keeps and returns.
    pub state: S,
}

/// Persistent chunk states of one section.
#[derive(Clone, Debug)]
pub(crate) struct Chunks<S> {
    chunks: Vec<Chunk<S>>,
    /// How many chunks the last run used.
    used: usize,
}

impl<S> Default for Chunks<S> {
    fn default() -> Self {
        Self { chunks: Vec::new(), used: 0 }
    }
}

impl<S: Default + Send> Chunks<S> {
    /// Run `task(range, state)` over `items` items cut into contiguous chunks: [`PARALLEL_CHUNKS`] on rayon's
    /// threads when [`Parallelism::is_parallel`]`(work)`, else one chunk on this thread. `section` names the
    /// tasks in a puffin view (`profile` feature of collide-broadphase).
    pub(crate) fn run(
        &mut self,
        parallelism: Parallelism,
        section: &'static str,
        work: usize,
        items: usize,
        task: impl Fn(Range<usize>, &mut S) + Sync + Send,
    ) {
        let count = if items >= 2 && parallelism.is_parallel(work) { PARALLEL_CHUNKS.min(items) } else { 1 };
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Chunk::default);
        }
        for (c, chunk) in self.chunks[..count].iter_mut().enumerate() {
            chunk.range = c * items / count..(c + 1) * items / count;
        }
        self.used = count;
        parallelism
            .for_each(section, work, &mut self.chunks[..count], |_, chunk| task(chunk.range.clone(), &mut chunk.state));
    }

    /// The chunks of the last run, in item order.
    pub(crate) fn used(&self) -> &[Chunk<S>] {
        &self.chunks[..self.used]
    }
}

#[cfg(test)]
mod tests;
