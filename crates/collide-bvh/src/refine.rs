//! Long runs of equal Morton codes told apart: each is ordered again by codes over its own bounds, so that the tree
//! over it is a spatial hierarchy and not the tree of the body indices.
//!
//! **Why.** The codes quantise the scene's bounds to 128 steps per axis (`morton::bits_for`). Where many bodies share
//! one of those cells — eight dense clusters at the corners of a world a thousand cluster widths wide (`far-clusters`),
//! each in a cell or two — their keys differ in the index half only, and the binary radix tree over a run of equal
//! codes is the balanced tree of its indices: every subtree spans the whole cluster, every pair of subtrees overlaps,
//! and the self-join tests nearly every pair of the cluster (at 10⁵ bodies, 690 ms a frame against 4 ms for `kd`). A
//! finer global grid only moves the limit (even 21 bits per axis fail in a world 10⁶ clusters wide).
//!
//! **How.** A run of more than [`LONG_RUN`] equal codes is given *sub-codes*: the 30-bit Morton codes of its centres
//! over the run's own bounds, and is sorted by (sub-code, index). The tree is then the binary radix tree of the
//! composite keys `(code, sub-code, index)`: a run of sub-codes that are again equal and long is refined once more, up
//! to [`MAX_LEVELS`] levels (each level shrinks the span by a factor 1024 on some axis, so a deeper need is a scene at
//! the limit of f32; past it, and for a run whose centres all coincide — whose boxes all overlap anyway — the index
//! order stays). The climb (`karras.rs`) needs of the keys only the length of the common prefix of two neighbours, the
//! depth of the split between them: for a gap inside a refined run that is the composite keys' common prefix, `32 ·
//! level` plus the common prefix of the sub-keys, kept in a per-gap array ([`Refiner::depth`]). Gaps elsewhere keep
//! reading the keys. In a composite order, as in a plain one, each range of positions has a single shallowest gap,
//! which is what makes the tree unique and the climb's choice of parent free of ties.
//!
//! **Cost.** Nothing for a scene without long runs but one comparison per leaf in the gather pass, which detects them.
//! With them, a pass over the gaps and a sort of each run (the shared radix sort for long runs).

use crate::morton::{self, Grid};
use collide_broadphase::radix;
use collide_math::{Aabb, Vec3};

/// A run of more equal codes than this is refined. Shorter runs cost little in index order: two buckets of the
/// self-join (`traverse::BUCKET`).
pub(crate) const LONG_RUN: usize = 8;

/// The most levels of sub-codes.
pub(crate) const MAX_LEVELS: u32 = 3;

/// The tallest tree the builder makes: a step down the tree makes the split strictly deeper, and split depths
/// are below `32 · (MAX_LEVELS + 2)` (the code, the levels of sub-codes, the index: 32 bits each).
pub(crate) const MAX_HEIGHT: u32 = 32 * (MAX_LEVELS + 2);

/// Runs shorter than this are sorted by comparison, longer ones by the radix sort.
const RADIX_FROM: usize = 256;

/// A run to refine: positions `start..end` of the sorted keys, at `level` (1 for the first sub-codes).
#[derive(Clone, Copy, Debug)]
struct Run {
    start: usize,
    end: usize,
    level: u32,
}

/// The refinement's state, kept across frames: the split depths and the buffers of the sorts.
#[derive(Debug, Default)]
pub(crate) struct Refiner {
    /// When [`Refiner::active`], the depth of the split at every gap `s` (positions `s`, `s + 1`) where the two
    /// codes are equal; gaps between different codes read the keys.
    pub depth: Vec<u32>,
    /// Whether the last build refined anything: `depth` is valid for it.
    pub active: bool,
    runs: Vec<Run>,
    sub: Vec<u64>,
    scratch: Vec<u64>,
}

/// The split depth at a gap between two keys: the length of their common prefix.
#[inline(always)]
fn prefix(a: u64, b: u64) -> u32 {
    (a ^ b).leading_zeros()
}

/// The Morton code of a key.
#[inline(always)]
fn code(key: u64) -> u64 {
    key >> 32
}

impl Refiner {
    /// The split depth at gap `s` of `keys` (sorted as refined).
    #[inline(always)]
    pub(crate) fn gap(&self, keys: &[u64], s: usize) -> u32 {
        let p = prefix(keys[s], keys[s + 1]);
        if p >= 32 && self.active { self.depth[s] } else { p }
    }

    /// Refine every long run of equal codes in `keys` (the `m` usable keys, sorted; items index `boxes`).
    pub(crate) fn refine(&mut self, keys: &mut [u64], boxes: &[Aabb]) {
        let m = keys.len();
        self.active = true;
        self.depth.clear();
        self.depth.extend(keys.windows(2).map(|w| prefix(w[0], w[1])));
        self.runs.clear();
        let mut start = 0;
        for k in 1..=m {
            if k == m || code(keys[k]) != code(keys[start]) {
                if k - start > LONG_RUN {
                    self.runs.push(Run { start, end: k, level: 1 });
                }
                start = k;
            }
        }
        while let Some(run) = self.runs.pop() {
            self.refine_run(run, keys, boxes);
        }
    }

    /// Order one run by sub-codes over its own bounds; queue its long runs of equal sub-codes for the next level.
    fn refine_run(&mut self, run: Run, keys: &mut [u64], boxes: &[Aabb]) {
        let Run { start, end, level } = run;
        let run_keys = &mut keys[start..end];
        let centre = |key: u64| morton::center(&boxes[morton::key_index(key) as usize]);
        let (lo, hi) = run_keys.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &k| {
            let c = centre(k);
            (lo.min(c), hi.max(c))
        });
        if lo == hi {
            return; // every centre at one point: every box overlaps every other, any order will do
        }
        let grid = Grid::new(lo, hi, morton::MAX_BITS);
        self.sub.clear();
        self.sub.extend(run_keys.iter().map(|&k| morton::key(grid.code(centre(k)), morton::key_index(k))));
        // The run is in index order, and both sorts leave equal sub-codes in it.
        if self.sub.len() >= RADIX_FROM {
            radix::sort_by_high_bits(&mut self.sub, &mut self.scratch, 32);
        } else {
            self.sub.sort_unstable();
        }
        let high = run_keys[0] & !0xFFFF_FFFF;
        for (key, &sub) in run_keys.iter_mut().zip(&self.sub) {
            *key = high | u64::from(morton::key_index(sub));
        }
        let base = 32 * level;
        let mut from = 0;
        for j in 0..self.sub.len() {
            if j + 1 < self.sub.len() {
                self.depth[start + j] = base + prefix(self.sub[j], self.sub[j + 1]);
            }
            if j + 1 == self.sub.len() || code(self.sub[j + 1]) != code(self.sub[from]) {
                if j + 1 - from > LONG_RUN && level < MAX_LEVELS {
                    self.runs.push(Run { start: start + from, end: start + j + 1, level: level + 1 });
                }
                from = j + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
