//! [`Selector`]: the meta-broadphase itself — the candidates, the timing, the probes, the builds beside and the
//! switches.

use crate::builder::{self, Builder, Job};
use crate::controller::{CATCH_UP_CALLS, Controller, MIN_SAMPLE_BODIES, Order, SampleFrame};
use crate::features::{FeatureSampler, Features};
use crate::log::DecisionLog;
use crate::model::{CostModel, Estimate, Prior};
use crate::policy::PolicyConfig;
use crate::sample::SubBox;
use collide_broadphase::{
    AlgorithmDescriptor, Broadphase, DebugGeometry, Frame, InvalidBoxes, Pair, PairList, ParamSpec, Params, Resize,
    Stats,
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
    ParamSpec::integer("cooldown", "frames after a measured switch before the next decision", 12.0, 0.0, 100_000.0),
    ParamSpec::number("probe_share", "the most probes may cost, as a share of the broadphase's time", 0.03, 0.0, 0.5),
    ParamSpec::integer(
        "force_every",
        "testing: switch to the next candidate every k frames, warm, whatever it costs (0 = off)",
        0.0,
        0.0,
        1_000_000.0,
    ),
];

/// Makes a fresh instance of a candidate.
pub type Make = Box<dyn Fn() -> Box<dyn Broadphase> + Send>;

/// A candidate: a registry name and how to make an instance. The selector makes its instances when it needs
/// them — the one it runs, and a second one (a *scout*) for sampled probes — and drops them when the candidate
/// has been idle for long (see [`PolicyConfig::free_after`]).
pub struct Candidate {
    /// The registry name.
    pub name: &'static str,
    /// Makes an instance.
    pub make: Make,
}

impl Candidate {
    /// A candidate named `name`, made by `make`.
    pub fn new(name: &'static str, make: impl Fn() -> Box<dyn Broadphase> + Send + 'static) -> Self {
        Self { name, make: Box::new(make) }
    }
}

/// What the selector did over its life, in ms of wall time (for the summary and the overhead check).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Frames (calls of `find_pairs`).
    pub frames: u64,
    /// Time the active candidates took.
    pub active_ms: f64,
    /// Time probes took on this thread: warm starts, whole frames beside, sampled frames (sub-box listing and
    /// gathering included), and the copies of frames for builds beside.
    pub probe_ms: f64,
    /// Time builds beside took on their own thread (probes' and switches' builds).
    pub beside_ms: f64,
    /// The selector's own time: features, model, policy, log.
    pub overhead_ms: f64,
    /// Switches made (forced ones included).
    pub switches: u64,
    /// Probes started, whole and sampled.
    pub probes: u64,
    /// Sampled probes started (among `probes`).
    pub sampled: u64,
    /// Builds made beside the active candidate.
    pub builds_beside: u64,
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
    /// Probes of it, whole and sampled.
    pub probes: u64,
    /// Time its probes took, ms.
    pub probe_ms: f64,
    /// The model's prediction this frame (for the active one: its recent median times its spike factor).
    pub estimate: Estimate,
    /// Its predicted build this frame, ms (what a switch to it would charge).
    pub build_ms: f64,
    /// `true` for the active candidate.
    pub active: bool,
    /// `true` while it is probed on whole frames.
    pub probing: bool,
    /// `true` while it is probed on a sample.
    pub sampling: bool,
    /// `true` while it is built beside the active one.
    pub building: bool,
    /// `true` while it holds an instance (it has run and was not freed since).
    pub held: bool,
    /// `true` while its structure has followed every frame since its last warm start (the active candidate, a
    /// probed one): it can take over without a warm start.
    pub in_sync: bool,
}

struct Slot {
    name: &'static str,
    make: Make,
    /// The instance that answers, probes and is built beside; `None` until needed, after it was freed, and while
    /// it is on the builder's thread.
    broadphase: Option<Box<dyn Broadphase>>,
    /// The instance for sampled probes.
    scout: Option<Box<dyn Broadphase>>,
    /// Its next call gets boxes several frames newer than its last (it was built beside): no motion hint.
    stale: bool,
    frames: u64,
    ms: f64,
    probes: u64,
    probe_ms: f64,
}

impl Slot {
    fn instance(&mut self) -> &mut Box<dyn Broadphase> {
        self.broadphase.get_or_insert_with(|| (self.make)())
    }

    fn scout(&mut self) -> &mut Box<dyn Broadphase> {
        self.scout.get_or_insert_with(|| (self.make)())
    }

    /// Run on `frame` into `out` (without the motion hint when it is stale), returning the ms.
    fn run(&mut self, frame: &Frame<'_>, out: &mut PairList) -> f64 {
        let stale = std::mem::take(&mut self.stale);
        let bp = self.broadphase.get_or_insert_with(|| (self.make)());
        let t = Instant::now();
        if stale {
            let unhinted =
                Frame::new(frame.aabbs).with_step(frame.step).with_dt(frame.dt).with_invalid_boxes(frame.invalid_boxes);
            bp.find_pairs(&unhinted, out);
        } else {
            bp.find_pairs(frame, out);
        }
        ms_since(t)
    }
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

/// The build beside in progress: the step on the builder's thread, or a finished step waiting for the next
/// frame's boxes, and the calls left.
#[derive(Default)]
struct Beside {
    /// A finished step's job, kept for its buffers and its candidate between steps.
    parked: Option<Job>,
    /// Catch-up calls still to make.
    calls_left: u32,
    /// Buffers of the last build, reused by the next.
    spare: Option<(Vec<collide_broadphase::Aabb>, PairList)>,
    /// The permutations announced while the step was on the builder's thread, composed into one `old_to_new`
    /// map (valid when `renamed`): the candidate there numbers the bodies as before them, and is renamed by it
    /// when it comes back, before anything else reads it.
    renames: Vec<u32>,
    renamed: bool,
    /// Scratch of the composition.
    composed: Vec<u32>,
}

impl Beside {
    /// Remember the permutation `resize`, announced while the step is on the builder's thread: composed with the
    /// ones remembered before (their map followed by this one). O(n), no allocation once warm.
    fn remember(&mut self, resize: &Resize<'_>) {
        if self.renamed {
            self.composed.clear();
            self.composed.extend(self.renames.iter().map(|&m| resize.old_to_new[m as usize]));
            std::mem::swap(&mut self.renames, &mut self.composed);
        } else {
            self.renames.clear();
            self.renames.extend_from_slice(resize.old_to_new);
            self.renamed = true;
        }
    }

    /// Rename `job`'s candidate, back from the builder's thread, by the permutations announced while it was there.
    fn catch_up(&mut self, job: &mut Job) {
        if std::mem::take(&mut self.renamed) {
            job.broadphase.on_resize(&Resize { old_to_new: &self.renames, new_len: self.renames.len() });
        }
    }
}

/// The meta-broadphase: runs one candidate at a time, times it, measures the scene, and carries out what its
/// [`Controller`] orders — sampled probes, whole probes, builds beside, switches. Registry name `auto`. See the
/// crate docs for the design.
pub struct Selector {
    slots: Vec<Slot>,
    controller: Controller,
    sampler: FeatureSampler,
    /// The candidate that answered the last frame.
    answered: usize,
    /// Pairs of the last frame, for the next frame's features (`None` on a first frame and after a resize).
    last_pairs: Option<usize>,
    /// Where probes write their pairs, which nobody reads.
    scratch: PairList,
    /// The sampled probe's bodies.
    sub: SubBox,
    /// The time drawing the sub-box took, charged to the sampled probe with its first frame.
    sample_draw_ms: f64,
    /// The sampled probe's frames so far: the two scouts take turns at running first (see
    /// [`Selector::run_sample`]).
    sample_frame: u32,
    /// Frames since the features were last measured.
    since_measured: u32,
    builder: Builder,
    beside: Beside,
    /// Counts resizes and resets: a build beside started before the last one is stale.
    generation: u64,
    totals: Totals,
}

impl Selector {
    /// A selector over `candidates`, with the policy's knobs, the prior, and forced switching every
    /// `force_every` frames (0: off). Panics on no candidates or more than [`crate::log::MAX_CANDIDATES`].
    #[must_use]
    pub fn new(candidates: Vec<Candidate>, policy: PolicyConfig, prior: Prior, force_every: u64) -> Self {
        let names: Vec<&'static str> = candidates.iter().map(|c| c.name).collect();
        // Asked of an instance made for the purpose (once, not per frame): a candidate says it of itself.
        let settling = candidates.iter().map(|c| (c.make)().settling_calls()).collect();
        Self {
            slots: candidates
                .into_iter()
                .map(|c| Slot {
                    name: c.name,
                    make: c.make,
                    broadphase: None,
                    scout: None,
                    stale: false,
                    frames: 0,
                    ms: 0.0,
                    probes: 0,
                    probe_ms: 0.0,
                })
                .collect(),
            controller: Controller::new(names, policy, prior, force_every).with_settling(settling),
            sampler: FeatureSampler::new(),
            answered: 0,
            last_pairs: None,
            scratch: PairList::new(),
            sub: SubBox::default(),
            sample_draw_ms: 0.0,
            sample_frame: 0,
            since_measured: 0,
            builder: Builder::default(),
            beside: Beside::default(),
            generation: 0,
            totals: Totals::default(),
        }
    }

    /// Build from the registry `table` (handed in, so this crate needs no dependency on the registry) and
    /// checked [`PARAMS`]: every candidate named by `candidates` (default: every row not in [`EXCLUDED`]),
    /// each with its default parameters, on the built-in prior.
    #[must_use]
    pub fn from_params(table: &'static [AlgorithmDescriptor], params: &Params) -> Self {
        let chosen = params.algorithms("candidates");
        let candidates = table
            .iter()
            .filter(|d| if chosen.is_empty() { !EXCLUDED.contains(&d.name) } else { chosen.contains(&d.name) })
            .map(|d| Candidate::new(d.name, move || d.build_default()))
            .collect();
        Self::new(candidates, policy_from(params), Prior::builtin(), params.get("force_every") as u64)
    }

    /// The registry name of the candidate that runs next frame (right after a switch, the newcomer; the one that
    /// answered the last frame is [`Broadphase::active_name`]).
    #[must_use]
    pub fn active(&self) -> &'static str {
        self.slots[self.controller.active()].name
    }

    /// The candidate probed on whole frames, if any.
    #[must_use]
    pub fn probing(&self) -> Option<&'static str> {
        self.controller.probing().map(|c| self.slots[c].name)
    }

    /// The candidate probed on a sample, if any.
    #[must_use]
    pub fn sampling(&self) -> Option<&'static str> {
        self.controller.sampling().map(|c| self.slots[c].name)
    }

    /// The candidate built beside the active one, if any.
    #[must_use]
    pub fn building(&self) -> Option<&'static str> {
        self.controller.building().map(|c| self.slots[c].name)
    }

    /// The candidates' names, in the selector's order.
    #[must_use]
    pub fn candidate_names(&self) -> &[&'static str] {
        self.controller.names()
    }

    /// Every candidate's share of the run and this frame's prediction.
    pub fn candidates(&self) -> impl Iterator<Item = CandidateReport> + '_ {
        let c = &self.controller;
        let (active, probing, sampling, building) = (c.active(), c.probing(), c.sampling(), c.building());
        self.slots.iter().enumerate().map(move |(i, s)| CandidateReport {
            name: s.name,
            frames: s.frames,
            ms: s.ms,
            probes: s.probes,
            probe_ms: s.probe_ms,
            estimate: c.estimates()[i],
            build_ms: c.builds()[i],
            active: i == active,
            probing: probing == Some(i),
            sampling: sampling == Some(i),
            building: building == Some(i),
            held: s.broadphase.is_some() || building == Some(i),
            in_sync: c.in_sync(i),
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
        let bp = self.slots[c].instance();
        let t = Instant::now();
        bp.warm_start(frame, pairs);
        let ms = ms_since(t);
        self.controller.warm_started(c, ms);
        ms
    }

    /// Carry out the controller's order after a frame that answered `out`. Returns the time spent on probes
    /// here (warm starts, the sub-box listing, the copy for a build beside).
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
            Order::Sample(c) => {
                self.totals.probes += 1;
                self.totals.sampled += 1;
                self.slots[c].probes += 1;
                let t = Instant::now();
                let target = (frame.len() as f64 * self.controller.policy().sample_share) as usize;
                let cubes = crate::sample::cubes_for(self.controller.features().clustering);
                self.sub.draw(frame.aabbs, self.sampler.sample(), target.max(MIN_SAMPLE_BODIES), cubes);
                let active = self.controller.active();
                self.slots[c].scout().reset();
                self.slots[active].scout().reset();
                self.sample_draw_ms = ms_since(t);
                self.sample_frame = 0;
                self.sample_draw_ms
            }
            Order::BuildBeside(c) => {
                self.totals.builds_beside += 1;
                let t = Instant::now();
                let broadphase = self.slots[c].broadphase.take().unwrap_or_else(|| (self.slots[c].make)());
                let (boxes, pairs) = self.beside.spare.take().unwrap_or_default();
                let mut job = Job {
                    candidate: c,
                    broadphase,
                    boxes,
                    pairs,
                    step: 0,
                    dt: 0.0,
                    invalid_boxes: InvalidBoxes::DEFAULT,
                    generation: self.generation,
                    ms: 0.0,
                };
                builder::snapshot(&mut job, frame, out.as_slice());
                self.builder.send(job, true);
                self.beside.calls_left = CATCH_UP_CALLS;
                ms_since(t)
            }
        }
    }

    /// Before a frame: take back a finished build step from the builder; send it its next catch-up call on this
    /// frame's boxes, or, when it has made them all, tell the controller it is ready. Returns the ms spent here
    /// (the copy of the boxes).
    fn tend_builder(&mut self, frame: &Frame<'_>) -> f64 {
        let t = Instant::now();
        if let Some(job) = self.builder.poll() {
            self.beside.parked = Some(job);
        }
        let Some(mut job) = self.beside.parked.take() else { return 0.0 };
        let c = job.candidate;
        if job.generation != self.generation || self.controller.building() != Some(c) {
            // A resize or a reset since it started: what it built describes other bodies.
            self.beside.renamed = false;
            job.broadphase.reset();
            self.slots[c].broadphase = Some(job.broadphase);
            self.beside.spare = Some((job.boxes, job.pairs));
            return ms_since(t);
        }
        self.beside.catch_up(&mut job);
        if self.beside.calls_left > 0 && job.boxes.len() == frame.len() {
            self.beside.calls_left -= 1;
            job.boxes.clear();
            job.boxes.extend_from_slice(frame.aabbs);
            job.step = frame.step;
            job.dt = frame.dt;
            self.builder.send(job, false);
            return ms_since(t);
        }
        let ms = job.ms;
        self.totals.beside_ms += ms;
        self.slots[c].broadphase = Some(job.broadphase);
        self.slots[c].stale = true;
        self.beside.spare = Some((job.boxes, job.pairs));
        if self.controller.built(c, ms) {
            self.totals.switches += 1;
        } else {
            self.slots[c].probe_ms += ms;
        }
        ms_since(t)
    }

    /// Bring back a candidate left on the builder's thread (a reset or a resize must not leave it there).
    fn recall_builder(&mut self) {
        self.beside.renamed = false;
        let job = self.builder.wait().or_else(|| self.beside.parked.take());
        if let Some(mut job) = job {
            job.broadphase.reset();
            self.slots[job.candidate].broadphase = Some(job.broadphase);
            self.beside.spare = Some((job.boxes, job.pairs));
        }
        self.beside.calls_left = 0;
    }

    /// Follow the permutation `resize` (see [`Broadphase::on_resize`]).
    fn permute(&mut self, resize: &Resize<'_>) {
        for (c, slot) in self.slots.iter_mut().enumerate() {
            if self.controller.in_sync(c)
                && let Some(b) = slot.broadphase.as_mut()
            {
                b.on_resize(resize);
            }
        }
        if self.controller.building().is_some() {
            if let Some(job) = self.builder.poll() {
                self.beside.parked = Some(job);
            }
            match self.beside.parked.take() {
                Some(mut job) => {
                    self.beside.catch_up(&mut job);
                    job.broadphase.on_resize(resize);
                    self.beside.parked = Some(job);
                }
                None => self.beside.remember(resize),
            }
        }
        if self.controller.sampling().is_some() {
            self.sub.permute(resize);
        }
        self.sampler.permute(resize);
    }

    /// The sampled probe's frame: gather the sample's boxes, run the active candidate's scout and the probed
    /// one's on them.
    fn run_sample(&mut self, c: usize, frame: &Frame<'_>) -> SampleFrame {
        scope!("auto: sample", self.slots[c].name);
        let active = self.controller.active();
        let t = Instant::now();
        let boxes = self.sub.gather(frame.aabbs);
        let sample =
            Frame::new(boxes).with_step(frame.step).with_dt(frame.dt).with_invalid_boxes(InvalidBoxes::OverlapNothing);
        let gather_ms = ms_since(t);
        // The two scouts take turns at running first, and the compared frames are an even number
        // ([`PolicyConfig::sample_frames`]), so each runs first on half of them. Always second, the candidate
        // measured 0.74–0.81 of the active one on `uniform`, `cluster`, `thesis` and `rain` at 10⁴ bodies,
        // whichever of `grid` and `hgrid` it was, where the two run within 3% of each other; taking turns over
        // three frames, the one that ran second twice was flattered by about 10%.
        let mut time = |slot: usize, scratch: &mut PairList| {
            let t = Instant::now();
            self.slots[slot].scout().find_pairs(&sample, scratch);
            ms_since(t)
        };
        let candidate_first = self.sample_frame % 2 == 1;
        self.sample_frame += 1;
        let (active_ms, probe_ms) = if candidate_first {
            let probe_ms = time(c, &mut self.scratch);
            (time(active, &mut self.scratch), probe_ms)
        } else {
            let active_ms = time(active, &mut self.scratch);
            (active_ms, time(c, &mut self.scratch))
        };
        let extra_ms = gather_ms + std::mem::take(&mut self.sample_draw_ms);
        SampleFrame { probe_ms, pairs: self.scratch.len(), active_ms, bodies: boxes.len(), extra_ms }
    }
}

/// The policy's knobs from checked [`PARAMS`] (the rest at their defaults).
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
        // The scene first, from the boxes alone: the first frame's pick and the second's (when the first did not
        // know the speed) come before any candidate runs, so that nothing is built twice.
        let decides = !self.controller.started() || self.controller.wants_features();
        self.since_measured += 1;
        let features = if decides {
            scope!("auto: features", "");
            let frames = std::mem::replace(&mut self.since_measured, 0);
            self.sampler.measure_over(frame, self.last_pairs, frames)
        } else {
            *self.sampler.last()
        };
        if !self.controller.started() {
            let c = self.controller.start(features);
            self.slots[c].instance().reset();
        } else if let Some(c) = self.controller.before_frame(&features) {
            self.totals.switches += 1;
            self.slots[c].instance().reset();
        }
        let mut probe_ms = self.tend_builder(frame);
        let active = self.controller.active();
        let active_ms = {
            scope!("auto: active", self.slots[active].name);
            self.slots[active].run(frame, out)
        };
        self.answered = active;
        self.slots[active].frames += 1;
        self.slots[active].ms += active_ms;
        // A whole probe runs on the same boxes, into the scratch list.
        let probed = self.controller.probing().map(|c| {
            scope!("auto: probe", self.slots[c].name);
            let ms = self.slots[c].run(frame, &mut self.scratch);
            self.slots[c].probe_ms += ms;
            ms
        });
        let sampled = self.controller.sampling().map(|c| {
            let draw_ms = self.sample_draw_ms;
            let sample = self.run_sample(c, frame);
            // The draw was counted in its own frame's probe time; the controller hears of it now.
            let here = sample.probe_ms + sample.active_ms + sample.extra_ms - draw_ms;
            self.slots[c].probe_ms += here;
            probe_ms += here;
            sample
        });
        let order = if decides {
            scope!("auto: model, policy", "");
            self.controller.after_frame(&features, active_ms, probed, sampled)
        } else {
            self.controller.quiet_frame(active_ms);
            Order::Stay
        };
        probe_ms += probed.unwrap_or(0.0) + self.obey(order, frame, out);
        if let Some(c) = self.controller.take_expired() {
            self.slots[c].broadphase = None;
            self.slots[c].scout = None;
        }
        self.last_pairs = Some(out.len());
        self.totals.frames += 1;
        self.totals.active_ms += active_ms;
        self.totals.probe_ms += probe_ms;
        self.totals.overhead_ms += (ms_since(start) - active_ms - probe_ms).max(0.0);
    }

    fn stats(&self) -> Stats {
        self.slots[self.answered].broadphase.as_ref().map(|b| b.stats()).unwrap_or_default()
    }

    /// A permutation (the simulation's spatial reorder) is followed by everything that can follow it, in O(n)
    /// and without allocating once warm, and abandons nothing: every candidate in sync (the active one, a probed
    /// one) remaps it itself; a build beside is renamed when its step comes back from the builder's thread (at
    /// once when it already has); a sampled probe's sub-box renames its bodies in place, keeping their order, so
    /// that both scouts' structures stay valid; the feature sample follows its bodies, so the speed is measured
    /// across the reorder; and the controller keeps its timing history and its decisions — no cold frame, no
    /// decision taken again. Any other resize abandons the probe or build in progress (a build beside is waited
    /// for), keeps only the active candidate in sync, forgets the features and makes the next frames cold.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if resize.is_permutation() {
            self.permute(resize);
            return;
        }
        self.generation += 1;
        if self.controller.resized().is_some() {
            self.recall_builder();
        }
        let active = self.controller.active();
        self.slots[active].instance().on_resize(resize);
        self.sampler.forget();
        self.last_pairs = None;
    }

    /// Forget the scene: every candidate's state, the job in progress, the features and what the model learned
    /// of this scene; the next frame chooses afresh from the prior.
    fn reset(&mut self) {
        self.generation += 1;
        self.recall_builder();
        for slot in &mut self.slots {
            if let Some(b) = slot.broadphase.as_mut() {
                b.reset();
            }
            slot.stale = false;
        }
        self.controller.reset();
        self.sampler.forget();
        self.last_pairs = None;
    }

    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        self.reset();
        let measured = self.sampler.measure(frame, Some(pairs.len()));
        let active = self.controller.start(measured);
        self.warm_candidate(active, frame, pairs);
        self.last_pairs = Some(pairs.len());
    }

    fn validate(&self) -> Result<(), String> {
        self.controller.validate()?;
        for (c, slot) in self.slots.iter().enumerate() {
            if self.controller.in_sync(c)
                && let Some(b) = &slot.broadphase
            {
                b.validate().map_err(|e| format!("{}: {e}", slot.name))?;
            }
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        if let Some(b) = &self.slots[self.answered].broadphase {
            b.debug_geometry(out);
        }
    }

    fn active_name(&self) -> &'static str {
        self.slots[self.answered].name
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
