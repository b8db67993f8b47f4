//! What the app says about a run beyond what every run keeps ([`Run`]): the headless summary's heading, phase
//! names and closing lines, and the names a recording of the run is written with.
//!
//! [`Report`] is implemented for the two kinds of run — a [`Simulation`] and a [`Replay`] — so that the
//! headless runner and the window's recorder name neither: [`start`] is the one place that picks, from the
//! plan's source.

use collide_sim::{Phase, Plan, Replay, Run, RunSummary, ScenarioDescriptor, ShapeMix, Simulation, Source};

/// A run, as the app reports it (see the module docs).
pub trait Report: Run {
    /// The heading's subject: `scenario uniform · 10000 bodies · …`, or `replay FILE (scene · objects) · n boxes`.
    fn subject(&self) -> String;

    /// The heading's frame count for a run of `frames` frames: `300 frames`, or `3 of its 5 frames`.
    fn frames_text(&self, frames: u64) -> String;

    /// The name the summary's phase split gives `phase`, or `None` for a phase this kind of run does not have.
    fn phase_name(&self, phase: Phase) -> Option<&'static str>;

    /// The summary's lines after the statistics: what is left at the end, and the run's hash.
    fn closing(&self, summary: &RunSummary) -> Vec<String>;

    /// The `.aabbs` header's scene name and objects type of a recording of this run (`--record` and F6 alike),
    /// or why it cannot be recorded.
    fn recording_names(&self) -> Result<(String, String), String>;
}

/// The run `plan` describes: a simulation of its scene, or a replay of its file. Errors are one line.
pub fn start(plan: &Plan) -> Result<Box<dyn Report>, String> {
    Ok(match plan.source() {
        Source::Scene(_) => Box::new(Simulation::of(plan).map_err(|e| e.to_string())?),
        Source::Replay(_) => Box::new(Replay::of(plan).map_err(|e| e.to_string())?),
    })
}

/// The names of a recording of `scenario`, or why it cannot be recorded: a scenario whose body count grows as it
/// runs, since a `.aabbs` file holds a fixed count.
fn names_of_simulated(scenario: &ScenarioDescriptor) -> Result<(String, String), String> {
    if scenario.growth > 1 {
        return Err(format!(
            "cannot record `{}`: its body count changes as it runs, and a .aabbs file holds a fixed count",
            scenario.name
        ));
    }
    Ok((format!("collide {}", scenario.name), "Spheres".to_owned()))
}

impl Report for Simulation {
    fn subject(&self) -> String {
        let setup = self.setup();
        // Spheres without friction print as they always have; boxes and friction add their keys.
        let mut shapes = String::new();
        if setup.shape != ShapeMix::Sphere {
            let h = setup.half_extents;
            let spread = setup.half_extents_spread;
            shapes = format!(" · shape {} · half extents {} {} {} ± {spread}", setup.shape.name(), h.x, h.y, h.z);
        }
        if setup.friction > 0.0 {
            shapes.push_str(&format!(" · friction {}", setup.friction));
        }
        format!(
            "scenario {} · {} bodies · radius {}{shapes} · speed {}",
            setup.scenario.name, setup.bodies, setup.radius, setup.speed
        )
    }

    fn frames_text(&self, frames: u64) -> String {
        format!("{frames} frames")
    }

    fn phase_name(&self, phase: Phase) -> Option<&'static str> {
        Some(phase.name())
    }

    fn closing(&self, summary: &RunSummary) -> Vec<String> {
        let setup = self.setup();
        let mut lines = Vec::new();
        // Counted only in scenes that can tunnel (collide-sim's `ccd` module says which); printed when counted.
        if summary.tunnelled > 0 || setup.shows_tunnelling() {
            let ccd = if setup.ccd { "on" } else { "off" };
            lines.push(format!(
                "tunnelled  {} (bodies through obstacles and pairs through each other; ccd {ccd})",
                summary.tunnelled
            ));
        }
        lines.push(format!("bodies     {} at the end · simulated {:.3} s", self.bodies().len(), self.time()));
        lines.push(format!("hash       {:016x}", self.state_hash()));
        lines
    }

    fn recording_names(&self) -> Result<(String, String), String> {
        names_of_simulated(self.setup().scenario)
    }
}

impl Report for Replay {
    fn subject(&self) -> String {
        let header = self.header();
        format!(
            "replay {} ({} · {}) · {} boxes",
            self.setup().path.display(),
            header.scene_name,
            header.objects_type,
            header.n
        )
    }

    fn frames_text(&self, frames: u64) -> String {
        format!("{frames} of its {} frames", self.header().frames)
    }

    /// A replay has no physics: its `aabbs` phase is the read, and the broadphase the rest.
    fn phase_name(&self, phase: Phase) -> Option<&'static str> {
        match phase {
            Phase::Aabbs => Some("read"),
            Phase::Broadphase => Some(phase.name()),
            _ => None,
        }
    }

    fn closing(&self, _summary: &RunSummary) -> Vec<String> {
        vec![
            format!(
                "boxes      {} per frame · {} frames replayed from {}",
                self.header().n,
                self.played(),
                self.setup().path.display()
            ),
            // A hash of every frame's sorted pairs: two algorithms that agree print the same.
            format!("pairs hash {:016x}", self.pairs_hash()),
        ]
    }

    fn recording_names(&self) -> Result<(String, String), String> {
        let header = self.header();
        Ok((header.scene_name.clone(), header.objects_type.clone()))
    }
}
