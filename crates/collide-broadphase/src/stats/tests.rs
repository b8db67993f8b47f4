use super::*;

#[test]
fn counters_set_replace_and_print_after_the_typed_fields() {
    let mut s = Stats::new().with_work(10, 0, 4096).with("mean_leaf_load", 2.5);
    s.set("mean_leaf_load", 3.5);
    s.set("nodes", 7.0);
    assert_eq!(s.len(), 2);
    assert_eq!(s.get("mean_leaf_load"), Some(3.5));
    assert_eq!(s.get("nope"), None);
    assert_eq!(s.get("pair_tests"), None, "typed fields are fields, not names");
    assert_eq!(s.to_string(), "pair_tests=10 bytes_touched=4096 mean_leaf_load=3.500 nodes=7");
    assert!(!s.is_empty());
    assert!(Stats::new().is_empty());
    assert!(!Stats::new().with_work(0, 1, 0).is_empty());
}

#[test]
#[should_panic(expected = "typed field")]
fn typed_names_are_refused_as_counters() {
    let _ = Stats::new().with("pair_tests", 1.0);
}
