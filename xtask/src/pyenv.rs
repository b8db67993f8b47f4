//! collide's Python module in a virtual environment of xtask's own, under the target folder: what the tests (and
//! the bench's `python` study) need installed into it from PyPI, `pip install` of `crates/collide-py` (maturin
//! builds the wheel), and the pytest suite (`cargo xtask test`).
//!
//! Nothing is taken from the machine but `python3` (3.11 or later) and its `venv` module; on a Debian machine
//! without `venv`, root gets `python3-venv` from apt-get. The environment is kept between runs (pip skips what
//! is installed; cargo rebuilds only what changed), and made afresh when it is broken.

use crate::{run_command, target_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the suite and the build need, with the versions it was written against as floors.
pub const REQUIREMENTS: &[&str] = &["maturin>=1.9,<2", "numpy>=1.24", "pytest>=8"];

/// The folder of collide's Python module.
pub fn crate_dir() -> PathBuf {
    crate::root().join("crates").join("collide-py")
}

/// Make (or reuse) the virtual environment, install collide into it, run the pytest suite.
pub fn test() -> Result<(), String> {
    let venv = ensure_venv(&[])?;
    pytest(&venv)
}

/// The environment at `<target>/py-venv` with [`REQUIREMENTS`], `extra` packages and collide installed from the
/// working tree; returns its folder. The bench's `python` study calls it with `scipy`.
pub fn ensure_venv(extra: &[&str]) -> Result<PathBuf, String> {
    let venv = target_dir().join("py-venv");
    if !python_in(&venv).is_file() {
        make_venv(&venv)?;
    }
    let python = python_in(&venv);
    let python = python.to_str().ok_or("the virtual environment's path is not UTF-8")?;
    let env = venv_env(&venv);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut install = vec!["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
    install.extend(REQUIREMENTS);
    install.extend(extra);
    run_command(python, &install, &env)?;
    // The wheel is built by the maturin just installed (no isolated build environment to download each time),
    // in release, into the workspace's target folder, so unchanged crates are not compiled again.
    let package = crate_dir();
    let package = package.to_str().ok_or("the checkout's path is not UTF-8")?;
    let build = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-build-isolation"];
    run_command(python, &[&build[..], &["--force-reinstall", "--no-deps", package]].concat(), &env)?;
    Ok(venv)
}

fn pytest(venv: &Path) -> Result<(), String> {
    let python = python_in(venv);
    let python = python.to_str().ok_or("the virtual environment's path is not UTF-8")?;
    let tests = crate_dir().join("tests");
    let tests = tests.to_str().ok_or("the checkout's path is not UTF-8")?;
    let env = venv_env(venv);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // `-p no:cacheprovider`: nothing written into the checkout.
    run_command(python, &["-m", "pytest", "-q", "-p", "no:cacheprovider", tests], &env)
}

/// The interpreter of the virtual environment at `venv`.
pub fn python_in(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// The environment an activated virtual environment has: its `bin` first on `PATH` (pip's build backend runs
/// `maturin` by name), `VIRTUAL_ENV` set.
pub fn venv_env(venv: &Path) -> Vec<(&'static str, String)> {
    let bin = venv.join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
        .map_or_else(|_| String::new(), |p| p.to_string_lossy().into_owned());
    vec![("PATH", path), ("VIRTUAL_ENV", venv.to_string_lossy().into_owned())]
}

fn make_venv(venv: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(venv);
    let target = venv.to_str().ok_or("the target folder's path is not UTF-8")?;
    let made = || Command::new("python3").args(["-m", "venv", target]).status().is_ok_and(|s| s.success());
    if made() {
        return Ok(());
    }
    // Debian's python3 ships venv (and ensurepip) in a package of its own.
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !is_root {
        return Err("`python3 -m venv` failed: install python3 (3.11 or later) with its venv module".to_owned());
    }
    let noninteractive = [("DEBIAN_FRONTEND", "noninteractive")];
    run_command("apt-get", &["update", "-q"], &noninteractive)?;
    run_command("apt-get", &["install", "-y", "-q", "--no-install-recommends", "python3-venv"], &noninteractive)?;
    let _ = std::fs::remove_dir_all(venv);
    if made() { Ok(()) } else { Err(format!("`python3 -m venv {target}` failed")) }
}
