//! `collide.Broadphase`: one registered algorithm (or `auto`) with its state kept between calls.

use crate::{arrays, params};
use collide_algorithms::{Aabb, Broadphase, Frame, InvalidBoxes, PairList, Resize, keep_awake, on_worker, same_bits};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// A broadphase by registry name, fed each frame's boxes as numpy arrays.
#[pyclass(module = "collide._collide", name = "Broadphase")]
pub struct PyBroadphase {
    name: &'static str,
    /// Behind a mutex because a Python object may be shared between threads; a second thread that calls while
    /// the first works (with the GIL released) gets a `RuntimeError` rather than blocking with the GIL held.
    state: Mutex<State>,
}

/// What persists between calls.
struct State {
    broadphase: Box<dyn Broadphase>,
    /// The boxes of the last call (after a `resize`, moved to their new indices); the next call's boxes are
    /// written into `spare` and compared with these where the motion hint says "not moved".
    boxes: Vec<Aabb>,
    spare: Vec<Aabb>,
    /// `seen[i]`: the broadphase has been given body `i`'s box (false before the first call and for bodies
    /// added by a `resize`), so that a "not moved" flag about it can be checked.
    seen: Vec<bool>,
    /// The motion hint handed to the broadphase: the caller's flags, with unseen bodies marked moved.
    moved: Vec<bool>,
    pairs: PairList,
    /// The body count the next call must have: the last call's, or a `resize`'s `new_len`; `None` after a reset.
    n: Option<usize>,
    step: u64,
}

impl State {
    fn forget(&mut self) {
        self.broadphase.reset();
        self.n = None;
        self.boxes.clear();
        self.seen.clear();
        self.step = 0;
    }
}

#[pymethods]
impl PyBroadphase {
    /// `Broadphase(name="auto", **params)`: any name of `collide.algorithms()`, with its parameters.
    #[new]
    #[pyo3(signature = (name = "auto", **params))]
    fn new(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let broadphase = params::build(name, params)?;
        let name = broadphase.name();
        let state = State {
            broadphase,
            boxes: Vec::new(),
            spare: Vec::new(),
            seen: Vec::new(),
            moved: Vec::new(),
            pairs: PairList::new(),
            n: None,
            step: 0,
        };
        Ok(Self { name, state: Mutex::new(state) })
    }

    /// The registry name it was built with.
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The algorithm that answered the last call: its own name, or for `auto` the candidate it ran.
    #[getter]
    fn active_name(&self) -> PyResult<&'static str> {
        Ok(self.lock()?.broadphase.active_name())
    }

    /// The body count the next `find_pairs` must have, or `None` before the first call and after `reset()`.
    #[getter]
    fn n(&self) -> PyResult<Option<usize>> {
        Ok(self.lock()?.n)
    }

    /// Every pair of overlapping boxes, as an `(m, 2)` uint32 array: smaller index first, each pair once, in no
    /// particular order. `mins` and `maxs` are `(n, 3)` float32 arrays; body `i` is the same body from one call to
    /// the next unless `resize` said otherwise. `moved`, optional, is a bool array of shape `(n,)`: `False` at `i`
    /// promises box `i` is bit for bit the one of the previous call (checked: a broken promise is a `ValueError`).
    #[pyo3(signature = (mins, maxs, moved = None))]
    fn find_pairs<'py>(
        &self,
        py: Python<'py>,
        mins: &Bound<'py, PyAny>,
        maxs: &Bound<'py, PyAny>,
        moved: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let mut guard = self.lock()?;
        let state = &mut *guard;
        let corners = arrays::Corners::new(mins, maxs)?;
        let n = corners.len();
        if let Some(expected) = state.n.filter(|&e| e != n) {
            return Err(PyValueError::new_err(format!(
                "{n} boxes, but the last call had {expected} bodies: when bodies are added or removed, call \
                 resize(old_to_new, new_len) first (or reset() to start afresh)"
            )));
        }
        let hinted = moved.is_some();
        if let Some(moved) = moved {
            arrays::flags_into(moved, n, &mut state.moved)?;
        }
        let slices = corners.slices();
        // Without a hint the last call's boxes are not needed: the new ones go straight into `boxes`, the buffer
        // the broadphase read last time, so that it stays in the caches from frame to frame. With a hint they go
        // into `spare`, to be compared with the last call's before the two are swapped.
        if slices.is_none() {
            corners.copy_strided(if hinted { &mut state.spare } else { &mut state.boxes });
        }
        // With the GIL released, on one of rayon's threads: the boxes copied and checked in parallel, the hint
        // checked, and the broadphase run — one hand-over to the pool per call. `keep_awake` keeps the pool's
        // other threads spinning through the call: between two calls from Python they fall asleep, and waking one
        // for each of the broadphase's short parallel sections cost `grid` 4.1 ms a frame at 10⁵ bodies instead of
        // the 2.4 ms it takes called back to back from Rust.
        let outcome = py.detach(|| {
            on_worker(|| {
                keep_awake(|| {
                    let target = if hinted { &mut state.spare } else { &mut state.boxes };
                    let bad = match slices {
                        Some((lo, hi)) => arrays::copy_checked(lo, hi, target),
                        None => arrays::first_invalid(target),
                    };
                    if let Some(i) = bad {
                        let message = arrays::invalid_box(i, &target[i]);
                        if !hinted {
                            // The last call's boxes were overwritten: a later hint cannot be checked against them,
                            // so every body counts as unseen (moved) until the next call that succeeds.
                            state.seen.fill(false);
                        }
                        return Err(message);
                    }
                    state.seen.resize(n, false);
                    if hinted {
                        check_hint(state)?;
                        std::mem::swap(&mut state.boxes, &mut state.spare);
                    }
                    let frame =
                        Frame::new(&state.boxes).with_step(state.step).with_invalid_boxes(InvalidBoxes::OverlapNothing);
                    let frame = if hinted { frame.with_moved(&state.moved) } else { frame };
                    state.broadphase.find_pairs(&frame, &mut state.pairs);
                    Ok(())
                })
            })
        });
        outcome.map_err(PyValueError::new_err)?;
        state.seen.fill(true);
        state.n = Some(n);
        state.step += 1;
        let flat: Vec<u32> = state.pairs.iter().flat_map(|p| [p.a, p.b]).collect();
        let m = state.pairs.len();
        let array = Array2::from_shape_vec((m, 2), flat).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// Bodies were added or removed since the last call: `old_to_new[i]` is old body `i`'s new index, or -1 when it
    /// was removed; `new_len` is the new count. New indices that nothing maps to are bodies added since; their
    /// boxes come with the next `find_pairs` (mark them moved if you pass `moved`).
    fn resize(&self, old_to_new: &Bound<'_, PyAny>, new_len: usize) -> PyResult<()> {
        let mut guard = self.lock()?;
        let state = &mut *guard;
        let old_len = state.n.ok_or_else(|| {
            PyValueError::new_err("resize before the first find_pairs (or after reset()): there is nothing to map yet")
        })?;
        let map = arrays::resize_map(old_to_new, old_len, new_len)?;
        state.broadphase.on_resize(&Resize { old_to_new: &map, new_len });
        // Keep each surviving body's last box at its new index, so that a "not moved" flag can still be checked.
        state.spare.clear();
        state.spare.resize(new_len, Aabb::EMPTY);
        // A body keeps whether its last box is known: after a call that failed, none is (see `find_pairs`).
        let old_seen = std::mem::replace(&mut state.seen, vec![false; new_len]);
        for (old, &new) in map.iter().enumerate() {
            if new != Resize::REMOVED {
                state.spare[new as usize] = state.boxes[old];
                state.seen[new as usize] = old_seen.get(old).copied().unwrap_or(false);
            }
        }
        std::mem::swap(&mut state.boxes, &mut state.spare);
        state.n = Some(new_len);
        Ok(())
    }

    /// Forget every earlier frame: the next call may have any body count and starts as if it were the first.
    fn reset(&self) -> PyResult<()> {
        self.lock()?.forget();
        Ok(())
    }

    /// The last call's counters (`pair_tests`, `work`, `bytes_touched` and the algorithm's own), as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.lock()?.broadphase.stats();
        let out = PyDict::new(py);
        out.set_item("pair_tests", stats.pair_tests)?;
        out.set_item("work", stats.work)?;
        out.set_item("bytes_touched", stats.bytes_touched)?;
        for counter in stats.iter() {
            out.set_item(counter.name, counter.value)?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("collide.Broadphase({:?})", self.name)
    }
}

impl PyBroadphase {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::WouldBlock) => {
                Err(PyRuntimeError::new_err("this Broadphase is busy in another thread: use one Broadphase per thread"))
            }
            Err(TryLockError::Poisoned(_)) => {
                Err(PyRuntimeError::new_err("this Broadphase failed inside an earlier call: build a new one"))
            }
        }
    }
}

/// The caller's motion hint, made safe to hand on: a body the broadphase has not seen yet is marked moved, and a
/// seen body marked not moved must have kept its box bit for bit (the promise `Frame::with_moved` asks for).
fn check_hint(state: &mut State) -> Result<(), String> {
    for (i, flag) in state.moved.iter_mut().enumerate() {
        if *flag {
            continue;
        }
        if !state.seen[i] {
            *flag = true;
        } else if !same_bits(&state.boxes[i], &state.spare[i]) {
            return Err(format!(
                "moved[{i}] is False but box {i} changed since the last call (min {:?} → {:?}, max {:?} → {:?}): \
                 mark every box that changed as moved",
                state.boxes[i].min.to_array(),
                state.spare[i].min.to_array(),
                state.boxes[i].max.to_array(),
                state.spare[i].max.to_array(),
            ));
        }
    }
    Ok(())
}
