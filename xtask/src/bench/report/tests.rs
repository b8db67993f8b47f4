use super::*;

#[test]
fn formatting_helpers() {
    assert_eq!(count(10_000), "10k");
    assert_eq!(count(12_800), "12.8k");
    assert_eq!(count(1_000_000), "1M");
    assert_eq!(ms(352.4), "352");
    assert_eq!(ms(8.04), "8.04");
    assert_eq!(bytes(3 << 20), "3.0 MB");
    assert_eq!(table(&["a", "b"], [vec!["1".into(), "2".into()]]), "| a | b |\n|---|---|\n| 1 | 2 |\n");
    assert_eq!(check_summary(&["brute ok (2 frames)", "hash ok"]), "brute + hash ok");
    assert_eq!(check_summary(&["hash ok", "MISMATCH: x"]), "**MISMATCH**");
    assert_eq!(check_summary(&["-"]), "-");
}
