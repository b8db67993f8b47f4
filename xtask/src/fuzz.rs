//! `cargo xtask fuzz --minutes N`: the property-based fuzz targets, run long with fresh seeds.
//!
//! The targets are ordinary tests (proptest on stable Rust) that `cargo test` runs with a fixed seed and a budget
//! of a few seconds — what CI runs. This runs them round after round until `--minutes` have passed, each round
//! with a new seed (`COLLIDE_FUZZ_SEED`) and many more cases (`COLLIDE_FUZZ_CASES`), in the test profile, whose
//! debug assertions catch more than a release build would:
//!
//! - `collide-tests`' `fuzz_broadphases`: every registered broadphase against brute force;
//! - `collide-tests`' `fuzz_config`: the config parser and `--set` overrides;
//! - `collide`'s `fuzz_cli`: the command line, a process per case.
//!
//! A failing case is shrunk by proptest and its seed appended to `tests/fuzz-regressions/<target>.txt`, which
//! every later run — CI's included — replays first: commit that file with the fix. The run goes on after a failure
//! (other targets, other seeds) and ends with an error listing each failure and the seed that reproduces it.

use crate::run_command;
use std::time::{Duration, Instant, SystemTime};

/// Options of `cargo xtask fuzz`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How long to fuzz, in minutes (at least one round runs).
    #[arg(long, default_value_t = 10)]
    minutes: u64,
    /// Scale every target's cases per round (1 = about a minute per round on 2 cores).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
}

/// A fuzz target: its package, its test file, and its cases per round.
struct Target {
    package: &'static str,
    test: &'static str,
    cases: u32,
}

/// The targets, with cases per round chosen for about 20 seconds each on a loaded 2-core machine.
const TARGETS: [Target; 3] = [
    Target { package: "collide-tests", test: "fuzz_broadphases", cases: 3_000 },
    Target { package: "collide-tests", test: "fuzz_config", cases: 50_000 },
    Target { package: "collide", test: "fuzz_cli", cases: 300 },
];

/// Fuzz until the time is up; an error lists every failure with its seed.
pub fn run(args: &Args) -> Result<(), String> {
    // Build once, so that the rounds measure fuzzing, not compiling; the minutes count from the end of the build
    // (on a busy 2-core machine the build alone took half of a one-hour run).
    let mut build = vec!["test", "--locked", "--no-run"];
    for t in &TARGETS {
        build.extend(["--package", t.package, "--test", t.test]);
    }
    run_command("cargo", &build, &[])?;
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.minutes * 60);
    let mut failures = Vec::new();
    let mut rounds = 0u64;
    let mut cases = 0u64;
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    loop {
        rounds += 1;
        for t in &TARGETS {
            let seed = splitmix(nanos ^ rounds.wrapping_mul(0x9E37_79B9) ^ u64::from(t.cases)).to_string();
            let n = ((f64::from(t.cases) * args.scale) as u32).max(1).to_string();
            let env = [("COLLIDE_FUZZ_SEED", seed.as_str()), ("COLLIDE_FUZZ_CASES", n.as_str())];
            let test = ["test", "--locked", "--package", t.package, "--test", t.test];
            if let Err(e) = run_command("cargo", &test, &env) {
                failures.push(format!(
                    "{} (round {rounds}): {e}; reproduce with COLLIDE_FUZZ_SEED={seed} COLLIDE_FUZZ_CASES={n} cargo {}",
                    t.test,
                    test.join(" ")
                ));
            }
            cases += u64::from(n.parse::<u32>().unwrap_or(0));
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    let minutes = start.elapsed().as_secs_f64() / 60.0;
    eprintln!("fuzz: {rounds} rounds, {cases} cases in {minutes:.1} minutes of fuzzing, {} failure(s)", failures.len());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the fuzz targets failed; the shrunk cases are in tests/fuzz-regressions/ (commit them with the fix):\n{}",
            failures.join("\n")
        ))
    }
}

/// SplitMix64: a well-spread seed from a counter.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
