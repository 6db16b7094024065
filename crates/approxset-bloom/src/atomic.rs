//! The concurrent Bloom filter: the blocked layout over atomic words, so
//! threads insert and look up through `&self`, without locks.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use approxset_core::atomic::AtomicWords;
use approxset_core::format::{Reader, Writer};
use approxset_core::{ConcurrentApproxSet, Digest, Error, Result, Value};

use crate::BlockedBloomFilter;
use crate::bits::BitVec;
use crate::bloom::Bloom;
use crate::cells::{BitsView, Cells, CellsRead};
use crate::layout::{BATCH_CHUNK, Blocked, Layout};

/// A cache-blocked Bloom filter that threads share: `insert_shared` and
/// `contains` take `&self`, bits are set with an atomic `fetch_or`, and no
/// lock is taken. For the same seed and keys it holds exactly the bits of a
/// [`BlockedBloomFilter`], converts to and from one, and saves in the blocked
/// format (it loads back as a `BlockedBloomFilter`).
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::AtomicBloomFilter;
///
/// let filter = AtomicBloomFilter::with_fp_rate(0.01).seed(7).expected_items(10_000)?;
/// std::thread::scope(|s| {
///     for t in 0..2u32 {
///         let filter = &filter;
///         s.spawn(move || {
///             for i in 0..5_000u32 {
///                 filter.insert_shared(&(t * 5_000 + i));
///             }
///         });
///     }
/// });
/// assert!((0..10_000u32).all(|i| filter.contains(&i)));
/// assert_eq!(filter.len(), 10_000);
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
pub type AtomicBloomFilter = Bloom<Blocked, AtomicBits>;

/// Bit storage in atomic 64-bit words starting on a cache line, with a count
/// of the inserts made through `&self`.
pub struct AtomicBits {
    words: AtomicWords,
    len: u64,
    shared_inserts: Stripes,
}

/// Stripes of a counter, each on its own cache line, so threads counting
/// inserts do not bounce one line between cores.
struct Stripes([Stripe; STRIPES]);

/// One stripe of [`Stripes`].
#[repr(align(64))]
struct Stripe(AtomicUsize);

const STRIPES: usize = 16;

impl Stripes {
    fn new(value: usize) -> Self {
        let s = Stripes(std::array::from_fn(|_| Stripe(AtomicUsize::new(0))));
        s.0[0].0.store(value, Ordering::Relaxed);
        s
    }

    #[inline]
    fn add_one(&self) {
        thread_local! {
            static STRIPE: usize = {
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES
            };
        }
        let i = STRIPE.with(|s| *s);
        self.0[i].0.fetch_add(1, Ordering::Relaxed);
    }

    fn sum(&self) -> usize {
        self.0
            .iter()
            .fold(0usize, |a, s| a.wrapping_add(s.0.load(Ordering::Relaxed)))
    }

    fn reset(&mut self) {
        for s in &mut self.0 {
            *s.0.get_mut() = 0;
        }
    }
}

impl AtomicBits {
    fn from_words(words: impl ExactSizeIterator<Item = u64>, len: u64) -> Result<Self> {
        Ok(AtomicBits {
            words: AtomicWords::from_words(words)?,
            len,
            shared_inserts: Stripes::new(0),
        })
    }

    #[inline]
    fn words(&self) -> &[AtomicU64] {
        self.words.atomics()
    }

    /// Sets the bits at `positions`, all in one 512-bit block, through
    /// `&self`: one mask per word of the block; if every bit is set already
    /// nothing is written (the line stays shared between cores), otherwise
    /// one atomic `fetch_or` per word that has a bit to set. No branch
    /// depends on which words those are, but the loop's length. Whether
    /// any bit was clear.
    #[inline]
    fn set_block(&self, mut positions: impl Iterator<Item = u64>) -> bool {
        let Some(first) = positions.next() else {
            return false;
        };
        let base = (first >> 6) as usize & !7;
        let mut masks = [0u64; 8];
        // Bit i: word i of the block has a bit to set.
        let mut touched = 0u32;
        for pos in std::iter::once(first).chain(positions) {
            debug_assert_eq!((pos >> 6) as usize & !7, base, "one block");
            let i = (pos >> 6) as usize & 7;
            masks[i] |= 1 << (pos & 63);
            touched |= 1 << i;
        }
        let block: &[AtomicU64; 8] = self.words()[base..base + 8]
            .try_into()
            .expect("a block is 8 words");
        let missing = block.iter().zip(masks).fold(0, |missing, (word, mask)| {
            missing | (mask & !word.load(Ordering::Relaxed))
        });
        if missing == 0 {
            return false;
        }
        let mut changed = 0;
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            changed |= masks[i] & !block[i].fetch_or(masks[i], Ordering::Relaxed);
        }
        changed != 0
    }

    fn load_words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.words.iter()
    }
}

impl Clone for AtomicBits {
    fn clone(&self) -> Self {
        let mut copy =
            AtomicBits::from_words(self.load_words(), self.len).expect("as large as the original");
        copy.shared_inserts = Stripes::new(self.shared_inserts.sum());
        copy
    }
}

impl PartialEq for AtomicBits {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.load_words().eq(other.load_words())
    }
}

impl std::fmt::Debug for AtomicBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicBits")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl crate::cells::sealed::Sealed for AtomicBits {}

impl CellsRead<Blocked> for AtomicBits {
    const NAME: &'static str = Blocked::NAME;
    const TAG: u8 = Blocked::TAG;
    const PER_WORD: u64 = 64;
    const WHAT: &'static str = "bits";

    fn write_words(&self, w: &mut Writer) {
        for word in self.load_words() {
            w.u64(word);
        }
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        self.load_words().map(|w| u64::from(w.count_ones())).sum()
    }
    fn memory_bytes(&self) -> usize {
        self.words().len() * 8
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        (self.words()[(index >> 6) as usize].load(Ordering::Relaxed) >> (index & 63)) & 1 == 1
    }
    #[inline]
    fn prefetch(&self, index: u64) {
        crate::bits::prefetch(&self.words()[(index >> 6) as usize]);
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![("ones", self.nonzero().into())]
    }
    fn shared_len(&self) -> usize {
        self.shared_inserts.sum()
    }
}

/// A saved atomic filter is a blocked filter's file: its view is the
/// blocked filter's.
impl Cells<Blocked> for AtomicBits {
    type View<'a> = BitsView<'a>;

    fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self> {
        let words = usize::try_from(len.div_ceil(64)).map_err(|_| Error::TooLarge {
            needed: u128::from(len.div_ceil(8)),
            limit: isize::MAX as u128,
        })?;
        Ok(AtomicBits {
            words: AtomicWords::zeros(words, max_bytes)?,
            len,
            shared_inserts: Stripes::new(0),
        })
    }
    fn read(r: &mut Reader<'_>, len: u64) -> Result<Self> {
        // Read as bits (checked, one copy), then move each word into an
        // atomic (the second and last copy).
        let bits = BitVec::read(r, len, "bits")?;
        AtomicBits::from_words(bits.words().iter().copied(), len)
    }
    fn view<'a>(r: &mut Reader<'a>, len: u64) -> Result<BitsView<'a>> {
        BitsView::read(r, len)
    }
    #[inline]
    fn add(&mut self, index: u64) -> bool {
        let word = self.words.get_mut((index >> 6) as usize);
        let mask = 1u64 << (index & 63);
        let was_clear = *word & mask == 0;
        *word |= mask;
        was_clear
    }
    fn clear(&mut self) {
        self.words.clear();
        self.shared_inserts.reset();
    }
}

/// What only atomic bits can do: insert through `&self`, and convert.
impl Bloom<Blocked, AtomicBits> {
    /// Inserts `item` through `&self`, from any thread; returns whether a
    /// bit changed (the item was certainly new).
    #[inline]
    pub fn insert_shared<K: approxset_core::Key + ?Sized>(&self, item: &K) -> bool {
        self.insert_digest_shared(self.hash_key().digest(item))
    }

    /// Inserts a byte string through `&self`; see
    /// [`insert_shared`](Self::insert_shared).
    #[inline]
    pub fn insert_bytes_shared(&self, bytes: &[u8]) -> bool {
        self.insert_digest_shared(self.hash_key().digest_bytes(bytes))
    }

    /// Inserts a precomputed digest through `&self`.
    #[inline]
    pub fn insert_digest_shared(&self, digest: Digest) -> bool {
        let changed = self.cells().set_block(self.positions(digest));
        self.cells().shared_inserts.add_one();
        changed
    }

    /// Inserts every item through `&self`, in order, as
    /// [`insert_shared`](Self::insert_shared) on each would, a chunk at a
    /// time (see [`insert_digests_shared`](Self::insert_digests_shared)).
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::AtomicBloomFilter;
    ///
    /// let filter = AtomicBloomFilter::with_fp_rate(0.01).seed(7).expected_items(1_000)?;
    /// filter.insert_batch_shared(&["alice", "bob"]);
    /// assert!(filter.contains("bob"));
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    pub fn insert_batch_shared<K: approxset_core::Key>(&self, items: &[K]) {
        let key = self.hash_key();
        let mut digests = [Digest::new(0, 0); BATCH_CHUNK];
        for chunk in items.chunks(BATCH_CHUNK) {
            for (d, item) in digests.iter_mut().zip(chunk) {
                *d = key.digest(item);
            }
            self.insert_digests_shared(&digests[..chunk.len()]);
        }
    }

    /// Inserts every digest through `&self`, in order, as
    /// [`insert_digest_shared`](Self::insert_digest_shared) on each would:
    /// a chunk's blocks are prefetched before their bits are set, so their
    /// cache misses overlap.
    pub fn insert_digests_shared(&self, digests: &[Digest]) {
        for chunk in digests.chunks(BATCH_CHUNK) {
            self.prefetch(chunk, 1);
            for &digest in chunk {
                self.insert_digest_shared(digest);
            }
        }
    }

    /// The same filter as a [`BlockedBloomFilter`] (one copy of the bits).
    pub fn into_blocked(self) -> BlockedBloomFilter {
        let len = self.len();
        let cells = BitVec::from_words_iter(self.cells().load_words(), self.cells().len)
            .expect("bits of a filter are a valid bit vector");
        Bloom {
            cells,
            hashes: self.hashes,
            scheme: self.scheme,
            key: self.key,
            len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
            layout: self.layout,
        }
    }

    /// A shared filter holding the bits of `filter` (one copy of the bits).
    pub fn from_blocked(filter: &BlockedBloomFilter) -> Self {
        let cells = AtomicBits::from_words(filter.cells().words().iter().copied(), filter.bits())
            .expect("as large as the original");
        Bloom {
            cells,
            hashes: filter.hashes(),
            scheme: filter.probe_scheme(),
            key: filter.hash_key(),
            len: filter.len(),
            capacity: filter.capacity(),
            fp_rate: filter.fp_rate(),
            layout: std::marker::PhantomData,
        }
    }
}

/// Never fails: the inherent methods of the same names return the plain
/// `bool` and `()`.
impl ConcurrentApproxSet for AtomicBloomFilter {
    #[inline]
    fn insert_digest_shared(&self, digest: Digest) -> approxset_core::Result<bool> {
        Ok(AtomicBloomFilter::insert_digest_shared(self, digest))
    }
    fn insert_digests_shared(&self, digests: &[Digest]) -> approxset_core::Result<()> {
        AtomicBloomFilter::insert_digests_shared(self, digests);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64 as Watermark;

    use super::*;

    const N: u64 = 40_000;

    fn shared() -> AtomicBloomFilter {
        AtomicBloomFilter::with_fp_rate(0.01)
            .seed(9)
            .expected_items(N as usize)
            .unwrap()
    }

    #[test]
    fn a_threaded_build_has_the_bits_of_a_single_threaded_one() {
        let f = shared();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let f = &f;
                s.spawn(move || {
                    for i in (t..N).step_by(4) {
                        f.insert_shared(&i);
                    }
                });
            }
        });
        let mut single = BlockedBloomFilter::with_fp_rate(0.01)
            .seed(9)
            .expected_items(N as usize)
            .unwrap();
        for i in 0..N {
            single.insert(&i).unwrap();
        }
        assert_eq!(f.len(), N as usize);
        assert_eq!(
            f.to_bytes(),
            single.to_bytes(),
            "bit for bit, and the same file"
        );
        let back = AtomicBloomFilter::from_blocked(&single);
        assert_eq!(back.to_bytes(), single.to_bytes());
        assert_eq!(f.into_blocked(), single);
        // The file loads as a blocked filter, and as an atomic one.
        let again = AtomicBloomFilter::from_bytes(&single.to_bytes().unwrap()).unwrap();
        assert!((0..N).all(|i| again.contains(&i)));
    }

    #[test]
    fn no_false_negative_while_threads_insert_and_query() {
        let f = shared();
        // Each writer publishes how many of its keys are in (Release); a
        // reader that sees the count (Acquire) must find every one of them.
        let done: Vec<Watermark> = (0..2).map(|_| Watermark::new(0)).collect();
        let per_writer = N / 2;
        std::thread::scope(|s| {
            for (t, mark) in done.iter().enumerate() {
                let f = &f;
                s.spawn(move || {
                    for i in 0..per_writer {
                        let key = t as u64 * per_writer + i;
                        f.insert_shared(&key);
                        assert!(f.contains(&key), "own key {key}");
                        mark.store(i + 1, Ordering::Release);
                    }
                });
            }
            for reader in 0..2u64 {
                let (f, done) = (&f, &done);
                s.spawn(move || {
                    let mut checked = 0u64;
                    for round in 0..200u64 {
                        for (t, mark) in done.iter().enumerate() {
                            let published = mark.load(Ordering::Acquire);
                            // A bounded sample of what is published.
                            for j in (0..published).rev().step_by(97).take(50) {
                                let key = t as u64 * per_writer + j;
                                assert!(f.contains(&key), "reader {reader} round {round}: {key}");
                                checked += 1;
                            }
                        }
                    }
                    checked
                });
            }
        });
        assert!((0..N).all(|k| f.contains(&k)));
        assert_eq!(f.len(), N as usize);
    }

    #[test]
    fn usable_through_the_shared_trait_object() {
        let f = shared();
        let set: &(dyn ConcurrentApproxSet + Send + Sync) = &f;
        assert!(set.insert_shared("alice").unwrap());
        assert!(set.contains_shared("alice"));
        assert!(f.contains_bytes(b"alice"));
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<AtomicBloomFilter>();
    }
}
