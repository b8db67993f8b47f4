//! The meta-broadphase `auto`: it measures its candidates, predicts their cost from cheap features of the
//! scene, and switches between them at run time.
//!
//! # Why
//!
//! No broadphase wins everywhere. On this project's own bench an octree with duplicates wins a scene where 90% of
//! the bodies rest (it keeps them in a tree built once) by 2–3× over multi-box pruning; the octree without
//! duplicates wins a dense cluster; incremental sweep-and-prune wins a slow drift, where almost nothing swaps;
//! multi-box pruning wins fast uniform motion. A real scene passes through several of these. Engines fix their
//! broadphase when the scene is created (PhysX's `PxSceneDesc::broadPhaseType` has no setter, Jolt chooses at
//! compile time); Box2D and rapier adapt only *inside* one structure (rapier's BVH reinserts leaves when fewer
//! than 1/16 moved and refits otherwise, with one step of hysteresis). `auto` adapts *across* structures.
//!
//! Related work: Avril, Gouranton & Arnaldi, "Dynamic Adaptation of Broad Phase Collision Detection
//! Algorithms" (IEEE ISVRI 2011) map offline where each algorithm wins and switch on that map at run time;
//! AutoPas (molecular dynamics, arXiv 2505.03438, 2025) tunes its neighbour search at run time by trying
//! configurations, and reports up to 1.25× over the best fixed choice. `auto` combines the two: an offline
//! map (the prior), corrected online by what it measures, and confirmed by trying (probes) before switching.
//!
//! # How
//!
//! [`Selector`] is a [`Broadphase`](collide_broadphase::Broadphase) itself. It owns one instance of each
//! candidate — by default every registered algorithm but brute force, pair counting and itself, so algorithms
//! registered later join by their registry row — and runs one of them per frame. The registry hands it the
//! descriptor table when it is built, so this crate does not depend on the registry and there is no cycle.
//!
//! 1. **Features** ([`features`]), every frame, from at most 2048 sampled bodies (a bounded cost): `n`; the
//!    active candidate's measured time (the selector times `find_pairs` itself) and its counters; pairs per
//!    body (local density — what every pair search pays for); the normalised speed, mean and p90 (centre
//!    displacement over box size — what incremental algorithms pay for); clustering (Σ occupancy² of a
//!    coarse grid, 1 for uniform — what makes cells and slabs uneven); size spread (p99/median — what defeats
//!    octrees with duplicates); and the resting fraction (what static trees exploit), from the frame's motion
//!    hint when it has one.
//! 2. **A cost model** ([`model`]): a log-linear prior per candidate, fitted offline by `cargo xtask bench
//!    --study calibrate` and stored in `data/prior.toml` with its machine and commit. Predictions are
//!    *relative*: a candidate's cost is the active candidate's measured cost times the prior's ratio of the two,
//!    so whatever slows every candidate alike (load, another CPU) cancels. Each probe measures the ratio itself
//!    and folds the gap into an offset per candidate and per regime (coarse bins of speed, pairs per body and
//!    resting fraction). Each prediction has an uncertainty: the prior's residual for a candidate never
//!    measured in this regime, small for one measured moments ago on similar features, growing as the features
//!    drift from that measurement.
//! 3. **Probes and the switch policy** ([`policy`], driven by the [`Controller`]). A candidate is *probed* —
//!    warm-started from the active candidate's pairs and run beside it for four frames, its pairs discarded —
//!    when (a) **the scene has changed**: on the first frames, when the active candidate's cost jumps (three
//!    frames outside [½, 2]× its recent median), after a resize, and when the features settle into another
//!    *regime* (coarse bins of speed, crowding and rest) for ten frames, a *survey* measures the candidate
//!    predicted cheapest among those within 1.25× of the active one, whatever the margin says; (b) it is
//!    predicted cheaper by the margin (10%) for four frames in a row; or (c) the model is unsure of it and its
//!    optimistic estimate could be cheaper. The first probe frame pays for what the warm start left to do and is
//!    not compared; the least of the other three, against the active one's least on the same frames, each
//!    charged its candidate's learned *spike factor* (how much its own occasional expensive frames add to its
//!    typical one), is the comparison. A probe whose frame costs three times the active one's (six times on its
//!    first frame) cannot win and ends at once. Only a probe that measured the candidate cheaper by the margin
//!    switches — and the newcomer is then already warm, so the switch frame does not spike. Probes spend from a
//!    budget of 3% of the broadphase's time, counted in frames of the active candidate (a start grant of 8, a
//!    bucket of 40), a warm start counted as at most four of the candidate's predicted frames; a probe predicted to
//!    pay for itself three times over within the 120-frame horizon may borrow 30 frames' worth, ten times over 600
//!    (the active candidate has just become a bad choice, and waiting costs more than the probe), and a survey
//!    after a jump in the active candidate's cost may borrow 30 whatever the prediction (what the model knows of
//!    the others was learned on the scene before the jump); a probe is
//!    charged its frames clipped at four times its least, so a frame the machine stalled is not its fault. After a
//!    switch nothing is decided for 12 frames; going back to a candidate left in the last 600 frames needs twice
//!    the margin. A candidate never measured in the scene's current regime may be explored again after a quarter
//!    of the usual gap.
//! 4. **Warm switches:** [`Broadphase::warm_start`](collide_broadphase::Broadphase::warm_start) hands a
//!    newcomer the current frame's pairs, so incremental sweep-and-prune starts from one radix sort plus the
//!    known pairs, never from insertion-sorting a random order.
//! 5. **The decision log** ([`log`]): every probe, switch and rejection with the frame, the features, every
//!    candidate's prediction and the reason in words; `collide --headless --decisions FILE` writes it as CSV
//!    and the app shows it.
//!
//! The decisions live in a [`Controller`] fed with numbers only (features and milliseconds), apart from the
//! clock and the broadphases: [`Selector`] runs the real candidates and times them, and [`replay`] feeds the same
//! controller the costs a [`trace`] recorded, so a policy is judged on the same frames without the machine's
//! noise (`cargo xtask bench --study selector-trace` records traces, the `replay` example judges a policy on
//! them against the per-phase oracle and every pinned candidate).
//!
//! Switching never changes a pair: every candidate answers the exact pair set (the conformance kit checks each,
//! and checks `auto` in a forced-switch mode that changes candidate every k frames). Only the time changes.
//!
//! # Failure modes
//!
//! - **Noise.** On a shared 2-core machine one frame can take twice its usual time. The active cost is the
//!   median of its last 24 frames times its spike factor (frames over four times the typical count as four, so a
//!   stalled frame teaches little); the two frames after a start, a warm switch or a resize teach nothing. A
//!   probe compares the least of three frames with the active one's least on the *same* frames, so a stalled
//!   frame is never the one compared and load common to both cancels.
//! - **A scene that changes under the active candidate** (bodies grow, a crowd forms at once): three frames in a
//!   row outside [½, 2]× its recent median make it forget its recent frames, so its typical frame follows at
//!   once, and nothing is decided for 10 frames, so that a switch is compared with frames of the new scene.
//! - **A prior from another machine** ranks candidates wrongly at first; every measurement corrects the
//!   candidate it measured, in its regime, and the first probes correct the rest. Refit with `cargo xtask bench
//!   --study calibrate --install`.
//! - **Probe cost.** A probe runs two broadphases in one frame; a frame with a probe costs up to twice the usual.
//!   The budget bounds the total; only candidates that could win are probed.
//! - **Thrash** on a scene at a decision boundary: bounded by the margin, the confirmation probe, the cooldown
//!   and the doubled margin for going back (tested with a synthetic oscillation).
//! - **Memory:** every candidate keeps its buffers once it has run, so `auto` holds the sum of its candidates'
//!   memory. Narrow the list with the `candidates` parameter when that matters.
//! - **Cache effects** a probe cannot see: a probe runs with the active candidate's data in the cache beside it.
//! - **Invalid boxes and far bodies** (see `collide_broadphase::invalid`) are the candidates' to handle: each
//!   leaves an invalid box out and keeps far bodies from piling the others together, and `auto` hands them the
//!   frame as it came, its policy included. Its own feature sample compares with `total_cmp`, so a NaN in it
//!   skews a feature, never the answer.
//!
//! # Complexity
//!
//! Per frame, beyond the active candidate's own cost: O(s) for the features over a sample of s ≤ 2048 bodies
//! plus clearing a 4096-cell grid, O(c) for the model over c candidates, O(1) for the policy and the log (a ring
//! allocated once), O(24 log 24) for the active candidate's recent median. Probes add their candidate's cost on at most the budget's share of the frames. Memory: the
//! candidates' structures, plus O(s) for the sample and 1024 log entries.
//!
//! # Performance tips
//!
//! - Narrow `candidates` to the algorithms that can win your scenes: fewer probes, less memory.
//! - Recalibrate on your own machine (`cargo xtask bench --study calibrate --install`): the prior then ranks
//!   candidates right from the first frame.
//! - Give the frame a motion hint (`Frame::with_moved`): the resting fraction is then exact and the octree's
//!   static tree uses it too.
//! - For one scene that does not change, pin the winner `auto` settles on: it saves the features and the probes.

mod builder;
mod controller;
pub mod features;
pub mod log;
pub mod model;
pub mod policy;
mod sample;
mod selector;
pub mod trace;
pub mod trace_replay;

#[cfg(test)]
mod tests;

pub use controller::{Controller, MAX_PROBE_FRAMES, Order, SampleFrame};
pub use features::{FeatureSampler, Features};
pub use log::{Decision, DecisionKind, DecisionLog};
pub use model::{CostModel, Estimate, Prior};
pub use policy::{PolicyConfig, Reason};
pub use selector::{Candidate, CandidateReport, EXCLUDED, Make, NAME, PARAMS, Selector, Totals, policy_from};
