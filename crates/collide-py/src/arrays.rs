//! numpy arrays in, checked: every way an array can be wrong is a `ValueError` that names the argument and the
//! problem, raised before anything reaches a broadphase.

use collide_algorithms::{Aabb, Vec3};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

/// `what`'s dtype and shape, for a message (`float64 array of shape (10, 3)`), or its Python type when it is not a
/// numpy array.
fn describe(value: &Bound<'_, PyAny>) -> String {
    match value.cast::<PyUntypedArray>() {
        Ok(array) => {
            let dtype = array.dtype().str().map_or_else(|_| "?".to_owned(), |s| s.to_string());
            let shape: Vec<String> = array.shape().iter().map(ToString::to_string).collect();
            let comma = if shape.len() == 1 { "," } else { "" };
            format!("a {dtype} array of shape ({}{comma})", shape.join(", "))
        }
        Err(_) => format!("a {}", value.get_type().name().map_or_else(|_| "?".to_owned(), |s| s.to_string())),
    }
}

/// `value` as an `(n, 3)` float32 array named `what`.
fn corners<'py>(what: &str, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let wrong = || {
        PyValueError::new_err(format!(
            "{what} must be a float32 numpy array of shape (n, 3), one row per body; got {} \
             (np.asarray(x, dtype=np.float32).reshape(-1, 3) converts)",
            describe(value)
        ))
    };
    let Ok(untyped) = value.cast::<PyUntypedArray>() else { return Err(wrong()) };
    if untyped.ndim() != 2 || untyped.shape()[1] != 3 {
        return Err(wrong());
    }
    value.cast::<PyArray2<f32>>().cloned().map_err(|_| wrong())
}

/// Boxes per parallel task of [`copy_checked`]: 8192 boxes are 192 KiB written, large beside a task's overhead.
const CHUNK: usize = 8192;

/// `mins` and `maxs`, checked as `(n, 3)` float32 arrays of one row per body each, borrowed read-only while the
/// call lasts.
pub struct Corners<'py> {
    lo: PyReadonlyArray2<'py, f32>,
    hi: PyReadonlyArray2<'py, f32>,
}

impl<'py> Corners<'py> {
    /// Check the two arrays' type, dtype and shape.
    pub fn new(mins: &Bound<'py, PyAny>, maxs: &Bound<'py, PyAny>) -> PyResult<Self> {
        let (lo, hi) = (corners("mins", mins)?.readonly(), corners("maxs", maxs)?.readonly());
        let n = lo.shape()[0];
        if hi.shape()[0] != n {
            return Err(PyValueError::new_err(format!(
                "mins has {n} rows and maxs {}: they need one row per body each",
                hi.shape()[0]
            )));
        }
        u32::try_from(n)
            .map_err(|_| PyValueError::new_err(format!("{n} bodies: at most 2^32 - 1 are indexed by u32")))?;
        Ok(Self { lo, hi })
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.lo.shape()[0]
    }

    /// Both arrays as flat `x, y, z` slices, when they are contiguous (the common case: no copy is needed to read
    /// them from another thread).
    pub fn slices(&self) -> Option<(&[f32], &[f32])> {
        self.lo.as_slice().ok().zip(self.hi.as_slice().ok())
    }

    /// Copy arrays of any strides (a slice of a bigger array, Fortran order) into `out` as boxes, unchecked: the
    /// slow path, taken with the GIL held. [`first_invalid`] checks them.
    pub fn copy_strided(&self, out: &mut Vec<Aabb>) {
        let (lo, hi) = (self.lo.as_array(), self.hi.as_array());
        out.clear();
        out.extend(
            lo.rows()
                .into_iter()
                .zip(hi.rows())
                .map(|(a, b)| Aabb::new(Vec3::new(a[0], a[1], a[2]), Vec3::new(b[0], b[1], b[2]))),
        );
    }
}

/// Copy flat `mins` and `maxs` (`x, y, z` per body) into `out` as boxes and check every one in the same pass,
/// in parallel chunks; the first invalid box's index, if any. `out` keeps its length from call to call, so the
/// steady state writes each box once and allocates nothing. Call it from one of rayon's threads.
pub fn copy_checked(lo: &[f32], hi: &[f32], out: &mut Vec<Aabb>) -> Option<usize> {
    let n = lo.len() / 3;
    if out.len() != n {
        out.resize(n, Aabb::EMPTY);
    }
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(c, boxes)| {
            let (start, end) = (c * CHUNK, c * CHUNK + boxes.len());
            let (lo, hi) = (lo[3 * start..3 * end].as_chunks::<3>().0, hi[3 * start..3 * end].as_chunks::<3>().0);
            // Branch-free, so that the loop is a straight copy (the input is read from memory once, at its
            // bandwidth); the first invalid box is looked for only when the chunk has one.
            let mut valid = true;
            for ((b, a), z) in boxes.iter_mut().zip(lo).zip(hi) {
                *b = Aabb::new(Vec3::from_array(*a), Vec3::from_array(*z));
                valid &= collide_algorithms::is_valid_box(b);
            }
            if valid { None } else { first_invalid(boxes).map(|i| start + i) }
        })
        .min()
}

/// The index of the first box that is not finite or has `min > max`.
pub fn first_invalid(boxes: &[Aabb]) -> Option<usize> {
    boxes.iter().position(|b| !collide_algorithms::is_valid_box(b))
}

/// What is wrong with box `i`: a coordinate that is NaN or infinite, or an axis with `min > max`.
pub fn invalid_box(i: usize, b: &Aabb) -> String {
    let corners = format!("min {:?}, max {:?}", b.min.to_array(), b.max.to_array());
    if !(b.min.is_finite() && b.max.is_finite()) {
        let kind = if b.min.is_nan() || b.max.is_nan() { "NaN" } else { "infinite" };
        return format!("box {i} has a {kind} coordinate ({corners}): every coordinate must be finite");
    }
    let axis = (0..3).find(|&a| b.min[a] > b.max[a]).map_or("?", |a| ["x", "y", "z"][a]);
    format!("box {i} has min > max on the {axis} axis ({corners})")
}

/// `moved` as `n` flags into `out`: a bool array of shape `(n,)`.
pub fn flags_into(moved: &Bound<'_, PyAny>, n: usize, out: &mut Vec<bool>) -> PyResult<()> {
    let wrong = || {
        PyValueError::new_err(format!(
            "moved must be a bool numpy array of shape ({n},), one flag per body; got {}",
            describe(moved)
        ))
    };
    let flags = moved.cast::<PyArray1<bool>>().map_err(|_| wrong())?.readonly();
    if flags.len() != n {
        return Err(wrong());
    }
    out.clear();
    match flags.as_slice() {
        Ok(slice) => out.extend_from_slice(slice),
        Err(_) => out.extend(flags.as_array().iter().copied()),
    }
    Ok(())
}

/// `old_to_new` for `Broadphase.resize`: one integer per old body, its new index in `0..new_len` or -1 when it was
/// removed; checked to be injective.
pub fn resize_map(old_to_new: &Bound<'_, PyAny>, old_len: usize, new_len: usize) -> PyResult<Vec<u32>> {
    let values: Vec<i64> = old_to_new.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "old_to_new must be a sequence of integers (a new index, or -1 for a removed body); got {}",
            describe(old_to_new)
        ))
    })?;
    if values.len() != old_len {
        return Err(PyValueError::new_err(format!(
            "old_to_new has {} entries: it needs one per body of the last call ({old_len})",
            values.len()
        )));
    }
    let mut map = Vec::with_capacity(values.len());
    let mut taken = vec![false; new_len];
    for (old, &new) in values.iter().enumerate() {
        if new == -1 {
            map.push(collide_algorithms::Resize::REMOVED);
            continue;
        }
        let slot = usize::try_from(new).ok().filter(|&i| i < new_len).ok_or_else(|| {
            PyValueError::new_err(format!(
                "old_to_new[{old}] = {new}: a new index must be in 0..{new_len} (new_len), or -1 for removed"
            ))
        })?;
        if std::mem::replace(&mut taken[slot], true) {
            return Err(PyValueError::new_err(format!(
                "old_to_new maps two old bodies to new index {new}: each new index holds one body"
            )));
        }
        map.push(slot as u32);
    }
    Ok(map)
}
