//! Running one measured point, the budgets that stop a series, the memory floor and the pair-set check.

use super::alloc;
use super::rows::{DtMode, Metric, Row};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::{Pair, PairList, reference_pairs};
use collide_math::Aabb;
use collide_sim::{Config, ParamEntry, Phase, PolicyName, Simulation, StepRecord, Summary, TimeConfig};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The time limits of a mode.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A point measures frames until this much time has passed (at least `min_frames`, at most its maximum).
    pub point: Duration,
    /// A frame slower than this ends its point, and a series whose mean reaches it stops growing n.
    pub frame_ms: f64,
    /// One series (one algorithm in one study) stops growing n once it has used this much time.
    pub series: Duration,
    /// Frames every point measures at least (when the frame limit allows): the state hash is taken after them.
    pub min_frames: usize,
    /// Frames a point measures at most.
    pub max_frames: usize,
    /// Brute force runs only up to this many bodies.
    pub brute_max: usize,
    /// Pair sets are compared with brute force (`reference_pairs`) up to this many bodies.
    pub check_max: usize,
}

impl Limits {
    /// The full run's limits: about 30–40 minutes on a 2-core machine.
    #[must_use]
    pub fn full() -> Self {
        Self {
            point: Duration::from_secs(4),
            frame_ms: 1000.0,
            series: Duration::from_secs(75),
            min_frames: 20,
            max_frames: 300,
            brute_max: 20_000,
            check_max: 10_000,
        }
    }

    /// The smoke test's limits.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            point: Duration::from_millis(300),
            frame_ms: 1000.0,
            series: Duration::from_secs(10),
            min_frames: 10,
            max_frames: 60,
            brute_max: 20_000,
            check_max: 20_000,
        }
    }
}

/// Decides whether a series may take its next, larger point.
#[derive(Debug)]
pub struct SeriesGuard {
    started: Instant,
    budget: Duration,
    frame_ms: f64,
    stopped: Option<String>,
    last: Option<MeasuredPoint>,
    /// The last point's peak heap above its baseline, with its n (see [`SeriesGuard::record_memory`]).
    memory: Option<(usize, u64)>,
    /// With [`SeriesGuard::charge`]: the time charged to this series, which its budget is checked against instead
    /// of the time since it started (a series that waits while others run is not charged for their time).
    charged: Option<Duration>,
}

/// The last point a series measured.
#[derive(Clone, Copy, Debug)]
struct MeasuredPoint {
    n: usize,
    mean_ms: f64,
}

/// The heap a point may be predicted to need before the series stops growing n: a third of this machine's
/// 24 GiB, so that the recording beside it and the rest of the machine keep their room.
pub const MEMORY_LIMIT: u64 = 8 << 30;

impl SeriesGuard {
    /// A series starting now under `limits`.
    #[must_use]
    pub fn new(limits: &Limits) -> Self {
        Self::with(limits.series, limits.frame_ms)
    }

    /// A series with an explicit budget and frame limit.
    #[must_use]
    pub fn with(budget: Duration, frame_ms: f64) -> Self {
        Self { started: Instant::now(), budget, frame_ms, stopped: None, last: None, memory: None, charged: None }
    }

    /// A series whose budget counts only the time charged to it ([`SeriesGuard::charge`]) from the start: for
    /// contenders that take turns, whose clocks must not run while they wait.
    #[must_use]
    pub fn charged(budget: Duration, frame_ms: f64) -> Self {
        Self { charged: Some(Duration::ZERO), ..Self::with(budget, frame_ms) }
    }

    /// Why the point at `n` bodies must be skipped, if it must: the series stopped, its budget is spent, or
    /// even linear growth from the last point would put a step over the frame limit.
    #[must_use]
    pub fn skip(&self, n: usize) -> Option<String> {
        if let Some(why) = &self.stopped {
            return Some(why.clone());
        }
        if self.charged.unwrap_or_else(|| self.started.elapsed()) > self.budget {
            return Some(format!("series budget of {} s spent", self.budget.as_secs()));
        }
        if let Some((m, bytes)) = self.memory {
            // Quadratic, not linear: a structure whose size follows the pairs per axis (pair counting's lists)
            // grows faster than n, and a point that outgrows the machine is killed with the whole bench.
            let predicted = bytes as f64 * (n as f64 / m.max(1) as f64).powi(2);
            if predicted > MEMORY_LIMIT as f64 {
                return Some(format!(
                    "predicted ≥ {:.1} GiB of heap (quadratic from {:.2} GiB at n={m}) > {} GiB limit",
                    predicted / f64::from(1u32 << 30),
                    bytes as f64 / f64::from(1u32 << 30),
                    MEMORY_LIMIT >> 30
                ));
            }
        }
        let last = self.last?;
        let predicted = last.mean_ms * n as f64 / last.n.max(1) as f64;
        (predicted > self.frame_ms).then(|| {
            format!("predicted ≥ {predicted:.0} ms/step (linear from n={}) > {:.0} ms limit", last.n, self.frame_ms)
        })
    }

    /// Charge `time` to this series: from the first charge on, its budget counts only charged time. The peers
    /// study's contenders take turns on each recording; the clock of one that waits must not run.
    pub fn charge(&mut self, time: Duration) {
        *self.charged.get_or_insert(Duration::ZERO) += time;
    }

    /// The point at `n` needed `peak_bytes` of heap above its baseline: a larger point is skipped when quadratic
    /// growth from it would pass [`MEMORY_LIMIT`].
    pub fn record_memory(&mut self, n: usize, peak_bytes: u64) {
        self.memory = Some((n, peak_bytes));
    }

    /// The point at `n` took `mean_ms` per step.
    pub fn record(&mut self, n: usize, mean_ms: f64) {
        self.last = Some(MeasuredPoint { n, mean_ms });
        if mean_ms > self.frame_ms && self.stopped.is_none() {
            self.stopped = Some(format!("n={n} took {mean_ms:.0} ms/step > {:.0} ms limit", self.frame_ms));
        }
    }
}

/// One point of a simulation study.
#[derive(Clone, Debug)]
pub struct SimPoint {
    /// The study.
    pub study: &'static str,
    /// The legend label.
    pub series: String,
    /// The scenario's registry name.
    pub scenario: &'static str,
    /// The algorithm row.
    pub algorithm: &'static AlgorithmDescriptor,
    /// Its parameters.
    pub params: Params,
    /// Bodies.
    pub n: usize,
    /// Speed in units per second (`None`: the scenario's).
    pub speed: Option<f32>,
    /// Collision response on or off.
    pub resolution: bool,
    /// Frames before measuring.
    pub warmup: usize,
    /// The most frames to measure (the point's time budget may end it sooner).
    pub max_frames: usize,
    /// Keep every frame's record (time-series studies).
    pub keep_frames: bool,
}

/// A config for `scenario` with `n` bodies of `speed`, `algorithm` with `params`, at a fixed dt of 1/60 s unless
/// `real_dt` (dt = the previous frame's wall time, uncapped: the thesis's feedback loop).
#[must_use]
pub fn config(
    scenario: &str,
    n: usize,
    speed: Option<f32>,
    algorithm: &AlgorithmDescriptor,
    params: &Params,
    real_dt: bool,
) -> Config {
    let table: BTreeMap<String, ParamEntry> =
        params.iter().filter_map(|(k, v)| Some((k.to_owned(), ParamEntry::of(v)?))).collect();
    let mut all = BTreeMap::new();
    if !table.is_empty() {
        all.insert(algorithm.name.to_owned(), table);
    }
    Config {
        scenario: scenario.into(),
        bodies: Some(n),
        speed,
        algorithm: algorithm.name.into(),
        params: all,
        time: TimeConfig {
            policy: if real_dt { PolicyName::Variable } else { PolicyName::Fixed },
            ..TimeConfig::default()
        },
        ..Config::default()
    }
}

/// The simulation for `config`, or the config error as text.
pub fn simulation(config: &Config) -> Result<Simulation, String> {
    Simulation::new(config).map_err(|e| format!("bench config {}: {e}", config.scenario))
}

/// Run one point: warm up, check pairs, measure the floor, measure steps until the point's budget, the frame
/// limit or `max_frames`. Returns the row and, with `keep_frames`, every step's record.
pub fn run_sim_point(p: &SimPoint, limits: &Limits) -> Result<(Row, Vec<StepRecord>), String> {
    let mut cfg = config(p.scenario, p.n, p.speed, p.algorithm, &p.params, false);
    cfg.resolution = p.resolution;
    let baseline = alloc::reset_peak();
    let mut sim = simulation(&cfg)?;
    let dt = collide_timing::FRAME_60HZ;
    let mut checks = Vec::new();
    let check = p.n <= limits.check_max;
    for _ in 0..p.warmup {
        sim.step(dt);
        if sim.records().last().is_some_and(|r| r.step_ms > limits.frame_ms * 4.0) {
            break; // a warm-up this slow only delays the verdict the first measured step gives
        }
    }
    if check && p.warmup > 0 {
        checks.push(check_against_brute(sim.aabbs(), sim.pairs()));
    }
    let hash_step = p.warmup + limits.min_frames.min(p.max_frames);
    let mut state_hash = 0;
    let mut status = String::from("ok");
    let start = Instant::now();
    let first = sim.records().len();
    let mut floor = Vec::new();
    for i in 0..p.max_frames {
        let ms = sim.step(dt).step_ms;
        if i % 8 == 0 {
            floor.push(floor_ms(sim.aabbs()));
        }
        if check && i + 1 == p.max_frames / 2 {
            // Mid-run too: for time-series studies this is where the scene is most unusual (the cluster's densest).
            checks.push(check_against_brute(sim.aabbs(), sim.pairs()));
        }
        if sim.steps() as usize == hash_step {
            state_hash = sim.state_hash();
        }
        if ms > limits.frame_ms {
            status = format!("short: step {} took {ms:.0} ms > {:.0} ms limit", i + 1, limits.frame_ms);
            break;
        }
        if i + 1 >= limits.min_frames && start.elapsed() > limits.point {
            break;
        }
    }
    if check {
        checks.push(check_against_brute(sim.aabbs(), sim.pairs()));
    }
    let peak_bytes = alloc::peak_above(baseline);
    let measured = &sim.records()[first..];
    let mut row = summarize(p, measured, &checks, status);
    row.floor_ms = Summary::of(&floor).p50;
    row.peak_bytes = peak_bytes;
    row.hash_step = hash_step;
    row.state_hash = state_hash;
    let frames = if p.keep_frames { sim.records().to_vec() } else { Vec::new() };
    Ok((row, frames))
}

/// The row for `measured` step records of point `p`.
#[must_use]
pub fn summarize(p: &SimPoint, measured: &[StepRecord], checks: &[Result<(), String>], status: String) -> Row {
    let steps: Vec<f64> = measured.iter().map(|r| r.step_ms).collect();
    let bp: Vec<f64> = measured.iter().map(|r| r.phases.get(Phase::Broadphase)).collect();
    let pairs: Vec<f64> = measured.iter().map(|r| r.pairs as f64).collect();
    Row {
        study: p.study,
        series: p.series.clone(),
        scenario: p.scenario.into(),
        algorithm: p.algorithm.name.into(),
        params: p.params.to_string(),
        n: p.n,
        speed: p.speed.unwrap_or(f32::NAN),
        dt_mode: DtMode::Fixed,
        metric: Metric::Step,
        warmup: p.warmup,
        frames: measured.len(),
        time: Summary::of(&steps),
        broadphase_ms: Summary::of(&bp).mean,
        pairs: Summary::of(&pairs).mean,
        check: verdict(checks),
        status,
        stats: measured.last().map(|r| r.stats.to_string()).unwrap_or_default(),
        ..Row::default()
    }
}

/// A skipped point's row.
#[must_use]
pub fn skipped(p: &SimPoint, why: &str) -> Row {
    summarize(p, &[], &[], format!("skipped: {why}"))
}

/// `brute ok (k frames)`, the first mismatch, or `-` when nothing was checked.
#[must_use]
pub fn verdict(checks: &[Result<(), String>]) -> String {
    if checks.is_empty() {
        return "-".into();
    }
    match checks.iter().find_map(|c| c.as_ref().err()) {
        Some(e) => format!("MISMATCH vs brute: {e}"),
        None => format!("brute ok ({} frames)", checks.len()),
    }
}

/// Compare a step's (sorted) pairs with `reference_pairs` of its boxes.
pub fn check_against_brute(aabbs: &[Aabb], pairs: &PairList) -> Result<(), String> {
    let mut truth = PairList::new();
    reference_pairs(aabbs, &mut truth);
    let mut got = pairs.as_slice().to_vec();
    diff(truth.as_slice(), &mut got).into_result()
}

/// How a pair set differs from the expected one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairDiff {
    /// Expected pairs not reported.
    pub missing: usize,
    /// Reported pairs not expected (each repeat of an expected pair counts as a duplicate instead).
    pub extra: usize,
    /// Pairs reported more than once (the contract says once).
    pub duplicates: usize,
    /// Pairs not in `a < b` order.
    pub unordered: usize,
    /// The first missing pair, if any.
    pub first_missing: Option<Pair>,
    /// The first extra pair, if any.
    pub first_extra: Option<Pair>,
}

impl PairDiff {
    /// `Ok` when the sets agree, else a one-line account.
    pub fn into_result(self) -> Result<(), String> {
        if self == Self::default() {
            return Ok(());
        }
        let show = |p: Option<Pair>| p.map_or(String::new(), |p| format!(" e.g. {p}"));
        Err(format!(
            "{} missing{}, {} extra{}, {} duplicated, {} unordered",
            self.missing,
            show(self.first_missing),
            self.extra,
            show(self.first_extra),
            self.duplicates,
            self.unordered
        ))
    }
}

/// Compare `got` (any order; it is normalised and sorted in place) with `expected` (sorted, unique, ordered).
#[must_use]
pub fn diff(expected: &[Pair], got: &mut [Pair]) -> PairDiff {
    let mut d = PairDiff::default();
    for p in got.iter_mut() {
        if p.a > p.b {
            d.unordered += 1;
            *p = Pair { a: p.b, b: p.a };
        }
    }
    got.sort_unstable_by_key(|p| p.key());
    let (mut i, mut j) = (0, 0);
    while i < expected.len() || j < got.len() {
        if j > 0 && j < got.len() && got[j] == got[j - 1] {
            d.duplicates += 1;
            j += 1;
            continue;
        }
        match (expected.get(i), got.get(j)) {
            (Some(e), Some(g)) if e == g => (i, j) = (i + 1, j + 1),
            (Some(e), Some(g)) if e.key() < g.key() => {
                d.missing += 1;
                d.first_missing.get_or_insert(*e);
                i += 1;
            }
            (Some(e), None) => {
                d.missing += 1;
                d.first_missing.get_or_insert(*e);
                i += 1;
            }
            (_, Some(g)) => {
                d.extra += 1;
                d.first_extra.get_or_insert(*g);
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    d
}

/// The memory floor: the time to read every box of `aabbs` once (all six coordinates, summed so the reads
/// cannot be dropped), ms. The median of five passes: the first pass pays for whatever the step left in cache,
/// the others show the streaming rate.
#[must_use]
pub fn floor_ms(aabbs: &[Aabb]) -> f64 {
    let mut samples = [0.0; 5];
    for s in &mut samples {
        let t = Instant::now();
        let mut acc = 0.0f32;
        for b in black_box(aabbs) {
            acc += b.min.x + b.min.y + b.min.z + b.max.x + b.max.y + b.max.z;
        }
        black_box(acc);
        *s = t.elapsed().as_secs_f64() * 1e3;
    }
    Summary::of(&samples).p50
}

/// The order of a study's `count` contenders in round `round` of `--rounds`: forward in even rounds, backward in
/// odd ones, so that every contender's runs lie at the same mean distance from the first.
#[must_use]
pub fn round_order(round: usize, count: usize) -> Vec<usize> {
    if round.is_multiple_of(2) { (0..count).collect() } else { (0..count).rev().collect() }
}

/// What a progress line says of round `round` (from 0) of `rounds`: nothing when there is one.
#[must_use]
pub fn round_label(round: usize, rounds: usize) -> String {
    if rounds > 1 { format!(", round {} of {rounds}", round + 1) } else { String::new() }
}

/// Sort one contender's runs of several rounds by `mean` and give the index of the one with the median mean (of an
/// even count, the lower of the two middle ones: of two, the faster), the run that stands for its rounds.
pub fn sort_to_median<T>(runs: &mut [T], mean: impl Fn(&T) -> f64) -> usize {
    runs.sort_by(|a, b| mean(a).total_cmp(&mean(b)));
    runs.len().saturating_sub(1) / 2
}

/// Each frame's time, the median of its times over several rounds of the same frames (of two, the faster): `None`
/// when the rounds are fewer than two or did not time as many frames (a budget cut one short). The replay and peers
/// studies' `--rounds`: on the development VM a run can go a fifth slower for a stretch of a minute, which the
/// median of a frame's times drops and the median of whole runs keeps.
#[must_use]
pub fn per_frame_median(rounds: &[&[f64]]) -> Option<Vec<f64>> {
    let frames = rounds.first()?.len();
    if rounds.len() < 2 || rounds.iter().any(|r| r.len() != frames) {
        return None;
    }
    let median = |f: usize| {
        let mut times: Vec<f64> = rounds.iter().map(|r| r[f]).collect();
        times.sort_by(f64::total_cmp);
        times[(times.len() - 1) / 2]
    };
    Some((0..frames).map(median).collect())
}

#[cfg(test)]
mod tests;
