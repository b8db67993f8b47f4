//! The app's command line without a display: config errors come before any window (exit code 2, one line, no
//! panic), and `--screenshot` writes a PNG of the scene.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn collide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collide"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        // No display: the window must never be reached for these.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run collide")
}

/// A screenshot run found no graphics adapter on a developer's machine, where that is allowed: the caller returns.
/// Under CI (or `COLLIDE_REQUIRE_GPU`) a missing adapter fails here, as any other failure of the run does.
fn no_adapter_here(out: &Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let required = std::env::var_os("CI").is_some() || std::env::var_os("COLLIDE_REQUIRE_GPU").is_some();
    if out.status.code() == Some(1) && stderr.contains("no graphics adapter") && !required {
        eprintln!("skipping: {stderr}");
        return true;
    }
    assert!(out.status.success(), "{stderr}");
    false
}

/// Pixels with a colour (the background is near black and the container grey): the bodies.
fn coloured_pixels(image: &collide_render::Image) -> usize {
    image.pixels.chunks_exact(4).filter(|p| p[..3].iter().max().unwrap() - p[..3].iter().min().unwrap() > 30).count()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("collide-cli-{}-{name}", std::process::id()))
}

#[test]
fn a_missing_config_is_one_line_and_exit_code_2_before_any_window() {
    let out = collide(&["configs/no-such-scene.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: configs/no-such-scene.toml: cannot read config"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_bad_config_names_its_line_in_the_window_mode_and_the_screenshot_mode() {
    let path = temp("bad.toml");
    std::fs::write(&path, "scenario = \"uniform\"\nbodies = 0\n").unwrap();
    let p = path.to_str().unwrap();
    for args in [vec![p], vec!["--screenshot", "/tmp/never.png", p]] {
        let out = collide(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("{p}:2: bodies = 0")), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let _ = std::fs::remove_file(&path);
    assert!(!Path::new("/tmp/never.png").exists());
}

#[test]
fn screenshot_writes_the_scene_off_screen() {
    let png = temp("two-balls.png");
    let out = collide(&[
        "--screenshot",
        png.to_str().unwrap(),
        "configs/two-balls.toml",
        "--frames",
        "10",
        "--size",
        "320x180",
    ]);
    if no_adapter_here(&out) {
        return;
    }
    let image = collide_render::Image::load_png(&png).unwrap();
    let _ = std::fs::remove_file(&png);
    assert_eq!((image.width, image.height), (320, 180));
    // The balls are the only coloured things (the background is near black, the container grey).
    let coloured = coloured_pixels(&image);
    assert!(coloured > 20, "only {coloured} coloured pixels: are the bodies drawn?");
}

#[test]
fn screenshot_draws_a_replay_as_its_boxes() {
    let file = temp("shot.aabbs");
    let recorded = collide(&[
        "--headless",
        "configs/default.toml",
        "--set",
        "scenario=uniform",
        "--set",
        "bodies=300",
        "--frames",
        "4",
        "--record",
        file.to_str().unwrap(),
    ]);
    assert!(recorded.status.success(), "{}", String::from_utf8_lossy(&recorded.stderr));
    let png = temp("replay.png");
    let out = collide(&[
        "--screenshot",
        png.to_str().unwrap(),
        "configs/default.toml",
        "--replay",
        file.to_str().unwrap(),
        "--frames",
        "3",
        "--size",
        "320x180",
    ]);
    let _ = std::fs::remove_file(&file);
    if no_adapter_here(&out) {
        return;
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("300 bodies"), "{}", String::from_utf8_lossy(&out.stdout));
    let image = collide_render::Image::load_png(&png).unwrap();
    let _ = std::fs::remove_file(&png);
    let coloured = coloured_pixels(&image);
    assert!(coloured > 20, "only {coloured} coloured pixels: are the boxes drawn?");
}
