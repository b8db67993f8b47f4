use super::*;
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    spec: Spec,
}

fn spec(algorithm: &str) -> Spec {
    Spec {
        scenario: Some("uniform".into()),
        replay: None,
        from: 0,
        bodies: 300,
        frames: 6,
        algorithm: algorithm.into(),
        check: vec![2, 5],
        frame_limit_ms: 1000.0,
        budget_s: 30.0,
        resting_fraction: 0.0,
        no_response: false,
        features: false,
    }
}

#[test]
fn a_spec_survives_its_command_line() {
    for s in [spec("auto"), Spec { scenario: None, replay: Some("x/y.aabbs".into()), from: 7, ..spec("kd") }] {
        let args = s.args();
        assert_eq!(args[0], "live-run");
        let parsed = Cli::try_parse_from(std::iter::once("xtask".to_owned()).chain(args.into_iter().skip(1))).unwrap();
        assert_eq!(parsed.spec, s);
    }
}

/// The child's work, in this process: every frame from 0 kept, the checks made, auto's log carried, and the
/// text read back equal to what was written.
#[test]
fn a_run_is_encoded_and_decoded_whole() {
    let s = spec("auto");
    let algorithm = collide_algorithms::find("auto").unwrap();
    let o = simulate(&s, "uniform", algorithm).unwrap();
    assert_eq!(o.steps.len(), 6);
    assert_eq!((o.check.as_str(), o.status.as_str()), ("brute ok (2 frames)", "ok"));
    let auto = o.auto.as_ref().expect("auto's log");
    assert_eq!(auto.totals.frames, 6);
    assert!(o.steps.iter().all(|st| st.active != "auto"), "the candidate that answered");
    assert!(auto.decisions_csv.starts_with("frame,kind"), "{}", auto.decisions_csv);
    assert_eq!(Outcome::decode(&o.encode()).unwrap(), o);
    let pinned = simulate(&s, "uniform", collide_algorithms::find("sap").unwrap()).unwrap();
    assert_eq!(pinned.hash, o.hash, "the same pairs, the same state");
    assert!(pinned.auto.is_none());
}

#[test]
fn a_limit_ends_a_run_short_and_says_why() {
    let s = Spec { frame_limit_ms: 0.0, ..spec("sap") };
    let o = simulate(&s, "uniform", collide_algorithms::find("sap").unwrap()).unwrap();
    assert_eq!(o.steps.len(), 1);
    assert!(o.status.starts_with("short: frame 0 took"), "{}", o.status);
    assert!(!o.complete());
}

#[test]
fn cut_or_foreign_output_is_an_error() {
    let o = Outcome { algorithm: "sap".into(), check: "-".into(), status: "ok".into(), ..Outcome::default() };
    let text = o.encode();
    assert!(Outcome::decode(text.trim_end_matches("end\n")).unwrap_err().contains("no `end` line"));
    assert!(Outcome::decode("hello\n").unwrap_err().contains("does not start with"));
    let bad = text.replace("status ok", "step 1.0 sap");
    assert!(Outcome::decode(&bad).unwrap_err().contains("a step has 4 fields"));
    let bad = text.replace("status ok", "totals frames=3 spent_ms=2");
    assert!(Outcome::decode(&bad).unwrap_err().contains("unknown totals key `spent_ms`"));
    let t = parse_totals("frames=3 probe_ms=1.5 sampled=2").unwrap();
    assert_eq!((t.frames, t.probe_ms, t.sampled, t.switches), (3, 1.5, 2, 0), "what is not printed stays 0");
}

/// What the calibrate study fits on, from a replayed file: every step's features, its body count, the pairs of
/// the step before (none on the first), and the file's motion hint read as the resting share.
#[test]
fn a_replay_with_features_measures_every_step() {
    let path = crate::root().join("tests/fixtures/aabbs/rapier-free-fall.aabbs");
    let s =
        Spec { scenario: None, replay: Some(path), from: 20, frames: 8, check: vec![7], features: true, ..spec("kd") };
    let o = replay(&s, collide_algorithms::find("kd").unwrap()).unwrap();
    assert_eq!((o.steps.len(), o.check.as_str()), (8, "brute ok (1 frames)"));
    let features: Vec<Features> = o.steps.iter().map(|st| st.features.expect("every step")).collect();
    assert!(features.iter().all(|f| f.n == 200));
    // The fixture's last frames are its pile asleep, bit for bit still (tests/fixtures/aabbs/README.md).
    assert!(features[1..].iter().any(|f| f.resting > 0.99), "{features:?}");
    assert!(
        features[1..].iter().zip(&o.steps).all(|(f, before)| (f.pairs_per_body * 200.0).round() as u64 == before.pairs)
    );
    let without = replay(&Spec { features: false, ..s }, collide_algorithms::find("kd").unwrap()).unwrap();
    assert!(without.steps.iter().all(|st| st.features.is_none()));
}
