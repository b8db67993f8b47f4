//! The per-frame scan: which bodies must change their place in the trees this call.
//!
//! One pass over the bodies, in parallel chunks, each returning its list of [`Move`]s in body order:
//! - a body whose box left its fat box (or that is in no tree and has a usable box: added since the last call,
//!   or valid again) goes to the dynamic tree with a new fat box;
//! - a body whose box became unusable leaves its tree (it then overlaps nothing);
//! - a body of the dynamic tree whose box has not changed for `settle` calls goes to the static tree.
//!
//! With the motion hint a body marked unmoved has, by the hint's promise, last call's box — inside its fat box —
//! so the scan reads one flag and does not test its box; the hint also tells which bodies are still, for the
//! settle timer. Without it every box is tested against its fat box, in one vector comparison that also rejects
//! NaN and inverted boxes (the slow path then sorts out which), and nothing settles: a box that did not change
//! cannot be told from one that moved without keeping last call's boxes, and Bullet's stages too are driven by
//! the world telling it which bodies moved (it stops updating sleeping ones).

use crate::bodies::{Anchor, FatPolicy, Proxy, Stage, jitter};
use crate::bounds::{fits, is_usable};
use crate::chunks::Chunks;
use collide_broadphase::{InvalidBoxes, Parallelism};
use collide_math::Aabb;
use std::sync::atomic::{AtomicU32, Ordering};

/// Where a body goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// Into the dynamic tree, with a predicted fat box.
    Dynamic,
    /// Into the static tree, with a tight fat box.
    Static,
    /// Out of both trees: its box is unusable.
    Nowhere,
    /// Nowhere already: an unusable box, not a move.
    Unplaced,
}

/// A body that changes its place this call: its fat box before (whether a pair was cached before this call is
/// decided from the old fat boxes), its new fat box if the scan sized it, and its place in the trees after
/// (filled in when the trees are changed, copied to its proxy once the walk that runs meanwhile is done).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Move {
    pub body: u32,
    pub target: Target,
    pub old_fat: Aabb,
    pub fat: Option<Aabb>,
    pub place: Option<(Stage, u32)>,
}

/// What the scan reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan<'a> {
    pub aabbs: &'a [Aabb],
    pub moved: Option<&'a [bool]>,
    pub proxies: &'a [Proxy],
    /// Per body, the call since which its box has not changed (with the motion hint); the scan updates it.
    pub still: &'a [AtomicU32],
    pub now: u32,
    /// Calls without change after which a body of the dynamic tree settles into the static one.
    pub settle: u32,
    /// What an unusable box makes the scan do (the frame's policy).
    pub invalid_boxes: InvalidBoxes,
    /// Per body, where its last insertion was: the new fat boxes are sized here, in parallel, while the body's
    /// box is in the cache (on the calling thread afterwards, each was a few cache misses).
    pub anchors: &'a [Anchor],
    pub policy: FatPolicy,
    /// The share of a chunk's bodies whose new fat boxes the scan sizes: past it the call most likely rebuilds
    /// everything (`refit_max`), which sizes every box itself, and the scan would only add work.
    pub share: f32,
}

impl Scan<'_> {
    /// The moves of bodies `range`, appended to `moves`, each with its old fat box and (up to [`Scan::share`] of
    /// the chunk) its new one. One loop per case of the hint, so that the loop without it does not decide the case
    /// per body.
    fn chunk(&self, range: std::ops::Range<usize>, moves: &mut Vec<Move>) {
        let start = range.start;
        let (aabbs, proxies) = (&self.aabbs[range.clone()], &self.proxies[range.clone()]);
        let mut budget = (self.share * range.len() as f32).ceil() as usize;
        let mut push = |k: usize, target: Target| {
            let (i, b, old_fat) = (start + k, &aabbs[k], proxies[k].fat);
            let fat = match target {
                Target::Unplaced => return,
                Target::Nowhere => Some(Aabb::EMPTY),
                _ if budget == 0 => None,
                Target::Dynamic => {
                    Some(self.policy.dynamic_box(b, self.anchors[i], self.now, jitter(i as u32, self.now)))
                }
                Target::Static => Some(self.policy.static_box(b)),
            };
            budget = budget.saturating_sub(1);
            moves.push(Move { body: i as u32, target, old_fat, fat, place: None });
        };
        let Some(moved) = self.moved else {
            for (k, (b, p)) in aabbs.iter().zip(proxies).enumerate() {
                // Inside the fat box and not inverted (then also finite, the fat box being finite): stays. A body in
                // no tree has the empty fat box, which contains nothing.
                if !fits(b, &p.fat) {
                    push(k, self.leaving(start + k, b, p));
                }
            }
            return;
        };
        let (moved, still) = (&moved[range.clone()], &self.still[range]);
        for (k, (((b, p), still), &moved)) in aabbs.iter().zip(proxies).zip(still).zip(moved).enumerate() {
            if moved {
                still.store(self.now, Ordering::Relaxed);
                if !fits(b, &p.fat) {
                    push(k, self.leaving(start + k, b, p));
                }
            } else if p.is_dynamic() && self.now - still.load(Ordering::Relaxed) >= self.settle {
                // Last call's box, by the hint's promise: inside the fat box if the body is placed.
                push(k, Target::Static);
            }
        }
    }

    /// Where body `i` goes, its box `b` being outside its fat box (or unusable), out of line: the fast path of the
    /// scan is the comparison above.
    #[inline(never)]
    fn leaving(&self, i: usize, b: &Aabb, p: &Proxy) -> Target {
        if is_usable(b) {
            return Target::Dynamic;
        }
        self.invalid_boxes.reject(i, b);
        if p.place().is_some() { Target::Nowhere } else { Target::Unplaced }
    }

    /// Every move of this call, in body order, into `moves`; `chunks` holds each chunk's list.
    pub(crate) fn run(&self, chunks: &mut Chunks<Vec<Move>>, parallelism: Parallelism, moves: &mut Vec<Move>) {
        let n = self.aabbs.len();
        chunks.run(parallelism, "bvh_scan", n, n, |range, found| {
            found.clear();
            self.chunk(range, found);
        });
        moves.clear();
        for c in chunks.used() {
            moves.extend_from_slice(&c.state);
        }
    }
}

#[cfg(test)]
mod tests;
