//! Replay recorded cost traces through `auto`'s controller and print how it did against every candidate pinned
//! and the oracles.
//!
//! ```sh
//! cargo xtask bench --study selector-trace                       # records bench-results/<machine>/selector-trace-*.csv
//! cargo run --release -p collide-selector --example trace_replay -- bench-results/vm/selector-trace-*.csv
//! cargo run --release -p collide-selector --example trace_replay -- --set margin=0.2 --set probe_share=0.02 FILES…
//! ```
//!
//! The knobs `--set` can change are those of [`PolicyConfig`]: margin, cooldown, probe_share, probe_frames,
//! sample_frames, min_horizon, thrash_window, free_after, build_beside_from, sample_from, sample_share. Traces are
//! judged over all of their frames, from the first.

use collide_math::Rng;
use collide_selector::trace::Trace;
use collide_selector::trace_replay::{TraceReplay, judge, replay_trace};
use collide_selector::{PolicyConfig, Prior};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn set(policy: &mut PolicyConfig, assignment: &str) -> Result<(), String> {
    let (key, value) = assignment.split_once('=').ok_or_else(|| format!("`--set {assignment}`: expected KEY=VALUE"))?;
    let number: f64 = value.parse().map_err(|e| format!("`--set {assignment}`: {e}"))?;
    match key {
        "margin" => policy.margin = number,
        "probe_share" => policy.probe_share = number,
        "cooldown" => policy.cooldown = number as u32,
        "probe_frames" => policy.probe_frames = number as u32,
        "sample_frames" => policy.sample_frames = number as u32,
        "min_horizon" => policy.min_horizon = number as u32,
        "thrash_window" => policy.thrash_window = number as u32,
        "free_after" => policy.free_after = number as u32,
        "build_beside_from" => policy.build_beside_from = number,
        "sample_from" => policy.sample_from = number as usize,
        "sample_share" => policy.sample_share = number,
        _ => return Err(format!("unknown knob `{key}`")),
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let mut policy = PolicyConfig::default();
    let mut files = Vec::new();
    let mut detail = false;
    let mut jitter = 0u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--detail" {
            detail = true;
        } else if arg == "--jitter" {
            let k = args.next().ok_or("--jitter needs a count of replays")?;
            jitter = k.parse().map_err(|e| format!("--jitter {k}: {e}"))?;
        } else if arg == "--set" {
            set(&mut policy, &args.next().ok_or("--set needs KEY=VALUE")?)?;
        } else {
            files.push(arg);
        }
    }
    if files.is_empty() {
        return Err("usage: replay [--detail] [--set KEY=VALUE]… TRACE.csv…".into());
    }
    let prior = Prior::builtin();
    if jitter > 0 {
        return jittered(&files, policy, &prior, jitter);
    }
    let (mut worst_best, mut worst_oracle) = (0.0f64, 0.0f64);
    println!(
        "{:<34} {:>10} {:>16} {:>8} {:>8} {:>8} {:>5} {:>5} {:>7}",
        "trace", "auto ms", "best pinned", "/best", "/phase", "/frame", "sw", "pr", "spike"
    );
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let trace = Trace::parse(&text).map_err(|e| format!("{file}: {e}"))?;
        let n = trace.frames.len();
        let range = 0..n;
        let floor: f64 =
            trace.frames.iter().map(|f| f.ms.iter().copied().fold(f64::INFINITY, f64::min)).sum::<f64>() / n as f64;
        let r = replay_trace(&trace, policy, prior.clone(), 0.01 * floor);
        let v = judge(&trace, &r, range);
        let best = v.pinned_ms[v.best_pinned];
        worst_best = worst_best.max(v.auto_ms / best);
        worst_oracle = worst_oracle.max(v.auto_ms / v.per_phase_oracle_ms);
        let name = std::path::Path::new(file).file_stem().map_or(file.clone(), |s| s.to_string_lossy().into_owned());
        println!(
            "{:<34} {:>10.1} {:>16} {:>8.3} {:>8.3} {:>8.3} {:>5} {:>5} {:>7.2}",
            name.trim_start_matches("selector-trace-"),
            v.auto_ms,
            format!("{} {:.0}", trace.names[v.best_pinned], best),
            v.auto_ms / best,
            v.auto_ms / v.per_phase_oracle_ms,
            v.auto_ms / v.per_frame_oracle_ms,
            v.switches,
            v.probes,
            v.worst_switch_spike,
        );
        if detail {
            print_detail(&trace, &r);
        }
    }
    println!("worst auto / best pinned {worst_best:.3}; worst auto / per-phase oracle {worst_oracle:.3}");
    Ok(())
}

/// Per phase: every candidate's total, auto's, and the candidates auto ran; then the decision log.
fn print_detail(trace: &Trace, r: &TraceReplay) {
    let mut start = 0;
    let n = trace.frames.len();
    for i in 0..n {
        if i + 1 < n && trace.frames[i + 1].phase == trace.frames[start].phase {
            continue;
        }
        let range = start..i + 1;
        let totals: Vec<String> = (0..trace.names.len())
            .map(|c| format!("{}={:.0}", trace.names[c], trace.pinned_ms(c, range.clone())))
            .collect();
        let mut ran: Vec<&str> = r.frames[range.clone()].iter().map(|f| trace.names[f.active]).collect();
        ran.dedup();
        println!(
            "  phase {:<10} frames {:>4}..{:<4} auto={:.0}  {}  ran {}",
            trace.frames[start].phase,
            range.start,
            range.end,
            r.total_ms(range.clone()),
            totals.join(" "),
            ran.join("→")
        );
        start = i + 1;
    }
    for i in 11..n {
        if r.frames[i].active != r.frames[i - 1].active {
            let mut before: Vec<f64> = r.frames[i - 11..i - 1].iter().map(|f| f.ms).collect();
            before.sort_by(f64::total_cmp);
            let median = before[before.len() / 2];
            println!(
                "  switch at {i}: frames {:.2} {:.2} ms against the median {median:.2} of the ten before: {:.2}×",
                r.frames[i - 1].ms,
                r.frames[i].ms,
                r.frames[i - 1].ms.max(r.frames[i].ms) / median
            );
        }
    }
    for d in r.controller.log().iter() {
        println!("  {:>5} {:<8} {:>13} → {:<13} {}", d.frame, d.kind.name(), d.from, d.to, d.reason);
    }
}

/// Each trace replayed `k` times, every recorded time multiplied by its own log-normal factor (σ = 0.1, a frame's
/// noise on a shared machine) from a seeded generator: a policy judged on many noisy versions of the same frames
/// rather than on one, so that a knob is not tuned to one trace's luck. Prints per trace the mean and the worst of
/// auto / best pinned and auto / per-phase oracle over the replays, and the share of auto's time its probes took.
fn jittered(files: &[String], policy: PolicyConfig, prior: &Prior, k: u64) -> Result<(), String> {
    println!("{:<26} {:>9} {:>9} {:>9} {:>9} {:>9}", "trace", "/best", "worst", "/phase", "worst", "probes");
    let (mut sum, mut worst_mean) = (0.0, 0.0f64);
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let trace = Trace::parse(&text).map_err(|e| format!("{file}: {e}"))?;
        let n = trace.frames.len();
        let range = 0..n;
        let (mut best_sum, mut best_max, mut phase_sum, mut phase_max) = (0.0, 0.0f64, 0.0, 0.0f64);
        let mut probe_share = 0.0;
        for seed in 0..k {
            let mut noisy = trace.clone();
            let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ (seed + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
            for f in &mut noisy.frames {
                for ms in f.ms.iter_mut().chain(f.warm_ms.iter_mut()).chain(f.first_ms.iter_mut()) {
                    *ms *= (0.1 * f64::from(rng.normal())).exp();
                }
            }
            let floor: f64 =
                noisy.frames.iter().map(|f| f.ms.iter().copied().fold(f64::INFINITY, f64::min)).sum::<f64>() / n as f64;
            let r = replay_trace(&noisy, policy, prior.clone(), 0.01 * floor);
            let v = judge(&noisy, &r, range.clone());
            let (b, p) = (v.auto_ms / v.pinned_ms[v.best_pinned], v.auto_ms / v.per_phase_oracle_ms);
            probe_share += r.frames[range.clone()].iter().map(|f| f.probe_ms).sum::<f64>() / v.auto_ms;
            best_sum += b;
            best_max = best_max.max(b);
            phase_sum += p;
            phase_max = phase_max.max(p);
        }
        let name = std::path::Path::new(file).file_stem().map_or(file.clone(), |s| s.to_string_lossy().into_owned());
        let mean = best_sum / k as f64;
        sum += mean;
        worst_mean = worst_mean.max(mean);
        println!(
            "{:<26} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>8.1}%",
            name.trim_start_matches("selector-trace-"),
            mean,
            best_max,
            phase_sum / k as f64,
            phase_max,
            100.0 * probe_share / k as f64
        );
    }
    println!("mean of the traces' mean auto / best pinned {:.3}; worst mean {worst_mean:.3}", sum / files.len() as f64);
    Ok(())
}
