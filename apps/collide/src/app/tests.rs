//! The app's recorder and replay player, driven through commands as the keys and buttons drive them (no
//! window: [`App`] is the state apart from the window and the GPU).

use super::*;
use crate::drawing::{ContactRuns, OBSTACLE_COLOR};
use collide_aabbs::{Reader, Writer};
use collide_broadphase::{PairList, reference_pairs};
use glam::Vec3;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-app-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn app(config: Config) -> App {
    App::new(Plan::new(config).unwrap(), "test.toml".into(), Settings::default()).unwrap()
}

fn sim_config(scenario: &str, bodies: usize) -> Config {
    Config { scenario: scenario.into(), bodies: Some(bodies), algorithm: "sap".into(), ..Config::default() }
}

fn replay_config(file: &Path) -> Config {
    Config { replay: Some(file.display().to_string()), algorithm: "octree-dup".into(), ..Config::default() }
}

fn run(app: &mut App, command: Command) {
    app.commands.push(command);
    assert!(app.apply_commands().is_empty());
}

fn status(app: &App) -> (String, Severity) {
    let s = app.status.as_ref().expect("a status line");
    (s.text.clone(), s.severity)
}

/// Every frame of `file`.
fn frames_of(file: &Path) -> Vec<Vec<Aabb>> {
    let mut reader = Reader::open(file).unwrap();
    let mut frames = Vec::new();
    let mut boxes = Vec::new();
    while reader.read_frame(&mut boxes).unwrap() {
        frames.push(boxes.clone());
    }
    frames
}

fn bits(boxes: &[Aabb]) -> Vec<[u32; 6]> {
    boxes
        .iter()
        .map(|b| {
            let (l, h) = (b.min.to_array().map(f32::to_bits), b.max.to_array().map(f32::to_bits));
            [l[0], l[1], l[2], h[0], h[1], h[2]]
        })
        .collect()
}

#[test]
fn the_window_records_every_step_and_keeps_the_file_when_stopped() {
    let dir = scratch("record");
    let mut app = app(sim_config("uniform", 300));
    app.record_path = dir.join("flight.aabbs").display().to_string();
    run(&mut app, Command::ToggleRecording);
    assert_eq!(status(&app).1, Severity::Info, "{}", status(&app).0);
    let mut seen = Vec::new();
    for _ in 0..6 {
        // The default policy is fixed: one step per frame.
        app.update(1.0 / 60.0, 1.0);
        seen.push(app.world.sim().unwrap().aabbs().to_vec());
    }
    assert_eq!(app.recorder.as_ref().map(Recorder::frames), Some(6));
    run(&mut app, Command::ToggleRecording);
    assert!(app.recorder.is_none());
    let (text, severity) = status(&app);
    assert_eq!(severity, Severity::Info, "{text}");
    assert!(text.starts_with("recorded 6 frames of 300 boxes to "), "{text}");
    let recorded = frames_of(&dir.join("flight.aabbs"));
    assert_eq!(recorded.len(), 6);
    for (r, s) in recorded.iter().zip(&seen) {
        assert_eq!(bits(r), bits(s), "the file holds the steps' boxes bit for bit");
    }
}

#[test]
fn a_scene_change_ends_the_recording_and_keeps_what_it_recorded() {
    let dir = scratch("scene-change");
    let mut app = app(sim_config("uniform", 200));
    app.record_path = dir.join("cut.aabbs").display().to_string();
    run(&mut app, Command::ToggleRecording);
    for _ in 0..3 {
        app.update(1.0 / 60.0, 1.0);
    }
    run(&mut app, Command::SetConfig(Box::new(sim_config("uniform", 400))));
    assert!(app.recorder.is_none());
    let (text, _) = status(&app);
    assert!(text.starts_with("recorded 3 frames of 200 boxes"), "{text}");
    assert_eq!(frames_of(&dir.join("cut.aabbs")).len(), 3);
}

#[test]
fn a_scene_whose_body_count_grows_is_not_recorded() {
    let dir = scratch("grows");
    let mut app = app(sim_config("tour", 300));
    app.record_path = dir.join("never.aabbs").display().to_string();
    run(&mut app, Command::ToggleRecording);
    assert!(app.recorder.is_none());
    let (text, severity) = status(&app);
    assert_eq!(severity, Severity::Error);
    assert!(text.contains("cannot record `tour`") && text.contains("fixed count"), "{text}");
    assert!(!dir.join("never.aabbs").exists() && !dir.join("never.aabbs.partial").exists());
}

/// A file of `frames` frames of boxes drifting along x at different speeds, so pairs form and part.
fn drifting(path: &Path, frames: usize) -> Vec<Vec<Aabb>> {
    let world = Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0));
    let mut writer = Writer::create(path, "drift", "Cubes", 40, world).unwrap();
    let mut all = Vec::new();
    for f in 0..frames {
        let boxes: Vec<Aabb> = (0..40)
            .map(|i| {
                let x = -8.0 + (i % 8) as f32 * 1.4 + f as f32 * 0.15 * (i % 3) as f32;
                let c = Vec3::new(x.min(9.0), (i / 8) as f32 * 1.5 - 4.0, 0.0);
                Aabb::new(c - 0.6, c + 0.6)
            })
            .collect();
        writer.write_frame(&boxes).unwrap();
        all.push(boxes);
    }
    writer.finish().unwrap();
    all
}

#[test]
fn a_replay_plays_scrubs_and_loops_frame_by_frame_in_the_window() {
    let dir = scratch("replay");
    let file = dir.join("drift.aabbs");
    let frames = drifting(&file, 5);
    let mut app = app(replay_config(&file));
    let shown = |app: &App| app.world.player().unwrap().shown();
    // Opening shows the first frame; each drawn frame plays the next one.
    assert_eq!(shown(&app), 0);
    app.update(1.0 / 60.0, 1.0);
    assert_eq!(shown(&app), 1);
    run(&mut app, Command::Seek(3));
    assert_eq!(shown(&app), 3);
    assert_eq!(bits(app.world.player().unwrap().replay().aabbs()), bits(&frames[3]));
    // The scrub clamps to the file.
    run(&mut app, Command::Seek(99));
    assert_eq!(shown(&app), 4);
    // Looping (the default): after the last frame comes the first.
    app.update(1.0 / 60.0, 1.0);
    assert_eq!(shown(&app), 0);
    // Not looping: the replay pauses on the last frame.
    app.settings.loop_replay = false;
    run(&mut app, Command::Seek(4));
    app.update(1.0 / 60.0, 1.0);
    assert_eq!(shown(&app), 4);
    assert!(app.world.run().clock().paused);
    // Paused, N plays exactly one frame; R goes back to the first.
    run(&mut app, Command::Seek(1));
    run(&mut app, Command::SingleStep);
    app.update(1.0 / 60.0, 1.0);
    app.update(1.0 / 60.0, 1.0);
    assert_eq!(shown(&app), 2);
    run(&mut app, Command::Respawn);
    assert_eq!(shown(&app), 0);
}

#[test]
fn a_replayed_frame_is_drawn_as_its_boxes_with_brute_forces_pairs_flashing() {
    let dir = scratch("draw");
    let file = dir.join("drift.aabbs");
    let frames = drifting(&file, 4);
    let mut app = app(replay_config(&file));
    run(&mut app, Command::Seek(2));
    app.build_scene();
    assert!(app.drawing.scene.spheres.is_empty());
    assert_eq!(app.drawing.scene.boxes.len(), 40);
    let mut pairs = PairList::new();
    reference_pairs(&frames[2], &mut pairs);
    assert!(!pairs.is_empty(), "the fixture has overlapping boxes");
    let mut touching = [false; 40];
    for p in &pairs {
        touching[p.a as usize] = true;
        touching[p.b as usize] = true;
    }
    for (i, (drawn, b)) in app.drawing.scene.boxes.iter().zip(&frames[2]).enumerate() {
        assert_eq!(drawn.center, b.center().to_array(), "box {i}");
        assert_eq!(drawn.half_extents, (b.extents() * 0.5).to_array(), "box {i}");
        assert_eq!(drawn.flash > 0.0, touching[i], "box {i}: flashes exactly when brute force pairs it");
    }
    assert_eq!(app.colliding_bodies(), touching.iter().filter(|&&t| t).count());
}

#[test]
fn a_bad_replay_file_is_one_line_and_the_running_scene_stays() {
    let dir = scratch("bad");
    let file = dir.join("short.aabbs");
    drifting(&file, 3);
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 7]).unwrap();
    let mut app = app(sim_config("uniform", 100));
    run(&mut app, Command::SetConfig(Box::new(replay_config(&file))));
    let (text, severity) = status(&app);
    assert_eq!(severity, Severity::Error);
    assert!(text.contains("short.aabbs") && !text.contains('\n'), "{text}");
    assert!(app.world.sim().is_some(), "the simulation still runs");
    assert_eq!(app.edit.scenario, "uniform", "the editor is back in step with the running config");
}

#[test]
fn switching_between_a_replay_and_a_simulation_and_the_algorithm_live() {
    let dir = scratch("switch");
    let file = dir.join("drift.aabbs");
    drifting(&file, 3);
    let mut app = app(sim_config("uniform", 100));
    run(&mut app, Command::SetConfig(Box::new(replay_config(&file))));
    assert!(app.world.player().is_some(), "{:?}", app.status.as_ref().map(|s| &s.text));
    assert_eq!(app.container(), Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0)), "the recorded world box");
    let mut pinned = replay_config(&file);
    pinned.algorithm = "sap".into();
    run(&mut app, Command::SetConfig(Box::new(pinned)));
    assert_eq!(app.world.run().algorithm().0.name, "sap");
    app.update(1.0 / 60.0, 1.0);
    assert_eq!(app.last.algorithm, "sap");
    run(&mut app, Command::SetConfig(Box::new(sim_config("uniform", 100))));
    assert!(app.world.sim().is_some());
}

#[test]
fn closing_the_window_keeps_a_recording_under_way() {
    let dir = scratch("close");
    let mut app = app(sim_config("uniform", 100));
    assert_eq!(app.finish_recording(), None, "nothing to keep");
    app.record_path = dir.join("open.aabbs").display().to_string();
    run(&mut app, Command::ToggleRecording);
    for _ in 0..2 {
        app.update(1.0 / 60.0, 1.0);
    }
    let text = app.finish_recording().expect("the recording is kept");
    assert!(text.starts_with("recorded 2 frames of 100 boxes"), "{text}");
    assert_eq!(frames_of(&dir.join("open.aabbs")).len(), 2);
    assert!(!dir.join("open.aabbs.partial").exists());
}

/// The `tunnel`'s wall is drawn: its outline in the obstacle colour, cut to the container (the wall reaches as far
/// again beyond it), lying in its mid-plane x = 0. A scene without obstacles draws no such line.
#[test]
fn the_tunnels_wall_is_drawn_inside_the_container() {
    let mut plain = app(sim_config("uniform", 64));
    let mut tunnel = app(sim_config("tunnel", 64));
    tunnel.build_scene();
    let wall: Vec<Vec3> = tunnel
        .drawing
        .scene
        .lines
        .iter()
        .filter(|v| v.color == OBSTACLE_COLOR)
        .map(|v| Vec3::from(v.position))
        .collect();
    assert_eq!(wall.len(), 2 * (12 + 2), "twelve edges and two diagonals");
    let container = tunnel.container();
    let thickness = wall.iter().map(|p| p.x.abs()).fold(0.0_f32, f32::max);
    assert!(thickness < 0.01, "in the plane x = 0, a thin wall: {thickness}");
    for p in &wall {
        assert!(container.expanded(1e-4).contains_point(*p), "{p} outside the container {container:?}");
    }
    let span = wall.iter().map(|p| p.y).fold(f32::MIN, f32::max) - wall.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!((span - container.extents().y).abs() < 1e-4, "across the whole container: {span}");
    plain.build_scene();
    assert!(plain.drawing.scene.lines.iter().all(|v| v.color != OBSTACLE_COLOR));
}

/// A body in contact every step (resting on the floor) flashes when the contact begins and fades to its colour; a
/// body hit once flashes at the hit and fades; one that never touches never flashes; a resting body that bounces
/// off and lands again flashes again at the landing.
#[test]
fn a_contact_flashes_when_it_begins_and_resting_bodies_fade() {
    let mut runs = ContactRuns::default();
    let mut last = [u64::MAX; 3];
    let fade = 30.0;
    for step in 0..100_u64 {
        last[0] = if (60..70).contains(&step) { last[0] } else { step }; // resting, in the air for 60..70
        if step == 10 {
            last[1] = step;
        }
        runs.update(&last, &[0, 1, 2], step);
        match step {
            0 => assert_eq!(runs.flash(0, step, fade), 1.0, "the first contact"),
            10 => assert_eq!((runs.flash(0, step, fade), runs.flash(1, step, fade)), (1.0 - 10.0 / 30.0, 1.0)),
            25 => assert_eq!(runs.flash(1, step, fade), 0.5, "half faded after 15 of 30 steps"),
            40..60 => assert_eq!(runs.flash(0, step, fade), 0.0, "resting: faded, though in contact every step"),
            70 => assert_eq!(runs.flash(0, step, fade), 1.0, "landing again"),
            _ => {}
        }
        assert_eq!(runs.flash(2, step, fade), 0.0);
    }
    // Paused: the same steps again change nothing.
    let before = runs.flash(0, 99, fade);
    runs.update(&last, &[0, 1, 2], 99);
    assert_eq!(runs.flash(0, 99, fade), before);
}

/// A spatial reorder moves bodies between indices: the flash follows the body's id, not its index.
#[test]
fn a_flash_follows_its_body_through_a_reorder() {
    let mut runs = ContactRuns::default();
    let fade = 30.0;
    // Body 1 is hit at step 10; nobody else touches anything.
    runs.update(&[u64::MAX, 10, u64::MAX], &[0, 1, 2], 10);
    assert_eq!(runs.flash(1, 10, fade), 1.0);
    // Step 11: the bodies were reordered, body 1 is at index 2 now (ids by index: 2, 0, 1); no new contact.
    runs.update(&[u64::MAX, u64::MAX, 10], &[2, 0, 1], 11);
    assert_eq!(runs.flash(1, 11, fade), 1.0 - 1.0 / 30.0, "still body 1's flash, fading");
    assert_eq!((runs.flash(0, 11, fade), runs.flash(2, 11, fade)), (0.0, 0.0), "nobody else flashes");
}

/// The Frame panel's `tunnelled` is the run's total, kept across frames although the app keeps only the last
/// record; a respawn starts it again.
#[test]
fn the_run_s_tunnelled_total_survives_the_cleared_records_and_a_respawn_resets_it() {
    let mut tunnel = app(Config { ccd: false, ..sim_config("tunnel", 64) });
    let dt = tunnel.world.run().clock().nominal_dt();
    let mut last_frames = 0;
    for _ in 0..120 {
        tunnel.update(dt, 16.0 / 9.0);
        last_frames = last_frames.max(tunnel.world.run().records().len());
    }
    assert!(last_frames <= 1, "the records are cleared every frame");
    assert!(tunnel.tunnelled > 0, "without ccd the thin wall lets bodies through");
    run(&mut tunnel, Command::Respawn);
    assert_eq!(tunnel.tunnelled, 0);
}
