use crate::record::{FrameRecord, RunSummary};
use crate::scenario::{Setup, pull_toward};
use crate::{Bodies, Config, ConfigError};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::{Broadphase, Frame, Pair, PairList, Resize};
use collide_math::{Aabb, Rng, Vec3};
use collide_resolution::BodyState;
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
    pairs: PairList,
    contacts: Vec<Pair>,
    clock: Clock,
    rng: Rng,
    step: u64,
    time: f64,
    records: Vec<FrameRecord>,
    last_frame_seconds: f32,
    // Reused buffers for the rare removal of non-finite bodies.
    doomed: Vec<u32>,
    old_to_new: Vec<u32>,
}

impl Simulation {
    /// A simulation of `config`, spawned and ready for its first step.
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        let setup = config.resolve()?;
        let (algorithm, params) = config.algorithm()?;
        let clock = Clock::new(config.time.policy()).with_cap(config.time.cap).with_scale(config.time.scale);
        Ok(Self::from_parts(setup, algorithm, params, clock))
    }

    /// A simulation from already checked parts.
    #[must_use]
    pub fn from_parts(setup: Setup, algorithm: &'static AlgorithmDescriptor, params: Params, clock: Clock) -> Self {
        let mut sim = Self {
            broadphase: (algorithm.build)(&params),
            algorithm,
            params,
            bodies: Bodies::default(),
            aabbs: Vec::new(),
            pairs: PairList::new(),
            contacts: Vec::new(),
            last_frame_seconds: clock.nominal_dt(),
            clock,
            rng: Rng::new(setup.seed),
            step: 0,
            time: 0.0,
            records: Vec::new(),
            doomed: Vec::new(),
            old_to_new: Vec::new(),
            setup,
        };
        sim.respawn();
        sim
    }

    /// Throw the bodies away and spawn the scene again from its seed; the broadphase starts afresh.
    pub fn respawn(&mut self) {
        self.bodies.clear();
        self.rng = Rng::new(self.setup.seed);
        (self.setup.scenario.spawn)(&self.setup, &mut self.rng, &mut self.bodies);
        self.broadphase.reset();
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
        let steps = self.clock.advance(real_seconds);
        for _ in 0..steps.count {
            self.step(steps.dt);
        }
        steps.count
    }

    /// Run `frames` frames headless. Under a real-time policy each frame's duration is the previous frame's
    /// wall time, so a slow step makes the next dt longer — the thesis's feedback loop, reproduced without a
    /// window. `progress` is called after every frame with the frame index.
    pub fn run(&mut self, frames: u64, mut progress: impl FnMut(u64, &Self)) {
        self.records.reserve(frames as usize);
        for f in 0..frames {
            let start = Instant::now();
            self.frame(self.last_frame_seconds);
            self.last_frame_seconds = start.elapsed().as_secs_f32();
            progress(f, self);
        }
    }

    /// One step of `dt` seconds: integrate → AABBs → broadphase → narrowphase → resolution → walls → record.
    pub fn step(&mut self, dt: f32) -> &FrameRecord {
        puffin::profile_function!();
        let start = Instant::now();
        let mut timer = PhaseTimer::start();
        if let Some(script) = self.setup.scenario.script {
            script(self.step, &self.setup, &mut self.rng, &mut self.bodies);
        }

        {
            puffin::profile_scope!("integrate");
            let g = self.setup.gravity * dt;
            for (p, v) in self.bodies.position.iter_mut().zip(&mut self.bodies.velocity) {
                *v += g;
                *p += *v * dt;
            }
        }
        timer.end(Phase::Integrate);

        let removed = {
            puffin::profile_scope!("aabbs");
            self.remove_non_finite()
        };
        self.aabbs.clear();
        self.aabbs.extend(
            self.bodies.position.iter().zip(&self.bodies.radius).map(|(&p, &r)| Aabb::from_center_radius(p, r)),
        );
        timer.end(Phase::Aabbs);

        {
            puffin::profile_scope!("broadphase");
            let frame = Frame::new(&self.aabbs).with_step(self.step).with_dt(dt);
            self.broadphase.find_pairs(&frame, &mut self.pairs);
        }
        timer.end(Phase::Broadphase);

        {
            puffin::profile_scope!("narrowphase");
            // Sorting makes the response order — and so the whole run — the same for every broadphase.
            self.pairs.sort();
            self.contacts.clear();
            let (pos, rad) = (&self.bodies.position, &self.bodies.radius);
            for &pair in &self.pairs {
                let (a, b) = (pair.a as usize, pair.b as usize);
                if collide_narrowphase::sphere_sphere(pos[a], rad[a], pos[b], rad[b]).is_some() {
                    self.contacts.push(pair);
                    self.bodies.last_contact[a] = self.step;
                    self.bodies.last_contact[b] = self.step;
                }
            }
        }
        timer.end(Phase::Narrowphase);

        if self.setup.resolution {
            puffin::profile_scope!("resolution");
            let e = self.setup.restitution;
            let b = &mut self.bodies;
            for &Pair { a, b: c } in &self.contacts {
                let (i, j) = (a as usize, c as usize);
                let mut s1 = BodyState { position: b.position[i], velocity: b.velocity[i], inv_mass: b.inv_mass[i] };
                let mut s2 = BodyState { position: b.position[j], velocity: b.velocity[j], inv_mass: b.inv_mass[j] };
                collide_resolution::push_out(&mut s1, b.radius[i], &mut s2, b.radius[j]);
                collide_resolution::impulse(&mut s1, &mut s2, e);
                (b.position[i], b.velocity[i]) = (s1.position, s1.velocity);
                (b.position[j], b.velocity[j]) = (s2.position, s2.velocity);
            }
        }
        timer.end(Phase::Resolution);

        {
            puffin::profile_scope!("walls");
            let (container, e) = (self.setup.container, self.setup.restitution);
            let b = &mut self.bodies;
            for ((p, v), &r) in b.position.iter_mut().zip(&mut b.velocity).zip(&b.radius) {
                collide_resolution::wall(p, v, Vec3::splat(r), &container, e);
            }
        }
        timer.end(Phase::Walls);

        let record = FrameRecord {
            frame: self.step,
            n: self.bodies.len() as u32,
            algorithm: self.broadphase.active_name(),
            dt_ms: f64::from(dt) * 1e3,
            step_ms: start.elapsed().as_secs_f64() * 1e3,
            phases: timer.times(),
            pairs: self.pairs.len() as u64,
            contacts: self.contacts.len() as u64,
            removed,
            stats: self.broadphase.stats(),
        };
        self.step += 1;
        self.time += f64::from(dt);
        self.records.push(record);
        self.records.last().expect("just pushed")
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

    /// The last step's broadphase pairs, sorted.
    #[must_use]
    pub fn pairs(&self) -> &PairList {
        &self.pairs
    }

    /// The last step's touching pairs.
    #[must_use]
    pub fn contacts(&self) -> &[Pair] {
        &self.contacts
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

    /// The resolved scene.
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
    pub fn records(&self) -> &[FrameRecord] {
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

    /// A hash of every body's position and velocity bits.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.bodies.state_hash()
    }
}

#[cfg(test)]
mod tests;
