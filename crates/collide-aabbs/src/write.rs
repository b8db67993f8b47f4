//! The writer: frames appended as they come, the frame count written into the header at the end.

use crate::error::{AabbsError, Problem};
use crate::header::{BOX_BYTES, HEADER_BYTES, Header, encode_box};
use collide_math::Aabb;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A `.aabbs` file being written. Frames go to `PATH.partial`; [`Writer::finish`] writes the frame count into the
/// header and renames the file, so that an interrupted recording never leaves a half file under the real name
/// (a writer dropped unfinished removes its partial file).
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    partial: PathBuf,
    file: Option<BufWriter<File>>,
    header: Header,
    /// Frames written so far.
    frames: u64,
}

impl Writer {
    /// Start a file of frames of `n` boxes in `world`, named by `scene_name` and `objects_type` (1 to 127
    /// printable ASCII characters each). Nothing is created when they are not valid.
    pub fn create(
        path: &Path,
        scene_name: &str,
        objects_type: &str,
        n: usize,
        world: Aabb,
    ) -> Result<Self, AabbsError> {
        let header = Header {
            scene_name: scene_name.to_owned(),
            objects_type: objects_type.to_owned(),
            n: u32::try_from(n).unwrap_or(u32::MAX),
            frames: 0,
            world,
        };
        header.check().map_err(|p| AabbsError::new(path, p))?;
        let mut name = path.file_name().unwrap_or_default().to_owned();
        name.push(".partial");
        let partial = path.with_file_name(name);
        let file = File::create(&partial).map_err(|e| AabbsError::io(path, &e))?;
        let mut file = BufWriter::with_capacity(1 << 16, file);
        // The count is not known yet: the header is written again by `finish`.
        file.write_all(&header.encode()).map_err(|e| AabbsError::io(path, &e))?;
        Ok(Self { path: path.to_path_buf(), partial, file: Some(file), header, frames: 0 })
    }

    /// The file's path (where `finish` puts it).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames written so far.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Boxes per frame.
    #[must_use]
    pub fn boxes_per_frame(&self) -> u32 {
        self.header.n
    }

    /// Append one frame: exactly `n` boxes, each valid (finite, `min <= max`), or nothing is written.
    pub fn write_frame(&mut self, boxes: &[Aabb]) -> Result<(), AabbsError> {
        let frame = self.frames;
        if boxes.len() != self.header.n as usize {
            let problem = Problem::WrongBoxCount { frame, got: boxes.len(), expected: self.header.n };
            return Err(AabbsError::new(&self.path, problem));
        }
        if let Some((index, e)) = boxes.iter().enumerate().find_map(|(i, b)| b.check().err().map(|e| (i, e))) {
            return Err(AabbsError::bad_box(&self.path, frame, index as u64, &e));
        }
        let file = self.file.as_mut().expect("open until finish");
        for b in boxes {
            file.write_all(&encode_box(b)).map_err(|e| AabbsError::io(&self.path, &e))?;
        }
        self.frames += 1;
        Ok(())
    }

    /// Write the frame count into the header, flush, and move the file to its path. Returns the frames written.
    /// Fewer than two frames is an error (Broadmark's reader wants at least one frame after the first), and the
    /// partial file is removed.
    pub fn finish(mut self) -> Result<u64, AabbsError> {
        if self.frames < 2 {
            return Err(AabbsError::new(&self.path, Problem::TooFewFrames { frames: self.frames }));
        }
        let io = |e: std::io::Error| AabbsError::io(&self.path, &e);
        self.header.frames = self.frames;
        let mut file = self.file.take().expect("open until finish").into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(&self.header.encode()).map_err(io)?;
        file.sync_all().map_err(io)?;
        debug_assert_eq!(file.metadata().map(|m| m.len()).ok(), Some(self.header.file_bytes()));
        drop(file);
        std::fs::rename(&self.partial, &self.path).map_err(io)?;
        Ok(self.frames)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Still open: never finished (an error, a panic, a recording abandoned).
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// Bytes of a file of `frames` frames of `n` boxes: what a recording will take on disk.
#[must_use]
pub fn file_bytes(n: usize, frames: u64) -> u64 {
    (HEADER_BYTES as u64).saturating_add((n as u64 * BOX_BYTES as u64).saturating_mul(frames))
}
