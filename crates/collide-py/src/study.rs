//! `collide._collide._play_from_rust`: the Rust side of the bench's `python` study (`xtask/src/bench/python.rs`),
//! run inside the Python process that times the Python side. Not part of the API: the leading underscore says so,
//! and `collide/__init__.py` does not export it.
//!
//! **Why in the same process:** this shared two-core machine's speed drifts by more than the 15% being judged, from
//! one play to the next — the same `grid` play from Rust measured 1.85 and 3.65 ms a frame in processes a minute
//! apart, and one from Python 3.52 and 2.46 ms in consecutive plays of one process. With the Rust side in processes
//! of its own, seconds away from the Python plays, three runs of the study (eleven rounds each) put `grid`'s
//! Python ÷ Rust at 1.100–1.201. Played in one process a tenth of a second apart, taking turns, both sides meet the
//! same machine, and the comparison is of the two ways of calling.

use collide_algorithms::{Aabb, Frame, PairList, keep_awake, on_worker};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// Play every frame of the `.aabbs` file at `path` through a fresh `name` (default parameters), as a Rust program
/// would: the frames read into memory first, then each `find_pairs` timed alone, on one of rayon's threads inside
/// `keep_awake` (as the module's own calls run, after their copy of the boxes). Returns, per frame after the first
/// `warm`, `(milliseconds, pairs, the algorithm that answered)`. The GIL is released while it plays. An unknown name
/// is a `ValueError`, a file that cannot be read an `OSError` and a bad one a `ValueError`, as `read_aabbs` raises.
#[pyfunction]
#[pyo3(name = "_play_from_rust")]
pub fn play_from_rust(
    py: Python<'_>,
    path: PathBuf,
    name: &str,
    warm: usize,
) -> PyResult<Vec<(f64, usize, &'static str)>> {
    let mut broadphase = collide_algorithms::build_default(name).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut reader = collide_aabbs::Reader::open(&path).map_err(crate::aabbs::error)?;
    let mut frames: Vec<Vec<Aabb>> = Vec::new();
    let mut frame = Vec::new();
    while reader.read_frame(&mut frame).map_err(crate::aabbs::error)? {
        frames.push(std::mem::take(&mut frame));
    }
    Ok(py.detach(|| {
        on_worker(|| {
            let mut pairs = PairList::new();
            let mut timed = Vec::with_capacity(frames.len().saturating_sub(warm));
            for (f, boxes) in frames.iter().enumerate() {
                let start = Instant::now();
                keep_awake(|| broadphase.find_pairs(&Frame::new(boxes).with_step(f as u64), &mut pairs));
                let ms = start.elapsed().as_secs_f64() * 1e3;
                if f >= warm {
                    timed.push((ms, pairs.len(), broadphase.active_name()));
                }
            }
            timed
        })
    }))
}
