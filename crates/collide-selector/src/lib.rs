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
//! [`Selector`] is a [`Broadphase`](collide_broadphase::Broadphase) itself. It holds every candidate — by default
//! every registered algorithm but brute force, pair counting and itself, so algorithms registered later join by
//! their registry row — makes an instance of one when it needs it, and runs one per frame. The registry hands it
//! the descriptor table when it is built, so this crate does not depend on the registry and there is no cycle.
//!
//! What `auto` is judged by is what a user pays from the first frame: its first pick, its probes and its builds
//! included, at every scale (the bench's live `selector` study). So:
//!
//! 1. **The first frame picks from the boxes and the prior** ([`Controller::start`]). The features
//!    ([`features`]) are measured on the frame's boxes before any candidate runs: `n`, the size spread, the
//!    clustering, pairs per body *estimated from the feature sample* (the sampled boxes, inflated until they
//!    fill space as densely as the scene, counted by a sort and sweep), and the speed — which one frame of boxes
//!    cannot tell, so it comes from the frame's **speed hint**
//!    ([`Frame::with_speed`](collide_broadphase::Frame::with_speed)) when the caller knows its velocities (the
//!    simulation does). The prior then predicts each candidate's **steady frame and its build** (the extra cost
//!    of its first two frames: a tree's construction, a grid's first allocations), and the first pick is the
//!    cheapest over the first 60 frames, build included. Without a speed, only a candidate *cheap to build* (a
//!    structure rebuilt every frame) is picked, and the second frame, which measures the speed from the
//!    displacement of the sample's centres, decides again over every candidate ([`Controller::before_frame`]),
//!    on the first frame's estimate of pairs per body when the first frame's count was lower (bodies created
//!    apart meet within the horizon), and runs the newcomer cold (or builds it beside the active one, when its
//!    build would make a frame hitch) — before any costly structure was built for nothing. A hint the boxes belie
//!    (they move more than twice or less than half as fast, measured from the second frame to the fourth) is
//!    decided again the same way: in `power-law` the big bodies' contacts push the small ones every frame, which
//!    no velocity tells.
//! 2. **A cost model** ([`model`]): per candidate a log-linear prior of its steady frame and of its build, fitted
//!    by `cargo xtask bench --study calibrate` from 2 000 to 10⁶ bodies on the registry's scenes and on four
//!    scenes baked by rapier (a real engine's streams, more pairs per body), each candidate run live from its first
//!    frame in a fresh process, and stored in `data/prior.toml` with its machine, commit and each candidate's
//!    parameters (a test fails when a registered candidate has no fit or was fitted with other parameters).
//!    Predictions are *relative*: a candidate's cost is the active candidate's measured cost times the prior's
//!    ratio of the two, so whatever slows every candidate alike (load, another CPU) cancels. What probes measure
//!    is folded into an offset per candidate and per regime (coarse bins of speed, pairs per body and rest);
//!    every prediction carries an uncertainty — the prior's residual, or the measurement's, growing with its age,
//!    with the features' drift and with a jump in the common level. A candidate never measured in the regime
//!    has the prior's residual widened by how wrong the prior has been found there on the measured ones (the
//!    root mean square of their offsets): on a scene unlike the registry's (rapier's streams), the prior is off
//!    about several candidates at once, and the one it ranks too dear is then sampled too.
//! 3. **Probes cost a sliver of a frame** ([`policy`], driven by the [`Controller`]). A candidate that could be
//!    cheaper (its optimistic estimate beats the active one by the margin, 10%) and was not measured lately is
//!    measured on a **spatial sample**: a sub-box of the scene holding a few percent of the bodies (at least
//!    1024) — the scene as it is there, at its own density: one cube, or four in a clustered scene — on which the candidate and the active one run side
//!    by side for five frames, each in an instance of its own (a *scout*), taking turns at running first over
//!    the compared frames (on a small sample the second to run is the faster: always second, a candidate measured
//!    0.74–0.81 of an active one as fast as itself), and longer for a candidate that is cheap
//!    while it is young (see [`settling_calls`](collide_broadphase::Broadphase::settling_calls): the dynamic tree's first calls cost a third of its
//!    later ones, and a sample compared on them flattered it 2–3×); only the frames after the settling ones are
//!    compared, in whole probes as well. Their ratio is carried to the whole
//!    scene by half the change the prior predicts between the sample's size and the scene's. A candidate that
//!    the sample and the model place within the margin's reach but not beyond doubt gets a **full probe**: it runs
//!    beside the active one on whole frames (its pairs discarded), and that measurement switches. When the budget
//!    cannot afford the whole probe (at 10⁵ bodies a tree's build and four frames beside are tens of
//!    milliseconds), a candidate the sample places beyond the margin (a structure that settles over several
//!    calls, whose sample flatters it, with half its uncertainty against it) is switched to as a **trial** if the saving pays its build: the build is paid once either way, its own
//!    frames then measure it, and the candidate it left may come back with the plain margin. A **thin** sample,
//!    one whose frames hold under 0.75 of the scene's pairs a body (`power-law`'s large bodies reach across its
//!    cubes), is not learned when it makes the candidate dearer: the candidate is tried on the prior's figure (one
//!    that settles at once, on half its uncertainty in its favour), and the trial's first steady frames are
//!    learned against the candidate it left, as a whole probe's would be. Below 4096 bodies
//!    whole frames are cheap and probes are whole. While the probe budget holds two samples' worth, candidates
//!    never measured in the scene's regime are sampled too, so a prior that is confidently wrong is found out.
//! 4. **A switch pays for itself.** A candidate takes over only when its saving per frame, times the frames
//!    expected to remain (at least the frames run so far, at least 60), exceeds its build and what is left to
//!    probe. A build that would make a frame hitch (more than two of the active candidate's frames) is made
//!    **beside** the active candidate, on a thread of its own, from a copy of one frame's boxes and pairs,
//!    followed by two catch-up calls on later frames (the dearest calls of an incremental structure after its
//!    build); the newcomer then takes over with a steady frame. After a switch on a measurement nothing is
//!    decided for 12 frames; after one on the prior alone (the second frame's, on the measured speed), sampling
//!    may start as soon as the newcomer has four steady frames: nothing measured backs that pick, and it is the
//!    one most likely wrong. Going back to the candidate left within 600 frames needs twice the margin.
//! 5. **The budget counts real time.** Probes — sampled and whole, their builds, the sub-box's listing and
//!    gathering included, with no clip — spend milliseconds from a bucket that fills by `probe_share` (3%) of
//!    every measured frame, starts with two frames, and holds forty; a probe whose candidate is expected to save
//!    ten times its cost may borrow sixty frames. A candidate idle for 600 frames is freed (its instance
//!    dropped; it is made again if ever needed), so `auto` does not hold every candidate's memory for ever.
//! 6. **The decision log** ([`log`]): every first pick, sampled probe and its result, full probe, build beside,
//!    switch, rejection and freeing, with the frame, the features, every candidate's prediction and the reason
//!    in words; `collide --headless --decisions FILE` writes it as CSV and the app shows it.
//!
//! The decisions live in a [`Controller`] fed with numbers only (features and milliseconds), apart from the
//! clock and the broadphases: [`Selector`] runs the real candidates and times them, and [`trace_replay`] feeds
//! the same controller the costs a [`trace`] recorded, so a policy can be tried on the same frames without the
//! machine's noise (`cargo xtask bench --study selector-trace` records traces; the `trace_replay` example judges a
//! policy on them). The figures that judge `auto` come from the live study, not from replays.
//!
//! Switching never changes a pair: every candidate answers the exact pair set (the conformance kit checks each,
//! and checks `auto` in a forced-switch mode that changes candidate every k frames, through probes and through
//! builds beside). Only the time changes.
//!
//! # Failure modes
//!
//! - **Noise.** On a shared 2-core machine one frame can take twice its usual time. The active cost is the
//!   median of its last 24 frames times its spike factor (frames over four times the typical count as four); the
//!   two frames after a start, a cold switch or a resize teach nothing (a permutation of the bodies — the
//!   simulation's spatial reorder — is not such a resize: every candidate in sync, a probe, a sample or a build
//!   beside follows it, and the history stays). A probe compares the least of its frames
//!   with the active one's least on the *same* frames, so a stalled frame is never the one compared and load
//!   common to both cancels.
//! - **A sample unlike the scene.** A sub-box sees one place: a cluster's core, a pile's floor. Its result
//!   carries an uncertainty of its own (×/÷ 1.35); a candidate it places only within reach is switched to as a
//!   trial (its own frames then measure it, and the one left behind comes back with the plain margin), never as a
//!   sure switch; successive samples are centred on different bodies.
//! - **A scene that changes under the active candidate** (bodies grow, a crowd forms at once): three frames in a
//!   row outside [½, 2]× its recent median make it forget its recent frames, and the jump of the common level
//!   widens every other estimate's uncertainty, so the candidates that could now win are sampled again.
//! - **An active structure older than its scout.** Both scouts of a sample are fresh, while the active
//!   candidate's instance on the scene may have run for hundreds of frames: the dynamic tree in rapier's free
//!   fall at 10⁵ bodies cost 120–190 ns a body on the scene against 31 on its scout, so every sample put `kd` at
//!   3.4× it, where `kd` ran at 0.37×. For a candidate that settles over several calls, the model compares the
//!   active one's steady frame on the scene with its scout's carried there by the prior; at twice or more, the
//!   sampled candidate is carried by its own scout instead, and the old one's factor is charged to its own later
//!   samples in the same regime of motion (see [`CostModel::observe_sample`]): once the pile rests, the old tree
//!   is as cheap as a fresh one.
//! - **A scene that drifts under the active candidate** (a pile forming, a stream spreading): a candidate is not
//!   sampled again within 60 frames of its last sample unless the active candidate's typical frame has moved by
//!   more than a sample's uncertainty since; a dear sample the budget cannot pay yet does not hold back a cheaper
//!   one it can.
//! - **A prior from another machine** ranks candidates wrongly at first; every measurement corrects the
//!   candidate it measured, in its regime. Refit with `cargo xtask bench --study calibrate --install`.
//! - **Builds beside** take a core while they run: the active candidate's parallel sections then share the
//!   machine with them. The build's own parallel sections run serially on its thread.
//! - **Thrash** on a scene at a decision boundary: bounded by the margin, the payback rule, the cooldown and the
//!   doubled margin for going back (tested with synthetic oscillations).
//! - **Invalid boxes and far bodies** (see `collide_broadphase::invalid`) are the candidates' to handle; `auto`
//!   hands them the frame as it came, its policy included (a scout's sample treats an invalid box as overlapping
//!   nothing). Its own feature sample compares with `total_cmp`, so a NaN in it skews a feature, never the answer.
//!
//! # Complexity
//!
//! Per frame, beyond the active candidate's own cost: O(s) for the features over a sample of s ≤ 2048 bodies
//! (the size spread and clustering every eighth frame, with a 4096-cell clear), O(c) for the model over c
//! candidates, O(1) for the policy and the log (a ring allocated once), O(24 log 24) for the active candidate's
//! recent median. A first frame adds O(s log s) for the pair estimate. A sampled probe adds O(n) once to list its
//! sub-box and O(k) per frame to gather its k bodies, plus two candidates' cost on k bodies; a full probe a second
//! candidate's cost on the whole frame; a build beside O(n + p) to copy a frame's boxes and pairs. Memory: the
//! candidates that ran lately and their scouts, O(s) for the sample and 1024 log entries.
//!
//! # Performance tips
//!
//! - Give the frame a speed hint (`Frame::with_speed`, `|v|·dt / size` averaged over your bodies): the first
//!   frame then builds the right structure at once.
//! - Give it a motion hint (`Frame::with_moved`): the resting fraction is then exact and the octree's static tree
//!   and the dynamic tree use it too.
//! - Narrow `candidates` to the algorithms that can win your scenes: fewer probes, less memory.
//! - Recalibrate on your own machine (`cargo xtask bench --study calibrate --install`).
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

pub use controller::{Controller, DECIDE_EVERY, MAX_PROBE_FRAMES, Order, SampleFrame, THIN_SAMPLE};
pub use features::{FeatureSampler, Features};
pub use log::{Decision, DecisionKind, DecisionLog};
pub use model::{CostModel, Estimate, Prior};
pub use policy::{PolicyConfig, Reason};
pub use selector::{Candidate, CandidateReport, EXCLUDED, Make, NAME, PARAMS, Selector, Totals, policy_from};
