//! The octree studies: variants as bodies cluster and disperse (the thesis's figure 5.6, the spikes), and the
//! `max_leaf` and `max_depth` sweeps at 10 000 bodies (5.7 and its depth paragraph).
//!
//! Which algorithms: the cluster study takes every registered row named `octree…`; the sweeps take every row
//! whose parameters include `max_leaf` / `max_depth`, within that parameter's declared range.

use super::Ctx;
use super::measure::{self, Limits, SeriesGuard, SimPoint};
use super::plot::{Chart, Series};
use super::report::{self, Section};
use super::rows::{self, Row};
use super::scaling::SCENARIO;
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, ParamSpec, Params};
use collide_broadphase::ParamKind;
use collide_sim::{Phase, StepRecord};
use std::fmt::Write as _;
use std::time::Duration;

/// Octree variants through the `cluster` scenario's pull (step 60) and release (step 120), response off as in
/// the thesis so that bodies really pile up.
pub fn cluster(ctx: &mut Ctx) -> Result<(), String> {
    let octrees: Vec<&'static AlgorithmDescriptor> =
        ALGORITHMS.iter().filter(|a| a.name.starts_with("octree")).collect();
    let (n, frames) = if ctx.quick { (1000, 180) } else { (10_000, 240) };
    ctx.progress.plan(octrees.len());
    let limits = Limits {
        point: Duration::from_secs(if ctx.quick { 20 } else { 150 }),
        frame_ms: 5000.0,
        min_frames: frames,
        max_frames: frames,
        ..ctx.limits
    };
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut frames_csv = String::from("algorithm,n,frame,step_ms,broadphase_ms,pairs,contacts,stats\n");
    for &algorithm in &octrees {
        ctx.progress.start(&format!("cluster: {} n={n}, {frames} steps", algorithm.name));
        let point = SimPoint {
            study: "cluster",
            series: algorithm.name.into(),
            scenario: "cluster",
            algorithm,
            params: Params::defaults(algorithm.params),
            n,
            speed: None,
            resolution: false,
            warmup: 0,
            max_frames: frames,
            keep_frames: true,
        };
        let (row, records) = measure::run_sim_point(&point, &limits)?;
        for r in &records {
            let bp = r.phases.get(Phase::Broadphase);
            let _ = writeln!(
                frames_csv,
                "{},{n},{},{:.4},{bp:.4},{},{},{}",
                algorithm.name,
                r.step,
                r.step_ms,
                r.pairs,
                r.contacts,
                rows::escape(&r.stats.to_string())
            );
        }
        series.push(AlgorithmRun { name: algorithm.name, records });
        if row.status != "ok" {
            ctx.progress.say(&format!("bench: cluster {}: {}", algorithm.name, row.status));
        }
        rows.push(row);
        ctx.progress.finish_one();
    }
    rows::cross_check_hashes(&mut rows, |r| r.n.to_string());
    ctx.note_mismatches(&rows);
    ctx.write_rows("cluster", &rows)?;
    ctx.write_text("cluster-frames.csv", &frames_csv)?;
    cluster_section(ctx, &rows, &series, n)
}

/// One algorithm's step records through the cluster.
struct AlgorithmRun {
    name: &'static str,
    records: Vec<StepRecord>,
}

/// The cluster study's charts (broadphase cost and pairs per step) and report section.
fn cluster_section(ctx: &mut Ctx, rows: &[Row], series: &[AlgorithmRun], n: usize) -> Result<(), String> {
    let mut cost = Chart::new(
        format!("Octrees as {n} bodies cluster (pull at step 60, densest at 120, then released), response off"),
        "step",
        "broadphase time per step, ms (log)",
    )
    .log(false, true);
    let mut pairs =
        Chart::new("Pairs per step (the same for every algorithm)", "step", "broadphase pairs (log)").log(false, true);
    for run in series {
        let pts = run.records.iter().map(|r| (r.step as f64, r.phases.get(Phase::Broadphase))).collect();
        cost.series.push(Series::line(run.name, pts));
    }
    if let Some(run) = series.first() {
        let pts = run.records.iter().map(|r| (r.step as f64, r.pairs as f64)).collect();
        pairs.series.push(Series::line(format!("pairs ({})", run.name), pts));
    }
    let png = ctx.plot("cluster", &[cost, pairs])?;
    let table = report::table(
        &["algorithm", "mean bp ms", "step p50 ms", "step p99 ms", "step max ms", "mean pairs", "check", "status"],
        rows.iter().map(|r| {
            vec![
                format!("`{}`", r.algorithm),
                report::ms(r.broadphase_ms),
                report::ms(r.time.p50),
                report::ms(r.time.p99),
                report::ms(r.time.max),
                format!("{:.0}", r.pairs),
                r.check.clone(),
                r.status.clone(),
            ]
        }),
    );
    ctx.sections.push(Section {
        title: "Octrees through a cluster (spikes)".into(),
        body: format!(
            "`cluster` scenario, {n} bodies, collision response off (as in the thesis, so that bodies pile up), fixed \
             dt, default parameters. At step 60 every body is sent toward the centre so that the cloud shrinks to a \
             quarter of its size (64× the density) by step 120, then released with fresh random directions. \
             Per-step data: `cluster-frames.csv`.\n\n{}\n\n{table}",
            report::image(&png, "cluster")
        ),
    });
    Ok(())
}

/// The values a sweep of `spec` takes in this mode, inside the spec's range.
fn sweep_values(spec: &ParamSpec, quick: bool) -> Vec<f64> {
    let all: Vec<f64> = match (spec.name, quick) {
        ("max_leaf", false) => vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
        ("max_leaf", true) => vec![1.0, 4.0, 32.0, 128.0],
        (_, false) => (1..=16).map(f64::from).collect(),
        (_, true) => vec![2.0, 6.0, 10.0],
    };
    let ParamKind::Number { min, max, .. } = spec.kind else {
        return Vec::new();
    };
    all.into_iter().filter(|v| (min..=max).contains(v)).collect()
}

/// An algorithm with the swept parameter.
struct Subject {
    algorithm: &'static AlgorithmDescriptor,
    spec: &'static ParamSpec,
}

/// `max_leaf` and `max_depth` sweeps on the thesis scene at 10 000 bodies (1000 in quick mode).
pub fn params(ctx: &mut Ctx) -> Result<(), String> {
    let n = if ctx.quick { 1000 } else { 10_000 };
    let mut rows = Vec::new();
    let mut body = String::new();
    for param in ["max_leaf", "max_depth"] {
        body.push_str(&sweep(ctx, param, n, &mut rows)?);
    }
    // Different parameters give the same pairs, so the state hashes of one size must agree.
    rows::cross_check_hashes(&mut rows, |r| r.n.to_string());
    ctx.note_mismatches(&rows);
    ctx.write_rows("octree-params", &rows)?;
    let stops = report::stops(&rows);
    ctx.sections.push(Section {
        title: format!("Octree parameter sweeps at {n} bodies"),
        body: format!(
            "Every algorithm with the parameter, the others at their defaults, thesis scene, fixed dt. The \
             thesis found `max_leaf` 32 best (94 fps vs 69 at 4) and depths 9–12 a good range.\n\n{body}{stops}"
        ),
    });
    Ok(())
}

/// Sweep `param` over every algorithm that has it, at `n` bodies: rows go to `rows`; returns the report's
/// subsection (the chart and each algorithm's fastest value).
fn sweep(ctx: &mut Ctx, param: &str, n: usize, rows: &mut Vec<Row>) -> Result<String, String> {
    let subjects: Vec<Subject> = ALGORITHMS
        .iter()
        .filter_map(|a| a.params.iter().find(|p| p.name == param).map(|spec| Subject { algorithm: a, spec }))
        .collect();
    ctx.progress.plan(subjects.iter().map(|s| sweep_values(s.spec, ctx.quick).len()).sum());
    let mut chart = Chart::new(
        format!("{param} sweep: relative dt at {n} bodies, thesis scene, fixed dt (whole step)"),
        format!("{param}{}", if param == "max_leaf" { " (log₂)" } else { "" }),
        "relative dt = step time / 16.67 ms",
    );
    if param == "max_leaf" {
        chart.log_x = true;
        chart.x_base = Some(2.0);
    }
    let first = rows.len();
    for subject in &subjects {
        let Subject { algorithm, spec } = *subject;
        let mut guard = SeriesGuard::new(&ctx.limits);
        let mut pts = Vec::new();
        for value in sweep_values(spec, ctx.quick) {
            let mut params = Params::defaults(algorithm.params);
            params.set(spec.name, value);
            let point = SimPoint {
                study: "octree-params",
                series: format!("{} {param}", algorithm.name),
                scenario: SCENARIO,
                algorithm,
                params,
                n,
                speed: None,
                resolution: true,
                warmup: ctx.warmup(),
                max_frames: ctx.limits.max_frames,
                keep_frames: false,
            };
            // Sweeps do not grow n, so only a spent budget or a too-slow earlier point stops them.
            if let Some(why) = guard.skip(0) {
                rows.push(measure::skipped(&point, &why));
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("octree-params: {} {param}={value} n={n}", algorithm.name));
            let (row, _) = measure::run_sim_point(&point, &ctx.limits)?;
            guard.record(n, row.time.mean);
            pts.push((value, row.relative_dt()));
            rows.push(row);
            ctx.progress.finish_one();
        }
        chart.series.push(Series::line(algorithm.name, pts));
    }
    let ys: Vec<f64> = rows[first..].iter().filter(|r| r.measured()).map(Row::relative_dt).collect();
    let (lo, hi) = ys.iter().fold((f64::MAX, 0.0f64), |(a, b), &y| (a.min(y), b.max(y)));
    chart.log_y = hi > 100.0 * lo;
    if chart.log_y {
        chart.y_label.push_str(" (log)");
    }
    let png = ctx.plot(&format!("octree-{}", param.replace('_', "-")), &[chart])?;
    let best: Vec<String> = subjects
        .iter()
        .filter_map(|s| {
            let name = s.algorithm.name;
            rows[first..]
                .iter()
                .filter(|r| r.algorithm == name && r.measured())
                .min_by(|x, y| x.time.mean.total_cmp(&y.time.mean))
                .map(|r| format!("`{name}` fastest at {} ({} ms/step)", r.params, report::ms(r.time.mean)))
        })
        .collect();
    Ok(format!(
        "### `{param}`\n\n{}\n\n{}\n\n",
        report::image(&png, param),
        if best.is_empty() { "No algorithm has this parameter.".into() } else { best.join("; ") + "." }
    ))
}

#[cfg(test)]
mod tests;
