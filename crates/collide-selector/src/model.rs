//! The cost model: predicted milliseconds per candidate from the [`Features`].
//!
//! Two layers:
//! - **The prior**, fitted offline by `cargo xtask bench --study calibrate` over the scenario registry at
//!   several sizes and speeds: per candidate, `ln ms = Σ wₖ·xₖ` over the [`REGRESSORS`] of
//!   [`Features::regressors`] (a log-linear model: costs multiply — n log n, pairs per body, speed — so their
//!   logarithms add). It is stored as `data/prior.toml` with the machine and commit it came from, and compiled
//!   in; [`Prior::parse`] reads a refitted one.
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
const MEASURED_SIGMA: f64 = 0.1;
/// Frames over which a measurement's uncertainty grows by one unit of `ln ms`: after a minute at 60 Hz a
/// measurement says little more than the prior.
const AGE_FRAMES_PER_SIGMA: f64 = 3600.0;
/// Weight of a probe's result in the correction: a probe is a deliberate, side-by-side measurement.
const PROBE_WEIGHT: f64 = 0.6;

/// One candidate's fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The candidate's registry name.
    pub name: String,
    /// `ln ms = Σ weights[k] · regressors[k]`.
    pub weights: [f64; REGRESSORS],
    /// The root-mean-square residual of the fit, in `ln ms` (0.2 ≈ ±22%).
    pub rmse: f64,
    /// Calibration points it was fitted on.
    pub points: usize,
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

    /// The prior's prediction for `name` in ms, and its residual, if it knows the candidate.
    #[must_use]
    pub fn predict(&self, name: &str, features: &Features) -> Option<(f64, f64)> {
        let fit = self.fit(name)?;
        let x = features.regressors();
        let ln_ms: f64 = fit.weights.iter().zip(x).map(|(w, x)| w * x).sum();
        Some((ln_ms.clamp(-20.0, 20.0).exp(), fit.rmse))
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
}

/// The prior plus the online corrections, for a fixed list of candidates.
///
/// Predictions are **relative to the active candidate**: `ms_c = ms_active · (prior_c / prior_active) ·
/// e^(rel_c − rel_active)`. The machine's load, a slower CPU than the calibration's, a scene the prior has
/// never seen: all of that moves every candidate's cost together and cancels in the ratio, so the prior's
/// ranking survives where its absolute milliseconds do not. What does not cancel — a candidate that does better
/// or worse on this scene than the prior predicts, relative to the others — is learned from probes, which
/// measure two candidates on the same frames.
#[derive(Clone, Debug)]
pub struct CostModel {
    prior: Prior,
    names: Vec<&'static str>,
    learned: Vec<[Learned; Regime::COUNT]>,
}

impl CostModel {
    /// A model of `names` (the candidates, in the selector's order) on `prior`.
    #[must_use]
    pub fn new(prior: Prior, names: &[&'static str]) -> Self {
        Self { prior, names: names.to_vec(), learned: vec![[Learned::default(); Regime::COUNT]; names.len()] }
    }

    /// The prior the model starts from.
    #[must_use]
    pub fn prior(&self) -> &Prior {
        &self.prior
    }

    /// The prior's prediction for candidate `c` (ms, sigma); for a candidate it does not know, the geometric
    /// mean of the known candidates' predictions with a wide uncertainty, so that the first probe decides.
    #[must_use]
    pub fn base(&self, c: usize, f: &Features) -> (f64, f64) {
        if let Some((ms, rmse)) = self.prior.predict(self.names[c], f) {
            return (ms, rmse.max(PRIOR_SIGMA_FLOOR));
        }
        let known: Vec<f64> =
            self.names.iter().filter_map(|n| self.prior.predict(n, f)).map(|(ms, _)| ms.ln()).collect();
        let mean = if known.is_empty() { 0.0 } else { known.iter().sum::<f64>() / known.len() as f64 };
        (mean.exp(), UNKNOWN_SIGMA)
    }

    /// A probe ran candidate `c` beside the `active` one on the same frames of features `f`: `probe_ms` against
    /// `active_ms` (typical frames, comparable). Learn `c`'s offset relative to the active one's.
    pub fn observe_probe(&mut self, c: usize, active: usize, f: &Features, frame: u64, probe_ms: f64, active_ms: f64) {
        if !(probe_ms.is_finite() && probe_ms > 0.0 && active_ms.is_finite() && active_ms > 0.0) || c == active {
            return;
        }
        let r = Regime::of(f).0 as usize;
        let (base_c, base_a) = (self.base(c, f).0, self.base(active, f).0);
        // The active candidate anchors the comparison: if it has no offset here yet, it is the reference (0).
        let anchor = &mut self.learned[active][r];
        if anchor.last.is_none() {
            *anchor = Learned { rel: 0.0, last: Some((frame, *f)), level: (active_ms / base_a).ln() };
        }
        let level = (active_ms / base_a).ln() - anchor.rel;
        let target = (probe_ms / base_c).ln() - level;
        let slot = &mut self.learned[c][r];
        let weight = if slot.last.is_none() { 1.0 } else { PROBE_WEIGHT };
        slot.rel += weight * (target - slot.rel);
        slot.last = Some((frame, *f));
        slot.level = level;
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
        let sigma = (MEASURED_SIGMA + age + drift(&seen, f)).min(prior_sigma) + level_drift;
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
            speed_p90: speed,
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
