use super::*;

fn p(a: u32, b: u32) -> Pair {
    Pair { a, b }
}

#[test]
fn diff_counts_missing_extra_duplicated_and_unordered_pairs() {
    let expected = [p(0, 1), p(0, 2), p(3, 4)];
    assert_eq!(diff(&expected, &mut [p(3, 4), p(0, 2), p(0, 1)]), PairDiff::default());
    let d = diff(&expected, &mut [p(1, 0), p(0, 1), p(5, 6), p(3, 4)]);
    assert_eq!((d.missing, d.extra, d.duplicates, d.unordered), (1, 1, 1, 1));
    assert_eq!(d.first_missing, Some(p(0, 2)));
    assert_eq!(d.first_extra, Some(p(5, 6)));
    let e = d.into_result().unwrap_err();
    assert_eq!(e, "1 missing e.g. (0, 2), 1 extra e.g. (5, 6), 1 duplicated, 1 unordered");
    assert_eq!(diff(&expected, &mut []).missing, 3);
    assert_eq!(diff(&[], &mut [p(1, 2)]).extra, 1);
}

#[test]
fn guard_stops_on_slow_points_spent_budgets_and_predictions() {
    let mut g = SeriesGuard::with(Duration::from_secs(60), 1000.0);
    assert_eq!(g.skip(1000), None);
    g.record(1000, 100.0);
    assert_eq!(g.skip(5000), None);
    assert!(g.skip(20_000).unwrap().contains("linear from n=1000"), "{:?}", g.skip(20_000));
    g.record(5000, 1500.0);
    assert!(g.skip(6000).unwrap().starts_with("n=5000 took 1500 ms/step"));
    let spent = SeriesGuard::with(Duration::ZERO, 1000.0);
    std::thread::sleep(Duration::from_millis(2));
    assert!(spent.skip(10).unwrap().contains("budget"));
}

/// Pair counting's lists grew 46× from 10⁵ to 10⁶ bodies on `mixed-sizes` and the bench was killed for memory:
/// a point whose heap, grown quadratically from the last one, would pass the limit is skipped.
#[test]
fn guard_skips_points_whose_heap_would_outgrow_the_limit() {
    let mut g = SeriesGuard::with(Duration::from_secs(60), 1e9);
    g.record(100_000, 1.0);
    g.record_memory(100_000, 50 << 20);
    assert_eq!(g.skip(1_000_000), None, "50 MiB·10² = 4.9 GiB is under the limit");
    g.record_memory(100_000, 100 << 20);
    let why = g.skip(1_000_000).expect("100 MiB·10² = 9.8 GiB is over the limit");
    assert!(why.contains("9.8 GiB") && why.contains("n=100000"), "{why}");
    assert_eq!(g.skip(200_000), None, "100 MiB·2² is under it");
}

/// The peers study's contenders take turns: each series' budget counts the time charged to it, not the time
/// since the study started the scene (which once skipped every contender after the first few at 10⁶ bodies).
#[test]
fn a_charged_guard_counts_only_its_own_time() {
    let mut g = SeriesGuard::with(Duration::from_millis(50), 1e9);
    g.charge(Duration::from_millis(10));
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(g.skip(10), None, "60 ms passed, 10 charged");
    g.charge(Duration::from_millis(45));
    assert!(g.skip(10).expect("55 ms charged").contains("budget"));
}

/// A guard charged from the start is not spent by waiting while others run (the peers study's contenders
/// after a slow one were all skipped, their clocks running from the scene's start).
#[test]
fn a_guard_charged_from_the_start_is_not_spent_by_waiting() {
    let budget = Duration::from_millis(20);
    let (mut charged, waiting) = (SeriesGuard::charged(budget, 1e9), SeriesGuard::with(budget, 1e9));
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(charged.skip(1000), None);
    assert!(waiting.skip(1000).is_some(), "an uncharged guard's clock runs");
    charged.charge(Duration::from_millis(25));
    assert!(charged.skip(1000).is_some(), "its own time spends it");
}

#[test]
fn a_small_point_runs_checks_and_hashes() {
    let algorithm = collide_algorithms::find("brute").unwrap();
    let point = SimPoint {
        study: "test",
        series: "brute".into(),
        scenario: "thesis",
        algorithm,
        params: Params::defaults(algorithm.params),
        n: 200,
        speed: None,
        resolution: true,
        warmup: 2,
        max_frames: 12,
        keep_frames: true,
    };
    let limits = Limits { min_frames: 5, ..Limits::quick() };
    let (row, frames) = run_sim_point(&point, &limits).unwrap();
    assert!(row.check.starts_with("brute ok"), "{}", row.check);
    assert!(row.frames >= 5 && row.frames <= 12, "{}", row.frames);
    assert_eq!(frames.len(), 2 + row.frames);
    assert_eq!(row.hash_step, 7);
    assert_ne!(row.state_hash, 0);
    assert!(row.floor_ms > 0.0 && row.time.mean > 0.0);
    let (again, _) = run_sim_point(&point, &limits).unwrap();
    assert_eq!(again.state_hash, row.state_hash, "fixed dt: the same steps give the same state");
}

/// Each frame the median of its rounds' times (of two, the faster); nothing for one round or rounds of unequal
/// lengths.
#[test]
fn per_frame_medians_drop_a_slow_stretch_of_one_round() {
    let (a, b, c) = ([1.0, 1.0, 5.0], [2.0, 9.0, 9.0], [3.0, 2.0, 1.0]);
    assert_eq!(per_frame_median(&[&a, &b, &c]), Some(vec![2.0, 2.0, 5.0]));
    assert_eq!(per_frame_median(&[&b, &c]), Some(vec![2.0, 2.0, 1.0]));
    assert_eq!(per_frame_median(&[&a]), None);
    assert_eq!(per_frame_median(&[&a, &[1.0, 2.0]]), None);
    assert_eq!(per_frame_median(&[]), None);
}

/// Rounds alternate the contenders' order; the median run of an even count is the faster middle one.
#[test]
fn rounds_alternate_their_order_and_the_median_run_is_the_lower_middle() {
    assert_eq!(
        (round_order(0, 3), round_order(1, 3), round_order(2, 3)),
        (vec![0, 1, 2], vec![2, 1, 0], vec![0, 1, 2])
    );
    assert_eq!((round_label(0, 1), round_label(1, 3)), (String::new(), ", round 2 of 3".to_owned()));
    let mut means = [4.0, 1.0, 3.0, 2.0];
    let median = sort_to_median(&mut means, |&m| m);
    assert_eq!((means, median), ([1.0, 2.0, 3.0, 4.0], 1));
}
