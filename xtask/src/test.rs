//! `cargo xtask test`: the one test command of the README and of `.ci/run`.
//!
//! 1. `cargo fmt --check`;
//! 2. every workspace test (the doctests among them: `collide-algorithms`' quick start; and its engine-loop
//!    example, run by `collide-algorithms/tests/engine_loop.rs`), including the renderer's off-screen golden-image test (`collide-render`'s
//!    `tests/golden.rs`), which runs on mesa's software rasterizer: `WGPU_BACKEND=gl` (llvmpipe through EGL,
//!    no display needed) unless the caller chose a backend — and a missing adapter fails it, as under CI
//!    (`COLLIDE_REQUIRE_GPU=1`). The fuzz targets (`fuzz_broadphases`, `fuzz_config`, `fuzz_cli`) are among these
//!    tests: their fixed, seeded budget is the short form of `cargo xtask fuzz`;
//! 3. the app's start test: the real window under Xvfb, 30 frames, then a clean exit, on the binary the workspace
//!    tests built. `xvfb-run` and `xauth` are installed with apt-get when missing (CI runs as root on a clean
//!    Debian 12);
//! 4. `cargo xtask bench --quick`: the bench's smoke run (pair sets checked against brute force, files written);
//! 5. `cargo xtask soak --short`: every scenario for 2 000 steps at 10 000 bodies (container, energy, heap, spikes);
//! 6. the documentation: `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings"`, so a broken intra-doc
//!    link, a bad HTML tag or a rustdoc crash fails CI (every library crate also denies `missing_docs`);
//! 7. packaging: `cargo package` of every library crate under `crates/` ([`packaged_crates`]), each built from its
//!    `.crate` file against its siblings' (`--workspace`-style local registry overlay), so that a crate that would
//!    not build from what it ships — a file outside it, a dependency without a version — fails here;
//! 8. the Python module (`pyenv.rs`): a virtual environment of its own, `pip install` of `crates/collide-py` with
//!    maturin, and its pytest suite.
//!
//! Each step prints its duration, so that what a step costs CI can be read from the log.

use crate::run_command;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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
    timed("workspace tests", || run_command("cargo", &["test", "--workspace", "--locked"], &gpu_env))?;
    timed("start test", || start_test(&gpu_env))?;
    // The bench's smoke run: every algorithm's pairs against brute force on small sizes, and every output
    // file written (not timings: CI machines are shared).
    timed("bench --quick", || run_command("cargo", &["xtask", "bench", "--quick"], &[]))?;
    timed("soak --short", || run_command("cargo", &["xtask", "soak", "--short"], &[]))?;
    timed("docs", docs)?;
    timed("packaging", packages)?;
    timed("python", crate::pyenv::test)?;
    Ok(())
}

/// Run one step and say how long it took.
fn timed(step: &str, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let start = Instant::now();
    let result = f();
    eprintln!("xtask test: {step} took {:.0} s", start.elapsed().as_secs_f64());
    result
}

/// The documentation builds with every warning an error: broken links, bad HTML, a crash of rustdoc itself.
fn docs() -> Result<(), String> {
    run_command("cargo", &["doc", "--workspace", "--no-deps", "--locked"], &[("RUSTDOCFLAGS", "-D warnings")])
}

/// `cargo package` of every library crate, verified: each is unpacked and built from its `.crate` file, with its
/// workspace siblings taken from their own `.crate` files (cargo ≥ 1.90 overlays them on crates.io as a local
/// registry when several packages are packaged at once), so a crate that would not build from its package fails.
///
/// The verification builds in the workspace's target folder; `--config` gives the external dependencies the
/// workspace's `dev` profile (a packaged manifest carries no profile): their optimisation and debug info, kept in
/// step with `Cargo.toml`, so those the workspace tests already built are reused and only the collide crates are
/// compiled again, unoptimised. `--allow-dirty`: a developer's uncommitted work is
/// packaged as it is (CI's clone is clean anyway). Cargo's earlier extractions of these crates are removed first
/// ([`stale_extractions`]).
fn packages() -> Result<(), String> {
    let crates = packaged_crates(&crate::root().join("crates"))?;
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    if let Some(src) = cargo_home.map(|home| home.join("registry").join("src")) {
        for stale in stale_extractions(&src, &crates) {
            std::fs::remove_dir_all(&stale).map_err(|e| format!("{}: {e}", stale.display()))?;
        }
    }
    // The crates verified and their siblings are built only to see that they build: unoptimised and without
    // debug info. Each collide crate is built twice, as the package verified (`profile.dev`) and from its
    // `.crate` file as a sibling of the others (a registry package, which `"*"` would optimise: hence one
    // override per name). The external dependencies keep the test build's settings (`"*"`), so those it built are
    // reused — but for [`RECOMPILED_DEPENDENCIES`]. The step took 333 s on CI's 2-core VM with every crate
    // optimised; locally, 221 s with the collide crates unoptimised, and a second run, with those four
    // unoptimised too and the rest already built, 53 s for them and the collide crates.
    let unoptimised: Vec<String> = crates
        .iter()
        .map(String::as_str)
        .chain(RECOMPILED_DEPENDENCIES)
        .map(|name| format!("profile.dev.package.{name}.opt-level=0"))
        .collect();
    let mut args = vec![
        "package",
        "--allow-dirty",
        "--config",
        "profile.dev.package.\"*\".opt-level=2",
        "--config",
        "profile.dev.package.\"*\".debug=false",
        "--config",
        "profile.dev.opt-level=0",
        "--config",
        "profile.dev.debug=false",
    ];
    for setting in &unoptimised {
        args.extend(["--config", setting.as_str()]);
    }
    for name in &crates {
        args.extend(["--package", name.as_str()]);
    }
    run_command("cargo", &args, &[])
}

/// Dependencies the packaging step compiles again whatever their profile: CI's log shows them compiled in that
/// step after the workspace tests had built them (the verified crates resolve their features apart from the
/// workspace). Compiled unoptimised there.
const RECOMPILED_DEPENDENCIES: [&str; 4] = ["naga", "wgpu", "wgpu-core", "wgpu-hal"];

/// The earlier extractions of the crates `names` (`NAME-VERSION` folders) under cargo's `registry/src`, one folder
/// per registry.
///
/// Verifying a package builds it against its siblings' `.crate` files, through a local registry under
/// `target/package`. Cargo extracts each sibling into `registry/src/<that registry>/NAME-VERSION`, and it never
/// extracts again while that folder exists. The version does not change from one commit to the next, so a second
/// run after a sibling's API changed would build against the first run's sources: a false failure, or a false
/// pass. (It failed: ``method `settling_calls` is not a member of trait `Broadphase` ``.) So `packages` removes them
/// first. A crate of the same name from crates.io would only be extracted again from cargo's cache.
fn stale_extractions(registry_src: &Path, names: &[String]) -> Vec<PathBuf> {
    let Ok(registries) = std::fs::read_dir(registry_src) else { return Vec::new() };
    let mut stale: Vec<PathBuf> = registries
        .flatten()
        .filter_map(|registry| std::fs::read_dir(registry.path()).ok())
        .flat_map(|folders| folders.flatten().map(|f| f.path()))
        .filter(|folder| {
            let Some(file) = folder.file_name().and_then(|f| f.to_str()) else { return false };
            names.iter().any(|name| {
                file.strip_prefix(name.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
            })
        })
        .collect();
    stale.sort();
    stale
}

/// The library crates: every folder of `crates/` whose manifest does not say `publish = false` (the Python
/// module, which is packaged for PyPI by maturin instead), by package name, sorted.
fn packaged_crates(crates: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(crates).map_err(|e| format!("{}: {e}", crates.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let manifest = entry.map_err(|e| format!("{}: {e}", crates.display()))?.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if let Some(name) = package_name(&text).filter(|_| publishable(&text)) {
            names.push(name.to_owned());
        }
    }
    names.sort();
    if names.is_empty() {
        return Err(format!("no library crate found under {}", crates.display()));
    }
    Ok(names)
}

/// The `name = "…"` of a manifest's `[package]` table (the first `name` key: `[package]` comes first).
fn package_name(manifest: &str) -> Option<&str> {
    manifest.lines().find_map(|line| line.strip_prefix("name = \"")?.strip_suffix('"'))
}

/// A manifest without `publish = false`.
fn publishable(manifest: &str) -> bool {
    !manifest.lines().any(|line| line.replace(' ', "") == "publish=false")
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
    // The app as the workspace tests built it (its integration tests run it): `cargo build -p collide` alone
    // would resolve the dependencies' features without the dev-dependencies' and rebuild the whole tree (4.5 min
    // of CI). This is a no-op after the workspace tests, and builds the binary when they did not run.
    run_command("cargo", &["test", "--workspace", "--locked", "--no-run"], env)?;
    let app = crate::target_dir().join("debug").join("collide");
    let app = app.to_str().ok_or_else(|| format!("{}: not UTF-8", app.display()))?;
    let args = [
        "-a",
        "-s",
        "-screen 0 1280x720x24",
        "timeout",
        "300",
        app,
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
