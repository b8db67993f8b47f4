//! The scene's features, measured every frame from a fixed-size sample of bodies.
//!
//! Every feature is computed from at most [`SAMPLE_MAX`] bodies, whatever `n` is, so the cost per frame is
//! bounded (tens of microseconds) while the broadphase's cost grows with `n`. The sample is a fixed
//! pseudo-random subset of indices (a multiplicative permutation, sorted once so the reads go forward through
//! memory), drawn again only when the body count changes. A stride sample would alias with scenes built in
//! patterns (every tenth body large, say).

use collide_broadphase::{Aabb, Frame};

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
/// A multiplier coprime with every body count below 2³¹ (a prime above it), for the sample permutation.
const PERMUTATION: u64 = 2_654_435_761;

/// What the selector knows about the scene this frame. Cheap to copy; every field is a plain number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// Bodies.
    pub n: usize,
    /// Pairs the broadphase reported last frame per body: the local density the pair search pays for.
    pub pairs_per_body: f64,
    /// Mean displacement of a box centre since the last frame, over the box's size (its longest side): what
    /// incremental algorithms pay for. 0.5 is the thesis's scene; below 0.01 is a slow drift.
    pub speed_mean: f64,
    /// The 90th percentile of the same: a few fast bodies among resting ones show here and not in the mean.
    pub speed_p90: f64,
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
    /// The sampled body indices, ascending; drawn again when `n` changes.
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
    /// The last measurement.
    last: Features,
}

impl FeatureSampler {
    /// A sampler with no history.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget the previous centres (the next frame has no speed) and draw the sample again next time.
    pub fn forget(&mut self) {
        self.have_previous = false;
        self.n = usize::MAX;
    }

    /// The last measurement.
    #[must_use]
    pub fn last(&self) -> &Features {
        &self.last
    }

    /// The number of bodies currently sampled.
    #[must_use]
    pub fn sample_len(&self) -> usize {
        self.sample.len()
    }

    /// Measure this frame, whose broadphase answered with `pairs` pairs. O(s) for a sample of s ≤
    /// [`SAMPLE_MAX`] bodies, plus a 4096-cell clear.
    pub fn measure(&mut self, frame: &Frame<'_>, pairs: usize) -> Features {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        if n != self.n {
            self.draw_sample(n);
        }
        let mut f = Features { n, pairs_per_body: pairs as f64 / n.max(1) as f64, ..self.last };
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
            f.speed_mean = self.values.iter().map(|&v| f64::from(v)).sum::<f64>() / s;
            f.speed_p90 = f64::from(percentile(&mut self.values, 0.9));
            f.resting = match frame.moved {
                Some(moved) => self.sample.iter().filter(|&&i| !moved[i as usize]).count() as f64 / s,
                None => still as f64 / s,
            };
        } else {
            for (slot, &i) in self.sample.iter().enumerate() {
                self.previous[slot] = center(&aabbs[i as usize]);
            }
            self.have_previous = true;
        }
        // Sizes.
        self.values.clear();
        self.values.extend(self.sample.iter().map(|&i| size(&aabbs[i as usize])));
        let median = percentile(&mut self.values, 0.5);
        let p99 = percentile(&mut self.values, 0.99);
        f.size_spread = if median > 0.0 { f64::from(p99 / median) } else { 1.0 };
        f.clustering = self.clustering(aabbs);
        self.last = f;
        f
    }

    /// Σ occupancy² over the grid, normalised to 1 for uniformly random centres (Poisson: E[k²] = λ + λ²).
    fn clustering(&mut self, aabbs: &[Aabb]) -> f64 {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for &i in &self.sample {
            let c = center(&aabbs[i as usize]);
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
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
        self.n = n;
    }
}

fn center(b: &Aabb) -> [f32; 3] {
    let c = b.center();
    [c.x, c.y, c.z]
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
mod tests {
    use super::*;
    use collide_math::{Rng, Vec3};

    fn cloud(rng: &mut Rng, n: usize, width: f32, r: f32) -> Vec<Aabb> {
        (0..n).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(width)), r)).collect()
    }

    #[test]
    fn uniform_scenes_measure_one_and_clusters_more() {
        let mut rng = Rng::new(3);
        let uniform = cloud(&mut rng, 60_000, 100.0, 0.5);
        let mut s = FeatureSampler::new();
        let f = s.measure(&Frame::new(&uniform), 0);
        assert_eq!(s.sample_len(), SAMPLE_MAX.min(60_000 / SAMPLE_DIVISOR));
        assert!((0.85..1.15).contains(&f.clustering), "uniform clustering {}", f.clustering);
        assert!((f.size_spread - 1.0).abs() < 1e-6);
        // Half the bodies in a corner 1/1000 of the volume.
        let mut clustered = uniform.clone();
        for b in clustered.iter_mut().step_by(2) {
            let c = b.center() / 10.0;
            *b = Aabb::from_center_radius(c, 0.5);
        }
        let f = FeatureSampler::new().measure(&Frame::new(&clustered), 0);
        assert!(f.clustering > 20.0, "clustered {}", f.clustering);
    }

    #[test]
    fn speed_is_displacement_over_size_and_resting_counts_still_boxes() {
        let mut rng = Rng::new(5);
        let mut a = cloud(&mut rng, 10_000, 50.0, 0.5);
        let mut s = FeatureSampler::new();
        let f0 = s.measure(&Frame::new(&a), 0);
        assert_eq!(f0.speed_mean, 0.0, "no speed without a previous frame");
        // Every other body moves by 0.25 along x (a quarter of its size of 1), the rest stay.
        for b in a.iter_mut().step_by(2) {
            *b = Aabb::new(b.min + Vec3::X * 0.25, b.max + Vec3::X * 0.25);
        }
        let f = s.measure(&Frame::new(&a), 5000);
        assert!((f.resting - 0.5).abs() < 0.05, "resting {}", f.resting);
        assert!((f.speed_mean - 0.125).abs() < 0.01, "mean {}", f.speed_mean);
        assert!((f.speed_p90 - 0.25).abs() < 1e-3, "p90 {}", f.speed_p90);
        assert_eq!(f.pairs_per_body, 0.5);
        // The motion hint, when given, decides the resting fraction.
        let moved = vec![true; a.len()];
        let f = s.measure(&Frame::new(&a).with_moved(&moved), 0);
        assert_eq!(f.resting, 0.0);
    }

    #[test]
    fn size_spread_sees_one_body_in_ten_eight_times_larger() {
        let mut rng = Rng::new(7);
        let mut a = cloud(&mut rng, 20_480, 200.0, 0.5);
        for b in a.iter_mut().step_by(10) {
            *b = Aabb::from_center_radius(b.center(), 4.0);
        }
        let f = FeatureSampler::new().measure(&Frame::new(&a), 0);
        assert!((f.size_spread - 8.0).abs() < 1e-3, "spread {}", f.size_spread);
    }

    #[test]
    fn the_sample_is_distinct_sorted_and_redrawn_on_resize() {
        let mut s = FeatureSampler::new();
        for n in [1, 63, 64, 1000, 70_000, 1_000_003] {
            s.draw_sample(n);
            let len = s.sample.len();
            assert!(len <= SAMPLE_MAX && len <= n);
            assert!(s.sample.windows(2).all(|w| w[0] < w[1]), "n = {n}");
            assert!(s.sample.iter().all(|&i| (i as usize) < n));
        }
        let a = vec![Aabb::from_center_radius(Vec3::ZERO, 1.0); 500];
        s.measure(&Frame::new(&a), 0);
        assert_eq!(s.sample_len(), 64);
        s.measure(&Frame::new(&a[..100]), 0);
        assert_eq!(s.sample_len(), 64, "100 bodies: the floor of 64");
        assert!(s.sample.iter().all(|&i| i < 100));
    }
}
