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
mod tests {
    use super::*;
    use collide_math::Rng;

    /// Keys sorted by code, as the builder's sort leaves them.
    fn keys_of(boxes: &[Aabb], grid: &Grid) -> Vec<u64> {
        let mut keys: Vec<u64> =
            boxes.iter().enumerate().map(|(i, b)| morton::key(grid.code(morton::center(b)), i as u32)).collect();
        keys.sort_unstable();
        keys
    }

    /// Two far clusters: each cluster is one code on the world's grid; after refinement each cluster's bodies are
    /// in the order of their own Morton codes, every item is still there once, and within each range of positions
    /// the shallowest split is unique.
    #[test]
    fn far_clusters_are_ordered_by_their_own_codes() {
        let mut rng = Rng::new(5);
        let mut boxes = Vec::new();
        for corner in [Vec3::ZERO, Vec3::splat(1.0e6)] {
            boxes.extend(
                (0..600).map(|_| Aabb::from_center_radius(corner + rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), 0.5)),
            );
        }
        let world = Grid::new(Vec3::ZERO, Vec3::splat(1.0e6 + 50.0), morton::MAX_BITS);
        let mut keys = keys_of(&boxes, &world);
        assert_eq!(code(keys[0]), code(keys[599]), "a cluster shares one code");
        let mut r = Refiner::default();
        r.refine(&mut keys, &boxes);
        let mut items: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).collect();
        // The first cluster's items in the order of their codes over the cluster's own bounds.
        let (lo, hi) = (0..600).fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), i| {
            let c = morton::center(&boxes[i]);
            (lo.min(c), hi.max(c))
        });
        let own = Grid::new(lo, hi, morton::MAX_BITS);
        let codes: Vec<u32> = items[..600].iter().map(|&i| own.code(morton::center(&boxes[i as usize]))).collect();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]), "ordered by the cluster's own codes");
        assert!(codes.windows(2).filter(|w| w[0] == w[1]).count() < 10, "and those codes tell nearly all apart");
        items.sort_unstable();
        assert_eq!(items, (0..1200).collect::<Vec<u32>>());
        // A unique shallowest split in every window of positions (a few sizes and places).
        for len in [2, 3, 17, 600, 1200] {
            for first in (0..=keys.len() - len).step_by(97) {
                let gaps: Vec<u32> = (first..first + len - 1).map(|s| r.gap(&keys, s)).collect();
                let min = *gaps.iter().min().unwrap();
                assert_eq!(gaps.iter().filter(|&&g| g == min).count(), 1, "window {first} + {len}: {gaps:?}");
            }
        }
    }

    /// A cluster inside a cell of a cluster (three scales): the second level of sub-codes tells it apart; a run at
    /// one point stays in index order.
    #[test]
    fn nested_clusters_refine_again_and_a_point_stays_in_index_order() {
        let mut rng = Rng::new(8);
        let mut boxes: Vec<Aabb> =
            (0..300).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(1.0)), 0.001)).collect();
        boxes.extend(
            (0..300).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(50.0), Vec3::splat(50.01)), 1.0e-5)),
        );
        boxes.extend((0..50).map(|_| Aabb::from_center_radius(Vec3::splat(-7.0e6), 1.0)));
        let world = Grid::new(Vec3::splat(-7.0e6), Vec3::splat(1.0e7), morton::MAX_BITS);
        let mut keys = keys_of(&boxes, &world);
        let mut r = Refiner::default();
        r.refine(&mut keys, &boxes);
        let at_point: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).filter(|&i| i >= 600).collect();
        assert!(at_point.windows(2).all(|w| w[0] < w[1]), "coincident centres keep the index order");
        // The tiny cluster's bodies are told apart: few equal neighbours in its own codes' order.
        let tiny: Vec<u32> = keys.iter().map(|&k| morton::key_index(k)).filter(|i| (300..600).contains(i)).collect();
        let (lo, hi) = tiny.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &i| {
            let c = morton::center(&boxes[i as usize]);
            (lo.min(c), hi.max(c))
        });
        let own = Grid::new(lo, hi, morton::MAX_BITS);
        let codes: Vec<u32> = tiny.iter().map(|&i| own.code(morton::center(&boxes[i as usize]))).collect();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]), "the tiny cluster is ordered by its own codes");
        assert!(r.depth.iter().all(|&d| d < MAX_HEIGHT));
    }
}
