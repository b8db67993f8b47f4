//! `reorder`: the whole step with the bodies kept in spatial order (`reorder_every`) against the same scene
//! without, for every algorithm, at 10⁵ and 10⁶ bodies (`--quick`: 2 000 and 10 000, reordered every
//! [`QUICK_REORDER_EVERY`] steps).
//!
//! Two simulations of the same config but `reorder_every`, stepped in turn — a step of one, then a step of the
//! other — so that the machine's load falls on both alike, for at least two reorders' worth of steps after the
//! warm-up. Per run: each phase's mean, the whole step's, the reorder's own cost amortised over every step and
//! its worst step (the reorder step's time over the run's median step: the broadphase's remap must not spike).
//! The two runs do not end in the same state (a reorder changes the order contacts are solved in); each is
//! deterministic on its own (`tests/tests/determinism.rs`).

use super::Ctx;
use super::report::{self, Section};
use super::step::load_average;
use collide_sim::{Phase, Plan, Simulation, StepRecord};
use std::fmt::Write as _;
use std::time::Instant;

const SCENARIO: &str = "uniform";

/// `reorder_every` of the quick run, CI's smoke test: it still reorders twice after the warm-up, in 17 steps
/// where the studied 32 take 65 — brute force and `pair-count` at 10 000 bodies took 46 s of CI's 240 s
/// `bench --quick` at 32.
const QUICK_REORDER_EVERY: u32 = 8;

/// One algorithm at one size: the plain run and the reordered one, or why it could not run.
struct Point {
    n: usize,
    algorithm: &'static str,
    outcome: Result<[RunStats; 2], String>,
    frames: usize,
    load: f64,
}

/// What one run measured.
#[derive(Clone, Copy, Default)]
struct RunStats {
    /// Mean ms of each phase, in [`Phase::ALL`] order.
    phases: [f64; Phase::ALL.len()],
    step: f64,
    median: f64,
    /// The slowest step that reordered, and how many did.
    worst_reorder: f64,
    reorders: usize,
}

impl RunStats {
    fn of(records: &[StepRecord]) -> Self {
        let n = records.len().max(1) as f64;
        let mut s = Self::default();
        for r in records {
            for (k, p) in Phase::ALL.iter().enumerate() {
                s.phases[k] += r.phases.get(*p) / n;
            }
            s.step += r.step_ms / n;
            if r.phases.get(Phase::Reorder) > 0.01 {
                s.reorders += 1;
                s.worst_reorder = s.worst_reorder.max(r.step_ms);
            }
        }
        let mut steps: Vec<f64> = records.iter().map(|r| r.step_ms).collect();
        steps.sort_by(f64::total_cmp);
        s.median = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
        s
    }

    fn phase(&self, p: Phase) -> f64 {
        self.phases[p as usize]
    }

    /// Every phase but the broadphase (the reorder included).
    fn others(&self) -> f64 {
        self.phases.iter().sum::<f64>() - self.phase(Phase::Broadphase)
    }
}

/// Run the study.
pub fn reorder_study(ctx: &mut Ctx) -> Result<(), String> {
    let sizes: Vec<usize> = if ctx.quick { vec![2000, 10_000] } else { vec![100_000, 1_000_000] };
    let every = if ctx.quick { QUICK_REORDER_EVERY } else { collide_sim::STUDIED_REORDER_EVERY };
    let algorithms: Vec<&'static str> = collide_algorithms::ALGORITHMS.iter().map(|d| d.name).collect();
    ctx.progress.plan(sizes.len() * algorithms.len());
    let mut points = Vec::new();
    for &n in &sizes {
        for &algorithm in &algorithms {
            ctx.progress.start(&format!("reorder: {algorithm} at n={n}, reorder_every 0 and {every}"));
            let point = if algorithm == "brute" && n > ctx.limits.brute_max {
                let why = format!("not run: brute force is run up to {} bodies", ctx.limits.brute_max);
                Point { n, algorithm, outcome: Err(why), frames: 0, load: load_average() }
            } else {
                measure(ctx, n, algorithm, every)
            };
            points.push(point);
            ctx.progress.finish_one();
        }
    }
    ctx.write_text("reorder.csv", &csv(&points))?;
    section(ctx, &points, every);
    Ok(())
}

/// Both runs of `algorithm` at `n`, warmed up, then stepped in turn.
fn measure(ctx: &Ctx, n: usize, algorithm: &'static str, every: u32) -> Point {
    let load = load_average();
    let run = |reorder: u32| -> Result<Simulation, String> {
        let overrides = [
            format!("scenario={SCENARIO}"),
            format!("bodies={n}"),
            format!("algorithm={algorithm}"),
            format!("reorder_every={reorder}"),
        ];
        let plan = Plan::parse("", "reorder", &overrides).map_err(|e| e.to_string())?;
        Simulation::of(&plan).map_err(|e| e.to_string())
    };
    let sims = run(0).and_then(|off| Ok([off, run(every)?]));
    let mut sims = match sims {
        Ok(s) => s,
        Err(why) => return Point { n, algorithm, outcome: Err(why), frames: 0, load },
    };
    let dt = collide_timing::FRAME_60HZ;
    for sim in &mut sims {
        for _ in 0..ctx.warmup() {
            sim.step(dt);
        }
        sim.clear_records();
    }
    // At least two reorders after the warm-up, unless a step is so slow that the point's budget ends first.
    let least = (2 * every as usize + 1).max(ctx.limits.min_frames);
    let start = Instant::now();
    let mut frames = 0;
    while frames < ctx.limits.max_frames.max(least) && (frames < least || start.elapsed() < ctx.limits.point) {
        for sim in &mut sims {
            sim.step(dt);
        }
        frames += 1;
        if sims.iter().any(|s| s.records().last().is_some_and(|r| r.step_ms > ctx.limits.frame_ms)) {
            break;
        }
    }
    let outcome = Ok([RunStats::of(sims[0].records()), RunStats::of(sims[1].records())]);
    Point { n, algorithm, outcome, frames, load }
}

/// One row per size, algorithm and run: every phase's mean, the step, its median, the reorder's worst step.
fn csv(points: &[Point]) -> String {
    let phases: Vec<String> = Phase::ALL.iter().map(|p| format!("{}_ms", p.name())).collect();
    let mut s = format!(
        "scenario,n,algorithm,reorder,{},step_ms,median_step_ms,reorders,worst_reorder_step_ms,frames,load,note\n",
        phases.join(",")
    );
    for p in points {
        match &p.outcome {
            Ok(runs) => {
                for (run, label) in runs.iter().zip(["off", "on"]) {
                    let ph: Vec<String> = run.phases.iter().map(|m| format!("{m:.4}")).collect();
                    let _ = writeln!(
                        s,
                        "{SCENARIO},{},{},{label},{},{:.4},{:.4},{},{:.4},{},{:.2},",
                        p.n,
                        p.algorithm,
                        ph.join(","),
                        run.step,
                        run.median,
                        run.reorders,
                        run.worst_reorder,
                        p.frames,
                        p.load
                    );
                }
            }
            Err(why) => {
                let empty = vec![""; Phase::ALL.len() + 4].join(",");
                let _ = writeln!(s, "{SCENARIO},{},{},,{empty},{},{:.2},{}", p.n, p.algorithm, p.frames, p.load, why);
            }
        }
    }
    s
}

fn section(ctx: &mut Ctx, points: &[Point], every: u32) {
    let header = [
        "bodies",
        "algorithm",
        "step off → on",
        "on / off",
        "broadphase off → on",
        "other phases off → on",
        "reorder, amortised",
        "reorder step / median",
        "frames",
        "load",
    ];
    let rows = points.iter().map(|p| match &p.outcome {
        Ok([off, on]) => vec![
            report::count(p.n),
            format!("`{}`", p.algorithm),
            format!("{} → {}", report::ms(off.step), report::ms(on.step)),
            format!("{:.2}", on.step / off.step),
            format!("{} → {}", report::ms(off.phase(Phase::Broadphase)), report::ms(on.phase(Phase::Broadphase))),
            format!("{} → {}", report::ms(off.others()), report::ms(on.others())),
            report::ms(on.phase(Phase::Reorder)),
            if on.reorders > 0 { format!("{:.2}", on.worst_reorder / on.median) } else { "none ran".into() },
            p.frames.to_string(),
            format!("{:.2}", p.load),
        ],
        Err(why) => {
            let mut row = vec![report::count(p.n), format!("`{}`", p.algorithm), why.clone()];
            row.extend(std::iter::repeat_n(String::new(), 5));
            row.extend([p.frames.to_string(), format!("{:.2}", p.load)]);
            row
        }
    });
    let table = report::table(&header, rows);
    ctx.sections.push(Section {
        title: "Bodies in spatial order (reorder)".into(),
        body: format!(
            "`{SCENARIO}` at a fixed dt, every algorithm, `reorder_every = 0` against `reorder_every = {every}`: two \
             simulations stepped in turn after {} warm-up steps, for at least two reorders. `other phases` is \
             every phase but the broadphase, the reorder's included; `reorder, amortised` is its mean over every \
             step of the reordered run; `reorder step / median` is the slowest step that reordered over that run's \
             median step (the broadphase's remap included: no spike means a small ratio). Times in ms.\n\n{table}",
            ctx.warmup()
        ),
    });
}
