//! `replay`: every broadphase and the peers on recorded box streams — Broadmark's `.aabbs` files, baked by a real
//! physics engine (`cargo xtask record-rapier`) or by any other program — the scenes nobody here generated.
//!
//! For every `.aabbs` file of the scenes folder (sorted by name), one streaming pass first checks every box and
//! computes the answer with brute force (`reference_pairs`) on the frames where that is affordable: every frame
//! up to [`EVERY_FRAME_MAX`](super::replay_play::EVERY_FRAME_MAX) boxes, above that frames spread evenly over the file, as many as the check budget's
//! O(n²) box tests allow (at least two: the first and the last). Then each contender plays the whole file alone,
//! streamed again from the disk cache:
//!
//! - ours, every row of `collide_algorithms::ALGORITHMS` (`auto` included; brute force up to the mode's
//!   `brute_max`), through `collide_sim::Replay` — exactly what `collide --headless --replay FILE` runs: the exact
//!   motion hint (a box bit for bit unchanged is resting), the broadphase phase timed alone;
//! - the peers as the peers study drives them (parry's BVH rebuilt and refitted, rstar's bulk-loaded join), each
//!   frame read untimed, the pair query timed.
//!
//! Every frame's time is kept (`replay-frames.csv`, the per-file plots): a recording changes over its length —
//! the free fall's pile comes to rest — so the report gives both the whole file's mean and the mean of its last
//! quarter, the "at rest" part. The statistics leave out the first frame (every structure is built cold there).
//! Each contender's pairs are compared with the brute-force answer on every checked frame.
//!
//! Rounds (`--rounds N`, default 1): every contender plays each file once a round, the rounds alternately forward
//! and backward through the contenders, and each contender's frame times are the medians of its rounds' times of
//! each frame (`median_play`): on a machine whose speed drifts over minutes, ratios of plays made minutes apart
//! are noise.
//!
//! Budgets: a contender's series on one file has a time budget. Once half of it is spent before the last quarter,
//! the contender jumps to a few frames before the last quarter (a seek: the structures are kept, every box counts
//! as moved), so that every contender is timed at rest, however slow it was on the way. The play stops when the
//! budget is spent or after a frame over the frame limit; its row says so, and its statistics cover the frames it
//! played.
//!
//! Layers, imports pointing down: `replay_play.rs` (one file checked, and one contender's play of it) ←
//! `replay_report.rs` (the CSVs, plots and section) ← this module (the scenes folder and the study).
//!
//! # Complexity
//!
//! Per file of n boxes and F frames: 1 + 2·(ours) + (peers) streaming passes of O(n·F) over the file (the check
//! pass; each of ours checks the file again before playing — `Replay`'s contract — then plays it), O(n²) box tests
//! on each checked frame, and each contender's own cost per frame. Memory: one frame of boxes per pass, and the brute-force
//! pairs of the checked frames (at most [`MAX_CHECKED`](super::replay_play::MAX_CHECKED) above
//! [`EVERY_FRAME_MAX`](super::replay_play::EVERY_FRAME_MAX) boxes).
//!
//! # Performance tips
//!
//! - The file is read once per contender: keep it where the operating system can cache it (a 100 000-box,
//!   200-frame file is 640 MB), or every contender pays the disk.
//! - A very long recording is cut by the budget, not skipped: the jump keeps the last quarter measured.

use super::Ctx;
use super::contenders;
use super::measure;
use super::replay_play::{Budgets, Play, Scene, play_ours, play_peer, prepare};
use super::replay_report;
use collide_aabbs::{Reader, Writer};
use collide_algorithms::{ALGORITHMS, Params};
use collide_sim::Summary;
use std::path::{Path, PathBuf};

/// Where the scenes come from, found before any study runs so that a bad folder or file stops the bench at once.
#[derive(Clone, Debug)]
pub enum Scenes {
    /// The `.aabbs` files of a folder, sorted by name, every header checked.
    Files(Vec<PathBuf>),
    /// No folder and no fixtures (`--quick`): the study records a small scene of its own with `collide_sim`.
    Record,
    /// A full run of every study without `--scenes` and without `target/rapier-scenes/`: the study says why in
    /// the report and runs nothing.
    Absent(String),
}

/// The committed fixtures (`--quick`'s default).
fn fixtures() -> PathBuf {
    crate::root().join("tests").join("fixtures").join("aabbs")
}

/// The scenes `cargo xtask record-rapier` bakes (the full run's default).
fn rapier_scenes() -> PathBuf {
    crate::root().join("target").join("rapier-scenes")
}

/// The scenes of this run: `--scenes DIR` (which must hold `.aabbs` files), else `target/rapier-scenes/` in a full
/// run (when the study was asked for by name, its absence is an error) or the committed fixtures with `--quick`
/// (when there are none, a scene the study records itself).
pub fn scenes(dir: Option<&Path>, quick: bool, asked_by_name: bool) -> Result<Scenes, String> {
    if let Some(dir) = dir {
        return folder(dir).map(Scenes::Files);
    }
    let default = if quick { fixtures() } else { rapier_scenes() };
    if has_scenes(&default) {
        return folder(&default).map(Scenes::Files);
    }
    match (quick, asked_by_name) {
        (true, _) => Ok(Scenes::Record),
        (false, true) => Err(format!(
            "the replay study needs scenes: pass --scenes DIR, or bake {} with `cargo xtask record-rapier`",
            default.display()
        )),
        (false, false) => Ok(Scenes::Absent(format!(
            "no `--scenes DIR` and no {} (bake it with `cargo xtask record-rapier`)",
            default.display()
        ))),
    }
}

/// `true` when `dir` is a folder holding at least one `.aabbs` file.
fn has_scenes(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut it| it.any(|e| e.is_ok_and(|e| is_aabbs(&e.path()))))
}

fn is_aabbs(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "aabbs") && path.is_file()
}

/// The `.aabbs` files of `dir`, sorted by name, each opened (its header and size checked): one line naming the
/// folder or the file when something is wrong.
fn folder(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("--scenes {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| is_aabbs(p)).collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("--scenes {}: no .aabbs files in this folder", dir.display()));
    }
    for file in &files {
        Reader::open(file).map_err(|e| e.to_string())?;
    }
    Ok(files)
}

/// The replay study.
pub fn replay(ctx: &mut Ctx) -> Result<(), String> {
    let files = match ctx.scenes.clone() {
        Scenes::Files(files) => files,
        Scenes::Record => vec![record_quick_scene(ctx)?],
        Scenes::Absent(why) => {
            ctx.progress.say(&format!("bench: replay skipped: {why}"));
            replay_report::absent(ctx, &why);
            return Ok(());
        }
    };
    let names: Vec<String> = contenders::names().into_iter().filter(|n| ctx.runs(n)).collect();
    ctx.progress.plan(files.len() * names.len() * ctx.rounds);
    let mut results = Vec::new();
    for path in &files {
        let scene = prepare(path, Budgets::of(ctx.quick), &mut ctx.progress)?;
        let plays = play_all(ctx, &scene)?;
        results.push((scene, plays));
    }
    replay_report::write(ctx, &results)
}

/// Every contender on `scene`, one after another, in [`Ctx::rounds`] rounds: forward, then backward, and so
/// on, each contender's frame times the medians over its rounds ([`median_play`]).
///
/// **Why rounds:** the development VMs drift. On an AMD EPYC VM the same headless `kd` replay of brownian 10⁴ ran
/// 0.51 to 0.66 ms a frame in runs a minute apart, and `auto`, on `kd` from frame 5, came out 1.2–1.3× pinned `kd`
/// over frames 30–120 of one study, played minutes after it: the ratios the targets judge were the machine's.
/// A round played backward after one played forward puts every contender's plays at the same mean distance
/// from the first.
fn play_all(ctx: &mut Ctx, scene: &Scene) -> Result<Vec<Play>, String> {
    let n = scene.header.n as usize;
    let budgets = Budgets::of(ctx.quick);
    let ours: Vec<_> = ALGORITHMS.iter().filter(|a| ctx.runs(a.name)).collect();
    let peer_names: Vec<String> = contenders::peers().iter().map(|p| p.name()).filter(|name| ctx.runs(name)).collect();
    let count = ours.len() + peer_names.len();
    let rounds = ctx.rounds;
    let mut plays: Vec<Vec<Play>> = (0..count).map(|_| Vec::new()).collect();
    for round in 0..rounds {
        // Fresh peers each round: a peer keeps its structures from frame to frame.
        let mut peers: Vec<_> = contenders::peers().into_iter().filter(|p| peer_names.contains(&p.name())).collect();
        let of_rounds = measure::round_label(round, rounds);
        for i in measure::round_order(round, count) {
            let play = if let Some(a) = ours.get(i) {
                if a.name == "brute" && n > ctx.limits.brute_max {
                    let status = format!("skipped: brute force runs only up to {} boxes", ctx.limits.brute_max);
                    Play::skipped(a.name, status)
                } else {
                    ctx.progress.start(&format!("replay: {} on {} ({n} boxes{of_rounds})", a.name, scene.name));
                    play_ours(scene, a, budgets)?
                }
            } else {
                let peer = &mut peers[i - ours.len()];
                ctx.progress.start(&format!("replay: {} on {} ({n} boxes{of_rounds})", peer.name(), scene.name));
                play_peer(scene, peer.as_mut(), budgets)?
            };
            plays[i].push(play);
            ctx.progress.finish_one();
        }
    }
    Ok(plays.into_iter().map(median_play).collect())
}

/// Of one contender's plays of a file (one a round), what to report: a play whose pairs did not match brute force,
/// so that no round hides a mismatch; else the play with the median mean over the frames after the first (of two,
/// the faster), its frames' times the medians over the rounds ([`measure::per_frame_median`]) when every round
/// played the same frames. Its pairs and the candidates `auto` ran are the median play's.
fn median_play(mut plays: Vec<Play>) -> Play {
    if let Some(i) = plays.iter().position(|p| p.check.starts_with("MISMATCH")) {
        return plays.swap_remove(i);
    }
    // The mean `row` reports: the first frame, cold, left out.
    let median = measure::sort_to_median(&mut plays, |p| Summary::of(&p.ms[usize::from(p.ms.len() > 1)..]).mean);
    let same_frames = plays.windows(2).all(|w| w[0].frames == w[1].frames);
    let per_frame =
        measure::per_frame_median(&plays.iter().map(|p| p.ms.as_slice()).collect::<Vec<_>>()).filter(|_| same_frames);
    let mut play = plays.swap_remove(median);
    if let Some(ms) = per_frame {
        play.ms = ms;
    }
    play
}

/// Bodies and steps of the scene `--quick` records when there are no fixtures: a cluster pulled together, so the
/// pairs change over the file.
const QUICK_SCENE: (usize, usize) = (1500, 60);

/// Record [`QUICK_SCENE`] with `collide_sim` into `replay-scenes/` of the output folder.
fn record_quick_scene(ctx: &mut Ctx) -> Result<PathBuf, String> {
    let (n, steps) = QUICK_SCENE;
    let dir = ctx.out.join("replay-scenes");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = format!("collide-cluster-{n}.aabbs");
    let path = dir.join(&file);
    ctx.progress.start(&format!("replay: recording {file} (no fixtures in {})", fixtures().display()));
    let driver = ALGORITHMS.iter().find(|a| a.name != "brute").unwrap_or(&ALGORITHMS[0]);
    let cfg = measure::config("cluster", n, None, driver, &Params::defaults(driver.params), false);
    let mut sim = measure::simulation(&cfg)?;
    let mut writer =
        Writer::create(&path, "collide cluster", "Spheres", n, sim.setup().container).map_err(|e| e.to_string())?;
    for _ in 0..steps {
        sim.step(collide_timing::FRAME_60HZ);
        writer.write_frame(sim.aabbs()).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    ctx.files.push(format!("replay-scenes/{file}"));
    Ok(path)
}

#[cfg(test)]
mod tests;
