//! `collide._collide._play_from_rust`: the Rust side of the bench's `python` study (`xtask/src/bench/python.rs`),
//! run inside the Python process that times the Python side. Not part of the API: the leading underscore says so,
//! and `collide/__init__.py` does not export it.
//!
//! **Why in the same process:** a process's speed on this shared two-core machine is set when it starts — the same
//! `grid` play from Rust measured 1.85 and 3.65 ms a frame in processes a minute apart, each steady within itself.
//! Judged across processes, a 15% target drowned in that: three runs of the study (eleven rounds each) put
//! `grid`'s Python ÷ Rust at 1.100–1.201. In one process both sides meet the same placement, the same neighbours
//! and the same heap, and the comparison is of the two ways of calling alone.

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
