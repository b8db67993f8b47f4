//! Property-based fuzzing of the config parser: arbitrary TOML documents and `--set` overrides give either a
//! valid config — one that checks into a plan, and that a simulation runs when it is small — or a one-line error naming the
//! file or the `--set`, never a panic.
//!
//! Documents are built from every config key (and the registry's parameters, and keys that do not exist) set to
//! values of every TOML type, edge values included (0, −1, 2³¹, i64::MAX, ±0.0, ±inf, NaN, 1e−30, 1e39, empty
//! strings, quotes, unicode), with lines of plain garbage mixed in; overrides are `KEY=VALUE` strings of the same
//! keys and values, and some without `=` or with empty key parts. CI runs a fixed, seeded budget; `cargo xtask
//! fuzz` runs it long. A failure is kept in `tests/fuzz-regressions/config.txt`.

mod common;
#[path = "inputs/config.rs"]
mod config_input;

use collide_sim::{Plan, Simulation, Source};
use config_input::{document, override_arg};
use proptest::prelude::*;

/// Parse `text` with `overrides`: a valid config checks into a plan of a scene (and, when small, runs a step);
/// an error is one line naming its origin.
fn check(text: &str, overrides: &[String]) -> Result<(), String> {
    match Plan::parse(text, "fuzz.toml", overrides) {
        Ok(plan) => {
            let Source::Scene(setup) = plan.source() else {
                return Err("a config without a `replay` file became a replay".into());
            };
            if setup.bodies * setup.scenario.growth <= 3000 && setup.scenario.name != "tour" {
                let mut sim = Simulation::of(&plan).map_err(|e| format!("planned but no simulation: {e}"))?;
                sim.step(sim.clock().nominal_dt());
            }
            Ok(())
        }
        Err(e) => {
            let line = e.to_string();
            if line.is_empty() || line.contains('\n') || line.contains('\r') {
                return Err(format!("the error must be one line: {line:?}"));
            }
            if !(line.starts_with("fuzz.toml") || line.starts_with("--set ")) {
                return Err(format!("the error must name the file or the --set: {line:?}"));
            }
            Ok(())
        }
    }
}

#[test]
fn any_config_text_and_overrides_give_a_valid_config_or_one_line() {
    common::fuzz(
        "config",
        400,
        concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz-regressions/config.txt"),
        (document(), prop::collection::vec(override_arg(), 0..4)),
        |(text, overrides)| check(&text, &overrides).map_err(TestCaseError::fail),
    );
}

/// The shapes of input the issue names, checked once each.
#[test]
fn known_bad_inputs_are_one_line() {
    for (text, overrides) in [
        ("bodies = 2000000000\n", vec![]),
        ("radius = 1e-30\n", vec![]),
        ("bodies = -1\n", vec![]),
        ("", vec!["bodies=99999999999999999999".to_owned()]),
        ("[time]\ndt = nan\n", vec![]),
        ("time = 3\n", vec!["time.dt=0.1".to_owned()]),
        ("", vec!["=".to_owned(), "x".to_owned()]),
    ] {
        check(text, &overrides).unwrap_or_else(|e| panic!("{text:?} {overrides:?}: {e}"));
        assert!(Plan::parse(text, "fuzz.toml", &overrides).is_err(), "{text:?} {overrides:?}");
    }
}
