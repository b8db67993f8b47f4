//! `collide`: the collision-detection lab.
//!
//! - `collide --headless CONFIG [--frames N] [--csv FILE] [--record OUT.aabbs] [--set KEY=VALUE]…` runs a scene
//!   with no window and prints a summary: frames, step time (mean, p95, max), the phase split, pairs, the
//!   broadphase's counters and the final state hash; `--record` writes every step's boxes in Broadmark's `.aabbs`
//!   format.
//! - `--replay FILE.aabbs` plays a recorded box stream instead of a simulated scene (`replay = FILE` in the
//!   config): the boxes frame by frame into the config's broadphase, no physics — headless, in the window (drawn
//!   as boxes, with play, pause and a scrub bar) and in a screenshot. In the window F6 records every step's boxes.
//! - `collide [CONFIG] [--set KEY=VALUE]…` opens the window: fly through the scene, change the algorithm and the
//!   scene live, read the statistics and the puffin profiler (F1 lists the keys). `--exit-after-frames N` closes
//!   it after N frames and prints the mean fps, step and draw times (the start test and measurements).
//! - `collide --screenshot OUT.png [CONFIG] [--frames N] [--size WxH]` simulates N steps and draws them
//!   off-screen to a PNG; it needs no display.
//! - Without CONFIG every mode reads `configs/default.toml` when the working folder has it (a checkout), else
//!   the copy of it built into the binary, so that an installed `collide` runs from any folder.
//!   `collide --print-default-config > mine.toml` writes that copy out, to start a config of one's own.
//!
//! Bad input (a missing file, a malformed or unknown key, an unknown scenario or algorithm, a zero or negative
//! size) gets one line naming the file, line and valid choices, and exit code 2 — before any window opens;
//! nothing is written. A window or graphics failure gets one line and exit code 1.

mod app;
mod camera;
mod drawing;
mod headless;
mod keys;
mod player;
mod recorder;
mod report;
mod screenshot;
mod selector_panel;
mod settings;
mod ui;
mod window;
mod world;

use clap::Parser;
use collide_sim::{ConfigError, Plan};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The config used when none is given, when the working folder has it.
const DEFAULT_CONFIG: &str = "configs/default.toml";

/// `configs/default.toml` as it was when the binary was built: the config when none is given and the working
/// folder has no `configs/default.toml` (an installed binary run outside the checkout).
const BUILT_IN_CONFIG: &str = include_str!("../../../configs/default.toml");

/// How errors name the built-in config.
const BUILT_IN_ORIGIN: &str = "the built-in default config";

/// Where the window's Save writes a config that came from the built-in copy: the working folder.
const BUILT_IN_SAVE_PATH: &str = "collide.toml";

/// collide: which collision-detection algorithm wins for your scene, and why.
#[derive(Debug, Parser)]
#[command(version, about, after_help = after_help())]
struct Cli {
    /// The TOML config (default: configs/default.toml when the working folder has it, else the copy built into
    /// the binary; --print-default-config shows it).
    config: Option<PathBuf>,

    /// Print the built-in default config (configs/default.toml) and exit: `collide --print-default-config >
    /// mine.toml` starts a config of your own.
    #[arg(long, exclusive = true)]
    print_default_config: bool,

    /// Run without a window and print a summary.
    #[arg(long)]
    headless: bool,

    /// Override the config's frame count.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,

    /// Write one CSV row per step to FILE at the end of the run.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// With `algorithm = "auto"`: write the meta-broadphase's decision log (every probe and switch, with the
    /// features, every candidate's prediction and the reason) as CSV to FILE at the end of the run.
    #[arg(long, value_name = "FILE", requires = "headless")]
    decisions: Option<PathBuf>,

    /// Write every step's boxes to OUT.aabbs (Broadmark's format) during the headless run; the file appears when
    /// the run ends.
    #[arg(long, value_name = "OUT.aabbs", requires = "headless")]
    record: Option<PathBuf>,

    /// Replay the boxes of FILE.aabbs (Broadmark's format) instead of simulating: `replay = FILE` in the config.
    /// The config's algorithm, parameters, frames and `[time] dt` apply; its scene keys do not.
    #[arg(long, value_name = "FILE.aabbs")]
    replay: Option<PathBuf>,

    /// Override any config key, e.g. `--set bodies=100000 --set algorithm=brute --set time.policy=variable`.
    // A value that starts with a hyphen (`--set -0`) is still this option's value, so that the config names it in
    // its one-line error; otherwise clap took it for an unknown flag and printed its multi-line usage.
    #[arg(long = "set", value_name = "KEY=VALUE", allow_hyphen_values = true)]
    overrides: Vec<String>,

    /// Print progress every N frames (0: only the summary).
    #[arg(long, value_name = "N", default_value_t = 0)]
    progress: u64,

    /// Draw the scene off-screen after the config's frames (or --frames) and write it to this PNG; no window.
    #[arg(long, value_name = "OUT.png", conflicts_with = "headless")]
    screenshot: Option<PathBuf>,

    /// Close the window after N frames and print the mean fps, step and draw times.
    #[arg(long, value_name = "N", conflicts_with_all = ["headless", "screenshot"])]
    exit_after_frames: Option<u64>,

    /// View settings (TOML: `render = false`, `camera = "orbit"`, `debug_views = { octree-dup = true }`, …);
    /// every setting not named keeps its default.
    #[arg(long, value_name = "FILE", conflicts_with = "headless")]
    settings: Option<PathBuf>,

    /// The window's or the screenshot's size in pixels.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).ok_or("expected WIDTHxHEIGHT, e.g. 1280x720")?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|&n| (1..=16384).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("`{text}`: expected WIDTHxHEIGHT with sides from 1 to 16384, e.g. 1280x720")),
    }
}

fn after_help() -> String {
    let algorithms: Vec<_> = collide_algorithms::names().collect();
    let scenarios: Vec<_> = collide_sim::SCENARIOS.iter().map(|s| s.name).collect();
    format!("Algorithms: {}\nScenarios:  {}", algorithms.join(", "), scenarios.join(", "))
}

/// The config overrides the command line makes: `--set`s, then `--replay` and `--frames`.
fn overrides(cli: &Cli) -> Vec<String> {
    let mut overrides = cli.overrides.clone();
    if let Some(file) = &cli.replay {
        // A TOML string literal, so that any path (spaces, quotes, digits) is taken as written.
        overrides.push(format!("replay={}", toml::Value::String(file.display().to_string())));
    }
    if let Some(frames) = cli.frames {
        overrides.push(format!("frames={frames}"));
    }
    overrides
}

/// The run's config, checked once into a plan, and the path the window shows and saves to: CONFIG when given; else
/// `configs/default.toml` when the working folder has it; else the copy built into the binary.
fn load(cli: &Cli) -> Result<(Plan, PathBuf), ConfigError> {
    let overrides = overrides(cli);
    match &cli.config {
        Some(path) => Ok((Plan::load(path, &overrides)?, path.clone())),
        None if Path::new(DEFAULT_CONFIG).is_file() => {
            Ok((Plan::load(Path::new(DEFAULT_CONFIG), &overrides)?, PathBuf::from(DEFAULT_CONFIG)))
        }
        None => Ok((Plan::parse(BUILT_IN_CONFIG, BUILT_IN_ORIGIN, &overrides)?, PathBuf::from(BUILT_IN_SAVE_PATH))),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.print_default_config {
        print!("{BUILT_IN_CONFIG}");
        return ExitCode::SUCCESS;
    }
    // Named workers, so that the puffin view shows each of them as its own row of the broadphases' parallel
    // work. It can only fail if a pool already exists, which nothing here makes before this line.
    let _ = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("rayon worker {i}")).build_global();
    if cli.headless {
        return match headless::run(&cli) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::from(2)
            }
        };
    }
    // The config is checked before any window or device exists, so a typo costs one line and exit code 2.
    let (plan, config) = match load(&cli) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let view = match &cli.settings {
        None => settings::Settings::default(),
        Some(path) => {
            match std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| settings::Settings::from_toml(&t))
            {
                Ok(view) => view,
                Err(e) => {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
        }
    };
    let result = match &cli.screenshot {
        Some(out) => screenshot::run(plan, &config, view, out, cli.size),
        None => app::App::new(plan, config.display().to_string(), view).and_then(|app| {
            window::run(app, window::WindowOptions { exit_after_frames: cli.exit_after_frames, size: cli.size })
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
