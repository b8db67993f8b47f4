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
    let text = summary("c", "every mutant", &parse_outcomes(SAMPLE).unwrap());
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
    let text = summary("c", "every mutant", &[unviable]);
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
