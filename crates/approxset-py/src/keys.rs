//! Python keys as the bytes the Rust `Key` hashes: `str` its UTF-8,
//! `bytes`/`bytearray`/`memoryview` their bytes, `int` the 8 little-endian
//! bytes of an `i64` (negative) or `u64`; and batches of keys (lists,
//! iterables, NumPy and Arrow arrays) gathered into one buffer so that
//! hashing and probing run without the GIL.

use std::borrow::Cow;

use approxset::{Digest, HashKey};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyList, PyMemoryView, PyString, PyTuple};

/// The 8 little-endian bytes of an `int` key: an `i64` when it is negative,
/// a `u64` otherwise (they agree on 0..2⁶³).
#[inline]
fn int_bytes(i: &Bound<'_, PyInt>) -> PyResult<[u8; 8]> {
    if let Ok(v) = i.extract::<i64>() {
        return Ok(v.to_le_bytes());
    }
    match i.extract::<u64>() {
        Ok(v) => Ok(v.to_le_bytes()),
        Err(_) => Err(PyOverflowError::new_err(
            "int key out of range: an int key is a 64-bit integer, -2**63 <= key < 2**64",
        )),
    }
}

/// Calls `f` with the key bytes of `obj`, without copying `str` and `bytes`.
///
/// # Errors
/// `TypeError` for an object that is not a key, `OverflowError` for an
/// `int` outside the 64-bit range, `UnicodeEncodeError` for a `str` with
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
        return Ok(f(&int_bytes(i)?));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    if obj.cast::<PyMemoryView>().is_ok() {
        let copy = obj.call_method0("tobytes")?;
        return Ok(f(copy.cast::<PyBytes>()?.as_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "a key is str, bytes, bytearray, memoryview or int, not {}",
        obj.get_type().name()?
    )))
}

/// The digest of the key `obj` under `key`.
#[inline]
pub(crate) fn digest_of(key: &HashKey, obj: &Bound<'_, PyAny>) -> PyResult<Digest> {
    with_key(obj, |bytes| key.digest_bytes(bytes))
}

/// Where each key of a [`Batch`] ends in its buffer.
#[derive(Debug)]
enum Ends {
    /// Keys of `width` bytes back to back (NumPy integers: 8).
    Fixed { width: usize },
    /// Keys of `width` bytes padded with NUL bytes, which are not part of
    /// the key (NumPy `S` arrays, as NumPy reads their items).
    NulPadded { width: usize },
    /// The end of each key (its start is the previous end).
    Offsets(Vec<usize>),
}

/// Keys gathered into one buffer, readable without the GIL.
#[derive(Debug)]
pub(crate) struct Batch<'a> {
    data: Cow<'a, [u8]>,
    ends: Ends,
    /// The key at `ends` index 0 starts here (an Arrow slice's first offset).
    start: usize,
    len: usize,
    /// Whether the keys came from a NumPy or Arrow array (answers are then
    /// a NumPy array).
    pub(crate) array: bool,
}

impl Batch<'_> {
    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The key at `i < len()`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        match &self.ends {
            Ends::Fixed { width } => &self.data[i * width..(i + 1) * width],
            Ends::NulPadded { width } => {
                let item = &self.data[i * width..(i + 1) * width];
                let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                &item[..end]
            }
            Ends::Offsets(ends) => {
                let start = if i == 0 { self.start } else { ends[i - 1] };
                &self.data[start..ends[i]]
            }
        }
    }

    /// The keys, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Hands the digests of the keys under `key` to `f`, a chunk at a time
    /// (so that they stay in the cache), stopping at the first error.
    pub(crate) fn for_digests<E>(
        &self,
        key: &HashKey,
        f: impl FnMut(&[Digest]) -> Result<(), E>,
    ) -> Result<(), E> {
        // One loop per layout, so that the key's bounds are not matched per key.
        let data = &self.data[..];
        match &self.ends {
            Ends::Fixed { width } => hash_chunks(key, data.chunks_exact(*width), f),
            Ends::NulPadded { width } => hash_chunks(
                key,
                data.chunks_exact(*width).map(|item| {
                    let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                    &item[..end]
                }),
                f,
            ),
            Ends::Offsets(ends) => hash_chunks(
                key,
                std::iter::once(self.start)
                    .chain(ends.iter().copied())
                    .zip(ends)
                    .map(|(start, &end)| &data[start..end]),
                f,
            ),
        }
    }
}

/// Hashes `keys` under `key` a chunk at a time and hands each chunk's
/// digests to `f`, stopping at the first error.
fn hash_chunks<'k, E>(
    key: &HashKey,
    keys: impl Iterator<Item = &'k [u8]>,
    mut f: impl FnMut(&[Digest]) -> Result<(), E>,
) -> Result<(), E> {
    const CHUNK: usize = 1024;
    let mut buf = [Digest::new(0, 0); CHUNK];
    let mut n = 0;
    for k in keys {
        buf[n] = key.digest_bytes(k);
        n += 1;
        if n == CHUNK {
            f(&buf)?;
            n = 0;
        }
    }
    if n > 0 {
        f(&buf[..n])?;
    }
    Ok(())
}

/// A growing batch of owned keys.
#[derive(Debug, Default)]
struct Owned {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Owned {
    fn push(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        with_key(obj, |bytes| self.data.extend_from_slice(bytes))?;
        self.ends.push(self.data.len());
        Ok(())
    }

    fn into_batch(self) -> Batch<'static> {
        Batch {
            len: self.ends.len(),
            data: Cow::Owned(self.data),
            ends: Ends::Offsets(self.ends),
            start: 0,
            array: false,
        }
    }
}

/// Gathers the keys of an iterable, `chunk` at a time (all at once for
/// `None`), handing each batch to `f`. Lists and tuples, NumPy arrays
/// (integers, `S` and `U` strings, objects) and Arrow string or binary
/// arrays are read without a Python call per key where possible.
pub(crate) fn for_batches(
    keys: &Bound<'_, PyAny>,
    chunk: Option<usize>,
    mut f: impl FnMut(&Batch<'_>) -> PyResult<()>,
) -> PyResult<()> {
    if let Some(batch) = array_batch(keys)? {
        return f(&batch);
    }
    if keys.cast::<PyString>().is_ok() || keys.cast::<PyBytes>().is_ok() {
        return Err(PyTypeError::new_err(
            "expected an iterable of keys, not a single str or bytes key (wrap it in a list)",
        ));
    }
    let limit = chunk.unwrap_or(usize::MAX);
    let mut owned = Owned::default();
    let mut flush = |owned: &mut Owned| -> PyResult<()> {
        let full = std::mem::take(owned);
        f(&full.into_batch())
    };
    if let Ok(list) = keys.cast::<PyList>() {
        for item in list.iter() {
            owned.push(&item)?;
            if owned.ends.len() >= limit {
                flush(&mut owned)?;
            }
        }
    } else if let Ok(tuple) = keys.cast::<PyTuple>() {
        for item in tuple.iter() {
            owned.push(&item)?;
            if owned.ends.len() >= limit {
                flush(&mut owned)?;
            }
        }
    } else {
        for item in keys.try_iter()? {
            owned.push(&item?)?;
            if owned.ends.len() >= limit {
                flush(&mut owned)?;
            }
        }
    }
    flush(&mut owned)
}

/// All the keys of an iterable in one batch (for the static filter, which
/// is built from every key at once).
pub(crate) fn collect<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Batch<'static>> {
    if let Some(batch) = array_batch(keys)? {
        return Ok(Batch {
            data: Cow::Owned(batch.data.into_owned()),
            ..batch
        });
    }
    let mut all = None;
    for_batches(keys, None, |b| {
        all = Some(Owned {
            data: b.data.to_vec(),
            ends: match &b.ends {
                Ends::Offsets(ends) => ends.clone(),
                _ => unreachable!("lists gather offsets"),
            },
        });
        Ok(())
    })?;
    Ok(all.unwrap_or_default().into_batch())
}

/// The batch of a NumPy or Arrow array, `None` for other iterables.
fn array_batch(keys: &Bound<'_, PyAny>) -> PyResult<Option<Batch<'static>>> {
    if keys.cast::<PyList>().is_ok() || keys.cast::<PyTuple>().is_ok() {
        return Ok(None);
    }
    if let Some(batch) = numpy_batch(keys)? {
        return Ok(Some(batch));
    }
    arrow_batch(keys)
}

/// An owned copy of a `bytes` object's content (the object is a
/// temporary of NumPy's `tobytes` or Arrow's `to_pybytes`).
fn bytes_of(obj: Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    Ok(obj.cast_into::<PyBytes>()?.as_bytes().to_vec())
}

/// A NumPy array's keys: integer arrays as 64-bit integers (as Python
/// `int` keys of the same values), `S` arrays as bytes, `U` arrays as
/// UTF-8; object arrays are iterated.
fn numpy_batch(keys: &Bound<'_, PyAny>) -> PyResult<Option<Batch<'static>>> {
    let Some(dtype) = keys.getattr_opt("dtype")? else {
        return Ok(None);
    };
    if keys.getattr_opt("tobytes")?.is_none() {
        return Ok(None);
    }
    let kind: String = dtype.getattr("kind")?.extract()?;
    let ndim: usize = keys.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "expected a one-dimensional array of keys, not {ndim} dimensions"
        )));
    }
    let len: usize = keys.len()?;
    let array = |data: Vec<u8>, ends: Ends| Batch {
        data: Cow::Owned(data),
        ends,
        start: 0,
        len,
        array: true,
    };
    match kind.as_str() {
        "i" | "u" => {
            let target = if kind == "i" { "<i8" } else { "<u8" };
            let cast = astype(keys, target)?;
            let data = bytes_of(cast.call_method0("tobytes")?)?;
            Ok(Some(array(data, Ends::Fixed { width: 8 })))
        }
        "b" => Err(PyTypeError::new_err(
            "a boolean array is not an array of keys (use integers)",
        )),
        "S" => {
            let width: usize = dtype.getattr("itemsize")?.extract()?;
            let data = bytes_of(keys.call_method0("tobytes")?)?;
            if width == 0 {
                return Ok(Some(array(Vec::new(), Ends::Offsets(vec![0; len]))));
            }
            Ok(Some(array(data, Ends::NulPadded { width })))
        }
        "U" => {
            // UTF-32 code points, NUL-padded; re-encoded as UTF-8.
            let width: usize = dtype.getattr("itemsize")?.extract()?;
            let cast = astype(keys, &format!("<U{}", width / 4))?;
            // Decoded from the bytes object itself: no second copy of the
            // UTF-32 (four bytes per character).
            let raw_obj = cast.call_method0("tobytes")?;
            let raw = raw_obj.cast::<PyBytes>()?.as_bytes();
            let mut data = Vec::with_capacity(raw.len() / 4);
            let mut ends = Vec::with_capacity(len);
            for item in raw.chunks(width.max(1)).take(len) {
                let points = item
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                let used = item.len() / 4
                    - item
                        .chunks_exact(4)
                        .rev()
                        .take_while(|c| c == &[0, 0, 0, 0])
                        .count();
                for p in points.take(used) {
                    let c = char::from_u32(p).ok_or_else(|| {
                        PyValueError::new_err(format!("invalid code point {p:#x} in a str key"))
                    })?;
                    let mut utf8 = [0; 4];
                    data.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
                ends.push(data.len());
            }
            if width == 0 {
                ends = vec![0; len];
            }
            Ok(Some(array(data, Ends::Offsets(ends))))
        }
        "O" => {
            let mut owned = Owned::default();
            for item in keys.try_iter()? {
                owned.push(&item?)?;
            }
            let mut batch = owned.into_batch();
            batch.array = true;
            Ok(Some(batch))
        }
        other => Err(PyTypeError::new_err(format!(
            "an array of keys holds integers, bytes (S) or str (U), not dtype kind {other:?}"
        ))),
    }
}

/// `array.astype(dtype, copy=False)`: the array itself when it already is
/// of that type (a little-endian 64-bit integer or UTF-32 array).
fn astype<'py>(array: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = pyo3::types::PyDict::new(array.py());
    kwargs.set_item("copy", false)?;
    array.call_method("astype", (dtype,), Some(&kwargs))
}

/// An Arrow array (or chunked array) of `string`, `large_string`,
/// `binary` or `large_binary`: its offsets and data buffers.
fn arrow_batch(keys: &Bound<'_, PyAny>) -> PyResult<Option<Batch<'static>>> {
    let Some(kind) = keys.getattr_opt("type")? else {
        return Ok(None);
    };
    let kind = kind.str()?.to_string();
    if keys.getattr_opt("chunks")?.is_some() {
        // A ChunkedArray: one batch of all chunks.
        let mut data = Vec::new();
        let mut ends = Vec::new();
        for chunk in keys.getattr("chunks")?.try_iter()? {
            let Some(batch) = arrow_batch(&chunk?)? else {
                return Ok(None);
            };
            for key in batch.iter() {
                data.extend_from_slice(key);
                ends.push(data.len());
            }
        }
        return Ok(Some(Batch {
            len: ends.len(),
            data: Cow::Owned(data),
            ends: Ends::Offsets(ends),
            start: 0,
            array: true,
        }));
    }
    let wide = match kind.as_str() {
        "string" | "binary" => false,
        "large_string" | "large_binary" => true,
        _ => {
            if keys.getattr_opt("buffers")?.is_some() {
                return Err(PyTypeError::new_err(format!(
                    "an Arrow array of keys is string or binary, not {kind}"
                )));
            }
            return Ok(None);
        }
    };
    let Some(buffers) = keys.getattr_opt("buffers")? else {
        return Ok(None);
    };
    if keys.getattr("null_count")?.extract::<usize>()? != 0 {
        return Err(PyValueError::new_err("an Arrow array of keys has nulls"));
    }
    let len: usize = keys.len()?;
    let offset: usize = keys.getattr("offset")?.extract()?;
    let buffers = buffers.call0()?;
    let offsets_buf = buffers.get_item(1)?;
    let data_buf = buffers.get_item(2)?;
    let raw_offsets = bytes_of(offsets_buf.call_method0("to_pybytes")?)?;
    let data = if data_buf.is_none() {
        Vec::new()
    } else {
        bytes_of(data_buf.call_method0("to_pybytes")?)?
    };
    let width = if wide { 8 } else { 4 };
    let corrupt = || PyValueError::new_err("an Arrow array's offsets do not fit its data");
    let read = |i: usize| -> PyResult<usize> {
        let at = i.checked_mul(width).ok_or_else(corrupt)?;
        let b = raw_offsets.get(at..at + width).ok_or_else(corrupt)?;
        let v = if wide {
            i64::from_le_bytes(b.try_into().map_err(|_| corrupt())?)
        } else {
            i64::from(i32::from_le_bytes(b.try_into().map_err(|_| corrupt())?))
        };
        usize::try_from(v).map_err(|_| corrupt())
    };
    let start = read(offset)?;
    let mut ends = Vec::with_capacity(len);
    let mut last = start;
    for i in 0..len {
        let end = read(offset + i + 1)?;
        if end < last || end > data.len() {
            return Err(corrupt());
        }
        ends.push(end);
        last = end;
    }
    Ok(Some(Batch {
        data: Cow::Owned(data),
        ends: Ends::Offsets(ends),
        start,
        len,
        array: true,
    }))
}
