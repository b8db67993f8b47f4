//! Cost against body count on the thesis's workload: collision detection off (the thesis's figure 5.1), every
//! registered algorithm's relative dt with the seed program's figures beside it (5.2–5.5, 5.8), and all of them
//! on one chart (5.12).

use super::measure::{self, SeriesGuard, SimPoint};
use super::plot::{self, Chart, Series, Style};
use super::reference;
use super::report::{self, Section};
use super::rows::{self, DtMode, Metric, Row};
use super::{Ctx, alloc};
use collide_algorithms::{ALGORITHMS, Params};
use collide_math::{Aabb, Vec3};
use collide_sim::{Simulation, Summary};
use std::time::Instant;

/// The scenario whose workload the seed program's figures share.
pub const SCENARIO: &str = "thesis";

/// Collision detection off: integrate, build the boxes, bounce off the walls — the sim's own code for those
/// phases, stepped here on `Simulation::bodies_mut` so that no broadphase runs at all.
pub fn off(ctx: &mut Ctx) -> Result<(), String> {
    let sizes: Vec<usize> = if ctx.quick {
        vec![250, 1000, 5000]
    } else {
        vec![1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]
    };
    ctx.progress.plan(sizes.len());
    let mut rows = Vec::new();
    for &n in &sizes {
        ctx.progress.start(&format!("off: integrate+boxes+walls n={n}"));
        rows.push(off_point(ctx, n)?);
        ctx.progress.finish_one();
    }
    ctx.write_rows("off", &rows)?;
    off_section(ctx, &rows, &sizes)
}

/// One size of the collision-detection-off study.
fn off_point(ctx: &Ctx, n: usize) -> Result<Row, String> {
    let brute = collide_algorithms::find("brute").map_err(|e| e.to_string())?;
    let cfg = measure::config(SCENARIO, n, None, brute, &Params::defaults(brute.params), false);
    let baseline = alloc::reset_peak();
    let mut sim = measure::simulation(&cfg)?;
    let mut aabbs = Vec::with_capacity(n);
    let dt = collide_timing::FRAME_60HZ;
    let warmup = ctx.warmup();
    for _ in 0..warmup {
        step_without_cd(&mut sim, &mut aabbs, dt);
    }
    let (mut times, mut floor) = (Vec::new(), Vec::new());
    let hash_step = warmup + ctx.limits.min_frames;
    let mut state_hash = 0;
    let start = Instant::now();
    for i in 0..ctx.limits.max_frames {
        times.push(step_without_cd(&mut sim, &mut aabbs, dt));
        if i % 8 == 0 {
            floor.push(measure::floor_ms(&aabbs));
        }
        if warmup + i + 1 == hash_step {
            state_hash = sim.state_hash();
        }
        if i + 1 >= ctx.limits.min_frames && start.elapsed() > ctx.limits.point {
            break;
        }
    }
    Ok(Row {
        study: "off",
        series: "collision detection off".into(),
        scenario: SCENARIO.into(),
        algorithm: "none".into(),
        n,
        speed: sim.setup().speed,
        dt_mode: DtMode::Fixed,
        metric: Metric::NoCdStep,
        warmup,
        frames: times.len(),
        time: Summary::of(&times),
        floor_ms: Summary::of(&floor).p50,
        peak_bytes: alloc::peak_above(baseline),
        hash_step,
        state_hash,
        check: "-".into(),
        status: "ok".into(),
        ..Row::default()
    })
}

/// The collision-detection-off study's chart and report section.
fn off_section(ctx: &mut Ctx, rows: &[Row], sizes: &[usize]) -> Result<(), String> {
    let x = (sizes[0] as f64, sizes[sizes.len() - 1] as f64);
    let mut chart = Chart::new(
        "Step cost with collision detection off (integrate + boxes + walls), thesis scene, fixed dt",
        "bodies (log)",
        "relative dt = step time / 16.67 ms (log)",
    )
    .log(true, true);
    let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.n as f64, r.relative_dt())).collect();
    chart.series.push(Series::line("step without collision detection", pts.clone()));
    let floor: Vec<(f64, f64)> =
        rows.iter().map(|r| (r.n as f64, collide_timing::relative_dt_ms(r.floor_ms))).collect();
    chart.series.push(Series::styled(
        "memory floor: read the box array once",
        floor,
        Style::Reference,
        plot::REFERENCE,
    ));
    chart.add_fps_lines(x, pts.first().copied());
    let png = ctx.plot("off", &[chart])?;
    let table = report::table(
        &["bodies", "mean ms", "p95 ms", "relative dt", "floor ms", "× floor"],
        rows.iter().map(|r| {
            vec![
                r.n.to_string(),
                report::ms(r.time.mean),
                report::ms(r.time.p95),
                format!("{:.4}", r.relative_dt()),
                report::ms(r.floor_ms),
                format!("{:.1}", r.floor_multiple()),
            ]
        }),
    );
    ctx.sections.push(Section {
        title: "Collision detection off".into(),
        body: format!(
            "Integrate, boxes and walls only (the sim's code for those phases, stepped by the bench with no \
             broadphase), thesis scene, fixed dt. The thesis's figure 5.1 (rendering off).\n\n{}\n\n{table}",
            report::image(&png, "collision detection off")
        ),
    });
    Ok(())
}

/// One step with collision detection off: the sim's integrate, AABB and wall phases. Returns its ms.
fn step_without_cd(sim: &mut Simulation, aabbs: &mut Vec<Aabb>, dt: f32) -> f64 {
    let t = Instant::now();
    let (container, e, g) = (sim.setup().container, sim.setup().restitution, sim.setup().gravity * dt);
    let b = sim.bodies_mut();
    for (p, v) in b.position.iter_mut().zip(&mut b.velocity) {
        *v += g;
        *p += *v * dt;
    }
    aabbs.clear();
    aabbs.extend(b.position.iter().zip(&b.radius).map(|(&p, &r)| Aabb::from_center_radius(p, r)));
    for ((p, v), &r) in b.position.iter_mut().zip(&mut b.velocity).zip(&b.radius) {
        collide_resolution::wall(p, v, Vec3::splat(r), &container, e);
    }
    t.elapsed().as_secs_f64() * 1e3
}

/// Every registered algorithm at every size of the mode, thesis scene, fixed dt, default parameters.
pub fn scaling(ctx: &mut Ctx) -> Result<(), String> {
    let sizes = ctx.sizes();
    ctx.progress.plan(sizes.len() * ALGORITHMS.len());
    let mut rows = Vec::new();
    for algorithm in ALGORITHMS {
        let mut guard = SeriesGuard::new(&ctx.limits);
        for &n in &sizes {
            let point = SimPoint {
                study: "scaling",
                series: algorithm.name.into(),
                scenario: SCENARIO,
                algorithm,
                params: Params::defaults(algorithm.params),
                n,
                speed: None,
                resolution: true,
                warmup: ctx.warmup(),
                max_frames: ctx.limits.max_frames,
                keep_frames: false,
            };
            let skip = if algorithm.name == "brute" && n > ctx.limits.brute_max {
                Some(format!("brute force runs only up to {} bodies", ctx.limits.brute_max))
            } else {
                guard.skip(n)
            };
            if let Some(why) = skip {
                rows.push(measure::skipped(&point, &why));
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("scaling: {} n={n}", algorithm.name));
            let (row, _) = measure::run_sim_point(&point, &ctx.limits)?;
            guard.record(n, row.time.mean);
            if row.status != "ok" {
                ctx.progress.say(&format!("bench: scaling {} n={n}: {}", algorithm.name, row.status));
            }
            rows.push(row);
            ctx.progress.finish_one();
        }
    }
    rows::cross_check_hashes(&mut rows, |r| r.n.to_string());
    ctx.note_mismatches(&rows);
    ctx.write_rows("scaling", &rows)?;
    plots(ctx, &rows, &sizes)
}

fn plots(ctx: &mut Ctx, rows: &[Row], sizes: &[usize]) -> Result<(), String> {
    let seed = reference::load();
    let x = (sizes[0] as f64, sizes[sizes.len() - 1] as f64);
    let mut images = Vec::new();
    let mut all = Chart::new(
        "All algorithms: relative dt vs bodies, thesis scene, fixed dt (whole step)",
        "bodies (log)",
        "relative dt = step time / 16.67 ms (log)",
    )
    .log(true, true);
    let mut floors = Chart::new(
        "All algorithms: broadphase time as a multiple of the memory floor (reading the box array once)",
        "bodies (log)",
        "broadphase time / floor time (log)",
    )
    .log(true, true);
    for algorithm in ALGORITHMS {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.algorithm == algorithm.name && r.measured()).collect();
        let pts: Vec<(f64, f64)> = mine.iter().map(|r| (r.n as f64, r.relative_dt())).collect();
        let p95: Vec<(f64, f64)> =
            mine.iter().map(|r| (r.n as f64, collide_timing::relative_dt_ms(r.time.p95))).collect();
        all.series.push(Series::line(algorithm.name, pts.clone()));
        let floor: Vec<(f64, f64)> = mine.iter().map(|r| (r.n as f64, r.broadphase_ms / r.floor_ms)).collect();
        floors.series.push(Series::line(algorithm.name, floor));
        let mut chart = Chart::new(
            format!("{}: relative dt vs bodies, thesis scene, fixed dt (whole step)", algorithm.name),
            "bodies (log)",
            "relative dt = step time / 16.67 ms (log)",
        )
        .log(true, true);
        chart.series.push(Series::line(format!("collide {} (mean)", algorithm.name), pts.clone()));
        chart.series.push(Series::styled(format!("collide {} (p95)", algorithm.name), p95, Style::Dashed, plot::P95));
        let seed_pts: Vec<(f64, f64)> = reference::series(&seed, algorithm.name, 1.0)
            .into_iter()
            .map(|(n, ms)| (n, collide_timing::relative_dt_ms(ms)))
            .collect();
        if !seed_pts.is_empty() {
            chart.series.push(Series::styled(
                "seed program (C++ -O2, mean, shared/reference)",
                seed_pts,
                Style::Reference,
                plot::REFERENCE,
            ));
        }
        chart.add_fps_lines(x, pts.first().copied());
        images.push(ctx.plot(&format!("scaling-{}", algorithm.name), &[chart])?);
    }
    all.add_fps_lines(x, None);
    let all_png = ctx.plot("scaling-all", &[all, floors])?;

    ctx.summary = summary(rows, sizes, &seed);
    let mut body = format!(
        "Each algorithm's relative dt against body count with the thesis's reference lines (linear from the first \
         point, 60 fps, 30 fps) and the seed program's figures where it has the algorithm. Brute force runs up to \
         {} bodies.\n\n{}\n",
        ctx.limits.brute_max,
        report::image(&all_png, "all algorithms")
    );
    for png in &images {
        body.push_str(&report::image(png, png));
        body.push('\n');
    }
    ctx.sections.push(Section { title: "Relative dt vs body count (all algorithms)".into(), body });
    Ok(())
}

/// The report's summary: mean ms per step by algorithm and size, the seed program's figures beside ours.
fn summary(rows: &[Row], sizes: &[usize], seed: &[reference::Figure]) -> String {
    let mut header = vec!["algorithm".to_owned()];
    header.extend(sizes.iter().map(|n| report::count(*n)));
    header.push("pair check".into());
    let mut table_rows = Vec::new();
    for algorithm in ALGORITHMS {
        let mut line = vec![format!("`{}`", algorithm.name)];
        for &n in sizes {
            let cell = rows.iter().find(|r| r.algorithm == algorithm.name && r.n == n);
            line.push(match cell {
                Some(r) if r.measured() => report::ms(r.time.mean),
                _ => "—".into(),
            });
        }
        let checks: Vec<&str> =
            rows.iter().filter(|r| r.algorithm == algorithm.name).map(|r| r.check.as_str()).collect();
        line.push(report::check_summary(&checks));
        table_rows.push(line);
        let seed_pts = reference::series(seed, algorithm.name, 1.0);
        if !seed_pts.is_empty() {
            let mut line = vec![format!("seed program's {}", algorithm.name)];
            for &n in sizes {
                let v = seed_pts.iter().find(|(sn, _)| *sn as usize == n);
                line.push(v.map_or("—".into(), |(_, ms)| report::ms(*ms)));
            }
            line.push(String::new());
            table_rows.push(line);
        }
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let table = report::table(&header, table_rows);
    let stops = report::stops(rows);
    format!(
        "Mean ms per whole simulation step (integrate, boxes, broadphase, narrowphase, response, walls), thesis \
         scene, fixed dt of 1/60 s, default parameters; relative dt = ms / 16.67. The seed program's rows are its \
         own figures on a machine like this one (`shared/reference/seed-program.csv`, ±30%).\n\n{table}\n{stops}"
    )
}
