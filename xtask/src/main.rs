//! `cargo xtask`: project chores, the rust-analyzer way (an alias in `.cargo/config.toml` runs this binary).
//!
//! - `cargo xtask test`: everything CI checks, in the order a failure is cheapest to see — formatting, the
//!   workspace's tests, then the renderer's and the app's checks that need a display server, then the
//!   bench's smoke run. `.ci/run` runs exactly this.
//! - `cargo xtask bench`: the measurement studies (their own module).
//! - `cargo xtask fuzz --minutes N`: the property-based fuzz targets, long, with fresh seeds (`fuzz.rs`).
//! - `cargo xtask soak`: every scenario for thousands of steps, checking the container, energy, the heap and
//!   spikes (`soak.rs`).
//! - `cargo xtask mutants`: mutation testing with cargo-mutants, each crate with its own tests, summaries in
//!   `bench-results/<machine>/mutants/` (`mutants.rs`; not part of `cargo xtask test`).
//! - `cargo xtask record-rapier`: Broadmark-like scenes baked by rapier3d as `.aabbs` files (`record_rapier.rs`).
//!
//! Each subcommand lives in its own module; this file only parses and dispatches.

mod bench;
mod fuzz;
mod mutants;
mod pyenv;
mod record_rapier;
mod soak;
mod test;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// collide's project chores.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every check CI runs: fmt, the workspace tests, the renderer and app checks, the bench smoke test.
    Test(test::Args),
    /// Measure every broadphase and the peers; write CSVs, PNG plots and report.md to `bench-results/<machine>/`.
    Bench(bench::Args),
    /// Run the fuzz targets for N minutes with fresh seeds; failures are kept in tests/fuzz-regressions/.
    Fuzz(fuzz::Args),
    /// Run every scenario for thousands of steps: container, energy, heap and step-time checks.
    Soak(soak::Args),
    /// Mutation testing with cargo-mutants, each crate with its own tests; summaries in bench-results/ (not CI).
    Mutants(mutants::Args),
    /// Bake Broadmark-like scenes (free fall, brownian, gravity) with rapier3d into .aabbs files.
    RecordRapier(record_rapier::Args),
    /// One live run of the bench's `selector` study, in its own process (the study starts it; not for people).
    #[command(hide = true)]
    LiveRun(bench::live::Spec),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Test(args) => test::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Soak(args) => soak::run(&args),
        Command::Mutants(args) => mutants::run(&args),
        Command::RecordRapier(args) => record_rapier::run(&args),
        Command::LiveRun(spec) => bench::live::run_child(&spec),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask's parent folder).
fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// The target folder cargo builds into: `CARGO_TARGET_DIR`, else the workspace's `target`.
fn target_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), std::path::PathBuf::from)
}

/// Run `program args…` in the workspace root, echoing it; an error names the command that failed.
fn run_command(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    eprintln!("\n==> {program} {}", args.join(" "));
    let status = std::process::Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{program} {}` failed ({status})", args.join(" "))) }
}
