use super::*;

#[test]
fn a_full_run_holds_every_free_scenario_the_whole_tour_the_million_and_the_rapier_scenes() {
    let all = plan(&Ask::default()).unwrap();
    let free = free_scenarios();
    assert!(free.contains(&"tour") && !free.contains(&"two-balls"));
    for n in [10_000, 100_000] {
        for name in &free {
            let s = all.iter().find(|s| s.name == *name && s.n == n).unwrap();
            assert_eq!((s.frames, s.target), (DEFAULT_FRAMES, Target::Mean(1.15)), "{name}");
        }
        let rapier: Vec<&str> =
            all.iter().filter(|s| s.n == n && s.name.starts_with("rapier-")).map(|s| s.name.as_str()).collect();
        assert_eq!(rapier, ["rapier-free-fall", "rapier-brownian", "rapier-gravity", "rapier-avalanche"]);
    }
    let million: Vec<&str> = all.iter().filter(|s| s.n == 1_000_000).map(|s| s.name.as_str()).collect();
    assert_eq!(million, MILLION);
    let tour = all.iter().find(|s| s.name == TOUR_FULL).unwrap();
    assert_eq!((tour.n, tour.frames, tour.source.clone()), (100_000, 2100, Source::Scenario("tour")));
    assert!(all.iter().all(|s| s.n > 10_000 || s.checks == [s.frames - 1]), "the last frame checked at 10k");
    assert!(all.iter().all(|s| s.n <= 10_000 || s.checks.is_empty()), "nothing checked above 10k");
}

#[test]
fn filters_pick_scenes_and_sizes_and_name_the_valid_ones() {
    let ask = |names: &[&str], bodies: &[usize]| Ask {
        names: names.iter().map(|s| (*s).to_owned()).collect(),
        bodies: bodies.to_vec(),
        frames: Some(50),
        ..Ask::default()
    };
    let picked = plan(&ask(&["uniform", "rapier-brownian"], &[10_000])).unwrap();
    let got: Vec<(String, usize, u64)> = picked.iter().map(|s| (s.name.clone(), s.n, s.frames)).collect();
    assert_eq!(got, [("uniform".into(), 10_000, 50), ("rapier-brownian".into(), 10_000, 50)]);
    let e = plan(&ask(&["unifrom"], &[])).unwrap_err();
    assert!(e.starts_with("--selector-scenes: unknown scene `unifrom`; valid scenes: cluster"), "{e}");
    let e = plan(&ask(&[], &[5000])).unwrap_err();
    assert_eq!(e, "--selector-bodies: no scene has 5000 bodies in this mode; sizes: 10000, 100000, 1000000");
    assert!(plan(&ask(&["rain"], &[1_000_000])).unwrap_err().contains("no scene has both"));
    let none = Ask { frames: Some(0), ..Ask::default() };
    assert_eq!(plan(&none).unwrap_err(), "--frames 0: a scene needs at least one frame");
    let no_rounds = Ask { rounds: Some(0), ..Ask::default() };
    assert_eq!(plan(&no_rounds).unwrap_err(), "--rounds 0: a scene needs at least one round");
}

#[test]
fn scenes_of_ten_and_a_hundred_thousand_run_three_rounds_the_tour_and_a_million_one() {
    let full = plan(&Ask::default()).unwrap();
    for s in &full {
        let expected = if s.n <= 100_000 && s.name != TOUR_FULL { DEFAULT_ROUNDS } else { 1 };
        assert_eq!(s.rounds, expected, "{}", s.label());
    }
    assert!(full.iter().any(|s| s.n == 1_000_000) && full.iter().any(|s| s.rounds == 3));
    let five = plan(&Ask { rounds: Some(5), bodies: vec![10_000], ..Ask::default() }).unwrap();
    assert!(five.iter().all(|s| s.rounds == 5));
    assert!(plan(&Ask { quick: true, ..Ask::default() }).unwrap().iter().all(|s| s.rounds == 1));
}

#[test]
fn quick_runs_small_scenes_a_short_tour_and_the_fixtures() {
    let all = plan(&Ask { quick: true, ..Ask::default() }).unwrap();
    assert!(all.iter().filter(|s| matches!(s.source, Source::Scenario(_))).all(|s| s.n == QUICK_N));
    let tour = all.iter().find(|s| s.name == TOUR_FULL).unwrap();
    assert_eq!(tour.frames, 600);
    assert_eq!(tour.checks, [150, 450, 599]);
    let fixture = all.iter().find(|s| s.name == "rapier-free-fall").unwrap();
    assert_eq!((fixture.n, fixture.frames), (200, 30));
    assert_eq!(fixture.checks.len(), 30, "a fixture is checked on every frame");
}

#[test]
fn a_window_past_the_file_moves_back_to_its_end() {
    let path = rapier_fixture("gravity");
    let mut scenes = vec![Scene {
        name: "rapier-gravity".into(),
        source: Source::Replay { path: path.clone(), from: 25 },
        n: 200,
        frames: 10,
        target: Target::Mean(1.15),
        checks: vec![9],
        window: String::new(),
        rounds: 1,
    }];
    prepare(&mut scenes).unwrap();
    assert_eq!(scenes[0].source, Source::Replay { path, from: 20 });
    assert!(scenes[0].window.contains("moved back"), "{}", scenes[0].window);
    scenes[0].n = 300;
    assert!(prepare(&mut scenes).unwrap_err().contains("200 boxes, the scene wants 300"));
}
