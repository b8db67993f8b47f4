use super::*;

#[test]
fn a_switch_pays_over_the_frames_expected_to_remain() {
    let p = PolicyConfig::default();
    assert_eq!(p.remaining(0), 60.0, "at least a second ahead");
    assert_eq!(p.remaining(500), 500.0, "as many as have run");
    // Saving 1 ms a frame pays a 50 ms build at frame 0 (60 frames ahead), not a 70 ms one; at frame 100 it
    // does.
    assert!(p.pays(0, 2.0, 1.0, 50.0));
    assert!(!p.pays(0, 2.0, 1.0, 70.0));
    assert!(p.pays(100, 2.0, 1.0, 70.0));
    assert!(!p.pays(1000, 1.0, 2.0, 0.0), "a dearer candidate never pays");
}

#[test]
fn the_budget_fills_by_its_share_and_lends_only_to_a_probe_that_pays_ten_times_over() {
    let mut b = Budget::default();
    b.tick(10.0, 0.03);
    assert!((b.tokens_ms() - (20.0 + 0.3)).abs() < 1e-9, "the grant of 2 frames, and the share");
    b.spend(100.0);
    assert!(b.tokens_ms() < 0.0);
    assert!(!b.allows(5.0, 40.0, 10.0), "a modest saving waits for the bucket");
    assert!(b.allows(5.0, 60.0, 10.0), "ten times over borrows");
    for _ in 0..100_000 {
        b.tick(10.0, 0.03);
    }
    assert_eq!(b.tokens_ms(), 400.0, "the bucket holds 40 frames");
    b.spend(f64::NAN);
    assert_eq!(b.tokens_ms(), 400.0, "a NaN spends nothing");
}

#[test]
fn verdicts_split_estimates_by_the_margin_and_their_uncertainty() {
    let e = |ms: f64, sigma: f64| Estimate { ms, sigma, measured: true };
    assert_eq!(Verdict::of(&e(0.5, 0.2), 1.0, 0.1), Verdict::Cheaper);
    assert_eq!(Verdict::of(&e(0.85, 0.2), 1.0, 0.1), Verdict::Maybe);
    assert_eq!(Verdict::of(&e(1.0, 0.2), 1.0, 0.1), Verdict::Unlikely);
    assert_eq!(Verdict::of(&e(1.2, 0.1), 1.0, 0.1), Verdict::No);
    assert!(Reason::Idle { frames: 700 }.to_string().contains("700 frames"));
}

/// The rules' boundaries: a saving exactly equal to the cost does not pay; a promise of exactly ten times the
/// probe's cost borrows nothing; and a frame time that is not a positive finite number fills no bucket (nor
/// starts its grant).
#[test]
fn ties_do_not_pay_nor_borrow_and_a_meaningless_frame_fills_nothing() {
    let p = PolicyConfig::default();
    assert!(!p.pays(0, 2.0, 1.0, 60.0), "1 ms × 60 frames against a 60 ms cost");
    assert!(p.pays(0, 2.0, 1.0, 59.999));
    let empty = Budget::default();
    assert!(!empty.allows(5.0, 50.0, 10.0), "exactly ten times: no loan");
    assert!(empty.allows(5.0, 50.001, 10.0));
    let mut b = Budget::default();
    for frame_ms in [f64::NAN, f64::INFINITY, 0.0, -1.0] {
        b.tick(frame_ms, 0.03);
    }
    assert_eq!(b, Budget::default());
    b.tick(1.0, 0.5);
    assert_eq!(b.tokens_ms(), 2.5, "the grant comes with the first measured frame");
}

/// The reasons read as the log and the app show them: the first frame says when the speed was unknown, and a
/// thin sample says whether it stood or was learned.
#[test]
fn reasons_say_what_was_unknown_and_which_way_a_thin_sample_went() {
    let initial = |speed_known| Reason::Initial { predicted_ms: 1.0, build_ms: 2.0, speed_known }.to_string();
    assert!(initial(false).ends_with("(speed unknown: among those cheap to build)"), "{}", initial(false));
    assert!(!initial(true).contains("unknown"), "{}", initial(true));
    let thin = |sampled_ms| {
        Reason::Thin {
            probe_ms: 0.1,
            active_sample_ms: 0.2,
            bodies: 1024,
            sample_pairs_per_body: 0.5,
            scene_pairs_per_body: 2.0,
            sampled_ms,
            predicted_ms: 1.0,
        }
        .to_string()
    };
    assert!(thin(1.5).contains("too thin to carry its 1.500 ms; the model's 1.000 ms stands"), "{}", thin(1.5));
    assert!(thin(0.5).contains("thin, and in its favour: 0.500 ms on the whole scene, learned"), "{}", thin(0.5));
    assert!(thin(1.0).contains("in its favour"), "a tie is learned: {}", thin(1.0));
}

/// An estimate exactly at the target (the active cost less the margin) is no better than it: a sure estimate
/// there is `No`, an uncertain one `Unlikely` (only its optimistic end beats the target).
#[test]
fn an_estimate_exactly_at_the_target_does_not_beat_it() {
    let e = |ms: f64, sigma: f64| Estimate { ms, sigma, measured: true };
    assert_eq!(Verdict::of(&e(0.5, 0.0), 1.0, 0.5), Verdict::No);
    assert_eq!(Verdict::of(&e(0.5, 0.1), 1.0, 0.5), Verdict::Unlikely);
    assert_eq!(Verdict::of(&e(0.5 * (-0.1f64).exp(), 0.1), 1.0, 0.5), Verdict::Maybe);
}
