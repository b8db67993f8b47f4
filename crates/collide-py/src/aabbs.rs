//! `collide.read_aabbs(path)`: a Broadmark `.aabbs` file as its header and an iterator over its frames, read by
//! `collide-aabbs` one frame at a time (a file of any size streams) with every box checked.

use collide_aabbs::{AabbsError, Header, Problem, Reader};
use collide_algorithms::Aabb;
use numpy::{PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Mutex;

/// Open `path`: its header is checked at once (and the file's size against it); frames are read as iterated.
#[pyfunction]
pub fn read_aabbs(path: PathBuf) -> PyResult<AabbsFile> {
    let reader = Reader::open(&path).map_err(error)?;
    let header = reader.header().clone();
    Ok(AabbsFile { header, reader: Mutex::new((reader, Vec::new())) })
}

/// An `AabbsError` as Python sees it: `OSError` when the system refused, `ValueError` when the file is wrong; the
/// message names the file (and the frame and box).
pub(crate) fn error(e: AabbsError) -> PyErr {
    match e.problem {
        Problem::Io(_) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// An open `.aabbs` file: `header`, `len(file)` frames, and `for mins, maxs in file` — each an `(n, 3)` float32
/// array.
#[pyclass(module = "collide._collide")]
pub struct AabbsFile {
    header: Header,
    /// The reader and the frame buffer it decodes into.
    reader: Mutex<(Reader, Vec<Aabb>)>,
}

#[pymethods]
impl AabbsFile {
    /// `{"scene_name", "objects_type", "n", "frames", "world_min", "world_max"}`; `frames` counts every frame the
    /// file holds (Broadmark's header field stores one less).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.header;
        let out = PyDict::new(py);
        out.set_item("scene_name", &h.scene_name)?;
        out.set_item("objects_type", &h.objects_type)?;
        out.set_item("n", h.n)?;
        out.set_item("frames", h.frames)?;
        let [x, y, z] = h.world.min.to_array();
        out.set_item("world_min", (x, y, z))?;
        let [x, y, z] = h.world.max.to_array();
        out.set_item("world_max", (x, y, z))?;
        Ok(out)
    }

    /// Boxes per frame.
    #[getter]
    fn n(&self) -> u32 {
        self.header.n
    }

    fn __len__(&self) -> usize {
        usize::try_from(self.header.frames).unwrap_or(usize::MAX)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next frame as `(mins, maxs)`; a bad box raises `ValueError` naming the frame and the box.
    #[allow(clippy::type_complexity, reason = "pyo3 spells out the tuple of arrays it returns")]
    fn __next__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<f32>>)>> {
        let mut guard =
            self.reader.try_lock().map_err(|_| PyRuntimeError::new_err("this file is being read by another thread"))?;
        let (reader, boxes) = &mut *guard;
        if !py.detach(|| reader.read_frame(boxes)).map_err(error)? {
            return Ok(None);
        }
        let n = boxes.len();
        let mins = PyArray2::<f32>::zeros(py, [n, 3], false);
        let maxs = PyArray2::<f32>::zeros(py, [n, 3], false);
        {
            let mut lo = mins.readwrite();
            let mut hi = maxs.readwrite();
            let (lo, hi) = (lo.as_slice_mut()?, hi.as_slice_mut()?);
            for (i, b) in boxes.iter().enumerate() {
                lo[3 * i..3 * i + 3].copy_from_slice(&b.min.to_array());
                hi[3 * i..3 * i + 3].copy_from_slice(&b.max.to_array());
            }
        }
        Ok(Some((mins, maxs)))
    }

    fn __repr__(&self) -> String {
        format!(
            "collide.AabbsFile(scene {:?}, {} boxes × {} frames)",
            self.header.scene_name, self.header.n, self.header.frames
        )
    }
}
