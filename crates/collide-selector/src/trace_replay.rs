//! Trace replay: the [`Controller`] driven by a recorded [`Trace`] instead of a clock.
//!
//! Each frame, the controller is handed the trace's features and the recorded time of the candidate it chose
//! (and of the one it probes); its orders are charged what the trace says they cost — a warm start, then the
//! newcomer's first frame, each as the ratio to the candidate's steady frame measured nearest in the trace. A
//! sampled probe is charged its share of both candidates' frames and reports their recorded ratio as measured on
//! the whole scene; a build beside is charged nothing on the frames it spans (it runs on another thread) and
//! ends after as many frames as its recorded cost spans. The result is what `auto` would have spent on that run,
//! frame by frame, next to what every candidate pinned spent on the very same frames: a policy judged without
//! the machine's noise, in milliseconds of computer time.
//!
//! What a replay cannot see: the machine's noise on the frames the controller decides on (the trace has one
//! sample per frame and candidate, which the controller takes as the truth), a sample's difference from the whole
//! scene, the slowdown a build beside causes the active candidate, and a probe's effect on the active
//! candidate's caches. Tune on replays, judge with the live `selector` bench study.

use crate::controller::{CATCH_UP_CALLS, Controller, Order, SampleFrame};
use crate::model::Prior;
use crate::policy::PolicyConfig;
use crate::trace::Trace;

/// One replayed frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayedFrame {
    /// The candidate that answered.
    pub active: usize,
    /// Everything auto spent on the frame: the active candidate, a probe's frame, a warm start, its own
    /// overhead; ms.
    pub ms: f64,
    /// The part of `ms` spent on probes and warm starts.
    pub probe_ms: f64,
}

/// A replayed run.
#[derive(Clone, Debug)]
pub struct TraceReplay {
    /// Per frame.
    pub frames: Vec<ReplayedFrame>,
    /// Probes started (whole and sampled).
    pub probes: u64,
    /// Switches made.
    pub switches: u64,
    /// The controller at the end (its decision log, its model).
    pub controller: Controller,
}

impl TraceReplay {
    /// auto's total over the frames `range`, ms.
    #[must_use]
    pub fn total_ms(&self, range: std::ops::Range<usize>) -> f64 {
        self.frames[range].iter().map(|f| f.ms).sum()
    }
}

/// The ratio of `what` (warm start or first frame) to the steady frame for candidate `c`, measured at the frame
/// nearest `t` where the trace has it; 1 when it never measured it.
fn ratio(trace: &Trace, t: usize, c: usize, what: impl Fn(usize) -> f64) -> f64 {
    let measured = |i: usize| {
        let v = what(i);
        let steady = trace.frames[i].ms[c];
        (v.is_finite() && steady > 0.0).then(|| v / steady)
    };
    let n = trace.frames.len();
    (0..n)
        .find_map(|d| measured(t.saturating_sub(d)).or_else(|| (t + d < n).then(|| measured(t + d)).flatten()))
        .unwrap_or(1.0)
}

/// Replay `trace` through a controller with `policy` and `prior`, charging `overhead_ms` per frame for the
/// selector's own work (features, model, log).
#[must_use]
pub fn replay_trace(trace: &Trace, policy: PolicyConfig, prior: Prior, overhead_ms: f64) -> TraceReplay {
    let mut controller = Controller::new(trace.names.clone(), policy, prior, 0);
    let mut frames = Vec::with_capacity(trace.frames.len());
    // The candidate warm-started (or switched to cold) on the previous frame, whose frame now is its first.
    let mut fresh: Option<usize> = None;
    // A build beside: the candidate, its cost, and the frame it ends.
    let mut beside: Option<(usize, f64, usize)> = None;
    // A sampled probe's candidate.
    let mut sampling: Option<usize> = None;
    let first = |t: usize, c: usize| trace.frames[t].ms[c] * ratio(trace, t, c, |i| trace.frames[i].first_ms[c]);
    let warm = |t: usize, c: usize| trace.frames[t].ms[c] * ratio(trace, t, c, |i| trace.frames[i].warm_ms[c]);
    for (t, frame) in trace.frames.iter().enumerate() {
        let mut spent = 0.0;
        if t == 0 {
            let c = controller.start(frame.features);
            fresh = Some(c);
        } else {
            if frame.resized {
                controller.resized();
                fresh = None;
                beside = None;
            }
            if let Some(c) = controller.before_frame(&frame.features) {
                spent += warm(t, c);
                fresh = Some(c);
            }
        }
        if let Some((c, ms, ends)) = beside
            && t >= ends
        {
            beside = None;
            let _ = controller.built(c, ms);
        }
        let cost = |c: usize| if fresh == Some(c) { first(t, c) } else { frame.ms[c] };
        let active = controller.active();
        let active_ms = cost(active);
        let probe_ms = controller.probing().map(cost);
        let sample = sampling.filter(|_| controller.sampling().is_some()).map(|c| {
            let share = policy.sample_share;
            SampleFrame {
                probe_ms: frame.ms[c] * share,
                // The replayed sample is the whole frame scaled, so it holds the scene's pairs a body.
                pairs: (frame.features.pairs_per_body * frame.features.n as f64) as usize,
                active_ms: frame.ms[active] * share,
                bodies: frame.features.n,
                extra_ms: 0.0,
            }
        });
        fresh = None;
        let order = controller.after_frame(&frame.features, active_ms, probe_ms, sample);
        spent += probe_ms.unwrap_or(0.0) + sample.map_or(0.0, |s| s.probe_ms + s.active_ms);
        match order {
            Order::Probe(c) | Order::Switch { to: c, warm: true } => {
                let ms = warm(t, c);
                controller.warm_started(c, ms);
                fresh = Some(c);
                spent += ms;
            }
            Order::BuildBeside(c) => {
                let ms = warm(t, c) + f64::from(CATCH_UP_CALLS) * first(t, c);
                let frames = (ms / active_ms.max(1e-9)).ceil() as usize;
                beside = Some((c, ms, t + 1 + frames.max(CATCH_UP_CALLS as usize)));
            }
            Order::Sample(c) => sampling = Some(c),
            Order::Stay | Order::Switch { warm: false, .. } => {}
        }
        let _ = controller.take_expired();
        frames.push(ReplayedFrame { active, ms: active_ms + spent + overhead_ms, probe_ms: spent });
    }
    let (probes, switches) = controller.counts();
    TraceReplay { frames, probes, switches, controller }
}

/// How a replay did against the candidates pinned, over a range of frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// auto's total, ms.
    pub auto_ms: f64,
    /// Every candidate's total had it run every frame, ms.
    pub pinned_ms: Vec<f64>,
    /// The best pinned candidate.
    pub best_pinned: usize,
    /// The best pinned candidate's total in each phase, summed over the phases.
    pub per_phase_oracle_ms: f64,
    /// The cheapest candidate frame by frame, summed.
    pub per_frame_oracle_ms: f64,
    /// Probes started and switches made over the range.
    pub probes: u64,
    /// Switches made over the range.
    pub switches: u64,
    /// Time spent on probes and warm starts over the range, ms.
    pub probe_ms: f64,
    /// The largest ratio of a switch's frames (the last of the old candidate, the first of the new one) to the
    /// median of the ten frames before; 0 without switches.
    pub worst_switch_spike: f64,
}

/// Judge `replay` of `trace` over the frames `range` (the measured frames, after a warm-up).
#[must_use]
pub fn judge(trace: &Trace, replay: &TraceReplay, range: std::ops::Range<usize>) -> Verdict {
    let count = trace.names.len();
    let pinned_ms: Vec<f64> = (0..count).map(|c| trace.pinned_ms(c, range.clone())).collect();
    let best_pinned = (0..count).min_by(|&a, &b| pinned_ms[a].total_cmp(&pinned_ms[b])).unwrap_or(0);
    let mut per_phase_oracle_ms = 0.0;
    let mut start = range.start;
    for i in range.clone() {
        let last = i + 1 == range.end || trace.frames[i + 1].phase != trace.frames[start].phase;
        if last {
            per_phase_oracle_ms += (0..count).map(|c| trace.pinned_ms(c, start..i + 1)).fold(f64::INFINITY, f64::min);
            start = i + 1;
        }
    }
    let per_frame_oracle_ms =
        trace.frames[range.clone()].iter().map(|f| f.ms.iter().copied().fold(f64::INFINITY, f64::min)).sum();
    let frames = &replay.frames;
    let switched = |i: usize| i > 0 && frames[i].active != frames[i - 1].active;
    let mut worst_switch_spike = 0.0f64;
    for i in range.clone().filter(|&i| i >= 11 && switched(i)) {
        let mut before: Vec<f64> = frames[i - 11..i - 1].iter().map(|f| f.ms).collect();
        let median = median(&mut before).max(1e-9);
        worst_switch_spike = worst_switch_spike.max(frames[i - 1].ms.max(frames[i].ms) / median);
    }
    let log = replay.controller.log();
    let in_range = |kind| log.iter().filter(|d| d.kind == kind && range.contains(&(d.frame as usize))).count() as u64;
    Verdict {
        auto_ms: replay.total_ms(range.clone()),
        pinned_ms,
        best_pinned,
        per_phase_oracle_ms,
        per_frame_oracle_ms,
        probes: in_range(crate::DecisionKind::Probe),
        switches: range.clone().filter(|&i| switched(i)).count() as u64,
        probe_ms: frames[range].iter().map(|f| f.probe_ms).sum(),
        worst_switch_spike,
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mid = v.len() / 2;
    *v.select_nth_unstable_by(mid, f64::total_cmp).1
}

#[cfg(test)]
mod tests;
