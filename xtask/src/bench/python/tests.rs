use super::*;

/// The script's lines become one timing per contender, in the order they first appear; a mismatch on any frame
/// marks the contender, and a malformed line is an error naming it.
#[test]
fn a_round_is_read_per_contender_and_a_mismatch_is_kept() {
    let text = "ckdtree-boxes\t5\t2.0\t10\tok\nckdtree-boxes\t6\t4.0\t12\tok\nauto\t5\t0.5\t10\tok\n\
                auto\t6\t0.25\t11\tMISMATCH 11 pairs, the exact set has 12\n";
    let timings = parse_round(text, 2).unwrap();
    assert_eq!(timings.len(), 2);
    assert_eq!((timings[0].contender.as_str(), timings[0].side, timings[0].round), ("ckdtree-boxes", "python", 2));
    assert_eq!(timings[0].ms, [2.0, 4.0]);
    assert_eq!(timings[0].pairs, 22);
    assert!((timings[0].mean() - 3.0).abs() < 1e-12);
    assert_eq!(timings[0].check, "ok");
    assert_eq!(timings[1].check, "MISMATCH 11 pairs, the exact set has 12");
    assert!(parse_round("auto\t5\t0.5\n", 0).unwrap_err().contains("3 fields"));
    assert!(parse_round("auto\t5\tfast\t1\tok\n", 0).unwrap_err().contains("bad time"));
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
    };
    let timings = [t("rust", 0, &[1.0, 3.0]), t("rust", 1, &[10.0]), t("rust", 2, &[1.5, 2.5]), t("python", 0, &[7.0])];
    assert_eq!(median_mean(&timings, "grid", "rust"), Some(2.0));
    assert_eq!(median_mean(&timings, "grid", "python"), Some(7.0));
    assert_eq!(median_mean(&timings, "auto", "rust"), None);
}
