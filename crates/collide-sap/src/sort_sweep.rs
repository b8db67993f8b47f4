//! Sort-and-sweep: rebuilt every frame, immune to speed.
//!
//! Each call projects the boxes on the axis along which their centres spread most, radix-sorts the boxes by their
//! minimum on that axis, and sweeps once: box `i` is tested against the boxes that start before it ends.
//! Nothing is kept between frames, so teleporting bodies cost what resting ones cost — the opposite trade of
//! incremental SAP.
//!
//! # Complexity
//! - Time: O(n) to pick the axis and build keys, O(n) radix sort (three 11-bit passes), O(n + s) sweep where
//!   `s` is the number of pairs overlapping **on the sweep axis** (each is one box test).
//! - Memory: O(n) (keys, a sorted copy of the boxes, per-thread output buffers), kept between calls.
//! - Best case: bodies spread along one axis more than their size (a corridor, a flat layer seen edge-on): `s`
//!   is close to the true pair count.
//! - Worst case: in 3-D, a slab of the world of the boxes' thickness holds n·(2h/W) bodies, so `s` grows as n²
//!   (thesis workload at 10⁵ bodies: ~5·10⁷ tests); everything at one point is n²/2 for every algorithm.
//!   That crowding of a single axis is what [`MultiBoxPruning`](crate::MultiBoxPruning) removes.
//!
//! # Performance tips
//! Prefer it to incremental SAP when bodies move more than their own size per frame or teleport; prefer
//! multi-box pruning when n is large in a 3-D (not flat) world. The sweep runs on all rayon threads from
//! [`SortSweep::PARALLEL_MIN`] bodies.

use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_broadphase::{Aabb, Broadphase, Frame, Pair, PairList, Stats};
use rayon::prelude::*;

/// Sort-and-sweep on the axis of greatest spread. Registry name: `sort-sweep`.
#[derive(Debug, Default, Clone)]
pub struct SortSweep {
    /// `float_key(min[axis]) << 32 | body`, sorted each call.
    keys: Vec<u64>,
    scratch: Vec<u64>,
    /// The boxes in sweep order, so that the inner loop reads memory sequentially.
    sorted: Vec<Aabb>,
    /// `sorted[i].min[axis]`, packed for the loop that decides how far the sweep goes.
    mins: Vec<f32>,
    /// `sorted[i].max[axis]`.
    maxs: Vec<f32>,
    /// The body of `sorted[i]`.
    ids: Vec<u32>,
    /// One output buffer and test counter per parallel chunk.
    chunks: Vec<(Vec<Pair>, u64)>,
    axis: usize,
    tests: u64,
}

impl SortSweep {
    /// From this many bodies the sweep runs in parallel; below it rayon's fork-join costs more than it saves.
    pub const PARALLEL_MIN: usize = 20_000;

    /// A sort-and-sweep broadphase.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// The axis along which box centres spread most (largest variance). O(n).
#[must_use]
pub fn axis_of_greatest_spread(aabbs: &[Aabb]) -> usize {
    if aabbs.is_empty() {
        return 0;
    }
    let (mut s, mut s2) = ([0f64; 3], [0f64; 3]);
    for b in aabbs {
        let c = b.min + b.max;
        for k in 0..3 {
            let v = f64::from(c[k]);
            s[k] += v;
            s2[k] += v * v;
        }
    }
    let n = aabbs.len() as f64;
    let var: Vec<f64> = (0..3).map(|k| s2[k] / n - (s[k] / n).powi(2)).collect();
    (0..3).max_by(|&a, &b| var[a].total_cmp(&var[b])).unwrap_or(0)
}

/// Sweep the sorted boxes `range` of `first..` — each box against the later boxes that start before it ends —
/// and emit the overlapping pairs. Returns the number of box tests.
#[inline]
fn sweep(
    sorted: &[Aabb],
    mins: &[f32],
    maxs: &[f32],
    ids: &[u32],
    range: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
) -> u64 {
    let mut tests = 0u64;
    for i in range {
        let a = &sorted[i];
        let end = maxs[i];
        let mut j = i + 1;
        while j < mins.len() && mins[j] <= end {
            if a.overlaps(&sorted[j]) {
                out.push(Pair::new(ids[i], ids[j]));
            }
            j += 1;
        }
        tests += (j - i - 1) as u64;
    }
    tests
}

impl Broadphase for SortSweep {
    fn name(&self) -> &'static str {
        "sort-sweep"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        let axis = axis_of_greatest_spread(aabbs);
        self.axis = axis;
        self.keys.clear();
        self.keys.extend(aabbs.iter().enumerate().map(|(i, b)| (u64::from(float_key(b.min[axis])) << 32) | i as u64));
        sort_by_high_bits(&mut self.keys, &mut self.scratch, 32);
        self.sorted.clear();
        self.mins.clear();
        self.maxs.clear();
        self.ids.clear();
        for &k in &self.keys {
            let b = aabbs[k as u32 as usize];
            self.sorted.push(b);
            self.mins.push(b.min[axis]);
            self.maxs.push(b.max[axis]);
            self.ids.push(k as u32);
        }
        out.clear();
        let (sorted, mins, maxs, ids) = (&self.sorted, &self.mins, &self.maxs, &self.ids);
        if n < Self::PARALLEL_MIN {
            self.tests = sweep(sorted, mins, maxs, ids, 0..n, out.as_mut_vec());
            return;
        }
        // Many more chunks than threads: the work per box varies with local density, and rayon steals chunks.
        let k = 8 * rayon::current_num_threads();
        self.chunks.resize_with(k, Default::default);
        let per = n.div_ceil(k);
        self.chunks.par_iter_mut().enumerate().for_each(|(c, (buf, tests))| {
            buf.clear();
            let range = (c * per).min(n)..((c + 1) * per).min(n);
            *tests = sweep(sorted, mins, maxs, ids, range, buf);
        });
        self.tests = self.chunks.iter().map(|c| c.1).sum();
        out.reserve(self.chunks.iter().map(|c| c.0.len()).sum());
        for (buf, _) in &self.chunks {
            out.extend_from_slice(buf);
        }
    }

    fn stats(&self) -> Stats {
        let mut stats = Stats::new().with("sweep_axis", self.axis as f64);
        stats.pair_tests = self.tests;
        stats
    }

    fn validate(&self) -> Result<(), String> {
        match self.mins.windows(2).position(|w| w[0] > w[1]) {
            Some(p) => {
                Err(format!("sweep order broken at position {}: {} > {}", p + 1, self.mins[p], self.mins[p + 1]))
            }
            None => Ok(()),
        }
    }
}
