use super::*;

/// The script's lines become one timing per contender, in the order they first appear; a mismatch on any frame
/// marks the contender, and a malformed line is an error naming it.
#[test]
fn a_round_is_read_per_contender_and_a_mismatch_is_kept() {
    let text = "ckdtree-boxes\tpython\t5\t2.0\t10\tok\tckdtree\nckdtree-boxes\tpython\t6\t4.0\t12\tok\tckdtree\n\
                auto\tpython\t5\t0.5\t10\tok\tgrid\n\
                auto\tpython\t6\t0.25\t11\tMISMATCH 11 pairs, the exact set has 12\tkd\n\
                auto\trust\t5\t0.4\t10\tok\tgrid\nauto\tpython\t7\t0.5\t11\tok\tgrid\nauto\trust\t6\t0.2\t12\tok\tgrid\n";
    let timings = parse_round(text, 2).unwrap();
    assert_eq!(timings.len(), 3);
    assert_eq!((timings[0].contender.as_str(), timings[0].side, timings[0].round), ("ckdtree-boxes", "python", 2));
    assert_eq!(timings[0].ms, [2.0, 4.0]);
    assert_eq!(timings[0].pairs, 22);
    assert!((timings[0].mean() - 3.0).abs() < 1e-12);
    assert_eq!(timings[0].check, "ok");
    assert_eq!(timings[1].check, "MISMATCH 11 pairs, the exact set has 12");
    // What answered each frame, counted in the order first met: auto's candidates.
    assert_eq!(timings[1].active, [("grid".to_owned(), 2), ("kd".to_owned(), 1)]);
    assert_eq!(active_summary(&timings, "auto", "python"), "`grid` 2, `kd` 1");
    // The same contender's Rust side is a timing of its own, whose lines may come between the Python side's.
    assert_eq!(
        (timings[2].contender.as_str(), timings[2].side, timings[2].ms.as_slice()),
        ("auto", "rust", &[0.4, 0.2][..])
    );
    assert_eq!((timings[2].pairs, timings[2].check.as_str()), (22, "ok"));
    assert_eq!(active_summary(&timings, "auto", "rust"), "`grid` 2");
    assert_eq!(active_summary(&timings, "kd", "rust"), "-");
    assert!(parse_round("auto\tpython\t5\t0.5\n", 0).unwrap_err().contains("4 fields"));
    assert!(parse_round("auto\tpython\t5\tfast\t1\tok\tgrid\n", 0).unwrap_err().contains("bad time"));
    assert!(parse_round("auto\tjava\t5\t0.5\t1\tok\tgrid\n", 0).unwrap_err().contains("side `java`"));
}

/// Each figure is the median over rounds of a contender's mean on one side: an outlier round does not move it.
#[test]
fn the_figure_is_the_median_of_the_round_means() {
    let t = |side, round, ms: &[f64]| Timing {
        contender: "grid".into(),
        side,
        round,
        ms: ms.to_vec(),
        pairs: 0,
        check: "ok".into(),
        active: Vec::new(),
    };
    let timings = [t("rust", 0, &[1.0, 3.0]), t("rust", 1, &[10.0]), t("rust", 2, &[1.5, 2.5]), t("python", 0, &[7.0])];
    assert_eq!(median_mean(&timings, "grid", "rust"), Some(2.0));
    assert_eq!(median_mean(&timings, "grid", "python"), Some(7.0));
    assert_eq!(median_mean(&timings, "auto", "rust"), None);
}

/// The ratios pair each round's two sides: a round in which the whole machine ran slow moves both of its sides
/// and so neither its ratio nor the median of the ratios.
#[test]
fn a_ratio_pairs_the_sides_of_each_round() {
    let t = |contender: &str, side, round, ms: f64| Timing {
        contender: contender.into(),
        side,
        round,
        ms: vec![ms],
        pairs: 0,
        check: "ok".into(),
        active: Vec::new(),
    };
    // Rounds 1 and 2 ran on a machine twice as slow; per round Python is 1.1× Rust.
    let timings = [
        t("grid", "python", 0, 1.1),
        t("grid", "rust", 0, 1.0),
        t("grid", "python", 1, 2.2),
        t("grid", "rust", 1, 2.0),
        t("grid", "rust", 2, 2.0),
        t("grid", "python", 2, 2.2),
        t("grid", "rust", 3, 1.0),
    ];
    let ratio = median_round_ratio(&timings, ("grid", "python"), ("grid", "rust")).unwrap();
    assert!((ratio - 1.1).abs() < 1e-12, "{ratio}");
    // The ratio of the separate medians (Python's 2.2 over Rust's 2.0) is right here only because the slow rounds
    // happen to be the middle ones of both sides; a contender absent from the rounds has no ratio.
    assert_eq!(median_round_ratio(&timings, ("auto", "python"), ("grid", "rust")), None);
}
