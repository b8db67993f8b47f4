//! One live run in a fresh process — what `collide --headless` runs — for the `selector` study.
//!
//! The study judges `auto` by what a user pays from the first frame: a cold allocator, the page faults of the
//! first frames, every structure built from nothing. Runs made one after another in one process would share a
//! warm heap and each other's mapped pages, so the study starts its own binary again (`std::env::current_exe()`)
//! once per run, with the hidden subcommand `cargo xtask live-run` whose arguments are a [`Spec`]. The child
//! simulates the scenario (or replays the window of a `.aabbs` file) exactly as `collide --headless` (or
//! `--replay`) does — `collide_sim::Simulation` one frame at a time under the fixed-dt clock, or
//! `collide_sim::Replay` — and prints every step's broadphase time, the state hash, the pair checks and `auto`'s
//! totals and decision log on standard output, in the line format of [`Outcome::encode`], which the study reads
//! back with [`Outcome::decode`].
//!
//! The time of a step is its record's broadphase phase: for `auto` that includes its probes, its warm starts and
//! its own overhead. Every step from frame 0 is kept; nothing is warmed up.

use super::measure;
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::Frame;
use collide_broadphase::parallel::on_worker;
use collide_selector::{DecisionKind, FeatureSampler, Features, Selector, Totals};
use collide_sim::{Phase, Replay, ReplaySetup, StepRecord};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The first line of a child's output: the format's name and version.
const MAGIC: &str = "collide-live-run 1";

/// One live run: a scene, a body count, frames, an algorithm (the arguments of `cargo xtask live-run`).
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct Spec {
    /// The registry scenario to simulate (response off for `tour`, as in `configs/tour.toml`; the scenario's
    /// default otherwise).
    #[arg(long, conflicts_with = "replay")]
    pub scenario: Option<String>,
    /// The `.aabbs` file to replay instead (through `collide_sim::Replay`).
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// The replay's first frame: the window starts there, its first frame built cold.
    #[arg(long, default_value_t = 0)]
    pub from: u64,
    /// Bodies of the scenario (a replay has the file's).
    #[arg(long, default_value_t = 0)]
    pub bodies: usize,
    /// Frames to run, every one of them timed.
    #[arg(long)]
    pub frames: u64,
    /// The registry name of the broadphase.
    #[arg(long)]
    pub algorithm: String,
    /// Frames of the run (0-based) whose pairs are compared with brute force after the frame (never timed).
    #[arg(long, value_delimiter = ',')]
    pub check: Vec<u64>,
    /// A broadphase phase slower than this (ms) ends the run early (`short`).
    #[arg(long)]
    pub frame_limit_ms: f64,
    /// The run ends early (`short`) once it has taken this many seconds.
    #[arg(long)]
    pub budget_s: f64,
    /// The fraction of the scenario's bodies that start at rest (the `calibrate` study's resting scene).
    #[arg(long, default_value_t = 0.0)]
    pub resting_fraction: f32,
    /// Collision response off (the tour is always run without it).
    #[arg(long)]
    pub no_response: bool,
    /// Also print, per step, the features `auto` measures on the step's boxes before it runs (with the step
    /// before's pairs): what the `calibrate` study fits the prior on.
    #[arg(long)]
    pub features: bool,
}

impl Spec {
    /// The command-line arguments that give this spec to `cargo xtask live-run`.
    #[must_use]
    pub fn args(&self) -> Vec<String> {
        let mut a = vec!["live-run".to_owned()];
        if let Some(s) = &self.scenario {
            a.extend(["--scenario".into(), s.clone()]);
        }
        if let Some(p) = &self.replay {
            a.extend(["--replay".into(), p.display().to_string(), "--from".into(), self.from.to_string()]);
        }
        a.extend(["--bodies".into(), self.bodies.to_string(), "--frames".into(), self.frames.to_string()]);
        a.extend(["--algorithm".into(), self.algorithm.clone()]);
        if !self.check.is_empty() {
            let frames: Vec<String> = self.check.iter().map(u64::to_string).collect();
            a.extend(["--check".into(), frames.join(",")]);
        }
        a.extend(["--frame-limit-ms".into(), self.frame_limit_ms.to_string()]);
        a.extend(["--budget-s".into(), self.budget_s.to_string()]);
        if self.resting_fraction > 0.0 {
            a.extend(["--resting-fraction".into(), self.resting_fraction.to_string()]);
        }
        if self.no_response {
            a.push("--no-response".into());
        }
        if self.features {
            a.push("--features".into());
        }
        a
    }

    /// Run it in a fresh process of this binary and read what it printed. An error names the run and carries
    /// the last lines the child wrote on standard error.
    pub fn spawn(&self) -> Result<Outcome, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the xtask binary: {e}"))?;
        let out = Command::new(&exe)
            .args(self.args())
            .current_dir(crate::root())
            .output()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let name = format!("live run of `{}` on {}", self.algorithm, self.scene_label());
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect();
            return Err(format!("{name} failed ({}): {}", out.status, tail.join(" / ")));
        }
        Outcome::decode(&String::from_utf8_lossy(&out.stdout)).map_err(|e| format!("{name}: {e}"))
    }

    /// `uniform n=10000` or `rapier-free-fall-10000.aabbs from 120`.
    fn scene_label(&self) -> String {
        match (&self.scenario, &self.replay) {
            (Some(s), _) => format!("{s} n={}", self.bodies),
            (None, Some(p)) => {
                format!(
                    "{} from {}",
                    p.file_name().map_or(p.display().to_string(), |f| f.display().to_string()),
                    self.from
                )
            }
            (None, None) => "no scene".into(),
        }
    }
}

/// One step of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The broadphase phase, ms.
    pub ms: f64,
    /// The candidate that answered (the algorithm itself when pinned).
    pub active: String,
    /// The scenario's phase (the tour's), or empty.
    pub phase: String,
    /// Pairs found.
    pub pairs: u64,
    /// The features `auto` measures before the step (with `--features`).
    pub features: Option<Features>,
}

/// What `auto` did over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AutoLog {
    /// Its totals (probes, overhead, switches).
    pub totals: Totals,
    /// The first decision of its log, kind `initial`: the prior's frame-0 pick.
    pub initial: String,
    /// Its decision log as CSV (`DecisionLog::to_csv`).
    pub decisions_csv: String,
}

/// What a live run printed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The registry name of the algorithm.
    pub algorithm: String,
    /// Every step, from frame 0.
    pub steps: Vec<Step>,
    /// The simulation's state hash after the last step, or for a replay a hash of every frame's sorted pairs:
    /// equal across algorithms that found the same pairs over the same frames.
    pub hash: u64,
    /// The brute-force checks: `brute ok (k frames)`, `MISMATCH …` or `-`.
    pub check: String,
    /// `ok`, or `short: …` when a limit ended the run early.
    pub status: String,
    /// `auto`'s account, when the algorithm was `auto`.
    pub auto: Option<AutoLog>,
}

impl Outcome {
    /// `true` when every frame asked for ran.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.status == "ok"
    }

    /// The broadphase ms of every step.
    #[must_use]
    pub fn ms(&self) -> Vec<f64> {
        self.steps.iter().map(|s| s.ms).collect()
    }

    /// The line format: the magic line, `key value` lines, a `step` line per step, a `decision` line per line of
    /// the decision log's CSV, and `end` (so a child that died mid-write is never read as a short run).
    #[must_use]
    pub fn encode(&self) -> String {
        let mut s = format!(
            "{MAGIC}\nalgorithm {}\nhash {:016x}\ncheck {}\nstatus {}\n",
            self.algorithm, self.hash, self.check, self.status
        );
        if let Some(auto) = &self.auto {
            let t = &auto.totals;
            let _ = writeln!(
                s,
                "totals frames={} active_ms={} probe_ms={} beside_ms={} overhead_ms={} switches={} probes={} \
                 sampled={} builds_beside={}",
                t.frames,
                t.active_ms,
                t.probe_ms,
                t.beside_ms,
                t.overhead_ms,
                t.switches,
                t.probes,
                t.sampled,
                t.builds_beside
            );
            let _ = writeln!(s, "initial {}", auto.initial);
        }
        for st in &self.steps {
            let phase = if st.phase.is_empty() { "-" } else { &st.phase };
            let _ = write!(s, "step {} {} {phase} {}", st.ms, st.active, st.pairs);
            if let Some(f) = &st.features {
                let _ = write!(
                    s,
                    " {} {} {} {} {} {} {}",
                    f.n,
                    f.pairs_per_body,
                    f.speed_mean,
                    u8::from(f.speed_known),
                    f.clustering,
                    f.size_spread,
                    f.resting
                );
            }
            s.push('\n');
        }
        if let Some(auto) = &self.auto {
            for line in auto.decisions_csv.lines() {
                let _ = writeln!(s, "decision {line}");
            }
        }
        s.push_str("end\n");
        s
    }

    /// Read [`Outcome::encode`]'s format back; an error names the line.
    pub fn decode(text: &str) -> Result<Self, String> {
        let mut lines = text.lines().enumerate();
        if lines.next().map(|(_, l)| l) != Some(MAGIC) {
            return Err(format!("the child's output does not start with `{MAGIC}`"));
        }
        let mut o = Self::default();
        let mut auto = AutoLog::default();
        let (mut has_auto, mut ended) = (false, false);
        for (i, line) in lines {
            let bad = |what: &str| format!("line {}: {what}: `{line}`", i + 1);
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "algorithm" => o.algorithm = rest.to_owned(),
                "hash" => o.hash = u64::from_str_radix(rest, 16).map_err(|_| bad("bad hash"))?,
                "check" => o.check = rest.to_owned(),
                "status" => o.status = rest.to_owned(),
                "totals" => {
                    auto.totals = parse_totals(rest).map_err(|e| bad(&e))?;
                    has_auto = true;
                }
                "initial" => auto.initial = rest.to_owned(),
                "step" => {
                    let f: Vec<&str> = rest.split(' ').collect();
                    let (&[ms, active, phase, pairs], more) = f.split_at(4.min(f.len())) else {
                        return Err(bad("a step has 4 fields"));
                    };
                    let features = match more {
                        [] => None,
                        [n, ppb, speed, known, clustering, spread, resting] => {
                            let x = |v: &str| v.parse::<f64>().map_err(|_| bad("bad feature"));
                            Some(Features {
                                n: n.parse().map_err(|_| bad("bad n"))?,
                                pairs_per_body: x(ppb)?,
                                speed_mean: x(speed)?,
                                speed_known: *known == "1",
                                clustering: x(clustering)?,
                                size_spread: x(spread)?,
                                resting: x(resting)?,
                            })
                        }
                        _ => return Err(bad("a step has 4 fields, or 11 with features")),
                    };
                    o.steps.push(Step {
                        ms: ms.parse().map_err(|_| bad("bad ms"))?,
                        active: active.to_owned(),
                        phase: if phase == "-" { String::new() } else { phase.to_owned() },
                        pairs: pairs.parse().map_err(|_| bad("bad pairs"))?,
                        features,
                    });
                }
                "decision" => {
                    auto.decisions_csv.push_str(rest);
                    auto.decisions_csv.push('\n');
                }
                "end" => ended = true,
                _ => return Err(bad("unknown key")),
            }
        }
        if !ended {
            return Err("the child's output has no `end` line (cut short)".into());
        }
        if has_auto {
            o.auto = Some(auto);
        }
        Ok(o)
    }
}

/// `frames=110 active_ms=12.5 …`: the totals a child printed. A key this build does not know is an error (the
/// child is this very binary, so it cannot happen but by a bug); a key the child did not print stays 0.
fn parse_totals(text: &str) -> Result<Totals, String> {
    let mut t = Totals::default();
    for field in text.split_whitespace() {
        let (key, value) = field.split_once('=').ok_or("a totals field is key=value")?;
        let number: f64 = value.parse().map_err(|_| format!("bad number in {field}"))?;
        let count = number as u64;
        match key {
            "frames" => t.frames = count,
            "active_ms" => t.active_ms = number,
            "probe_ms" => t.probe_ms = number,
            "beside_ms" => t.beside_ms = number,
            "overhead_ms" => t.overhead_ms = number,
            "switches" => t.switches = count,
            "probes" => t.probes = count,
            "sampled" => t.sampled = count,
            "builds_beside" => t.builds_beside = count,
            _ => return Err(format!("unknown totals key `{key}`")),
        }
    }
    Ok(t)
}

/// `cargo xtask live-run`: run `spec` here and print its [`Outcome`].
pub fn run_child(spec: &Spec) -> Result<(), String> {
    let algorithm = collide_algorithms::find(&spec.algorithm).map_err(|e| format!("--algorithm: {e}"))?;
    let outcome = match (&spec.scenario, &spec.replay) {
        (Some(scenario), None) => simulate(spec, scenario, algorithm)?,
        (None, Some(_)) => replay(spec, algorithm)?,
        _ => return Err("live-run: give one of --scenario NAME and --replay FILE".into()),
    };
    use std::io::Write as _;
    std::io::stdout().lock().write_all(outcome.encode().as_bytes()).map_err(|e| format!("cannot write: {e}"))
}

/// Counts the checks and the limits of a run as it goes.
struct Watch<'a> {
    spec: &'a Spec,
    started: Instant,
    checks: Vec<Result<(), String>>,
    status: String,
}

impl<'a> Watch<'a> {
    fn new(spec: &'a Spec) -> Self {
        Self { spec, started: Instant::now(), checks: Vec::new(), status: "ok".into() }
    }

    /// After frame `f`: check its pairs when asked (with `check`, untimed); `false` when a limit ends the run.
    fn after(&mut self, f: u64, record: &StepRecord, check: impl FnOnce() -> Result<(), String>) -> bool {
        if self.spec.check.contains(&f) {
            self.checks.push(check());
        }
        let ms = record.phases.get(Phase::Broadphase);
        let last = f + 1 == self.spec.frames;
        if !last && ms > self.spec.frame_limit_ms {
            self.status = format!("short: frame {f} took {ms:.0} ms > {:.0} ms limit", self.spec.frame_limit_ms);
            return false;
        }
        let spent = self.started.elapsed().as_secs_f64();
        if !last && spent > self.spec.budget_s {
            self.status =
                format!("short: budget of {:.0} s spent at frame {f} of {}", self.spec.budget_s, self.spec.frames);
            return false;
        }
        true
    }
}

/// Simulate `scenario` as `collide --headless` does: one frame at a time under the fixed-dt clock, the whole run
/// on one of rayon's threads.
fn simulate(spec: &Spec, scenario: &str, algorithm: &'static AlgorithmDescriptor) -> Result<Outcome, String> {
    let mut cfg = measure::config(scenario, spec.bodies, None, algorithm, &Params::defaults(algorithm.params), false);
    cfg.resolution = scenario != "tour" && !spec.no_response;
    cfg.resting_fraction = spec.resting_fraction;
    let mut sim = measure::simulation(&cfg)?;
    let mut watch = Watch::new(spec);
    let mut features = StepFeatures::default();
    on_worker(|| {
        let mut last_frame_seconds = 0.0;
        for f in 0..spec.frames {
            let start = Instant::now();
            sim.frame(last_frame_seconds);
            last_frame_seconds = start.elapsed().as_secs_f32();
            let record = *sim.records().last().expect("a frame of the fixed clock is one step");
            if spec.features {
                // What auto measures before the step: its boxes (and the simulation's speed hint on the first),
                // with the step before's pairs. Measured after the step's timing, so it costs the run nothing.
                let hint = collide_sim::speed_hint(&sim.bodies().velocity, sim.aabbs(), collide_timing::FRAME_60HZ);
                features.measure(&Frame::new(sim.aabbs()).with_speed(hint), sim.pairs().len());
            }
            if !watch.after(f, &record, || measure::check_against_brute(sim.aabbs(), sim.pairs())) {
                break;
            }
        }
    });
    let auto = auto_log(sim.broadphase());
    let mut out = outcome(algorithm, sim.records(), sim.state_hash(), watch, auto);
    features.attach(&mut out);
    Ok(out)
}

/// The features `auto` would measure before each step of a run (`--features`), on the step's boxes with the pairs
/// of the step before: what the `calibrate` study fits the prior on. Measured after the step's timing, so they
/// cost the run nothing.
#[derive(Default)]
struct StepFeatures {
    sampler: FeatureSampler,
    last_pairs: Option<usize>,
    measured: Vec<Features>,
}

impl StepFeatures {
    /// Measure a step's `frame` (its boxes and hints), then remember its `pairs` for the next step's.
    fn measure(&mut self, frame: &Frame<'_>, pairs: usize) {
        self.measured.push(self.sampler.measure(frame, self.last_pairs));
        self.last_pairs = Some(pairs);
    }

    /// Give each step of `out` its features, in order.
    fn attach(self, out: &mut Outcome) {
        for (step, f) in out.steps.iter_mut().zip(self.measured) {
            step.features = Some(f);
        }
    }
}

/// Replay the window `from .. from + frames` of the spec's file as `collide --headless --replay` plays a file.
fn replay(spec: &Spec, algorithm: &'static AlgorithmDescriptor) -> Result<Outcome, String> {
    let path = spec.replay.clone().expect("a replay spec");
    let header = collide_aabbs::Reader::open(&path).map_err(|e| e.to_string())?.header().clone();
    let end = spec.from + spec.frames;
    if end > header.frames {
        return Err(format!(
            "{}: frames {}..{end} asked for, the file has {}",
            path.display(),
            spec.from,
            header.frames
        ));
    }
    let setup = ReplaySetup { path, header, frames: end, dt: collide_timing::FRAME_60HZ };
    let mut replay =
        Replay::from_parts(setup, algorithm, Params::defaults(algorithm.params)).map_err(|e| e.to_string())?;
    if spec.from > 0 {
        // The broadphase has seen no frame yet: the window's first frame builds it cold.
        replay.seek(spec.from).map_err(|e| e.to_string())?;
    }
    let mut watch = Watch::new(spec);
    let mut features = StepFeatures::default();
    on_worker(|| -> Result<(), String> {
        for f in 0..spec.frames {
            let record = *replay.step().map_err(|e| e.to_string())?.ok_or("the file ended early")?;
            if spec.features {
                // The frame's boxes and its motion hint (a file has no speed hint).
                features.measure(&Frame::new(replay.aabbs()).with_moved(replay.moved()), replay.pairs().len());
            }
            if !watch.after(f, &record, || measure::check_against_brute(replay.aabbs(), replay.pairs())) {
                break;
            }
        }
        Ok(())
    })?;
    let auto = auto_log(replay.broadphase());
    let mut out = outcome(algorithm, replay.records(), replay.pairs_hash(), watch, auto);
    features.attach(&mut out);
    Ok(out)
}

fn outcome(
    algorithm: &AlgorithmDescriptor,
    records: &[StepRecord],
    hash: u64,
    watch: Watch<'_>,
    auto: Option<AutoLog>,
) -> Outcome {
    let steps = records
        .iter()
        .map(|r| Step {
            ms: r.phases.get(Phase::Broadphase),
            active: r.algorithm.to_owned(),
            phase: r.phase.to_owned(),
            pairs: r.pairs,
            features: None,
        })
        .collect();
    Outcome {
        algorithm: algorithm.name.to_owned(),
        steps,
        hash,
        check: measure::verdict(&watch.checks),
        status: watch.status,
        auto,
    }
}

/// `auto`'s totals, frame-0 pick and decision log, when the broadphase is `auto`.
fn auto_log(broadphase: &dyn collide_broadphase::Broadphase) -> Option<AutoLog> {
    let selector: &Selector = broadphase.as_any()?.downcast_ref()?;
    let initial = selector.decisions().iter().find(|d| d.kind == DecisionKind::Initial).map_or("?", |d| d.to);
    Some(AutoLog {
        totals: *selector.totals(),
        initial: initial.to_owned(),
        decisions_csv: selector.decisions().to_csv(selector.candidate_names()),
    })
}

#[cfg(test)]
mod tests;
