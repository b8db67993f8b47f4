use super::*;

#[test]
fn active_shares_are_most_frequent_first() {
    assert_eq!(active_share(&["grid", "sap", "sap", "sap"]), "`sap` (75%), `grid` (25%)");
}
