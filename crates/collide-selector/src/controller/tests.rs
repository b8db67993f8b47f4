use super::*;

fn features(speed: f64) -> Features {
    Features {
        n: 10_000,
        pairs_per_body: 0.5,
        speed_mean: speed,
        speed_known: true,
        clustering: 1.0,
        size_spread: 1.0,
        resting: 0.0,
    }
}

/// A controller over two candidates the prior does not know, past its cold frames, with a measured median.
fn warmed() -> Controller {
    warmed_over(vec!["a", "b"])
}

#[test]
fn a_hopeless_probe_ends_at_once_and_a_fair_one_runs_its_frames() {
    let mut c = warmed();
    assert_eq!(c.start_probe(1, Reason::Forced), Order::Probe(1));
    // Its first frame costs ten times the active one's: more than it could ever win back.
    assert_eq!(c.after_frame(&features(0.2), 1.0, Some(10.0), None), Order::Stay);
    assert_eq!(c.probing(), None, "ended after one frame");
    let last = c.log().iter().last().expect("logged");
    assert_eq!(last.kind, DecisionKind::Reject);
    // A probe whose first frame is dear but not hopeless (the warm start's leftovers) goes on.
    let mut c = warmed();
    let _ = c.start_probe(1, Reason::Forced);
    let _ = c.after_frame(&features(0.2), 1.0, Some(2.5), None);
    assert_eq!(c.probing(), Some(1));
    // Its later frames are held to the tighter factor.
    let _ = c.after_frame(&features(0.2), 1.0, Some(3.5), None);
    assert_eq!(c.probing(), None, "a steady frame 3.5x the active one's ends it");
}

#[test]
fn a_first_frame_without_speed_picks_a_cheap_build_and_the_second_decides_on_the_measured_speed() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    // Every build cold, so that the choice is the frame's (a dear one is otherwise built beside: tested below).
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    let mut c = Controller::new(names, policy, prior, 0);
    let unknown = Features { speed_known: false, speed_mean: 0.0, ..features(0.0) };
    let first = c.start(unknown);
    assert!(c.builds()[first] <= CHEAP_BUILD * c.estimates()[first].ms, "{} is cheap to build", c.names()[first]);
    assert!(matches!(c.log().iter().next().unwrap().reason, Reason::Initial { speed_known: false, .. }));
    let _ = c.after_frame(&unknown, 1.0, None, None);
    // The second frame knows the speed: the prior's cheapest over the horizon, build included.
    let measured = features(0.001);
    let second = c.before_frame(&measured).unwrap_or(first);
    let horizon = f64::from(c.policy().min_horizon);
    // Every candidate is charged one residual above its predicted frames, and a newcomer its build.
    let cost = |k: usize| {
        let e = c.estimates()[k];
        let build = if k == first { 0.0 } else { c.builds()[k] };
        build + horizon * e.ms * e.sigma.exp()
    };
    let best = (0..c.names().len()).min_by(|&a, &b| cost(a).total_cmp(&cost(b))).unwrap();
    assert!(
        cost(second) <= cost(best) / (1.0 - c.policy().margin) + 1e-9,
        "{} against {}",
        c.names()[second],
        c.names()[best]
    );
    assert_eq!(c.before_frame(&measured), None, "only once");
}

/// A first frame with a speed hint is decided again when the boxes then move more than twice (or less than half)
/// as fast as the hint said — on the first decision frame from [`DECIDE_EVERY`] on, not on the second frame, whose
/// displacement can be the push that separates bodies created overlapping — and a hint the boxes bear out is left
/// alone. Here the hint says a slow drift (the prior picks a structure kept from frame to frame) and the boxes move
/// a box's size a frame.
#[test]
fn a_speed_hint_the_boxes_belie_is_decided_again_on_the_measured_speed() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    let hint = 0.002;
    // Every build cold, so that the choice shows on the frame (a dear one would be built beside).
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    for (measured, decides_again) in [(1.0, true), (1.5 * hint, false), (0.4 * hint, true)] {
        let mut c = Controller::new(names.clone(), policy, prior.clone(), 0);
        let first = c.start(features(hint));
        let seen = features(measured);
        let _ = c.after_frame(&seen, 1.0, None, None);
        assert_eq!(c.before_frame(&seen), None, "the second frame does not judge the hint");
        while c.frame < DECIDE_EVERY {
            let _ = c.after_frame(&seen, 1.0, None, None);
            c.job = Job::Idle;
        }
        let got = c.before_frame(&seen);
        if decides_again && measured > hint {
            let to = got.unwrap_or_else(|| panic!("{} kept at {measured} against a hint of {hint}", names[first]));
            assert_ne!(to, first);
            assert!(matches!(c.log().iter().last().unwrap().reason, Reason::SpeedMeasured { .. }));
        } else if !decides_again {
            assert_eq!(got, None, "a hint within 2x of the boxes' speed is kept");
        }
        // Decided (or not) once: the measured speed is judged on the first decision frame only.
        assert_eq!(c.redecide, Redecide::No, "measured {measured}");
        assert_eq!(c.before_frame(&features(100.0)), None, "only once");
    }
}

/// On the second frame, a pair count below the first frame's estimate of the scene's density is the count of
/// bodies created apart that have not met yet: the choice is made on the estimate. Rapier's brownian gas at 10⁵
/// bodies (its features here) has no pair on its first frame and 0.7–1 a body from frame 20 on; chosen on its
/// first frame's count, the prior picked `grid`, which ran at 2.1× `kd` there. A count above the estimate is the
/// count.
#[test]
fn the_second_frame_keeps_the_first_frames_pair_density_when_the_bodies_have_not_met_yet() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    // Every build cold, so that the choice shows on the frame (a dear one would be built beside).
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    let scene = |pairs_per_body: f64, speed: Option<f64>| Features {
        n: 100_000,
        pairs_per_body,
        speed_mean: speed.unwrap_or(0.0),
        speed_known: speed.is_some(),
        clustering: 0.725,
        size_spread: 1.728,
        resting: 0.0,
    };
    // The second frame's choice and the pairs a body it was made on, after a first frame that estimated
    // `estimated` and a second that counts `counted`.
    let second = |estimated: f64, counted: f64| {
        let mut c = Controller::new(names.clone(), policy, prior.clone(), 0);
        let first = c.start(scene(estimated, None));
        let _ = c.after_frame(&scene(estimated, None), 1.0, None, None);
        let got = c.before_frame(&scene(counted, Some(0.047)));
        (names[got.unwrap_or(first)], c.features.pairs_per_body)
    };
    let (lattice, kept) = second(0.58, 0.0);
    assert_eq!(kept, 0.58, "the estimate is kept");
    let (met, _) = second(0.58, 0.58);
    assert_eq!(lattice, met, "chosen as if the bodies had met");
    let (empty, _) = second(0.0, 0.0);
    assert_ne!(lattice, empty, "a scene without pairs chooses otherwise (else this test could not fail)");
    let (_, counted) = second(0.1, 0.58);
    assert_eq!(counted, 0.58, "a count above the estimate is the count");
}

/// The second frame does not build a candidate on the prior's point estimate when the prior is unsure of it:
/// a newcomer predicted a little cheaper but with a wide residual stays unbuilt, one as cheap with a narrow
/// residual is built.
#[test]
fn the_second_frame_switches_only_to_a_candidate_that_pays_at_one_residual_above_its_prediction() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    let measured = features(0.02);
    // Every build cold here: the builds beside of the second frame's choice are tested below.
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    for (sigma, switches) in [(0.6, false), (0.01, true)] {
        let mut c = Controller::new(names.clone(), policy, prior.clone(), 0);
        let first = c.start(Features { speed_known: false, speed_mean: 0.0, ..features(0.0) });
        let _ = c.after_frame(&measured, 1.0, None, None);
        // Make the prior say: every other candidate twice the active one's frame, candidate `k` 0.7 of it after a
        // build of ten of the active one's frames. Over 60 frames it saves 18 frames' worth at the point
        // estimate, more than its build; at one residual of 0.6 it costs 1.27 of the active one's frame.
        let k = (first + 1) % names.len();
        let got = {
            c.features = measured;
            c.prior_costs(&measured);
            let active = c.estimates[first].ms;
            for (i, e) in c.estimates.iter_mut().enumerate() {
                if i != first {
                    *e = Estimate { ms: 2.0 * active, sigma: 0.1, measured: false };
                }
            }
            c.estimates[k] = Estimate { ms: 0.7 * active, sigma, measured: false };
            c.builds[k] = 10.0 * active;
            c.choose_on_measured_speed()
        };
        assert_eq!(got == Some(k), switches, "sigma {sigma}: {got:?}");
    }
}

/// The second frame's newcomer whose build would make a frame hitch (ten of the active candidate's frames, above
/// the shipped `build_beside_from` of two) is not run cold: the active candidate answers the frame, and the
/// frame's decision starts the newcomer's build beside, which hands over once ready. A cheap build is run cold at
/// once.
#[test]
fn the_second_frame_builds_a_dear_newcomer_beside_the_active_one() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    let measured = features(0.02);
    for (build, beside) in [(10.0, true), (0.5, false)] {
        let mut c = Controller::new(names.clone(), PolicyConfig::default(), prior.clone(), 0);
        let first = c.start(Features { speed_known: false, speed_mean: 0.0, ..features(0.0) });
        let _ = c.after_frame(&measured, 1.0, None, None);
        let k = (first + 1) % names.len();
        c.features = measured;
        c.prior_costs(&measured);
        let active = c.estimates[first].ms;
        for (i, e) in c.estimates.iter_mut().enumerate() {
            if i != first {
                *e = Estimate { ms: 2.0 * active, sigma: 0.1, measured: false };
            }
        }
        c.estimates[k] = Estimate { ms: 0.5 * active, sigma: 0.01, measured: false };
        c.builds[k] = build * active;
        let got = c.choose_on_measured_speed();
        if beside {
            assert_eq!(got, None, "the active candidate answers the frame");
            assert_eq!(c.active(), first);
            assert_eq!(c.after_frame(&measured, active, None, None), Order::BuildBeside(k));
            let last = c.log().iter().last().unwrap();
            assert_eq!(last.kind, DecisionKind::Build);
            assert!(matches!(last.reason, Reason::SpeedMeasured { .. }), "{:?}", last.reason);
            assert!(c.built(k, build * active), "it takes over once built");
            assert_eq!(c.active(), k);
        } else {
            assert_eq!(got, Some(k), "a cheap build runs cold at once");
            assert_eq!(c.active(), k);
        }
    }
}

/// A switch on the prior alone (the second frame's, on the measured speed) starts no cooldown: the next
/// decision may sample at once, since nothing measured backs the pick. A switch on a measurement does, for
/// `cooldown` frames. Going back to the candidate left still needs twice the margin after either.
#[test]
fn a_switch_on_the_prior_alone_starts_no_cooldown_and_one_on_a_measurement_does() {
    let prior = Prior::builtin();
    let names: Vec<&'static str> = prior.fits.iter().map(|f| &*Box::leak(f.name.clone().into_boxed_str())).collect();
    let measured = features(0.02);
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    let mut c = Controller::new(names.clone(), policy, prior, 0);
    let first = c.start(Features { speed_known: false, speed_mean: 0.0, ..features(0.0) });
    let _ = c.after_frame(&measured, 1.0, None, None);
    let k = (first + 1) % names.len();
    c.features = measured;
    c.prior_costs(&measured);
    let active = c.estimates[first].ms;
    for (i, e) in c.estimates.iter_mut().enumerate() {
        if i != first {
            *e = Estimate { ms: 2.0 * active, sigma: 0.1, measured: false };
        }
    }
    c.estimates[k] = Estimate { ms: 0.5 * active, sigma: 0.01, measured: false };
    c.builds[k] = 0.5 * active;
    assert_eq!(c.choose_on_measured_speed(), Some(k), "switched on the prior");
    assert!(!c.cooling(), "no cooldown after a switch on the prior alone");
    assert_eq!(c.margin_for(first), 2.0 * c.policy().margin, "going back soon still needs twice the margin");
    // A switch on a measurement (a sample's, a probe's) cools for `cooldown` frames.
    let back = (k + 1) % names.len();
    c.switch_to(back, 0, Then::Switch);
    let from = c.frame;
    while c.frame < from + u64::from(c.policy().cooldown) {
        assert!(c.cooling(), "frame {} of the cooldown from {from}", c.frame);
        c.quiet_frame(1.0);
    }
    assert!(!c.cooling(), "over after {} frames", c.policy().cooldown);
}

#[test]
fn a_candidate_idle_for_long_is_freed_once() {
    let mut c = warmed();
    // No budget left for probes: nothing runs candidate 1 again.
    c.budget.spend(1e12);
    c.holding[1] = true;
    c.last_ran[1] = c.frame;
    for _ in 0..c.config.free_after {
        let _ = c.after_frame(&features(0.2), 1.0, None, None);
        c.job = Job::Idle;
        assert_eq!(c.take_expired(), None);
    }
    let _ = c.after_frame(&features(0.2), 1.0, None, None);
    c.job = Job::Idle;
    assert_eq!(c.take_expired(), Some(1));
    assert_eq!(c.take_expired(), None, "freed once");
    assert_eq!(c.take_expired(), None, "the active one is never freed");
}

/// A sample places candidate 1 within the margin (0.7 against 1.0) but not beyond doubt, and the budget cannot
/// afford a whole probe: the controller switches to it as a trial when its point estimate beats the margin and the
/// saving pays its build; the candidate it left may come back with the plain margin. A candidate that settles over
/// several calls (a dynamic tree, flattered by its sample) must beat the margin with half its uncertainty against
/// it: at 0.85 it is not tried, where one that settles at once is. A sample inside the margin (0.95), or a saving
/// that would not pay the build, leaves the active one running.
#[test]
fn a_sampled_candidate_likely_cheaper_is_tried_when_a_whole_probe_is_not_affordable() {
    let setup = |ms: f64, build_ms: f64| {
        let mut c = warmed();
        c.frame = 100;
        c.budget.spend(1e12);
        c.estimates[0] = Estimate { ms: 1.0, sigma: MEASURED_SIGMA, measured: true };
        c.estimates[1] = Estimate { ms, sigma: SAMPLED_SIGMA, measured: true };
        c.builds[1] = build_ms;
        c
    };
    let mut c = setup(0.7, 1.5);
    assert_eq!(Verdict::of(&c.estimates[1], 1.0, c.config.margin), Verdict::Maybe);
    assert_eq!(c.choose(), Order::Switch { to: 1, warm: true });
    assert_eq!(c.active(), 1);
    let last = c.log().iter().last().expect("logged");
    assert_eq!((last.kind, last.from, last.to), (DecisionKind::Switch, "a", "b"));
    assert!(matches!(last.reason, Reason::Trial { build_ms: 1.5, .. }), "{:?}", last.reason);
    assert_eq!(c.margin_for(0), c.config.margin, "the candidate left behind comes back with the plain margin");
    // A switch made on a measurement beyond doubt keeps the thrash guard.
    let mut c = setup(0.7, 1.5);
    c.estimates[1].sigma = 0.01;
    assert_eq!(c.choose(), Order::Switch { to: 1, warm: true });
    assert!(matches!(c.log().iter().last().unwrap().reason, Reason::Pays { .. }));
    assert_eq!(c.margin_for(0), 2.0 * c.config.margin);
    // Beyond the margin at its point estimate but not with half its uncertainty against it: tried when it settles
    // at once, not when it settles over several calls.
    let mut c = setup(0.85, 1.5);
    assert_eq!(Verdict::of(&c.estimates[1], 1.0, c.config.margin), Verdict::Maybe);
    assert_eq!(c.choose(), Order::Switch { to: 1, warm: true });
    let mut c = setup(0.85, 1.5);
    c.settle = vec![1, 6];
    assert_ne!(c.choose(), Order::Switch { to: 1, warm: true });
    assert_eq!(c.active(), 0);
    let mut c = setup(0.85 * 0.8, 1.5);
    c.settle = vec![1, 6];
    assert_eq!(c.choose(), Order::Switch { to: 1, warm: true }, "likely beyond the margin, the tree is tried too");
    // Inside the margin: no trial.
    let mut c = setup(0.95, 1.5);
    assert_ne!(c.choose(), Order::Switch { to: 1, warm: true });
    assert_eq!(c.active(), 0);
    // 0.3 ms a frame over 100 frames does not pay a 40 ms build: no trial.
    let mut c = setup(0.7, 40.0);
    assert_ne!(c.choose(), Order::Switch { to: 1, warm: true });
    assert_eq!(c.active(), 0);
}

/// A candidate cheap while it is young (a dynamic tree whose fat boxes are all fresh) is compared only after its
/// settling calls: its sampled probe runs that many frames before the compared ones, and what the model learns is
/// the ratio of the later frames. Compared from its second frame, as a candidate that settles at once is, the same
/// frames put it at 0.4× the active one instead of its steady 1.6×.
#[test]
fn a_settling_candidate_is_compared_only_after_its_settling_calls() {
    // The sample's frames: the build, five young calls, then the steady ones.
    let frame = |k: usize| {
        let probe_ms = match k {
            0 => 0.5,
            1..=5 => 0.02,
            _ => 0.08,
        };
        SampleFrame { probe_ms, pairs: 200, active_ms: 0.05, bodies: 400, extra_ms: 0.0 }
    };
    let run = |settle: u32| {
        let mut c = warmed().with_settling(vec![1, settle]);
        assert_eq!(c.start_sample(1, Reason::Forced), Order::Sample(1));
        let mut frames = 0;
        while c.sampling() == Some(1) {
            let _ = c.after_frame(&features(0.2), 1.0, None, Some(frame(frames)));
            frames += 1;
            assert!(frames <= MAX_PROBE_FRAMES, "the sample ends");
        }
        // (A switch may follow the sample on the same frame: the young ratio makes the candidate look cheaper.)
        let sampled = c.log().iter().find(|d| d.kind == DecisionKind::Sampled).expect("logged");
        let Reason::Sampled { probe_ms, active_sample_ms, predicted_ms, .. } = sampled.reason else { unreachable!() };
        (frames, probe_ms / active_sample_ms, predicted_ms)
    };
    let (frames, ratio, settled) = run(6);
    assert_eq!(frames, 6 + 4, "six settling frames, then the policy's four compared");
    assert!((ratio - 1.6).abs() < 1e-9, "the steady frames' ratio, got {ratio}");
    let (frames, ratio, young) = run(1);
    assert_eq!(frames, 5);
    assert!((ratio - 0.4).abs() < 1e-9, "the young frames' ratio, got {ratio}");
    assert!((settled / young - 4.0).abs() < 0.01, "the model carries each ratio: {settled} against {young}");
}

/// A controller over `names` (the first active), past its cold frames, with a median of 1 ms.
fn warmed_over(names: Vec<&'static str>) -> Controller {
    let mut c = Controller::new(names, PolicyConfig::default(), Prior::builtin(), 0);
    c.start(features(0.2));
    for _ in 0..RECENT_FRAMES {
        let _ = c.after_frame(&features(0.2), 1.0, None, None);
    }
    c.job = Job::Idle;
    c
}

/// A sample places candidate 1 at 0.7 of the active one, within the margin, and no whole probe can run: the budget
/// is spent, and the prior's own figure for the candidate (1 ms) is twice the active one's frame, so a probe beside
/// it would make a hitch. The trial runs instead of the active candidate, so the hitch guard does not hold it back:
/// it is tried. (Behind the guard, kd sampled at 0.63 ms against the dynamic tree's 0.80 in rapier's avalanche at
/// 10⁴ bodies waited 30 frames more for its next sample.)
#[test]
fn a_sampled_candidate_is_tried_even_when_a_probe_beside_the_active_one_would_hitch() {
    let mut c = warmed();
    c.frame = 100;
    c.budget.spend(1e12);
    c.estimates[0] = Estimate { ms: 0.5, sigma: MEASURED_SIGMA, measured: true };
    c.estimates[1] = Estimate { ms: 0.35, sigma: SAMPLED_SIGMA, measured: true };
    c.builds[1] = 0.5;
    assert!(c.probe_frame_ms(1) > PROBE_FRAME_SHARE * 0.5, "a probe beside the active one would hitch");
    assert_eq!(c.choose(), Order::Switch { to: 1, warm: true });
    assert!(matches!(c.log().iter().last().unwrap().reason, Reason::Trial { .. }));
}

/// A candidate sampled 20 frames ago is not sampled again while the active candidate's frame holds (the scene
/// drifts slowly: the sample would tell what the last one did), but it is once that frame has grown by more than
/// a sample's uncertainty (×1.5 here): the ratio the sample measured says little of the scene now. A sample taken
/// beside another active candidate is not judged by this one's frame.
#[test]
fn a_sample_is_taken_again_before_the_gap_once_the_active_candidates_frame_has_moved_beyond_its_uncertainty() {
    let setup = |active_ms: f64, sampled_beside: usize| {
        let mut c = warmed();
        c.frame = 120;
        c.budget.spend(-100.0);
        c.last_sampled[1] = Some(LastSample { frame: 100, active: sampled_beside, active_ms: 1.0 });
        // What the model says of the candidate now: within reach, and no longer known to a sample's precision.
        c.estimates[0] = Estimate { ms: active_ms, sigma: MEASURED_SIGMA, measured: true };
        c.estimates[1] = Estimate { ms: 0.8 * active_ms, sigma: 2.0 * SAMPLED_SIGMA, measured: true };
        c
    };
    assert_eq!(setup(1.1, 0).choose(), Order::Stay, "within the gap, the active frame at 1.1x");
    assert_eq!(setup(1.5, 0).choose(), Order::Sample(1), "the active frame at 1.5x");
    assert_eq!(setup(1.0 / 1.5, 0).choose(), Order::Sample(1), "the active frame at 1/1.5x");
    assert_eq!(setup(1.5, 1).choose(), Order::Stay, "sampled beside another active candidate");
    let mut c = setup(1.5, 0);
    c.frame = 100 + RESAMPLE_GAP;
    c.estimates[0].ms = 1.0;
    c.estimates[1].ms = 0.8;
    assert_eq!(c.choose(), Order::Sample(1), "after the gap, whatever the active frame");
}

/// Two candidates could be cheaper and neither was measured: the more promising one's sample is dear (it settles
/// over six calls, and no loan is owed to a saving only hoped for) and the budget cannot pay it, the other's is
/// cheap and paid. The cheap one is sampled now instead of both waiting for the budget to save up for the dear one.
/// (At 10⁴ bodies of rapier's gravity pile the dynamic tree held kd, 0.55× `mbp` there, unsampled for 150 frames.)
#[test]
fn a_sample_the_budget_cannot_pay_does_not_hold_back_a_promising_one_it_can() {
    let mut c = warmed_over(vec!["a", "b", "c"]).with_settling(vec![1, 6, 1]);
    c.frame = 100;
    c.budget = Budget::default();
    c.budget.tick(0.5, 1.0);
    let tokens = c.budget.tokens_ms();
    c.estimates[0] = Estimate { ms: 1.0, sigma: MEASURED_SIGMA, measured: true };
    // "b": the most optimistic (0.9 × e^−0.9 = 0.37), a saving of only 0.1 ms a frame expected.
    c.estimates[1] = Estimate { ms: 0.9, sigma: 0.9, measured: false };
    // "c": 0.8 × e^−0.2 = 0.65.
    c.estimates[2] = Estimate { ms: 0.8, sigma: 0.2, measured: false };
    c.builds = vec![1.0; 3];
    let share = c.config.sample_share.max(MIN_SAMPLE_BODIES as f64 / 10_000.0);
    let cost = |ms: f64, settle: u32| share * (ms + 1.0) * f64::from(c.config.sample_frames + settle);
    assert!(
        cost(0.9, 6) > tokens && cost(0.8, 1) <= tokens,
        "b's sample {} c's {} tokens {tokens}",
        cost(0.9, 6),
        cost(0.8, 1)
    );
    assert_eq!(c.choose(), Order::Sample(2));
    // With the budget for both, the more promising one goes first.
    c.job = Job::Idle;
    c.budget.spend(-10.0);
    assert_eq!(c.choose(), Order::Sample(1));
}

/// The active candidate, a structure kept from frame to frame that settles over six calls, runs five times dearer
/// on the scene than its fresh scout on the sample says (the prior carrying the scout's frame to the scene's
/// size): an old dynamic tree in a stream. The sampled candidate's
/// scout takes twice the active scout's time. Carried by the plain ratio it would be predicted at twice the
/// active frame and left alone; carried by its own scout it is at 0.4 of it, and taken. (On rapier's free fall at
/// 10⁵ bodies the plain ratio put `kd` at 3.4× the old tree, where it ran at 0.37×.)
#[test]
fn a_candidate_sampled_beside_an_aged_active_one_is_judged_by_its_own_scout() {
    // The active frame on the scene is 1 ms before the sample and `during` while it runs.
    let run_while = |aged: f64, settles: u32, during: f64| {
        let mut c = warmed().with_settling(vec![settles, 1]);
        c.frame = 100;
        let f = features(0.2);
        let bodies = 1_000;
        let at = Features { n: bodies, ..f };
        // The active frame on the scene is 1 ms; its scout's, `aged` times less than the prior carries it to.
        let scout = c.model.base(0, &at).0 / c.model.base(0, &f).0 / aged;
        assert_eq!(c.start_sample(1, Reason::Forced), Order::Sample(1));
        let mut orders = Vec::new();
        for _ in 0..MAX_PROBE_FRAMES + 4 * DECIDE_EVERY as usize {
            let sample = c.sampling().map(|_| SampleFrame {
                probe_ms: 2.0 * scout,
                pairs: 500,
                active_ms: scout,
                bodies,
                extra_ms: 0.0,
            });
            let active_ms = if c.sampling().is_some() { during } else { 1.0 };
            orders.push(c.after_frame(&f, active_ms, None, sample));
            if c.active() != 0 {
                break;
            }
        }
        let sampled = c.log().iter().find(|d| d.kind == DecisionKind::Sampled).expect("logged");
        let Reason::Sampled { predicted_ms, .. } = sampled.reason else { unreachable!() };
        (predicted_ms, c.active(), orders)
    };
    let run = |aged: f64, settles: u32| run_while(aged, settles, 1.0);
    let (young, active, orders) = run(1.0, 6);
    assert!((young - 2.0).abs() < 0.05, "a young active: the plain ratio, got {young}");
    assert_eq!(active, 0, "{orders:?}");
    let (old, active, orders) = run(5.0, 6);
    assert!((old - 0.4).abs() < 0.01, "an old active: the candidate's own scout, got {old}");
    assert_eq!(active, 1, "{orders:?}");
    // An active candidate rebuilt every frame is as young as its scout: the same frames keep it.
    let (rebuilt, active, orders) = run(5.0, 1);
    assert!((rebuilt - 2.0).abs() < 0.05, "got {rebuilt}");
    assert_eq!(active, 0, "{orders:?}");
    // The old tree's frame jumping while the sample runs is the scene changing, not its age: the plain ratio
    // holds, and the candidate is predicted at twice the active frame.
    let (jumped, _, _) = run_while(5.0 / 3.0, 6, 3.0);
    let (steady, _, _) = run_while(5.0 / 1.2, 6, 1.2);
    assert!(jumped > 2.0, "got {jumped}");
    assert!(steady < 1.0, "got {steady}");
}

/// Two candidates the prior places at 1 and 0.7 ms (×/÷ 1.35), on a scene of 5 pairs a body; `a` runs, at 1 ms, with
/// no budget left for a whole probe. `b`'s sample says it runs at twice `a` on the sample.
fn thin_setup() -> Controller {
    // `b`'s build keeps it from the first frame's pick, and its saving over 100 frames pays for it.
    let prior = crate::model::constant_prior(&[("a", 1.0, 0.3, 0.5), ("b", 0.7, 0.3, 20.0)]);
    let policy = PolicyConfig { build_beside_from: f64::INFINITY, ..PolicyConfig::default() };
    let mut c = Controller::new(vec!["a", "b"], policy, prior, 0);
    let f = dense();
    assert_eq!(c.start(f), 0, "the first frame runs `a`");
    for _ in 0..RECENT_FRAMES {
        let _ = c.after_frame(&f, 1.0, None, None);
    }
    c.job = Job::Idle;
    c.frame = 100;
    c.budget.spend(1e12);
    c
}

/// The scene of [`thin_setup`]: 5 pairs a body.
fn dense() -> Features {
    Features { pairs_per_body: 5.0, ..features(0.2) }
}

/// Run a sample of `b` beside `a` whose frames hold `share` of the scene's pairs a body, `b`'s scout at twice
/// `a`'s; returns the order of the frame it ended on.
fn sample_b(c: &mut Controller, share: f64) -> Order {
    let bodies = 1_000;
    let pairs = (share * dense().pairs_per_body * bodies as f64) as usize;
    assert_eq!(c.start_sample(1, Reason::Forced), Order::Sample(1));
    for _ in 0..MAX_PROBE_FRAMES {
        let frame = SampleFrame { probe_ms: 0.2, pairs, active_ms: 0.1, bodies, extra_ms: 0.0 };
        let order = c.after_frame(&dense(), 1.0, None, Some(frame));
        if c.sampling().is_none() {
            return order;
        }
    }
    panic!("the sample ends");
}

/// A sample holding half the scene's pairs a body (`power-law`'s cubes, cut through by its large bodies) says
/// nothing the model may learn: the candidate keeps the prior's figure and is tried on it, as a fresh sample's would
/// be. Its trial's own whole frames then measure it against the candidate it left: dearer (1.5 ms against 1), the
/// left one comes back and `b` is not tried again; cheaper (0.6), it stays. A sample as dense as the scene is
/// learned, and the same 2× keeps `a`.
#[test]
fn a_thin_sample_is_not_learned_and_its_candidate_is_tried_and_judged_on_whole_frames() {
    // As dense as the scene: learned, `b` at twice `a`, and `a` stays.
    let mut c = thin_setup();
    let _ = sample_b(&mut c, 0.95);
    let sampled = c.log().iter().last().expect("logged");
    assert!(matches!(sampled.reason, Reason::Sampled { .. }), "{:?}", sampled.reason);
    assert!(c.estimates[1].ms > 1.5, "learned: {:?}", c.estimates[1]);
    assert_eq!(c.choose(), Order::Stay);
    assert_eq!(c.active(), 0);

    let run = |b_ms: f64| {
        let mut c = thin_setup();
        let prior_b = c.estimates[1].ms;
        assert!(prior_b < 0.75, "the prior's figure: {prior_b}");
        let order = sample_b(&mut c, 0.5);
        let thin = c.log().iter().find(|d| d.kind == DecisionKind::Sampled).expect("logged");
        let Reason::Thin { sample_pairs_per_body, scene_pairs_per_body, sampled_ms, predicted_ms, .. } = thin.reason
        else {
            panic!("{:?}", thin.reason)
        };
        assert!((sample_pairs_per_body - 2.5).abs() < 1e-9 && scene_pairs_per_body == 5.0);
        assert!(sampled_ms > 1.5, "the sample made it {sampled_ms}");
        assert!((predicted_ms - prior_b).abs() < 1e-9, "not learned: {predicted_ms} against {prior_b}");
        // The trial follows on the sample's last frame or the next decision.
        let order = if order == Order::Stay { c.choose() } else { order };
        assert_eq!(order, Order::Switch { to: 1, warm: true });
        assert!(matches!(c.log().iter().last().unwrap().reason, Reason::Trial { .. }));
        c.warm_started(1, 20.0);
        let mut back_at = None;
        for k in 0..40 {
            let ms = if c.active() == 1 { b_ms } else { 1.0 };
            let order = c.after_frame(&dense(), ms, None, None);
            if let Order::Switch { to: 0, warm } = order {
                if warm {
                    c.warm_started(0, 0.5);
                }
                back_at.get_or_insert(k);
            }
            assert_ne!(order, Order::Switch { to: 1, warm: true }, "`b` is not tried again");
            c.job = Job::Idle;
        }
        let measured = c.log().iter().find(|d| d.kind == DecisionKind::Measured).map(|d| (d.from, d.to, d.reason));
        (back_at, c.active(), measured)
    };
    let (back_at, active, measured) = run(1.5);
    assert_eq!(active, 0, "dearer on trial: `a` comes back");
    assert!(back_at.is_some_and(|k| k < 12), "soon after the trial measured it: {back_at:?}");
    let Some(("a", "b", Reason::TrialMeasured { active_ms, left_ms })) = measured else { panic!("{measured:?}") };
    assert!((active_ms - 1.5).abs() < 1e-9 && (left_ms - 1.0).abs() < 1e-9);
    let (back_at, active, measured) = run(0.6);
    assert_eq!((back_at, active), (None, 1), "cheaper on trial: `b` stays");
    assert!(matches!(measured, Some((_, _, Reason::TrialMeasured { .. }))));
}

/// A thin sample that makes the candidate cheaper than the model had it is learned, as any sample is (a trial it
/// leads to is judged on whole frames too); and a sample of a sparse scene (0.5 pairs a body: 200 pairs promised
/// to a sample of 400, below what [`THIN_JUDGED_FROM`] needs to tell) is never judged thin.
#[test]
fn a_thin_sample_in_the_candidates_favour_is_learned_and_a_sparse_one_is_never_thin() {
    let mut c = thin_setup();
    let bodies = 1_000;
    assert_eq!(c.start_sample(1, Reason::Forced), Order::Sample(1));
    while c.sampling().is_some() {
        let frame = SampleFrame { probe_ms: 0.03, pairs: 2_500, active_ms: 0.1, bodies, extra_ms: 0.0 };
        let _ = c.after_frame(&dense(), 1.0, None, Some(frame));
    }
    let thin = c.log().iter().find(|d| d.kind == DecisionKind::Sampled).expect("logged");
    let Reason::Thin { sampled_ms, predicted_ms, .. } = thin.reason else { panic!("{:?}", thin.reason) };
    assert!(sampled_ms < 0.5 && predicted_ms == sampled_ms, "learned: {sampled_ms}, kept {predicted_ms}");

    let mut c = thin_setup();
    let (sparse, bodies) = (features(0.2), 400u32);
    assert!(sparse.pairs_per_body * f64::from(bodies) < THIN_JUDGED_FROM);
    assert_eq!(c.start_sample(1, Reason::Forced), Order::Sample(1));
    while c.sampling().is_some() {
        // A quarter of the scene's pairs a body.
        let frame = SampleFrame { probe_ms: 0.2, pairs: 50, active_ms: 0.1, bodies: bodies as usize, extra_ms: 0.0 };
        let _ = c.after_frame(&sparse, 1.0, None, Some(frame));
    }
    let sampled = c.log().iter().find(|d| d.kind == DecisionKind::Sampled).expect("logged");
    assert!(matches!(sampled.reason, Reason::Sampled { .. }), "{:?}", sampled.reason);
}
