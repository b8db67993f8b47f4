//! `cargo xtask mutants [--crate NAME]... [--minutes N] [--shard K/N | --file GLOB...]`: mutation testing with
//! cargo-mutants (issue 34). Not part of CI: `cargo xtask test` never runs it.
//!
//! cargo-mutants changes the code one small bug at a time (a function returning `0`, a `<` become `<=`, a match arm
//! deleted) and runs the tests. A mutant the tests do not catch marks a behaviour no test pins. For each crate
//! (by default `collide-broadphase`, `collide-aabbs`, `collide-selector` and `collide-narrowphase`) this runs
//! `cargo mutants --package CRATE --test-package CRATE`: the crate's own tests against the crate's own mutants,
//! with cargo-mutants' output in `target/mutants/<crate>/<piece>/mutants.out/` (piece: [`Piece::folder`]).
//! cargo-mutants is installed first (`cargo install --locked cargo-mutants`) when `cargo mutants --version` fails.
//!
//! After each crate, its `outcomes.json` is read and `bench-results/<machine>/mutants/<crate>.md` written (machine:
//! `--machine` or the hostname, as the bench names its folder): caught, missed, timeouts and unviable per file and
//! in total, the share caught of the viable mutants (caught and timeouts count as caught: a mutant that hangs the
//! tests is noticed), the crate's files not run yet, and every missed mutant (file:line:column and the mutation).
//! A missed mutant either gets a test or, when it cannot change what the code does, a line in
//! `mutants/equivalent.md` saying why.
//!
//! # Quick tests first
//!
//! A crate whose tests include some of seconds each ([`slow_tests`]: collide-selector's, 20 s a mutant with them
//! and under 3 without) is run in two passes: every mutant with the other tests, then the mutants that pass missed
//! with every test. The outcome is the one every test gives, and the slow tests run only for the few mutants the
//! quick ones miss.
//!
//! # Bounding the time, resuming in pieces
//!
//! A crate's run is cargo-mutants' own and is not cut short. `--minutes N` is checked between crates: once N
//! minutes have passed no further crate starts, and the crates left are named so a later run can take them
//! (`--crate`). A crate too long for one sitting is cut in pieces, in one of two ways:
//! - `--shard K/N`, passed to cargo-mutants as is: the K-th of N slices of the crate's mutants (K from 0), in its
//!   own folder `shard-K-of-N/`. The summary merges every `shard-*-of-N` folder present for that N and says which
//!   shards it holds;
//! - `--file GLOB` (repeatable): the mutants of those files, in `files-<stems>/`. The summary takes each file
//!   from the newest piece that holds it (`all/` included), so a file run again after new tests replaces its old
//!   outcomes, and it lists the crate's files no piece has run yet. The committed summary counts as the oldest
//!   piece ([`parse_summary`]): `target/` is not committed, so a sitting on a fresh checkout keeps the rows of
//!   the files run in earlier ones and replaces only those it runs again.
//!
//! `--again` runs only the mutants the piece's runs so far missed (the quick tests first, then every test on what
//! they still miss), in `survivors-K/` beside the piece's first run: after new tests, the misses are checked
//! without running the whole piece again.
//! A piece counts once its first run finished every pass (a `finished` file in its folder): one cut short, or a
//! quick pass whose full pass never ran, is left out of the summary rather than counted as it stood.
//! `--report-only` writes the summaries from the outcomes already in `target/mutants/` without running
//! cargo-mutants.

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
    /// Only the mutants of these files (cargo-mutants' `--file` glob, repeatable: `crates/c/src/x.rs` or `x.rs`).
    #[arg(long = "file", value_name = "GLOB", conflicts_with = "shard")]
    files: Vec<String>,
    /// Only the K-th of N slices of each crate's mutants (cargo-mutants' `--shard K/N`, K from 0).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The summaries' folder name under bench-results/ (default: the hostname, as the bench names it).
    #[arg(long)]
    machine: Option<String>,
    /// Run again only the mutants this piece's runs so far missed (after new tests): quick tests, then every test.
    #[arg(long, conflicts_with = "report_only")]
    again: bool,
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

/// The summary of one crate's outcomes, in Markdown: per file and in total, the files not run yet (`not_run`),
/// then the missed mutants. `source` says where the outcomes come from (the run, the shards, the files' pieces).
#[must_use]
pub fn summary(krate: &str, source: &str, outcomes: &[Outcome], not_run: &[String]) -> String {
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
    if !not_run.is_empty() {
        let _ = writeln!(s, "\nNot run yet, so not in the total ({}):\n", not_run.len());
        for file in not_run {
            let _ = writeln!(s, "- `{file}`");
        }
    }
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
        let piece = Piece::new(&args.files, shard);
        let krate_dir = out_root.join(krate);
        if !args.report_only {
            run_crate(krate, &krate_dir.join(piece.folder()), &piece, args.again)?;
        }
        let dir = root().join("bench-results").join(&machine).join("mutants");
        let path = dir.join(format!("{krate}.md"));
        let (outcomes, source) = gather(&krate_dir, &piece, &path)?;
        let not_run = match list_files(krate) {
            Ok(files) => files.into_iter().filter(|f| !outcomes.iter().any(|o| &o.file == f)).collect(),
            Err(e) => {
                eprintln!("mutants: {krate}: the summary cannot say which files are not run yet: {e}");
                Vec::new()
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        std::fs::write(&path, summary(krate, &source, &outcomes, &not_run))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let missed = outcomes.iter().filter(|o| o.kind == Kind::Missed).count();
        eprintln!("mutants: {krate}: {} mutants, {missed} missed; summary in {}", outcomes.len(), path.display());
    }
    eprintln!("mutants: {:.1} minutes", start.elapsed().as_secs_f64() / 60.0);
    Ok(())
}

/// The part of a crate's mutants one run tests: every one, a shard, or those of some files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Every mutant of the crate.
    All,
    /// cargo-mutants' `--shard K/N`.
    Shard(u32, u32),
    /// cargo-mutants' `--file` globs, as given.
    Files(Vec<String>),
}

impl Piece {
    /// From the command line's `--file` globs and `--shard`, which do not go together (clap refuses both).
    #[must_use]
    pub fn new(files: &[String], shard: Option<(u32, u32)>) -> Self {
        match shard {
            Some((k, n)) => Self::Shard(k, n),
            None if files.is_empty() => Self::All,
            None => Self::Files(files.to_vec()),
        }
    }

    /// Its folder under `target/mutants/<crate>/`: `all`, `shard-K-of-N`, or `files-` and the globs' file stems
    /// joined by `+` (`--file src/policy.rs --file model.rs`: `files-policy+model`).
    #[must_use]
    pub fn folder(&self) -> String {
        match self {
            Self::All => "all".to_owned(),
            Self::Shard(k, n) => format!("shard-{k}-of-{n}"),
            Self::Files(globs) => {
                let stem = |g: &String| {
                    let name = g.rsplit('/').next().unwrap_or(g);
                    let name = name.strip_suffix(".rs").unwrap_or(name);
                    name.chars()
                        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' })
                        .collect::<String>()
                };
                format!("files-{}", globs.iter().map(stem).collect::<Vec<_>>().join("+"))
            }
        }
    }
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

/// The tests of a crate that take seconds each, left out of the first pass over its mutants ([`run_crate`]), as
/// measured on a 2-core AMD VM:
/// - collide-selector's whole-`Selector` runs (the conformance kit through `auto`, builds beside, the shipped
///   thresholds at 20 000 bodies, the pair estimate's accuracy): with them a mutant's tests took 20 s, without
///   them 0.3 s for the other 50 (and 1.7 s for the warm-allocation tests);
/// - collide-broadphase's tests of the conformance kit that run it whole, 1.3–8.2 s each: 25 s of the lib
///   tests' 25 s with the `conformance` feature.
fn slow_tests(krate: &str) -> &'static [&'static str] {
    match krate {
        "collide-broadphase" => &[
            "conformance::tests::every_breach_of_the_invalid_box_contract_is_caught",
            "conformance::tests::assert_parallel_paths_names_a_section_that_did_not_run",
            "conformance::tests::the_kits_scenes_and_sequences_are_pinned",
            "conformance::tests::a_structure_that_follows_permutations_conforms_and_one_that_ignores_them_is_caught",
            "conformance::tests::the_parallel_check_counts_the_sections_that_ran_in_parallel",
            "conformance::tests::permutation_frames_check_every_call_and_hand_back_the_counters_after_each_permutation",
            "conformance::tests::every_kind_of_wrong_answer_is_caught",
            "conformance::tests::the_reference_conforms",
            "conformance::tests::a_structure_that_far_outliers_collapse_is_caught",
            "conformance::tests::the_hinted_sequences_keep_the_promise_and_use_both_flags",
            "conformance::tests::the_large_sequence_names_the_frame_of_a_structure_invalid_after_its_resize",
            "conformance::tests::a_structure_invalid_right_after_a_permutation_is_caught",
        ],
        "collide-selector" => &[
            "tests::the_shipped_thresholds_sample_a_large_scene_and_never_a_small_one",
            "tests::builds_beside_hand_over_warm_and_the_pairs_stay_exact",
            "features::tests::pairs_per_body_are_estimated_from_the_sample_within_a_third_of_the_truth",
            "tests::conforms_with_incremental_candidates_through_the_kit_s_permutations",
            "tests::conforms_when_forced_to_switch_every_frame_and_every_seventh",
            "tests::conforms_with_every_build_beside",
            "tests::a_sample_s_scouts_take_turns_at_running_first_on_the_compared_frames",
            "tests::conforms_with_one_candidate_and_with_several",
            "tests::the_trace_recorder_follows_permutations_without_marking_a_resize",
            "tests::sampled_probes_run_on_a_sub_box_and_never_change_the_pairs",
        ],
        _ => &[],
    }
}

/// cargo-mutants on `krate`'s mutants of `piece`, with the crate's own tests, output in `out/mutants.out`.
///
/// **Quick first.** For a crate with [`slow_tests`], the first pass runs every other test (most mutants are
/// caught there in a few seconds); the mutants it misses are then run again with every test ([`run_survivors`]),
/// and that outcome is theirs ([`read_piece`]). So the result is what every test would give, at the cost of the
/// full tests only for the mutants the quick ones miss. With `again`, only what the piece's runs so far left
/// missed is run, quick tests first and then every test: after new tests, the misses are checked again without
/// the whole piece. Missed mutants and timeouts are an outcome, not an error (cargo-mutants exits 2 and 3 for
/// them); other failures are.
fn run_crate(krate: &str, out: &Path, piece: &Piece, again: bool) -> Result<(), String> {
    let select: Vec<String> = match piece {
        Piece::All => Vec::new(),
        Piece::Shard(k, n) => vec!["--shard".into(), format!("{k}/{n}")],
        Piece::Files(globs) => globs.iter().flat_map(|g| ["--file".to_owned(), g.clone()]).collect(),
    };
    let slow = slow_tests(krate);
    let mut quick = Vec::new();
    if !slow.is_empty() {
        quick.extend(["--".to_owned(), "--".to_owned()]);
        quick.extend(slow.iter().flat_map(|t| ["--skip".to_owned(), (*t).to_owned()]));
    }
    if again {
        if !finished(out) {
            return Err(format!("{}: the piece's first run did not finish; run it without --again", out.display()));
        }
        if !slow.is_empty() {
            run_survivors(krate, out, &select, &quick)?;
        }
        // A survivors' run cut short is still sound: it decides only the mutants it ran.
        return run_survivors(krate, out, &select, &[]);
    }
    let _ = std::fs::remove_file(out.join(FINISHED));
    for stale in survivor_runs(out)? {
        std::fs::remove_dir_all(&stale).map_err(|e| format!("{}: {e}", stale.display()))?;
    }
    cargo_mutants(krate, out, &select, &quick)?;
    if !slow.is_empty() {
        run_survivors(krate, out, &select, &[])?;
    }
    std::fs::write(out.join(FINISHED), "").map_err(|e| format!("{}: {e}", out.display()))
}

/// The piece's mutants still missed, run again with `test_args` (none: every test), into the next
/// `out/survivors-K/`.
fn run_survivors(krate: &str, out: &Path, select: &[String], test_args: &[String]) -> Result<(), String> {
    let missed: Vec<Outcome> = read_piece(out)?.into_iter().filter(|o| o.kind == Kind::Missed).collect();
    let tests = if test_args.is_empty() { "every test" } else { "the quick tests" };
    eprintln!("mutants: {krate}: {} missed so far; again with {tests}", missed.len());
    if missed.is_empty() {
        return Ok(());
    }
    let mut select = select.to_vec();
    select.extend(missed.iter().flat_map(|o| ["--re".to_owned(), exact_re(&o.name)]));
    let next = out.join(format!("survivors-{:02}", survivor_runs(out)?.len() + 1));
    cargo_mutants(krate, &next, &select, test_args)
}

/// The file a piece's folder holds once its first run finished every pass: cargo-mutants writes `outcomes.json` as
/// it goes, so a run cut short (or a quick pass whose full pass never ran) leaves outcomes that are not the
/// piece's. Such a piece is left out of the summary, and `--again` refuses it.
const FINISHED: &str = "finished";

/// `true` when the piece in `out` finished its first run (see [`FINISHED`]).
fn finished(out: &Path) -> bool {
    out.join(FINISHED).exists()
}

/// The piece's runs of its survivors (`survivors-01/`, `survivors-02/`, …), in the order they ran.
fn survivor_runs(out: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    if !out.exists() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut runs: Vec<_> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("survivors-"))
        .map(|e| e.path())
        .collect();
    runs.sort();
    Ok(runs)
}

/// One `cargo mutants` run: `select` picks the mutants, `test_args` go to `cargo test` (after cargo-mutants'
/// own `--`).
fn cargo_mutants(krate: &str, out: &Path, select: &[String], test_args: &[String]) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let out_text = out.display().to_string();
    let mut args: Vec<&str> = vec!["mutants", "--package", krate, "--test-package", krate, "--output", &out_text];
    // The registry's crates, built already in the real tree's target folder, are reused (the workspace's own
    // are rebuilt anyway: the copy lives elsewhere).
    args.extend(["--copy-target", "true"]);
    if let Some(features) = features_of(krate) {
        args.extend(["--features", features]);
    }
    args.extend(select.iter().map(String::as_str));
    args.extend(test_args.iter().map(String::as_str));
    let shown = if args.len() > 40 {
        format!("{} … ({} arguments)", args[..40].join(" "), args.len())
    } else {
        args.join(" ")
    };
    eprintln!("\n==> cargo {shown}");
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
        _ => Err(format!("`cargo {shown}` failed ({status}); see {out_text}/mutants.out/")),
    }
}

/// A regular expression (cargo-mutants' `--re`) matching exactly the mutant `name`.
#[must_use]
pub fn exact_re(name: &str) -> String {
    let mut re = String::with_capacity(name.len() + 8);
    re.push('^');
    for c in name.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            re.push('\\');
        }
        re.push(c);
    }
    re.push('$');
    re
}

/// The files of `krate` that have mutants (`cargo mutants --list`: a file of declarations only has none), in the
/// order cargo-mutants lists them.
fn list_files(krate: &str) -> Result<Vec<String>, String> {
    let mut args = vec!["mutants", "--list", "--package", krate];
    if let Some(features) = features_of(krate) {
        args.extend(["--features", features]);
    }
    let output = Command::new("cargo")
        .args(&args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot start cargo mutants: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo {}` failed ({})", args.join(" "), output.status));
    }
    Ok(files_of_mutants(&String::from_utf8_lossy(&output.stdout)))
}

/// The distinct files of a `cargo mutants --list` output (`file:line:column: mutation` a line), in first-seen order.
#[must_use]
pub fn files_of_mutants(list: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for file in list.lines().filter_map(|l| l.split_once(':').map(|(file, _)| file)) {
        if !files.iter().any(|f| f == file) {
            files.push(file.to_owned());
        }
    }
    files
}

/// The features a crate's mutants are tested with: the code they compile in, and the tests that exercise it.
/// collide-broadphase's conformance kit is behind its `conformance` feature; without it, every mutant of the kit
/// was never compiled and counted as missed (503 of them in the first run).
fn features_of(krate: &str) -> Option<&'static str> {
    (krate == "collide-broadphase").then_some("conformance")
}

/// One piece's outcomes: its run's, with each later run of its survivors (the full tests, [`run_survivors`]), in
/// order, deciding the mutants it ran again.
fn read_piece(dir: &Path) -> Result<Vec<Outcome>, String> {
    let read = |dir: &Path| {
        let path = dir.join("mutants.out").join("outcomes.json");
        let json = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parse_outcomes(&json).map_err(|e| format!("{}: {e}", path.display()))
    };
    let mut outcomes = read(dir)?;
    for survivors in survivor_runs(dir)? {
        if !survivors.join("mutants.out").join("outcomes.json").exists() {
            continue; // a run cut short before cargo-mutants wrote anything
        }
        let again: BTreeMap<String, Kind> = read(&survivors)?.into_iter().map(|o| (o.name, o.kind)).collect();
        for o in &mut outcomes {
            if let Some(&kind) = again.get(&o.name) {
                o.kind = kind;
            }
        }
    }
    Ok(outcomes)
}

/// The outcomes `krate_dir` holds for the kind of piece run, and a phrase saying where they come from:
/// - every mutant: `all/`;
/// - shards: every `shard-*-of-N/` present for this N;
/// - files: each file's outcomes from the newest of `all/` and the `files-*/` pieces that hold it, so that
///   a crate is covered file by file over several sittings, and a file run again replaces its older outcomes
///   (whose line numbers may have moved) whole; `committed`, the summary committed from earlier sittings (read
///   when present), counts as the oldest piece.
fn gather(krate_dir: &Path, piece: &Piece, committed: &Path) -> Result<(Vec<Outcome>, String), String> {
    match piece {
        Piece::All => {
            let all = krate_dir.join("all");
            if !finished(&all) {
                return Err(format!("{}: the run did not finish; run it again", all.display()));
            }
            Ok((read_piece(&all)?, "every mutant".to_owned()))
        }
        Piece::Shard(_, n) => {
            let (mut outcomes, mut held) = (Vec::new(), Vec::new());
            for k in 0..*n {
                let folder = krate_dir.join(format!("shard-{k}-of-{n}"));
                if finished(&folder) {
                    outcomes.extend(read_piece(&folder)?);
                    held.push(k.to_string());
                }
            }
            Ok((outcomes, format!("shards {} of {n}", held.join(", "))))
        }
        Piece::Files(_) => {
            let entries = match std::fs::read_dir(krate_dir) {
                Ok(entries) => entries.flatten().collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(format!("{}: {e}", krate_dir.display())),
            };
            let mut pieces = Vec::new();
            for entry in entries {
                let name = entry.file_name().to_string_lossy().into_owned();
                let json = entry.path().join("mutants.out").join("outcomes.json");
                if !(name == "all" || name.starts_with("files-")) {
                    continue;
                }
                if !finished(&entry.path()) {
                    eprintln!("mutants: {}: left out, its first run did not finish", entry.path().display());
                } else {
                    let when = std::fs::metadata(&json).and_then(|m| m.modified()).map_err(|e| format!("{e}"))?;
                    pieces.push((when, name, read_piece(&entry.path())?));
                }
            }
            // The committed summary stands for the sittings whose outcomes this checkout no longer holds
            // (`target/` is not committed): the oldest piece, so every file run here replaces its rows.
            match std::fs::read_to_string(committed) {
                Ok(md) => pieces.push((
                    std::time::UNIX_EPOCH,
                    EARLIER.to_owned(),
                    parse_summary(&md).map_err(|e| format!("{}: {e}", committed.display()))?,
                )),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot read {}: {e}", committed.display())),
            }
            Ok(newest_per_file(pieces))
        }
    }
}

/// The name the committed summary's rows go by, as a piece, in a new summary's source line.
const EARLIER: &str = "the committed summary";

/// The outcomes a summary written by [`summary`] stands for: per file, its missed mutants by name, and its
/// caught, timed-out and unviable ones by count (a summary names only the missed; the others get a name saying
/// so). Lets a crate run in sittings across checkouts: the summary is committed, `target/mutants/` is not. An
/// error names the line that is not a summary's.
pub fn parse_summary(md: &str) -> Result<Vec<Outcome>, String> {
    let mut counts: Vec<(String, Counts)> = Vec::new();
    let mut missed: Vec<String> = Vec::new();
    let mut in_missed = false;
    for (i, line) in md.lines().enumerate() {
        let bad = |what: &str| format!("line {}: {what}: `{line}`", i + 1);
        if line.starts_with("## Missed") {
            in_missed = true;
        } else if in_missed && line.starts_with("- `") {
            missed.push(line.trim_start_matches("- `").trim_end_matches('`').to_owned());
        } else if !in_missed && line.starts_with("| `") {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let [file, _, caught, miss, timeout, unviable, _] = cells[..] else {
                return Err(bad("a file's row has 7 cells"));
            };
            let number = |cell: &str| cell.parse::<usize>().map_err(|_| bad("a count is not a number"));
            let c = Counts {
                caught: number(caught)?,
                missed: number(miss)?,
                timeout: number(timeout)?,
                unviable: number(unviable)?,
            };
            counts.push((file.trim_matches('`').to_owned(), c));
        }
    }
    let mut out = Vec::new();
    for (file, c) in counts {
        let names: Vec<&String> = missed.iter().filter(|m| m.split(':').next() == Some(file.as_str())).collect();
        if names.len() != c.missed {
            return Err(format!("{file}: its row counts {} missed, the list names {}", c.missed, names.len()));
        }
        out.extend(names.into_iter().map(|n| Outcome { file: file.clone(), name: n.clone(), kind: Kind::Missed }));
        for (kind, n) in [(Kind::Caught, c.caught), (Kind::Timeout, c.timeout), (Kind::Unviable, c.unviable)] {
            out.extend((0..n).map(|k| Outcome {
                file: file.clone(),
                name: format!("{file}: {kind:?} #{k} in an earlier sitting"),
                kind,
            }));
        }
    }
    Ok(out)
}

/// Each file's outcomes from the newest piece holding it, and which pieces gave which files.
#[must_use]
pub fn newest_per_file(mut pieces: Vec<(std::time::SystemTime, String, Vec<Outcome>)>) -> (Vec<Outcome>, String) {
    pieces.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let mut outcomes = Vec::new();
    for (_, name, piece) in &pieces {
        let fresh: Vec<&Outcome> = piece.iter().filter(|o| !taken.contains_key(&o.file)).collect();
        for o in &fresh {
            taken.entry(o.file.clone()).or_insert_with(|| name.clone());
        }
        outcomes.extend(fresh.into_iter().cloned());
    }
    let mut by_piece: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (file, piece) in &taken {
        by_piece.entry(piece).or_default().push(file.rsplit('/').next().unwrap_or(file));
    }
    let source = by_piece.iter().map(|(p, files)| format!("`{p}`: {}", files.join(", "))).collect::<Vec<_>>();
    (outcomes, format!("each file from its newest run; {}", source.join("; ")))
}

#[cfg(test)]
mod tests;
