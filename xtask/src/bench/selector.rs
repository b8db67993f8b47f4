//! `selector`: the meta-broadphase `auto` against every pinned candidate and two oracles, in the same run.
//!
//! - **The tour** (`tour` scenario: uniform, cluster, released, slow drift, 90% at rest, growth, doubled count;
//!   300 steps a phase) at 100 000 bodies: auto and every candidate pinned, each step's broadphase time. The
//!   *per-phase oracle* is the best pinned candidate's time in each phase, summed over the phases; the
//!   *per-frame oracle* the minimum over pinned candidates frame by frame, summed. Every run follows the same
//!   trajectory (the pairs are identical, so the state is; the final state hashes are compared).
//! - **Every registry scenario** at 10 000 and 100 000 bodies: auto's mean broadphase time against each
//!   candidate's.
//!
//! Writes `selector.csv` (one row per run), `selector-tour-frames.csv` (per step: phase, every run's time,
//! auto's active candidate), `selector-tour.png` (per-step time of auto and each candidate, auto's active
//! candidate as a coloured band) and `selector-decisions.csv` (auto's decision log on the tour).

use super::Ctx;
use super::measure::{self, check_against_brute};
use super::plot::{Band, Chart, Series};
use super::report::{self, Section};
use super::rows::{DtMode, Metric, Row};
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_selector::{EXCLUDED, NAME, Selector, Totals};
use collide_sim::{Phase, Simulation, Summary};
use std::fmt::Write as _;

/// One step of one run.
#[derive(Clone, Copy, Debug)]
struct Step {
    phase: &'static str,
    ms: f64,
    /// The candidate that answered (the algorithm itself when pinned).
    active: &'static str,
}

/// One run of one algorithm through one scene.
#[derive(Clone, Debug)]
struct Run {
    algorithm: &'static str,
    steps: Vec<Step>,
    hash: u64,
    /// auto's totals and decision log (CSV), when the run was auto.
    auto: Option<(Totals, String)>,
    check: String,
}

impl Run {
    fn total(&self) -> f64 {
        self.steps.iter().map(|s| s.ms).sum()
    }

    fn phase_total(&self, phase: &str) -> f64 {
        self.steps.iter().filter(|s| s.phase == phase).map(|s| s.ms).sum()
    }
}

/// The candidates `auto` chooses from by default, each of which runs pinned.
fn pinned() -> Vec<&'static AlgorithmDescriptor> {
    ALGORITHMS.iter().filter(|d| !EXCLUDED.contains(&d.name)).collect()
}

fn auto() -> &'static AlgorithmDescriptor {
    collide_algorithms::find(NAME).expect("auto is registered")
}

/// Run `algorithm` on `scenario` with `n` bodies for `warmup + steps` steps, response off for the tour (as in
/// `configs/tour.toml`), checking pairs against brute force on `checks` steps.
fn run(
    scenario: &'static str,
    n: usize,
    algorithm: &'static AlgorithmDescriptor,
    warmup: usize,
    steps: usize,
    checks: &[usize],
) -> Result<Run, String> {
    let mut cfg = measure::config(scenario, n, None, algorithm, &Params::defaults(algorithm.params), false);
    cfg.resolution = scenario != "tour";
    let mut sim = measure::simulation(&cfg)?;
    let dt = collide_timing::FRAME_60HZ;
    let mut out = Vec::with_capacity(steps);
    let mut verdicts = Vec::new();
    for i in 0..warmup + steps {
        let r = *sim.step(dt);
        if checks.contains(&i) {
            verdicts.push(check_against_brute(sim.aabbs(), sim.pairs()));
        }
        if i >= warmup {
            out.push(Step { phase: r.phase, ms: r.phases.get(Phase::Broadphase), active: r.algorithm });
        }
    }
    let auto = selector(&sim).map(|s| (*s.totals(), s.decisions().to_csv(s.candidate_names())));
    Ok(Run { algorithm: algorithm.name, steps: out, hash: sim.state_hash(), auto, check: measure::verdict(&verdicts) })
}

fn selector(sim: &Simulation) -> Option<&Selector> {
    sim.broadphase().as_any()?.downcast_ref()
}

/// The `selector` study.
pub fn selector_study(ctx: &mut Ctx) -> Result<(), String> {
    let candidates = pinned();
    let tour_n = if ctx.quick { 2000 } else { 100_000 };
    let sizes: Vec<usize> = if ctx.quick { vec![2000] } else { vec![10_000, 100_000] };
    let scenarios: Vec<&'static str> =
        collide_sim::SCENARIOS.iter().filter(|s| !s.fixed_bodies && s.name != "tour").map(|s| s.name).collect();
    ctx.progress.plan((1 + candidates.len()) * (1 + scenarios.len() * sizes.len()));
    let mut rows = Vec::new();

    // The tour.
    let tour_steps = tour_steps();
    // Brute force checks a step in the middle of every phase where it is affordable.
    let checks: Vec<usize> = if tour_n <= ctx.limits.check_max {
        tour_phase_starts().iter().map(|s| s + 150).filter(|&s| s < tour_steps).collect()
    } else {
        Vec::new()
    };
    let mut tour = Vec::new();
    for algorithm in std::iter::once(auto()).chain(candidates.iter().copied()) {
        ctx.progress.start(&format!("selector: tour {} n={tour_n}, {tour_steps} steps", algorithm.name));
        tour.push(run("tour", tour_n, algorithm, 0, tour_steps, &checks)?);
        ctx.progress.finish_one();
    }
    cross_check(&mut tour);
    for r in &tour {
        rows.push(row("tour", tour_n, r));
    }
    ctx.write_text("selector-tour-frames.csv", &frames_csv(&tour))?;
    if let Some((_, decisions)) = &tour[0].auto {
        ctx.write_text("selector-decisions.csv", decisions)?;
    }
    let plot = ctx.plot("selector-tour", &[tour_chart(&tour, tour_n)])?;
    let mut body = tour_section(&tour, tour_n, &plot);

    // Every scenario at each size.
    let (warmup, steps) = (ctx.warmup(), if ctx.quick { 60 } else { 300 });
    let mut table = Vec::new();
    for scenario in &scenarios {
        for &n in &sizes {
            let mut runs = Vec::new();
            let checks: Vec<usize> = if n <= ctx.limits.check_max { vec![warmup + steps - 1] } else { Vec::new() };
            for algorithm in std::iter::once(auto()).chain(candidates.iter().copied()) {
                ctx.progress.start(&format!("selector: {scenario} {} n={n}", algorithm.name));
                runs.push(run(scenario, n, algorithm, warmup, steps, &checks)?);
                ctx.progress.finish_one();
            }
            cross_check(&mut runs);
            for r in &runs {
                rows.push(row(scenario, n, r));
            }
            table.push(scenario_line(scenario, n, &runs));
        }
    }
    body.push_str(&scenario_section(table, steps));
    ctx.note_mismatches(&rows);
    ctx.write_rows("selector", &rows)?;
    ctx.sections
        .push(Section { title: "The meta-broadphase `auto` against pinned candidates and oracles".into(), body });
    Ok(())
}

/// Steps of the tour: its phases end to end.
pub(super) fn tour_steps() -> usize {
    let phases = tour_phase_starts();
    phases.last().map_or(0, |last| last + collide_sim::TOUR_PHASE_STEPS as usize)
}

/// The first step of each of the tour's phases.
fn tour_phase_starts() -> Vec<usize> {
    let tour = collide_sim::find_scenario("tour").expect("the tour is registered");
    tour.phases.iter().map(|p| p.start as usize).collect()
}

/// Every run of one scene follows the same trajectory, so their state hashes must agree; a run whose hash
/// differs from the first run's gets `MISMATCH` in its check (the pairs it found differed).
fn cross_check(runs: &mut [Run]) {
    let Some(first) = runs.first().map(|r| r.hash) else { return };
    for r in runs.iter_mut() {
        if r.hash != first {
            r.check = format!("MISMATCH: state hash {:016x} differs from {:016x}", r.hash, first);
        } else if r.check == "-" {
            r.check = "hash ok".into();
        } else {
            r.check.push_str(" + hash ok");
        }
    }
}

fn row(scenario: &str, n: usize, r: &Run) -> Row {
    let ms: Vec<f64> = r.steps.iter().map(|s| s.ms).collect();
    let params = match &r.auto {
        Some((t, _)) => format!(
            "switches={} probes={} probe_ms={:.1} overhead_ms={:.1}",
            t.switches, t.probes, t.probe_ms, t.overhead_ms
        ),
        None => String::new(),
    };
    Row {
        study: "selector",
        series: r.algorithm.into(),
        scenario: scenario.into(),
        algorithm: r.algorithm.into(),
        params,
        n,
        speed: f32::NAN,
        dt_mode: DtMode::Fixed,
        metric: Metric::Broadphase,
        frames: ms.len(),
        time: Summary::of(&ms),
        broadphase_ms: Summary::of(&ms).mean,
        state_hash: r.hash,
        check: r.check.clone(),
        status: "ok".into(),
        ..Row::default()
    }
}

fn frames_csv(runs: &[Run]) -> String {
    let mut text = String::from("step,phase,auto_active");
    for r in runs {
        let _ = write!(text, ",{}_ms", r.algorithm);
    }
    text.push('\n');
    for (i, step) in runs[0].steps.iter().enumerate() {
        let _ = write!(text, "{i},{},{}", step.phase, step.active);
        for r in runs {
            let _ = write!(text, ",{:.4}", r.steps.get(i).map_or(f64::NAN, |s| s.ms));
        }
        text.push('\n');
    }
    text
}

/// Per-step time of every run (a 15-step moving median, so the lines can be told apart), auto's active
/// candidate as a band along the bottom.
fn tour_chart(runs: &[Run], n: usize) -> Chart {
    let mut chart = Chart::new(
        format!(
            "The tour at {} bodies: broadphase time per step (15-step moving median); band: auto's active candidate",
            report::count(n)
        ),
        "step",
        "broadphase ms",
    )
    .log(false, true);
    for r in runs {
        let ms: Vec<f64> = r.steps.iter().map(|s| s.ms).collect();
        let points = ms.iter().enumerate().map(|(i, _)| (i as f64, moving_median(&ms, i, 7))).collect();
        let mut s = Series::line(r.algorithm, points);
        if r.algorithm == NAME {
            s.color = Some(super::plot::REFERENCE);
        }
        chart.series.push(s);
    }
    let mut start = 0;
    let steps = &runs[0].steps;
    for i in 1..=steps.len() {
        if i == steps.len() || steps[i].active != steps[start].active {
            chart.bands.push(Band { from: start as f64, to: i as f64, label: steps[start].active.into() });
            start = i;
        }
    }
    chart
}

fn moving_median(v: &[f64], i: usize, half: usize) -> f64 {
    let mut w: Vec<f64> = v[i.saturating_sub(half)..(i + half + 1).min(v.len())].to_vec();
    w.sort_by(f64::total_cmp);
    w[w.len() / 2]
}

/// The phases in the order the tour runs them.
fn phases(run: &Run) -> Vec<&'static str> {
    let mut phases: Vec<&'static str> = Vec::new();
    for s in &run.steps {
        if phases.last() != Some(&s.phase) {
            phases.push(s.phase);
        }
    }
    phases
}

/// The tour's section: per phase, every run's total and the winner; the oracles; auto's ratios, switches and
/// spikes.
fn tour_section(runs: &[Run], n: usize, plot: &str) -> String {
    let auto = &runs[0];
    let pinned = &runs[1..];
    let phases = phases(auto);
    let mut body = format!(
        "### The tour at {} bodies\n\nEach phase is {} steps; response off (`configs/tour.toml`), fixed dt. \
         Broadphase ms summed over each phase, for auto and every candidate pinned; **bold** is the phase's \
         winner among the pinned runs. Per-step times: `selector-tour-frames.csv`; auto's decisions: \
         `selector-decisions.csv`.\n\n{}\n\n",
        report::count(n),
        collide_sim::TOUR_PHASE_STEPS,
        report::image(plot, "the tour")
    );
    let mut header = vec!["phase"];
    header.extend(pinned.iter().map(|r| r.algorithm));
    header.extend(["auto", "auto / phase winner", "auto switches"]);
    let mut per_phase_oracle = 0.0;
    let mut table = Vec::new();
    for phase in &phases {
        let totals: Vec<f64> = pinned.iter().map(|r| r.phase_total(phase)).collect();
        let best = totals.iter().copied().fold(f64::INFINITY, f64::min);
        per_phase_oracle += best;
        let mut line = vec![format!("`{phase}`")];
        line.extend(totals.iter().map(|&t| if t == best { format!("**{}**", report::ms(t)) } else { report::ms(t) }));
        let a = auto.phase_total(phase);
        line.push(report::ms(a));
        line.push(format!("{:.2}", a / best));
        line.push(switches_in(auto, phase).to_string());
        table.push(line);
    }
    let totals: Vec<f64> = pinned.iter().map(Run::total).collect();
    let best_single = totals.iter().copied().fold(f64::INFINITY, f64::min);
    let best_name = pinned[totals.iter().position(|&t| t == best_single).unwrap_or(0)].algorithm;
    let mut line = vec!["**total**".to_owned()];
    line.extend(totals.iter().map(|&t| report::ms(t)));
    line.push(format!("**{}**", report::ms(auto.total())));
    line.push(format!("{:.2}", auto.total() / per_phase_oracle));
    line.push(switches_total(auto).to_string());
    table.push(line);
    body.push_str(&report::table(&header, table));
    let per_frame_oracle: f64 =
        (0..auto.steps.len()).map(|i| pinned.iter().map(|r| r.steps[i].ms).fold(f64::INFINITY, f64::min)).sum();
    let (spike, spike_at) = switch_spike(auto);
    let mut winners: Vec<&str> = phases
        .iter()
        .map(|p| {
            let t: Vec<f64> = pinned.iter().map(|r| r.phase_total(p)).collect();
            let best = t.iter().copied().fold(f64::INFINITY, f64::min);
            pinned[t.iter().position(|&x| x == best).unwrap_or(0)].algorithm
        })
        .collect();
    winners.sort_unstable();
    winners.dedup();
    let _ = writeln!(
        body,
        "\n- **auto: {} ms**; per-phase oracle {} ms (**auto / per-phase oracle = {:.3}**); per-frame oracle {} ms \
         (auto / per-frame oracle = {:.3}).\n- Best single pinned candidate: `{best_name}`, {} ms: **auto's gain over it \
         = {:.3}×** (AutoPas reports up to 1.25× over the best fixed choice).\n- Phase winners among the pinned runs: \
         {} distinct ({}).\n- Switches: {} over {} phases ({:.1} per phase); the highest switch step took {spike:.2}× \
         the median of the 10 steps before it{}.",
        report::ms(auto.total()),
        report::ms(per_phase_oracle),
        auto.total() / per_phase_oracle,
        report::ms(per_frame_oracle),
        auto.total() / per_frame_oracle,
        report::ms(best_single),
        best_single / auto.total(),
        winners.len(),
        winners.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", "),
        switches_total(auto),
        phases.len(),
        switches_total(auto) as f64 / phases.len().max(1) as f64,
        spike_at.map_or(String::new(), |s| format!(" (step {s})")),
    );
    if let Some((t, _)) = &auto.auto {
        let all = t.active_ms + t.probe_ms + t.overhead_ms;
        let _ = writeln!(
            body,
            "- auto's own overhead (features, model, log): {:.2}% of its broadphase time; probes: {} of them, {:.1}%.",
            100.0 * t.overhead_ms / all,
            t.probes,
            100.0 * t.probe_ms / all
        );
    }
    body.push('\n');
    body
}

/// auto's switches whose first step (the newcomer's) lies in `phase`.
fn switches_in(run: &Run, phase: &str) -> usize {
    run.steps.windows(2).filter(|w| w[1].phase == phase && w[0].active != w[1].active).count()
}

fn switches_total(run: &Run) -> usize {
    run.steps.windows(2).filter(|w| w[0].active != w[1].active).count()
}

/// The largest ratio of a switch's steps (the last step of the old candidate, which ends the probe, and the
/// newcomer's first) to the median of the 10 steps before, and where.
fn switch_spike(run: &Run) -> (f64, Option<usize>) {
    let mut worst = (0.0, None);
    for i in 11..run.steps.len() {
        if run.steps[i].active == run.steps[i - 1].active {
            continue;
        }
        let before: Vec<f64> = run.steps[i - 11..i - 1].iter().map(|s| s.ms).collect();
        let median = Summary::of(&before).p50;
        for at in [i - 1, i] {
            let ratio = run.steps[at].ms / median.max(1e-9);
            if ratio > worst.0 {
                worst = (ratio, Some(at));
            }
        }
    }
    worst
}

/// One line of the scenario table: the best pinned candidate and auto.
fn scenario_line(scenario: &str, n: usize, runs: &[Run]) -> Vec<String> {
    let mean = |r: &Run| r.total() / r.steps.len().max(1) as f64;
    let auto = &runs[0];
    let best = runs[1..].iter().min_by(|a, b| mean(a).total_cmp(&mean(b))).expect("candidates");
    let worst = runs[1..].iter().map(mean).fold(0.0, f64::max);
    let mut used: Vec<&str> = auto.steps.iter().map(|s| s.active).collect();
    used.dedup();
    vec![
        format!("`{scenario}`"),
        report::count(n),
        format!("`{}` {}", best.algorithm, report::ms(mean(best))),
        report::ms(worst),
        report::ms(mean(auto)),
        format!("**{:.2}**", mean(auto) / mean(best)),
        used.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(" → "),
        if runs.iter().all(|r| !r.check.starts_with("MISMATCH")) { "ok".into() } else { "**MISMATCH**".into() },
    ]
}

fn scenario_section(table: Vec<Vec<String>>, steps: usize) -> String {
    let mut body = format!(
        "### Every scenario\n\nMean broadphase ms over {steps} steps after warm-up, fixed dt, default response. \
         auto / best is auto's mean over the best pinned candidate's (the target is at most 1.15).\n\n"
    );
    body.push_str(&report::table(
        &["scenario", "bodies", "best pinned", "worst pinned", "auto", "auto / best", "auto ran", "pairs"],
        table,
    ));
    body.push('\n');
    body
}
