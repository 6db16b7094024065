//! `approxset.from_spark`, `approxset.SparkFilter` and the `"spark"` of
//! `approxset.Filter("spark", …)`: Apache Spark's BloomFilter
//! (`org.apache.spark.util.sketch`), read and written byte for byte through
//! `approxset::spark::SparkBloomFilter`.
//!
//! Keys follow **Spark's** encoding, not approxset's `Key`: an `int` is
//! hashed as Spark hashes a long (`mightContainLong`; Spark widens int,
//! short and byte columns to a long), a `str` as its UTF-8 bytes
//! (`mightContainString`), `bytes`/`bytearray`/`memoryview` as binary
//! (`mightContainBinary`).

use std::sync::{PoisonError, RwLock};

use approxset::spark::{SparkBloomFilter, SparkVersion};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyString, PyTuple};

use crate::errors::{IntoPy, Kind};

/// A key as Spark hashes it.
enum SparkKey<'a> {
    /// A long (`mightContainLong`).
    Long(i64),
    /// Bytes: a string's UTF-8 or a binary value.
    Bytes(std::borrow::Cow<'a, [u8]>),
}

/// `key` as Spark hashes it: int → long, str → UTF-8, bytes-like → binary.
fn spark_key<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<SparkKey<'a>> {
    if key.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "a spark filter takes int, str or bytes keys, not bool",
        ));
    }
    if let Ok(i) = key.cast::<PyInt>() {
        return i.extract::<i64>().map(SparkKey::Long).map_err(|_| {
            PyOverflowError::new_err("a spark filter's int keys are longs: -2**63 <= key < 2**63")
        });
    }
    if let Ok(s) = key.cast::<PyString>() {
        return Ok(SparkKey::Bytes(
            s.to_cow()?.into_owned().into_bytes().into(),
        ));
    }
    if let Ok(b) = key.cast::<PyBytes>() {
        return Ok(SparkKey::Bytes(b.as_bytes().into()));
    }
    if let Ok(b) = key.cast::<PyByteArray>() {
        return Ok(SparkKey::Bytes(b.to_vec().into()));
    }
    if let Ok(copy) = key.call_method0("tobytes") {
        if let Ok(b) = copy.cast::<PyBytes>() {
            return Ok(SparkKey::Bytes(b.as_bytes().to_vec().into()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "a spark filter takes int, str or bytes keys, not {}",
        key.get_type().name()?
    )))
}

/// Apache Spark's Bloom filter: ``key in f`` answers as Spark's
/// ``BloomFilter.mightContain``, ``f.to_spark()`` is what Spark's
/// ``BloomFilter.readFrom`` reads.
///
///     >>> import approxset
///     >>> f = approxset.Filter("spark", capacity=1000, fp=0.03)
///     >>> f.add(42); f.add("alice")
///     >>> 42 in f, "alice" in f
///     (True, True)
///     >>> approxset.from_spark(f.to_spark()) == f
///     True
///
/// Keys follow Spark's encoding, not approxset's: an ``int`` is a Spark
/// long (``mightContainLong``), a ``str`` its UTF-8 (``mightContainString``),
/// ``bytes`` binary (``mightContainBinary``).
#[pyclass(module = "approxset", frozen, name = "SparkFilter")]
#[derive(Debug)]
pub(crate) struct SparkFilter {
    inner: RwLock<SparkBloomFilter>,
}

impl SparkFilter {
    fn wrap(f: SparkBloomFilter) -> Self {
        SparkFilter {
            inner: RwLock::new(f),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, SparkBloomFilter> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, SparkBloomFilter> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn contains_key(f: &SparkBloomFilter, key: &SparkKey<'_>) -> bool {
        match key {
            SparkKey::Long(v) => f.might_contain_long(*v),
            SparkKey::Bytes(b) => f.might_contain_bytes(b),
        }
    }
}

#[pymethods]
impl SparkFilter {
    /// SparkFilter(capacity, fp=0.01, *, version=2, seed=0)
    /// --
    ///
    /// An empty filter sized as Spark's ``BloomFilter.create(capacity,
    /// fp)`` sizes it; ``version=1`` writes the format of Spark 2 and 3.
    #[new]
    #[pyo3(signature = (capacity, fp = 0.01, *, version = 2, seed = 0))]
    fn py_new(py: Python<'_>, capacity: u64, fp: f64, version: u8, seed: i32) -> PyResult<Self> {
        let version = match version {
            1 => SparkVersion::V1,
            2 => SparkVersion::V2,
            other => {
                return Err(Kind::Parameter.err(
                    py,
                    format!("invalid version: {other} (spark filters are version 1 or 2)"),
                ));
            }
        };
        let bits = approxset::spark::optimal_num_bits(capacity, fp).py(py)?;
        let f = SparkBloomFilter::create(version, capacity, bits, seed).py(py)?;
        Ok(SparkFilter::wrap(f))
    }

    /// Adds ``key`` (Spark's ``put``).
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = spark_key(key)?;
        let mut f = self.write();
        match key {
            SparkKey::Long(v) => f.put_long(v),
            SparkKey::Bytes(b) => f.put_bytes(&b),
        };
        Ok(())
    }

    /// Adds every key of the iterable ``keys``.
    fn update(&self, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        for key in keys.try_iter()? {
            self.add(&key?)?;
        }
        Ok(())
    }

    /// Spark's ``mightContain`` of each key of the iterable ``keys``.
    fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let f = self.read();
        keys.try_iter()?
            .map(|key| Ok(SparkFilter::contains_key(&f, &spark_key(&key?)?)))
            .collect()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let key = spark_key(key)?;
        Ok(SparkFilter::contains_key(&self.read(), &key))
    }

    /// The bytes Spark's ``BloomFilter.writeTo`` writes for this filter,
    /// for ``BloomFilter.readFrom``.
    fn to_spark<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.read().to_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_spark(py)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("approxset")?.getattr("from_spark")?;
        let bytes = self.to_spark(py).into_any();
        PyTuple::new(py, [load, PyTuple::new(py, [bytes])?.into_any()])
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<SparkFilter>() {
            Ok(o) => std::ptr::eq(self, o.get()) || *self.read() == *o.get().read(),
            Err(_) => false,
        }
    }

    /// ORs ``other`` into this filter (Spark's ``mergeInPlace``); raises
    /// ``ParameterError`` when they differ in version, bits, hashes or seed.
    fn union_update(&self, py: Python<'_>, other: &Bound<'_, SparkFilter>) -> PyResult<()> {
        let theirs = other.get().read().clone();
        self.write().union(&theirs).py(py)
    }

    fn __or__(&self, py: Python<'_>, other: &Bound<'_, SparkFilter>) -> PyResult<SparkFilter> {
        let mut mine = self.read().clone();
        mine.union(&other.get().read()).py(py)?;
        Ok(SparkFilter::wrap(mine))
    }

    fn __ior__(&self, py: Python<'_>, other: &Bound<'_, SparkFilter>) -> PyResult<()> {
        self.union_update(py, other)
    }

    /// A copy.
    fn copy(&self) -> SparkFilter {
        SparkFilter::wrap(self.read().clone())
    }

    /// Always ``"spark"``.
    #[getter]
    fn variant(&self) -> &'static str {
        "spark"
    }

    /// Spark's format version, 1 or 2.
    #[getter]
    fn version(&self) -> i32 {
        self.read().version().number()
    }

    /// The number of hash functions.
    #[getter]
    fn hashes(&self) -> u32 {
        self.read().num_hash_functions()
    }

    /// The Murmur3 seed (0 in version 1).
    #[getter]
    fn seed(&self) -> i32 {
        self.read().seed()
    }

    /// The number of bits (a multiple of 64).
    #[getter]
    fn bits(&self) -> u64 {
        self.read().bit_size()
    }

    /// The version, sizes and fill as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = self.read();
        let d = PyDict::new(py);
        d.set_item("variant", "spark")?;
        d.set_item("version", f.version().number())?;
        d.set_item("hashes", f.num_hash_functions())?;
        d.set_item("seed", f.seed())?;
        d.set_item("bits", f.bit_size())?;
        d.set_item("ones", f.cardinality())?;
        d.set_item("estimated_fp", f.expected_fpp())?;
        d.set_item("memory_bytes", f.memory_bytes())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let f = self.read();
        format!(
            "<approxset.SparkFilter version={} bits={} hashes={} seed={}>",
            f.version(),
            f.bit_size(),
            f.num_hash_functions(),
            f.seed()
        )
    }
}

/// from_spark(data)
/// --
///
/// The filter Spark's ``BloomFilter.writeTo`` wrote into ``data`` (version
/// 1 or 2), every field checked; ``key in f`` answers as Spark's
/// ``mightContain``. Raises ``CorruptFilterError`` for bytes that are not
/// one.
#[pyfunction]
fn from_spark(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<SparkFilter> {
    let bytes: Vec<u8> = if let Ok(b) = data.cast::<PyBytes>() {
        b.as_bytes().to_vec()
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        b.to_vec()
    } else {
        data.call_method0("tobytes")
            .map_err(|_| PyTypeError::new_err("expected bytes, bytearray or memoryview"))?
            .cast::<PyBytes>()?
            .as_bytes()
            .to_vec()
    };
    let f = py.detach(|| SparkBloomFilter::from_bytes(&bytes)).py(py)?;
    Ok(SparkFilter::wrap(f))
}

/// Adds `SparkFilter` and `from_spark` to the extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SparkFilter>()?;
    m.add_function(wrap_pyfunction!(from_spark, m)?)?;
    Ok(())
}
