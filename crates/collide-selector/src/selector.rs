//! [`Selector`]: the meta-broadphase itself — the candidates, the timing, the probes and the switches.

use crate::controller::{Controller, Order};
use crate::features::{FeatureSampler, Features};
use crate::log::DecisionLog;
use crate::model::{CostModel, Estimate, Prior};
use crate::policy::PolicyConfig;
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
    ParamSpec::number("probe_share", "the most probes may cost, as a share of the broadphase's time", 0.03, 0.0, 0.5),
    ParamSpec::integer(
        "force_every",
        "testing: switch to the next candidate every k frames, warm, whatever it costs (0 = off)",
        0.0,
        0.0,
        1_000_000.0,
    ),
];

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
    frames: u64,
    ms: f64,
    probes: u64,
    probe_ms: f64,
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

/// The meta-broadphase: runs one candidate at a time, times it, measures the scene, and carries out what its
/// [`Controller`] orders — probes, warm starts, switches. Registry name `auto`. See the crate docs for the
/// design.
pub struct Selector {
    slots: Vec<Slot>,
    controller: Controller,
    sampler: FeatureSampler,
    /// The candidate that answered the last frame (it differs from the controller's active one right after a
    /// switch).
    answered: usize,
    /// Where probes write their pairs, which nobody reads.
    scratch: PairList,
    totals: Totals,
}

impl Selector {
    /// A selector over `candidates`, with the policy's knobs, the prior, and forced switching every
    /// `force_every` frames (0: off). Panics on no candidates or more than [`crate::log::MAX_CANDIDATES`].
    #[must_use]
    pub fn new(candidates: Vec<Candidate>, policy: PolicyConfig, prior: Prior, force_every: u64) -> Self {
        let names: Vec<&'static str> = candidates.iter().map(|c| c.name).collect();
        Self {
            slots: candidates
                .into_iter()
                .map(|c| Slot { name: c.name, broadphase: c.broadphase, frames: 0, ms: 0.0, probes: 0, probe_ms: 0.0 })
                .collect(),
            controller: Controller::new(names, policy, prior, force_every),
            sampler: FeatureSampler::new(),
            answered: 0,
            scratch: PairList::new(),
            totals: Totals::default(),
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
        Self::new(candidates, policy_from(params), Prior::builtin(), params.get("force_every") as u64)
    }

    /// The registry name of the candidate that runs next frame (right after a switch, the newcomer; the one that
    /// answered the last frame is [`Broadphase::active_name`]).
    #[must_use]
    pub fn active(&self) -> &'static str {
        self.slots[self.controller.active()].name
    }

    /// The candidate being probed, if any.
    #[must_use]
    pub fn probing(&self) -> Option<&'static str> {
        self.controller.probing().map(|c| self.slots[c].name)
    }

    /// The candidates' names, in the selector's order.
    #[must_use]
    pub fn candidate_names(&self) -> &[&'static str] {
        self.controller.names()
    }

    /// Every candidate's share of the run and this frame's prediction.
    pub fn candidates(&self) -> impl Iterator<Item = CandidateReport> + '_ {
        let (active, probing) = (self.controller.active(), self.controller.probing());
        self.slots.iter().enumerate().map(move |(c, s)| CandidateReport {
            name: s.name,
            frames: s.frames,
            ms: s.ms,
            probes: s.probes,
            probe_ms: s.probe_ms,
            estimate: self.controller.estimates()[c],
            active: c == active,
            probing: probing == Some(c),
        })
    }

    /// The decision log.
    #[must_use]
    pub fn decisions(&self) -> &DecisionLog {
        self.controller.log()
    }

    /// The last frame's features.
    #[must_use]
    pub fn features(&self) -> &Features {
        self.controller.features()
    }

    /// The totals so far.
    #[must_use]
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The cost model (its prior says where it was calibrated).
    #[must_use]
    pub fn model(&self) -> &CostModel {
        self.controller.model()
    }

    /// The policy's knobs.
    #[must_use]
    pub fn policy(&self) -> &PolicyConfig {
        self.controller.policy()
    }

    /// Warm-start candidate `c` from `frame` and `pairs`, and tell the controller what it cost. Returns the ms.
    fn warm_candidate(&mut self, c: usize, frame: &Frame<'_>, pairs: &[Pair]) -> f64 {
        scope!("auto: warm start", self.slots[c].name);
        let t = Instant::now();
        self.slots[c].broadphase.warm_start(frame, pairs);
        let ms = ms_since(t);
        self.controller.warm_started(c, ms);
        ms
    }

    /// Carry out the controller's order after a frame that answered `out`. Returns the warm start's time.
    fn obey(&mut self, order: Order, frame: &Frame<'_>, out: &PairList) -> f64 {
        match order {
            Order::Stay => 0.0,
            Order::Probe(c) => {
                self.totals.probes += 1;
                self.slots[c].probes += 1;
                let ms = self.warm_candidate(c, frame, out.as_slice());
                self.slots[c].probe_ms += ms;
                ms
            }
            Order::Switch { to, warm } => {
                self.totals.switches += 1;
                if warm { self.warm_candidate(to, frame, out.as_slice()) } else { 0.0 }
            }
        }
    }
}

/// The policy's knobs from resolved [`PARAMS`] (the rest at their defaults).
#[must_use]
pub fn policy_from(params: &Params) -> PolicyConfig {
    PolicyConfig {
        margin: params.get("margin"),
        cooldown: params.get("cooldown") as u32,
        probe_share: params.get("probe_share"),
        ..PolicyConfig::default()
    }
}

impl Broadphase for Selector {
    fn name(&self) -> &'static str {
        NAME
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let start = Instant::now();
        let first = !self.controller.started();
        if first {
            // The first frame has no pairs yet: measure its boxes, and let the prior choose.
            let measured = self.sampler.measure(frame, 0);
            self.controller.start(measured);
        }
        let active = self.controller.active();
        let t = Instant::now();
        {
            scope!("auto: active", self.slots[active].name);
            self.slots[active].broadphase.find_pairs(frame, out);
        }
        let active_ms = ms_since(t);
        self.answered = active;
        self.slots[active].frames += 1;
        self.slots[active].ms += active_ms;
        // The probe runs on the same boxes, into the scratch list.
        let probe_ms = self.controller.probing().map(|c| {
            scope!("auto: probe", self.slots[c].name);
            let t = Instant::now();
            self.slots[c].broadphase.find_pairs(frame, &mut self.scratch);
            let ms = ms_since(t);
            self.slots[c].probe_ms += ms;
            ms
        });
        let order = {
            scope!("auto: features, model, policy", "");
            let features = if first {
                // The start measured this frame already (without its pairs): patch in the pairs rather than
                // measure again, which would see every box standing still.
                Features { pairs_per_body: out.len() as f64 / frame.aabbs.len().max(1) as f64, ..*self.sampler.last() }
            } else {
                self.sampler.measure(frame, out.len())
            };
            self.controller.after_frame(&features, active_ms, probe_ms)
        };
        let warm_ms = self.obey(order, frame, out);
        let probe_ms = probe_ms.unwrap_or(0.0) + warm_ms;
        self.totals.frames += 1;
        self.totals.active_ms += active_ms;
        self.totals.probe_ms += probe_ms;
        self.totals.overhead_ms += (ms_since(start) - active_ms - probe_ms).max(0.0);
    }

    fn stats(&self) -> Stats {
        self.slots[self.answered].broadphase.stats()
    }

    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.controller.resized();
        self.slots[self.controller.active()].broadphase.on_resize(resize);
        self.sampler.forget();
    }

    /// Forget the scene: every candidate's state, the probe, the features' history and the policy's; the next
    /// frame chooses afresh. The costs the model learned are kept: they describe this machine and these
    /// candidates, not the scene.
    fn reset(&mut self) {
        for slot in &mut self.slots {
            slot.broadphase.reset();
        }
        self.controller.reset();
        self.sampler.forget();
    }

    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        self.reset();
        let measured = self.sampler.measure(frame, pairs.len());
        let active = self.controller.start(measured);
        self.warm_candidate(active, frame, pairs);
    }

    fn validate(&self) -> Result<(), String> {
        self.controller.validate()?;
        for (c, slot) in self.slots.iter().enumerate() {
            if self.controller.in_sync(c) || slot.frames > 0 {
                slot.broadphase.validate().map_err(|e| format!("{}: {e}", slot.name))?;
            }
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        self.slots[self.answered].broadphase.debug_geometry(out);
    }

    fn active_name(&self) -> &'static str {
        self.slots[self.answered].name
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
