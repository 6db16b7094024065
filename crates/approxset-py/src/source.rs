//! The keys of a batch call, read a chunk at a time: lists and tuples by
//! index, other iterables by `next`, NumPy and Arrow arrays from their
//! buffers (see `arrays.rs`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyList, PyString, PyTuple};

use crate::arrays::{self, Arrow, Numpy, NumpyKeys};
use crate::chunk::{CHUNK_BYTES, CHUNK_KEYS, Layout, Raw};
use crate::keys::with_key;

/// Where the keys come from.
#[derive(Debug)]
enum Origin<'py> {
    /// A list, read by index (so that a list that changes size while it is
    /// read ends where it ends).
    List {
        list: Bound<'py, PyList>,
        next: usize,
    },
    Tuple {
        tuple: Bound<'py, PyTuple>,
        next: usize,
    },
    Iterator(Bound<'py, PyIterator>),
    Numpy(Numpy<'py>),
    Arrow(Arrow<'py>),
    /// The end, or an error of the iterable was raised.
    Done,
}

/// The keys of an iterable, read a chunk at a time.
#[derive(Debug)]
pub(crate) struct Source<'py> {
    from: Origin<'py>,
    /// Whether the keys come from a NumPy or Arrow array (answers are then
    /// a NumPy array).
    pub(crate) array: bool,
    /// The keys of a list or iterator's chunk, back to back.
    data: Vec<u8>,
    ends: Vec<usize>,
}

/// A chunk of keys, and the error of the one that follows it, which the
/// caller raises once it has handled the chunk's keys.
#[derive(Debug)]
pub(crate) struct Chunk<'s> {
    pub(crate) raw: Raw<'s>,
    pub(crate) error: Option<PyErr>,
}

impl Chunk<'_> {
    /// Whether the keys have ended (no keys and no error).
    pub(crate) fn is_end(&self) -> bool {
        self.raw.len == 0 && self.error.is_none()
    }
}

impl<'py> Source<'py> {
    /// The keys of `keys`: a list, tuple or other iterable of keys, a 1-D
    /// NumPy array (integers, `S`, `U` or objects) or an Arrow string or
    /// binary array.
    ///
    /// # Errors
    /// `TypeError` for a single `str` or `bytes` key, an object that is
    /// not iterable, or an array of other items (see `arrays.rs`).
    pub(crate) fn new(keys: &Bound<'py, PyAny>) -> PyResult<Self> {
        let (from, array) = if let Ok(list) = keys.cast::<PyList>() {
            (
                Origin::List {
                    list: list.clone(),
                    next: 0,
                },
                false,
            )
        } else if let Ok(tuple) = keys.cast::<PyTuple>() {
            (
                Origin::Tuple {
                    tuple: tuple.clone(),
                    next: 0,
                },
                false,
            )
        } else if let Some(numpy) = arrays::numpy(keys)? {
            match numpy {
                NumpyKeys::Buffer(numpy) => (Origin::Numpy(numpy), true),
                NumpyKeys::Objects => (Origin::Iterator(keys.try_iter()?), true),
            }
        } else if let Some(arrow) = arrays::arrow(keys)? {
            (Origin::Arrow(arrow), true)
        } else if keys.cast::<PyString>().is_ok() || keys.cast::<PyBytes>().is_ok() {
            return Err(PyTypeError::new_err(
                "expected an iterable of keys, not a single str or bytes key (wrap it in a list)",
            ));
        } else {
            (Origin::Iterator(keys.try_iter()?), false)
        };
        Ok(Source {
            from,
            array,
            data: Vec::new(),
            ends: Vec::new(),
        })
    }

    /// The number of keys when it is known before reading them (lists,
    /// tuples and arrays read from their buffers).
    pub(crate) fn len(&self) -> Option<usize> {
        match &self.from {
            Origin::List { list, .. } => Some(list.len()),
            Origin::Tuple { tuple, .. } => Some(tuple.len()),
            Origin::Numpy(numpy) => Some(numpy.len()),
            Origin::Arrow(arrow) => Some(arrow.len()),
            Origin::Iterator(_) | Origin::Done => None,
        }
    }

    /// The next chunk of keys: at most `CHUNK_KEYS` keys and, past the
    /// first, `CHUNK_BYTES` bytes. A key that is not one (or an iterator
    /// that raises) ends the chunk before it, with its error.
    ///
    /// # Errors
    /// An array whose buffer does not hold what it claims.
    pub(crate) fn next_chunk(&mut self) -> PyResult<Chunk<'_>> {
        if matches!(self.from, Origin::Numpy(_) | Origin::Arrow(_)) {
            return match &mut self.from {
                Origin::Numpy(numpy) => Ok(Chunk {
                    raw: numpy.next_chunk()?,
                    error: None,
                }),
                Origin::Arrow(arrow) => {
                    let (raw, error) = arrow.next_chunk()?;
                    Ok(Chunk { raw, error })
                }
                _ => Ok(Chunk {
                    raw: Raw::EMPTY,
                    error: None,
                }),
            };
        }
        self.data.clear();
        self.ends.clear();
        let error = match &mut self.from {
            Origin::Done | Origin::Numpy(_) | Origin::Arrow(_) => None,
            // The length is read again for each key: a key's `__index__`
            // may change the list.
            Origin::List { list, next } => gather(&mut self.data, &mut self.ends, || {
                let item = list.get_item(*next).ok()?;
                *next += 1;
                Some(Ok(item))
            }),
            Origin::Tuple { tuple, next } => gather(&mut self.data, &mut self.ends, || {
                let item = tuple.get_item(*next).ok()?;
                *next += 1;
                Some(Ok(item))
            }),
            Origin::Iterator(iter) => gather(&mut self.data, &mut self.ends, || iter.next()),
        };
        if error.is_some() {
            self.from = Origin::Done;
        }
        Ok(Chunk {
            raw: Raw {
                data: &self.data,
                layout: Layout::Offsets { ends: &self.ends },
                len: self.ends.len(),
            },
            error,
        })
    }
}

/// Appends the keys of `next`'s items to `data` (ending at `ends`) until a
/// chunk is full or the items end; returns the error of an item that is
/// not a key (or of `next`), which ends it.
fn gather<'py>(
    data: &mut Vec<u8>,
    ends: &mut Vec<usize>,
    mut next: impl FnMut() -> Option<PyResult<Bound<'py, PyAny>>>,
) -> Option<PyErr> {
    while ends.len() < CHUNK_KEYS && data.len() <= CHUNK_BYTES {
        let item = next()?;
        if let Err(e) = item.and_then(|item| with_key(&item, |b| data.extend_from_slice(b))) {
            return Some(e);
        }
        ends.push(data.len());
    }
    None
}
