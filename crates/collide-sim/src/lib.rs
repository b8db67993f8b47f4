//! The collide world and its step.
//!
//! - [`Bodies`]: the bodies in struct-of-arrays form (positions, velocities, radii, inverse masses), indexed by
//!   a dense `u32`, and — in scenes with boxes or friction — the spin columns, [`Spin`]: shape, half extents,
//!   rotation, angular velocity, inverse inertia. A scene of spheres without friction has none
//!   ([`Bodies::spin`] is `None`).
//! - [`SCENARIOS`]: the registry of named, seeded scenes shared by the app, the bench and the tests
//!   (`thesis`, `uniform`, `cluster`, `tour`, `tunnel`, …), each a row with its defaults, its spawn function and, for
//!   scripted scenes, a `script` run before every step (which may pull, resize and append bodies) with the named
//!   [`ScenePhase`]s it divides a run into. The `tour` is seven phases of [`TOUR_PHASE_STEPS`] steps built so
//!   that different broadphases win different phases.
//! - [`Config`]: the TOML config as written (serde, `deny_unknown_fields`) and `--set KEY=VALUE` overrides;
//!   [`Plan`]: the config checked once — the [`Source`] of the boxes (a generated scene's [`Setup`]
//!   or a recorded file's [`ReplaySetup`]), the algorithm and its parameters, the [`TimePolicy`] — with errors
//!   that name the file, the line and the valid choices ([`ConfigError`]).
//! - [`Simulation`]: one step is integrate → boxes → broadphase → narrowphase → resolution → walls → record, one
//!   list of stages, each a puffin scope and a timed field of the [`StepRecord`], each handing the next what it
//!   found. The box phase fills the broadphase's motion hint (`Frame::with_moved`) as it writes the boxes, and
//!   lists the bodies outside the container; the broadphase's pairs go to the narrowphase; the narrowphase's
//!   contacts go to resolution, which marks their bodies (`collide_resolution::ContactBodies`) and recomputes a
//!   contact only when an earlier contact of the step has pushed one of its bodies (the sequential-impulse order);
//!   the contacts' bodies and the box pass's list go to the walls. Records stay in memory and are written as CSV
//!   at the end of a run ([`write_csv`]), with the scripted phase of each step.
//!
//! - [`Replay`]: `replay = "FILE.aabbs"` — the boxes of a `.aabbs` file (Broadmark's format, `collide-aabbs`)
//!   fed frame by frame to any broadphase, with no physics: read → broadphase → record, apart from the
//!   simulation's step. Its config keys go through [`Plan`] like any other; the file's errors name the file, the
//!   frame and the box.
//! - [`Run`]: what a simulation and a replay both offer — records, summary, clock, algorithm, boxes — so that the
//!   app and the headless runner drive either without asking which.
//! - [`memory`]: what a run needs and whether the machine has it, checked when a [`Plan`] is made, before
//!   anything is allocated (and the body columns reserved with `try_reserve` by [`Simulation::of`]).
//!
//! Nothing in the step allocates once its buffers have grown to the scene (pairs, contacts, boxes, motion flags).
//!
//! **The step's decisions, taken once.** Before its first stage (after the scenario's script, which may add
//! bodies), a step decides which stages the bodies' shapes need (`stages.rs`): spheres that do not spin, spheres
//! that spin (friction), or a scene with boxes — three implementations of the same five stages (integrate, boxes,
//! narrowphase, resolution, walls); and whether the scene can tunnel (`continuous.rs`): continuous detection, or
//! nothing. No stage asks again. The constants every stage reads — the contacts' material among them — are
//! computed once per step too.
//!
//! **The step on several threads.** The passes over the bodies (integrate, boxes, walls) go over the columns once
//! each, in fixed chunks of bodies, on rayon's threads once the body count reaches the shared
//! `collide_broadphase::Parallelism` threshold; the narrowphase goes over the pairs in chunks; resolution is
//! `collide_resolution::Solver`, whose levels give the answer of resolving the contacts one by one in ascending
//! pair order. Every body's result depends on that body alone, chunk outputs are appended in chunk order and the
//! levels are defined by the pairs, so the state hash is the same on any thread count and for any broadphase;
//! the pairs themselves are never sorted, only the contacts, by a counting sort inside the solver. The walls visit
//! only the bodies that can be outside: those the box pass listed near or past a wall, and the contacts' bodies
//! resolution handed over (which it may have pushed out) — each contact body a second time after resolution
//! wrote it back, but no other body.
//!
//! **Boxes** (`shape = "box"` or `"mixed"`, [`ShapeMix`]). Spawns and scripts push spheres; [`Setup::assign_shapes`]
//! then makes the mix's bodies boxes (half extents around the drawn radius, a random orientation, each from a
//! generator of its own, so that the scene's positions and velocities are the spheres' scene's). A scene with
//! boxes runs the boxes' stages: the boxes turned after the integration (`spin_passes::rotate`,
//! `collide_resolution::advance_rotation`), the box pass writing a box's AABB from its orientation, the narrowphase
//! dispatched on the pair's shapes (`collide_narrowphase::ShapeContacts`: the sphere–sphere contacts as before, a
//! manifold for every pair with a box), resolution through the solver's spin path (`Solver::solve_spin`: the
//! same levels, impulses at the manifold's points with restitution, friction and torque) and the walls meeting
//! every contact body and listed body with spin (`spin_passes::spin_walls`). A scene of spheres with
//! `friction > 0` takes the spin response and walls too (its spheres spin); a scene of spheres without friction runs
//! none of it, and its bits are those it had before boxes (the golden hashes of `tests/tests/determinism.rs`).
//!
//! **Continuous collision detection and tunnelling** (spheres and boxes): one stage, `continuous.rs`, in four parts
//! at their places in the step — `sweep.rs` (start positions, fast bodies, swept boxes), `ccd.rs` (the times of
//! impact, resolved), `tunnelling.rs` (the counts) and `obstacles.rs` (push-out, sides). A body whose displacement in a
//! step exceeds its radius (a box: its smallest half extent) is *fast*: between two discrete steps it can pass
//! through a thin obstacle or another body without ever overlapping it. In a scene that can tunnel — one with
//! static obstacles (the `tunnel`'s wall, a list of `Obb`s in the [`Setup`], tested against every body each step
//! rather than put in the broadphase), with `ccd = true`, or whose speed moves a sphere more than its diameter per
//! step — the step keeps the start positions and gives every fast body a **swept box** (its boxes before and after
//! the step, united), so that the broadphase finds the pairs that met during the step. Then, before the discrete
//! narrowphase:
//! - with `ccd = true` (and resolution on), the **times of impact** — `collide_narrowphase::toi_solids` for every
//!   pair with a fast body (sphere–sphere by the lecture's quadratic, sphere–box exact against the rounded box,
//!   box–box by separating axes on the move) and for every fast body and obstacle, on the step's linear motions —
//!   are processed **in ascending `(t, a, b)` order** (a min-heap; obstacle `k` sorts as body `u32::MAX − k`).
//!   Each event moves its bodies to their places at `t`, applies the response there (two spheres: the impulse of
//!   the scene's restitution; a pair with a box, or a box against an obstacle: the spin response at the
//!   contact's points, with restitution, friction and torque; a sphere against an obstacle: the velocity's normal
//!   part reflected), and **drops the rest of their step's motion**: they stay at the impact point with the new
//!   velocity and move on next step. A body stopped by an earlier event is **measured again**: it stands still at
//!   its stop, its partner moves on from its place at `t`, and the new time of impact goes back into the heap; an
//!   event whose bodies are both stopped is dropped (the discrete narrowphase that follows resolves any overlap),
//!   as is an obstacle event of a stopped body. The events depend on the set of pairs, not the order the
//!   broadphase gave them, and run serially, so the state hash is the same for every broadphase and thread count
//!   (`tests/tests/determinism.rs`).
//! - without `ccd`, nothing moves: a pair that met during the step (`t > 0`) but does not touch at its end is
//!   counted as **tunnelled**.
//!
//! A box keeps its end-of-step orientation along its path within the step: continuous detection covers
//! translation, and a box spinning so fast that a corner sweeps through a thin thing within one step is seen only
//! by the discrete test at the step's end.
//!
//! After the walls, every body is pushed out of every obstacle it overlaps (the discrete test, `sphere_box`; a box
//! by `box_box` and the spin response against the immovable obstacle), and a body whose centre ended on the
//! other side of an obstacle's mid-plane (across its thinnest axis) along a path that met it (the body's own shape
//! on its path) is counted as tunnelled — one that was pushed out on the far side included. The counts are
//! [`StepRecord::tunnelled`], the CSV's `tunnelled` column and the run summary's total. With `ccd` the pair
//! count is 0 by construction (every meeting is resolved or, measured again, did not happen), and so is the wall
//! count: a body's own motion stops at the wall's face, and a body the contact solver pushed through (a crowd's
//! push-out, which no time of impact sees) is put back on its side before the count — how often is
//! [`Simulation::held_at_obstacles`]. The tests check each body's side of the wall independently of both, and that
//! in the sparse `tunnel` the times of impact alone did it (nothing held).
//!
//! # Complexity
//!
//! A step is O(n) for the body passes, O(p) for the narrowphase over p pairs (a box–box pair costs about 40 times a
//! sphere–sphere pair), O(n/64 + c + m) for resolution over c contacts among m bodies (the marking of the contacts'
//! bodies included), O(outside + m) for the walls — plus the broadphase's own cost. In a scene that can tunnel, add O(n) for the start positions and swept boxes, O(p) times of impact over the pairs with a fast body,
//! O(e log e) for e events with `ccd`, and O(n·k) for k obstacles (push-out and crossing count); these are serial.
//!
//! # Performance tips
//!
//! At 10⁶ bodies the body passes stream tens of megabytes each, so memory bandwidth, not arithmetic, bounds
//! them, and two threads are expected to gain less there than in the narrowphase and resolution, which reach
//! bodies scattered through the columns (bodies are spawned in random order) and wait on cache misses that two
//! threads overlap.
//! `cargo xtask bench --study scaling-step` measures every phase on one and two threads side by side.
//!
//! Boxes cost in every phase: the rotation pass (an implicit solve of a few sweeps per turning box whose inertia
//! differs between axes; none for cubes), a 3×3 product per box AABB, box–box tests in the narrowphase, and a few
//! sweeps of sequential impulses per contact with a box in resolution (up to `collide_resolution::ITERATIONS`,
//! usually two or three). Cubes (`half_extents_spread = 0` and equal half extents) skip the rotation's solve.
//!
//! Continuous detection costs nothing in scenes that cannot tunnel. Where it runs, its passes are serial and
//! the obstacles are tested against every body: keep obstacles few (a broadphase entry per obstacle would be
//! the next step for many), and prefer a smaller `dt` to `ccd` when most bodies are fast — a swept box of a body
//! moving many diameters per step overlaps many others, and every such pair costs a time of impact.

mod bodies;
mod ccd;
mod config;
mod continuous;
mod fnv;
pub mod memory;
mod obstacles;
mod passes;
mod plan;
mod record;
mod reorder;
mod replay;
mod run;
mod scenario;
mod simulation;
mod speed_hint;
mod spin_passes;
mod stages;
mod sweep;
#[cfg(test)]
mod testing;
mod tunnelling;

pub use bodies::{Bodies, Spin};
pub use config::{Config, ConfigError, DEFAULT_FRAMES, ParamEntry, PolicyName, TimeConfig};
pub use plan::{Plan, ReplaySetup, Source, TimePolicy};
pub use record::{CSV_HEADER, RunSummary, StepRecord, write_csv};
pub use reorder::{Reorder, morton};
pub use replay::Replay;
pub use run::{Run, boxes_by_id};
pub use scenario::{
    POWER_LAW_DEFAULT_CAP, POWER_LAW_MAX_CAP, PowerLaw, SCENARIOS, ScenarioDescriptor, ScenePhase, Setup, ShapeMix,
    TOUR_PHASE_STEPS, find_scenario,
};
pub use simulation::Simulation;
pub use speed_hint::speed_hint;

/// The interval the `reorder` study compares with no reordering, and the README suggests: a body of the `uniform`
/// scene crosses its cell (about 9 body diameters at 10⁶ bodies) in about this many steps. The config's default is
/// 0, no reordering: measured on every algorithm at 10⁵ and 10⁶ bodies, the order gained less than the noise (see
/// the README and `cargo xtask bench --study reorder`).
pub const STUDIED_REORDER_EVERY: u32 = 32;

/// Re-exported so that users of the sim need not depend on the timing crate for phase names.
pub use collide_timing::{DtPolicy, Phase, PhaseTimes, Summary};
