//! The batch calls' loop: read a chunk of keys with the GIL, hash it and
//! hand its digests on with the GIL released, until the keys end or one
//! fails. On an error every key before the failing one has been handed on
//! (`add_many`'s promise).

use approxset::{Digest, HashKey};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList};

use crate::chunk::{Raw, Scratch, Stop, hash_raw};
use crate::errors;
use crate::source::Source;

/// Runs `run` on each chunk of `source` with the GIL released, in order.
///
/// # Errors
/// The error of `run` (through `fail`), of a key that is not one (its
/// index in the input), or of the iterable; each after the keys before it
/// were handed to `run`.
fn each_chunk<E: Send>(
    py: Python<'_>,
    source: &mut Source<'_>,
    mut run: impl FnMut(&Raw<'_>, &mut Scratch) -> Result<(), Stop<E>> + Send,
    fail: impl Fn(E) -> PyErr,
) -> PyResult<()> {
    let mut scratch = Scratch::default();
    let mut done = 0usize;
    loop {
        let chunk = source.next_chunk()?;
        if chunk.is_end() {
            return Ok(());
        }
        let raw = &chunk.raw;
        match py.detach(|| run(raw, &mut scratch)) {
            Ok(()) => {}
            Err(Stop::Sink(e)) => return Err(fail(e)),
            Err(Stop::Key { index, message }) => {
                return Err(PyValueError::new_err(format!(
                    "{message} (the key at index {})",
                    done + index
                )));
            }
        }
        if let Some(e) = chunk.error {
            return Err(e);
        }
        done += raw.len;
    }
}

/// Hands the digests of every key of `source` under `key` to `insert`; on
/// an error, the keys before the failing one were handed on (and
/// `insert`'s own error leaves the digests before its failing one in).
///
/// # Errors
/// As [`each_chunk`], with `insert`'s library error as its exception.
pub(crate) fn insert_all(
    py: Python<'_>,
    source: &mut Source<'_>,
    key: HashKey,
    mut insert: impl FnMut(&[Digest]) -> approxset::Result<()> + Send,
) -> PyResult<()> {
    each_chunk(
        py,
        source,
        |raw, scratch| hash_raw(raw, &key, scratch, &mut insert),
        |e| errors::to_py(py, e),
    )
}

/// The digests of every key of `source` under `key`, all at once (16 bytes
/// a key, reserved up front when the number is known).
///
/// # Errors
/// As [`each_chunk`]; `MemoryError` when the digests cannot be allocated.
pub(crate) fn digests_all(
    py: Python<'_>,
    source: &mut Source<'_>,
    key: HashKey,
) -> PyResult<Vec<Digest>> {
    let mut all: Vec<Digest> = Vec::new();
    if let Some(n) = source.len() {
        all.try_reserve_exact(n).map_err(|_| no_memory(n))?;
    }
    each_chunk(
        py,
        source,
        |raw, scratch| {
            hash_raw(raw, &key, scratch, |d| {
                all.try_reserve(d.len()).map_err(|_| ())?;
                all.extend_from_slice(d);
                Ok(())
            })
        },
        |()| PyMemoryError::new_err("cannot allocate the keys' digests"),
    )?;
    Ok(all)
}

/// The error of `n` digests that cannot be allocated.
fn no_memory(n: usize) -> PyErr {
    PyMemoryError::new_err(format!("cannot allocate the digests of {n} keys"))
}

/// Whether each key of `source` may be in the filter, as `lookup` answers
/// for its digests: a NumPy bool array for a NumPy or Arrow array (written
/// in place when the number of keys is known), else a list of bools.
///
/// # Errors
/// As [`each_chunk`].
pub(crate) fn contains_all<'py>(
    py: Python<'py>,
    source: &mut Source<'_>,
    key: HashKey,
    mut lookup: impl FnMut(&[Digest], &mut Vec<bool>) + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let (array, len) = (source.array, source.len());
    let mut answers = Vec::new();
    let mut put = |put: &mut (dyn FnMut(&[bool]) -> Result<(), ()> + Send)| {
        each_chunk(
            py,
            source,
            |raw, scratch| {
                hash_raw(raw, &key, scratch, |d| {
                    lookup(d, &mut answers);
                    put(&answers)
                })
            },
            |()| PyValueError::new_err("the array changed its length during the call"),
        )
    };
    if !array {
        let mut all = Vec::new();
        put(&mut |a| {
            all.extend_from_slice(a);
            Ok(())
        })?;
        return Ok(PyList::new(py, all)?.into_any());
    }
    let bytes = match len {
        // Written in place: the answers take one byte a key, once.
        Some(n) => PyByteArray::new_with(py, n, |out| {
            let mut at = 0;
            put(&mut |a| {
                let to = out.get_mut(at..at + a.len()).ok_or(())?;
                for (o, &b) in to.iter_mut().zip(a) {
                    *o = u8::from(b);
                }
                at += a.len();
                Ok(())
            })?;
            if at != n {
                return Err(PyValueError::new_err(
                    "the array changed its length during the call",
                ));
            }
            Ok(())
        })?,
        None => {
            let mut all = Vec::new();
            put(&mut |a| {
                all.extend(a.iter().map(|&b| u8::from(b)));
                Ok(())
            })?;
            PyByteArray::new(py, &all)
        }
    };
    let numpy = py.import("numpy")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", numpy.getattr("bool_")?)?;
    numpy.call_method("frombuffer", (bytes,), Some(&kwargs))
}
