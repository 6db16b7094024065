//! The quotient filter: its type, its public operations, growth and merge.

use std::fmt;

use approxset_core::format::Words;
use approxset_core::{BuildOptions, Count, Digest, Error, HashKey, Removal, Result, Value};

use crate::bits::{Select, with_select};
use crate::sizing::{Plan, limit};
use crate::table::{Place, Table};
use crate::update::Scratch;

/// A counting quotient filter that grows and merges: an approximate
/// multiset that **removes** items, **counts** them without a cap, and
/// takes any number of them at the rate it was built for.
///
/// Each item is stored as a fingerprint in a quotient table (Pandey et
/// al., SIGMOD 2017: rank-and-select metadata over blocks of 64 slots,
/// repeated items as a counter in the slots). Sized for `n` items at rate
/// `p`, the first table has `n/0.95` slots of `⌈log₂(0.95/p)⌉`-bit
/// remainders plus 2.25 bits of metadata per slot: 9.74 bits per item at
/// 1 %, 12.9 at 0.1 %. When it is 95 % full, the filter adds a table of
/// twice the slots and wider remainders, so the rate stays at most `p` at
/// every size (`docs/design.md`, "Quotient filter").
///
/// ```
/// # extern crate approxset_quotient as approxset;
/// use approxset::QuotientFilter;
///
/// let mut filter = QuotientFilter::with_fp_rate(0.01).seed(7).expected_items(100)?;
/// for i in 0..1000u32 {
///     filter.insert(&i)?;
/// }
/// assert!((0..1000u32).all(|i| filter.contains(&i)));
/// assert!(filter.tables() > 1);
/// assert!(filter.remove(&5u32).is_removed());
/// assert!(!filter.contains(&5u32) || filter.estimated_fp_rate() > 0.0);
/// assert_eq!(filter.len(), 999);
/// # Ok::<(), approxset_quotient::Error>(())
/// ```
///
/// # Guarantees
///
/// - **No false negatives**: an item inserted (with `Ok`) more times than
///   it was removed is found, through growth and merges.
/// - **Counts**: [`count`](Self::count) is at least the times an item went
///   in, less its removes, with no cap (other items with the same
///   fingerprint add to it).
/// - **Remove only what you inserted**: removing an item that was never
///   inserted but tests present (a false positive) takes away the count of
///   another item with its fingerprint.
#[derive(Clone)]
pub struct QuotientFilter {
    pub(crate) tables: Vec<Table>,
    pub(crate) plan: Plan,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
    pub(crate) max_bytes: Option<usize>,
    pub(crate) scratch: Scratch,
}

/// A builder of [`QuotientFilter`]s, started by
/// [`QuotientFilter::with_fp_rate`] and finished by
/// [`expected_items`](Self::expected_items).
///
/// ```
/// # extern crate approxset_quotient as approxset;
/// use approxset::QuotientFilter;
/// let f = QuotientFilter::with_fp_rate(0.001).seed(42).expected_items(10_000)?;
/// assert_eq!(f.remainder_bits(), 10);
/// # Ok::<(), approxset_quotient::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct QuotientBuilder {
    fp_rate: f64,
    options: BuildOptions,
}

impl QuotientBuilder {
    approxset_core::build_options_setters!();

    /// Builds an empty filter sized for `expected_items` items (it grows
    /// past them) at the target rate.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `fp_rate` (outside (0, 1), or
    /// needing more than 64 bits of fingerprint), `expected_items` (0) or
    /// `hash` (Parquet's xxHash64); [`Error::TooLarge`] or
    /// [`Error::AllocationFailed`].
    pub fn expected_items(self, expected_items: usize) -> Result<QuotientFilter> {
        let plan = Plan::new(expected_items, self.fp_rate)?;
        let key = self
            .options
            .key_for(approxset_core::format::tag::QUOTIENT)?;
        let max_bytes = self.options.max_bytes_limit();
        let table = Table::new(plan.home, plan.r0, max_bytes)?;
        Ok(QuotientFilter {
            tables: vec![table],
            plan,
            key,
            len: 0,
            capacity: expected_items,
            fp_rate: self.fp_rate,
            max_bytes,
            scratch: Scratch::default(),
        })
    }
}

/// Fingerprint of `h1` in `[0, range)`: its quotient and remainder in a
/// table of `bits`-bit remainders.
#[inline(always)]
pub(crate) fn split(h1: u64, range: u64, bits: u32) -> (usize, u64) {
    let fp = ((u128::from(h1) * u128::from(range)) >> 64) as u64;
    ((fp >> bits) as usize, fp & ((1u64 << bits) - 1))
}

/// Table `i` of a filter of `items` items that has `have` bytes of tables,
/// made by `make(home, bits, max_bytes)` within what `max_bytes` leaves:
/// the growth of a filter and of a shard.
///
/// # Errors
/// [`Error::CannotGrow`] past 64-bit fingerprints or the address space;
/// [`Error::TooLarge`] (counting the tables it has) or
/// [`Error::AllocationFailed`] from `make`.
pub(crate) fn next_table<T>(
    plan: &Plan,
    i: usize,
    items: usize,
    have: usize,
    max_bytes: Option<usize>,
    make: impl FnOnce(usize, u32, Option<usize>) -> Result<T>,
) -> Result<T> {
    let cannot = |reason: String| Error::CannotGrow {
        stages: i,
        items,
        reason,
    };
    if plan.range(i).is_none() {
        return Err(cannot(format!(
            "table {i} would need fingerprints of more than 64 bits ({} remainder bits)",
            plan.bits(i)
        )));
    }
    let home = plan
        .home(i)
        .ok_or_else(|| cannot("too many slots".into()))?;
    let have = have as u128;
    let limit =
        max_bytes.map(|m| (m as u128).saturating_sub(have).min(usize::MAX as u128) as usize);
    make(home, plan.bits(i), limit).map_err(|e| match e {
        Error::TooLarge { needed, .. } => Error::TooLarge {
            needed: needed + have,
            limit: max_bytes.map_or(isize::MAX as u128, |m| m as u128),
        },
        e => e,
    })
}

/// The first table (from the oldest) that holds the digest's fingerprint,
/// with its count there: the lookup of a filter and of a view.
#[inline]
pub(crate) fn find<'t, S: Words + 't>(
    tables: impl IntoIterator<Item = &'t Table<S>>,
    digest: Digest,
) -> Option<(usize, u64)> {
    for (i, t) in tables.into_iter().enumerate() {
        let (q, rem) = split(digest.h1(), t.range(), t.bits);
        let c = t.count(q, rem);
        if c > 0 {
            return Some((i, c));
        }
    }
    None
}

/// Whether some table holds the digest's fingerprint: the membership
/// test of a filter, a view and a shard ([`find`] without the count), in
/// the build for a fast PDEP where the processor has one.
#[inline]
pub(crate) fn holds<'t, S: Words + 't>(
    tables: impl IntoIterator<Item = &'t Table<S>>,
    digest: Digest,
) -> bool {
    // (The closure holds two words, passed in registers.)
    let h1 = digest.h1();
    with_select!(|sel| holds_by(sel, tables, h1))
}

/// [`holds`] with `sel`'s selects.
#[inline(always)]
fn holds_by<'t, S: Words + 't>(
    sel: impl Select,
    tables: impl IntoIterator<Item = &'t Table<S>>,
    h1: u64,
) -> bool {
    tables.into_iter().any(|t| {
        let (q, rem) = split(h1, t.range(), t.bits);
        t.contains(sel, q, rem)
    })
}

/// Where a digest's fingerprint lies in a chain of tables: table `table`,
/// its quotient and remainder there, and its [`Place`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located {
    pub(crate) table: usize,
    pub(crate) q: usize,
    pub(crate) rem: u64,
    pub(crate) place: Place,
}

/// The first table that holds the digest's fingerprint (`place.count >
/// 0`), or else its place in the newest table: what an insert or a remove
/// changes, found once.
pub(crate) fn locate<'t, S: Words + 't>(
    tables: impl IntoIterator<Item = &'t Table<S>>,
    digest: Digest,
) -> Located {
    let mut last = None;
    for (table, t) in tables.into_iter().enumerate() {
        let (q, rem) = split(digest.h1(), t.range(), t.bits);
        let place = t.place(q, rem);
        let at = Located {
            table,
            q,
            rem,
            place,
        };
        if place.count > 0 {
            return at;
        }
        last = Some(at);
    }
    last.expect("a filter has a table")
}

impl QuotientFilter {
    /// A filter for `expected_items` items (it grows past them) at
    /// false-positive rate `fp_rate`, with a random hash key.
    ///
    /// # Errors
    /// As [`QuotientBuilder::expected_items`].
    pub fn new(expected_items: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).expected_items(expected_items)
    }

    /// Starts a builder for a target false-positive rate.
    pub fn with_fp_rate(fp_rate: f64) -> QuotientBuilder {
        QuotientBuilder {
            fp_rate,
            options: BuildOptions::new(),
        }
    }

    approxset_core::key_methods!(insert);
    approxset_core::key_methods!(remove);

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        holds(&self.tables, digest)
    }

    /// Inserts a precomputed digest: `Ok(true)` when no table held its
    /// fingerprint before. One more copy is counted either way, in the
    /// first table that holds the fingerprint, or else in the newest (a
    /// new table when the newest is full).
    ///
    /// # Errors
    /// [`Error::CannotGrow`] when the next table would need fingerprints
    /// past 64 bits, [`Error::TooLarge`] past `max_bytes`,
    /// [`Error::AllocationFailed`]; the filter is then unchanged.
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        if let Some(new) = self.insert_direct(digest) {
            return Ok(new);
        }
        let mut at = locate(&self.tables, digest);
        let new = at.place.count == 0;
        let last = self.tables.len() - 1;
        if new && self.tables[last].used >= limit(self.tables[last].home) {
            self.grow()?;
            at = locate(&self.tables[last + 1..], digest);
            at.table += last + 1;
        }
        let t = &mut self.tables[at.table];
        t.update_at(at.q, at.rem, &at.place, &mut self.scratch, |c| c + 1)
            .expect("a vector grows");
        self.len += 1;
        Ok(new)
    }

    /// Adds the next table: twice the home slots of the last, wider
    /// remainders.
    fn grow(&mut self) -> Result<()> {
        let have = self.memory_bytes();
        let table = next_table(
            &self.plan,
            self.tables.len(),
            self.len,
            have,
            self.max_bytes,
            Table::new,
        )?;
        self.tables.push(table);
        Ok(())
    }

    /// Removes one copy of a precomputed digest, from the first table that
    /// holds its fingerprint: [`Removal::Removed`], or [`Removal::Absent`]
    /// (changing nothing) when no table holds it.
    pub fn remove_digest(&mut self, digest: Digest) -> Removal {
        if let Some(removal) = self.remove_direct(digest) {
            return removal;
        }
        let at = locate(&self.tables, digest);
        if at.place.count == 0 {
            return Removal::Absent;
        }
        let t = &mut self.tables[at.table];
        t.update_at(at.q, at.rem, &at.place, &mut self.scratch, |c| c - 1)
            .expect("a vector grows");
        self.len -= 1;
        Removal::Removed
    }

    /// An upper bound on the times a precomputed digest went in (less its
    /// removes): the count of its fingerprint, with no cap below 2³².
    pub fn count_digest(&self, digest: Digest) -> Count {
        match find(&self.tables, digest) {
            None => Count::AtMost(0),
            Some((_, c)) => match u32::try_from(c) {
                Ok(c) => Count::AtMost(c),
                Err(_) => Count::AtLeast(u32::MAX),
            },
        }
    }

    /// Intersection is not supported (the trait's `intersect_dyn`).
    ///
    /// # Errors
    /// Always [`Error::Unsupported`].
    pub fn intersect_dyn(&mut self, other: &dyn approxset_core::ApproxSet) -> Result<()> {
        let _ = other;
        Err(Error::Unsupported {
            operation: "intersection",
            variant: "quotient",
        })
    }

    approxset_core::key_methods!(try_extend);

    /// The tables the filter has grown to (1 until it first fills).
    pub fn tables(&self) -> usize {
        self.tables.len()
    }

    /// Remainder bits of the first table: as planned, less one for each
    /// bit a [`union`](Self::union) of full filters moved into its
    /// quotients.
    pub fn remainder_bits(&self) -> u32 {
        self.tables[0].bits
    }

    chain_methods!(len = "Inserts accepted less removes that succeeded (repeats included).");

    /// Removes every item, keeping the first table's size and the key.
    pub fn clear(&mut self) {
        self.tables.truncate(1);
        self.tables[0].clear();
        self.len = 0;
    }

    /// Checks the invariants, for tests.
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        for t in &self.tables {
            t.check().unwrap();
        }
        let total: u64 = self
            .tables
            .iter()
            .map(|t| {
                let mut s = 0;
                t.for_each(|_, c| s += c);
                s
            })
            .sum();
        assert_eq!(total, self.len as u64);
    }
}

/// The parameters of a filter or view; see [`QuotientFilter::parameters`].
pub(crate) fn parameters<S: Words>(tables: &[Table<S>], plan: &Plan) -> Vec<(&'static str, Value)> {
    let home: usize = tables.iter().map(|t| t.home).sum();
    let used: usize = tables.iter().map(|t| t.used).sum();
    let entries: usize = tables.iter().map(|t| t.entries).sum();
    vec![
        ("tables", tables.len().into()),
        (
            "remainder_bits",
            tables.first().map_or(plan.r0, |t| t.bits).into(),
        ),
        ("slots", home.into()),
        ("load", (used as f64 / home as f64).into()),
        ("entries", entries.into()),
    ]
}

/// The rate at the current fill of a filter or view.
pub(crate) fn estimated_fp_rate<S: Words>(tables: &[Table<S>]) -> f64 {
    tables
        .iter()
        .map(|t| t.entries as f64 / t.range() as f64)
        .sum()
}

/// Two filters are equal when they hold the same fingerprints with the
/// same counts in the same tables, with the same key, plan and size.
impl PartialEq for QuotientFilter {
    fn eq(&self, other: &Self) -> bool {
        self.compared() == other.compared()
    }
}

/// The fields equality compares (not the scratch buffers or the memory
/// limit), the rate as its bits.
type Compared<'a> = (&'a [Table], Plan, HashKey, usize, usize, u64);

impl QuotientFilter {
    fn compared(&self) -> Compared<'_> {
        let f = self;
        (
            &f.tables,
            f.plan,
            f.key,
            f.len,
            f.capacity,
            f.fp_rate.to_bits(),
        )
    }
}

impl fmt::Debug for QuotientFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuotientFilter")
            .field("tables", &self.tables.len())
            .field("remainder_bits", &self.remainder_bits())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

approxset_core::impl_approx_set!([] QuotientFilter, variant = "quotient", remove, combine);

impl QuotientFilter {
    /// What a filter for `expected_items` items at `fp_rate` takes before
    /// it grows: its first table's bits and bytes, remainder bits (as
    /// `probes`) and the rate at `expected_items`, computed without
    /// building it.
    ///
    /// # Errors
    /// As [`QuotientBuilder::expected_items`], without allocating.
    pub fn plan(expected_items: usize, fp_rate: f64) -> Result<approxset_core::sizing::Plan> {
        let plan = Plan::new(expected_items, fp_rate)?;
        let blocks = plan.home as u128 / 64 + 1;
        let words = blocks * (2 + u128::from(plan.r0)) + blocks.div_ceil(4);
        let expected = expected_items as f64 / plan.range(0).expect("checked") as f64;
        Ok(approxset_core::sizing::Plan::new(
            expected_items,
            words * 64,
            words * 8,
            plan.r0,
            expected,
        ))
    }
}
