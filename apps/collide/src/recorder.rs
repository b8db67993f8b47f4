//! The window's recorder (F6, or the Record button): every step's boxes into a `.aabbs` file in Broadmark's
//! format, the same file `collide --headless --record` writes, so a scene flown through by hand can be replayed
//! into every broadphase (`--replay FILE`, or `cargo xtask bench --study replay`).
//!
//! Frames go to `FILE.partial` and the file takes its name when the recording stops (see
//! [`collide_aabbs::Writer`]). A frame that cannot be written because the scene changed under it (a body count
//! that changed, a box that is not finite) stops the recording and keeps the frames before it; only a failure
//! of the disk itself loses the file.

use crate::world::World;
use collide_aabbs::{Problem, Writer};
use collide_math::Aabb;
use collide_sim::ScenarioDescriptor;
use std::path::{Path, PathBuf};

/// The header's scene name and objects type of a recording of `scenario` (`--record` and F6 alike), or why it
/// cannot be recorded: a scenario whose body count grows as it runs, since a `.aabbs` file holds a fixed count.
pub fn names_of_simulated(scenario: &ScenarioDescriptor) -> Result<(String, &'static str), String> {
    if scenario.growth > 1 {
        return Err(format!(
            "cannot record `{}`: its body count changes as it runs, and a .aabbs file holds a fixed count",
            scenario.name
        ));
    }
    Ok((format!("collide {}", scenario.name), "Spheres"))
}

/// A recording under way.
pub struct Recorder {
    writer: Writer,
}

impl Recorder {
    /// Start recording `world` into `path`. Refused, in one line, for a scenario whose body count grows as it
    /// runs (a `.aabbs` file holds a fixed count) and for a path that cannot be created.
    pub fn start(path: &Path, world: &World) -> Result<Self, String> {
        let (scene, objects) = match world {
            World::Sim(sim) => names_of_simulated(sim.setup().scenario)?,
            World::Replay(player) => {
                let header = player.replay().header();
                (header.scene_name.clone(), header.objects_type.as_str())
            }
        };
        let writer =
            Writer::create(path, &scene, objects, world.body_count(), world.container()).map_err(|e| e.to_string())?;
        Ok(Self { writer })
    }

    /// Append one step's boxes. An error ends the recording: call [`Recorder::finish`] with it.
    pub fn capture(&mut self, boxes: &[Aabb]) -> Result<(), collide_aabbs::AabbsError> {
        self.writer.write_frame(boxes)
    }

    /// Frames recorded so far.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.writer.frames()
    }

    /// The file being written.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.writer.path()
    }

    /// Stop: give the file its name and say what it holds, or why it could not be kept. `cause` is the error
    /// that stopped the recording, if one did.
    pub fn finish(self, cause: Option<collide_aabbs::AabbsError>) -> Result<String, String> {
        let path: PathBuf = self.writer.path().to_path_buf();
        let n = self.writer.boxes_per_frame();
        let why = match &cause {
            // The disk failed mid-frame: the partial file may end inside a frame, so it is not kept.
            Some(e) if matches!(e.problem, Problem::Io(_)) => return Err(format!("recording lost: {e}")),
            Some(e) => format!(" (stopped: {e})"),
            None => String::new(),
        };
        let frames = self.writer.finish().map_err(|e| format!("recording not kept: {e}{why}"))?;
        Ok(format!("recorded {frames} frames of {n} boxes to {}{why}", path.display()))
    }
}
