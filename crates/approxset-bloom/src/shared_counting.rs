//! The counting filter as a shard of a
//! [`Sharded`](approxset_core::Sharded) filter: its 4-bit counters in
//! [`AtomicWords`] ([`AtomicCounters`]), read by lookups without a lock
//! and changed by the one writer that holds the shard's lock.
//!
//! Why `Relaxed` loads and stores are enough: each counter word is changed
//! only under its shard's lock, so the stores to it form one sequence, each
//! computed from the one before (the lock orders the writers, and a writer
//! reads its own stores), and every value in that sequence holds each key's
//! count from the store that added it to the store that takes it away. A
//! key whose insert returned before a lookup began has its increments
//! happen before the lookup's loads (whatever made "before" observable is
//! a happens-before edge), and by the coherence of each atomic word a load
//! then reads that store or a later one: never a value without the key,
//! until a remove of it begins. Nothing else is published through the
//! counters, so no acquire or release is needed; the k words are read one
//! by one, and each read alone cannot miss the key.

use approxset_core::atomic::AtomicWords;
use approxset_core::format::{Writer, tag};
use approxset_core::sharded::ShardFilter;
use approxset_core::{Count, Digest, Removal, Result, Value};

use crate::bloom::Bloom;
use crate::cell_traits::CellsRead;
use crate::counters::{Counters, count_nibbles, counter, locate, step_down, step_up};
use crate::counting::{CountingBloomFilter, count_of, refusal};
use crate::layout::Classic;

/// Counters of the counting filter in atomic words, 16 to a word, for the
/// shards of a sharded counting filter: lookups read them through `&self`
/// with no lock, and only the holder of the shard's lock writes them.
pub struct AtomicCounters {
    words: AtomicWords,
    len: u64,
}

impl std::fmt::Debug for AtomicCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicCounters")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl AtomicCounters {
    /// Counter `index` (< len).
    #[inline]
    fn get(&self, index: u64) -> u8 {
        counter(&self.words, index)
    }

    /// Adds one to counter `index` unless saturated; its value before. Only
    /// the holder of the shard's lock calls it (a load and a store, not a
    /// read-modify-write: no other thread writes the word meanwhile).
    #[inline]
    fn increment(&self, index: u64) -> u8 {
        let (word, shift) = locate(index);
        let (new, old) = step_up(self.words.load(word), shift);
        self.words.store(word, new);
        old
    }

    /// Takes one from counter `index` unless zero or saturated; as
    /// [`increment`](Self::increment), under the shard's lock only.
    #[inline]
    fn decrement(&self, index: u64) {
        let (word, shift) = locate(index);
        let (new, _) = step_down(self.words.load(word), shift);
        self.words.store(word, new);
    }
}

impl crate::cell_traits::sealed::Sealed for AtomicCounters {}

impl CellsRead<Classic> for AtomicCounters {
    const NAME: &'static str = "counting";
    const TAG: u8 = tag::COUNTING;
    const PER_WORD: u64 = 16;
    const WHAT: &'static str = "counters";

    fn write_words(&self, w: &mut Writer) {
        for word in self.words.iter() {
            w.u64(word);
        }
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        count_nibbles(&self.words).0
    }
    fn memory_bytes(&self) -> usize {
        self.words.atomics().len() * 8
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        self.get(index) != 0
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        let (nonzero, saturated) = count_nibbles(&self.words);
        vec![("nonzero", nonzero.into()), ("saturated", saturated.into())]
    }
}

/// The counting filter's shard: lookups and counts read the atomic
/// counters with no lock; the shard's lock guards the item count.
impl ShardFilter for CountingBloomFilter {
    type Shared = Bloom<Classic, AtomicCounters>;
    type Local = usize;

    fn share(self) -> (Self::Shared, usize) {
        let words = AtomicWords::from_words(self.cells.words().iter().copied())
            .expect("as large as the original");
        let shared = Bloom {
            cells: AtomicCounters {
                words,
                len: self.cells.len(),
            },
            hashes: self.hashes,
            scheme: self.scheme,
            key: self.key,
            len: 0,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
            layout: std::marker::PhantomData,
        };
        (shared, self.len)
    }

    fn unshare(shared: &Self::Shared, len: &usize) -> Self {
        let cells = Counters::from_words(shared.cells.words.iter().collect(), shared.cells.len)
            .expect("counters written by the filter are valid");
        Bloom {
            cells,
            hashes: shared.hashes,
            scheme: shared.scheme,
            key: shared.key,
            len: *len,
            capacity: shared.capacity,
            fp_rate: shared.fp_rate,
            layout: std::marker::PhantomData,
        }
    }

    #[inline]
    fn contains_shared(shared: &Self::Shared, digest: Digest) -> bool {
        shared.contains_digest(digest)
    }

    #[inline]
    fn count_shared(shared: &Self::Shared, digest: Digest) -> Count {
        count_of(shared.positions(digest).map(|pos| shared.cells.get(pos)))
    }

    #[inline]
    fn insert_locked(shared: &Self::Shared, len: &mut usize, digest: Digest) -> Result<bool> {
        let mut fresh = false;
        for pos in shared.positions(digest) {
            fresh |= shared.cells.increment(pos) == 0;
        }
        *len = len.saturating_add(1);
        Ok(fresh)
    }

    #[inline]
    fn remove_locked(shared: &Self::Shared, len: &mut usize, digest: Digest) -> Removal {
        let counters = shared.positions(digest).map(|pos| shared.cells.get(pos));
        if let Some(refused) = refusal(counters) {
            return refused;
        }
        for pos in shared.positions(digest) {
            shared.cells.decrement(pos);
        }
        *len = len.saturating_sub(1);
        Removal::Removed
    }

    fn clear_locked(shared: &mut Self::Shared, len: &mut usize) {
        shared.cells.words.clear();
        *len = 0;
    }

    fn len_locked(_: &Self::Shared, len: &usize) -> usize {
        *len
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn a_shared_shard_answers_as_the_filter_and_unshares_to_it() {
        let mut plain = CountingBloomFilter::with_fp_rate(0.01)
            .seed(3)
            .expected_items(500)
            .unwrap();
        let (shared, mut len) = plain.clone().share();
        for i in 0..400u32 {
            let d = plain.hash_key().digest(&i);
            let want = plain.insert_digest(d).unwrap();
            assert_eq!(
                CountingBloomFilter::insert_locked(&shared, &mut len, d).unwrap(),
                want
            );
        }
        for _ in 0..20 {
            let d = plain.hash_key().digest("hot");
            plain.insert_digest(d).unwrap();
            CountingBloomFilter::insert_locked(&shared, &mut len, d).unwrap();
        }
        for i in (0..400u32).step_by(3).chain(1_000..1_100) {
            let d = plain.hash_key().digest(&i);
            assert_eq!(
                CountingBloomFilter::remove_locked(&shared, &mut len, d),
                plain.remove_digest(d),
                "{i}"
            );
        }
        for i in 0..2_000u32 {
            let d = plain.hash_key().digest(&i);
            assert_eq!(
                CountingBloomFilter::contains_shared(&shared, d),
                plain.contains_digest(d)
            );
            assert_eq!(
                CountingBloomFilter::count_shared(&shared, d),
                plain.count_digest(d)
            );
        }
        let d = plain.hash_key().digest("hot");
        assert_eq!(
            CountingBloomFilter::count_shared(&shared, d),
            Count::AtLeast(15)
        );
        assert_eq!(
            CountingBloomFilter::remove_locked(&shared, &mut len, d),
            Removal::Saturated
        );
        let back = CountingBloomFilter::unshare(&shared, &len);
        assert_eq!(back, plain);
        assert_eq!(back.saturated_counters(), plain.saturated_counters());
        assert_eq!(shared.parameters(), plain.parameters());
    }
}
