//! Box streams in Broadmark's `.aabbs` format: bring your own scene.
//!
//! Broadmark (Serpa & Rodrigues, *Computer Graphics Forum* 2020) benchmarks broadphases on **baked box streams**
//! recorded from real physics engines: every frame, every body's axis-aligned box. This crate reads and writes its
//! file format, so that a scene from any engine — or a run of collide itself — can be replayed into every
//! broadphase here (`scenario = "replay"` in collide-sim), and collide's scenes can be fed to Broadmark.
//!
//! # The format
//!
//! A 304-byte little-endian [`Header`] (two NUL-terminated names of 128 bytes, `i32 n`, `i32 frames`, two `i32`
//! padding fields that are 0, the world box as two `x, y, z, 0` f32 vectors), then frames of `n` boxes of 32 bytes
//! each: `min x, y, z, 0, max x, y, z, 0` in f32. The file holds `frames + 1` frames: Broadmark's generator writes
//! the bodies' initial boxes before the first step and one frame after each step, and its reader checks that the
//! size is exactly `304 + 32·n·(frames + 1)`. Here [`Header::frames`] is the number of frames the file holds.
//!
//! # What can go wrong, and what is said
//!
//! Every error is an [`AabbsError`]: one line starting with the file's path. [`Reader::open`] reads the header
//! and makes Broadmark's header checks (names of 1 to 127 printable characters followed only by NULs, `n ≥ 1`,
//! `frames ≥ 1`, padding 0, a valid world box with `w = 0`), then compares the file's length with what the header
//! promises without reading further: a frame cut short is a *truncated* file (which frame, how many of its bytes
//! are there), whole frames of another count a *frame count that does not match the size*.
//! [`Reader::read_frame`] checks every box as it decodes it — finite, `min <= max`, `w = 0` — and names the frame
//! and the box. The writer refuses what the reader would refuse, so a file collide writes passes Broadmark's checks.
//!
//! # Streaming
//!
//! The reader never holds the file, nor even one frame's bytes: it reads 64 KiB at a time and decodes into the
//! caller's `Vec<Aabb>`, which grows to `n` once and is reused after. A file larger than the machine's memory
//! replays as well as a small one; only one frame of boxes must fit. [`Reader::seek`] jumps to any frame (the
//! app's scrub bar). The writer streams the same way through a 64 KiB buffer into `PATH.partial`, writes the frame
//! count into the header and renames the file at [`Writer::finish`].
//!
//! # Complexity
//!
//! Opening is O(1) (the header and the file's metadata). Reading or writing a frame is O(n): 32 bytes per box,
//! decoded and checked in one pass. Memory: 64 KiB plus the caller's frame buffer (24 bytes per box).
//!
//! # Performance tips
//!
//! - Keep one `Vec<Aabb>` for the frames and pass it to every `read_frame`: nothing is allocated after the first.
//! - A replay is bounded by the disk only the first time: the operating system caches the file, so a second pass
//!   (every algorithm in turn, in the bench) reads from memory — 3.2 MB a frame at 100 000 boxes.
//! - [`Reader::check_frames`] validates a whole file before a run (streamed, then back to where it was), so that a
//!   bad box deep in a file is reported before anything is measured.
//!
//! Depends on `collide-math` only.

mod error;
mod header;
mod read;
mod write;

pub use error::{AabbsError, Problem};
pub use header::{BOX_BYTES, HEADER_BYTES, Header, decode_box, encode_box};
pub use read::Reader;
pub use write::{Writer, file_bytes};

#[cfg(test)]
mod tests;
