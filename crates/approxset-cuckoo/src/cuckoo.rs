//! The cuckoo filter and its builder.

use std::fmt;
use std::hash::Hash;

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::hash::reduce;
use approxset_core::sizing::{check_memory, validate_fp_rate, validate_items};
use approxset_core::{ApproxSet, Deletable, Digest, Error, HashKey, Result};

use crate::table::{Lanes, SLOTS, Table, WIDTHS};

/// Most kicks (displacements) one insertion makes before it gives up and
/// stashes the fingerprint it holds, as in the reference implementation.
pub const MAX_KICKS: u32 = 500;

/// The load factor the filter is sized for, `LOAD_NUM / LOAD_DEN` = 94 %,
/// and the extra items of headroom for small tables; see [`buckets_for`].
const LOAD_NUM: u128 = 94;
const LOAD_DEN: u128 = 100;
const HEADROOM: u128 = 32;

/// The bound on the probability that nine of `n` items share both buckets,
/// which small tables are sized to stay under.
const CLUSTER_RISK: f64 = 1e-9;

/// The bucket count for `items` distinct items; the rule and its reasons
/// are in the docs of [`CuckooBuilder::expected_items`].
pub(crate) fn buckets_for(items: usize) -> u128 {
    if items <= 2 * SLOTS + 1 {
        return 2;
    }
    let by_load = ((items as u128 + HEADROOM) * LOAD_DEN).div_ceil(SLOTS as u128 * LOAD_NUM);
    let by_cluster = if items <= 10_000 {
        // C(n, 9) · 4⁸ / B¹⁶ ≤ risk  ⇔  B ≥ (C(n, 9) · 4⁸ / risk)^(1/16).
        let n = items as f64;
        let choose9: f64 = (0..9)
            .map(|k| (n - f64::from(k)) / f64::from(k + 1))
            .product();
        (choose9 * 65_536.0 / CLUSTER_RISK).powf(1.0 / 16.0).ceil() as u128
    } else {
        0
    };
    by_load.max(by_cluster).next_multiple_of(2)
}

/// The smallest target false-positive rate: 2b/2¹⁶ = 8/65,536 ≈ 1.22·10⁻⁴,
/// what 16-bit fingerprints reach.
pub const MIN_FP_RATE: f64 = (2 * SLOTS) as f64 / 65_536.0;

/// The fingerprint (1 ..= 2^f − 1) of a digest: multiply-shift of `h2` into
/// 2^f − 1 values, plus one, so 0 stays free to mark an empty slot.
#[inline(always)]
pub(crate) fn fingerprint<const F: u32>(digest: Digest) -> u64 {
    reduce(digest.h2(), Lanes::<F>::LANE) + 1
}

/// The bucket offset `H(fp)` that the alternate bucket is derived from: an
/// **odd** number in `1..buckets` (`buckets` even), from a bijective 64-bit
/// mixer (the SplitMix64 finaliser) of the fingerprint, reduced by
/// multiply-shift.
#[inline(always)]
pub(crate) fn offset(fp: u64, buckets: usize) -> usize {
    let mut z = fp.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    2 * reduce(z, (buckets / 2) as u64) as usize + 1
}

/// The other bucket of a fingerprint in bucket `i`: `(H(fp) − i) mod B`.
///
/// It is its own inverse for every bucket count `B`:
/// `H − (H − i) ≡ i (mod B)`, so a fingerprint can always move back, and the
/// table size need not be a power of two. The table's `B` is even and `H`
/// odd, so it is never `i` itself (`2i ≡ H (mod B)` has no solution): every
/// item has two distinct buckets, one even and one odd, like the two tables
/// of classic cuckoo hashing.
#[inline(always)]
pub(crate) fn alternate(i: usize, fp: u64, buckets: usize) -> usize {
    let h = offset(fp, buckets);
    if h >= i { h - i } else { h + buckets - i }
}

/// The smallest supported width `f` with 2^f ≥ 2b/p (f ≥ log₂(2b/p)).
fn auto_bits(fp_rate: f64) -> Option<u32> {
    WIDTHS
        .into_iter()
        .find(|&f| fp_rate * f64::from(f).exp2() >= (2 * SLOTS) as f64)
}

/// The false-positive rate 1 − (1 − 1/(2^f − 1))^(2b·load) of `f`-bit
/// fingerprints at `load` (stored fingerprints per slot): a query compares
/// its fingerprint with 2b·load stored ones, each equal with probability
/// 1/(2^f − 1).
pub(crate) fn fp_rate_at(bits: u32, load: f64) -> f64 {
    let miss = (-1.0 / (f64::from(bits).exp2() - 1.0)).ln_1p();
    -((2 * SLOTS) as f64 * load * miss).exp_m1()
}

/// The displaced fingerprint of a kick chain that ran out of kicks, with one
/// of its two buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Victim {
    fp: u64,
    bucket: usize,
}

/// A small xorshift generator that picks the slot to kick.
#[derive(Clone, Copy)]
struct Xorshift(u64);

impl Xorshift {
    fn from_key(key: HashKey) -> Self {
        let (k0, k1) = key.to_parts();
        // Any nonzero state will do; mix so the kicks of filters with related
        // keys are unrelated.
        let mut z = (k0 ^ k1.rotate_left(32)).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Xorshift((z ^ (z >> 31)) | 1)
    }

    #[inline(always)]
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Runs `$method::<F>($args)` for the table's fingerprint width `F`: the
/// hot paths are monomorphised per width, picked by one predictable branch.
macro_rules! by_width {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match $self.table.bits() {
            8 => $self.$method::<8>($($arg),*),
            12 => $self.$method::<12>($($arg),*),
            _ => $self.$method::<16>($($arg),*),
        }
    };
}

/// A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, 2014): an
/// approximate set that can also **remove** items.
///
/// Each item is stored as an `f`-bit fingerprint (8, 12 or 16 bits) in one
/// of two buckets of four slots, chosen by partial-key cuckoo hashing; a
/// lookup reads those two buckets. Sized for `n` items at rate `p`, it takes
/// `f / 0.94` bits per item (for `n` past a few thousand) with
/// `f ≥ log₂(2b/p)` rounded up to 8, 12 or 16:
///
/// | target `p` | `f` | bits per item | rate at capacity |
/// |---|---|---|---|
/// | ≥ 3.13 % | 8 | 8.5 | 2.9 % |
/// | 0.195 % … 3.13 % | 12 | 12.8 | 0.18 % |
/// | 0.0122 % … 0.195 % | 16 | 17.0 | 0.0115 % |
///
/// Set explicitly, a width is accepted whenever its rate at capacity meets
/// the target (8 bits down to 2.9 %). Rates below 0.0122 % are refused; a
/// Bloom filter serves them better.
///
/// ```
/// use approxset_cuckoo::CuckooFilter;
///
/// let mut filter = CuckooFilter::with_fp_rate(0.01).seed(7).expected_items(1000)?;
/// for i in 0..1000u32 {
///     filter.insert(&i)?;
/// }
/// assert!((0..1000u32).all(|i| filter.contains(&i)));
/// assert!(filter.remove(&5u32));
/// assert_eq!(filter.len(), 999);
/// assert_eq!(filter.fingerprint_bits(), 12);
/// # Ok::<(), approxset_cuckoo::Error>(())
/// ```
///
/// # Guarantees
///
/// - **No false negatives**, under any sequence of calls: an item inserted
///   (with `Ok`) more times than it was removed is found.
/// - **Bounded room**: [`insert`](Self::insert) returns
///   [`Error::Full`] when there is no room, and then changes nothing; every
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
/// bucket, and so on, up to [`MAX_KICKS`] times. When the chain runs out of
/// kicks, the
/// fingerprint left over goes to a one-entry **victim stash**, as in the
/// reference implementation: the insertion still succeeds and nothing is
/// lost, but every later insertion fails with [`Error::Full`] until a
/// [`remove`](Self::remove) makes room and the victim moves back into the
/// table. Filled with distinct items, a table of a million items reaches a
/// load of about 96 % before that first failure, and a table sized for `n`
/// items takes them with overwhelming probability (see
/// [`CuckooBuilder::expected_items`]).
///
/// # Removing items that were never inserted
///
/// [`remove`](Self::remove) of an item that tests absent returns `false` and
/// changes nothing. But an item that was never inserted and tests positive
/// (a false positive: it shares its fingerprint and buckets with a stored
/// item) removes that **other** item's fingerprint, which is then no longer
/// found. No filter can tell the two cases apart: remove only items you
/// inserted.
pub struct CuckooFilter {
    table: Table,
    victim: Option<Victim>,
    rng: Xorshift,
    key: HashKey,
    len: usize,
    capacity: usize,
    fp_rate: f64,
}

/// A builder of [`CuckooFilter`]s, after fastbloom: started by
/// [`CuckooFilter::with_fp_rate`], options in any order, finished by
/// [`expected_items`](Self::expected_items).
///
/// ```
/// use approxset_cuckoo::CuckooFilter;
/// let a = CuckooFilter::with_fp_rate(0.001).seed(42).expected_items(10_000)?;
/// assert_eq!(a.fingerprint_bits(), 16);
/// let b = CuckooFilter::with_fp_rate(0.03)
///     .fingerprint_bits(8)
///     .max_bytes(1 << 20)
///     .expected_items(10_000)?;
/// assert_eq!(b.fingerprint_bits(), 8);
/// assert!(b.memory_bytes() < a.memory_bytes());
/// # Ok::<(), approxset_cuckoo::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CuckooBuilder {
    fp_rate: f64,
    key: Option<HashKey>,
    max_bytes: Option<usize>,
    fingerprint_bits: Option<u32>,
}

impl CuckooBuilder {
    /// Hash with a key derived from `seed`, for a reproducible filter (the
    /// kicks are then reproducible too). The default is a random key
    /// ([`HashKey::random`]).
    pub fn seed(mut self, seed: u64) -> Self {
        self.key = Some(HashKey::from_seed(seed));
        self
    }

    /// Hash with this key.
    pub fn hash_key(mut self, key: HashKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Refuse to build a filter whose slot table would take more than
    /// `max_bytes` bytes (the build returns [`Error::TooLarge`]).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }

    /// Use fingerprints of `bits` bits (8, 12 or 16) instead of the smallest
    /// width that reaches the target rate. Checked when the filter is built.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// Builds a filter that holds `expected_items` items at a false-positive
    /// rate of at most the target.
    ///
    /// The fingerprint width is the smallest of 8, 12 and 16 with
    /// `f ≥ log₂(2b/p)` (b = 4 slots per bucket), unless set with
    /// [`fingerprint_bits`](Self::fingerprint_bits); an explicit width is
    /// accepted when its rate at `expected_items` items,
    /// 1 − (1 − 1/(2^f − 1))^(2b·load), is within the target (8 bits reach
    /// 3 %).
    ///
    /// The bucket count `B` is any even number, not rounded to a power of
    /// two, so a filter for 10⁶ items has 1.06·10⁶ slots, not 2²¹:
    ///
    /// - up to 9 items, 2 buckets: every item then has buckets 0 and 1, so
    ///   any 9 items fit (8 slots and the stash);
    /// - otherwise the larger of `⌈(n + 32) / (4 · 0.94)⌉` and the least `B`
    ///   with `C(n, 9) · 4⁸ / B¹⁶ ≤ 10⁻⁹`, rounded up to an even number.
    ///
    /// The first term keeps the load at most 94 %. Measured over 10⁵–10⁶
    /// fills from fresh keys, the load at the first failure averages 97–98 %
    /// for tables of a few hundred items and falls slowly with size (96 % at
    /// 10⁶ items, 95.7 % at 10⁷, standard deviation about 0.2 %), so 94 %
    /// leaves a margin of many standard deviations at any size, for 1/0.94 =
    /// 1.064 slots per item. The 32 extra items cover the heavier lower tail
    /// of tables of a few hundred to a few thousand items (no failure in 10⁶
    /// fills). The second term bounds the likeliest failure of small tables,
    /// nine items that share both buckets (each of the B²/4 bucket pairs
    /// draws an item with probability 4/B², and a pair holds only 8 slots and
    /// the stash), below 10⁻⁹; it dominates up to about 250 items.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `fp_rate` when the rate is outside
    /// (0, 1) or below [`MIN_FP_RATE`] (2b/2¹⁶ ≈ 1.22·10⁻⁴, what 16-bit
    /// fingerprints reach), `expected_items` when it is 0, and
    /// `fingerprint_bits` when the width is not 8, 12 or 16 or gives a rate
    /// above the target at `expected_items` items; [`Error::TooLarge`] or
    /// [`Error::AllocationFailed`] when the memory cannot be had.
    pub fn expected_items(self, expected_items: usize) -> Result<CuckooFilter> {
        let p = self.fp_rate;
        let plan = CuckooFilter::plan(expected_items, p)?;
        let buckets = plan.buckets;
        let load = expected_items as f64 / (buckets as f64 * SLOTS as f64);
        let bits = match self.fingerprint_bits {
            None => plan.fingerprint_bits,
            Some(f) if !WIDTHS.contains(&f) => {
                return Err(Error::invalid(
                    "fingerprint_bits",
                    format!("must be 8, 12 or 16, got {f}"),
                ));
            }
            Some(f) => {
                let rate = fp_rate_at(f, load);
                if rate > p {
                    return Err(Error::invalid(
                        "fingerprint_bits",
                        format!(
                            "{f}-bit fingerprints give a false-positive rate of {rate:.4} \
                             at capacity, above the target {p}"
                        ),
                    ));
                }
                f
            }
        };
        // Checked before the conversion, so a count past the address space
        // is `TooLarge` rather than a wrapped bucket count.
        check_memory(Table::bytes_for(buckets, bits), self.max_bytes)?;
        let table = Table::new(buckets as usize, bits, self.max_bytes)?;
        let key = self.key.unwrap_or_else(HashKey::random);
        Ok(CuckooFilter {
            table,
            victim: None,
            rng: Xorshift::from_key(key),
            key,
            len: 0,
            capacity: expected_items,
            fp_rate: p,
        })
    }
}

impl CuckooFilter {
    /// A filter for `expected_items` items at false-positive rate `fp_rate`,
    /// with a random hash key. Shorthand for
    /// `with_fp_rate(fp_rate).expected_items(expected_items)`.
    ///
    /// # Errors
    /// As [`CuckooBuilder::expected_items`].
    pub fn new(expected_items: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).expected_items(expected_items)
    }

    /// Starts a builder that sizes the filter for a target false-positive
    /// rate; finish with [`CuckooBuilder::expected_items`].
    pub fn with_fp_rate(fp_rate: f64) -> CuckooBuilder {
        CuckooBuilder {
            fp_rate,
            key: None,
            max_bytes: None,
            fingerprint_bits: None,
        }
    }

    /// Inserts `item`. Returns `Ok(true)` when the filter certainly did not
    /// hold it before (neither bucket nor the stash held its fingerprint),
    /// `Ok(false)` when it may have; either way one more copy is stored.
    ///
    /// # Errors
    /// [`Error::Full`] when the victim stash is taken (an earlier insertion
    /// ran out of kicks) or the item's two buckets already hold 2b = 8 copies
    /// of its fingerprint. The filter is then unchanged.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> Result<bool> {
        self.insert_digest(self.key.digest(item))
    }

    /// Whether `item` may be in the filter (`false`: certainly not).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_digest(self.key.digest(item))
    }

    /// Removes one copy of `item`. Returns `false`, changing nothing, when
    /// it tests absent. See the hazard of removing items that were never
    /// inserted in the [type docs](Self#removing-items-that-were-never-inserted).
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_digest(self.key.digest(item))
    }

    /// Inserts a byte string hashed as raw bytes (portable across
    /// platforms).
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_bytes(&mut self, bytes: &[u8]) -> Result<bool> {
        self.insert_digest(self.key.digest_bytes(bytes))
    }

    /// Whether a byte string inserted with
    /// [`insert_bytes`](Self::insert_bytes) may be present.
    #[inline]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_digest(self.key.digest_bytes(bytes))
    }

    /// Removes one copy of a byte string inserted with
    /// [`insert_bytes`](Self::insert_bytes).
    #[inline]
    pub fn remove_bytes(&mut self, bytes: &[u8]) -> bool {
        self.remove_digest(self.key.digest_bytes(bytes))
    }

    /// Inserts a precomputed digest (see [`HashKey::digest`]).
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        by_width!(self.insert_impl(digest))
    }

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        by_width!(self.contains_impl(digest))
    }

    /// Removes one copy of a precomputed digest.
    #[inline]
    pub fn remove_digest(&mut self, digest: Digest) -> bool {
        by_width!(self.remove_impl(digest))
    }

    /// Inserts every item of `iter`, stopping at the first error.
    ///
    /// # Errors
    /// The first error of [`insert`](Self::insert) ([`Error::Full`]). The
    /// items before the failing one stay inserted; the failing one and the
    /// rest are not.
    pub fn try_extend<I>(&mut self, iter: I) -> Result<(), Error>
    where
        I: IntoIterator,
        I::Item: Hash,
    {
        for item in iter {
            self.insert(&item)?;
        }
        Ok(())
    }

    /// Fingerprint width `f` in bits: 8, 12 or 16.
    pub fn fingerprint_bits(&self) -> u32 {
        self.table.bits()
    }

    /// Number of buckets `B` (any whole number, not only powers of two).
    pub fn buckets(&self) -> usize {
        self.table.buckets()
    }

    /// Number of slots, `4·B`.
    pub fn slots(&self) -> usize {
        self.table.buckets() * SLOTS
    }

    /// Fingerprints stored per slot, `len / slots` (the stash included).
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / self.slots() as f64
    }

    /// The filter's hash key.
    pub fn hash_key(&self) -> HashKey {
        self.key
    }

    /// Fingerprints stored, in the table and the stash: successful inserts
    /// (duplicates included) less successful removals.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of items the filter was sized for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The target false-positive rate, which the filter meets at `capacity`
    /// items.
    pub fn fp_rate(&self) -> f64 {
        self.fp_rate
    }

    /// The false-positive rate at the current load:
    /// 1 − (1 − 1/(2^f − 1))^(2b·load).
    pub fn estimated_fp_rate(&self) -> f64 {
        fp_rate_at(self.table.bits(), self.load_factor())
    }

    /// Bytes of the slot table: `4·B·f` bits rounded up to whole `u64`
    /// words.
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// Removes every item, keeping the size and the key.
    pub fn clear(&mut self) {
        self.table.clear();
        self.victim = None;
        self.len = 0;
        self.rng = Xorshift::from_key(self.key);
    }

    /// The fingerprint and the two buckets of a digest.
    #[inline(always)]
    fn locate<const F: u32>(&self, digest: Digest) -> (u64, usize, usize) {
        let buckets = self.table.buckets();
        let fp = fingerprint::<F>(digest);
        let i1 = reduce(digest.h1(), buckets as u64) as usize;
        (fp, i1, alternate(i1, fp, buckets))
    }

    /// Whether the stash holds `fp` for buckets `i1`/`i2`.
    #[inline(always)]
    fn stash_holds(&self, fp: u64, i1: usize, i2: usize) -> bool {
        self.victim
            .is_some_and(|v| v.fp == fp && (v.bucket == i1 || v.bucket == i2))
    }

    #[inline(always)]
    fn contains_impl<const F: u32>(&self, digest: Digest) -> bool {
        let (fp, i1, i2) = self.locate::<F>(digest);
        // Both buckets are read before either is tested, so their cache
        // misses overlap.
        let b1 = self.table.bucket::<F>(i1);
        let b2 = self.table.bucket::<F>(i2);
        (Lanes::<F>::matching(b1, fp) | Lanes::<F>::matching(b2, fp)) != 0
            || self.stash_holds(fp, i1, i2)
    }

    #[inline(always)]
    fn insert_impl<const F: u32>(&mut self, digest: Digest) -> Result<bool> {
        let (fp, i1, i2) = self.locate::<F>(digest);
        let b1 = self.table.bucket::<F>(i1);
        let b2 = self.table.bucket::<F>(i2);
        let m1 = Lanes::<F>::matching(b1, fp);
        debug_assert_ne!(i1, i2);
        let m2 = Lanes::<F>::matching(b2, fp);
        let held = self.stash_holds(fp, i1, i2);
        let copies = (m1.count_ones() + m2.count_ones()) as usize + usize::from(held);
        if self.victim.is_some() || copies >= 2 * SLOTS {
            return Err(Error::Full { items: self.len });
        }
        let fresh = copies == 0;
        let e1 = Lanes::<F>::zero_lanes(b1);
        if e1 != 0 {
            self.table
                .set_bucket::<F>(i1, Lanes::<F>::with(b1, Lanes::<F>::first(e1), fp));
        } else {
            let e2 = Lanes::<F>::zero_lanes(b2);
            if e2 != 0 {
                self.table
                    .set_bucket::<F>(i2, Lanes::<F>::with(b2, Lanes::<F>::first(e2), fp));
            } else {
                self.displace::<F>(fp, i1, i2);
            }
        }
        self.len += 1;
        Ok(fresh)
    }

    /// Places `fp`, whose buckets `i1` and `i2` are both full, by moving
    /// fingerprints out of the way.
    ///
    /// First one step of breadth-first search: the eight fingerprints of the
    /// two buckets have eight other buckets, which are read together (their
    /// cache misses overlap) and the first with a free slot takes its
    /// fingerprint, whose slot takes `fp`. Only when all eight are full does
    /// the random walk of [`kick`](Self::kick) start. In a large table at
    /// high load this replaces most walks of several dependent cache misses
    /// by one round of parallel ones.
    #[cold]
    #[inline(never)]
    fn displace<const F: u32>(&mut self, fp: u64, i1: usize, i2: usize) {
        let buckets = self.table.buckets();
        let (b1, b2) = (self.table.bucket::<F>(i1), self.table.bucket::<F>(i2));
        let mut targets = [0usize; 2 * SLOTS];
        for lane in 0..SLOTS as u32 {
            targets[lane as usize] = alternate(i1, Lanes::<F>::get(b1, lane), buckets);
            targets[SLOTS + lane as usize] = alternate(i2, Lanes::<F>::get(b2, lane), buckets);
        }
        let contents = targets.map(|t| self.table.bucket::<F>(t));
        for (k, (&target, &content)) in targets.iter().zip(&contents).enumerate() {
            let empty = Lanes::<F>::zero_lanes(content);
            if empty != 0 {
                let (from, b) = if k < SLOTS { (i1, b1) } else { (i2, b2) };
                let lane = (k % SLOTS) as u32;
                let moved = Lanes::<F>::get(b, lane);
                self.table.set_bucket::<F>(
                    target,
                    Lanes::<F>::with(content, Lanes::<F>::first(empty), moved),
                );
                self.table
                    .set_bucket::<F>(from, Lanes::<F>::with(b, lane, fp));
                return;
            }
        }
        let start = if self.rng.next() >> 63 == 0 { i1 } else { i2 };
        self.kick::<F>(fp, start);
    }

    /// Places `fp`, whose buckets are full, starting by kicking a random
    /// fingerprint out of `bucket`. After [`MAX_KICKS`] kicks, the
    /// fingerprint left over goes to the stash, which must be free.
    #[cold]
    #[inline(never)]
    fn kick<const F: u32>(&mut self, mut fp: u64, mut bucket: usize) {
        debug_assert!(self.victim.is_none());
        let buckets = self.table.buckets();
        for _ in 0..MAX_KICKS {
            let lane = (self.rng.next() >> 62) as u32;
            let b = self.table.bucket::<F>(bucket);
            let out = Lanes::<F>::get(b, lane);
            self.table
                .set_bucket::<F>(bucket, Lanes::<F>::with(b, lane, fp));
            fp = out;
            bucket = alternate(bucket, fp, buckets);
            let b = self.table.bucket::<F>(bucket);
            let empty = Lanes::<F>::zero_lanes(b);
            if empty != 0 {
                self.table
                    .set_bucket::<F>(bucket, Lanes::<F>::with(b, Lanes::<F>::first(empty), fp));
                return;
            }
        }
        self.victim = Some(Victim { fp, bucket });
    }

    #[inline(always)]
    fn remove_impl<const F: u32>(&mut self, digest: Digest) -> bool {
        let (fp, i1, i2) = self.locate::<F>(digest);
        let mut removed = false;
        for i in [i1, i2] {
            let b = self.table.bucket::<F>(i);
            let m = Lanes::<F>::matching(b, fp);
            if m != 0 {
                self.table
                    .set_bucket::<F>(i, Lanes::<F>::with(b, Lanes::<F>::first(m), 0));
                removed = true;
                break;
            }
        }
        if removed {
            self.len -= 1;
            // A slot is free now: try to move the stashed victim back, so
            // that inserts work again.
            if let Some(v) = self.victim.take() {
                self.place::<F>(v.fp, v.bucket);
            }
            true
        } else if self.stash_holds(fp, i1, i2) {
            self.victim = None;
            self.len -= 1;
            true
        } else {
            false
        }
    }

    /// Places `fp` (known to belong to `bucket` and its alternate) into a
    /// free slot of either bucket or by kicking; the stash must be free.
    fn place<const F: u32>(&mut self, fp: u64, bucket: usize) {
        let other = alternate(bucket, fp, self.table.buckets());
        for i in [bucket, other] {
            let b = self.table.bucket::<F>(i);
            let empty = Lanes::<F>::zero_lanes(b);
            if empty != 0 {
                self.table
                    .set_bucket::<F>(i, Lanes::<F>::with(b, Lanes::<F>::first(empty), fp));
                return;
            }
        }
        self.displace::<F>(fp, bucket, other);
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

/// What a cuckoo filter for `(n, p)` takes, from [`CuckooFilter::plan`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CuckooPlan {
    buckets: u128,
    fingerprint_bits: u32,
    items: usize,
}

impl CuckooPlan {
    /// Buckets of four slots.
    pub fn buckets(&self) -> u128 {
        self.buckets
    }

    /// Fingerprint width in bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.fingerprint_bits
    }

    /// Bits of the slot table: slots × fingerprint bits.
    pub fn bits(&self) -> u128 {
        self.buckets * SLOTS as u128 * u128::from(self.fingerprint_bits)
    }

    /// Bytes of the slot table as allocated (whole 64-bit words).
    pub fn bytes(&self) -> u128 {
        Table::bytes_for(self.buckets, self.fingerprint_bits)
    }

    /// The false-positive rate expected with the planned items stored.
    pub fn expected_fp(&self) -> f64 {
        let load = self.items as f64 / (self.buckets as f64 * SLOTS as f64);
        fp_rate_at(self.fingerprint_bits, load)
    }
}

/// Persistence in the binary format of `approxset_core::format`.
impl CuckooFilter {
    /// What a filter for `expected_items` items at `fp_rate` takes, computed
    /// without building it (the automatic fingerprint width).
    ///
    /// # Errors
    /// As [`CuckooBuilder::expected_items`], except that memory is not
    /// allocated.
    pub fn plan(expected_items: usize, fp_rate: f64) -> Result<CuckooPlan> {
        validate_fp_rate(fp_rate)?;
        validate_items(expected_items)?;
        let bits = auto_bits(fp_rate).ok_or_else(|| below_minimum(fp_rate))?;
        Ok(CuckooPlan {
            buckets: buckets_for(expected_items),
            fingerprint_bits: bits,
            items: expected_items,
        })
    }

    /// The filter in the versioned binary format (see `docs/format.md`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(tag::CUCKOO, self.key, self.table.memory_bytes() + 80);
        let (victim_fp, victim_bucket) = self.victim.map_or((0, 0), |v| (v.fp, v.bucket as u64));
        w.u32(self.table.bits())
            .u32(0)
            .u64(self.table.buckets() as u64)
            .u64(self.len as u64)
            .u64(self.capacity as u64)
            .f64(self.fp_rate)
            .u64(victim_fp)
            .u64(victim_bucket)
            .u64(self.rng.0)
            .words(self.table.words());
        w.finish()
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// invariant checked (so a loaded filter cannot panic later) and nothing
    /// larger than the input allocated.
    ///
    /// # Errors
    /// The envelope errors of `approxset_core::format::Reader::open`,
    /// [`Error::WrongVariant`], and [`Error::Corrupt`] for inconsistent
    /// parameters (a width other than 8/12/16, an odd or tiny bucket count,
    /// a payload of the wrong size, a stored count that does not match the
    /// occupied slots, a stash outside the table).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::open_variant(bytes, tag::CUCKOO)?;
        let key = r.key();
        let bits = r.u32("fingerprint bits")?;
        let reserved = r.u32("reserved")?;
        let buckets = r.u64("buckets")?;
        let len = r.usize("len")?;
        let capacity = r.usize("capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        let victim_fp = r.u64("stash fingerprint")?;
        let victim_bucket = r.u64("stash bucket")?;
        let rng = r.u64("kick generator")?;
        if reserved != 0 {
            return Err(Error::corrupt(format!(
                "reserved field is {reserved}, not 0"
            )));
        }
        if !WIDTHS.contains(&bits) {
            return Err(Error::corrupt(format!(
                "fingerprint width {bits} is not 8, 12 or 16"
            )));
        }
        if buckets < 2 {
            return Err(Error::corrupt(format!("bucket count {buckets} is below 2")));
        }
        let words = Table::bytes_for(u128::from(buckets), bits) / 8;
        let words = r.words(u64::try_from(words).unwrap_or(u64::MAX), "slots")?;
        let table = Table::from_words(words, buckets, bits)?;
        r.finish()?;
        if capacity == 0 {
            return Err(Error::corrupt("capacity is 0"));
        }
        if !(fp_rate > 0.0 && fp_rate < 1.0) {
            return Err(Error::corrupt(format!("fp_rate {fp_rate} outside (0, 1)")));
        }
        if rng == 0 {
            return Err(Error::corrupt("kick generator state is 0"));
        }
        let lane = (1u64 << bits) - 1;
        let victim = match victim_fp {
            0 if victim_bucket == 0 => None,
            0 => return Err(Error::corrupt("stash bucket set without a fingerprint")),
            fp if fp > lane => {
                return Err(Error::corrupt(format!(
                    "stashed fingerprint {fp} wider than {bits} bits"
                )));
            }
            fp if victim_bucket >= buckets => {
                return Err(Error::corrupt(format!(
                    "stash bucket {victim_bucket} outside {buckets} buckets (fingerprint {fp})"
                )));
            }
            fp => Some(Victim {
                fp,
                bucket: victim_bucket as usize,
            }),
        };
        let stored = table.count_occupied() + usize::from(victim.is_some());
        if stored != len {
            return Err(Error::corrupt(format!(
                "{len} items recorded, {stored} fingerprints stored"
            )));
        }
        Ok(CuckooFilter {
            table,
            victim,
            rng: Xorshift(rng),
            key,
            len,
            capacity,
            fp_rate,
        })
    }

    /// Writes [`to_bytes`](Self::to_bytes) to `writer`.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<()> {
        writer.write_all(&self.to_bytes())?;
        Ok(())
    }

    /// Reads one filter from `reader` (and nothing past it).
    ///
    /// # Errors
    /// [`Error::Io`], and as [`from_bytes`](Self::from_bytes).
    pub fn read_from<R: std::io::Read>(reader: R) -> Result<Self> {
        Self::from_bytes(&approxset_core::format::read_all(reader)?)
    }
}

/// The error for a target rate below what 16-bit fingerprints reach.
fn below_minimum(p: f64) -> Error {
    Error::invalid(
        "fp_rate",
        format!(
            "{p:?} is below {MIN_FP_RATE:.3e} (2b/2^16), the least a cuckoo filter with \
             16-bit fingerprints reaches; use a Bloom filter for smaller rates"
        ),
    )
}

impl Clone for CuckooFilter {
    fn clone(&self) -> Self {
        CuckooFilter {
            table: self.table.clone(),
            victim: self.victim,
            rng: self.rng,
            key: self.key,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
    }
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

/// Inserts every item.
///
/// # Panics
/// When the filter is full ([`Error::Full`]): `Extend` cannot report errors.
/// Use [`CuckooFilter::try_extend`] to get the error instead.
impl<T: Hash> Extend<T> for CuckooFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        if let Err(e) = self.try_extend(iter) {
            panic!("CuckooFilter::extend: {e} (use try_extend to handle this)");
        }
    }
}

impl ApproxSet for CuckooFilter {
    #[inline]
    fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        CuckooFilter::insert_digest(self, digest)
    }

    #[inline]
    fn contains_digest(&self, digest: Digest) -> bool {
        CuckooFilter::contains_digest(self, digest)
    }

    fn hash_key(&self) -> HashKey {
        self.key
    }

    fn len(&self) -> usize {
        self.len
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn fp_rate(&self) -> f64 {
        self.fp_rate
    }

    fn estimated_fp_rate(&self) -> f64 {
        CuckooFilter::estimated_fp_rate(self)
    }

    fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    fn clear(&mut self) {
        CuckooFilter::clear(self)
    }

    fn variant(&self) -> &'static str {
        "cuckoo"
    }

    fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(CuckooFilter::to_bytes(self))
    }
}

impl Deletable for CuckooFilter {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> bool {
        CuckooFilter::remove_digest(self, digest)
    }
}
