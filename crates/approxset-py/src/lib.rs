//! The extension module `approxset._approxset`: the `Filter` class and the
//! module functions of the Python package `approxset` (see
//! `python/approxset/__init__.py`, which re-exports them).
//!
//! A filter is a `Box<dyn Membership>` behind a read-write lock
//! (`cell.rs`): lookups share it, inserts take it alone, and the batch
//! calls hold it with the GIL released; a one-key call holding the GIL
//! skips the lock while no batch call or other guard is under way
//! (`one_key.rs`). No Python code runs while the lock is held (each chunk
//! of keys is gathered first, and `info` reads the filter before it
//! builds its dict), so a generator that looks into the filter it feeds
//! cannot deadlock. Batches read their keys a chunk at a time
//! (`source.rs`, `chunk.rs`, `batches.rs`), so that their extra memory is
//! bounded whatever the input's size. The constructors' arguments and
//! the builds they drive are in `construct.rs`.

mod args;
mod arrays;
mod batches;
mod cell;
mod chunk;
mod construct;
mod errors;
mod keys;
mod one_key;
mod source;
mod spark;
mod tools;

use std::path::PathBuf;

use approxset::format::DEFAULT_READ_LIMIT;
use approxset::{ApproxSet, HashKey, Removal, Value, Variant};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyTuple, PyType};

use crate::cell::GilCell;
use crate::construct::{Boxed, Recipe};
use crate::errors::{IntoPy, Kind};
use crate::keys::digest_of;
use crate::source::Source;

/// An approximate-membership filter: a set that answers ``key in f`` with
/// no false negatives and a small, chosen rate of false positives.
///
/// Build one by variant name (``approxset.VARIANTS`` lists them)::
///
///     >>> import approxset
///     >>> f = approxset.Filter("blocked", capacity=1000, fp=0.01, seed=1)
///     >>> f.add("alice"); f.update([b"bob", 42])
///     >>> "alice" in f, 42 in f
///     (True, True)
///
/// Keys are ``str`` (its UTF-8 bytes), ``bytes``/``bytearray``/
/// ``memoryview``, and integers (64-bit, as the Rust library's ``i64``/
/// ``u64`` keys; ``int`` or NumPy integer scalars): the same key in Python,
/// Rust and the CLI. The static ``"fuse"`` and ``"ribbon"`` variants are
/// built once with ``Filter.from_keys``.
///
/// ``Filter(variant, capacity, fp)`` is an empty filter for ``capacity``
/// keys at false-positive rate ``fp``. ``seed`` (an int) or ``key`` (16
/// bytes) fixes the hash key, so that filters built apart can be merged
/// and rebuilt bit for bit; without either it is random. ``hash`` is
/// ``"siphash64"`` (the default, keyed SipHash-1-3 with a 64-bit output
/// widened), ``"siphash"`` (its 128-bit output, the default of earlier
/// releases) or ``"xxh3"`` (faster, for keys an attacker does not choose);
/// ``max_bytes`` refuses a larger filter. Bad parameters (a size or seed out
/// of range included) raise ``ParameterError`` (a ``ValueError``) naming the
/// argument.
#[pyclass(module = "approxset", frozen, name = "Filter")]
#[derive(Debug)]
struct Filter {
    inner: GilCell<Boxed>,
    /// The filter's hash key (fixed for its life), to hash keys before
    /// taking the lock.
    key: HashKey,
    variant: Variant,
}

impl Filter {
    fn new(boxed: Boxed) -> PyResult<Self> {
        let variant = Variant::of(&*boxed).ok_or_else(|| {
            PyTypeError::new_err(format!("unknown filter variant {}", boxed.variant()))
        })?;
        Ok(Filter {
            key: boxed.hash_key(),
            variant,
            inner: GilCell::new(boxed),
        })
    }

    fn read(&self) -> cell::Read<'_, Boxed> {
        self.inner.read()
    }

    fn write(&self) -> cell::Write<'_, Boxed> {
        self.inner.write()
    }

    /// The filter as a set that takes inserts, or the error of a static one.
    fn insertable<'a>(py: Python<'_>, boxed: &'a mut Boxed) -> PyResult<&'a mut dyn ApproxSet> {
        let variant = boxed.variant();
        boxed
            .as_approx_set_mut()
            .ok_or_else(|| errors::static_filter(py, variant))
    }

    /// An independent copy (through the binary format).
    fn copy_boxed(&self, py: Python<'_>) -> PyResult<Boxed> {
        let bytes = self.read().to_bytes().py(py)?;
        approxset::load_membership(&bytes).py(py)
    }

    /// `self op= other` for `|` and `&`.
    fn combine(&self, py: Python<'_>, other: &Filter, union: bool) -> PyResult<()> {
        // A copy of `other`, so that no two filters are ever locked at
        // once: `a |= b` and `b |= a` in two threads (or `a |= a`) cannot
        // deadlock.
        let theirs = other.copy_boxed(py)?;
        let Some(theirs) = theirs.as_approx_set() else {
            return Err(errors::to_py(
                py,
                approxset::Error::Unsupported {
                    operation: if union { "union" } else { "intersection" },
                    variant: theirs.variant(),
                },
            ));
        };
        let mut mine = self.write();
        let mine = Filter::insertable(py, &mut mine)?;
        if union {
            mine.union_dyn(theirs).py(py)
        } else {
            mine.intersect_dyn(theirs).py(py)
        }
    }

    /// `self op other` for `|` and `&`: a new filter.
    fn combined(&self, py: Python<'_>, other: &Filter, union: bool) -> PyResult<Filter> {
        let result = Filter::new(self.copy_boxed(py)?)?;
        result.combine(py, other, union)?;
        Ok(result)
    }
}

/// The bytes of a `bytes`, `bytearray` or `memoryview` argument.
fn buffer_bytes(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = data.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    let copy = data
        .call_method0("tobytes")
        .map_err(|_| PyTypeError::new_err("expected bytes, bytearray or memoryview"))?;
    Ok(copy.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// A parameter value as a Python `int` or `float`.
fn value(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Count(n) => n.into_pyobject(py)?.into_any().unbind(),
        Value::Real(x) => x.into_pyobject(py)?.into_any().unbind(),
        _ => py.None(),
    })
}

#[pymethods]
impl Filter {
    /// Filter(variant, capacity, fp=0.01, *, seed=None, key=None, hash=None, max_bytes=None)
    /// --
    ///
    /// An empty filter (see the class documentation).
    #[new]
    #[pyo3(
        signature = (variant, capacity, fp = None, **options),
        text_signature = "(variant, capacity, fp=0.01, *, seed=None, key=None, hash=None, max_bytes=None)"
    )]
    fn py_new(
        py: Python<'_>,
        variant: &str,
        capacity: &Bound<'_, PyAny>,
        fp: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let recipe = Recipe::parse(py, "Filter", variant, fp, options)?;
        let capacity = args::size(py, capacity, "capacity")?;
        Filter::new(recipe.build(py, capacity)?)
    }

    /// Filter.from_keys(variant, keys, fp=0.01, *, seed=None, key=None, hash=None, max_bytes=None)
    /// --
    ///
    /// A filter of ``variant`` built from every key of the iterable
    /// ``keys`` (sized for them): the way to build the static ``"fuse"`` and
    /// ``"ribbon"`` filters, and a shortcut for the others. Keys are read a
    /// chunk at a time; a static filter (and any other built from an
    /// iterator of unknown length) keeps 16 bytes a key until it is built.
    #[classmethod]
    #[pyo3(
        signature = (variant, keys, fp = None, **options),
        text_signature = "(cls, variant, keys, fp=0.01, *, seed=None, key=None, hash=None, max_bytes=None)"
    )]
    fn from_keys(
        _cls: &Bound<'_, PyType>,
        variant: &str,
        keys: &Bound<'_, PyAny>,
        fp: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let py = keys.py();
        let recipe = Recipe::parse(py, "Filter.from_keys", variant, fp, options)?;
        let mut source = Source::new(keys)?;
        Filter::new(recipe.build_from(py, &mut source)?)
    }

    /// Filter.from_bytes(data)
    /// --
    ///
    /// The filter saved in ``data`` (``bytes(f)`` of any variant), every
    /// field checked. Raises ``CorruptFilterError`` for damaged data.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = buffer_bytes(data)?;
        let boxed = py.detach(|| approxset::load_membership(&bytes)).py(py)?;
        Filter::new(boxed)
    }

    /// Adds ``key``. Raises ``UnsupportedError`` on a static filter and
    /// ``FullError`` when a cuckoo filter has no room (nothing changes).
    fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let digest = digest_of(&self.key, key)?;
        match self.insert_one(py, digest, false) {
            Some(inserted) => inserted.py(py).map(drop),
            None => Err(errors::static_filter(py, self.variant.name())),
        }
    }

    /// Adds every key of an iterable (or NumPy/Arrow array); see
    /// ``add_many``.
    fn update(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        self.add_many(py, keys)
    }

    /// Adds every key of a list, iterable or NumPy/Arrow array, a chunk at a
    /// time, hashing and inserting with the GIL released. On an error
    /// (a key that is not one, an iterator that raises, ``FullError``)
    /// every key before the failing one is in the filter, and the failing
    /// one is not.
    fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        {
            let mut boxed = self.write();
            Filter::insertable(py, &mut boxed)?;
        }
        let mut source = Source::new(keys)?;
        let _batch = self.inner.batch(py);
        batches::insert_all(py, &mut source, self.key, |digests| {
            let mut boxed = self.write();
            match boxed.as_approx_set_mut() {
                Some(set) => set.insert_digests(digests),
                None => Err(approxset::Error::StaticFilter {
                    variant: boxed.variant(),
                }),
            }
        })
    }

    /// Whether each key may be in the filter: a NumPy bool array for a
    /// NumPy or Arrow array of keys, else a list of bools. Keys are read a
    /// chunk at a time, hashed and probed with the GIL released.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut source = Source::new(keys)?;
        let _batch = self.inner.batch(py);
        batches::contains_all(py, &mut source, self.key, |digests, out| {
            self.read().contains_digests(digests, out)
        })
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let digest = digest_of(&self.key, key)?;
        Ok(self.contains_one(py, digest))
    }

    /// Removes one copy of ``key`` (counting and cuckoo filters). Raises
    /// ``KeyError`` when the key is certainly absent, ``SaturatedError``
    /// when its counters are saturated (it stays present), and
    /// ``UnsupportedError`` on variants that cannot delete; nothing changes
    /// then. Only remove keys you added: removing a false positive can
    /// cause false negatives.
    fn remove(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let digest = digest_of(&self.key, key)?;
        let Some(removal) = self.remove_one(py, digest) else {
            return Err(errors::cannot_delete(py, self.variant.name(), "remove"));
        };
        match removal {
            Removal::Removed => Ok(()),
            Removal::Absent => Err(PyKeyError::new_err(key.clone().unbind())),
            Removal::Saturated => Err(Kind::Saturated.err(
                py,
                "the key's counters are saturated: it cannot be removed and tests present \
                 from now on",
            )),
            _ => Err(Kind::Other.err(py, format!("the key was not removed ({removal})"))),
        }
    }

    /// Removes one copy of ``key`` if the filter may hold it and can take
    /// it out; never raises for an absent or saturated key
    /// (``UnsupportedError`` on variants that cannot delete). Returns
    /// whether a copy was removed.
    fn discard(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let digest = digest_of(&self.key, key)?;
        match self.remove_one(py, digest) {
            Some(removal) => Ok(removal.is_removed()),
            None => Err(errors::cannot_delete(py, self.variant.name(), "discard")),
        }
    }

    /// An upper bound on the number of times ``key`` was added (less its
    /// removes), on the counting and cuckoo filters: 0 means certainly
    /// absent; a counting filter's 15 means saturated, at least 15.
    fn count(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let digest = digest_of(&self.key, key)?;
        // A read (the shared lock when one is taken), so counts run
        // beside lookups.
        self.count_one(py, digest)
            .ok_or_else(|| errors::cannot_delete(py, self.variant.name(), "count"))
    }

    /// Adds ``key`` unless the filter may already hold it; returns whether
    /// it did. Keeps a cuckoo filter from filling with copies of one key;
    /// on a deleting filter, only remove keys this returned ``True`` for.
    fn add_if_absent(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let digest = digest_of(&self.key, key)?;
        match self.insert_one(py, digest, true) {
            Some(inserted) => inserted.py(py),
            None => Err(errors::static_filter(py, self.variant.name())),
        }
    }

    /// Removes every key, keeping the size and the hash key.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        let mut boxed = self.write();
        Filter::insertable(py, &mut boxed)?.clear();
        Ok(())
    }

    /// An independent copy of the filter.
    fn copy(&self, py: Python<'_>) -> PyResult<Filter> {
        Filter::new(self.copy_boxed(py)?)
    }

    /// The number of adds accepted less the removes (a repeated key counts
    /// each time; ``info()["estimated_items"]`` estimates distinct keys).
    fn __len__(&self) -> usize {
        self.read().len()
    }

    /// Whether ``other`` is a filter of the same bytes (variant, size, hash
    /// key and content): ``f == f.copy()``, ``f == approxset.load(path)``
    /// after ``f.save(path)``. Filters are mutable, so not hashable.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<Filter>() else {
            return Ok(py.NotImplemented());
        };
        // One lock at a time: `f == g` and `g == f` in two threads cannot
        // deadlock.
        let mine = self.read().to_bytes().py(py)?;
        let theirs = other.get().read().to_bytes().py(py)?;
        Ok(PyBool::new(py, mine == theirs)
            .to_owned()
            .into_any()
            .unbind())
    }

    /// The filter in the versioned binary format (as the Rust library and
    /// the CLI save it).
    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.read().to_bytes().py(py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Pickles as its bytes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("approxset")?.getattr("from_bytes")?;
        let bytes = self.__bytes__(py)?;
        PyTuple::new(py, [load, PyTuple::new(py, [bytes])?.into_any()])
    }

    /// Saves the filter to the file ``path`` (``OSError`` on failure).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = self.read().to_bytes().py(py)?;
        py.detach(|| std::fs::write(&path, bytes))?;
        Ok(())
    }

    /// The union: a new filter that holds every key of either (same
    /// variant, size and hash key; the classic, partitioned, blocked and
    /// split-block filters). Bit for bit the filter of all the keys.
    fn __or__(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<Filter> {
        self.combined(py, other.get(), true)
    }

    /// The intersection: a new filter that holds every key of both (with
    /// a false-positive rate that may exceed either's).
    fn __and__(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<Filter> {
        self.combined(py, other.get(), false)
    }

    fn __ior__(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<()> {
        self.combine(py, other.get(), true)
    }

    fn __iand__(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<()> {
        self.combine(py, other.get(), false)
    }

    /// Adds every key of ``other`` (``f |= g``); see ``__or__``.
    fn union_update(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<()> {
        self.combine(py, other.get(), true)
    }

    /// Keeps what both may hold (``f &= g``); see ``__and__``.
    fn intersection_update(&self, py: Python<'_>, other: &Bound<'_, Filter>) -> PyResult<()> {
        self.combine(py, other.get(), false)
    }

    /// The variant's name (``"classic"``, ``"blocked"``, …).
    #[getter]
    fn variant(&self) -> &'static str {
        self.variant.name()
    }

    /// The number of keys the filter was sized for.
    #[getter]
    fn capacity(&self) -> usize {
        self.read().capacity()
    }

    /// The false-positive rate the filter was built for.
    #[getter]
    fn fp(&self) -> f64 {
        self.read().fp_rate()
    }

    /// The 16 bytes of the hash key (pass them as ``key=`` to build a
    /// filter that merges with this one).
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.key.to_le_bytes())
    }

    /// The hash function's name (``"siphash64"``, ``"siphash"``,
    /// ``"xxh3"`` or ``"parquet-xxh64"``).
    #[getter]
    fn hash(&self) -> &'static str {
        self.key.function().name()
    }

    /// The variant, sizes, rates and parameters as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // Read first, then build the dict with no guard held (building it
        // may run Python code: a collection's finalisers).
        let (len, capacity, fp_rate, estimated_fp_rate, estimated_items, memory, parameters) = {
            let boxed = self.read();
            (
                boxed.len(),
                boxed.capacity(),
                boxed.fp_rate(),
                boxed.estimated_fp_rate(),
                boxed.estimated_items(),
                boxed.memory_bytes(),
                boxed.parameters(),
            )
        };
        let d = PyDict::new(py);
        d.set_item("variant", self.variant.name())?;
        d.set_item("len", len)?;
        d.set_item("capacity", capacity)?;
        d.set_item("fp_rate", fp_rate)?;
        d.set_item("estimated_fp_rate", estimated_fp_rate)?;
        d.set_item("estimated_items", estimated_items)?;
        d.set_item("memory_bytes", memory)?;
        d.set_item("bits_per_key", memory as f64 * 8.0 / capacity.max(1) as f64)?;
        d.set_item("hash", self.key.function().name())?;
        d.set_item("static", self.variant.is_static())?;
        d.set_item("deletable", self.variant.supports_delete())?;
        d.set_item("mergeable", tools::merges(self.variant))?;
        let params = PyDict::new(py);
        for (name, v) in parameters {
            params.set_item(name, value(py, v)?)?;
        }
        d.set_item("parameters", params)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let boxed = self.read();
        format!(
            "approxset.Filter('{}', capacity={}, fp={}, len={})",
            self.variant.name(),
            boxed.capacity(),
            boxed.fp_rate(),
            boxed.len()
        )
    }
}

/// from_bytes(data)
/// --
///
/// The filter saved in ``data`` (see ``Filter.from_bytes``).
#[pyfunction]
fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Filter> {
    Filter::from_bytes(py, data)
}

/// load(path, *, max_bytes=None)
/// --
///
/// The filter saved in the file ``path`` by ``Filter.save``, the Rust
/// library or the CLI. Reads at most ``max_bytes`` (default 2**40).
/// Raises ``OSError`` for the file, ``CorruptFilterError`` for its content.
#[pyfunction]
#[pyo3(signature = (path, *, max_bytes = None))]
fn load(py: Python<'_>, path: PathBuf, max_bytes: Option<&Bound<'_, PyAny>>) -> PyResult<Filter> {
    let limit = args::opt_u64(py, max_bytes, "max_bytes")?.unwrap_or(DEFAULT_READ_LIMIT);
    let boxed = py.detach(|| -> PyResult<approxset::Result<Boxed>> {
        let file = std::fs::File::open(&path)?;
        Ok(approxset::read_membership_from_limited(
            std::io::BufReader::new(file),
            limit,
        ))
    })?;
    Filter::new(boxed.py(py)?)
}

/// The extension module.
#[pymodule]
fn _approxset(m: &Bound<'_, PyModule>) -> PyResult<()> {
    cell::init(m.py())?;
    m.add_class::<Filter>()?;
    spark::register(m)?;
    m.add_function(wrap_pyfunction!(from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(tools::design, m)?)?;
    m.add_function(wrap_pyfunction!(tools::compare, m)?)?;
    m.add_function(wrap_pyfunction!(tools::variants, m)?)?;
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    m.add("VARIANTS", PyTuple::new(m.py(), names)?)?;
    m.add("DEFAULT_READ_LIMIT", DEFAULT_READ_LIMIT)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // For the tests of chunk boundaries.
    m.add("_CHUNK_KEYS", chunk::CHUNK_KEYS)?;
    Ok(())
}
