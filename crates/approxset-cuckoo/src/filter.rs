//! The cuckoo filter: its type, its public operations, and the per-width
//! hot paths of lookup, insertion and removal.

use std::fmt;

use approxset_core::format::Words;
use approxset_core::{Count, Digest, HashKey, Removal, Result, Value};

use crate::bucket;
use crate::kick::{Slots, Victim, Xorshift, copies_in, stash_holds};
use crate::table::{SLOTS, Table, Width, with_width};

/// Runs `$method::<W>($args)` for the [`Width`] `W` of the table's
/// fingerprints: the hot paths are monomorphised per width (4 to 32 bits),
/// picked by one predictable branch.
macro_rules! by_width {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        with_width!($self.table.bits(), W => $self.$method::<W>($($arg),*))
    };
}

/// The read-only statistics of a cuckoo filter or a view of one, written
/// once over their `table`, `len`, `capacity` and `victim` fields.
macro_rules! stats_methods {
    () => {
        /// The parameters by name: `fingerprint_bits`, `buckets`, `slots`,
        /// `load` (occupied slots / slots) and `stash` (1 when the victim stash
        /// is taken).
        pub fn parameters(&self) -> Vec<(&'static str, approxset_core::Value)> {
            $crate::filter::parameters(&self.table, self.len, self.victim)
        }

        /// Fingerprint width `f` in bits, 4 to 32.
        pub fn fingerprint_bits(&self) -> u32 {
            self.table.bits()
        }

        /// Number of buckets `B` (any whole number, not only powers of two).
        pub fn buckets(&self) -> usize {
            self.table.buckets()
        }

        /// Fingerprints stored per slot, `len / slots` (the stash included).
        pub fn load_factor(&self) -> f64 {
            self.len as f64 / (self.table.buckets() * $crate::table::SLOTS) as f64
        }

        /// The number of items the filter was sized for.
        pub fn capacity(&self) -> usize {
            self.capacity
        }

        /// The false-positive rate at the current load:
        /// 1 − (1 − 1/(2^f − 1))^(2b·load).
        pub fn estimated_fp_rate(&self) -> f64 {
            $crate::sizing::fp_rate_at(self.table.bits(), self.load_factor())
        }

        /// The distinct items it holds, estimated: the fingerprints stored,
        /// [`len`](Self::len), as each accepted insert stores one. Repeats of a
        /// key are stored (and counted) once each, so this overcounts a multiset.
        pub fn estimated_items(&self) -> f64 {
            self.len as f64
        }

        /// Bytes of the slot table: `4·B·f` bits rounded up to whole `u64`
        /// words.
        pub fn memory_bytes(&self) -> usize {
            self.table.memory_bytes()
        }
    };
}
pub(crate) use stats_methods;

/// A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, 2014): an
/// approximate set that can also **remove** items.
///
/// Each item is stored as an `f`-bit fingerprint (any `f` from 4 to 32) in
/// one of two buckets of four slots, chosen by partial-key cuckoo hashing; a
/// lookup reads those two buckets. Sized for `n` items at rate `p`, it takes
/// `f / 0.94` bits per item (for `n` past a few thousand), with `f` the
/// smallest width whose rate at that load, about 2b·0.94/2^f, is at most
/// `p`: one bit more per halving of `p`, about `log₂(7.52/p)` rounded up.
///
/// | target `p` | `f` | bits per item | rate at capacity |
/// |---|---|---|---|
/// | 10 % | 7 | 7.45 | 5.8 % |
/// | 1 % | 10 | 10.6 | 0.73 % |
/// | 0.1 % | 13 | 13.8 | 0.092 % |
/// | 0.01 % | 17 | 18.1 | 0.0057 % |
/// | 10⁻⁶ | 23 | 24.5 | 9.0·10⁻⁷ |
///
/// Set explicitly, a width is accepted whenever its rate at capacity meets
/// the target. Rates below [`MIN_FP_RATE`](crate::MIN_FP_RATE) ≈
/// 1.86·10⁻⁹, what 32-bit fingerprints reach, are refused.
///
/// ```
/// # extern crate approxset_cuckoo as approxset;
/// use approxset::CuckooFilter;
///
/// let mut filter = CuckooFilter::with_fp_rate(0.01).seed(7).expected_items(1000)?;
/// for i in 0..1000u32 {
///     filter.insert(&i)?;
/// }
/// assert!((0..1000u32).all(|i| filter.contains(&i)));
/// assert!(filter.remove(&5u32).is_removed());
/// assert_eq!(filter.len(), 999);
/// assert_eq!(filter.fingerprint_bits(), 10);
/// # Ok::<(), approxset_cuckoo::Error>(())
/// ```
///
/// # Guarantees
///
/// - **No false negatives**, under any sequence of calls: an item inserted
///   (with `Ok`) more times than it was removed is found.
/// - **Bounded room**: [`insert`](Self::insert) returns
///   [`Error::Full`](approxset_core::Error::Full) when there is no room, and then changes nothing; every
///   item stored before is still found.
/// - **Multiset**: inserting an item twice stores two fingerprints, and one
///   [`remove`](Self::remove) takes away one of them.
///
/// # Filling up
///
/// An insertion puts the fingerprint in a free slot of either bucket. When
/// both are full, it moves one of their eight fingerprints to its other
/// bucket if one of those has room (the eight are read together), and
/// otherwise "kicks" a random fingerprint of a full bucket to its other
/// bucket, and so on, up to [`MAX_KICKS`](crate::MAX_KICKS) times. When the
/// chain runs out of kicks, the fingerprint left over goes to a one-entry
/// **victim stash**, as in the reference implementation: the insertion still succeeds and nothing is
/// lost, but every later insertion fails with [`Error::Full`](approxset_core::Error::Full) until a
/// [`remove`](Self::remove) makes room and the victim moves back into the
/// table. Filled with distinct items, a table of a million items reaches a
/// load of about 96 % before that first failure, and a table sized for `n`
/// items takes them with overwhelming probability (see
/// [`CuckooBuilder::expected_items`](crate::CuckooBuilder::expected_items)).
///
/// # Removing items that were never inserted
///
/// [`remove`](Self::remove) of an item that tests absent returns `false` and
/// changes nothing. But an item that was never inserted and tests positive
/// (a false positive: it shares its fingerprint and buckets with a stored
/// item) removes that **other** item's fingerprint, which is then no longer
/// found. No filter can tell the two cases apart: remove only items you
/// inserted.
///
/// # No `Extend`
///
/// The filter does not implement [`Extend`]: an insert can fail with
/// [`Error::Full`](approxset_core::Error::Full), which `Extend` cannot report. Use
/// [`try_extend`](Self::try_extend), which returns the first error and keeps
/// the items inserted before it.
#[derive(Clone)]
pub struct CuckooFilter {
    pub(crate) table: Table,
    pub(crate) victim: Option<Victim>,
    pub(crate) rng: Xorshift,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
}

impl CuckooFilter {
    /// A filter for `expected_items` items at false-positive rate `fp_rate`,
    /// with a random hash key. Shorthand for
    /// `with_fp_rate(fp_rate).expected_items(expected_items)`.
    ///
    /// # Errors
    /// As [`CuckooBuilder::expected_items`](crate::CuckooBuilder::expected_items).
    pub fn new(expected_items: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).expected_items(expected_items)
    }

    approxset_core::key_methods!(insert);
    approxset_core::key_methods!(remove);

    /// Inserts a precomputed digest (see [`HashKey::digest`]). Returns
    /// `Ok(true)` when the filter certainly did not hold it before (neither
    /// bucket nor the stash held its fingerprint), `Ok(false)` when it may
    /// have; either way one more copy is stored.
    ///
    /// # Errors
    /// [`Error::TooManyCopies`](approxset_core::Error::TooManyCopies) when the item's two buckets already hold
    /// 2b = 8 copies of its fingerprint; [`Error::Full`](approxset_core::Error::Full) when the victim
    /// stash is taken (an earlier insertion ran out of kicks). The filter is
    /// then unchanged.
    #[inline]
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        by_width!(self.insert_impl(digest))
    }

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        by_width!(self.contains_impl(digest))
    }

    /// Removes one copy of a precomputed digest: [`Removal::Removed`], or
    /// [`Removal::Absent`] (changing nothing) when no copy of its
    /// fingerprint is in its two buckets or the stash.
    #[inline]
    pub fn remove_digest(&mut self, digest: Digest) -> Removal {
        if by_width!(self.remove_impl(digest)) {
            Removal::Removed
        } else {
            Removal::Absent
        }
    }

    /// An upper bound on the times a precomputed digest went in: the copies
    /// of its fingerprint in its two buckets and the stash (at most 8, the
    /// most the filter stores; see [`Error::TooManyCopies`](approxset_core::Error::TooManyCopies)). Other keys
    /// with the same fingerprint and buckets add to it.
    #[inline]
    pub fn count_digest(&self, digest: Digest) -> Count {
        Count::AtMost(by_width!(self.copies_impl(digest)))
    }

    approxset_core::key_methods!(try_extend);

    stats_methods!();

    /// Number of slots, `4·B`.
    pub fn slots(&self) -> usize {
        self.table.buckets() * SLOTS
    }

    approxset_core::bookkeeping_methods!(
        len = "Fingerprints stored, in the table and the stash: successful inserts \
               (duplicates included) less successful removals."
    );

    /// Removes every item, keeping the size and the key.
    pub fn clear(&mut self) {
        self.table.clear();
        self.victim = None;
        self.len = 0;
        self.rng = Xorshift::from_key(self.key);
    }

    /// The fingerprint and the two buckets of a digest, for tests.
    #[cfg(test)]
    fn locate<W: Width>(&self, digest: Digest) -> (u64, usize, usize) {
        bucket::locate::<W>(digest, self.table.buckets())
    }

    #[inline(always)]
    fn contains_impl<W: Width>(&self, digest: Digest) -> bool {
        contains_in::<W, _>(&self.table, self.victim, digest)
    }

    #[inline(always)]
    fn copies_impl<W: Width>(&self, digest: Digest) -> u32 {
        copies_in::<W, _>(&self.table, self.victim, digest).0
    }

    /// The filter's writable state.
    #[inline(always)]
    fn writer(&mut self) -> Slots<'_, Vec<u64>> {
        Slots {
            table: &mut self.table,
            victim: &mut self.victim,
            rng: &mut self.rng,
            len: &mut self.len,
        }
    }

    #[inline(always)]
    fn insert_impl<W: Width>(&mut self, digest: Digest) -> Result<bool> {
        self.writer().insert::<W>(digest)
    }

    #[inline(always)]
    fn remove_impl<W: Width>(&mut self, digest: Digest) -> bool {
        self.writer().remove::<W>(digest)
    }

    /// The fingerprint and buckets of a digest, for tests.
    #[cfg(test)]
    pub(crate) fn locate_for_test(&self, digest: Digest) -> (u64, usize, usize) {
        by_width!(self.locate(digest))
    }

    /// Whether the victim stash is taken, for tests.
    #[cfg(test)]
    pub(crate) fn stash_taken(&self) -> bool {
        self.victim.is_some()
    }

    /// The stashed fingerprint, for tests.
    #[cfg(test)]
    pub(crate) fn stashed_fingerprint(&self) -> Option<u64> {
        self.victim.map(|v| v.fp)
    }

    /// Checks the invariants, for tests: `len` counts the stored
    /// fingerprints, and the padding bits are clear.
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        assert_eq!(
            self.table.count_occupied() + usize::from(self.victim.is_some()),
            self.len
        );
        assert!(self.table.padding_is_clear());
    }
}

/// Whether `digest` may be in the table and stash: the lookup of a filter
/// and of a view of a saved one (whose table reads the saved bytes).
#[inline(always)]
pub(crate) fn contains_in<W: Width, S: Words>(
    table: &Table<S>,
    victim: Option<Victim>,
    digest: Digest,
) -> bool {
    let (fp, i1, i2) = bucket::locate::<W>(digest, table.buckets());
    // Both buckets are read before either is tested, so their cache
    // misses overlap.
    let b1 = table.bucket::<W>(i1);
    let b2 = table.bucket::<W>(i2);
    (W::matching(b1, fp) | W::matching(b2, fp)) != W::ZERO || stash_holds(victim, fp, i1, i2)
}

/// The parameters of a filter or view by name; see
/// [`CuckooFilter::parameters`].
pub(crate) fn parameters<S: Words>(
    table: &Table<S>,
    len: usize,
    victim: Option<Victim>,
) -> Vec<(&'static str, Value)> {
    let slots = table.buckets() * SLOTS;
    vec![
        ("fingerprint_bits", table.bits().into()),
        ("buckets", table.buckets().into()),
        ("slots", slots.into()),
        ("load", (len as f64 / slots as f64).into()),
        ("stash", usize::from(victim.is_some()).into()),
    ]
}

/// Two filters are equal when they store the same fingerprints in the same
/// slots (and stash), with the same key, size and target. The state of the
/// generator that picks kicked slots is not compared.
impl PartialEq for CuckooFilter {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table
            && self.victim == other.victim
            && self.key == other.key
            && self.len == other.len
            && self.capacity == other.capacity
            && self.fp_rate.to_bits() == other.fp_rate.to_bits()
    }
}

impl fmt::Debug for CuckooFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CuckooFilter")
            .field("fingerprint_bits", &self.table.bits())
            .field("buckets", &self.table.buckets())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .field("load_factor", &self.load_factor())
            .field("stash_taken", &self.victim.is_some())
            .finish_non_exhaustive()
    }
}

approxset_core::impl_approx_set!([] CuckooFilter, variant = "cuckoo", remove, streamed);
