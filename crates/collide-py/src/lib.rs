//! collide for Python: the extension module `collide._collide`, which the pure-Python package `collide`
//! (`python/collide/__init__.py`) re-exports.
//!
//! - `algorithms` and `describe`: the registry's names, and one algorithm's summary and parameters;
//! - `broadphase::PyBroadphase` (`collide.Broadphase(name="auto", **params)`): a broadphase that keeps its state
//!   between calls, fed `(n, 3)` float32 arrays of box corners, answering an `(m, 2)` uint32 array of pairs;
//! - `aabbs::read_aabbs` (`collide.read_aabbs(path)`): Broadmark's `.aabbs` files, a header and a frame iterator;
//! - `study::play_from_rust` (`_collide._play_from_rust`, not exported): the bench's `python` study's Rust side.
//!
//! Everything a user passes is checked before it reaches a broadphase (`arrays.rs`): a wrong shape or dtype, a NaN
//! or infinite coordinate, `min > max`, a body count that changes without `resize`, a motion hint that promises a
//! box did not move when it did — each raises `ValueError` naming the problem, never a panic. The work itself
//! runs with the GIL released, on one of rayon's threads (as `collide_algorithms::on_worker` recommends), and the
//! pairs are written straight into the numpy array returned, with no Python object per pair.
//!
//! Built by maturin (`pyproject.toml`); tested by the pytest suite in `tests/`, which `cargo xtask test` runs in a
//! virtual environment of its own.

mod aabbs;
mod arrays;
mod broadphase;
mod params;
mod study;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The registered algorithm names, in the registry's order (`brute` first, `auto` last).
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    collide_algorithms::names().collect()
}

/// One algorithm's summary and parameters: `{"name", "summary", "params": {key: {...}}}`, where a number's entry
/// has `description`, `default`, `min`, `max` and `integer`, and a list of names (`auto`'s `candidates`) has
/// `description` and `choices`.
#[pyfunction]
fn describe<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let descriptor = collide_algorithms::find(name).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let params = PyDict::new(py);
    for spec in descriptor.params {
        let entry = PyDict::new(py);
        entry.set_item("description", spec.description)?;
        match spec.kind {
            collide_algorithms::ParamKind::Number { default, min, max, integer } => {
                entry.set_item("default", default)?;
                entry.set_item("min", min)?;
                entry.set_item("max", max)?;
                entry.set_item("integer", integer)?;
            }
            collide_algorithms::ParamKind::Algorithms { .. } => {
                let choices: Vec<&str> = spec.accepted_names(collide_algorithms::ALGORITHMS).collect();
                entry.set_item("choices", choices)?;
            }
        }
        params.set_item(spec.name, entry)?;
    }
    let out = PyDict::new(py);
    out.set_item("name", descriptor.name)?;
    out.set_item("summary", descriptor.summary)?;
    out.set_item("params", params)?;
    Ok(out)
}

/// The module: `collide._collide`.
#[pymodule]
fn _collide(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(aabbs::read_aabbs, m)?)?;
    m.add_function(wrap_pyfunction!(study::play_from_rust, m)?)?;
    m.add_class::<broadphase::PyBroadphase>()?;
    m.add_class::<aabbs::AabbsFile>()?;
    Ok(())
}
