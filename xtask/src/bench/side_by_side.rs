//! `side-by-side`: a few broadphases and their variants interleaved frame by frame on the same recorded frames,
//! for ratios that survive a shared machine.
//!
//! The peers study runs each contender alone, one after another, which keeps their caches and allocation peaks
//! apart. Here every frame is given to each contender of a comparison in turn, in an order that rotates with the
//! frame (nobody always runs first on a cold cache), so that a load spike falls on all of them alike: the figures
//! to read are the ratios to the comparison's reference. These are the comparisons the crate docs quote, each over
//! scenes of the scenario registry ([`COMPARISONS`]):
//!
//! - `trees`: the dynamic and linear BVHs beside parry's BVH, refitted and rebuilt (with and without the motion
//!   hint for `bvh-dynamic`);
//! - `kd`: the self-adjusting kd tree beside the octrees it competes with;
//! - `grids`: the uniform and hierarchical grids beside `octree-dup` and `mbp`, a huge empty world included;
//! - `octrees`: the three octrees, and `octree-dup` without its static/dynamic split on a scene at rest;
//! - `sap`: the sweep-and-prune family, with the thesis's global arrays (one region) and its pure insertion sort
//!   (no swap budget) beside the defaults.
//!
//! For each scene a driver simulation (`octree-dup`, fixed dt, response on) records the frames — boxes, motion
//! flags and sorted pairs — after a warm-up (`cluster`: from step 100, so that the densest moment, step 120, is
//! among them). The first [`WARM`] frames warm every contender up; the rest are timed around the pair query alone,
//! and every frame's pairs are compared with the recorded ones (themselves checked against brute force on small
//! scenes). A contender whose frame exceeds the frame limit stops there; a scene's play ends when its budget is
//! spent. Rows: `side-by-side.csv`, one per comparison × scene × contender.
//!
//! For instruction counts, run one comparison under callgrind collecting inside [`timed_find`] only:
//! `valgrind --tool=callgrind --toggle-collect='*timed_find*' target/release/xtask bench --study side-by-side`.
//!
//! # Complexity
//!
//! Per scene of n bodies and F frames: the driver's F + warm-up steps, then each contender's own cost per frame;
//! memory: the recording, F frames of n boxes (24 bytes each), flags and pairs.

use super::Ctx;
use super::contenders::{self, Contender};
use super::measure;
use super::report::{self, Section};
use super::rows::{DtMode, Metric, Row};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::{Broadphase, Frame, Pair, PairList};
use collide_math::Aabb;
use collide_sim::Summary;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// One contender of a comparison: a registry row with some parameters changed, or a peer.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The label in the CSV and the report.
    pub label: &'static str,
    /// A registry name, or a peer's name ([`contenders::PEERS`]).
    pub name: &'static str,
    /// Parameters other than the defaults (registry rows only).
    pub params: &'static [(&'static str, f64)],
    /// Give it the recorded motion hint (`Frame::with_moved`; registry rows only).
    pub hint: bool,
}

/// A contender under its own name, with its defaults and no hint.
const fn plain(name: &'static str) -> Entry {
    Entry { label: name, name, params: &[], hint: false }
}

/// A scene of the registry, with the keys changed from the scenario's defaults.
#[derive(Clone, Copy, Debug)]
pub struct Scene {
    /// The label in the CSV (`scenario` column) and the report.
    pub label: &'static str,
    /// The scenario's registry name.
    pub scenario: &'static str,
    /// The fraction of bodies at rest (the config's `resting_fraction`).
    pub resting_fraction: f32,
}

/// A scene as the scenario makes it.
const fn scene(scenario: &'static str) -> Scene {
    Scene { label: scenario, scenario, resting_fraction: 0.0 }
}

/// Contenders compared on the same frames of some scenes, the ratios taken to `reference`.
#[derive(Clone, Copy, Debug)]
pub struct Comparison {
    /// The name (the CSV's `series` column).
    pub name: &'static str,
    /// What it asks, one line for the report.
    pub question: &'static str,
    /// Its scenes.
    pub scenes: &'static [Scene],
    /// Its contenders.
    pub entries: &'static [Entry],
    /// The label of the entry the ratios are taken to.
    pub reference: &'static str,
}

/// Every comparison the study runs.
pub const COMPARISONS: &[Comparison] = &[
    Comparison {
        name: "trees",
        question: "the dynamic and linear BVHs against parry's BVH, the broad phase rapier uses",
        scenes: &[scene("slow"), scene("uniform")],
        entries: &[
            plain("bvh-dynamic"),
            Entry { label: "bvh-dynamic +hint", name: "bvh-dynamic", params: &[], hint: true },
            plain("lbvh"),
            plain("parry-bvh-refit"),
            plain("parry-bvh-rebuild"),
        ],
        reference: "parry-bvh-refit",
    },
    Comparison {
        name: "kd",
        question: "the self-adjusting kd tree against the octrees",
        scenes: &[scene("thesis"), scene("cluster")],
        entries: &[plain("kd"), plain("octree-dup"), plain("octree-nodup")],
        reference: "octree-dup",
    },
    Comparison {
        name: "grids",
        question: "the uniform and hierarchical grids against an octree and multi-box pruning",
        scenes: &[scene("uniform"), scene("mixed-sizes"), scene("far-clusters"), scene("thesis")],
        entries: &[plain("grid"), plain("hgrid"), plain("octree-dup"), plain("mbp")],
        reference: "grid",
    },
    Comparison {
        name: "octrees",
        question: "the three octrees, and what the static/dynamic split saves when most bodies rest",
        scenes: &[
            scene("thesis"),
            scene("cluster"),
            Scene { label: "uniform-resting-90", scenario: "uniform", resting_fraction: 0.9 },
        ],
        entries: &[
            plain("octree-dup"),
            Entry { label: "octree-dup no split", name: "octree-dup", params: &[("static_split", 0.0)], hint: false },
            plain("octree-nodup"),
            plain("octree-loose"),
        ],
        reference: "octree-dup",
    },
    Comparison {
        name: "sap",
        question: "sweep-and-prune's regions and swap budget against the thesis's global arrays and pure sort",
        scenes: &[scene("thesis"), scene("thesis-slow"), scene("uniform")],
        entries: &[
            plain("sap"),
            Entry { label: "sap 1 region", name: "sap", params: &[("regions_per_axis", 1.0)], hint: false },
            Entry {
                label: "sap pure (thesis)",
                name: "sap",
                params: &[("regions_per_axis", 1.0), ("rebuild_swaps_per_body", 0.0)],
                hint: false,
            },
            plain("sort-sweep"),
            plain("mbp"),
        ],
        reference: "sap",
    },
];

/// Recorded frames that warm every contender up before the timed ones.
pub const WARM: usize = 3;

/// `cluster` is recorded from this step: the pull is under way and the densest moment (step 120) comes within the
/// recording.
const CLUSTER_FROM: usize = 100;

/// Bodies and timed frames per scene: 10⁵ bodies and 40 frames in a full run.
fn size(quick: bool) -> (usize, usize) {
    if quick { (2000, 4) } else { (100_000, 40) }
}

/// How long one scene's play may take, after its first timed frame.
fn scene_budget(quick: bool) -> Duration {
    if quick { Duration::from_secs(2) } else { Duration::from_secs(60) }
}

/// A frame slower than this, ms, stops its contender.
fn frame_limit(quick: bool) -> f64 {
    if quick { 1000.0 } else { 2500.0 }
}

/// The recorded frames of one scene.
struct Recording {
    boxes: Vec<Vec<Aabb>>,
    moved: Vec<Vec<bool>>,
    /// Each frame's pairs, sorted.
    pairs: Vec<Vec<Pair>>,
    /// The driver's pairs against brute force (small scenes), else `-`.
    check: String,
}

/// Run the driver simulation of `scene` at `n` bodies and record `frames` frames after `warmup` steps (`cluster`:
/// [`CLUSTER_FROM`]); with `check`, the driver's last pairs are compared with brute force.
fn record(scene: &Scene, n: usize, frames: usize, warmup: usize, check: bool) -> Result<Recording, String> {
    let driver = collide_algorithms::find("octree-dup").map_err(|e| e.to_string())?;
    let mut cfg = measure::config(scene.scenario, n, None, driver, &Params::defaults(driver.params), false);
    cfg.resting_fraction = scene.resting_fraction;
    let mut sim = measure::simulation(&cfg)?;
    let warmup = if scene.scenario == "cluster" { CLUSTER_FROM } else { warmup };
    for _ in 0..warmup {
        sim.step(collide_timing::FRAME_60HZ);
    }
    let mut rec = Recording { boxes: Vec::new(), moved: Vec::new(), pairs: Vec::new(), check: "-".into() };
    for _ in 0..frames {
        sim.step(collide_timing::FRAME_60HZ);
        rec.boxes.push(sim.aabbs().to_vec());
        rec.moved.push(sim.moved().to_vec());
        let mut pairs = sim.pairs().as_slice().to_vec();
        pairs.sort_unstable_by_key(|p| p.key());
        rec.pairs.push(pairs);
    }
    if check {
        rec.check = measure::verdict(&[measure::check_against_brute(sim.aabbs(), sim.pairs())]);
    }
    Ok(rec)
}

/// A contender as this study runs it.
enum Runner {
    Peer(Box<dyn Contender>),
    Ours { broadphase: Box<dyn Broadphase>, pairs: PairList, hint: bool },
}

impl Runner {
    fn new(entry: &Entry) -> Result<Self, String> {
        if let Some(peer) = contenders::peers().into_iter().find(|p| p.name() == entry.name) {
            return Ok(Self::Peer(peer));
        }
        let (algorithm, params) = entry_params(entry)?;
        Ok(Self::Ours { broadphase: (algorithm.build)(&params), pairs: PairList::new(), hint: entry.hint })
    }

    /// Frame `f` of `rec`'s pairs into `out` (any order).
    fn find(&mut self, rec: &Recording, f: usize, out: &mut Vec<Pair>) {
        match self {
            Self::Peer(peer) => peer.find(&rec.boxes[f], f as u64, out),
            Self::Ours { broadphase, pairs, hint } => {
                let frame = Frame::new(&rec.boxes[f]).with_step(f as u64).with_dt(collide_timing::FRAME_60HZ);
                let frame = if *hint { frame.with_moved(&rec.moved[f]) } else { frame };
                contenders::find_into(broadphase.as_mut(), &frame, pairs, out);
            }
        }
    }

    fn stats(&self) -> String {
        match self {
            Self::Peer(_) => String::new(),
            Self::Ours { broadphase, .. } => broadphase.stats().to_string(),
        }
    }
}

/// The registry row of `entry` and its parameters, checked against the row's spec.
fn entry_params(entry: &Entry) -> Result<(&'static AlgorithmDescriptor, Params), String> {
    let algorithm = collide_algorithms::find(entry.name).map_err(|e| format!("side-by-side {}: {e}", entry.label))?;
    let params = Params::from_numbers(algorithm.params, entry.params.iter().copied())
        .map_err(|e| format!("side-by-side {}: {e}", entry.label))?;
    Ok((algorithm, params))
}

/// The pair query of one timed frame: the only code callgrind collects with `--toggle-collect='*timed_find*'`.
#[inline(never)]
fn timed_find(runner: &mut Runner, rec: &Recording, f: usize, out: &mut Vec<Pair>) {
    runner.find(rec, black_box(f), out);
}

/// A warm-up frame's query, kept apart from [`timed_find`] so that callgrind leaves it out.
#[inline(never)]
fn warm_find(runner: &mut Runner, rec: &Recording, f: usize, out: &mut Vec<Pair>) {
    // `f` through `black_box` twice: otherwise the two functions are the same code and the linker folds them.
    runner.find(rec, black_box(black_box(f)), out);
}

/// What one contender did over a recording.
#[derive(Default)]
struct Play {
    ms: Vec<f64>,
    pairs: f64,
    bad: usize,
    first_bad: Option<String>,
    stopped: Option<String>,
    stats: String,
}

/// Every entry of `comparison` over `rec`, interleaved frame by frame.
fn play(quick: bool, comparison: &Comparison, rec: &Recording) -> Result<Vec<Play>, String> {
    let mut runners = comparison.entries.iter().map(Runner::new).collect::<Result<Vec<_>, _>>()?;
    let mut plays: Vec<Play> = comparison.entries.iter().map(|_| Play::default()).collect();
    let (k, limit) = (runners.len(), frame_limit(quick));
    let mut out = Vec::new();
    let mut started = None;
    for f in 0..rec.boxes.len() {
        if f == WARM {
            started = Some(Instant::now());
        }
        for j in 0..k {
            let c = (f + j) % k;
            if plays[c].stopped.is_some() {
                continue;
            }
            let t = Instant::now();
            if f >= WARM {
                timed_find(&mut runners[c], rec, f, &mut out);
            } else {
                warm_find(&mut runners[c], rec, f, &mut out);
            }
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let p = &mut plays[c];
            if let Err(e) = measure::diff(&rec.pairs[f], &mut out).into_result() {
                p.bad += 1;
                p.first_bad.get_or_insert(format!("frame {f}: {e}"));
            }
            if f >= WARM {
                p.ms.push(ms);
                p.pairs += out.len() as f64;
            }
            if ms > limit {
                p.stopped = Some(format!("short: frame {f} took {ms:.0} ms > {limit:.0} ms limit"));
            }
        }
        if started.is_some_and(|s| s.elapsed() > scene_budget(quick)) && f + 1 < rec.boxes.len() {
            let why = format!("short: scene budget of {} s spent at frame {f}", scene_budget(quick).as_secs());
            for p in &mut plays {
                p.stopped.get_or_insert_with(|| why.clone());
            }
            break;
        }
    }
    for (p, r) in plays.iter_mut().zip(&runners) {
        p.stats = r.stats();
    }
    Ok(plays)
}

/// The summary row of one entry's play of one scene.
fn row(comparison: &Comparison, scene: &Scene, entry: &Entry, n: usize, rec: &Recording, p: &Play) -> Row {
    let time = Summary::of(&p.ms);
    let check = match &p.first_bad {
        Some(e) => format!("MISMATCH vs the recording on {} frames, first {e}", p.bad),
        None => format!("ref ok ({} frames; driver {})", rec.boxes.len(), rec.check),
    };
    Row {
        study: "side-by-side",
        series: comparison.name.into(),
        scenario: scene.label.into(),
        algorithm: entry.label.into(),
        params: entry.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
        n,
        speed: f32::NAN,
        dt_mode: DtMode::Fixed,
        metric: Metric::Broadphase,
        warmup: WARM,
        frames: p.ms.len(),
        time,
        broadphase_ms: time.mean,
        pairs: p.pairs / p.ms.len().max(1) as f64,
        check,
        status: p.stopped.clone().unwrap_or_else(|| "ok".into()),
        stats: p.stats.clone(),
        ..Row::default()
    }
}

/// The `side-by-side` study.
pub fn side_by_side(ctx: &mut Ctx) -> Result<(), String> {
    let (n, timed) = size(ctx.quick);
    ctx.progress.plan(COMPARISONS.iter().map(|c| c.scenes.len()).sum());
    let mut rows = Vec::new();
    for comparison in COMPARISONS {
        for scene in comparison.scenes {
            ctx.progress.start(&format!("side-by-side: {} on {} n={n}", comparison.name, scene.label));
            let rec = record(scene, n, WARM + timed, ctx.warmup(), n <= ctx.limits.check_max)?;
            if rec.check.starts_with("MISMATCH") {
                ctx.mismatches.push(format!("side-by-side driver on {} n={n}: {}", scene.label, rec.check));
            }
            let plays = play(ctx.quick, comparison, &rec)?;
            rows.extend(comparison.entries.iter().zip(&plays).map(|(e, p)| row(comparison, scene, e, n, &rec, p)));
            ctx.progress.finish_one();
        }
    }
    ctx.note_mismatches(&rows);
    ctx.write_rows("side-by-side", &rows)?;
    ctx.sections.push(section(&rows, n, timed));
    Ok(())
}

/// The report's section: a table per comparison, a line per scene and contender.
fn section(rows: &[Row], n: usize, timed: usize) -> Section {
    let mut body = format!(
        "Each comparison's contenders take turns on every frame of the same recording ({} bodies, {WARM} warm-up \
         frames, then up to {timed} timed; the order rotates every frame), pair finding alone; the ratios to the \
         comparison's reference are the figures to read on a shared machine.\n\n",
        report::count(n)
    );
    for comparison in COMPARISONS {
        let (name, question, reference) = (comparison.name, comparison.question, comparison.reference);
        let _ = writeln!(body, "**{name}**: {question} (× = the mean over `{reference}`'s mean).\n");
        let lines = rows.iter().filter(|r| r.series == comparison.name).map(|r| {
            let reference = rows
                .iter()
                .find(|x| x.series == r.series && x.scenario == r.scenario && x.algorithm == comparison.reference);
            let ratio = reference
                .filter(|x| x.measured() && r.measured())
                .map_or("-".into(), |x| format!("×{:.2}", r.time.mean / x.time.mean));
            vec![
                r.scenario.clone(),
                r.algorithm.clone(),
                report::ms(r.time.mean),
                report::ms(r.time.p50),
                report::ms(r.time.min),
                ratio,
                report::check_summary(&[r.check.as_str()]),
            ]
        });
        body.push_str(&report::table(&["scene", "contender", "mean ms", "p50", "min", "×", "check"], lines));
        body.push('\n');
    }
    body.push_str(&report::stops(rows));
    Section { title: "Side by side: contenders interleaved on the same frames".into(), body }
}

#[cfg(test)]
mod tests;
