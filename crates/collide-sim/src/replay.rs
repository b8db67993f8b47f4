//! A replay: the boxes of a `.aabbs` file fed frame by frame to any broadphase, with no physics.
//!
//! [`Replay`] is the simulation's counterpart for recorded scenes, kept apart from [`Simulation`]'s step: it owns
//! the file's streaming reader, the frame's boxes, the broadphase, the pairs and the records, and one of its steps
//! is read → broadphase → record. There is no narrowphase and no response (the file decides where every box is),
//! so the records' `narrowphase`, `resolution` and `walls` times are 0 and the `aabbs` time is the read. The
//! motion hint is exact: a box is marked resting when it is bit for bit the box of the frame the broadphase saw
//! before (a sleeping body in the recording engine), and every box is moved after a seek or an algorithm switch.
//!
//! A replay keeps a hash of every frame's sorted pairs ([`Replay::pairs_hash`]): two algorithms that agree give
//! the same. Its clock is the plan's: the window plays one frame per step the clock grants; a headless run plays
//! the frames as fast as they are read.
//!
//! [`Simulation`]: crate::Simulation

use crate::config::{ConfigError, file_error};
use crate::fnv::Fnv;
use crate::plan::{Plan, ReplaySetup};
use crate::record::{RunSummary, StepRecord};
use collide_aabbs::{AabbsError, Header, Reader};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::parallel::{keep_awake, on_worker};
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_math::Aabb;
use collide_timing::{Clock, DtPolicy, Phase, PhaseTimer};
use std::time::Instant;

/// A recorded scene played into a broadphase (see the module docs).
pub struct Replay {
    setup: ReplaySetup,
    reader: Reader,
    /// The boxes of the last frame fed to the broadphase.
    aabbs: Vec<Aabb>,
    /// The frame being read (swapped with `aabbs` once the motion hint is known).
    incoming: Vec<Aabb>,
    /// Per box: it differs from the broadphase's previous frame, bit for bit.
    moved: Vec<bool>,
    /// The broadphase has seen no frame since it was built or since a seek: every box counts as moved.
    fresh: bool,
    algorithm: &'static AlgorithmDescriptor,
    params: Params,
    broadphase: Box<dyn Broadphase>,
    pairs: PairList,
    records: Vec<StepRecord>,
    /// Frames fed so far.
    played: u64,
    /// FNV-1a over every played frame's sorted pairs, each frame closed by a marker.
    pairs_hash: Fnv,
    clock: Clock,
}

impl Replay {
    /// The replay `plan` describes (`replay = "FILE.aabbs"`), its file opened and every frame it will play checked
    /// — streamed, a frame at a time — so that a bad box is reported before anything is measured; on the plan's
    /// clock. Errors name the file, and the frame and box. A plan of a generated scene has no file: an error
    /// ([`crate::Simulation::of`] simulates it).
    pub fn of(plan: &Plan) -> Result<Self, ConfigError> {
        let (algorithm, params) = plan.algorithm();
        let mut replay = Self::from_parts(plan.replay()?.clone(), algorithm, params.clone()).map_err(file_error)?;
        replay.clock = plan.time().clock();
        Ok(replay)
    }

    /// A replay from already checked parts, on a fixed clock of the setup's dt; the file's frames to play are
    /// checked here.
    pub fn from_parts(
        setup: ReplaySetup,
        algorithm: &'static AlgorithmDescriptor,
        params: Params,
    ) -> Result<Self, AabbsError> {
        let mut reader = Reader::open(&setup.path)?;
        let mut incoming = Vec::new();
        reader.check_frames(setup.frames, &mut incoming)?;
        Ok(Self {
            reader,
            aabbs: Vec::with_capacity(incoming.len()),
            incoming,
            moved: Vec::new(),
            fresh: true,
            broadphase: (algorithm.build)(&params),
            algorithm,
            params,
            pairs: PairList::new(),
            records: Vec::new(),
            played: 0,
            pairs_hash: Fnv::default(),
            clock: Clock::new(DtPolicy::Fixed { dt: setup.dt }),
            setup,
        })
    }

    /// Feed the next frame to the broadphase: read it, mark the boxes that changed, find the pairs (sorted after
    /// the timed phase, so that the pairs hash and the drawn pairs do not depend on the algorithm), record. `Ok(None)` once the frames to play are done or the file has ended.
    pub fn step(&mut self) -> Result<Option<&StepRecord>, AabbsError> {
        let fed = on_worker(|| self.step_on_this_thread())?;
        Ok(if fed { self.records.last() } else { None })
    }

    /// The step on this pool thread, the pool's other threads kept awake through it ([`keep_awake`]), as the
    /// simulation's step keeps them: the broadphase's parallel sections (`kd` has three a frame) follow one
    /// another, and a worker that fell asleep between two makes the next wait 5–25 µs for its wake-up (`kd` on
    /// rapier's brownian crowd of 10⁴ boxes: 0.455 → 0.422 ms a frame with it). Timed without it, a replay would
    /// charge the broadphase for a wake-up the live step never pays.
    fn step_on_this_thread(&mut self) -> Result<bool, AabbsError> {
        keep_awake(|| self.step_awake())
    }

    fn step_awake(&mut self) -> Result<bool, AabbsError> {
        puffin::profile_scope!("replay step");
        if self.played >= self.setup.frames {
            return Ok(false);
        }
        let start = Instant::now();
        let mut timer = PhaseTimer::start();
        let frame = self.reader.next_frame();
        if !self.reader.read_frame(&mut self.incoming)? {
            return Ok(false);
        }
        self.mark_moved();
        std::mem::swap(&mut self.aabbs, &mut self.incoming);
        timer.end(Phase::Aabbs);
        {
            puffin::profile_scope!("broadphase");
            let frame = Frame::new(&self.aabbs).with_step(frame).with_dt(self.setup.dt).with_moved(&self.moved);
            self.broadphase.find_pairs(&frame, &mut self.pairs);
        }
        timer.end(Phase::Broadphase);
        self.pairs.sort();
        self.records.push(StepRecord {
            step: frame,
            n: self.aabbs.len() as u32,
            algorithm: self.broadphase.active_name(),
            phase: "",
            dt_ms: f64::from(self.setup.dt) * 1e3,
            step_ms: start.elapsed().as_secs_f64() * 1e3,
            phases: timer.times(),
            pairs: self.pairs.len() as u64,
            contacts: 0,
            removed: 0,
            tunnelled: 0,
            stats: self.broadphase.stats(),
        });
        for p in &self.pairs {
            self.pairs_hash.add_u64(u64::from(p.a) << 32 | u64::from(p.b));
        }
        self.pairs_hash.add_u64(u64::MAX);
        self.played += 1;
        Ok(true)
    }

    /// The motion hint of the incoming frame against the one the broadphase saw (bit for bit: a sleeping body's
    /// box is the same bits).
    fn mark_moved(&mut self) {
        let n = self.incoming.len();
        self.moved.clear();
        if std::mem::take(&mut self.fresh) || self.aabbs.len() != n {
            self.moved.resize(n, true);
            return;
        }
        let same = |a: &Aabb, b: &Aabb| {
            a.min.to_array().map(f32::to_bits) == b.min.to_array().map(f32::to_bits)
                && a.max.to_array().map(f32::to_bits) == b.max.to_array().map(f32::to_bits)
        };
        self.moved.extend(self.incoming.iter().zip(&self.aabbs).map(|(a, b)| !same(a, b)));
    }

    /// Play up to `frames` frames (fewer when the replay ends), calling `progress` after each with its index.
    /// The whole run on one of rayon's threads, as [`crate::Simulation::run`].
    pub fn run(&mut self, frames: u64, mut progress: impl FnMut(u64, &Self) + Send) -> Result<(), AabbsError> {
        let _ = self.records.try_reserve(usize::try_from(frames.min(self.setup.frames)).unwrap_or(0));
        on_worker(|| {
            for f in 0..frames {
                if !self.step_on_this_thread()? {
                    break;
                }
                progress(f, self);
            }
            Ok(())
        })
    }

    /// Make `frame` the next frame played (the app's scrub bar); frames played count on from there. The
    /// broadphase keeps its structures, and every box of the next frame is marked moved.
    pub fn seek(&mut self, frame: u64) -> Result<(), AabbsError> {
        self.reader.seek(frame)?;
        self.played = 0;
        self.pairs_hash = Fnv::default();
        self.setup.frames = self.reader.header().frames;
        self.fresh = true;
        Ok(())
    }

    /// Switch the broadphase; the new one starts cold on the next frame. The pairs cannot change, only the time.
    pub fn set_algorithm(&mut self, algorithm: &'static AlgorithmDescriptor, params: Params) {
        self.broadphase = (algorithm.build)(&params);
        self.algorithm = algorithm;
        self.params = params;
        self.fresh = true;
    }

    /// The checked setup.
    #[must_use]
    pub fn setup(&self) -> &ReplaySetup {
        &self.setup
    }

    /// The file's header.
    #[must_use]
    pub fn header(&self) -> &Header {
        self.reader.header()
    }

    /// The frame of the file the next step plays.
    #[must_use]
    pub fn next_frame(&self) -> u64 {
        self.reader.next_frame()
    }

    /// Frames played since the start (or the last seek).
    #[must_use]
    pub fn played(&self) -> u64 {
        self.played
    }

    /// A hash of the sorted pairs of every frame played since the start (or the last seek): two algorithms that
    /// agree give the same.
    #[must_use]
    pub fn pairs_hash(&self) -> u64 {
        self.pairs_hash.value()
    }

    /// The clock (the window's pace; a headless run ignores it).
    #[must_use]
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The clock, to pause, single-step or take a new policy.
    pub fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }

    /// The last frame's boxes.
    #[must_use]
    pub fn aabbs(&self) -> &[Aabb] {
        &self.aabbs
    }

    /// The last frame's motion hint.
    #[must_use]
    pub fn moved(&self) -> &[bool] {
        &self.moved
    }

    /// The last frame's pairs, sorted.
    #[must_use]
    pub fn pairs(&self) -> &PairList {
        &self.pairs
    }

    /// The active broadphase.
    #[must_use]
    pub fn broadphase(&self) -> &dyn Broadphase {
        self.broadphase.as_ref()
    }

    /// The active algorithm's registry row and parameters.
    #[must_use]
    pub fn algorithm(&self) -> (&'static AlgorithmDescriptor, &Params) {
        (self.algorithm, &self.params)
    }

    /// Every step's record so far (one step per frame).
    #[must_use]
    pub fn records(&self) -> &[StepRecord] {
        &self.records
    }

    /// Forget the records (the app keeps only the last).
    pub fn clear_records(&mut self) {
        self.records.clear();
    }

    /// The summary of the records so far.
    #[must_use]
    pub fn summary(&self) -> RunSummary {
        RunSummary::of(&self.records)
    }
}

#[cfg(test)]
mod tests;
