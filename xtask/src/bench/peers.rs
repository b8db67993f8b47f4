//! Peers in the same run, on every kind of scene: every registered broadphase beside parry's BVH (the broad phase
//! rapier uses) and rstar's bulk-loaded R-tree self-join (`contenders.rs`), fed the same boxes, timed the same way,
//! their pair sets checked on every frame; the memory floor; peak memory per algorithm, and in a huge, mostly
//! empty world (`far-clusters`) beside the uniform scene of as many bodies.
//!
//! For each scene and size a driver simulation (the first registered algorithm after brute force, fixed dt,
//! response on) records a few frames — boxes and its sorted pairs. Then each contender runs alone over that
//! recording: its first frames warm it up (an incremental structure builds itself; on `slow`, [`SLOW_WARM`] of
//! them, until the incremental structures are in their steady state), the rest are timed around the
//! pair query alone (`find_pairs`, or the peer's build + query), and every frame's pairs are compared with the
//! recorded ones. Its peak heap above the baseline is its memory (structures and output). Running contenders one
//! after another, not interleaved, keeps their caches and their allocation peaks apart.
//!
//! Rounds (`--rounds N`, default 1): every contender runs N times over the recording, fresh each time, the rounds in
//! turn forward and backward through the contenders, and each frame's time is the median over its rounds
//! (`median_run`; the largest peak heap): on a VM whose speed drifts for minutes, one run each puts the drift into
//! the ratios.
//!
//! At 10⁴ and 10⁵ bodies every contender is timed on [`TIMED`] frames (100) after its warm-up: a handful of
//! frames right after a build says little about a structure that adapts over frames, and the machine's noise
//! evens out over a hundred. At 10⁶ bodies the recording holds [`MILLION_FRAMES`] frames (two of them warm-up):
//! a frame of boxes is 24 MB and the slower contenders take seconds a frame, so the 10⁶-body figures are a mean
//! of three frames, bounded in time by the point budget.
//!
//! Budgets: each contender's series on a scene stops growing n once a point would exceed the frame limit
//! (predicted linearly from its last point, or measured) or the series has used its time; a point also ends after
//! its time (at least one measured frame), and its row says so (`short: …`) when that cut its frames.

use super::contenders::{self, Contender, Ours};
use super::measure::{self, SeriesGuard};
use super::plot::{self, Chart, Series, Style};
use super::report::{self, Section};
use super::rows::{DtMode, Metric, Row};
use super::{Ctx, alloc};
use collide_algorithms::{ALGORITHMS, Params};
use collide_math::Aabb;
use collide_sim::Summary;
use std::time::{Duration, Instant};

/// The scenes every contender meets, at every size.
const SCENES: &[&str] = &["thesis", "uniform", "slow", "cluster", "mixed-sizes", POWER_LAW];

/// Sizes with a heavy tail: run at 10⁴ and 10⁵ bodies only. Its largest bodies are a fraction of the container's
/// side, which grows as n^(1/3), so its pairs grow as about n^1.5 (90 thousand a frame at 10⁴, 2.3 million at
/// 10⁵): at 10⁶ some 70 million a frame, 570 MB of pairs to record per frame and check against brute force.
const POWER_LAW: &str = "power-law";

/// The huge world, run at one size to set its peak memory beside `uniform`'s.
const FAR: &str = "far-clusters";

/// `cluster` is recorded from this step, its cloud pulled to about a third of its size (27× the density) and still
/// shrinking toward the densest moment at step 120: the scene's hard case, not its uniform start.
const CLUSTER_FROM: usize = 100;

/// One size of the study: bodies, frames recorded, and how many of them warm a contender up.
#[derive(Clone, Copy, Debug)]
struct Size {
    n: usize,
    frames: usize,
    warm: usize,
}

/// Frames every contender runs untimed on `slow` (10⁴ and 10⁵ bodies) before its measured ones: the incremental
/// structures' steady state. `bvh-dynamic`'s fat boxes last 60 to 180 frames (its horizon, jittered), so for 60
/// frames after its first build no body leaves one and a frame costs a fifth of a steady frame; from about frame
/// 80 on, a hundredth of the bodies leaves its box every frame. A few warm frames timed its honeymoon instead.
/// At 10⁵ bodies 60 frames are measured after them, not a handful: seven frames right after the warm-up timed
/// `bvh-dynamic` at 0.15× parry's refit BVH where 80 steady frames, interleaved with parry's, give 0.22×.
/// (At 10⁶ bodies a recording this long would not fit in memory: 24 MB of boxes a frame.)
const SLOW_WARM: usize = 120;

/// Frames every contender is timed on at 10⁴ and 10⁵ bodies in a full run.
const TIMED: usize = 100;

/// Frames recorded at 10⁶ bodies (the first two warm a contender up).
const MILLION_FRAMES: usize = 5;

/// The sizes of a scene: 10⁴, 10⁵ and 10⁶ bodies in a full run ([`TIMED`] frames timed at 10⁴ and 10⁵, three at
/// 10⁶), two small ones quick; `slow` with [`SLOW_WARM`] warm-up frames up to 10⁵.
fn sizes(quick: bool, scene: &str) -> Vec<Size> {
    let size = |n, frames, warm| Size { n, frames, warm };
    match (quick, scene) {
        (true, FAR) => vec![size(5000, 10, 3)],
        (true, _) => vec![size(1000, 10, 3), size(5000, 10, 3)],
        (false, FAR) => vec![size(100_000, 10, 3)],
        (false, POWER_LAW) => vec![size(10_000, TIMED + 4, 4), size(100_000, TIMED + 3, 3)],
        (false, "slow") => vec![
            size(10_000, TIMED + SLOW_WARM, SLOW_WARM),
            size(100_000, TIMED + SLOW_WARM, SLOW_WARM),
            size(1_000_000, MILLION_FRAMES, 2),
        ],
        (false, _) => vec![size(10_000, TIMED + 4, 4), size(100_000, TIMED + 3, 3), size(1_000_000, MILLION_FRAMES, 2)],
    }
}

/// The slowest frame, ms, that lets a series grow n (and past which a point ends).
fn frame_limit(ctx: &Ctx) -> f64 {
    if ctx.quick { 1000.0 } else { 2500.0 }
}

/// The limits of one contender's series on one scene: its time, and [`frame_limit`].
fn series_guard(ctx: &Ctx) -> SeriesGuard {
    // Room for a point of every size: 100 frames at 10⁵ bodies of a contender at 300 ms a frame are 30 s.
    let budget = if ctx.quick { Duration::from_secs(5) } else { Duration::from_secs(90) };
    // The contenders take turns on each recording: a series' budget counts its own time only, from the start —
    // not the recordings' nor the contenders' before it (on `slow`, `pair-count`'s 140 frames at 10⁴ bodies
    // spent the budget of every contender after it).
    SeriesGuard::charged(budget, frame_limit(ctx))
}

/// How long one point may measure (after at least one measured frame): in a full run, [`TIMED`] frames of a
/// contender up to 300 ms a frame.
fn point_budget(ctx: &Ctx) -> Duration {
    if ctx.quick { Duration::from_millis(500) } else { Duration::from_secs(30) }
}

/// Every contender at body count `n`: ours from the registry (brute force only up to the limit), then the peers.
fn contenders(ctx: &Ctx, n: usize) -> Vec<Box<dyn Contender>> {
    let mut out: Vec<Box<dyn Contender>> = Vec::new();
    for a in ALGORITHMS.iter().filter(|a| ctx.runs(a.name)) {
        if a.name == "brute" && n > ctx.limits.brute_max {
            continue;
        }
        out.push(Box::new(Ours::new(a)));
    }
    out.extend(contenders::peers().into_iter().filter(|p| ctx.runs(&p.name())));
    out
}

/// `--peers-scenes`' names, each a scene of this study; the first that is not is an error listing the valid ones.
pub fn check_scenes(names: &[String]) -> Result<(), String> {
    let valid: Vec<&str> = SCENES.iter().copied().chain([FAR]).collect();
    match names.iter().find(|n| !valid.contains(&n.as_str())) {
        Some(bad) => Err(format!("--peers-scenes: the peers study has no scene `{bad}`; valid: {}", valid.join(", "))),
        None => Ok(()),
    }
}

/// A recorded sequence of frames.
struct Recording {
    boxes: Vec<Vec<Aabb>>,
    pairs: Vec<Vec<collide_broadphase::Pair>>,
    floor_ms: f64,
    speed: f32,
    driver: String,
    check: String,
}

/// Run the driver simulation of `scene` at `n` bodies and record `frames` frames after its warm-up.
fn record(ctx: &Ctx, scene: &str, n: usize, frames: usize) -> Result<Recording, String> {
    let driver = ALGORITHMS.iter().find(|a| a.name != "brute").unwrap_or(&ALGORITHMS[0]);
    let cfg = measure::config(scene, n, None, driver, &Params::defaults(driver.params), false);
    let mut sim = measure::simulation(&cfg)?;
    let warmup = if scene == "cluster" { CLUSTER_FROM } else { ctx.warmup() };
    for _ in 0..warmup {
        sim.step(collide_timing::FRAME_60HZ);
    }
    let (mut boxes, mut pairs, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..frames {
        sim.step(collide_timing::FRAME_60HZ);
        boxes.push(sim.aabbs().to_vec());
        // Sorted: `measure::diff` walks the expected pairs in order (the step leaves them in the broadphase's).
        let mut frame_pairs = sim.pairs().as_slice().to_vec();
        frame_pairs.sort_unstable_by_key(|p| p.key());
        pairs.push(frame_pairs);
        floor.push(measure::floor_ms(sim.aabbs()));
    }
    let check = if n <= ctx.limits.check_max {
        measure::verdict(&[measure::check_against_brute(sim.aabbs(), sim.pairs())])
    } else {
        "-".into()
    };
    let speed = sim.setup().speed;
    Ok(Recording { boxes, pairs, floor_ms: Summary::of(&floor).p50, speed, driver: driver.name.into(), check })
}

/// The peers study.
pub fn peers(ctx: &mut Ctx) -> Result<(), String> {
    let names: Vec<String> = contenders::names().into_iter().filter(|n| ctx.runs(n)).collect();
    let scenes: Vec<&str> = SCENES
        .iter()
        .copied()
        .chain([FAR])
        .filter(|s| ctx.peers_scenes.is_empty() || ctx.peers_scenes.iter().any(|p| p == s))
        .collect();
    let points: usize = scenes.iter().map(|s| sizes(ctx.quick, s).len()).sum();
    ctx.progress.plan(points * names.len() * ctx.rounds);
    let mut rows = Vec::new();
    for &scene in &scenes {
        let mut guards: Vec<SeriesGuard> = names.iter().map(|_| series_guard(ctx)).collect();
        for size in sizes(ctx.quick, scene) {
            scene_point(ctx, scene, size, &names, &mut guards, &mut rows)?;
        }
    }
    ctx.note_mismatches(&rows);
    ctx.write_rows("peers", &rows)?;
    charts(ctx, &rows, &names)
}

/// Record `scene` at `size` and run every contender over it; one row per contender name.
fn scene_point(
    ctx: &mut Ctx,
    scene: &str,
    size: Size,
    names: &[String],
    guards: &mut [SeriesGuard],
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    let n = size.n;
    ctx.progress.start(&format!("peers: recording {scene} at n={n}"));
    let rec = record(ctx, scene, n, size.frames)?;
    if rec.check.starts_with("MISMATCH") {
        ctx.mismatches.push(format!("peers driver {} {scene} n={n}: {}", rec.driver, rec.check));
    }
    // Rounds (`--rounds`): each a fresh set of contenders, alternately forward and backward; each contender's
    // frame times the medians over its rounds (`median_run`).
    let rounds = ctx.rounds;
    let present: Vec<String> = contenders(ctx, n).iter().map(|c| c.name()).collect();
    let mut runs: Vec<Vec<ContenderRun>> = present.iter().map(|_| Vec::new()).collect();
    let mut skipped: Vec<Option<String>> = present.iter().map(|_| None).collect();
    for round in 0..rounds {
        let mut fresh: Vec<Option<Box<dyn Contender>>> = contenders(ctx, n).into_iter().map(Some).collect();
        let of_rounds = measure::round_label(round, rounds);
        for i in measure::round_order(round, present.len()) {
            let Some(mut contender) = fresh[i].take() else { continue };
            let name = &present[i];
            let slot = names.iter().position(|x| x == name).unwrap_or(0);
            if round == 0 {
                skipped[i] = guards[slot].skip(n);
            }
            if skipped[i].is_some() {
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("peers: {name} on {scene} n={n}{of_rounds}"));
            let started = Instant::now();
            runs[i].push(run_contender(ctx, contender.as_mut(), &rec, size.warm));
            guards[slot].charge(started.elapsed());
            // Dropped before the next contender runs, so that its peak heap is its own.
            drop(contender);
            ctx.progress.finish_one();
        }
    }
    for ((name, runs), skipped) in present.iter().zip(runs).zip(skipped) {
        let slot = names.iter().position(|x| x == name).unwrap_or(0);
        let mut row = Row {
            study: "peers",
            series: name.clone(),
            scenario: scene.into(),
            algorithm: name.clone(),
            n,
            speed: rec.speed,
            dt_mode: DtMode::Fixed,
            metric: Metric::Broadphase,
            warmup: size.warm,
            floor_ms: rec.floor_ms,
            check: "-".into(),
            status: "ok".into(),
            ..Row::default()
        };
        if let Some(why) = skipped {
            row.status = format!("skipped: {why}");
            rows.push(row);
            continue;
        }
        let run = median_run(runs);
        guards[slot].record(n, Summary::of(&run.times).mean);
        guards[slot].record_memory(n, run.peak_bytes);
        row.frames = run.times.len();
        row.time = Summary::of(&run.times);
        row.broadphase_ms = row.time.mean;
        row.pairs = run.mean_pairs;
        row.peak_bytes = run.peak_bytes;
        row.check = run.check;
        row.status = run.status;
        rows.push(row);
    }
    for name in names.iter().filter(|x| !present.contains(x)) {
        rows.push(Row {
            study: "peers",
            series: name.clone(),
            algorithm: name.clone(),
            scenario: scene.into(),
            n,
            metric: Metric::Broadphase,
            check: "-".into(),
            status: format!("skipped: brute force runs only up to {} bodies", ctx.limits.brute_max),
            ..Row::default()
        });
        (0..rounds).for_each(|_| ctx.progress.finish_one());
    }
    Ok(())
}

/// Of one contender's runs over a recording (one a round), what to report: a run whose pairs did not match, so that
/// no round hides a mismatch; else the run with the median mean (of two, the faster), its frames' times the medians
/// over the rounds ([`measure::per_frame_median`]) when every round timed as many frames, and the largest peak heap
/// of any round.
fn median_run(mut runs: Vec<ContenderRun>) -> ContenderRun {
    if let Some(i) = runs.iter().position(|r| r.check.starts_with("MISMATCH")) {
        return runs.swap_remove(i);
    }
    let median = measure::sort_to_median(&mut runs, |r| Summary::of(&r.times).mean);
    let peak = runs.iter().map(|r| r.peak_bytes).max().unwrap_or(0);
    let per_frame = measure::per_frame_median(&runs.iter().map(|r| r.times.as_slice()).collect::<Vec<_>>());
    let mut run = runs.swap_remove(median);
    if let Some(times) = per_frame {
        run.times = times;
    }
    run.peak_bytes = peak;
    run
}

/// What one contender did over a recording.
#[derive(Debug)]
struct ContenderRun {
    /// ms of each measured frame.
    times: Vec<f64>,
    /// Mean pairs per measured frame.
    mean_pairs: f64,
    /// The pair-set verdict over every frame it ran.
    check: String,
    /// The peak heap it added above the baseline.
    peak_bytes: u64,
    /// `ok` or `short: …`.
    status: String,
}

/// Run one contender over the recording: its warm-up frames, then measured frames until the recording ends, a
/// frame exceeds the study's frame limit, or the point's budget is spent (after one measured frame).
fn run_contender(ctx: &Ctx, c: &mut dyn Contender, rec: &Recording, warm: usize) -> ContenderRun {
    let frame_limit = frame_limit(ctx);
    let baseline = alloc::reset_peak();
    let mut out = Vec::new();
    let (mut times, mut pairs, mut bad, mut first_bad) = (Vec::new(), 0.0, 0, None);
    let mut status = String::from("ok");
    let start = Instant::now();
    for (i, boxes) in rec.boxes.iter().enumerate() {
        let t = Instant::now();
        c.find(boxes, i as u64, &mut out);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = measure::diff(&rec.pairs[i], &mut out).into_result() {
            bad += 1;
            first_bad.get_or_insert(format!("frame {i}: {e}"));
        }
        if i >= warm {
            times.push(ms);
            pairs += out.len() as f64;
        }
        if ms > frame_limit {
            status = format!("short: frame {i} took {ms:.0} ms > {frame_limit:.0} ms limit");
            break;
        }
        if !times.is_empty() && start.elapsed() > point_budget(ctx) {
            if i + 1 < rec.boxes.len() && !ctx.quick {
                let (timed, of) = (times.len(), rec.boxes.len() - warm);
                status = format!(
                    "short: point budget of {} s spent after {timed} of {of} timed frames",
                    point_budget(ctx).as_secs()
                );
            }
            break;
        }
    }
    let peak = alloc::peak_above(baseline);
    let checked = times.len() + warm.min(rec.boxes.len());
    let verdict = match first_bad {
        Some(e) => format!("MISMATCH vs {} on {bad} frames, first {e}", rec.driver),
        None => format!("ref ok ({checked} frames vs {}; {})", rec.driver, rec.check),
    };
    let mean_pairs = pairs / times.len().max(1) as f64;
    ContenderRun { times, mean_pairs, check: verdict, peak_bytes: peak, status }
}

/// The charts (time against bodies, one per scene; peak heap on `uniform`) and the report's section.
fn charts(ctx: &mut Ctx, rows: &[Row], names: &[String]) -> Result<(), String> {
    let mut time_charts = Vec::new();
    for &scene in SCENES {
        let mut chart = Chart::new(
            format!("Pair finding alone, same boxes for everyone: `{scene}`, fixed dt"),
            "bodies (log)",
            "broadphase time per frame, ms (log)",
        )
        .log(true, true);
        for name in names {
            let points = measured(rows, scene, name).map(|r| (r.n as f64, r.time.mean)).collect();
            let style = if contenders::is_peer(name) { Style::Dashed } else { Style::Line };
            chart.series.push(Series { label: name.clone(), points, style, color: None });
        }
        let floor = sizes(ctx.quick, scene)
            .iter()
            .filter_map(|s| rows.iter().find(|r| r.scenario == scene && r.n == s.n && r.floor_ms > 0.0))
            .map(|r| (r.n as f64, r.floor_ms))
            .collect();
        chart.series.push(Series::styled("memory floor", floor, Style::Reference, plot::REFERENCE));
        time_charts.push(chart);
    }
    let png = ctx.plot("peers", &time_charts)?;
    let mut memory = Chart::new(
        "Peak heap per algorithm on `uniform` (structures + output pairs)",
        "bodies (log)",
        "peak heap, bytes (log)",
    )
    .log(true, true);
    for name in names {
        let points = measured(rows, "uniform", name).map(|r| (r.n as f64, r.peak_bytes as f64)).collect();
        let style = if contenders::is_peer(name) { Style::Dashed } else { Style::Line };
        memory.series.push(Series { label: name.clone(), points, style, color: None });
    }
    let mem_png = ctx.plot("memory", &[memory])?;
    let driver = ALGORITHMS.iter().find(|a| a.name != "brute").map_or("brute", |a| a.name);
    let mut body = format!(
        "Every contender runs alone over the same recorded frames of each scene (fixed dt; frames recorded from a \
         `{driver}` simulation after warm-up — for `cluster` from step {CLUSTER_FROM}, as its cloud is pulled \
         together); each contender's first frames untimed — on `slow` up to 10⁵ bodies the first {SLOW_WARM}, \
         so that the incremental structures are timed in their steady state; then {timed} timed frames at 10⁴ and \
         10⁵ bodies and {million} at 10⁶ (a point's time budget may end it sooner; its row then says so); mean ms \
         per frame of the pair query, and in brackets its multiple of the memory floor. Peers: \
         `parry-bvh-rebuild` (parry 0.31 `Bvh::from_leaves`, binned, + `traverse_bvtt_single_tree`), \
         `parry-bvh-refit` (rapier's maintenance: update leaves, `refit`, `optimize_incremental`, full traversal), \
         `rstar-join` (rstar 0.13 `bulk_load` + `intersection_candidates_with_other_tree`). Each frame's pairs are \
         compared with the recorded pairs (the driver's, itself checked against brute force up to {} bodies).\n\n{}\n",
        ctx.limits.check_max,
        report::image(&png, "peers"),
        timed = if ctx.quick { 7 } else { TIMED },
        million = MILLION_FRAMES - 2,
    );
    body.push_str(&super::peers_targets::section(rows));
    for &scene in SCENES {
        body.push_str(&scene_table(ctx, rows, names, scene));
    }
    body.push_str(&format!(
        "\n### Peak memory\n\nThe heap each contender added at its worst moment (structures and output pairs), on \
         `uniform`, and at {} bodies in `{FAR}` (eight clusters at the corners of a container 1000 cluster widths \
         wide) beside `uniform` at as many: a structure sized by the world rather than by its bodies shows there.\n\n\
         {}\n\n{}{}",
        report::count(sizes(ctx.quick, FAR)[0].n),
        report::image(&mem_png, "memory"),
        memory_table(ctx, rows, names),
        report::stops(rows)
    ));
    ctx.sections.push(Section { title: "Peers on every scene, the memory floor and peak memory".into(), body });
    Ok(())
}

/// The measured rows of `name` on `scene`, by size.
fn measured<'a>(rows: &'a [Row], scene: &'a str, name: &'a str) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| r.scenario == scene && r.algorithm == name && r.measured())
}

/// One scene's table: a row per contender, a column per size (ms and the floor multiple), and its checks.
fn scene_table(ctx: &Ctx, rows: &[Row], names: &[String], scene: &str) -> String {
    let ns: Vec<usize> = sizes(ctx.quick, scene).iter().map(|s| s.n).collect();
    let mut header = vec!["algorithm".to_owned()];
    header.extend(ns.iter().map(|&n| report::count(n)));
    header.push("pairs".into());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let lines = names.iter().map(|name| {
        let mut line = vec![format!("`{name}`")];
        line.extend(ns.iter().map(|&n| {
            measured(rows, scene, name)
                .find(|r| r.n == n)
                .map_or("—".into(), |r| format!("{} (×{:.0})", report::ms(r.time.mean), r.floor_multiple()))
        }));
        let checks: Vec<&str> =
            rows.iter().filter(|r| r.scenario == scene && &r.algorithm == name).map(|r| r.check.as_str()).collect();
        line.push(report::check_summary(&checks));
        line
    });
    let floor: Vec<String> = ns
        .iter()
        .map(|&n| {
            rows.iter()
                .find(|r| r.scenario == scene && r.n == n && r.floor_ms > 0.0)
                .map_or("—".into(), |r| report::ms(r.floor_ms))
        })
        .collect();
    format!(
        "\n### `{scene}`\n\n{}\nMemory floor (ms per frame): {}.\n",
        report::table(&header, lines),
        floor.join(", ")
    )
}

/// Peak heap: on `uniform` at every size, and in the huge world beside `uniform` at its size.
fn memory_table(ctx: &Ctx, rows: &[Row], names: &[String]) -> String {
    let ns: Vec<usize> = sizes(ctx.quick, "uniform").iter().map(|s| s.n).collect();
    let far_n = sizes(ctx.quick, FAR)[0].n;
    let mut header = vec!["algorithm".to_owned()];
    header.extend(ns.iter().map(|&n| format!("uniform {}", report::count(n))));
    header.push(format!("{FAR} {}", report::count(far_n)));
    header.push(format!("{FAR} / uniform at {}", report::count(far_n)));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let peak = |scene: &str, name: &str, n: usize| measured(rows, scene, name).find(|r| r.n == n).map(|r| r.peak_bytes);
    let lines = names.iter().map(|name| {
        let mut line = vec![format!("`{name}`")];
        line.extend(ns.iter().map(|&n| peak("uniform", name, n).map_or("—".into(), report::bytes)));
        let far = peak(FAR, name, far_n);
        line.push(far.map_or("—".into(), report::bytes));
        line.push(match (far, peak("uniform", name, far_n)) {
            (Some(f), Some(u)) if u > 0 => format!("{:.2}", f as f64 / u as f64),
            _ => "—".into(),
        });
        line
    });
    report::table(&header, lines)
}

#[cfg(test)]
mod tests;
