//! [`Controller`]: everything the meta-broadphase decides, fed with numbers only — each frame's [`Features`] and
//! the milliseconds the active candidate, a probe, a sampled probe or a build beside took — and answering with
//! an [`Order`] for the one who runs the candidates.
//!
//! The split keeps the decisions apart from the clock and the broadphases: [`crate::Selector`] runs real
//! candidates and times them; the trace replay feeds the same controller the costs recorded in a trace, so that
//! a policy is judged on the same frames without the machine's noise.
//!
//! A frame, from the controller's side:
//! 1. [`Controller::start`] (the first frame) or [`Controller::before_frame`] (every other): the features of the
//!    frame's boxes, measured before any candidate runs; the answer names the candidate that runs cold this
//!    frame, if it changes (the first frame, and the second when the first did not know the speed).
//! 2. [`Controller::built`], when a build beside has finished: the newcomer takes over this frame or starts its
//!    probe.
//! 3. [`Controller::after_frame`]: what the frame cost; the answer is this frame's [`Order`].

use crate::features::Features;
use crate::log::{Decision, DecisionKind, DecisionLog, MAX_CANDIDATES, Predictions};
use crate::model::{CostModel, Estimate, MEASURED_SIGMA, Prior, SAMPLED_SIGMA};
use crate::policy::{Budget, PolicyConfig, Reason, Verdict};

/// Active frames whose median is the active candidate's typical frame: long enough that a few stalled frames
/// do not move it, short enough to follow a phase change within half a second.
const RECENT_FRAMES: usize = 24;
/// Steady frames of the active candidate before anything is decided on its median.
const MIN_RECENT: usize = 4;
/// The highest of the recent frames left out of the active candidate's typical frame: a frame the scheduler stalled
/// is rare, an algorithm's own expensive frames are not (the dynamic tree rebuilding every other call in a
/// brownian gas costs twenty times its cheap calls), so the typical frame is the mean of the others, not a median
/// that would see only the cheap calls.
const TRIMMED: usize = 2;
/// In a probe's comparison each frame counts as at most this many times the least of its kind on the same
/// frames: an algorithm's own expensive frame counts whole, a frame the scheduler stalled for 20× counts as four.
const CLIP: f64 = 4.0;
/// Frames a probe or a sampled probe runs can be at most this many: its candidate's settling calls (see
/// [`Controller::with_settling`]) and the frames compared after them.
pub const MAX_PROBE_FRAMES: usize = 12;
/// The normalised speed the first frame's choice assumes when it does not know the speed: a tenth of a box
/// per frame. Only candidates cheap to build are chosen from then, and their cost hardly depends on speed.
const INITIAL_SPEED: f64 = 0.1;
/// A candidate is cheap to build when its build costs at most this many of its steady frames (the structures
/// rebuilt every frame: grids, sweeps, the linear BVH).
const CHEAP_BUILD: f64 = 1.0;
/// A first frame's speed hint is checked against the speed the boxes then show: measured over the frames from
/// the second to the first decision frame (the displacement from the first frame to the second can be the
/// push that separates bodies created overlapping, not their motion). Outside [1/`HINT_TOLERANCE`,
/// `HINT_TOLERANCE`]× the hint, the choice is made again on the measured speed. In `power-law` the hint says
/// 0.15 of a box per frame and the boxes move 1.8: the big bodies' contacts push the small ones every frame,
/// which no velocity tells.
const HINT_TOLERANCE: f64 = 2.0;
/// Frames of a candidate that took over cold (the first frame, after a reset, after a cold or warm switch, after
/// a resize) that teach nothing: its buffers are being allocated and its caches filled. Neither the model nor
/// the policy sees them.
const COLD_FRAMES: u32 = 2;
/// A probe whose frame costs this many times the active candidate's on the same frame (twice that on its first
/// frame, which pays for what the warm start left) cannot win: it ends at once, rejected.
const HOPELESS: f64 = 3.0;
/// The active candidate's frames leaving [½, 2]× its recent median this many frames in a row mean the scene
/// changed under it (bodies grew, the count doubled, a crowd formed at once): its recent frames are forgotten so
/// that its typical frame follows at once. What the model learned of the others relative to it then carries the
/// drift of the common level in its uncertainty, so promising candidates are measured again.
const JUMP_FRAMES: u32 = 3;
/// A candidate is sampled again only once its estimate's uncertainty has grown past what a fresh sample
/// leaves (by age, by the features' drift, by a jump of the common level).
const RESAMPLE_SIGMA: f64 = SAMPLED_SIGMA + 0.05;
/// The same for whole-frame probes.
const REPROBE_SIGMA: f64 = MEASURED_SIGMA + 0.05;
/// Candidates never measured in the scene's regime are explored by sampled probes while the probe budget holds
/// this many of the sample's cost, so that exploring leaves as much for a sample the model asks for. It was four
/// of the active candidate's frames, ten samples' worth: at 3% of a frame the budget reached that only after
/// 130 frames, and at 10⁵ bodies of rapier's brownian gas kd (0.63× the grid, predicted 1.4×) was never sampled.
const EXPLORE_BUDGET_SAMPLES: f64 = 2.0;
/// Exploration reaches candidates the model predicts at most this many times dearer than the active one: the
/// prior is rarely off by more than 2× (kd in rapier's pile ran at half what it said), and sampling a candidate
/// 3.1 times dearer (kd beside the dynamic tree on `slow` at 10⁴ bodies) made a frame of 17× for nothing.
const EXPLORE_REACH: f64 = 3.0;
/// Frames between two decisions while nothing is in progress (see [`Controller::wants_features`]).
pub const DECIDE_EVERY: u64 = 4;
/// A candidate is sampled again no sooner than this many frames after its last sample, unless the active
/// candidate's cost jumped since (see [`JUMP_FRAMES`]) or drifted by more than a sample's own uncertainty (see
/// [`LastSample::outdated`]): a scene drifting slowly (a pile forming) would otherwise have its candidates
/// sampled again every few frames, each sample telling what the last one did.
const RESAMPLE_GAP: u64 = 60;
/// A probe may make a frame cost at most this many of the active candidate's frames beside it: a sampled probe's
/// two scouts on their sub-box, or a whole probe's candidate (its first frame after a warm start twice that). A
/// scene whose running candidate is far cheaper than the others (a dynamic tree in a slow drift, 0.02 ms where a
/// grid takes 0.3) is not probed: nothing could beat it by the margin, and any probe would be a hitch.
const PROBE_FRAME_SHARE: f64 = 1.0;
/// The fewest bodies a sampled probe's sub-box aims at: below, every candidate's cost is its fixed overheads,
/// and the prior (fitted from 2 000 bodies up) cannot carry the ratio to the scene.
pub const MIN_SAMPLE_BODIES: usize = 1024;
/// A sampled probe whose frames held fewer than this share of the scene's pairs a body is thin: not the scene
/// made smaller (see [`Reason::Thin`]). Samples of the registry's scenes and rapier's streams hold 0.85–1.0 of
/// their scene's pairs a body (the cubes' faces cut a few neighbours off); `power-law`'s hold 0.4–0.7, its large
/// bodies reaching across a cube, and on them `hgrid` measured 1.6× `kd` where it runs at 0.78× on the scene, at
/// 10⁴ bodies and at 10⁵ alike.
pub const THIN_SAMPLE: f64 = 0.75;
/// A sample is judged thin only when the scene's pairs a body promise it this many pairs a frame: below, the
/// count is too noisy to tell (at 0.04 pairs a body a sample of a thousand holds forty).
const THIN_JUDGED_FROM: f64 = 256.0;
/// Frames a build beside runs its candidate on later frames before the newcomer takes over (see
/// [`Controller::built`]): the first calls after a build are an incremental structure's dearest (the dynamic
/// tree's second call rebuilds with the reaches it has just measured).
pub const CATCH_UP_CALLS: u32 = 2;

/// One frame of a sampled probe, as the runner measured it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleFrame {
    /// The probed candidate's time on the sample, ms.
    pub probe_ms: f64,
    /// The pairs the sample's bodies make this frame (either scout's answer).
    pub pairs: usize,
    /// The active candidate's time on the same sample, ms.
    pub active_ms: f64,
    /// Bodies in the sample.
    pub bodies: usize,
    /// The rest the probe cost this frame (listing the sub-box's bodies, gathering their boxes), ms.
    pub extra_ms: f64,
}

/// What the runner of the candidates must do after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Nothing.
    Stay,
    /// Candidate `to` answers from the next frame on. When `warm`, warm-start it from this frame's boxes and
    /// pairs first and report the time through [`Controller::warm_started`]; otherwise it is ready (it has just
    /// been probed).
    Switch {
        /// The newcomer.
        to: usize,
        /// `true` when it needs a warm start first.
        warm: bool,
    },
    /// Warm-start candidate `c` from this frame's boxes and pairs, report its time through
    /// [`Controller::warm_started`], and from the next frame on run it beside the active one (its pairs
    /// discarded), passing its time to [`Controller::after_frame`].
    Probe(usize),
    /// Warm-start candidate `c` beside the active one, on another thread, from a copy of this frame's boxes and
    /// pairs, then run it on `CATCH_UP_CALLS` (2) later frames there; report through [`Controller::built`].
    BuildBeside(usize),
    /// From the next frame on, run candidate `c` and the active one on a spatial sample of the bodies, passing
    /// both times to [`Controller::after_frame`].
    Sample(usize),
}

/// When a candidate's last sampled probe ended, and the active candidate it was compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LastSample {
    frame: u64,
    /// The active candidate then, and its typical frame.
    active: usize,
    active_ms: f64,
}

impl LastSample {
    /// `true` when the same active candidate's typical frame has moved by more than a sample's uncertainty
    /// ([`SAMPLED_SIGMA`], ×/÷ 1.35) since: the scene has changed under both, and the ratio the sample measured
    /// says little of the one now. Without this, [`RESAMPLE_GAP`] held a candidate back while the scene moved on:
    /// in rapier's avalanche at 10⁴ bodies kd was sampled at 1.05× the dynamic tree at frame 85 (right then), and
    /// over the next 60 frames the tree went from 0.45 to 1.2 ms a frame while kd went from 0.4 to 0.6.
    fn outdated(&self, active: usize, active_ms: f64) -> bool {
        self.active == active && moved_beyond_a_sample(self.active_ms, active_ms)
    }
}

/// `true` when a typical frame went from `from` to `to` ms by more than a sample's uncertainty ([`SAMPLED_SIGMA`],
/// ×/÷ 1.35) either way: the scene changed, and a ratio a sample measured across the change says little.
fn moved_beyond_a_sample(from: f64, to: f64) -> bool {
    (to / from).ln().abs() > SAMPLED_SIGMA
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

    /// The mean without the [`TRIMMED`] highest frames (none while fewer than 12 frames are kept, one from 6).
    fn typical(&self) -> f64 {
        let mut values = self.values;
        let v = &mut values[..self.len];
        v.sort_unstable_by(f64::total_cmp);
        let drop = if self.len >= 12 { TRIMMED } else { usize::from(self.len >= 6) };
        let kept = &v[..self.len - drop];
        if kept.is_empty() { 0.0 } else { kept.iter().sum::<f64>() / kept.len() as f64 }
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

/// The least of `v`.
fn least(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Side-by-side times of a candidate and the active one (whole frames or a sample).
#[derive(Clone, Copy, Debug)]
struct Pairs {
    frames: usize,
    /// The first frames, not compared: the build, and the calls after it that do not yet cost what later ones do.
    settle: usize,
    probe_ms: [f64; MAX_PROBE_FRAMES],
    active_ms: [f64; MAX_PROBE_FRAMES],
}

impl Pairs {
    /// No frame yet; the first `settle` (at least 1, the build) will not be compared.
    fn settling(settle: u32) -> Self {
        let settle = (settle.max(1) as usize).min(MAX_PROBE_FRAMES - 1);
        Self { frames: 0, settle, probe_ms: [0.0; MAX_PROBE_FRAMES], active_ms: [0.0; MAX_PROBE_FRAMES] }
    }

    /// `true` once `compared` frames ran after the settling ones (or the arrays are full).
    fn done(&self, compared: u32) -> bool {
        self.frames >= (self.settle + compared as usize).min(MAX_PROBE_FRAMES)
    }

    fn push(&mut self, probe_ms: f64, active_ms: f64) {
        if self.frames < MAX_PROBE_FRAMES {
            self.probe_ms[self.frames] = probe_ms;
            self.active_ms[self.frames] = active_ms;
            self.frames += 1;
        }
    }

    /// The frames compared: all but the settling ones — the first paid for a build (or a warm start's leftovers),
    /// and an incremental structure's next calls are cheaper than its steady ones — or the last if no other.
    fn steady(&self) -> std::ops::Range<usize> {
        self.settle.min(self.frames.saturating_sub(1))..self.frames
    }

    /// The mean of each over the compared frames, each frame clipped at [`CLIP`] times the least of its kind:
    /// load common to both cancels, a frame the scheduler stalled counts little, and an algorithm whose frames
    /// alternate between cheap and dear is charged for both.
    fn means(&self) -> (f64, f64) {
        let s = self.steady();
        let mean = |v: &[f64]| {
            let clip = CLIP * least(v);
            v.iter().map(|&ms| ms.min(clip)).sum::<f64>() / v.len().max(1) as f64
        };
        (mean(&self.probe_ms[s.clone()]), mean(&self.active_ms[s]))
    }

    /// `true` when the last frame shows the candidate cannot win (see [`HOPELESS`]); a settling frame is held to
    /// twice the factor (the dynamic tree's second call rebuilds with the reaches its first measured).
    fn hopeless(&self) -> bool {
        let Some(last) = self.frames.checked_sub(1) else { return false };
        let factor = if last < self.settle { 2.0 * HOPELESS } else { HOPELESS };
        self.probe_ms[last] > factor * self.active_ms[last]
    }
}

/// What follows a build beside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    Switch,
    /// A switch on trial ([`Reason::Trial`]): the candidate it leaves may come back with the plain margin, since
    /// only the trial's own frames measure the newcomer.
    Trial,
    Probe,
}

/// The one thing in progress besides the active candidate.
#[derive(Clone, Copy, Debug)]
enum Job {
    Idle,
    /// A full probe of `candidate`: it runs beside the active one on whole frames.
    Probe {
        candidate: usize,
        times: Pairs,
        spent_ms: f64,
    },
    /// A sampled probe of `candidate`.
    Sample {
        candidate: usize,
        times: Pairs,
        spent_ms: f64,
        bodies: usize,
        /// The pairs of the sample's frames so far, summed (over `bodies` times its frames: its pairs a body).
        pairs: u64,
        /// The active candidate's typical frame when the sample began.
        active_ms: f64,
    },
    /// `candidate` is being built on another thread, then `then`.
    Build {
        candidate: usize,
        then: Then,
    },
}

/// What the first frame leaves to decide again once the boxes' speed is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Redecide {
    /// Nothing.
    No,
    /// The first frame did not know the speed: the next frame measures it and decides again.
    OnMeasuredSpeed,
    /// The first frame had this speed hint: decide again if the boxes belie it (see [`HINT_TOLERANCE`]).
    IfHintWrong(f64),
}

/// The meta-broadphase's decisions over `names.len()` candidates (see the crate docs for the design).
#[derive(Clone, Debug)]
pub struct Controller {
    names: Vec<&'static str>,
    config: PolicyConfig,
    model: CostModel,
    log: DecisionLog,
    /// The candidate that answers the next frame.
    active: usize,
    job: Job,
    /// The active candidate's recent steady frames.
    recent: Recent,
    /// Per candidate: `true` when its structure has followed every frame since its last warm start (the active
    /// one always; a probed one), so it can take over without one.
    in_sync: Vec<bool>,
    /// Per candidate: `true` while it holds memory (it has run since it was last freed).
    holding: Vec<bool>,
    /// Per candidate: the frame it last ran (active, probed, sampled or built).
    last_ran: Vec<u64>,
    /// Per candidate: when its last sampled probe ended, and beside what.
    last_sampled: Vec<Option<LastSample>>,
    /// Per candidate: its last sample was thin (see [`THIN_SAMPLE`]; learned only if it made the candidate
    /// cheaper), so it may be tried on the model's figure; cleared once it runs on whole frames.
    thin: Vec<bool>,
    /// A trial begun on a thin sample: the candidate it left and that one's typical frame then. The newcomer's
    /// first steady frames measure the pair (see [`Reason::TrialMeasured`]).
    on_trial: Option<(usize, f64)>,
    /// Per candidate: the calls after a build before its cost is its steady one (see [`Controller::with_settling`]).
    settle: Vec<u32>,
    /// This frame's estimates, per candidate (the active one's is its measured typical frame).
    estimates: Vec<Estimate>,
    /// This frame's predicted builds, per candidate (ms).
    builds: Vec<f64>,
    budget: Budget,
    force_every: u64,
    /// Frames seen (calls of [`Controller::after_frame`]).
    frame: u64,
    /// `false` until the first frame chose a candidate (again after a reset).
    started: bool,
    /// What the first frame left to decide again once the speed is measured.
    redecide: Redecide,
    /// A newcomer chosen on the measured speed whose build would make a frame hitch: built beside from the end
    /// of this frame on (see [`Controller::before_frame`]).
    hand_over: Option<(usize, Reason)>,
    /// Frames left before the active candidate's times count (see [`COLD_FRAMES`]).
    cold: u32,
    /// Consecutive frames of the active candidate outside [½, 2]× its recent median (see [`JUMP_FRAMES`]).
    jump: u32,
    /// The frame of the last switch and the candidate active before it (the thrash guard).
    last_switch: Option<u64>,
    previous: Option<usize>,
    /// The frame of the last switch decided on a measurement, from which the cooldown runs. A switch on the
    /// prior alone (the measured speed's, [`Controller::before_frame`]) starts none: nothing was measured to be
    /// hysteretic about, and the prior's pick is the one most likely wrong. On rapier's brownian stream at 10⁵
    /// bodies the prior put `grid` at 2.5 ms on the second frame, where it ran at 6.5 while `kd` ran at 2–4; the
    /// cooldown held every sample back to frame 16, and `kd` took over at frame 35.
    cool_from: Option<u64>,
    /// The switch under way was decided on the prior alone (see `cool_from`).
    prior_switch: bool,
    /// The last frame's features.
    features: Features,
    /// Probes started (whole and sampled) and switches made.
    probes: u64,
    switches: u64,
}

impl Controller {
    /// The calls after a build, the build's own included, before each candidate's cost per call is its steady
    /// one ([`collide_broadphase::Broadphase::settling_calls`], 1 for every candidate until told): a probe or a
    /// sampled probe of it compares only the frames after these, and runs that much longer. A fresh dynamic tree's
    /// calls are its cheapest until bodies leave their new fat boxes: on a sample of rapier's free fall at 10⁴
    /// bodies its third call cost a third of its steady ones, and a sample compared there put it at 0.4× `hgrid`,
    /// where it ran at 0.95× for the rest of the scene while `kd` ran at 0.7×. Capped so that a probe fits in
    /// [`MAX_PROBE_FRAMES`].
    #[must_use]
    pub fn with_settling(mut self, calls: Vec<u32>) -> Self {
        assert_eq!(calls.len(), self.names.len(), "one settling count per candidate");
        let longest = self.config.probe_frames.max(self.config.sample_frames);
        let cap = MAX_PROBE_FRAMES as u32 + 1 - longest;
        self.settle = calls.into_iter().map(|c| c.clamp(1, cap)).collect();
        self
    }

    /// A controller over the candidates `names`, with the policy's knobs, the prior, and forced switching every
    /// `force_every` frames (0: off). Panics on no candidates or more than [`MAX_CANDIDATES`].
    #[must_use]
    pub fn new(names: Vec<&'static str>, config: PolicyConfig, prior: Prior, force_every: u64) -> Self {
        assert!(
            (1..=MAX_CANDIDATES).contains(&names.len()),
            "a selector needs 1 to {MAX_CANDIDATES} candidates, got {}",
            names.len()
        );
        assert!((1..=MAX_PROBE_FRAMES as u32).contains(&config.probe_frames));
        assert!((1..=MAX_PROBE_FRAMES as u32).contains(&config.sample_frames));
        let n = names.len();
        Self {
            model: CostModel::new(prior, &names),
            names,
            config,
            log: DecisionLog::default(),
            active: 0,
            job: Job::Idle,
            recent: Recent::default(),
            in_sync: vec![false; n],
            holding: vec![false; n],
            last_ran: vec![0; n],
            last_sampled: vec![None; n],
            thin: vec![false; n],
            on_trial: None,
            settle: vec![1; n],
            estimates: vec![Estimate::default(); n],
            builds: vec![0.0; n],
            budget: Budget::default(),
            force_every,
            frame: 0,
            started: false,
            redecide: Redecide::No,
            hand_over: None,
            cold: 0,
            jump: 0,
            last_switch: None,
            cool_from: None,
            prior_switch: false,
            previous: None,
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

    /// The candidate probed on whole frames, which runs beside the active one this frame.
    #[must_use]
    pub fn probing(&self) -> Option<usize> {
        match self.job {
            Job::Probe { candidate, .. } => Some(candidate),
            _ => None,
        }
    }

    /// The candidate probed on a sample, which runs on the sample beside the active one this frame.
    #[must_use]
    pub fn sampling(&self) -> Option<usize> {
        match self.job {
            Job::Sample { candidate, .. } => Some(candidate),
            _ => None,
        }
    }

    /// The candidate being built beside the active one.
    #[must_use]
    pub fn building(&self) -> Option<usize> {
        match self.job {
            Job::Build { candidate, .. } => Some(candidate),
            _ => None,
        }
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

    /// This frame's predicted build of every candidate, ms.
    #[must_use]
    pub fn builds(&self) -> &[f64] {
        &self.builds
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
        &self.config
    }

    /// Probes started (whole and sampled) and switches made so far.
    #[must_use]
    pub fn counts(&self) -> (u64, u64) {
        (self.probes, self.switches)
    }

    /// The features the prior is asked about on a first frame: a speed it does not know is taken as a moderate
    /// one.
    fn first_features(measured: &Features) -> Features {
        if measured.speed_known { *measured } else { Features { speed_mean: INITIAL_SPEED, ..*measured } }
    }

    /// The prior's steady frame and build of every candidate for `features`, at the prior's own level.
    fn prior_costs(&mut self, features: &Features) {
        self.model.prepare(features);
        for c in 0..self.names.len() {
            let (ms, sigma) = self.model.base(c, features);
            self.estimates[c] = Estimate { ms, sigma, measured: false };
            self.builds[c] = self.model.build(c, features, 0.0);
        }
    }

    /// The first frame (and the first after a reset): choose the candidate the prior predicts cheapest over the
    /// first `min_horizon` frames, its build included, for `measured`, the features of the frame's boxes (pairs
    /// per body estimated from the sample). Without a speed (no hint), only candidates cheap to build are chosen
    /// from, and the next frame decides again on the measured speed ([`Controller::before_frame`]). Returns the
    /// chosen candidate, which the runner builds cold.
    pub fn start(&mut self, measured: Features) -> usize {
        let features = Self::first_features(&measured);
        self.features = measured;
        self.prior_costs(&features);
        let horizon = f64::from(self.config.min_horizon);
        let cost = |s: &Self, c: usize| s.builds[c] + horizon * s.estimates[c].ms;
        let cheap = |s: &Self, c: usize| s.builds[c] <= CHEAP_BUILD * s.estimates[c].ms;
        let allowed = |s: &Self, c: usize| measured.speed_known || cheap(s, c);
        let pick = |s: &Self, filter: &dyn Fn(usize) -> bool| {
            (0..s.names.len()).filter(|&c| filter(c)).min_by(|&a, &b| cost(s, a).total_cmp(&cost(s, b)))
        };
        self.active = pick(self, &|c| allowed(self, c)).or_else(|| pick(self, &|_| true)).unwrap_or(0);
        self.in_sync.iter_mut().for_each(|s| *s = false);
        self.in_sync[self.active] = true;
        self.holding[self.active] = true;
        self.last_ran[self.active] = self.frame;
        self.started = true;
        self.redecide =
            if measured.speed_known { Redecide::IfHintWrong(measured.speed_mean) } else { Redecide::OnMeasuredSpeed };
        self.cold = COLD_FRAMES;
        self.recent = Recent::default();
        let (predicted_ms, build_ms) = (self.estimates[self.active].ms, self.builds[self.active]);
        let reason = Reason::Initial { predicted_ms, build_ms, speed_known: measured.speed_known };
        self.push_log(DecisionKind::Initial, self.active, self.active, reason);
        self.active
    }

    /// Before a frame's candidates run, with `features` measured on its boxes: on the second frame after a first
    /// frame that did not know the speed, decide again with the measured speed — the candidate the prior
    /// predicts cheapest over the horizon, its build included, against the active one's steady frames (its
    /// build is paid). After a first frame that had a speed hint, the same on the first decision frame from
    /// [`DECIDE_EVERY`] on when the boxes move more than twice or less than half as fast as the hint said
    /// (`HINT_TOLERANCE`, 2). Returns the candidate that runs cold from this frame on, if it changes.
    /// A newcomer whose build would make the frame hitch (more than `build_beside_from` of the active
    /// candidate's frames) is built beside instead, from the end of this frame, and takes over once ready: on
    /// rapier's avalanche at 10⁴ bodies the dynamic tree chosen on the second frame, built cold, made its first
    /// frames 31× the pinned tree's at the same step.
    ///
    /// Nothing has measured the newcomer yet, so it must pay even at one prior residual above its prediction
    /// (`ms·e^σ`): a candidate the prior fits badly is not built on its point estimate alone. Measured on rapier's
    /// gravity stream at 10⁴ bodies, which starts from rest: the second frame saw a slow scene without pairs,
    /// where `bvh-dynamic` (residual ×/÷ 1.8) is predicted at half of `mbp`, built it for 4.4 ms, and then ran at
    /// 1.3–2× `mbp` as the bodies sped up and met; the probes found `kd` only at frame 96.
    pub fn before_frame(&mut self, features: &Features) -> Option<usize> {
        if !features.speed_known || self.force_every > 0 {
            return None;
        }
        // On the second frame the pair count is the first frame's alone, while the first frame's estimate is the
        // density of the whole scene (sparse samples inflated until they meet, see
        // `FeatureSampler::estimate_pairs_per_body`): bodies created apart on a lattice have no pair yet, and
        // meet within the horizon the choice is made for. Rapier's brownian gas at 10⁵ bodies has none on its
        // first frame and 0.7–1 a body from frame 20 on; the prior at 0 pairs chose `grid` there (2.1× `kd`), and
        // `auto` ran at 1.36× `kd` over 110 frames, 1.13× with the estimate kept. So that estimate is the floor
        // of the second frame's pairs per body; a belied hint is judged on the frame's count alone.
        let (belied, pairs_floor) = match self.redecide {
            Redecide::No => return None,
            Redecide::IfHintWrong(_) if self.frame < DECIDE_EVERY => return None,
            Redecide::IfHintWrong(hint) => {
                (!(hint / HINT_TOLERANCE..=hint * HINT_TOLERANCE).contains(&features.speed_mean), 0.0)
            }
            Redecide::OnMeasuredSpeed => (true, self.features.pairs_per_body),
        };
        self.redecide = Redecide::No;
        if !belied {
            return None;
        }
        self.features = Features { pairs_per_body: features.pairs_per_body.max(pairs_floor), ..*features };
        let features = self.features;
        self.prior_costs(&features);
        self.choose_on_measured_speed()
    }

    /// [`Controller::before_frame`]'s choice, on the prior's estimates and builds for the measured features.
    fn choose_on_measured_speed(&mut self) -> Option<usize> {
        let horizon = f64::from(self.config.min_horizon);
        // Every figure here is the prior's, the active candidate's too (it was picked on a speed the boxes belie,
        // and its first frames were cold): each is charged one residual above its prediction, and the newcomer its
        // build. Charged to the newcomer alone, the residual kept `kd` on `power-law` at 10⁴ bodies, where the
        // prior put `hgrid` at 0.75× it at the measured speed (and it ran at 0.75×).
        let pessimistic = |c: usize| horizon * self.estimates[c].ms * self.estimates[c].sigma.exp();
        let active_cost = pessimistic(self.active);
        let cost = |c: usize| self.builds[c] + pessimistic(c);
        let best = (0..self.names.len()).filter(|&c| c != self.active).min_by(|&a, &b| cost(a).total_cmp(&cost(b)))?;
        if cost(best) >= active_cost * (1.0 - self.config.margin) {
            return None;
        }
        let reason = Reason::SpeedMeasured {
            predicted_ms: self.estimates[best].ms,
            build_ms: self.builds[best],
            active_ms: self.estimates[self.active].ms,
        };
        self.prior_switch = true;
        if self.builds_beside(best) {
            self.hand_over = Some((best, reason));
            return None;
        }
        let from = self.active;
        self.switch_to(best, COLD_FRAMES, Then::Switch);
        self.push_log(DecisionKind::Switch, from, best, reason);
        Some(best)
    }

    /// The runner warm-started candidate `c` (for a probe or a switch) in `ms`.
    pub fn warm_started(&mut self, c: usize, ms: f64) {
        let level = self.level();
        self.model.observe_build(c, &self.features, level, ms);
        if let Job::Probe { candidate, spent_ms, .. } = &mut self.job
            && *candidate == c
        {
            *spent_ms += ms;
        }
    }

    /// A build beside of candidate `c` has finished (its warm start and its catch-up calls took `ms` of its
    /// thread's time): from this frame on it either answers, or runs beside the active one as a probe. Its
    /// first call here gets boxes several frames newer than its last, so the runner drops the frame's motion
    /// hint for it. Returns `true` when `c` answers this frame.
    pub fn built(&mut self, c: usize, ms: f64) -> bool {
        let Job::Build { candidate, then } = self.job else { return false };
        if candidate != c {
            return false;
        }
        let level = self.level();
        self.model.observe_build(c, &self.features, level, ms);
        self.in_sync[c] = true;
        self.last_ran[c] = self.frame;
        match then {
            Then::Probe => {
                self.budget.spend(ms);
                self.job = Job::Probe { candidate: c, times: Pairs::settling(self.settle[c]), spent_ms: ms };
                false
            }
            Then::Switch | Then::Trial => {
                self.job = Job::Idle;
                let from = self.active;
                let e = self.estimates[c];
                let (active_ms, remaining) = (self.estimates[from].ms, self.config.remaining(self.frame));
                let reason = if then == Then::Trial {
                    Reason::Trial { predicted_ms: e.ms, sigma: e.sigma, active_ms, build_ms: ms, remaining }
                } else {
                    Reason::Pays { predicted_ms: e.ms, active_ms, build_ms: ms, remaining }
                };
                // Its catch-up calls ran beside: its next frame is a steady one, worth measuring.
                self.switch_to(c, 0, then);
                self.push_log(DecisionKind::Switch, from, c, reason);
                true
            }
        }
    }

    /// The common level now (see [`CostModel::level`]).
    fn level(&self) -> f64 {
        let active_ms = if self.recent.len > 0 { self.recent.typical() } else { self.estimates[self.active].ms };
        self.model.level(self.active, active_ms, &self.features)
    }

    /// After the active candidate answered a frame whose features are `features` in `active_ms`; the probed
    /// candidate (if any) ran the same frame in `probe_ms`; the sampled probe (if any) ran its frame `sample`:
    /// learn, and say what to do.
    pub fn after_frame(
        &mut self,
        features: &Features,
        active_ms: f64,
        probe_ms: Option<f64>,
        sample: Option<SampleFrame>,
    ) -> Order {
        self.features = *features;
        match (&mut self.job, probe_ms, sample) {
            (Job::Probe { times, spent_ms, candidate }, Some(ms), _) => {
                times.push(ms, active_ms);
                *spent_ms += ms;
                self.last_ran[*candidate] = self.frame;
            }
            (Job::Sample { times, spent_ms, bodies, pairs, candidate, .. }, _, Some(frame)) => {
                times.push(frame.probe_ms, frame.active_ms);
                *spent_ms += frame.probe_ms + frame.active_ms + frame.extra_ms;
                *bodies = frame.bodies;
                *pairs += frame.pairs as u64;
                self.last_ran[*candidate] = self.frame;
            }
            _ => {}
        }
        let cold = self.learn(active_ms);
        self.judge_trial(features);
        self.estimate_all(features);
        let order = self.decide(cold);
        self.frame += 1;
        order
    }

    /// `true` when the next frame needs its features measured and a decision: the first two frames, every
    /// [`DECIDE_EVERY`]-th, and every frame while a probe, a sampled probe or a build runs. On the others the
    /// runner calls [`Controller::quiet_frame`] and skips the features: a scene does not change in four frames,
    /// and the selector's own work then stays a sliver of the cheapest candidate's frame (a dynamic tree's
    /// 15 µs in a slow drift of 10⁴ bodies).
    #[must_use]
    pub fn wants_features(&self) -> bool {
        !matches!(self.job, Job::Idle)
            || self.frame < 2
            || self.frame.is_multiple_of(DECIDE_EVERY)
            || self.force_every > 0
    }

    /// A frame without features or decision (see [`Controller::wants_features`]): the active candidate answered
    /// in `active_ms`.
    pub fn quiet_frame(&mut self, active_ms: f64) {
        let _ = self.learn(active_ms);
        self.frame += 1;
    }

    /// Learn from the active candidate's frame; `true` while its frames are cold.
    fn learn(&mut self, active_ms: f64) -> bool {
        self.last_ran[self.active] = self.frame;
        let cold = self.cold > 0;
        if cold {
            self.cold -= 1;
        } else {
            self.watch_for_jump(active_ms);
            self.recent.push(active_ms);
            self.budget.tick(active_ms, self.config.probe_share);
        }
        cold
    }

    /// An idle candidate whose memory may be freed now: not active, not in a job, not in sync, holding memory,
    /// and not run for `free_after` frames. The runner drops its instance (it is made again if ever needed).
    pub fn take_expired(&mut self) -> Option<usize> {
        let busy = match self.job {
            Job::Idle => None,
            Job::Probe { candidate, .. } | Job::Sample { candidate, .. } | Job::Build { candidate, .. } => {
                Some(candidate)
            }
        };
        let after = u64::from(self.config.free_after);
        let c = (0..self.names.len()).find(|&c| {
            c != self.active
                && busy != Some(c)
                && !self.in_sync[c]
                && self.holding[c]
                && self.frame.saturating_sub(self.last_ran[c]) > after
        })?;
        self.holding[c] = false;
        let reason = Reason::Idle { frames: self.frame - self.last_ran[c] };
        self.push_log(DecisionKind::Free, self.active, c, reason);
        Some(c)
    }

    /// A trial begun on a thin sample, once the newcomer has steady frames: learn its ratio to the candidate it left
    /// from the two whole-scene typical frames. Nothing else measured that pair (the sample was not learned, and the
    /// newcomer's prior offset says nothing of its level), so without this a newcomer the prior flattered could
    /// keep the left one estimated dearer than it ran.
    fn judge_trial(&mut self, features: &Features) {
        let Some((left, left_ms)) = self.on_trial else { return };
        if self.cold > 0 || self.recent.len < MIN_RECENT {
            return;
        }
        self.on_trial = None;
        let active_ms = self.recent.typical();
        let features = Self::first_features(features);
        self.model.observe_probe(left, self.active, &features, self.frame, left_ms, active_ms);
        self.push_log(DecisionKind::Measured, left, self.active, Reason::TrialMeasured { active_ms, left_ms });
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
            // The scene changed under the active candidate: what the samples said no longer holds.
            self.last_sampled.iter_mut().for_each(|s| *s = None);
            self.thin.iter_mut().for_each(|t| *t = false);
            self.on_trial = None;
        }
    }

    /// Every candidate's estimate for `features`: the active one's is its measured typical frame, the others'
    /// are predicted relative to it (see [`CostModel`]). Before the active candidate has a steady frame, the
    /// prior's milliseconds stand in for its measurement.
    fn estimate_all(&mut self, features: &Features) {
        let features = Self::first_features(features);
        self.model.prepare(&features);
        let measured = self.recent.len > 0;
        let active_ms = if measured { self.recent.typical() } else { self.model.base(self.active, &features).0 };
        let level = self.model.level(self.active, active_ms, &features);
        for c in 0..self.names.len() {
            self.estimates[c] = if c == self.active {
                Estimate { ms: active_ms, sigma: 0.0, measured }
            } else {
                self.model.predict(c, self.active, active_ms, &features, self.frame)
            };
            self.builds[c] = self.model.build(c, &features, level);
        }
    }

    fn decide(&mut self, cold: bool) -> Order {
        if self.force_every > 0 && self.names.len() > 1 {
            return self.decide_forced();
        }
        if matches!(self.job, Job::Idle)
            && let Some((c, reason)) = self.hand_over.take()
        {
            return self.start_build(c, Then::Switch, reason);
        }
        match self.job {
            Job::Probe { times, .. } if times.done(self.config.probe_frames - 1) || times.hopeless() => {
                return self.finish_probe();
            }
            Job::Sample { times, .. } if times.done(self.config.sample_frames - 1) => {
                self.finish_sample();
            }
            Job::Idle => {}
            _ => return Order::Stay,
        }
        if cold || self.cooling() || self.recent.len < MIN_RECENT {
            return Order::Stay;
        }
        self.choose()
    }

    /// `true` within `cooldown` frames of the last switch decided on a measurement (see `cool_from`).
    fn cooling(&self) -> bool {
        self.cool_from.is_some_and(|s| self.frame < s + u64::from(self.config.cooldown))
    }

    /// Forced-switch mode (testing): every `force_every` frames the next candidate takes over — through a probe
    /// when there is room for one before the next hand-over (so probes are under test too), else warm at once.
    fn decide_forced(&mut self) -> Order {
        if let Job::Probe { candidate, times, spent_ms } = self.job
            && times.done(self.config.probe_frames - 1)
        {
            self.job = Job::Idle;
            self.budget.spend(spent_ms);
            let from = self.active;
            self.switch_to(candidate, 0, Then::Switch);
            self.push_log(DecisionKind::Forced, from, candidate, Reason::Forced);
            return Order::Switch { to: candidate, warm: false };
        }
        if !matches!(self.job, Job::Idle) || !(self.frame + 1).is_multiple_of(self.force_every) {
            return Order::Stay;
        }
        let to = (self.active + 1) % self.names.len();
        // With `build_beside_from` 0 every build goes beside, the forced hand-overs included (tests drive the
        // builder's thread and its stale hand-overs this way).
        let beside = self.config.build_beside_from == 0.0;
        if self.force_every > u64::from(self.config.probe_frames) {
            if beside {
                return self.start_build(to, Then::Probe, Reason::Forced);
            }
            return self.start_probe(to, Reason::Forced);
        }
        if beside && !self.in_sync[to] {
            return self.start_build(to, Then::Switch, Reason::Forced);
        }
        let (from, warm) = (self.active, !self.in_sync[to]);
        self.switch_to(to, if warm { COLD_FRAMES } else { 0 }, Then::Switch);
        self.push_log(DecisionKind::Forced, from, to, Reason::Forced);
        Order::Switch { to, warm }
    }

    /// The margin to beat for switching to `c`: doubled for going back to the previous candidate soon after
    /// leaving it.
    fn margin_for(&self, c: usize) -> f64 {
        let back_soon = self.previous == Some(c)
            && self.last_switch.is_some_and(|s| self.frame < s + u64::from(self.config.thrash_window));
        if back_soon { 2.0 * self.config.margin } else { self.config.margin }
    }

    /// What a frame of `c` beside the active candidate may cost, for the hitch guard: its estimate, or the prior's
    /// own milliseconds if more. An estimate is relative to the active candidate, so when the prior is far off
    /// for the active one (the dynamic tree at 0.015 ms where the prior said 0.14), every estimate inherits its
    /// error; the prior's absolute figure for `c` is not tied to it.
    fn probe_frame_ms(&self, c: usize) -> f64 {
        self.estimates[c].ms.max(self.model.base(c, &Self::first_features(&self.features)).0)
    }

    /// `c`'s build if it took over now (0 when it is in sync).
    fn build_of(&self, c: usize) -> f64 {
        if self.in_sync[c] { 0.0 } else { self.builds[c] }
    }

    /// `true` when `c`'s build would make the frame it lands in hitch: it is then made beside.
    fn builds_beside(&self, c: usize) -> bool {
        self.build_of(c) > self.config.build_beside_from * self.estimates[self.active].ms
    }

    /// The frame's decision when nothing is in progress: switch to a candidate cheaper beyond doubt whose switch
    /// pays; else probe whole the one the model places within the margin; else measure on a sample the one that
    /// could be cheaper.
    fn choose(&mut self) -> Order {
        let active_ms = self.estimates[self.active].ms;
        let (count, active) = (self.names.len(), self.active);
        let others = move || (0..count).filter(move |&c| c != active);
        let verdict = |s: &Self, c: usize| Verdict::of(&s.estimates[c], active_ms, s.margin_for(c));
        let by = |key: fn(&Estimate) -> f64| {
            move |s: &Self, a: &usize, b: &usize| key(&s.estimates[*a]).total_cmp(&key(&s.estimates[*b]))
        };

        // 1. Cheaper beyond doubt on a measurement, and the switch pays for its build.
        let pessimistic = |e: &Estimate| e.ms * e.sigma.exp();
        let sure = others()
            .filter(|&c| self.estimates[c].measured && verdict(self, c) == Verdict::Cheaper)
            .filter(|&c| self.config.pays(self.frame, active_ms, pessimistic(&self.estimates[c]), self.build_of(c)))
            .min_by(|a, b| by(pessimistic)(self, a, b));
        if let Some(c) = sure {
            let e = self.estimates[c];
            let build_ms = self.build_of(c);
            let remaining = self.config.remaining(self.frame);
            let reason = Reason::Pays { predicted_ms: e.ms, active_ms, build_ms, remaining };
            return self.take_over(c, Then::Switch, reason);
        }

        // 2. Within the margin's reach on a fresh measurement (or, on a small scene, unsure): a whole probe.
        let small = self.features.n < self.config.sample_from;
        let probe_cost = |s: &Self, c: usize| {
            s.build_of(c) + f64::from(s.config.probe_frames + s.settle[c] - 1) * s.estimates[c].ms.max(active_ms)
        };
        let reachable = |s: &Self, c: usize| {
            let e = s.estimates[c];
            let fresh = (e.measured && e.sigma <= RESAMPLE_SIGMA) || s.thin[c];
            let within = match verdict(s, c) {
                Verdict::Maybe => fresh || (small && e.sigma > REPROBE_SIGMA),
                Verdict::Cheaper | Verdict::Unlikely => s.thin[c] || (small && e.sigma > REPROBE_SIGMA),
                Verdict::No => false,
            };
            within && s.config.pays(s.frame, active_ms, e.optimistic(), probe_cost(s, c))
        };
        let whole = others()
            .filter(|&c| reachable(self, c))
            .filter(|&c| self.probe_frame_ms(c) <= PROBE_FRAME_SHARE * active_ms)
            .min_by(|a, b| by(Estimate::optimistic)(self, a, b));
        if let Some(c) = whole {
            let cost = probe_cost(self, c);
            let saving = (active_ms - self.estimates[c].ms) * self.config.remaining(self.frame);
            if self.budget.allows(cost, saving, active_ms) {
                let e = self.estimates[c];
                let reason = Reason::Probe { predicted_ms: e.ms, sigma: e.sigma, active_ms };
                if self.builds_beside(c) {
                    return self.start_build(c, Then::Probe, reason);
                }
                return self.start_probe(c, reason);
            }
        }
        // No whole probe affordable (or none without a hitch beside the active one): when a fresh sample already
        // places a candidate within the margin and the switch pays on the saving it predicts, switching is the
        // cheaper test. Its build is paid once either way (a whole probe builds it too), and its own frames then
        // measure it. If it proves no cheaper, the candidate left behind is measured and comes back by rule 1 with
        // the plain margin (see `Then::Trial`), and it is measured too, so it is not tried again. At 10⁵ bodies of
        // rapier's gravity stream a sample put kd at 7.75 ms against the grid's 9.14, but its whole probe (a 20 ms
        // build and four 8 ms frames beside) was never affordable at 3% of a frame, and the grid ran on. The hitch
        // guard is a probe's, which runs beside the active candidate; a trial runs instead of it. (It kept kd from a
        // trial in rapier's avalanche at 10⁴ bodies, sampled at 0.63 ms against the dynamic tree's 0.80 at frame
        // 130, because the prior's own figure for kd there was above 0.80.)
        //
        // Cheaper at the sample's point estimate, beyond the margin; a candidate that settles over several calls
        // (the dynamic tree) must be so with half its uncertainty against it. Its sample flatters it even after its
        // settling calls — a tree of a thousand bodies is shallow — at 0.73× `hgrid` on rapier's pile at 10⁴
        // bodies, where it ran at 0.9× (and at 1.7× `kd`, which the trial had left); the others' samples, with the
        // scouts taking turns at running first, are off either way by a few percent. (Half the uncertainty was held
        // against every candidate while the sampled one always ran second on the sample, which flattered it by a
        // fifth.)
        let likely = |s: &Self, c: usize| {
            let e = s.estimates[c];
            if s.settle[c] > 1 { e.ms * (0.5 * e.sigma).exp() } else { e.ms }
        };
        //
        // A candidate whose sample was thin (see [`THIN_SAMPLE`]) is tried on the prior's figure, as a fresh sample's
        // would be: its sample cannot tell either way, and a trial's own frames can (see `judge_trial`). Failing
        // that, one only the prior has measured, which settles at once, is tried when half its uncertainty in its
        // favour beats the margin and that saving would pay its build: a wrong trial costs the build and a few
        // frames, and nothing else can tell it apart from the active one. On `power-law` at 10⁴ bodies the prior put
        // `hgrid` within 3% of `grid`, which it ran at 0.8× (thin samples both); the dynamic tree, at 1.45 ms
        // ×/÷ 1.79 beside `hgrid`'s 1.10, is not tried on that hope (it ran at 2.3×).
        //
        // The figure a candidate is tried on, if it is: its estimate, or that hope.
        let tried_on = |s: &Self, c: usize| {
            let e = s.estimates[c];
            let beats = |ms: f64| {
                ms < active_ms * (1.0 - s.margin_for(c)) && s.config.pays(s.frame, active_ms, ms, s.build_of(c))
            };
            let sampled = e.measured && e.sigma <= RESAMPLE_SIGMA && verdict(s, c) == Verdict::Maybe;
            let thin = s.thin[c] && matches!(verdict(s, c), Verdict::Maybe | Verdict::Cheaper);
            let hoped = e.ms * (-0.5 * e.sigma).exp();
            if (sampled || thin) && beats(likely(s, c)) {
                Some(e.ms)
            } else if s.thin[c] && !e.measured && s.settle[c] <= 1 && beats(hoped) {
                Some(hoped)
            } else {
                None
            }
        };
        let trial = others()
            .filter(|&c| reachable(self, c))
            .filter_map(|c| tried_on(self, c).map(|ms| (c, ms)))
            .min_by(|a, b| likely(self, a.0).total_cmp(&likely(self, b.0)));
        if let Some((c, predicted_ms)) = trial {
            let e = self.estimates[c];
            let build_ms = self.build_of(c);
            let remaining = self.config.remaining(self.frame);
            let reason = Reason::Trial { predicted_ms, sigma: e.sigma, active_ms, build_ms, remaining };
            return self.take_over(c, Then::Trial, reason);
        }
        // A sampled probe (cheaper) may still be affordable.

        // 3. Could be cheaper and not measured lately (or never in this regime): a sampled probe. 4. With the budget
        // comfortable, any candidate never measured in this regime within reach: a prior that is confidently
        // wrong is found out this way, a sample at a time.
        if small {
            return Order::Stay;
        }
        let unmeasured = |e: &Estimate| !e.measured || e.sigma > RESAMPLE_SIGMA;
        let share = self.config.sample_share.max(MIN_SAMPLE_BODIES as f64 / self.features.n.max(1) as f64);
        let frame = self.frame;
        let sampleable = |s: &Self, c: usize| {
            s.last_sampled[c].is_none_or(|at| frame >= at.frame + RESAMPLE_GAP || at.outdated(active, active_ms))
                && share * (s.probe_frame_ms(c) + active_ms) <= PROBE_FRAME_SHARE * active_ms
        };
        let sample_cost = |s: &Self, c: usize| {
            share * (s.estimates[c].ms + active_ms) * f64::from(s.config.sample_frames + s.sample_settle(c))
        };
        // A loan is for a saving the model expects, not one it only hopes for.
        let affordable = |s: &Self, c: usize| {
            let saving = (active_ms - s.estimates[c].ms).max(0.0) * s.config.remaining(s.frame);
            s.budget.allows(sample_cost(s, c), saving, active_ms)
        };
        // The most promising candidate the budget affords: one whose sample is dear (the dynamic tree's runs its
        // six settling calls first) does not hold back a cheaper sample while the budget saves up for it. At 10⁴
        // bodies of rapier's gravity pile, the dynamic tree waiting for its second sample kept kd (0.55× `mbp`
        // there) unsampled for 150 frames.
        let promising = others()
            .filter(|&c| sampleable(self, c))
            .filter(|&c| verdict(self, c) != Verdict::No && unmeasured(&self.estimates[c]))
            .filter(|&c| self.config.pays(self.frame, active_ms, self.estimates[c].optimistic(), self.build_of(c)))
            .filter(|&c| affordable(self, c))
            .min_by(|a, b| by(Estimate::optimistic)(self, a, b));
        let explore = || {
            others()
                .filter(|&c| sampleable(self, c))
                .filter(|&c| !self.estimates[c].measured && self.estimates[c].ms < EXPLORE_REACH * active_ms)
                .min_by(|a, b| by(|e| e.ms)(self, a, b))
                .filter(|&c| self.budget.tokens_ms() >= EXPLORE_BUDGET_SAMPLES * sample_cost(self, c))
        };
        let Some(c) = promising.or_else(explore) else { return Order::Stay };
        let e = self.estimates[c];
        self.start_sample(c, Reason::Sample { predicted_ms: e.ms, sigma: e.sigma, active_ms })
    }

    /// The settling frames of a sampled probe of `c`: both scouts are built on the sample, so it runs until the
    /// slower of the two to settle has.
    fn sample_settle(&self, c: usize) -> u32 {
        self.settle[c].max(self.settle[self.active])
    }

    fn start_sample(&mut self, c: usize, reason: Reason) -> Order {
        let times = Pairs::settling(self.sample_settle(c));
        let active_ms = self.recent.typical();
        self.job = Job::Sample { candidate: c, times, spent_ms: 0.0, bodies: 0, pairs: 0, active_ms };
        self.probes += 1;
        self.last_ran[c] = self.frame;
        self.holding[c] = true;
        self.push_log(DecisionKind::Sample, self.active, c, reason);
        Order::Sample(c)
    }

    fn start_probe(&mut self, c: usize, reason: Reason) -> Order {
        self.thin[c] = false;
        self.in_sync[c] = true;
        self.holding[c] = true;
        self.last_ran[c] = self.frame;
        self.probes += 1;
        self.job = Job::Probe { candidate: c, times: Pairs::settling(self.settle[c]), spent_ms: 0.0 };
        self.push_log(DecisionKind::Probe, self.active, c, reason);
        Order::Probe(c)
    }

    fn start_build(&mut self, c: usize, then: Then, reason: Reason) -> Order {
        self.holding[c] = true;
        self.last_ran[c] = self.frame;
        if then == Then::Probe {
            self.probes += 1;
        }
        self.job = Job::Build { candidate: c, then };
        self.push_log(DecisionKind::Build, self.active, c, reason);
        Order::BuildBeside(c)
    }

    /// `c` takes over (`then` is a switch or a trial): built beside first when its build would make a frame
    /// hitch, else now, its first frames cold unless it was in sync.
    fn take_over(&mut self, c: usize, then: Then, reason: Reason) -> Order {
        if self.builds_beside(c) {
            return self.start_build(c, then, reason);
        }
        let (from, warm) = (self.active, !self.in_sync[c]);
        self.switch_to(c, if warm { COLD_FRAMES } else { 0 }, then);
        self.push_log(DecisionKind::Switch, from, c, reason);
        Order::Switch { to: c, warm }
    }

    /// Make `to` the active candidate (by `how`: after a trial the candidate left is not guarded by the doubled
    /// margin); its next `cold` frames teach nothing.
    fn switch_to(&mut self, to: usize, cold: u32, how: Then) {
        let from = self.active;
        let thin_trial = how == Then::Trial && self.thin[to] && self.recent.len > 0;
        self.on_trial = thin_trial.then(|| (from, self.recent.typical()));
        self.thin[to] = false;
        self.in_sync[from] = false;
        self.in_sync[to] = true;
        self.holding[to] = true;
        self.last_ran[to] = self.frame;
        self.active = to;
        self.recent = Recent::default();
        self.cold = cold;
        self.jump = 0;
        self.switches += 1;
        self.last_switch = Some(self.frame);
        self.cool_from = if std::mem::take(&mut self.prior_switch) { self.cool_from } else { Some(self.frame) };
        self.previous = if how == Then::Trial { None } else { Some(from) };
    }

    /// The sampled probe has run its frames: the model learns the ratio it measured.
    fn finish_sample(&mut self) {
        let Job::Sample { candidate: c, times, spent_ms, bodies, pairs, active_ms: at_start } = self.job else {
            return;
        };
        self.job = Job::Idle;
        self.budget.spend(spent_ms);
        let (probe_mean, active_mean) = times.means();
        let sample_ppb = pairs as f64 / (bodies * times.frames).max(1) as f64;
        let active_ms = self.recent.typical().max(1e-9);
        let features = Self::first_features(&self.features);
        // The active candidate is judged old beside its scout (see `CostModel::observe_sample`) only when it
        // settles over several calls, and only on a steady frame: one that moved by more than a sample's
        // uncertainty while the sample ran is the scene changing (rapier's free-fall pile falling asleep at 10⁴
        // bodies took the dynamic tree from 0.6 ms to 5.7 for a dozen frames), not the structure's age.
        let settles = self.settle[self.active] > 1 && !moved_beyond_a_sample(at_start.max(1e-9), active_ms);
        let times = (probe_mean, active_mean);
        let before = self.estimates[c].ms;
        let saved = self.model.snapshot(c, self.active, &features);
        self.model.observe_sample(c, self.active, &features, bodies, self.frame, times, active_ms, settles);
        self.last_sampled[c] = Some(LastSample { frame: self.frame, active: self.active, active_ms });
        self.estimate_all(&features);
        // A thin sample (see `THIN_SAMPLE`) is not learned when it makes the candidate dearer than the model had it:
        // the candidate keeps its figure and may be tried on it, and its trial's whole frames tell. One that makes
        // it cheaper is learned, as any sample: a trial it leads to is judged on whole frames too.
        let scene_ppb = self.features.pairs_per_body;
        let judged = scene_ppb * bodies as f64 >= THIN_JUDGED_FROM;
        if judged && sample_ppb < THIN_SAMPLE * scene_ppb {
            let sampled_ms = self.estimates[c].ms;
            if sampled_ms > before {
                self.model.restore(saved);
                self.estimate_all(&features);
            }
            self.thin[c] = true;
            let reason = Reason::Thin {
                probe_ms: probe_mean,
                active_sample_ms: active_mean,
                bodies,
                sample_pairs_per_body: sample_ppb,
                scene_pairs_per_body: scene_ppb,
                sampled_ms,
                predicted_ms: self.estimates[c].ms,
            };
            self.push_log(DecisionKind::Sampled, self.active, c, reason);
            return;
        }
        self.thin[c] = false;
        let reason = Reason::Sampled {
            probe_ms: probe_mean,
            active_sample_ms: active_mean,
            bodies,
            predicted_ms: self.estimates[c].ms,
            active_ms: self.estimates[self.active].ms,
        };
        self.push_log(DecisionKind::Sampled, self.active, c, reason);
    }

    /// The full probe has run its frames (or shown it cannot win): learn from it, then switch or stay.
    fn finish_probe(&mut self) -> Order {
        let Job::Probe { candidate: c, times, spent_ms } = self.job else { return Order::Stay };
        self.job = Job::Idle;
        self.budget.spend(spent_ms);
        let (probe_cost, active_cost) = times.means();
        let features = Self::first_features(&self.features);
        self.model.observe_probe(c, self.active, &features, self.frame, probe_cost, active_cost);
        let cheaper = probe_cost < active_cost * (1.0 - self.margin_for(c));
        if cheaper && self.config.pays(self.frame, active_cost, probe_cost, 0.0) {
            let from = self.active;
            self.estimates[c] = Estimate { ms: probe_cost, sigma: MEASURED_SIGMA, measured: true };
            self.switch_to(c, 0, Then::Switch);
            self.push_log(
                DecisionKind::Switch,
                from,
                c,
                Reason::Confirmed { probe_ms: probe_cost, active_ms: active_cost },
            );
            return Order::Switch { to: c, warm: false };
        }
        self.in_sync[c] = false;
        let reason = Reason::Rejected { probe_ms: probe_cost, active_ms: active_cost };
        self.push_log(DecisionKind::Reject, self.active, self.active, reason);
        Order::Stay
    }

    /// Bodies were added or removed: a probe, sampled probe or build in progress is dropped (its candidate can no
    /// longer follow), only the active candidate (which the runner tells) stays in sync, and its next frames are
    /// cold. Returns the candidate whose build beside is abandoned, if any (its result must be discarded).
    ///
    /// Not for a permutation (the simulation's spatial reorder): there every candidate in sync, the probed one, the
    /// sampled pair and the build beside follow it (see [`crate::Selector`]'s `on_resize`), so the controller is
    /// not told at all — its job, its timing history and its decisions carry on, with no cold frame.
    pub fn resized(&mut self) -> Option<usize> {
        let abandoned = match std::mem::replace(&mut self.job, Job::Idle) {
            Job::Idle => None,
            Job::Probe { candidate, spent_ms, .. } | Job::Sample { candidate, spent_ms, .. } => {
                self.budget.spend(spent_ms);
                Some(candidate)
            }
            Job::Build { candidate, .. } => Some(candidate),
        };
        if let Some(c) = abandoned {
            let reason = Reason::Rejected { probe_ms: f64::NAN, active_ms: f64::NAN };
            self.push_log(DecisionKind::Abandon, self.active, c, reason);
        }
        for (c, s) in self.in_sync.iter_mut().enumerate() {
            *s = c == self.active;
        }
        self.recent = Recent::default();
        self.cold = COLD_FRAMES;
        self.jump = 0;
        self.on_trial = None;
        self.prior_switch = false;
        abandoned
    }

    /// Forget the scene: the job, the policy's history, the features and what the model learned of this scene
    /// (the prior stays); the next frame chooses afresh.
    pub fn reset(&mut self) {
        self.job = Job::Idle;
        self.in_sync.iter_mut().for_each(|s| *s = false);
        self.recent = Recent::default();
        self.budget = Budget::default();
        self.model.forget();
        self.features = Features::default();
        self.started = false;
        self.redecide = Redecide::No;
        self.hand_over = None;
        self.cold = 0;
        self.jump = 0;
        self.last_switch = None;
        self.cool_from = None;
        self.prior_switch = false;
        self.previous = None;
        self.last_sampled.iter_mut().for_each(|s| *s = None);
        self.thin.iter_mut().for_each(|t| *t = false);
        self.on_trial = None;
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
        match self.job {
            Job::Probe { candidate, .. } if !self.in_sync[candidate] => {
                Err(format!("probing {}, which is not in sync", self.names[candidate]))
            }
            Job::Probe { candidate, .. } | Job::Sample { candidate, .. } | Job::Build { candidate, .. }
                if candidate == self.active =>
            {
                Err(format!("a job on the active candidate {}", self.names[candidate]))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
