//! `design`, `compare` and `variants`: plain Python data computed from the
//! library (its sizing plans, and filters built and measured here).

use std::hint::black_box;
use std::time::Instant;

use approxset::hash::splitmix64;
use approxset::{Membership, MembershipExt, Variant};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::args;
use crate::construct::{build_options, parse_variant};
use crate::errors::IntoPy;

/// Whether filters of `variant` union, found by trying it on two small
/// filters with one seed (so it follows the library as variants change).
pub(crate) fn merges(variant: Variant) -> bool {
    if variant.is_static() {
        return false;
    }
    let build = || variant.builder().seed(0).build(16, 0.01);
    match (build(), build()) {
        (Ok(mut a), Ok(b)) => a.union_dyn(&*b).is_ok(),
        _ => false,
    }
}

/// The variants asked for: all of them for `None`.
fn selected(py: Python<'_>, variants: Option<Vec<String>>) -> PyResult<Vec<Variant>> {
    match variants {
        None => Ok(Variant::ALL.to_vec()),
        Some(names) => names.iter().map(|n| parse_variant(py, n)).collect(),
    }
}

/// variants()
/// --
///
/// Every variant as a dict: ``name``, ``static`` (built once with
/// ``Filter.from_keys``), ``deletable`` (``remove``/``discard``) and
/// ``mergeable`` (``|``, ``&``, bit for bit).
#[pyfunction]
pub(crate) fn variants(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for &v in Variant::ALL {
        let d = PyDict::new(py);
        d.set_item("name", v.name())?;
        d.set_item("static", v.is_static())?;
        d.set_item("deletable", v.supports_delete())?;
        d.set_item("mergeable", merges(v))?;
        list.append(d)?;
    }
    Ok(list)
}

/// design(n, fp, variants=None)
/// --
///
/// What a filter of each variant takes for ``n`` keys at rate ``fp``,
/// computed without building it: a list of dicts with ``variant``,
/// ``bits``, ``bytes``, ``bits_per_key``, ``hashes`` (k, or fingerprint
/// bits for cuckoo, fuse, quotient and ribbon, whose rows also name them
/// ``fingerprint_bits``) and ``expected_fp``. A variant that cannot
/// meet the request has ``error`` instead. ``variants`` limits the list.
#[pyfunction]
#[pyo3(signature = (n, fp, variants = None))]
pub(crate) fn design<'py>(
    py: Python<'py>,
    n: &Bound<'_, PyAny>,
    fp: &Bound<'_, PyAny>,
    variants: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyList>> {
    let n = args::size(py, n, "n")?;
    let fp = args::rate(py, fp, "fp")?;
    approxset::sizing::validate_fp_rate(fp).py(py)?;
    approxset::sizing::validate_items(n).py_items(py, "n")?;
    let list = PyList::empty(py);
    for v in selected(py, variants)? {
        let d = PyDict::new(py);
        d.set_item("variant", v.name())?;
        match v.design(n, fp) {
            Ok(design) => {
                d.set_item("items", n)?;
                d.set_item("bits", design.bits())?;
                d.set_item("bytes", design.bytes())?;
                d.set_item("bits_per_key", design.bits_per_key())?;
                d.set_item("hashes", design.hashes())?;
                // As the CLI's JSON: the fingerprint filters name the width.
                if matches!(
                    v,
                    Variant::Cuckoo | Variant::Fuse | Variant::Quotient | Variant::Ribbon
                ) {
                    d.set_item("fingerprint_bits", design.hashes())?;
                }
                d.set_item("expected_fp", design.expected_fp())?;
            }
            Err(e) => d.set_item("error", e.to_string())?,
        }
        list.append(d)?;
    }
    Ok(list)
}

/// One variant's measurements in [`compare`].
struct Row {
    variant: Variant,
    bytes: usize,
    measured_fp: f64,
    false_negatives: usize,
    insert_errors: usize,
    insert_ns: f64,
    contains_ns: f64,
}

/// Builds `variant` for `members`, fills it and measures it against
/// `others`.
fn measure(
    b: &approxset::VariantBuilder,
    variant: Variant,
    fp: f64,
    members: &[u64],
    others: &[u64],
) -> approxset::Result<Row> {
    let start = Instant::now();
    let mut refused = vec![false; 0];
    let filter: Box<dyn Membership + Send + Sync> = if variant.is_static() {
        b.build_from(members, fp)?
    } else {
        let mut f = b.build(members.len(), fp)?;
        for (i, k) in members.iter().enumerate() {
            if f.insert(k).is_err() {
                // Rare (a full cuckoo table): marked only then.
                refused.resize(members.len(), false);
                refused[i] = true;
            }
        }
        f
    };
    let insert_errors = refused.iter().filter(|&&r| r).count();
    let insert_ns = start.elapsed().as_nanos() as f64 / members.len().max(1) as f64;
    let false_negatives = members
        .iter()
        .enumerate()
        .filter(|&(i, k)| !refused.get(i).copied().unwrap_or(false) && !filter.contains(k))
        .count();
    let start = Instant::now();
    let hits = others
        .iter()
        .filter(|k| black_box(filter.contains(black_box(*k))))
        .count();
    let contains_ns = start.elapsed().as_nanos() as f64 / others.len().max(1) as f64;
    Ok(Row {
        variant,
        bytes: filter.memory_bytes(),
        measured_fp: hits as f64 / others.len().max(1) as f64,
        false_negatives,
        insert_errors,
        insert_ns,
        contains_ns,
    })
}

/// compare(n=100000, fp=0.01, *, queries=None, seed=1, variants=None, hash=None)
/// --
///
/// Builds every variant (or those named) for ``n`` random 64-bit keys at
/// rate ``fp``, fills it and measures it against ``queries`` other keys
/// (default ``n``): a list of dicts with ``variant``, ``bits_per_key``,
/// ``bytes``, ``target_fp``, ``measured_fp``, ``false_negatives`` (always
/// 0), ``insert_errors`` (keys a full cuckoo table refused; they are not
/// counted as false negatives), ``insert_ns``, ``contains_ns`` and
/// ``deletable``. A variant that cannot be built has ``error`` instead.
#[pyfunction]
#[pyo3(
    signature = (n = None, fp = None, *, queries = None, seed = None, variants = None, hash = None),
    text_signature = "(n=100000, fp=0.01, *, queries=None, seed=1, variants=None, hash=None)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare<'py>(
    py: Python<'py>,
    n: Option<&Bound<'_, PyAny>>,
    fp: Option<&Bound<'_, PyAny>>,
    queries: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    variants: Option<Vec<String>>,
    hash: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let n = args::opt_size(py, n, "n")?.unwrap_or(100_000);
    let fp = args::opt_rate(py, fp, "fp")?;
    let queries = args::opt_size(py, queries, "queries")?;
    let seed = args::opt_u64(py, seed, "seed")?.unwrap_or(1);
    approxset::sizing::validate_fp_rate(fp).py(py)?;
    approxset::sizing::validate_items(n).py_items(py, "n")?;
    let queries = queries.unwrap_or(n);
    // Both lists are allocated up front: refuse what cannot be had as an
    // error, never an abort.
    let total = n.saturating_add(queries);
    let mut members: Vec<u64> = Vec::new();
    let mut others: Vec<u64> = Vec::new();
    if members.try_reserve_exact(n).is_err() || others.try_reserve_exact(queries).is_err() {
        return Err(PyMemoryError::new_err(format!(
            "cannot allocate {total} keys and queries"
        )));
    }
    let list = PyList::empty(py);
    let chosen = selected(py, variants)?;
    py.detach(|| {
        // Members from one stream, non-members from another (a collision
        // between the two has probability about n·q/2⁶⁴).
        let mut state = seed;
        members.extend((0..n).map(|_| splitmix64(&mut state)));
        let mut state = !seed;
        others.extend((0..queries).map(|_| splitmix64(&mut state)));
    });
    for v in chosen {
        let b = v
            .builder()
            .options(build_options(py, Some(seed), None, hash, None)?);
        let row = py.detach(|| measure(&b, v, fp, &members, &others));
        let d = PyDict::new(py);
        d.set_item("variant", v.name())?;
        match row {
            Ok(row) => {
                d.set_item("bits_per_key", row.bytes as f64 * 8.0 / n as f64)?;
                d.set_item("bytes", row.bytes)?;
                d.set_item("target_fp", fp)?;
                d.set_item("measured_fp", row.measured_fp)?;
                d.set_item("false_negatives", row.false_negatives)?;
                d.set_item("insert_errors", row.insert_errors)?;
                d.set_item("insert_ns", row.insert_ns)?;
                d.set_item("contains_ns", row.contains_ns)?;
                d.set_item("deletable", row.variant.supports_delete())?;
            }
            Err(e) => d.set_item("error", e.to_string())?,
        }
        list.append(d)?;
    }
    Ok(list)
}
