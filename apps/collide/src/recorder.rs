//! The window's recorder (F6, or the Record button): every step's boxes into a `.aabbs` file in Broadmark's
//! format, the same file `collide --headless --record` writes, so a scene flown through by hand can be replayed
//! into every broadphase (`--replay FILE`, or `cargo xtask bench --study replay`).
//!
//! Frames go to `FILE.partial` and the file takes its name when the recording stops (see
//! [`collide_aabbs::Writer`]). A frame that cannot be written because the scene changed under it (a body count
//! that changed, a box that is not finite) stops the recording and keeps the frames before it; only a failure
//! of the disk itself loses the file.

use crate::report::Report;
use collide_aabbs::{Problem, Writer};
use collide_math::Aabb;
use std::path::{Path, PathBuf};

/// A recording under way.
pub struct Recorder {
    writer: Writer,
    /// A frame's boxes in id order, when the simulation reordered its bodies.
    by_id: Vec<Aabb>,
}

impl Recorder {
    /// Start recording `run` into `path`. Refused, in one line, for a scenario whose body count grows as it
    /// runs (a `.aabbs` file holds a fixed count) and for a path that cannot be created.
    pub fn start(path: &Path, run: &dyn Report) -> Result<Self, String> {
        let (scene, objects) = run.recording_names()?;
        let writer =
            Writer::create(path, &scene, &objects, run.body_count(), run.container()).map_err(|e| e.to_string())?;
        Ok(Self { writer, by_id: Vec::new() })
    }

    /// Append one step's boxes, in id order (`ids`: each index's body id, `None` when index is id). An error ends
    /// the recording: call [`Recorder::finish`] with it.
    pub fn capture(&mut self, boxes: &[Aabb], ids: Option<&[u32]>) -> Result<(), collide_aabbs::AabbsError> {
        self.writer.write_frame(collide_sim::boxes_by_id(boxes, ids, &mut self.by_id))
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
