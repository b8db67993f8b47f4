//! `cargo xtask bench`: the measurement studies.
//!
//! Headless simulations in release mode over a matrix of scenario × algorithm × body count × speed × parameters,
//! the thesis's evaluation reproduced with our data (its chapter 5), and peers timed in the same run on the same
//! boxes. Every study writes one CSV of summary rows (and, for the time-series studies, one of frames), PNG plots
//! and a section of `report.md`.
//!
//! - [`scaling`]: collision detection off vs body count; every registered algorithm's relative dt vs body count
//!   (with the seed program's figures as a reference series); all of them on one chart.
//! - [`step`]: the whole step and each of its phases from 10⁴ to 10⁶ bodies on one and two threads, stepped side
//!   by side, with the parallel efficiency per phase (`scaling-step`).
//! - [`reorder`]: the step with the bodies kept in spatial order against the same scene without, every algorithm
//!   at 10⁵ and 10⁶ bodies: each phase, the whole step, the reorder's cost amortised and at its worst step.
//! - [`octree`]: octree variants as bodies cluster and disperse (the spikes); `max_leaf` and `max_depth` sweeps.
//! - [`sap`]: sweep-and-prune at speeds ×1, ×½, ×¼, ×1/64, and its real-dt feedback loop.
//! - [`peers`]: parry's BVH and rstar's R-tree fed the same boxes as ours on every kind of scene (thesis, uniform,
//!   slow, cluster, mixed sizes; power-law up to 10⁵) at 10⁴–10⁶ bodies, their pair sets checked, the memory floor (streaming the box
//!   array once) and peak memory per algorithm, in a huge, mostly empty world too.
//! - [`calibrate`]: fits the meta-broadphase's cost prior on this machine (`--install` puts it into `auto`).
//! - [`selector`]: the meta-broadphase live against every pinned candidate, every frame counted from frame 0,
//!   each run in a fresh process ([`live`]): every free scenario at 10⁴ and 10⁵ bodies, four at 10⁶, the whole
//!   tour at 10⁵ and the rapier-baked scenes; per scene auto / best with the worst frame, the regret table, the
//!   tour's oracles (scenes: [`selector_scenes`]; arithmetic: [`selector_judge`]; outputs: [`selector_report`];
//!   `--reuse-pinned`: [`pinned_cache`]).
//! - [`trace`]: every candidate side by side on the same runs, recorded as cost traces, with the
//!   meta-broadphase's controller replayed on them (the policy judged without the machine's noise).
//! - [`replay`]: every algorithm and the peers on recorded `.aabbs` box streams (`--scenes DIR`: scenes baked by
//!   a real physics engine, or anyone's), timed per frame, pair sets checked against brute force.
//! - [`side_by_side`]: a few broadphases and their variants (trees against parry, kd against the octrees, the
//!   grids, the octrees at rest, sweep-and-prune's regions) interleaved frame by frame on the same recorded frames,
//!   their ratios to a reference.
//! - [`python`]: collide's Python module against `scipy.spatial.cKDTree`, and against the same algorithm called
//!   from Rust, on the same spheres (the module is built into a virtual environment of xtask's own).
//!
//! Algorithms come from `collide_algorithms::ALGORITHMS` at run time: a row added there joins every study it fits
//! (the octree studies take the rows with octree parameters, the SAP studies the `sap` family).
//!
//! Vocabulary: a *frame* is one simulation step here (every study runs one step per frame, at a fixed dt or, in
//! the feedback loop, at the previous frame's wall time), so `frames` counts steps.
//!
//! Budgets: every series (one algorithm's points in one study) has a time budget and a per-frame limit; a series
//! that would exceed them stops growing n, and the CSV and the report say so (`status` column).

pub(crate) mod alloc;
mod calibrate;
mod contenders;
pub mod live;
pub(crate) mod machine;
mod measure;
mod narrowphase;
mod octree;
mod peers;
mod peers_targets;
mod pinned_cache;
mod plot;
mod progress;
pub mod python;
mod reference;
mod reorder;
mod replay;
mod replay_play;
mod replay_report;
mod report;
mod rows;
mod sap;
mod scaling;
mod selector;
mod selector_judge;
mod selector_report;
mod selector_scenes;
mod side_by_side;
mod step;
mod trace;

use measure::Limits;
use progress::Progress;
use rows::Row;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Small sizes and short series: the CI smoke test (well under 3 minutes on 2 cores). Checks every pair set
    /// against brute force and that every file was written; its timings are not for reports. Writes to
    /// `target/bench-quick/<machine>/` unless `--out` says otherwise.
    #[arg(long)]
    quick: bool,
    /// Run only these studies (repeat the flag or separate with commas); default: all.
    /// Studies: off, scaling, scaling-step, reorder, peers, cluster, octree-params, sap-speed, sap-feedback,
    /// calibrate, selector, selector-trace, replay, narrowphase, side-by-side, python.
    #[arg(long = "study", alias = "suite", value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    studies: Vec<String>,
    /// Output folder; default `bench-results/<machine>/`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The machine's name for the output folder and the report; default the hostname.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,
    /// With the `calibrate` study: also write the fitted prior into `crates/collide-selector/data/prior.toml`,
    /// which `auto` is built with.
    #[arg(long)]
    install: bool,
    /// With the `replay` study: the folder of `.aabbs` files to play (every one, sorted by name); default
    /// `target/rapier-scenes/` (`cargo xtask record-rapier`), and with `--quick` the committed fixtures in
    /// `tests/fixtures/aabbs/` (or, without them, a small scene the study records itself).
    #[arg(long, value_name = "DIR")]
    scenes: Option<PathBuf>,
    /// With the `selector` study: frames of each 10⁴ / 10⁵-body scene and of each rapier scene's window, every
    /// one timed from frame 0 (default 110; 10⁶-body scenes run 40, the whole tour 2100).
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// With the `selector` study: only these scenes (registry scenarios, `tour-full`, `rapier-free-fall`,
    /// `rapier-brownian`, `rapier-gravity`, `rapier-avalanche`; repeat or separate with commas).
    #[arg(long = "selector-scenes", value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    selector_scenes: Vec<String>,
    /// With the `selector` study: only scenes of these body counts (`10000`, `10k`, `1M`; commas).
    #[arg(
        long = "selector-bodies",
        value_name = "N",
        value_delimiter = ',',
        num_args = 1..,
        value_parser = parse_count
    )]
    selector_bodies: Vec<usize>,
    /// With the `selector` study: run `auto` alone and read the pinned runs from the output folder's
    /// `selector-pinned-cache.tsv` when the code they ran (everything but `collide-selector`) has not changed
    /// since (runs the pinned candidates the cache lacks).
    #[arg(long)]
    reuse_pinned: bool,
    /// With the `selector` study: runs of every algorithm on each 10⁴- and 10⁵-body scene, interleaved, each
    /// algorithm's figures from its run with the median mean (default 3; the tour and 10⁶ bodies run once). With
    /// the `replay` and `peers` studies: runs of every contender on each file or scene, the rounds alternately
    /// forward and backward through the contenders, each frame's time the median over the rounds (default 1; 3
    /// on a machine whose speed drifts).
    #[arg(long, value_name = "N")]
    rounds: Option<usize>,
    /// With the `calibrate` study: fit the prior on the rows of an earlier run's `calibrate.csv` instead of
    /// measuring (to refit after a change of the model, without the half hour of runs).
    #[arg(long, value_name = "FILE")]
    calibration_csv: Option<PathBuf>,
    /// With the `calibrate` study: only these scenes (registry scenarios, `resting-90`, `rapier-free-fall`,
    /// `rapier-brownian`, `rapier-gravity`, `rapier-avalanche`; repeat or separate with commas). With
    /// `--calibration-csv`, the file's rows of every other scene are kept and fitted beside the new ones.
    #[arg(long = "calibrate-scenes", value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    calibrate_scenes: Vec<String>,
    /// With the `replay` and `peers` studies: only these contenders (ours by registry name, peers such as
    /// `parry-bvh-refit`; repeat or separate with commas); default every one. An unknown name is an error that
    /// lists the valid ones.
    #[arg(long = "only", value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    only: Vec<String>,
    /// With the `peers` study: only these of its scenes (repeat or separate with commas); default every one.
    #[arg(long = "peers-scenes", value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    peers_scenes: Vec<String>,
}

/// `--only`'s names, each a contender of the replay and peers studies; the first that is not is an error listing
/// the valid ones.
fn check_only(only: &[String]) -> Result<(), String> {
    let valid = contenders::names();
    match only.iter().find(|n| !valid.contains(n)) {
        Some(bad) => Err(format!("--only: no contender `{bad}`; valid: {}", valid.join(", "))),
        None => Ok(()),
    }
}

/// `true` when `--only` (`only`; empty: every contender) lets contender `name` run.
fn only_runs(only: &[String], name: &str) -> bool {
    only.is_empty() || only.iter().any(|o| o == name)
}

/// A body count: `10000`, `10k`, `1M`.
fn parse_count(text: &str) -> Result<usize, String> {
    let (digits, scale) = match text.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1000),
        None => text.strip_suffix('M').map_or((text, 1), |d| (d, 1_000_000)),
    };
    digits.parse::<usize>().map(|v| v * scale).map_err(|_| format!("`{text}` is not a body count (10000, 10k, 1M)"))
}

/// Every study, in the order a full run takes them (cheap and foundational first).
pub const STUDIES: &[&str] = &[
    "off",
    "scaling",
    "scaling-step",
    "reorder",
    "peers",
    "cluster",
    "octree-params",
    "sap-speed",
    "sap-feedback",
    "calibrate",
    "selector",
    "selector-trace",
    "replay",
    "narrowphase",
    "side-by-side",
    "python",
];

/// What every study gets: sizes and limits for this mode, the output folder, progress, collected results.
pub struct Ctx {
    /// `--quick`.
    pub quick: bool,
    /// Where files go.
    pub out: PathBuf,
    /// Budgets for this mode.
    pub limits: Limits,
    /// The progress bar.
    pub progress: Progress,
    /// Every study's report section, in run order.
    pub sections: Vec<report::Section>,
    /// Pair-set mismatches found anywhere (each one line); any fails the command after the files are written.
    pub mismatches: Vec<String>,
    /// Files written, relative to `out`.
    pub files: Vec<String>,
    /// The report's summary (markdown), set by the scaling study.
    pub summary: String,
    /// The machine's name (`--machine`, else the hostname): what the results and a fitted prior are labelled with.
    machine: String,
    /// `--install`: the calibrate study also installs its prior.
    pub install_prior: bool,
    /// The replay study's scenes (found and their headers checked before any study runs).
    pub scenes: replay::Scenes,
    /// What the selector study runs (`--frames`, `--selector-scenes`, `--selector-bodies`).
    pub selector: selector_scenes::Ask,
    /// `--reuse-pinned`.
    pub selector_reuse_pinned: bool,
    /// `--rounds` for the replay and peers studies (1 when not given; 0 is refused in `run`).
    pub rounds: usize,
    /// `--calibration-csv`.
    pub calibration_csv: Option<PathBuf>,
    /// `--calibrate-scenes`: the scenes the calibrate study measures (empty: all of them).
    pub calibrate_scenes: Vec<String>,
    /// `--only`: the contenders the replay and peers studies run (empty: all of them).
    pub only: Vec<String>,
    /// `--peers-scenes`: the scenes the peers study runs (empty: all of them).
    pub peers_scenes: Vec<String>,
    /// Runs that failed (a child process that crashed, say), each one line; any fails the command after the
    /// files are written.
    pub failures: Vec<String>,
}

impl Ctx {
    /// `true` when `--only` lets the replay and peers studies run contender `name`.
    #[must_use]
    pub fn runs(&self, name: &str) -> bool {
        only_runs(&self.only, name)
    }

    /// Body counts of the scaling-style studies.
    #[must_use]
    pub fn sizes(&self) -> Vec<usize> {
        if self.quick { vec![1000, 5000, 20_000] } else { vec![1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000] }
    }

    /// Warm-up steps before measuring.
    #[must_use]
    pub fn warmup(&self) -> usize {
        if self.quick { 3 } else { 10 }
    }

    /// Write the summary rows of `study` as `<study>.csv`.
    pub fn write_rows(&mut self, study: &str, rows: &[Row]) -> Result<(), String> {
        let name = format!("{study}.csv");
        rows::write_rows(&self.out.join(&name), rows)?;
        self.files.push(name);
        Ok(())
    }

    /// Write a text file (a frames CSV) under `name`.
    pub fn write_text(&mut self, name: &str, text: &str) -> Result<(), String> {
        std::fs::write(self.out.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))?;
        self.files.push(name.to_owned());
        Ok(())
    }

    /// Draw `chart` as `<name>.png`.
    pub fn plot(&mut self, name: &str, charts: &[plot::Chart]) -> Result<String, String> {
        let file = format!("{name}.png");
        plot::draw(&self.out.join(&file), charts)?;
        self.files.push(file.clone());
        Ok(file)
    }

    /// Record mismatches found in `rows` (the `check` column starts with `MISMATCH`) and shout about them.
    pub fn note_mismatches(&mut self, rows: &[Row]) {
        for r in rows.iter().filter(|r| r.check.starts_with("MISMATCH")) {
            let line = format!("{} {} n={} {}: {}", r.study, r.algorithm, r.n, r.params, r.check);
            eprintln!("\nbench: PAIR-SET MISMATCH: {line}");
            self.mismatches.push(line);
        }
    }
}

/// Run the studies `args` asks for.
pub fn run(args: &Args) -> Result<(), String> {
    let started = Instant::now();
    let studies = selected(&args.studies)?;
    // A bad `--scenes` folder or file is reported before anything is measured.
    let scenes = if studies.contains(&"replay") {
        replay::scenes(args.scenes.as_deref(), args.quick, args.studies.iter().any(|s| s == "replay"))?
    } else {
        replay::Scenes::Absent("the replay study was not selected".into())
    };
    let selector = selector_scenes::Ask {
        quick: args.quick,
        frames: args.frames,
        names: args.selector_scenes.clone(),
        bodies: args.selector_bodies.clone(),
        rounds: args.rounds,
    };
    if studies.contains(&"selector") {
        // A bad scene name or size stops the bench before anything is measured.
        selector_scenes::plan(&selector)?;
    }
    if args.rounds == Some(0) {
        return Err("--rounds 0: a study needs at least one round".into());
    }
    check_only(&args.only)?;
    if studies.contains(&"calibrate") {
        calibrate::check_scenes(args.quick, &args.calibrate_scenes)?;
    }
    peers::check_scenes(&args.peers_scenes)?;
    let machine = machine::Machine::detect(args.machine.as_deref());
    let out = match &args.out {
        Some(dir) => dir.clone(),
        None if args.quick => crate::root().join("target").join("bench-quick").join(&machine.name),
        None => crate::root().join("bench-results").join(&machine.name),
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    plot::register_font()?;
    let algorithms: Vec<&str> = collide_algorithms::names().collect();
    eprintln!(
        "bench: {} mode, studies {}, algorithms {} → {}",
        if args.quick { "quick" } else { "full" },
        studies.join(", "),
        algorithms.join(", "),
        out.display()
    );
    let mut ctx = Ctx {
        quick: args.quick,
        out,
        limits: if args.quick { Limits::quick() } else { Limits::full() },
        progress: Progress::new(),
        sections: Vec::new(),
        mismatches: Vec::new(),
        files: Vec::new(),
        summary: String::new(),
        machine: machine.name.clone(),
        install_prior: args.install,
        scenes,
        selector,
        selector_reuse_pinned: args.reuse_pinned,
        rounds: args.rounds.unwrap_or(1),
        calibration_csv: args.calibration_csv.clone(),
        calibrate_scenes: args.calibrate_scenes.clone(),
        only: args.only.clone(),
        peers_scenes: args.peers_scenes.clone(),
        failures: Vec::new(),
    };
    // Every study runs on one of rayon's threads, as the app's steps do: measured from a thread outside the pool,
    // the algorithms' parallel sections would often run serially (see `collide_broadphase::parallel::on_worker`).
    collide_broadphase::parallel::on_worker(|| run_studies(&mut ctx, &studies))?;
    ctx.progress.finish();
    let report = report::write(&ctx, &machine, &studies, args, started.elapsed())?;
    ctx.files.push(report);
    check_files(&ctx.out, &ctx.files)?;
    eprintln!(
        "bench: {} files in {} after {}",
        ctx.files.len(),
        ctx.out.display(),
        progress::format_duration(started.elapsed())
    );
    if !ctx.failures.is_empty() {
        return Err(format!("{} run(s) failed:\n  {}", ctx.failures.len(), ctx.failures.join("\n  ")));
    }
    if ctx.mismatches.is_empty() {
        Ok(())
    } else {
        Err(format!("{} pair-set mismatch(es):\n  {}", ctx.mismatches.len(), ctx.mismatches.join("\n  ")))
    }
}

/// The studies, one after another.
fn run_studies(ctx: &mut Ctx, studies: &[&'static str]) -> Result<(), String> {
    for study in studies {
        let t = Instant::now();
        match *study {
            "off" => scaling::off(ctx)?,
            "scaling" => scaling::scaling(ctx)?,
            "scaling-step" => step::scaling_step(ctx)?,
            "reorder" => reorder::reorder_study(ctx)?,
            "peers" => peers::peers(ctx)?,
            "cluster" => octree::cluster(ctx)?,
            "octree-params" => octree::params(ctx)?,
            "sap-speed" => sap::speeds(ctx)?,
            "sap-feedback" => sap::feedback(ctx)?,
            "calibrate" => calibrate::calibrate(ctx)?,
            "selector" => selector::selector_study(ctx)?,
            "selector-trace" => trace::selector_trace(ctx)?,
            "replay" => replay::replay(ctx)?,
            "narrowphase" => narrowphase::narrowphase(ctx)?,
            "side-by-side" => side_by_side::side_by_side(ctx)?,
            "python" => python::python(ctx)?,
            other => unreachable!("`{other}` was checked against STUDIES"),
        }
        ctx.progress.clear();
        eprintln!("bench: {study} done in {}", progress::format_duration(t.elapsed()));
    }
    Ok(())
}

/// The studies to run: all, or the `--study` names checked against [`STUDIES`] (in [`STUDIES`] order).
fn selected(names: &[String]) -> Result<Vec<&'static str>, String> {
    for name in names {
        if !STUDIES.contains(&name.as_str()) {
            return Err(format!("unknown study `{name}`; valid studies: {}", STUDIES.join(", ")));
        }
    }
    Ok(STUDIES.iter().copied().filter(|s| names.is_empty() || names.iter().any(|n| n == s)).collect())
}

/// Every file the run claims to have written exists and is not empty (the smoke test's second assertion).
fn check_files(out: &Path, files: &[String]) -> Result<(), String> {
    let missing: Vec<&str> = files
        .iter()
        .filter(|f| std::fs::metadata(out.join(f)).map_or(true, |m| m.len() == 0))
        .map(String::as_str)
        .collect();
    if missing.is_empty() { Ok(()) } else { Err(format!("files missing or empty: {}", missing.join(", "))) }
}

#[cfg(test)]
mod tests;
