//! Size, count and rate arguments: an `int` (or `float`) out of range is a
//! `ParameterError` naming the argument, never an `OverflowError` of the
//! conversion.

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;

use crate::errors::Kind;

/// The `usize` argument `name` (a size or count).
///
/// # Errors
/// `ParameterError` naming `name` for an int below 0 or above the address
/// space, `TypeError` for an object that is not an int.
pub(crate) fn size(py: Python<'_>, obj: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    integer(py, obj, obj.extract(), name, &usize::MAX.to_string())
}

/// The `u64` argument `name` (a seed).
///
/// # Errors
/// As [`size`], for the range 0 to 2**64 - 1.
pub(crate) fn unsigned(py: Python<'_>, obj: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    integer(py, obj, obj.extract(), name, "2**64 - 1")
}

/// The optional `usize` argument `name`.
///
/// # Errors
/// As [`size`].
pub(crate) fn opt_size(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Option<usize>> {
    obj.filter(|o| !o.is_none())
        .map(|o| size(py, o, name))
        .transpose()
}

/// The optional `u64` argument `name`.
///
/// # Errors
/// As [`unsigned`].
pub(crate) fn opt_u64(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Option<u64>> {
    obj.filter(|o| !o.is_none())
        .map(|o| unsigned(py, o, name))
        .transpose()
}

/// The optional float argument `name`, 0.01 when it is not given.
///
/// # Errors
/// As [`rate`].
pub(crate) fn opt_rate(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<f64> {
    obj.filter(|o| !o.is_none())
        .map_or(Ok(0.01), |o| rate(py, o, name))
}

/// The float argument `name` (a rate; its range is the library's to check).
///
/// # Errors
/// `ParameterError` naming `name` for an int too large for a float,
/// `TypeError` for an object that is not a number.
pub(crate) fn rate(py: Python<'_>, obj: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    obj.extract::<f64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(py) {
            Kind::Parameter.err(py, format!("{name} must be in (0, 1), got {}", shown(obj)))
        } else {
            PyTypeError::new_err(format!("{name} must be a float, not {}", type_name(obj)))
        }
    })
}

/// The integer argument `obj` as `extracted`, with the errors of a type
/// whose largest value reads `max`.
fn integer<T>(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    extracted: PyResult<T>,
    name: &str,
    max: &str,
) -> PyResult<T> {
    extracted.map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(py) {
            Kind::Parameter.err(
                py,
                format!(
                    "{name} must be an integer from 0 to {max}, got {}",
                    shown(obj)
                ),
            )
        } else {
            PyTypeError::new_err(format!("{name} must be an int, not {}", type_name(obj)))
        }
    })
}

/// The value as the message shows it: its `repr`, cut short when long.
fn shown(obj: &Bound<'_, PyAny>) -> String {
    let repr = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    if repr.chars().count() > 40 {
        format!("{}…", repr.chars().take(40).collect::<String>())
    } else {
        repr
    }
}

/// The name of the value's type.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
