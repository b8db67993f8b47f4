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

/// Adding tallies adds each of the three numbers; `tests` and `work` build a tally with only their numbers.
#[test]
fn tallies_add_field_by_field() {
    assert_eq!(Tally::tests(5), Tally { pair_tests: 5, work: 0, bytes_touched: 0 });
    assert_eq!(Tally::work(6, 7), Tally { pair_tests: 0, work: 6, bytes_touched: 7 });
    let mut t = Tally { pair_tests: 1, work: 2, bytes_touched: 3 };
    t += Tally { pair_tests: 10, work: 20, bytes_touched: 30 };
    assert_eq!(t, Tally { pair_tests: 11, work: 22, bytes_touched: 33 });
    assert_eq!(Tally::tests(4) + Tally::work(9, 64), Tally { pair_tests: 4, work: 9, bytes_touched: 64 });
}

/// A tally becomes the typed fields of a `Stats`, and `Stats::tally` reads them back.
#[test]
fn stats_and_tallies_convert_both_ways() {
    let s = Stats::from(Tally { pair_tests: 12, work: 34, bytes_touched: 56 });
    assert_eq!((s.pair_tests, s.work, s.bytes_touched, s.len()), (12, 34, 56, 0));
    assert_eq!(Stats::new().with_work(1, 2, 3).tally(), Tally { pair_tests: 1, work: 2, bytes_touched: 3 });
}

/// Debug prints the reported numbers as a map, typed fields that are not zero first.
#[test]
fn stats_debug_print_as_a_map() {
    let s = Stats::new().with_work(10, 0, 4096).with("nodes", 7.0);
    assert_eq!(format!("{s:?}"), r#"{"pair_tests": 10.0, "bytes_touched": 4096.0, "nodes": 7.0}"#);
}

/// Whole numbers print without a fraction below 10^15 only; from there on they print with three decimals.
#[test]
fn whole_numbers_print_without_a_fraction_below_ten_to_the_fifteen() {
    let s = Stats::new().with("below", 999_999_999_999_999.0).with("at", 1e15);
    assert_eq!(s.to_string(), "below=999999999999999 at=1000000000000000.000");
}

/// `MAX_COUNTERS` counters fit; one more is dropped, a debug assertion in debug builds.
#[test]
#[cfg_attr(debug_assertions, should_panic(expected = "more than 16 counters; dropping extra"))]
fn a_counter_beyond_the_capacity_is_dropped() {
    const NAMES: [&str; MAX_COUNTERS] =
        ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12", "c13", "c14", "c15"];
    let mut s = Stats::new();
    for (i, name) in NAMES.into_iter().enumerate() {
        s.set(name, i as f64);
    }
    assert_eq!((s.len(), s.get("c15")), (MAX_COUNTERS, Some(15.0)));
    s.set("extra", 1.0);
    assert_eq!((s.len(), s.get("extra")), (MAX_COUNTERS, None));
}
