//! `selector-trace`: every candidate side by side on every frame of the tour and of every scenario, recorded as a
//! cost trace, and `auto`'s controller replayed on each trace.
//!
//! A trace (`collide_selector::trace`) holds, per frame, the features `auto` would measure and every
//! candidate's time having followed every frame, plus — every tenth frame — what a warm start and the frame
//! after it cost. A replay feeds `auto`'s controller those numbers: it decides exactly as it would in a run, but
//! on the same frames as every pinned candidate and without the machine's noise, so the comparison with the
//! oracles is exact for that trace. The `selector` study runs the real thing; this one says how much of the
//! difference is the policy and how much the machine.
//!
//! Writes `selector-trace-<scene>-<n>.csv` per run (the traces: `cargo run --release -p collide-selector
//! --example trace_replay -- FILE` replays one with other knobs) and a report section.

use super::Ctx;
use super::measure;
use super::report::{self, Section};
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_selector::trace::{Trace, TraceRecorder};
use collide_selector::trace_replay::{self, Verdict};
use collide_selector::{EXCLUDED, PolicyConfig, Prior};
use collide_sim::Simulation;
use std::fmt::Write as _;

/// Frames between two timed warm starts of every candidate.
const WARM_EVERY: u64 = 10;
/// auto's own work per frame (features, model, log) charged in replays, as a share of the active candidate's
/// frame: the `selector` study measures it below 1% at 100 000 bodies.
const OVERHEAD_SHARE: f64 = 0.01;

/// The candidates `auto` chooses from by default.
fn candidates() -> Vec<&'static AlgorithmDescriptor> {
    ALGORITHMS.iter().filter(|d| !EXCLUDED.contains(&d.name)).collect()
}

/// The recorder as a registry row, so that the simulation builds it like any broadphase.
static RECORDER: AlgorithmDescriptor = AlgorithmDescriptor {
    name: "trace-recorder",
    summary: "every auto candidate side by side, timed (bench only)",
    params: &[],
    build: |_| Box::new(TraceRecorder::new(&candidates(), WARM_EVERY)),
};

/// Record `steps` steps of `scenario` with `n` bodies (response off for the tour, as in `configs/tour.toml`).
pub fn record(scenario: &'static str, n: usize, steps: usize) -> Result<Trace, String> {
    // The config names a registered algorithm so that it checks; the simulation gets the recorder instead.
    let stand_in = candidates()[0];
    let mut cfg = measure::config(scenario, n, None, stand_in, &Params::defaults(stand_in.params), false);
    cfg.resolution = scenario != "tour";
    let setup = collide_sim::Plan::new(cfg.clone())
        .and_then(|p| p.scene().cloned())
        .map_err(|e| format!("bench config {scenario}: {e}"))?;
    let clock = collide_timing::Clock::new(cfg.time.policy());
    let mut sim = Simulation::from_parts(setup, &RECORDER, Params::defaults(&[]), clock);
    let dt = collide_timing::FRAME_60HZ;
    let mut phases = Vec::with_capacity(steps);
    for _ in 0..steps {
        phases.push(sim.step(dt).phase.to_owned());
    }
    let recorder: &TraceRecorder =
        sim.broadphase().as_any().and_then(|a| a.downcast_ref()).ok_or("not the recorder")?;
    let mut trace = recorder.trace().clone();
    for (frame, phase) in trace.frames.iter_mut().zip(phases) {
        frame.phase = phase;
    }
    Ok(trace)
}

/// Replay `trace` with the shipped policy and prior, judged over `range`.
pub fn judge(trace: &Trace, range: std::ops::Range<usize>) -> Verdict {
    let mean_active: f64 = trace.frames.iter().map(|f| f.ms.iter().copied().fold(f64::INFINITY, f64::min)).sum::<f64>()
        / trace.frames.len().max(1) as f64;
    let r = trace_replay::replay_trace(trace, PolicyConfig::default(), Prior::builtin(), OVERHEAD_SHARE * mean_active);
    trace_replay::judge(trace, &r, range)
}

/// The `selector-trace` study.
pub fn selector_trace(ctx: &mut Ctx) -> Result<(), String> {
    let tour_n = if ctx.quick { 2000 } else { 100_000 };
    let sizes: Vec<usize> = if ctx.quick { vec![2000] } else { vec![10_000, 100_000] };
    let scenarios: Vec<&'static str> =
        collide_sim::SCENARIOS.iter().filter(|s| !s.fixed_bodies && s.name != "tour").map(|s| s.name).collect();
    ctx.progress.plan(1 + scenarios.len() * sizes.len());
    let names: Vec<&str> = candidates().iter().map(|d| d.name).collect();
    let mut header = vec!["scene", "bodies"];
    header.extend(names.iter().copied());
    header.extend(["auto (replayed)", "auto / best pinned", "auto / per-phase oracle", "switches", "probes"]);
    let mut table = Vec::new();
    let mut runs: Vec<(&'static str, usize, usize)> = vec![("tour", tour_n, super::selector_scenes::tour_steps())];
    let steps = if ctx.quick { 60 } else { 300 };
    for s in &scenarios {
        for &n in &sizes {
            runs.push((s, n, steps));
        }
    }
    for (scene, n, frames) in runs {
        ctx.progress.start(&format!("selector-trace: {scene} n={n}, {frames} steps, every candidate"));
        let trace = record(scene, n, frames)?;
        ctx.write_text(&format!("selector-trace-{scene}-{n}.csv"), &trace.to_csv())?;
        let v = judge(&trace, 0..frames);
        let mut line = vec![format!("`{scene}`"), report::count(n)];
        line.extend(
            v.pinned_ms
                .iter()
                .enumerate()
                .map(|(c, &ms)| if c == v.best_pinned { format!("**{}**", report::ms(ms)) } else { report::ms(ms) }),
        );
        line.push(report::ms(v.auto_ms));
        line.push(format!("{:.3}", v.auto_ms / v.pinned_ms[v.best_pinned]));
        line.push(format!("{:.3}", v.auto_ms / v.per_phase_oracle_ms));
        line.push(v.switches.to_string());
        line.push(v.probes.to_string());
        table.push(line);
        ctx.progress.finish_one();
    }
    let mut body = String::from(
        "Every candidate ran every frame side by side (its time recorded), and `auto`'s controller was replayed \
         on those times: the same decisions it would take in a run, charged what the trace says they cost, \
         without the machine's noise. Totals in ms over every step from the first; **bold** is \
         the best pinned candidate.\n\n",
    );
    body.push_str(&report::table(&header, table));
    let _ = writeln!(body, "\nTraces: `selector-trace-*.csv`.\n");
    ctx.sections.push(Section { title: "The meta-broadphase replayed on recorded traces".into(), body });
    Ok(())
}
