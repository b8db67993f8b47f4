//! The narrowphase of a whole step: every candidate pair tested, in parallel chunks.

use crate::{Contact, sphere_sphere};
use collide_broadphase::{Pair, Parallelism, prefetch};
use collide_math::Vec3;

/// Pairs per parallel task. A chunk is a few tens of microseconds of work (each pair reads two bodies that are
/// usually far apart in memory, about 50–100 ns when they miss the cache), long enough that rayon's fork costs
/// little beside it and short enough that 2–4 threads get a dozen chunks each at 10⁵ pairs.
pub const PAIRS_PER_CHUNK: usize = 4096;

/// How many pairs ahead the bodies are prefetched: enough to cover a miss to memory (about 100 ns) with the tests
/// of the pairs between (10–20 ns each).
const PREFETCH_AHEAD: usize = 12;

/// How a step's `pairs` pairs are cut for the parallel narrowphase: `Some((size, count))`, chunks of `size` pairs
/// (the last one shorter), or `None` to test them serially — below `parallelism`'s threshold or under two chunks.
/// A test that lowers the threshold below a chunk gets smaller chunks, so that its scenes still split.
pub(crate) fn chunk_plan(parallelism: Parallelism, pairs: usize) -> Option<(usize, usize)> {
    let size = PAIRS_PER_CHUNK.min(parallelism.min_work().max(16));
    let count = pairs.div_ceil(size);
    (count >= 2 && parallelism.is_parallel(pairs)).then_some((size, count))
}

/// Chunk `c` of `pairs` cut in chunks of `size` ([`chunk_plan`]).
pub(crate) fn chunk(pairs: &[Pair], size: usize, c: usize) -> &[Pair] {
    &pairs[c * size..((c + 1) * size).min(pairs.len())]
}

/// The sphere–sphere test over every pair of a step, keeping the touching ones with their [`Contact`].
///
/// The output is in the pairs' order whatever the thread count: each chunk of [`PAIRS_PER_CHUNK`] pairs writes to
/// its own buffer, and the buffers are appended in chunk order. The buffers live across steps, so a warm caller
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SphereContacts {
    /// One buffer per chunk of pairs (kept across calls; only the first `pairs.len() / PAIRS_PER_CHUNK` used).
    chunks: Vec<Vec<(Pair, Contact)>>,
}

impl SphereContacts {
    /// Test every pair of `pairs` (indices into `position` and `radius`) and replace `out` with the touching ones,
    /// in the pairs' order. Parallel when `parallelism` says so for `pairs.len()` pairs (and there are two chunks
    /// or more); the answer is the same either way.
    pub fn find(
        &mut self,
        parallelism: Parallelism,
        pairs: &[Pair],
        position: &[Vec3],
        radius: &[f32],
        out: &mut Vec<(Pair, Contact)>,
    ) {
        out.clear();
        let test = |chunk: &[Pair], out: &mut Vec<(Pair, Contact)>| {
            for (k, &pair) in chunk.iter().enumerate() {
                // The bodies of the pair PREFETCH_AHEAD places on: at 10⁶ bodies each read misses the cache, and
                // this keeps several misses in flight while the pairs between are tested.
                if let Some(ahead) = chunk.get(k + PREFETCH_AHEAD) {
                    let (a, b) = (ahead.a as usize, ahead.b as usize);
                    if let (Some(pa), Some(pb), Some(ra), Some(rb)) =
                        (position.get(a), position.get(b), radius.get(a), radius.get(b))
                    {
                        prefetch::read(pa);
                        prefetch::read(pb);
                        prefetch::read(ra);
                        prefetch::read(rb);
                    }
                }
                let (a, b) = (pair.a as usize, pair.b as usize);
                if let Some(contact) = sphere_sphere(position[a], radius[a], position[b], radius[b]) {
                    out.push((pair, contact));
                }
            }
        };
        let Some((size, count)) = chunk_plan(parallelism, pairs.len()) else {
            test(pairs, out);
            return;
        };
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Vec::new);
        }
        parallelism.for_each("narrowphase", pairs.len(), &mut self.chunks[..count], |c, buffer| {
            buffer.clear();
            test(chunk(pairs, size, c), buffer);
        });
        out.reserve(self.chunks[..count].iter().map(Vec::len).sum());
        for buffer in &self.chunks[..count] {
            out.extend_from_slice(buffer);
        }
    }
}

#[cfg(test)]
mod tests;
