//! `python`: collide from Python against `scipy.spatial.cKDTree`, and against the same algorithm called from Rust.
//!
//! Researchers who compare broadphases mostly work in Python, where `cKDTree.query_pairs` is what they run for
//! spheres. This study times what they would get from collide's Python module (`crates/collide-py`) on the
//! `uniform` scene's spheres (radius 0.5, 2% volume fraction) at 10⁴ and 10⁵ bodies:
//!
//! 1. A driver simulation records [`FRAMES`] frames after a warm-up and writes them as a `.aabbs` file (into the
//!    target folder), which both sides read: the very same boxes, bit for bit.
//! 2. From Rust, every candidate of `auto` (every registered algorithm but `brute` and `pair-count`) plays the
//!    frames; the fastest is the study's *best pinned* algorithm at that size.
//! 3. [`ROUNDS`] rounds, each a fresh Python process (`crates/collide-py/bench/python_study.py`, in the virtual
//!    environment of `pyenv.rs`, with scipy) that times `cKDTree.query_pairs(2r)` (the sphere pairs) and `cKDTree`
//!    at radius 2r·√3 filtered to the box pairs (collide's exact answer), then, for `auto` and the best, four plays
//!    on each side in turn which first: `collide.Broadphase(name)` from Python, and the same algorithm from Rust
//!    inside the same process (`collide._collide._play_from_rust`: the file's frames in memory, each `find_pairs`
//!    timed alone, on one of rayon's threads inside `keep_awake`, as the module's own calls run). Each play is a
//!    fresh broadphase fed the frames in order, the first [`WARM`] not timed. Every frame of collide's answer from
//!    Python is compared with the filtered `cKDTree` set, and the Rust side's pair counts with its size.
//! 4. Per contender the median over rounds of its mean frame time; the ratios, each the median over rounds of
//!    the round's ratio of means: cKDTree over collide from Python (issue 33's targets: ≥ 15× at 10⁵, ≥ 10× at
//!    10⁴) and collide from Python over collide from Rust (≤ 1.15×).
//!
//! Rows: `python.csv` (one per size × contender × side × round, with the frames each algorithm answered), the
//! report's section with both ratios per size and the candidates `auto` ran in the timed frames on each side (a
//! gap between the sides is either a different choice or the same candidate costing more). Run it alone into its
//! own folder: `cargo xtask bench --study python --out bench-results/<machine>/python`.
//!
//! **Why both sides in one process, a second apart:** on this shared machine a play's speed drifts with the
//! machine's (the same `grid` play from Rust measured 1.85 and 3.65 ms a frame a minute apart). Earlier versions
//! timed the Rust side in processes of its own, seconds before or after the Python process's plays; three runs of
//! eleven rounds then put `grid`'s Python ÷ Rust at 1.100, 1.184 and 1.161 while in one process, side by side, the
//! gap was the copy of the boxes (the fastest frame 1.81–1.95 ms from Python, 1.67–1.72 from Rust). Every play is
//! a fresh broadphase on frames the plays before it did not touch; the process's first play, from Python, alone
//! meets a heap no play has warmed, which counts against Python only.
//!
//! # Complexity
//!
//! Per size: the driver's warm-up and frames, every candidate's frames once, and per round one Python process
//! (numpy and scipy imports, the file read, two cKDTree plays, and per collide contender four plays from Python and
//! four from Rust, each of which reads the file again).

use super::Ctx;
use super::measure;
use super::report::{self, Section};
use collide_algorithms::{Aabb, Frame, PairList, Params};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Frames recorded per size, and the first of them that are run but not timed.
const FRAMES: usize = 40;
const WARM: usize = 5;
/// Rounds (Python processes) per size: the machine is shared, so each figure is a median of rounds.
const ROUNDS: usize = 9;

/// The sizes, frames, warm frames and rounds of this mode.
fn plan(quick: bool) -> (Vec<usize>, usize, usize, usize) {
    if quick { (vec![2000], 6, 2, 1) } else { (vec![10_000, 100_000], FRAMES, WARM, ROUNDS) }
}

/// One contender's timed frames in one round.
#[derive(Clone, Debug)]
struct Timing {
    contender: String,
    /// `python` or `rust`.
    side: &'static str,
    round: usize,
    ms: Vec<f64>,
    pairs: u64,
    check: String,
    /// The algorithm that answered each timed frame, counted: for `auto` the candidates it ran, in the order it
    /// first ran them (the two sides' `auto` may take different turns: one thing a gap between them can be).
    active: Vec<(String, usize)>,
}

impl Timing {
    fn mean(&self) -> f64 {
        self.ms.iter().sum::<f64>() / self.ms.len().max(1) as f64
    }

    /// The median frame (nearest rank): a frame the shared machine took away does not move it.
    fn p50(&self) -> f64 {
        let mut sorted = self.ms.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
    }
}

/// Run the study.
pub fn python(ctx: &mut Ctx) -> Result<(), String> {
    let (sizes, frames, warm, rounds) = plan(ctx.quick);
    let venv = crate::pyenv::ensure_venv(&["scipy>=1.11"])?;
    let script = crate::pyenv::crate_dir().join("bench").join("python_study.py");
    let dir = crate::target_dir().join("bench-python");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut all = Vec::new();
    let mut body = String::from(
        "Targets (issue 33): collide from Python ≥ 15× faster than `cKDTree.query_pairs(2r)` at 10⁵ bodies and ≥ 10× \
         at 10⁴, and within 1.15× of the same algorithm from Rust at 10⁵; judged on the median over rounds of each \
         round's ratio of means, both sides cold in processes of their own. The machine is shared: each size gives \
         the load average (1, 5, 15 minutes) before it.\n\n",
    );
    for &n in &sizes {
        let (boxes, file) = record(n, frames, &dir)?;
        let best = best_pinned(&boxes, warm)?;
        let load = load_average();
        let mut timings = Vec::new();
        let names = ["auto", best.as_str()];
        for round in 0..rounds {
            timings.extend(python_round(&venv, &script, &file, warm, round, &names)?);
        }
        for t in timings.iter().filter(|t| t.check != "ok") {
            ctx.mismatches.push(format!("python n={n} {} ({}) round {}: {}", t.contender, t.side, t.round, t.check));
        }
        body.push_str(&size_section(n, &best, &timings, &load));
        all.extend(timings.into_iter().map(|t| (n, t)));
    }
    write_csv(ctx, &all)?;
    ctx.sections.push(Section { title: "python: collide from Python, cKDTree, and Rust".into(), body });
    Ok(())
}

/// Record the `uniform` scene at `n` bodies: the boxes of `frames` frames after a warm-up, and the same frames as
/// a `.aabbs` file in `dir`.
fn record(n: usize, frames: usize, dir: &Path) -> Result<(Vec<Vec<Aabb>>, PathBuf), String> {
    let driver = collide_algorithms::find("grid").map_err(|e| e.to_string())?;
    let cfg = measure::config("uniform", n, None, driver, &Params::defaults(driver.params), false);
    let mut sim = measure::simulation(&cfg)?;
    for _ in 0..10 {
        sim.step(collide_timing::FRAME_60HZ);
    }
    let file = dir.join(format!("uniform-{n}.aabbs"));
    let world = Aabb::from_points(sim.aabbs().iter().flat_map(|b| [b.min, b.max]));
    let mut writer =
        collide_aabbs::Writer::create(&file, "collide uniform", "Spheres", n, world).map_err(|e| e.to_string())?;
    let mut boxes = Vec::with_capacity(frames);
    for _ in 0..frames {
        sim.step(collide_timing::FRAME_60HZ);
        writer.write_frame(sim.aabbs()).map_err(|e| e.to_string())?;
        boxes.push(sim.aabbs().to_vec());
    }
    writer.finish().map_err(|e| e.to_string())?;
    Ok((boxes, file))
}

/// The fastest of `auto`'s candidates from Rust on these frames (mean of the timed frames, one play each).
fn best_pinned(boxes: &[Vec<Aabb>], warm: usize) -> Result<String, String> {
    let mut best: Option<(f64, &str)> = None;
    for name in collide_algorithms::names().filter(|n| !["brute", "pair-count", "auto"].contains(n)) {
        let frames = play(name, boxes, warm)?;
        let mean = frames.iter().map(|&(ms, _, _)| ms).sum::<f64>() / frames.len().max(1) as f64;
        if best.is_none_or(|(b, _)| mean < b) {
            best = Some((mean, name));
        }
    }
    best.map(|(_, name)| name.to_owned()).ok_or_else(|| "no candidate to time".to_owned())
}

/// Count `frames` more frames answered by `name` in `tally` (names in the order first met).
fn add_frames(tally: &mut Vec<(String, usize)>, name: &str, frames: usize) {
    match tally.iter_mut().find(|(n, _)| n == name) {
        Some((_, sum)) => *sum += frames,
        None => tally.push((name.to_owned(), frames)),
    }
}

/// `name` from Rust: a fresh broadphase fed every frame in order, the frames after `warm` timed around
/// `find_pairs` alone, called as the Python module calls it: on one of rayon's threads (the study runs on one, as
/// `collide_algorithms::on_worker` asks) inside `keep_awake`. Each timed frame's milliseconds, pair count and the
/// algorithm that answered it.
fn play(name: &str, boxes: &[Vec<Aabb>], warm: usize) -> Result<Vec<(f64, usize, &'static str)>, String> {
    let mut broadphase = collide_algorithms::build_default(name).map_err(|e| e.to_string())?;
    let mut pairs = PairList::new();
    let mut timed = Vec::with_capacity(boxes.len().saturating_sub(warm));
    for (f, frame) in boxes.iter().enumerate() {
        let start = Instant::now();
        // The call as the Python module makes it (there after the copy of the boxes): on a pool thread, with the
        // pool's other threads kept awake through it.
        collide_algorithms::keep_awake(|| broadphase.find_pairs(&Frame::new(frame).with_step(f as u64), &mut pairs));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if f >= warm {
            timed.push((ms, pairs.len(), broadphase.active_name()));
        }
    }
    Ok(timed)
}

/// One fresh Python process timing cKDTree, and collide (`names`) from Python and from Rust, on `file`: it writes
/// its timings to a file in the script's line format, read back here.
fn python_round(
    venv: &Path,
    script: &Path,
    file: &Path,
    warm: usize,
    round: usize,
    names: &[&str],
) -> Result<Vec<Timing>, String> {
    let out = file.with_extension(format!("round{round}.tsv"));
    let python = crate::pyenv::python_in(venv);
    let status = std::process::Command::new(&python)
        .arg(script)
        .envs(crate::pyenv::venv_env(venv))
        .arg(file)
        .arg(warm.to_string())
        .arg(&out)
        .args(names)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("the python study's round {round} failed on {} ({status})", file.display()));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    parse_round(&text, round)
}

/// The script's lines (`contender, side, frame, ms, pairs, check, active`) as one [`Timing`] per contender and side,
/// in order of first appearance: a side's plays in the round are one timing (its frames, all plays').
fn parse_round(text: &str, round: usize) -> Result<Vec<Timing>, String> {
    let mut timings: Vec<Timing> = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [contender, side, _frame, ms, pairs, check, active] = fields[..] else {
            return Err(format!("python study: a line with {} fields: `{line}`", fields.len()));
        };
        let side = match side {
            "python" => "python",
            "rust" => "rust",
            _ => return Err(format!("python study: side `{side}` (python or rust) in `{line}`")),
        };
        let ms: f64 = ms.parse().map_err(|_| format!("python study: bad time in `{line}`"))?;
        let pairs: u64 = pairs.parse().map_err(|_| format!("python study: bad pair count in `{line}`"))?;
        let position = timings.iter().position(|t| t.contender == contender && t.side == side);
        let timing = if let Some(i) = position {
            &mut timings[i]
        } else {
            timings.push(Timing {
                contender: contender.to_owned(),
                side,
                round,
                ms: Vec::new(),
                pairs: 0,
                check: "ok".into(),
                active: Vec::new(),
            });
            timings.last_mut().expect("just pushed")
        };
        add_frames(&mut timing.active, active, 1);
        timing.ms.push(ms);
        timing.pairs += pairs;
        if check != "ok" {
            timing.check = check.to_owned();
        }
    }
    Ok(timings)
}

/// The 1-, 5- and 15-minute load averages (the machine is shared: every figure is reported beside its load).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

/// The median over rounds of `contender`'s mean frame time on `side`.
fn median_mean(timings: &[Timing], contender: &str, side: &str) -> Option<f64> {
    median_of(timings, contender, side, Timing::mean)
}

/// The median over rounds of `stat` of `contender`'s frames on `side`.
fn median_of(timings: &[Timing], contender: &str, side: &str, stat: fn(&Timing) -> f64) -> Option<f64> {
    let mut values: Vec<f64> =
        timings.iter().filter(|t| t.contender == contender && t.side == side).map(stat).collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// The median over rounds of `a`'s mean over `b`'s mean in the same round (each a contender and a side). The
/// machine's speed drifts by more than the 15% being judged over the minute a size takes (`grid` from Rust measured
/// 1.76 ms in one round and 3.11 ms two rounds later), and a round's two sides run within seconds of each other:
/// pairing them by round takes the drift out, which the ratio of two separate medians would not.
fn median_round_ratio(timings: &[Timing], a: (&str, &str), b: (&str, &str)) -> Option<f64> {
    let mean_of = |(contender, side): (&str, &str), round| {
        timings.iter().find(|t| t.contender == contender && t.side == side && t.round == round).map(Timing::mean)
    };
    let rounds: std::collections::BTreeSet<usize> = timings.iter().map(|t| t.round).collect();
    let mut ratios: Vec<f64> =
        rounds.into_iter().filter_map(|r| mean_of(a, r).zip(mean_of(b, r)).map(|(a, b)| a / b)).collect();
    ratios.sort_by(f64::total_cmp);
    ratios.get(ratios.len() / 2).copied()
}

/// The report's part for one size: each contender's time, the two ratios per collide contender, the targets.
fn size_section(n: usize, best: &str, timings: &[Timing], load: &str) -> String {
    let mut s = String::new();
    let (speedup_target, ratio_target) = (if n >= 100_000 { 15.0 } else { 10.0 }, 1.15);
    let _ = writeln!(
        s,
        "### {} bodies (`uniform`, radius 0.5; best pinned from Rust: `{best}`; load before the size: {load})\n",
        report::count(n)
    );
    let mut rows = Vec::new();
    for (label, contender, side) in [
        ("cKDTree.query_pairs(2r), sphere pairs", "ckdtree-spheres", "python"),
        ("cKDTree at 2r·√3, filtered to box pairs", "ckdtree-boxes", "python"),
    ] {
        let ms = median_mean(timings, contender, side);
        let p50 = median_of(timings, contender, side, Timing::p50);
        rows.push(vec![
            label.to_owned(),
            ms.map_or("-".into(), report::ms),
            p50.map_or("-".into(), report::ms),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
    }
    for name in ["auto", best] {
        let py = median_mean(timings, name, "python");
        let rust = median_mean(timings, name, "rust");
        let (py50, rust50) =
            (median_of(timings, name, "python", Timing::p50), median_of(timings, name, "rust", Timing::p50));
        let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
        let speedup = median_round_ratio(timings, ("ckdtree-spheres", "python"), (name, "python"));
        let over_rust = median_round_ratio(timings, (name, "python"), (name, "rust"));
        let mark = |ok: bool| if ok { "met" } else { "**not met**" };
        rows.push(vec![
            format!("collide `{name}` from Python"),
            py.map_or("-".into(), report::ms),
            py50.map_or("-".into(), report::ms),
            speedup.map_or("-".into(), |v| format!("{v:.1}× ({} ≥ {speedup_target}×)", mark(v >= speedup_target))),
            median_round_ratio(timings, ("ckdtree-boxes", "python"), (name, "python"))
                .map_or("-".into(), |v| format!("{v:.1}×")),
            over_rust.map_or("-".into(), |v| {
                let p50 = ratio(py50, rust50).map_or("-".into(), |r| format!("{r:.3}"));
                // Issue 33 sets this target at 10⁵ bodies only: at 10⁴ a frame is a fifth of a millisecond, and the
                // call's fixed costs (the hand-over to the pool, the arrays' checks) are a tenth of it.
                let verdict = if n >= 100_000 {
                    format!("{} ≤ {ratio_target}", mark(v <= ratio_target))
                } else {
                    "no target at this size".to_owned()
                };
                format!("{v:.3} ({verdict}); median frames {p50}")
            }),
        ]);
        rows.push(vec![
            format!("collide `{name}` from Rust"),
            rust.map_or("-".into(), report::ms),
            rust50.map_or("-".into(), report::ms),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
    }
    s.push_str(&report::table(
        &[
            "contender",
            "mean ms per frame (median of rounds)",
            "median frame ms (median of rounds)",
            "cKDTree spheres ÷ this (median of the rounds' ratios of means)",
            "cKDTree boxes ÷ this (same)",
            "Python ÷ Rust (same; median frames: ratio of the medians)",
        ],
        rows,
    ));
    let _ = writeln!(
        s,
        "\nThe candidates `auto` ran, in timed frames over all rounds: from Python {}; from Rust {}.",
        active_summary(timings, "auto", "python"),
        active_summary(timings, "auto", "rust")
    );
    s.push('\n');
    s
}

/// The algorithms that answered `contender`'s timed frames on `side`, summed over rounds, most frames first:
/// `grid 231, hgrid 14`.
fn active_summary(timings: &[Timing], contender: &str, side: &str) -> String {
    let mut total = Vec::new();
    for t in timings.iter().filter(|t| t.contender == contender && t.side == side) {
        for (name, frames) in &t.active {
            add_frames(&mut total, name, *frames);
        }
    }
    total.sort_by_key(|&(_, frames)| std::cmp::Reverse(frames));
    if total.is_empty() {
        return "-".into();
    }
    total.iter().map(|(name, frames)| format!("`{name}` {frames}")).collect::<Vec<_>>().join(", ")
}

/// `python.csv`: one row per size × contender × side × round.
fn write_csv(ctx: &mut Ctx, all: &[(usize, Timing)]) -> Result<(), String> {
    let mut text =
        String::from("n,contender,side,round,frames,mean_ms,p50_ms,max_ms,pairs_per_frame,check,active_frames\n");
    for (n, t) in all {
        let mut sorted = t.ms.clone();
        sorted.sort_by(f64::total_cmp);
        let p50 = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
        let max = sorted.last().copied().unwrap_or(f64::NAN);
        let _ = writeln!(
            text,
            "{n},{},{},{},{},{:.4},{p50:.4},{max:.4},{:.1},{},{}",
            t.contender,
            t.side,
            t.round,
            t.ms.len(),
            t.mean(),
            t.pairs as f64 / t.ms.len().max(1) as f64,
            t.check,
            t.active.iter().map(|(name, frames)| format!("{name}:{frames}")).collect::<Vec<_>>().join(" ")
        );
    }
    ctx.write_text("python.csv", &text)
}

#[cfg(test)]
mod tests;
