//! Parallel pair collection without per-frame allocation.

use collide_broadphase::Pair;
use rayon::prelude::*;
use std::ops::Range;

/// Below this many units of work (items to scan) the serial path wins: rayon's fork/join costs a few
/// microseconds, which is the whole budget of a small scene.
pub(crate) const PAR_MIN_WORK: usize = 8192;

/// Chunks per call. More chunks than threads so that work stealing evens out unequal chunks (a dense leaf,
/// a subtree full of straddlers).
const CHUNKS: usize = 64;

/// One pair buffer per chunk, kept across frames so that a warm broadphase allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct PairBufs {
    bufs: Vec<Vec<Pair>>,
}

impl PairBufs {
    /// Run `work` over `0..tasks` and append its pairs to `out`; returns the sum of what `work` returns (the
    /// tests it made). Parallel when `parallel` (chunks of the task range, results appended in chunk order, so
    /// the output is deterministic); otherwise one call writing straight into `out`.
    pub fn run<F>(&mut self, tasks: usize, parallel: bool, out: &mut Vec<Pair>, work: F) -> u64
    where
        F: Fn(Range<usize>, &mut Vec<Pair>) -> u64 + Sync,
    {
        if !parallel || tasks < 2 || rayon::current_num_threads() < 2 {
            return work(0..tasks, out);
        }
        let chunks = CHUNKS.min(tasks);
        if self.bufs.len() < chunks {
            self.bufs.resize_with(chunks, Vec::new);
        }
        let tests = self.bufs[..chunks]
            .par_iter_mut()
            .enumerate()
            .map(|(c, buf)| {
                buf.clear();
                work(c * tasks / chunks..(c + 1) * tasks / chunks, buf)
            })
            .sum();
        let total: usize = self.bufs[..chunks].iter().map(Vec::len).sum();
        out.reserve(total);
        for buf in &self.bufs[..chunks] {
            out.extend_from_slice(buf);
        }
        tests
    }
}
