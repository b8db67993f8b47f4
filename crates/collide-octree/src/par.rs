//! Parallel pair collection without per-frame allocation.

use crate::{batch, nodup};
use collide_broadphase::Pair;
use rayon::prelude::*;
use std::ops::Range;

/// Below this many units of work (items to scan) the serial path wins: rayon's fork/join costs a few
/// microseconds, which is the whole budget of a small scene.
pub(crate) const PAR_MIN_WORK: usize = 8192;

/// Chunks per call. More chunks than threads so that work stealing evens out unequal chunks (a dense leaf,
/// a subtree full of straddlers).
const CHUNKS: usize = 64;

/// One pair buffer and one search scratch per chunk, kept across frames so that a warm broadphase allocates
/// nothing.
#[derive(Debug, Default)]
pub(crate) struct PairBufs {
    bufs: Vec<Vec<Pair>>,
    scratch: Vec<Scratch>,
}

/// The search scratch of one chunk: nodup's pair search, the moving-vs-static walk.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub nodup: nodup::Scratch,
    pub batch: batch::Scratch,
}

impl PairBufs {
    /// Run `work` over `0..tasks` and append its pairs to `out`; returns the sum of what `work` returns (the
    /// tests it made). Parallel when `parallel` (chunks of the task range, results appended in chunk order, so
    /// the output is deterministic); otherwise one call writing straight into `out`.
    pub fn run<F>(&mut self, tasks: usize, parallel: bool, out: &mut Vec<Pair>, work: F) -> u64
    where
        F: Fn(Range<usize>, &mut Vec<Pair>) -> u64 + Sync,
    {
        self.run_with(tasks, parallel, out, |r, o, _| work(r, o))
    }

    /// [`PairBufs::run`] whose `work` also gets a scratch of its own, kept across frames.
    pub fn run_with<F>(&mut self, tasks: usize, parallel: bool, out: &mut Vec<Pair>, work: F) -> u64
    where
        F: Fn(Range<usize>, &mut Vec<Pair>, &mut Scratch) -> u64 + Sync,
    {
        let parallel = parallel && tasks >= 2 && rayon::current_num_threads() >= 2;
        let chunks = if parallel { CHUNKS.min(tasks) } else { 1 };
        if self.scratch.len() < chunks {
            self.scratch.resize_with(chunks, Scratch::default);
        }
        if !parallel {
            return work(0..tasks, out, &mut self.scratch[0]);
        }
        if self.bufs.len() < chunks {
            self.bufs.resize_with(chunks, Vec::new);
        }
        let tests = self.bufs[..chunks]
            .par_iter_mut()
            .zip(&mut self.scratch[..chunks])
            .enumerate()
            .map(|(c, (buf, scratch))| {
                buf.clear();
                work(c * tasks / chunks..(c + 1) * tasks / chunks, buf, scratch)
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
