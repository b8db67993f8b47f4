//! The collide world and its step.
//!
//! - [`Bodies`]: the bodies in struct-of-arrays form (positions, velocities, radii, inverse masses), indexed by
//!   a dense `u32`. Spheres today; boxes will add an orientation and a half-extents column beside these.
//! - [`SCENARIOS`]: the registry of named, seeded scenes shared by the app, the bench and the tests
//!   (`thesis`, `uniform`, `cluster`, `tour`, …), each a row with its defaults, its spawn function and, for
//!   scripted scenes, a `script` run before every step (which may pull, resize and append bodies) with the named
//!   [`ScenePhase`]s it divides a run into. The `tour` is seven phases of [`TOUR_PHASE_STEPS`] steps built so
//!   that different broadphases win different phases.
//! - [`Config`]: the TOML config (serde, `deny_unknown_fields`), `--set KEY=VALUE` overrides, and errors that
//!   name the file, the line and the valid choices ([`ConfigError`]).
//! - [`Simulation`]: one step is integrate → boxes → broadphase → narrowphase → resolution → walls → record, one
//!   method per phase, each a puffin scope and a timed field of the [`FrameRecord`]. The box phase fills the
//!   broadphase's motion hint (`Frame::with_moved`) as it writes the boxes; the narrowphase's contacts flow to
//!   resolution, which recomputes one only when an earlier contact of the step has pushed one of its bodies (the
//!   sequential-impulse order). Records stay in memory and are written as CSV at the end of a run
//!   ([`write_csv`]), with the scripted phase of each step.
//!
//! - [`Replay`]: `scenario = "replay"` — the boxes of a `.aabbs` file (Broadmark's format, `collide-aabbs`) fed
//!   frame by frame to any broadphase, with no physics: read → broadphase → record, apart from the simulation's
//!   step. Its config keys go through [`Config`] like any other; the file's errors name the file, the frame and
//!   the box.
//! - [`memory`]: what a run needs and whether the machine has it, checked by [`Config::parse`] before anything is
//!   allocated (and the body columns reserved with `try_reserve` by [`Simulation::new`]).
//!
//! Nothing in the step allocates once its buffers have grown to the scene (pairs, contacts, boxes, motion flags).
//!
//! **The step on several threads.** The passes over the bodies (integrate, boxes, walls) go over the columns once
//! each, in fixed chunks of bodies, on rayon's threads once the body count reaches the shared
//! `collide_broadphase::Parallelism` threshold; the narrowphase goes over the pairs in chunks; resolution is
//! `collide_resolution::Solver`, whose rounds give the answer of resolving the contacts one by one in ascending
//! pair order. Every body's result depends on that body alone, chunk outputs are appended in chunk order and the
//! rounds are defined by the pairs, so the state hash is the same on any thread count and for any broadphase,
//! and the pairs are never sorted. The walls visit only the bodies that can be outside: those the box pass saw
//! outside (with the wall's own comparison) and those of the step's contacts.
//!
//! # Complexity
//!
//! A step is O(n) for the body passes, O(p) for the narrowphase over p pairs, O(n/64 + c·rounds) for resolution
//! over c contacts, O(outside + contact bodies) for the walls — plus the broadphase's own cost.
//!
//! # Performance tips
//!
//! At 10⁶ bodies the body passes stream tens of megabytes each, so memory bandwidth, not arithmetic, bounds
//! them, and two threads are expected to gain less there than in the narrowphase and resolution, which reach
//! bodies scattered through the columns (bodies are spawned in random order) and wait on cache misses that two
//! threads overlap.
//! `cargo xtask bench --study scaling-step` measures every phase on one and two threads side by side.

mod bodies;
mod config;
pub mod memory;
mod passes;
mod record;
mod replay;
mod scenario;
mod simulation;

pub use bodies::Bodies;
pub use config::{
    Config, ConfigError, DEFAULT_FRAMES, ParamEntry, PolicyName, REPLAY_SCENARIO, ReplaySetup, TimeConfig,
};
pub use record::{CSV_HEADER, FrameRecord, RunSummary, write_csv};
pub use replay::Replay;
pub use scenario::{SCENARIOS, ScenarioDescriptor, ScenePhase, Setup, TOUR_PHASE_STEPS, find_scenario};
pub use simulation::Simulation;

/// Re-exported so that users of the sim need not depend on the timing crate for phase names.
pub use collide_timing::{DtPolicy, Phase, PhaseTimes, Summary};
