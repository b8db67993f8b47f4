//! `calibrate`: fit the meta-broadphase's cost prior on this machine.
//!
//! Every candidate of `auto` runs pinned through the same scenes — the scenario registry from 2 000 to 10⁶
//! bodies, plus a resting scene — from its first frame, and each run gives two kinds of rows, with the features
//! `auto` would measure (the selector's own [`FeatureSampler`](collide_selector::FeatureSampler), on the same boxes, before each frame, with the
//! frame before's pair count):
//! - **steady**: every window of frames after the first two: the median broadphase time;
//! - **build**: one per run: the extra cost of its first two frames over two steady ones (a tree's construction,
//!   a grid's first allocations, the dynamic tree's second call that rebuilds with measured reaches), with the
//!   features of the first frame (the speed hint, the pairs estimated from the sample).
//!
//! Every run is made three times, each in a fresh process, and each row is the median of its three.
//!
//! Two log-linear models per candidate are fitted to the rows by ridge regression ([`fit_rows`]) and written as
//! `prior.toml` beside the report, with the machine, the commit and each candidate's parameters; `--install`
//! also copies it into `crates/collide-selector/data/prior.toml`, which is compiled into `auto`.
//!
//! The report says how good the prior is where it matters: how often the prior alone picks the fastest
//! candidate of a window, and what its pick costs against the fastest ("regret").

use super::Ctx;
use super::live::Spec;
use super::measure::SeriesGuard;
use super::plot::{Chart, Series, Style};
use super::report::{self, Section};
use super::selector_scenes;
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_selector::model::{ANCHOR_DIMS, Anchor, Fit, REGRESSOR_NAMES, fit_rows};
use collide_selector::{EXCLUDED, Features, Prior};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Frames averaged into one row: long enough that one stalled frame does not make the row, short enough that
/// the cluster's pull shows as several rows.
const WINDOW: usize = 10;

/// One calibration scene.
#[derive(Clone, Copy, Debug)]
struct Scene {
    /// Where its boxes come from.
    boxes: Boxes,
    /// Its name in the CSV and for `--calibrate-scenes`: the scenario's, `resting-90`, or `rapier-<scene>`.
    label: &'static str,
    resting_fraction: f32,
    resolution: bool,
    /// Frames measured (the cluster needs its pull and release).
    frames: usize,
}

/// Where a calibration scene's boxes come from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Boxes {
    /// A registry scenario, simulated at every size of the ladder.
    Scenario(&'static str),
    /// A scene baked by rapier (`cargo xtask record-rapier`): a real engine's coherent stream, with more pairs per
    /// body than any registry scene but the heavy tail. Replayed at the bakes' own sizes (10⁴ and 10⁵ bodies;
    /// with `--quick`, the committed 200-body fixtures from their first frame), in a window beside the one the
    /// `selector` study judges `auto` on, which starts at `judged` ([`calibration_window`]).
    Rapier { scene: &'static str, judged: u64 },
}

/// The rapier bakes, each with the first frame of the window the `selector` study judges `auto` on
/// ([`selector_scenes::RAPIER`]).
fn rapier_scenes() -> Vec<Scene> {
    selector_scenes::RAPIER
        .iter()
        .map(|&(scene, judged, _)| Scene {
            boxes: Boxes::Rapier { scene, judged },
            label: Box::leak(format!("rapier-{scene}").into_boxed_str()),
            resting_fraction: 0.0,
            resolution: true,
            frames: 0,
        })
        .collect()
}

/// The scenes: every scenario with a body count of its own, a scene where 90% rest (response off, so that it
/// stays at rest: the moving tenth would wake the rest within a second), and the rapier bakes. Each runs its two
/// build frames and then its windows.
fn scenes(quick: bool) -> Vec<Scene> {
    let frames = BUILD_FRAMES + if quick { 2 * WINDOW } else { 3 * WINDOW };
    let mut scenes: Vec<Scene> = collide_sim::SCENARIOS
        .iter()
        .filter(|s| !s.fixed_bodies && s.name != "tour")
        .map(|s| Scene {
            boxes: Boxes::Scenario(s.name),
            label: s.name,
            resting_fraction: 0.0,
            resolution: true,
            frames: if s.name == "cluster" && !quick { BUILD_FRAMES + 200 } else { frames },
        })
        .collect();
    scenes.push(Scene {
        boxes: Boxes::Scenario("uniform"),
        label: "resting-90",
        resting_fraction: 0.9,
        resolution: false,
        frames,
    });
    scenes.extend(rapier_scenes().into_iter().map(|s| Scene { frames, ..s }));
    scenes
}

/// The scenes `--calibrate-scenes` names (all of them when it names none); an unknown name is an error listing
/// the valid ones.
fn chosen_scenes(quick: bool, names: &[String]) -> Result<Vec<Scene>, String> {
    let all = scenes(quick);
    if let Some(bad) = names.iter().find(|name| !all.iter().any(|s| s.label == name.as_str())) {
        let valid: Vec<&str> = all.iter().map(|s| s.label).collect();
        return Err(format!("--calibrate-scenes: unknown scene `{bad}`; valid scenes: {}", valid.join(", ")));
    }
    Ok(all.into_iter().filter(|s| names.is_empty() || names.iter().any(|n| n == s.label)).collect())
}

/// The first frame of a rapier scene's calibration window of `frames` frames, in a file of `file_frames`: right
/// after the window the `selector` study judges (`judged` + [`selector_scenes::DEFAULT_FRAMES`]) when the file
/// reaches that far, else right before it, so that the prior is fitted on the same kind of scene but never on the
/// frames `auto` is judged by. `None` when neither fits.
fn calibration_window(judged: u64, frames: u64, file_frames: u64) -> Option<u64> {
    let after = judged + selector_scenes::DEFAULT_FRAMES;
    if after + frames <= file_frames { Some(after) } else { judged.checked_sub(frames) }
}

/// Checks `--calibrate-scenes` before anything is measured.
pub fn check_scenes(quick: bool, names: &[String]) -> Result<(), String> {
    chosen_scenes(quick, names).map(|_| ())
}

/// Body counts of the registry scenes.
fn sizes(quick: bool) -> Vec<usize> {
    if quick { vec![2000, 8000] } else { vec![2000, 10_000, 100_000, 1_000_000] }
}

/// Body counts of the rapier bakes (the committed fixtures' with `--quick`).
fn rapier_sizes(quick: bool) -> Vec<usize> {
    if quick { vec![RAPIER_FIXTURE_BODIES] } else { vec![10_000, 100_000] }
}

/// Bodies of the committed rapier fixtures (`tests/fixtures/aabbs/README.md`).
const RAPIER_FIXTURE_BODIES: usize = 200;

/// Every body count some scene runs at, in ascending order (the ladder the series guard climbs).
fn all_sizes(quick: bool) -> Vec<usize> {
    let mut all = sizes(quick);
    all.extend(rapier_sizes(quick));
    all.sort_unstable();
    all.dedup();
    all
}

/// How many frames `scene` runs at `n` bodies, or `None` when it does not run there. At 10⁶ bodies only the
/// scenes the live study times there run, for a window each after the build (a pass of every candidate through
/// every scene at that size would take an hour).
fn runs_at(scene: &Scene, n: usize, quick: bool) -> Option<usize> {
    match scene.boxes {
        Boxes::Rapier { .. } => rapier_sizes(quick).contains(&n).then_some(scene.frames),
        Boxes::Scenario(_) if !sizes(quick).contains(&n) => None,
        Boxes::Scenario(_) if n < 1_000_000 => Some(scene.frames),
        Boxes::Scenario(_) => {
            ["uniform", "slow", "cluster", "thesis"].contains(&scene.label).then_some(BUILD_FRAMES + 2 * WINDOW)
        }
    }
}

/// What a run of `scene` at `n` bodies plays, for [`Spec`]: a registry scenario, or a rapier file (the committed
/// fixture from its first frame with `--quick`, else the bake, baked first when missing) from its calibration
/// window's first frame. Resolved once per scene and size, before its runs.
fn source(scene: &Scene, n: usize, quick: bool) -> Result<(Option<String>, Option<PathBuf>, u64), String> {
    match scene.boxes {
        Boxes::Scenario(name) => Ok((Some(name.to_owned()), None, 0)),
        Boxes::Rapier { scene: name, .. } if quick => Ok((None, Some(selector_scenes::rapier_fixture(name)), 0)),
        Boxes::Rapier { scene: name, judged } => {
            let path = selector_scenes::baked_rapier_file("calibrate", name, n)?;
            let file_frames = collide_aabbs::Reader::open(&path).map_err(|e| e.to_string())?.header().frames;
            let from = calibration_window(judged, scene.frames as u64, file_frames).ok_or_else(|| {
                format!(
                    "{}: {file_frames} frames, too few for {} frames beside the judged window from {judged}",
                    path.display(),
                    scene.frames
                )
            })?;
            Ok((None, Some(path), from))
        }
    }
}

/// The first frames of a run, whose excess over steady frames is the candidate's build.
const BUILD_FRAMES: usize = 2;
/// Each run is made this many times, each in its own process, and every row is the median of its repeats: a
/// build is one or two frames of one run, and one frame the machine stalled would otherwise be the row.
const REPEATS: usize = 3;

/// The rows of repeated runs of one scene merged: each row's time is the median of its repeats' (the features
/// are the first run's; the runs are the same scene, seed and candidate). Rows only some repeats reached (a run
/// ended early) are the first run's.
fn median_of_runs(mut runs: Vec<Vec<Sample>>) -> Vec<Sample> {
    if runs.is_empty() {
        return Vec::new();
    }
    let mut first = runs.remove(0);
    for row in &mut first {
        let mut times: Vec<f64> = std::iter::once(row.ms)
            .chain(runs.iter().filter_map(|r| r.iter().find(|s| s.window == row.window).map(|s| s.ms)))
            .collect();
        row.ms = median(std::mem::take(&mut times));
    }
    first
}

/// The candidates `auto` chooses from by default.
fn candidates() -> Vec<&'static AlgorithmDescriptor> {
    ALGORITHMS.iter().filter(|d| !EXCLUDED.contains(&d.name)).collect()
}

/// One row: a window of frames of one candidate in one scene (`window` ≥ 0), or its build (`window` = `BUILD`).
#[derive(Clone, Debug)]
struct Sample {
    scene: &'static str,
    n: usize,
    candidate: &'static str,
    window: usize,
    features: Features,
    ms: f64,
}

/// The `window` of a build row.
const BUILD: usize = usize::MAX;

impl Sample {
    fn is_build(&self) -> bool {
        self.window == BUILD
    }
}

/// Run `candidate` through `scene` at `n` bodies for `frames` frames from its first, in a fresh process as a
/// user's run would be (a cold allocator: the first frames' page faults are part of the build); one sample per
/// window after the build frames, and one for the build.
fn measure_scene(
    scene: &Scene,
    n: usize,
    candidate: &'static AlgorithmDescriptor,
    frames: usize,
    (scenario, replay, from): &(Option<String>, Option<PathBuf>, u64),
) -> Result<Vec<Sample>, String> {
    let spec = Spec {
        scenario: scenario.clone(),
        replay: replay.clone(),
        from: *from,
        bodies: n,
        frames: frames as u64,
        algorithm: candidate.name.to_owned(),
        check: Vec::new(),
        // A candidate this slow here is never chosen; the windows it ran say so.
        frame_limit_ms: 2000.0,
        budget_s: 600.0,
        resting_fraction: scene.resting_fraction,
        no_response: !scene.resolution,
        features: true,
    };
    let outcome = spec.spawn()?;
    let steps: Vec<(Features, f64)> = outcome.steps.iter().filter_map(|s| Some((s.features?, s.ms))).collect();
    let (first, rest) = steps.split_at(BUILD_FRAMES.min(steps.len()));
    let mut samples: Vec<Sample> = rest
        .chunks_exact(WINDOW)
        .enumerate()
        .map(|(window, w)| Sample {
            scene: scene.label,
            n,
            candidate: candidate.name,
            window,
            features: mean_features(w),
            ms: median(w.iter().map(|w| w.1).collect()),
        })
        .collect();
    // The build: the first frames' excess over as many steady ones (the first window's median), with the
    // features of the first frame — what `auto` decides its first pick on (the simulation's speed hint, pairs per
    // body estimated from the sample) —, at least a twentieth of a steady frame (a logarithm needs a positive
    // cost, and a build is never free). The second frame's measured speed would mislead: the spawn's overlaps are
    // pushed apart in the first step, which moves a slow scene's bodies eight times their own speed.
    if let (Some(steady), Some(&(features, _))) = (samples.first().map(|s| s.ms), first.first()) {
        let excess = first.iter().map(|f| f.1).sum::<f64>() - first.len() as f64 * steady;
        samples.push(Sample {
            scene: scene.label,
            n,
            candidate: candidate.name,
            window: BUILD,
            features,
            ms: excess.max(0.05 * steady),
        });
    }
    Ok(samples)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The window's features, averaged (the count is the last one's).
fn mean_features(w: &[(Features, f64)]) -> Features {
    let k = w.len() as f64;
    let mean = |f: fn(&Features) -> f64| w.iter().map(|(x, _)| f(x)).sum::<f64>() / k;
    Features {
        n: w.last().map_or(0, |(f, _)| f.n),
        pairs_per_body: mean(|f| f.pairs_per_body),
        speed_mean: mean(|f| f.speed_mean),
        speed_known: w.iter().all(|(f, _)| f.speed_known),
        clustering: mean(|f| f.clustering),
        size_spread: mean(|f| f.size_spread),
        resting: mean(|f| f.resting),
    }
}

/// The `calibrate` study: measure, fit, write `calibrate.csv`, `prior.toml`, a plot and the report section.
///
/// With `--calibration-csv` alone it fits that file's rows without measuring; with `--calibrate-scenes` too, it
/// measures those scenes again and fits on them beside the file's rows of every other scene (to add a scene, or
/// remeasure one after a candidate changed, without the hour of a full run).
pub fn calibrate(ctx: &mut Ctx) -> Result<(), String> {
    let scenes = chosen_scenes(ctx.quick, &ctx.calibrate_scenes)?;
    let samples = match ctx.calibration_csv.clone() {
        Some(path) if ctx.calibrate_scenes.is_empty() => read_rows(&path)?,
        Some(path) => {
            let kept = read_rows(&path)?.into_iter().filter(|row| !scenes.iter().any(|s| s.label == row.scene));
            let mut samples: Vec<Sample> = kept.collect();
            samples.extend(measure_all(ctx, &scenes)?);
            samples
        }
        None => measure_all(ctx, &scenes)?,
    };
    finish(ctx, &samples)
}

/// Every candidate through every scene of `scenes` at every size it runs at.
fn measure_all(ctx: &mut Ctx, scenes: &[Scene]) -> Result<Vec<Sample>, String> {
    let candidates = candidates();
    let sizes = all_sizes(ctx.quick);
    let quick = ctx.quick;
    let runs = sizes.iter().map(|&n| scenes.iter().filter(|s| runs_at(s, n, quick).is_some()).count()).sum::<usize>();
    ctx.progress.plan(runs * candidates.len());
    let mut samples = Vec::new();
    for candidate in &candidates {
        // A budget for the whole ladder of sizes (the bench's default of 75 s per series would stop before 10⁶),
        // and a size is skipped only when linear growth from the last would put a frame over 2 s.
        let mut guard = SeriesGuard::with(std::time::Duration::from_secs(1800), 2000.0);
        for &n in &sizes {
            let here: Vec<(&Scene, usize)> = scenes.iter().filter_map(|s| Some((s, runs_at(s, n, quick)?))).collect();
            if here.is_empty() {
                continue;
            }
            if let Some(why) = guard.skip(n) {
                ctx.progress.say(&format!("calibrate {} n={n}: skipped: {why}", candidate.name));
                for _ in &here {
                    ctx.progress.finish_one();
                }
                continue;
            }
            let mut worst = 0.0f64;
            for (scene, frames) in here {
                ctx.progress.start(&format!("calibrate {} {} n={n}", candidate.name, scene.label));
                let repeats = if quick { 1 } else { REPEATS };
                let source = source(scene, n, quick)?;
                let runs: Vec<Vec<Sample>> = (0..repeats)
                    .map(|_| measure_scene(scene, n, candidate, frames, &source))
                    .collect::<Result<_, _>>()?;
                let got = median_of_runs(runs);
                ctx.progress.finish_one();
                worst = got.iter().map(|s| s.ms).fold(worst, f64::max);
                samples.extend(got);
            }
            guard.record(n, worst);
        }
    }
    Ok(samples)
}

/// Fit, write `calibrate.csv`, `prior.toml`, a plot and the report section.
fn finish(ctx: &mut Ctx, samples: &[Sample]) -> Result<(), String> {
    let samples = samples.to_vec();
    let prior = fit(&samples, ctx)?;
    ctx.write_text("prior.toml", &prior.to_toml())?;
    ctx.write_text("calibrate.csv", &csv(&samples, &prior))?;
    if ctx.install_prior {
        let path = crate::root().join("crates/collide-selector/data/prior.toml");
        std::fs::write(&path, prior.to_toml()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("bench: installed the new prior in {}", path.display());
    }
    let plot = ctx.plot("calibrate", &[chart(&samples, &prior)])?;
    let body = section_body(&samples, &prior, &plot);
    ctx.sections.push(Section { title: "Calibration of the meta-broadphase's prior".into(), body });
    Ok(())
}

/// Fit every candidate's rows.
fn fit(samples: &[Sample], ctx: &Ctx) -> Result<Prior, String> {
    let mut fits = Vec::new();
    for candidate in candidates() {
        let rows = |build: bool| -> Vec<(Features, f64)> {
            samples
                .iter()
                .filter(|s| s.candidate == candidate.name && s.is_build() == build)
                .map(|s| (s.features, s.ms))
                .collect()
        };
        let (steady, build) = (rows(false), rows(true));
        let too_few = |what: &str| format!("calibrate: too few {what} rows to fit `{}`", candidate.name);
        let (weights, rmse) = fit_rows(&steady).ok_or_else(|| too_few("steady"))?;
        let (build_weights, build_rmse) = fit_rows(&build).ok_or_else(|| too_few("build"))?;
        fits.push(Fit {
            name: candidate.name.to_owned(),
            params: Params::defaults(candidate.params).to_string(),
            weights,
            rmse,
            points: steady.len(),
            build_weights,
            build_rmse,
            build_points: build.len(),
        });
    }
    let anchors = anchors(samples, &fits);
    let machine = super::machine::Machine::detect(None);
    Ok(Prior {
        machine: ctx.machine.clone(),
        cpu: machine.cpu,
        threads: rayon_threads(),
        commit: machine.commit,
        date: today(),
        regressors: REGRESSOR_NAMES.iter().map(|&s| s.to_owned()).collect(),
        fits,
        anchors,
    })
}

/// One anchor per calibration window (scene, size, window) and per build (scene, size): the mean of its rows'
/// anchor coordinates, and each candidate's residual there against its log-linear fit.
fn anchors(samples: &[Sample], fits: &[Fit]) -> Vec<Anchor> {
    let mut keys: Vec<(&str, usize, usize)> = samples.iter().map(|s| (s.scene, s.n, s.window)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| {
            let rows: Vec<&Sample> = samples.iter().filter(|s| (s.scene, s.n, s.window) == key).collect();
            let first = rows.first()?;
            let mut x = [0.0; ANCHOR_DIMS];
            for r in &rows {
                for (xi, v) in x.iter_mut().zip(Anchor::coordinates(&r.features)) {
                    *xi += v / rows.len() as f64;
                }
            }
            let residual = |fit: &Fit| {
                rows.iter().find(|r| r.candidate == fit.name).map_or(f64::NAN, |r| {
                    let predicted = if r.is_build() { fit.build_ms(&r.features) } else { fit.steady_ms(&r.features) };
                    (r.ms / predicted).ln()
                })
            };
            let residuals: Vec<f64> = fits.iter().map(residual).collect();
            let none = vec![f64::NAN; fits.len()];
            let (steady, build) = if first.is_build() { (none, residuals) } else { (residuals, none) };
            Some(Anchor { x, steady, build })
        })
        .collect()
}

/// The rows of an earlier run's `calibrate.csv`, to fit again without measuring (`--calibration-csv`).
fn read_rows(path: &std::path::Path) -> Result<Vec<Sample>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    text.lines()
        .enumerate()
        .skip(1)
        .map(|(i, line)| {
            let c: Vec<&str> = line.split(',').collect();
            let bad = |what: &str| format!("{}:{}: {what}", path.display(), i + 1);
            if c.len() < 12 {
                return Err(bad("a row has 13 columns"));
            }
            let num = |k: usize| c[k].parse::<f64>().map_err(|_| bad(&format!("column {} is not a number", k + 1)));
            let features = Features {
                n: c[4].parse().map_err(|_| bad("bodies"))?,
                pairs_per_body: num(5)?,
                speed_mean: num(6)?,
                speed_known: c[7] == "true",
                clustering: num(8)?,
                size_spread: num(9)?,
                resting: num(10)?,
            };
            Ok(Sample {
                scene: leak(c[0]),
                n: c[1].parse().map_err(|_| bad("n"))?,
                candidate: leak(c[2]),
                window: if c[3] == "build" { BUILD } else { c[3].parse().map_err(|_| bad("window"))? },
                features,
                ms: num(11)?,
            })
        })
        .collect()
}

/// The threads the candidates ran on (rayon's global pool: `RAYON_NUM_THREADS`, else the cores).
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&t| t > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Today's UTC date from `date -u +%F` (the bench has no calendar crate).
fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%F"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn csv(samples: &[Sample], prior: &Prior) -> String {
    let mut text = String::from(
        "scene,n,candidate,window,bodies,pairs_per_body,speed_mean,speed_known,clustering,size_spread,resting,ms,predicted_ms\n",
    );
    for s in samples {
        let f = &s.features;
        let predicted = predict(prior, s).unwrap_or(f64::NAN);
        let window = if s.is_build() { "build".to_owned() } else { s.window.to_string() };
        let _ = writeln!(
            text,
            "{},{},{},{},{},{:.4},{:.5},{},{:.3},{:.3},{:.3},{:.4},{:.4}",
            s.scene,
            s.n,
            s.candidate,
            window,
            f.n,
            f.pairs_per_body,
            f.speed_mean,
            f.speed_known,
            f.clustering,
            f.size_spread,
            f.resting,
            s.ms,
            predicted
        );
    }
    text
}

/// The prior's prediction for a row: its steady frame, or its build.
fn predict(prior: &Prior, s: &Sample) -> Option<f64> {
    let p = if s.is_build() {
        prior.predict_build(s.candidate, &s.features)
    } else {
        prior.predict(s.candidate, &s.features)
    };
    p.map(|p| p.0)
}

fn chart(samples: &[Sample], prior: &Prior) -> Chart {
    let mut chart = Chart::new(
        "Calibration: the prior's predicted broadphase time against the measured one (a dot per 10-frame window, a cross per build)",
        "measured ms per frame",
        "predicted ms per frame",
    )
    .log(true, true);
    let (lo, hi) = samples.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), s| (lo.min(s.ms), hi.max(s.ms)));
    for candidate in candidates() {
        let points: Vec<(f64, f64)> = samples
            .iter()
            .filter(|s| s.candidate == candidate.name)
            .filter_map(|s| Some((s.ms, predict(prior, s)?)))
            .collect();
        let mut series = Series::line(candidate.name, points);
        series.style = Style::Points;
        chart.series.push(series);
    }
    if lo < hi {
        chart.series.push(Series::styled(
            "predicted = measured",
            vec![(lo, lo), (hi, hi)],
            Style::Dashed,
            super::plot::REFERENCE,
        ));
    }
    chart
}

/// For every (scene, n, window) that every candidate measured: the prior's pick, and the fastest.
fn picks(samples: &[Sample], prior: &Prior) -> (usize, usize, f64) {
    let mut keys: Vec<(&str, usize, usize)> =
        samples.iter().filter(|s| !s.is_build()).map(|s| (s.scene, s.n, s.window)).collect();
    keys.sort_unstable();
    keys.dedup();
    let count = candidates().len();
    let (mut windows, mut right, mut regret) = (0, 0, 0.0);
    for key in keys {
        let here: Vec<&Sample> = samples.iter().filter(|s| (s.scene, s.n, s.window) == key).collect();
        if here.len() != count {
            continue;
        }
        let fastest = here.iter().map(|s| s.ms).fold(f64::INFINITY, f64::min);
        let pick = here
            .iter()
            .min_by(|a, b| {
                let p = |s: &Sample| prior.predict(s.candidate, &s.features).map_or(f64::INFINITY, |p| p.0);
                p(a).total_cmp(&p(b))
            })
            .expect("not empty");
        windows += 1;
        right += usize::from(pick.ms <= fastest);
        regret += pick.ms / fastest;
    }
    (windows, right, if windows > 0 { regret / windows as f64 } else { f64::NAN })
}

fn section_body(samples: &[Sample], prior: &Prior, plot: &str) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "Every candidate of `auto` pinned through {} scenes at {} bodies, from its first frame; one row per \
         {WINDOW}-frame window after the first two frames (the features `auto` measures and the median broadphase \
         ms) and one per run for the build (the first two frames' excess over two steady ones). Per candidate, two \
         models `ln ms = Σ wₖ·xₖ` over the regressors {} are fitted by ridge regression, the steady frame and the \
         build. The fit is `prior.toml` beside this report (`--install` copies it into \
         `crates/collide-selector/data/prior.toml`). Rows: `calibrate.csv`.\n",
        samples.iter().map(|s| s.scene).collect::<std::collections::BTreeSet<_>>().len(),
        sizes_text(samples),
        REGRESSOR_NAMES.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", "),
    );
    body.push_str(&report::image(plot, "predicted against measured"));
    body.push_str("\n\n");
    let rows = prior.fits.iter().map(|f| {
        vec![
            format!("`{}`", f.name),
            f.points.to_string(),
            format!("{:.2} (×/÷ {:.2})", f.rmse, f.rmse.exp()),
            f.build_points.to_string(),
            format!("{:.2} (×/÷ {:.2})", f.build_rmse, f.build_rmse.exp()),
            format!("`{}`", f.params),
        ]
    });
    body.push_str(&report::table(
        &["candidate", "windows", "steady rmse (ln ms)", "builds", "build rmse", "parameters"],
        rows,
    ));
    let (windows, right, regret) = picks(samples, prior);
    let _ = writeln!(
        body,
        "\nOn the {windows} windows every candidate measured, the prior alone picks the fastest candidate in {right} \
         ({:.0}%); its pick costs on average {regret:.2}× the fastest. `auto` does not rely on the prior alone: it \
         measures the active candidate every frame and probes the others before switching.\n",
        100.0 * right as f64 / windows.max(1) as f64
    );
    body
}

fn sizes_text(samples: &[Sample]) -> String {
    let sizes: std::collections::BTreeSet<usize> = samples.iter().map(|s| s.n).collect();
    sizes.iter().map(|n| report::count(*n)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
