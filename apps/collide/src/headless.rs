//! The headless run: load, simulate (or replay a recorded file), summarise, write the CSV and the recording.

use crate::Cli;
use crate::recorder;
use collide_aabbs::{AabbsError, Writer};
use collide_broadphase::Broadphase;
use collide_math::Aabb;
use collide_selector::Selector;
use collide_sim::{Config, FrameRecord, Phase, Replay, RunSummary, Simulation, write_csv};
use std::path::Path;

/// Run the config at `path` headless. Errors are one line, for `error: …` and exit code 2.
pub fn run(path: &Path, cli: &Cli) -> Result<(), String> {
    let config = Config::load(path, &crate::overrides(cli)).map_err(|e| e.to_string())?;
    // Check the output folders before simulating, so a long run never ends in "cannot write".
    for (flag, path) in [("--csv", &cli.csv), ("--decisions", &cli.decisions), ("--record", &cli.record)] {
        if let Some(path) = path {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                return Err(format!("{flag} {}: folder {} does not exist", path.display(), dir.display()));
            }
        }
    }
    if config.is_replay() {
        return run_replay(&config, cli);
    }
    let mut sim = Simulation::new(&config).map_err(|e| e.to_string())?;
    check_decisions(cli, sim.broadphase(), sim.algorithm().0.name)?;
    let setup = sim.setup().clone();
    let mut recording = match &cli.record {
        Some(_) => {
            let (scene, objects) = recorder::names_of_simulated(setup.scenario).map_err(|e| format!("--record {e}"))?;
            Recording::start(cli, &scene, objects, sim.bodies().len(), setup.container)?
        }
        None => Recording::none(),
    };
    let (algorithm, params) = sim.algorithm();
    // Spheres without friction print as they always have; boxes and friction add their keys.
    let mut shapes = String::new();
    if setup.shape != collide_sim::ShapeMix::Sphere {
        let h = setup.half_extents;
        let spread = setup.half_extents_spread;
        shapes = format!(" · shape {} · half extents {} {} {} ± {spread}", setup.shape.name(), h.x, h.y, h.z);
    }
    if setup.friction > 0.0 {
        shapes.push_str(&format!(" · friction {}", setup.friction));
    }
    println!(
        "collide headless: scenario {} · {} bodies · radius {}{shapes} · speed {} · algorithm {}{}{} · {} frames",
        setup.scenario.name,
        setup.bodies,
        setup.radius,
        setup.speed,
        algorithm.name,
        if params.iter().next().is_some() { " " } else { "" },
        params,
        config.frames(),
    );
    let (every, frames) = (cli.progress, config.frames());
    // Every step is recorded, however many steps the clock grants a frame (`accumulator` may grant several).
    sim.run_each(
        frames,
        |sim| recording.capture(sim.aabbs()),
        |f, sim| progress(every, f, frames, sim.records().last()),
    );
    let summary = sim.summary();
    print_records(&summary, sim.records(), sim.broadphase(), false);
    // Counted only in scenes that can tunnel (collide-sim's `ccd` module says which); printed when counted.
    if summary.tunnelled > 0 || setup.shows_tunnelling() {
        let ccd = if setup.ccd { "on" } else { "off" };
        println!("tunnelled  {} (bodies through obstacles and pairs through each other; ccd {ccd})", summary.tunnelled);
    }
    println!("bodies     {} at the end · simulated {:.3} s", sim.bodies().len(), sim.time());
    println!("hash       {:016x}", sim.state_hash());
    outputs(cli, sim.records(), sim.broadphase(), recording)
}

/// Replay the config's `.aabbs` file into its broadphase.
fn run_replay(config: &Config, cli: &Cli) -> Result<(), String> {
    let mut replay = Replay::new(config).map_err(|e| e.to_string())?;
    check_decisions(cli, replay.broadphase(), replay.algorithm().0.name)?;
    let header = replay.header().clone();
    let mut recording =
        Recording::start(cli, &header.scene_name, &header.objects_type, header.n as usize, header.world)?;
    let (algorithm, params) = replay.algorithm();
    let frames = replay.setup().frames;
    println!(
        "collide headless: replay {} ({} · {}) · {} boxes · algorithm {}{}{} · {frames} of its {} frames",
        replay.setup().path.display(),
        header.scene_name,
        header.objects_type,
        header.n,
        algorithm.name,
        if params.iter().next().is_some() { " " } else { "" },
        params,
        header.frames,
    );
    let every = cli.progress;
    // A hash of every frame's sorted pairs: two algorithms that agree print the same.
    let mut hash = Fnv::default();
    replay
        .run(frames, |f, replay| {
            recording.capture(replay.aabbs());
            for p in replay.pairs() {
                hash.add(u64::from(p.a) << 32 | u64::from(p.b));
            }
            hash.add(u64::MAX);
            progress(every, f, frames, replay.records().last());
        })
        .map_err(|e| e.to_string())?;
    print_records(&replay.summary(), replay.records(), replay.broadphase(), true);
    println!(
        "boxes      {} per frame · {} frames replayed from {}",
        header.n,
        replay.played(),
        replay.setup().path.display()
    );
    println!("pairs hash {:016x}", hash.0);
    outputs(cli, replay.records(), replay.broadphase(), recording)
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
fn progress(every: u64, f: u64, frames: u64, last: Option<&FrameRecord>) {
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
fn outputs(
    cli: &Cli,
    records: &[FrameRecord],
    broadphase: &dyn Broadphase,
    recording: Recording,
) -> Result<(), String> {
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
}

impl Recording {
    /// Not recording.
    fn none() -> Self {
        Self { writer: None, error: None }
    }

    /// Start recording frames of `n` boxes in `world` when `--record` asks.
    fn start(cli: &Cli, scene: &str, objects: &str, n: usize, world: Aabb) -> Result<Self, String> {
        let Some(path) = &cli.record else { return Ok(Self::none()) };
        let writer = Writer::create(path, scene, objects, n, world).map_err(|e| format!("--record {e}"))?;
        Ok(Self { writer: Some(writer), error: None })
    }

    fn capture(&mut self, boxes: &[Aabb]) {
        if let (Some(w), None) = (&mut self.writer, &self.error)
            && let Err(e) = w.write_frame(boxes)
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

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
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

/// The summary lines every run prints: steps, times, the phase split (a replay's is the read and the
/// broadphase), pairs, counters and auto's account.
fn print_records(s: &RunSummary, records: &[FrameRecord], broadphase: &dyn Broadphase, replay: bool) {
    let last = records.last().copied().unwrap_or_default();
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
        .filter(|(p, _)| !replay || matches!(p, Phase::Aabbs | Phase::Broadphase))
        .map(|(p, ms)| {
            let name = if replay && *p == Phase::Aabbs { "read" } else { p.name() };
            format!("{name} {ms:.3} ({:.0}%)", 100.0 * ms / total)
        })
        .collect();
    println!("phases ms  {}", split.join("  "));
    println!(
        "pairs      mean {:.1}  contacts mean {:.1}  (last step: {} / {})",
        s.mean_pairs, s.mean_contacts, last.pairs, last.contacts
    );
    if !last.stats.is_empty() {
        println!("counters   {}", last.stats);
    }
    if let Some(selector) = selector(broadphase) {
        print_selector(selector);
    }
    if s.removed > 0 {
        println!("removed    {} bodies with non-finite state", s.removed);
    }
}
