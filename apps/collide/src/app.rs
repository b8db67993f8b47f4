//! The app's state apart from the window and the GPU: the world (a simulation or a replay), its config, the
//! view settings, the camera, the frame statistics, the recorder — and the [`Command`]s the UI and the keys
//! produce. What is drawn of it is `drawing.rs`'s; the keys are `keys.rs`'s table.
//!
//! egui's pattern: while a frame's UI runs, it only *reads* this state (and edits working copies: the
//! config being edited, the view settings); everything that changes the simulation, files or the GPU is a
//! `Command` queued on [`App::commands`] and applied by [`App::apply_commands`] once the frame is drawn. So
//! nothing changes under the UI halfway through a pass, and a key and a button do the same thing.
//!
//! Commands flow one way: the UI and the keys queue them; [`App::apply_commands`] carries out the app's own and
//! hands the window's ([`WindowCommand`]: the mouse, MSAA, the profile, quitting) to the window, which carries
//! them out and never queues anything back.

use crate::camera::{CameraRig, MoveInput};
use crate::drawing::Drawing;
use crate::recorder::Recorder;
use crate::selector_panel::Timeline;
use crate::settings::{CameraMode, Light, Settings};
use crate::world::World;
use collide_math::Aabb;
use collide_selector::Selector;
use collide_sim::{Config, Plan, Source, StepRecord};
use collide_timing::RecentSamples;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Something the user asked for, applied at the end of the frame.
#[derive(Clone, Debug)]
pub enum Command {
    /// Use this config: the scene respawns if its setup changed, the broadphase is rebuilt if the algorithm or
    /// its parameters changed, and the clock takes the `[time]` table.
    SetConfig(Box<Config>),
    /// Load a config file (errors are shown, and the current scene stays).
    LoadConfig(PathBuf),
    /// Save the current config as TOML.
    SaveConfig(PathBuf),
    /// Save the view settings as TOML (load them with `--settings FILE`).
    SaveSettings(PathBuf),
    /// Spawn the scene again from its seed (a replay: back to its first frame).
    Respawn,
    /// A replay: show this frame (clamped to the file), and play on from it.
    Seek(u64),
    /// A replay: show the frame this many frames after the one on screen (before it when negative).
    SeekBy(i64),
    /// Start recording every step's boxes into [`App::record_path`], or stop and keep the file.
    ToggleRecording,
    /// The thesis's "pull everything toward me": every body heads for the eye.
    PullTowardMe,
    /// Pause the clock, or resume it.
    TogglePause,
    /// While paused, run one step.
    SingleStep,
    /// Put the camera back where it started.
    ResetCamera,
    /// Switch between the first-person and the orbit camera.
    ToggleCamera,
    /// Show or hide the running algorithm's debug view.
    ToggleDebugView,
    /// Draw the scene, or only clear it (to measure the step without drawing).
    ToggleRendering,
    /// Show or hide a panel.
    TogglePanel(Panel),
    /// Place a point light at the eye.
    AddLight,
    /// Remove the point light at this index.
    RemoveLight(usize),
    /// Something only the window can do.
    Window(WindowCommand),
}

/// A panel the keys show and hide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// The list of keys.
    Help,
    /// The controls on the left.
    Controls,
    /// The statistics on the right.
    Stats,
    /// The puffin profiler.
    Profiler,
}

/// What the window carries out for the app: it owns the mouse, the GPU and the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowCommand {
    /// Write the profiler's recent frames to a `.puffin` file.
    SaveProfile,
    /// Rebuild the renderer with this MSAA sample count.
    SetMsaa(u32),
    /// Capture the mouse for looking around, or release it.
    CaptureMouse(bool),
    /// Close the app.
    Quit,
}

/// Whether a status message reports a success or an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// A result the user asked for ("saved …").
    Info,
    /// Something failed; also printed on stderr.
    Error,
}

/// A message for the user (load and save results, errors), shown for [`Status::SHOWN_FOR`].
#[derive(Clone, Debug)]
pub struct Status {
    /// One line.
    pub text: String,
    /// Success or error (the colour it is shown in).
    pub severity: Severity,
    /// When it was set.
    pub since: Instant,
}

impl Status {
    /// How long a message stays on screen.
    pub const SHOWN_FOR: Duration = Duration::from_secs(8);

    /// `true` while the message should be shown.
    #[must_use]
    pub fn is_current(&self) -> bool {
        self.since.elapsed() < Self::SHOWN_FOR
    }
}

/// How many frames the frame-time graph and the fps figure cover.
pub const GRAPH_FRAMES: usize = 240;

/// The app's state.
pub struct App {
    /// The config the world runs, checked into a plan (its config as written is what "save" writes).
    pub plan: Plan,
    /// The UI's working copy of the config.
    pub edit: Config,
    /// Where the config came from (and where "save" writes by default).
    pub config_path: String,
    /// View settings.
    pub settings: Settings,
    /// What runs: a simulation or a replay.
    pub world: World,
    /// The recording under way (F6).
    pub recorder: Option<Recorder>,
    /// Where the next recording goes.
    pub record_path: String,
    /// The replay file the Scene panel's field holds (played when the user asks).
    pub replay_path: String,
    /// The cameras.
    pub camera: CameraRig,
    /// Movement keys and mouse motion gathered since the last frame.
    pub input: MoveInput,
    /// The mouse is captured for looking.
    pub mouse_captured: bool,
    /// What the UI and keys asked for this frame.
    pub commands: Vec<Command>,
    /// The last message for the user.
    pub status: Option<Status>,
    /// Frame times, ms, for the graph and the fps.
    pub frame_ms: RecentSamples,
    /// The last step's record.
    pub last: StepRecord,
    /// Steps the last frame ran.
    pub steps_last_frame: u32,
    /// How long the last scene drawing took on the CPU side (building instances and recording), ms.
    pub render_ms: f64,
    /// Frames since the start.
    pub frames: u64,
    /// What is drawn: the scene handed to the renderer, and what drawing keeps between frames.
    pub drawing: Drawing,
    /// With `auto`: which candidate answered each of the last steps.
    pub timeline: Timeline,
    /// The run's tunnelled bodies and pairs: every step's record summed before the records are cleared; reset
    /// with the scene.
    pub tunnelled: u64,
    aspect: f32,
}

/// What a new plan does to the scene ([`App::set_plan`]).
enum SceneChange {
    /// The same scene.
    None,
    /// The simulation's new setup, applied in place.
    Setup(collide_sim::Setup),
    /// A new world: a simulation after a replay, a replay, or another file.
    World(Box<World>),
}

/// Where a recording goes unless the user says otherwise.
pub const DEFAULT_RECORD_PATH: &str = "collide-recording.aabbs";

impl App {
    /// The app for `plan`, loaded from `config_path`, with the view `settings`.
    pub fn new(plan: Plan, config_path: String, settings: Settings) -> Result<Self, String> {
        let world = World::new(&plan)?;
        let replay_path = plan.config().replay.clone().unwrap_or_default();
        let camera = CameraRig::new(&world.run().container());
        let mut drawing = Drawing::default();
        drawing.follow(&world);
        Ok(Self {
            edit: plan.config().clone(),
            plan,
            config_path,
            settings,
            camera,
            world,
            recorder: None,
            record_path: DEFAULT_RECORD_PATH.to_owned(),
            replay_path,
            input: MoveInput::default(),
            mouse_captured: false,
            commands: Vec::new(),
            status: None,
            frame_ms: RecentSamples::new(GRAPH_FRAMES),
            last: StepRecord::default(),
            steps_last_frame: 0,
            render_ms: 0.0,
            frames: 0,
            drawing,
            timeline: Timeline::default(),
            tunnelled: 0,
            aspect: 16.0 / 9.0,
        })
    }

    /// The meta-broadphase, when the simulation runs `auto`.
    #[must_use]
    pub fn selector(&self) -> Option<&Selector> {
        self.world.selector()
    }

    /// The container (a replay's recorded world box).
    #[must_use]
    pub fn container(&self) -> Aabb {
        self.world.run().container()
    }

    /// Show `text` in the window (and on stderr when it is an error).
    pub fn say(&mut self, text: String, severity: Severity) {
        if severity == Severity::Error {
            eprintln!("error: {text}");
        }
        self.status = Some(Status { text, severity, since: Instant::now() });
    }

    /// One frame's work before drawing: move the camera, run the simulation's steps, keep the statistics.
    /// `real_seconds` is the previous frame's duration.
    pub fn update(&mut self, real_seconds: f32, aspect: f32) {
        puffin::profile_function!();
        self.aspect = aspect;
        let container = self.container();
        // A very long frame (a respawn of a million bodies, a window drag) must not fling the camera.
        self.camera.update(real_seconds.min(0.1), &self.input, &self.settings, &container);
        self.input.look = glam::Vec2::ZERO;
        self.input.zoom = 0.0;
        if let World::Replay(player) = &mut self.world {
            player.looping = self.settings.loop_replay;
        }
        self.steps_last_frame = self.run_steps(real_seconds);
        self.drawing.follow(&self.world);
        let records = self.world.run().records();
        if let Some(r) = records.last() {
            self.last = *r;
        }
        if let Some(selector) = self.world.selector() {
            let beside = crate::selector_panel::Beside::of(selector);
            let names = selector.candidate_names();
            for r in records {
                self.timeline.push(names.iter().position(|n| *n == r.algorithm).unwrap_or(0), beside);
            }
        }
        self.tunnelled += records.iter().map(|r| u64::from(r.tunnelled)).sum::<u64>();
        // The app keeps only the last record: records of a long session would grow without bound.
        self.world.run_mut().clear_records();
        self.frame_ms.push(f64::from(real_seconds) * 1e3);
        self.frames += 1;
    }

    /// Run the steps (or play the recorded frames) the clock grants for a frame `real_seconds` long, each one's
    /// boxes into the recording when one is under way. Returns how many ran.
    fn run_steps(&mut self, real_seconds: f32) -> u32 {
        let (mut failed, mut play_error) = (None, None);
        let recorder = &mut self.recorder;
        // After a failed write the recording is over: later steps are not offered to it.
        let mut capture = |boxes: &[Aabb], ids: Option<&[u32]>| {
            if let (Some(r), None) = (recorder.as_mut(), &failed)
                && let Err(e) = r.capture(boxes, ids)
            {
                failed = Some(e);
            }
        };
        let steps = match &mut self.world {
            World::Sim(sim) => sim.frame_each(real_seconds, |sim| capture(sim.aabbs(), Some(&sim.bodies().id))),
            World::Replay(player) => match player.frame(real_seconds, &mut |replay| capture(replay.aabbs(), None)) {
                Ok(n) => n,
                Err(e) => {
                    // The file changed or went away under the replay: stop playing, and say so below.
                    player.replay_mut().clock_mut().paused = true;
                    play_error = Some(e);
                    0
                }
            },
        };
        if let Some(e) = failed {
            self.stop_recording(Some(e));
        }
        if let Some(e) = play_error {
            self.say(e, Severity::Error);
        }
        steps
    }

    /// Start recording into [`App::record_path`], or stop and keep the file; either way the user is told.
    fn toggle_recording(&mut self) {
        if self.recorder.is_some() {
            self.stop_recording(None);
            return;
        }
        match Recorder::start(std::path::Path::new(&self.record_path), self.world.run()) {
            Ok(recorder) => {
                let text = format!("recording every step's boxes to {} (F6 stops)", recorder.path().display());
                self.recorder = Some(recorder);
                self.say(text, Severity::Info);
            }
            Err(e) => self.say(e, Severity::Error),
        }
    }

    /// Stop the recording under way, if any, and keep its file: the window calls this when it closes. Returns
    /// what was kept (a failure is said on stderr by [`App::say`]).
    pub fn finish_recording(&mut self) -> Option<String> {
        self.recorder.as_ref()?;
        self.stop_recording(None);
        self.status.as_ref().filter(|s| s.severity == Severity::Info).map(|s| s.text.clone())
    }

    /// Stop the recording under way (if any) and keep its file; `cause` is the error that stopped it.
    fn stop_recording(&mut self, cause: Option<collide_aabbs::AabbsError>) {
        if let Some(recorder) = self.recorder.take() {
            match recorder.finish(cause) {
                Ok(text) => self.say(text, Severity::Info),
                Err(text) => self.say(text, Severity::Error),
            }
        }
    }

    /// Fill [`Drawing::scene`] from the world, the view settings and the camera.
    pub fn build_scene(&mut self) {
        let camera = self.camera.camera(&self.settings, self.aspect, &self.container());
        self.drawing.build(&self.world, &self.settings, camera);
    }

    /// How many bodies touched another in the last step.
    #[must_use]
    pub fn colliding_bodies(&self) -> usize {
        self.drawing.colliding_bodies(&self.world)
    }

    /// Apply the queued commands, in order. Returns the ones only the window can carry out, in order (empty,
    /// and not allocated, in the usual frame).
    pub fn apply_commands(&mut self) -> Vec<WindowCommand> {
        let mut for_window = Vec::new();
        for command in std::mem::take(&mut self.commands) {
            match command {
                Command::SetConfig(config) => self.set_config(*config),
                Command::LoadConfig(path) => match Plan::load(&path, &[]) {
                    Ok(plan) => {
                        self.config_path = path.display().to_string();
                        self.set_plan(plan);
                        self.camera = CameraRig::new(&self.container());
                        self.say(format!("loaded {}", path.display()), Severity::Info);
                    }
                    Err(e) => self.say(e.to_string(), Severity::Error),
                },
                Command::SaveConfig(path) => match std::fs::write(&path, self.plan.config().to_toml()) {
                    Ok(()) => {
                        self.config_path = path.display().to_string();
                        self.say(format!("saved {}", path.display()), Severity::Info);
                    }
                    Err(e) => self.say(format!("{}: {e}", path.display()), Severity::Error),
                },
                Command::SaveSettings(path) => match std::fs::write(&path, self.settings.to_toml()) {
                    Ok(()) => {
                        let text = format!("saved the view settings to {} (--settings loads them)", path.display());
                        self.say(text, Severity::Info);
                    }
                    Err(e) => self.say(format!("{}: {e}", path.display()), Severity::Error),
                },
                Command::Respawn => {
                    match &mut self.world {
                        World::Sim(sim) => sim.respawn(),
                        World::Replay(_) => self.seek(0),
                    }
                    self.timeline.clear();
                    self.tunnelled = 0;
                }
                Command::Seek(frame) => self.seek(frame),
                Command::SeekBy(frames) => {
                    if let Some(player) = self.world.player() {
                        self.seek(player.shown().saturating_add_signed(frames));
                    }
                }
                Command::ToggleRecording => self.toggle_recording(),
                Command::PullTowardMe => {
                    // The orbit camera's eye is outside the container, where the walls would flatten the
                    // cluster; its centre is where it looks.
                    let target = match self.settings.camera {
                        CameraMode::FirstPerson => self.camera.position,
                        CameraMode::Orbit => self.camera.target,
                    };
                    match &mut self.world {
                        World::Sim(sim) => sim.pull_toward(target, self.settings.pull_seconds),
                        World::Replay(_) => {
                            self.say("a replay's boxes come from its file: nothing to pull".into(), Severity::Error);
                        }
                    }
                }
                Command::TogglePause => {
                    let clock = self.world.run_mut().clock_mut();
                    clock.paused = !clock.paused;
                }
                Command::SingleStep => {
                    let clock = self.world.run_mut().clock_mut();
                    clock.paused = true;
                    clock.single_step();
                }
                Command::ResetCamera => self.camera = CameraRig::new(&self.container()),
                Command::ToggleCamera => {
                    self.settings.camera = match self.settings.camera {
                        CameraMode::FirstPerson => CameraMode::Orbit,
                        CameraMode::Orbit => CameraMode::FirstPerson,
                    };
                }
                Command::ToggleDebugView => {
                    let name = self.world.run().algorithm().0.name;
                    let on = !self.settings.debug_view(name);
                    self.settings.debug_views.insert(name.to_owned(), on);
                }
                Command::ToggleRendering => self.settings.render = !self.settings.render,
                Command::TogglePanel(panel) => {
                    let s = &mut self.settings;
                    let shown = match panel {
                        Panel::Help => &mut s.show_help,
                        Panel::Controls => &mut s.show_controls,
                        Panel::Stats => &mut s.show_stats,
                        Panel::Profiler => &mut s.show_profiler,
                    };
                    *shown = !*shown;
                }
                Command::AddLight => {
                    if self.settings.lights.len() < collide_render::MAX_POINT_LIGHTS {
                        let eye = self.camera.eye(self.settings.camera);
                        self.settings.lights.push(Light { position: eye.into(), color: [1.0, 0.85, 0.6], range: 0.3 });
                    } else {
                        let text = format!("at most {} point lights", collide_render::MAX_POINT_LIGHTS);
                        self.say(text, Severity::Error);
                    }
                }
                Command::RemoveLight(i) => {
                    if i < self.settings.lights.len() {
                        self.settings.lights.remove(i);
                    }
                }
                Command::Window(command) => for_window.push(command),
            }
        }
        for_window
    }

    /// A replay: show `frame`. A file that fails under the scrub (changed or removed since it was opened)
    /// pauses the replay with one line.
    fn seek(&mut self, frame: u64) {
        if let World::Replay(player) = &mut self.world
            && let Err(e) = player.seek(frame)
        {
            player.replay_mut().clock_mut().paused = true;
            self.say(e, Severity::Error);
        }
        self.drawing.follow(&self.world);
    }

    /// Switch to `config`, as edited in the panels: checked once, then [`App::set_plan`]. A config that fails
    /// leaves the running world as it was, and puts the editor back in step with it.
    fn set_config(&mut self, config: Config) {
        match Plan::new(config) {
            Ok(plan) => self.set_plan(plan),
            Err(e) => self.refuse(e.to_string()),
        }
    }

    /// Say why a new config was not taken, and put the editor back in step with the running one.
    fn refuse(&mut self, why: String) {
        self.say(why, Severity::Error);
        self.edit = self.plan.config().clone();
    }

    /// Switch to `plan`, doing only the work its differences need: a new world when the scene changed (a
    /// simulation's setup, or the replay's file), a new broadphase when the algorithm or its parameters did,
    /// and the clock's `[time]` table always. A world that fails to start leaves the running one as it was.
    fn set_plan(&mut self, plan: Plan) {
        let strip = |c: &Config| Config {
            algorithm: String::new(),
            params: Default::default(),
            time: Default::default(),
            frames: None,
            ..c.clone()
        };
        let scene_changed = strip(self.plan.config()) != strip(plan.config());
        let change = match (&self.world, plan.source(), scene_changed) {
            (_, _, false) => SceneChange::None,
            // A simulation moves to a new setup in place: its broadphase keeps its allocations.
            (World::Sim(_), Source::Scene(setup), true) => SceneChange::Setup(setup.clone()),
            (_, _, true) => match World::new(&plan) {
                Ok(world) => SceneChange::World(Box::new(world)),
                Err(e) => return self.refuse(e),
            },
        };
        let old = std::mem::replace(&mut self.plan, plan);
        if scene_changed {
            // A recording holds one scene: it ends with the scene it recorded.
            self.stop_recording(None);
            self.timeline.clear();
            self.tunnelled = 0;
        }
        let rebuilt = match change {
            SceneChange::Setup(setup) => {
                if let World::Sim(sim) = &mut self.world {
                    sim.set_setup(setup);
                }
                false
            }
            SceneChange::World(world) => {
                self.world = *world;
                self.camera = CameraRig::new(&self.container());
                self.drawing.follow(&self.world);
                true
            }
            SceneChange::None => false,
        };
        let (config, new) = (old.config(), self.plan.config());
        if !rebuilt && (config.algorithm != new.algorithm || config.params != new.params) {
            let (algorithm, params) = self.plan.algorithm();
            self.world.run_mut().set_algorithm(algorithm, params.clone());
            self.timeline.clear();
        }
        self.plan.time().apply(self.world.run_mut().clock_mut());
        self.edit = self.plan.config().clone();
    }
}

#[cfg(test)]
mod tests;
