//! `Broadphase(name, **params)`: Python keyword arguments to the registry's [`ParamInput`]s, checked by
//! [`collide_algorithms::build`] exactly as a config file's `[params.NAME]` table is.

use collide_algorithms::{Broadphase, ParamInput};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};

/// A keyword argument's value, owned until the registry has checked it.
enum Value {
    Number(f64),
    Text(String),
    List(Vec<String>),
}

/// Build `name` with the keyword arguments `params`: a number (`max_leaf=16`), a string of names separated by
/// commas or a list of names (`candidates=["sap", "grid"]`). Anything else, and anything the registry refuses,
/// is a `ValueError` naming the algorithm and the key.
pub fn build(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Box<dyn Broadphase>> {
    let mut given = Vec::new();
    for (key, value) in params.into_iter().flat_map(|d| d.iter()) {
        let key: String = key.extract()?;
        given.push((key.clone(), value_of(name, &key, &value)?));
    }
    let inputs = given.iter().map(|(key, value)| {
        let input = match value {
            Value::Number(x) => ParamInput::Number(*x),
            Value::Text(s) => ParamInput::Text(s),
            Value::List(list) => ParamInput::List(list),
        };
        (key.as_str(), input)
    });
    collide_algorithms::build(name, inputs).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn value_of(algorithm: &str, key: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyValueError::new_err(format!("{algorithm}: `{key}` = {value}: a bool is not a parameter value")));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(Value::Text(value.extract()?));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(Value::Number(x));
    }
    if let Ok(list) = value.extract::<Vec<String>>() {
        return Ok(Value::List(list));
    }
    Err(PyValueError::new_err(format!(
        "{algorithm}: `{key}` must be a number, a string or a list of algorithm names, not {}",
        value.get_type().name()?
    )))
}
