//! What the window shows: a simulated scene ([`Simulation`]) or a recorded one played back ([`Player`]). The
//! panels and the keys read either through [`World::run`] — what every run offers, and what the app reports of
//! it — so they need not know which one runs; only drawing and the controls of one kind (pulling the bodies,
//! scrubbing the file) ask.

use crate::player::Player;
use crate::report::Report;
use collide_selector::Selector;
use collide_sim::{Plan, Simulation, Source};

/// A simulated scene or a replay.
pub enum World {
    /// A generated scenario, simulated. Both variants are boxed: each holds hundreds of bytes of buffers' headers
    /// inline, of sizes that differ by more than clippy's bound, and one world lives per window.
    Sim(Box<Simulation>),
    /// A `.aabbs` file's boxes, frame by frame (`replay = "FILE.aabbs"`).
    Replay(Box<Player>),
}

impl World {
    /// The world `plan` describes. Errors are one line (a replay's name the file, frame and box).
    pub fn new(plan: &Plan) -> Result<Self, String> {
        match plan.source() {
            Source::Scene(_) => Simulation::of(plan).map(|sim| Self::Sim(Box::new(sim))).map_err(|e| e.to_string()),
            Source::Replay(_) => Player::new(plan).map(|player| Self::Replay(Box::new(player))),
        }
    }

    /// The run: records, clock, algorithm, boxes — whichever kind it is.
    #[must_use]
    pub fn run(&self) -> &dyn Report {
        match self {
            Self::Sim(sim) => sim.as_ref(),
            Self::Replay(player) => player.replay(),
        }
    }

    /// The run, to retime it, switch its algorithm or forget its records.
    pub fn run_mut(&mut self) -> &mut dyn Report {
        match self {
            Self::Sim(sim) => sim.as_mut(),
            Self::Replay(player) => player.replay_mut(),
        }
    }

    /// The simulation, when one runs.
    #[must_use]
    pub fn sim(&self) -> Option<&Simulation> {
        match self {
            Self::Sim(sim) => Some(sim),
            Self::Replay(_) => None,
        }
    }

    /// The replay, when one plays.
    #[must_use]
    pub fn player(&self) -> Option<&Player> {
        match self {
            Self::Sim(_) => None,
            Self::Replay(player) => Some(player),
        }
    }

    /// The meta-broadphase, when the broadphase is `auto`.
    #[must_use]
    pub fn selector(&self) -> Option<&Selector> {
        self.run().broadphase().as_any()?.downcast_ref()
    }
}
