//! The 304-byte header: two names, the box and frame counts, two padding integers and the world box.
//!
//! ```text
//! offset  size  field
//!      0   128  scene name, printable ASCII, NUL-terminated, NUL-padded (at most 127 characters)
//!    128   128  objects type, the same
//!    256     4  i32 n: boxes per frame, ≥ 1
//!    260     4  i32 frames: frames after the first, ≥ 1 (the file holds frames + 1)
//!    264     8  two i32 padding fields, 0
//!    272    16  world min: x, y, z, 0.0 (f32)
//!    288    16  world max: x, y, z, 0.0 (f32)
//! ```
//!
//! Little-endian throughout. The checks are Broadmark's `Scene::ValidateHeader`: names of 1 to 127 printable
//! characters with only NULs after them, counts of at least 1, padding 0, and a world box with `min <= max` and
//! `w = 0` (we also want it finite).

use crate::error::{AabbsError, Problem};
use collide_math::{Aabb, Vec3};
use std::path::Path;

/// Bytes of the header.
pub const HEADER_BYTES: usize = 304;
/// Bytes of one name field.
const NAME_BYTES: usize = 128;
/// Bytes of one box: min x, y, z, 0, max x, y, z, 0 as f32.
pub const BOX_BYTES: usize = 32;

/// A file's header, as collide uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// What the scene is (`FreeFall`, `collide uniform`, …): 1 to 127 printable ASCII characters.
    pub scene_name: String,
    /// What the bodies are (`Cubes`, `Spheres`, `Assorted` in Broadmark's files): 1 to 127 printable characters.
    pub objects_type: String,
    /// Boxes per frame.
    pub n: u32,
    /// Frames the file holds. Broadmark's header stores one less: its first frame is the initial state, read
    /// before the timed ones, and its `frames` field counts the frames after it.
    pub frames: u64,
    /// The world box (the scene's container).
    pub world: Aabb,
}

impl Header {
    /// Bytes of one frame.
    #[must_use]
    pub fn frame_bytes(&self) -> u64 {
        u64::from(self.n) * BOX_BYTES as u64
    }

    /// The file length this header promises (saturated: a header can promise more than 2⁶⁴ bytes).
    #[must_use]
    pub fn file_bytes(&self) -> u64 {
        (HEADER_BYTES as u64).saturating_add(self.frames.saturating_mul(self.frame_bytes()))
    }

    /// The header's 304 bytes. The names and the world box must already be valid ([`Header::check`]).
    #[must_use]
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        out[..self.scene_name.len()].copy_from_slice(self.scene_name.as_bytes());
        out[NAME_BYTES..NAME_BYTES + self.objects_type.len()].copy_from_slice(self.objects_type.as_bytes());
        let steps = i32::try_from(self.frames.saturating_sub(1)).unwrap_or(i32::MAX);
        out[256..260].copy_from_slice(&(self.n.min(i32::MAX as u32) as i32).to_le_bytes());
        out[260..264].copy_from_slice(&steps.to_le_bytes());
        // 264..272: the padding, 0.
        out[272..304].copy_from_slice(&encode_box(&self.world));
        out
    }

    /// The header in `bytes`, checked as Broadmark's reader checks it. Errors name `path`.
    pub fn decode(bytes: &[u8; HEADER_BYTES], path: &Path) -> Result<Self, AabbsError> {
        let bad = |problem| AabbsError::new(path, problem);
        let scene_name = decode_name(&bytes[..NAME_BYTES], "scene name").map_err(bad)?;
        let objects_type = decode_name(&bytes[NAME_BYTES..2 * NAME_BYTES], "objects type").map_err(bad)?;
        let int = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (n, steps) = (int(256), int(260));
        if n <= 0 {
            return Err(bad(Problem::Count { field: "n", value: i64::from(n) }));
        }
        if steps <= 0 {
            return Err(bad(Problem::Count { field: "frames", value: i64::from(steps) }));
        }
        for (which, at) in [(1, 264), (2, 268)] {
            if int(at) != 0 {
                return Err(bad(Problem::Padding { which, value: int(at) }));
            }
        }
        let (world, w) = decode_box(bytes[272..304].try_into().expect("32 bytes"));
        if w != [0.0, 0.0] {
            return Err(bad(Problem::World(format!("has w = {} and {}; both must be 0", w[0], w[1]))));
        }
        world.check().map_err(|e| bad(Problem::World(format!("is invalid: {e}"))))?;
        Ok(Self { scene_name, objects_type, n: n as u32, frames: steps as u64 + 1, world })
    }

    /// What the writer must refuse before it writes anything: names Broadmark's reader would reject, an invalid
    /// world box, no boxes.
    pub fn check(&self) -> Result<(), Problem> {
        check_name(self.scene_name.as_bytes(), "scene name")?;
        check_name(self.objects_type.as_bytes(), "objects type")?;
        if self.n == 0 || self.n > i32::MAX as u32 {
            return Err(Problem::Count { field: "n", value: i64::from(self.n) });
        }
        self.world.check().map_err(|e| Problem::World(format!("is invalid: {e}")))
    }
}

/// A name field: the characters before the first NUL, which must be 1 to 127 printable ASCII characters, and only
/// NULs after it.
fn decode_name(field: &[u8], name: &'static str) -> Result<String, Problem> {
    let Some(end) = field.iter().position(|&b| b == 0) else {
        return Err(Problem::Name { field: name, why: "has no NUL in its 128 bytes".into() });
    };
    check_name(&field[..end], name)?;
    if let Some(i) = field[end..].iter().position(|&b| b != 0) {
        return Err(Problem::Name { field: name, why: format!("has a byte after its NUL, at offset {}", end + i) });
    }
    Ok(String::from_utf8(field[..end].to_vec()).expect("printable ASCII"))
}

/// 1 to 127 printable ASCII characters (C's `isprint`).
fn check_name(text: &[u8], name: &'static str) -> Result<(), Problem> {
    let why = if text.is_empty() {
        "is empty".to_owned()
    } else if text.len() >= NAME_BYTES {
        format!("is {} characters long; at most {} fit with the NUL", text.len(), NAME_BYTES - 1)
    } else if let Some(i) = text.iter().position(|b| !(0x20..=0x7e).contains(b)) {
        format!("has an unprintable byte 0x{:02x} at offset {i}", text[i])
    } else {
        return Ok(());
    };
    Err(Problem::Name { field: name, why })
}

/// A box's 32 bytes: min x, y, z, 0, max x, y, z, 0.
#[must_use]
pub fn encode_box(b: &Aabb) -> [u8; BOX_BYTES] {
    let mut out = [0u8; BOX_BYTES];
    for (i, v) in [b.min.x, b.min.y, b.min.z, 0.0, b.max.x, b.max.y, b.max.z, 0.0].into_iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// A box from its 32 bytes, and its two fourth components (which must be 0).
#[must_use]
pub fn decode_box(bytes: &[u8; BOX_BYTES]) -> (Aabb, [f32; 2]) {
    let f = |i: usize| f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    (Aabb::new(Vec3::new(f(0), f(1), f(2)), Vec3::new(f(4), f(5), f(6))), [f(3), f(7)])
}
