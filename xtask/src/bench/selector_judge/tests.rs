use super::*;

/// A complete run (the name is only for the reader).
fn t<'a>(_name: &str, ms: &'a [f64]) -> Times<'a> {
    Times { ms, complete: true }
}

#[test]
fn auto_is_judged_by_its_mean_and_its_worst_frame_against_the_best_pinned_mean() {
    // Means: a 2.0, b 1.0 (the best), c 3.0; auto 1.1.
    let (a, b, c) = ([2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0], [3.0, 3.0, 3.0, 3.0]);
    let auto = [2.0, 0.8, 0.4, 1.2];
    let pinned = [t("a", &a), t("b", &b), t("c", &c)];
    let v = judge(t("auto", &auto), &pinned, Target::Mean(1.15)).unwrap();
    assert_eq!(v.best, 1);
    assert!((v.ratio - 1.1).abs() < 1e-12 && (v.auto_mean - 1.1).abs() < 1e-12 && v.best_mean == 1.0);
    // Frame 0 (2×) is not looked at; from frame 2 on the worst is frame 3, 1.2 against 1.0.
    assert_eq!(v.worst, Some(WorstFrame { step: 3, auto_ms: 1.2, best_ms: 1.0 }));
    assert_eq!((v.mean_pass, v.hitch_pass), (Some(true), Some(true)));
    let slow = [1.0, 1.0, 3.5, 1.0];
    let v = judge(t("auto", &slow), &pinned, Target::Mean(1.15)).unwrap();
    assert!((v.ratio - 1.625).abs() < 1e-12);
    assert_eq!((v.mean_pass, v.hitch_pass), (Some(false), Some(false)), "1.625 > 1.15 and 3.5× at frame 2");
    assert_eq!(v.worst.unwrap().step, 2);
}

#[test]
fn a_short_run_is_never_the_best_and_is_compared_over_the_frames_it_ran() {
    let (fast_but_short, full) = ([0.5, 0.5], [1.0, 1.0, 1.0, 4.0]);
    let pinned = [Times { complete: false, ..t("short", &fast_but_short) }, t("full", &full)];
    assert_eq!(best(&pinned), Some(1));
    let col = regret_column("s", &[1.0, 1.0, 1.0, 1.0], &pinned).unwrap();
    assert_eq!(col.pinned, [0.5, 1.0], "the short run over the first two frames: 1.0 / 2.0");
    assert_eq!(col.short, [true, false]);
    assert!((col.auto - 4.0 / 7.0).abs() < 1e-12);
    assert!(best(&[Times { complete: false, ..t("x", &full) }]).is_none());
    let short_auto = Times { complete: false, ..t("auto", &full[..2]) };
    let v = judge(short_auto, &pinned, Target::Mean(1.15)).unwrap();
    assert_eq!((v.mean_pass, v.hitch_pass), (None, None), "a short auto meets no target");
}

#[test]
fn the_regret_row_worst_is_its_largest_ratio_over_the_scenes() {
    // Two scenes; pinned x and y. Scene 1: x 1.0 (best), y 2.0. Scene 2: x 3.0, y 1.5 (best).
    let s1 = regret_column("s1", &[1.2], &[t("x", &[1.0]), t("y", &[2.0])]).unwrap();
    let s2 = regret_column("s2", &[1.5], &[t("x", &[3.0]), t("y", &[1.5])]).unwrap();
    assert_eq!((s1.pinned.clone(), s2.pinned.clone()), (vec![1.0, 2.0], vec![2.0, 1.0]));
    let row = |c: usize| [s1.pinned[c], s2.pinned[c]];
    assert_eq!(worst_of(row(0)), Some((2.0, 1)), "x: worst on s2");
    assert_eq!(worst_of(row(1)), Some((2.0, 0)), "y: worst on s1");
    assert_eq!(worst_of([s1.auto, s2.auto]), Some((1.2, 0)));
    assert_eq!(worst_of([f64::NAN, 0.5]), Some((0.5, 1)));
    assert_eq!(worst_of([f64::NAN]), None);
}

#[test]
fn the_tour_sums_phases_and_frames_into_its_oracles() {
    let phases = ["u", "u", "c", "c"];
    let a = [1.0, 1.0, 5.0, 5.0]; // total 12: best on u
    let b = [3.0, 3.0, 1.0, 1.0]; // total 8: best on c, best single
    let auto = [1.0, 2.0, 1.0, 2.0]; // total 6
    let v = tour(&phases, t("auto", &auto), &[t("a", &a), t("b", &b)]).unwrap();
    assert_eq!(v.phases, ["u", "c"]);
    assert_eq!(v.phase_totals, [vec![2.0, 6.0], vec![10.0, 2.0]]);
    assert_eq!(v.auto_phase, [3.0, 3.0]);
    assert_eq!(v.best, (1, 8.0));
    assert_eq!((v.per_phase_oracle, v.per_frame_oracle, v.auto_total), (4.0, 4.0, 6.0));
    assert_eq!((v.over_best(), v.over_oracle()), (0.75, 1.5));
    let short = Times { complete: false, ..t("b", &b) };
    assert!(tour(&phases, t("auto", &auto), &[t("a", &a), short]).is_none());
}

#[test]
fn stretches_name_each_run_of_a_candidate_once() {
    assert_eq!(stretches(["kd", "kd", "grid", "grid", "kd"]), ["kd", "grid", "kd"]);
    assert!(ratio(&[], &[1.0]).is_nan());
}
