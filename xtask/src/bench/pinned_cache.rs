//! The pinned runs of the `selector` study, kept for `--reuse-pinned`: the lead reruns `auto` many times while
//! the pinned candidates have not changed, so their runs are read back instead of run again.
//!
//! One file, `selector-pinned-cache.tsv` in the output folder, one line per run: its key (the scene's key — name,
//! bodies, frames, window — and the algorithm), the *code version* it was measured with, when, its state hash,
//! check and status, and every step's ms and pairs. Tab-separated because the checks and statuses hold commas.
//!
//! The code version is the last commit that touched what a pinned run executes — `crates/` but
//! `crates/collide-selector`, `xtask/` but the study's own `bench/selector*`, `bench/mod.rs` and this file, the workspace
//! manifest and lock file — plus a hash of the uncommitted and new
//! changes to them, if any: a change to `auto` alone keeps the cache valid, any other change to the code
//! invalidates it. A full run (no `--reuse-pinned`) writes its pinned runs into the file, replacing those of the
//! same key.

use super::live::{Outcome, Step};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cache's file name in the output folder.
pub const FILE: &str = "selector-pinned-cache.tsv";

const HEADER: &str = "key\tversion\trecorded\talgorithm\thash\tcheck\tstatus\tms\tpairs";

/// A cached run: what it measured, and when and with which code.
#[derive(Clone, Debug, PartialEq)]
pub struct Cached {
    /// The code version (see the module docs).
    pub version: String,
    /// When it was measured (UTC, `2025-01-31 14:05`).
    pub recorded: String,
    /// The run.
    pub outcome: Outcome,
}

/// The cache file, read whole.
#[derive(Debug, Default)]
pub struct PinnedCache {
    path: PathBuf,
    runs: BTreeMap<String, Cached>,
}

impl PinnedCache {
    /// Read `dir/FILE` (empty when absent); a malformed line is an error naming the file and line.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let path = dir.join(FILE);
        let mut cache = Self { path: path.clone(), runs: BTreeMap::new() };
        let Ok(text) = std::fs::read_to_string(&path) else { return Ok(cache) };
        for (i, line) in text.lines().enumerate().skip(1) {
            let (key, run) = parse(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
            cache.runs.insert(key, run);
        }
        Ok(cache)
    }

    /// The run of `algorithm` on the scene `scene_key`, if it was measured with the code `version`.
    #[must_use]
    pub fn get(&self, scene_key: &str, algorithm: &str, version: &str) -> Option<&Cached> {
        self.runs.get(&key(scene_key, algorithm)).filter(|c| c.version == version)
    }

    /// Keep a run (replacing one of the same key).
    pub fn put(&mut self, scene_key: &str, run: Cached) {
        self.runs.insert(key(scene_key, &run.outcome.algorithm), run);
    }

    /// Write the file back.
    pub fn save(&self) -> Result<(), String> {
        let mut text = format!("{HEADER}\n");
        for (key, c) in &self.runs {
            let o = &c.outcome;
            let ms: Vec<String> = o.steps.iter().map(|s| s.ms.to_string()).collect();
            let pairs: Vec<String> = o.steps.iter().map(|s| s.pairs.to_string()).collect();
            let _ = writeln!(
                text,
                "{key}\t{}\t{}\t{}\t{:016x}\t{}\t{}\t{}\t{}",
                c.version,
                c.recorded,
                o.algorithm,
                o.hash,
                clean(&o.check),
                clean(&o.status),
                ms.join(" "),
                pairs.join(" ")
            );
        }
        std::fs::write(&self.path, text).map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

fn key(scene_key: &str, algorithm: &str) -> String {
    format!("{scene_key}/{algorithm}")
}

/// A field without the separators of the format.
fn clean(s: &str) -> String {
    s.replace(['\t', '\n'], " ")
}

fn parse(line: &str) -> Result<(String, Cached), String> {
    let f: Vec<&str> = line.split('\t').collect();
    let [key, version, recorded, algorithm, hash, check, status, ms, pairs] = f[..] else {
        return Err(format!("{} fields, expected 9", f.len()));
    };
    let ms: Vec<f64> = ms.split_whitespace().map(str::parse).collect::<Result<_, _>>().map_err(|_| "bad ms")?;
    let pairs: Vec<u64> =
        pairs.split_whitespace().map(str::parse).collect::<Result<_, _>>().map_err(|_| "bad pairs")?;
    if ms.len() != pairs.len() {
        return Err("ms and pairs differ in length".into());
    }
    let steps = ms
        .into_iter()
        .zip(pairs)
        .map(|(ms, pairs)| Step { ms, active: algorithm.to_owned(), phase: String::new(), pairs, features: None })
        .collect();
    let outcome = Outcome {
        algorithm: algorithm.to_owned(),
        steps,
        hash: u64::from_str_radix(hash, 16).map_err(|_| "bad hash")?,
        check: check.to_owned(),
        status: status.to_owned(),
        auto: None,
    };
    Ok((key.to_owned(), Cached { version: version.to_owned(), recorded: recorded.to_owned(), outcome }))
}

/// What a pinned run executes, as git paths: everything but `auto`'s crate and the study's own planning, report,
/// flags and this cache (`bench/selector*`, `bench/mod.rs`, `bench/pinned_cache*`), which a pinned run (`cargo
/// xtask live-run`) does not execute.
const PINNED_CODE: &[&str] = &[
    "crates",
    "xtask",
    "Cargo.toml",
    "Cargo.lock",
    ":(exclude)crates/collide-selector",
    ":(exclude)xtask/src/bench/selector*",
    ":(exclude)xtask/src/bench/mod.rs",
    ":(exclude)xtask/src/bench/pinned_cache*",
];

/// The code version of the pinned runs (see the module docs): `abc1234`, or `abc1234+d1f2e3d4` with uncommitted
/// changes; `unknown` outside git.
#[must_use]
pub fn code_version() -> String {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).current_dir(crate::root()).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let mut log = vec!["log", "-1", "--format=%h", "--"];
    log.extend(PINNED_CODE);
    let Some(commit) = git(&log).filter(|c| !c.is_empty()) else { return "unknown".into() };
    let mut diff = vec!["diff", "HEAD", "--"];
    diff.extend(PINNED_CODE);
    let mut changes = git(&diff).unwrap_or_default().into_bytes();
    // New files are in no diff: their names and contents count too.
    let mut untracked = vec!["ls-files", "--others", "--exclude-standard", "--"];
    untracked.extend(PINNED_CODE);
    for file in git(&untracked).unwrap_or_default().lines() {
        changes.extend_from_slice(file.as_bytes());
        changes.extend(std::fs::read(crate::root().join(file)).unwrap_or_default());
    }
    if changes.is_empty() { commit } else { format!("{commit}+{:08x}", fnv32(&changes)) }
}

/// FNV-1a, 32 bits: a short fingerprint of a diff.
fn fnv32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Now, UTC, to the minute: `2025-01-31 14:05`.
#[must_use]
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc(secs)
}

/// Seconds since 1970 as `YYYY-MM-DD HH:MM` UTC (Hinnant's days-to-civil).
fn utc(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", rest / 3600, rest % 3600 / 60)
}

#[cfg(test)]
mod tests;
