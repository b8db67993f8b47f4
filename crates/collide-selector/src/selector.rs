//! [`Selector`]: the meta-broadphase itself — the candidates, the timing, the probes and the switches.

use crate::features::{FeatureSampler, Features};
use crate::log::{Decision, DecisionKind, DecisionLog, MAX_CANDIDATES, Predictions};
use crate::model::{CostModel, Estimate, Prior};
use crate::policy::{Action, Policy, PolicyConfig, Reason};
use collide_broadphase::{
    AlgorithmDescriptor, Broadphase, DebugGeometry, Frame, Pair, PairList, ParamSpec, Params, Resize, Stats,
};
use std::time::Instant;

/// The registry name of the meta-broadphase.
pub const NAME: &str = "auto";

/// Registry names that are never candidates: the O(n²) oracle, pair counting (quadratic memory), and the
/// meta-broadphase itself.
pub const EXCLUDED: &[&str] = &["brute", "pair-count", NAME];

/// The parameters of `auto`.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::algorithms(
        "candidates",
        "the algorithms auto chooses from (default: every registered one but brute and pair-count)",
        EXCLUDED,
    ),
    ParamSpec::number("margin", "a candidate must be this much cheaper to take over (0.1 = 10%)", 0.1, 0.0, 0.9),
    ParamSpec::integer("cooldown", "frames after a switch before the next decision", 12.0, 0.0, 100_000.0),
    ParamSpec::number("probe_share", "the most probes may cost, as a share of the broadphase's time", 0.05, 0.0, 0.5),
    ParamSpec::integer(
        "force_every",
        "testing: switch to the next candidate every k frames, warm, whatever it costs (0 = off)",
        0.0,
        0.0,
        1_000_000.0,
    ),
];

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
const MAX_PROBE_FRAMES: usize = 8;
/// The normalised speed the first frame's choice assumes: a tenth of a box per frame, between a slow drift
/// (0.01) and the thesis's scene (0.5).
const INITIAL_SPEED: f64 = 0.1;
/// The pairs per body the first frame's choice assumes: a sparse scene.
const INITIAL_PAIRS_PER_BODY: f64 = 0.5;
/// Frames of a candidate that took over cold (the first frame, after a reset, after a warm switch without a
/// probe) that teach nothing: its buffers are being allocated and its caches filled, and the first frame of
/// an octree costs four of its steady frames. Neither the model nor the policy sees them.
const COLD_FRAMES: u32 = 2;

/// A candidate: a registry name and an instance.
pub struct Candidate {
    /// The registry name.
    pub name: &'static str,
    /// The instance the selector runs.
    pub broadphase: Box<dyn Broadphase>,
}

/// What the selector did over its life, in ms of wall time (for the summary and the overhead check).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Frames (calls of `find_pairs`).
    pub frames: u64,
    /// Time the active candidates took.
    pub active_ms: f64,
    /// Time probes took: warm starts and side-by-side frames.
    pub probe_ms: f64,
    /// The selector's own time: features, model, policy, log.
    pub overhead_ms: f64,
    /// Switches made (forced ones included).
    pub switches: u64,
    /// Probes started.
    pub probes: u64,
}

/// One candidate's share of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateReport {
    /// The registry name.
    pub name: &'static str,
    /// Frames it was the active candidate.
    pub frames: u64,
    /// Time it took as the active candidate, ms.
    pub ms: f64,
    /// Probes of it.
    pub probes: u64,
    /// Time its probes took, ms.
    pub probe_ms: f64,
    /// The model's prediction this frame (for the active one: its recent median times its spike factor).
    pub estimate: Estimate,
    /// `true` for the active candidate.
    pub active: bool,
    /// `true` while it is being probed.
    pub probing: bool,
}

struct Slot {
    name: &'static str,
    broadphase: Box<dyn Broadphase>,
    /// `true` when it has seen every frame since its last warm start, so it can take over without one.
    in_sync: bool,
    frames: u64,
    ms: f64,
    probes: u64,
    probe_ms: f64,
    /// Its last warm start's cost, ms.
    warm_ms: Option<f64>,
    /// How much its mean frame exceeds its typical (median) frame when it runs: 1 for an algorithm whose
    /// frames all cost alike, more for one with its own expensive frames (see [`SPIKE_CLIP`]). Costs are
    /// compared as typical frame × spike factor: robust to frames the machine stalled, and still charging an
    /// algorithm for the frames that are its own fault.
    spike: f64,
}

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

/// A puffin scope with the `profile` feature, nothing without it.
macro_rules! scope {
    ($name:expr, $data:expr) => {
        #[cfg(feature = "profile")]
        puffin::profile_scope!($name, $data);
    };
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The meta-broadphase: runs one candidate at a time, measures it, predicts the others, probes and switches.
/// Registry name `auto`. See the crate docs for the design.
pub struct Selector {
    slots: Vec<Slot>,
    names: Vec<&'static str>,
    /// The candidate that runs next frame.
    active: usize,
    /// The candidate that answered the last frame (it differs from `active` right after a switch).
    answered: usize,
    policy: Policy,
    model: CostModel,
    sampler: FeatureSampler,
    log: DecisionLog,
    probe: Option<Probe>,
    probe_frames: usize,
    recent: Recent,
    /// Where probes write their pairs, which nobody reads.
    scratch: PairList,
    force_every: u64,
    /// Calls of `find_pairs` so far.
    frame: u64,
    /// `false` until the first frame chose a candidate (again after a reset).
    started: bool,
    /// Frames left before the active candidate's times count (see [`COLD_FRAMES`]).
    cold: u32,
    totals: Totals,
    /// This frame's estimates, per candidate (the active one's is its measured median).
    estimates: Vec<Estimate>,
    warm_ms: Vec<Option<f64>>,
}

impl Selector {
    /// A selector over `candidates`, with the policy's knobs, the prior, and forced switching every
    /// `force_every` frames (0: off). Panics on no candidates or more than [`MAX_CANDIDATES`].
    #[must_use]
    pub fn new(candidates: Vec<Candidate>, policy: PolicyConfig, prior: Prior, force_every: u64) -> Self {
        assert!(
            (1..=MAX_CANDIDATES).contains(&candidates.len()),
            "a selector needs 1 to {MAX_CANDIDATES} candidates, got {}",
            candidates.len()
        );
        assert!(policy.probe_frames as usize <= MAX_PROBE_FRAMES && policy.probe_frames > 0);
        let names: Vec<&'static str> = candidates.iter().map(|c| c.name).collect();
        let n = names.len();
        Self {
            slots: candidates
                .into_iter()
                .map(|c| Slot {
                    name: c.name,
                    broadphase: c.broadphase,
                    in_sync: false,
                    frames: 0,
                    ms: 0.0,
                    probes: 0,
                    probe_ms: 0.0,
                    warm_ms: None,
                    spike: 1.0,
                })
                .collect(),
            model: CostModel::new(prior, &names),
            names,
            active: 0,
            answered: 0,
            policy: Policy::new(policy, n),
            sampler: FeatureSampler::new(),
            log: DecisionLog::default(),
            probe: None,
            probe_frames: policy.probe_frames as usize,
            recent: Recent::default(),
            scratch: PairList::new(),
            force_every,
            frame: 0,
            started: false,
            cold: 0,
            totals: Totals::default(),
            estimates: vec![Estimate::default(); n],
            warm_ms: vec![None; n],
        }
    }

    /// Build from the registry `table` (handed in, so this crate needs no dependency on the registry) and
    /// resolved [`PARAMS`]: every candidate named by `candidates` (default: every row not in [`EXCLUDED`]),
    /// each with its default parameters, on the built-in prior.
    #[must_use]
    pub fn from_params(table: &'static [AlgorithmDescriptor], params: &Params) -> Self {
        let chosen = params.algorithms("candidates");
        let candidates = table
            .iter()
            .filter(|d| if chosen.is_empty() { !EXCLUDED.contains(&d.name) } else { chosen.contains(&d.name) })
            .map(|d| Candidate { name: d.name, broadphase: d.build_default() })
            .collect();
        let policy = PolicyConfig {
            margin: params.get("margin"),
            cooldown: params.get("cooldown") as u32,
            probe_share: params.get("probe_share"),
            ..PolicyConfig::default()
        };
        Self::new(candidates, policy, Prior::builtin(), params.get("force_every") as u64)
    }

    /// The registry name of the candidate that runs next frame (right after a switch, the newcomer; the one that
    /// answered the last frame is [`Broadphase::active_name`]).
    #[must_use]
    pub fn active(&self) -> &'static str {
        self.names[self.active]
    }

    /// The candidate being probed, if any.
    #[must_use]
    pub fn probing(&self) -> Option<&'static str> {
        self.probe.map(|p| self.names[p.candidate])
    }

    /// The candidates' names, in the selector's order.
    #[must_use]
    pub fn candidate_names(&self) -> &[&'static str] {
        &self.names
    }

    /// Every candidate's share of the run and this frame's prediction.
    pub fn candidates(&self) -> impl Iterator<Item = CandidateReport> + '_ {
        self.slots.iter().enumerate().map(|(c, s)| CandidateReport {
            name: s.name,
            frames: s.frames,
            ms: s.ms,
            probes: s.probes,
            probe_ms: s.probe_ms,
            estimate: self.estimates[c],
            active: c == self.active,
            probing: self.probe.is_some_and(|p| p.candidate == c),
        })
    }

    /// The decision log.
    #[must_use]
    pub fn decisions(&self) -> &DecisionLog {
        &self.log
    }

    /// The last frame's features.
    #[must_use]
    pub fn features(&self) -> &Features {
        self.sampler.last()
    }

    /// The totals so far.
    #[must_use]
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The cost model (its prior says where it was calibrated).
    #[must_use]
    pub fn model(&self) -> &CostModel {
        &self.model
    }

    /// The policy's knobs.
    #[must_use]
    pub fn policy(&self) -> &PolicyConfig {
        self.policy.config()
    }

    fn log(&mut self, kind: DecisionKind, from: usize, to: usize, reason: Reason) {
        self.log.push(Decision {
            frame: self.frame,
            kind,
            from: self.names[from],
            to: self.names[to],
            features: *self.sampler.last(),
            predictions: Predictions::from_slice(&self.estimates),
            reason,
        });
    }

    /// Every candidate's estimate for `features`; the active one's is its measured median.
    fn estimate_all(&mut self, features: &Features) {
        for c in 0..self.slots.len() {
            self.estimates[c] = if c == self.active && self.recent.len > 0 {
                Estimate { ms: self.recent.median() * self.slots[c].spike, sigma: 0.0 }
            } else {
                self.model.predict(c, features, self.frame)
            };
        }
    }

    /// The first frame: the prior's cheapest candidate for this frame's features. The first frame has no speed
    /// and no pairs yet; the prior is asked about a moderate speed and a sparse crowd, where no candidate is at
    /// its best or its worst, and the first probes correct the guess.
    fn choose_initial(&mut self, frame: &Frame<'_>) {
        let measured = self.sampler.measure(frame, 0);
        let features = Features {
            speed_mean: INITIAL_SPEED,
            speed_p90: INITIAL_SPEED,
            pairs_per_body: INITIAL_PAIRS_PER_BODY,
            ..measured
        };
        self.active = 0;
        self.recent = Recent::default();
        self.estimate_all(&features);
        let best = (0..self.slots.len()).min_by(|&a, &b| self.estimates[a].ms.total_cmp(&self.estimates[b].ms));
        self.active = best.unwrap_or(0);
        self.started = true;
        self.cold = COLD_FRAMES;
        let predicted_ms = self.estimates[self.active].ms;
        self.log(DecisionKind::Initial, self.active, self.active, Reason::Initial { predicted_ms });
    }

    /// Make `to` the active candidate. It must be in sync, or be warm-started here from `frame` and `pairs`.
    fn switch_to(&mut self, to: usize, frame: &Frame<'_>, pairs: &[Pair]) -> f64 {
        let mut warm = 0.0;
        if !self.slots[to].in_sync {
            let t = Instant::now();
            self.slots[to].broadphase.warm_start(frame, pairs);
            warm = ms_since(t);
            self.slots[to].warm_ms = Some(warm);
            self.warm_ms[to] = Some(warm);
            self.cold = COLD_FRAMES;
        }
        let from = self.active;
        self.slots[from].in_sync = false;
        self.slots[to].in_sync = true;
        self.active = to;
        self.recent = Recent::default();
        self.totals.switches += 1;
        self.policy.switched(self.frame, from);
        warm
    }

    /// After the active candidate answered `out` for `frame` in `active_ms`: advance the probe, measure the
    /// features, learn, and carry out the policy's decision. Returns the time spent on probes and warm starts.
    fn after_frame(&mut self, frame: &Frame<'_>, out: &PairList, active_ms: f64, first: bool) -> f64 {
        let mut probe_ms = 0.0;
        // The probe runs on the same boxes, into the scratch list.
        if let Some(p) = &mut self.probe {
            scope!("auto: probe", self.names[p.candidate]);
            let t = Instant::now();
            self.slots[p.candidate].broadphase.find_pairs(frame, &mut self.scratch);
            let ms = ms_since(t);
            p.probe_ms[p.frames] = ms;
            p.active_ms[p.frames] = active_ms;
            p.frames += 1;
            p.spent_ms += ms;
            probe_ms += ms;
        }
        scope!("auto: features, model, policy", "");
        let features = if first {
            // The initial choice measured this frame already (without its pairs): patch in the pairs rather
            // than measure again, which would see every box standing still.
            let mut f = *self.sampler.last();
            f.pairs_per_body = out.len() as f64 / f.n.max(1) as f64;
            f
        } else {
            self.sampler.measure(frame, out.len())
        };
        let cold = self.cold > 0;
        if cold {
            self.cold -= 1;
        } else {
            self.recent.push(active_ms);
            if self.recent.len >= RECENT_FRAMES / 3 {
                let ratio = (active_ms / self.recent.median().max(1e-9)).clamp(1.0, SPIKE_CLIP);
                let slot = &mut self.slots[self.active];
                slot.spike += SPIKE_WEIGHT * (ratio - slot.spike);
            }
            self.model.observe(self.active, &features, self.frame, active_ms, false);
            self.policy.tick();
        }
        self.estimate_all(&features);

        let forced = self.force_every > 0 && self.slots.len() > 1;
        if let Some(p) = self.probe.filter(|p| p.frames == self.probe_frames) {
            return probe_ms + self.finish_probe(p, frame, out, &features, forced);
        }
        if self.probe.is_some() {
            return probe_ms;
        }
        if forced {
            // Forced-switch mode: every `force_every` frames the next candidate takes over — through a probe
            // when there is room for one before the next hand-over (so probes are under test too), else warm
            // at once.
            if (self.frame + 1).is_multiple_of(self.force_every) {
                let (from, to) = (self.active, (self.active + 1) % self.slots.len());
                if self.force_every > self.probe_frames as u64 {
                    probe_ms += self.start_probe(to, frame, out, Reason::Forced);
                } else {
                    probe_ms += self.switch_to(to, frame, out.as_slice());
                    self.log(DecisionKind::Forced, from, to, Reason::Forced);
                }
            }
            return probe_ms;
        }
        if cold {
            return probe_ms;
        }
        let active_ms = self.estimates[self.active].ms;
        if let Action::Probe(c, reason) =
            self.policy.decide(self.frame, self.active, active_ms, &self.estimates, &self.warm_ms)
        {
            probe_ms += self.start_probe(c, frame, out, reason);
        }
        probe_ms
    }

    /// Warm-start candidate `c` from this frame's pairs and run it beside the active one from the next frame on.
    /// Returns the warm start's time.
    fn start_probe(&mut self, c: usize, frame: &Frame<'_>, out: &PairList, reason: Reason) -> f64 {
        scope!("auto: warm start", self.names[c]);
        let t = Instant::now();
        self.slots[c].broadphase.warm_start(frame, out.as_slice());
        let warm = ms_since(t);
        self.slots[c].warm_ms = Some(warm);
        self.warm_ms[c] = Some(warm);
        self.slots[c].in_sync = true;
        self.slots[c].probes += 1;
        self.totals.probes += 1;
        self.probe = Some(Probe {
            candidate: c,
            spent_ms: warm,
            frames: 0,
            probe_ms: [0.0; MAX_PROBE_FRAMES],
            active_ms: [0.0; MAX_PROBE_FRAMES],
        });
        self.log(DecisionKind::Probe, self.active, c, reason);
        warm
    }

    /// The probe `p` has run its frames: learn from it, then switch or stay (in forced mode, always switch).
    /// Returns the time of a warm start, if the switch needed one (it does not: the candidate is in sync).
    fn finish_probe(&mut self, p: Probe, frame: &Frame<'_>, out: &PairList, features: &Features, forced: bool) -> f64 {
        self.probe = None;
        let c = p.candidate;
        // The first side-by-side frame pays for whatever the warm start left to do (an incremental structure's
        // first update, caches filling): it is the switch's cost, not the steady one. Of the others, the least
        // of each, on the same frames: a frame the scheduler stalled is never the least, and load common to both
        // cancels. Each least is then charged its candidate's spike factor (its own expensive frames).
        let steady = if p.frames > 1 { 1..p.frames } else { 0..p.frames };
        let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let (probe_least, active_least) = (least(&p.probe_ms[steady.clone()]), least(&p.active_ms[steady.clone()]));
        let probe_cost = probe_least * self.slots[c].spike;
        let active_cost = active_least * self.slots[self.active].spike;
        // The model keeps typical frames: the probe's least, scaled by the machine's noise on those frames (the
        // active candidate's median over its least there).
        let mut active_steady = p.active_ms;
        let noise = (median(&mut active_steady[steady]) / active_least).clamp(1.0, 2.0);
        self.model.observe(c, features, self.frame, probe_cost * noise, true);
        self.slots[c].probe_ms += p.spent_ms;
        let action = if forced {
            Action::Switch(c, Reason::Forced)
        } else {
            self.policy.probe_done(self.frame, self.active, c, probe_cost, active_cost, p.spent_ms)
        };
        match action {
            Action::Switch(to, reason) => {
                let from = self.active;
                self.estimates[to] = Estimate { ms: probe_cost * noise, sigma: 0.0 };
                let warm = self.switch_to(to, frame, out.as_slice());
                let kind = if forced { DecisionKind::Forced } else { DecisionKind::Switch };
                self.log(kind, from, to, reason);
                warm
            }
            _ => {
                self.slots[c].in_sync = false;
                let reason = Reason::Rejected { probe_ms: probe_cost, active_ms: active_cost };
                self.log(DecisionKind::Reject, self.active, self.active, reason);
                0.0
            }
        }
    }

    /// Drop the probe in progress (its candidate can no longer follow the frames).
    fn abandon_probe(&mut self) {
        if let Some(p) = self.probe.take() {
            self.slots[p.candidate].in_sync = false;
            self.slots[p.candidate].probe_ms += p.spent_ms;
            let active_ms = self.estimates[self.active].ms;
            self.policy.probe_abandoned(self.frame, p.candidate, p.spent_ms, active_ms);
            let reason = Reason::Rejected { probe_ms: f64::NAN, active_ms: f64::NAN };
            self.log(DecisionKind::Abandon, self.active, p.candidate, reason);
        }
    }
}

impl Broadphase for Selector {
    fn name(&self) -> &'static str {
        NAME
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let start = Instant::now();
        let first = !self.started;
        if first {
            self.choose_initial(frame);
        }
        let t = Instant::now();
        {
            scope!("auto: active", self.names[self.active]);
            self.slots[self.active].broadphase.find_pairs(frame, out);
        }
        let active_ms = ms_since(t);
        self.answered = self.active;
        let slot = &mut self.slots[self.active];
        slot.frames += 1;
        slot.ms += active_ms;
        slot.in_sync = true;
        let probe_ms = self.after_frame(frame, out, active_ms, first);
        self.totals.frames += 1;
        self.totals.active_ms += active_ms;
        self.totals.probe_ms += probe_ms;
        self.totals.overhead_ms += (ms_since(start) - active_ms - probe_ms).max(0.0);
        self.frame += 1;
    }

    fn stats(&self) -> Stats {
        self.slots[self.answered].broadphase.stats()
    }

    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.abandon_probe();
        self.slots[self.active].broadphase.on_resize(resize);
        for (c, slot) in self.slots.iter_mut().enumerate() {
            slot.in_sync = c == self.active;
        }
        self.sampler.forget();
        self.recent = Recent::default();
        // The next frame patches (or rebuilds) the structure for the new bodies: not a steady frame.
        self.cold = COLD_FRAMES;
    }

    /// Forget the scene: every candidate's state, the probe, the features' history and the policy's; the next
    /// frame chooses afresh. The costs the model learned are kept: they describe this machine and these
    /// candidates, not the scene.
    fn reset(&mut self) {
        self.probe = None;
        for slot in &mut self.slots {
            slot.broadphase.reset();
            slot.in_sync = false;
        }
        self.sampler.forget();
        self.recent = Recent::default();
        self.policy.reset();
        self.started = false;
        self.cold = 0;
    }

    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        self.reset();
        self.choose_initial(frame);
        self.slots[self.active].broadphase.warm_start(frame, pairs);
        self.slots[self.active].in_sync = true;
    }

    fn validate(&self) -> Result<(), String> {
        if self.active >= self.slots.len() {
            return Err(format!("active candidate {} of {}", self.active, self.slots.len()));
        }
        if let Some(p) = self.probe {
            if p.candidate == self.active {
                return Err(format!("probing the active candidate {}", self.names[p.candidate]));
            }
            if !self.slots[p.candidate].in_sync {
                return Err(format!("probing {}, which is not in sync", self.names[p.candidate]));
            }
        }
        for slot in &self.slots {
            if slot.in_sync || slot.frames > 0 {
                slot.broadphase.validate().map_err(|e| format!("{}: {e}", slot.name))?;
            }
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        self.slots[self.answered].broadphase.debug_geometry(out);
    }

    fn active_name(&self) -> &'static str {
        self.names[self.answered]
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
