//! The `selector` study's arithmetic: auto against the best pinned candidate on a scene (its mean, its worst
//! frame, its targets), the regret table over every scene, and the tour's oracles. Plain numbers in, plain
//! numbers out, so that the tests can feed it figures made by hand.
//!
//! Every mean is over every frame from frame 0 (a replay: from its window's first frame). A run that a limit
//! ended early (`short`) is compared over the frames it ran: its ratio to the best is the ratio of their sums
//! over those frames, and the report marks it.

use super::selector_scenes::{HITCH, HITCH_FROM, Target};

/// One run's per-step broadphase ms, and whether it ran every frame asked for.
#[derive(Clone, Copy, Debug)]
pub struct Times<'a> {
    /// Every step's ms, from frame 0.
    pub ms: &'a [f64],
    /// It ran every frame.
    pub complete: bool,
}

/// The mean of `ms` (NaN for none).
#[must_use]
pub fn mean(ms: &[f64]) -> f64 {
    ms.iter().sum::<f64>() / ms.len() as f64
}

/// `run`'s time over `reference`'s, over the frames both ran (the ratio of the means when both ran every
/// frame); NaN when either ran none.
#[must_use]
pub fn ratio(run: &[f64], reference: &[f64]) -> f64 {
    let k = run.len().min(reference.len());
    if k == 0 {
        return f64::NAN;
    }
    run[..k].iter().sum::<f64>() / reference[..k].iter().sum::<f64>()
}

/// The best pinned candidate: the lowest mean among the runs that ran every frame (a short run was stopped
/// for being slow). `None` when none did.
#[must_use]
pub fn best(pinned: &[Times<'_>]) -> Option<usize> {
    pinned
        .iter()
        .enumerate()
        .filter(|(_, t)| t.complete && !t.ms.is_empty())
        .min_by(|a, b| mean(a.1.ms).total_cmp(&mean(b.1.ms)))
        .map(|(i, _)| i)
}

/// auto's worst frame against the best pinned candidate's frame at the same step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorstFrame {
    /// The step (0-based).
    pub step: usize,
    /// auto's ms there.
    pub auto_ms: f64,
    /// The best pinned candidate's ms there.
    pub best_ms: f64,
}

impl WorstFrame {
    /// auto's ms over the best's.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.auto_ms / self.best_ms
    }
}

/// The step from `from` on where `auto` took the largest multiple of `best`'s time at the same step.
#[must_use]
pub fn worst_frame(auto: &[f64], best: &[f64], from: usize) -> Option<WorstFrame> {
    (from..auto.len().min(best.len()))
        .map(|step| WorstFrame { step, auto_ms: auto[step], best_ms: best[step] })
        .max_by(|a, b| a.ratio().total_cmp(&b.ratio()))
}

/// A target met or missed (`None`: not measurable, e.g. no complete pinned run).
pub type Pass = Option<bool>;

/// How auto did on one scene of the [`Target::Mean`] kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Index of the best pinned candidate among the pinned runs.
    pub best: usize,
    /// Its mean ms.
    pub best_mean: f64,
    /// auto's mean ms.
    pub auto_mean: f64,
    /// auto's time over the best's ([`ratio`]).
    pub ratio: f64,
    /// auto's worst frame from [`HITCH_FROM`] on.
    pub worst: Option<WorstFrame>,
    /// auto's mean within the target.
    pub mean_pass: Pass,
    /// No frame from [`HITCH_FROM`] on over [`HITCH`] × the best's.
    pub hitch_pass: Pass,
}

/// Judge auto against the pinned runs of one scene; `None` when no pinned run is complete or auto ran nothing.
#[must_use]
pub fn judge(auto: Times<'_>, pinned: &[Times<'_>], target: Target) -> Option<Verdict> {
    let b = best(pinned)?;
    if auto.ms.is_empty() {
        return None;
    }
    let best_ms = pinned[b].ms;
    let r = ratio(auto.ms, best_ms);
    let worst = worst_frame(auto.ms, best_ms, HITCH_FROM);
    let limit = match target {
        Target::Mean(limit) => Some(limit),
        Target::Tour { best, .. } => Some(best),
    };
    Some(Verdict {
        best: b,
        best_mean: mean(best_ms),
        auto_mean: mean(auto.ms),
        ratio: r,
        worst,
        mean_pass: limit.filter(|_| auto.complete).map(|l| r <= l),
        hitch_pass: auto.complete.then(|| worst.is_none_or(|w| w.ratio() <= HITCH)),
    })
}

/// One scene's column of the regret table: each run's time over the scene's best pinned mean.
#[derive(Clone, Debug, PartialEq)]
pub struct RegretColumn {
    /// The scene's label.
    pub scene: String,
    /// auto's ratio (NaN when it did not run).
    pub auto: f64,
    /// Each pinned candidate's ratio, in the pinned order (NaN when it did not run; a short run's is over the
    /// frames it ran).
    pub pinned: Vec<f64>,
    /// Which pinned runs were short.
    pub short: Vec<bool>,
}

/// The column of one scene: every run over the best pinned run ([`best`]); `None` when no pinned run is complete.
#[must_use]
pub fn regret_column(scene: &str, auto: &[f64], pinned: &[Times<'_>]) -> Option<RegretColumn> {
    let b = best(pinned)?;
    let reference = pinned[b].ms;
    Some(RegretColumn {
        scene: scene.to_owned(),
        auto: ratio(auto, reference),
        pinned: pinned.iter().map(|t| ratio(t.ms, reference)).collect(),
        short: pinned.iter().map(|t| !t.complete).collect(),
    })
}

/// The worst ratio of a row over the columns and the column where it was (NaNs skipped); `None` for no number.
#[must_use]
pub fn worst_of(ratios: impl IntoIterator<Item = f64>) -> Option<(f64, usize)> {
    ratios.into_iter().enumerate().filter(|(_, r)| !r.is_nan()).map(|(i, r)| (r, i)).max_by(|a, b| a.0.total_cmp(&b.0))
}

/// The tour's figures: totals, the oracles and auto's ratios to them.
#[derive(Clone, Debug, PartialEq)]
pub struct TourVerdict {
    /// The phases in run order.
    pub phases: Vec<String>,
    /// Per phase, each pinned run's total ms (pinned order).
    pub phase_totals: Vec<Vec<f64>>,
    /// Per phase, auto's total.
    pub auto_phase: Vec<f64>,
    /// The best single pinned candidate (index) and its total.
    pub best: (usize, f64),
    /// The per-phase oracle: the best pinned total of each phase, summed.
    pub per_phase_oracle: f64,
    /// The per-frame oracle: the lowest pinned time of each frame, summed.
    pub per_frame_oracle: f64,
    /// auto's total.
    pub auto_total: f64,
}

impl TourVerdict {
    /// auto's total over the best single pinned candidate's.
    #[must_use]
    pub fn over_best(&self) -> f64 {
        self.auto_total / self.best.1
    }

    /// auto's total over the per-phase oracle.
    #[must_use]
    pub fn over_oracle(&self) -> f64 {
        self.auto_total / self.per_phase_oracle
    }
}

/// The tour's figures from every step's phase and the runs' times; `None` when a pinned run or auto is not
/// complete (the totals would not be comparable).
#[must_use]
pub fn tour(phase_of_step: &[&str], auto: Times<'_>, pinned: &[Times<'_>]) -> Option<TourVerdict> {
    let steps = phase_of_step.len();
    if !auto.complete
        || auto.ms.len() != steps
        || pinned.iter().any(|t| !t.complete || t.ms.len() != steps)
        || pinned.is_empty()
    {
        return None;
    }
    let mut phases: Vec<String> = Vec::new();
    for p in phase_of_step {
        if phases.last().map(String::as_str) != Some(*p) {
            phases.push((*p).to_owned());
        }
    }
    let total_in = |ms: &[f64], phase: &str| -> f64 {
        ms.iter().zip(phase_of_step).filter(|(_, p)| **p == phase).map(|(m, _)| m).sum()
    };
    let phase_totals: Vec<Vec<f64>> =
        phases.iter().map(|p| pinned.iter().map(|t| total_in(t.ms, p)).collect()).collect();
    let auto_phase = phases.iter().map(|p| total_in(auto.ms, p)).collect();
    let per_phase_oracle = phase_totals.iter().map(|t| t.iter().copied().fold(f64::INFINITY, f64::min)).sum();
    let per_frame_oracle = (0..steps).map(|i| pinned.iter().map(|t| t.ms[i]).fold(f64::INFINITY, f64::min)).sum();
    let totals: Vec<f64> = pinned.iter().map(|t| t.ms.iter().sum()).collect();
    let b = (0..totals.len()).min_by(|&a, &b| totals[a].total_cmp(&totals[b]))?;
    Some(TourVerdict {
        phases,
        phase_totals,
        auto_phase,
        best: (b, totals[b]),
        per_phase_oracle,
        per_frame_oracle,
        auto_total: auto.ms.iter().sum(),
    })
}

/// The candidates auto ran, in order, each once per stretch: `kd → grid`.
#[must_use]
pub fn stretches<'a>(active: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = active.into_iter().collect();
    v.dedup();
    v
}

#[cfg(test)]
mod tests;
