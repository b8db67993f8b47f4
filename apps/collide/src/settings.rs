//! The app's view settings: everything the user can change that is not part of the scene's [`Config`].
//!
//! Serde-derived with `#[serde(default)]` (egui's `WrapApp` habit), so a settings file names only what differs
//! and a setting added later never breaks an old file. No GPU handle lives here: settings are plain data that
//! the camera, the panels and the renderer read. This module depends on no other module of the app; the few
//! settings that need GPU work (MSAA) are changed by the window, on the app's request.
//!
//! [`Config`]: collide_sim::Config

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the camera moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CameraMode {
    /// The thesis's walker: WASD relative to the view, mouse look, momentum, sliding along the walls.
    FirstPerson,
    /// Turn around a target point; the mouse drags, the wheel zooms.
    Orbit,
}

/// A point light the user placed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Light {
    /// Position.
    pub position: [f32; 3],
    /// Linear colour.
    pub color: [f32; 3],
    /// Where its light falls to a quarter, as a fraction of the container's width.
    pub range: f32,
}

/// The view settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Draw the bodies at all. Off, a frame only steps the simulation and draws the panels, so measurements
    /// exclude drawing.
    pub render: bool,
    /// Per algorithm name: show its debug geometry (cells, nodes, intervals).
    pub debug_views: BTreeMap<String, bool>,
    /// Cap on the debug boxes drawn, so a deep tree over a million bodies stays interactive.
    pub debug_max_boxes: usize,
    /// Steps over which the collision flash fades back to the body's colour.
    pub flash_steps: u32,
    /// Draw the container's edges.
    pub show_container: bool,
    /// MSAA samples (1, 2, 4, 8), clamped to what the adapter supports; 0 chooses: 4 on a GPU, 1 on a
    /// software rasterizer, where every sample costs as much as a pixel.
    pub msaa: u32,
    /// Wait for the display's refresh.
    pub vsync: bool,
    /// The camera mode.
    pub camera: CameraMode,
    /// Vertical field of view, degrees.
    pub fov_degrees: f32,
    /// Walking speed, in container widths per second.
    pub move_speed: f32,
    /// How quickly the walker reaches its target velocity (1/s); its momentum after release fades as fast.
    pub acceleration: f32,
    /// Radians per pixel of mouse movement.
    pub mouse_sensitivity: f32,
    /// The walker stays inside the container and slides along its walls.
    pub walls_stop_camera: bool,
    /// "Pull everything toward me" makes every body arrive in this many seconds (at the walker's eye, or at
    /// the orbit camera's centre: its eye is outside the container).
    pub pull_seconds: f32,
    /// A replay starts again at its end (otherwise it pauses on the last frame).
    pub loop_replay: bool,
    /// The lights the user placed (at most eight).
    pub lights: Vec<Light>,
    /// Show the controls panel.
    pub show_controls: bool,
    /// Show the statistics overlay.
    pub show_stats: bool,
    /// Show the key help.
    pub show_help: bool,
    /// Show the puffin profiler.
    pub show_profiler: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            render: true,
            debug_views: BTreeMap::new(),
            debug_max_boxes: 200_000,
            flash_steps: 30,
            show_container: true,
            msaa: 0,
            vsync: true,
            camera: CameraMode::Orbit,
            fov_degrees: 60.0,
            move_speed: 0.25,
            acceleration: 6.0,
            mouse_sensitivity: 0.003,
            walls_stop_camera: true,
            pull_seconds: 2.0,
            loop_replay: true,
            lights: Vec::new(),
            show_controls: true,
            show_stats: true,
            show_help: false,
            show_profiler: false,
        }
    }
}

impl Settings {
    /// Whether `algorithm`'s debug view is on.
    #[must_use]
    pub fn debug_view(&self, algorithm: &str) -> bool {
        self.debug_views.get(algorithm).copied().unwrap_or(false)
    }

    /// Read settings TOML; unknown keys are ignored so files from newer versions still load.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.message().trim().to_owned())
    }

    /// The settings as TOML.
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("settings always serialise")
    }
}

#[cfg(test)]
mod tests;
