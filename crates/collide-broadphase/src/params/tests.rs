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
