//! [`Run`]: what a simulation and a replay both offer, so that the app and the headless runner drive either
//! without asking which.
//!
//! A [`Simulation`] steps bodies; a [`Replay`] reads a recorded file's boxes. Both feed a broadphase, keep a
//! record per step, go at a clock's pace and can switch their algorithm live; a recording of either is its boxes,
//! step by step. What only one of them has (the bodies, the scene's setup; the file's header, seeking) stays on
//! the type.

use crate::record::{RunSummary, StepRecord};
use crate::{Replay, Simulation};
use collide_aabbs::AabbsError;
use collide_algorithms::{AlgorithmDescriptor, Params};
use collide_broadphase::{Broadphase, PairList};
use collide_math::Aabb;
use collide_timing::Clock;

/// A run of a simulation or a replay (see the module docs).
pub trait Run {
    /// Every step's record since the start or since they were last cleared.
    fn records(&self) -> &[StepRecord];

    /// Forget the records (the app keeps only the last: a long session's would grow without bound).
    fn clear_records(&mut self);

    /// The summary of the records so far.
    fn summary(&self) -> RunSummary {
        RunSummary::of(self.records())
    }

    /// The clock.
    fn clock(&self) -> &Clock;

    /// The clock, to pause, single-step or take a new policy.
    fn clock_mut(&mut self) -> &mut Clock;

    /// The algorithm's registry row and parameters.
    fn algorithm(&self) -> (&'static AlgorithmDescriptor, &Params);

    /// Switch the broadphase; the new one starts cold. The pairs cannot change, only the time.
    fn set_algorithm(&mut self, algorithm: &'static AlgorithmDescriptor, params: Params);

    /// The active broadphase.
    fn broadphase(&self) -> &dyn Broadphase;

    /// The last step's boxes, body `i` at index `i` (in a reordered simulation, index is not id: a recording
    /// holds [`boxes_by_id`]).
    fn aabbs(&self) -> &[Aabb];

    /// Each index's body id ([`crate::Bodies::id`]), or `None` when index is id (a replay).
    fn ids(&self) -> Option<&[u32]>;

    /// The last step's pairs.
    fn pairs(&self) -> &PairList;

    /// The container, or the recorded world box.
    fn container(&self) -> Aabb;

    /// Bodies now (boxes per frame in a replay).
    fn body_count(&self) -> usize;

    /// The scenario's name, or the recording's scene name.
    fn scene_name(&self) -> &str;

    /// Run `frames` frames headless (a replay: fewer when its file ends), calling `each_step` after every step
    /// and `progress` after every frame with its index. Only a replay's file can fail.
    fn run_frames(
        &mut self,
        frames: u64,
        each_step: &mut (dyn FnMut(&dyn Run) + Send),
        progress: &mut (dyn FnMut(u64, &dyn Run) + Send),
    ) -> Result<(), AabbsError>;
}

/// The methods of [`Run`] that [`Simulation`] and [`Replay`] have under the same name and signature, each
/// handed to the type's own.
macro_rules! same_named {
    ($t:ident) => {
        fn records(&self) -> &[StepRecord] {
            $t::records(self)
        }

        fn clear_records(&mut self) {
            $t::clear_records(self);
        }

        fn clock(&self) -> &Clock {
            $t::clock(self)
        }

        fn clock_mut(&mut self) -> &mut Clock {
            $t::clock_mut(self)
        }

        fn algorithm(&self) -> (&'static AlgorithmDescriptor, &Params) {
            $t::algorithm(self)
        }

        fn set_algorithm(&mut self, algorithm: &'static AlgorithmDescriptor, params: Params) {
            $t::set_algorithm(self, algorithm, params);
        }

        fn broadphase(&self) -> &dyn Broadphase {
            $t::broadphase(self)
        }

        fn aabbs(&self) -> &[Aabb] {
            $t::aabbs(self)
        }

        fn pairs(&self) -> &PairList {
            $t::pairs(self)
        }
    };
}

impl Run for Simulation {
    same_named!(Simulation);

    fn ids(&self) -> Option<&[u32]> {
        Some(&self.bodies().id)
    }

    fn container(&self) -> Aabb {
        self.setup().container
    }

    fn body_count(&self) -> usize {
        self.bodies().len()
    }

    fn scene_name(&self) -> &str {
        self.setup().scenario.name
    }

    fn run_frames(
        &mut self,
        frames: u64,
        each_step: &mut (dyn FnMut(&dyn Run) + Send),
        progress: &mut (dyn FnMut(u64, &dyn Run) + Send),
    ) -> Result<(), AabbsError> {
        self.run_each(frames, |sim| each_step(sim), |f, sim| progress(f, sim));
        Ok(())
    }
}

impl Run for Replay {
    same_named!(Replay);

    fn ids(&self) -> Option<&[u32]> {
        None
    }

    fn container(&self) -> Aabb {
        self.header().world
    }

    fn body_count(&self) -> usize {
        self.header().n as usize
    }

    fn scene_name(&self) -> &str {
        &self.header().scene_name
    }

    /// One step per frame: a replay plays as fast as it reads, whatever its clock says.
    fn run_frames(
        &mut self,
        frames: u64,
        each_step: &mut (dyn FnMut(&dyn Run) + Send),
        progress: &mut (dyn FnMut(u64, &dyn Run) + Send),
    ) -> Result<(), AabbsError> {
        self.run(frames, |f, replay| {
            each_step(replay);
            progress(f, replay);
        })
    }
}

/// `boxes` in id order: body `id` at index `id`, as a recording holds them whether or not the simulation
/// reordered its bodies. `boxes` itself when index is id already (no reorder, or `ids` is `None`); otherwise a
/// scatter into `scratch`, reused. O(n).
pub fn boxes_by_id<'a>(boxes: &'a [Aabb], ids: Option<&[u32]>, scratch: &'a mut Vec<Aabb>) -> &'a [Aabb] {
    let Some(ids) = ids.filter(|ids| ids.iter().enumerate().any(|(i, &id)| id as usize != i)) else {
        return boxes;
    };
    scratch.clear();
    scratch.resize(boxes.len(), Aabb::default());
    for (b, &id) in boxes.iter().zip(ids) {
        scratch[id as usize] = *b;
    }
    scratch
}
