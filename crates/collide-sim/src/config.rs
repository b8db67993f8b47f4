//! The TOML config and its errors.
//!
//! Every key has a default (`#[serde(default)]`), so a config names only what differs; unknown keys are errors
//! (`deny_unknown_fields`), because a misspelt key silently ignored is a wrong experiment. Errors name the
//! file and line of the offending key (or the `--set` that set it) and, where there is a list, the valid
//! choices. [`Config::resolve`] turns a config into a checked [`Setup`] for the simulation.

use crate::memory::{self, TooBig};
use crate::scenario::{Setup, ShapeMix, find_scenario, mean_body_volume};
use collide_aabbs::Header;
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_broadphase::{ParamInput, ParamValue};
use collide_math::Vec3;
use collide_timing::DtPolicy;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A run's configuration, as written in TOML. See `configs/default.toml` and the README for every key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The scenario's registry name.
    pub scenario: String,
    /// Body count (scenario default when absent).
    pub bodies: Option<usize>,
    /// Base radius (scenario default when absent).
    pub radius: Option<f32>,
    /// Radii vary uniformly within `radius · [1 − spread, 1 + spread]`; 0..1.
    pub radius_spread: f32,
    /// Initial speed, units per second (scenario default when absent).
    pub speed: Option<f32>,
    /// Makes the container a cube of this width centred at the origin (scenario default when absent).
    pub container_width: Option<f32>,
    /// Gravity in units/s², pulling along −y (scenario default when absent).
    pub gravity: Option<f32>,
    /// Fraction of bodies that start at rest; 0..1.
    pub resting_fraction: f32,
    /// Collision response on or off.
    pub resolution: bool,
    /// Restitution, 0..1 (scenario default when absent).
    pub restitution: Option<f32>,
    /// Continuous collision detection for fast bodies (swept boxes, time of impact); off by default.
    pub ccd: bool,
    /// The bodies' shapes: `sphere`, `box` or `mixed` (every other body a box).
    pub shape: String,
    /// A box's half extents at the base radius (absent: the radius on every axis, a cube).
    pub half_extents: Option<[f32; 3]>,
    /// Each half extent of a box varies uniformly within `h · [1 − spread, 1 + spread]`; 0..1.
    pub half_extents_spread: f32,
    /// Coulomb's friction coefficient of every contact (bodies and walls); 0 is frictionless.
    pub friction: f32,
    /// The seed of every random choice.
    pub seed: u64,
    /// Frames a headless run simulates (absent: [`DEFAULT_FRAMES`], or a replay's whole file).
    pub frames: Option<u64>,
    /// With `scenario = "replay"`: the `.aabbs` file whose boxes are replayed (relative to the working folder).
    pub replay: Option<String>,
    /// The broadphase's registry name.
    pub algorithm: String,
    /// Per-algorithm parameters: `[params.octree-dup] max_leaf = 32`, `[params.auto] candidates = ["sap"]`.
    pub params: BTreeMap<String, BTreeMap<String, ParamEntry>>,
    /// The clock.
    pub time: TimeConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            scenario: "uniform".into(),
            bodies: None,
            radius: None,
            radius_spread: 0.0,
            speed: None,
            container_width: None,
            gravity: None,
            resting_fraction: 0.0,
            resolution: true,
            restitution: None,
            ccd: false,
            shape: "sphere".into(),
            half_extents: None,
            half_extents_spread: 0.0,
            friction: 0.0,
            seed: 1,
            frames: None,
            replay: None,
            algorithm: "brute".into(),
            params: BTreeMap::new(),
            time: TimeConfig::default(),
        }
    }
}

/// A replay's config, checked ([`Config::resolve_replay`], used by [`crate::Replay`]): the file, its header, the frames to play and the dt each frame stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplaySetup {
    /// The `.aabbs` file.
    pub path: PathBuf,
    /// Its header (checked).
    pub header: Header,
    /// Frames to play: the config's `frames` when it is less than the file's, else the whole file.
    pub frames: u64,
    /// Seconds each frame stands for (`[time] dt`): the file does not say, and some broadphases read it.
    pub dt: f32,
}

/// Frames a headless run of a generated scene simulates when the config does not say.
pub const DEFAULT_FRAMES: u64 = 600;

/// The scenario name of a replay: not a row of [`SCENARIOS`](crate::SCENARIOS) (nothing is spawned), the boxes come
/// frame by frame from the `replay` file (see [`crate::Replay`]).
pub const REPLAY_SCENARIO: &str = "replay";

/// One value of a `[params.NAME]` table: a number, or a list of algorithm names (a string of comma-separated names
/// is accepted too, which is what `--set params.auto.candidates=sap,mbp` gives).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamEntry {
    /// A number (integers in the file are read as numbers too).
    Number(f64),
    /// One name, or names separated by commas.
    Text(String),
    /// A list of names.
    List(Vec<String>),
}

impl ParamEntry {
    /// The entry that gives `value`, or `None` for the default algorithm list (written by leaving the key out).
    #[must_use]
    pub fn of(value: &ParamValue) -> Option<Self> {
        match value {
            ParamValue::Number(v) => Some(Self::Number(*v)),
            ParamValue::Algorithms(names) if names.is_empty() => None,
            ParamValue::Algorithms(names) => Some(Self::List(names.iter().map(|&n| n.to_owned()).collect())),
        }
    }

    /// The form [`Params::resolve`] checks.
    #[must_use]
    pub fn input(&self) -> ParamInput<'_> {
        match self {
            Self::Number(v) => ParamInput::Number(*v),
            Self::Text(t) => ParamInput::Text(t),
            Self::List(l) => ParamInput::List(l),
        }
    }
}

/// The `[time]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimeConfig {
    /// `fixed`, `variable` or `accumulator`.
    pub policy: PolicyName,
    /// Seconds per step for `fixed` and `accumulator`.
    pub dt: f32,
    /// The most real seconds one frame may account for (`variable`, `accumulator`); absent: no cap.
    pub cap: Option<f32>,
    /// Simulated seconds per real second; 0 pauses.
    pub scale: f32,
    /// The most steps one frame may run under `accumulator`.
    pub max_steps: u32,
}

impl Default for TimeConfig {
    fn default() -> Self {
        Self { policy: PolicyName::Fixed, dt: 1.0 / 60.0, cap: None, scale: 1.0, max_steps: 8 }
    }
}

/// The name of a dt policy in the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// Every step advances `dt`.
    Fixed,
    /// Every step advances the real elapsed time.
    Variable,
    /// Fixed steps, as many as real time has accumulated.
    Accumulator,
}

impl TimeConfig {
    /// The clock policy this table describes.
    #[must_use]
    pub fn policy(&self) -> DtPolicy {
        match self.policy {
            PolicyName::Fixed => DtPolicy::Fixed { dt: self.dt },
            PolicyName::Variable => DtPolicy::Variable,
            PolicyName::Accumulator => DtPolicy::Accumulator { dt: self.dt, max_steps: self.max_steps },
        }
    }
}

/// A config problem: where (file and line, or the `--set` that caused it) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file path, or `--set KEY=VALUE`.
    pub origin: String,
    /// The 1-based line in the file, when known.
    pub line: Option<usize>,
    /// What is wrong, with the valid choices where there is a list. One line.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Where a config came from, kept to point errors at lines.
#[derive(Clone, Debug, Default)]
struct Source {
    origin: String,
    text: String,
    overrides: Vec<(String, String)>,
}

impl Source {
    /// The error for the key at `path` (`["time", "dt"]`): the `--set` that set it last, else its line.
    fn error_at(&self, path: &[&str], message: String) -> ConfigError {
        let dotted = path.join(".");
        if let Some((k, v)) = self.overrides.iter().rev().find(|(k, _)| *k == dotted) {
            return ConfigError { origin: format!("--set {k}={v}"), line: None, message };
        }
        ConfigError { origin: self.origin.clone(), line: key_line(&self.text, path), message }
    }

    /// `value` for the key at `path` when it is a finite number above 0, else its error.
    fn positive(&self, path: &[&str], value: f32) -> Result<f32, ConfigError> {
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(self.error_at(path, format!("{} = {value}: must be a positive number", path.join("."))))
        }
    }

    /// `value` for the key at `path` when it is a finite number, 0 or above, else its error.
    fn non_negative(&self, path: &[&str], value: f32) -> Result<f32, ConfigError> {
        if value.is_finite() && value >= 0.0 {
            Ok(value)
        } else {
            Err(self.error_at(path, format!("{} = {value}: must be zero or a positive number", path.join("."))))
        }
    }
}

/// The 1-based line that sets `path` in TOML `text`: `key = …` under the right `[table]` header, or a dotted
/// key (`time.dt = …`) at the top. A plain scan rather than a span-keeping parser: configs are small and
/// this only runs to word an error.
fn key_line(text: &str, path: &[&str]) -> Option<usize> {
    let (key, table) = path.split_last()?;
    let mut current: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = header.split('.').map(|s| s.trim().trim_matches('"').to_owned()).collect();
            continue;
        }
        let Some((lhs, _)) = line.split_once('=') else {
            continue;
        };
        let lhs: Vec<String> = lhs.split('.').map(|s| s.trim().trim_matches('"').to_owned()).collect();
        let full: Vec<&str> = current.iter().chain(&lhs).map(String::as_str).collect();
        if full.split_last() == Some((key, table)) {
            return Some(i + 1);
        }
    }
    None
}

/// A replay file's error as a config error: the file is the origin, the problem the message.
pub(crate) fn file_error(e: collide_aabbs::AabbsError) -> ConfigError {
    ConfigError { origin: e.path.display().to_string(), line: None, message: e.problem.to_string() }
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of_offset(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// A TOML value from the text after `=` in `--set`: a TOML literal if it parses as one (`3`, `0.5`, `true`,
/// `"x"`), else a bare string (`brute`, `octree-dup`).
fn parse_override_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()))
}

/// Set `path` in `table` to `value`, creating tables on the way.
fn set_path(table: &mut toml::Table, path: &[&str], value: toml::Value) -> Result<(), String> {
    let (last, parents) = path.split_last().ok_or("empty key")?;
    let mut t = table;
    for (depth, part) in parents.iter().enumerate() {
        let entry = t.entry((*part).to_owned()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().ok_or_else(|| format!("`{}` is not a table", parents[..=depth].join(".")))?;
    }
    t.insert((*last).to_owned(), value);
    Ok(())
}

impl Config {
    /// Read `path` and apply `overrides` (`KEY=VALUE`, dotted keys for tables).
    pub fn load(path: &Path, overrides: &[String]) -> Result<Self, ConfigError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: origin.clone(),
            line: None,
            message: format!("cannot read config: {e}"),
        })?;
        Self::parse(&text, &origin, overrides)
    }

    /// Parse config `text` (named `origin` in errors), apply `overrides`, and check everything
    /// ([`Config::resolve`] must succeed). On error nothing is returned: there is no half-applied config.
    pub fn parse(text: &str, origin: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        let mut source = Source { origin: origin.to_owned(), text: text.to_owned(), overrides: Vec::new() };
        let toml_error = |e: toml::de::Error, origin: &str, text: &str| ConfigError {
            origin: origin.to_owned(),
            line: e.span().map(|s| line_of_offset(text, s.start)),
            message: e.message().trim().replace('\n', " "),
        };
        // Parse the file on its own first, so that its errors carry its line numbers.
        let mut config: Self = toml::from_str(text).map_err(|e| toml_error(e, origin, text))?;
        if !overrides.is_empty() {
            let mut table: toml::Table = text.parse().map_err(|e| toml_error(e, origin, text))?;
            for raw in overrides {
                let bad = |message: String| ConfigError { origin: format!("--set {raw}"), line: None, message };
                let (key, value) =
                    raw.split_once('=').ok_or_else(|| bad("expected KEY=VALUE (e.g. bodies=1000)".into()))?;
                let (key, value) = (key.trim(), value.trim());
                let path: Vec<&str> = key.split('.').collect();
                if path.iter().any(|p| p.is_empty()) {
                    return Err(bad(format!("`{key}` is not a valid key")));
                }
                // `params.cell_factor=2` reads naturally but names no algorithm; serde would only say that it
                // expected a map.
                if path[0] == "params" && path.len() != 3 {
                    return Err(bad(format!(
                        "an algorithm's parameter is set as params.ALGORITHM.KEY (e.g. params.grid.cell_factor=2); \
                         `{key}` has {} part(s)",
                        path.len()
                    )));
                }
                set_path(&mut table, &path, parse_override_value(value)).map_err(bad)?;
                config = toml::Value::Table(table.clone())
                    .try_into()
                    .map_err(|e: toml::de::Error| bad(e.message().trim().replace('\n', " ")))?;
                source.overrides.push((key.to_owned(), value.to_owned()));
            }
        }
        if config.is_replay() {
            config.check_replay(&source)?;
        } else {
            config.check(&source)?;
        }
        Ok(config)
    }

    /// `true` for `scenario = "replay"`: the boxes come from a file, through [`crate::Replay`], not a simulation.
    #[must_use]
    pub fn is_replay(&self) -> bool {
        self.scenario == REPLAY_SCENARIO
    }

    /// The frames a headless run of a generated scene simulates.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.frames.unwrap_or(DEFAULT_FRAMES)
    }

    /// Check a replay's config and open its file's header: what [`crate::Replay`] needs. Errors about the file
    /// name the file (and, for what its header says, the problem), like any config error.
    pub fn resolve_replay(&self) -> Result<ReplaySetup, ConfigError> {
        self.check_replay(&Source { origin: "config".into(), ..Source::default() })
    }

    /// Check the config and resolve it into a [`Setup`] with the scenario's defaults filled in. A replay has no
    /// setup (nothing is spawned): see [`Config::resolve_replay`].
    pub fn resolve(&self) -> Result<Setup, ConfigError> {
        self.check(&Source { origin: "config".into(), ..Source::default() })
    }

    /// The algorithm row and its resolved parameters.
    pub fn algorithm(&self) -> Result<(&'static AlgorithmDescriptor, Params), ConfigError> {
        let source = Source { origin: "config".into(), ..Source::default() };
        self.check_algorithm(&source)
    }

    fn check_algorithm(&self, source: &Source) -> Result<(&'static AlgorithmDescriptor, Params), ConfigError> {
        let descriptor =
            collide_algorithms::find(&self.algorithm).map_err(|e| source.error_at(&["algorithm"], e.to_string()))?;
        for (name, table) in &self.params {
            let d = collide_algorithms::find(name).map_err(|e| {
                let key = table.keys().next().map_or("", String::as_str);
                source.error_at(&["params", name, key], format!("in [params.{name}]: {e}"))
            })?;
            if let Err(e) = Params::resolve(d.params, table.iter().map(|(k, v)| (k.as_str(), v.input())), ALGORITHMS) {
                let key = e.param_name().to_owned();
                return Err(source.error_at(&["params", name, &key], format!("in [params.{name}]: {e}")));
            }
        }
        let given = self.params.get(descriptor.name);
        let params = Params::resolve(
            descriptor.params,
            given.into_iter().flatten().map(|(k, v)| (k.as_str(), v.input())),
            ALGORITHMS,
        )
        .expect("checked above");
        Ok((descriptor, params))
    }

    fn check(&self, source: &Source) -> Result<Setup, ConfigError> {
        let err = |path: &[&str], message: String| source.error_at(path, message);
        if self.is_replay() {
            let message = "scenario = \"replay\" plays a recorded file; it spawns no scene (use Replay)".to_owned();
            return Err(err(&["scenario"], message));
        }
        let scenario =
            find_scenario(&self.scenario).map_err(|m| err(&["scenario"], format!("{m}, {REPLAY_SCENARIO}")))?;
        if self.replay.is_some() {
            return Err(err(&["replay"], "`replay` is read only with scenario = \"replay\"".into()));
        }
        let (algorithm, _) = self.check_algorithm(source)?;

        let bodies = match self.bodies {
            Some(0) => return Err(err(&["bodies"], "bodies = 0: need at least 1 body".into())),
            Some(n) if n > u32::MAX as usize / 2 => {
                return Err(err(&["bodies"], format!("bodies = {n}: at most {} are supported", u32::MAX / 2)));
            }
            Some(n) if scenario.fixed_bodies && n != scenario.default_bodies => {
                return Err(err(
                    &["bodies"],
                    format!("bodies = {n}: scenario `{}` always has {} bodies", scenario.name, scenario.default_bodies),
                ));
            }
            Some(n) => n,
            None => scenario.default_bodies,
        };
        let positive = |path: &[&str], value: f32| source.positive(path, value);
        let in_unit = |path: &[&str], value: f32| -> Result<f32, ConfigError> {
            if (0.0..=1.0).contains(&value) {
                Ok(value)
            } else {
                Err(err(path, format!("{} = {value}: must be between 0 and 1", path.join("."))))
            }
        };
        let radius = positive(&["radius"], self.radius.unwrap_or(scenario.default_radius))?;
        let radius_spread = in_unit(&["radius_spread"], self.radius_spread)?;
        if radius_spread >= 1.0 {
            return Err(err(&["radius_spread"], "radius_spread = 1: radii would reach zero; use less than 1".into()));
        }
        let shape = ShapeMix::find(&self.shape).map_err(|m| err(&["shape"], m))?;
        let half_extents = match self.half_extents {
            Some(h) => {
                for x in h {
                    if !(x.is_finite() && x > 0.0) {
                        let message = format!("half_extents = {h:?}: every half extent must be a positive number");
                        return Err(err(&["half_extents"], message));
                    }
                }
                Vec3::from_array(h)
            }
            None => Vec3::splat(radius),
        };
        let half_extents_spread = in_unit(&["half_extents_spread"], self.half_extents_spread)?;
        if half_extents_spread >= 1.0 {
            let message = "half_extents_spread = 1: half extents would reach zero; use less than 1".into();
            return Err(err(&["half_extents_spread"], message));
        }
        let friction = source.non_negative(&["friction"], self.friction)?;
        let container = match self.container_width {
            Some(w) => collide_math::Aabb::from_center_radius(Vec3::ZERO, positive(&["container_width"], w)? / 2.0),
            None => (scenario.container)(bodies, mean_body_volume(radius, radius_spread, shape, half_extents)),
        };
        // A container sized from the bodies' volume: a radius so small that the volume rounds to zero (1e-30
        // cubed) or so large that it overflows would size it to nothing or to infinity. Say so, at the radius.
        let room = container.extents().min_element();
        if !(room.is_finite() && room > 0.0) {
            return Err(err(
                &["radius"],
                format!(
                    "radius = {radius:e}: the scenario sizes its container from the bodies' volume, which is {} at \
                     this radius; give a radius between 1e-6 and 1e6, or set container_width",
                    if room.is_finite() { "too small to represent" } else { "too large to represent" }
                ),
            ));
        }
        let speed = source.non_negative(&["speed"], self.speed.unwrap_or_else(|| (scenario.speed)(&container)))?;
        let gravity = self.gravity.unwrap_or(scenario.default_gravity);
        if !gravity.is_finite() {
            return Err(err(&["gravity"], format!("gravity = {gravity}: must be a finite number")));
        }
        let restitution = in_unit(&["restitution"], self.restitution.unwrap_or(scenario.default_restitution))?;
        let resting_fraction = in_unit(&["resting_fraction"], self.resting_fraction)?;
        self.check_frames_and_time(source)?;

        let mut setup = Setup {
            scenario,
            bodies,
            radius,
            radius_spread,
            speed,
            container,
            gravity: Vec3::new(0.0, -gravity, 0.0),
            resting_fraction,
            resolution: self.resolution,
            restitution,
            seed: self.seed,
            ccd: self.ccd,
            obstacles: Vec::new(),
            shape,
            half_extents,
            half_extents_spread,
            friction,
        };
        setup.obstacles = (scenario.obstacles)(&setup);
        let largest = 2.0 * setup.max_radius();
        let room = container.extents().min_element();
        if largest > room {
            let path: &[&str] = if self.container_width.is_some() { &["container_width"] } else { &["radius"] };
            return Err(err(
                path,
                format!("a body {largest} across does not fit in the container, whose smallest side is {room}"),
            ));
        }
        // Last: a run the machine cannot hold is refused before anything is allocated (see `memory`).
        let need = memory::estimate(&setup, algorithm.name, self.frames());
        if let Err((blame, message)) = memory::check(&need, algorithm.name, memory::available()) {
            return Err(match blame {
                TooBig::Bodies => err(&["bodies"], format!("bodies = {}: {message}", setup.bodies)),
                TooBig::Frames => err(&["frames"], format!("frames = {}: {message}", self.frames())),
            });
        }
        Ok(setup)
    }

    /// `frames` and the `[time]` table, which every kind of run reads.
    fn check_frames_and_time(&self, source: &Source) -> Result<(), ConfigError> {
        let err = |path: &[&str], message: String| source.error_at(path, message);
        if self.frames == Some(0) {
            return Err(err(&["frames"], "frames = 0: need at least 1 frame".into()));
        }
        source.positive(&["time", "dt"], self.time.dt)?;
        if let Some(cap) = self.time.cap {
            source.positive(&["time", "cap"], cap)?;
        }
        source.non_negative(&["time", "scale"], self.time.scale)?;
        if self.time.max_steps == 0 {
            return Err(err(&["time", "max_steps"], "time.max_steps = 0: need at least 1".into()));
        }
        Ok(())
    }

    /// A replay: the algorithm, `frames` and `[time]` as for any run, then the file's header (its errors name the
    /// file) and whether one frame of its boxes fits in memory — the file itself streams, whatever its size. The
    /// scene keys (`bodies`, `radius`, …) are not read: the boxes come from the file.
    fn check_replay(&self, source: &Source) -> Result<ReplaySetup, ConfigError> {
        let err = |path: &[&str], message: String| source.error_at(path, message);
        let (algorithm, _) = self.check_algorithm(source)?;
        self.check_frames_and_time(source)?;
        let Some(file) = &self.replay else {
            let message = "scenario = \"replay\" needs the file: replay = \"FILE.aabbs\" (or --replay FILE)";
            return Err(err(&["scenario"], message.into()));
        };
        let path = PathBuf::from(file);
        let header = collide_aabbs::Reader::open(&path).map_err(file_error)?.header().clone();
        let frames = self.frames.map_or(header.frames, |f| f.min(header.frames));
        let need = memory::estimate_replay(header.n as usize, algorithm.name, frames);
        if let Err((_, message)) = memory::check(&need, algorithm.name, memory::available()) {
            let problem = collide_aabbs::Problem::TooBig(format!(
                "the file streams a frame at a time, but one frame must fit: {message}"
            ));
            return Err(file_error(collide_aabbs::AabbsError::new(&path, problem)));
        }
        Ok(ReplaySetup { path, header, frames, dt: self.time.dt })
    }

    /// The config as TOML text (for the app's "save").
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }
}

#[cfg(test)]
mod tests;
