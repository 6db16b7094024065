//! The counting Bloom filter (Fan, Cao, Almeida and Broder 2000): 4-bit
//! counters in place of bits, so items can be removed.

use approxset_core::{Count, Deletable, Digest, Removal};

use crate::bloom::Bloom;
use crate::builder::{Builder, NumBits};
use crate::counters::{Counters, SATURATED};
use crate::layout::Classic;

/// A counting Bloom filter: `m` 4-bit counters and `k` positions per item,
/// sized and hashed exactly as the classic [`BloomFilter`](crate::BloomFilter),
/// so it has the same false-positive rate at four times the memory (4 bits
/// per position instead of 1), and it can [`remove`](Self::remove) items.
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::{Count, CountingBloomFilter, Removal};
///
/// let mut f = CountingBloomFilter::with_fp_rate(0.01).seed(3).expected_items(1000)?;
/// f.insert("alice")?;
/// f.insert("bob")?;
/// f.insert("bob")?;
/// assert_eq!(f.count("bob"), Count::AtMost(2)); // an upper bound: never below the truth
/// assert_eq!(f.remove("alice"), Removal::Removed);
/// assert!(f.contains("bob"));
/// assert_eq!(f.remove("carol"), Removal::Absent, "never inserted and not a false positive");
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
/// A key inserted 15 times or more has every one of its counters saturated,
/// so it can no longer be removed: [`remove`](Self::remove) returns
/// [`Removal::Saturated`] and changes nothing (it would otherwise have to
/// decrement counters that may count other keys more than 15 times), and
/// [`count`](Self::count) returns [`Count::AtLeast`]`(15)`. The key tests
/// present from then on, until [`clear`](Self::clear). A workload that
/// inserts one key many times and removes it as often wants a cuckoo filter
/// (up to 8 copies, then [`Error::TooManyCopies`](approxset_core::Error::TooManyCopies)),
/// or `insert_if_absent`, which stores one copy whatever the repeats.
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// # use approxset::{Count, CountingBloomFilter, Removal};
/// let mut f = CountingBloomFilter::with_fp_rate(0.01).seed(3).expected_items(1000)?;
/// for _ in 0..15 {
///     f.insert("hot")?;
/// }
/// assert_eq!(f.count("hot"), Count::AtLeast(15));
/// assert_eq!(f.remove("hot"), Removal::Saturated);
/// assert!(f.contains("hot"), "saturated keys stay");
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
///
/// Overflow is rare: Fan et al. bound the chance that any counter of a
/// filter at the optimal `k` reaches 16 by `m · 1.37·10⁻¹⁵` (a
/// 10⁹-counter filter: under 1.4·10⁻⁶). Counters saturate in practice only
/// when one item is inserted many times or a filter is filled far past its
/// capacity.
///
/// # Removing what was never inserted
///
/// `remove` returns [`Removal::Absent`] and changes nothing when any of the item's
/// counters is zero: the item is certainly absent. But an item that was
/// never inserted and is a false positive (all its counters above zero)
/// *will* be "removed": its counters are decremented, and other items that
/// share them may then test absent, a false negative. No filter can detect
/// this; only remove items you know you inserted (and as often as you
/// inserted them).
pub type CountingBloomFilter = Bloom<Classic, Counters>;

/// What only counters can do: remove, and report on the counts.
impl Bloom<Classic, Counters> {
    /// Starts a builder for a filter of `counters` counters.
    pub fn with_num_counters(counters: u64) -> Builder<Self, NumBits> {
        Self::with_num_bits(counters)
    }

    approxset_core::key_methods!(remove);

    /// Removes one copy of a precomputed digest: [`Removal::Absent`],
    /// changing nothing, when a counter is zero; [`Removal::Saturated`],
    /// changing nothing, when every counter is saturated (see
    /// [Saturation](CountingBloomFilter#saturation)); otherwise decrements
    /// every counter that is not saturated and returns [`Removal::Removed`].
    pub fn remove_digest(&mut self, digest: Digest) -> Removal {
        if let Some(refused) = refusal(self.positions(digest).map(|pos| self.cells().get(pos))) {
            return refused;
        }
        let positions = self.positions(digest);
        let (counters, len) = self.cells_and_len_mut();
        for pos in positions {
            counters.decrement(pos);
        }
        *len = len.saturating_sub(1);
        Removal::Removed
    }

    /// An upper bound on the times a precomputed digest went in: the
    /// smallest of its counters, [`Count::AtLeast`]`(15)` when that one is
    /// saturated.
    pub fn count_digest(&self, digest: Digest) -> Count {
        count_of(self.positions(digest).map(|pos| self.cells().get(pos)))
    }

    /// The value (0..=15) of the counter at `index`, or `None` past the end.
    pub fn counter(&self, index: u64) -> Option<u8> {
        (index < self.cells().len()).then(|| self.cells().get(index))
    }

    /// Counters stuck at 15 (see [Saturation](CountingBloomFilter#saturation)).
    pub fn saturated_counters(&self) -> u64 {
        self.cells().saturated()
    }

    /// Whether any counter is saturated.
    pub fn has_saturated(&self) -> bool {
        self.cells().saturated() > 0
    }

    /// The number of counters `m`.
    pub fn counters(&self) -> u64 {
        self.cells().len()
    }
}

/// Why a remove of a key with these counters changes nothing:
/// [`Removal::Absent`] when one is zero, [`Removal::Saturated`] when all
/// are saturated; `None`: decrement them. The one rule of the counting
/// filter's removes, plain or shared.
pub(crate) fn refusal(counters: impl Iterator<Item = u8>) -> Option<Removal> {
    let mut saturated = true;
    for c in counters {
        match c {
            0 => return Some(Removal::Absent),
            SATURATED => {}
            _ => saturated = false,
        }
    }
    saturated.then_some(Removal::Saturated)
}

/// The count of a key with these counters: the least, `AtLeast(15)` when
/// it is saturated.
pub(crate) fn count_of(counters: impl Iterator<Item = u8>) -> Count {
    let least = counters.min().unwrap_or(0);
    if least == SATURATED {
        Count::AtLeast(SATURATED.into())
    } else {
        Count::AtMost(least.into())
    }
}

impl Deletable for CountingBloomFilter {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> Removal {
        CountingBloomFilter::remove_digest(self, digest)
    }
    #[inline]
    fn count_digest(&self, digest: Digest) -> Count {
        CountingBloomFilter::count_digest(self, digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::BloomFilter;

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
            c.insert(&i).unwrap();
            b.insert(&i).unwrap();
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
            f.insert(&i).unwrap();
        }
        for i in 0..500u32 {
            assert_eq!(f.remove(&i), Removal::Removed, "{i}");
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
        f.insert("present").unwrap();
        let before = f.clone();
        // Find keys that test absent (all but ~0.1 % of them).
        let mut absent = 0;
        for i in 0..1000u32 {
            if !f.contains(&i) {
                assert_eq!(f.remove(&i), Removal::Absent);
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
            f.insert("hot").unwrap();
        }
        assert!(f.has_saturated());
        // Many keys on a tiny filter: more counters saturate.
        for i in 0..200u32 {
            f.insert(&i).unwrap();
        }
        let saturated = f.saturated_counters();
        assert!(saturated > 3, "{saturated}");
        // Remove "hot" 20 times and half the keys: the rest must stay.
        for _ in 0..20 {
            assert_eq!(f.remove("hot"), Removal::Saturated);
        }
        for i in 0..100u32 {
            assert_ne!(f.remove(&i), Removal::Absent);
        }
        for i in 100..200u32 {
            assert!(f.contains(&i), "lost {i}");
        }
        // Saturated counters stayed at 15 through all of it.
        assert_eq!(f.saturated_counters(), saturated);
    }

    #[test]
    fn a_key_saturates_at_its_fifteenth_insert_and_is_then_kept() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(5)
            .expected_items(1000)
            .unwrap();
        assert_eq!(f.count("hot"), Count::AtMost(0));
        for i in 1..=14u32 {
            f.insert("hot").unwrap();
            assert_eq!(
                f.count("hot"),
                Count::AtMost(i),
                "alone in the filter: exact"
            );
        }
        assert_eq!(
            f.remove("hot"),
            Removal::Removed,
            "14 copies: still counted"
        );
        assert_eq!(f.count("hot"), Count::AtMost(13));
        f.insert("hot").unwrap();
        f.insert("hot").unwrap();
        assert_eq!(f.count("hot"), Count::AtLeast(15));
        let (before, len) = (f.clone(), f.len());
        for _ in 0..20 {
            assert_eq!(f.remove("hot"), Removal::Saturated);
        }
        assert_eq!(f, before, "a saturated remove changes nothing");
        assert_eq!(f.len(), len);
        assert!(f.contains("hot"));
    }

    #[test]
    fn insert_if_absent_stores_one_copy() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(6)
            .expected_items(100)
            .unwrap();
        assert!(f.insert_if_absent("a").unwrap());
        for _ in 0..20 {
            assert!(!f.insert_if_absent("a").unwrap());
        }
        assert_eq!((f.len(), f.count("a")), (1, Count::AtMost(1)));
        assert_eq!(f.remove("a"), Removal::Removed);
        assert!(!f.contains("a"), "one remove undoes it");
    }

    #[test]
    fn insert_reports_certainly_new() {
        let mut f = CountingBloomFilter::with_fp_rate(0.001)
            .seed(2)
            .expected_items(100)
            .unwrap();
        assert!(f.insert("a").unwrap());
        assert!(!f.insert("a").unwrap());
        assert_eq!(f.len(), 2);
        assert_eq!(f.remove("a"), Removal::Removed);
        assert!(f.contains("a"), "one copy left");
        assert_eq!(f.remove("a"), Removal::Removed);
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
                        f.insert(&k).unwrap();
                        *count += 1;
                    } else if *count > 0 {
                        let removal = f.remove(&k);
                        prop_assert_ne!(removal, Removal::Absent);
                        // Saturated only when every counter of the key is.
                        prop_assert_eq!(
                            removal == Removal::Saturated,
                            f.count(&k) == Count::AtLeast(15),
                            "{:?}", removal
                        );
                        *count -= 1;
                    }
                    for (key, &c) in &model {
                        if c > 0 {
                            prop_assert!(f.contains(key), "lost {key}");
                        }
                        // The count never falls below the truth.
                        prop_assert!(f.count(key).upper_bound().is_none_or(|b| b as usize >= c),
                            "{key}: {} below {c}", f.count(key));
                    }
                }
            }
        }
    }
}
