use super::*;

#[test]
fn sweeps_stay_inside_the_declared_range() {
    let spec = ParamSpec::integer("max_leaf", "", 4.0, 2.0, 64.0);
    assert_eq!(sweep_values(&spec, false), [2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
    let depth = ParamSpec::integer("max_depth", "", 10.0, 0.0, 12.0);
    assert_eq!(sweep_values(&depth, false).len(), 12);
    assert_eq!(sweep_values(&depth, true), [2.0, 6.0, 10.0]);
}
