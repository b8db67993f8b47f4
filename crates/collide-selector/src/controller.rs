//! [`Controller`]: everything the meta-broadphase decides, fed with numbers only — each frame's [`Features`] and
//! the milliseconds the active candidate (and a probe) took — and answering with an [`Order`] for the one who
//! runs the candidates.
//!
//! The split keeps the decisions apart from the clock and the broadphases: [`crate::Selector`] runs real
//! candidates and times them; the `replay` module feeds the same controller the costs recorded in a trace, so
//! that a policy is judged on the same frames, without the machine's noise, in milliseconds of computer time
//! instead of minutes.

use crate::features::Features;
use crate::log::{Decision, DecisionKind, DecisionLog, MAX_CANDIDATES, Predictions};
use crate::model::{CostModel, Estimate, Prior, Regime};
use crate::policy::{Action, Policy, PolicyConfig, Reason};

/// Active frames whose median is the active candidate's typical frame: long enough that a few stalled frames
/// do not move it, short enough to follow a phase change within half a second.
const RECENT_FRAMES: usize = 24;
/// A frame counts toward a candidate's spike factor as at most this many times the typical frame: an
/// algorithm's own expensive frame (sweep-and-prune's rebuild, 5× its usual frame) counts nearly whole, a frame
/// the scheduler stalled for 20× counts as four.
const SPIKE_CLIP: f64 = 4.0;
/// Weight of each active frame in a candidate's spike factor (an exponential mean over ~50 frames).
const SPIKE_WEIGHT: f64 = 0.02;
/// Frames a probe runs beside the active candidate can be at most this many.
pub const MAX_PROBE_FRAMES: usize = 8;
/// The normalised speed the first frame's choice assumes: a tenth of a box per frame, between a slow drift
/// (0.01) and the thesis's scene (0.5).
const INITIAL_SPEED: f64 = 0.1;
/// The pairs per body the first frame's choice assumes: a sparse scene.
const INITIAL_PAIRS_PER_BODY: f64 = 0.5;
/// Frames of a candidate that took over cold (the first frame, after a reset, after a warm switch without a
/// probe, after a resize) that teach nothing: its buffers are being allocated and its caches filled, and the
/// first frame of an octree costs four of its steady frames. Neither the model nor the policy sees them.
const COLD_FRAMES: u32 = 2;

/// What the runner of the candidates must do after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Nothing.
    Stay,
    /// Warm-start candidate `c` from this frame's boxes and pairs, report its time through
    /// [`Controller::warm_started`], and from the next frame on run it beside the active one (its pairs
    /// discarded), passing its time to [`Controller::after_frame`].
    Probe(usize),
    /// Candidate `to` answers from the next frame on. When `warm`, it is not in sync: warm-start it from this
    /// frame first and report the time through [`Controller::warm_started`]; otherwise it has followed every
    /// frame (it has just been probed) and is ready.
    Switch {
        /// The newcomer.
        to: usize,
        /// `true` when it needs a warm start first.
        warm: bool,
    },
}

/// The last few active frames' times.
#[derive(Clone, Copy, Debug, Default)]
struct Recent {
    values: [f64; RECENT_FRAMES],
    len: usize,
    next: usize,
}

impl Recent {
    fn push(&mut self, ms: f64) {
        self.values[self.next] = ms;
        self.next = (self.next + 1) % RECENT_FRAMES;
        self.len = (self.len + 1).min(RECENT_FRAMES);
    }

    fn median(&self) -> f64 {
        let mut values = self.values;
        median(&mut values[..self.len])
    }
}

/// The median of `v` (reordered); 0 for none.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mid = v.len() / 2;
    *v.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// A probe whose frame costs this many times the active candidate's on the same frame (twice that on its first
/// frame, which pays for what the warm start left) cannot win: it ends at once, rejected. A dense crowd makes a
/// dynamic tree's frame 10× the octree's; four such frames would cost the budget of a minute.
const HOPELESS: f64 = 3.0;

/// A probe in progress.
#[derive(Clone, Copy, Debug)]
struct Probe {
    candidate: usize,
    /// Time spent so far (warm start included), ms.
    spent_ms: f64,
    /// Side-by-side frames so far, and the two times of each.
    frames: usize,
    probe_ms: [f64; MAX_PROBE_FRAMES],
    active_ms: [f64; MAX_PROBE_FRAMES],
}

impl Probe {
    /// `true` when its last frame shows it cannot win (see [`HOPELESS`]).
    fn hopeless(&self) -> bool {
        let Some(last) = self.frames.checked_sub(1) else { return false };
        let factor = if last == 0 { 2.0 * HOPELESS } else { HOPELESS };
        self.probe_ms[last] > factor * self.active_ms[last]
    }
}

/// The active candidate's frames leaving [½, 2]× its recent median this many frames in a row mean the scene
/// changed under it (bodies grew, the count doubled, a crowd formed at once): its recent frames are forgotten so
/// that its typical frame follows at once, and nothing is decided for [`SETTLE_FRAMES`].
const JUMP_FRAMES: u32 = 3;
/// Frames after a jump in the active candidate's cost before the next decision: its median then describes the
/// new scene only, and a switch is compared with frames of the new scene, not the old.
const SETTLE_FRAMES: u32 = 10;
/// Frames in a row the scene must be in another [`Regime`] than at the last survey before it is surveyed again:
/// a scene on the border of two regimes would otherwise be surveyed every few frames.
const REGIME_FRAMES: u32 = 10;

/// The meta-broadphase's decisions over `names.len()` candidates (see the crate docs for the design).
#[derive(Clone, Debug)]
pub struct Controller {
    names: Vec<&'static str>,
    policy: Policy,
    model: CostModel,
    log: DecisionLog,
    /// The candidate that answers the next frame.
    active: usize,
    probe: Option<Probe>,
    probe_frames: usize,
    /// The active candidate's recent steady frames.
    recent: Recent,
    /// Per candidate: how much its mean frame exceeds its typical (median) frame when it runs — 1 for an
    /// algorithm whose frames all cost alike, more for one with its own expensive frames (see [`SPIKE_CLIP`]).
    /// Costs are compared as typical frame × spike factor: robust to frames the machine stalled, and still
    /// charging an algorithm for the frames that are its own fault.
    spike: Vec<f64>,
    /// Per candidate: `true` when its structure has followed every frame since its last warm start, so it can
    /// take over without one. The active candidate is always in sync.
    in_sync: Vec<bool>,
    /// Per candidate: its last warm start's cost, ms.
    warm_ms: Vec<Option<f64>>,
    /// This frame's estimates, per candidate (the active one's is its measured median × spike factor).
    estimates: Vec<Estimate>,
    force_every: u64,
    /// Frames seen (calls of [`Controller::after_frame`]).
    frame: u64,
    /// `false` until the first frame chose a candidate (again after a reset).
    started: bool,
    /// Frames left before the active candidate's times count (see [`COLD_FRAMES`]).
    cold: u32,
    /// Consecutive frames of the active candidate outside [½, 2]× its recent median (see [`JUMP_FRAMES`]).
    jump: u32,
    /// Frames left before the next decision after a jump (see [`SETTLE_FRAMES`]).
    settle: u32,
    /// The regime of the last survey, and the frames in a row spent in another one (see [`REGIME_FRAMES`]).
    surveyed_regime: Option<Regime>,
    regime_frames: u32,
    /// The last frame's features.
    features: Features,
    /// Probes started and switches made.
    probes: u64,
    switches: u64,
}

impl Controller {
    /// A controller over the candidates `names`, with the policy's knobs, the prior, and forced switching every
    /// `force_every` frames (0: off). Panics on no candidates or more than [`MAX_CANDIDATES`].
    #[must_use]
    pub fn new(names: Vec<&'static str>, policy: PolicyConfig, prior: Prior, force_every: u64) -> Self {
        assert!(
            (1..=MAX_CANDIDATES).contains(&names.len()),
            "a selector needs 1 to {MAX_CANDIDATES} candidates, got {}",
            names.len()
        );
        assert!(policy.probe_frames as usize <= MAX_PROBE_FRAMES && policy.probe_frames > 0);
        let n = names.len();
        Self {
            model: CostModel::new(prior, &names),
            names,
            policy: Policy::new(policy, n),
            log: DecisionLog::default(),
            active: 0,
            probe: None,
            probe_frames: policy.probe_frames as usize,
            recent: Recent::default(),
            spike: vec![1.0; n],
            in_sync: vec![false; n],
            warm_ms: vec![None; n],
            estimates: vec![Estimate::default(); n],
            force_every,
            frame: 0,
            started: false,
            cold: 0,
            jump: 0,
            settle: 0,
            surveyed_regime: None,
            regime_frames: 0,
            features: Features::default(),
            probes: 0,
            switches: 0,
        }
    }

    /// The candidates' names.
    #[must_use]
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// The candidate that answers the next frame.
    #[must_use]
    pub fn active(&self) -> usize {
        self.active
    }

    /// The candidate being probed, which must run beside the active one next frame.
    #[must_use]
    pub fn probing(&self) -> Option<usize> {
        self.probe.map(|p| p.candidate)
    }

    /// `true` once the first frame chose a candidate.
    #[must_use]
    pub fn started(&self) -> bool {
        self.started
    }

    /// `true` when candidate `c` has followed every frame since its last warm start.
    #[must_use]
    pub fn in_sync(&self, c: usize) -> bool {
        self.in_sync[c]
    }

    /// This frame's estimate of every candidate.
    #[must_use]
    pub fn estimates(&self) -> &[Estimate] {
        &self.estimates
    }

    /// The decision log.
    #[must_use]
    pub fn log(&self) -> &DecisionLog {
        &self.log
    }

    /// The last frame's features.
    #[must_use]
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// The cost model.
    #[must_use]
    pub fn model(&self) -> &CostModel {
        &self.model
    }

    /// The policy's knobs.
    #[must_use]
    pub fn policy(&self) -> &PolicyConfig {
        self.policy.config()
    }

    /// Probes started and switches made so far.
    #[must_use]
    pub fn counts(&self) -> (u64, u64) {
        (self.probes, self.switches)
    }

    /// The first frame (and the first after a reset): choose the prior's cheapest candidate for `measured`, the
    /// features of the frame's boxes without its pairs. The first frame has no speed and no pairs yet; the prior
    /// is asked about a moderate speed and a sparse crowd, where no candidate is at its best or its worst, and
    /// the first probes correct the guess. Returns the chosen candidate, which the runner must warm-start (or
    /// build) cold.
    pub fn start(&mut self, measured: Features) -> usize {
        let features = Features {
            speed_mean: INITIAL_SPEED,
            speed_p90: INITIAL_SPEED,
            pairs_per_body: INITIAL_PAIRS_PER_BODY,
            ..measured
        };
        self.features = measured;
        self.recent = Recent::default();
        for c in 0..self.names.len() {
            let (ms, sigma) = self.model.base(c, &features);
            self.estimates[c] = Estimate { ms, sigma, measured: false };
        }
        let best = (0..self.names.len()).min_by(|&a, &b| self.estimates[a].ms.total_cmp(&self.estimates[b].ms));
        self.active = best.unwrap_or(0);
        self.in_sync.iter_mut().for_each(|s| *s = false);
        self.in_sync[self.active] = true;
        self.started = true;
        self.cold = COLD_FRAMES;
        self.policy.survey(self.frame);
        self.surveyed_regime = None;
        let predicted_ms = self.estimates[self.active].ms;
        self.push_log(DecisionKind::Initial, self.active, self.active, Reason::Initial { predicted_ms });
        self.active
    }

    /// The runner warm-started candidate `c` (for a probe or a switch) in `ms`.
    pub fn warm_started(&mut self, c: usize, ms: f64) {
        self.warm_ms[c] = Some(ms);
        if let Some(p) = self.probe.as_mut().filter(|p| p.candidate == c) {
            p.spent_ms += ms;
        }
    }

    /// After the active candidate answered a frame whose features are `features` in `active_ms`, and the probed
    /// candidate (if any) ran the same frame in `probe_ms`: learn, and say what to do.
    pub fn after_frame(&mut self, features: &Features, active_ms: f64, probe_ms: Option<f64>) -> Order {
        self.features = *features;
        if let (Some(p), Some(ms)) = (&mut self.probe, probe_ms) {
            p.probe_ms[p.frames] = ms;
            p.active_ms[p.frames] = active_ms;
            p.frames += 1;
            p.spent_ms += ms;
        }
        let cold = self.cold > 0;
        if cold {
            self.cold -= 1;
        } else {
            self.watch_for_jump(active_ms);
            self.recent.push(active_ms);
            if self.recent.len >= RECENT_FRAMES / 3 {
                let ratio = (active_ms / self.recent.median().max(1e-9)).clamp(1.0, SPIKE_CLIP);
                let spike = &mut self.spike[self.active];
                *spike += SPIKE_WEIGHT * (ratio - *spike);
            }
            self.policy.tick();
        }
        self.watch_regime(features);
        self.estimate_all(features);
        let order = self.decide(features, cold);
        self.frame += 1;
        order
    }

    /// Survey when the scene has settled into another regime than at the last survey (see [`REGIME_FRAMES`]).
    fn watch_regime(&mut self, features: &Features) {
        let regime = Regime::of(features);
        let Some(surveyed) = self.surveyed_regime else {
            self.surveyed_regime = Some(regime);
            return;
        };
        self.regime_frames = if regime == surveyed { 0 } else { self.regime_frames + 1 };
        if self.regime_frames >= REGIME_FRAMES {
            self.regime_frames = 0;
            self.surveyed_regime = Some(regime);
            self.policy.survey(self.frame);
        }
    }

    /// Notice the scene changing under the active candidate (see [`JUMP_FRAMES`]).
    fn watch_for_jump(&mut self, active_ms: f64) {
        if self.recent.len < RECENT_FRAMES / 3 {
            return;
        }
        let ratio = active_ms / self.recent.median().max(1e-9);
        self.jump = if (0.5..=2.0).contains(&ratio) { 0 } else { self.jump + 1 };
        if self.jump >= JUMP_FRAMES {
            self.jump = 0;
            self.recent = Recent::default();
            self.settle = SETTLE_FRAMES;
            self.policy.survey_after_jump(self.frame);
        }
    }

    fn decide(&mut self, features: &Features, cold: bool) -> Order {
        let forced = self.force_every > 0 && self.names.len() > 1;
        if let Some(p) = self.probe.filter(|p| p.frames == self.probe_frames || (!forced && p.hopeless())) {
            return self.finish_probe(p, features, forced);
        }
        if self.probe.is_some() {
            return Order::Stay;
        }
        if forced {
            // Forced-switch mode: every `force_every` frames the next candidate takes over — through a probe
            // when there is room for one before the next hand-over (so probes are under test too), else warm
            // at once.
            if (self.frame + 1).is_multiple_of(self.force_every) {
                let (from, to) = (self.active, (self.active + 1) % self.names.len());
                if self.force_every > self.probe_frames as u64 {
                    return self.start_probe(to, Reason::Forced);
                }
                let warm = !self.in_sync[to];
                self.switch_to(to);
                self.push_log(DecisionKind::Forced, from, to, Reason::Forced);
                return Order::Switch { to, warm };
            }
            return Order::Stay;
        }
        if cold {
            return Order::Stay;
        }
        // While the active candidate's median settles after a jump, only a survey may probe: a probe compares
        // the two on the same frames and needs no median, and the sooner the scene's new winner is found the less
        // its old one costs.
        if self.settle > 0 {
            self.settle -= 1;
            if !self.policy.surveying() {
                return Order::Stay;
            }
        }
        let active_ms = self.estimates[self.active].ms;
        match self.policy.decide(self.frame, self.active, active_ms, &self.estimates, &self.warm_ms) {
            Action::Probe(c, reason) => self.start_probe(c, reason),
            _ => Order::Stay,
        }
    }

    /// Every candidate's estimate for `features`: the active one's is its measured median × spike factor, the
    /// others' are predicted relative to it (see [`CostModel`]), each times its own spike factor. Before the
    /// active candidate has a steady frame, the prior's milliseconds stand in for its measurement.
    fn estimate_all(&mut self, features: &Features) {
        let active = self.active.min(self.names.len() - 1);
        let active_ms = if self.recent.len > 0 { self.recent.median() } else { self.model.base(active, features).0 };
        for c in 0..self.names.len() {
            self.estimates[c] = if c == self.active {
                Estimate { ms: active_ms * self.spike[c], sigma: 0.0, measured: true }
            } else {
                let e = self.model.predict(c, active, active_ms, features, self.frame);
                Estimate { ms: e.ms * self.spike[c], ..e }
            };
        }
    }

    fn start_probe(&mut self, c: usize, reason: Reason) -> Order {
        self.in_sync[c] = true;
        self.probes += 1;
        self.probe = Some(Probe {
            candidate: c,
            spent_ms: 0.0,
            frames: 0,
            probe_ms: [0.0; MAX_PROBE_FRAMES],
            active_ms: [0.0; MAX_PROBE_FRAMES],
        });
        self.push_log(DecisionKind::Probe, self.active, c, reason);
        Order::Probe(c)
    }

    /// Make `to` the active candidate (the runner warm-starts it first if it is not in sync).
    fn switch_to(&mut self, to: usize) {
        if !self.in_sync[to] {
            self.cold = COLD_FRAMES;
        }
        let from = self.active;
        self.in_sync[from] = false;
        self.in_sync[to] = true;
        self.active = to;
        self.recent = Recent::default();
        self.jump = 0;
        self.switches += 1;
        self.policy.switched(self.frame, from);
    }

    /// The probe `p` has run its frames: learn from it, then switch or stay (in forced mode, always switch).
    fn finish_probe(&mut self, p: Probe, features: &Features, forced: bool) -> Order {
        self.probe = None;
        let c = p.candidate;
        // The first side-by-side frame pays for whatever the warm start left to do (an incremental structure's
        // first update, caches filling): it is the switch's cost, not the steady one. Of the others, the least
        // of each, on the same frames: a frame the scheduler stalled is never the least, and load common to both
        // cancels. Each least is then charged its candidate's spike factor (its own expensive frames).
        let steady = if p.frames > 1 { 1..p.frames } else { 0..p.frames };
        let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let (probe_least, active_least) = (least(&p.probe_ms[steady.clone()]), least(&p.active_ms[steady.clone()]));
        let probe_cost = probe_least * self.spike[c];
        let active_cost = active_least * self.spike[self.active];
        // The model keeps typical frames, comparable with the active candidate's recent median: both leasts
        // scaled by the machine's noise on those frames (the active candidate's median over its least there).
        let mut active_steady = p.active_ms;
        let noise = (median(&mut active_steady[steady]) / active_least).clamp(1.0, 2.0);
        self.model.observe_probe(c, self.active, features, self.frame, probe_least * noise, active_least * noise);
        // The probe's cost in frames of the active candidate's typical frame (the budget's unit): what it spent,
        // each of its frames counted as at most SPIKE_CLIP times its least, so that a frame the scheduler stalled
        // is not charged to the probe (its warm start and its first frame are charged whole up to that clip).
        let clip = SPIKE_CLIP * probe_least;
        let frames_ms: f64 = p.probe_ms[..p.frames].iter().map(|&ms| ms.min(clip)).sum();
        let warm_ms = (p.spent_ms - p.probe_ms[..p.frames].iter().sum::<f64>()).clamp(0.0, clip);
        let spent_frames = (frames_ms + warm_ms) / self.estimates[self.active].ms.max(1e-9);
        let action = if forced {
            Action::Switch(c, Reason::Forced)
        } else {
            self.policy.probe_done(self.frame, self.active, c, probe_cost, active_cost, spent_frames)
        };
        match action {
            Action::Switch(to, reason) => {
                let from = self.active;
                self.estimates[to] = Estimate { ms: probe_cost * noise, sigma: 0.0, measured: true };
                let warm = !self.in_sync[to];
                self.switch_to(to);
                let kind = if forced { DecisionKind::Forced } else { DecisionKind::Switch };
                self.push_log(kind, from, to, reason);
                Order::Switch { to, warm }
            }
            _ => {
                self.in_sync[c] = false;
                let reason = Reason::Rejected { probe_ms: probe_cost, active_ms: active_cost };
                self.push_log(DecisionKind::Reject, self.active, self.active, reason);
                Order::Stay
            }
        }
    }

    /// Bodies were added or removed: the probe in progress is dropped (its candidate can no longer follow), only
    /// the active candidate (which the runner tells) stays in sync, and its next frames are cold.
    pub fn resized(&mut self) {
        if let Some(p) = self.probe.take() {
            let spent_frames = p.spent_ms / self.estimates[self.active].ms.max(1e-9);
            self.policy.probe_abandoned(self.frame, p.candidate, spent_frames);
            let reason = Reason::Rejected { probe_ms: f64::NAN, active_ms: f64::NAN };
            self.push_log(DecisionKind::Abandon, self.active, p.candidate, reason);
        }
        for (c, s) in self.in_sync.iter_mut().enumerate() {
            *s = c == self.active;
        }
        self.recent = Recent::default();
        self.cold = COLD_FRAMES;
        self.jump = 0;
        self.policy.survey(self.frame);
    }

    /// Forget the scene: the probe, the policy's history; the next frame chooses afresh. The costs the model
    /// learned are kept: they describe this machine and these candidates, not the scene.
    pub fn reset(&mut self) {
        self.probe = None;
        self.in_sync.iter_mut().for_each(|s| *s = false);
        self.recent = Recent::default();
        self.policy.reset();
        self.started = false;
        self.cold = 0;
        self.jump = 0;
        self.settle = 0;
    }

    /// The probe's time so far, ms (0 when none runs).
    #[must_use]
    pub fn probe_spent_ms(&self) -> f64 {
        self.probe.map_or(0.0, |p| p.spent_ms)
    }

    fn push_log(&mut self, kind: DecisionKind, from: usize, to: usize, reason: Reason) {
        self.log.push(Decision {
            frame: self.frame,
            kind,
            from: self.names[from],
            to: self.names[to],
            features: self.features,
            predictions: Predictions::from_slice(&self.estimates),
            reason,
        });
    }

    /// Check the controller's own invariants.
    pub fn validate(&self) -> Result<(), String> {
        if self.active >= self.names.len() {
            return Err(format!("active candidate {} of {}", self.active, self.names.len()));
        }
        if self.started && !self.in_sync[self.active] {
            return Err(format!("the active candidate {} is not in sync", self.names[self.active]));
        }
        if let Some(p) = self.probe {
            if p.candidate == self.active {
                return Err(format!("probing the active candidate {}", self.names[p.candidate]));
            }
            if !self.in_sync[p.candidate] {
                return Err(format!("probing {}, which is not in sync", self.names[p.candidate]));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(speed: f64) -> Features {
        Features {
            n: 10_000,
            pairs_per_body: 0.5,
            speed_mean: speed,
            speed_p90: speed,
            clustering: 1.0,
            size_spread: 1.0,
            resting: 0.0,
        }
    }

    /// A controller over two candidates the prior does not know, past its cold frames, with a measured median.
    fn warmed() -> Controller {
        let mut c = Controller::new(vec!["a", "b"], PolicyConfig::default(), Prior::builtin(), 0);
        c.start(features(0.2));
        for _ in 0..RECENT_FRAMES {
            let _ = c.after_frame(&features(0.2), 1.0, None);
        }
        c.probe = None;
        c
    }

    #[test]
    fn a_hopeless_probe_ends_at_once_and_a_fair_one_runs_its_frames() {
        let mut c = warmed();
        assert_eq!(c.start_probe(1, Reason::Forced), Order::Probe(1));
        // Its first frame costs ten times the active one's: more than it could ever win back.
        assert_eq!(c.after_frame(&features(0.2), 1.0, Some(10.0)), Order::Stay);
        assert_eq!(c.probing(), None, "ended after one frame");
        let last = c.log().iter().last().expect("logged");
        assert_eq!(last.kind, DecisionKind::Reject);
        // A probe whose first frame is dear but not hopeless (the warm start's leftovers) goes on.
        let mut c = warmed();
        let _ = c.start_probe(1, Reason::Forced);
        let _ = c.after_frame(&features(0.2), 1.0, Some(2.5));
        assert_eq!(c.probing(), Some(1));
        // Its later frames are held to the tighter factor.
        let _ = c.after_frame(&features(0.2), 1.0, Some(3.5));
        assert_eq!(c.probing(), None, "a steady frame 3.5x the active one's ends it");
    }

    #[test]
    fn a_scene_that_settles_into_another_regime_is_surveyed() {
        let mut c = warmed();
        c.policy.survey_left_for_test(0);
        // Flickering into another regime (a slow drift) for fewer than REGIME_FRAMES frames is not enough.
        for _ in 0..3 {
            for _ in 1..REGIME_FRAMES {
                c.watch_regime(&features(0.001));
            }
            c.watch_regime(&features(0.2));
            assert!(!c.policy.surveying(), "a flicker is not a new scene");
        }
        // REGIME_FRAMES in a row are; and the new regime is then the reference.
        for _ in 0..REGIME_FRAMES {
            assert!(!c.policy.surveying());
            c.watch_regime(&features(0.001));
        }
        assert!(c.policy.surveying(), "a new regime is surveyed");
        c.policy.survey_left_for_test(0);
        for _ in 0..3 * REGIME_FRAMES {
            c.watch_regime(&features(0.001));
        }
        assert!(!c.policy.surveying(), "and only once");
    }
}
