//! The streaming reader: the header and the file's size checked on open, then one frame at a time into a buffer
//! the caller owns.

use crate::error::{AabbsError, Problem};
use crate::header::{BOX_BYTES, HEADER_BYTES, Header, decode_box};
use collide_math::Aabb;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Boxes decoded per read: 64 KiB of file at a time, whatever the frame's size.
const CHUNK_BOXES: usize = 2048;

/// A `.aabbs` file open for reading. Holds the file handle and a 64 KiB buffer, never a whole frame's bytes nor
/// the file: a file of any size streams through it.
#[derive(Debug)]
pub struct Reader {
    path: PathBuf,
    file: File,
    header: Header,
    /// The frame the next [`Reader::read_frame`] reads.
    next: u64,
    /// Raw bytes of one chunk of boxes.
    chunk: Vec<u8>,
}

impl Reader {
    /// Open `path`: read its header, check it as Broadmark's reader does, and check that the file's length is
    /// exactly what the header promises (from the file's metadata; nothing past the header is read).
    pub fn open(path: &Path) -> Result<Self, AabbsError> {
        let io = |e: std::io::Error| AabbsError::io(path, &e);
        let mut file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < HEADER_BYTES as u64 {
            return Err(AabbsError::new(path, Problem::ShorterThanHeader { len }));
        }
        let mut bytes = [0u8; HEADER_BYTES];
        file.read_exact(&mut bytes).map_err(io)?;
        let header = Header::decode(&bytes, path)?;
        check_size(&header, len).map_err(|p| AabbsError::new(path, p))?;
        Ok(Self { path: path.to_path_buf(), file, header, next: 0, chunk: vec![0; CHUNK_BOXES * BOX_BYTES] })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The frame the next [`Reader::read_frame`] reads, from 0.
    #[must_use]
    pub fn next_frame(&self) -> u64 {
        self.next
    }

    /// Read the next frame into `out` (cleared first; it grows to `n` boxes once and is reused after that) and
    /// check every box: finite, `min <= max`, fourth components 0. `Ok(false)` after the last frame. An error
    /// names the frame and the box; `out` then holds the boxes before the bad one.
    pub fn read_frame(&mut self, out: &mut Vec<Aabb>) -> Result<bool, AabbsError> {
        if self.next >= self.header.frames {
            return Ok(false);
        }
        let frame = self.next;
        out.clear();
        let n = self.header.n as usize;
        out.reserve(n);
        while out.len() < n {
            let count = (n - out.len()).min(CHUNK_BOXES);
            let bytes = &mut self.chunk[..count * BOX_BYTES];
            if let Err(e) = self.file.read_exact(bytes) {
                // The length was right on open: the file shrank since, or the disk failed. Where it ends now is
                // told from its length (a chunk cut short is not in `out`, and it may end before this frame).
                return Err(match e.kind() {
                    std::io::ErrorKind::UnexpectedEof => {
                        let len = self.file.metadata().map_or(0, |m| m.len());
                        let (body, frame_bytes) = (len.saturating_sub(HEADER_BYTES as u64), self.header.frame_bytes());
                        let (frame, present) = (body / frame_bytes, body % frame_bytes);
                        let expected = self.header.file_bytes();
                        AabbsError::new(&self.path, Problem::Truncated { frame, present, frame_bytes, len, expected })
                    }
                    _ => AabbsError::io(&self.path, &e),
                });
            }
            for record in bytes.chunks_exact(BOX_BYTES) {
                let (b, w) = decode_box(record.try_into().expect("32 bytes"));
                let index = out.len() as u64;
                if w != [0.0, 0.0] {
                    let why = format!("the fourth components are {} and {}; both must be 0", w[0], w[1]);
                    return Err(AabbsError::new(&self.path, Problem::Box { frame, index, why }));
                }
                if let Err(e) = b.check() {
                    return Err(AabbsError::bad_box(&self.path, frame, index, &e));
                }
                out.push(b);
            }
        }
        self.next += 1;
        Ok(true)
    }

    /// Make `frame` the next one [`Reader::read_frame`] reads (the app's scrub bar). A frame past the last is
    /// the end.
    pub fn seek(&mut self, frame: u64) -> Result<(), AabbsError> {
        let frame = frame.min(self.header.frames);
        let at = HEADER_BYTES as u64 + frame * self.header.frame_bytes();
        self.file.seek(SeekFrom::Start(at)).map_err(|e| AabbsError::io(&self.path, &e))?;
        self.next = frame;
        Ok(())
    }

    /// Read and check the next `frames` frames (at most to the end) into `scratch`, then come back to where the
    /// reader was: a whole file checked before it is used, a frame at a time.
    pub fn check_frames(&mut self, frames: u64, scratch: &mut Vec<Aabb>) -> Result<(), AabbsError> {
        let start = self.next;
        for _ in 0..frames {
            if !self.read_frame(scratch)? {
                break;
            }
        }
        self.seek(start)
    }
}

/// The file's `len` against what `header` promises: a frame cut short is a truncated file; whole frames of
/// another count, or bytes after the last frame, a frame count that does not match.
fn check_size(header: &Header, len: u64) -> Result<(), Problem> {
    let expected = header.file_bytes();
    if len == expected {
        return Ok(());
    }
    let frame_bytes = header.frame_bytes();
    let body = len - HEADER_BYTES as u64;
    let (held, rest) = (body / frame_bytes, body % frame_bytes);
    if len < expected && rest > 0 {
        return Err(Problem::Truncated { frame: held, present: rest, frame_bytes, len, expected });
    }
    Err(Problem::FrameCount { header: header.frames, held, extra: rest })
}
