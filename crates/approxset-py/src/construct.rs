//! The arguments the two `Filter` constructors share, `Filter(variant,
//! capacity, fp, **options)` and `Filter.from_keys(variant, keys, fp,
//! **options)`, read once into a [`Recipe`], and the builds it drives.
//!
//! The keyword-only options (`seed`, `key`, `hash`, `max_bytes`) come as
//! one `**options` dict, read here by name, so that the two constructors
//! do not restate them; an unknown name is a `TypeError` naming it, as
//! Python's own for a function that does not take it.

use approxset::{BuildOptions, HashFunction, HashKey, Membership, Variant};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::args;
use crate::batches;
use crate::errors::{IntoPy, Kind};
use crate::source::Source;

/// The boxed filter every `Filter` holds.
pub(crate) type Boxed = Box<dyn Membership + Send + Sync>;

/// The keyword-only options of both constructors, in the order of their
/// text signatures.
const OPTIONS: [&str; 4] = ["seed", "key", "hash", "max_bytes"];

/// The variant, rate and build options of a constructor's arguments.
#[derive(Debug)]
pub(crate) struct Recipe {
    variant: Variant,
    fp: f64,
    options: BuildOptions,
}

impl Recipe {
    /// The recipe of the arguments `variant`, `fp` and the keyword options
    /// `kwargs` of the constructor `function` (as a `TypeError` names it).
    ///
    /// # Errors
    /// `TypeError` for an unknown keyword or an argument of the wrong type,
    /// `ParameterError` naming the argument for a bad value.
    pub(crate) fn parse(
        py: Python<'_>,
        function: &str,
        variant: &str,
        fp: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let [seed, key, hash, max_bytes] = keywords(function, kwargs)?;
        let fp = args::opt_rate(py, fp, "fp")?;
        let seed = args::opt_u64(py, seed.as_ref(), "seed")?;
        let max_bytes = args::opt_size(py, max_bytes.as_ref(), "max_bytes")?;
        let variant = parse_variant(py, variant)?;
        let key = key
            .map(|k| typed(&k, k.extract::<Vec<u8>>(), "key", "bytes"))
            .transpose()?;
        let hash = hash
            .map(|h| typed(&h, h.extract::<String>(), "hash", "a str"))
            .transpose()?;
        let options = build_options(py, seed, key.as_deref(), hash.as_deref(), max_bytes)?;
        Ok(Recipe {
            variant,
            fp,
            options,
        })
    }

    /// An empty filter for `capacity` keys.
    ///
    /// # Errors
    /// `ParameterError` for parameters the variant refuses (`capacity`
    /// named as such).
    pub(crate) fn build(self, py: Python<'_>, capacity: usize) -> PyResult<Boxed> {
        let b = self.variant.builder().options(self.options);
        let fp = self.fp;
        let set = py
            .detach(|| b.build(capacity, fp))
            .py_items(py, "capacity")?;
        Ok(set)
    }

    /// The filter of every key of `source`, sized for them (a static
    /// variant built at once).
    ///
    /// # Errors
    /// `ParameterError` for bad parameters (before any key is read), the
    /// errors of a key that is not one or of the iterator, `FullError`.
    pub(crate) fn build_from(self, py: Python<'_>, source: &mut Source<'_>) -> PyResult<Boxed> {
        let Recipe {
            variant,
            fp,
            options,
        } = self;
        // The key is fixed first, so that keys can be hashed as they are
        // read.
        let hash_key = options.key_or_random();
        let b = variant.builder().options(options.hash_key(hash_key));
        if variant.is_static() {
            // Bad options fail before any key is read.
            b.build_from_digests(&[], fp).py(py)?;
            let digests = batches::digests_all(py, source, hash_key)?;
            return py.detach(|| b.build_from_digests(&digests, fp)).py(py);
        }
        // As `VariantBuilder::build_from`: sized for the number of keys
        // (repeats included, at least 1), then filled in order.
        let (n, digests) = match source.len() {
            Some(n) => (n, None),
            None => {
                let digests = batches::digests_all(py, source, hash_key)?;
                (digests.len(), Some(digests))
            }
        };
        let mut set = py.detach(|| b.build(n.max(1), fp)).py(py)?;
        match digests {
            Some(digests) => py.detach(|| set.insert_digests(&digests)).py(py)?,
            None => batches::insert_all(py, source, hash_key, |d| set.insert_digests(d))?,
        }
        Ok(set)
    }
}

/// The values of the [`OPTIONS`] in `kwargs` (`None` where absent or
/// `None`).
fn keywords<'py>(
    function: &str,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<[Option<Bound<'py, PyAny>>; 4]> {
    let mut found = [None, None, None, None];
    for (name, value) in kwargs.into_iter().flat_map(|d| d.iter()) {
        let name = name.cast_into::<PyString>()?;
        let name = name.to_cow()?;
        let Some(i) = OPTIONS.iter().position(|o| *o == name) else {
            return Err(PyTypeError::new_err(format!(
                "{function}() got an unexpected keyword argument '{name}'"
            )));
        };
        found[i] = Some(value).filter(|v| !v.is_none());
    }
    Ok(found)
}

/// The argument `obj` as `extracted` (`what` in the message of a
/// `TypeError` naming the argument `name`).
fn typed<T>(obj: &Bound<'_, PyAny>, extracted: PyResult<T>, name: &str, what: &str) -> PyResult<T> {
    extracted.map_err(|e| {
        if e.is_instance_of::<PyTypeError>(obj.py()) {
            PyTypeError::new_err(format!(
                "{name} must be {what}, not {}",
                args::type_name(obj)
            ))
        } else {
            e
        }
    })
}

/// A variant by name (any ASCII case, or an alias such as ``bloom``).
///
/// # Errors
/// `ParameterError` for an unknown name.
pub(crate) fn parse_variant(py: Python<'_>, name: &str) -> PyResult<Variant> {
    name.parse::<Variant>()
        .map_err(|e| Kind::Parameter.err(py, e.to_string()))
}

/// The build options of the Python arguments `seed`, `key`, `hash` and
/// `max_bytes`.
///
/// # Errors
/// `ParameterError` for both `seed` and `key`, a key that is not 16 bytes
/// or an unknown hash function.
pub(crate) fn build_options(
    py: Python<'_>,
    seed: Option<u64>,
    key: Option<&[u8]>,
    hash: Option<&str>,
    max_bytes: Option<usize>,
) -> PyResult<BuildOptions> {
    let mut b = BuildOptions::new();
    match (seed, key) {
        (Some(_), Some(_)) => {
            return Err(Kind::Parameter.err(py, "give seed or key, not both"));
        }
        (Some(seed), None) => b = b.seed(seed),
        (None, Some(key)) => {
            let bytes: [u8; 16] = key.try_into().map_err(|_| {
                Kind::Parameter.err(
                    py,
                    format!("invalid key: a hash key is 16 bytes, not {}", key.len()),
                )
            })?;
            b = b.hash_key(HashKey::from_le_bytes(bytes));
        }
        (None, None) => {}
    }
    if let Some(hash) = hash {
        let function: HashFunction =
            hash.parse()
                .map_err(|e: approxset::hash::ParseHashFunctionError| {
                    Kind::Parameter.err(py, e.to_string())
                })?;
        b = b.hash(function);
    }
    if let Some(max) = max_bytes {
        b = b.max_bytes(max);
    }
    Ok(b)
}
