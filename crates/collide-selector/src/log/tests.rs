use super::*;

fn entry(frame: u64) -> Decision {
    Decision {
        frame,
        kind: DecisionKind::Probe,
        from: "sap",
        to: "mbp",
        features: Features { n: 10, ..Features::default() },
        predictions: Predictions::from_slice(&[
            Estimate { ms: 1.5, sigma: 0.1, measured: true },
            Estimate { ms: 0.5, sigma: 1.0, measured: false },
        ]),
        reason: Reason::Probe { predicted_ms: 0.5, sigma: 1.0, active_ms: 1.5 },
    }
}

#[test]
fn the_ring_keeps_the_newest_and_never_grows() {
    let mut log = DecisionLog::default();
    let capacity = log.entries.capacity();
    for f in 0..(LOG_CAPACITY as u64 + 10) {
        log.push(entry(f));
    }
    assert_eq!(log.len(), LOG_CAPACITY);
    assert_eq!(log.iter().next().unwrap().frame, 10);
    assert_eq!(log.entries.capacity(), capacity, "no reallocation");
}

#[test]
fn csv_has_a_column_pair_per_candidate_and_a_quoted_reason() {
    let mut log = DecisionLog::default();
    log.push(entry(7));
    let csv = log.to_csv(&["sap", "mbp"]);
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.ends_with("predicted_ms_sap,sigma_sap,predicted_ms_mbp,sigma_mbp,reason"), "{header}");
    let row = lines.next().unwrap();
    assert!(row.starts_with("7,probe,sap,mbp,10,"), "{row}");
    assert!(row.contains(",1.5000,0.100,0.5000,1.000,\"predicted 0.500 ms"), "{row}");
}

/// A new log is empty; one entry makes it not; clearing forgets every entry and the log takes new ones after.
#[test]
fn a_log_is_empty_until_an_entry_and_again_once_cleared() {
    let mut log = DecisionLog::default();
    assert!(log.is_empty());
    log.push(entry(1));
    log.push(entry(2));
    assert!(!log.is_empty());
    log.clear();
    assert!(log.is_empty() && log.iter().next().is_none());
    assert_eq!(log.len(), 0);
    log.push(entry(3));
    assert_eq!(log.iter().map(|d| d.frame).collect::<Vec<_>>(), [3]);
    assert_eq!(log.to_csv(&["sap", "mbp"]).lines().count(), 2, "the header and one row");
}
