use super::testing::{folder_for, write_scene};
use super::*;
use collide_algorithms::ALGORITHMS;

#[test]
fn every_algorithm_and_peer_plays_a_file_with_the_brute_force_pairs() {
    let dir = folder_for("plays");
    let path = write_scene(&dir, 400, 6);
    let budgets = Budgets::of(true);
    let scene = prepare(&path, budgets, &mut Progress::new()).unwrap();
    assert_eq!(scene.truth.iter().map(|t| t.0).collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
    assert!(scene.truth.iter().all(|t| t.1.len() > 50), "the scene has pairs to get wrong");
    let mut plays: Vec<Play> = ALGORITHMS.iter().map(|a| play_ours(&scene, a, budgets).unwrap()).collect();
    for mut peer in contenders::peers() {
        plays.push(play_peer(&scene, peer.as_mut(), budgets).unwrap());
    }
    assert_eq!(plays.len(), ALGORITHMS.len() + contenders::PEERS.len());
    for p in &plays {
        assert_eq!(p.check, "brute ok (6 frames)", "{}", p.name);
        assert_eq!((p.ms.len(), p.status.as_str()), (6, "ok"), "{}", p.name);
        let expected: Vec<u64> = scene.truth.iter().map(|t| t.1.len() as u64).collect();
        assert_eq!(p.pairs, expected, "{}", p.name);
    }
    let auto = plays.iter().find(|p| p.name == collide_selector::NAME).unwrap();
    assert!(auto.active.iter().all(|a| *a != collide_selector::NAME), "auto names the candidate that answered");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wrong_pair_set_is_a_mismatch_naming_the_frame() {
    let dir = folder_for("mismatch");
    let scene = prepare(&write_scene(&dir, 300, 3), Budgets::of(true), &mut Progress::new()).unwrap();
    let mut tally = Tally::new(&scene, "broken".into(), Budgets::of(true));
    for (frame, truth) in &scene.truth {
        let mut pairs = truth.as_slice().to_vec();
        if *frame == 1 {
            pairs.pop();
        }
        tally.frame(*frame, 0.1, &pairs, "broken");
    }
    let play = tally.finish();
    assert!(
        play.check.starts_with("MISMATCH vs brute on 1 of 3 checked frames, first frame 1: 1 missing"),
        "{}",
        play.check
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_spent_budget_or_a_slow_frame_ends_a_play_and_says_so() {
    let dir = folder_for("budget");
    let scene = prepare(&write_scene(&dir, 200, 4), Budgets::of(true), &mut Progress::new()).unwrap();
    let spent = Budgets { series: Duration::ZERO, ..Budgets::of(true) };
    let play = play_ours(&scene, collide_algorithms::find("sap").unwrap(), spent).unwrap();
    assert_eq!((play.ms.len(), play.status.as_str()), (1, "short: budget of 0 s spent at frame 0 of 4"));
    assert_eq!(play.check, "brute ok (1 frames)");
    let mut tally = Tally::new(&scene, "slow".into(), Budgets::of(true));
    assert_eq!(tally.frame(0, 1500.0, scene.truth[0].1.as_slice(), "slow"), Next::Stop);
    assert_eq!(tally.finish().status, "short: frame 0 took 1500 ms > 1000 ms limit");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_play_that_spent_half_its_budget_jumps_to_the_last_quarter() {
    let dir = folder_for("jump");
    let budgets = Budgets { jump_after: Duration::ZERO, ..Budgets::of(true) };
    let scene = prepare(&write_scene(&dir, 300, 40), budgets, &mut Progress::new()).unwrap();
    // The last quarter of 40 frames starts at 30; the jump lands JUMP_WARM frames before it.
    let expected: Vec<u64> = std::iter::once(0).chain(22..40).collect();
    let mut plays = vec![play_ours(&scene, collide_algorithms::find("sap").unwrap(), budgets).unwrap()];
    plays.push(play_peer(&scene, contenders::peers()[1].as_mut(), budgets).unwrap());
    for play in &plays {
        assert_eq!(play.frames, expected, "{}", play.name);
        assert!(play.status.ends_with("spent at frame 0, jumped to frame 22"), "{}", play.status);
        assert_eq!(play.check, "brute ok (19 frames)", "{}", play.name);
        let truth: Vec<u64> = expected.iter().map(|&f| scene.truth[f as usize].1.len() as u64).collect();
        assert_eq!(play.pairs, truth, "{}", play.name);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_last_quarter_starts_three_quarters_in() {
    assert_eq!(last_quarter_start(200), 150);
    assert_eq!(last_quarter_start(201), 151);
    assert_eq!(last_quarter_start(3), 2, "a tiny file's last frame is its last quarter");
    assert_eq!(last_quarter_start(1), 0);
}

#[test]
fn small_files_are_checked_on_every_frame_and_large_ones_on_spread_samples() {
    assert_eq!(check_frames(300, 5, 0.0), vec![0, 1, 2, 3, 4]);
    assert_eq!(check_frames(EVERY_FRAME_MAX, 3, 0.0), vec![0, 1, 2]);
    // 100k boxes: 5e9 tests a frame, so a 3e10 budget affords 6 frames, first and last included.
    assert_eq!(check_frames(100_000, 201, 3e10), vec![0, 40, 80, 120, 160, 200]);
    // Nothing affordable still checks the first and the last frame.
    assert_eq!(check_frames(100_000, 201, 0.0), vec![0, 200]);
    // A generous budget is capped, and never asks for more frames than there are.
    assert_eq!(check_frames(10_000, 1000, 1e15).len(), MAX_CHECKED);
    assert_eq!(check_frames(10_000, 10, 1e15), (0..10).collect::<Vec<_>>());
}
