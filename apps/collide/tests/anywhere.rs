//! The binary outside the checkout: run from a fresh, empty folder it finds no `configs/default.toml`, and runs
//! the copy built into it — headless, with `--replay`, and printed by `--print-default-config` to start a config
//! of one's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
fn empty_folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-anywhere-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run the built binary in `dir` with `args`.
fn collide_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collide")).args(args).current_dir(dir).output().expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The checkout's root, where `configs/default.toml` is.
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `collide --headless` in an empty folder runs the default scene — the same scene and hash as the checkout's
/// `configs/default.toml` — and exits 0.
#[test]
fn the_default_scene_runs_in_an_empty_folder() {
    let dir = empty_folder("default");
    let anywhere = stdout(&collide_in(&dir, &["--headless"]));
    let here = stdout(&collide_in(&checkout(), &["--headless", "configs/default.toml"]));
    let line = |text: &str, start: &str| text.lines().find(|l| l.starts_with(start)).map(str::to_owned);
    let heading = line(&anywhere, "collide headless: ").expect("a heading");
    assert!(heading.starts_with("collide headless: scenario uniform · 10000 bodies"), "{anywhere}");
    assert!(heading.contains("algorithm auto"), "{anywhere}");
    assert_eq!(line(&anywhere, "collide headless: "), line(&here, "collide headless: "));
    assert_eq!(line(&anywhere, "hash "), line(&here, "hash "), "the same scene, bit for bit");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--replay FILE` outside the checkout (once `configs/default.toml: cannot read config`): record a file there,
/// then play it.
#[test]
fn a_replay_plays_outside_the_checkout() {
    let dir = empty_folder("replay");
    let recorded =
        stdout(&collide_in(&dir, &["--headless", "--frames", "4", "--set", "bodies=60", "--record", "run.aabbs"]));
    assert!(recorded.contains("recorded 4 frames of 60 boxes to run.aabbs"), "{recorded}");
    let played = stdout(&collide_in(&dir, &["--headless", "--replay", "run.aabbs", "--set", "algorithm=sap"]));
    assert!(played.contains("collide headless: replay run.aabbs"), "{played}");
    assert!(played.contains("4 frames replayed from run.aabbs"), "{played}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--print-default-config` prints `configs/default.toml` as it is, and the printed file runs as a config of its
/// own; `--help` tells of it.
#[test]
fn the_printed_default_config_starts_a_config_of_ones_own() {
    let dir = empty_folder("print");
    let printed = stdout(&collide_in(&dir, &["--print-default-config"]));
    let file = std::fs::read_to_string(checkout().join("configs/default.toml")).unwrap();
    assert_eq!(printed, file);
    std::fs::write(dir.join("mine.toml"), printed).unwrap();
    let run = stdout(&collide_in(&dir, &["--headless", "mine.toml", "--frames", "2", "--set", "bodies=100"]));
    assert!(run.contains("collide headless: scenario uniform · 100 bodies"), "{run}");
    let help = stdout(&collide_in(&dir, &["--help"]));
    assert!(help.contains("--print-default-config"), "{help}");
    let both = collide_in(&dir, &["--print-default-config", "--headless"]);
    assert_eq!(both.status.code(), Some(2), "the flag stands alone");
    let _ = std::fs::remove_dir_all(&dir);
}
