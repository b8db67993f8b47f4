use super::*;

const SPEC: &[ParamSpec] =
    &[ParamSpec::integer("max_leaf", "", 32.0, 1.0, 1024.0), ParamSpec::number("loose", "", 2.0, 1.0, 4.0)];

fn n(name: &str, value: f64) -> (&str, ParamInput<'_>) {
    (name, ParamInput::Number(value))
}

#[test]
fn from_input_fills_defaults_and_rejects_bad_values_by_name() {
    let p = Params::from_input(SPEC, [n("max_leaf", 8.0)], &[]).unwrap();
    assert_eq!(p.get("max_leaf"), 8.0);
    assert_eq!(p.get("loose"), 2.0);
    assert_eq!(p.to_string(), "max_leaf=8 loose=2");
    let e = Params::from_input(SPEC, [n("max_leef", 8.0)], &[]).unwrap_err();
    assert_eq!(e.to_string(), "unknown parameter `max_leef`; valid parameters: max_leaf, loose");
    let e = Params::from_input(SPEC, [n("max_leaf", 0.0)], &[]).unwrap_err();
    assert!(e.to_string().contains("1..=1024"), "{e}");
    assert!(Params::from_input(SPEC, [n("max_leaf", 2.5)], &[]).is_err());
    assert!(Params::from_input(SPEC, [n("loose", f64::NAN)], &[]).is_err());
    let e = Params::from_input(SPEC, [("loose", ParamInput::Text("big"))], &[]).unwrap_err();
    assert_eq!(e.to_string(), "`loose` must be a number");
}

fn dummy(_: &Params) -> Box<dyn Broadphase> {
    unreachable!("the list tests never build")
}

const LIST: &[ParamSpec] = &[ParamSpec::algorithms("candidates", "", &["brute", "auto"])];

fn registry() -> Vec<AlgorithmDescriptor> {
    ["brute", "sap", "mbp", "auto"]
        .into_iter()
        .map(|name| AlgorithmDescriptor { name, summary: "", params: &[], build: dummy })
        .collect()
}

#[test]
fn algorithm_lists_check_names_against_the_registry_and_the_exclusions() {
    let table = registry();
    let p = Params::defaults(LIST);
    assert!(p.algorithms("candidates").is_empty(), "the default is every accepted name");
    assert_eq!(p.to_string(), "candidates=all");
    assert_eq!(LIST[0].accepted_names(&table).collect::<Vec<_>>(), ["sap", "mbp"]);

    let p = Params::from_input(LIST, [("candidates", ParamInput::Text("mbp, sap,mbp"))], &table).unwrap();
    assert_eq!(p.algorithms("candidates"), ["mbp", "sap"], "order kept, repeats dropped");
    assert_eq!(p.to_string(), "candidates=mbp|sap");
    let list = ["sap".to_owned()];
    let p = Params::from_input(LIST, [("candidates", ParamInput::List(&list))], &table).unwrap();
    assert_eq!(p.algorithms("candidates"), ["sap"]);

    let e = Params::from_input(LIST, [("candidates", ParamInput::Text("brute"))], &table).unwrap_err();
    assert_eq!(e.to_string(), "`candidates`: `brute` is not a candidate; valid names: sap, mbp");
    let e = Params::from_input(LIST, [("candidates", ParamInput::Text("sapp"))], &table).unwrap_err();
    assert!(e.to_string().contains("`sapp` is not a candidate"), "{e}");
    let e = Params::from_input(LIST, [("candidates", ParamInput::List(&[]))], &table).unwrap_err();
    assert_eq!(e.to_string(), "`candidates` is empty: name at least one of sap, mbp");
    let e = Params::from_input(LIST, [n("candidates", 3.0)], &table).unwrap_err();
    assert!(e.to_string().starts_with("`candidates` must be a list"), "{e}");
    assert_eq!(e.param_name(), "candidates");
}

/// The range is inclusive at both ends: `min` and `max` themselves are accepted, one step beyond either is not.
#[test]
fn numbers_are_checked_against_an_inclusive_range() {
    assert_eq!(Params::from_input(SPEC, [n("max_leaf", 1.0)], &[]).unwrap().get("max_leaf"), 1.0);
    assert_eq!(Params::from_input(SPEC, [n("max_leaf", 1024.0)], &[]).unwrap().get("max_leaf"), 1024.0);
    let e = Params::from_input(SPEC, [n("max_leaf", 1025.0)], &[]).unwrap_err();
    assert_eq!(e, ParamError::OutOfRange { spec: SPEC[0], value: 1025.0 });
    assert_eq!(e.to_string(), "`max_leaf` = 1025 is out of range: expected a whole number in 1..=1024");
    assert_eq!(Params::from_input(SPEC, [n("loose", 4.0)], &[]).unwrap().get("loose"), 4.0);
    assert!(Params::from_input(SPEC, [n("loose", 4.5)], &[]).is_err());
}

/// `from_numbers` is `from_input` with numbers: values set, defaults filled in, unknown names refused.
#[test]
fn from_numbers_sets_the_given_numbers_and_fills_in_the_defaults() {
    let p = Params::from_numbers(SPEC, [("loose", 3.0)]).unwrap();
    assert_eq!(p.to_string(), "max_leaf=32 loose=3");
    let e = Params::from_numbers(SPEC, [("nope", 3.0)]).unwrap_err();
    assert_eq!(e.param_name(), "nope");
}

/// `try_get` answers the number for a number parameter, `None` for an unknown name or a list; `set` replaces a
/// value or appends a new name; `iter` walks every `(name, value)` in order.
#[test]
fn try_get_set_and_iter_read_and_write_the_values() {
    let mut p = Params::defaults(SPEC);
    assert_eq!(p.try_get("loose"), Some(2.0));
    assert_eq!(p.try_get("nope"), None);
    assert_eq!(Params::defaults(LIST).try_get("candidates"), None);
    p.set("loose", 3.25);
    p.set("extra", -7.0);
    assert_eq!(p.try_get("loose"), Some(3.25));
    assert_eq!(p.get("extra"), -7.0);
    let all: Vec<(&str, ParamValue)> = p.iter().map(|(n, v)| (n, v.clone())).collect();
    assert_eq!(
        all,
        [
            ("max_leaf", ParamValue::Number(32.0)),
            ("loose", ParamValue::Number(3.25)),
            ("extra", ParamValue::Number(-7.0))
        ]
    );
}

/// An algorithm without parameters says so instead of listing none.
#[test]
fn an_unknown_parameter_of_an_algorithm_without_parameters_says_it_has_none() {
    let e = Params::from_numbers(&[], [("max_leaf", 8.0)]).unwrap_err();
    assert_eq!(e.to_string(), "unknown parameter `max_leaf`: this algorithm has no parameters");
}

/// `find_algorithm` returns the row of that name (not the first row), and an unknown name's error lists the
/// table; a descriptor debug-prints its name.
#[test]
fn find_algorithm_returns_the_named_row_or_lists_the_valid_names() {
    let table = registry();
    assert_eq!(find_algorithm(&table, "mbp").unwrap().name, "mbp");
    assert_eq!(find_algorithm(&table, "brute").unwrap().name, "brute");
    let e = find_algorithm(&table, "octree").unwrap_err();
    assert_eq!(e.to_string(), "unknown algorithm `octree`; valid algorithms: brute, sap, mbp, auto");
    assert_eq!(format!("{:?}", table[1]), "AlgorithmDescriptor { name: \"sap\", .. }");
}
