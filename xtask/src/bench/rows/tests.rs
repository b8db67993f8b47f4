use super::*;

fn row(algorithm: &str, hash: u64) -> Row {
    Row {
        study: "scaling",
        series: algorithm.into(),
        algorithm: algorithm.into(),
        n: 1000,
        frames: 10,
        hash_step: 13,
        state_hash: hash,
        check: "-".into(),
        status: "ok".into(),
        time: Summary { count: 10, mean: 33.333, p50: 30.0, p95: 40.0, p99: 41.0, max: 42.0, min: 1.0 },
        floor_ms: 0.5,
        ..Row::default()
    }
}

#[test]
fn csv_lines_match_the_header_and_escape_commas() {
    let mut r = row("sap", 0xabc);
    r.status = "short: frame 1200 ms > 1000 ms, stopped".into();
    let line = csv_line(&r);
    let fields = HEADER.split(',').count();
    // The escaped status holds one comma inside quotes.
    assert_eq!(line.split(',').count(), fields + 1, "{line}");
    assert!(line.contains(",\"short: frame 1200 ms > 1000 ms, stopped\","), "{line}");
    assert!(line.contains(",33.3330,30.0000,40.0000,41.0000,42.0000,2.0000,"), "{line}");
    assert!(line.contains(",66.67,"), "floor multiple: {line}");
    assert!(line.contains(",0000000000000abc,"), "{line}");
    assert_eq!(escape("plain"), "plain");
    assert_eq!(escape("a,\"b"), "\"a,\"\"b\"");
}

#[test]
fn diverging_state_hashes_are_mismatches() {
    let mut rows = vec![row("brute", 7), row("octree-dup", 7), row("sap", 8), row("mbp", 0)];
    cross_check_hashes(&mut rows, |r| format!("{}", r.n));
    assert_eq!(rows[0].check, "-");
    assert_eq!(rows[1].check, "hash ok");
    assert!(rows[2].check.starts_with("MISMATCH"), "{}", rows[2].check);
    assert_eq!(rows[3].check, "-", "no hash, no verdict");
}
