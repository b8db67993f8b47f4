//! The `selector` study's scenes: which scenario, how many bodies, how many frames, and the target `auto` is held
//! to on each (issue 30's "Done when"), in a full run and in `--quick`; the `--selector-scenes` and
//! `--selector-bodies` filters; the rapier-baked scenes' files, baked when missing, and their frame windows.

use super::live::{Outcome, Spec};
use std::path::{Path, PathBuf};

/// Frames of a 10⁴ / 10⁵-body scene when `--frames` does not say (the "first 110 frames").
pub const DEFAULT_FRAMES: u64 = 110;

/// Frames of a 10⁶-body scene.
const MILLION_FRAMES: u64 = 40;

/// The scenarios run at 10⁶ bodies.
const MILLION: &[&str] = &["uniform", "slow", "cluster", "thesis"];

/// The name of the whole tour (the registry's `tour`, all seven phases); `tour` alone is its first frames.
pub const TOUR_FULL: &str = "tour-full";

/// The rapier-baked scenes (`cargo xtask record-rapier`), each with the first frame of its window and why.
///
/// A window is `--frames` long. Measured on the 10⁴-body bakes (pairs per frame, every 20th frame): the free fall
/// finds no pair at all before frame 70 — its first 110 frames are bodies falling in formation, nothing a
/// broadphase is judged by — then its pile forms (400 pairs at frame 80, 18 700 at 200, 44 000 at 300, 48 000
/// and asleep from frame 500 on). The world and the gravity are scaled with the body count, so the 10⁵-body
/// pile forms over the same frames. The brownian gas has pairs from its first frames (3 000 at frame 20, about
/// one per body from frame 100 on): its first frames are the live case. The gravity scene's bodies meet a wall
/// and each other from its first frames on as well.
pub const RAPIER: &[(&str, u64, &str)] = &[
    (
        "free-fall",
        200,
        "the pile forming: 2 to 4.5 pairs per body, most bodies still falling onto it (no pair before frame 70)",
    ),
    ("brownian", 0, "its first frames: the gas has pairs from frame 10 on"),
    ("gravity", 0, "its first frames: the bodies slosh against a wall and each other from the start"),
    ("avalanche", 0, "its first frames: the block starts to slide at once and flows down the ramp as one stream"),
];

/// The target of a scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// auto's mean at most this multiple of the best pinned candidate's mean (and no hitch).
    Mean(f64),
    /// The whole tour: auto's total at most `best` × the best pinned candidate's and `oracle` × the per-phase
    /// oracle's.
    Tour {
        /// Against the best single pinned candidate.
        best: f64,
        /// Against the per-phase oracle.
        oracle: f64,
    },
}

/// No frame of auto from frame [`HITCH_FROM`] on may take more than this multiple of the best pinned candidate's
/// frame at the same step.
pub const HITCH: f64 = 3.0;
/// The first frame the hitch target looks at.
pub const HITCH_FROM: usize = 2;

/// Where a scene's boxes come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A registry scenario, simulated.
    Scenario(&'static str),
    /// A `.aabbs` file, replayed from frame `from`.
    Replay {
        /// The file.
        path: PathBuf,
        /// The window's first frame.
        from: u64,
    },
}

/// One scene of the study: every algorithm runs it once, from frame 0 (a replay: from its window's first frame).
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// `uniform`, `tour`, `tour-full`, `rapier-free-fall`: what `--selector-scenes` names.
    pub name: String,
    /// Where the boxes come from.
    pub source: Source,
    /// Bodies.
    pub n: usize,
    /// Frames, every one timed.
    pub frames: u64,
    /// What auto is held to.
    pub target: Target,
    /// Frames (0-based) whose pairs are compared with brute force, after the frame.
    pub checks: Vec<u64>,
    /// For a replay, which window and why.
    pub window: String,
    /// Runs of every algorithm on it, interleaved (each round in another order); each algorithm's figures are
    /// its run with the median mean.
    pub rounds: usize,
}

impl Scene {
    /// `uniform at 10k`.
    #[must_use]
    pub fn label(&self) -> String {
        format!("{} at {}", self.name, super::report::count(self.n))
    }

    /// The key of its runs in the pinned cache: name, bodies, frames and the window.
    #[must_use]
    pub fn key(&self) -> String {
        match &self.source {
            Source::Replay { from, .. } => format!("{}-{}-{}-from{from}", self.name, self.n, self.frames),
            Source::Scenario(_) => format!("{}-{}-{}", self.name, self.n, self.frames),
        }
    }

    /// The spec of `algorithm`'s run, under a mode's limits.
    #[must_use]
    pub fn spec(&self, algorithm: &str, limits: RunLimits) -> Spec {
        let (scenario, replay, from) = match &self.source {
            Source::Scenario(s) => (Some((*s).to_owned()), None, 0),
            Source::Replay { path, from } => (None, Some(path.clone()), *from),
        };
        Spec {
            scenario,
            replay,
            from,
            bodies: self.n,
            frames: self.frames,
            algorithm: algorithm.to_owned(),
            check: self.checks.clone(),
            frame_limit_ms: limits.frame_ms,
            budget_s: limits.budget_s,
            resting_fraction: 0.0,
            no_response: false,
            features: false,
        }
    }
}

/// The limits one run is held to (a candidate far off the pace ends early, its row says so).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunLimits {
    /// A frame slower than this, ms, ends the run.
    pub frame_ms: f64,
    /// A run ends after this many seconds.
    pub budget_s: f64,
}

impl RunLimits {
    /// `--quick`'s, or a full run's: generous, so that every candidate normally runs every frame (a 10⁶-body
    /// frame of the slowest candidate takes seconds; the whole tour of one takes minutes).
    #[must_use]
    pub fn of(quick: bool) -> Self {
        if quick { Self { frame_ms: 2000.0, budget_s: 30.0 } } else { Self { frame_ms: 60_000.0, budget_s: 1800.0 } }
    }
}

/// What the study is asked to run.
#[derive(Clone, Debug, Default)]
pub struct Ask {
    /// `--quick`.
    pub quick: bool,
    /// `--frames` (a 10⁴ / 10⁵-body scene's frames, a replay's window; `--quick`'s are 30).
    pub frames: Option<u64>,
    /// `--selector-scenes`: only these names.
    pub names: Vec<String>,
    /// `--selector-bodies`: only these sizes.
    pub bodies: Vec<usize>,
    /// `--rounds`: rounds of the 10⁴- and 10⁵-body scenes ([`DEFAULT_ROUNDS`] unless given; the tour and the
    /// 10⁶-body scenes, and `--quick`, run one).
    pub rounds: Option<usize>,
}

/// Rounds of a 10⁴- or 10⁵-body scene: the same run in two fresh processes a minute apart differs by up to a
/// third at 10⁴ bodies (0.18 against 0.27 ms a frame for `grid` on `thesis`, load 1.5), more than the 15% the
/// study judges; the median of three holds still.
pub const DEFAULT_ROUNDS: usize = 3;

/// The registry scenarios with a free body count (the two-ball scenes have two), the tour among them.
fn free_scenarios() -> Vec<&'static str> {
    collide_sim::SCENARIOS.iter().filter(|s| !s.fixed_bodies).map(|s| s.name).collect()
}

/// Bodies and frames of `--quick`, and the phases of its short tour.
const QUICK_N: usize = 2000;
const QUICK_FRAMES: u64 = 30;
const QUICK_TOUR_PHASES: u64 = 2;

/// The scenes `ask` selects, in run order (cheap first), with the rapier files resolved (not yet baked). An
/// unknown name or size is an error naming the valid ones; so is a filter that leaves nothing.
pub fn plan(ask: &Ask) -> Result<Vec<Scene>, String> {
    if ask.frames == Some(0) {
        return Err("--frames 0: a scene needs at least one frame".into());
    }
    if ask.rounds == Some(0) {
        return Err("--rounds 0: a scene needs at least one round".into());
    }
    let all = every_scene(ask);
    let names: Vec<&str> = {
        let mut v: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if let Some(bad) = ask.names.iter().find(|n| !names.contains(&n.as_str())) {
        return Err(format!("--selector-scenes: unknown scene `{bad}`; valid scenes: {}", names.join(", ")));
    }
    let sizes: Vec<usize> = {
        let mut v: Vec<usize> = all.iter().map(|s| s.n).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if let Some(bad) = ask.bodies.iter().find(|n| !sizes.contains(n)) {
        let valid: Vec<String> = sizes.iter().map(usize::to_string).collect();
        return Err(format!("--selector-bodies: no scene has {bad} bodies in this mode; sizes: {}", valid.join(", ")));
    }
    let chosen: Vec<Scene> = all
        .into_iter()
        .filter(|s| ask.names.is_empty() || ask.names.contains(&s.name))
        .filter(|s| ask.bodies.is_empty() || ask.bodies.contains(&s.n))
        .collect();
    if chosen.is_empty() {
        return Err("--selector-scenes with --selector-bodies: no scene has both".into());
    }
    Ok(chosen)
}

/// Every scene of the mode, before the filters.
fn every_scene(ask: &Ask) -> Vec<Scene> {
    let frames = ask.frames.unwrap_or(if ask.quick { QUICK_FRAMES } else { DEFAULT_FRAMES });
    let sim = |name: &'static str, n: usize, frames: u64, target: Target| Scene {
        name: name.to_owned(),
        source: Source::Scenario(name),
        n,
        frames,
        target,
        checks: Vec::new(),
        window: String::new(),
        rounds: 1,
    };
    let tour_phase = collide_sim::TOUR_PHASE_STEPS;
    let tour_target = Target::Tour { best: 1.03, oracle: 1.12 };
    let mut out = Vec::new();
    if ask.quick {
        for name in free_scenarios() {
            out.push(sim(name, QUICK_N, frames, Target::Mean(1.15)));
        }
        let mut tour = sim("tour", QUICK_N, QUICK_TOUR_PHASES * tour_phase, tour_target);
        tour.name = TOUR_FULL.into();
        out.push(tour);
        for &(scene, _, _) in RAPIER {
            let path = rapier_fixture(scene);
            // A checkout without the fixtures runs the rest (the replay study's tests need them anyway).
            let Ok((n, file_frames)) = header(&path) else { continue };
            out.push(Scene {
                name: format!("rapier-{scene}"),
                source: Source::Replay { path, from: 0 },
                n,
                frames: file_frames,
                target: Target::Mean(1.15),
                checks: Vec::new(),
                window: "the whole fixture".into(),
                rounds: 1,
            });
        }
    } else {
        for n in [10_000, 100_000] {
            for name in free_scenarios() {
                let mut scene = sim(name, n, frames, Target::Mean(1.15));
                scene.rounds = ask.rounds.unwrap_or(DEFAULT_ROUNDS);
                out.push(scene);
            }
            for &(scene, from, why) in RAPIER {
                out.push(Scene {
                    name: format!("rapier-{scene}"),
                    source: Source::Replay { path: rapier_file(scene, n), from },
                    n,
                    frames,
                    target: Target::Mean(1.15),
                    checks: Vec::new(),
                    window: format!("frames {from}..{}: {why}", from + frames),
                    rounds: ask.rounds.unwrap_or(DEFAULT_ROUNDS),
                });
            }
        }
        let mut tour = sim("tour", 100_000, tour_steps() as u64, tour_target);
        tour.name = TOUR_FULL.into();
        out.push(tour);
        for &name in MILLION {
            let name = free_scenarios().into_iter().find(|s| *s == name).expect("registered");
            out.push(sim(name, 1_000_000, MILLION_FRAMES, Target::Mean(1.25)));
        }
    }
    for s in &mut out {
        s.checks = checks(s, ask.quick);
    }
    out
}

/// Frames whose pairs are checked against brute force: the last frame where that is affordable (at most 10⁴
/// bodies in a full run; it follows the timed frames, so it perturbs none), in `--quick` also a frame in the
/// middle of every tour phase and every frame of a small fixture.
fn checks(scene: &Scene, quick: bool) -> Vec<u64> {
    let last = scene.frames.saturating_sub(1);
    let affordable = if quick { 20_000 } else { 10_000 };
    if scene.n > affordable || scene.frames == 0 {
        return Vec::new();
    }
    if quick && matches!(scene.source, Source::Replay { .. }) && scene.n <= super::replay_play::EVERY_FRAME_MAX {
        return (0..scene.frames).collect();
    }
    if quick && scene.name == TOUR_FULL {
        let phase = collide_sim::TOUR_PHASE_STEPS;
        let mut v: Vec<u64> = (0..scene.frames / phase).map(|p| p * phase + phase / 2).collect();
        v.push(last);
        return v;
    }
    vec![last]
}

/// The committed 200-body fixture of a rapier scene, `--quick`'s (`tests/fixtures/aabbs/README.md`).
#[must_use]
pub fn rapier_fixture(scene: &str) -> PathBuf {
    crate::root().join("tests").join("fixtures").join("aabbs").join(format!("rapier-{scene}.aabbs"))
}

/// [`rapier_file`], baked first with `cargo xtask record-rapier`'s defaults when it is missing (saying so on
/// standard error, with its progress; minutes at 10⁵ bodies). `study` names who asked, for that message.
pub fn baked_rapier_file(study: &str, scene: &str, n: usize) -> Result<PathBuf, String> {
    let path = rapier_file(scene, n);
    if !path.is_file() {
        eprintln!(
            "bench: {study}: {} is missing; baking it with `cargo xtask record-rapier --scene {scene} --bodies {n}` \
             (its defaults; minutes at 10⁵ bodies)",
            path.display()
        );
        crate::record_rapier::bake_default(scene, n)?;
    }
    Ok(path)
}

/// Where `cargo xtask record-rapier` bakes `scene` at `n` bodies by default.
#[must_use]
pub fn rapier_file(scene: &str, n: usize) -> PathBuf {
    crate::record_rapier::default_out().join(format!("rapier-{scene}-{n}.aabbs"))
}

/// Bodies and frames of an `.aabbs` file.
fn header(path: &Path) -> Result<(usize, u64), String> {
    let reader = collide_aabbs::Reader::open(path).map_err(|e| e.to_string())?;
    Ok((reader.header().n as usize, reader.header().frames))
}

/// Make every replayed scene's file ready: bake a missing rapier scene with `cargo xtask record-rapier`'s
/// defaults (saying so on standard error, with its progress), then check that its window fits the file (a
/// window past the end is moved back to end with the file, and the scene says so). A file that cannot be made
/// is an error naming it.
pub fn prepare(scenes: &mut [Scene]) -> Result<(), String> {
    for scene in scenes.iter_mut() {
        let Source::Replay { path, from } = &mut scene.source else { continue };
        if !path.is_file() {
            *path = baked_rapier_file("selector", scene.name.trim_start_matches("rapier-"), scene.n)?;
        }
        let (n, file_frames) = header(path)?;
        if n != scene.n {
            return Err(format!("{}: {n} boxes, the scene wants {}", path.display(), scene.n));
        }
        scene.frames = scene.frames.min(file_frames);
        if *from + scene.frames > file_frames {
            *from = file_frames - scene.frames;
            scene.window = format!("frames {from}..{file_frames} (moved back: the file has {file_frames} frames)");
        }
        scene.checks.retain(|&f| f < scene.frames);
    }
    Ok(())
}

/// One run as the study holds it: its outcome, and for a pinned run read from the cache, when it was measured.
#[derive(Clone, Debug)]
pub struct Run {
    /// What the run printed (or, failed, its status and no steps).
    pub outcome: Outcome,
    /// `Some(when, version)` when it came from the cache.
    pub cached: Option<(String, String)>,
}

/// Every run of one scene: auto's first, then the pinned candidates' in [`super::selector::pinned`] order.
#[derive(Clone, Debug)]
pub struct SceneRuns {
    /// The scene.
    pub scene: Scene,
    /// auto's run.
    pub auto: Run,
    /// The pinned runs.
    pub pinned: Vec<Run>,
}

/// Steps of the tour: its phases end to end.
pub fn tour_steps() -> usize {
    let tour = collide_sim::find_scenario("tour").expect("the tour is registered");
    tour.phases.last().map_or(0, |last| last.start as usize + collide_sim::TOUR_PHASE_STEPS as usize)
}

#[cfg(test)]
mod tests;
