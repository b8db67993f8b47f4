//! Continuous detection, obstacles and the tunnel count: the step's stage for scenes that can tunnel, in four
//! parts at their places in the pipeline.
//!
//! A scene can tunnel when it has static obstacles, `ccd = true`, or a speed that moves a sphere further than its
//! diameter in a step ([`Continuous::active`]). The step decides once, before its first stage, which
//! [`Detection`] it runs: [`Swept`] for such a scene, [`Discrete`] — nothing at all — for any other, so that those
//! pay nothing. Without `ccd` the swept stage only counts: the state, and so the hash, is the same as without it.
//!
//! - [`Detection::begin`], before integration: the start positions kept ([`Sweep::begin`]).
//! - [`Detection::sweep`], after the box pass: in, the bodies moved and their boxes; out, the fast bodies, their
//!   boxes swept (before ∪ after) and marked moved (`sweep.rs`).
//! - [`Detection::impacts`], after the broadphase: in, the pairs; out, with `ccd`, the bodies stopped and bounced
//!   at their impacts (`ccd.rs`), without, the tunnelled pairs counted (`tunnelling.rs`).
//! - [`Detection::obstacles`], after the walls: every body pushed out of the obstacles (`obstacles.rs`; with `ccd`,
//!   those a crowd pushed through one put back on their side first); out, the bodies that crossed one, counted.
//!
//! The counts add up to [`StepRecord::tunnelled`](crate::StepRecord::tunnelled).

use crate::Bodies;
use crate::ccd::Impacts;
use crate::obstacles::{keep_on_start_side, push_out_of_obstacles};
use crate::scenario::Setup;
use crate::stages::StepContext;
use crate::sweep::Sweep;
use crate::tunnelling::{crossed_obstacles, tunnelled_pairs};
use collide_broadphase::Pair;
use collide_math::{Aabb, Vec3};

/// The buffers of continuous detection, kept between steps so that nothing allocates once warm, and its count
/// over the run.
#[derive(Default)]
pub struct Continuous {
    /// The start positions and the fast bodies.
    sweep: Sweep,
    /// The event queue of the times of impact (with `ccd`).
    impacts: Impacts,
    /// Over the run: bodies [`keep_on_start_side`] put back on their side of an obstacle.
    held: u64,
}

impl Continuous {
    /// `true` when the scene needs this stage: `ccd` on, obstacles to count crossings of, or a scene speed at
    /// which a sphere moves further than the smallest diameter in a step of `dt` — the least at which two spheres
    /// meeting head-on can pass through each other unseen. Other scenes (a script may speed bodies up:
    /// `cluster`'s pull) are not counted, so that they pay nothing. Thin boxes do not switch the counter on by
    /// their speed: counting costs a time of impact per pair with a fast body, and a scene of boxes at speed —
    /// `configs/mixed.toml` at 10⁵ bodies — would pay 10 ms a step for a count it did not ask for; `ccd = true`
    /// or an obstacle switches it on.
    #[must_use]
    pub fn active(setup: &Setup, dt: f32) -> bool {
        let smallest = setup.radius * (1.0 - setup.radius_spread);
        setup.ccd || !setup.obstacles.is_empty() || setup.speed * dt > 2.0 * smallest
    }

    /// Over the run: how many times a body was put back on its side of an obstacle ([`keep_on_start_side`]).
    #[must_use]
    pub fn held(&self) -> u64 {
        self.held
    }
}

/// How a step detects contacts along the bodies' motion: at the step's end only ([`Discrete`], whose parts are
/// the defaults here: nothing moves, nothing is counted), or along the way ([`Swept`], which has all four). Each
/// part reads and writes only what its signature names; `state` is the stage's buffers.
pub trait Detection: Sync {
    /// Before integration: keep the start positions.
    fn begin(&self, _state: &mut Continuous, _position: &[Vec3]) {}

    /// After the box pass (which removed `removed` non-finite bodies): mark the fast bodies and sweep their
    /// `aabbs` (before ∪ after), setting their `moved` flags.
    fn sweep(
        &self,
        _state: &mut Continuous,
        _bodies: &Bodies,
        _removed: u32,
        _aabbs: &mut [Aabb],
        _moved: &mut [bool],
    ) {
    }

    /// After the broadphase, before the discrete narrowphase: the times of impact of the `pairs` with a fast
    /// body (and of the fast bodies against the obstacles). With `ccd` and resolution on, the bodies are stopped
    /// and bounced at their impacts; otherwise nothing moves. Returns the pairs that tunnelled.
    fn impacts(
        &self,
        _state: &mut Continuous,
        _cx: &StepContext,
        _setup: &Setup,
        _pairs: &[Pair],
        _bodies: &mut Bodies,
    ) -> u32 {
        0
    }

    /// After the walls: every body pushed out of the obstacles (with `ccd`, those the contact solver pushed through
    /// one put back on their side first). Returns the bodies that went through an obstacle.
    fn obstacles(&self, _state: &mut Continuous, _cx: &StepContext, _setup: &Setup, _bodies: &mut Bodies) -> u32 {
        0
    }
}

/// The stage of a scene that cannot tunnel: nothing.
pub struct Discrete;

/// The stage of a scene that can tunnel: start positions, swept boxes, times of impact, obstacles and the counts.
pub struct Swept;

/// The detection a step of `dt` runs in the scene `setup` ([`Continuous::active`]): decided once per step.
#[must_use]
pub fn detection(setup: &Setup, dt: f32) -> &'static dyn Detection {
    if Continuous::active(setup, dt) { &Swept } else { &Discrete }
}

impl Detection for Discrete {}

impl Detection for Swept {
    fn begin(&self, state: &mut Continuous, position: &[Vec3]) {
        state.sweep.begin(position);
    }

    /// A step that removed bodies renumbered them, so the start positions no longer match: that (rare) step has no
    /// fast body.
    fn sweep(&self, state: &mut Continuous, bodies: &Bodies, removed: u32, aabbs: &mut [Aabb], moved: &mut [bool]) {
        puffin::profile_scope!("sweep");
        if removed > 0 {
            state.sweep.forget(&bodies.position);
        }
        state.sweep.sweep(bodies, aabbs, moved);
    }

    fn impacts(
        &self,
        state: &mut Continuous,
        cx: &StepContext,
        setup: &Setup,
        pairs: &[Pair],
        bodies: &mut Bodies,
    ) -> u32 {
        puffin::profile_scope!("times of impact");
        if setup.ccd && setup.resolution {
            state.impacts.resolve(&state.sweep, &cx.material, pairs, &setup.obstacles, bodies);
            return 0;
        }
        tunnelled_pairs(&state.sweep, pairs, bodies)
    }

    fn obstacles(&self, state: &mut Continuous, cx: &StepContext, setup: &Setup, bodies: &mut Bodies) -> u32 {
        puffin::profile_scope!("obstacles");
        let obstacles = &setup.obstacles;
        if setup.ccd && setup.resolution {
            state.held +=
                u64::from(keep_on_start_side(state.sweep.start(), bodies, obstacles, cx.material.restitution));
        }
        push_out_of_obstacles(bodies, obstacles, &cx.material);
        if obstacles.is_empty() {
            return 0;
        }
        crossed_obstacles(state.sweep.start(), bodies, obstacles)
    }
}
