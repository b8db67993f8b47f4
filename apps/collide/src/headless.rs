//! The headless run: load, simulate, summarise, write the CSV.

use crate::Cli;
use collide_sim::{Config, Phase, Simulation, write_csv};
use std::path::Path;

/// Run the config at `path` headless. Errors are one line, for `error: …` and exit code 2.
pub fn run(path: &Path, cli: &Cli) -> Result<(), String> {
    let mut overrides = cli.overrides.clone();
    if let Some(frames) = cli.frames {
        overrides.push(format!("frames={frames}"));
    }
    let config = Config::load(path, &overrides).map_err(|e| e.to_string())?;
    // Check the CSV's folder before simulating, so a long run never ends in "cannot write".
    if let Some(csv) = &cli.csv {
        let dir = csv.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(format!("--csv {}: folder {} does not exist", csv.display(), dir.display()));
        }
    }
    let mut sim = Simulation::new(&config).map_err(|e| e.to_string())?;
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
        config.frames,
    );
    let every = cli.progress;
    sim.run(config.frames, |f, sim| {
        if every > 0 && (f + 1) % every == 0 {
            let r = sim.records().last().copied().unwrap_or_default();
            eprintln!(
                "frame {:>6}/{}: step {:8.3} ms, broadphase {:8.3} ms, dt {:7.3} ms, pairs {}",
                f + 1,
                config.frames,
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
    Ok(())
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
    if s.removed > 0 {
        println!("removed    {} bodies with non-finite state", s.removed);
    }
    println!("bodies     {} at the end · simulated {:.3} s", last.n, sim.time());
    println!("hash       {:016x}", sim.state_hash());
}
