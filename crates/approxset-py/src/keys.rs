//! One Python key as the bytes the Rust `Key` hashes: `str` its UTF-8,
//! `bytes`/`bytearray`/`memoryview` their bytes, an integer (`int`, or an
//! object with `__index__` such as `numpy.int64`) the 8 little-endian bytes
//! of an `i64` (negative) or `u64`.

use approxset::{Digest, HashKey};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyMemoryView, PyString};

/// The 64 bits of an `int` key, whose 8 little-endian bytes are the key:
/// an `i64`'s two's complement when it is negative, a `u64` otherwise (the
/// two agree on 0..2⁶³).
#[inline(always)]
fn int_bits(i: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(v) = i.extract::<i64>() {
        return Ok(u64::from_le_bytes(v.to_le_bytes()));
    }
    i.extract::<u64>().map_err(|_| {
        PyOverflowError::new_err(
            "int key out of range: an int key is a 64-bit integer, -2**63 <= key < 2**64",
        )
    })
}

/// `operator.index(obj)`: the `int` of an integer-like object (NumPy
/// integer scalars), `None` for any other.
fn index<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    static INDEX: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let index = INDEX.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("operator")?.getattr("index")?.unbind())
    })?;
    match index.bind(py).call1((obj,)) {
        Ok(i) => Ok(Some(i.cast_into::<PyInt>()?)),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Calls `f` with the key bytes of `obj`, without copying `str` and `bytes`
/// (and their subclasses, such as `numpy.str_` and `numpy.bytes_`).
///
/// # Errors
/// `TypeError` for an object that is not a key, `OverflowError` for an
/// integer outside the 64-bit range, `UnicodeEncodeError` for a `str` with
/// lone surrogates.
#[inline]
pub(crate) fn with_key<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(f(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return Ok(f(&int_bits(i)?.to_le_bytes()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    if obj.cast::<PyMemoryView>().is_ok() {
        let copy = obj.call_method0("tobytes")?;
        return Ok(f(copy.cast::<PyBytes>()?.as_bytes()));
    }
    if let Some(i) = index(obj)? {
        return Ok(f(&int_bits(&i)?.to_le_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "a key is str, bytes, bytearray, memoryview or an integer, not {}",
        obj.get_type().name()?
    )))
}

/// The digest of the key `obj` under `key`.
///
/// An exact `int` (the commonest key of a Python loop) is told by one
/// pointer compare, where `with_key` asks the interpreter for the type's
/// flags three times, and is hashed as the `u64` of its bits: the digest of
/// the same 8 bytes (measured: `docs/guide.md`, "Speed against rbloom").
/// Inlined with `int_bits` into its callers, which then keep the result in
/// registers: 860 → 827 instructions a member `in` of the classic filter
/// (callgrind, `bench/int_icount.py`).
///
/// # Errors
/// As [`with_key`].
#[inline(always)]
pub(crate) fn digest_of(key: &HashKey, obj: &Bound<'_, PyAny>) -> PyResult<Digest> {
    if obj.is_exact_instance_of::<PyInt>() {
        return Ok(key.digest(&int_bits(obj)?));
    }
    with_key(obj, |bytes| key.digest_bytes(bytes))
}
