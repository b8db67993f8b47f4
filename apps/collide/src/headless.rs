//! The headless run: load, simulate (or replay a recorded file), summarise, write the CSV and the recording.
//!
//! One runner for both kinds of run: it drives a [`Report`] (a simulation or a replay, picked by
//! [`report::start`] from the plan's source) through what every run offers, and prints what the run says of
//! itself.

use crate::Cli;
use crate::report::{self, Report};
use collide_aabbs::{AabbsError, Writer};
use collide_broadphase::Broadphase;
use collide_selector::Selector;
use collide_sim::{Phase, RunSummary, StepRecord, write_csv};
use std::path::Path;

/// Run the CLI's config headless. Errors are one line, for `error: …` and exit code 2.
pub fn run(cli: &Cli) -> Result<(), String> {
    let (plan, _) = crate::load(cli).map_err(|e| e.to_string())?;
    // Check the output folders before simulating, so a long run never ends in "cannot write".
    for (flag, path) in [("--csv", &cli.csv), ("--decisions", &cli.decisions), ("--record", &cli.record)] {
        if let Some(path) = path {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                return Err(format!("{flag} {}: folder {} does not exist", path.display(), dir.display()));
            }
        }
    }
    let mut run = report::start(&plan)?;
    check_decisions(cli, run.broadphase(), run.algorithm().0.name)?;
    let mut recording = Recording::start(cli, run.as_ref())?;
    let frames = plan.frames();
    let (algorithm, params) = run.algorithm();
    println!(
        "collide headless: {} · algorithm {}{}{} · {}",
        run.subject(),
        algorithm.name,
        if params.iter().next().is_some() { " " } else { "" },
        params,
        run.frames_text(frames),
    );
    let every = cli.progress;
    // Every step is recorded, however many steps the clock grants a frame (`accumulator` may grant several).
    run.run_frames(frames, &mut |run| recording.capture(run.aabbs(), run.ids()), &mut |f, run| {
        progress(every, f, frames, run.records().last());
    })
    .map_err(|e| e.to_string())?;
    let summary = run.summary();
    print_records(&summary, run.as_ref());
    for line in run.closing(&summary) {
        println!("{line}");
    }
    outputs(cli, run.records(), run.broadphase(), recording)
}

/// `--decisions` needs `auto`.
fn check_decisions(cli: &Cli, broadphase: &dyn Broadphase, name: &str) -> Result<(), String> {
    if cli.decisions.is_some() && selector(broadphase).is_none() {
        return Err(format!(
            "--decisions: the algorithm is `{name}`; only `auto` makes decisions (--set algorithm=auto)"
        ));
    }
    Ok(())
}

/// A line every `every` frames (0: none).
fn progress(every: u64, f: u64, frames: u64, last: Option<&StepRecord>) {
    if every > 0 && (f + 1).is_multiple_of(every) {
        let r = last.copied().unwrap_or_default();
        eprintln!(
            "frame {:>6}/{frames}: step {:8.3} ms, broadphase {:8.3} ms, dt {:7.3} ms, pairs {}",
            f + 1,
            r.step_ms,
            r.phases.get(Phase::Broadphase),
            r.dt_ms,
            r.pairs
        );
    }
}

/// The files a run writes at its end: the CSV, auto's decisions and the recording.
fn outputs(cli: &Cli, records: &[StepRecord], broadphase: &dyn Broadphase, recording: Recording) -> Result<(), String> {
    if let Some(csv) = &cli.csv {
        write_csv(csv, records).map_err(|e| format!("--csv {}: {e}", csv.display()))?;
        println!("wrote {} rows to {}", records.len(), csv.display());
    }
    if let (Some(path), Some(selector)) = (&cli.decisions, selector(broadphase)) {
        let log = selector.decisions();
        std::fs::write(path, log.to_csv(selector.candidate_names()))
            .map_err(|e| format!("--decisions {}: {e}", path.display()))?;
        println!("wrote {} decisions to {}", log.len(), path.display());
    }
    recording.finish()
}

/// `--record`: every frame's boxes into a `.aabbs` file. A write that fails (a disk full, a body count that
/// changed) stops the recording and is reported at the end; the partial file is removed.
struct Recording {
    writer: Option<Writer>,
    error: Option<AabbsError>,
    /// A frame's boxes in id order, when the simulation reordered its bodies.
    by_id: Vec<collide_math::Aabb>,
}

impl Recording {
    /// Start recording `run`'s boxes, step by step, when `--record` asks.
    fn start(cli: &Cli, run: &dyn Report) -> Result<Self, String> {
        let Some(path) = &cli.record else { return Ok(Self { writer: None, error: None, by_id: Vec::new() }) };
        let (scene, objects) = run.recording_names().map_err(|e| format!("--record {e}"))?;
        let writer = Writer::create(path, &scene, &objects, run.body_count(), run.container())
            .map_err(|e| format!("--record {e}"))?;
        Ok(Self { writer: Some(writer), error: None, by_id: Vec::new() })
    }

    fn capture(&mut self, boxes: &[collide_math::Aabb], ids: Option<&[u32]>) {
        if let (Some(w), None) = (&mut self.writer, &self.error)
            && let Err(e) = w.write_frame(collide_sim::boxes_by_id(boxes, ids, &mut self.by_id))
        {
            self.error = Some(e);
        }
    }

    fn finish(self) -> Result<(), String> {
        let Some(writer) = self.writer else { return Ok(()) };
        if let Some(e) = self.error {
            return Err(format!("--record {e}"));
        }
        let path = writer.path().to_path_buf();
        let n = writer.boxes_per_frame();
        let frames = writer.finish().map_err(|e| format!("--record {e}"))?;
        println!("recorded {frames} frames of {n} boxes to {}", path.display());
        Ok(())
    }
}

/// The meta-broadphase, when the broadphase is `auto`.
fn selector(broadphase: &dyn Broadphase) -> Option<&Selector> {
    broadphase.as_any()?.downcast_ref()
}

/// What `auto` did: switches, probes, its own overhead, and each candidate's share of frames and of time.
fn print_selector(selector: &Selector) {
    let t = selector.totals();
    let total = (t.active_ms + t.probe_ms + t.overhead_ms).max(1e-12);
    println!(
        "auto       {} switches · {} probes ({:.1}% of broadphase time) · own overhead {:.2}% · active now {}",
        t.switches,
        t.probes,
        100.0 * t.probe_ms / total,
        100.0 * t.overhead_ms / total,
        selector.active()
    );
    let shares: Vec<String> = selector
        .candidates()
        .filter(|c| c.frames > 0 || c.probes > 0)
        .map(|c| {
            format!(
                "{} {:.0}% of frames, {:.0}% of time{}",
                c.name,
                100.0 * c.frames as f64 / t.frames.max(1) as f64,
                100.0 * c.ms / total,
                if c.probes > 0 { format!(" ({} probes)", c.probes) } else { String::new() }
            )
        })
        .collect();
    println!("candidates {}", shares.join(" · "));
}

/// The summary lines every run prints: steps, times, the phase split (the phases `run` has, under its names: a
/// replay's are the read and the broadphase), pairs, counters and auto's account.
fn print_records(s: &RunSummary, run: &dyn Report) {
    let last = run.records().last().copied().unwrap_or_default();
    println!("steps      {} ({} warm-up steps excluded from the statistics)", s.frames, s.warmup);
    println!("step ms    mean {:.3}  p50 {:.3}  p95 {:.3}  max {:.3}", s.step.mean, s.step.p50, s.step.p95, s.step.max);
    println!(
        "broadphase mean {:.3}  p50 {:.3}  p95 {:.3}  max {:.3} ms",
        s.broadphase.mean, s.broadphase.p50, s.broadphase.p95, s.broadphase.max
    );
    let total: f64 = s.phase_means.iter().sum::<f64>().max(1e-12);
    let split: Vec<String> = Phase::ALL
        .iter()
        .zip(s.phase_means)
        .filter_map(|(&p, ms)| Some(format!("{} {ms:.3} ({:.0}%)", run.phase_name(p)?, 100.0 * ms / total)))
        .collect();
    println!("phases ms  {}", split.join("  "));
    println!(
        "pairs      mean {:.1}  contacts mean {:.1}  (last step: {} / {})",
        s.mean_pairs, s.mean_contacts, last.pairs, last.contacts
    );
    if !last.stats.is_empty() {
        println!("counters   {}", last.stats);
    }
    if let Some(selector) = selector(run.broadphase()) {
        print_selector(selector);
    }
    if s.removed > 0 {
        println!("removed    {} bodies with non-finite state", s.removed);
    }
}
