//! The TOML config as written, and its errors.
//!
//! Every key has a default (`#[serde(default)]`), so a config names only what differs; unknown keys are errors
//! (`deny_unknown_fields`), because a misspelt key silently ignored is a wrong experiment. Errors name the
//! file and line of the offending key (or the `--set` that set it) and, where there is a list, the valid
//! choices. A config is checked once, into a [`Plan`](crate::Plan) (`plan.rs`).

use collide_broadphase::{ParamInput, ParamValue};
use collide_timing::DtPolicy;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

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
    /// `power-law` only: the radii's density falls as `r^−exponent` from `radius` up (above 1, at most 8;
    /// [`PowerLaw::DEFAULT_EXPONENT`](crate::PowerLaw::DEFAULT_EXPONENT) when absent).
    pub power_law_exponent: Option<f32>,
    /// `power-law` only: the largest radius as a fraction of the container's smallest side (above 0, at most
    /// 1/2; [`POWER_LAW_DEFAULT_CAP`](crate::POWER_LAW_DEFAULT_CAP) when absent).
    pub power_law_cap: Option<f32>,
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
    /// Sort the bodies into spatial order every this many steps (0, the default: never; see
    /// [`crate::STUDIED_REORDER_EVERY`]).
    pub reorder_every: u32,
    /// Frames a headless run simulates (absent: [`DEFAULT_FRAMES`], or a replay's whole file).
    pub frames: Option<u64>,
    /// A recorded `.aabbs` file to play instead of a generated scene (relative to the working folder); the scene
    /// keys (`scenario`, `bodies`, …) are then not read.
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
            power_law_exponent: None,
            power_law_cap: None,
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
            reorder_every: 0,
            frames: None,
            replay: None,
            algorithm: "brute".into(),
            params: BTreeMap::new(),
            time: TimeConfig::default(),
        }
    }
}

/// Frames a headless run of a generated scene simulates when the config does not say.
pub const DEFAULT_FRAMES: u64 = 600;

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

    /// The form [`Params::from_input`](collide_algorithms::Params::from_input) checks.
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
pub(crate) struct Written {
    origin: String,
    text: String,
    overrides: Vec<(String, String)>,
}

impl Written {
    /// A config with no text to point into (one built or edited in code): errors name `origin` alone.
    pub(crate) fn named(origin: &str) -> Self {
        Self { origin: origin.to_owned(), ..Self::default() }
    }

    /// The error for the key at `path` (`["time", "dt"]`): the `--set` that set it last, else its line.
    pub(crate) fn error_at(&self, path: &[&str], message: String) -> ConfigError {
        let dotted = path.join(".");
        if let Some((k, v)) = self.overrides.iter().rev().find(|(k, _)| *k == dotted) {
            return ConfigError { origin: format!("--set {k}={v}"), line: None, message };
        }
        ConfigError { origin: self.origin.clone(), line: key_line(&self.text, path), message }
    }

    /// `value` for the key at `path` when it is a finite number above 0, else its error.
    pub(crate) fn positive(&self, path: &[&str], value: f32) -> Result<f32, ConfigError> {
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(self.error_at(path, format!("{} = {value}: must be a positive number", path.join("."))))
        }
    }

    /// `value` for the key at `path` when it is a finite number, 0 or above, else its error.
    pub(crate) fn non_negative(&self, path: &[&str], value: f32) -> Result<f32, ConfigError> {
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
    /// Parse config `text` (named `origin` in errors) and apply `overrides` (`KEY=VALUE`, dotted keys for tables):
    /// the TOML's syntax and types, and its keys, checked; its values are checked by [`Plan`](crate::Plan).
    pub(crate) fn read(text: &str, origin: &str, overrides: &[String]) -> Result<(Self, Written), ConfigError> {
        let mut written = Written { origin: origin.to_owned(), text: text.to_owned(), overrides: Vec::new() };
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
                written.overrides.push((key.to_owned(), value.to_owned()));
            }
        }
        Ok((config, written))
    }

    /// The frames a headless run of a generated scene simulates.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.frames.unwrap_or(DEFAULT_FRAMES)
    }

    /// The config as TOML text (for the app's "save").
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }
}

#[cfg(test)]
mod tests;
