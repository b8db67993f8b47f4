use super::*;

#[test]
fn active_shares_are_most_frequent_first() {
    assert_eq!(active_share(&["grid", "sap", "sap", "sap"]), "`sap` (75%), `grid` (25%)");
}

#[test]
fn the_targets_table_judges_best_tree_and_auto_against_the_refitted_bvh() {
    let file = |a: f64, t: f64, kd: f64| {
        vec![("kd", kd), ("bvh-dynamic", t), ("auto", a), ("parry-bvh-refit", 3.0), ("rstar-join", 0.1)]
    };
    // kd 0.9 (refit 3.33× it, met), the tree 2.5 (1.2×, not met), auto 1.0 (1.11× kd, met); the peer rstar's
    // 0.1 is no one's best.
    let table = targets(&[("a.aabbs", file(1.0, 2.5, 0.9)), ("b.aabbs", file(1.2, 1.0, f64::NAN))]);
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(rows[0].contains("`kd` 0.90 | 3.00 |") && rows[0].contains("3.33 (met)"), "{}", rows[0]);
    assert!(rows[0].contains("**1.20** (not met)") && rows[0].contains("1.11 (met)"), "{}", rows[0]);
    // Without kd, the tree is the best: 3× refit (met), and auto at 1.2 of it is not.
    assert!(rows[1].contains("`bvh-dynamic` 1.00 |") && rows[1].contains("3.00 (met)"), "{}", rows[1]);
    assert!(rows[1].contains("**1.20** (not met)"), "{}", rows[1]);
    // A file nobody of ours played: dashes, no division by nothing.
    let table = targets(&[("c.aabbs", vec![("parry-bvh-refit", 3.0)])]);
    assert!(table.contains("| `c.aabbs` | — | 3.00 | — | — | — |"), "{table}");
}
