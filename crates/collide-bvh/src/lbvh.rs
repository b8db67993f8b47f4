//! [`LinearBvh`] (`lbvh`): a linear BVH rebuilt every frame and joined with itself, behind the [`Broadphase`]
//! trait.

use crate::bounds::is_usable;
use crate::flat::FlatBvh;
use crate::karras::Builder;
use crate::traverse;
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{Broadphase, DebugGeometry, Frame, PairList, Parallelism, Resize, Stats, Tally};

/// The most leaves a task of the parallel self-join covers (`traverse::plan`).
const JOIN_TASK_LEAVES: u32 = 2048;

/// Tuning of a [`LinearBvh`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LbvhConfig {
    /// When the build passes and the self-join run on rayon's threads. Default: [`Parallelism::default`]; tests
    /// lower it to run the parallel paths on small scenes.
    pub parallelism: Parallelism,
}

/// What the last call did.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    tally: Tally,
    leaves: u64,
    height: u32,
    unusable: u64,
}

/// A linear BVH (Karras 2012): Morton codes, one radix sort, every inner node built on its own in parallel, a
/// bottom-up refit, and a parallel self-join. Registry name `lbvh`. Rebuilt every frame, so its cost does not
/// depend on how far the bodies moved. See the crate docs.
#[derive(Debug, Default)]
pub struct LinearBvh {
    config: LbvhConfig,
    bvh: FlatBvh,
    builder: Builder,
    tasks: Vec<traverse::Task>,
    pending: Vec<traverse::Task>,
    chunks: PairChunks<traverse::JoinScratch>,
    last: LastStats,
}

impl LinearBvh {
    /// A linear BVH with default tuning.
    #[must_use]
    pub fn new() -> Self {
        Self::with_config(LbvhConfig::default())
    }

    /// A linear BVH with `config`.
    #[must_use]
    pub fn with_config(config: LbvhConfig) -> Self {
        Self { config, ..Self::default() }
    }

    /// The tuning in effect.
    #[must_use]
    pub fn config(&self) -> LbvhConfig {
        self.config
    }
}

impl Broadphase for LinearBvh {
    fn name(&self) -> &'static str {
        crate::LBVH
    }

    /// O(n) keys, an O(n) radix sort, O(n) nodes and refit (each node's searches are logarithmic in its range),
    /// then one query per leaf: O(n · depth) node visits for small bodies, plus the pairs.
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let out = out.as_mut_vec();
        out.clear();
        let parallelism = self.config.parallelism;
        let mut tally = self.builder.build(&mut self.bvh, aabbs, parallelism);
        let unusable = aabbs.len() - self.bvh.len;
        if unusable > 0 {
            // Rare: find the bodies to report (debug builds panic on the first).
            for (i, b) in aabbs.iter().enumerate().filter(|(_, b)| !is_usable(b)) {
                frame.invalid_boxes.reject(i, b);
            }
        }
        // Tasks of a few thousand leaves: enough of them for the chunks to balance, each long enough to amortise its
        // start.
        traverse::plan(&self.bvh, JOIN_TASK_LEAVES, &mut self.pending, &mut self.tasks);
        tally += traverse::self_pairs(&self.bvh, |item| item, &self.tasks, &mut self.chunks, parallelism, out);
        self.last =
            LastStats { tally, leaves: self.bvh.len as u64, height: self.bvh.height, unusable: unusable as u64 };
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        Stats::from(l.tally)
            .with("nodes", l.leaves.saturating_sub(1) as f64)
            .with("leaves", l.leaves as f64)
            .with("height", f64::from(l.height))
            .with("invalid_boxes", l.unusable as f64)
    }

    /// Nothing to remap: the tree is built anew from every frame's boxes. A permutation (the simulation's spatial
    /// reorder) keeps the last tree as it is, O(1) — `reset` would also do, keeping the buffers, but the next
    /// build would then write the cleared leaf boxes and nodes twice. Any other resize resets.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if !resize.is_permutation() {
            self.reset();
        }
    }

    fn reset(&mut self) {
        self.bvh.clear();
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        self.bvh.check(None)
    }

    /// Every inner node's box, the root at depth 0, without allocating (`FlatBvh::debug_geometry`).
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        self.bvh.debug_geometry(out);
    }
}
