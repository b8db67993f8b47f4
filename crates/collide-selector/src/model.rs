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

    /// The log-linear fit's steady frame for `features`, ms, without the anchors' correction.
    #[must_use]
    pub fn steady_ms(&self, features: &Features) -> f64 {
        Self::eval(&self.weights, features)
    }

    /// The log-linear fit's build for `features`, ms, without the anchors' correction.
    #[must_use]
    pub fn build_ms(&self, features: &Features) -> f64 {
        Self::eval(&self.build_weights, features)
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
    /// Where the fits are off: the calibration's scenes, each with every candidate's residual there (see
    /// [`Anchor`]).
    #[serde(rename = "anchor", default)]
    pub anchors: Vec<Anchor>,
}

/// The number of coordinates of an [`Anchor`]: the regressors but the constant and `ln² n`.
pub const ANCHOR_DIMS: usize = 6;

/// The scale of each anchor coordinate: a difference of one scale counts as one unit of distance (`ln n`: a factor
/// of 1.65 in bodies; pairs per body, size spread and clustering: of 1.28; speed: of 1.65; resting: 15%). Narrow
/// enough that a scene's own anchors outweigh its neighbours': at twice these scales the tunnel's grid (0.9 ms at
/// 10⁴ bodies, 0.5 by the fit) was corrected by a tenth of its residual, diluted by the uniform scenes nearby.
const ANCHOR_SCALES: [f64; ANCHOR_DIMS] = [0.5, 0.25, 0.5, 0.15, 0.25, 0.25];
/// The weight of "no correction" against the anchors: a query one unit of distance from a single anchor takes
/// `e^−½ / (e^−½ + ANCHOR_SHRINK)` of its residual; a query far from every anchor takes none.
const ANCHOR_SHRINK: f64 = 0.1;

/// One calibration scene (a scenario at a body count, over a window of frames) where the log-linear fits are off:
/// its features, and every candidate's residual there, `ln(measured / fit)`, in the order of [`Prior::fits`] (NaN
/// where a candidate was not measured). The fits are smooth in the features; a scene's particulars — the tunnel's
/// long swept boxes, the empty world of far clusters — are not, and the residuals of the scenes nearest a query
/// correct the fit there (kernel-weighted, shrunk toward no correction where no scene is near).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// `ln n, ln(1 + pairs per body), ln speed, resting, ln size spread, ln clustering`.
    pub x: [f64; ANCHOR_DIMS],
    /// Per candidate: the residual of its steady frame.
    pub steady: Vec<f64>,
    /// Per candidate: the residual of its build (NaN where the anchor has no build row).
    pub build: Vec<f64>,
}

impl Anchor {
    /// The anchor coordinates of `features`.
    #[must_use]
    pub fn coordinates(features: &Features) -> [f64; ANCHOR_DIMS] {
        let r = features.regressors();
        [r[1], r[3], r[4], r[5], r[6], r[7]]
    }
}

impl Prior {
    /// The prior compiled into the crate. Panics only if the shipped file is broken, which a test checks.
    #[must_use]
    pub fn builtin() -> Self {
        // Parsed once per process: the anchors make the file tens of kilobytes, and the app builds a selector at
        // every respawn.
        static PARSED: std::sync::OnceLock<Prior> = std::sync::OnceLock::new();
        PARSED
            .get_or_init(|| Self::parse(BUILTIN_PRIOR).expect("data/prior.toml is checked by the crate's tests"))
            .clone()
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
            return Err(format!("prior: the fit of `{}` has a non-finite weight or residual", f.name));
        }
        let count = prior.fits.len();
        if let Some(a) = prior.anchors.iter().find(|a| a.steady.len() != count || a.build.len() != count) {
            return Err(format!(
                "prior: an anchor at {:?} has {} steady and {} build residuals for {count} fits",
                a.x,
                a.steady.len(),
                a.build.len()
            ));
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

    /// The prior's prediction of `name`'s steady frame in ms, and its residual, if it knows the candidate: the
    /// log-linear fit, corrected by the anchors near `features`.
    #[must_use]
    pub fn predict(&self, name: &str, features: &Features) -> Option<(f64, f64)> {
        let k = self.fits.iter().position(|f| f.name == name)?;
        let fit = &self.fits[k];
        let (steady, _) = self.correction(k, &Anchor::coordinates(features));
        Some((fit.steady_ms(features) * steady.exp(), fit.rmse))
    }

    /// The prior's prediction of `name`'s build (the extra cost of its first two frames) in ms, and its residual.
    #[must_use]
    pub fn predict_build(&self, name: &str, features: &Features) -> Option<(f64, f64)> {
        let k = self.fits.iter().position(|f| f.name == name)?;
        let fit = &self.fits[k];
        let (_, build) = self.correction(k, &Anchor::coordinates(features));
        Some((fit.build_ms(features) * build.exp(), fit.build_rmse))
    }

    /// The residuals of fit `k` (steady, build) at anchor coordinates `x`: the anchors' residuals weighted by a
    /// Gaussian kernel of their distance, shrunk toward 0 by [`ANCHOR_SHRINK`]. O(anchors).
    fn correction(&self, k: usize, x: &[f64; ANCHOR_DIMS]) -> (f64, f64) {
        let (mut steady, mut build) = ([0.0], [0.0]);
        self.corrections(x, |j, s, b| {
            if j == k {
                steady[0] = s;
                build[0] = b;
            }
        });
        (steady[0], build[0])
    }

    /// Every fit's residuals (steady, build) at anchor coordinates `x`, handed to `each(fit index, steady,
    /// build)` in fit order: one pass over the anchors for all fits (a kernel weight per anchor), so that a frame
    /// pays O(anchors · fits) adds and O(anchors) exponentials. Allocates nothing for up to 16 fits.
    pub fn corrections(&self, x: &[f64; ANCHOR_DIMS], mut each: impl FnMut(usize, f64, f64)) {
        const MAX: usize = 16;
        let count = self.fits.len().min(MAX);
        let mut sum = [[0.0f64; 2]; MAX];
        let mut weight = [[ANCHOR_SHRINK; 2]; MAX];
        for a in &self.anchors {
            let d2: f64 = (0..ANCHOR_DIMS).map(|i| ((x[i] - a.x[i]) / ANCHOR_SCALES[i]).powi(2)).sum();
            if d2 > 40.0 {
                continue; // a weight below e^-20: nothing
            }
            let w = (-0.5 * d2).exp();
            for (k, (s, wt)) in sum.iter_mut().zip(weight.iter_mut()).take(count).enumerate() {
                for (kind, residual) in [a.steady.get(k), a.build.get(k)].into_iter().enumerate() {
                    if let Some(&r) = residual.filter(|r| r.is_finite()) {
                        s[kind] += w * r;
                        wt[kind] += w;
                    }
                }
            }
        }
        for k in 0..count {
            let corr = |kind: usize| (sum[k][kind] / weight[k][kind]).clamp(-3.0, 3.0);
            each(k, corr(0), corr(1));
        }
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

/// Two candidates' learned offsets in one regime and the active one's age factor, as [`CostModel::snapshot`]
/// saved them.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    c: usize,
    active: usize,
    r: usize,
    c_learned: Learned,
    active_learned: Learned,
    aged: f64,
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
/// whole scene by the prior's dependence on n: the sample's own noise, what a few cubes of the scene cannot show
/// (its whole extent, the large bodies' reach), and the prior's error in how the two candidates scale from the
/// sample's size to the scene's (their parallel sections, for one, switch on only above a few thousand bodies).
/// ×/÷ 1.35 is a judgment, not a fit: in the decision logs read while tuning on the live study's 10⁴-body scenes,
/// a sampled ratio and the whole frames measured later differed by up to about 1.3× once the sample took bodies by
/// centre in several cubes.
pub const SAMPLED_SIGMA: f64 = 0.3;

/// The factor by which the active candidate must run dearer on the whole scene than its fresh scout on a sample
/// (carried by the prior's dependence on n) before the sample's ratio is corrected for it (see
/// [`CostModel::aged`]). The prior's own error in how one candidate scales from a sample to its scene is about
/// ×/÷ 1.35 ([`SAMPLED_SIGMA`]); twice is beyond it.
pub const AGED_FROM: f64 = 2.0;

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
    /// Per candidate and regime: how much dearer it ran on the whole scene than its fresh scout on a sample said,
    /// the last time it was the active candidate of a sampled probe in that regime (see [`CostModel::aged`]); 1
    /// until found aged. Per regime, because what ages a dynamic tree is motion: in rapier's free fall at 10⁴
    /// bodies the same old tree ran 3 ms a frame while the bodies landed and 0.5 ms once the pile rested, as
    /// cheap as a fresh one.
    aged: Vec<[f64; Regime::COUNT]>,
    /// Per candidate: its fit's index in the prior, if the prior knows it.
    fit_of: Vec<Option<usize>>,
    /// The prior's predictions for the features of [`CostModel::prepare`]: per candidate (steady ms, sigma) and
    /// build ms, asked for several times a frame.
    cached: Option<Features>,
    cached_base: Vec<(f64, f64)>,
    cached_build: Vec<f64>,
    /// The anchors' corrections per candidate (steady, build) and the anchor coordinates they were computed at:
    /// a pass over the anchors costs microseconds, and features drift slowly, so they are computed again only
    /// when the coordinates moved by [`CORRECTION_DRIFT`].
    corrections: Vec<(f64, f64)>,
    corrected_at: Option<[f64; ANCHOR_DIMS]>,
}

/// The distance (in anchor scale units) the features must move before the anchors' corrections are computed
/// again: a tenth of the kernel's width, where a correction changes by a few percent at most.
const CORRECTION_DRIFT: f64 = 0.1;

impl CostModel {
    /// A model of `names` (the candidates, in the selector's order) on `prior`.
    #[must_use]
    pub fn new(prior: Prior, names: &[&'static str]) -> Self {
        let fit_of = names.iter().map(|n| prior.fits.iter().position(|f| f.name == *n)).collect();
        let fits = prior.fits.len();
        Self {
            prior,
            names: names.to_vec(),
            learned: vec![[Learned::default(); Regime::COUNT]; names.len()],
            build_rel: vec![0.0; names.len()],
            aged: vec![[1.0; Regime::COUNT]; names.len()],
            fit_of,
            cached: None,
            cached_base: vec![(0.0, 0.0); names.len()],
            cached_build: vec![0.0; names.len()],
            corrections: vec![(0.0, 0.0); fits],
            corrected_at: None,
        }
    }

    /// Compute the prior's predictions for `f` once, for the calls of this frame that ask about `f`.
    pub fn prepare(&mut self, f: &Features) {
        if self.cached.as_ref() == Some(f) {
            return;
        }
        let x = Anchor::coordinates(f);
        let moved = self.corrected_at.is_none_or(|at| {
            (0..ANCHOR_DIMS).map(|i| ((x[i] - at[i]) / ANCHOR_SCALES[i]).powi(2)).sum::<f64>()
                > CORRECTION_DRIFT * CORRECTION_DRIFT
        });
        if moved {
            let corrections = &mut self.corrections;
            self.prior.corrections(&x, |k, s, b| corrections[k] = (s, b));
            self.corrected_at = Some(x);
        }
        self.cached = None;
        let known = self.fit_of.iter().flatten().count();
        let mut ln_sum = 0.0;
        for c in 0..self.names.len() {
            if let Some(k) = self.fit_of[c] {
                let fit = &self.prior.fits[k];
                let (s, b) = self.corrections[k];
                let ms = fit.steady_ms(f) * s.exp();
                self.cached_base[c] = (ms, fit.rmse.max(PRIOR_SIGMA_FLOOR));
                self.cached_build[c] = fit.build_ms(f) * b.exp();
                ln_sum += ms.ln();
            }
        }
        // A candidate the prior does not know: the geometric mean of the known ones, wide open.
        let mean = if known == 0 { 1.0 } else { (ln_sum / known as f64).exp() };
        for c in (0..self.names.len()).filter(|&c| self.fit_of[c].is_none()) {
            self.cached_base[c] = (mean, UNKNOWN_SIGMA);
            self.cached_build[c] = 2.0 * mean;
        }
        self.cached = Some(*f);
    }

    /// The prior the model starts from.
    #[must_use]
    pub fn prior(&self) -> &Prior {
        &self.prior
    }

    /// Forget what was learned (the scene's corrections); the prior stays.
    pub fn forget(&mut self) {
        self.cached = None;
        self.corrected_at = None;
        self.learned.iter_mut().for_each(|l| *l = [Learned::default(); Regime::COUNT]);
        self.build_rel.iter_mut().for_each(|b| *b = 0.0);
        self.aged.iter_mut().for_each(|a| *a = [1.0; Regime::COUNT]);
    }

    /// The prior's prediction for candidate `c` (ms, sigma); for a candidate it does not know, the geometric
    /// mean of the known candidates' predictions with a wide uncertainty, so that the first probe decides.
    #[must_use]
    pub fn base(&self, c: usize, f: &Features) -> (f64, f64) {
        if self.cached.as_ref() == Some(f) {
            return self.cached_base[c];
        }
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
        if self.cached.as_ref() == Some(f) {
            return self.cached_build[c];
        }
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
    ///
    /// Both scouts are fresh instances built on the sample; the active candidate's instance on the scene may not
    /// be, when it is a structure that `settles` (one kept from frame to frame, whose calls grow dearer after its
    /// build: see [`settling_calls`](collide_broadphase::Broadphase::settling_calls)). When it runs far dearer
    /// there than its scout predicts (see [`CostModel::aged`]), the ratio would carry that difference to `c` as if
    /// `c` aged alike, so it is taken out: `c` is then carried to the scene by its own scout. And a candidate once
    /// found aged keeps its factor, in the scene's regime, when it is the one sampled later: its fresh scout
    /// flatters it by as much while the scene moves as it did. A structure rebuilt every frame is as young on the
    /// scene as on the sample, and is never judged aged: what its factor shows there is the prior's error in n.
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
        active_settles: bool,
    ) {
        let at_sample = Features { n: sample_n, ..*f };
        let r = Regime::of(f).0 as usize;
        self.aged[active][r] =
            if active_settles { self.aged(active, f, &at_sample, sample_active_ms, active_ms) } else { 1.0 };
        let ratio = probe_ms / sample_active_ms * self.aged[c][r] / self.aged[active][r];
        self.observe(c, active, f, &at_sample, frame, ratio, active_ms, SAMPLED_SIGMA);
    }

    /// What a sampled probe of `c` beside `active` on features `f` may change in the model, to be put back with
    /// [`CostModel::restore`] when the sample proves unfit to learn from (see the controller's thin samples).
    #[must_use]
    pub fn snapshot(&self, c: usize, active: usize, f: &Features) -> Snapshot {
        let r = Regime::of(f).0 as usize;
        Snapshot {
            c,
            active,
            r,
            c_learned: self.learned[c][r],
            active_learned: self.learned[active][r],
            aged: self.aged[active][r],
        }
    }

    /// Put back what [`CostModel::snapshot`] saved.
    pub fn restore(&mut self, s: Snapshot) {
        self.learned[s.c][s.r] = s.c_learned;
        self.learned[s.active][s.r] = s.active_learned;
        self.aged[s.active][s.r] = s.aged;
    }

    /// How much dearer candidate `a` runs on the scene of features `f` (`scene_ms`, its typical frame there) than
    /// its fresh scout on a sample of features `at_sample` (`sample_ms`) says, once the prior has carried the
    /// scout's frame from the sample's size to the scene's: `(scene_ms / prior(f)) / (sample_ms /
    /// prior(at_sample))`, the ratio of its common levels there. 1 unless it is at least [`AGED_FROM`].
    ///
    /// An incremental structure can be much older on the scene than on the sample: on rapier's free fall at 10⁵
    /// bodies the dynamic tree ran 12–19 ms a frame, 120–190 ns a body, where its scout on a sub-box of 3 816
    /// bodies ran 0.117 ms, 31 ns a body. Carried by the plain ratio, `kd`'s 0.400 ms beside it on the sub-box
    /// made `kd` look 3.4× the tree, where on the scene it ran at 0.37×, and `auto` kept the tree for 300 frames.
    #[must_use]
    pub fn aged(&self, a: usize, f: &Features, at_sample: &Features, sample_ms: f64, scene_ms: f64) -> f64 {
        let factor = (scene_ms / self.base(a, f).0) / (sample_ms / self.base(a, at_sample).0);
        if factor.is_finite() && factor >= AGED_FROM { factor } else { 1.0 }
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
        // The first measurement is taken whole. A later one that agrees with what was known (within twice their
        // combined uncertainty) is combined with it by precision — two samples that tell the same ratio know it
        // better than one —, what was known counting with the uncertainty its age and the features' drift gave
        // it; one that disagrees replaces it (the scene changed).
        let (rel, sigma) = match slot.last {
            None => (target, sigma),
            Some((seen_at, seen)) => {
                let known = slot.sigma + frame.saturating_sub(seen_at) as f64 / AGE_FRAMES_PER_SIGMA + drift(&seen, f);
                let (p_known, p_new) = (known.powi(-2), sigma.powi(-2));
                if (target - slot.rel).abs() <= 2.0 * (known * known + sigma * sigma).sqrt() {
                    ((slot.rel * p_known + target * p_new) / (p_known + p_new), (p_known + p_new).powf(-0.5))
                } else {
                    (target, sigma)
                }
            }
        };
        slot.rel = rel;
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
            // Never measured here: the prior's residual, widened by how wrong the prior has been found on this
            // scene's other candidates.
            let sigma = prior_sigma.hypot(self.surprise(active, r));
            return Estimate { ms: active_ms * ratio(0.0), sigma, measured: false };
        };
        let age = frame.saturating_sub(seen_at) as f64 / AGE_FRAMES_PER_SIGMA;
        // A change of the active candidate's own level since the measurement widens the uncertainty beyond the
        // prior's: the ratio learned then may not hold now, and the prior knows nothing of why it moved.
        let level_drift = ((active_ms / base_a).ln() - rel_a - slot.level).abs();
        let sigma = (slot.sigma + age + drift(&seen, f)).min(prior_sigma.max(slot.sigma)) + level_drift;
        Estimate { ms: active_ms * ratio(slot.rel), sigma, measured: true }
    }
}

impl CostModel {
    /// How wrong the prior has been found on this scene: the root mean square, over the candidates measured in
    /// regime `r` (the `active` one aside), of their learned offsets relative to the active one — each the log of
    /// the measured ratio over the prior's. 0 until one was measured.
    ///
    /// The prior's residual is its error over the registry's scenes; on a scene unlike them (rapier's streams of
    /// cubes and spheres) it is confidently wrong about several candidates at once: at 10⁵ bodies of the brownian
    /// gas it put the dynamic tree at 1.4× the grid (measured 2.3×) and kd at 1.3× (measured 0.7×). A candidate
    /// never measured on such a scene is as uncertain as the measured ones were wrong, so the rules that sample
    /// what could be cheaper reach it, instead of trusting a residual that does not hold here.
    fn surprise(&self, active: usize, r: usize) -> f64 {
        let rel_a = self.learned[active][r].rel;
        let (mut sum, mut count) = (0.0, 0u32);
        for (c, learned) in self.learned.iter().enumerate() {
            if c != active && learned[r].last.is_some() {
                sum += (learned[r].rel - rel_a).powi(2);
                count += 1;
            }
        }
        if count == 0 { 0.0 } else { (sum / f64::from(count)).sqrt() }
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

/// A prior of constant fits for tests: each `(name, steady ms, rmse, build ms)`, independent of the features.
#[cfg(test)]
pub(crate) fn constant_prior(fits: &[(&str, f64, f64, f64)]) -> Prior {
    let constant = |ms: f64| [ms.ln(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    Prior {
        machine: "test".into(),
        cpu: "test".into(),
        threads: 2,
        commit: "test".into(),
        date: "today".into(),
        regressors: REGRESSOR_NAMES.iter().map(|&r| r.to_owned()).collect(),
        fits: fits
            .iter()
            .map(|&(name, ms, rmse, build_ms)| Fit {
                name: name.into(),
                params: String::new(),
                weights: constant(ms),
                rmse,
                points: 100,
                build_weights: constant(build_ms),
                build_rmse: 0.1,
                build_points: 10,
            })
            .collect(),
        anchors: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
