use super::*;

#[test]
fn bar_shows_done_total_time_and_label() {
    let line = bar_line(12, 48, Duration::from_secs(65), "scaling: sap n=20000");
    assert_eq!(line, "[######..................]  12/48   1m05s  scaling: sap n=20000");
    assert_eq!(format_duration(Duration::from_secs(3725)), "1h02m");
    assert!(bar_line(0, 0, Duration::ZERO, "x").starts_with("[........................]"));
}
