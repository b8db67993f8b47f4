use super::*;
use crate::bench::live::Step;
use crate::bench::selector_scenes::{Source, Target, tour_steps};

#[test]
fn the_run_order_turns_by_one_per_scene() {
    assert_eq!(rotated(4, 0), [0, 1, 2, 3]);
    assert_eq!(rotated(4, 1), [1, 2, 3, 0]);
    assert_eq!(rotated(4, 6), [2, 3, 0, 1]);
    for scene in 0..8 {
        let mut order = rotated(12, scene);
        assert_eq!(order[0], scene % 12, "a different algorithm goes first on each scene");
        order.sort_unstable();
        assert_eq!(order, (0..12).collect::<Vec<_>>(), "every algorithm runs once");
    }
}

fn run(algorithm: &str, hash: u64, status: &str, phases: &[&str]) -> Run {
    let steps = phases
        .iter()
        .map(|p| Step { ms: 1.0, active: algorithm.into(), phase: (*p).into(), pairs: 0, features: None })
        .collect();
    let outcome =
        Outcome { algorithm: algorithm.into(), steps, hash, check: "-".into(), status: status.into(), auto: None };
    Run { outcome, cached: None }
}

#[test]
fn hashes_are_cross_checked_and_phases_shared() {
    let scene = Scene {
        name: "tour".into(),
        source: Source::Scenario("tour"),
        n: 10,
        frames: 2,
        target: Target::Mean(1.15),
        checks: Vec::new(),
        window: String::new(),
        rounds: 1,
    };
    let mut runs = SceneRuns {
        scene,
        auto: run("auto", 7, "ok", &["uniform", "cluster"]),
        pinned: vec![run("sap", 7, "ok", &["", ""]), run("kd", 8, "ok", &["", ""]), run("grid", 9, "short: x", &[""])],
    };
    let mut mismatches = Vec::new();
    share_phases(&mut runs);
    cross_check(&mut runs, &mut mismatches);
    assert_eq!(runs.pinned[0].outcome.steps[1].phase, "cluster");
    assert_eq!(runs.pinned[0].outcome.check, "hash ok");
    assert!(runs.pinned[1].outcome.check.starts_with("MISMATCH: hash 0000000000000008 differs from auto's"));
    assert_eq!(runs.pinned[2].outcome.check, "-", "a short run is not compared");
    assert_eq!(mismatches.len(), 1);
    assert!(mismatches[0].starts_with("selector kd tour at 10: hash"), "{}", mismatches[0]);
}

#[test]
fn the_tour_is_seven_phases_of_300_steps() {
    assert_eq!(tour_steps(), 2100);
    assert!(pinned().iter().all(|p| !EXCLUDED.contains(p)) && !pinned().is_empty());
}

#[test]
fn the_run_with_the_median_mean_stands_for_its_rounds_and_rounds_must_agree() {
    let timed = |ms: &[f64], hash: u64| {
        let mut r = run("grid", hash, "ok", &vec![""; ms.len()]);
        for (step, &m) in r.outcome.steps.iter_mut().zip(ms) {
            step.ms = m;
        }
        r
    };
    let mut mismatches = Vec::new();
    let three = vec![timed(&[3.0, 5.0], 5), timed(&[1.0, 1.0], 5), timed(&[0.5, 5.5], 5)];
    let median = median_run(three, "uniform at 10k", &mut mismatches);
    assert_eq!(median.outcome.ms(), [0.5, 5.5], "means 4, 1 and 3: the 3");
    let two = vec![timed(&[5.0], 5), timed(&[2.0], 5)];
    assert_eq!(median_run(two, "x", &mut mismatches).outcome.ms(), [2.0], "the lower of two");
    assert!(mismatches.is_empty());
    let disagree = vec![timed(&[1.0], 5), timed(&[1.0], 6)];
    let _ = median_run(disagree, "uniform at 10k", &mut mismatches);
    assert_eq!(
        mismatches,
        ["selector grid uniform at 10k: rounds reached hashes 0000000000000005 and 0000000000000006"]
    );
}
