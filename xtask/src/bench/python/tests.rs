use super::*;

/// The script's lines become one timing per contender, in the order they first appear; a mismatch on any frame
/// marks the contender, and a malformed line is an error naming it.
#[test]
fn a_round_is_read_per_contender_and_a_mismatch_is_kept() {
    let text = "ckdtree-boxes\t5\t2.0\t10\tok\tckdtree\nckdtree-boxes\t6\t4.0\t12\tok\tckdtree\n\
                auto\t5\t0.5\t10\tok\tgrid\nauto\t6\t0.25\t11\tMISMATCH 11 pairs, the exact set has 12\tkd\n\
                auto\t7\t0.5\t11\tok\tgrid\n";
    let timings = parse_round(text, "python", 2).unwrap();
    assert_eq!(timings.len(), 2);
    assert_eq!((timings[0].contender.as_str(), timings[0].side, timings[0].round), ("ckdtree-boxes", "python", 2));
    assert_eq!(timings[0].ms, [2.0, 4.0]);
    assert_eq!(timings[0].pairs, 22);
    assert!((timings[0].mean() - 3.0).abs() < 1e-12);
    assert_eq!(timings[0].check, "ok");
    assert_eq!(timings[1].check, "MISMATCH 11 pairs, the exact set has 12");
    // What answered each frame, counted in the order first met: auto's candidates.
    assert_eq!(timings[1].active, [("grid".to_owned(), 2), ("kd".to_owned(), 1)]);
    assert_eq!(active_summary(&timings, "auto", "python"), "`grid` 2, `kd` 1");
    assert_eq!(active_summary(&timings, "auto", "rust"), "-");
    assert!(parse_round("auto\t5\t0.5\n", "python", 0).unwrap_err().contains("3 fields"));
    assert!(parse_round("auto\t5\tfast\t1\tok\tgrid\n", "rust", 0).unwrap_err().contains("bad time"));
}

/// Each figure is the median over rounds of a contender's mean on one side: an outlier round does not move it.
#[test]
fn the_figure_is_the_median_of_the_round_means() {
    let t = |side, round, ms: &[f64]| Timing {
        contender: "grid".into(),
        side,
        round,
        ms: ms.to_vec(),
        pairs: 0,
        check: "ok".into(),
        active: Vec::new(),
    };
    let timings = [t("rust", 0, &[1.0, 3.0]), t("rust", 1, &[10.0]), t("rust", 2, &[1.5, 2.5]), t("python", 0, &[7.0])];
    assert_eq!(median_mean(&timings, "grid", "rust"), Some(2.0));
    assert_eq!(median_mean(&timings, "grid", "python"), Some(7.0));
    assert_eq!(median_mean(&timings, "auto", "rust"), None);
}

/// The Rust side's child reads the file, plays each algorithm in the order given, and writes the timed frames in
/// the Python script's format: read back, they are one timing per algorithm on the `rust` side whose pair counts
/// are brute force's.
#[test]
fn a_rust_round_writes_every_timed_frame_of_each_algorithm_with_its_pairs() {
    let dir = std::env::temp_dir().join(format!("collide-rust-round-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("boxes.aabbs");
    let frames: Vec<Vec<Aabb>> = (0..4)
        .map(|f| {
            (0..60)
                .map(|i| {
                    let c = collide_algorithms::Vec3::new(
                        (i % 5) as f32 * 0.9 + f as f32 * 0.1,
                        (i / 5 % 4) as f32,
                        (i / 20) as f32,
                    );
                    Aabb::new(c - 0.5, c + 0.5)
                })
                .collect()
        })
        .collect();
    let world = Aabb::from_points(frames.iter().flatten().flat_map(|b| [b.min, b.max]));
    let mut writer = collide_aabbs::Writer::create(&file, "test", "Boxes", 60, world).unwrap();
    for frame in &frames {
        writer.write_frame(frame).unwrap();
    }
    writer.finish().unwrap();
    let out = dir.join("round.tsv");
    let args = RustRound { file, warm: 1, out: out.clone(), names: vec!["kd".into(), "grid".into()] };
    run_rust_round(&args).unwrap();
    let timings = parse_round(&std::fs::read_to_string(&out).unwrap(), "rust", 3).unwrap();
    let mut brute = collide_algorithms::build_default("brute").unwrap();
    let mut pairs = PairList::new();
    let mut expected = 0;
    for (f, frame) in frames.iter().enumerate() {
        brute.find_pairs(&Frame::new(frame).with_step(f as u64), &mut pairs);
        expected += if f >= 1 { pairs.len() as u64 } else { 0 };
    }
    assert!(expected > 0);
    assert_eq!(timings.iter().map(|t| t.contender.as_str()).collect::<Vec<_>>(), ["kd", "grid"]);
    for t in &timings {
        assert_eq!((t.side, t.round, t.ms.len(), t.pairs, t.check.as_str()), ("rust", 3, 3, expected, "ok"));
        assert_eq!(t.active, [(t.contender.clone(), 3)], "a pinned algorithm answers every frame itself");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The ratios pair each round's two sides: a round in which the whole machine ran slow moves both of its sides
/// and so neither its ratio nor the median of the ratios.
#[test]
fn a_ratio_pairs_the_sides_of_each_round() {
    let t = |contender: &str, side, round, ms: f64| Timing {
        contender: contender.into(),
        side,
        round,
        ms: vec![ms],
        pairs: 0,
        check: "ok".into(),
        active: Vec::new(),
    };
    // Rounds 1 and 2 ran on a machine twice as slow; per round Python is 1.1× Rust.
    let timings = [
        t("grid", "python", 0, 1.1),
        t("grid", "rust", 0, 1.0),
        t("grid", "python", 1, 2.2),
        t("grid", "rust", 1, 2.0),
        t("grid", "rust", 2, 2.0),
        t("grid", "python", 2, 2.2),
        t("grid", "rust", 3, 1.0),
    ];
    let ratio = median_round_ratio(&timings, ("grid", "python"), ("grid", "rust")).unwrap();
    assert!((ratio - 1.1).abs() < 1e-12, "{ratio}");
    // The ratio of the separate medians (Python's 2.2 over Rust's 2.0) is right here only because the slow rounds
    // happen to be the middle ones of both sides; a contender absent from the rounds has no ratio.
    assert_eq!(median_round_ratio(&timings, ("auto", "python"), ("grid", "rust")), None);
}
