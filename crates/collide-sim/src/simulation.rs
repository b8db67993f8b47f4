use crate::ccd::{self, Continuous};
use crate::passes::{self, BoxPass, WallColumns};
use crate::record::{FrameRecord, RunSummary};
use crate::scenario::{Setup, pull_toward};
use crate::spin_passes::{self, RigidWallColumns, RigidWallSetup};
use crate::{Bodies, Config, ConfigError};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::parallel::{keep_awake, on_worker};
use collide_broadphase::{Broadphase, Frame, Pair, PairList, Parallelism, Resize};
use collide_math::{Aabb, Rng, Vec3};
use collide_narrowphase::{Contact, Manifold, Shape, ShapeContacts, SphereContacts};
use collide_resolution::{Material, Solver};
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
    /// The touching pairs of this step and how they touch, from the narrowphase to resolution.
    contacts: Vec<(Pair, Contact)>,
    /// Per body: its box changed since the previous step (the broadphase's motion hint).
    moved: Vec<bool>,
    /// When the step's own passes (bodies, narrowphase, resolution) go to rayon's threads.
    parallelism: Parallelism,
    /// The narrowphase's per-chunk buffers.
    narrowphase: SphereContacts,
    /// The touching pairs with a box and their manifolds (scenes with boxes; empty otherwise).
    manifolds: Vec<(Pair, Manifold)>,
    /// The shape-dispatching narrowphase's per-chunk buffers (scenes with boxes).
    shape_contacts: ShapeContacts,
    /// The contacts' bodies, marked and numbered by the narrowphase, resolved by resolution.
    solver: Solver,
    /// Per chunk of bodies: those whose box was outside the container when it was built (the walls' list).
    outside: Vec<Vec<u32>>,
    /// Continuous detection and the tunnelling count (scenes that can tunnel only); boxed, as most scenes never
    /// use it and the simulation is held by value (the app's `World` enum).
    continuous: Box<Continuous>,
    /// This step's tunnelled bodies and pairs.
    tunnelled: u32,

    clock: Clock,
    rng: Rng,
    step: u64,
    time: f64,
    records: Vec<FrameRecord>,
    last_frame_seconds: f32,
    // Reused buffers for the rare removal of non-finite bodies (and for `churn`).
    doomed: Vec<u32>,
    old_to_new: Vec<u32>,
    /// Bodies were renumbered since the last step (`churn`): the kept boxes describe other bodies now, so the
    /// next step marks every body moved.
    renumbered: bool,
}

impl Simulation {
    /// A simulation of `config`, spawned and ready for its first step. Besides the config's own errors
    /// ([`Config::resolve`], which estimates the memory the run needs), the body columns and the per-body buffers of
    /// the step are reserved with `try_reserve` for the scene's largest body count: an allocator that refuses is an
    /// error naming `bodies`, not an abort.
    pub fn new(config: &Config) -> Result<Self, ConfigError> {
        let setup = config.resolve()?;
        let (algorithm, params) = config.algorithm()?;
        let clock = Clock::new(config.time.policy()).with_cap(config.time.cap).with_scale(config.time.scale);
        let mut sim = Self::unspawned(setup, algorithm, params, clock);
        let bodies = sim.setup.bodies.saturating_mul(sim.setup.scenario.growth);
        sim.try_reserve(bodies).map_err(|e| ConfigError {
            origin: "config".into(),
            line: None,
            message: format!("bodies = {}: cannot allocate room for {bodies} bodies ({e})", sim.setup.bodies),
        })?;
        sim.respawn();
        Ok(sim)
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
            contacts: Vec::new(),
            moved: Vec::new(),
            parallelism: Parallelism::default(),
            narrowphase: SphereContacts::default(),
            manifolds: Vec::new(),
            shape_contacts: ShapeContacts::default(),
            solver: Solver::default(),
            outside: Vec::new(),
            continuous: Box::default(),
            tunnelled: 0,
            last_frame_seconds: clock.nominal_dt(),
            clock,
            rng: Rng::new(setup.seed),
            step: 0,
            time: 0.0,
            records: Vec::new(),
            doomed: Vec::new(),
            old_to_new: Vec::new(),
            renumbered: false,
            setup,
        }
    }

    /// Throw the bodies away and spawn the scene again from its seed; the broadphase starts afresh.
    pub fn respawn(&mut self) {
        self.bodies.clear();
        self.rng = Rng::new(self.setup.seed);
        (self.setup.scenario.spawn)(&self.setup, &mut self.rng, &mut self.bodies);
        self.setup.assign_shapes(&mut self.bodies, 0);
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
    /// record. Each phase is one method, a puffin scope and a timed field of the [`FrameRecord`]; data flows one
    /// way, each phase handing the next what it found (boxes, pairs, contacts).
    ///
    /// The step runs on one of rayon's threads ([`on_worker`]): from a caller outside the pool, the parallel
    /// sections of the broadphase would often run serially on a two-core machine. A caller that steps many
    /// times from outside the pool saves the hand-over per step by wrapping its loop in [`on_worker`] itself
    /// (as [`Simulation::run`] and [`Simulation::frame`] do).
    pub fn step(&mut self, dt: f32) -> &FrameRecord {
        on_worker(|| self.step_on_this_thread(dt));
        self.records.last().expect("a step records itself")
    }

    /// The step on this pool thread, the pool's other threads kept awake through it ([`keep_awake`]): a dozen short
    /// parallel sections follow one another, and a worker that fell asleep between two would make the next wait
    /// for its wake-up.
    fn step_on_this_thread(&mut self, dt: f32) {
        keep_awake(|| self.step_awake(dt));
    }

    fn step_awake(&mut self, dt: f32) {
        puffin::profile_scope!("step");
        let start = Instant::now();
        let mut timer = PhaseTimer::start();
        self.run_script();
        // Continuous detection and its counter, only in scenes that have something to count (see `ccd`).
        let continuous = Continuous::active(&self.setup, dt);
        if continuous {
            self.continuous.begin(&self.bodies.position);
        }
        self.integrate(dt);
        timer.end(Phase::Integrate);
        let removed = self.build_boxes();
        if continuous {
            self.sweep_boxes(removed);
        }
        timer.end(Phase::Aabbs);
        self.find_pairs(dt);
        timer.end(Phase::Broadphase);
        self.tunnelled = 0;
        if continuous {
            self.times_of_impact(dt);
        }
        self.narrowphase();
        timer.end(Phase::Narrowphase);
        if self.setup.resolution {
            self.resolve(dt);
        }
        timer.end(Phase::Resolution);
        self.walls(dt);
        if continuous {
            self.obstacles(dt);
        }
        timer.end(Phase::Walls);
        self.record(dt, start, &timer, removed);
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

    /// `v += g·dt; p += v·dt`, one pass over the two columns; and the boxes turned, in a scene with boxes.
    fn integrate(&mut self, dt: f32) {
        puffin::profile_scope!("integrate");
        let b = &mut self.bodies;
        passes::integrate(self.parallelism, &mut b.position, &mut b.velocity, self.setup.gravity, dt);
        if b.spin.boxes() > 0 {
            spin_passes::rotate(self.parallelism, &mut b.spin, dt);
        }
    }

    /// Rebuild every box and the motion hint in one pass (a body whose new box is bit for bit its old one is
    /// marked resting), listing the bodies outside the container for the walls. A body whose state is not finite
    /// has a non-finite box (integration made its position so): when the pass finds one, such bodies are removed
    /// and the pass runs again — a rare event. Returns how many bodies were removed.
    fn build_boxes(&mut self) -> u32 {
        puffin::profile_scope!("aabbs");
        let mut removed = 0;
        loop {
            let n = self.bodies.len();
            // The previous boxes describe the same bodies under the same indices, except after a removal or a
            // churn (indices moved) and for bodies a script appended (no previous box): those are marked moved.
            let known = if removed > 0 || std::mem::take(&mut self.renumbered) { 0 } else { self.aabbs.len().min(n) };
            self.aabbs.resize(n, Aabb::default());
            self.moved.resize(n, true);
            let pass = BoxPass { container: self.setup.container, known, outside: &mut self.outside };
            let b = &self.bodies;
            let (aabbs, moved) = (&mut self.aabbs, &mut self.moved);
            let invalid = if b.spin.boxes() > 0 {
                // A box's box from its orientation (`Obb::aabb`), a sphere's from its radius.
                let (shape, half, rotation) = (&b.spin.shape, &b.spin.half_extents, &b.spin.rotation);
                passes::boxes(self.parallelism, &b.position, &b.radius, aabbs, moved, pass, |i, p, r| {
                    if shape[i] == Shape::Box {
                        collide_math::Obb::new(p, half[i], rotation[i]).aabb()
                    } else {
                        Aabb::from_center_radius(p, r)
                    }
                })
            } else {
                passes::boxes(self.parallelism, &b.position, &b.radius, aabbs, moved, pass, passes::sphere_aabb)
            };
            if !invalid {
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

    /// The fast bodies' boxes become their swept boxes (see [`Continuous::sweep`]). A step that removed bodies
    /// renumbered them, so the start positions no longer match: that (rare) step has no fast body.
    fn sweep_boxes(&mut self, removed: u32) {
        puffin::profile_scope!("sweep");
        if removed > 0 {
            self.continuous.forget(&self.bodies.position);
        }
        self.continuous.sweep(&self.bodies, &mut self.aabbs, &mut self.moved);
    }

    /// The times of impact of the fast bodies, before the discrete narrowphase: with `ccd` (and resolution on),
    /// the bodies are stopped and bounced at their impacts; without, the pairs that passed through each other are
    /// counted.
    fn times_of_impact(&mut self, dt: f32) {
        puffin::profile_scope!("times of impact");
        let material = self.material(dt);
        let ccd = self.setup.ccd && self.setup.resolution;
        let (pairs, obstacles) = (self.pairs.as_slice(), &self.setup.obstacles);
        self.tunnelled += self.continuous.events(ccd, &material, pairs, obstacles, &mut self.bodies);
    }

    /// The obstacles: with `ccd`, the bodies pushed through one by the contact solver put back on their side; every
    /// body pushed out of them (O(n·k)); then the bodies that went through one counted.
    fn obstacles(&mut self, dt: f32) {
        puffin::profile_scope!("obstacles");
        let material = self.material(dt);
        let (b, obstacles) = (&mut self.bodies, &self.setup.obstacles);
        let e = self.setup.restitution;
        if self.setup.ccd && self.setup.resolution {
            self.continuous.keep_sides(b, obstacles, e);
        }
        ccd::push_out_of_obstacles(&mut b.position, &mut b.velocity, &b.radius, &b.spin.shape, obstacles, e);
        if b.spin.boxes() > 0 {
            ccd::push_boxes_out_of_obstacles(b, obstacles, &material);
        }
        self.tunnelled += self.continuous.crossings(b, obstacles);
    }

    fn find_pairs(&mut self, dt: f32) {
        puffin::profile_scope!("broadphase");
        let speed = crate::speed_hint::speed_hint(&self.bodies.velocity, &self.aabbs, dt);
        let frame = Frame::new(&self.aabbs).with_step(self.step).with_dt(dt).with_moved(&self.moved).with_speed(speed);
        self.broadphase.find_pairs(&frame, &mut self.pairs);
    }

    /// The exact test on every candidate pair, in the broadphase's order, keeping the contacts for resolution;
    /// their bodies are marked and numbered for resolution and the walls.
    ///
    /// In a scene with boxes the test is chosen per pair by the bodies' shapes (`ShapeContacts`): sphere–sphere
    /// pairs give the same contacts, the pairs with a box their manifolds.
    fn narrowphase(&mut self) {
        puffin::profile_scope!("narrowphase");
        let b = &self.bodies;
        if b.spin.boxes() > 0 {
            let columns = b.shape_columns();
            let pairs = self.pairs.as_slice();
            self.shape_contacts.find(self.parallelism, pairs, &columns, &mut self.contacts, &mut self.manifolds);
            self.solver.prepare_shapes(self.parallelism, b.len(), &self.contacts, &self.manifolds);
            return;
        }
        self.manifolds.clear();
        self.narrowphase.find(self.parallelism, self.pairs.as_slice(), &b.position, &b.radius, &mut self.contacts);
        self.solver.prepare(self.parallelism, b.len(), &self.contacts);
    }

    /// The contacts' material: the scene's restitution and friction, and the resting speed (what gravity adds in
    /// two steps: a point approaching slower rests instead of bouncing; 0 without gravity).
    fn material(&self, dt: f32) -> Material {
        let rest_speed = 2.0 * self.setup.gravity.length() * dt;
        Material { restitution: self.setup.restitution, friction: self.setup.friction, rest_speed }
    }

    /// Push-out and impulse for every contact, with the answer of resolving them one by one in ascending pair
    /// order — whatever order the broadphase found them in (see [`collide_resolution::Solver`]). As each body of
    /// a contact is written back, the container's walls put it back inside (resolution may have pushed it out),
    /// while it is in the cache.
    ///
    /// With rotating bodies (boxes, friction) the solver's rigid path resolves every contact at its points; the
    /// walls then meet the contacts' bodies in the wall pass, which has their angular velocities.
    fn resolve(&mut self, dt: f32) {
        puffin::profile_scope!("resolution");
        if self.bodies.spin.enabled() {
            let material = self.material(dt);
            let b = &mut self.bodies;
            self.solver.solve_rigid(self.parallelism, &material, &b.rigid_columns(), &self.manifolds);
            self.solver.write_back(self.parallelism, &mut b.position, &mut b.velocity, |_, _, _| {});
            self.solver.write_back_spin(self.parallelism, &mut b.spin.angular_velocity);
            return;
        }
        let b = &mut self.bodies;
        self.solver.solve(self.parallelism, self.setup.restitution, &b.position, &b.velocity, &b.inv_mass, &b.radius);
        let (radius, container, e) = (&b.radius, self.setup.container, self.setup.restitution);
        self.solver.write_back(self.parallelism, &mut b.position, &mut b.velocity, |i, p, v| {
            collide_resolution::wall(p, v, Vec3::splat(radius[i]), &container, e);
        });
    }

    /// The container's walls, for the bodies that can be outside it (see [`passes::walls`]; the contacts' bodies
    /// met them as resolution wrote them back, or meet them here when resolution is off); the contacts' bodies get
    /// their `last_contact` stamp.
    fn walls(&mut self, dt: f32) {
        puffin::profile_scope!("walls");
        if self.bodies.spin.enabled() {
            let material = self.material(dt);
            let b = &mut self.bodies;
            let crate::Spin { shape, rotation, half_extents, inv_inertia, angular_velocity, .. } = &mut b.spin;
            let setup = RigidWallSetup {
                radius: &b.radius,
                inv_mass: &b.inv_mass,
                shape,
                rotation,
                half_extents,
                inv_inertia,
                container: self.setup.container,
                material,
                step: self.step,
            };
            let columns = RigidWallColumns {
                position: &mut b.position,
                velocity: &mut b.velocity,
                last_contact: &mut b.last_contact,
                angular_velocity,
            };
            spin_passes::rigid_walls(self.parallelism, columns, &setup, &self.outside, &self.solver);
            return;
        }
        let b = &mut self.bodies;
        let columns =
            WallColumns { position: &mut b.position, velocity: &mut b.velocity, last_contact: &mut b.last_contact };
        let setup = (self.setup.container, self.setup.restitution, self.step);
        let contacts_walled = self.setup.resolution;
        passes::walls(self.parallelism, columns, &b.radius, &self.outside, (&self.solver, contacts_walled), setup);
    }

    fn record(&mut self, dt: f32, start: Instant, timer: &PhaseTimer, removed: u32) {
        let record = FrameRecord {
            frame: self.step,
            n: self.bodies.len() as u32,
            algorithm: self.broadphase.active_name(),
            phase: self.setup.scenario.phase_at(self.step),
            dt_ms: f64::from(dt) * 1e3,
            step_ms: start.elapsed().as_secs_f64() * 1e3,
            phases: timer.times(),
            pairs: self.pairs.len() as u64,
            contacts: (self.contacts.len() + self.manifolds.len()) as u64,
            removed,
            tunnelled: self.tunnelled,
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
        &self.contacts
    }

    /// The last step's touching pairs with a box and their manifolds, in the pairs' order (empty in a scene of
    /// spheres).
    #[must_use]
    pub fn manifolds(&self) -> &[(Pair, Manifold)] {
        &self.manifolds
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
