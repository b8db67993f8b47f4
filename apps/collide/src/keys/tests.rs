//! The key table against README.md's copy, and each key against what it does.

use super::*;
use crate::app::App;
use crate::settings::{CameraMode, Settings};
use collide_sim::{Config, Plan};

/// The rows of README.md's key table (the table under the `| key | action |` header), as (keys, action).
fn readme_rows() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let mut lines = readme.lines().skip_while(|l| l.trim() != "| key | action |").skip(2);
    let mut rows = Vec::new();
    for line in lines.by_ref().take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 2, "a README key row has two cells: {line}");
        rows.push((cells[0].to_owned(), cells[1].to_owned()));
    }
    rows
}

#[test]
fn the_readme_key_table_is_the_key_table() {
    let readme = readme_rows();
    let table: Vec<(String, String)> = KEYS.iter().map(|r| (r.keys.to_owned(), r.action.to_owned())).collect();
    assert!(!readme.is_empty(), "README.md has a `| key | action |` table");
    for (i, (ours, theirs)) in table.iter().zip(&readme).enumerate() {
        assert_eq!(ours, theirs, "row {i}: keys.rs on the left, README.md on the right");
    }
    assert_eq!(table.len(), readme.len(), "keys.rs has {} rows, README.md {}", table.len(), readme.len());
}

/// Each physical key is bound in one row (with or without Ctrl), and every row but the mouse's binds a key.
#[test]
fn every_key_is_bound_once() {
    let mut seen: Vec<(KeyCode, bool)> = Vec::new();
    for row in KEYS {
        assert!(!row.bindings.is_empty() || row.keys.contains("click"), "{}: no key", row.keys);
        for (code, binding) in row.bindings {
            let ctrl = matches!(binding, CtrlPress(_));
            assert!(!seen.contains(&(*code, ctrl)), "{code:?} is bound twice");
            seen.push((*code, ctrl));
        }
    }
}

/// A movement key sets its flag while held and clears it on release; it queues nothing.
#[test]
fn held_keys_move_while_down() {
    let mut input = MoveInput::default();
    assert!(key(KeyCode::KeyW, true, false, &mut input).is_none());
    assert!(input.forward && !input.back);
    key(KeyCode::ControlRight, true, false, &mut input);
    assert!(input.down);
    key(KeyCode::KeyW, false, false, &mut input);
    key(KeyCode::ControlRight, false, false, &mut input);
    assert!(!input.forward && !input.down);
    assert!(key(KeyCode::KeyZ, true, false, &mut input).is_none(), "an unbound key does nothing");
}

fn app() -> App {
    let config = Config { bodies: Some(50), algorithm: "octree-dup".into(), ..Config::default() };
    App::new(Plan::new(config).unwrap(), "test.toml".into(), Settings::default()).unwrap()
}

/// Press `code` (with `ctrl`) and apply what it queued, as the window does at the end of the frame. Returns what
/// the window itself must carry out.
fn press(app: &mut App, code: KeyCode, ctrl: bool) -> Vec<WindowCommand> {
    let command = key(code, true, ctrl, &mut app.input);
    key(code, false, ctrl, &mut app.input);
    app.commands.extend(command);
    app.apply_commands()
}

/// C, B, V and F1–F4 flip their settings through commands, and a second press flips them back; P pauses and
/// resumes; Q quits only with Ctrl.
#[test]
fn keys_flip_their_settings_through_commands() {
    let mut app = app();
    let before = app.settings.clone();
    let flipped = |s: &Settings| {
        (s.camera, s.debug_view("octree-dup"), s.render, s.show_help, s.show_controls, s.show_stats, s.show_profiler)
    };
    let codes = [KeyCode::KeyC, KeyCode::KeyB, KeyCode::KeyV, KeyCode::F1, KeyCode::F2, KeyCode::F3, KeyCode::F4];
    for code in codes {
        assert!(press(&mut app, code, false).is_empty(), "{code:?} is the app's to apply");
    }
    let (a, b) = (flipped(&before), flipped(&app.settings));
    assert_ne!(a.0, b.0, "C");
    assert_eq!(b.0, if before.camera == CameraMode::Orbit { CameraMode::FirstPerson } else { CameraMode::Orbit });
    assert_ne!(a.1, b.1, "B");
    assert_ne!(a.2, b.2, "V");
    assert_ne!(a.3, b.3, "F1");
    assert_ne!(a.4, b.4, "F2");
    assert_ne!(a.5, b.5, "F3");
    assert_ne!(a.6, b.6, "F4");
    for code in codes {
        press(&mut app, code, false);
    }
    assert_eq!(flipped(&app.settings), a, "a second press flips each back");

    assert!(!app.world.run().clock().paused);
    press(&mut app, KeyCode::KeyP, false);
    assert!(app.world.run().clock().paused);
    press(&mut app, KeyCode::KeyP, false);
    assert!(!app.world.run().clock().paused);

    assert!(press(&mut app, KeyCode::KeyQ, false).is_empty(), "Q alone does nothing");
    assert_eq!(press(&mut app, KeyCode::KeyQ, true), [WindowCommand::Quit]);
    assert_eq!(press(&mut app, KeyCode::Escape, false), [WindowCommand::CaptureMouse(false)]);
}
