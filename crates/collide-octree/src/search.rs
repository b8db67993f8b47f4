//! The pair searches behind one door: a tree's own pairs by its variant (`dup.rs`, `nodup.rs`, `loose.rs`) and
//! the moving bodies' walk of a static tree (`walk.rs`), each run in chunks of tasks through
//! `collide_broadphase::parallel` (serial below the algorithm's [`Parallelism`] threshold).

use crate::tree::{Item, Shape, Tree, Variant};
use crate::walk::{self, WORK_PER_MOVING_BODY, Walk, WalkStack};
use crate::{dup, loose, nodup};
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{Pair, Parallelism, Tally};

/// The scratch of one chunk of tasks, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct ChunkScratch {
    nodup: nodup::NodupScratch,
    walk: WalkStack,
}

/// The searches' chunk buffers and scratch.
#[derive(Debug, Default)]
pub(crate) struct Search {
    chunks: PairChunks<ChunkScratch>,
}

impl Search {
    /// All pairs among a tree's bodies, appended to `out`.
    pub fn self_pairs(&mut self, shape: &Shape, parallelism: Parallelism, tree: &Tree, out: &mut Vec<Pair>) -> Tally {
        let (nodes, items) = (&tree.nodes[..], &tree.items[..]);
        let (work, chunks) = (items.len(), &mut self.chunks);
        match shape.variant {
            Variant::Dup => chunks.run(parallelism, "octree-dup pairs", work, nodes.len(), out, |r, o, _| {
                dup::self_pairs(nodes, items, r, o)
            }),
            Variant::Nodup => {
                chunks.run(parallelism, "octree-nodup pairs", work, nodup::tasks(nodes), out, |r, o, s| {
                    nodup::self_pairs(nodes, items, r, o, &mut s.nodup)
                })
            }
            Variant::Loose => chunks.run(parallelism, "octree-loose pairs", work, nodes.len(), out, |r, o, _| {
                loose::self_pairs(nodes, items, r, o)
            }),
        }
    }

    /// The pairs of the moving bodies `moving` with the live bodies of a static tree, appended to `out`.
    pub fn moving_pairs(
        &mut self,
        parallelism: Parallelism,
        walk: &Walk<'_>,
        moving: &[Item],
        out: &mut Vec<Pair>,
    ) -> Tally {
        let work = moving.len() * WORK_PER_MOVING_BODY;
        self.chunks.run(parallelism, "octree walk", work, walk::tasks(walk.nodes), out, |r, o, s| {
            walk::pairs(walk, moving, r, &mut s.walk, o)
        })
    }
}
