use super::*;

#[test]
fn studies_are_checked_and_kept_in_run_order() {
    assert_eq!(selected(&[]).unwrap(), STUDIES);
    let picked = selected(&["sap-speed".into(), "off".into()]).unwrap();
    assert_eq!(picked, ["off", "sap-speed"]);
    let e = selected(&["scalin".into()]).unwrap_err();
    assert!(e.starts_with("unknown study `scalin`; valid studies: off, scaling"), "{e}");
}

#[test]
fn body_counts_read_with_suffixes() {
    assert_eq!(parse_count("10000"), Ok(10_000));
    assert_eq!(parse_count("10k"), Ok(10_000));
    assert_eq!(parse_count("1M"), Ok(1_000_000));
    assert_eq!(parse_count("1m").unwrap_err(), "`1m` is not a body count (10000, 10k, 1M)");
}
