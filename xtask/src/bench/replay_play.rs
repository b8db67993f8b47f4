//! One recorded file in the replay study: the streaming pass that checks it and computes brute force's answer on
//! its checked frames ([`prepare`]), and one contender's play of the whole file — ours through `collide_sim::Replay`
//! ([`play_ours`]), a peer reading each frame untimed ([`play_peer`]) — counted against those answers and the
//! budgets, with the jump to the last quarter ([`Tally`]). [`row`] is a play's summary row. The study around it
//! is `replay.rs`.

use super::contenders::{self, Contender};
use super::measure;
use super::progress::Progress;
use super::rows::{DtMode, Metric, Row};
use collide_aabbs::{Header, Reader};
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::{Pair, PairList, reference_pairs};
use collide_sim::{Phase, Replay, ReplaySetup, Summary};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Files with up to this many boxes are checked against brute force on every frame.
pub const EVERY_FRAME_MAX: usize = 2000;

/// Above [`EVERY_FRAME_MAX`], at most this many frames are checked (the answers are kept in memory until every
/// contender has played the file).
pub const MAX_CHECKED: usize = 64;

/// One file, checked, with the brute-force answer of its checked frames.
pub struct Scene {
    /// The file.
    pub path: PathBuf,
    /// Its name without the folder (the CSV's `scenario`, the plot's name).
    pub name: String,
    /// Its header.
    pub header: Header,
    /// The frames checked against brute force and their answers, in frame order.
    pub truth: Vec<(u64, PairList)>,
    /// The memory floor, ms (median over sampled frames).
    pub floor_ms: f64,
}

/// The frames of a file of `n` boxes and `frames` frames to check against brute force: all of them up to
/// [`EVERY_FRAME_MAX`] boxes; above, as many as `budget` box tests allow (O(n²) each), at least two and at most
/// [`MAX_CHECKED`], spread evenly from the first frame to the last.
#[must_use]
pub fn check_frames(n: usize, frames: u64, budget: f64) -> Vec<u64> {
    if n <= EVERY_FRAME_MAX || frames <= 2 {
        return (0..frames).collect();
    }
    let per_frame = n as f64 * (n as f64 - 1.0) / 2.0;
    let k = ((budget / per_frame) as u64).clamp(2, MAX_CHECKED as u64).min(frames);
    (0..k).map(|i| i * (frames - 1) / (k - 1)).collect()
}

/// The study's budgets in one mode.
#[derive(Clone, Copy, Debug)]
pub struct Budgets {
    /// Brute-force box tests the checks of one file may cost.
    pub check_tests: f64,
    /// How long one contender may play one file.
    pub series: Duration,
    /// After this long a play still short of the last quarter jumps there (half the series budget).
    pub jump_after: Duration,
    /// A frame slower than this, ms, ends a contender's play.
    pub frame_ms: f64,
}

impl Budgets {
    /// The budgets of `--quick` or of a full run.
    #[must_use]
    pub fn of(quick: bool) -> Self {
        if quick {
            let series = Duration::from_secs(3);
            Self { check_tests: 2e8, series, jump_after: series / 2, frame_ms: 1000.0 }
        } else {
            let series = Duration::from_secs(90);
            Self { check_tests: 3e10, series, jump_after: series / 2, frame_ms: 2500.0 }
        }
    }
}

/// Stream `path` once: every box checked as it is decoded, the answer of every checked frame, the memory floor.
pub fn prepare(path: &Path, budgets: Budgets, progress: &mut Progress) -> Result<Scene, String> {
    let mut reader = Reader::open(path).map_err(|e| e.to_string())?;
    let header = reader.header().clone();
    let wanted = check_frames(header.n as usize, header.frames, budgets.check_tests);
    let name = path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
    progress.start(&format!("replay: checking {name}, brute force on {} of its frames", wanted.len()));
    let (mut boxes, mut truth, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    let mut frame = 0;
    while reader.read_frame(&mut boxes).map_err(|e| e.to_string())? {
        if wanted.binary_search(&frame).is_ok() {
            let mut pairs = PairList::new();
            reference_pairs(&boxes, &mut pairs);
            truth.push((frame, pairs));
        }
        if frame % 16 == 0 {
            floor.push(measure::floor_ms(&boxes));
        }
        frame += 1;
    }
    Ok(Scene { path: path.to_path_buf(), name, header, truth, floor_ms: Summary::of(&floor).p50 })
}

/// One contender's play of one file.
pub struct Play {
    /// The contender's name.
    pub name: String,
    /// The file's frame of each entry below: 0, 1, 2, … and, after a jump, on from the jump's target.
    pub frames: Vec<u64>,
    /// ms of every frame played.
    pub ms: Vec<f64>,
    /// Pairs of every frame played.
    pub pairs: Vec<u64>,
    /// The candidate that answered each frame (the algorithm itself but for `auto`; the peer's name).
    pub active: Vec<&'static str>,
    /// The pair-set verdict over the checked frames it played.
    pub check: String,
    /// `ok`, or `short: …` when a budget stopped it or made it jump.
    pub status: String,
}

impl Play {
    /// A contender that did not play the file, and why.
    pub fn skipped(name: &str, status: String) -> Self {
        let (frames, ms, pairs, active) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        Self { name: name.to_owned(), frames, ms, pairs, active, check: "-".into(), status }
    }
}

/// Frames played before the last quarter after a jump, so that the incremental structures are warm again when
/// the last quarter starts (a seek marks every box moved).
const JUMP_WARM: u64 = 8;

/// The first frame of the last quarter of a file of `frames` frames (for a tiny file, its last frame).
#[must_use]
pub fn last_quarter_start(frames: u64) -> u64 {
    frames - (frames / 4).max(1).min(frames)
}

/// What a play does after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// The next frame.
    Go,
    /// Seek to this frame and go on from there: half the budget is spent and the last quarter is still ahead.
    JumpTo(u64),
    /// Stop: the budget is spent or a frame was over the limit.
    Stop,
}

/// Counts a play's frames against the brute-force answers and the budgets. When half its time is spent and the
/// last quarter is still [`JUMP_WARM`] frames away or more, it asks for a jump there, so that every contender is
/// timed at the end of the recording — the pile at rest — whatever it cost before.
struct Tally<'a> {
    scene: &'a Scene,
    play: Play,
    next_truth: usize,
    checked: usize,
    bad: usize,
    first_bad: Option<String>,
    started: Instant,
    budgets: Budgets,
    jumped: bool,
    scratch: Vec<Pair>,
}

impl<'a> Tally<'a> {
    fn new(scene: &'a Scene, name: String, budgets: Budgets) -> Self {
        let frames = usize::try_from(scene.header.frames).unwrap_or(0);
        let play = Play {
            name,
            frames: Vec::with_capacity(frames),
            ms: Vec::with_capacity(frames),
            pairs: Vec::with_capacity(frames),
            active: Vec::with_capacity(frames),
            check: String::new(),
            status: "ok".into(),
        };
        let scratch = Vec::new();
        Self {
            scene,
            play,
            next_truth: 0,
            checked: 0,
            bad: 0,
            first_bad: None,
            started: Instant::now(),
            budgets,
            jumped: false,
            scratch,
        }
    }

    /// Frame `frame` took `ms` and found `pairs` (any order; sorted here when the frame is checked); what next.
    fn frame(&mut self, frame: u64, ms: f64, pairs: &[Pair], active: &'static str) -> Next {
        self.play.frames.push(frame);
        self.play.ms.push(ms);
        self.play.pairs.push(pairs.len() as u64);
        self.play.active.push(active);
        // Answers of frames a jump skipped.
        while self.scene.truth.get(self.next_truth).is_some_and(|t| t.0 < frame) {
            self.next_truth += 1;
        }
        if let Some((f, truth)) = self.scene.truth.get(self.next_truth)
            && *f == frame
        {
            self.next_truth += 1;
            self.checked += 1;
            self.scratch.clear();
            self.scratch.extend_from_slice(pairs);
            if let Err(e) = measure::diff(truth.as_slice(), &mut self.scratch).into_result() {
                self.bad += 1;
                self.first_bad.get_or_insert(format!("frame {frame}: {e}"));
            }
        }
        let total = self.scene.header.frames;
        let Budgets { series, jump_after, frame_ms, .. } = self.budgets;
        if frame + 1 >= total {
            return Next::Stop;
        }
        if ms > frame_ms {
            self.stop(format!("short: frame {frame} took {ms:.0} ms > {frame_ms:.0} ms limit"));
            return Next::Stop;
        }
        let elapsed = self.started.elapsed();
        if elapsed > series {
            self.stop(format!("short: budget of {} s spent at frame {frame} of {total}", series.as_secs()));
            return Next::Stop;
        }
        let target = last_quarter_start(total).saturating_sub(JUMP_WARM);
        if !self.jumped && elapsed >= jump_after && frame + 1 < target {
            self.jumped = true;
            let spent = format!("{:.1} s", elapsed.as_secs_f64());
            self.stop(format!("short: {spent} spent at frame {frame}, jumped to frame {target}"));
            return Next::JumpTo(target);
        }
        Next::Go
    }

    /// Say why the play stopped or jumped (after what it said before).
    fn stop(&mut self, why: String) {
        if self.play.status == "ok" {
            self.play.status = why;
        } else {
            self.play.status = format!("{}; {}", self.play.status, why.trim_start_matches("short: "));
        }
    }

    fn finish(mut self) -> Play {
        self.play.check = match self.first_bad {
            Some(e) => format!("MISMATCH vs brute on {} of {} checked frames, first {e}", self.bad, self.checked),
            None if self.checked == 0 => "-".into(),
            None => format!("brute ok ({} frames)", self.checked),
        };
        self.play
    }
}

/// Play `scene` into our `algorithm` through `collide_sim::Replay` (its broadphase phase is the time).
pub fn play_ours(scene: &Scene, algorithm: &'static AlgorithmDescriptor, budgets: Budgets) -> Result<Play, String> {
    let setup = ReplaySetup {
        path: scene.path.clone(),
        header: scene.header.clone(),
        frames: scene.header.frames,
        dt: collide_timing::FRAME_60HZ,
    };
    let mut replay =
        Replay::from_parts(setup, algorithm, Params::defaults(algorithm.params)).map_err(|e| e.to_string())?;
    let mut tally = Tally::new(scene, algorithm.name.to_owned(), budgets);
    while let Some(record) = replay.step().map_err(|e| e.to_string())? {
        let (frame, ms, active) = (record.step, record.phases.get(Phase::Broadphase), record.algorithm);
        match tally.frame(frame, ms, replay.pairs().as_slice(), active) {
            Next::Go => {}
            Next::JumpTo(target) => replay.seek(target).map_err(|e| e.to_string())?,
            Next::Stop => break,
        }
    }
    Ok(tally.finish())
}

/// Play `scene` into a peer: each frame read untimed, the pair query timed.
pub fn play_peer(scene: &Scene, peer: &mut dyn Contender, budgets: Budgets) -> Result<Play, String> {
    let mut reader = Reader::open(&scene.path).map_err(|e| e.to_string())?;
    let name = peer.name();
    let active = contenders::PEERS.iter().copied().find(|p| *p == name).unwrap_or("peer");
    let mut tally = Tally::new(scene, name, budgets);
    let (mut boxes, mut out) = (Vec::new(), Vec::new());
    loop {
        let frame = reader.next_frame();
        if !reader.read_frame(&mut boxes).map_err(|e| e.to_string())? {
            break;
        }
        let t = Instant::now();
        peer.find(&boxes, frame, &mut out);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match tally.frame(frame, ms, &out, active) {
            Next::Go => {}
            Next::JumpTo(target) => reader.seek(target).map_err(|e| e.to_string())?,
            Next::Stop => break,
        }
    }
    Ok(tally.finish())
}

/// The summary row of one play.
#[must_use]
pub fn row(scene: &Scene, play: &Play) -> Row {
    // The first frame builds every structure cold; the statistics are the frames after it.
    let skip = usize::from(play.ms.len() > 1);
    let timed = &play.ms[skip..];
    let pairs: Vec<f64> = play.pairs[skip..].iter().map(|&p| p as f64).collect();
    let time = Summary::of(timed);
    Row {
        study: "replay",
        series: play.name.clone(),
        scenario: scene.name.clone(),
        algorithm: play.name.clone(),
        n: scene.header.n as usize,
        speed: f32::NAN,
        dt_mode: DtMode::Fixed,
        metric: Metric::Broadphase,
        warmup: play.ms.len() - timed.len(),
        frames: timed.len(),
        time,
        broadphase_ms: time.mean,
        floor_ms: scene.floor_ms,
        pairs: Summary::of(&pairs).mean,
        check: play.check.clone(),
        status: play.status.clone(),
        ..Row::default()
    }
}

#[cfg(test)]
pub mod testing;

#[cfg(test)]
mod tests;
