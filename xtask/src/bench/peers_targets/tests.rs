use super::*;
use collide_timing::Summary;

fn row(scenario: &str, algorithm: &str, n: usize, mean: f64, pairs: f64) -> Row {
    Row {
        scenario: scenario.into(),
        algorithm: algorithm.into(),
        n,
        frames: 10,
        time: Summary { count: 10, mean, ..Summary::default() },
        pairs,
        ..Row::default()
    }
}

#[test]
fn the_power_law_targets_judge_the_best_against_the_rebuilt_bvh_and_per_pair() {
    let rows = vec![
        // 10⁴: hgrid 1 ms, rebuilt 6 ms: 6× (met). auto is faster but is no one's "best".
        row(SCENE, "hgrid", 10_000, 1.0, 50_000.0),
        row(SCENE, "auto", 10_000, 0.5, 50_000.0),
        row(SCENE, REBUILT, 10_000, 6.0, 50_000.0),
        // 10⁵: grid 30 ms for 2M pairs (15 ns a pair: not met), rebuilt 120 ms: 4× (not met); rstar, a peer,
        // faster still, is not collide's.
        row(SCENE, "grid", 100_000, 30.0, 2_000_000.0),
        row(SCENE, "rstar-join", 100_000, 20.0, 2_000_000.0),
        row(SCENE, REBUILT, 100_000, 120.0, 2_000_000.0),
        // Another scene is not looked at.
        row("uniform", "grid", 100_000, 0.1, 10.0),
    ];
    let table = section(&rows);
    let lines: Vec<&str> = table.lines().filter(|l| l.starts_with("| 10")).collect();
    assert_eq!(lines.len(), 2, "{table}");
    assert!(lines[0].contains("`hgrid` 1.00") && lines[0].contains("6.00 (met)"), "{}", lines[0]);
    assert!(lines[0].ends_with("| 20.00 |"), "not judged per pair at 10⁴: {}", lines[0]);
    assert!(lines[1].contains("`grid` 30.0") && lines[1].contains("**4.00** (not met)"), "{}", lines[1]);
    assert!(lines[1].contains("**15.00** (not met)"), "{}", lines[1]);
    assert_eq!(section(&rows[6..]), "", "no power-law row, no section");
}
