//! Cost traces: every candidate's time on every frame of one run, recorded side by side, for the
//! trace replay (`trace_replay`) to judge policies on.
//!
//! [`TraceRecorder`] is a [`Broadphase`] that keeps every candidate in sync — each runs every frame, timed — and
//! answers with the first candidate's pairs (they all answer the same set). Every `warm_every` frames it also
//! times each candidate's warm start from that frame's pairs, and the frame after it, on a spare instance: what
//! a probe or a switch would cost there. Beside the times it measures the frame's [`Features`] exactly as the
//! selector does, so a replay feeds the controller what it would have seen.
//!
//! Recording side by side costs the sum of the candidates' times per frame, and each candidate runs with the
//! others' data in the caches rather than its own: a trace ranks candidates faithfully (the same frames, the
//! same load) but its absolute times are those of a crowded cache, slightly above a run of one candidate
//! alone. The rotation of the running order from frame to frame spreads that effect evenly.

use crate::features::{FeatureSampler, Features};
use collide_broadphase::{AlgorithmDescriptor, Broadphase, Frame, Pair, PairList, Resize};
use std::fmt::Write as _;
use std::time::Instant;

/// One frame of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFrame {
    /// The scene's phase (the tour's phase names; empty for unscripted scenes).
    pub phase: String,
    /// Bodies were added or removed just before this frame (the candidates were told through `on_resize`).
    pub resized: bool,
    /// The features the selector measures on this frame's boxes before any candidate runs (pairs per body from
    /// the frame before).
    pub features: Features,
    /// Per candidate: its time on this frame, having followed every frame before, ms.
    pub ms: Vec<f64>,
    /// Per candidate: its warm start from this frame's pairs, ms (NaN when not measured this frame).
    pub warm_ms: Vec<f64>,
    /// Per candidate: its time on this frame right after a warm start from the previous one, ms (NaN when not
    /// measured this frame).
    pub first_ms: Vec<f64>,
}

/// A recorded run: the candidates, the features of the first frame's boxes (what the selector's first choice
/// sees) and every frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The candidates' registry names, in column order (a parsed trace leaks its names once, so that replays
    /// can log them like the selector's own).
    pub names: Vec<&'static str>,
    /// The first frame's features (no measured speed, pairs per body estimated from the sample).
    pub start: Features,
    /// The frames.
    pub frames: Vec<TraceFrame>,
}

const FEATURE_COLUMNS: &str = "n,pairs_per_body,speed_mean,speed_known,clustering,size_spread,resting";

fn write_features(text: &mut String, f: &Features) {
    let _ = write!(
        text,
        "{},{},{},{},{},{},{}",
        f.n,
        f.pairs_per_body,
        f.speed_mean,
        u8::from(f.speed_known),
        f.clustering,
        f.size_spread,
        f.resting
    );
}

fn parse_features(cells: &[&str]) -> Result<Features, String> {
    let num = |i: usize| cells[i].parse::<f64>().map_err(|e| format!("`{}`: {e}", cells[i]));
    Ok(Features {
        n: cells[0].parse().map_err(|e| format!("`{}`: {e}", cells[0]))?,
        pairs_per_body: num(1)?,
        speed_mean: num(2)?,
        speed_known: cells[3] == "1",
        clustering: num(4)?,
        size_spread: num(5)?,
        resting: num(6)?,
    })
}

impl Trace {
    /// The trace as CSV: a `start` row with the first frame's features, then one row per frame — phase,
    /// resized, the features, and per candidate its time, warm start and first frame after a warm start.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut text = format!("frame,phase,resized,{FEATURE_COLUMNS}");
        for name in &self.names {
            let _ = write!(text, ",{name}_ms,{name}_warm_ms,{name}_first_ms");
        }
        text.push_str("\nstart,,0,");
        write_features(&mut text, &self.start);
        text.push_str(&",NaN".repeat(3 * self.names.len()));
        for (i, f) in self.frames.iter().enumerate() {
            let _ = write!(text, "\n{i},{},{},", f.phase, u8::from(f.resized));
            write_features(&mut text, &f.features);
            for c in 0..self.names.len() {
                let _ = write!(text, ",{:.5},{:.5},{:.5}", f.ms[c], f.warm_ms[c], f.first_ms[c]);
            }
        }
        text.push('\n');
        text
    }

    /// Read a trace written by [`Trace::to_csv`]. The error names the line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines().enumerate();
        let (_, header) = lines.next().ok_or("trace: empty")?;
        let columns: Vec<&str> = header.split(',').collect();
        let fixed = 3 + FEATURE_COLUMNS.split(',').count();
        if columns.len() < fixed || !(columns.len() - fixed).is_multiple_of(3) {
            return Err(format!("trace: line 1: {} columns, expected {fixed} plus three per candidate", columns.len()));
        }
        let names: Vec<&'static str> = columns[fixed..]
            .chunks(3)
            .map(|c| &*Box::leak(c[0].trim_end_matches("_ms").to_owned().into_boxed_str()))
            .collect();
        let mut trace = Self { names, ..Self::default() };
        for (i, line) in lines {
            let cells: Vec<&str> = line.split(',').collect();
            let at = |e: String| format!("trace: line {}: {e}", i + 1);
            if cells.len() != columns.len() {
                return Err(at(format!("{} cells, expected {}", cells.len(), columns.len())));
            }
            let features = parse_features(&cells[3..fixed]).map_err(at)?;
            if cells[0] == "start" {
                trace.start = features;
                continue;
            }
            let times: Result<Vec<f64>, String> =
                cells[fixed..].iter().map(|c| c.parse::<f64>().map_err(|e| format!("`{c}`: {e}"))).collect();
            let times = times.map_err(at)?;
            let column = |k: usize| times.iter().skip(k).step_by(3).copied().collect::<Vec<f64>>();
            trace.frames.push(TraceFrame {
                phase: cells[1].to_owned(),
                resized: cells[2] == "1",
                features,
                ms: column(0),
                warm_ms: column(1),
                first_ms: column(2),
            });
        }
        Ok(trace)
    }

    /// Candidate `c`'s total over the frames `range` had it run them all (pinned).
    #[must_use]
    pub fn pinned_ms(&self, c: usize, range: std::ops::Range<usize>) -> f64 {
        self.frames[range].iter().map(|f| f.ms[c]).sum()
    }
}

/// A [`Broadphase`] that runs every candidate on every frame and records their times (see the module docs).
pub struct TraceRecorder {
    names: Vec<&'static str>,
    /// The candidates, each following every frame.
    live: Vec<Box<dyn Broadphase>>,
    /// A spare instance of each, warm-started every `warm_every` frames to time a warm start and the frame after.
    spares: Vec<Box<dyn Broadphase>>,
    /// Per candidate: its spare was warm-started last frame, so its next frame is timed as a first frame.
    spare_fresh: Vec<bool>,
    warm_every: u64,
    sampler: FeatureSampler,
    scratch: PairList,
    resized: bool,
    /// The last frame's pairs, for the next frame's features.
    last_pairs: Option<usize>,
    trace: Trace,
}

impl TraceRecorder {
    /// A recorder of `candidates` (built from their registry rows with default parameters), timing warm starts
    /// every `warm_every` frames (at least 1).
    #[must_use]
    pub fn new(candidates: &[&'static AlgorithmDescriptor], warm_every: u64) -> Self {
        let names: Vec<&'static str> = candidates.iter().map(|d| d.name).collect();
        Self {
            live: candidates.iter().map(|d| d.build_default()).collect(),
            spares: candidates.iter().map(|d| d.build_default()).collect(),
            spare_fresh: vec![false; names.len()],
            trace: Trace { names: names.clone(), ..Trace::default() },
            names,
            warm_every: warm_every.max(1),
            sampler: FeatureSampler::new(),
            scratch: PairList::new(),
            resized: false,
            last_pairs: None,
        }
    }

    /// The trace so far (every frame's phase is empty: the caller knows the scene's phases).
    #[must_use]
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Take the trace, leaving an empty one.
    pub fn take_trace(&mut self) -> Trace {
        let empty = Trace { names: self.trace.names.clone(), ..Trace::default() };
        std::mem::replace(&mut self.trace, empty)
    }
}

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

impl Broadphase for TraceRecorder {
    fn name(&self) -> &'static str {
        "trace-recorder"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let features = self.sampler.measure(frame, self.last_pairs);
        if self.trace.frames.is_empty() {
            self.trace.start = features;
        }
        let count = self.live.len();
        let mut ms = vec![f64::NAN; count];
        // Candidate 0 answers; the others write into the scratch list. The running order rotates so that no
        // candidate always runs right after the same one.
        let rotate = self.trace.frames.len() % count;
        for k in 0..count {
            let c = (k + rotate) % count;
            let target = if c == 0 { &mut *out } else { &mut self.scratch };
            ms[c] = time(|| self.live[c].find_pairs(frame, target));
        }
        let mut first_ms = vec![f64::NAN; count];
        for ((spare, fresh), ms) in self.spares.iter_mut().zip(&mut self.spare_fresh).zip(&mut first_ms) {
            if std::mem::take(fresh) {
                *ms = time(|| spare.find_pairs(frame, &mut self.scratch));
            }
        }
        let mut warm_ms = vec![f64::NAN; count];
        if (self.trace.frames.len() as u64).is_multiple_of(self.warm_every) {
            let pairs: &[Pair] = out.as_slice();
            for ((spare, fresh), ms) in self.spares.iter_mut().zip(&mut self.spare_fresh).zip(&mut warm_ms) {
                *ms = time(|| spare.warm_start(frame, pairs));
                *fresh = true;
            }
        }
        self.last_pairs = Some(out.len());
        self.trace.frames.push(TraceFrame {
            phase: String::new(),
            resized: std::mem::take(&mut self.resized),
            features,
            ms,
            warm_ms,
            first_ms,
        });
    }

    /// Every live candidate is told. A permutation (the simulation's spatial reorder) is followed by the rest too —
    /// a spare warm-started last frame renames its bodies, the feature sample follows its bodies, the last pairs
    /// stay — and the frame is not marked resized: the selector keeps its state across one, so the trace replay
    /// must not make its controller forget. Any other resize drops the fresh spares, forgets the features and
    /// marks the next frame resized.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        for b in &mut self.live {
            b.on_resize(resize);
        }
        if resize.is_permutation() {
            for (spare, _) in self.spares.iter_mut().zip(&self.spare_fresh).filter(|(_, fresh)| **fresh) {
                spare.on_resize(resize);
            }
            self.sampler.permute(resize);
            return;
        }
        // The spares are warm-started afresh when next used; a fresh one would now see other bodies.
        self.spare_fresh.iter_mut().for_each(|f| *f = false);
        self.sampler.forget();
        self.last_pairs = None;
        self.resized = true;
    }

    fn validate(&self) -> Result<(), String> {
        for (name, b) in self.names.iter().zip(&self.live) {
            b.validate().map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
