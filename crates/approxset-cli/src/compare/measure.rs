//! Measuring one filter for `compare`: the keys (random or a file's lines),
//! filling, timed lookups, and the row of one variant at one rate.

use std::hint::black_box;
use std::time::Instant;

use approxset::{ApproxSet, HashFunction, Membership, MembershipExt, Variant, VariantBuilder};

use super::spec::*;
use crate::error::CliError;
use crate::keys::{self, KeyList, SplitMix64};
use crate::options::check_count;

/// A boxed filter of any variant.
pub(super) type Filter = Box<dyn ApproxSet + Send + Sync>;

/// Keys that can be inserted into and looked up in a filter by index: random
/// numbers (as their little-endian bytes) or byte strings.
pub(super) trait Keys {
    /// The number of keys.
    fn len(&self) -> usize;
    /// Inserts key `i`.
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool>;
    /// Looks up key `i`.
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool;
    /// A static filter of every key, from `builder`.
    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static>;
}

/// A built static filter.
pub(super) type Static = Box<dyn Membership + Send + Sync>;

impl Keys for Vec<u64> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline]
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool> {
        filter.insert(&self[i])
    }

    #[inline]
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool {
        filter.contains(&self[i])
    }

    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static> {
        builder.build_from(self, fp)
    }
}

impl Keys for KeyList {
    fn len(&self) -> usize {
        KeyList::len(self)
    }

    #[inline]
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool> {
        filter.insert_bytes(self.get(i))
    }

    #[inline]
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool {
        filter.contains_bytes(self.get(i))
    }

    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static> {
        let keys: Vec<&[u8]> = (0..KeyList::len(self)).map(|i| self.get(i)).collect();
        builder.build_from(&keys, fp)
    }
}

/// What an insertion pass did.
#[derive(Debug)]
pub(super) struct Filled {
    /// Nanoseconds per insertion.
    insert_ns: f64,
    /// For each key, whether it was refused; empty when none was.
    refused: Vec<bool>,
    /// The first refusal, to report it.
    first_error: Option<approxset::Error>,
}

/// Inserts every member, timing the whole loop; refusals are counted, not
/// fatal.
pub(super) fn fill<K: Keys + ?Sized>(filter: &mut Filter, members: &K) -> Filled {
    let n = members.len();
    let mut refused = Vec::new();
    let mut first_error = None;
    let start = Instant::now();
    for i in 0..n {
        if let Err(e) = members.insert(filter, black_box(i)) {
            if refused.is_empty() {
                refused = vec![false; n];
            }
            refused[i] = true;
            first_error.get_or_insert(e);
        }
    }
    let elapsed = start.elapsed();
    Filled {
        insert_ns: per_op(elapsed.as_nanos(), n),
        refused,
        first_error,
    }
}

/// Looks up every key, timing the whole loop: (keys found, ns per lookup).
pub(super) fn lookup<K: Keys + ?Sized, F: Membership + ?Sized>(filter: &F, keys: &K) -> (u64, f64) {
    let start = Instant::now();
    let mut found = 0u64;
    for i in 0..keys.len() {
        found += u64::from(black_box(keys.contains(filter, black_box(i))));
    }
    (found, per_op(start.elapsed().as_nanos(), keys.len()))
}

/// Nanoseconds per operation.
pub(super) fn per_op(nanos: u128, ops: usize) -> f64 {
    nanos as f64 / ops.max(1) as f64
}

/// The keys of a comparison.
pub(super) enum KeySource {
    /// Random numbers: members and non-members (never equal: the generator
    /// does not repeat within its period).
    Random(Vec<u64>, Vec<u64>),
    /// Lines of a file: members and non-members.
    Lines(KeyList, KeyList),
}

impl KeySource {
    /// The keys from the options.
    pub(super) fn new(args: &CompareArgs) -> Result<Self, CliError> {
        if let Some(path) = &args.keys {
            let data = std::fs::read(path).map_err(|e| {
                CliError::io(format_args!("cannot read --keys '{}'", path.display()), &e)
            })?;
            let (members, others) = keys::split_lines(
                &data,
                &path.display().to_string(),
                keys::LineKeys::from_flag(args.raw_keys),
            )?;
            Ok(KeySource::Lines(members, others))
        } else {
            let (items, queries) = match (args.sweep, args.items, args.queries) {
                (true, None, None) => (SWEEP_ITEMS, SWEEP_QUERIES),
                (_, items, queries) => {
                    let items = items.unwrap_or(DEFAULT_ITEMS);
                    (items, queries.unwrap_or(items))
                }
            };
            let items = check_count("items", items)?;
            let queries = check_count("queries", queries)?;
            let mut rng = SplitMix64::new(args.seed);
            let members = rng.take(items)?;
            let others = rng.take(queries)?;
            Ok(KeySource::Random(members, others))
        }
    }

    /// The members and the non-members.
    pub(super) fn split(&self) -> (&dyn KeysDyn, &dyn KeysDyn) {
        match self {
            KeySource::Random(m, o) => (m, o),
            KeySource::Lines(m, o) => (m, o),
        }
    }
}

/// Object-safe access to [`Keys`] for dispatch per key source; the loops
/// themselves are monomorphised.
pub(super) trait KeysDyn {
    /// The number of keys.
    fn count(&self) -> usize;
    /// Fills `filter` with these keys.
    fn fill_into(&self, filter: &mut Filter) -> Filled;
    /// Looks these keys up in `filter`.
    fn lookup_in(&self, filter: &Filter) -> (u64, f64);
    /// Counts the keys not refused that `filter` does not find.
    fn missing(&self, filter: &Filter, refused: &[bool]) -> u64;
    /// Builds a static filter of these keys: (filter, ns per key).
    fn build_static(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<(Static, f64)>;
    /// Looks these keys up in the static `filter`.
    fn lookup_in_static(&self, filter: &Static) -> (u64, f64);
}

impl<K: Keys + ?Sized> KeysDyn for K {
    fn count(&self) -> usize {
        self.len()
    }

    fn fill_into(&self, filter: &mut Filter) -> Filled {
        fill(filter, self)
    }

    fn lookup_in(&self, filter: &Filter) -> (u64, f64) {
        lookup(&**filter, self)
    }

    fn build_static(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<(Static, f64)> {
        let start = Instant::now();
        let filter = self.build(builder, fp)?;
        Ok((filter, per_op(start.elapsed().as_nanos(), self.len())))
    }

    fn lookup_in_static(&self, filter: &Static) -> (u64, f64) {
        lookup(&**filter, self)
    }

    fn missing(&self, filter: &Filter, refused: &[bool]) -> u64 {
        (0..self.len())
            .filter(|&i| !refused.get(i).copied().unwrap_or(false) && !self.contains(filter, i))
            .count() as u64
    }
}

/// Builds `variant` for `members.count()` keys at `fp`, fills it with
/// `members` and measures it against `others`; a refusal is a warning (in
/// `notes`), not a failure.
pub(super) fn measure(
    variant: Variant,
    fp: f64,
    (seed, hash): (u64, HashFunction),
    (members, others): (&dyn KeysDyn, &dyn KeysDyn),
    notes: &mut Vec<String>,
) -> approxset::Result<CompareRow> {
    let n = members.count();
    let builder = variant.builder().seed(seed).hash(hash);
    if variant.is_static() {
        // Built from every member at once: the build's time per key is its
        // "insert" time.
        let (filter, insert_ns) = members.build_static(&builder, fp)?;
        let (found, contains_hit_ns) = members.lookup_in_static(&filter);
        let (false_positives, contains_miss_ns) = others.lookup_in_static(&filter);
        let bytes = filter.memory_bytes() as u64;
        return Ok(CompareRow {
            variant: variant.to_string(),
            bits_per_key: bytes as f64 * 8.0 / n as f64,
            bytes,
            target_fp: fp,
            measured_fp: false_positives as f64 / others.count() as f64,
            false_negatives: n as u64 - found,
            insert_ns,
            contains_hit_ns,
            contains_miss_ns,
            supports_delete: false,
            insert_errors: 0,
        });
    }
    let mut filter = builder.build(n, fp)?;
    let filled = members.fill_into(&mut filter);
    let refused = filled.refused.iter().filter(|&&r| r).count() as u64;
    if let Some(e) = &filled.first_error {
        notes.push(format!(
            "{variant} at {fp}: {refused} of {n} insertions refused: {e}"
        ));
    }
    let (found, contains_hit_ns) = members.lookup_in(&filter);
    let false_negatives = if refused == 0 {
        n as u64 - found
    } else {
        members.missing(&filter, &filled.refused)
    };
    let (false_positives, contains_miss_ns) = others.lookup_in(&filter);
    let bytes = filter.memory_bytes() as u64;
    Ok(CompareRow {
        variant: variant.to_string(),
        bits_per_key: bytes as f64 * 8.0 / n as f64,
        bytes,
        target_fp: fp,
        measured_fp: false_positives as f64 / others.count() as f64,
        false_negatives,
        insert_ns: filled.insert_ns,
        contains_hit_ns,
        contains_miss_ns,
        supports_delete: variant.supports_delete(),
        insert_errors: refused,
    })
}
