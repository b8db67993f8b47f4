//! The headless run: load, simulate, summarise, write the CSV.

use crate::Cli;
use collide_selector::Selector;
use collide_sim::{Config, Phase, Simulation, write_csv};
use std::path::Path;

/// Run the config at `path` headless. Errors are one line, for `error: …` and exit code 2.
pub fn run(path: &Path, cli: &Cli) -> Result<(), String> {
    let mut overrides = cli.overrides.clone();
    if let Some(frames) = cli.frames {
        overrides.push(format!("frames={frames}"));
    }
    let config = Config::load(path, &overrides).map_err(|e| e.to_string())?;
    // Check the output folders before simulating, so a long run never ends in "cannot write".
    for (flag, path) in [("--csv", &cli.csv), ("--decisions", &cli.decisions)] {
        if let Some(path) = path {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                return Err(format!("{flag} {}: folder {} does not exist", path.display(), dir.display()));
            }
        }
    }
    let mut sim = Simulation::new(&config).map_err(|e| e.to_string())?;
    if cli.decisions.is_some() && selector(&sim).is_none() {
        return Err(format!(
            "--decisions: the algorithm is `{}`; only `auto` makes decisions (--set algorithm=auto)",
            sim.algorithm().0.name
        ));
    }
    let setup = sim.setup().clone();
    let (algorithm, params) = sim.algorithm();
    println!(
        "collide headless: scenario {} · {} bodies · radius {} · speed {} · algorithm {}{}{} · {} frames",
        setup.scenario.name,
        setup.bodies,
        setup.radius,
        setup.speed,
        algorithm.name,
        if params.iter().next().is_some() { " " } else { "" },
        params,
        config.frames(),
    );
    let every = cli.progress;
    sim.run(config.frames(), |f, sim| {
        if every > 0 && (f + 1) % every == 0 {
            let r = sim.records().last().copied().unwrap_or_default();
            eprintln!(
                "frame {:>6}/{}: step {:8.3} ms, broadphase {:8.3} ms, dt {:7.3} ms, pairs {}",
                f + 1,
                config.frames(),
                r.step_ms,
                r.phases.get(Phase::Broadphase),
                r.dt_ms,
                r.pairs
            );
        }
    });
    print_summary(&sim);
    if let Some(csv) = &cli.csv {
        write_csv(csv, sim.records()).map_err(|e| format!("--csv {}: {e}", csv.display()))?;
        println!("wrote {} rows to {}", sim.records().len(), csv.display());
    }
    if let (Some(path), Some(selector)) = (&cli.decisions, selector(&sim)) {
        let log = selector.decisions();
        std::fs::write(path, log.to_csv(selector.candidate_names()))
            .map_err(|e| format!("--decisions {}: {e}", path.display()))?;
        println!("wrote {} decisions to {}", log.len(), path.display());
    }
    Ok(())
}

/// The meta-broadphase, when the simulation runs `auto`.
fn selector(sim: &Simulation) -> Option<&Selector> {
    sim.broadphase().as_any()?.downcast_ref()
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

fn print_summary(sim: &Simulation) {
    let s = sim.summary();
    let last = sim.records().last().copied().unwrap_or_default();
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
        .map(|(p, ms)| format!("{} {ms:.3} ({:.0}%)", p.name(), 100.0 * ms / total))
        .collect();
    println!("phases ms  {}", split.join("  "));
    println!(
        "pairs      mean {:.1}  contacts mean {:.1}  (last step: {} / {})",
        s.mean_pairs, s.mean_contacts, last.pairs, last.contacts
    );
    if !last.stats.is_empty() {
        println!("counters   {}", last.stats);
    }
    if let Some(selector) = selector(sim) {
        print_selector(selector);
    }
    if s.removed > 0 {
        println!("removed    {} bodies with non-finite state", s.removed);
    }
    println!("bodies     {} at the end · simulated {:.3} s", last.n, sim.time());
    println!("hash       {:016x}", sim.state_hash());
}
