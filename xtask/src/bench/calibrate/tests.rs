use super::*;

#[test]
fn an_unknown_calibration_scene_is_refused_with_the_valid_names() {
    let e = check_scenes(false, &["rapier-freefall".to_owned()]).unwrap_err();
    assert!(e.contains("unknown scene `rapier-freefall`"), "{e}");
    for valid in ["uniform", "resting-90", "power-law", "rapier-free-fall", "rapier-avalanche"] {
        assert!(e.contains(valid), "{valid} missing from: {e}");
    }
}

#[test]
fn chosen_scenes_are_the_named_ones_or_all() {
    let named = chosen_scenes(false, &["power-law".to_owned(), "rapier-gravity".to_owned()]).unwrap();
    let labels: Vec<&str> = named.iter().map(|s| s.label).collect();
    assert_eq!(labels, ["power-law", "rapier-gravity"]);
    assert_eq!(chosen_scenes(false, &[]).unwrap().len(), scenes(false).len());
}

#[test]
fn rapier_scenes_are_calibrated_beside_the_window_the_selector_study_judges() {
    let rapier: Vec<Scene> = scenes(false).into_iter().filter(|s| matches!(s.boxes, Boxes::Rapier { .. })).collect();
    assert_eq!(rapier.len(), selector_scenes::RAPIER.len());
    for (scene, &(name, judged_from, _)) in rapier.iter().zip(selector_scenes::RAPIER) {
        assert_eq!(scene.label, format!("rapier-{name}"));
        assert_eq!(scene.boxes, Boxes::Rapier { scene: name, judged: judged_from });
        assert!(scene.frames > BUILD_FRAMES + WINDOW, "a build and at least one window");
    }
    let judged = selector_scenes::DEFAULT_FRAMES;
    // After the judged window when the file reaches that far (the brownian bake's 401 frames)...
    assert_eq!(calibration_window(0, 32, 401), Some(judged));
    assert_eq!(calibration_window(0, 32, judged + 32), Some(judged));
    // ...else before it (the 10⁵-body free fall's 331 frames, judged from 200), never overlapping it.
    assert_eq!(calibration_window(200, 32, 331), Some(168));
    assert_eq!(calibration_window(0, 32, judged + 31), None);
}

#[test]
fn rapier_scenes_run_at_their_bakes_sizes_and_registry_scenes_on_the_ladder() {
    let all = scenes(false);
    let rapier = all.iter().find(|s| s.label == "rapier-brownian").unwrap();
    let uniform = all.iter().find(|s| s.label == "uniform").unwrap();
    let power_law = all.iter().find(|s| s.label == "power-law").unwrap();
    for n in all_sizes(false) {
        let bake = [10_000, 100_000].contains(&n);
        assert_eq!(runs_at(rapier, n, false).is_some(), bake, "rapier at {n}");
        assert!(runs_at(uniform, n, false).is_some(), "uniform runs at every size of the ladder");
        // At 10⁶ only the scenes the live study times there.
        assert_eq!(runs_at(power_law, n, false).is_some(), n < 1_000_000, "power-law at {n}");
    }
    // Quick: the rapier fixtures' 200 bodies, which no registry scene runs at.
    let quick = scenes(true);
    let rapier = quick.iter().find(|s| s.label == "rapier-brownian").unwrap();
    let uniform = quick.iter().find(|s| s.label == "uniform").unwrap();
    assert_eq!(all_sizes(true), [RAPIER_FIXTURE_BODIES, 2000, 8000]);
    assert!(runs_at(rapier, RAPIER_FIXTURE_BODIES, true).is_some());
    assert!(runs_at(rapier, 2000, true).is_none());
    assert!(runs_at(uniform, RAPIER_FIXTURE_BODIES, true).is_none());
    assert!(runs_at(uniform, 2000, true).is_some());
    // The fixture holds the whole quick run.
    let (None, Some(file), 0) = source(rapier, RAPIER_FIXTURE_BODIES, true).unwrap() else { panic!("the fixture") };
    assert_eq!(file, selector_scenes::rapier_fixture("brownian"));
    let reader = collide_aabbs::Reader::open(&file).unwrap();
    assert_eq!(reader.header().n as usize, RAPIER_FIXTURE_BODIES);
    assert!(reader.header().frames as usize >= rapier.frames);
}

#[test]
fn rows_read_back_from_a_calibration_csv_are_the_rows_written() {
    let features = Features {
        n: 10_000,
        pairs_per_body: 2.5,
        speed_mean: 0.125,
        speed_known: true,
        clustering: 1.5,
        size_spread: 2.0,
        resting: 0.25,
    };
    let rows = vec![
        Sample { scene: "rapier-gravity", n: 10_000, candidate: "kd", window: 1, features, ms: 0.75 },
        Sample { scene: "uniform", n: 10_000, candidate: "grid", window: BUILD, features, ms: 1.5 },
    ];
    let prior = Prior::builtin();
    let dir = std::env::temp_dir().join(format!("collide-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("calibrate.csv");
    std::fs::write(&path, csv(&rows, &prior)).unwrap();
    let back = read_rows(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(back.len(), 2);
    for (a, b) in rows.iter().zip(&back) {
        assert_eq!((a.scene, a.n, a.candidate, a.window, a.ms), (b.scene, b.n, b.candidate, b.window, b.ms));
        assert_eq!(a.features, b.features);
    }
}
