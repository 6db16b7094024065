//! NumPy and Arrow arrays of keys, read a chunk at a time through the
//! buffer protocol (a `memoryview`): every length and offset comes from the
//! buffer itself and is checked against it, so that an object that only
//! looks like an array (a `__len__` or `tobytes` that lies) gets a
//! `TypeError` or `ValueError`, never an allocation it does not justify.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PySlice, PyTuple};

use crate::chunk::{CHUNK_BYTES, CHUNK_KEYS, Layout, Raw};

/// What a NumPy-like object holds.
#[derive(Debug)]
pub(crate) enum NumpyKeys<'py> {
    /// Integers, `S` or `U` strings, read from its buffer.
    Buffer(Numpy<'py>),
    /// Python objects (`dtype=object`), iterated.
    Objects,
}

/// A 1-D NumPy array (or an object with its `dtype` and buffer) of
/// integers, `S` bytes or `U` strings.
#[derive(Debug)]
pub(crate) struct Numpy<'py> {
    /// `memoryview` of the array.
    view: Bound<'py, PyAny>,
    len: usize,
    width: usize,
    layout: Layout<'static>,
    /// The index of the next chunk's first key.
    next: usize,
    /// The bytes of the last chunk.
    bytes: Option<Bound<'py, PyBytes>>,
}

/// The keys of a NumPy array, `None` for an object without `dtype` and
/// `tobytes`.
///
/// # Errors
/// `TypeError` for a boolean, float or other dtype, for an object without a
/// buffer, or a buffer whose items are not what its dtype says;
/// `ValueError` for more than one dimension.
pub(crate) fn numpy<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Option<NumpyKeys<'py>>> {
    let Some(dtype) = keys.getattr_opt("dtype")? else {
        return Ok(None);
    };
    if keys.getattr_opt("tobytes")?.is_none() {
        return Ok(None);
    }
    let kind: String = dtype.getattr("kind")?.extract()?;
    match kind.as_str() {
        "O" => {
            let ndim: usize = keys.getattr("ndim")?.extract()?;
            if ndim != 1 {
                return Err(one_dimensional(ndim));
            }
            return Ok(Some(NumpyKeys::Objects));
        }
        "b" => {
            return Err(PyTypeError::new_err(
                "a boolean array is not an array of keys (use integers)",
            ));
        }
        "i" | "u" | "S" | "U" => {}
        other => {
            return Err(PyTypeError::new_err(format!(
                "an array of keys holds integers, bytes (S) or str (U), not dtype kind {other:?}"
            )));
        }
    }
    let view = PyMemoryView::from(keys).map_err(|_| {
        PyTypeError::new_err(format!(
            "an array of keys gives its items through the buffer protocol, which {} does not",
            keys.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let ndim: usize = view.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(one_dimensional(ndim));
    }
    let shape = view.getattr("shape")?.cast_into::<PyTuple>()?;
    let len: usize = shape.get_item(0)?.extract()?;
    let width: usize = view.getattr("itemsize")?.extract()?;
    let format: String = view.getattr("format")?.extract()?;
    let layout = layout_of(&kind, &format, width).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "the array's buffer holds items of format {format:?} and {width} bytes, \
             not the dtype kind {kind:?} it claims"
        ))
    })?;
    Ok(Some(NumpyKeys::Buffer(Numpy {
        view: view.into_any(),
        len,
        width,
        layout,
        next: 0,
        bytes: None,
    })))
}

/// The error of an array of `ndim` dimensions.
fn one_dimensional(ndim: usize) -> PyErr {
    PyValueError::new_err(format!(
        "expected a one-dimensional array of keys, not {ndim} dimensions"
    ))
}

/// The layout of a buffer of `format` items of `width` bytes, when it is
/// the dtype `kind`'s: integers of 1, 2, 4 or 8 bytes, `S` of `width`
/// bytes, `U` of `width / 4` code units.
fn layout_of(kind: &str, format: &str, width: usize) -> Option<Layout<'static>> {
    let (big, rest) = match format.as_bytes().first()? {
        b'>' | b'!' => (true, &format[1..]),
        b'<' => (false, &format[1..]),
        b'@' | b'=' => (cfg!(target_endian = "big"), &format[1..]),
        _ => (cfg!(target_endian = "big"), format),
    };
    let letter = rest.chars().last()?;
    let count = &rest[..rest.len() - letter.len_utf8()];
    let count: usize = if count.is_empty() {
        1
    } else {
        count.parse().ok()?
    };
    match (kind, letter) {
        ("i", 'b' | 'h' | 'i' | 'l' | 'q' | 'n') | ("u", 'B' | 'H' | 'I' | 'L' | 'Q' | 'N')
            if count == 1 && matches!(width, 1 | 2 | 4 | 8) =>
        {
            Some(Layout::Int {
                width,
                signed: kind == "i",
                big,
            })
        }
        ("S", 's') if count == width => Some(Layout::NulPadded { width }),
        ("U", 'w') if count.checked_mul(4) == Some(width) => Some(Layout::Utf32 { width, big }),
        _ => None,
    }
}

impl<'py> Numpy<'py> {
    /// The number of keys (the buffer's).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The next chunk of keys (none at the end).
    ///
    /// # Errors
    /// `ValueError` when the buffer gives other bytes than its shape says.
    pub(crate) fn next_chunk(&mut self) -> PyResult<Raw<'_>> {
        let per = CHUNK_BYTES
            .checked_div(self.width)
            .map_or(CHUNK_KEYS, |per| per.clamp(1, CHUNK_KEYS));
        let (start, end) = (self.next, self.len.min(self.next.saturating_add(per)));
        if start == end {
            return Ok(Raw::EMPTY);
        }
        let bytes = slice_bytes(&self.view, start, end)?;
        if Some(bytes.as_bytes().len()) != (end - start).checked_mul(self.width) {
            return Err(PyValueError::new_err(
                "the array's buffer does not hold as many bytes as its shape says",
            ));
        }
        self.next = end;
        let bytes = self.bytes.insert(bytes);
        Ok(Raw {
            data: bytes.as_bytes(),
            layout: self.layout,
            len: end - start,
        })
    }
}

/// `view[start:end].tobytes()`.
fn slice_bytes<'py>(
    view: &Bound<'py, PyAny>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let index = |i: usize| {
        isize::try_from(i).map_err(|_| PyValueError::new_err("an array index past isize"))
    };
    let slice = PySlice::new(view.py(), index(start)?, index(end)?, 1);
    Ok(view
        .get_item(slice)?
        .call_method0("tobytes")?
        .cast_into::<PyBytes>()?)
}

/// One Arrow array of strings or binaries: its buffers as `memoryview`s.
#[derive(Debug)]
struct ArrowPart<'py> {
    offsets: Bound<'py, PyAny>,
    data: Option<Bound<'py, PyAny>>,
    /// The validity bitmap, when the array has nulls.
    validity: Option<Bound<'py, PyAny>>,
    data_len: usize,
    /// 8-byte offsets (`large_string`, `large_binary`), else 4.
    wide: bool,
    /// The array's first slot (a slice's offset) and its number of keys.
    offset: usize,
    len: usize,
    /// The key index of the array's first key in the whole input.
    base: usize,
}

/// An Arrow array or chunked array of `string`, `large_string`, `binary`
/// or `large_binary`, read a chunk at a time.
#[derive(Debug)]
pub(crate) struct Arrow<'py> {
    parts: Vec<ArrowPart<'py>>,
    len: usize,
    /// The part being read and its next key.
    part: usize,
    next: usize,
    ends: Vec<usize>,
    bytes: Option<Bound<'py, PyBytes>>,
}

/// The keys of an Arrow array, `None` for an object that is not one.
///
/// # Errors
/// `TypeError` for an Arrow array of another type; `ValueError` for
/// buffers shorter than the array's length and offset need.
pub(crate) fn arrow<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Option<Arrow<'py>>> {
    let Some(kind) = keys.getattr_opt("type")? else {
        return Ok(None);
    };
    let arrays: Vec<Bound<'py, PyAny>> = if keys.getattr_opt("chunks")?.is_some() {
        keys.getattr("chunks")?
            .try_iter()?
            .collect::<PyResult<_>>()?
    } else if keys.getattr_opt("buffers")?.is_some() {
        vec![keys.clone()]
    } else {
        return Ok(None);
    };
    let kind = kind.str()?.to_string();
    let mut parts = Vec::with_capacity(arrays.len());
    let mut len = 0usize;
    for array in arrays {
        let part = arrow_part(&array, len)?;
        len = len
            .checked_add(part.len)
            .ok_or_else(|| PyValueError::new_err("an Arrow array of more than 2**64 keys"))?;
        parts.push(part);
    }
    if parts.is_empty()
        && !matches!(
            kind.as_str(),
            "string" | "binary" | "large_string" | "large_binary"
        )
    {
        return Err(not_strings(&kind));
    }
    Ok(Some(Arrow {
        parts,
        len,
        part: 0,
        next: 0,
        ends: Vec::new(),
        bytes: None,
    }))
}

/// The error of an Arrow array of `kind`.
fn not_strings(kind: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "an Arrow array of keys is string or binary, not {kind}"
    ))
}

/// One Arrow array, its buffers checked against its length and offset.
fn arrow_part<'py>(array: &Bound<'py, PyAny>, base: usize) -> PyResult<ArrowPart<'py>> {
    let kind = array.getattr("type")?.str()?.to_string();
    let wide = match kind.as_str() {
        "string" | "binary" => false,
        "large_string" | "large_binary" => true,
        _ => return Err(not_strings(&kind)),
    };
    let len: usize = array.len()?;
    let offset: usize = array.getattr("offset")?.extract()?;
    let null_count: usize = array.getattr("null_count")?.extract()?;
    let buffers = array.call_method0("buffers")?;
    let view = |i: usize| -> PyResult<Option<Bound<'py, PyAny>>> {
        let buffer = buffers.get_item(i)?;
        if buffer.is_none() {
            return Ok(None);
        }
        Ok(Some(PyMemoryView::from(&buffer)?.into_any()))
    };
    let bad = || PyValueError::new_err("an Arrow array's buffers are shorter than its length");
    let nbytes = |v: &Bound<'_, PyAny>| -> PyResult<usize> { v.getattr("nbytes")?.extract() };
    let offsets = view(1)?.ok_or_else(bad)?;
    let width = if wide { 8 } else { 4 };
    let needed = offset
        .checked_add(len)
        .and_then(|n| n.checked_add(1))
        .and_then(|n| n.checked_mul(width))
        .ok_or_else(bad)?;
    if nbytes(&offsets)? < needed {
        return Err(bad());
    }
    let data = view(2)?;
    let data_len = data.as_ref().map(nbytes).transpose()?.unwrap_or(0);
    let validity = if null_count > 0 {
        let bitmap = view(0)?.ok_or_else(bad)?;
        if nbytes(&bitmap)? < (offset + len).div_ceil(8) {
            return Err(bad());
        }
        Some(bitmap)
    } else {
        None
    };
    Ok(ArrowPart {
        offsets,
        data,
        validity,
        data_len,
        wide,
        offset,
        len,
        base,
    })
}

impl<'py> Arrow<'py> {
    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The next chunk of keys (none at the end), and the error of the key
    /// that follows it when that one is a null.
    ///
    /// # Errors
    /// `ValueError` for offsets that do not fit the data.
    pub(crate) fn next_chunk(&mut self) -> PyResult<(Raw<'_>, Option<PyErr>)> {
        while self.part < self.parts.len() && self.next == self.parts[self.part].len {
            self.part += 1;
            self.next = 0;
        }
        let Some(part) = self.parts.get(self.part) else {
            return Ok((Raw::EMPTY, None));
        };
        let first = part.offset + self.next;
        let mut n = (part.len - self.next).min(CHUNK_KEYS);
        // A null ends the chunk before it.
        let mut error = None;
        if let Some(bitmap) = &part.validity {
            let bits = slice_bytes(bitmap, first / 8, (first + n).div_ceil(8))?;
            let bits = bits.as_bytes();
            let null = (0..n).find(|i| {
                let bit = first % 8 + i;
                bits[bit / 8] & (1 << (bit % 8)) == 0
            });
            if let Some(i) = null {
                n = i;
                error = Some(PyValueError::new_err(format!(
                    "an Arrow array of keys has a null (the key at index {})",
                    part.base + self.next + i
                )));
            }
        }
        let width = if part.wide { 8 } else { 4 };
        let raw = slice_bytes(&part.offsets, first * width, (first + n + 1) * width)?;
        let corrupt = || PyValueError::new_err("an Arrow array's offsets do not fit its data");
        let read = |i: usize| -> PyResult<usize> {
            let b = &raw.as_bytes()[i * width..(i + 1) * width];
            let v = if part.wide {
                i64::from_le_bytes(b.try_into().map_err(|_| corrupt())?)
            } else {
                i64::from(i32::from_le_bytes(b.try_into().map_err(|_| corrupt())?))
            };
            usize::try_from(v).map_err(|_| corrupt())
        };
        let start = read(0)?;
        if start > part.data_len {
            return Err(corrupt());
        }
        self.ends.clear();
        let mut last = start;
        let mut taken = 0;
        while taken < n {
            let end = read(taken + 1)?;
            if end < last || end > part.data_len {
                return Err(corrupt());
            }
            // A chunk takes at most CHUNK_BYTES of data, and at least a key.
            if taken > 0 && end - start > CHUNK_BYTES {
                // The null (if any) is past this chunk: it is found again.
                error = None;
                break;
            }
            self.ends.push(end - start);
            last = end;
            taken += 1;
        }
        let n = taken;
        self.next += n;
        let bytes = match &part.data {
            Some(data) if last > start => slice_bytes(data, start, last)?,
            _ => PyBytes::new(self.parts[self.part].offsets.py(), b""),
        };
        if bytes.as_bytes().len() != last - start {
            return Err(corrupt());
        }
        let bytes = self.bytes.insert(bytes);
        Ok((
            Raw {
                data: bytes.as_bytes(),
                layout: Layout::Offsets { ends: &self.ends },
                len: n,
            },
            error,
        ))
    }
}
