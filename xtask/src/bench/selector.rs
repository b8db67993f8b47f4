//! `selector`: the meta-broadphase `auto` live, beside every pinned candidate, every frame counted from frame 0.
//!
//! What a user pays is what `collide --headless` pays: the frame-0 pick, the cold first frames, the probes that
//! build a candidate from scratch, at every scale. So every run — `auto`, and every candidate it chooses from
//! (`collide_algorithms::ALGORITHMS` but `collide_selector::EXCLUDED`) pinned — starts from frame 0 with the
//! same seed and a fixed dt, in a fresh process of its own ([`super::live`]), and every frame it runs is timed
//! (its record's broadphase phase: for `auto`, its probes and its own work included). The scenes
//! ([`super::selector_scenes`]): every registry scenario with a free body count at 10⁴ and 10⁵ bodies over
//! `--frames` (110), four of them at 10⁶ over 40, the whole tour at 10⁵ (2100 steps), and the rapier-baked scenes
//! at 10⁴ and 10⁵ replayed over a window with contact. The order of the runs turns by one from scene to scene, so
//! that a drift in the machine's load does not always fall on the same algorithm.
//!
//! Every complete run of a scene must reach the same state hash (for a replay, the same pairs on every frame);
//! where brute force is affordable the last frame's pairs are compared with it too. `--reuse-pinned` reads the
//! pinned runs back from [`super::pinned_cache`] when the code they ran has not changed, and runs `auto` alone.
//!
//! Writes `selector.csv` (a row per run), `selector-frames.csv` (every frame of every run), `selector-regret.csv`,
//! `selector-decisions.csv` (auto's decision logs), `selector-tour-frames.csv`, the plots, and a section of the
//! report ([`super::selector_report`]).

use super::Ctx;
use super::live::Outcome;
use super::pinned_cache::{self, Cached, PinnedCache};
use super::selector_report;
use super::selector_scenes::{self, Run, RunLimits, Scene, SceneRuns};
use collide_algorithms::ALGORITHMS;
use collide_selector::{EXCLUDED, NAME};

/// The candidates `auto` chooses from by default, each of which runs pinned.
#[must_use]
pub fn pinned() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|d| d.name).filter(|n| !EXCLUDED.contains(n)).collect()
}

/// The `selector` study.
pub fn selector_study(ctx: &mut Ctx) -> Result<(), String> {
    let mut scenes = selector_scenes::plan(&ctx.selector)?;
    selector_scenes::prepare(&mut scenes)?;
    let limits = RunLimits::of(ctx.quick);
    let version = pinned_cache::code_version();
    let mut cache = PinnedCache::load(&ctx.out)?;
    let reuse = ctx.selector_reuse_pinned;
    let names: Vec<&str> = std::iter::once(NAME).chain(pinned()).collect();
    let to_run = |scene: &Scene| {
        (0..scene.rounds)
            .map(|round| {
                let key = round_key(scene, round);
                names.iter().filter(|&&a| !(reuse && a != NAME && cache.get(&key, a, &version).is_some())).count()
            })
            .sum::<usize>()
    };
    ctx.progress.plan(scenes.iter().map(to_run).sum());
    let mut results = Vec::new();
    for (i, scene) in scenes.into_iter().enumerate() {
        let mut rounds: Vec<Vec<Run>> = vec![Vec::new(); names.len()];
        for round in 0..scene.rounds {
            let key = round_key(&scene, round);
            for &slot in &rotated(names.len(), i + round) {
                let algorithm = names[slot];
                if reuse
                    && algorithm != NAME
                    && let Some(c) = cache.get(&key, algorithm, &version)
                {
                    let cached = Some((c.recorded.clone(), c.version.clone()));
                    rounds[slot].push(Run { outcome: c.outcome.clone(), cached });
                    continue;
                }
                let of = if scene.rounds > 1 {
                    format!(" (round {} of {})", round + 1, scene.rounds)
                } else {
                    String::new()
                };
                ctx.progress.start(&format!("selector: {} {algorithm}, {} frames{of}", scene.label(), scene.frames));
                let outcome = scene.spec(algorithm, limits).spawn().unwrap_or_else(|e| {
                    ctx.progress.say(&format!("bench: selector: {e}"));
                    ctx.failures.push(e.clone());
                    Outcome {
                        algorithm: algorithm.to_owned(),
                        check: "-".into(),
                        status: format!("failed: {e}"),
                        ..Outcome::default()
                    }
                });
                if algorithm != NAME && outcome.complete() {
                    let run = Cached {
                        version: version.clone(),
                        recorded: pinned_cache::now_utc(),
                        outcome: outcome.clone(),
                    };
                    cache.put(&key, run);
                }
                rounds[slot].push(Run { outcome, cached: None });
                ctx.progress.finish_one();
            }
        }
        cache.save()?;
        let label = scene.label();
        let mut runs = rounds.into_iter().map(|r| median_run(r, &label, &mut ctx.mismatches));
        let auto = runs.next().expect("auto's slot");
        let mut scene_runs = SceneRuns { scene, auto, pinned: runs.collect() };
        share_phases(&mut scene_runs);
        cross_check(&mut scene_runs, &mut ctx.mismatches);
        results.push(scene_runs);
    }
    ctx.files.push(pinned_cache::FILE.to_owned());
    selector_report::write(ctx, &results, &version)
}

/// The pinned cache's key of a scene's `round` (the first round's is the scene's own, as before rounds).
fn round_key(scene: &Scene, round: usize) -> String {
    if round == 0 { scene.key() } else { format!("{}-round{}", scene.key(), round + 1) }
}

/// An algorithm's runs of a scene, one per round: the one with the median mean broadphase frame stands for them
/// (with an even count, the lower of the two middle ones). Every complete round must have reached the same state
/// hash: a round that did not is a line in `mismatches`.
#[must_use]
pub fn median_run(mut runs: Vec<Run>, label: &str, mismatches: &mut Vec<String>) -> Run {
    let mean = |r: &Run| {
        let ms = r.outcome.ms();
        if ms.is_empty() { f64::INFINITY } else { ms.iter().sum::<f64>() / ms.len() as f64 }
    };
    let complete: Vec<u64> = runs.iter().filter(|r| r.outcome.complete()).map(|r| r.outcome.hash).collect();
    if let Some(&first) = complete.first()
        && let Some(&other) = complete.iter().find(|&&h| h != first)
    {
        let algorithm = &runs[0].outcome.algorithm;
        mismatches.push(format!("selector {algorithm} {label}: rounds reached hashes {first:016x} and {other:016x}"));
    }
    let median = super::measure::sort_to_median(&mut runs, mean);
    runs.swap_remove(median)
}

/// The order of the runs on the `scene`-th scene: every slot once, starting one further on each scene.
#[must_use]
pub fn rotated(slots: usize, scene: usize) -> Vec<usize> {
    (0..slots).map(|k| (k + scene) % slots).collect()
}

/// Cached runs carry no phase names; every run of a scene has the same phase at the same step, so they take
/// those of a run that has them.
fn share_phases(runs: &mut SceneRuns) {
    let all = std::iter::once(&runs.auto).chain(&runs.pinned);
    let Some(phases) = all.map(|r| &r.outcome.steps).find(|s| s.iter().any(|st| !st.phase.is_empty())).cloned() else {
        return;
    };
    for run in std::iter::once(&mut runs.auto).chain(&mut runs.pinned) {
        for (step, from) in run.outcome.steps.iter_mut().zip(&phases) {
            if step.phase.is_empty() {
                step.phase.clone_from(&from.phase);
            }
        }
    }
}

/// Every complete run of a scene follows the same trajectory (a replay: finds the same pairs), so their hashes
/// must agree with auto's (or, auto incomplete, the first complete run's). A run that differs gets `MISMATCH` in
/// its check, and a line in `mismatches`; the others get `hash ok` added.
fn cross_check(runs: &mut SceneRuns, mismatches: &mut Vec<String>) {
    let label = runs.scene.label();
    let all = std::iter::once(&runs.auto).chain(&runs.pinned);
    let Some((reference, by)) =
        all.filter(|r| r.outcome.complete()).map(|r| (r.outcome.hash, r.outcome.algorithm.clone())).next()
    else {
        return;
    };
    for run in std::iter::once(&mut runs.auto).chain(&mut runs.pinned) {
        let o = &mut run.outcome;
        if !o.complete() {
            continue;
        }
        if o.hash == reference {
            o.check = if o.check == "-" { "hash ok".into() } else { format!("{} + hash ok", o.check) };
        } else {
            let line = format!("hash {:016x} differs from {by}'s {reference:016x}", o.hash);
            mismatches.push(format!("selector {} {label}: {line}", o.algorithm));
            o.check = format!("MISMATCH: {line}");
        }
        if o.check.starts_with("MISMATCH vs brute") {
            mismatches.push(format!("selector {} {label}: {}", o.algorithm, o.check));
        }
    }
}

#[cfg(test)]
mod tests;
