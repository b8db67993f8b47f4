//! `cargo xtask test`: the one test command of the README and of `.ci/run`.
//!
//! 1. `cargo fmt --check`;
//! 2. every workspace test, including the renderer's off-screen golden-image test (`collide-render`'s
//!    `tests/golden.rs`), which runs on mesa's software rasterizer: `WGPU_BACKEND=gl` (llvmpipe through EGL,
//!    no display needed) unless the caller chose a backend — and a missing adapter fails it, as under CI
//!    (`COLLIDE_REQUIRE_GPU=1`). The fuzz targets (`fuzz_broadphases`, `fuzz_config`, `fuzz_cli`) are among these
//!    tests: their fixed, seeded budget is the short form of `cargo xtask fuzz`;
//! 3. the app's start test: the real window under Xvfb, 30 frames, then a clean exit. `xvfb-run` and
//!    `xauth` are installed with apt-get when missing (CI runs as root on a clean Debian 12);
//! 4. `cargo xtask bench --quick`: the bench's smoke run (pair sets checked against brute force, files written);
//! 5. `cargo xtask soak --short`: every scenario for 2 000 steps at 10 000 bodies (container, energy, heap, spikes).

use crate::run_command;
use std::process::Command;

/// Options of `cargo xtask test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip the formatting check (for a quick local run on work in progress).
    #[arg(long)]
    no_fmt: bool,
}

/// Frames the start test runs before the app exits by itself.
const START_TEST_FRAMES: &str = "30";

/// Run every check, stopping at the first failure.
pub fn run(args: &Args) -> Result<(), String> {
    if !args.no_fmt {
        run_command("cargo", &["fmt", "--all", "--", "--check"], &[])?;
    }
    let backend = std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "gl".to_owned());
    let gpu_env = gpu_env(&backend);
    run_command("cargo", &["test", "--workspace", "--locked"], &gpu_env)?;
    start_test(&gpu_env)?;
    // The bench's smoke run: every algorithm's pairs against brute force on small sizes, and every output
    // file written (not timings: CI machines are shared).
    run_command("cargo", &["xtask", "bench", "--quick"], &[])?;
    run_command("cargo", &["xtask", "soak", "--short"], &[])?;
    Ok(())
}

/// The environment of the GPU tests: the backend, and `COLLIDE_REQUIRE_GPU`. Those tests skip (and pass) when no
/// adapter is found on a developer's machine; here, as under CI, a missing adapter is a failure, so this command
/// checks what CI checks.
fn gpu_env(backend: &str) -> [(&'static str, &str); 2] {
    [("WGPU_BACKEND", backend), ("COLLIDE_REQUIRE_GPU", "1")]
}

/// The app opens its window under Xvfb, runs frames and exits 0 with its summary line.
fn start_test(env: &[(&str, &str)]) -> Result<(), String> {
    ensure_packages(&[("xvfb-run", "xvfb"), ("xauth", "xauth")])?;
    run_command("cargo", &["build", "--package", "collide", "--locked"], env)?;
    let args = [
        "-a",
        "-s",
        "-screen 0 1280x720x24",
        "timeout",
        "300",
        "cargo",
        "run",
        "--quiet",
        "--package",
        "collide",
        "--locked",
        "--",
        "configs/default.toml",
        "--exit-after-frames",
        START_TEST_FRAMES,
    ];
    eprintln!("\n==> xvfb-run {}", args.join(" "));
    let output = Command::new("xvfb-run")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(crate::root())
        .output()
        .map_err(|e| format!("cannot start xvfb-run: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprint!("{stderr}");
    if !output.status.success() {
        return Err(format!("the app's start test under Xvfb failed ({})", output.status));
    }
    let expected = format!("collide: {START_TEST_FRAMES} frames");
    if !stderr.contains(&expected) {
        return Err(format!("the app exited without its summary line (`{expected} …`)"));
    }
    Ok(())
}

/// Install the Debian packages whose programs are missing (`(program, package)` pairs). Only root can; anyone
/// else is told what to install.
fn ensure_packages(needed: &[(&str, &str)]) -> Result<(), String> {
    let missing: Vec<&str> =
        needed.iter().filter(|(program, _)| !on_path(program)).map(|&(_, package)| package).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !is_root {
        return Err(format!(
            "the start test needs `apt-get install {}` (run as root, or install them)",
            missing.join(" ")
        ));
    }
    let noninteractive = [("DEBIAN_FRONTEND", "noninteractive")];
    run_command("apt-get", &["update", "-q"], &noninteractive)?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend(&missing);
    run_command("apt-get", &install, &noninteractive)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[cfg(test)]
mod tests;
