//! The sweep-and-prune studies: relative dt vs body count at speeds ×1, ×½, ×¼ and ×1/64 (the thesis's figures
//! 5.10 and 5.11), and the real-time feedback loop at fixed counts (5.9): a slow step makes the next dt longer,
//! bodies move further, insertion sort swaps more, the step gets slower still.
//!
//! Which algorithms: every registered row named `sap` or `sap-…`. Where a row has the parameter
//! `rebuild_swaps_per_body` (our SAP's escape hatch: rebuild when swaps exceed a budget), the studies also run it
//! at 0 with `regions_per_axis` = 1 (three global endpoint arrays, not our per-region ones) — the thesis's pure
//! incremental algorithm — since that is the algorithm whose behaviour the thesis shows.

use super::measure::{self, SeriesGuard, SimPoint};
use super::plot::{self, Chart, Series, Style};
use super::reference;
use super::report::{self, Section};
use super::rows::{self, DtMode, Metric, Row};
use super::scaling::SCENARIO;
use super::{Ctx, alloc};
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_sim::{Phase, Simulation, StepRecord, Summary};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The thesis scene's speed, units per second.
const THESIS_SPEED: f32 = 0.6;
/// The parameter that turns our SAP into the thesis's pure algorithm when 0.
const PURE_PARAM: &str = "rebuild_swaps_per_body";
/// With this at 1, our regional SAP keeps the thesis's three global endpoint arrays (one region).
const REGIONS_PARAM: &str = "regions_per_axis";

/// One SAP configuration the studies run: a registry row with parameters.
struct Variant {
    /// The legend label: the row's name, with `pure (thesis)` or `(default)` where the row offers both.
    label: String,
    algorithm: &'static AlgorithmDescriptor,
    params: Params,
    /// Run at every speed of the speed study: the thesis's pure algorithm, or a row with no pure variant. The
    /// default of a row that has one runs only at ×1 and ×1/64, for comparison.
    every_speed: bool,
}

/// The SAP rows and the parameter variants each runs.
fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for a in ALGORITHMS.iter().filter(|a| a.name == "sap" || a.name.starts_with("sap-")) {
        let defaults = Params::defaults(a.params);
        if a.params.iter().any(|p| p.name == PURE_PARAM) {
            let mut pure = defaults.clone();
            pure.set(PURE_PARAM, 0.0);
            if let Some(regions) = a.params.iter().find(|p| p.name == REGIONS_PARAM) {
                pure.set(regions.name, 1.0);
            }
            let label = format!("{} pure (thesis)", a.name);
            out.push(Variant { label, algorithm: a, params: pure, every_speed: true });
            let label = format!("{} (default)", a.name);
            out.push(Variant { label, algorithm: a, params: defaults, every_speed: false });
        } else {
            out.push(Variant { label: a.name.to_owned(), algorithm: a, params: defaults, every_speed: true });
        }
    }
    out
}

/// A multiple of the thesis scene's speed.
#[derive(Clone, Copy)]
struct Speed {
    factor: f64,
    label: &'static str,
}

/// The speed study's speeds; the default variants run only the first and the last.
const SPEEDS: [Speed; 4] = [
    Speed { factor: 1.0, label: "×1" },
    Speed { factor: 0.5, label: "×1/2" },
    Speed { factor: 0.25, label: "×1/4" },
    Speed { factor: 1.0 / 64.0, label: "×1/64" },
];

/// One line of the speed study: a variant at one speed.
struct SpeedSeries<'a> {
    label: String,
    variant: &'a Variant,
    speed: Speed,
}

/// SAP at four speeds against body count, fixed dt; the pure algorithm at every speed, the default at ×1 and
/// ×1/64 for comparison.
pub fn speeds(ctx: &mut Ctx) -> Result<(), String> {
    let variants = variants();
    let plan: Vec<SpeedSeries> = variants
        .iter()
        .flat_map(|variant| {
            let (first, last) = (SPEEDS[0].factor, SPEEDS[SPEEDS.len() - 1].factor);
            SPEEDS
                .iter()
                .filter(move |s| variant.every_speed || s.factor == first || s.factor == last)
                .map(move |&speed| SpeedSeries { label: format!("{} {}", variant.label, speed.label), variant, speed })
        })
        .collect();
    let sizes = ctx.sizes();
    ctx.progress.plan(plan.len() * sizes.len());
    let mut rows = Vec::new();
    let mut chart = Chart::new(
        "Sweep-and-prune at four speeds: relative dt vs bodies, thesis scene, fixed dt (whole step)",
        "bodies (log)",
        "relative dt = step time / 16.67 ms (log)",
    )
    .log(true, true);
    for series in &plan {
        let pts = speed_series(ctx, series, &sizes, &mut rows)?;
        chart.series.push(Series::line(series.label.clone(), pts));
    }
    add_seed_sap(&mut chart);
    let first = rows.iter().find(|r| r.measured()).map(|r| (r.n as f64, r.relative_dt()));
    chart.add_fps_lines((sizes[0] as f64, sizes[sizes.len() - 1] as f64), first);
    rows::cross_check_hashes(&mut rows, |r| format!("{} {}", r.n, r.speed));
    ctx.note_mismatches(&rows);
    ctx.write_rows("sap-speed", &rows)?;
    let png = ctx.plot("sap-speed", &[chart])?;
    let mut header = vec!["series".to_owned()];
    header.extend(sizes.iter().map(|&n| report::count(n)));
    let table_rows = plan.iter().map(|series| {
        let mut line = vec![series.label.clone()];
        for &n in &sizes {
            let r = rows.iter().find(|r| r.series == series.label && r.n == n && r.measured());
            line.push(r.map_or("—".into(), |r| report::ms(r.time.mean)));
        }
        line
    });
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let table = report::table(&header, table_rows);
    ctx.sections.push(Section {
        title: "Sweep-and-prune at four speeds".into(),
        body: format!(
            "Thesis scene at {THESIS_SPEED} units/s times ×1, ×½, ×¼, ×1/64, fixed dt; mean ms per step below. \
             Where no SAP row is registered this study is empty.\n\n{}\n\n{table}{}",
            report::image(&png, "sap speeds"),
            report::stops(&rows)
        ),
    });
    Ok(())
}

/// Measure one line of the speed study at every size its guard allows; its rows go to `rows`, its chart points
/// are returned.
fn speed_series(
    ctx: &mut Ctx,
    series: &SpeedSeries,
    sizes: &[usize],
    rows: &mut Vec<Row>,
) -> Result<Vec<(f64, f64)>, String> {
    let mut guard = SeriesGuard::new(&ctx.limits);
    let mut pts = Vec::new();
    for &n in sizes {
        let point = SimPoint {
            study: "sap-speed",
            series: series.label.clone(),
            scenario: SCENARIO,
            algorithm: series.variant.algorithm,
            params: series.variant.params.clone(),
            n,
            speed: Some(THESIS_SPEED * series.speed.factor as f32),
            resolution: true,
            warmup: ctx.warmup(),
            max_frames: ctx.limits.max_frames,
            keep_frames: false,
        };
        if let Some(why) = guard.skip(n) {
            rows.push(measure::skipped(&point, &why));
            ctx.progress.finish_one();
            continue;
        }
        ctx.progress.start(&format!("sap-speed: {} n={n}", series.label));
        let (row, _) = measure::run_sim_point(&point, &ctx.limits)?;
        guard.record(n, row.time.mean);
        pts.push((n as f64, row.relative_dt()));
        rows.push(row);
        ctx.progress.finish_one();
    }
    Ok(pts)
}

/// The seed program's SAP figures at ×1 and ×1/64, where `shared/reference` has them.
fn add_seed_sap(chart: &mut Chart) {
    let seed = reference::load();
    for speed in [SPEEDS[0], SPEEDS[SPEEDS.len() - 1]] {
        let pts: Vec<(f64, f64)> = reference::series(&seed, "sap", speed.factor)
            .into_iter()
            .map(|(n, ms)| (n, collide_timing::relative_dt_ms(ms)))
            .collect();
        if !pts.is_empty() {
            let color = if speed.factor == 1.0 { plot::REFERENCE } else { plot::P95 };
            let label = format!("seed program's SAP {}", speed.label);
            chart.series.push(Series::styled(label, pts, Style::Reference, color));
        }
    }
}

/// The feedback study's sizes and limits in one mode.
struct FeedbackLimits {
    /// Body counts.
    counts: Vec<usize>,
    /// One run stops after this much wall time.
    budget: Duration,
    /// Frames one run takes at most after warm-up.
    max_frames: usize,
    /// A frame slower than this ends the run as diverged (and the series stops growing n).
    frame_ms: f64,
}

impl FeedbackLimits {
    fn of(quick: bool) -> Self {
        if quick {
            Self { counts: vec![2000], budget: Duration::from_secs(5), max_frames: 60, frame_ms: 2000.0 }
        } else {
            Self {
                counts: vec![12_800, 20_000, 50_000],
                budget: Duration::from_secs(45),
                max_frames: 400,
                frame_ms: 8000.0,
            }
        }
    }
}

/// The per-frame CSV of the feedback study.
const FEEDBACK_FRAMES_HEADER: &str = "series,algorithm,n,frame,dt_ms,relative_dt,step_ms,broadphase_ms,swaps,pairs\n";

/// The feedback loop: real dt (the previous frame's wall time, uncapped) at fixed body counts.
pub fn feedback(ctx: &mut Ctx) -> Result<(), String> {
    let limits = FeedbackLimits::of(ctx.quick);
    let plan = variants();
    ctx.progress.plan(plan.len() * limits.counts.len());
    let mut rows = Vec::new();
    let mut frames_csv = String::from(FEEDBACK_FRAMES_HEADER);
    let mut dt_chart = Chart::new(
        "SAP feedback loop: real dt per frame (dt = previous frame's wall time, uncapped), thesis scene",
        "frame",
        "relative dt = dt / 16.67 ms (log)",
    )
    .log(false, true);
    let mut swap_chart =
        Chart::new("Insertion-sort swaps per frame (all three axes)", "frame", "swaps (log)").log(false, true);
    for variant in &plan {
        let mut guard = SeriesGuard::with(Duration::from_secs(u64::MAX / 4), limits.frame_ms);
        for &n in &limits.counts {
            let series = format!("{} n={n}", variant.label);
            if let Some(why) = guard.skip(n) {
                rows.push(skipped_feedback(variant, &series, n, &why));
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("sap-feedback: {series}"));
            let baseline = alloc::reset_peak();
            let mut sim = measure::simulation(&measure::config(
                SCENARIO,
                n,
                Some(THESIS_SPEED),
                variant.algorithm,
                &variant.params,
                true,
            ))?;
            let warmup = ctx.warmup();
            for _ in 0..warmup {
                sim.step(collide_timing::FRAME_60HZ); // settle at 60 Hz first (SAP's first frame sorts from scratch)
            }
            let first = sim.records().len();
            let status = run_feedback_loop(&mut sim, &limits);
            let records = &sim.records()[first..];
            if status != "ok" {
                ctx.progress.say(&format!("bench: sap-feedback {series}: {status}"));
            }
            guard.record(n, Summary::of(&records.iter().map(|r| r.step_ms).collect::<Vec<_>>()).mean);
            write_feedback_frames(&mut frames_csv, &series, variant.algorithm.name, n, records);
            let points = |f: fn(&StepRecord) -> f64| -> Vec<(f64, f64)> {
                records.iter().enumerate().map(|(i, r)| (i as f64, f(r))).collect()
            };
            dt_chart.series.push(Series::line(series.clone(), points(relative_dt)));
            swap_chart.series.push(Series::line(series.clone(), points(swaps)));
            rows.push(Row {
                warmup,
                peak_bytes: alloc::peak_above(baseline),
                status,
                ..feedback_row(variant, &series, n, records)
            });
            ctx.progress.finish_one();
        }
    }
    let frames = (0.0, limits.max_frames as f64);
    dt_chart.series.push(Series::styled("60 fps", vec![(frames.0, 1.0), (frames.1, 1.0)], Style::Dashed, plot::FPS60));
    dt_chart.series.push(Series::styled("30 fps", vec![(frames.0, 2.0), (frames.1, 2.0)], Style::Dashed, plot::FPS30));
    ctx.write_rows("sap-feedback", &rows)?;
    ctx.write_text("sap-feedback-frames.csv", &frames_csv)?;
    let png = ctx.plot("sap-feedback", &[dt_chart, swap_chart])?;
    feedback_section(ctx, &rows, &png);
    Ok(())
}

/// A frame's insertion-sort swaps (NaN for an algorithm that does not count them).
fn swaps(r: &StepRecord) -> f64 {
    r.stats.get("swaps").unwrap_or(f64::NAN)
}

/// A frame's dt as a multiple of a 60 Hz frame.
fn relative_dt(r: &StepRecord) -> f64 {
    collide_timing::relative_dt_ms(r.dt_ms)
}

/// Run frames whose dt is the previous frame's wall time until the limits stop it. Returns the status: `ok`,
/// `diverged: …` (a frame over the limit) or `short: …` (the run's budget spent).
fn run_feedback_loop(sim: &mut Simulation, limits: &FeedbackLimits) -> String {
    let mut last = collide_timing::FRAME_60HZ;
    let start = Instant::now();
    for f in 0..limits.max_frames {
        let t = Instant::now();
        sim.frame(last);
        last = t.elapsed().as_secs_f32();
        if f64::from(last) * 1e3 > limits.frame_ms {
            return format!("diverged: frame {} took {:.0} ms > {:.0} ms limit", f + 1, last * 1e3, limits.frame_ms);
        }
        if start.elapsed() > limits.budget {
            return format!("short: series budget of {} s spent", limits.budget.as_secs());
        }
    }
    "ok".into()
}

/// Append one run's frames to the per-frame CSV.
fn write_feedback_frames(csv: &mut String, series: &str, algorithm: &str, n: usize, records: &[StepRecord]) {
    for (i, r) in records.iter().enumerate() {
        let _ = writeln!(
            csv,
            "{},{algorithm},{n},{i},{:.4},{:.4},{:.4},{:.4},{},{}",
            rows::escape(series),
            r.dt_ms,
            relative_dt(r),
            r.step_ms,
            r.phases.get(Phase::Broadphase),
            swaps(r),
            r.pairs
        );
    }
}

/// The summary row of a feedback run: the dt statistics of its frames.
fn feedback_row(variant: &Variant, series: &str, n: usize, records: &[StepRecord]) -> Row {
    let dts: Vec<f64> = records.iter().map(|r| r.dt_ms).collect();
    let bp: Vec<f64> = records.iter().map(|r| r.phases.get(Phase::Broadphase)).collect();
    Row {
        study: "sap-feedback",
        series: series.to_owned(),
        scenario: SCENARIO.into(),
        algorithm: variant.algorithm.name.into(),
        params: variant.params.to_string(),
        n,
        speed: THESIS_SPEED,
        dt_mode: DtMode::Real,
        metric: Metric::Dt,
        frames: records.len(),
        time: Summary::of(&dts),
        broadphase_ms: Summary::of(&bp).mean,
        pairs: records.iter().map(|r| r.pairs as f64).sum::<f64>() / records.len().max(1) as f64,
        check: "-".into(),
        stats: records.last().map(|r| r.stats.to_string()).unwrap_or_default(),
        ..Row::default()
    }
}

/// The row of a feedback run its series' guard skipped.
fn skipped_feedback(variant: &Variant, series: &str, n: usize, why: &str) -> Row {
    Row { status: format!("skipped: {why}"), ..feedback_row(variant, series, n, &[]) }
}

/// The feedback study's report section.
fn feedback_section(ctx: &mut Ctx, rows: &[Row], png: &str) {
    let table = report::table(
        &["series", "frames", "mean dt ms", "p95 dt ms", "max dt ms", "mean broadphase ms", "status"],
        rows.iter().map(|r| {
            vec![
                r.series.clone(),
                r.frames.to_string(),
                report::ms(r.time.mean),
                report::ms(r.time.p95),
                report::ms(r.time.max),
                report::ms(r.broadphase_ms),
                r.status.clone(),
            ]
        }),
    );
    ctx.sections.push(Section {
        title: "SAP real-time feedback loop".into(),
        body: format!(
            "Fixed body counts, thesis scene at {THESIS_SPEED} units/s, {} warm-up steps at 1/60 s, then dt = the \
             previous frame's wall time with no cap (the sim's `variable` policy, as the thesis's program ran). \
             Per-frame data: `sap-feedback-frames.csv`.\n\n{}\n\n{table}",
            ctx.warmup(),
            report::image(png, "sap feedback")
        ),
    });
}
