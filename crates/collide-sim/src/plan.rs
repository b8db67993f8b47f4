//! A config checked once into a plan: what a run plays, with which broadphase, at what pace.
//!
//! [`Config`] is the config as written — the TOML's keys, which the app's panels edit and "save" writes. A
//! [`Plan`] is that config checked, once, and turned into what a run needs:
//!
//! - the [`Source`] of the boxes: a generated scene ([`Setup`], the scenario's defaults filled in) or a recorded
//!   `.aabbs` file ([`ReplaySetup`], its header read and checked);
//! - the algorithm's registry row and its checked [`Params`];
//! - the [`TimePolicy`] of the clock, and the frames a headless run plays.
//!
//! [`Simulation::of`](crate::Simulation::of) and [`Replay::of`](crate::Replay::of) start from a plan, and nothing
//! after it checks the config again. Errors name the file and line of the offending key (or the `--set` that set
//! it) and, where there is a list, the valid choices.
//!
//! A config whose `replay` names a file is a replay: the scene keys (`scenario`, `bodies`, …) are then not read.
//! `scenario = "replay"` of older configs is not a scenario; beside a `replay` file it is one of the keys not read,
//! and alone it gets a one-line error saying what to write instead.

use crate::config::{Config, ConfigError, Written, file_error};
use crate::memory::{self, TooBig};
use crate::scenario::{
    POWER_LAW_DEFAULT_CAP, POWER_LAW_MAX_CAP, PowerLaw, ScenarioDescriptor, Setup, ShapeMix, find_scenario,
    mean_body_volume,
};
use collide_aabbs::Header;
use collide_algorithms::{ALGORITHMS, AlgorithmDescriptor, Params};
use collide_math::Vec3;
use collide_timing::{Clock, DtPolicy};
use std::fmt;
use std::path::{Path, PathBuf};

/// A config checked once, and what a run needs of it (see the module docs).
#[derive(Clone)]
pub struct Plan {
    config: Config,
    source: Source,
    algorithm: &'static AlgorithmDescriptor,
    params: Params,
    time: TimePolicy,
}

/// Where a run's boxes come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A generated scene, simulated.
    Scene(Setup),
    /// A recorded `.aabbs` file, played with no physics.
    Replay(ReplaySetup),
}

/// A replay, checked: the file, its header, the frames to play and the dt each frame stands for.
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

/// The clock a config asks for: the `[time]` table, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimePolicy {
    /// How much simulated time a frame advances.
    pub dt: DtPolicy,
    /// The most real seconds one frame may account for.
    pub cap: Option<f32>,
    /// Simulated seconds per real second; 0 pauses.
    pub scale: f32,
}

impl TimePolicy {
    /// A running clock of this policy.
    #[must_use]
    pub fn clock(&self) -> Clock {
        Clock::new(self.dt).with_cap(self.cap).with_scale(self.scale)
    }

    /// Give a running `clock` this policy; whether it is paused is kept.
    pub fn apply(&self, clock: &mut Clock) {
        (clock.policy, clock.cap, clock.scale) = (self.dt, self.cap, self.scale);
    }
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("source", &self.source)
            .field("algorithm", &self.algorithm.name)
            .field("params", &self.params)
            .field("time", &self.time)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// Read the config at `path`, apply `overrides` (`KEY=VALUE`, dotted keys for tables) and check it into a plan.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Self, ConfigError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: origin.clone(),
            line: None,
            message: format!("cannot read config: {e}"),
        })?;
        Self::parse(&text, &origin, overrides)
    }

    /// Parse config `text` (named `origin` in errors), apply `overrides` and check it into a plan. On error nothing is
    /// returned: there is no half-applied config.
    pub fn parse(text: &str, origin: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        let (config, written) = Config::read(text, origin, overrides)?;
        Self::checked(config, &written)
    }

    /// Check a config built or edited in code (the app's panels). Its errors have no line to point at: they are
    /// named `config`.
    pub fn new(config: Config) -> Result<Self, ConfigError> {
        Self::checked(config, &Written::named("config"))
    }

    /// Check every key `config` holds, each error pointed at its key by `written`, and build the plan.
    fn checked(config: Config, written: &Written) -> Result<Self, ConfigError> {
        let checks = Checks { config: &config, written };
        // In the order the keys are read: the scenario first, then the algorithm, then the rest.
        let (source, algorithm, params) = match &config.replay {
            Some(file) => {
                let (algorithm, params) = checks.algorithm()?;
                (Source::Replay(checks.replay(file, algorithm)?), algorithm, params)
            }
            None => {
                let scenario = checks.scenario()?;
                let (algorithm, params) = checks.algorithm()?;
                (Source::Scene(checks.scene(scenario, algorithm)?), algorithm, params)
            }
        };
        let time = TimePolicy { dt: config.time.policy(), cap: config.time.cap, scale: config.time.scale };
        Ok(Self { config, source, algorithm, params, time })
    }

    /// The config as written (what "save" writes, and what the panels edit).
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The config as written, the plan dropped.
    #[must_use]
    pub fn into_config(self) -> Config {
        self.config
    }

    /// Where the boxes come from.
    #[must_use]
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The algorithm's registry row and its parameters.
    #[must_use]
    pub fn algorithm(&self) -> (&'static AlgorithmDescriptor, &Params) {
        (self.algorithm, &self.params)
    }

    /// The clock's policy.
    #[must_use]
    pub fn time(&self) -> &TimePolicy {
        &self.time
    }

    /// The generated scene, or for a replay the error that it spawns none.
    pub fn scene(&self) -> Result<&Setup, ConfigError> {
        match &self.source {
            Source::Scene(setup) => Ok(setup),
            Source::Replay(replay) => Err(not_this_source(format!(
                "replay = \"{}\" plays a recorded file; it spawns no scene",
                replay.path.display()
            ))),
        }
    }

    /// The recorded file to play, or for a generated scene the error that it names none.
    pub fn replay(&self) -> Result<&ReplaySetup, ConfigError> {
        match &self.source {
            Source::Replay(replay) => Ok(replay),
            Source::Scene(_) => {
                Err(not_this_source("the config names no recorded file to play (replay = \"FILE.aabbs\")".into()))
            }
        }
    }

    /// The frames a headless run plays: for a scene, the config's `frames` ([`DEFAULT_FRAMES`](crate::DEFAULT_FRAMES)
    /// when absent); for a replay, the file's frames or fewer.
    #[must_use]
    pub fn frames(&self) -> u64 {
        match &self.source {
            Source::Scene(_) => self.config.frames(),
            Source::Replay(replay) => replay.frames,
        }
    }
}

/// The error of asking a plan for the source it does not have (a programming error, worded for a user).
fn not_this_source(message: String) -> ConfigError {
    ConfigError { origin: "config".into(), line: None, message }
}

/// The checks of one config, each error pointed at its key by where the config was written.
struct Checks<'a> {
    config: &'a Config,
    written: &'a Written,
}

impl Checks<'_> {
    fn err(&self, path: &[&str], message: String) -> ConfigError {
        self.written.error_at(path, message)
    }

    /// The algorithm row, every `[params.NAME]` table (each names a registered algorithm and holds its
    /// parameters), and the chosen algorithm's parameters checked.
    fn algorithm(&self) -> Result<(&'static AlgorithmDescriptor, Params), ConfigError> {
        let config = self.config;
        let descriptor =
            collide_algorithms::find(&config.algorithm).map_err(|e| self.err(&["algorithm"], e.to_string()))?;
        let mut chosen = None;
        for (name, table) in &config.params {
            let d = collide_algorithms::find(name).map_err(|e| {
                let key = table.keys().next().map_or("", String::as_str);
                self.err(&["params", name, key], format!("in [params.{name}]: {e}"))
            })?;
            let params = Params::from_input(d.params, table.iter().map(|(k, v)| (k.as_str(), v.input())), ALGORITHMS)
                .map_err(|e| {
                let key = e.param_name().to_owned();
                self.err(&["params", name, &key], format!("in [params.{name}]: {e}"))
            })?;
            if d.name == descriptor.name {
                chosen = Some(params);
            }
        }
        // No table for the chosen algorithm: its defaults.
        Ok((descriptor, chosen.unwrap_or_else(|| Params::defaults(descriptor.params))))
    }

    /// The scenario's registry row.
    fn scenario(&self) -> Result<&'static ScenarioDescriptor, ConfigError> {
        let name = &self.config.scenario;
        find_scenario(name).map_err(|m| {
            if name == "replay" {
                // What older configs wrote for a replay, here without its file.
                let message = "scenario = \"replay\" is not a scenario: a recorded file is played by \
                               replay = \"FILE.aabbs\" (or --replay FILE), without a scenario line";
                self.err(&["scenario"], message.into())
            } else {
                self.err(&["scenario"], m)
            }
        })
    }

    /// A generated scene of `scenario`: every scene key checked, the scenario's defaults filled in, and whether
    /// the machine can hold the run.
    fn scene(
        &self,
        scenario: &'static ScenarioDescriptor,
        algorithm: &AlgorithmDescriptor,
    ) -> Result<Setup, ConfigError> {
        let (config, written) = (self.config, self.written);
        let err = |path: &[&str], message: String| self.err(path, message);
        let bodies = match config.bodies {
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
        let positive = |path: &[&str], value: f32| written.positive(path, value);
        let in_unit = |path: &[&str], value: f32| -> Result<f32, ConfigError> {
            if (0.0..=1.0).contains(&value) {
                Ok(value)
            } else {
                Err(err(path, format!("{} = {value}: must be between 0 and 1", path.join("."))))
            }
        };
        let radius = positive(&["radius"], config.radius.unwrap_or(scenario.default_radius))?;
        let radius_spread = in_unit(&["radius_spread"], config.radius_spread)?;
        if radius_spread >= 1.0 {
            return Err(err(&["radius_spread"], "radius_spread = 1: radii would reach zero; use less than 1".into()));
        }
        let shape = ShapeMix::find(&config.shape).map_err(|m| err(&["shape"], m))?;
        let half_extents = match config.half_extents {
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
        let half_extents_spread = in_unit(&["half_extents_spread"], config.half_extents_spread)?;
        if half_extents_spread >= 1.0 {
            let message = "half_extents_spread = 1: half extents would reach zero; use less than 1".into();
            return Err(err(&["half_extents_spread"], message));
        }
        let friction = written.non_negative(&["friction"], config.friction)?;
        let container = match config.container_width {
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
        let power_law = self.power_law(scenario, radius, &container)?;
        let speed = written.non_negative(&["speed"], config.speed.unwrap_or_else(|| (scenario.speed)(&container)))?;
        let gravity = config.gravity.unwrap_or(scenario.default_gravity);
        if !gravity.is_finite() {
            return Err(err(&["gravity"], format!("gravity = {gravity}: must be a finite number")));
        }
        let restitution = in_unit(&["restitution"], config.restitution.unwrap_or(scenario.default_restitution))?;
        let resting_fraction = in_unit(&["resting_fraction"], config.resting_fraction)?;
        self.frames_and_time()?;

        let mut setup = Setup {
            scenario,
            bodies,
            radius,
            radius_spread,
            speed,
            container,
            gravity: Vec3::new(0.0, -gravity, 0.0),
            resting_fraction,
            resolution: config.resolution,
            restitution,
            seed: config.seed,
            ccd: config.ccd,
            obstacles: Vec::new(),
            shape,
            half_extents,
            half_extents_spread,
            friction,
            reorder_every: config.reorder_every,
            power_law,
        };
        setup.obstacles = (scenario.obstacles)(&setup);
        let largest = 2.0 * setup.max_radius();
        let room = container.extents().min_element();
        if largest > room {
            let path: &[&str] = if config.container_width.is_some() { &["container_width"] } else { &["radius"] };
            return Err(err(
                path,
                format!("a body {largest} across does not fit in the container, whose smallest side is {room}"),
            ));
        }
        // Last: a run the machine cannot hold is refused before anything is allocated (see `memory`).
        let frames = config.frames();
        let need = memory::estimate(&setup, algorithm.name, frames);
        if let Err((blame, message)) = memory::check(&need, algorithm.name, memory::available()) {
            return Err(match blame {
                TooBig::Bodies => err(&["bodies"], format!("bodies = {}: {message}", setup.bodies)),
                TooBig::Frames => err(&["frames"], format!("frames = {frames}: {message}")),
            });
        }
        Ok(setup)
    }

    /// The radii's power law of a scenario whose sizes follow one (`power_law_exponent`, `power_law_cap`, the
    /// defaults filled in and checked against the base `radius` and the `container`); elsewhere `None`, and those
    /// keys (and, in `power-law`, `radius_spread`) are errors: a key that changes nothing is a wrong experiment.
    fn power_law(
        &self,
        scenario: &ScenarioDescriptor,
        radius: f32,
        container: &collide_math::Aabb,
    ) -> Result<Option<PowerLaw>, ConfigError> {
        let config = self.config;
        if !scenario.power_law {
            let set = [("power_law_exponent", config.power_law_exponent), ("power_law_cap", config.power_law_cap)];
            if let Some((key, _)) = set.iter().find(|(_, v)| v.is_some()) {
                let message = format!(
                    "{key} applies to scenario `power-law` only, not `{}`: its radii follow no power law",
                    scenario.name
                );
                return Err(self.err(&[key], message));
            }
            return Ok(None);
        }
        if config.radius_spread != 0.0 {
            let message = format!(
                "radius_spread = {}: scenario `power-law` draws its radii from a power law (power_law_exponent, \
                 power_law_cap), from `radius` up; leave radius_spread out",
                config.radius_spread
            );
            return Err(self.err(&["radius_spread"], message));
        }
        let exponent = config.power_law_exponent.unwrap_or(PowerLaw::DEFAULT_EXPONENT);
        if !(exponent > 1.0 && exponent <= PowerLaw::MAX_EXPONENT) {
            let message = format!(
                "power_law_exponent = {exponent}: must be above 1 and at most {} (the density of radius r falls as \
                 r^-exponent)",
                PowerLaw::MAX_EXPONENT
            );
            return Err(self.err(&["power_law_exponent"], message));
        }
        let cap = config.power_law_cap.unwrap_or(POWER_LAW_DEFAULT_CAP);
        if !(cap > 0.0 && cap <= POWER_LAW_MAX_CAP) {
            let message = format!(
                "power_law_cap = {cap}: must be above 0 and at most {POWER_LAW_MAX_CAP} (the largest radius as a \
                 fraction of the container's smallest side)"
            );
            return Err(self.err(&["power_law_cap"], message));
        }
        let largest = cap * container.extents().min_element();
        if largest <= radius {
            let message = format!(
                "power_law_cap = {cap}: the largest radius, {largest} ({cap} of the container's smallest side), is \
                 not above the smallest, radius = {radius}; raise the cap or lower the radius"
            );
            return Err(self.err(&["power_law_cap"], message));
        }
        Ok(Some(PowerLaw { exponent, largest }))
    }

    /// `frames` and the `[time]` table, which every kind of run reads.
    fn frames_and_time(&self) -> Result<(), ConfigError> {
        let (config, written) = (self.config, self.written);
        if config.frames == Some(0) {
            return Err(self.err(&["frames"], "frames = 0: need at least 1 frame".into()));
        }
        written.positive(&["time", "dt"], config.time.dt)?;
        if let Some(cap) = config.time.cap {
            written.positive(&["time", "cap"], cap)?;
        }
        written.non_negative(&["time", "scale"], config.time.scale)?;
        if config.time.max_steps == 0 {
            return Err(self.err(&["time", "max_steps"], "time.max_steps = 0: need at least 1".into()));
        }
        Ok(())
    }

    /// A replay: `frames` and `[time]` as for any run, then the file's header (its errors name the file) and
    /// whether one frame of its boxes fits in memory — the file itself streams, whatever its size. The scene keys
    /// (`scenario`, `bodies`, `radius`, …) are not read: the boxes come from the file.
    fn replay(&self, file: &str, algorithm: &AlgorithmDescriptor) -> Result<ReplaySetup, ConfigError> {
        self.frames_and_time()?;
        let path = PathBuf::from(file);
        let header = collide_aabbs::Reader::open(&path).map_err(file_error)?.header().clone();
        let frames = self.config.frames.map_or(header.frames, |f| f.min(header.frames));
        let need = memory::estimate_replay(header.n as usize, algorithm.name, frames);
        if let Err((_, message)) = memory::check(&need, algorithm.name, memory::available()) {
            let problem = collide_aabbs::Problem::TooBig(format!(
                "the file streams a frame at a time, but one frame must fit: {message}"
            ));
            return Err(file_error(collide_aabbs::AabbsError::new(&path, problem)));
        }
        Ok(ReplaySetup { path, header, frames, dt: self.config.time.dt })
    }
}
