//! Generators of config input for the fuzz targets: TOML documents and `--set` arguments built from every config
//! key (and the registry's parameters, and keys that do not exist), with values of every TOML type and edge
//! values. Shared by `fuzz_config.rs` and the CLI's `apps/collide/tests/fuzz_cli.rs` (which includes this file by
//! path).

use proptest::prelude::*;

/// The keys of the config format and the registry's parameters under `params.`.
pub fn keys() -> Vec<String> {
    let mut keys: Vec<String> = [
        "scenario",
        "bodies",
        "radius",
        "radius_spread",
        "power_law_exponent",
        "power_law_cap",
        "speed",
        "container_width",
        "gravity",
        "resting_fraction",
        "resolution",
        "restitution",
        "seed",
        "frames",
        "algorithm",
        "time.policy",
        "time.dt",
        "time.cap",
        "time.scale",
        "time.max_steps",
    ]
    .iter()
    .map(|k| (*k).to_owned())
    .collect();
    for d in collide_algorithms::ALGORITHMS {
        keys.extend(d.params.iter().map(|p| format!("params.{}.{}", d.name, p.name)));
    }
    keys
}

/// [`keys`], table names and keys that do not exist.
pub fn key() -> impl Strategy<Value = String> {
    let mut all = keys();
    all.extend(["time", "params", "a.b.c", "bodys", "time.unknown", "params.nope.x"].map(str::to_owned));
    prop::sample::select(all)
}

/// A TOML value as text: every type, with edge values, and plausible numbers and names most of the time.
pub fn value() -> impl Strategy<Value = String> {
    let names: Vec<String> = collide_algorithms::names()
        .chain(collide_sim::SCENARIOS.iter().map(|s| s.name))
        .chain(["fixed", "variable", "accumulator", "", "octtree", "sap,mbp", "brute, auto"])
        .map(|s| format!("{s:?}"))
        .collect();
    let edge = [
        "0",
        "-1",
        "1",
        "2",
        "3",
        "2147483648",
        "4294967296",
        "9007199254740993",
        "9223372036854775807",
        "-9223372036854775808",
        "0.0",
        "-0.0",
        "nan",
        "inf",
        "-inf",
        "1e-30",
        "1e30",
        "3.4e38",
        "1e39",
        "0.5",
        "1.0",
        "0.999999",
        "true",
        "false",
        "[]",
        "[\"sap\", \"mbp\"]",
        "[1, 2]",
        "{}",
        "{ a = 1 }",
        "\"\"",
        "\"\\\"\"",
        "\"é ∞ 🚀\"",
        "2000000000",
        "100000",
        "1970-01-01",
    ];
    prop_oneof![
        3 => prop::sample::select(edge.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()),
        3 => prop::sample::select(names),
        3 => (0u32..3000).prop_map(|v| v.to_string()),
        3 => (0.0f64..2.0).prop_map(|v| format!("{v:?}")),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| format!("{v:?}")),
        1 => "[ -~]{0,12}".prop_map(|s| format!("{s:?}")),
    ]
}

/// A value of the type `key` takes, in and around its range, or (one time in five) any value at all.
pub fn typed(key: &str) -> BoxedStrategy<String> {
    let names = |list: Vec<&'static str>| prop::sample::select(list).prop_map(|s| format!("{s:?}")).boxed();
    let typed = match key {
        "bodies" | "seed" | "frames" | "time.max_steps" => {
            prop_oneof![(0u32..3000).prop_map(|v| v.to_string()), Just("2000000000".to_owned())].boxed()
        }
        "resolution" => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        "scenario" => names(collide_sim::SCENARIOS.iter().map(|s| s.name).collect()),
        "algorithm" => names(collide_algorithms::names().collect()),
        "time.policy" => names(vec!["fixed", "variable", "accumulator"]),
        k if k.ends_with(".candidates") => names(vec!["sap", "sap,mbp", "brute", ""]),
        _ => prop_oneof![
            3 => (0.0f64..1.5).prop_map(|v| format!("{v:?}")),
            1 => prop::sample::select(vec!["0.0", "-0.0", "1.0", "1e-30", "1e30", "nan", "inf", "-2.5"])
                .prop_map(str::to_owned),
        ]
        .boxed(),
    };
    prop_oneof![4 => typed, 1 => value()].boxed()
}

/// A config file. Mostly well formed — distinct keys, each `key = value` (dotted keys reach tables) of about the
/// right type — so that the checks behind the parser are reached; sometimes wild, with `[table]` headers,
/// repeated keys, values of any type and garbage lines.
pub fn document() -> impl Strategy<Value = String> {
    let well_formed = prop::sample::subsequence(keys(), 0..8)
        .prop_flat_map(|keys| {
            let values: Vec<BoxedStrategy<String>> = keys.iter().map(|k| typed(k)).collect();
            (Just(keys), values)
        })
        .prop_map(|(keys, values)| keys.iter().zip(values).map(|(k, v)| format!("{k} = {v}\n")).collect::<String>());
    let line = prop_oneof![
        6 => (key(), value()).prop_map(|(k, v)| format!("{k} = {v}")),
        1 => key().prop_map(|k| format!("[{k}]")),
        1 => "[ -~]{0,30}",
        1 => Just(String::new()),
    ];
    let wild = prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"));
    prop_oneof![3 => well_formed, 1 => wild]
}

/// A `--set` argument.
pub fn override_arg() -> impl Strategy<Value = String> {
    let well_typed = prop::sample::select(keys()).prop_flat_map(|k| (Just(k.clone()), typed(&k)));
    prop_oneof![
        12 => well_typed.prop_map(|(k, v)| format!("{k}={}", v.trim_matches('"'))),
        6 => (key(), value()).prop_map(|(k, v)| format!("{k}={}", v.trim_matches('"'))),
        1 => (key(), "[ -~]{0,10}").prop_map(|(k, v)| format!("{k}={v}")),
        1 => "[ -~]{0,16}",
        1 => Just("=".to_owned()),
        1 => Just("time..dt=1".to_owned()),
    ]
}
