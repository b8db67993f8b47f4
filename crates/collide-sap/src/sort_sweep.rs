//! Sort-and-sweep: rebuilt every frame, immune to speed.
//!
//! Each call projects the boxes on the axis along which their centres spread most, radix-sorts the boxes by their
//! minimum on that axis, and sweeps once with the shared box sweep (`collide_broadphase::sweep`): box `i` is
//! tested against the boxes that start before it ends.
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
//! # Invalid boxes and far coordinates
//! Invalid boxes (see `collide_broadphase::invalid`) get no sort key in the pass that makes the keys, so the sweep
//! never sees them; huge but finite coordinates sort like any others (the radix keys are exact), and a few far
//! bodies cost nothing beyond their own candidates.
//!
//! # Performance tips
//! Prefer it to incremental SAP when bodies move more than their own size per frame or teleport; prefer
//! multi-box pruning when n is large in a 3-D (not flat) world. The sweep runs on all rayon threads from
//! [`Parallelism::DEFAULT_MIN_WORK`] bodies.

use collide_broadphase::parallel::PairChunks;
use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_broadphase::sweep::{PairSink, SinkBuffer, SweepBox, sweep_sparse};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Parallelism, Stats, Tally, is_valid_box};

/// Sort-and-sweep on the axis of greatest spread. Registry name: `sort-sweep`.
#[derive(Clone, Debug, Default)]
pub struct SortSweep {
    /// `float_key(min[axis]) << 32 | body`, sorted each call.
    keys: Vec<u64>,
    scratch: Vec<u64>,
    /// The boxes in sweep order as sweep records, so that the sweep reads memory sequentially.
    sorted: Vec<SweepBox>,
    /// The sweep's pair buffer when it runs serially; each parallel chunk has its own.
    sink: SinkBuffer,
    chunks: PairChunks<SinkBuffer>,
    /// When the sweep runs on rayon's threads.
    parallelism: Parallelism,
    axis: usize,
    tally: Tally,
}

impl SortSweep {
    /// A sort-and-sweep broadphase.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same with `parallelism` deciding when the sweep runs on rayon's threads.
    #[must_use]
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }
}

/// The axis along which box centres spread most (largest variance). O(n). Invalid boxes may make a variance NaN or
/// infinite, which picks an axis but cannot change a pair: the axis only decides the speed.
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
    let var: [f64; 3] = std::array::from_fn(|k| s2[k] / n - (s[k] / n).powi(2));
    (0..3).max_by(|&a, &b| var[a].total_cmp(&var[b])).unwrap_or(0)
}

/// The boxes of `aabbs` in the order of `keys` (whose low half names the body), as sweep records on axis `A`.
fn records<const A: usize>(aabbs: &[Aabb], keys: &[u64], dst: &mut Vec<SweepBox>) {
    dst.clear();
    dst.extend(keys.iter().map(|&k| SweepBox::on::<A>(&aabbs[k as u32 as usize], k as u32)));
}

// `on_resize` keeps the trait's default, `reset`, which is a no-op here: the keys are made and sorted anew every frame, and
// nothing but buffers is carried from one to the next, so a resize — a permutation included — costs nothing and the
// next frame is an ordinary one.
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
        // The invalid-box contract: an invalid box gets no key, so it is never swept (a predictable branch).
        for (i, b) in aabbs.iter().enumerate() {
            if is_valid_box(b) {
                self.keys.push((u64::from(float_key(b.min[axis])) << 32) | i as u64);
            } else {
                frame.reject_invalid(i);
            }
        }
        sort_by_high_bits(&mut self.keys, &mut self.scratch, 32);
        let m = self.keys.len();
        match axis {
            0 => records::<0>(aabbs, &self.keys, &mut self.sorted),
            1 => records::<1>(aabbs, &self.keys, &mut self.sorted),
            _ => records::<2>(aabbs, &self.keys, &mut self.sorted),
        }
        // Per box: read for the spread and the key, a key made and radix-sorted (a histogram pass and three
        // scatters), the box read again and written as a record.
        let nn = n as u64;
        self.tally = Tally::work(3 * nn, nn * (2 * 24 + 8 * 8 + 24 + 28));
        out.clear();
        let sorted = &self.sorted;
        let out = out.as_mut_vec();
        // One crowded axis: thousands of candidates per pair found, so the sparse sweep. In parallel, chunks of
        // scanning boxes, each swept against all later boxes.
        let tests = if self.parallelism.is_parallel(m) {
            self.chunks
                .run(self.parallelism, "sort-sweep", m, m, out, |scanners, out, sink| {
                    Tally::tests(sweep_sparse(sorted, scanners, |_, _| true, &mut PairSink::new(out, sink)))
                })
                .pair_tests
        } else {
            sweep_sparse(sorted, 0..m, |_, _| true, &mut PairSink::new(out, &mut self.sink))
        };
        self.tally.pair_tests = tests;
    }

    fn stats(&self) -> Stats {
        Stats::from(self.tally).with("sweep_axis", self.axis as f64)
    }

    fn validate(&self) -> Result<(), String> {
        match self.sorted.windows(2).position(|w| w[0].lo() > w[1].lo()) {
            Some(p) => Err(format!(
                "sweep order broken at position {}: {} > {}",
                p + 1,
                self.sorted[p].lo(),
                self.sorted[p + 1].lo()
            )),
            None => Ok(()),
        }
    }
}
