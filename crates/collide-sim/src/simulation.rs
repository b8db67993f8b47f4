use crate::continuous::{self, Continuous};
use crate::passes::{BoxPass, WallLists};
use crate::record::{RunSummary, StepRecord};
use crate::reorder::Reorder;
use crate::scenario::{Setup, pull_toward};
use crate::stages::{Contacts, Geometry, NarrowphaseBuffers, StepContext, shape_stages};
use crate::{Bodies, Config, ConfigError, Plan};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::parallel::{keep_awake, on_worker};
use collide_broadphase::{Broadphase, Frame, Pair, PairList, Parallelism, Resize};
use collide_math::{Aabb, Rng, Vec3};
use collide_narrowphase::{Contact, Manifold, Shape};
use collide_resolution::{ContactBodies, Material, Solver};
use collide_timing::{Clock, Phase, PhaseTimer};
use std::time::Instant;

/// The world and its step: bodies, the active broadphase, the clock and the records.
pub struct Simulation {
    setup: Setup,
    bodies: Bodies,
    aabbs: Vec<Aabb>,
    algorithm: &'static AlgorithmDescriptor,
    params: Params,
    broadphase: Box<dyn Broadphase>,
    /// The broadphase's pairs, the narrowphase's input.
    pairs: PairList,
    /// The touching pairs of this step and how they touch, from the narrowphase to resolution.
    contacts: Contacts,
    /// The contacts' bodies, marked at resolution: the solver numbers them, the walls visit them.
    contact_bodies: ContactBodies,
    /// Per body: its box changed since the previous step (the broadphase's motion hint).
    moved: Vec<bool>,
    /// When the step's own passes (bodies, narrowphase, resolution) go to rayon's threads.
    parallelism: Parallelism,
    /// The narrowphase's per-chunk buffers.
    narrowphase: NarrowphaseBuffers,
    /// Resolution's buffers.
    solver: Solver,
    /// Per chunk of bodies: those whose box was outside the container when it was built (the walls' list).
    outside: Vec<Vec<u32>>,
    /// Continuous detection's buffers (scenes that can tunnel only); boxed, as most scenes never use it and the
    /// simulation is held by value (the app's `World` enum).
    continuous: Box<Continuous>,

    clock: Clock,
    rng: Rng,
    step: u64,
    time: f64,
    records: Vec<StepRecord>,
    last_frame_seconds: f32,
    // Reused buffers for the rare removal of non-finite bodies (and for `churn`).
    doomed: Vec<u32>,
    old_to_new: Vec<u32>,
    /// Bodies were renumbered since the last step (`churn`): the kept boxes describe other bodies now, so the
    /// next step marks every body moved.
    renumbered: bool,
    /// The spatial reorder's schedule and buffers (`reorder_every`).
    reorder: Reorder,
}

impl Simulation {
    /// A simulation of the scene `plan` describes, spawned and ready for its first step. The body columns and the
    /// per-body buffers of the step are reserved with `try_reserve` for the scene's largest body count: an
    /// allocator that refuses is an error naming `bodies`, not an abort. A plan that replays a file has no scene
    /// to simulate: an error ([`crate::Replay::of`] plays it).
    pub fn of(plan: &Plan) -> Result<Self, ConfigError> {
        let (algorithm, params) = plan.algorithm();
        let mut sim = Self::unspawned(plan.scene()?.clone(), algorithm, params.clone(), plan.time().clock());
        let bodies = sim.setup.bodies.saturating_mul(sim.setup.scenario.growth);
        sim.try_reserve(bodies).map_err(|e| ConfigError {
            origin: "config".into(),
            line: None,
            message: format!("bodies = {}: cannot allocate room for {bodies} bodies ({e})", sim.setup.bodies),
        })?;
        sim.respawn();
        Ok(sim)
    }

    /// A simulation of a config built in code: [`Plan::new`] (which checks it, estimating the memory the run
    /// needs), then [`Simulation::of`].
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        Self::of(&Plan::new(config.clone())?)
    }

    /// A simulation from already checked parts.
    #[must_use]
    pub fn from_parts(setup: Setup, algorithm: &'static AlgorithmDescriptor, params: Params, clock: Clock) -> Self {
        let mut sim = Self::unspawned(setup, algorithm, params, clock);
        sim.respawn();
        sim
    }

    /// Room for `bodies` bodies in the body columns and the step's per-body buffers.
    fn try_reserve(&mut self, bodies: usize) -> Result<(), std::collections::TryReserveError> {
        self.bodies.try_reserve(bodies)?;
        self.aabbs.try_reserve_exact(bodies)?;
        self.moved.try_reserve_exact(bodies)
    }

    /// The parts put together, with no bodies yet.
    fn unspawned(setup: Setup, algorithm: &'static AlgorithmDescriptor, params: Params, clock: Clock) -> Self {
        Self {
            broadphase: (algorithm.build)(&params),
            algorithm,
            params,
            bodies: Bodies::default(),
            aabbs: Vec::new(),
            pairs: PairList::new(),
            contacts: Contacts::default(),
            contact_bodies: ContactBodies::default(),
            moved: Vec::new(),
            parallelism: Parallelism::default(),
            narrowphase: NarrowphaseBuffers::default(),
            solver: Solver::default(),
            outside: Vec::new(),
            continuous: Box::default(),
            last_frame_seconds: clock.nominal_dt(),
            clock,
            rng: Rng::new(setup.seed),
            step: 0,
            time: 0.0,
            records: Vec::new(),
            doomed: Vec::new(),
            old_to_new: Vec::new(),
            renumbered: false,
            reorder: Reorder::new(setup.reorder_every, &setup.container),
            setup,
        }
    }

    /// Throw the bodies away and spawn the scene again from its seed; the broadphase starts afresh.
    pub fn respawn(&mut self) {
        self.bodies.clear();
        self.rng = Rng::new(self.setup.seed);
        (self.setup.scenario.spawn)(&self.setup, &mut self.rng, &mut self.bodies);
        self.setup.assign_shapes(&mut self.bodies, 0);
        self.reorder = Reorder::new(self.setup.reorder_every, &self.setup.container);
        self.reorder.spawned(self.parallelism, &mut self.bodies);
        self.broadphase.reset();
        self.aabbs.clear();
        self.step = 0;
        self.time = 0.0;
    }

    /// Replace the scene's setup (body count, sizes, container…) and respawn.
    pub fn set_setup(&mut self, setup: Setup) {
        self.setup = setup;
        self.respawn();
    }

    /// Switch the broadphase; the new one starts cold on the next step. The pairs cannot change, only the time.
    pub fn set_algorithm(&mut self, algorithm: &'static AlgorithmDescriptor, params: Params) {
        self.broadphase = (algorithm.build)(&params);
        self.algorithm = algorithm;
        self.params = params;
    }

    /// Run one frame whose real duration was `real_seconds`: as many steps as the clock says (0 when paused).
    /// Returns the number of steps run.
    pub fn frame(&mut self, real_seconds: f32) -> u32 {
        self.frame_each(real_seconds, |_| {})
    }

    /// [`Simulation::frame`], calling `each_step` after every step: a recorder sees every step's boxes, however
    /// many steps the clock grants the frame.
    pub fn frame_each(&mut self, real_seconds: f32, mut each_step: impl FnMut(&Self) + Send) -> u32 {
        let steps = self.clock.advance(real_seconds);
        if steps.count > 0 {
            on_worker(|| {
                for _ in 0..steps.count {
                    self.step_on_this_thread(steps.dt);
                    each_step(self);
                }
            });
        }
        steps.count
    }

    /// Run `frames` frames headless. Under a real-time policy each frame's duration is the previous frame's
    /// wall time, so a slow step makes the next dt longer — the thesis's feedback loop, reproduced without a
    /// window. `progress` is called after every frame with the frame index.
    pub fn run(&mut self, frames: u64, progress: impl FnMut(u64, &Self) + Send) {
        self.run_each(frames, |_| {}, progress);
    }

    /// [`Simulation::run`], calling `each_step` after every step as [`Simulation::frame_each`] does.
    pub fn run_each(
        &mut self,
        frames: u64,
        mut each_step: impl FnMut(&Self) + Send,
        mut progress: impl FnMut(u64, &Self) + Send,
    ) {
        // Room for every record up front when the allocator gives it (the config's memory check counted them);
        // otherwise they grow as they come.
        let _ = self.records.try_reserve(usize::try_from(frames).unwrap_or(usize::MAX));
        // The whole run on one of rayon's threads, handed over once rather than once a step.
        on_worker(|| {
            for f in 0..frames {
                let start = Instant::now();
                self.frame_each(self.last_frame_seconds, &mut each_step);
                self.last_frame_seconds = start.elapsed().as_secs_f32();
                progress(f, self);
            }
        });
    }

    /// One step of `dt` seconds: script → integrate → boxes → broadphase → narrowphase → resolution → walls →
    /// record, each phase a timed field of the [`StepRecord`] and a puffin scope; data flows one way, each phase
    /// handing the next what it found (boxes, pairs, contacts, the contacts' bodies). In a scene that can tunnel,
    /// continuous detection adds its parts at their places (`continuous.rs`).
    ///
    /// The step runs on one of rayon's threads ([`on_worker`]): from a caller outside the pool, the parallel
    /// sections of the broadphase would often run serially on a two-core machine. A caller that steps many
    /// times from outside the pool saves the hand-over per step by wrapping its loop in [`on_worker`] itself
    /// (as [`Simulation::run`] and [`Simulation::frame`] do).
    pub fn step(&mut self, dt: f32) -> &StepRecord {
        on_worker(|| self.step_on_this_thread(dt));
        self.records.last().expect("a step records itself")
    }

    /// The step on this pool thread, the pool's other threads kept awake through it ([`keep_awake`]): a dozen short
    /// parallel sections follow one another, and a worker that fell asleep between two would make the next wait
    /// for its wake-up.
    fn step_on_this_thread(&mut self, dt: f32) {
        keep_awake(|| self.step_awake(dt));
    }

    /// The pipeline. The script runs first (it may add bodies, boxes among them); then the step takes its
    /// decisions, once: which stages the bodies' shapes need ([`shape_stages`]: the geometry, spheres or boxes,
    /// and the response, without or with spin), whether the scene can tunnel ([`continuous::detection`]), and the
    /// constants every stage reads ([`StepContext`]). The list below is the same for every scene.
    fn step_awake(&mut self, dt: f32) {
        puffin::profile_scope!("step");
        let start = Instant::now();
        let mut timer = PhaseTimer::start();
        self.run_script();
        if self.reorder.due(self.step) {
            self.reorder();
        }
        timer.end(Phase::Reorder);
        let (geometry, response) = shape_stages(&self.bodies);
        let detection = continuous::detection(&self.setup, dt);
        let cx = self.context(dt);

        detection.begin(&mut self.continuous, &self.bodies.position);
        geometry.integrate(&cx, &mut self.bodies);
        timer.end(Phase::Integrate);

        let removed = self.build_boxes(geometry, &cx);
        detection.sweep(&mut self.continuous, &self.bodies, removed, &mut self.aabbs, &mut self.moved);
        timer.end(Phase::Aabbs);

        self.find_pairs(dt);
        timer.end(Phase::Broadphase);

        let pairs = self.pairs.as_slice();
        let mut tunnelled = detection.impacts(&mut self.continuous, &cx, &self.setup, pairs, &mut self.bodies);
        geometry.narrowphase(&cx, &mut self.narrowphase, pairs, &self.bodies, &mut self.contacts);
        timer.end(Phase::Narrowphase);

        self.mark_contact_bodies();
        if self.setup.resolution {
            response.resolve(&cx, &mut self.solver, &self.contacts, &self.contact_bodies, &mut self.bodies);
        }
        timer.end(Phase::Resolution);

        let lists = WallLists { outside: &self.outside, contact_bodies: &self.contact_bodies };
        response.walls(&cx, lists, &mut self.bodies);
        tunnelled += detection.obstacles(&mut self.continuous, &cx, &self.setup, &mut self.bodies);
        timer.end(Phase::Walls);

        self.record(dt, start, &timer, removed, tunnelled);
    }

    /// The step's constants: the contacts' material is the scene's restitution and friction, and the resting speed
    /// (what gravity adds in two steps: a point approaching slower rests instead of bouncing; 0 without gravity).
    fn context(&self, dt: f32) -> StepContext {
        let rest_speed = 2.0 * self.setup.gravity.length() * dt;
        let material = Material { restitution: self.setup.restitution, friction: self.setup.friction, rest_speed };
        StepContext {
            parallelism: self.parallelism,
            dt,
            gravity: self.setup.gravity,
            container: self.setup.container,
            material,
            step: self.step,
        }
    }

    /// The scenario's scripted events. A script that appended bodies is followed by the notice the broadphase
    /// needs: every old body keeps its index, the new ones follow.
    fn run_script(&mut self) {
        let Some(script) = self.setup.scenario.script else { return };
        let before = self.bodies.len();
        script(self.step, &self.setup, &mut self.rng, &mut self.bodies);
        if self.bodies.len() > before {
            self.setup.assign_shapes(&mut self.bodies, before);
        }
        // The previous step's boxes are the bodies the broadphase knows.
        let (old, new) = (self.aabbs.len(), self.bodies.len());
        if self.step > 0 && new != old {
            assert!(new > old, "scenario scripts only append bodies ({old} → {new})");
            self.old_to_new.clear();
            self.old_to_new.extend(0..old as u32);
            self.broadphase.on_resize(&Resize { old_to_new: &self.old_to_new, new_len: new });
        }
    }

    /// Sort the bodies into spatial order ([`crate::Reorder`]) and tell the broadphase the permutation. The
    /// reorder gathers the columns through the box buffer, which the step rebuilds next: the motion hint then
    /// marks every body moved, as after any resize.
    fn reorder(&mut self) {
        puffin::profile_scope!("reorder");
        let n = self.bodies.len();
        self.aabbs.resize(n, Aabb::default());
        if let Some(old_to_new) = self.reorder.reorder(self.parallelism, &mut self.bodies, &mut self.aabbs) {
            self.broadphase.on_resize(&Resize { old_to_new, new_len: n });
            self.renumbered = true;
        }
    }

    /// Rebuild every box and the motion hint in one pass (a body whose new box is bit for bit its old one is
    /// marked resting), listing the bodies outside the container for the walls. A body whose state is not finite
    /// has a non-finite box (integration made its position so): when the pass finds one, such bodies are removed
    /// and the pass runs again — a rare event. Returns how many bodies were removed.
    fn build_boxes(&mut self, geometry: &dyn Geometry, cx: &StepContext) -> u32 {
        puffin::profile_scope!("aabbs");
        let mut removed = 0;
        loop {
            let n = self.bodies.len();
            // The previous boxes describe the same bodies under the same indices, except after a removal or a
            // churn (indices moved) and for bodies a script appended (no previous box): those are marked moved.
            let known = if removed > 0 || std::mem::take(&mut self.renumbered) { 0 } else { self.aabbs.len().min(n) };
            self.aabbs.resize(n, Aabb::default());
            self.moved.resize(n, true);
            let pass = BoxPass { container: cx.container, known, outside: &mut self.outside };
            if !geometry.boxes(cx, &self.bodies, &mut self.aabbs, &mut self.moved, pass) {
                return removed;
            }
            let more = self.remove_non_finite();
            if more == 0 {
                // Finite bodies whose box overflows (a radius near f32::MAX, which the config refuses): the box
                // goes to the broadphase as it is, under the invalid-box contract.
                return removed;
            }
            removed += more;
        }
    }

    fn find_pairs(&mut self, dt: f32) {
        puffin::profile_scope!("broadphase");
        let speed = crate::speed_hint::speed_hint(&self.bodies.velocity, &self.aabbs, dt);
        let frame = Frame::new(&self.aabbs).with_step(self.step).with_dt(dt).with_moved(&self.moved).with_speed(speed);
        self.broadphase.find_pairs(&frame, &mut self.pairs);
    }

    /// The bodies of this step's contacts, marked for resolution and the walls. Timed as resolution, whose
    /// numbering of the bodies it is (the walls need it too when resolution is off).
    fn mark_contact_bodies(&mut self) {
        puffin::profile_scope!("contact bodies");
        self.contact_bodies.mark(self.bodies.len(), self.contacts.pairs());
    }

    fn record(&mut self, dt: f32, start: Instant, timer: &PhaseTimer, removed: u32, tunnelled: u32) {
        let record = StepRecord {
            step: self.step,
            n: self.bodies.len() as u32,
            algorithm: self.broadphase.active_name(),
            phase: self.setup.scenario.phase_at(self.step),
            dt_ms: f64::from(dt) * 1e3,
            step_ms: start.elapsed().as_secs_f64() * 1e3,
            phases: timer.times(),
            pairs: self.pairs.len() as u64,
            contacts: self.contacts.len() as u64,
            removed,
            tunnelled,
            stats: self.broadphase.stats(),
        };
        self.step += 1;
        self.time += f64::from(dt);
        self.records.push(record);
    }

    /// Remove bodies whose state is no longer finite, before their boxes are built, and tell the broadphase.
    /// A NaN must never reach a broadphase: one NaN coordinate makes every comparison false, which silently
    /// corrupts sorted structures. Returns how many were removed.
    fn remove_non_finite(&mut self) -> u32 {
        self.doomed.clear();
        for i in 0..self.bodies.len() {
            if !self.bodies.is_finite(i) {
                self.doomed.push(i as u32);
            }
        }
        if self.doomed.is_empty() {
            return 0;
        }
        for &i in &self.doomed {
            let (p, v) = (self.bodies.position[i as usize], self.bodies.velocity[i as usize]);
            eprintln!(
                "warning: step {}: body {i} has a non-finite state (position {p}, velocity {v}); removed",
                self.step
            );
        }
        self.bodies.remove(&self.doomed, &mut self.old_to_new);
        self.broadphase.on_resize(&Resize { old_to_new: &self.old_to_new, new_len: self.bodies.len() });
        self.doomed.len() as u32
    }

    /// Replace bodies between two steps: the bodies `doomed` (ascending indices) go, the others keep their order,
    /// and as many new ones arrive at the end — each with the radius of one that went, at a uniform place in the
    /// container, at the scene's speed. The broadphase hears one `on_resize` (the kept bodies' new indices; the new
    /// ones unmapped). Allocates (a resize is a rare event, as in the simulation's own removal of non-finite
    /// bodies); the churn tests drive every algorithm's resize path through the real step with it.
    pub fn churn(&mut self, doomed: &[u32]) {
        let old = self.bodies.len();
        // A box's radius is its bounding radius; the size its half extents were drawn around is that over the
        // base half extents' length, in radii.
        let to_size = self.setup.radius / self.setup.half_extents.length();
        let size = |b: &Bodies, i: usize| if b.shape(i) == Shape::Box { b.radius[i] * to_size } else { b.radius[i] };
        let radii: Vec<f32> = doomed.iter().map(|&i| size(&self.bodies, i as usize)).collect();
        self.bodies.remove(doomed, &mut self.old_to_new);
        let kept = self.bodies.len();
        for r in radii {
            let (p, v) = (self.setup.inside(&mut self.rng, r), self.setup.draw_velocity(&mut self.rng));
            self.bodies.push_sphere(p, v, r);
        }
        self.setup.assign_shapes(&mut self.bodies, kept);
        debug_assert_eq!(self.old_to_new.len(), old);
        self.broadphase.on_resize(&Resize { old_to_new: &self.old_to_new, new_len: self.bodies.len() });
        self.renumbered = true;
    }

    /// Send every body toward `target` so that all arrive together in `seconds` (the app's "pull toward me").
    pub fn pull_toward(&mut self, target: Vec3, seconds: f32) {
        pull_toward(&mut self.bodies, target, 1.0, seconds.max(1e-3));
    }

    /// The bodies (read-only).
    #[must_use]
    pub fn bodies(&self) -> &Bodies {
        &self.bodies
    }

    /// The bodies, for scripted experiments and tests (e.g. injecting a NaN).
    pub fn bodies_mut(&mut self) -> &mut Bodies {
        &mut self.bodies
    }

    /// This step's boxes.
    #[must_use]
    pub fn aabbs(&self) -> &[Aabb] {
        &self.aabbs
    }

    /// The last step's broadphase pairs, in the order the broadphase wrote them (the step does not sort them:
    /// sort a copy to compare with another algorithm's).
    #[must_use]
    pub fn pairs(&self) -> &PairList {
        &self.pairs
    }

    /// The last step's touching pairs and how they touch, in the pairs' order: every touching pair of a scene
    /// of spheres, the sphere–sphere pairs of a scene with boxes (see [`Simulation::manifolds`]).
    #[must_use]
    pub fn contacts(&self) -> &[(Pair, Contact)] {
        &self.contacts.spheres
    }

    /// The last step's touching pairs with a box and their manifolds, in the pairs' order (empty in a scene of
    /// spheres).
    #[must_use]
    pub fn manifolds(&self) -> &[(Pair, Manifold)] {
        &self.contacts.manifolds
    }

    /// The last step's motion hint: per body, whether its box changed since the step before.
    #[must_use]
    pub fn moved(&self) -> &[bool] {
        &self.moved
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

    /// The scene, checked, its defaults filled in.
    #[must_use]
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The clock, to pause, single-step, scale or change policy.
    pub fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }

    /// The clock.
    #[must_use]
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Steps run so far.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// Simulated seconds so far.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Every step's record so far.
    #[must_use]
    pub fn records(&self) -> &[StepRecord] {
        &self.records
    }

    /// Forget the records (the app keeps only a window; long interactive sessions would grow without bound).
    pub fn clear_records(&mut self) {
        self.records.clear();
    }

    /// The summary of the records so far.
    #[must_use]
    pub fn summary(&self) -> RunSummary {
        RunSummary::of(&self.records)
    }

    /// Over the run, with `ccd`: how many times a body the contact solver pushed through an obstacle was put back on
    /// its side (a crowd's push, not the body's own motion, which its time of impact stops). 0 in a sparse scene.
    #[must_use]
    pub fn held_at_obstacles(&self) -> u64 {
        self.continuous.held()
    }

    /// A hash of every body's position and velocity bits.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.bodies.state_hash()
    }
}

#[cfg(test)]
mod tests;
