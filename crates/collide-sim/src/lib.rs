//! The collide world and its step.
//!
//! - [`Bodies`]: the bodies in struct-of-arrays form (positions, velocities, radii, inverse masses), indexed by
//!   a dense `u32`. Spheres today; boxes will add an orientation and a half-extents column beside these.
//! - [`SCENARIOS`]: the registry of named, seeded scenes shared by the app, the bench and the tests
//!   (`thesis`, `uniform`, `cluster`, …), each a row with its defaults and its spawn function.
//! - [`Config`]: the TOML config (serde, `deny_unknown_fields`), `--set KEY=VALUE` overrides, and errors that
//!   name the file, the line and the valid choices ([`ConfigError`]).
//! - [`Simulation`]: one step is integrate → AABBs → broadphase → narrowphase → resolution → walls → record,
//!   each phase a puffin scope and a timed field of the [`FrameRecord`]. Records stay in memory and are written
//!   as CSV at the end of a run ([`write_csv`]).
//!
//! Nothing in the step allocates once its buffers have grown to the scene (pairs, contacts, boxes).

mod bodies;
mod config;
mod record;
mod scenario;
mod simulation;

pub use bodies::Bodies;
pub use config::{Config, ConfigError, ParamEntry, PolicyName, TimeConfig};
pub use record::{CSV_HEADER, FrameRecord, RunSummary, write_csv};
pub use scenario::{SCENARIOS, ScenarioDescriptor, ScenePhase, Setup, TOUR_PHASE_STEPS, find_scenario};
pub use simulation::Simulation;

/// Re-exported so that users of the sim need not depend on the timing crate for phase names.
pub use collide_timing::{DtPolicy, Phase, PhaseTimes, Summary};
