//! The `selector` study's outputs: its CSVs, its plots and its section of `report.md` — per scene auto against
//! the best pinned candidate with issue 30's targets marked, what auto ran, the regret table, the prior's frame-0
//! pick, and the whole tour with its oracles.

use super::Ctx;
use super::live::Outcome;
use super::plot::{self, Band, Chart, Series, Style};
use super::report::{self, Section};
use super::rows::{DtMode, Metric, Row};
use super::selector_judge::{self as judge, Pass, RegretColumn, Times, TourVerdict, Verdict};
use super::selector_scenes::{HITCH, HITCH_FROM, Run, SceneRuns, Source, TOUR_FULL, Target};
use collide_sim::Summary;
use std::fmt::Write as _;

/// A scene's runs with their times as slices, and the judge's figures.
struct Judged<'a> {
    runs: &'a SceneRuns,
    auto_ms: Vec<f64>,
    pinned_ms: Vec<Vec<f64>>,
    verdict: Option<Verdict>,
    column: Option<RegretColumn>,
    tour: Option<TourVerdict>,
}

impl<'a> Judged<'a> {
    fn new(runs: &'a SceneRuns) -> Self {
        let auto_ms = runs.auto.outcome.ms();
        let pinned_ms: Vec<Vec<f64>> = runs.pinned.iter().map(|r| r.outcome.ms()).collect();
        let mut j = Self { runs, auto_ms, pinned_ms, verdict: None, column: None, tour: None };
        let pinned = j.pinned_times();
        let auto = Times { ms: &j.auto_ms, complete: runs.auto.outcome.complete() };
        let verdict = judge::judge(auto, &pinned, runs.scene.target);
        let column = judge::regret_column(&runs.scene.label(), &j.auto_ms, &pinned);
        let tour = match runs.scene.target {
            Target::Tour { .. } => {
                let phases: Vec<&str> = runs.auto.outcome.steps.iter().map(|s| s.phase.as_str()).collect();
                judge::tour(&phases, auto, &pinned)
            }
            Target::Mean(_) => None,
        };
        (j.verdict, j.column, j.tour) = (verdict, column, tour);
        j
    }

    fn pinned_times(&self) -> Vec<Times<'_>> {
        self.runs
            .pinned
            .iter()
            .zip(&self.pinned_ms)
            .map(|(r, ms)| Times { ms, complete: r.outcome.complete() })
            .collect()
    }

    fn best_name(&self) -> Option<&str> {
        self.verdict.as_ref().map(|v| self.runs.pinned[v.best].outcome.algorithm.as_str())
    }
}

/// Write the CSVs, the plots and the section.
pub fn write(ctx: &mut Ctx, results: &[SceneRuns], version: &str) -> Result<(), String> {
    let judged: Vec<Judged<'_>> = results.iter().map(Judged::new).collect();
    write_csvs(ctx, results, &judged)?;
    let mut body = intro(ctx, results, version);
    body.push_str(&targets_summary(&judged));
    let mut plots = String::new();
    let mut sizes: Vec<usize> = results.iter().map(|r| r.scene.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for n in sizes {
        let class: Vec<&Judged<'_>> = judged.iter().filter(|j| j.runs.scene.n == n).collect();
        let file = ctx.plot(&format!("selector-{}", report::count(n)), &class_charts(&class, n))?;
        let _ = write!(
            plots,
            "{}\n\n",
            report::image(&file, &format!("auto against the best pinned at {}", report::count(n)))
        );
    }
    body.push_str(&scene_table(&judged));
    body.push_str(&plots);
    body.push_str(&auto_table(&judged));
    body.push_str(&first_pick(&judged));
    body.push_str(&regret_table(&judged));
    for j in judged.iter().filter(|j| j.runs.scene.name == TOUR_FULL) {
        let file = ctx.plot("selector-tour", &[tour_chart(j.runs)])?;
        body.push_str(&tour_section(j, &file));
    }
    body.push_str(&stops(results));
    ctx.sections
        .push(Section { title: "The meta-broadphase `auto`, live, against every pinned candidate".into(), body });
    Ok(())
}

fn intro(ctx: &Ctx, results: &[SceneRuns], version: &str) -> String {
    let mut s = String::from(
        "Every run — `auto`, and every candidate it chooses from pinned — starts from frame 0 on the same seed at a \
         fixed dt, in a fresh process of its own (the bench starts itself again for each run, as a user starts \
         `collide --headless`: a cold heap, the first frames' page faults counted), through the same \
         `collide_sim::Simulation` (response as the scenario's default; off for the tour, as in \
         `configs/tour.toml`) or `collide_sim::Replay` for the rapier-baked scenes. Every frame is timed: its \
         record's broadphase phase, which for `auto` includes its probes, its warm starts and its own work. No \
         warm-up. The order of the runs turns by one from scene to scene. Means are over every frame; *auto / \
         best* is auto's mean over the best pinned candidate's; the *worst frame* is auto's largest multiple of the \
         best pinned candidate's frame at the same step, from frame 2 on.\n\n",
    );
    let cached: Vec<&(String, String)> =
        results.iter().flat_map(|r| &r.pinned).filter_map(|r| r.cached.as_ref()).collect();
    if !cached.is_empty() {
        let mut when: Vec<&str> = cached.iter().map(|c| c.0.as_str()).collect();
        when.sort_unstable();
        let total: usize = results.iter().map(|r| r.pinned.len()).sum();
        let _ = writeln!(
            s,
            "**Pinned runs from an earlier run** (`--reuse-pinned`): {} of the {total} pinned runs were read from \
             `{}`, measured {} to {} UTC with the same code outside `collide-selector` (version `{version}`); only \
             `auto` ran now{}.\n",
            cached.len(),
            super::pinned_cache::FILE,
            when[0],
            when[when.len() - 1],
            if cached.len() < total { ", and the pinned runs the cache did not hold" } else { "" },
        );
    }
    let windows: Vec<String> = results
        .iter()
        .filter(|r| matches!(r.scene.source, Source::Replay { .. }))
        .map(|r| {
            format!(
                "- `{}`: {}; {:.2} pairs per box over the window",
                r.scene.label(),
                r.scene.window,
                pairs_per_box(r)
            )
        })
        .collect();
    if !windows.is_empty() {
        let _ = writeln!(
            s,
            "Replayed windows (every frame of the window timed, from its first, built cold):\n\n{}\n",
            windows.join("\n")
        );
    }
    if ctx.quick {
        s.push_str(
            "*Quick mode: small scenes, a short tour and the committed fixtures; the targets are shown but mean \
             nothing here.*\n\n",
        );
    }
    s
}

/// The mean pairs per box over a scene's frames (every run finds the same pairs; the first run with steps says).
fn pairs_per_box(r: &SceneRuns) -> f64 {
    let steps = std::iter::once(&r.auto).chain(&r.pinned).map(|x| &x.outcome.steps).find(|s| !s.is_empty());
    steps.map_or(f64::NAN, |s| s.iter().map(|st| st.pairs as f64).sum::<f64>() / s.len() as f64 / r.scene.n as f64)
}

/// `1.07 (pass)`, `**1.62 (FAIL)**`, or the number alone when there is no target.
fn marked(value: f64, pass: Pass) -> String {
    match pass {
        Some(true) => format!("{value:.2} (pass)"),
        Some(false) => format!("**{value:.2} (FAIL)**"),
        None => format!("{value:.2}"),
    }
}

fn targets_summary(judged: &[Judged<'_>]) -> String {
    let count = |f: &dyn Fn(&Judged<'_>) -> Pass| {
        let v: Vec<bool> = judged.iter().filter_map(f).collect();
        (v.iter().filter(|&&p| p).count(), v.len())
    };
    let mean = |limit: f64| {
        count(&|j: &Judged<'_>| match j.runs.scene.target {
            Target::Mean(l) if (l - limit).abs() < 1e-9 => j.verdict.as_ref().and_then(|v| v.mean_pass),
            _ => None,
        })
    };
    let hitch = count(&|j: &Judged<'_>| j.verdict.as_ref().and_then(|v| v.hitch_pass));
    let (m115, m125) = (mean(1.15), mean(1.25));
    let mut s = format!(
        "**Targets (issue 30).** auto's mean ≤ 1.15× the best pinned at 10k and 100k: {} of {} scenes; ≤ 1.25× at \
         1M: {} of {}; no frame from frame {HITCH_FROM} on over {HITCH}× the best pinned frame at the same step: {} \
         of {}",
        m115.0, m115.1, m125.0, m125.1, hitch.0, hitch.1
    );
    for j in judged {
        if let (Some(t), Target::Tour { best, oracle }) = (&j.tour, j.runs.scene.target) {
            let _ = write!(
                s,
                "; the tour at {}: {} × the best pinned (≤ {best}), {} × the per-phase oracle (≤ {oracle})",
                report::count(j.runs.scene.n),
                marked(t.over_best(), Some(t.over_best() <= best)),
                marked(t.over_oracle(), Some(t.over_oracle() <= oracle)),
            );
        }
    }
    let worst = judge::worst_of(judged.iter().filter_map(|j| j.column.as_ref()).map(|c| c.auto));
    if let Some((w, _)) = worst {
        let _ = write!(s, "; auto's worst ratio over all scenes (the regret table): {}", marked(w, Some(w <= 1.15)));
    }
    s.push_str(".\n\n");
    s
}

/// The columns of the scene table, `|`-separated.
const SCENE_COLUMNS: &str = "scene|bodies|frames|best pinned (mean ms)|auto (mean ms)|auto / best|target|\
                             worst frame ≥ 2: auto / best|at step (auto, best ms)|checks";

/// The columns of the table of what auto did, `|`-separated.
const AUTO_COLUMNS: &str = "scene|bodies|auto ran|switches|probes (sampled)|probe share|overhead share|\
                            builds beside (other thread)|frame-0 pick (its mean / best)";

/// The first cells of a scene's line: its name and body count.
fn scene_cells(r: &SceneRuns) -> Vec<String> {
    vec![format!("`{}`", r.scene.name), report::count(r.scene.n)]
}

fn scene_table(judged: &[Judged<'_>]) -> String {
    let header: Vec<&str> = SCENE_COLUMNS.split('|').collect();
    let lines = judged.iter().map(|j| {
        let r = j.runs;
        let mut line = scene_cells(r);
        line.push(r.scene.frames.to_string());
        let target = match r.scene.target {
            Target::Mean(l) => format!("≤ {l}"),
            Target::Tour { best, .. } => format!("≤ {best} (tour)"),
        };
        match &j.verdict {
            Some(v) => {
                line.push(format!("`{}` {}", j.best_name().unwrap_or("?"), report::ms(v.best_mean)));
                line.push(report::ms(v.auto_mean) + if r.auto.outcome.complete() { "" } else { " (short)" });
                line.push(marked(v.ratio, v.mean_pass));
                line.push(target);
                match v.worst {
                    Some(w) => {
                        line.push(marked(w.ratio(), v.hitch_pass));
                        line.push(format!("{} ({}, {})", w.step, report::ms(w.auto_ms), report::ms(w.best_ms)));
                    }
                    None => line.extend(["—".into(), "—".into()]),
                }
            }
            None => line.extend(["—".into(), status_word(&r.auto.outcome), "—".into(), target, "—".into(), "—".into()]),
        }
        line.push(checks_word(r));
        line
    });
    format!("### auto against the best pinned candidate\n\n{}\n", report::table(&header, lines))
}

/// One word for a scene's checks: `**MISMATCH**` if any run has one; else what was checked — the brute-force
/// pairs (`brute`) and the hash every complete run reached (`hash`).
fn checks_word(r: &SceneRuns) -> String {
    let runs: Vec<&Outcome> = std::iter::once(&r.auto).chain(&r.pinned).map(|x| &x.outcome).collect();
    if runs.iter().any(|o| o.check.starts_with("MISMATCH")) {
        return "**MISMATCH**".into();
    }
    let brute = runs.iter().any(|o| o.check.starts_with("brute ok"));
    let complete: Vec<&&Outcome> = runs.iter().filter(|o| o.complete()).collect();
    let hash = complete.len() > 1 && complete.iter().all(|o| o.check.ends_with("hash ok"));
    match (brute, hash) {
        (true, true) => "brute + hash ok".into(),
        (true, false) => "brute ok".into(),
        (false, true) => "hash ok".into(),
        (false, false) => "-".into(),
    }
}

fn status_word(o: &Outcome) -> String {
    if o.complete() { "ok".into() } else { o.status.split(':').next().unwrap_or("?").to_owned() }
}

fn auto_table(judged: &[Judged<'_>]) -> String {
    let header: Vec<&str> = AUTO_COLUMNS.split('|').collect();
    let lines = judged.iter().map(|j| {
        let r = j.runs;
        let ran = judge::stretches(r.auto.outcome.steps.iter().map(|s| s.active.as_str()));
        let mut line = scene_cells(r);
        line.push(ran_words(&ran));
        match &r.auto.outcome.auto {
            Some(a) => {
                let t = &a.totals;
                let all = (t.active_ms + t.probe_ms + t.overhead_ms).max(1e-12);
                line.push(t.switches.to_string());
                line.push(format!("{} ({})", t.probes, t.sampled));
                line.push(format!("{:.1}%", 100.0 * t.probe_ms / all));
                line.push(format!("{:.1}%", 100.0 * t.overhead_ms / all));
                line.push(format!("{} ({:.1}%)", t.builds_beside, 100.0 * t.beside_ms / all));
                line.push(format!(
                    "`{}` ({})",
                    a.initial,
                    pick_ratio(j, &a.initial).map_or("—".into(), |x| format!("{x:.2}"))
                ));
            }
            None => line.extend(["—".into(), "—".into(), "—".into(), "—".into(), "—".into(), "—".into()]),
        }
        line
    });
    format!(
        "### What auto did\n\nThe candidates it ran in order, its switches and probes (sampled ones in brackets), \
         the share of its broadphase time its probes and its own work took, the builds it made beside the active \
         candidate on another thread (their time as a share of its broadphase time: not in it, but a core's \
         work), and its frame-0 pick (the first entry of its decision log, kind \
         `initial`) with that candidate's pinned mean over the best pinned mean. Decision logs: \
         `selector-decisions.csv`.\n\n{}\n",
        report::table(&header, lines)
    )
}

/// `kd → grid`, the first [`RAN_SHOWN`] stretches and how many more.
fn ran_words(ran: &[&str]) -> String {
    let mut s = ran.iter().take(RAN_SHOWN).map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" → ");
    if ran.len() > RAN_SHOWN {
        let _ = write!(s, " → … ({} more)", ran.len() - RAN_SHOWN);
    }
    s
}

/// Stretches of auto's active candidate shown in the table.
const RAN_SHOWN: usize = 10;

/// The pinned mean of `pick` over the best pinned mean on a scene.
fn pick_ratio(j: &Judged<'_>, pick: &str) -> Option<f64> {
    let v = j.verdict.as_ref()?;
    let i = j.runs.pinned.iter().position(|r| r.outcome.algorithm == pick)?;
    Some(judge::ratio(&j.pinned_ms[i], &j.pinned_ms[v.best]))
}

fn first_pick(judged: &[Judged<'_>]) -> String {
    let picks: Vec<(bool, f64)> = judged
        .iter()
        .filter_map(|j| {
            let pick = &j.runs.auto.outcome.auto.as_ref()?.initial;
            Some((j.best_name()? == pick, pick_ratio(j, pick)?))
        })
        .collect();
    let winners = picks.iter().filter(|p| p.0).count();
    let close = picks.iter().filter(|p| p.1 <= 1.15).count();
    format!(
        "**The prior's frame-0 pick** was the scene's winner (its best pinned candidate) on {winners} of {} scenes, \
         and within 1.15× of it on {close}.\n\n",
        picks.len()
    )
}

fn regret_table(judged: &[Judged<'_>]) -> String {
    let columns: Vec<&RegretColumn> = judged.iter().filter_map(|j| j.column.as_ref()).collect();
    let Some(first) = judged.iter().find(|j| j.column.is_some()) else { return String::new() };
    let names: Vec<&str> = first.runs.pinned.iter().map(|r| r.outcome.algorithm.as_str()).collect();
    let mut header = vec!["scene"];
    header.extend(names.iter().copied());
    header.push("**auto**");
    let cell = |r: f64, short: bool| {
        if r.is_nan() {
            "—".to_owned()
        } else {
            format!("{}{r:.2}{}", if short { "≥" } else { "" }, if (r - 1.0).abs() < 1e-12 { " ★" } else { "" })
        }
    };
    let mut lines: Vec<Vec<String>> = columns
        .iter()
        .map(|c| {
            let mut line = vec![c.scene.clone()];
            line.extend(c.pinned.iter().zip(&c.short).map(|(&r, &s)| cell(r, s)));
            line.push(format!("**{}**", cell(c.auto, false)));
            line
        })
        .collect();
    let mut worst = vec!["**worst**".to_owned()];
    let mut worst_on = vec!["worst on".to_owned()];
    for k in 0..names.len() {
        let w = judge::worst_of(columns.iter().map(|c| c.pinned.get(k).copied().unwrap_or(f64::NAN)));
        worst.push(w.map_or("—".into(), |(r, _)| format!("**{r:.2}**")));
        worst_on.push(w.map_or("—".into(), |(_, i)| columns[i].scene.clone()));
    }
    let w = judge::worst_of(columns.iter().map(|c| c.auto));
    worst.push(w.map_or("—".into(), |(r, _)| format!("**{r:.2}**")));
    worst_on.push(w.map_or("—".into(), |(_, i)| columns[i].scene.clone()));
    lines.push(worst);
    lines.push(worst_on);
    format!(
        "### The regret table\n\nEach run's time over the scene's best pinned candidate's (★ the best; ≥ a run a \
         limit ended early, over the frames it ran), and each one's worst ratio over every scene. A fixed pick \
         pays its worst row; auto's target is ≤ 1.15 everywhere. `selector-regret.csv`.\n\n{}\n",
        report::table(&header, lines)
    )
}

fn tour_section(j: &Judged<'_>, plot: &str) -> String {
    let r = j.runs;
    let mut s = format!(
        "### The whole tour at {} bodies\n\n{} steps ({} per phase), response off, every step timed from step 0. \
         Broadphase ms summed over each phase; **bold** is the phase's winner among the pinned runs. Per-step \
         times: `selector-tour-frames.csv`.\n\n{}\n\n",
        report::count(r.scene.n),
        r.scene.frames,
        collide_sim::TOUR_PHASE_STEPS,
        report::image(plot, "the tour")
    );
    let Some(t) = &j.tour else {
        s.push_str("No tour figures: auto or a pinned run did not complete (see the stops below).\n\n");
        return s;
    };
    let names: Vec<&str> = r.pinned.iter().map(|p| p.outcome.algorithm.as_str()).collect();
    let mut header = vec!["phase"];
    header.extend(names.iter().copied());
    header.extend(["auto", "auto / phase winner"]);
    let mut lines = Vec::new();
    for (p, phase) in t.phases.iter().enumerate() {
        let totals = &t.phase_totals[p];
        let best = totals.iter().copied().fold(f64::INFINITY, f64::min);
        let mut line = vec![format!("`{phase}`")];
        line.extend(totals.iter().map(|&x| if x == best { format!("**{}**", report::ms(x)) } else { report::ms(x) }));
        line.push(report::ms(t.auto_phase[p]));
        line.push(format!("{:.2}", t.auto_phase[p] / best));
        lines.push(line);
    }
    let mut total = vec!["**total**".to_owned()];
    total.extend(r.pinned.iter().map(|p| report::ms(p.outcome.steps.iter().map(|s| s.ms).sum())));
    total.push(format!("**{}**", report::ms(t.auto_total)));
    total.push(format!("{:.2} (per-phase oracle)", t.over_oracle()));
    lines.push(total);
    s.push_str(&report::table(&header, lines));
    let (target_best, target_oracle) = match r.scene.target {
        Target::Tour { best, oracle } => (best, oracle),
        Target::Mean(l) => (l, l),
    };
    let switches = r.auto.outcome.auto.as_ref().map_or(0, |a| a.totals.switches);
    let _ = writeln!(
        s,
        "\n- auto {} ms; the best pinned candidate `{}` {} ms: auto / best = {} (target ≤ {target_best}); the \
         per-phase oracle {} ms: auto / per-phase oracle = {} (target ≤ {target_oracle}); the per-frame oracle {} \
         ms ({:.3}).\n- Switches: {switches} over {} phases.\n",
        report::ms(t.auto_total),
        names[t.best.0],
        report::ms(t.best.1),
        marked(t.over_best(), Some(t.over_best() <= target_best)),
        report::ms(t.per_phase_oracle),
        marked(t.over_oracle(), Some(t.over_oracle() <= target_oracle)),
        report::ms(t.per_frame_oracle),
        t.auto_total / t.per_frame_oracle,
        t.phases.len(),
    );
    s
}

fn stops(results: &[SceneRuns]) -> String {
    let mut s = String::new();
    for r in results {
        for run in std::iter::once(&r.auto).chain(&r.pinned).filter(|x| !x.outcome.complete()) {
            let _ = writeln!(s, "- `{}` on {}: {}", run.outcome.algorithm, r.scene.label(), run.outcome.status);
        }
    }
    if s.is_empty() {
        return String::new();
    }
    format!("\nRuns ended early or failed:\n\n{s}")
}

/// The per-size-class charts: auto / best per scene as bars (the target as a line), then auto against the best
/// pinned candidate frame by frame on the class's two worst scenes.
fn class_charts(class: &[&Judged<'_>], n: usize) -> Vec<Chart> {
    let mut bars = Chart::new(
        format!("auto / best pinned candidate, mean over every frame from frame 0, at {} bodies", report::count(n)),
        "auto's mean / the best pinned mean",
        "scene",
    );
    let mut points = Vec::new();
    // The first scene on top: rows count down.
    for (i, j) in class.iter().enumerate() {
        let ratio = j.verdict.as_ref().map_or(f64::NAN, |v| v.ratio);
        let row = (class.len() - 1 - i) as f64;
        points.push((ratio, row));
        bars.bar_names.resize(class.len(), String::new());
        bars.bar_names[class.len() - 1 - i] = format!("{} {ratio:.2}", j.runs.scene.name);
    }
    bars.series.push(Series { label: "auto / best".into(), points, style: Style::Bars, color: None });
    let target = class.iter().find_map(|j| match j.runs.scene.target {
        Target::Mean(l) => Some(l),
        Target::Tour { .. } => None,
    });
    let span = (-0.5, class.len() as f64 - 0.5);
    if let Some(l) = target {
        bars.series.push(Series::styled(
            format!("target {l}"),
            vec![(l, span.0), (l, span.1)],
            Style::Dashed,
            plot::FPS30,
        ));
    }
    bars.series.push(Series::styled(
        "1: as fast as the best pinned",
        vec![(1.0, span.0), (1.0, span.1)],
        Style::Dashed,
        plot::LINEAR,
    ));
    let mut charts = vec![bars];
    let mut worst: Vec<&&Judged<'_>> = class.iter().filter(|j| j.verdict.is_some()).collect();
    let ratio = |j: &Judged<'_>| j.verdict.as_ref().map_or(0.0, |v| v.ratio);
    worst.sort_by(|a, b| ratio(b).total_cmp(&ratio(a)));
    for j in worst.into_iter().take(2) {
        charts.push(frames_chart(j));
    }
    charts
}

/// auto and the best pinned candidate frame by frame on one scene, auto's active candidate as a band.
fn frames_chart(j: &Judged<'_>) -> Chart {
    let v = j.verdict.as_ref().expect("judged");
    let best = j.best_name().unwrap_or("?");
    let mut c = Chart::new(
        format!(
            "{}: auto / {best} = {:.2}; broadphase ms per frame; band: auto's active candidate",
            j.runs.scene.label(),
            v.ratio
        ),
        "frame",
        "broadphase ms (log)",
    )
    .log(false, true);
    let points = |ms: &[f64]| ms.iter().enumerate().map(|(i, &m)| (i as f64, m)).collect();
    c.series.push(Series::styled("auto", points(&j.auto_ms), Style::Line, plot::REFERENCE));
    c.series.push(Series::line(best, points(&j.pinned_ms[v.best])));
    c.bands = bands(&j.runs.auto.outcome);
    c
}

/// The stretches of auto's active candidate as bands.
fn bands(o: &Outcome) -> Vec<Band> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=o.steps.len() {
        if i == o.steps.len() || o.steps[i].active != o.steps[start].active {
            out.push(Band { from: start as f64, to: i as f64, label: o.steps[start].active.clone() });
            start = i;
        }
    }
    out
}

/// Per-step time of every run on the tour (a 15-step moving median, so that the lines can be told apart), auto's
/// active candidate as a band along the bottom.
fn tour_chart(r: &SceneRuns) -> Chart {
    let mut chart = Chart::new(
        format!(
            "The tour at {} bodies, live from step 0: broadphase ms per step (15-step moving median); band: auto's \
             active candidate",
            report::count(r.scene.n)
        ),
        "step",
        "broadphase ms",
    )
    .log(false, true);
    for run in std::iter::once(&r.auto).chain(&r.pinned) {
        let ms = run.outcome.ms();
        let points = (0..ms.len()).map(|i| (i as f64, moving_median(&ms, i, 7))).collect();
        let mut s = Series::line(run.outcome.algorithm.clone(), points);
        if run.outcome.algorithm == collide_selector::NAME {
            s.color = Some(plot::REFERENCE);
        }
        chart.series.push(s);
    }
    chart.bands = bands(&r.auto.outcome);
    chart
}

fn moving_median(v: &[f64], i: usize, half: usize) -> f64 {
    let mut w: Vec<f64> = v[i.saturating_sub(half)..(i + half + 1).min(v.len())].to_vec();
    w.sort_by(f64::total_cmp);
    w[w.len() / 2]
}

fn write_csvs(ctx: &mut Ctx, results: &[SceneRuns], judged: &[Judged<'_>]) -> Result<(), String> {
    let mut rows = Vec::new();
    let mut frames = String::from("scene,n,frame,algorithm,broadphase_ms,active,pairs,source\n");
    let mut decisions = String::new();
    let mut regret = String::from("scene,n,frames,algorithm,mean_ms,ratio_to_best,complete\n");
    for (r, j) in results.iter().zip(judged) {
        let (name, n) = (&r.scene.name, r.scene.n);
        for run in std::iter::once(&r.auto).chain(&r.pinned) {
            rows.push(row(r, run));
            let source = if run.cached.is_some() { "cached" } else { "live" };
            for (f, st) in run.outcome.steps.iter().enumerate() {
                let _ = writeln!(
                    frames,
                    "{name},{n},{f},{},{},{},{},{source}",
                    run.outcome.algorithm, st.ms, st.active, st.pairs
                );
            }
        }
        if let Some(a) = &r.auto.outcome.auto {
            let mut lines = a.decisions_csv.lines();
            let head = lines.next().unwrap_or_default();
            if decisions.is_empty() {
                let _ = writeln!(decisions, "scene,n,{head}");
            }
            for line in lines {
                let _ = writeln!(decisions, "{name},{n},{line}");
            }
        }
        if let Some(c) = &j.column {
            let _ = writeln!(
                regret,
                "{name},{n},{},auto,{},{},{}",
                r.scene.frames,
                judge::mean(&j.auto_ms),
                c.auto,
                r.auto.outcome.complete()
            );
            for ((run, ms), ratio) in r.pinned.iter().zip(&j.pinned_ms).zip(&c.pinned) {
                let _ = writeln!(
                    regret,
                    "{name},{n},{},{},{},{ratio},{}",
                    r.scene.frames,
                    run.outcome.algorithm,
                    judge::mean(ms),
                    run.outcome.complete()
                );
            }
        }
    }
    ctx.write_rows("selector", &rows)?;
    ctx.write_text("selector-frames.csv", &frames)?;
    ctx.write_text("selector-regret.csv", &regret)?;
    if !decisions.is_empty() {
        ctx.write_text("selector-decisions.csv", &decisions)?;
    }
    if let Some(tour) = results.iter().find(|r| r.scene.name == TOUR_FULL) {
        ctx.write_text("selector-tour-frames.csv", &tour_frames(tour))?;
    }
    Ok(())
}

/// The tour's steps side by side: phase, auto's active candidate, every run's ms.
fn tour_frames(r: &SceneRuns) -> String {
    let runs: Vec<&Run> = std::iter::once(&r.auto).chain(&r.pinned).collect();
    let mut text = String::from("step,phase,auto_active");
    for run in &runs {
        let _ = write!(text, ",{}_ms", run.outcome.algorithm);
    }
    text.push('\n');
    for (i, step) in r.auto.outcome.steps.iter().enumerate() {
        let _ = write!(text, "{i},{},{}", step.phase, step.active);
        for run in &runs {
            let _ = write!(text, ",{:.4}", run.outcome.steps.get(i).map_or(f64::NAN, |s| s.ms));
        }
        text.push('\n');
    }
    text
}

fn row(r: &SceneRuns, run: &Run) -> Row {
    let o = &run.outcome;
    let ms = o.ms();
    let pairs: Vec<f64> = o.steps.iter().map(|s| s.pairs as f64).collect();
    let mut params = match &o.auto {
        Some(a) => {
            let t = &a.totals;
            format!(
                "initial={} switches={} probes={} sampled={} probe_ms={:.1} beside_ms={:.1} overhead_ms={:.1}",
                a.initial, t.switches, t.probes, t.sampled, t.probe_ms, t.beside_ms, t.overhead_ms
            )
        }
        None => String::new(),
    };
    if let Some((when, version)) = &run.cached {
        params = format!("cached {when} version {version}");
    }
    if let Source::Replay { from, .. } = r.scene.source {
        params = format!("{params} from={from}").trim().to_owned();
    }
    Row {
        study: "selector",
        series: o.algorithm.clone(),
        scenario: r.scene.name.clone(),
        algorithm: o.algorithm.clone(),
        params,
        n: r.scene.n,
        speed: f32::NAN,
        dt_mode: DtMode::Fixed,
        metric: Metric::Broadphase,
        frames: ms.len(),
        time: Summary::of(&ms),
        broadphase_ms: Summary::of(&ms).mean,
        pairs: Summary::of(&pairs).mean,
        hash_step: ms.len(),
        state_hash: o.hash,
        check: o.check.clone(),
        status: o.status.clone(),
        ..Row::default()
    }
}
