//! The counting Bloom filter (Fan, Cao, Almeida and Broder 2000): 4-bit
//! counters in place of bits, so items can be removed.

use std::fmt;
use std::hash::Hash;

use approxset_core::sizing::{self, BloomParams};
use approxset_core::{ApproxSet, Deletable, Digest, HashKey, Result};

use approxset_core::format::{Reader, Writer, tag};

use crate::builder::{Buildable, Builder, FpRate, NumBits};
use crate::counters::Counters;
use crate::layout::{Classic, Layout, all_probes};
use crate::persist::CellParams;

/// A counting Bloom filter: `m` 4-bit counters and `k` positions per item,
/// sized and hashed exactly as the classic [`BloomFilter`](crate::BloomFilter),
/// so it has the same false-positive rate at four times the memory (4 bits
/// per position instead of 1), and it can [`remove`](Self::remove) items.
///
/// ```
/// use approxset_bloom::CountingBloomFilter;
///
/// let mut f = CountingBloomFilter::with_fp_rate(0.01).seed(3).expected_items(1000)?;
/// f.insert("alice");
/// f.insert("bob");
/// assert!(f.remove("alice"));
/// assert!(f.contains("bob"));
/// assert!(!f.remove("carol"), "never inserted and not a false positive");
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
///
/// # Saturation
///
/// A counter holds 0 to 15. A counter that reaches 15 *saturates*: it stays
/// at 15 forever and is never decremented again, because it no longer knows
/// how many items it counts. A saturated counter can only raise the
/// false-positive rate (its position always tests set); it can never cause a
/// false negative. [`saturated_counters`](Self::saturated_counters) tells how
/// many there are.
///
/// Overflow is rare: Fan et al. bound the chance that any counter of a
/// filter at the optimal `k` reaches 16 by `m · 1.37·10⁻¹⁵` (a
/// 10⁹-counter filter: under 1.4·10⁻⁶). Counters saturate in practice only
/// when one item is inserted many times or a filter is filled far past its
/// capacity.
///
/// # Removing what was never inserted
///
/// `remove` returns `false` and changes nothing when any of the item's
/// counters is zero: the item is certainly absent. But an item that was
/// never inserted and is a false positive (all its counters above zero)
/// *will* be "removed": its counters are decremented, and other items that
/// share them may then test absent, a false negative. No filter can detect
/// this; only remove items you know you inserted (and as often as you
/// inserted them).
pub struct CountingBloomFilter {
    counters: Counters,
    hashes: u32,
    key: HashKey,
    len: usize,
    capacity: usize,
    fp_rate: f64,
}

impl CountingBloomFilter {
    /// A filter for `expected_items` items at false-positive rate `fp_rate`
    /// with a random key.
    ///
    /// # Errors
    /// As [`Builder::expected_items`].
    pub fn new(expected_items: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).expected_items(expected_items)
    }

    /// Starts a builder sized by a target false-positive rate.
    pub fn with_fp_rate(fp_rate: f64) -> Builder<Self, FpRate> {
        Builder::fp_rate(fp_rate)
    }

    /// Starts a builder for a filter of `counters` counters.
    pub fn with_num_counters(counters: u64) -> Builder<Self, NumBits> {
        Builder::num_bits(counters)
    }

    #[inline]
    fn positions(&self, digest: Digest) -> impl Iterator<Item = u64> + use<> {
        Classic::positions(self.counters.len(), self.hashes, digest)
    }

    /// Inserts `item`; returns `true` when it was certainly new (one of its
    /// counters was zero).
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.insert_digest(self.key.digest(item))
    }

    /// Whether `item` may be present.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_digest(self.key.digest(item))
    }

    /// Removes one copy of `item`; see the [type docs](Self) for the hazard.
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_digest(self.key.digest(item))
    }

    /// Inserts a byte string hashed as raw bytes (portable).
    #[inline]
    pub fn insert_bytes(&mut self, bytes: &[u8]) -> bool {
        self.insert_digest(self.key.digest_bytes(bytes))
    }

    /// Whether a byte string may be present.
    #[inline]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_digest(self.key.digest_bytes(bytes))
    }

    /// Removes one copy of a byte string.
    #[inline]
    pub fn remove_bytes(&mut self, bytes: &[u8]) -> bool {
        self.remove_digest(self.key.digest_bytes(bytes))
    }

    /// Inserts a precomputed digest: increments its `k` counters (a
    /// saturated counter stays at 15).
    #[inline]
    pub fn insert_digest(&mut self, digest: Digest) -> bool {
        let mut new = false;
        for pos in self.positions(digest) {
            new |= self.counters.increment(pos) == 0;
        }
        self.len = self.len.saturating_add(1);
        new
    }

    /// Whether a precomputed digest may be present (all its counters above 0).
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        all_probes(self.positions(digest), |pos| self.counters.get(pos) != 0)
    }

    /// Removes one copy of a precomputed digest: `false`, changing nothing,
    /// when a counter is zero; otherwise decrements every counter that is
    /// not saturated and returns `true`.
    pub fn remove_digest(&mut self, digest: Digest) -> bool {
        if !self.contains_digest(digest) {
            return false;
        }
        for pos in self.positions(digest) {
            self.counters.decrement(pos);
        }
        self.len = self.len.saturating_sub(1);
        true
    }

    /// The value (0..=15) of the counter at `index`, or `None` past the end.
    pub fn counter(&self, index: u64) -> Option<u8> {
        (index < self.counters.len()).then(|| self.counters.get(index))
    }

    /// Counters stuck at 15 (see [Saturation](Self#saturation)).
    pub fn saturated_counters(&self) -> u64 {
        self.counters.saturated()
    }

    /// Whether any counter is saturated.
    pub fn has_saturated(&self) -> bool {
        self.counters.saturated() > 0
    }

    /// The number of counters `m`.
    pub fn counters(&self) -> u64 {
        self.counters.len()
    }

    /// The number of hash functions `k`.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// The filter's hash key.
    pub fn hash_key(&self) -> HashKey {
        self.key
    }

    /// Items inserted less items removed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the filter holds no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of items the filter was sized for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The target false-positive rate at `capacity` items.
    pub fn fp_rate(&self) -> f64 {
        self.fp_rate
    }

    /// The false-positive rate from the current fill: (non-zero counters / m)^k.
    pub fn estimated_fp_rate(&self) -> f64 {
        (self.counters.nonzero() as f64 / self.counters.len() as f64).powi(self.hashes as i32)
    }

    /// Bytes of counter storage (m / 2, rounded up to a word).
    pub fn memory_bytes(&self) -> usize {
        self.counters.memory_bytes()
    }

    /// Sets every counter to zero.
    pub fn clear(&mut self) {
        self.counters.clear();
        self.len = 0;
    }
}

/// Persistence in the binary format of `approxset_core::format`.
impl CountingBloomFilter {
    /// The filter in the versioned binary format (see `docs/format.md`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(tag::COUNTING, self.key, self.counters.memory_bytes() + 40);
        CellParams {
            cells: self.counters.len(),
            hashes: self.hashes,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
        .write(&mut w);
        w.words(self.counters.words());
        w.finish()
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// invariant checked.
    ///
    /// # Errors
    /// As [`BloomFilter::from_bytes`](crate::BloomFilter::from_bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::open_variant(bytes, tag::COUNTING)?;
        let key = r.key();
        let p = CellParams::read(&mut r, "counters")?;
        let words = r.words(p.cells.div_ceil(16), "counters")?;
        let counters = Counters::from_words(words, p.cells)?;
        r.finish()?;
        Ok(CountingBloomFilter {
            counters,
            hashes: p.hashes,
            key,
            len: p.len,
            capacity: p.capacity,
            fp_rate: p.fp_rate,
        })
    }

    /// Writes [`to_bytes`](Self::to_bytes) to `writer`.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io).
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<()> {
        writer.write_all(&self.to_bytes())?;
        Ok(())
    }

    /// Reads one filter from `reader`.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io), and as [`from_bytes`](Self::from_bytes).
    pub fn read_from<R: std::io::Read>(reader: R) -> Result<Self> {
        Self::from_bytes(&approxset_core::format::read_all(reader)?)
    }
}

impl Buildable for CountingBloomFilter {
    const NAME: &'static str = "counting";

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::classic_params(items, fp_rate)
    }

    fn round_cells(cells: u64, _hashes: u32) -> u64 {
        cells
    }

    fn theory_fp_rate(cells: u64, items: u64, hashes: u32) -> f64 {
        sizing::fp_rate_exact(cells, items, hashes)
    }

    fn from_parts(
        params: BloomParams,
        key: HashKey,
        capacity: usize,
        fp_rate: f64,
        max_bytes: Option<usize>,
    ) -> Result<Self> {
        Ok(CountingBloomFilter {
            counters: Counters::zeros(params.bits(), max_bytes)?,
            hashes: params.hashes(),
            key,
            len: 0,
            capacity,
            fp_rate,
        })
    }
}

impl Clone for CountingBloomFilter {
    fn clone(&self) -> Self {
        CountingBloomFilter {
            counters: self.counters.clone(),
            hashes: self.hashes,
            key: self.key,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
    }
}

impl PartialEq for CountingBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.counters == other.counters
            && self.hashes == other.hashes
            && self.key == other.key
            && self.len == other.len
            && self.capacity == other.capacity
            && self.fp_rate.to_bits() == other.fp_rate.to_bits()
    }
}

impl fmt::Debug for CountingBloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingBloomFilter")
            .field("variant", &"counting")
            .field("counters", &self.counters.len())
            .field("hashes", &self.hashes)
            .field("nonzero", &self.counters.nonzero())
            .field("saturated", &self.counters.saturated())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

impl<T: Hash> Extend<T> for CountingBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.insert(&item);
        }
    }
}

impl ApproxSet for CountingBloomFilter {
    #[inline]
    fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        Ok(CountingBloomFilter::insert_digest(self, digest))
    }

    #[inline]
    fn contains_digest(&self, digest: Digest) -> bool {
        CountingBloomFilter::contains_digest(self, digest)
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
        CountingBloomFilter::estimated_fp_rate(self)
    }

    fn memory_bytes(&self) -> usize {
        self.counters.memory_bytes()
    }

    fn clear(&mut self) {
        CountingBloomFilter::clear(self)
    }

    fn variant(&self) -> &'static str {
        "counting"
    }

    fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(CountingBloomFilter::to_bytes(self))
    }
}

impl Deletable for CountingBloomFilter {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> bool {
        CountingBloomFilter::remove_digest(self, digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BloomFilter;

    #[test]
    fn same_positions_and_sizing_as_classic_at_four_times_the_memory() {
        let c = CountingBloomFilter::with_fp_rate(0.01)
            .seed(4)
            .expected_items(10_000)
            .unwrap();
        let b = BloomFilter::with_fp_rate(0.01)
            .seed(4)
            .expected_items(10_000)
            .unwrap();
        assert_eq!(c.counters(), b.bits());
        assert_eq!(c.hashes(), b.hashes());
        let ratio = c.memory_bytes() as f64 / b.memory_bytes() as f64;
        assert!((ratio - 4.0).abs() < 0.01, "{ratio}");
        // Identical answers: a counting filter is a classic one with counts.
        let mut c = c;
        let mut b = b;
        for i in 0..10_000u32 {
            c.insert(&i);
            b.insert(&i);
        }
        assert!((10_000..60_000u32).all(|i| c.contains(&i) == b.contains(&i)));
    }

    #[test]
    fn remove_undoes_insert() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(1)
            .expected_items(1000)
            .unwrap();
        let empty = f.clone();
        for i in 0..500u32 {
            f.insert(&i);
        }
        for i in 0..500u32 {
            assert!(f.remove(&i), "{i}");
        }
        assert_eq!(f, empty, "every counter back to zero");
        assert!(f.is_empty());
    }

    #[test]
    fn remove_of_an_absent_item_changes_nothing() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(1)
            .expected_items(1000)
            .unwrap();
        f.insert("present");
        let before = f.clone();
        // Find keys that test absent (all but ~0.1 % of them).
        let mut absent = 0;
        for i in 0..1000u32 {
            if !f.contains(&i) {
                assert!(!f.remove(&i));
                absent += 1;
            }
        }
        assert!(absent > 900);
        assert_eq!(f, before);
    }

    #[test]
    fn saturated_counters_never_cause_false_negatives() {
        // The same key 20 times: its counters saturate at 15.
        let mut f = CountingBloomFilter::with_num_counters(64)
            .seed(9)
            .hashes(3)
            .unwrap();
        for _ in 0..20 {
            f.insert("hot");
        }
        assert!(f.has_saturated());
        // Many keys on a tiny filter: more counters saturate.
        for i in 0..200u32 {
            f.insert(&i);
        }
        let saturated = f.saturated_counters();
        assert!(saturated > 3, "{saturated}");
        // Remove "hot" 20 times and half the keys: the rest must stay.
        for _ in 0..20 {
            f.remove("hot");
        }
        for i in 0..100u32 {
            assert!(f.remove(&i));
        }
        for i in 100..200u32 {
            assert!(f.contains(&i), "lost {i}");
        }
        // Saturated counters stayed at 15 through all of it.
        assert_eq!(f.saturated_counters(), saturated);
    }

    #[test]
    fn insert_reports_certainly_new() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(2)
            .expected_items(100)
            .unwrap();
        assert!(f.insert("a"));
        assert!(!f.insert("a"));
        assert_eq!(f.len(), 2);
        assert!(f.remove("a"));
        assert!(f.contains("a"), "one copy left");
        assert!(f.remove("a"));
        assert!(!f.contains("a"));
    }

    mod model {
        use super::*;
        use proptest::prelude::*;
        use std::collections::HashMap;

        proptest! {
            // A fixed seed: CI sees the same cases as a developer.
            #![proptest_config(ProptestConfig {
                rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EED_C0DE),
                failure_persistence: None,
                ..ProptestConfig::default()
            })]

            /// Tiny filters and many repeats drive counters to saturation;
            /// removing keys that are present must never lose the others.
            #[test]
            fn saturation_never_loses_items(
                counters in 8u64..64,
                hashes in 1u32..5,
                seed in any::<u64>(),
                ops in proptest::collection::vec((any::<bool>(), 0u8..16), 0..400),
            ) {
                let mut f = CountingBloomFilter::with_num_counters(counters)
                    .seed(seed)
                    .hashes(hashes)
                    .unwrap();
                let mut model = HashMap::<u8, usize>::new();
                for (insert, k) in ops {
                    let count = model.entry(k).or_default();
                    if insert {
                        f.insert(&k);
                        *count += 1;
                    } else if *count > 0 {
                        prop_assert!(f.remove(&k));
                        *count -= 1;
                    }
                    for (key, &c) in &model {
                        if c > 0 {
                            prop_assert!(f.contains(key), "lost {key}");
                        }
                    }
                }
            }
        }
    }
}
