//! The scene's features, measured every frame from a fixed-size sample of bodies.
//!
//! Every feature is computed from at most [`SAMPLE_MAX`] bodies, whatever `n` is, so the cost per frame is
//! bounded (tens of microseconds) while the broadphase's cost grows with `n`. The sample is a fixed
//! pseudo-random subset of indices (a multiplicative permutation, sorted once so the reads go forward through
//! memory), drawn again only when the body count changes. A stride sample would alias with scenes built in
//! patterns (every tenth body large, say).

use collide_broadphase::{Aabb, Frame, Resize, is_valid_box};

/// The most bodies the features read per frame.
pub const SAMPLE_MAX: usize = 2048;
/// The sample is `n / SAMPLE_DIVISOR` bodies between [`SAMPLE_MIN`] and [`SAMPLE_MAX`]: at 10 000 bodies the
/// features cost about 2% of the cheapest candidate, at 100 000 well under 1%.
const SAMPLE_DIVISOR: usize = 32;
/// The fewest bodies sampled (all of them below this).
const SAMPLE_MIN: usize = 64;
/// Cells per axis of the coarse occupancy grid behind [`Features::clustering`]: 16³ = 4096 cells for at most
/// 2048 sampled centres, half a body per cell in a uniform scene.
const GRID: usize = 16;
/// The share of the sample's centres, on each side of each axis, that the clustering grid does not stretch to
/// cover (they count in its edge cells): a few bodies far out do not make the scene look clustered.
const CLUSTERING_TRIM: f64 = 0.01;
/// Size spread and clustering change slowly (a crowd forms over dozens of frames), and cost the most of the
/// features (two selections and a 4096-cell grid): they are measured every this many calls.
const SLOW_FEATURES_EVERY: u64 = 8;
/// A multiplier coprime with every body count below 2³¹ (a prime above it), for the sample permutation.
const PERMUTATION: u64 = 2_654_435_761;

/// What the selector knows about the scene this frame. Cheap to copy; every field is a plain number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// Bodies.
    pub n: usize,
    /// Pairs per body: the local density the pair search pays for. From the broadphase's last answer when there
    /// is one; on a first frame (and after a resize), estimated from the sample (see
    /// [`FeatureSampler::measure`]).
    pub pairs_per_body: f64,
    /// Mean displacement of a box centre since the last frame, over the box's size (its longest side): what
    /// incremental algorithms pay for. 0.5 is the thesis's scene; below 0.01 is a slow drift. On a first frame it
    /// is the frame's speed hint ([`Frame::with_speed`]) when there is one, else unknown (0, with
    /// [`Features::speed_known`] false).
    pub speed_mean: f64,
    /// `false` on a first frame without a speed hint: one frame of boxes says nothing of speed.
    pub speed_known: bool,
    /// Clustering: Σ occupancy² of a 16³ grid over the sample's centres, normalised so that uniformly random
    /// centres give 1 and everything in one cell gives `1 + cells/sample`-ish; what makes cells and slabs
    /// uneven.
    pub clustering: f64,
    /// The 99th percentile box size over the median: 1 for equal bodies, 8 for the mixed-sizes scene.
    pub size_spread: f64,
    /// The fraction of bodies whose box did not change since the last frame (from the frame's motion hint
    /// when it has one, else from the sample).
    pub resting: f64,
}

impl std::fmt::Display for Features {
    /// The one way features are written for people (the app's panel, the decision log's reasons, the bench):
    /// `n 100000 · pairs/body 0.74 · speed 0.21 · clustering 1.0 · spread 1.0 · resting 0%`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "n {} · pairs/body {:.2} · speed ", self.n, self.pairs_per_body)?;
        if self.speed_known {
            write!(f, "{:.3}", self.speed_mean)?;
        } else {
            f.write_str("unknown")?;
        }
        write!(
            f,
            " · clustering {:.1} · spread {:.1} · resting {:.0}%",
            self.clustering,
            self.size_spread,
            100.0 * self.resting
        )
    }
}

/// The number of regressors of the log-linear model.
pub const REGRESSORS: usize = 8;

/// The regressors' names, in [`Features::regressors`] order; a prior fitted with other names is refused.
pub const REGRESSOR_NAMES: [&str; REGRESSORS] = [
    "1",
    "ln_n",
    "ln_n_squared_over_10",
    "ln_1_plus_pairs_per_body",
    "ln_speed",
    "resting",
    "ln_size_spread",
    "ln_clustering",
];

impl Features {
    /// The features as the model reads them (the cost model's inputs): logarithms of the scale-free quantities,
    /// the resting fraction as it is. Each is clamped to a range the calibration covers, so a wild value
    /// cannot extrapolate the model into nonsense.
    #[must_use]
    pub fn regressors(&self) -> [f64; REGRESSORS] {
        let ln_n = (self.n.max(1) as f64).ln();
        [
            1.0,
            ln_n,
            ln_n * ln_n / 10.0,
            (1.0 + self.pairs_per_body.clamp(0.0, 1e4)).ln(),
            (self.speed_mean.clamp(0.0, 10.0) + 1e-3).ln(),
            self.resting.clamp(0.0, 1.0),
            self.size_spread.clamp(1.0, 1e3).ln(),
            self.clustering.clamp(0.1, 1e3).ln(),
        ]
    }
}

/// Measures [`Features`] from a frame; keeps the previous centres of its sample and its scratch buffers, so a
/// warmed-up frame allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct FeatureSampler {
    /// The sampled body indices, ascending; drawn again when `n` changes, renamed by a permutation.
    sample: Vec<u32>,
    /// The sampled bodies' centres last frame (same order as `sample`).
    previous: Vec<[f32; 3]>,
    /// `false` when `previous` does not belong to this numbering (first frame, after a resize).
    have_previous: bool,
    /// The body count the sample was drawn for.
    n: usize,
    /// Scratch: per-sample values to take percentiles of.
    values: Vec<f32>,
    /// Scratch: the occupancy grid.
    cells: Vec<u16>,
    /// Scratch: the sample's boxes, inflated, for the pair estimate (sorted by their lower x).
    inflated: Vec<Aabb>,
    /// Scratch: the sample renamed by a permutation, with each body's previous centre, sorted again.
    renamed: Vec<(u32, [f32; 3])>,
    /// Calls since the sample was drawn (the slow features are measured every [`SLOW_FEATURES_EVERY`]).
    calls: u64,
    /// The last measurement.
    last: Features,
}

impl FeatureSampler {
    /// A sampler with no history.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget the scene: the previous centres (the next frame has no measured speed), the last measurement, and
    /// the sample, drawn again next time.
    pub fn forget(&mut self) {
        self.have_previous = false;
        self.n = usize::MAX;
        self.last = Features::default();
    }

    /// The bodies were renumbered by the permutation `resize` (the simulation's spatial reorder): the same bodies
    /// stay sampled under their new indices, with their previous centres, so the next measurement's speed and
    /// resting share are measured across the reorder. The sample is sorted again, so that reads go forward.
    /// O(s log s) for a sample of s bodies; no allocation once warm. A sample drawn for another count (or none)
    /// is left to be drawn again.
    pub fn permute(&mut self, resize: &Resize<'_>) {
        if self.n != resize.old_len() || !resize.is_permutation() {
            return;
        }
        let map = resize.old_to_new;
        self.renamed.clear();
        self.renamed.extend(self.sample.iter().zip(&self.previous).map(|(&i, &p)| (map[i as usize], p)));
        self.renamed.sort_unstable_by_key(|&(i, _)| i);
        for ((i, p), &(new, centre)) in self.sample.iter_mut().zip(&mut self.previous).zip(&self.renamed) {
            *i = new;
            *p = centre;
        }
    }

    /// The last measurement.
    #[must_use]
    pub fn last(&self) -> &Features {
        &self.last
    }

    /// The sampled body indices, ascending.
    #[must_use]
    pub fn sample(&self) -> &[u32] {
        &self.sample
    }

    /// The number of bodies currently sampled.
    #[must_use]
    pub fn sample_len(&self) -> usize {
        self.sample.len()
    }

    /// Measure this frame. `pairs` is the broadphase's last answer for these bodies, when there is one; without
    /// it (a first frame, or the first after a resize) pairs per body are estimated from the sample
    /// ([`FeatureSampler::estimate_pairs_per_body`]). Speed comes from the sample's displacement since the last
    /// call; on a first call, from the frame's speed hint, or it is unknown. O(s) for a sample of s ≤
    /// [`SAMPLE_MAX`] bodies, plus a 4096-cell clear (and O(s log s) for the pair estimate).
    pub fn measure(&mut self, frame: &Frame<'_>, pairs: Option<usize>) -> Features {
        self.measure_over(frame, pairs, 1)
    }

    /// [`FeatureSampler::measure`] when `frames` frames passed since the last call (the selector measures only
    /// on the frames it decides on): the displacement is spread over them.
    pub fn measure_over(&mut self, frame: &Frame<'_>, pairs: Option<usize>, frames: u32) -> Features {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        if n != self.n {
            self.draw_sample(n);
        }
        let mut f = Features { n, ..self.last };
        if n == 0 {
            self.last = f;
            return f;
        }
        // Speed and resting, from the centres' displacement over the box size.
        if self.have_previous {
            self.values.clear();
            let mut still = 0usize;
            for (slot, &i) in self.sample.iter().enumerate() {
                let b = &aabbs[i as usize];
                let c = center(b);
                let p = self.previous[slot];
                let d = ((c[0] - p[0]).powi(2) + (c[1] - p[1]).powi(2) + (c[2] - p[2]).powi(2)).sqrt();
                still += usize::from(d == 0.0);
                self.values.push(d / size(b).max(f32::MIN_POSITIVE));
                self.previous[slot] = c;
            }
            let s = self.values.len() as f64;
            f.speed_mean = self.values.iter().map(|&v| f64::from(v)).sum::<f64>() / (s * f64::from(frames.max(1)));
            f.speed_known = true;
            f.resting = match frame.moved {
                Some(moved) => self.sample.iter().filter(|&&i| !moved[i as usize]).count() as f64 / s,
                None => still as f64 / s,
            };
        } else {
            for (slot, &i) in self.sample.iter().enumerate() {
                self.previous[slot] = center(&aabbs[i as usize]);
            }
            self.have_previous = true;
            f.speed_mean = frame.speed.map_or(0.0, f64::from);
            f.speed_known = frame.speed.is_some();
            f.resting = 0.0;
        }
        // Sizes and clustering change slowly: measured on a first frame and every few frames after.
        if self.calls.is_multiple_of(SLOW_FEATURES_EVERY) {
            self.values.clear();
            self.values.extend(self.sample.iter().map(|&i| size(&aabbs[i as usize])));
            let median = percentile(&mut self.values, 0.5);
            let p99 = percentile(&mut self.values, 0.99);
            f.size_spread = if median > 0.0 { f64::from(p99 / median) } else { 1.0 };
            f.clustering = self.clustering(aabbs);
        }
        self.calls += 1;
        f.pairs_per_body = match pairs {
            Some(p) => p as f64 / n as f64,
            None => self.estimate_pairs_per_body(aabbs),
        };
        self.last = f;
        f
    }

    /// Pairs per body estimated from the sample alone, before any broadphase has answered. The sample is a
    /// fraction q = s/n of the bodies, so two bodies that overlap are both in it with probability q², and the
    /// pairs among the sampled boxes estimate `P/n ≈ pairs / (s·q)` — in a crowd. In a sparse scene those pairs are
    /// too rare to count at 10⁶ bodies, so every sampled box is then inflated about its centre by λ, with
    /// λ³·q = 1 first (the sample then fills space as densely as the whole scene, measured in box volumes): in a
    /// scene whose density changes slowly over λ box sizes, the inflated pairs number `q²·λ³·P`, so
    /// `P/n ≈ pairs / (s·q·λ³)`. The first λ of 1, q^(−1/3), 2·q^(−1/3), 4·q^(−1/3) that finds at least s/8 pairs
    /// gives the estimate (the smallest inflation: the least smoothing of the density), else the last. Pairs are
    /// counted by a sort and sweep on x. O(s log s + pairs found) per λ tried.
    pub fn estimate_pairs_per_body(&mut self, aabbs: &[Aabb]) -> f64 {
        let (n, s) = (aabbs.len(), self.sample.len());
        if s < 2 {
            return 0.0;
        }
        let q = s as f64 / n as f64;
        let spread = q.powf(-1.0 / 3.0);
        let lambdas = [1.0, spread, 2.0 * spread, 4.0 * spread];
        let mut estimate = 0.0;
        for lambda in lambdas {
            self.inflated.clear();
            let grow = lambda as f32;
            self.inflated.extend(self.sample.iter().map(|&i| &aabbs[i as usize]).filter(|b| is_valid_box(b)).map(
                |b| {
                    let (c, half) = (b.center(), b.extents() * (0.5 * grow));
                    Aabb::new(c - half, c + half)
                },
            ));
            self.inflated.sort_unstable_by(|a, b| a.min.x.total_cmp(&b.min.x));
            let pairs = sweep_count(&self.inflated);
            estimate = pairs as f64 / (s as f64 * q * lambda.powi(3));
            if pairs * 8 >= s {
                break;
            }
        }
        estimate
    }

    /// Σ occupancy² over the grid, normalised to 1 for uniformly random centres (Poisson: E[k²] = λ + λ²).
    ///
    /// The grid spans the sample's centres from their [`CLUSTERING_TRIM`] quantile to the opposite one on each
    /// axis, the centres beyond it falling into the edge cells: spanned on the extremes, one body far out (a lost
    /// body at 1e30, which the conformance kit puts at index 0, always sampled) would stretch the grid until every
    /// other body fell into one cell, and an ordinary scene would look as clustered as a scene can be.
    fn clustering(&mut self, aabbs: &[Aabb]) -> f64 {
        let mut lo = [0.0f32; 3];
        let mut hi = [0.0f32; 3];
        for k in 0..3 {
            self.values.clear();
            self.values.extend(self.sample.iter().map(|&i| center(&aabbs[i as usize])[k]));
            lo[k] = percentile(&mut self.values, CLUSTERING_TRIM);
            hi[k] = percentile(&mut self.values, 1.0 - CLUSTERING_TRIM);
        }
        let scale: [f32; 3] = std::array::from_fn(|k| {
            let w = hi[k] - lo[k];
            if w > 0.0 { GRID as f32 / w * (1.0 - f32::EPSILON) } else { 0.0 }
        });
        self.cells.clear();
        self.cells.resize(GRID * GRID * GRID, 0);
        let mut sum_sq = 0u64;
        for &i in &self.sample {
            let c = center(&aabbs[i as usize]);
            let cell = |k: usize| (((c[k] - lo[k]) * scale[k]) as usize).min(GRID - 1);
            let slot = &mut self.cells[(cell(0) * GRID + cell(1)) * GRID + cell(2)];
            // (k+1)² − k² = 2k + 1: the sum of squares grows as the cells fill.
            sum_sq += 2 * u64::from(*slot) + 1;
            *slot += 1;
        }
        let s = self.sample.len() as f64;
        let lambda = s / (GRID * GRID * GRID) as f64;
        sum_sq as f64 / (s * (1.0 + lambda))
    }

    /// Draw `min(n, max(SAMPLE_MIN, n / SAMPLE_DIVISOR), SAMPLE_MAX)` distinct indices: `k · P mod n` for a prime
    /// `P` above every body count is a permutation of `0..n`, so its first values are distinct and spread.
    fn draw_sample(&mut self, n: usize) {
        let s = (n / SAMPLE_DIVISOR).clamp(SAMPLE_MIN, SAMPLE_MAX).min(n);
        self.sample.clear();
        self.sample.extend((0..s as u64).map(|k| ((k * PERMUTATION) % n.max(1) as u64) as u32));
        self.sample.sort_unstable();
        self.previous.clear();
        self.previous.resize(s, [0.0; 3]);
        self.values.reserve(s);
        self.have_previous = false;
        self.calls = 0;
        self.n = n;
    }
}

fn center(b: &Aabb) -> [f32; 3] {
    let c = b.center();
    [c.x, c.y, c.z]
}

/// The overlapping pairs among `boxes` sorted by `min.x` (a box that is not finite overlaps nothing).
fn sweep_count(boxes: &[Aabb]) -> usize {
    let mut count = 0;
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            if b.min.x > a.max.x {
                break;
            }
            let apart = b.min.y > a.max.y || a.min.y > b.max.y || b.min.z > a.max.z || a.min.z > b.max.z;
            count += usize::from(!apart);
        }
    }
    count
}

/// A box's size: its longest side.
fn size(b: &Aabb) -> f32 {
    b.extents().max_element()
}

/// The `q` quantile of `values` (nearest rank), reordering them. O(len) expected.
fn percentile(values: &mut [f32], q: f64) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let rank = ((values.len() - 1) as f64 * q).round() as usize;
    *values.select_nth_unstable_by(rank, f32::total_cmp).1
}

#[cfg(test)]
mod tests;
