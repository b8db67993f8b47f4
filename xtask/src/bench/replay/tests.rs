use super::*;
use crate::bench::replay_play::testing::{folder_for, write_scene};

#[test]
fn a_bad_file_in_the_folder_is_one_line_naming_it() {
    let dir = folder_for("bad");
    let path = write_scene(&dir, 100, 2);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 10).unwrap();
    let e = scenes(Some(&dir), false, true).unwrap_err();
    assert!(e.starts_with(&path.display().to_string()) && e.contains("truncated") && !e.contains('\n'), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_or_empty_folder_is_one_line_naming_it() {
    let missing = std::env::temp_dir().join("collide-replay-bench-no-such-folder");
    let e = scenes(Some(&missing), false, true).unwrap_err();
    assert!(e.starts_with("--scenes ") && e.contains("no-such-folder") && !e.contains('\n'), "{e}");
    let empty = std::env::temp_dir().join(format!("collide-replay-bench-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let e = scenes(Some(&empty), true, true).unwrap_err();
    assert!(e.ends_with("no .aabbs files in this folder"), "{e}");
    std::fs::remove_dir_all(&empty).unwrap();
}

/// A play of `ms` per frame (the first frame, cold, is left out of its mean), its check `check`.
fn play(name: &str, ms: &[f64], check: &str) -> Play {
    let mut p = Play::skipped(name, "ok".into());
    p.frames = (0..ms.len() as u64).collect();
    p.ms = ms.to_vec();
    p.check = check.into();
    p
}

#[test]
fn of_several_rounds_each_frame_is_the_median_round_and_a_mismatch_is_never_hidden() {
    // The first frame does not count in the play chosen: its 50 ms would make the first play the slowest. Each
    // frame's time is the median of its three: a stretch one round ran slow (frame 2 of "b") is dropped.
    let plays = vec![
        play("a", &[50.0, 1.0, 1.0], "brute ok (3 frames)"),
        play("b", &[1.0, 3.0, 9.0], "brute ok (3 frames)"),
        play("c", &[2.0, 2.0, 2.0], "brute ok (3 frames)"),
    ];
    let median = median_play(plays);
    assert_eq!((median.name.as_str(), median.ms.as_slice()), ("c", &[2.0, 2.0, 2.0][..]));
    // Of two, the faster play, and each frame the faster time.
    let plays = vec![play("slow", &[1.0, 4.0], "-"), play("fast", &[3.0, 2.0], "-")];
    let median = median_play(plays);
    assert_eq!((median.name.as_str(), median.ms.as_slice()), ("fast", &[1.0, 2.0][..]));
    // Rounds that played different frames (a budget cut one short): the median play's own times.
    let mut short = play("short", &[1.0, 5.0], "-");
    short.frames = vec![0, 7];
    let plays = vec![play("x", &[1.0, 1.0], "-"), short, play("y", &[1.0, 9.0], "-")];
    let median = median_play(plays);
    assert_eq!((median.name.as_str(), median.ms.as_slice()), ("short", &[1.0, 5.0][..]));
    // One round alone is itself.
    assert_eq!(median_play(vec![play("only", &[9.0], "-")]).name, "only");
    // A round whose pairs did not match brute force is the one reported, whatever its time.
    let plays = vec![
        play("fine", &[1.0, 2.0], "brute ok (2 frames)"),
        play("wrong", &[1.0, 9.0], "MISMATCH vs brute on 1 of 2 checked frames, first frame 1: …"),
        play("fine too", &[1.0, 3.0], "brute ok (2 frames)"),
    ];
    assert_eq!(median_play(plays).name, "wrong");
}
