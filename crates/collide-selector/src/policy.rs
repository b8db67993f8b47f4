//! The switch policy: when to probe a candidate and when to switch to it.
//!
//! The policy is pure bookkeeping over numbers — measured milliseconds and the model's [`Estimate`]s — so its
//! behaviour (hysteresis, budget, thrash guard) is tested with synthetic cost streams, without a clock.
//!
//! **Every switch is confirmed by a probe.** A candidate the model predicts cheaper is first run side by side
//! with the active one for a few frames (warm-started from the active one's pairs, its own pairs discarded);
//! only when it measured cheaper by the margin on those same frames does it take over — and then it is already
//! warm, so the switch frame costs what the newcomer's frames cost. The probe is the switch's cost, paid in
//! advance and charged to the probe budget.
//!
//! The rules, in order:
//! 1. **Cooldown.** For `cooldown` frames after a switch, nothing is decided.
//! 2. **Survey.** When the controller says the scene changed ([`Policy::survey`]), the candidates predicted
//!    cheapest (`survey` of them, among those predicted within 1.25× of the active one) are probed one after
//!    another, whatever the margin says, borrowing against the budget as rule 5 allows. A survey after a jump
//!    in the active candidate's cost ([`Policy::survey_after_jump`]) may borrow the ordinary loan even when the
//!    prediction promises nothing: the model's knowledge of the others was learned on the scene before.
//! 3. **Predicted saving, with hysteresis.** When the cheapest other candidate is predicted cheaper than the
//!    active one's measured time by the margin on `hysteresis` consecutive frames, and the saving over the
//!    `horizon` pays for the probe, it is probed (not again within a quarter of `reprobe_gap`: a probe that
//!    disagreed with the prediction has corrected the model, and the next frames show whether it holds).
//! 4. **Exploration.** When no candidate is predicted cheaper, but one the model is unsure of could be (its
//!    optimistic estimate `ms · e^−σ` beats the active one by the margin), it is probed, at most once per
//!    `reprobe_gap` frames.
//! 5. **Budget.** Probes spend from a bucket that fills by `probe_share` of a frame every frame, so that probes
//!    cost at most that share of the broadphase's time, amortised. The bucket counts in *frames of the active
//!    candidate* rather than milliseconds: a probe in an expensive phase costs what it costs relative to that
//!    phase, and a debt run up while frames were slow does not block probing for ages once they are fast. A probe
//!    whose predicted saving pays for it three times over may borrow a little against the bucket's future
//!    filling, one that pays ten times over a lot: when the scene has just changed, waiting for the bucket costs
//!    more than the probe.
//! 6. **Thrash guard.** Switching back to the candidate that was active before, within `thrash_window` frames,
//!    needs twice the margin.

use crate::model::Estimate;

/// The policy's knobs; the defaults are the shipped behaviour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyConfig {
    /// A candidate must be cheaper than the active one by this fraction to be switched to (0.1: 10%).
    pub margin: f64,
    /// Consecutive frames a candidate must be predicted cheaper before it is probed.
    pub hysteresis: u32,
    /// Frames after a switch during which nothing is decided.
    pub cooldown: u32,
    /// The most the probes may cost, as a share of the active candidate's time, amortised.
    pub probe_share: f64,
    /// Frames a probe runs side by side with the active candidate (after its warm start); the first is its
    /// switch cost, the least of the others its steady cost.
    pub probe_frames: u32,
    /// Frames a saving is expected to last; a probe must pay for itself within them.
    pub horizon: u32,
    /// Least frames between two exploration probes of the same candidate.
    pub reprobe_gap: u32,
    /// Frames within which switching back to the previous candidate needs twice the margin.
    pub thrash_window: u32,
    /// Candidates a survey probes: when the scene changes (the first frames, a jump in the active candidate's
    /// cost, a new regime), the few predicted cheapest are measured beside the active one at once, whatever the
    /// margin says.
    pub survey: u32,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            margin: 0.10,
            hysteresis: 4,
            cooldown: 12,
            probe_share: 0.03,
            probe_frames: 4,
            horizon: 120,
            reprobe_gap: 240,
            thrash_window: 600,
            survey: 1,
        }
    }
}

/// Uncertainty (σ of `ln ms`) below which the model counts as sure of a candidate.
pub const SURE_SIGMA: f64 = 0.2;
/// The probe budget starts with this many frames' worth of the first measured frame, so the first few
/// frames can explore.
const INITIAL_GRANT_FRAMES: f64 = 8.0;
/// The bucket holds at most this many active frames' worth: after a quiet minute the selector can probe a
/// few candidates at once, but it cannot save up for a storm of probes.
const BUCKET_FRAMES: f64 = 40.0;
/// A probe the prediction says pays for itself three times over within the horizon may borrow this many
/// active frames' worth against the budget's future filling: when a scene changes, waiting for the bucket to
/// fill costs more than the probe. The share still holds, over a longer stretch.
const BORROW_FRAMES: f64 = 30.0;
/// How many times over the predicted saving must pay for a probe before it may borrow.
const BORROW_PAYBACK: f64 = 3.0;
/// A probe the prediction says pays for itself this many times over may borrow [`DEEP_BORROW_FRAMES`].
const DEEP_PAYBACK: f64 = 10.0;
/// What a probe that pays ten times over may borrow: five and a half minutes of the budget's filling at the
/// default 3% and 60 frames a second, so that an
/// exploration that went wrong earlier (a candidate ten times dearer than predicted) cannot keep the selector on a
/// candidate the scene has just made several times dearer than another.
const DEEP_BORROW_FRAMES: f64 = 600.0;
/// A warm start is expected to cost at most this many of the candidate's predicted frames.
const WARM_FRAMES_MAX: f64 = 4.0;
/// A survey measures a candidate predicted at most this many times the active one's cost: the prior's ranking
/// is right most of the time (84% of the calibration's windows), and a candidate predicted much dearer is not
/// worth a probe's frames.
const SURVEY_REACH: f64 = 1.25;

/// What the policy wants done this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Keep the active candidate.
    Stay,
    /// Probe candidate `usize`: warm-start it now and run it beside the active one for a few frames.
    Probe(usize, Reason),
    /// Make candidate `usize` (which has just finished a probe, so it is warm) the active one.
    Switch(usize, Reason),
}

/// Why the policy did what it did, with the numbers that decided it (ms per frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// The model predicted the candidate cheaper than the active one's measured time, for `frames` frames.
    Predicted {
        /// The prediction.
        predicted_ms: f64,
        /// The active candidate's recent median.
        active_ms: f64,
        /// Consecutive frames of that prediction.
        frames: u32,
    },
    /// The model is unsure of the candidate and its optimistic estimate beats the active one.
    Unsure {
        /// The prediction.
        predicted_ms: f64,
        /// Its uncertainty.
        sigma: f64,
        /// The active candidate's recent median.
        active_ms: f64,
    },
    /// A probe measured the candidate cheaper than the active one on the same frames.
    Confirmed {
        /// The probe's median ms per frame.
        probe_ms: f64,
        /// The active one's median on the same frames.
        active_ms: f64,
    },
    /// A probe measured the candidate no cheaper by the margin: the active one stays.
    Rejected {
        /// The probe's median ms per frame.
        probe_ms: f64,
        /// The active one's median on the same frames.
        active_ms: f64,
    },
    /// The scene changed and the candidate is among the predicted cheapest: measure it.
    Survey {
        /// The prediction.
        predicted_ms: f64,
        /// The active candidate's recent median.
        active_ms: f64,
    },
    /// The first frame: the prior's cheapest candidate for the first frame's features.
    Initial {
        /// The prediction.
        predicted_ms: f64,
    },
    /// Forced-switch mode cycles through the candidates.
    Forced,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Predicted { predicted_ms, active_ms, frames } => write!(
                f,
                "predicted {predicted_ms:.3} ms against the active {active_ms:.3} ms for {frames} frames: probe it"
            ),
            Self::Unsure { predicted_ms, sigma, active_ms } => write!(
                f,
                "model unsure ({predicted_ms:.3} ms ×/÷ {:.2}) and could beat the active {active_ms:.3} ms: probe it",
                sigma.exp()
            ),
            Self::Confirmed { probe_ms, active_ms } => {
                write!(f, "probe measured {probe_ms:.3} ms against the active {active_ms:.3} ms on the same frames")
            }
            Self::Rejected { probe_ms, active_ms } => write!(
                f,
                "probe measured {probe_ms:.3} ms against the active {active_ms:.3} ms: not cheaper by the margin, stay"
            ),
            Self::Survey { predicted_ms, active_ms } => write!(
                f,
                "the scene changed: predicted {predicted_ms:.3} ms against the active {active_ms:.3} ms, measure it"
            ),
            Self::Initial { predicted_ms } => write!(f, "first frame: the prior's cheapest, {predicted_ms:.3} ms"),
            Self::Forced => f.write_str("forced-switch mode"),
        }
    }
}

/// The policy's state.
#[derive(Clone, Debug)]
pub struct Policy {
    config: PolicyConfig,
    /// The probe budget, in frames of the active candidate.
    tokens: f64,
    /// `false` until the first frame has been measured (the initial grant is given then).
    granted: bool,
    /// The frame of the last switch.
    last_switch: Option<u64>,
    /// The candidate active before the last switch.
    previous: Option<usize>,
    /// Consecutive frames on which some candidate was predicted cheaper by the margin (not always the same one:
    /// two candidates predicted alike may take turns being the cheapest).
    streak: u32,
    /// Per candidate, the frame its last probe ended.
    last_probe: Vec<Option<u64>>,
    /// Probes the survey in progress still owes, and the frame it began (a candidate probed since is done).
    survey_left: u32,
    survey_since: u64,
    /// The survey in progress follows a jump in the active candidate's cost and may borrow.
    survey_loan: bool,
}

impl Policy {
    /// A policy over `candidates` candidates.
    #[must_use]
    pub fn new(config: PolicyConfig, candidates: usize) -> Self {
        Self {
            config,
            tokens: 0.0,
            granted: false,
            last_switch: None,
            previous: None,
            streak: 0,
            last_probe: vec![None; candidates],
            survey_left: 0,
            survey_since: 0,
            survey_loan: false,
        }
    }

    /// The scene changed at `frame`: survey the candidates predicted cheapest (see [`PolicyConfig::survey`]).
    pub fn survey(&mut self, frame: u64) {
        self.survey_left = self.config.survey;
        self.survey_since = frame;
        self.survey_loan = false;
    }

    /// The active candidate's cost jumped at `frame` (more than doubled or halved): survey, and let the survey
    /// borrow against the budget (see rule 2).
    pub fn survey_after_jump(&mut self, frame: u64) {
        self.survey(frame);
        self.survey_loan = true;
    }

    /// Set the probes the survey owes (tests).
    #[cfg(test)]
    pub(crate) fn survey_left_for_test(&mut self, left: u32) {
        self.survey_left = left;
    }

    /// `true` while a survey owes probes.
    #[must_use]
    pub fn surveying(&self) -> bool {
        self.survey_left > 0
    }

    /// The knobs.
    #[must_use]
    pub fn config(&self) -> &PolicyConfig {
        &self.config
    }

    /// The probe budget left, in frames of the active candidate (negative while a well-paying probe's loan is
    /// repaid).
    #[must_use]
    pub fn budget_frames(&self) -> f64 {
        self.tokens
    }

    /// Forget the history of decisions (the learned costs live in the model and are kept).
    pub fn reset(&mut self) {
        let candidates = self.last_probe.len();
        *self = Self::new(self.config, candidates);
    }

    /// Every measured frame: fills the probe budget.
    pub fn tick(&mut self) {
        if !self.granted {
            self.tokens = INITIAL_GRANT_FRAMES;
            self.granted = true;
        }
        self.tokens = (self.tokens + self.config.probe_share).min(BUCKET_FRAMES);
    }

    /// The frame's decision when no probe is running, given the active candidate, its recent median time and
    /// every candidate's estimate (the active one's entry is ignored). `warm_ms[c]` is candidate c's last
    /// measured warm-start cost, if any.
    pub fn decide(
        &mut self,
        frame: u64,
        active: usize,
        active_ms: f64,
        estimates: &[Estimate],
        warm_ms: &[Option<f64>],
    ) -> Action {
        if self.last_switch.is_some_and(|s| frame < s + u64::from(self.config.cooldown)) {
            return Action::Stay;
        }
        let others = || (0..estimates.len()).filter(move |&c| c != active);
        let Some(best) = others().min_by(|&a, &b| estimates[a].ms.total_cmp(&estimates[b].ms)) else {
            return Action::Stay;
        };

        // Rule 2: a survey measures the candidates predicted cheapest, within reach of the active one, that it
        // has not measured yet, one after another, borrowing against the budget: the scene has just changed, and
        // a wrong candidate costs every frame until it is found out.
        if self.survey_left > 0 {
            let since = self.survey_since;
            let next = others()
                .filter(|&c| self.last_probe[c].is_none_or(|p| p < since))
                .filter(|&c| estimates[c].ms < active_ms * SURVEY_REACH)
                .min_by(|&a, &b| estimates[a].ms.total_cmp(&estimates[b].ms));
            let Some(c) = next else {
                self.survey_left = 0;
                return Action::Stay;
            };
            let e = estimates[c];
            let reason = || Reason::Survey { predicted_ms: e.ms, active_ms };
            // After a jump, a survey may borrow the ordinary loan whatever the prediction says: the active
            // candidate's cost has just more than doubled or halved, so what the model knows about the others was
            // learned on another scene, and a budget emptied by an earlier probe would otherwise hold the survey
            // back for hundreds of frames (at 3%, eight frames' debt takes 270 frames to repay). Surveys of a new
            // regime without a jump do not borrow: replayed, that loan cost more probes than it saved.
            let loan = if self.survey_loan { BORROW_FRAMES } else { 0.0 };
            let credit = self.credit(active_ms - e.ms, self.probe_cost(e.ms, warm_ms[c])).max(loan);
            return match self.try_probe(c, e.ms, active_ms, warm_ms[c], credit, reason) {
                Some(action) => {
                    self.survey_left -= 1;
                    action
                }
                None => Action::Stay,
            };
        }

        // Rule 3: a candidate predicted cheaper, for `hysteresis` frames in a row.
        let margin = self.margin_for(best, frame);
        let e = estimates[best];
        let probed_lately = self.last_probe[best].is_some_and(|p| frame < p + u64::from(self.config.reprobe_gap / 4));
        if e.ms < active_ms * (1.0 - margin) && !probed_lately {
            self.streak += 1;
            let frames = self.streak;
            let saving = (active_ms - e.ms) * f64::from(self.config.horizon);
            let cost = self.probe_cost(e.ms, warm_ms[best]);
            let ripe = frames >= self.config.hysteresis && saving > cost;
            let credit = self.credit(active_ms - e.ms, cost);
            let reason = || Reason::Predicted { predicted_ms: e.ms, active_ms, frames };
            return if ripe {
                self.try_probe(best, e.ms, active_ms, warm_ms[best], credit, reason).unwrap_or(Action::Stay)
            } else {
                Action::Stay
            };
        }
        self.streak = 0;

        // Rule 4: explore a candidate the model is unsure of, if it could be cheaper. A candidate never measured
        // in this regime (the scene has just changed) may be explored four times as soon again.
        let gap = |c: usize| {
            u64::from(if estimates[c].measured { self.config.reprobe_gap } else { self.config.reprobe_gap / 4 })
        };
        let unsure = others()
            .filter(|&c| estimates[c].sigma > SURE_SIGMA)
            .filter(|&c| self.last_probe[c].is_none_or(|p| frame >= p + gap(c)))
            .min_by(|&a, &b| estimates[a].optimistic().total_cmp(&estimates[b].optimistic()));
        if let Some(c) = unsure {
            let e = estimates[c];
            if e.optimistic() < active_ms * (1.0 - self.margin_for(c, frame)) {
                let reason = || Reason::Unsure { predicted_ms: e.ms, sigma: e.sigma, active_ms };
                if let Some(action) = self.try_probe(c, e.ms, active_ms, warm_ms[c], 0.0, reason) {
                    return action;
                }
            }
        }
        Action::Stay
    }

    /// A probe of `c` ended at `frame`, having cost `spent_frames` typical frames of the active candidate in all
    /// (warm start and side-by-side frames), with `probe_ms` against the active one's `active_ms` on the same
    /// frames. Switch, or stay.
    pub fn probe_done(
        &mut self,
        frame: u64,
        active: usize,
        c: usize,
        probe_ms: f64,
        active_ms: f64,
        spent_frames: f64,
    ) -> Action {
        self.tokens -= spent_frames;
        self.last_probe[c] = Some(frame);
        self.streak = 0;
        if probe_ms < active_ms * (1.0 - self.margin_for(c, frame)) {
            self.switched(frame, active);
            Action::Switch(c, Reason::Confirmed { probe_ms, active_ms })
        } else {
            Action::Stay
        }
    }

    /// Record a switch made at `frame` away from `from` (the policy's own, or a forced one).
    pub fn switched(&mut self, frame: u64, from: usize) {
        self.last_switch = Some(frame);
        self.previous = Some(from);
        self.streak = 0;
    }

    /// A probe was abandoned (a resize came in the middle): nothing is learned, its cost (`spent_frames` typical
    /// frames of the active candidate) is still spent.
    pub fn probe_abandoned(&mut self, frame: u64, c: usize, spent_frames: f64) {
        self.tokens -= spent_frames;
        self.last_probe[c] = Some(frame);
    }

    /// The margin to beat for switching to `c`: doubled for going back to the previous candidate soon after
    /// leaving it.
    fn margin_for(&self, c: usize, frame: u64) -> f64 {
        let back_soon = self.previous == Some(c)
            && self.last_switch.is_some_and(|s| frame < s + u64::from(self.config.thrash_window));
        if back_soon { 2.0 * self.config.margin } else { self.config.margin }
    }

    /// What a probe of a candidate predicted at `ms` is expected to cost.
    fn probe_cost(&self, ms: f64, warm_ms: Option<f64>) -> f64 {
        // The last warm start may have been measured on another scene (a full build in a dense crowd): it counts
        // as at most a few of the frames predicted now.
        ms * f64::from(self.config.probe_frames) + warm_ms.unwrap_or(ms).min(WARM_FRAMES_MAX * ms)
    }

    /// The frames a probe may borrow against the budget's future filling, given the saving per frame the
    /// prediction promises (ms; negative when the candidate is predicted dearer) and the probe's expected cost
    /// (ms): none for a probe that does not pay for itself over the horizon several times; a little when it pays
    /// three times over; a lot when it pays ten times over — the active candidate has just become a bad choice
    /// (the scene jumped under it) and every frame spent finding the better one saves more than the probe costs.
    fn credit(&self, saving_per_frame: f64, cost: f64) -> f64 {
        let saving = saving_per_frame * f64::from(self.config.horizon);
        if saving > DEEP_PAYBACK * cost {
            DEEP_BORROW_FRAMES
        } else if saving > BORROW_PAYBACK * cost {
            BORROW_FRAMES
        } else {
            0.0
        }
    }

    /// A probe of `c` if the budget, with `credit` frames of borrowing allowed, covers its expected cost.
    fn try_probe(
        &mut self,
        c: usize,
        ms: f64,
        active_ms: f64,
        warm_ms: Option<f64>,
        credit: f64,
        reason: impl FnOnce() -> Reason,
    ) -> Option<Action> {
        let frames = self.probe_cost(ms, warm_ms) / active_ms.max(1e-9);
        (self.tokens + credit >= frames).then(|| Action::Probe(c, reason()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sure(ms: f64) -> Estimate {
        Estimate { ms, sigma: 0.1, measured: true }
    }

    /// Drive the policy like the selector does, with candidates whose true cost per frame is `cost(c, frame)`
    /// and a model like the real one: per regime (`regime(frame)`, standing for the features' bins), it knows
    /// its last measurement of each candidate exactly, with an uncertainty that grows with its age, and
    /// nothing (1 ms, σ = 1) in a regime where it never measured the candidate. Returns the active candidate
    /// per frame, the number of switches and the time spent probing.
    fn drive_regimes(
        frames: u64,
        n: usize,
        regime: impl Fn(u64) -> usize,
        cost: impl Fn(usize, u64) -> f64,
    ) -> (Vec<usize>, u32, f64) {
        let config = PolicyConfig::default();
        let mut policy = Policy::new(config, n);
        let mut active = 0;
        let mut probe: Option<(usize, u64, f64)> = None;
        let mut learned: Vec<Vec<Option<(u64, f64)>>> = vec![vec![None; n]; 4];
        let (mut switches, mut spent) = (0, 0.0);
        let mut timeline = Vec::new();
        for frame in 0..frames {
            let active_ms = cost(active, frame);
            let measured = &mut learned[regime(frame)];
            measured[active] = Some((frame, active_ms));
            timeline.push(active);
            policy.tick();
            let estimates: Vec<Estimate> = measured
                .iter()
                .map(|m| match m {
                    Some((at, ms)) => {
                        Estimate { ms: *ms, sigma: (0.1 + (frame - at) as f64 / 3600.0).min(1.0), measured: true }
                    }
                    None => Estimate { ms: 1.0, sigma: 1.0, measured: false },
                })
                .collect();
            if let Some((c, start, cost_so_far)) = probe {
                let cost_so_far = cost_so_far + cost(c, frame);
                if frame == start + u64::from(config.probe_frames) {
                    probe = None;
                    measured[c] = Some((frame, cost(c, frame)));
                    spent += cost_so_far;
                    if let Action::Switch(to, _) =
                        policy.probe_done(frame, active, c, cost(c, frame), active_ms, cost_so_far / active_ms)
                    {
                        active = to;
                        switches += 1;
                    }
                } else {
                    probe = Some((c, start, cost_so_far));
                }
                continue;
            }
            match policy.decide(frame, active, active_ms, &estimates, &vec![None; n]) {
                Action::Probe(c, _) => probe = Some((c, frame, cost(c, frame))),
                Action::Switch(..) => unreachable!("switches come only from probes"),
                Action::Stay => {}
            }
        }
        (timeline, switches, spent)
    }

    fn drive(frames: u64, n: usize, cost: impl Fn(usize, u64) -> f64) -> (Vec<usize>, u32, f64) {
        drive_regimes(frames, n, |_| 0, cost)
    }

    #[test]
    fn a_cheaper_candidate_is_found_probed_and_switched_to() {
        let (timeline, switches, _) = drive(300, 3, |c, _| [4.0, 1.0, 8.0][c]);
        assert_eq!(switches, 1);
        let first = timeline.iter().position(|&c| c == 1).unwrap();
        assert!(first < 30, "switched at frame {first}");
        assert!(timeline[first..].iter().all(|&c| c == 1), "and stayed");
    }

    #[test]
    fn a_regime_change_is_followed_within_a_few_dozen_frames() {
        // Candidate 0 is best for 300 frames, then candidate 1 by a factor of 2, and the features say so.
        let regime = |f: u64| usize::from(f >= 300);
        let (timeline, switches, _) =
            drive_regimes(600, 2, regime, |c, f| if (f < 300) == (c == 0) { 1.0 } else { 2.0 });
        assert!(timeline[250..300].iter().all(|&c| c == 0));
        let after = timeline[300..].iter().position(|&c| c == 1).expect("switched after the change");
        assert!(after <= 20, "followed the change after {after} frames");
        assert_eq!(switches, 1, "{timeline:?}");
    }

    #[test]
    fn candidates_within_the_margin_never_cause_a_switch() {
        // Two candidates that trade places by 7% every 7 frames: below the 10% margin, no switch.
        let (_, switches, _) = drive(3000, 2, |c, f| if (f / 7 % 2 == 0) == (c == 0) { 1.0 } else { 1.07 });
        assert_eq!(switches, 0);
    }

    #[test]
    fn a_scene_oscillating_across_the_boundary_switches_a_bounded_number_of_times() {
        // Two candidates that trade places by a factor of 1.5 every 45 frames: the truth changes 66 times
        // over 3000 frames; the cooldown and the thrash guard keep the switches far below that.
        let frames = 3000;
        let (_, switches, _) = drive(frames, 2, |c, f| if (f / 45 % 2 == 0) == (c == 0) { 1.0 } else { 1.5 });
        let config = PolicyConfig::default();
        let bound = frames / u64::from(config.cooldown + config.probe_frames);
        assert!(u64::from(switches) <= bound, "{switches} switches > {bound}");
        assert!(switches < 40, "{switches} switches: thrashing");
    }

    #[test]
    fn probes_stay_within_their_share_of_the_time() {
        // Five candidates, all worse than the first: the policy keeps exploring them as their measurements age,
        // but never spends more than the share (plus the initial grant).
        let frames = 20_000;
        let (timeline, switches, spent) = drive(frames, 5, |c, _| if c == 0 { 1.0 } else { 1.3 + c as f64 / 10.0 });
        assert_eq!(switches, 0);
        let total: f64 = timeline.len() as f64 * 1.0;
        let config = PolicyConfig::default();
        // A probe costs ~4 frames of ~1.5 ms. A measurement ages past the optimism needed to beat the active one
        // (1.4·e^−σ < 0.85 needs σ ≈ 0.5) after ~1440 frames, so the four candidates are probed ~14 times each.
        assert!(spent > 10.0 * 4.0 * 4.0 * 1.3, "old measurements were explored again ({spent} ms)");
        assert!(spent <= config.probe_share * total + INITIAL_GRANT_FRAMES, "spent {spent} of {total}");
    }

    #[test]
    fn switching_back_soon_needs_twice_the_margin() {
        let mut policy = Policy::new(PolicyConfig::default(), 2);
        policy.switched(100, 0);
        // 15% cheaper beats the margin of 10% for a newcomer but not the doubled one for going back.
        assert_eq!(policy.probe_done(200, 1, 0, 0.85, 1.0, 0.0), Action::Stay);
        let mut fresh = Policy::new(PolicyConfig::default(), 2);
        assert!(matches!(fresh.probe_done(200, 1, 0, 0.85, 1.0, 0.0), Action::Switch(0, _)));
    }

    /// A policy with `tokens` frames of budget, past its initial grant.
    fn with_budget(n: usize, tokens: f64) -> Policy {
        let mut policy = Policy::new(PolicyConfig::default(), n);
        policy.granted = true;
        policy.tokens = tokens;
        policy
    }

    #[test]
    fn a_survey_measures_the_predicted_cheapest_candidate_at_once_whatever_the_margin() {
        // Candidate 1 is predicted 10% dearer than the active one (no rule would probe it), candidate 2 twice as
        // dear (out of reach).
        let e = [sure(1.0), sure(1.1), sure(2.0)];
        let none = [None; 3];
        let mut policy = with_budget(3, INITIAL_GRANT_FRAMES);
        assert_eq!(policy.decide(5, 0, 1.0, &e, &none), Action::Stay, "no survey, nothing predicted cheaper");
        policy.survey(5);
        assert!(matches!(policy.decide(6, 0, 1.0, &e, &none), Action::Probe(1, Reason::Survey { .. })));
        assert!(!policy.surveying(), "the default survey measures one candidate");
        // A survey never reaches a candidate predicted far dearer.
        let far = [sure(1.0), sure(1.5), sure(2.0)];
        let mut policy = with_budget(3, INITIAL_GRANT_FRAMES);
        policy.survey(5);
        assert_eq!(policy.decide(6, 0, 1.0, &far, &none), Action::Stay);
        assert!(!policy.surveying(), "nothing within reach ends the survey");
    }

    #[test]
    fn a_probe_that_pays_ten_times_over_goes_even_on_a_deep_debt() {
        // The active candidate has just become ten times dearer than another; an earlier exploration left the
        // budget 100 frames in debt. Waiting for the budget would cost ~30 ms a frame for 2000 frames.
        let e = [sure(30.0), sure(3.0)];
        let mut policy = with_budget(2, -100.0);
        let probed = (0..PolicyConfig::default().hysteresis + 1)
            .map(|f| policy.decide(u64::from(f), 0, 30.0, &e, &[None, None]))
            .any(|a| matches!(a, Action::Probe(1, _)));
        assert!(probed, "a probe that pays for itself many times over waits for no budget");
        // One that pays only twice over does wait.
        let e = [sure(1.0), sure(0.8)];
        let mut policy = with_budget(2, -100.0);
        assert!(
            (0..20).all(|f| policy.decide(f, 0, 1.0, &e, &[None, None]) == Action::Stay),
            "a modest saving waits for the budget"
        );
    }

    #[test]
    fn a_warm_start_measured_on_another_scene_does_not_block_a_probe() {
        // The candidate's last warm start cost 1000 ms (a full build in a dense crowd); here its frames are
        // predicted at 0.5 ms: the probe is charged a few of its frames for the warm start, not the old figure.
        let e = [sure(1.0), sure(0.5)];
        let mut policy = with_budget(2, INITIAL_GRANT_FRAMES);
        policy.survey(0);
        assert!(matches!(policy.decide(1, 0, 1.0, &e, &[None, Some(1000.0)]), Action::Probe(1, _)));
    }

    #[test]
    fn nothing_is_decided_during_the_cooldown() {
        let mut policy = Policy::new(PolicyConfig::default(), 2);
        policy.tokens = 1e9;
        policy.granted = true;
        policy.switched(10, 1);
        let e = [sure(1.0), sure(0.1)];
        for frame in 10..10 + u64::from(PolicyConfig::default().cooldown) {
            assert_eq!(policy.decide(frame, 0, 1.0, &e, &[None, None]), Action::Stay, "frame {frame}");
        }
    }
}
