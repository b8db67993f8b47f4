//! `scaling-step`: the whole step and each of its phases from 10⁴ to 10⁶ bodies, on one and two threads.
//!
//! Two simulations of the same config, one in a local rayon pool of one thread and one in a pool of two, are
//! stepped in turn — a frame of one, then a frame of the other — so that the machine's load falls on both alike
//! and the ratio of their times is the parallel efficiency (`t₁ / (2·t₂)`; 1 is a perfect split). Both must end
//! in the same state hash: the step is deterministic on any thread count, and a difference fails the run like
//! a pair-set mismatch. The scene is `uniform` with `grid`, the broadphase that scales furthest on it, so that the
//! phases around the broadphase are measured at the sizes where they matter. The config's default `reorder_every`
//! (0) applies, so the `reorder` column is 0 here; the `reorder` study measures every algorithm with it on.

use super::Ctx;
use super::plot::{self, Chart, Series, Style};
use super::report::{self, Section};
use collide_sim::{Phase, Plan, Simulation, StepRecord};
use std::fmt::Write as _;
use std::time::Instant;

const SCENARIO: &str = "uniform";
const ALGORITHM: &str = "grid";
/// The thread counts compared.
const THREADS: [usize; 2] = [1, 2];
/// The phases other than the broadphase (the step's own work), in pipeline order.
const OWN: [Phase; 6] =
    [Phase::Reorder, Phase::Integrate, Phase::Aabbs, Phase::Narrowphase, Phase::Resolution, Phase::Walls];

/// One size's measurement: per thread count, each phase's mean, the step's own phases' sum and the whole step.
struct Point {
    n: usize,
    frames: usize,
    /// `[threads][column]`: the six phases of [`OWN`], the broadphase, their own sum, the whole step (ms).
    mean: [[f64; 9]; 2],
    /// The 1-minute load average when the point started.
    load: f64,
    check: String,
}

const COLUMNS: [&str; 9] =
    ["reorder", "integrate", "aabbs", "narrowphase", "resolution", "walls", "broadphase", "own", "step"];

/// Run the study: every size of the mode, both thread counts side by side.
pub fn scaling_step(ctx: &mut Ctx) -> Result<(), String> {
    let sizes: Vec<usize> = if ctx.quick {
        vec![2000, 5000, 10_000]
    } else {
        vec![10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]
    };
    ctx.progress.plan(sizes.len());
    let mut points = Vec::new();
    for &n in &sizes {
        ctx.progress.start(&format!("scaling-step: n={n}, 1 and 2 threads"));
        let point = measure(ctx, n)?;
        if point.check != "same hash" {
            let line = format!("scaling-step n={n}: {}", point.check);
            eprintln!("\nbench: {line}");
            ctx.mismatches.push(line);
        }
        points.push(point);
        ctx.progress.finish_one();
    }
    ctx.write_text("scaling-step.csv", &csv(&points))?;
    section(ctx, &points)
}

/// Both simulations of size `n`, warmed up and then stepped in turn within the point's budget.
fn measure(ctx: &Ctx, n: usize) -> Result<Point, String> {
    let overrides = [format!("scenario={SCENARIO}"), format!("bodies={n}"), format!("algorithm={ALGORITHM}")];
    let plan = Plan::parse("", "scaling-step", &overrides).map_err(|e| e.to_string())?;
    let mut runs = Vec::new();
    for threads in THREADS {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| e.to_string())?;
        let sim = pool.install(|| Simulation::of(&plan)).map_err(|e| e.to_string())?;
        runs.push((pool, sim));
    }
    let load = load_average();
    let dt = collide_timing::FRAME_60HZ;
    for (pool, sim) in &mut runs {
        pool.install(|| {
            for _ in 0..ctx.warmup() {
                sim.step(dt);
            }
            sim.clear_records();
        });
    }
    let start = Instant::now();
    let mut frames = 0;
    while frames < ctx.limits.max_frames && (frames < ctx.limits.min_frames || start.elapsed() < ctx.limits.point) {
        for (pool, sim) in &mut runs {
            pool.install(|| sim.step(dt));
        }
        frames += 1;
    }
    let hashes: Vec<u64> = runs.iter().map(|(_, sim)| sim.state_hash()).collect();
    let check = if hashes.windows(2).all(|w| w[0] == w[1]) {
        "same hash".to_owned()
    } else {
        format!("HASH MISMATCH between 1 and 2 threads: {:016x} vs {:016x}", hashes[0], hashes[1])
    };
    let mut mean = [[0.0; 9]; 2];
    for (t, (_, sim)) in runs.iter().enumerate() {
        mean[t] = means(sim.records());
    }
    Ok(Point { n, frames, mean, load, check })
}

/// The columns of [`COLUMNS`] averaged over `records`.
fn means(records: &[StepRecord]) -> [f64; 9] {
    let mut sum = [0.0; 9];
    for r in records {
        for (k, phase) in OWN.iter().enumerate() {
            sum[k] += r.phases.get(*phase);
        }
        sum[6] += r.phases.get(Phase::Broadphase);
        sum[7] += OWN.iter().map(|p| r.phases.get(*p)).sum::<f64>();
        sum[8] += r.step_ms;
    }
    sum.map(|s| s / records.len().max(1) as f64)
}

/// The parallel efficiency of column `k` at a point: `t₁ / (2·t₂)`.
fn efficiency(p: &Point, k: usize) -> f64 {
    p.mean[0][k] / (2.0 * p.mean[1][k])
}

/// The 1-minute load average (NaN where `/proc/loadavg` cannot be read).
pub(super) fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// One row per size, thread count and column: the mean, and for two threads the efficiency.
fn csv(points: &[Point]) -> String {
    let mut s = String::from("scenario,algorithm,n,threads,phase,mean_ms,efficiency,frames,load,check\n");
    for p in points {
        for (t, threads) in THREADS.iter().enumerate() {
            for (k, column) in COLUMNS.iter().enumerate() {
                let eff = if t == 1 { format!("{:.3}", efficiency(p, k)) } else { String::new() };
                let _ = writeln!(
                    s,
                    "{SCENARIO},{ALGORITHM},{},{threads},{column},{:.4},{eff},{},{:.2},{}",
                    p.n, p.mean[t][k], p.frames, p.load, p.check
                );
            }
        }
    }
    s
}

/// The plot (each phase's time against n on both thread counts; each phase's efficiency) and the report section.
fn section(ctx: &mut Ctx, points: &[Point]) -> Result<(), String> {
    let x = |p: &Point| p.n as f64;
    let mut times = Chart::new(
        format!("The step's phases, {SCENARIO} with {ALGORITHM}: 2 threads solid, 1 thread dashed"),
        "bodies (log)",
        "mean ms per step (log)",
    )
    .log(true, true);
    let mut eff = Chart::new(
        "Parallel efficiency per phase, t₁ / (2·t₂) (1 = a perfect split over 2 threads)",
        "bodies (log)",
        "efficiency",
    )
    .log(true, false);
    for (k, column) in COLUMNS.iter().enumerate().filter(|(_, c)| **c != "step") {
        // One colour per column, the same on both charts, so that a phase's time and its efficiency are found by
        // colour; the sum in black.
        let color = if *column == "own" { plot::REFERENCE } else { plot::PALETTE[k % plot::PALETTE.len()] };
        for (t, style) in [(1, Style::Line), (0, Style::Dashed)] {
            let pts = points.iter().map(|p| (x(p), p.mean[t][k].max(1e-4))).collect();
            let label = if t == 1 { (*column).to_owned() } else { format!("{column} (1 thread)") };
            times.series.push(Series::styled(label, pts, style, color));
        }
        eff.series.push(Series::styled(
            *column,
            points.iter().map(|p| (x(p), efficiency(p, k))).collect(),
            Style::Line,
            color,
        ));
    }
    let png = ctx.plot("scaling-step", &[times, eff])?;
    let mut header = vec!["bodies", "threads"];
    header.extend(COLUMNS);
    header.push("load");
    let rows = points.iter().flat_map(|p| {
        THREADS.iter().enumerate().map(move |(t, threads)| {
            let mut row = vec![report::count(p.n), threads.to_string()];
            row.extend(p.mean[t].iter().map(|&ms| report::ms(ms)));
            row.push(format!("{:.2}", p.load));
            row
        })
    });
    let table = report::table(&header, rows);
    let mut eff_header = vec!["bodies"];
    eff_header.extend(COLUMNS);
    let eff_rows = points.iter().map(|p| {
        let mut row = vec![report::count(p.n)];
        row.extend((0..COLUMNS.len()).map(|k| format!("{:.2}", efficiency(p, k))));
        row
    });
    let eff_table = report::table(&eff_header, eff_rows);
    let failed: Vec<String> =
        points.iter().filter(|p| p.check != "same hash").map(|p| format!("n = {}: {}", p.n, p.check)).collect();
    let checks =
        if failed.is_empty() { "every size did".to_owned() } else { format!("**not**: {}", failed.join("; ")) };
    ctx.sections.push(Section {
        title: "The whole step on one and two threads (scaling-step)".into(),
        body: format!(
            "`{SCENARIO}` with `{ALGORITHM}`, fixed dt. Two simulations of the same config, in local rayon pools of \
             one and two threads, stepped in turn so that the machine's load falls on both alike; `own` is the \
             sum of the phases other than the broadphase (the step's own work). Both runs must end in the same \
             state hash ({}).\n\n{}\n\nMean ms per step:\n\n{table}\n\nParallel efficiency, t₁ / (2·t₂):\n\n{eff_table}",
            checks,
            report::image(&png, "the step's phases on 1 and 2 threads")
        ),
    });
    Ok(())
}
