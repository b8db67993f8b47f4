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
