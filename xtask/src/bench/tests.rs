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

#[test]
fn only_names_contenders_and_restricts_to_them() {
    let only = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
    assert_eq!(check_only(&only(&["kd", "parry-bvh-refit"])), Ok(()));
    let e = check_only(&only(&["kd", "parry"])).unwrap_err();
    assert!(e.starts_with("--only: no contender `parry`; valid: brute, "), "{e}");
    assert!(e.contains("parry-bvh-refit"), "{e}");
    assert!(only_runs(&[], "kd") && only_runs(&[], "rstar-join"), "no --only runs everything");
    let some = only(&["kd", "parry-bvh-refit"]);
    assert!(only_runs(&some, "kd") && only_runs(&some, "parry-bvh-refit"));
    assert!(!only_runs(&some, "grid") && !only_runs(&some, "parry-bvh-rebuild"));
}

#[test]
fn peers_scenes_are_checked_against_the_study_s_scenes() {
    assert_eq!(peers::check_scenes(&["uniform".to_owned(), "slow".to_owned()]), Ok(()));
    let e = peers::check_scenes(&["unifrom".to_owned()]).unwrap_err();
    assert!(e.starts_with("--peers-scenes: the peers study has no scene `unifrom`; valid: thesis, uniform"), "{e}");
}
