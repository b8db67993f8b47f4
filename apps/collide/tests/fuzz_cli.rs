//! Property-based fuzzing of the command line: arbitrary config files and `--set` strings make `collide
//! --headless` either run (exit code 0, its summary on stdout) or refuse with one line `error: …` on stderr and
//! exit code 2 — never a panic, an abort or any other exit code, and never a half-written CSV.
//!
//! The inputs are the config fuzz target's (`tests/tests/inputs/config.rs`, included by path): TOML documents of
//! every config key with values of every type and edge values, and `KEY=VALUE` overrides. A run is one frame
//! (`--frames 1` comes last, so it wins), so that a valid config costs a process start and a spawn. CI runs a
//! fixed, seeded budget; `cargo xtask fuzz` runs it long. A failure is kept in `tests/fuzz-regressions/cli.txt`.

#[path = "../../../tests/tests/common/mod.rs"]
mod common;
#[path = "../../../tests/tests/inputs/config.rs"]
mod config_input;

use config_input::{document, override_arg};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder for this process's cases.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-fuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Run `collide --headless` on a config of `text` with `overrides`, one frame, a CSV asked for; check the outcome.
fn check(dir: &Path, text: &str, overrides: &[String]) -> Result<(), String> {
    let (config, csv) = (dir.join("fuzz.toml"), dir.join("out.csv"));
    std::fs::write(&config, text).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&csv);
    let mut args: Vec<String> = vec!["--headless".into(), config.display().to_string()];
    for o in overrides {
        args.extend(["--set".to_owned(), o.clone()]);
    }
    args.extend(["--csv".into(), csv.display().to_string(), "--frames".into(), "1".into()]);
    let out = Command::new(env!("CARGO_BIN_EXE_collide")).args(&args).output().map_err(|e| e.to_string())?;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let said = || format!("exit {:?}\nstdout: {stdout}\nstderr: {stderr}", out.status.code());
    match out.status.code() {
        Some(0) => {
            if !(stdout.contains("hash ") && csv.exists()) {
                return Err(format!("a run must print its summary and write its CSV: {}", said()));
            }
        }
        Some(2) => {
            // Every refusal is the program's one line, a `--set` value that starts with a hyphen included.
            if !(stderr.starts_with("error: ") && stderr.trim_end().lines().count() == 1) {
                return Err(format!("a refusal must be one line `error: …`: {}", said()));
            }
            if !stdout.is_empty() || csv.exists() {
                return Err(format!("a refused run must write nothing: {}", said()));
            }
        }
        _ => return Err(format!("only exit codes 0 and 2 are allowed: {}", said())),
    }
    if stderr.contains("panicked") {
        return Err(format!("a panic: {}", said()));
    }
    Ok(())
}

#[test]
fn any_config_and_set_strings_run_or_give_one_line_and_exit_code_2() {
    let dir = scratch();
    common::fuzz(
        "cli",
        48,
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fuzz-regressions/cli.txt"),
        (document(), prop::collection::vec(override_arg(), 0..4)),
        |(text, overrides)| check(&dir, &text, &overrides).map_err(TestCaseError::fail),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
