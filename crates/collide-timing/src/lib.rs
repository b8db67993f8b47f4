//! Time in collide: how much simulated time each step advances, and how long each step took.
//!
//! The thesis spends a chapter on *time consistency*: a simulation stepped with the frame's real duration
//! runs at the same speed on every machine, but a slow frame makes a long step, bodies jump further, the
//! broadphase (incremental sweep-and-prune above all) works harder, the next frame is slower still — a
//! feedback loop. A fixed step removes the loop but couples simulated speed to frame rate. The
//! [`DtPolicy`] choices and the [`Clock`] here let a user pick, and see, each trade-off:
//!
//! - [`DtPolicy::Fixed`]: every frame advances exactly `dt` (benchmarks: reproducible, no feedback);
//! - [`DtPolicy::Variable`]: every frame advances the real elapsed time (the thesis's mode);
//! - [`DtPolicy::Accumulator`]: physics at a fixed rate, as many steps as real time has accumulated
//!   (rendering free, simulation deterministic — Glenn Fiedler's "Fix your timestep");
//!
//! plus a **cap** on the real time taken per frame (slow motion rather than tunneling), a **time scale**
//! (0 pauses) and single stepping.
//!
//! [`Summary`] and [`RecentSamples`] compute mean, percentiles and max of frame times over a whole run or the last
//! frames; [`PhaseTimes`] is the per-phase record of one step; [`relative_dt`] is the thesis's "dt / 16.67 ms".

mod clock;
mod phases;
mod summary;

pub use clock::{Clock, DtPolicy, Steps};
pub use phases::{Phase, PhaseTimer, PhaseTimes};
pub use summary::{RecentSamples, Summary, relative_dt, relative_dt_ms};

/// One frame at 60 Hz, in seconds: the thesis's reference frame.
pub const FRAME_60HZ: f32 = 1.0 / 60.0;
