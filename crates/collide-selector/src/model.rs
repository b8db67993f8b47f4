//! The cost model: predicted milliseconds per candidate from the [`Features`].
//!
//! Two layers:
//! - **The prior**, fitted offline by `cargo xtask bench --study calibrate` over the scenario registry from 2 000
//!   to 10⁶ bodies, each candidate run live from its first frame in a process of its own: per candidate, two
//!   log-linear models over the [`REGRESSORS`] of [`Features::regressors`] (costs multiply — n log n, pairs per
//!   body, speed — so their logarithms add): its *steady* frame, `ln ms = Σ wₖ·xₖ`, and its *build*, the extra
//!   cost of its first two frames over two steady ones (a tree's construction, a grid's first allocation, the
//!   dynamic tree's second call that rebuilds with predicted boxes). It is stored as `data/prior.toml` with the
//!   machine, the commit and each candidate's parameters, and compiled in; [`Prior::parse`] reads a refitted one.
//! - **Relative predictions**: a candidate's cost is predicted from the *active* candidate's measured cost times
//!   the prior's ratio of the two, `ms_c = ms_active · prior_c / prior_active`. Whatever slows every candidate
//!   alike (the machine's load, another CPU than the calibration's) cancels in the ratio.
//! - **The online correction**: each probe measures a candidate beside the active one on the same frames; the
//!   gap between their measured ratio and the prior's is folded into an exponentially weighted offset kept per
//!   candidate and per [`Regime`] (coarse bins of speed, pairs per body and resting fraction), because the
//!   prior's error is not one constant: it is off in one direction on slow scenes and in another on dense ones.
//!
//! Each prediction comes with an uncertainty `sigma` (a standard deviation of `ln ms`): the prior's residual
//! when the candidate was never measured in this regime, small when it was measured recently on similar
//! features, growing with the distance of today's features from that measurement. The policy probes a
//! candidate when its optimistic prediction `ms · e^−sigma` could beat the active one.

use crate::features::Features;
pub use crate::features::{REGRESSOR_NAMES, REGRESSORS};
use serde::{Deserialize, Serialize};

/// The prior compiled into the crate (see the file's header for its machine and commit).
pub const BUILTIN_PRIOR: &str = include_str!("../data/prior.toml");

/// Uncertainty (in `ln ms`) of a candidate the prior does not know: a factor of e ≈ 2.7 either way.
const UNKNOWN_SIGMA: f64 = 1.0;
/// The least uncertainty of a prediction from the prior alone: calibration scenes are not the user's scene. Each
/// fit's own residual counts above it — 0.10 to 0.21 for most candidates on the development VM, 0.42 for `sap`
/// and 0.67 for `bvh-dynamic`, whose costs swing with speed —, so that the model explores the candidates the
/// prior knows badly and trusts its ranking of the others (replayed on recorded traces, a floor of 0.35 cost the
/// tour 5% in exploration probes).
const PRIOR_SIGMA_FLOOR: f64 = 0.15;
/// The uncertainty of a candidate measured moments ago on the same features: frame-to-frame noise on a
/// shared machine is about ±10%.
pub const MEASURED_SIGMA: f64 = 0.1;
/// Frames over which a measurement's uncertainty grows by one unit of `ln ms`: after a minute at 60 Hz a
/// measurement says little more than the prior.
const AGE_FRAMES_PER_SIGMA: f64 = 3600.0;
/// Weight of a probe's result in the correction: a probe is a deliberate, side-by-side measurement.
const PROBE_WEIGHT: f64 = 0.6;
/// Weight of a measured build in its candidate's build correction.
const BUILD_WEIGHT: f64 = 0.5;

/// One candidate's fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fit {
    /// The candidate's registry name.
    pub name: String,
    /// The parameters it ran with, as `Params` prints them (`max_leaf=32 max_depth=10 …`): a fit made with
    /// other parameters than the registry's defaults describes another algorithm (a test checks).
    pub params: String,
    /// Its steady frame: `ln ms = Σ weights[k] · regressors[k]`.
    pub weights: [f64; REGRESSORS],
    /// The root-mean-square residual of the fit, in `ln ms` (0.2 ≈ ±22%).
    pub rmse: f64,
    /// Calibration points it was fitted on.
    pub points: usize,
    /// Its build: the extra cost of its first two frames over two steady frames, `ln ms = Σ build_weights[k] ·
    /// regressors[k]`.
    pub build_weights: [f64; REGRESSORS],
    /// The build fit's residual, in `ln ms`.
    pub build_rmse: f64,
    /// Runs the build was fitted on (one per scene, size and candidate).
    pub build_points: usize,
}

impl Fit {
    fn eval(weights: &[f64; REGRESSORS], features: &Features) -> f64 {
        let ln_ms: f64 = weights.iter().zip(features.regressors()).map(|(w, x)| w * x).sum();
        ln_ms.clamp(-20.0, 20.0).exp()
    }
}

/// The offline prior: one [`Fit`] per candidate, and where it was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prior {
    /// The machine's name (the bench's `--machine`).
    pub machine: String,
    /// Its CPU, as the bench reports it.
    pub cpu: String,
    /// Threads the candidates ran on.
    pub threads: usize,
    /// The commit the candidates were built from.
    pub commit: String,
    /// When (UTC date).
    pub date: String,
    /// The regressors' names; must equal [`REGRESSOR_NAMES`].
    pub regressors: Vec<String>,
    /// The fits.
    #[serde(rename = "fit")]
    pub fits: Vec<Fit>,
}

impl Prior {
    /// The prior compiled into the crate. Panics only if the shipped file is broken, which a test checks.
    #[must_use]
    pub fn builtin() -> Self {
        Self::parse(BUILTIN_PRIOR).expect("data/prior.toml is checked by the crate's tests")
    }

    /// Read a prior written by [`Prior::to_toml`] (the calibrate study's output). The error names the problem.
    pub fn parse(text: &str) -> Result<Self, String> {
        let prior: Self = toml::from_str(text).map_err(|e| format!("prior: {}", e.message().trim()))?;
        if prior.regressors != REGRESSOR_NAMES {
            return Err(format!(
                "prior: fitted on regressors [{}], this build uses [{}]; refit with `cargo xtask bench --study calibrate`",
                prior.regressors.join(", "),
                REGRESSOR_NAMES.join(", ")
            ));
        }
        if let Some(f) = prior.fits.iter().find(|f| f.weights.iter().any(|w| !w.is_finite()) || !f.rmse.is_finite()) {
            return Err(format!("prior: the fit of `{}` has a non-finite weight", f.name));
        }
        Ok(prior)
    }

    /// The prior as TOML, with a comment saying what it is.
    #[must_use]
    pub fn to_toml(&self) -> String {
        let mut text = String::from(
            "# The meta-broadphase's cost prior: per candidate, ln(ms per frame) = sum of weights[k] * regressors[k]\n\
             # (see crates/collide-selector/src/model.rs). Written by `cargo xtask bench --study calibrate`;\n\
             # refit on your own machine with `cargo xtask bench --study calibrate --install`.\n",
        );
        text.push_str(&toml::to_string(self).expect("a prior always serialises"));
        text
    }

    /// The fit of `name`, if the prior has one.
    #[must_use]
    pub fn fit(&self, name: &str) -> Option<&Fit> {
        self.fits.iter().find(|f| f.name == name)
    }

    /// The prior's prediction of `name`'s steady frame in ms, and its residual, if it knows the candidate.
    #[must_use]
    pub fn predict(&self, name: &str, features: &Features) -> Option<(f64, f64)> {
        let fit = self.fit(name)?;
        Some((Fit::eval(&fit.weights, features), fit.rmse))
    }

    /// The prior's prediction of `name`'s build (the extra cost of its first two frames) in ms, and its residual.
    #[must_use]
    pub fn predict_build(&self, name: &str, features: &Features) -> Option<(f64, f64)> {
        let fit = self.fit(name)?;
        Some((Fit::eval(&fit.build_weights, features), fit.build_rmse))
    }
}

/// Fit `ln ms` on the regressors of `rows` by ridge regression (a little shrinkage, so that a regressor that
/// hardly varies in the calibration — size spread, say — gets a small weight rather than a wild one). The
/// intercept is not shrunk. Returns the weights and the RMS residual; `None` for fewer than two rows.
#[must_use]
pub fn fit_rows(rows: &[(Features, f64)]) -> Option<([f64; REGRESSORS], f64)> {
    const RIDGE: f64 = 1e-2;
    let rows: Vec<_> = rows.iter().filter(|(_, ms)| ms.is_finite() && *ms > 0.0).collect();
    if rows.len() < 2 {
        return None;
    }
    let mut a = [[0.0f64; REGRESSORS]; REGRESSORS];
    let mut b = [0.0f64; REGRESSORS];
    for (f, ms) in &rows {
        let x = f.regressors();
        let y = ms.ln();
        for i in 0..REGRESSORS {
            b[i] += x[i] * y;
            for j in 0..REGRESSORS {
                a[i][j] += x[i] * x[j];
            }
        }
    }
    for (i, row) in a.iter_mut().enumerate().skip(1) {
        row[i] += RIDGE * rows.len() as f64;
    }
    let w = solve(a, b)?;
    let sse: f64 = rows
        .iter()
        .map(|(f, ms)| {
            let p: f64 = w.iter().zip(f.regressors()).map(|(w, x)| w * x).sum();
            (p - ms.ln()).powi(2)
        })
        .sum();
    Some((w, (sse / rows.len() as f64).sqrt()))
}

/// Solve `a · x = b` by Gaussian elimination with partial pivoting; `None` when `a` is singular.
fn solve(mut a: [[f64; REGRESSORS]; REGRESSORS], mut b: [f64; REGRESSORS]) -> Option<[f64; REGRESSORS]> {
    for col in 0..REGRESSORS {
        let pivot = (col..REGRESSORS).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (pivot_row, pivot_b) = (a[col], b[col]);
        for (row, rhs) in a.iter_mut().zip(b.iter_mut()).skip(col + 1) {
            let factor = row[col] / pivot_row[col];
            for (x, p) in row.iter_mut().zip(pivot_row).skip(col) {
                *x -= factor * p;
            }
            *rhs -= factor * pivot_b;
        }
    }
    let mut x = [0.0; REGRESSORS];
    for row in (0..REGRESSORS).rev() {
        let rest: f64 = (row + 1..REGRESSORS).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

/// Coarse bins of the features whose change moves costs the most: speed (slow drift / moving / fast), pairs
/// per body (sparse / crowded / packed) and resting (mostly moving / mostly at rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regime(u8);

impl Regime {
    /// The number of regimes.
    pub const COUNT: usize = 18;

    /// The regime of `f`.
    #[must_use]
    pub fn of(f: &Features) -> Self {
        let speed = if f.speed_mean < 0.01 {
            0
        } else if f.speed_mean < 0.1 {
            1
        } else {
            2
        };
        let crowd = if f.pairs_per_body < 1.0 {
            0
        } else if f.pairs_per_body < 8.0 {
            1
        } else {
            2
        };
        let resting = u8::from(f.resting >= 0.5);
        Self(speed * 6 + crowd * 2 + resting)
    }

    /// A short label: `slow/sparse/moving`.
    #[must_use]
    pub fn label(self) -> String {
        let speed = ["slow", "moving", "fast"][usize::from(self.0 / 6)];
        let crowd = ["sparse", "crowded", "packed"][usize::from(self.0 / 2 % 3)];
        let rest = ["moving", "resting"][usize::from(self.0 % 2)];
        format!("{speed}/{crowd}/{rest}")
    }
}

/// A prediction: milliseconds per frame and the uncertainty of its logarithm.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Predicted ms per frame.
    pub ms: f64,
    /// Standard deviation of `ln ms`: 0.1 is ±10%, 1 is a factor of e.
    pub sigma: f64,
    /// `true` when it rests on a measurement in this regime (the active candidate's frames, or a probe), not
    /// on the prior alone.
    pub measured: bool,
}

impl Estimate {
    /// The optimistic end of the estimate, `ms · e^−sigma`.
    #[must_use]
    pub fn optimistic(&self) -> f64 {
        self.ms * (-self.sigma).exp()
    }
}

/// What one candidate's correction knows in one regime: how much dearer (in `ln ms`) it is than the prior says,
/// *relative to* the candidates it was measured beside.
#[derive(Clone, Copy, Debug, Default)]
struct Learned {
    /// EWMA of `ln(measured / prior)` of this candidate minus the same of the candidate it ran beside, plus
    /// that candidate's own offset: offsets of candidates compared on the same frames line up.
    rel: f64,
    /// The frame and features of the last measurement; `None` until one.
    last: Option<(u64, Features)>,
    /// The common level when it was measured: `ln(ms / prior) − rel` of the candidate it ran beside, what slows
    /// every candidate alike. When the level moves a lot without the features moving (the machine's load
    /// changed, or something the features do not see), the offset learned at the old level is worth less.
    level: f64,
    /// The uncertainty of the last measurement itself: [`MEASURED_SIGMA`] for one on the whole frame,
    /// [`SAMPLED_SIGMA`] for one on a spatial sample carried to the whole scene by the prior.
    sigma: f64,
}

/// The uncertainty of a ratio measured on a spatial sample of a few percent of the bodies and carried to the
/// whole scene by the prior's dependence on n: the sample's own noise, and the prior's error in how the two
/// candidates scale from the sample's size to the scene's (their parallel sections, for one, switch on only above
/// a few thousand bodies).
pub const SAMPLED_SIGMA: f64 = 0.2;

/// The prior plus the online corrections, for a fixed list of candidates.
///
/// Predictions are **relative to the active candidate**: `ms_c = ms_active · (prior_c / prior_active) ·
/// e^(rel_c − rel_active)`. The machine's load, a slower CPU than the calibration's, a scene the prior has
/// never seen: all of that moves every candidate's cost together and cancels in the ratio, so the prior's
/// ranking survives where its absolute milliseconds do not. What does not cancel — a candidate that does better
/// or worse on this scene than the prior predicts, relative to the others — is learned from probes, which
/// measure two candidates on the same frames, the whole frame or a spatial sample of it.
///
/// Builds are predicted at the common level the active candidate measures (`prior_build_c · e^level`), corrected
/// per candidate by what its measured builds (warm starts, first frames) cost against that prediction.
#[derive(Clone, Debug)]
pub struct CostModel {
    prior: Prior,
    names: Vec<&'static str>,
    learned: Vec<[Learned; Regime::COUNT]>,
    /// Per candidate: EWMA of `ln(measured build / predicted build)`, 0 until one was measured.
    build_rel: Vec<f64>,
}

impl CostModel {
    /// A model of `names` (the candidates, in the selector's order) on `prior`.
    #[must_use]
    pub fn new(prior: Prior, names: &[&'static str]) -> Self {
        Self {
            prior,
            names: names.to_vec(),
            learned: vec![[Learned::default(); Regime::COUNT]; names.len()],
            build_rel: vec![0.0; names.len()],
        }
    }

    /// The prior the model starts from.
    #[must_use]
    pub fn prior(&self) -> &Prior {
        &self.prior
    }

    /// Forget what was learned (the scene's corrections); the prior stays.
    pub fn forget(&mut self) {
        self.learned.iter_mut().for_each(|l| *l = [Learned::default(); Regime::COUNT]);
        self.build_rel.iter_mut().for_each(|b| *b = 0.0);
    }

    /// The prior's prediction for candidate `c` (ms, sigma); for a candidate it does not know, the geometric
    /// mean of the known candidates' predictions with a wide uncertainty, so that the first probe decides.
    #[must_use]
    pub fn base(&self, c: usize, f: &Features) -> (f64, f64) {
        if let Some((ms, rmse)) = self.prior.predict(self.names[c], f) {
            return (ms, rmse.max(PRIOR_SIGMA_FLOOR));
        }
        let (mut sum, mut known) = (0.0, 0usize);
        for (ms, _) in self.names.iter().filter_map(|n| self.prior.predict(n, f)) {
            sum += ms.ln();
            known += 1;
        }
        let mean = if known == 0 { 0.0 } else { sum / known as f64 };
        (mean.exp(), UNKNOWN_SIGMA)
    }

    /// The prior's build of candidate `c` (ms at the prior's level); for a candidate it does not know, two of its
    /// base frames.
    fn base_build(&self, c: usize, f: &Features) -> f64 {
        self.prior.predict_build(self.names[c], f).map_or_else(|| 2.0 * self.base(c, f).0, |(ms, _)| ms)
    }

    /// The common level now: how much dearer than the prior says every candidate runs (the machine, its load),
    /// from the `active` candidate's typical frame `active_ms`, as `ln`.
    #[must_use]
    pub fn level(&self, active: usize, active_ms: f64, f: &Features) -> f64 {
        let r = Regime::of(f).0 as usize;
        (active_ms.max(1e-9) / self.base(active, f).0).ln() - self.learned[active][r].rel
    }

    /// The predicted build of candidate `c` (ms): the extra cost of starting it on this scene over running it,
    /// at the common `level` (see [`CostModel::level`]).
    #[must_use]
    pub fn build(&self, c: usize, f: &Features, level: f64) -> f64 {
        self.base_build(c, f) * (level + self.build_rel[c]).clamp(-20.0, 20.0).exp()
    }

    /// A build of candidate `c` was measured at `ms` (its warm start and its first frame's excess over a steady
    /// one) at the common `level`: learn how it compares with the prediction.
    pub fn observe_build(&mut self, c: usize, f: &Features, level: f64, ms: f64) {
        if !(ms.is_finite() && ms > 0.0 && level.is_finite()) {
            return;
        }
        let target = (ms / (self.base_build(c, f) * level.clamp(-20.0, 20.0).exp())).ln();
        self.build_rel[c] += BUILD_WEIGHT * (target - self.build_rel[c]);
    }

    /// A probe ran candidate `c` beside the `active` one on the same frames of features `f`: `probe_ms` against
    /// `active_ms` (typical frames, comparable). Learn `c`'s offset relative to the active one's.
    pub fn observe_probe(&mut self, c: usize, active: usize, f: &Features, frame: u64, probe_ms: f64, active_ms: f64) {
        self.observe(c, active, f, f, frame, probe_ms / active_ms, active_ms, MEASURED_SIGMA);
    }

    /// A sampled probe ran candidate `c` and the `active` one on the same spatial sample of `sample_n` bodies of
    /// the scene of features `f`: `probe_ms` against `sample_active_ms`; the active one's typical frame on the
    /// whole scene is `active_ms`. The ratio measured on the sample is carried to the whole scene by half the
    /// change the prior predicts between the sample's size and the scene's (each candidate's dependence on n),
    /// with [`SAMPLED_SIGMA`].
    #[allow(clippy::too_many_arguments)]
    pub fn observe_sample(
        &mut self,
        c: usize,
        active: usize,
        f: &Features,
        sample_n: usize,
        frame: u64,
        (probe_ms, sample_active_ms): (f64, f64),
        active_ms: f64,
    ) {
        let at_sample = Features { n: sample_n, ..*f };
        self.observe(c, active, f, &at_sample, frame, probe_ms / sample_active_ms, active_ms, SAMPLED_SIGMA);
    }

    /// Learn `c`'s offset from a `ratio` of its cost to the `active` one's measured on features `measured_at`
    /// (the scene's, or a sample's), for the scene of features `f`, where the active one costs `active_ms`.
    #[allow(clippy::too_many_arguments)]
    fn observe(
        &mut self,
        c: usize,
        active: usize,
        f: &Features,
        measured_at: &Features,
        frame: u64,
        ratio: f64,
        active_ms: f64,
        sigma: f64,
    ) {
        if !(ratio.is_finite() && ratio > 0.0 && active_ms.is_finite() && active_ms > 0.0) || c == active {
            return;
        }
        let r = Regime::of(f).0 as usize;
        let base_a = self.base(active, f).0;
        // What the prior says of the two where they were measured. For a sample, half of its change from the
        // sample's size to the scene's: the prior's dependence on n is fitted over the registry's scenes, and in a
        // scene unlike them it carried a ratio measured right on the sample (kd at half of hgrid, in rapier's
        // pile at 10⁴ bodies) to a wrong one on the scene (0.85, where kd stayed at 0.45); half the change keeps
        // most of what the prior knows of parallel sections and tree depths and halves its error elsewhere.
        let ratio_at = |g: &Features| self.base(c, g).0 / self.base(active, g).0;
        let prior_ratio = (ratio_at(measured_at) * ratio_at(f)).sqrt();
        // The active candidate anchors the comparison: if it has no offset here yet, it is the reference (0).
        let anchor = &mut self.learned[active][r];
        if anchor.last.is_none() {
            *anchor =
                Learned { rel: 0.0, last: Some((frame, *f)), level: (active_ms / base_a).ln(), sigma: MEASURED_SIGMA };
        }
        let level = (active_ms / base_a).ln() - anchor.rel;
        let target = (ratio / prior_ratio).ln() + anchor.rel;
        let slot = &mut self.learned[c][r];
        // The first measurement is taken whole; later ones are blended, a sampled one less than a whole-frame one,
        // and a whole-frame one replaces what samples said more than it blends with it.
        let (weight, sigma) = match slot.last {
            None => (1.0, sigma),
            Some(_) if sigma > slot.sigma => (PROBE_WEIGHT / 2.0, slot.sigma),
            Some(_) => (PROBE_WEIGHT, sigma),
        };
        slot.rel += weight * (target - slot.rel);
        slot.last = Some((frame, *f));
        slot.level = level;
        slot.sigma = sigma;
    }

    /// The prediction for candidate `c` on features `f` at `frame`, given that the `active` candidate's typical
    /// frame costs `active_ms` now.
    #[must_use]
    pub fn predict(&self, c: usize, active: usize, active_ms: f64, f: &Features, frame: u64) -> Estimate {
        let r = Regime::of(f).0 as usize;
        let (base_c, prior_sigma) = self.base(c, f);
        let base_a = self.base(active, f).0;
        let rel_a = self.learned[active][r].rel;
        let slot = &self.learned[c][r];
        let ratio = |rel: f64| base_c / base_a * (rel - rel_a).exp();
        let Some((seen_at, seen)) = slot.last else {
            return Estimate { ms: active_ms * ratio(0.0), sigma: prior_sigma, measured: false };
        };
        let age = frame.saturating_sub(seen_at) as f64 / AGE_FRAMES_PER_SIGMA;
        // A change of the active candidate's own level since the measurement widens the uncertainty beyond the
        // prior's: the ratio learned then may not hold now, and the prior knows nothing of why it moved.
        let level_drift = ((active_ms / base_a).ln() - rel_a - slot.level).abs();
        let sigma = (slot.sigma + age + drift(&seen, f)).min(prior_sigma.max(slot.sigma)) + level_drift;
        Estimate { ms: active_ms * ratio(slot.rel), sigma, measured: true }
    }
}

/// How far the features moved since a measurement, in units of `ln ms` they could plausibly shift a cost by:
/// the regressors' differences weighted by how strongly costs depend on them.
fn drift(a: &Features, b: &Features) -> f64 {
    let (x, y) = (a.regressors(), b.regressors());
    // 1, ln n, ln² n, ln(1+ppb), ln speed, resting, ln spread, ln clustering.
    const WEIGHT: [f64; REGRESSORS] = [0.0, 1.0, 0.0, 0.5, 0.2, 0.5, 0.5, 0.2];
    x.iter().zip(y).zip(WEIGHT).map(|((x, y), w)| w * (x - y).abs()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(n: usize, speed: f64, ppb: f64) -> Features {
        Features {
            n,
            pairs_per_body: ppb,
            speed_mean: speed,
            speed_known: true,
            clustering: 1.0,
            size_spread: 1.0,
            resting: 0.0,
        }
    }

    #[test]
    fn the_shipped_prior_parses_and_covers_every_candidate_it_names() {
        let prior = Prior::builtin();
        assert!(!prior.fits.is_empty());
        assert_eq!(Prior::parse(&prior.to_toml()).unwrap(), prior, "to_toml and parse agree");
        for f in &prior.fits {
            let (ms, _) = prior.predict(&f.name, &features(100_000, 0.2, 1.0)).unwrap();
            assert!(ms > 1e-3 && ms < 1e4, "{}: {ms} ms at 100k is not a plausible cost", f.name);
        }
    }

    #[test]
    fn a_prior_with_other_regressors_is_refused_with_the_way_out() {
        let mut prior = Prior::builtin();
        prior.regressors[1] = "n".into();
        let e = Prior::parse(&prior.to_toml()).unwrap_err();
        assert!(e.contains("refit with `cargo xtask bench --study calibrate`"), "{e}");
        assert!(Prior::parse("machine = 3").unwrap_err().starts_with("prior: "));
    }

    #[test]
    fn ridge_fit_recovers_a_log_linear_cost() {
        // ms = 2e-5 · n · (1 + ppb)^0.5 · speed^0.3, sampled on a grid.
        let mut rows = Vec::new();
        for n in [1_000, 5_000, 20_000, 100_000, 400_000] {
            for speed in [0.002, 0.02, 0.2, 1.0] {
                for ppb in [0.1, 1.0, 10.0] {
                    let ms = 2e-5 * n as f64 * (1.0f64 + ppb).powf(0.5) * (speed + 1e-3f64).powf(0.3);
                    rows.push((features(n, speed, ppb), ms));
                }
            }
        }
        let (w, rmse) = fit_rows(&rows).unwrap();
        assert!(rmse < 0.05, "rmse {rmse}");
        // ln n and ln² n share the dependence on n, so check it through the predictions: 5× the bodies, 5× the cost.
        let predict = |f: &Features| w.iter().zip(f.regressors()).map(|(w, x)| w * x).sum::<f64>().exp();
        let ratio = predict(&features(100_000, 0.2, 1.0)) / predict(&features(20_000, 0.2, 1.0));
        assert!((ratio / 5.0 - 1.0).abs() < 0.05, "cost ratio for 5× the bodies: {ratio}");
        assert!((w[3] - 0.5).abs() < 0.05, "pairs weight {}", w[3]);
        assert!((w[4] - 0.3).abs() < 0.05, "speed weight {}", w[4]);
        assert!(fit_rows(&rows[..1]).is_none());
    }

    #[test]
    fn predictions_are_relative_to_the_active_candidate_and_probes_correct_them() {
        let prior = Prior::builtin();
        let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        let (a, b) = (leak(&prior.fits[0].name), leak(&prior.fits[1].name));
        let mut model = CostModel::new(prior, &[a, b, "never-calibrated"]);
        let f = features(50_000, 0.2, 1.0);
        let (base_a, base_b) = (model.base(0, &f).0, model.base(1, &f).0);
        // Never measured: the prior's ratio applied to whatever the active one costs now — on a machine twice
        // as slow, both are predicted twice as dear.
        let cold = model.predict(1, 0, 2.0 * base_a, &f, 0);
        assert!((cold.ms / (2.0 * base_b) - 1.0).abs() < 1e-9, "{} against {}", cold.ms, 2.0 * base_b);
        assert!(cold.sigma >= PRIOR_SIGMA_FLOOR);
        // A probe finds b three times dearer, relative to a, than the prior said.
        model.observe_probe(1, 0, &f, 10, 3.0 * base_b, base_a);
        let warm = model.predict(1, 0, base_a, &f, 10);
        assert!((warm.ms / (3.0 * base_b) - 1.0).abs() < 1e-9, "the first probe is taken as is: {}", warm.ms);
        assert!((warm.sigma - MEASURED_SIGMA).abs() < 1e-9);
        // The active one's cost doubling with the features unchanged: the ratio still stands, less surely.
        let doubled = model.predict(1, 0, 2.0 * base_a, &f, 10);
        assert!((doubled.ms / (6.0 * base_b) - 1.0).abs() < 1e-9);
        assert!((doubled.sigma - MEASURED_SIGMA - 2f64.ln()).abs() < 1e-9, "{}", doubled.sigma);
        // And the other way round: with b active, a is predicted a third as dear relative to b's prior.
        let back = model.predict(0, 1, 3.0 * base_b, &f, 10);
        assert!((back.ms / base_a - 1.0).abs() < 1e-9, "{} against {base_a}", back.ms);
        assert!(back.sigma < 1e-9 + MEASURED_SIGMA, "the anchor was measured on the same frames");
        // Half way from a fresh measurement to the prior's uncertainty, in frames of age.
        let age = ((cold.sigma - MEASURED_SIGMA) / 2.0 * AGE_FRAMES_PER_SIGMA) as u64;
        let half = model.predict(1, 0, base_a, &f, 10 + age);
        let expected = MEASURED_SIGMA + age as f64 / AGE_FRAMES_PER_SIGMA;
        assert!(expected < cold.sigma && (half.sigma - expected).abs() < 1e-9, "{age} frames older: {}", half.sigma);
        let later = model.predict(1, 0, base_a, &f, 10 + 3600);
        assert_eq!(later.sigma, cold.sigma, "a minute later the measurement says no more than the prior");
        // Elsewhere, the active candidate costs what the prior says there (the common level unchanged).
        let at = |g: &Features| model.predict(1, 0, model.base(0, g).0, g, 10);
        let bigger = at(&features(200_000, 0.2, 1.0));
        assert_eq!(bigger.sigma, cold.sigma, "four times the bodies is far from what was measured");
        let near = at(&features(51_000, 0.2, 1.0));
        assert!(near.sigma > warm.sigma && near.sigma < cold.sigma, "2% more bodies: a little less sure");
        // Another regime keeps its own correction.
        let slow = features(50_000, 0.001, 1.0);
        assert_ne!(Regime::of(&slow), Regime::of(&f));
        assert_eq!(at(&slow).sigma, cold.sigma);
        // A candidate the prior does not know is wide open.
        assert_eq!(model.predict(2, 0, base_a, &f, 0).sigma, UNKNOWN_SIGMA);
        assert_eq!(Regime::of(&f).label(), "fast/crowded/moving");
    }
}
