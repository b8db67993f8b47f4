//! The egui panels: controls, statistics, help and the profiler. They read the [`App`] and queue
//! [`Command`]s; the only state they change directly is the config being edited and the view settings.

use crate::app::{App, Command, Severity, WindowCommand};
use crate::keys::KEYS;
use crate::settings::CameraMode;
use collide_broadphase::{ParamKind, ParamSpec};
use collide_sim::{Config, ParamEntry, Phase, PolicyName, SCENARIOS};
use egui::{Align2, Color32, RichText, Ui};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A widget's edit is final: released after a drag, or changed by typing or clicking. Respawning a million
/// bodies on every pixel of a slider drag would make the slider unusable.
fn committed(r: &egui::Response) -> bool {
    r.drag_stopped() || (r.changed() && !r.dragged())
}

/// Draw every panel for this frame.
pub fn draw(ctx: &egui::Context, app: &mut App, profiler: &mut puffin_egui::GlobalProfilerUi) {
    puffin::profile_function!();
    if app.settings.show_controls {
        egui::SidePanel::left("controls").default_width(300.0).resizable(true).show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| controls(ui, app));
        });
    }
    // The statistics are docked on the right, beside the scene rather than over it; each part folds away.
    if app.settings.show_stats {
        egui::SidePanel::right("stats").default_width(400.0).resizable(true).show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| stats(ui, app));
        });
    }
    // What the side panels left: the 3D view.
    let view = ctx.available_rect();
    if app.settings.show_help {
        let mut open = true;
        egui::Window::new("Keys").open(&mut open).anchor(Align2::CENTER_CENTER, [0.0, 0.0]).collapsible(false).show(
            ctx,
            |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for row in KEYS {
                        ui.label(RichText::new(row.keys).strong().monospace());
                        ui.label(row.action);
                        ui.end_row();
                    }
                });
            },
        );
        app.settings.show_help = open;
    }
    if app.settings.show_profiler {
        app.settings.show_profiler = profiler.window(ctx);
    }
    if let Some(status) = app.status.as_ref().filter(|s| s.is_current()) {
        egui::Area::new(egui::Id::new("status")).anchor(Align2::CENTER_TOP, [0.0, 8.0]).interactable(false).show(
            ctx,
            |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    let color = match status.severity {
                        Severity::Error => Color32::from_rgb(255, 110, 100),
                        Severity::Info => Color32::LIGHT_GREEN,
                    };
                    ui.label(RichText::new(&status.text).color(color));
                });
            },
        );
    }
    if let Some(recorder) = &app.recorder {
        // Always on screen while recording, over the scene's top-left corner: a recording left running by
        // mistake fills the disk.
        egui::Area::new(egui::Id::new("recording"))
            .fixed_pos(view.left_top() + egui::vec2(8.0, 8.0))
            .interactable(false)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).fill(Color32::from_black_alpha(180)).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        // A painted dot: the UI font has no record symbol.
                        let (dot, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                        ui.painter().circle_filled(dot.center(), 5.0, Color32::from_rgb(255, 60, 50));
                        let text =
                            format!("REC {} frames to {} (F6 stops)", recorder.frames(), recorder.path().display());
                        let text = RichText::new(text).color(Color32::from_rgb(255, 80, 70)).strong();
                        ui.add(egui::Label::new(text).extend());
                    });
                });
            });
    }
    if !app.mouse_captured && !app.settings.show_help {
        let hint = match app.settings.camera {
            CameraMode::FirstPerson => "click the scene to look around · C orbit camera · F1 keys",
            CameraMode::Orbit => "drag to turn · wheel to zoom · C first-person camera · F1 keys",
        };
        egui::Area::new(egui::Id::new("hint"))
            .fixed_pos(view.center_top() + egui::vec2(0.0, 8.0))
            .pivot(Align2::CENTER_TOP)
            .interactable(false)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).fill(Color32::from_black_alpha(160)).show(ui, |ui| {
                    ui.label(RichText::new(hint).color(Color32::from_gray(200)));
                });
            });
    }
}

fn controls(ui: &mut Ui, app: &mut App) {
    ui.heading("collide");
    ui.horizontal(|ui| {
        ui.label("config");
        ui.text_edit_singleline(&mut app.config_path);
    });
    ui.horizontal(|ui| {
        if ui.button("Load").clicked() {
            app.commands.push(Command::LoadConfig(PathBuf::from(&app.config_path)));
        }
        if ui.button("Save").clicked() {
            app.commands.push(Command::SaveConfig(PathBuf::from(&app.config_path)));
        }
        if ui.button("Save view settings").on_hover_text("to collide-view.toml; load with --settings").clicked() {
            app.commands.push(Command::SaveSettings(PathBuf::from("collide-view.toml")));
        }
    });
    ui.separator();

    let replaying = app.world.player().is_some();
    ui.add_enabled_ui(!replaying, |ui| {
        ui.horizontal(|ui| {
            if ui.button("Pull everything toward me (G)").clicked() {
                app.commands.push(Command::PullTowardMe);
            }
            ui.add(egui::DragValue::new(&mut app.settings.pull_seconds).range(0.1..=30.0).speed(0.05).suffix(" s"))
                .on_hover_text("the bodies arrive together after this long");
        });
    });
    ui.horizontal(|ui| {
        if ui.button(if replaying { "Restart (R)" } else { "Respawn (R)" }).clicked() {
            app.commands.push(Command::Respawn);
        }
        if ui.button("Reset camera").clicked() {
            app.commands.push(Command::ResetCamera);
        }
    });

    record_controls(ui, app);

    let mut edit_changed = false;
    egui::CollapsingHeader::new("Scene").default_open(true).show(ui, |ui| edit_changed |= scene_controls(ui, app));
    egui::CollapsingHeader::new("Algorithm")
        .default_open(true)
        .show(ui, |ui| edit_changed |= algorithm_controls(ui, app));
    egui::CollapsingHeader::new("Time").default_open(true).show(ui, |ui| edit_changed |= time_controls(ui, app));
    egui::CollapsingHeader::new("View").default_open(false).show(ui, |ui| view_controls(ui, app));
    if edit_changed {
        app.commands.push(Command::SetConfig(Box::new(app.edit.clone())));
    }
}

/// The recorder: where to, and start or stop (F6).
fn record_controls(ui: &mut Ui, app: &mut App) {
    ui.horizontal(|ui| {
        let recording = app.recorder.is_some();
        let label = if recording {
            RichText::new("Stop recording (F6)").color(Color32::from_rgb(255, 80, 70))
        } else {
            RichText::new("Record boxes (F6)")
        };
        if ui
            .button(label)
            .on_hover_text("every step's boxes into a .aabbs file (Broadmark's format): replay it with --replay")
            .clicked()
        {
            app.commands.push(Command::ToggleRecording);
        }
        ui.add_enabled(!recording, egui::TextEdit::singleline(&mut app.record_path).desired_width(160.0));
    });
}

/// Scene parameters (a replay's file, frame and playing); `true` when an edit is final.
fn scene_controls(ui: &mut Ui, app: &mut App) -> bool {
    let mut changed = false;
    let e = &mut app.edit;
    // A replay reads no scenario: the box says so until a scenario is chosen.
    let replaying = e.replay.is_some();
    let shown = if replaying { "(replay)".to_owned() } else { e.scenario.clone() };
    egui::ComboBox::from_label("scenario").selected_text(shown).show_ui(ui, |ui| {
        for s in SCENARIOS {
            let chosen = !replaying && e.scenario == s.name;
            if ui.selectable_label(chosen, s.name).on_hover_text(s.summary).clicked() && !chosen {
                // A new scenario brings its own defaults: forget the old one's sizes.
                *e = Config {
                    scenario: s.name.to_owned(),
                    algorithm: e.algorithm.clone(),
                    params: e.params.clone(),
                    time: e.time.clone(),
                    seed: e.seed,
                    shape: e.shape.clone(),
                    half_extents: e.half_extents,
                    half_extents_spread: e.half_extents_spread,
                    friction: e.friction,
                    ccd: e.ccd,
                    ..Config::default()
                };
                changed = true;
            }
        }
    });
    changed |= replay_file(ui, app);
    let Some(sim) = app.world.sim() else {
        replay_controls(ui, app);
        return changed;
    };
    let setup = sim.setup().clone();
    let e = &mut app.edit;
    let mut bodies = e.bodies.unwrap_or(setup.bodies);
    ui.add_enabled_ui(!setup.scenario.fixed_bodies, |ui| {
        let r = ui.add(egui::Slider::new(&mut bodies, 1..=2_000_000).logarithmic(true).text("bodies"));
        if committed(&r) {
            e.bodies = Some(bodies);
            changed = true;
        }
    });
    let mut radius = e.radius.unwrap_or(setup.radius);
    let r = ui.add(egui::Slider::new(&mut radius, 0.001..=10.0).logarithmic(true).text("radius"));
    if committed(&r) {
        e.radius = Some(radius);
        changed = true;
    }
    let r = ui.add(egui::Slider::new(&mut e.radius_spread, 0.0..=0.95).text("size spread"));
    changed |= committed(&r);
    changed |= shape_controls(ui, e, &setup);
    let mut speed = e.speed.unwrap_or(setup.speed);
    let r = ui.add(egui::Slider::new(&mut speed, 0.0..=1000.0).logarithmic(true).text("speed"));
    if committed(&r) {
        e.speed = Some(speed);
        changed = true;
    }
    let mut width = e.container_width.unwrap_or(setup.container.extents().max_element());
    let r = ui.add(egui::Slider::new(&mut width, 0.1..=10_000.0).logarithmic(true).text("container width"));
    if committed(&r) {
        e.container_width = Some(width);
        changed = true;
    }
    let mut gravity = e.gravity.unwrap_or(-setup.gravity.y);
    let r = ui.add(egui::Slider::new(&mut gravity, -20.0..=20.0).text("gravity"));
    if committed(&r) {
        e.gravity = Some(gravity);
        changed = true;
    }
    let mut restitution = e.restitution.unwrap_or(setup.restitution);
    let r = ui.add(egui::Slider::new(&mut restitution, 0.0..=1.0).text("restitution"));
    if committed(&r) {
        e.restitution = Some(restitution);
        changed = true;
    }
    let r = ui.add(egui::Slider::new(&mut e.resting_fraction, 0.0..=1.0).text("resting fraction"));
    changed |= committed(&r);
    changed |= ui.checkbox(&mut e.resolution, "collision resolution").changed();
    changed |= ui
        .checkbox(&mut e.ccd, "continuous detection (ccd)")
        .on_hover_text(
            "a body moving further than its radius (a box: its smallest half extent) in a step is swept and stopped \
             at its time of impact instead of passing through; `tunnelled` in the Frame panel counts what got through",
        )
        .changed();
    let r = ui.add(egui::DragValue::new(&mut e.seed).prefix("seed "));
    changed |= committed(&r);
    if ui.button("Scenario defaults").on_hover_text("forget the sizes, speed and container set here").clicked() {
        (e.bodies, e.radius, e.speed, e.container_width, e.gravity, e.restitution) =
            (None, None, None, None, None, None);
        e.radius_spread = 0.0;
        e.resting_fraction = 0.0;
        (e.half_extents, e.half_extents_spread) = (None, 0.0);
        changed = true;
    }
    changed
}

/// The bodies' shapes (sphere, box, mixed), a box's half extents and their spread, and friction; `true` when an
/// edit is final.
fn shape_controls(ui: &mut Ui, e: &mut Config, setup: &collide_sim::Setup) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("shape");
        for (name, hover) in [
            ("sphere", "every body a sphere"),
            ("box", "every body an oriented box"),
            ("mixed", "half spheres, half boxes (every other body)"),
        ] {
            if ui.selectable_label(e.shape == name, name).on_hover_text(hover).clicked() && e.shape != name {
                e.shape = name.to_owned();
                changed = true;
            }
        }
    });
    ui.add_enabled_ui(e.shape != "sphere", |ui| {
        let mut h = e.half_extents.unwrap_or(setup.half_extents.to_array());
        ui.horizontal(|ui| {
            ui.label("half extents");
            let mut edited = false;
            for x in &mut h {
                let r = ui.add(egui::DragValue::new(x).speed(0.01).range(0.001..=100.0).max_decimals(3));
                edited |= committed(&r);
            }
            if edited {
                e.half_extents = Some(h);
                changed = true;
            }
        })
        .response
        .on_hover_text("a box's half extents at the base radius (a box of size r gets them times r / radius)");
        let r = ui.add(egui::Slider::new(&mut e.half_extents_spread, 0.0..=0.95).text("half extents spread"));
        changed |= committed(&r);
    });
    let r = ui.add(egui::Slider::new(&mut e.friction, 0.0..=1.5).text("friction"));
    changed |= committed(&r.on_hover_text("Coulomb's coefficient between bodies and against the walls"));
    changed
}

/// Open a `.aabbs` file as a replay (`replay = "FILE.aabbs"`); `true` when asked. Its errors (a bad file, a bad box
/// by frame and box) come back on the status line, and the running scene stays.
fn replay_file(ui: &mut Ui, app: &mut App) -> bool {
    let mut open = false;
    ui.horizontal(|ui| {
        ui.label("replay");
        let r = ui.add(egui::TextEdit::singleline(&mut app.replay_path).hint_text("FILE.aabbs").desired_width(150.0));
        open = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        open |= ui.button("Play").on_hover_text("play a recorded .aabbs file into the broadphase").clicked();
    });
    let path = app.replay_path.trim();
    if !open || path.is_empty() {
        return false;
    }
    let e = &mut app.edit;
    *e = Config {
        replay: Some(path.to_owned()),
        algorithm: e.algorithm.clone(),
        params: e.params.clone(),
        time: e.time.clone(),
        ..Config::default()
    };
    true
}

/// A replay's header, its frame slider (scrub), play and pause, single frames and looping.
fn replay_controls(ui: &mut Ui, app: &mut App) {
    let Some(player) = app.world.player() else { return };
    let header = player.replay().header();
    let w = header.world.extents();
    ui.label(RichText::new(format!("{} · {} · {} boxes", header.scene_name, header.objects_type, header.n)).small());
    ui.label(RichText::new(format!("world {:.1} × {:.1} × {:.1}", w.x, w.y, w.z)).small().weak());
    let last = player.frames().saturating_sub(1);
    let mut frame = player.shown();
    let r = ui.add(egui::Slider::new(&mut frame, 0..=last).text(format!("frame of {}", player.frames())));
    // The scrub plays the frame it lands on at once, also while dragging: one frame is cheap to read.
    if r.changed() {
        app.commands.push(Command::Seek(frame));
    }
    let paused = player.replay().clock().paused;
    ui.horizontal(|ui| {
        if ui.button(if paused { "▶ Play (P)" } else { "⏸ Pause (P)" }).clicked() {
            app.commands.push(Command::TogglePause);
        }
        if ui.button("◀").on_hover_text("previous frame (Left)").clicked() {
            app.commands.push(Command::Seek(frame.saturating_sub(1)));
        }
        if ui.button("▶|").on_hover_text("next frame (Right)").clicked() {
            app.commands.push(Command::Seek(frame + 1));
        }
    });
    ui.checkbox(&mut app.settings.loop_replay, "loop")
        .on_hover_text("start again at the end, or pause on the last frame");
    ui.label(
        RichText::new("no physics: the file decides where every box is; the broadphase finds the pairs").small().weak(),
    );
}

/// A checkbox per accepted name of an algorithm-list parameter (the meta-broadphase's candidates); `true` when
/// one was toggled. Unticking the last one is refused: the list may not be empty.
fn algorithm_list(ui: &mut Ui, spec: &ParamSpec, table: &mut BTreeMap<String, ParamEntry>) -> bool {
    let accepted: Vec<&str> = spec.accepted_names(collide_algorithms::ALGORITHMS).collect();
    let mut chosen: Vec<String> = match table.get(spec.name) {
        Some(ParamEntry::List(list)) => list.clone(),
        Some(ParamEntry::Text(text)) => text.split(',').map(|t| t.trim().to_owned()).collect(),
        _ => accepted.iter().map(|&n| n.to_owned()).collect(),
    };
    let mut changed = false;
    ui.label(RichText::new(spec.name).small()).on_hover_text(spec.description);
    ui.horizontal_wrapped(|ui| {
        for name in &accepted {
            let mut on = chosen.iter().any(|c| c == name);
            if ui.checkbox(&mut on, *name).changed() && (on || chosen.len() > 1) {
                if on {
                    chosen.push((*name).to_owned());
                } else {
                    chosen.retain(|c| c != name);
                }
                changed = true;
            }
        }
    });
    if changed {
        if chosen.len() == accepted.len() {
            table.remove(spec.name);
        } else {
            // Keep the registry's order, so that the config and the title read the same every time.
            let ordered = accepted.iter().filter(|n| chosen.iter().any(|c| c == *n)).map(|n| (*n).to_owned());
            table.insert(spec.name.to_owned(), ParamEntry::List(ordered.collect()));
        }
    }
    changed
}

/// The algorithm and its parameters, built from the registry; `true` when an edit is final.
fn algorithm_controls(ui: &mut Ui, app: &mut App) -> bool {
    let mut changed = false;
    let e = &mut app.edit;
    egui::ComboBox::from_label("broadphase")
        .selected_text(e.algorithm.clone())
        .show_ui(ui, |ui| {
            for d in collide_algorithms::ALGORITHMS {
                if ui.selectable_label(e.algorithm == d.name, d.name).on_hover_text(d.summary).clicked() {
                    e.algorithm = d.name.to_owned();
                    changed = true;
                }
            }
        })
        .response
        .on_hover_text("every algorithm finds the same pairs; only the time it takes differs");
    let Ok(descriptor) = collide_algorithms::find(&e.algorithm) else {
        return changed;
    };
    ui.label(RichText::new(descriptor.summary).small());
    for spec in descriptor.params {
        let table = e.params.entry(descriptor.name.to_owned()).or_default();
        match spec.kind {
            ParamKind::Number { default, min, max, integer } => {
                let mut value = match table.get(spec.name) {
                    Some(ParamEntry::Number(v)) => *v,
                    _ => default,
                };
                let mut slider = egui::Slider::new(&mut value, min..=max).text(spec.name);
                if integer {
                    slider = slider.integer();
                }
                if max / min.max(1e-9) > 100.0 && min > 0.0 {
                    slider = slider.logarithmic(true);
                }
                let r = ui.add(slider).on_hover_text(spec.description);
                if committed(&r) {
                    table.insert(spec.name.to_owned(), ParamEntry::Number(if integer { value.round() } else { value }));
                    changed = true;
                }
            }
            ParamKind::Algorithms { .. } => {
                changed |= algorithm_list(ui, spec, table);
            }
        }
    }
    if e.params.get(descriptor.name).is_some_and(|t| t.is_empty()) {
        e.params.remove(descriptor.name);
    }
    let name = descriptor.name;
    let mut debug = app.settings.debug_view(name);
    if ui
        .checkbox(&mut debug, "debug view (B)")
        .on_hover_text("draw the algorithm's cells, nodes or intervals")
        .changed()
    {
        app.settings.debug_views.insert(name.to_owned(), debug);
    }
    changed
}

/// Pause, stepping, scale, dt policy; `true` when a config edit is final.
fn time_controls(ui: &mut Ui, app: &mut App) -> bool {
    let mut changed = false;
    let paused = app.world.run().clock().paused;
    ui.horizontal(|ui| {
        if ui.button(if paused { "Resume (P)" } else { "Pause (P)" }).clicked() {
            app.commands.push(Command::TogglePause);
        }
        if ui.button("Step (N)").clicked() {
            app.commands.push(Command::SingleStep);
        }
    });
    let t = &mut app.edit.time;
    let r = ui.add(egui::Slider::new(&mut t.scale, 0.0..=4.0).text("time scale"));
    changed |= committed(&r);
    egui::ComboBox::from_label("dt policy").selected_text(format!("{:?}", t.policy).to_lowercase()).show_ui(ui, |ui| {
        for (p, what) in [
            (PolicyName::Fixed, "every step advances dt (reproducible)"),
            (PolicyName::Variable, "every step advances the real frame time (the thesis)"),
            (PolicyName::Accumulator, "fixed steps, as many as real time accumulated"),
        ] {
            changed |=
                ui.selectable_value(&mut t.policy, p, format!("{p:?}").to_lowercase()).on_hover_text(what).changed();
        }
    });
    let r = ui.add(egui::Slider::new(&mut t.dt, 0.001..=0.1).logarithmic(true).text("dt (s)"));
    changed |= committed(&r);
    let mut capped = t.cap.is_some();
    let mut cap = t.cap.unwrap_or(0.1);
    ui.horizontal(|ui| {
        changed |=
            ui.checkbox(&mut capped, "cap").on_hover_text("the most real time one frame may account for").changed();
        let r = ui.add_enabled(capped, egui::Slider::new(&mut cap, 0.005..=1.0).logarithmic(true).suffix(" s"));
        changed |= committed(&r);
    });
    t.cap = capped.then_some(cap);
    changed
}

fn view_controls(ui: &mut Ui, app: &mut App) {
    let s = &mut app.settings;
    ui.checkbox(&mut s.render, "render bodies (V)").on_hover_text("off: measure the step without drawing");
    ui.checkbox(&mut s.show_container, "container");
    ui.add(egui::Slider::new(&mut s.flash_steps, 1..=240).text("flash steps"));
    ui.horizontal(|ui| {
        ui.label("camera");
        ui.selectable_value(&mut s.camera, CameraMode::FirstPerson, "first person");
        ui.selectable_value(&mut s.camera, CameraMode::Orbit, "orbit");
    });
    ui.add(egui::Slider::new(&mut s.fov_degrees, 20.0..=120.0).text("field of view"));
    ui.add(egui::Slider::new(&mut s.move_speed, 0.01..=2.0).logarithmic(true).text("move speed (widths/s)"));
    ui.add(egui::Slider::new(&mut s.acceleration, 0.5..=30.0).logarithmic(true).text("acceleration"));
    ui.add(egui::Slider::new(&mut s.mouse_sensitivity, 0.0005..=0.01).logarithmic(true).text("mouse"));
    ui.checkbox(&mut s.walls_stop_camera, "walls stop the camera");
    let mut msaa = s.msaa;
    egui::ComboBox::from_label("MSAA").selected_text(format!("{msaa}×")).show_ui(ui, |ui| {
        ui.label(RichText::new("software rasterizers pay for every sample").small().weak());
        for n in [1, 2, 4, 8] {
            ui.selectable_value(&mut msaa, n, format!("{n}×"));
        }
    });
    if msaa != s.msaa {
        app.commands.push(Command::Window(WindowCommand::SetMsaa(msaa)));
    }
    let s = &mut app.settings;
    ui.checkbox(&mut s.vsync, "vsync");
    ui.separator();
    ui.horizontal(|ui| {
        ui.label(format!("point lights: {}", s.lights.len()));
        if ui.button("Add at eye (L)").clicked() {
            app.commands.push(Command::AddLight);
        }
    });
    let s = &mut app.settings;
    let mut remove = None;
    for (i, l) in s.lights.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.color_edit_button_rgb(&mut l.color);
            ui.add(egui::Slider::new(&mut l.range, 0.01..=2.0).logarithmic(true).text("range"));
            if ui.small_button("✖").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        app.commands.push(Command::RemoveLight(i));
    }
}

/// The docked statistics: the frame (always), the broadphase's counters and the meta-broadphase's panel, each
/// in a section that folds away.
fn stats(ui: &mut Ui, app: &App) {
    let r = &app.last;
    let run = app.world.run();
    let (algorithm, params) = run.algorithm();
    let frame = app.frame_ms.summary();
    let fps = if frame.mean > 0.0 { 1000.0 / frame.mean } else { 0.0 };
    let mono = |ui: &mut Ui, text: String| {
        ui.label(RichText::new(text).monospace().small().color(Color32::from_gray(230)));
    };
    egui::CollapsingHeader::new("Frame").default_open(true).show(ui, |ui| {
        match app.world.player() {
            None => mono(ui, format!("{} bodies · {} · {} phase", run.body_count(), run.scene_name(), phase_label(r))),
            Some(player) => mono(
                ui,
                format!(
                    "replay · {} boxes · {} · frame {}/{}",
                    run.body_count(),
                    run.scene_name(),
                    player.shown(),
                    player.frames()
                ),
            ),
        }
        mono(ui, format!("fps {fps:.1}  frame {:.2} ms (p95 {:.2})", frame.mean, frame.p95));
        mono(
            ui,
            format!(
                "step {:.3} ms  draw {:.3} ms  dt {:.2} ms ×{}{}",
                r.step_ms,
                app.render_ms,
                r.dt_ms,
                app.steps_last_frame,
                if run.clock().paused { "  PAUSED" } else { "" }
            ),
        );
        let phases: Vec<String> = Phase::ALL.iter().map(|&p| format!("{} {:.2}", p.name(), r.phases.get(p))).collect();
        for line in phases.chunks(3) {
            mono(ui, format!("  {}", line.join("  ")));
        }
        mono(ui, format!("pairs {}  contacts {}  colliding {}", r.pairs, r.contacts, app.colliding_bodies()));
        // In a scene that can tunnel: what got through this run, and whether continuous detection is on.
        if let Some(sim) = app.world.sim() {
            let setup = sim.setup();
            let total = app.tunnelled;
            if total > 0 || setup.shows_tunnelling() {
                let ccd = if setup.ccd { "on" } else { "off" };
                mono(ui, format!("tunnelled {total} this run ({} last step)  ccd {ccd}", r.tunnelled));
            }
        }
        frame_graph(ui, app);
    });
    let title = if algorithm.name == r.algorithm || r.algorithm.is_empty() {
        format!("Broadphase: {}", algorithm.name)
    } else {
        format!("Broadphase: {} running {}", algorithm.name, r.algorithm)
    };
    egui::CollapsingHeader::new(title).id_salt("broadphase").default_open(false).show(ui, |ui| {
        if params.iter().next().is_some() {
            mono(ui, params.to_string());
        }
        let counters: Vec<String> = r.stats.to_string().split(' ').map(str::to_owned).collect();
        for line in counters.chunks(3) {
            mono(ui, line.join("  "));
        }
    });
    if let Some(selector) = app.selector() {
        egui::CollapsingHeader::new("auto: the meta-broadphase")
            .id_salt("auto")
            .default_open(true)
            .show(ui, |ui| crate::selector_panel::show(ui, selector, &app.timeline));
    }
}

/// The scene's phase at the last step, or `-` for scenes without phases.
fn phase_label(r: &collide_sim::StepRecord) -> &'static str {
    if r.phase.is_empty() { "-" } else { r.phase }
}

/// Frame times of the last frames as a line, with the 60 and 30 fps marks (30 in red, the thesis's target).
fn frame_graph(ui: &mut Ui, app: &App) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(360.0, 70.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_black_alpha(120));
    let top_ms = app.frame_ms.iter().fold(40.0f64, f64::max) * 1.1;
    let y = |ms: f64| rect.bottom() - (ms / top_ms) as f32 * rect.height();
    for (ms, color) in [(1000.0 / 60.0, Color32::from_gray(110)), (1000.0 / 30.0, Color32::from_rgb(200, 60, 50))] {
        painter.hline(rect.x_range(), y(ms), egui::Stroke::new(1.0, color));
    }
    let n = app.frame_ms.len().max(2) as f32;
    let points: Vec<egui::Pos2> = app
        .frame_ms
        .iter()
        .enumerate()
        .map(|(i, ms)| egui::pos2(rect.left() + rect.width() * i as f32 / (n - 1.0), y(ms)))
        .collect();
    painter.add(egui::Shape::line(points, egui::Stroke::new(1.5, Color32::LIGHT_GREEN)));
    painter.text(
        rect.left_top() + egui::vec2(4.0, 2.0),
        Align2::LEFT_TOP,
        format!("frame ms (max {:.1})", app.frame_ms.summary().max),
        egui::FontId::monospace(11.0),
        Color32::from_gray(200),
    );
}
