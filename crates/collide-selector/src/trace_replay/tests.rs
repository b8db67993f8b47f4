use super::*;
use crate::features::Features;
use crate::trace::TraceFrame;

/// A trace of `frames` frames over the candidates `names` (not in the prior: the model knows nothing of
/// them), where candidate `c` costs `cost(c, t)` on frame `t`, the scene's pairs per body are `crowd(t)`, and
/// a warm start costs two steady frames.
fn synthetic(
    names: &[&'static str],
    frames: usize,
    cost: impl Fn(usize, usize) -> f64,
    crowd: impl Fn(usize) -> f64,
) -> Trace {
    let features =
        Features { n: 10_000, pairs_per_body: 0.5, speed_mean: 0.1, speed_known: true, ..Features::default() };
    Trace {
        names: names.to_vec(),
        start: features,
        frames: (0..frames)
            .map(|t| TraceFrame {
                phase: format!("p{}", crowd(t)),
                resized: false,
                features: Features { pairs_per_body: crowd(t), ..features },
                ms: (0..names.len()).map(|c| cost(c, t)).collect(),
                warm_ms: (0..names.len()).map(|c| 2.0 * cost(c, t)).collect(),
                first_ms: vec![f64::NAN; names.len()],
            })
            .collect(),
    }
}

/// `a` costs 1 ms for the first half and 3 ms after, `b` the opposite, and the scene gets crowded halfway.
fn crossing(frames: usize) -> Trace {
    let early = move |t: usize| t < frames / 2;
    synthetic(
        &["a", "b"],
        frames,
        move |c, t| if early(t) == (c == 0) { 1.0 } else { 3.0 },
        move |t| if early(t) { 0.5 } else { 20.0 },
    )
}

fn run(trace: &Trace) -> TraceReplay {
    replay_trace(trace, PolicyConfig::default(), Prior::builtin(), 0.0)
}

#[test]
fn a_cheaper_candidate_is_found_probed_and_switched_to_once() {
    let trace = synthetic(&["a", "b", "c"], 600, |c, _| [4.0, 1.0, 8.0][c], |_| 0.5);
    let r = run(&trace);
    assert_eq!(r.switches, 1, "{:?}", r.controller.log().iter().map(|d| d.reason).collect::<Vec<_>>());
    let first = r.frames.iter().position(|f| f.active == 1).unwrap();
    assert!(first < 40, "switched at frame {first}");
    assert!(r.frames[first..].iter().all(|f| f.active == 1), "and stayed");
}

#[test]
fn candidates_within_the_margin_never_cause_a_switch() {
    // Two candidates that trade places by 4% every 20 frames: inside the 10% margin, so the right answer is
    // to stay with whichever runs. A selector that chased the measurements would switch at every flip.
    let trace = synthetic(&["a", "b"], 3000, |c, t| if (t / 20 % 2 == 0) == (c == 0) { 1.0 } else { 1.04 }, |_| 0.5);
    assert_eq!(run(&trace).switches, 0);
}

#[test]
fn a_scene_oscillating_across_the_boundary_switches_a_bounded_number_of_times() {
    // Two candidates that trade places by a factor of 1.5 every 45 frames, the features unchanged: the truth
    // changes 66 times over 3000 frames, at most 2 switches per phase would be 132. Chasing it costs a probe
    // each time; the cooldown, the budget and the doubled margin for going back keep the switches to a
    // fraction of the changes, and what they cost close to what they save.
    let trace = synthetic(&["a", "b"], 3000, |c, t| if (t / 45 % 2 == 0) == (c == 0) { 1.0 } else { 1.5 }, |_| 0.5);
    let r = run(&trace);
    assert!(r.switches <= 33, "{} switches for 66 changes: thrashing", r.switches);
    let total = r.total_ms(0..3000);
    let pinned = trace.pinned_ms(0, 0..3000);
    assert!(total < pinned * 1.05, "auto {total} ms against either pinned {pinned}");
}

#[test]
fn probes_stay_within_their_share_of_the_time() {
    // Five candidates, all worse than the first: the policy keeps exploring them as their measurements age,
    // but never spends more than the share (plus the initial grant).
    let frames = 20_000;
    let trace =
        synthetic(&["a", "b", "c", "d", "e"], frames, |c, _| if c == 0 { 1.0 } else { 1.2 + c as f64 / 10.0 }, |_| 0.5);
    let r = run(&trace);
    assert_eq!(r.switches, 0);
    let spent: f64 = r.frames.iter().map(|f| f.probe_ms).sum();
    let share = PolicyConfig::default().probe_share;
    assert!(r.probes >= 8, "old measurements were explored again ({} probes)", r.probes);
    assert!(spent <= share * frames as f64 + 8.0, "spent {spent} ms on probes of {frames} frames of 1 ms");
}

#[test]
fn a_replay_follows_the_cheaper_candidate_across_a_crossing() {
    let trace = crossing(1200);
    let r = run(&trace);
    let best_pinned = trace.pinned_ms(0, 0..1200).min(trace.pinned_ms(1, 0..1200));
    let per_phase_oracle = 1200.0;
    let total = r.total_ms(0..1200);
    assert!(total < best_pinned * 0.75, "auto {total} ms against the best pinned {best_pinned}");
    assert!(total < per_phase_oracle * 1.15, "auto {total} ms against the per-phase oracle {per_phase_oracle}");
    assert!(r.frames[1100..].iter().all(|f| f.active == 1), "b runs the second half");
}

#[test]
fn a_confidently_wrong_prior_is_found_out_by_sampled_probes() {
    // The prior says `a` costs 1 ms and `b` two and a half times that, both within ±10%: the truth is the
    // other way round (`b` a third of `a`). No rule that trusts the prior would ever try `b`; exploration of the candidates never measured
    // in the scene's regime does, on a sample, and the switch follows.
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.1, 0.5), ("b", 2.5, 0.1, 1.25)]);
    let trace = synthetic(&["a", "b"], 600, |c, _| [3.0, 1.0][c], |_| 0.5);
    let r = replay_trace(&trace, PolicyConfig::default(), prior, 0.0);
    assert_eq!(r.frames[0].active, 0, "the prior's pick");
    let switched = r.frames.iter().position(|f| f.active == 1).expect("found out and switched");
    // Exploration waits for the budget to hold a few frames (the first grant is for the model's own probes).
    assert!(switched < 100, "switched at frame {switched}");
    assert!(r.frames[switched..].iter().all(|f| f.active == 1), "and stayed");
    let log = r.controller.log();
    assert!(log.iter().any(|d| d.kind == crate::DecisionKind::Sampled && d.to == "b"), "measured on a sample");
    assert!(r.total_ms(0..600) < 1.5 * trace.pinned_ms(1, 0..600), "auto {} ms", r.total_ms(0..600));
}

#[test]
fn the_csv_round_trips() {
    let mut trace = crossing(10);
    trace.frames[3].resized = true;
    trace.frames[4].first_ms[1] = 4.5;
    let back = Trace::parse(&trace.to_csv()).unwrap();
    assert_eq!(back.names, trace.names);
    assert_eq!(back.frames.len(), 10);
    assert!(back.frames[3].resized && !back.frames[2].resized);
    assert_eq!(back.frames[4].first_ms[1], 4.5);
    assert!(back.frames[4].first_ms[0].is_nan());
    assert_eq!(back.frames[9].ms, trace.frames[9].ms);
    assert_eq!(back.start, trace.start);
    assert!(Trace::parse("frame,phase\n").unwrap_err().contains("line 1"));
}

/// A one-candidate trace whose candidate costs `1 + t / 100` ms on frame `t`, with its first frame after a warm
/// start measured only where `first` says (as a multiple of that frame's steady time).
fn one_candidate(frames: usize, first: &[(usize, f64)]) -> Trace {
    let mut trace = synthetic(&["only"], frames, |_, t| 1.0 + t as f64 / 100.0, |_| 0.5);
    for &(t, times) in first {
        trace.frames[t].first_ms[0] = times * trace.frames[t].ms[0];
    }
    trace
}

/// The ratio to the steady frame is taken at the measured frame nearest the one asked about: looking back
/// before looking ahead at equal distance, skipping frames not measured (NaN) or with no steady time, and 1 when
/// the trace never measured it.
#[test]
fn a_first_frames_ratio_comes_from_the_nearest_measured_frame() {
    let trace = one_candidate(12, &[(2, 4.0), (6, 2.0)]);
    let first = |i: usize| trace.frames[i].first_ms[0];
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(ratio(&trace, 2, 0, first), 4.0), "measured on the frame itself");
    assert!(close(ratio(&trace, 3, 0, first), 4.0), "one back, three ahead");
    assert!(close(ratio(&trace, 5, 0, first), 2.0), "one ahead, three back");
    assert!(close(ratio(&trace, 4, 0, first), 4.0), "two back and two ahead: back first");
    assert!(close(ratio(&trace, 0, 0, first), 4.0), "before the first measurement");
    assert!(close(ratio(&trace, 11, 0, first), 2.0), "after the last");
    let never = one_candidate(5, &[]);
    assert!(close(ratio(&never, 3, 0, |i| never.frames[i].first_ms[0]), 1.0), "never measured: 1");
    let mut idle = one_candidate(5, &[(1, 3.0), (4, 5.0)]);
    idle.frames[1].ms[0] = 0.0;
    assert!(close(ratio(&idle, 1, 0, |i| idle.frames[i].first_ms[0]), 5.0), "a frame without a steady time is skipped");
}

/// With one candidate nothing is probed or switched: each frame costs the candidate's recorded frame plus the
/// overhead, except frame 0, its first, charged at the first-frame ratio measured nearest (frame 3: 2.5×); and
/// `total_ms` sums exactly the frames of its range.
#[test]
fn a_replay_charges_the_recorded_frames_the_first_ones_ratio_and_the_overhead() {
    let trace = one_candidate(40, &[(3, 2.5), (30, 9.0)]);
    let overhead = 0.125;
    let r = replay_trace(&trace, PolicyConfig::default(), Prior::builtin(), overhead);
    assert_eq!((r.probes, r.switches), (0, 0));
    assert_eq!(r.frames.len(), 40);
    for (t, f) in r.frames.iter().enumerate() {
        let steady = trace.frames[t].ms[0];
        let want = if t == 0 { 2.5 * steady } else { steady } + overhead;
        assert!((f.ms - want).abs() < 1e-9, "frame {t}: {} ms, want {want}", f.ms);
        assert_eq!((f.active, f.probe_ms), (0, 0.0), "frame {t}");
    }
    let by_hand = |range: std::ops::Range<usize>| range.map(|t| r.frames[t].ms).sum::<f64>();
    assert!((r.total_ms(0..40) - by_hand(0..40)).abs() < 1e-9);
    assert!((r.total_ms(5..9) - (4.0 * overhead + 1.05 + 1.06 + 1.07 + 1.08)).abs() < 1e-9);
    assert_eq!(r.total_ms(7..7), 0.0);
}

/// Two candidates over two phases: `a` 1 ms a frame in phase "a" (frames 0–9) and 5 in "b" (10–29), except 0.5 on
/// frame 20; `b` 3 ms in "a" and 2 in "b".
fn two_phases() -> Trace {
    let mut trace = synthetic(
        &["a", "b"],
        30,
        |c, t| match (c, t < 10) {
            (0, true) => 1.0,
            (0, false) => 5.0,
            (_, true) => 3.0,
            (_, false) => 2.0,
        },
        |_| 0.5,
    );
    for (t, frame) in trace.frames.iter_mut().enumerate() {
        frame.phase = if t < 10 { "a" } else { "b" }.to_string();
    }
    trace.frames[20].ms[0] = 0.5;
    trace
}

/// A replay written by hand: `a` answers frames 0–23 but 5 (`b` there), `b` from 24 on; 1 ms a frame but 3 on
/// frames 18–22, 0.5 and 0.25 around the switch at 24, and 2 after it; 0.5 ms of probing on frame 23.
fn by_hand(trace: &Trace) -> TraceReplay {
    let frames = (0..30)
        .map(|t| ReplayedFrame {
            active: usize::from(t == 5 || t >= 24),
            ms: match t {
                18..=22 => 3.0,
                23 => 0.5,
                24 => 0.25,
                25.. => 2.0,
                _ => 1.0,
            },
            probe_ms: if t == 23 { 0.5 } else { 0.0 },
        })
        .collect();
    let controller = Controller::new(trace.names.clone(), PolicyConfig::default(), Prior::builtin(), 0);
    TraceReplay { frames, probes: 0, switches: 0, controller }
}

/// The verdict's figures against sums done by hand: every candidate pinned, the best of them, the oracle that
/// picks the best candidate per phase and the one that picks it per frame, auto's total, the switches and the
/// probing in the range, and the worst switch's spike: the larger of its two frames (the last of the old
/// candidate, the first of the new) over the median of the ten frames before them (13–22: five of 1 ms, five of
/// 3, so 3). Switches before frame 11 have no ten frames before them and are left out of it.
#[test]
fn a_verdict_adds_up_as_worked_out_by_hand() {
    let trace = two_phases();
    let replay = by_hand(&trace);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let v = judge(&trace, &replay, 0..30);
    assert!(close(v.pinned_ms[0], 10.0 + 19.0 * 5.0 + 0.5) && close(v.pinned_ms[1], 30.0 + 40.0), "{v:?}");
    assert_eq!(v.best_pinned, 1);
    assert!(close(v.per_phase_oracle_ms, 10.0 + 40.0), "phase a: `a` 10; phase b: `b` 40 ({v:?})");
    assert!(close(v.per_frame_oracle_ms, 10.0 + 19.0 * 2.0 + 0.5), "{v:?}");
    assert!(close(v.auto_ms, 18.0 + 5.0 * 3.0 + 0.5 + 0.25 + 5.0 * 2.0), "{v:?}");
    assert_eq!(v.switches, 3, "at 5, 6 and 24");
    assert!(close(v.probe_ms, 0.5));
    assert!(close(v.worst_switch_spike, 0.5 / 3.0), "max(0.5, 0.25) over a median of 3 ({v:?})");
    assert_eq!(v.probes, 0, "the log is empty");

    // From the switch on: one phase, the switch at 24 still compared with the frames before the range.
    let late = judge(&trace, &replay, 24..30);
    assert!(close(late.pinned_ms[0], 30.0) && close(late.pinned_ms[1], 12.0), "{late:?}");
    assert!(close(late.per_phase_oracle_ms, 12.0) && close(late.per_frame_oracle_ms, 12.0), "{late:?}");
    assert_eq!((late.switches, late.best_pinned), (1, 1));
    assert!(close(late.probe_ms, 0.0) && close(late.worst_switch_spike, 0.5 / 3.0), "{late:?}");
    // Without a switch in the range there is no spike.
    assert!(close(judge(&trace, &replay, 25..30).worst_switch_spike, 0.0));
}

/// The median is the middle value of an odd count and the upper of the two middle ones of an even count; 0 for
/// nothing.
#[test]
fn the_median_takes_the_middle_or_the_upper_middle() {
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
    assert_eq!(median(&mut [7.5]), 7.5);
    assert_eq!(median(&mut []), 0.0);
}

/// Whatever the controller decides, a frame costs the active candidate's recorded frame (its first frames
/// after a warm start cost the same here: the trace never measured them, ratio 1) plus what was spent on probes
/// and warm starts plus the overhead; a sampled frame spends the sample's share of both candidates' frames
/// (share × (1 + 3) ms), and a warm start two steady frames of its candidate.
#[test]
fn every_replayed_frame_is_the_active_frame_plus_what_was_spent_beside_it() {
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.1, 0.5), ("b", 2.5, 0.1, 1.25)]);
    let trace = synthetic(&["a", "b"], 600, |c, _| [3.0, 1.0][c], |_| 0.5);
    let overhead = 0.25;
    let policy = PolicyConfig::default();
    let r = replay_trace(&trace, policy, prior, overhead);
    for (t, f) in r.frames.iter().enumerate() {
        let active = trace.frames[t].ms[f.active];
        assert!((f.ms - f.probe_ms - overhead - active).abs() < 1e-9, "frame {t}: {f:?}");
    }
    // The frames that spent anything: sampled ones, then the last sampled frame, on which the switch to `b`
    // warm-started it too (two of its 1 ms frames).
    let spent: Vec<f64> = r.frames.iter().map(|f| f.probe_ms).filter(|&p| p > 0.0).collect();
    let sampled = policy.sample_share * (1.0 + 3.0);
    let (last, before) = spent.split_last().expect("something was spent");
    assert!(!before.is_empty() && before.iter().all(|p| (p - sampled).abs() < 1e-12), "{spent:?}, sample {sampled}");
    assert!((last - (sampled + 2.0)).abs() < 1e-12, "{spent:?}");
}

/// A newcomer whose build the prior puts far above two of the active candidate's frames is built beside: the
/// frames the build spans are charged nothing beyond the active candidate's, and it is ready after as many of
/// them as its recorded cost (a warm start of 18.5 ms, then `CATCH_UP_CALLS` first frames of 3 ms: 24.5 ms)
/// fills with the active candidate's 6 ms frames: ⌈24.5 / 6⌉ = 5, from the frame after the order.
#[test]
fn a_build_beside_is_free_while_it_runs_and_ready_after_the_frames_its_cost_spans() {
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.1, 0.5), ("b", 2.5, 0.1, 40.0)]);
    let mut trace = synthetic(&["a", "b"], 600, |c, _| [6.0, 3.0][c], |_| 0.5);
    for frame in &mut trace.frames {
        frame.warm_ms[1] = 18.5;
    }
    let r = replay_trace(&trace, PolicyConfig::default(), prior, 0.0);
    let log = r.controller.log();
    let build = log.iter().find(|d| d.kind == crate::DecisionKind::Build).expect("b is built beside");
    assert_eq!(build.to, "b");
    let ordered = build.frame as usize;
    let plain = |f: &ReplayedFrame| f.active == 0 && f.ms == 6.0 && f.probe_ms == 0.0;
    let ready = ordered + 1 + r.frames[ordered + 1..].iter().position(|f| !plain(f)).expect("b takes part");
    let cost = 18.5 + f64::from(CATCH_UP_CALLS) * 3.0;
    assert_eq!(ready - ordered - 1, (cost / 6.0).ceil() as usize, "ordered at {ordered}, ready at {ready}");
}

/// A replayed sample is the whole frame scaled, so it holds the scene's pairs a body and is never thin: in a
/// crowd of 20 pairs a body, the wrong prior's `b` is sampled, learned (not set aside as a thin sample) and
/// switched to.
#[test]
fn a_replayed_sample_holds_the_scenes_pairs_and_is_never_thin() {
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.1, 0.5), ("b", 2.5, 0.1, 1.25)]);
    let trace = synthetic(&["a", "b"], 600, |c, _| [3.0, 1.0][c], |_| 20.0);
    let r = replay_trace(&trace, PolicyConfig::default(), prior, 0.0);
    let log = r.controller.log();
    assert!(log.iter().all(|d| !matches!(d.reason, crate::Reason::Thin { .. })), "{log:?}");
    assert!(log.iter().any(|d| d.to == "b" && matches!(d.reason, crate::Reason::Sampled { .. })), "{log:?}");
    assert_eq!(r.frames[599].active, 1);
}

/// The verdict counts the whole probes (not samples, builds or switches) whose decision falls in its range.
#[test]
fn a_verdict_counts_the_whole_probes_started_in_its_range() {
    // Five candidates near each other in a small scene (not sampled): the policy probes them whole.
    let frames = 6000;
    let mut trace = synthetic(&["a", "b", "c", "d", "e"], frames, |c, _| 1.0 + c as f64 / 20.0, |_| 0.5);
    trace.start.n = 1000;
    for frame in &mut trace.frames {
        frame.features.n = 1000;
    }
    let r = run(&trace);
    let log = r.controller.log();
    let at: Vec<usize> =
        log.iter().filter(|d| d.kind == crate::DecisionKind::Probe).map(|d| d.frame as usize).collect();
    assert!(!at.is_empty() && at.len() < log.len(), "probes among other decisions: {log:?}");
    assert_eq!(judge(&trace, &r, 0..frames).probes, at.len() as u64);
    let first = at[0];
    let at_first = at.iter().filter(|&&f| f == first).count() as u64;
    assert_eq!(judge(&trace, &r, first..first + 1).probes, at_first);
    assert_eq!(judge(&trace, &r, first + 1..frames).probes, at.len() as u64 - at_first);
    assert_eq!(judge(&trace, &r, 0..first).probes, 0, "none before the first");
}

/// A first frame without a speed picks among the candidates cheap to build; the second frame, with the speed
/// measured, switches to the one the prior finds cheaper, and that frame pays its warm start on top of the
/// newcomer's own frame: here `b` (1 ms, a warm start of two of its frames) replaces `a` (3 ms) on frame 1,
/// which costs 1 + 2 ms, of which 2 ms were spent beside the answer.
#[test]
fn the_second_frames_switch_on_the_measured_speed_is_charged_its_warm_start() {
    // `b` builds in 0.8 ms, above one of its 0.5 ms frames: not cheap, so not a first choice without a speed.
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.1, 0.5), ("b", 0.5, 0.1, 0.8)]);
    let mut trace = synthetic(&["a", "b"], 50, |c, _| [3.0, 1.0][c], |_| 0.5);
    trace.start.speed_known = false;
    trace.frames[0].features.speed_known = false;
    let r = replay_trace(&trace, PolicyConfig::default(), prior, 0.0);
    let log: Vec<_> = r.controller.log().iter().collect();
    assert_eq!(log[0].to, "a", "{log:?}");
    let switch = log[1];
    assert_eq!((switch.kind, switch.to, switch.frame), (crate::DecisionKind::Switch, "b", 1), "{log:?}");
    assert!(matches!(switch.reason, crate::Reason::SpeedMeasured { .. }), "{log:?}");
    assert_eq!(r.frames[0], ReplayedFrame { active: 0, ms: 3.0, probe_ms: 0.0 });
    assert_eq!(r.frames[1], ReplayedFrame { active: 1, ms: 3.0, probe_ms: 2.0 });
    assert_eq!(r.frames[2], ReplayedFrame { active: 1, ms: 1.0, probe_ms: 0.0 });
}
