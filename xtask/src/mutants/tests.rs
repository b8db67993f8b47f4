use super::*;

/// An `outcomes.json` as cargo-mutants 27.1 writes it, cut to a baseline and five mutants of two files (the
/// fields the summary does not read shortened or left out).
const SAMPLE: &str = r#"{
  "outcomes": [
    {"scenario": "Baseline", "summary": "Success", "log_path": "log/baseline.log", "diff_path": null,
     "phase_results": []},
    {"scenario": {"Mutant": {"name": "crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0",
      "package": "c", "file": "crates/c/src/write.rs", "function": null,
      "span": {"start": {"line": 120, "column": 5}, "end": {"line": 120, "column": 9}},
      "replacement": "0", "genre": "FnValue"}}, "summary": "MissedMutant"},
    {"scenario": {"Mutant": {"name": "crates/c/src/write.rs:120:40: replace * with + in file_bytes",
      "package": "c", "file": "crates/c/src/write.rs", "replacement": "+", "genre": "BinaryOperator"}},
     "summary": "CaughtMutant"},
    {"scenario": {"Mutant": {"name": "crates/c/src/read.rs:34:16: replace < with <= in Reader::open",
      "package": "c", "file": "crates/c/src/read.rs", "replacement": "<=", "genre": "BinaryOperator"}},
     "summary": "CaughtMutant"},
    {"scenario": {"Mutant": {"name": "crates/c/src/read.rs:73:23: replace < with > in Reader::read_frame",
      "package": "c", "file": "crates/c/src/read.rs", "replacement": ">", "genre": "BinaryOperator"}},
     "summary": "Timeout"},
    {"scenario": {"Mutant": {"name": "crates/c/src/read.rs:40:9: replace Reader::open -> Result<Self> with Ok(Default::default())",
      "package": "c", "file": "crates/c/src/read.rs", "replacement": "Ok(Default::default())",
      "genre": "FnValue"}}, "summary": "Unviable"}
  ],
  "total_mutants": 5, "missed": 1, "caught": 2, "timeout": 1, "unviable": 1, "success": 0, "failure": 0
}"#;

#[test]
fn the_mutants_of_an_outcomes_file_are_read_without_the_baseline() {
    let outcomes = parse_outcomes(SAMPLE).unwrap();
    let kinds: Vec<Kind> = outcomes.iter().map(|o| o.kind).collect();
    assert_eq!(kinds, [Kind::Missed, Kind::Caught, Kind::Caught, Kind::Timeout, Kind::Unviable]);
    assert_eq!(
        outcomes[0],
        Outcome {
            file: "crates/c/src/write.rs".into(),
            name: "crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0".into(),
            kind: Kind::Missed,
        }
    );
    assert_eq!(outcomes[3].file, "crates/c/src/read.rs");
}

#[test]
fn a_malformed_outcomes_file_is_an_error_that_says_what_is_wrong() {
    assert!(parse_outcomes("not json").unwrap_err().contains("not JSON"));
    assert!(parse_outcomes("{}").unwrap_err().contains("no `outcomes` list"));
    let failure = SAMPLE.replacen("\"Unviable\"", "\"Failure\"", 1);
    assert!(parse_outcomes(&failure).unwrap_err().contains("`Failure`"));
    let nameless = SAMPLE.replacen("\"name\": \"crates/c/src/read.rs:34:16", "\"label\": \"x", 1);
    assert!(parse_outcomes(&nameless).unwrap_err().contains("no `name`"));
}

#[test]
fn the_summary_counts_per_file_and_in_total_and_lists_the_missed() {
    let text = summary("c", "every mutant", &parse_outcomes(SAMPLE).unwrap(), &[]);
    // read.rs: 1 caught, 1 timeout, 1 unviable: 2 of 2 viable noticed. write.rs: 1 of 2. In all: 3 of 4.
    assert!(text.contains("| `crates/c/src/read.rs` | 3 | 1 | 0 | 1 | 1 | 100.0 % |\n"), "{text}");
    assert!(text.contains("| `crates/c/src/write.rs` | 2 | 1 | 1 | 0 | 0 | 50.0 % |\n"), "{text}");
    assert!(text.contains("| **total** | 5 | 2 | 1 | 1 | 1 | 75.0 % |\n"), "{text}");
    // Files in order: read.rs before write.rs, then the total.
    let (read, write) = (text.find("read.rs` |").unwrap(), text.find("write.rs` |").unwrap());
    assert!(read < write && write < text.find("**total**").unwrap());
    assert!(text.contains("## Missed (1)\n\n- `crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0`\n"));
    assert!(text.starts_with("# Mutation testing: c\n"));
}

#[test]
fn a_summary_with_nothing_missed_says_so_and_one_with_nothing_viable_has_no_percentage() {
    let unviable = Outcome { file: "a.rs".into(), name: "a.rs:1:1: x".into(), kind: Kind::Unviable };
    let text = summary("c", "every mutant", &[unviable], &[]);
    assert!(text.contains("| **total** | 1 | 0 | 0 | 0 | 1 | – |\n"), "{text}");
    assert!(text.contains("## Missed (0)\n\nNone.\n"), "{text}");
}

#[test]
fn a_shard_is_k_of_n_with_k_below_n() {
    assert_eq!(parse_shard("0/4"), Ok((0, 4)));
    assert_eq!(parse_shard("3/4"), Ok((3, 4)));
    for bad in ["4/4", "1", "a/2", "1/0", "-1/3"] {
        assert!(parse_shard(bad).is_err(), "{bad}");
    }
}

/// The conformance kit is compiled only with collide-broadphase's `conformance` feature, so its mutants are tested
/// with it (without it, the first run counted the kit's 503 mutants missed without compiling one); and every
/// feature named for a crate is one its manifest declares (an unknown one would fail the run).
#[test]
fn each_crate_is_mutated_with_the_features_that_compile_its_code() {
    let lib = std::fs::read_to_string(root().join("crates/collide-broadphase/src/lib.rs")).expect("lib.rs");
    assert!(lib.contains("#[cfg(feature = \"conformance\")]\npub mod conformance;"), "the kit's gate moved");
    assert_eq!(features_of("collide-broadphase"), Some("conformance"));
    for krate in DEFAULT_CRATES {
        let manifest = std::fs::read_to_string(root().join("crates").join(krate).join("Cargo.toml"))
            .expect("the crate's manifest");
        let features = manifest.split("[features]").nth(1).unwrap_or("");
        for feature in features_of(krate).into_iter().flat_map(|f| f.split(',')) {
            assert!(
                features.lines().any(|l| l.split('=').next().is_some_and(|k| k.trim() == feature)),
                "{krate} declares no feature `{feature}`"
            );
        }
    }
}

#[test]
fn the_summary_lists_the_files_not_run_yet() {
    let caught = Outcome { file: "a.rs".into(), name: "a.rs:1:1: x".into(), kind: Kind::Caught };
    let text = summary("c", "every mutant", std::slice::from_ref(&caught), &["b.rs".to_owned(), "c.rs".to_owned()]);
    assert!(text.contains("Not run yet, so not in the total (2):\n\n- `b.rs`\n- `c.rs`\n"), "{text}");
    assert!(!summary("c", "every mutant", &[caught], &[]).contains("Not run yet"));
}

#[test]
fn a_piece_s_folder_names_its_shard_or_its_files() {
    assert_eq!(Piece::new(&[], None).folder(), "all");
    assert_eq!(Piece::new(&[], Some((2, 8))).folder(), "shard-2-of-8");
    let files = ["crates/collide-selector/src/policy.rs".to_owned(), "model.rs".to_owned(), "sweep/*.rs".to_owned()];
    assert_eq!(Piece::new(&files, None).folder(), "files-policy+model+-");
}

/// The expression matches its own name and no other: cargo-mutants' names are full of `(`, `->`, `*`, `+`,
/// `[`, `|` and `.`, any of which unescaped would match other mutants or none.
#[test]
fn an_exact_expression_matches_only_the_name_it_was_made_from() {
    let names = [
        "crates/c/src/a.rs:12:9: replace a::b -> &[f64] with Vec::leak(Vec::new())",
        "crates/c/src/a.rs:12:9: replace a::b -> &[f64] with Vec::leak(vec![Default::default()])",
        "crates/c/src/a.rs:40:21: replace * with + in f",
        "crates/c/src/a.rs:40:21: replace * with / in f",
        "crates/c/src/a.rs:41:3: replace | with ^ in key",
        "crates/c/src/a.rs:41:3: replace || with && in key",
    ];
    for name in names {
        let re = exact_re(name);
        // Interpreted by hand: each backslash escapes the next character, which then matches itself only.
        let mut literal = String::new();
        let mut chars = re.strip_prefix('^').and_then(|r| r.strip_suffix('$')).expect("anchored").chars();
        while let Some(c) = chars.next() {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                assert_eq!(c, '\\', "{re}: `{c}` unescaped");
                literal.push(chars.next().expect("an escaped character"));
            } else {
                literal.push(c);
            }
        }
        assert_eq!(literal, name);
    }
}

/// Each file comes from the newest piece holding it, whole: an older run's outcomes of a file run again are
/// dropped even where their names (line numbers) differ from the new ones.
#[test]
fn each_file_comes_whole_from_the_newest_piece_that_holds_it() {
    let o = |file: &str, line: u32, kind| Outcome { file: file.into(), name: format!("{file}:{line}:1: m"), kind };
    let t = |s| std::time::UNIX_EPOCH + Duration::from_secs(s);
    let old = vec![o("a.rs", 10, Kind::Missed), o("b.rs", 5, Kind::Missed), o("c.rs", 1, Kind::Caught)];
    let new_a = vec![o("a.rs", 12, Kind::Caught), o("a.rs", 30, Kind::Caught)];
    let new_b = vec![o("b.rs", 5, Kind::Caught)];
    let pieces = vec![
        (t(20), "files-b".to_owned(), new_b),
        (t(10), "all".to_owned(), old),
        (t(30), "files-a".to_owned(), new_a),
    ];
    let (outcomes, source) = newest_per_file(pieces);
    let mut names: Vec<(&str, Kind)> = outcomes.iter().map(|o| (o.name.as_str(), o.kind)).collect();
    names.sort_by_key(|n| n.0);
    assert_eq!(
        names,
        [
            ("a.rs:12:1: m", Kind::Caught),
            ("a.rs:30:1: m", Kind::Caught),
            ("b.rs:5:1: m", Kind::Caught),
            ("c.rs:1:1: m", Kind::Caught)
        ]
    );
    assert_eq!(source, "each file from its newest run; `all`: c.rs; `files-a`: a.rs; `files-b`: b.rs");
}

/// An `outcomes.json` of the given mutants (name, cargo-mutants' summary), in file `crates/c/src/a.rs`.
fn outcomes_json(mutants: &[(&str, &str)]) -> String {
    let each: Vec<String> = mutants
        .iter()
        .map(|(name, summary)| {
            format!(
                r#"{{"scenario": {{"Mutant": {{"name": "crates/c/src/a.rs:{name}", "file": "crates/c/src/a.rs"}}}}, "summary": "{summary}"}}"#
            )
        })
        .collect();
    format!(r#"{{"outcomes": [{}]}}"#, each.join(", "))
}

/// Each survivors' run (every test) decides the mutants it ran again, a later run over an earlier one; the
/// others keep the quick pass's outcome.
#[test]
fn a_piece_s_survivors_take_the_outcome_of_their_latest_run() {
    let dir = std::env::temp_dir().join(format!("collide-mutants-piece-{}", std::process::id()));
    let write = |sub: &Path, json: &str| {
        std::fs::create_dir_all(sub.join("mutants.out")).unwrap();
        std::fs::write(sub.join("mutants.out").join("outcomes.json"), json).unwrap();
    };
    // The quick pass: 1 caught, 2 and 3 and 4 missed.
    let quick = [
        ("1:1: m", "CaughtMutant"),
        ("2:1: m", "MissedMutant"),
        ("3:1: m", "MissedMutant"),
        ("4:1: m", "MissedMutant"),
    ];
    write(&dir, &outcomes_json(&quick));
    // Every test: 2 caught (by a slow test), 3 and 4 still missed.
    write(
        &dir.join("survivors-01"),
        &outcomes_json(&[("2:1: m", "CaughtMutant"), ("3:1: m", "MissedMutant"), ("4:1: m", "MissedMutant")]),
    );
    // After new tests (`--again`, on what was still missed): 3 caught, 4 still missed.
    write(&dir.join("survivors-02"), &outcomes_json(&[("3:1: m", "CaughtMutant"), ("4:1: m", "MissedMutant")]));
    let outcomes = read_piece(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let kinds: Vec<Kind> = outcomes.iter().map(|o| o.kind).collect();
    assert_eq!(kinds, [Kind::Caught, Kind::Caught, Kind::Caught, Kind::Missed]);
}

/// Every test left out of the quick pass is one the crate has (by its function's name in the module its path
/// names), so that a renamed test does not silently join the quick pass and slow every mutant again.
#[test]
fn the_slow_tests_named_for_the_quick_pass_exist() {
    for krate in DEFAULT_CRATES {
        for path in slow_tests(krate) {
            let (module, name) = path.rsplit_once("::").expect("module::name");
            let file = root().join("crates").join(krate).join("src").join(module.replace("::", "/") + ".rs");
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(text.contains(&format!("fn {name}()")), "{krate}: no `fn {name}()` in {}", file.display());
        }
    }
}

#[test]
fn the_files_of_a_mutant_list_are_each_named_once_in_order() {
    let list = "crates/c/src/b.rs:1:1: replace f -> u32 with 0
crates/c/src/a.rs:9:3: replace < with <= in g
crates/c/src/b.rs:4:2: delete ! in h
";
    assert_eq!(files_of_mutants(list), ["crates/c/src/b.rs", "crates/c/src/a.rs"]);
}

/// A piece whose first run did not finish (cut short, or a quick pass without its full pass) is left out of the
/// files' summary; an unfinished run of every mutant is an error.
#[test]
fn a_piece_whose_first_run_did_not_finish_is_left_out() {
    let dir = std::env::temp_dir().join(format!("collide-mutants-unfinished-{}", std::process::id()));
    let write = |piece: &str, json: &str, done: bool| {
        let out = dir.join(piece).join("mutants.out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("outcomes.json"), json).unwrap();
        if done {
            std::fs::write(dir.join(piece).join(FINISHED), "").unwrap();
        }
    };
    write("files-a", &outcomes_json(&[("1:1: m", "CaughtMutant")]), true);
    write("files-b", &outcomes_json(&[("2:1: m", "MissedMutant")]).replace("a.rs", "b.rs"), false);
    write("all", &outcomes_json(&[("3:1: m", "CaughtMutant")]), false);
    let none = dir.join("no-summary-committed.md");
    let (outcomes, _) = gather(&dir, &Piece::Files(vec!["a.rs".into()]), &none).unwrap();
    let all = gather(&dir, &Piece::All, &none);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(outcomes.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["crates/c/src/a.rs:1:1: m"]);
    assert!(all.unwrap_err().contains("did not finish"));
}

/// A summary read back stands for the same outcomes: written again from them, it has the same table and the
/// same missed mutants, so a sitting on a fresh checkout keeps what earlier ones found.
#[test]
fn a_committed_summary_read_back_gives_the_same_summary() {
    let outcomes = parse_outcomes(SAMPLE).unwrap();
    let md = summary("c", "every mutant", &outcomes, &[]);
    let back = parse_summary(&md).unwrap();
    assert_eq!(summary("c", "every mutant", &back, &[]), md);
    let missed: Vec<&str> = back.iter().filter(|o| o.kind == Kind::Missed).map(|o| o.name.as_str()).collect();
    assert_eq!(missed, ["crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0"]);
    assert_eq!(back.iter().filter(|o| o.file == "crates/c/src/read.rs").count(), 3);
}

/// A file run in this sitting replaces the committed summary's rows for it; the others are kept.
#[test]
fn a_file_run_again_replaces_the_committed_rows_and_the_others_stay() {
    let earlier = parse_summary(&summary("c", "every mutant", &parse_outcomes(SAMPLE).unwrap(), &[])).unwrap();
    let now = vec![Outcome {
        file: "crates/c/src/write.rs".into(),
        name: "crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0".into(),
        kind: Kind::Caught,
    }];
    let pieces = vec![
        (std::time::UNIX_EPOCH, EARLIER.to_owned(), earlier),
        (std::time::SystemTime::now(), "files-write".to_owned(), now),
    ];
    let (merged, source) = newest_per_file(pieces);
    assert_eq!(merged.iter().filter(|o| o.kind == Kind::Missed).count(), 0, "{merged:?}");
    assert_eq!(merged.iter().filter(|o| o.file == "crates/c/src/write.rs").count(), 1);
    assert_eq!(merged.iter().filter(|o| o.file == "crates/c/src/read.rs").count(), 3);
    assert!(
        source.contains("`the committed summary`: read.rs") && source.contains("`files-write`: write.rs"),
        "{source}"
    );
}

/// A summary whose row and list disagree, or whose counts are not numbers, is an error naming the file or line.
#[test]
fn a_summary_that_does_not_add_up_is_an_error_naming_where() {
    let md = summary("c", "every mutant", &parse_outcomes(SAMPLE).unwrap(), &[]);
    let short = md.replace("- `crates/c/src/write.rs:120:5: replace file_bytes -> u64 with 0`\n", "");
    let e = parse_summary(&short).unwrap_err();
    assert!(e.contains("crates/c/src/write.rs") && e.contains("1 missed"), "{e}");
    let garbled = md.replace("| `crates/c/src/read.rs` | 3 | 1 |", "| `crates/c/src/read.rs` | 3 | one |");
    let e = parse_summary(&garbled).unwrap_err();
    assert!(e.starts_with("line ") && e.contains("not a number"), "{e}");
}

/// On a fresh checkout (no `target/mutants/` at all) a `--file` piece's summary is the committed one's rows.
#[test]
fn a_fresh_checkout_summarises_the_committed_rows() {
    let dir = std::env::temp_dir().join(format!("collide-mutants-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let md = summary("c", "every mutant", &parse_outcomes(SAMPLE).unwrap(), &[]);
    let committed = dir.join("c.md");
    std::fs::write(&committed, &md).unwrap();
    let got = gather(&dir.join("target-mutants-c"), &Piece::Files(vec!["x.rs".into()]), &committed);
    std::fs::remove_dir_all(&dir).unwrap();
    let (outcomes, source) = got.unwrap();
    assert_eq!(outcomes.len(), 5);
    assert!(source.contains("`the committed summary`: read.rs, write.rs"), "{source}");
}
