//! What the fuzz targets share: a proptest runner with a fixed, seeded budget (what CI runs) that `cargo xtask
//! fuzz` widens and reseeds through the environment, and that keeps every failure it finds as a regression case.
//!
//! - `COLLIDE_FUZZ_CASES`: the cases to run (default: the target's own budget, a few seconds' worth);
//! - `COLLIDE_FUZZ_SEED`: the seed of the case generator (default: fixed, so CI runs the same cases every time).
//!
//! A failing case is shrunk to a small one and its seed is appended to the target's file under
//! `tests/fuzz-regressions/`, which is committed: every later run replays it before any new case.

use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, TestRng, TestRunner};

/// The default seed of every target.
const FIXED_SEED: u64 = 0x0000_C011_1DE5_EED5;

/// A runner for `cases` cases (unless `COLLIDE_FUZZ_CASES` says otherwise) that persists failures in
/// `regressions` (an absolute path) and replays the cases found there first.
pub fn runner(cases: u32, regressions: &'static str) -> TestRunner {
    let cases = std::env::var("COLLIDE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    let seed = std::env::var("COLLIDE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(FIXED_SEED);
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        // Shrinking runs every algorithm again per step: bound it so that a failure is reported in seconds.
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    // ChaCha takes 32 bytes of seed: the 64-bit seed spread by SplitMix64.
    let mut state = seed;
    let bytes: Vec<u8> = (0..4)
        .flat_map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)).to_le_bytes()
        })
        .collect();
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// Run `test` on `cases` values of `strategy`; a failure panics with the shrunk case.
pub fn fuzz<S: proptest::strategy::Strategy>(
    name: &str,
    cases: u32,
    regressions: &'static str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), proptest::test_runner::TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let mut runner = runner(cases, regressions);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("fuzz target `{name}` failed (the case is kept in {regressions}):\n{e}");
    }
}
