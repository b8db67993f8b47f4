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
use super::rows::{self, Row};
use super::scaling::SCENARIO;
use super::{Ctx, alloc};
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_sim::{Phase, Summary};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The thesis scene's speed, units per second.
const THESIS_SPEED: f32 = 0.6;
/// The parameter that turns our SAP into the thesis's pure algorithm when 0.
const PURE_PARAM: &str = "rebuild_swaps_per_body";
/// With this at 1, our regional SAP keeps the thesis's three global endpoint arrays (one region).
const REGIONS_PARAM: &str = "regions_per_axis";

/// The SAP rows and the parameter variants each runs: `(label, algorithm, params)`; `pure_only` keeps just the
/// thesis's algorithm where there is a choice.
fn variants(pure_only: bool) -> Vec<(String, &'static AlgorithmDescriptor, Params)> {
    let mut out = Vec::new();
    for a in ALGORITHMS.iter().filter(|a| a.name == "sap" || a.name.starts_with("sap-")) {
        let defaults = Params::defaults(a.params);
        if a.params.iter().any(|p| p.name == PURE_PARAM) {
            let mut pure = defaults.clone();
            pure.set(PURE_PARAM, 0.0);
            if let Some(regions) = a.params.iter().find(|p| p.name == REGIONS_PARAM) {
                pure.set(regions.name, 1.0);
            }
            out.push((format!("{} pure (thesis)", a.name), a, pure));
            if !pure_only {
                out.push((format!("{} (default)", a.name), a, defaults));
            }
        } else {
            out.push((a.name.to_owned(), a, defaults));
        }
    }
    out
}

/// SAP at four speeds against body count, fixed dt; the pure algorithm at every speed, the default at ×1 and
/// ×1/64 for comparison.
pub fn speeds(ctx: &mut Ctx) -> Result<(), String> {
    let factors: [(f64, &str); 4] = [(1.0, "×1"), (0.5, "×1/2"), (0.25, "×1/4"), (1.0 / 64.0, "×1/64")];
    let sizes = ctx.sizes();
    let mut plan = Vec::new();
    for (label, algorithm, params) in variants(false) {
        let pure = label.contains("pure") || !algorithm.params.iter().any(|p| p.name == PURE_PARAM);
        for &(factor, speed_label) in &factors {
            if pure || factor == 1.0 || factor < 0.1 {
                plan.push((format!("{label} {speed_label}"), algorithm, params.clone(), factor));
            }
        }
    }
    ctx.progress.plan(plan.len() * sizes.len());
    let mut rows = Vec::new();
    let mut chart = Chart::new(
        "Sweep-and-prune at four speeds: relative dt vs bodies, thesis scene, fixed dt (whole step)",
        "bodies (log)",
        "relative dt = step time / 16.67 ms (log)",
    )
    .log(true, true);
    for (label, algorithm, params, factor) in &plan {
        let mut guard = SeriesGuard::new(&ctx.limits);
        let mut pts = Vec::new();
        for &n in &sizes {
            let point = SimPoint {
                study: "sap-speed",
                series: label.clone(),
                scenario: SCENARIO,
                algorithm,
                params: params.clone(),
                n,
                speed: Some(THESIS_SPEED * *factor as f32),
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
            ctx.progress.start(&format!("sap-speed: {label} n={n}"));
            let (row, _) = measure::run_sim_point(&point, &ctx.limits)?;
            guard.record(n, row.time.mean);
            pts.push((n as f64, row.relative_dt()));
            rows.push(row);
            ctx.progress.finish_one();
        }
        chart.series.push(Series::line(label.clone(), pts));
    }
    let seed = reference::load(&reference::default_path());
    for (factor, label) in [(1.0, "×1"), (1.0 / 64.0, "×1/64")] {
        let pts: Vec<(f64, f64)> = reference::series(&seed, "sap", factor)
            .into_iter()
            .map(|(n, ms)| (n, collide_timing::relative_dt_ms(ms)))
            .collect();
        if !pts.is_empty() {
            let style = if factor == 1.0 { plot::REFERENCE } else { plot::P95 };
            chart.series.push(Series::styled(format!("seed program's SAP {label}"), pts, Style::Reference, style));
        }
    }
    let first = rows.iter().find(|r| r.measured()).map(|r| (r.n as f64, r.relative_dt()));
    chart.add_fps_lines((sizes[0] as f64, sizes[sizes.len() - 1] as f64), first);
    rows::cross_check_hashes(&mut rows, |r| format!("{} {}", r.n, r.speed));
    ctx.note_mismatches(&rows);
    ctx.write_rows("sap-speed", &rows)?;
    let png = ctx.plot("sap-speed", &[chart])?;
    let mut header = vec!["series".to_owned()];
    header.extend(sizes.iter().map(|&n| report::count(n)));
    let table_rows = plan.iter().map(|(label, ..)| {
        let mut line = vec![label.clone()];
        for &n in &sizes {
            let r = rows.iter().find(|r| &r.series == label && r.n == n && r.measured());
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

/// The feedback loop: real dt (the previous frame's wall time, uncapped) at fixed body counts.
pub fn feedback(ctx: &mut Ctx) -> Result<(), String> {
    let counts: Vec<usize> = if ctx.quick { vec![2000] } else { vec![12_800, 20_000, 50_000] };
    let (budget, max_frames, frame_limit) =
        if ctx.quick { (Duration::from_secs(5), 60, 2000.0) } else { (Duration::from_secs(45), 400, 8000.0) };
    let plan = variants(false);
    ctx.progress.plan(plan.len() * counts.len());
    let mut rows = Vec::new();
    let mut csv = String::from("series,algorithm,n,frame,dt_ms,relative_dt,step_ms,broadphase_ms,swaps,pairs\n");
    let mut dt_chart = Chart::new(
        "SAP feedback loop: real dt per frame (dt = previous frame's wall time, uncapped), thesis scene",
        "frame",
        "relative dt = dt / 16.67 ms (log)",
    )
    .log(false, true);
    let mut swap_chart =
        Chart::new("Insertion-sort swaps per frame (all three axes)", "frame", "swaps (log)").log(false, true);
    for (label, algorithm, params) in &plan {
        let mut guard = SeriesGuard::with(Duration::from_secs(u64::MAX / 4), frame_limit);
        for &n in &counts {
            let series = format!("{label} n={n}");
            if let Some(why) = guard.skip(n) {
                let point = SimPoint {
                    study: "sap-feedback",
                    series: series.clone(),
                    scenario: SCENARIO,
                    algorithm,
                    params: params.clone(),
                    n,
                    speed: Some(THESIS_SPEED),
                    resolution: true,
                    warmup: 0,
                    max_frames: 0,
                    keep_frames: false,
                };
                let mut row = measure::skipped(&point, &why);
                row.dt_mode = "real";
                rows.push(row);
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("sap-feedback: {series}"));
            let cfg = measure::config(SCENARIO, n, Some(THESIS_SPEED), algorithm, params, true);
            let baseline = alloc::reset_peak();
            let mut sim = measure::simulation(&cfg)?;
            let warmup = ctx.warmup();
            for _ in 0..warmup {
                sim.step(collide_timing::FRAME_60HZ); // settle at 60 Hz first (SAP's first frame sorts from scratch)
            }
            let first = sim.records().len();
            let mut last = collide_timing::FRAME_60HZ;
            let mut status = String::from("ok");
            let start = Instant::now();
            for f in 0..max_frames {
                let t = Instant::now();
                sim.frame(last);
                last = t.elapsed().as_secs_f32();
                if f64::from(last) * 1e3 > frame_limit {
                    status = format!("diverged: frame {} took {:.0} ms > {frame_limit:.0} ms limit", f + 1, last * 1e3);
                    break;
                }
                if start.elapsed() > budget {
                    status = format!("short: series budget of {} s spent", budget.as_secs());
                    break;
                }
            }
            let records = &sim.records()[first..];
            let mut dt_pts = Vec::new();
            let mut swap_pts = Vec::new();
            for (i, r) in records.iter().enumerate() {
                let swaps = r.stats.get("swaps").unwrap_or(f64::NAN);
                let _ = writeln!(
                    csv,
                    "{},{},{n},{i},{:.4},{:.4},{:.4},{:.4},{swaps},{}",
                    rows::escape(&series),
                    algorithm.name,
                    r.dt_ms,
                    collide_timing::relative_dt_ms(r.dt_ms),
                    r.step_ms,
                    r.phases.get(Phase::Broadphase),
                    r.pairs
                );
                dt_pts.push((i as f64, collide_timing::relative_dt_ms(r.dt_ms)));
                swap_pts.push((i as f64, swaps));
            }
            let dts: Vec<f64> = records.iter().map(|r| r.dt_ms).collect();
            let bp: Vec<f64> = records.iter().map(|r| r.phases.get(Phase::Broadphase)).collect();
            let mean_step = Summary::of(&records.iter().map(|r| r.step_ms).collect::<Vec<_>>()).mean;
            guard.record(n, mean_step);
            if status != "ok" {
                ctx.progress.say(&format!("bench: sap-feedback {series}: {status}"));
            }
            rows.push(Row {
                study: "sap-feedback",
                series: series.clone(),
                scenario: SCENARIO.into(),
                algorithm: algorithm.name.into(),
                params: params.to_string(),
                n,
                speed: THESIS_SPEED,
                dt_mode: "real",
                metric: "dt",
                warmup,
                frames: records.len(),
                time: Summary::of(&dts),
                broadphase_ms: Summary::of(&bp).mean,
                pairs: records.iter().map(|r| r.pairs as f64).sum::<f64>() / records.len().max(1) as f64,
                peak_bytes: alloc::peak_above(baseline),
                check: "-".into(),
                status,
                stats: records.last().map(|r| r.stats.to_string()).unwrap_or_default(),
                ..Row::default()
            });
            dt_chart.series.push(Series::line(series.clone(), dt_pts));
            swap_chart.series.push(Series::line(series, swap_pts));
            ctx.progress.finish_one();
        }
    }
    let frames = (0.0, max_frames as f64);
    dt_chart.series.push(Series::styled("60 fps", vec![(frames.0, 1.0), (frames.1, 1.0)], Style::Dashed, plot::FPS60));
    dt_chart.series.push(Series::styled("30 fps", vec![(frames.0, 2.0), (frames.1, 2.0)], Style::Dashed, plot::FPS30));
    ctx.write_rows("sap-feedback", &rows)?;
    ctx.write_text("sap-feedback-frames.csv", &csv)?;
    let png = ctx.plot("sap-feedback", &[dt_chart, swap_chart])?;
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
            report::image(&png, "sap feedback")
        ),
    });
    Ok(())
}
