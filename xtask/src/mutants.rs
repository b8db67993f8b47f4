//! `cargo xtask mutants [--crate NAME]... [--minutes N] [--shard K/N]`: mutation testing with cargo-mutants
//! (issue 34). Not part of CI: `cargo xtask test` never runs it.
//!
//! cargo-mutants changes the code one small bug at a time (a function returning `0`, a `<` become `<=`, a match arm
//! deleted) and runs the tests. A mutant the tests do not catch marks a behaviour no test pins. For each crate
//! (by default `collide-broadphase`, `collide-aabbs`, `collide-selector` and `collide-narrowphase`) this runs
//! `cargo mutants --package CRATE --test-package CRATE`: the crate's own tests against the crate's own mutants,
//! with cargo-mutants' output in `target/mutants/<crate>/<all | shard-K-of-N>/mutants.out/`. cargo-mutants is
//! installed first (`cargo install --locked cargo-mutants`) when `cargo mutants --version` fails.
//!
//! After each crate, its `outcomes.json` is read and `bench-results/<machine>/mutants/<crate>.md` written (machine:
//! `--machine` or the hostname, as the bench names its folder): caught, missed, timeouts and unviable per file and
//! in total, the share caught of the viable mutants (caught and timeouts count as caught: a mutant that hangs the
//! tests is noticed), and every missed mutant (file:line:column and the mutation). A missed mutant either gets a
//! test or, when it cannot change what the code does, a line in `mutants/equivalent.md` saying why.
//!
//! # Bounding the time, resuming in pieces
//!
//! A crate's run is cargo-mutants' own and is not cut short. `--minutes N` is checked between crates: once N
//! minutes have passed no further crate starts, and the crates left are named so a later run can take them
//! (`--crate`). A crate too long for one sitting is split with `--shard K/N`, passed to cargo-mutants as is: it
//! tests the K-th of N slices of the crate's mutants (K from 0), in its own folder `shard-K-of-N/`. The summary
//! merges every `shard-*-of-N` folder present for that N and says which shards it holds; running the N shards
//! over several sittings gives the whole crate. `--report-only` writes the summaries from the outcomes already in
//! `target/mutants/` without running cargo-mutants.

use crate::{root, target_dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The crates run when no `--crate` is given.
const DEFAULT_CRATES: [&str; 4] = ["collide-broadphase", "collide-aabbs", "collide-selector", "collide-narrowphase"];

/// Options of `cargo xtask mutants`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A crate to mutate, with its own tests (repeatable); by default the four of issue 34.
    #[arg(long = "crate", value_name = "NAME")]
    crates: Vec<String>,
    /// Start no further crate once this many minutes have passed (a crate's run is never cut short).
    #[arg(long)]
    minutes: Option<u64>,
    /// Only the K-th of N slices of each crate's mutants (cargo-mutants' `--shard K/N`, K from 0).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The summaries' folder name under bench-results/ (default: the hostname, as the bench names it).
    #[arg(long)]
    machine: Option<String>,
    /// Write the summaries from the outcomes already in target/mutants/, without running cargo-mutants.
    #[arg(long)]
    report_only: bool,
}

/// How one mutant (or the baseline) came out, as cargo-mutants' `summary` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A test failed: the mutant is caught.
    Caught,
    /// Every test passed with the mutant in.
    Missed,
    /// The tests ran past cargo-mutants' timeout.
    Timeout,
    /// The mutant does not build.
    Unviable,
}

/// One mutant's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The file, relative to the workspace root.
    pub file: String,
    /// cargo-mutants' name for it: `file:line:column: the mutation`.
    pub name: String,
    /// How it came out.
    pub kind: Kind,
}

/// The mutants' outcomes in an `outcomes.json` (the baseline left out). An error names what is malformed.
pub fn parse_outcomes(json: &str) -> Result<Vec<Outcome>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| format!("outcomes.json is not JSON: {e}"))?;
    let outcomes = value["outcomes"].as_array().ok_or("outcomes.json has no `outcomes` list")?;
    let mut out = Vec::new();
    for o in outcomes {
        let Some(mutant) = o["scenario"].get("Mutant") else { continue }; // the baseline
        let summary = o["summary"].as_str().ok_or("an outcome has no `summary`")?;
        let kind = match summary {
            "CaughtMutant" => Kind::Caught,
            "MissedMutant" => Kind::Missed,
            "Timeout" => Kind::Timeout,
            "Unviable" => Kind::Unviable,
            other => return Err(format!("a mutant's outcome is `{other}`, not caught, missed, timeout or unviable")),
        };
        let text = |field: &str| mutant[field].as_str().map(str::to_owned).ok_or(format!("a mutant has no `{field}`"));
        out.push(Outcome { file: text("file")?, name: text("name")?, kind });
    }
    Ok(out)
}

/// Caught, missed, timeouts and unviable mutants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Caught by a failing test.
    pub caught: usize,
    /// Not caught.
    pub missed: usize,
    /// The tests timed out.
    pub timeout: usize,
    /// Did not build.
    pub unviable: usize,
}

impl Counts {
    fn add(&mut self, kind: Kind) {
        match kind {
            Kind::Caught => self.caught += 1,
            Kind::Missed => self.missed += 1,
            Kind::Timeout => self.timeout += 1,
            Kind::Unviable => self.unviable += 1,
        }
    }

    /// The share of the viable mutants (all but the unviable) that the tests notice (caught or timed out), in
    /// percent; `None` when none is viable.
    #[must_use]
    pub fn caught_percent(&self) -> Option<f64> {
        let viable = self.caught + self.missed + self.timeout;
        (viable > 0).then(|| 100.0 * (self.caught + self.timeout) as f64 / viable as f64)
    }

    fn row(&self, what: &str) -> String {
        let percent = self.caught_percent().map_or_else(|| "–".to_owned(), |p| format!("{p:.1} %"));
        let total = self.caught + self.missed + self.timeout + self.unviable;
        format!(
            "| {what} | {total} | {} | {} | {} | {} | {percent} |\n",
            self.caught, self.missed, self.timeout, self.unviable
        )
    }
}

/// The summary of one crate's outcomes, in Markdown: per file and in total, then the missed mutants. `source`
/// says where the outcomes come from (the run, the shards).
#[must_use]
pub fn summary(krate: &str, source: &str, outcomes: &[Outcome]) -> String {
    let mut per_file: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut total = Counts::default();
    for o in outcomes {
        per_file.entry(o.file.as_str()).or_default().add(o.kind);
        total.add(o.kind);
    }
    let mut s = format!("# Mutation testing: {krate}\n\n");
    let _ = writeln!(
        s,
        "`cargo xtask mutants --crate {krate}`: cargo-mutants on {krate} with its own tests ({source}). Caught % is \
         of the viable mutants (caught + missed + timeouts); a timeout counts as caught.\n"
    );
    s.push_str("| file | mutants | caught | missed | timeouts | unviable | caught % |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for (file, counts) in &per_file {
        s.push_str(&counts.row(&format!("`{file}`")));
    }
    s.push_str(&total.row("**total**"));
    let missed: Vec<&Outcome> = outcomes.iter().filter(|o| o.kind == Kind::Missed).collect();
    let _ = writeln!(s, "\n## Missed ({})\n", missed.len());
    if missed.is_empty() {
        s.push_str("None.\n");
    }
    for o in missed {
        let _ = writeln!(s, "- `{}`", o.name);
    }
    s.push_str("\nA missed mutant gets a test, or a line in `mutants/equivalent.md` saying why none can catch it.\n");
    s
}

/// Run (or, with `--report-only`, only summarise) each crate in turn.
pub fn run(args: &Args) -> Result<(), String> {
    let crates: Vec<String> =
        if args.crates.is_empty() { DEFAULT_CRATES.map(str::to_owned).to_vec() } else { args.crates.clone() };
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    if !args.report_only {
        ensure_installed()?;
    }
    let machine = crate::bench::machine::Machine::detect(args.machine.as_deref()).name;
    let out_root = target_dir().join("mutants");
    let start = Instant::now();
    for (i, krate) in crates.iter().enumerate() {
        if let Some(minutes) = args.minutes
            && start.elapsed() >= Duration::from_secs(minutes * 60)
        {
            eprintln!("mutants: {minutes} minutes have passed; not started: {}", crates[i..].join(", "));
            break;
        }
        let folder = match shard {
            Some((k, n)) => format!("shard-{k}-of-{n}"),
            None => "all".to_owned(),
        };
        let out = out_root.join(krate).join(&folder);
        if !args.report_only {
            run_crate(krate, &out, args.shard.as_deref())?;
        }
        let (outcomes, source) = gather(&out_root.join(krate), shard)?;
        let dir = root().join("bench-results").join(&machine).join("mutants");
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!("{krate}.md"));
        std::fs::write(&path, summary(krate, &source, &outcomes))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let missed = outcomes.iter().filter(|o| o.kind == Kind::Missed).count();
        eprintln!("mutants: {krate}: {} mutants, {missed} missed; summary in {}", outcomes.len(), path.display());
    }
    eprintln!("mutants: {:.1} minutes", start.elapsed().as_secs_f64() / 60.0);
    Ok(())
}

/// `K/N` with K < N.
fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--shard {text}: expected K/N with 0 <= K < N");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k < n { Ok((k, n)) } else { Err(bad()) }
}

/// cargo-mutants, installed when `cargo mutants --version` fails.
fn ensure_installed() -> Result<(), String> {
    let works = Command::new("cargo").args(["mutants", "--version"]).output().is_ok_and(|o| o.status.success());
    if works {
        return Ok(());
    }
    eprintln!("mutants: `cargo mutants --version` failed; installing cargo-mutants");
    crate::run_command("cargo", &["install", "--locked", "cargo-mutants"], &[])
}

/// cargo-mutants on `krate` with its own tests, output in `out/mutants.out`. Missed mutants and timeouts are an
/// outcome, not an error (cargo-mutants exits 2 and 3 for them); other failures are.
fn run_crate(krate: &str, out: &Path, shard: Option<&str>) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let out_text = out.display().to_string();
    let mut args = vec!["mutants", "--package", krate, "--test-package", krate, "--output", &out_text];
    if let Some(features) = features_of(krate) {
        args.extend(["--features", features]);
    }
    if let Some(shard) = shard {
        args.extend(["--shard", shard]);
    }
    eprintln!("\n==> cargo {}", args.join(" "));
    // Each mutant builds in cargo-mutants' own copy of the tree, with the copy's own target folder: a
    // CARGO_TARGET_DIR shared with the real tree would have every mutant rebuild over it.
    let status = Command::new("cargo")
        .args(&args)
        .env_remove("CARGO_TARGET_DIR")
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start cargo mutants: {e}"))?;
    match status.code() {
        // 0: all caught; 2: some missed; 3: some timed out.
        Some(0 | 2 | 3) => Ok(()),
        _ => Err(format!("`cargo {}` failed ({status}); see {out_text}/mutants.out/", args.join(" "))),
    }
}

/// The features a crate's mutants are tested with: the code they compile in, and the tests that exercise it.
/// collide-broadphase's conformance kit is behind its `conformance` feature; without it, every mutant of the kit
/// was never compiled and counted as missed (503 of them in the first run).
fn features_of(krate: &str) -> Option<&'static str> {
    (krate == "collide-broadphase").then_some("conformance")
}

/// The outcomes of `krate_dir`'s run: `all/`, or every `shard-*-of-N/` present for this N; and a phrase saying
/// which.
fn gather(krate_dir: &Path, shard: Option<(u32, u32)>) -> Result<(Vec<Outcome>, String), String> {
    let read = |folder: &str| {
        let path = krate_dir.join(folder).join("mutants.out").join("outcomes.json");
        let json = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parse_outcomes(&json).map_err(|e| format!("{}: {e}", path.display()))
    };
    let Some((_, n)) = shard else {
        return Ok((read("all")?, "every mutant".to_owned()));
    };
    let (mut outcomes, mut held) = (Vec::new(), Vec::new());
    for k in 0..n {
        let folder = format!("shard-{k}-of-{n}");
        if krate_dir.join(&folder).join("mutants.out").join("outcomes.json").exists() {
            outcomes.extend(read(&folder)?);
            held.push(k.to_string());
        }
    }
    Ok((outcomes, format!("shards {} of {n}", held.join(", "))))
}

#[cfg(test)]
mod tests;
