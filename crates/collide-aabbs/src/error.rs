//! What can be wrong with a `.aabbs` file, said in one line that names the file (and the frame and box).

use collide_math::AabbError;
use std::fmt;
use std::path::{Path, PathBuf};

/// A `.aabbs` file that cannot be read or written, and why. Its `Display` is one line starting with the path.
#[derive(Clone, Debug, PartialEq)]
pub struct AabbsError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: Problem,
}

/// What is wrong with a file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Problem {
    /// The operating system refused: the file is missing, unreadable, the disk is full…
    Io(String),
    /// The file is shorter than the 304-byte header.
    ShorterThanHeader {
        /// The file's length in bytes.
        len: u64,
    },
    /// A name field (`scene name` or `objects type`) is not 1 to 127 printable characters followed by NULs.
    Name {
        /// Which field.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
    /// `n` or `frames` is zero or negative.
    Count {
        /// Which field (`n` or `frames`).
        field: &'static str,
        /// Its value.
        value: i64,
    },
    /// One of the two padding integers is not 0.
    Padding {
        /// 1 or 2.
        which: u8,
        /// Its value.
        value: i32,
    },
    /// The world box is not finite, is inverted, or has a fourth component that is not 0.
    World(String),
    /// The file ends inside a frame: the header promises more bytes than there are.
    Truncated {
        /// The frame it ends in.
        frame: u64,
        /// The bytes of that frame that are present.
        present: u64,
        /// The bytes a frame takes.
        frame_bytes: u64,
        /// The file's length.
        len: u64,
        /// The length the header promises.
        expected: u64,
    },
    /// The file holds whole frames, but not as many as the header counts, or bytes follow the last frame.
    FrameCount {
        /// Frames the header counts (its `frames` field plus the first frame).
        header: u64,
        /// Whole frames the file's size holds.
        held: u64,
        /// Bytes after the last whole frame.
        extra: u64,
    },
    /// A box is not finite, has `min > max` on an axis, or has a fourth component that is not 0.
    Box {
        /// The frame, from 0 (the first frame of the file).
        frame: u64,
        /// The box, from 0.
        index: u64,
        /// What is wrong with it.
        why: String,
    },
    /// The writer was given a frame with another number of boxes than the file's.
    WrongBoxCount {
        /// The frame, from 0.
        frame: u64,
        /// Boxes given.
        got: usize,
        /// Boxes per frame in this file.
        expected: u32,
    },
    /// A file must hold at least two frames (the first and one more: Broadmark's reader wants `frames ≥ 1`).
    TooFewFrames {
        /// Frames written.
        frames: u64,
    },
    /// A frame of this many boxes cannot be held in memory (see [`crate::Reader::open`]'s caller).
    TooBig(String),
}

impl AabbsError {
    /// `problem` with the file at `path`.
    #[must_use]
    pub fn new(path: &Path, problem: Problem) -> Self {
        Self { path: path.to_path_buf(), problem }
    }

    /// An I/O error on `path`.
    #[must_use]
    pub fn io(path: &Path, e: &std::io::Error) -> Self {
        Self::new(path, Problem::Io(e.to_string()))
    }

    /// Box `index` of `frame` is invalid because of `e`.
    #[must_use]
    pub fn bad_box(path: &Path, frame: u64, index: u64, e: &AabbError) -> Self {
        Self::new(path, Problem::Box { frame, index, why: e.to_string() })
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::ShorterThanHeader { len } => {
                write!(f, "truncated: {len} bytes, shorter than the {}-byte header", crate::HEADER_BYTES)
            }
            Self::Name { field, why } => write!(f, "bad header: the {field} {why}"),
            Self::Count { field, value } => {
                write!(f, "bad header: {field} = {value}; it must be at least 1")
            }
            Self::Padding { which, value } => write!(f, "bad header: padding {which} is {value}; it must be 0"),
            Self::World(why) => write!(f, "bad header: the world box {why}"),
            Self::Truncated { frame, present, frame_bytes, len, expected } => write!(
                f,
                "truncated: the file ends {present} bytes into frame {frame} (a frame is {frame_bytes} bytes); the \
                 header promises {expected} bytes, the file has {len}"
            ),
            Self::FrameCount { header, held, extra } => {
                write!(f, "the frame count does not match the size: the header counts {header} frames")?;
                write!(f, " (its `frames` field is {}, plus the first frame), the file holds {held}", header - 1)?;
                if *extra > 0 {
                    write!(f, " and {extra} bytes more")?;
                }
                Ok(())
            }
            Self::Box { frame, index, why } => write!(f, "frame {frame}, box {index}: {why}"),
            Self::WrongBoxCount { frame, got, expected } => write!(
                f,
                "frame {frame} has {got} boxes; this file holds {expected} per frame (the format's count is fixed)"
            ),
            Self::TooFewFrames { frames } => write!(
                f,
                "{frames} frame(s) recorded; a .aabbs file needs at least 2 (the first, and one more: Broadmark's \
                 reader wants frames ≥ 1)"
            ),
            Self::TooBig(why) => write!(f, "{why}"),
        }
    }
}

impl fmt::Display for AabbsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for AabbsError {}
