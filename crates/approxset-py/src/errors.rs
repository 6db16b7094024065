//! The Python exception of each library error, carrying its message.
//!
//! The exception classes live in `approxset/_errors.py` so that they can
//! have two bases (`ParameterError` is an `approxset.Error` and a
//! `ValueError`); they are looked up once and cached.

use approxset::Error;
use pyo3::exceptions::{PyMemoryError, PyOSError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// The package's exception classes, by the library error they stand for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// `approxset.ParameterError` (a `ValueError`): bad parameters, sizes
    /// out of range, filters that cannot be combined.
    Parameter,
    /// `approxset.CorruptFilterError` (a `ValueError`): bytes that are not
    /// a valid saved filter.
    Corrupt,
    /// `approxset.FullError`: the filter has no room left for the key.
    Full,
    /// `approxset.UnsupportedError` (a `TypeError`): the variant cannot do
    /// this (remove from a Bloom filter, add to a static filter, …).
    Unsupported,
    /// `approxset.SaturatedError`: a counting filter's key whose counters
    /// are all saturated, which cannot be removed.
    Saturated,
    /// `approxset.Error`: anything else.
    Other,
}

impl Kind {
    /// The class name in `approxset._errors`.
    fn name(self) -> &'static str {
        match self {
            Kind::Parameter => "ParameterError",
            Kind::Corrupt => "CorruptFilterError",
            Kind::Full => "FullError",
            Kind::Unsupported => "UnsupportedError",
            Kind::Saturated => "SaturatedError",
            Kind::Other => "Error",
        }
    }

    /// The exception of this kind with `message`.
    pub(crate) fn err(self, py: Python<'_>, message: impl Into<String>) -> PyErr {
        static CLASSES: [PyOnceLock<Py<PyType>>; 6] = [
            PyOnceLock::new(),
            PyOnceLock::new(),
            PyOnceLock::new(),
            PyOnceLock::new(),
            PyOnceLock::new(),
            PyOnceLock::new(),
        ];
        let message = message.into();
        let class = CLASSES[self as usize].get_or_try_init(py, || -> PyResult<Py<PyType>> {
            let module = py.import("approxset._errors")?;
            Ok(module.getattr(self.name())?.cast_into::<PyType>()?.unbind())
        });
        match class {
            Ok(class) => PyErr::from_type(class.bind(py).clone(), message),
            // The package is broken (the module is missing): still an
            // exception with the message, never a panic.
            Err(e) => e,
        }
    }
}

/// The Python exception for a library error, its message in Python's
/// terms: the argument `fp` (not `fp_rate`), `Filter.from_keys` (not
/// Rust functions).
pub(crate) fn to_py(py: Python<'_>, error: Error) -> PyErr {
    to_py_items(py, error, "expected_items")
}

/// [`to_py`], the library's `expected_items` named `items` as the Python
/// function calls it (`capacity`, `n`).
pub(crate) fn to_py_items(py: Python<'_>, error: Error, items: &str) -> PyErr {
    match &error {
        Error::InvalidParameter { name, reason } => {
            let name = match *name {
                "fp_rate" => "fp",
                "expected_items" => items,
                other => other,
            };
            return Kind::Parameter.err(py, format!("invalid {name}: {reason}"));
        }
        Error::StaticFilter { variant } => return static_filter(py, variant),
        _ => {}
    }
    let kind = match &error {
        Error::InvalidParameter { .. } | Error::TooLarge { .. } | Error::Incompatible { .. } => {
            Kind::Parameter
        }
        Error::AllocationFailed { .. } => return PyMemoryError::new_err(error.to_string()),
        Error::Io { .. } => return PyOSError::new_err(error.to_string()),
        Error::Full { .. } | Error::TooManyCopies { .. } | Error::CannotGrow { .. } => Kind::Full,
        Error::StaticFilter { .. }
        | Error::DeleteUnsupported { .. }
        | Error::Unsupported { .. } => Kind::Unsupported,
        Error::Truncated { .. }
        | Error::TrailingBytes { .. }
        | Error::BadMagic { .. }
        | Error::UnsupportedVersion { .. }
        | Error::UnknownVariant { .. }
        | Error::WrongVariant { .. }
        | Error::ChecksumMismatch { .. }
        | Error::Corrupt { .. } => Kind::Corrupt,
        _ => Kind::Other,
    };
    kind.err(py, error.to_string())
}

/// The error of an insert into the static `variant`.
pub(crate) fn static_filter(py: Python<'_>, variant: &str) -> PyErr {
    Kind::Unsupported.err(
        py,
        format!(
            "the {variant} filter is static: it takes no inserts \
             (build it from every key with Filter.from_keys)"
        ),
    )
}

/// The error of `operation` (`remove`, `count`, …) on `variant`, which
/// cannot delete: it names the variants that can.
pub(crate) fn cannot_delete(py: Python<'_>, variant: &str, operation: &str) -> PyErr {
    let can: Vec<&str> = approxset::Variant::ALL
        .iter()
        .filter(|v| v.supports_delete())
        .map(|v| v.name())
        .collect();
    let can = match can.split_last() {
        Some((last, [])) => format!("the {last} filter"),
        Some((last, rest)) => format!("the {} and {last} filters", rest.join(", ")),
        None => "no filter".into(),
    };
    let what = if operation == "count" {
        "counts no copies (use `key in f` to test a key)"
    } else {
        "cannot remove keys"
    };
    Kind::Unsupported.err(
        py,
        format!("the {variant} filter {what}: Filter.{operation} is for {can}"),
    )
}

/// `Result` of the library into `PyResult`.
pub(crate) trait IntoPy<T> {
    /// The value, or the library error as its Python exception.
    fn py(self, py: Python<'_>) -> PyResult<T>;

    /// [`py`](IntoPy::py), the library's `expected_items` named `items`.
    fn py_items(self, py: Python<'_>, items: &str) -> PyResult<T>;
}

impl<T> IntoPy<T> for approxset::Result<T> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }

    fn py_items(self, py: Python<'_>, items: &str) -> PyResult<T> {
        self.map_err(|e| to_py_items(py, e, items))
    }
}
