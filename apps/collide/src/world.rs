//! What the window shows: a simulated scene ([`Simulation`]) or a recorded one played back ([`Player`]). The
//! panels and the keys read both through [`World`]'s accessors, so they need not know which one runs.

use crate::player::Player;
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::Broadphase;
use collide_math::Aabb;
use collide_selector::Selector;
use collide_sim::{Config, FrameRecord, Simulation};
use collide_timing::Clock;

/// A simulated scene or a replay.
pub enum World {
    /// A generated scenario, simulated. Both variants are boxed: each holds hundreds of bytes of buffers' headers
    /// inline, of sizes that differ by more than clippy's bound, and one world lives per window.
    Sim(Box<Simulation>),
    /// `scenario = "replay"`: a `.aabbs` file's boxes, frame by frame.
    Replay(Box<Player>),
}

impl World {
    /// The world `config` describes. Errors are one line (a replay's name the file, frame and box).
    pub fn new(config: &Config) -> Result<Self, String> {
        if config.is_replay() {
            Player::new(config).map(|player| Self::Replay(Box::new(player)))
        } else {
            Simulation::new(config).map(|sim| Self::Sim(Box::new(sim))).map_err(|e| e.to_string())
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

    /// The container, or the recorded world box.
    #[must_use]
    pub fn container(&self) -> Aabb {
        match self {
            Self::Sim(sim) => sim.setup().container,
            Self::Replay(player) => player.replay().header().world,
        }
    }

    /// The scenario's name, or the recording's scene name.
    #[must_use]
    pub fn scene_name(&self) -> &str {
        match self {
            Self::Sim(sim) => sim.setup().scenario.name,
            Self::Replay(player) => &player.replay().header().scene_name,
        }
    }

    /// Bodies now (boxes per frame in a replay).
    #[must_use]
    pub fn body_count(&self) -> usize {
        match self {
            Self::Sim(sim) => sim.bodies().len(),
            Self::Replay(player) => player.replay().header().n as usize,
        }
    }

    /// The broadphase.
    #[must_use]
    pub fn broadphase(&self) -> &dyn Broadphase {
        match self {
            Self::Sim(sim) => sim.broadphase(),
            Self::Replay(player) => player.replay().broadphase(),
        }
    }

    /// The meta-broadphase, when the broadphase is `auto`.
    #[must_use]
    pub fn selector(&self) -> Option<&Selector> {
        self.broadphase().as_any()?.downcast_ref()
    }

    /// The algorithm's registry row and parameters.
    #[must_use]
    pub fn algorithm(&self) -> (&'static AlgorithmDescriptor, &Params) {
        match self {
            Self::Sim(sim) => sim.algorithm(),
            Self::Replay(player) => player.replay().algorithm(),
        }
    }

    /// Switch the broadphase; the new one starts cold.
    pub fn set_algorithm(&mut self, algorithm: &'static AlgorithmDescriptor, params: Params) {
        match self {
            Self::Sim(sim) => sim.set_algorithm(algorithm, params),
            Self::Replay(player) => player.replay_mut().set_algorithm(algorithm, params),
        }
    }

    /// The clock.
    #[must_use]
    pub fn clock(&self) -> &Clock {
        match self {
            Self::Sim(sim) => sim.clock(),
            Self::Replay(player) => player.clock(),
        }
    }

    /// The clock, to pause, step or retime.
    pub fn clock_mut(&mut self) -> &mut Clock {
        match self {
            Self::Sim(sim) => sim.clock_mut(),
            Self::Replay(player) => player.clock_mut(),
        }
    }

    /// The records since they were last cleared.
    #[must_use]
    pub fn records(&self) -> &[FrameRecord] {
        match self {
            Self::Sim(sim) => sim.records(),
            Self::Replay(player) => player.replay().records(),
        }
    }

    /// Forget the records (the app keeps only the last: a long session's would grow without bound).
    pub fn clear_records(&mut self) {
        match self {
            Self::Sim(sim) => sim.clear_records(),
            Self::Replay(player) => player.replay_mut().clear_records(),
        }
    }
}
