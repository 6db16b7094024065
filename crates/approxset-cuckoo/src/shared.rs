//! The cuckoo filter as a shard of a
//! [`Sharded`](approxset_core::Sharded) filter: its slots in
//! [`AtomicWords`] ([`SharedCuckoo`]), read by lookups without a lock, and
//! written by the one thread that holds the shard's lock, through the
//! filter's own [`Slots`] code.
//!
//! A fingerprint in its slot stays there until removed, except while an
//! insert moves fingerprints between buckets (the eight-bucket search and
//! the kicks of [`Slots`]): one kicked out of its slot is in no bucket
//! until it lands in its other one. Lookups that race those moves are
//! protected by a version per shard, a seqlock as in libcuckoo: the writer
//! makes it odd before the first move and even after the last
//! ([`SetWords::begin_moves`], [`SetWords::end_moves`]); a lookup that
//! finds nothing reads the version before and after reading the buckets
//! and the stash, and looks again when it was odd or has changed. A
//! lookup that finds the fingerprint answers at once: a "present" is
//! never a false negative. Inserts into a free slot and removes move
//! nothing, and change no bit of any other fingerprint (a bucket is
//! rewritten word by word, but each word keeps the other slots' bits), so
//! they leave the version alone, and lookups of other keys never retry on
//! them.
//!
//! The orderings are [`Version`]'s (its module's comment): an answer
//! that stands was read between two sections of moves, from slots where
//! every fingerprint lies in one of its buckets or the stash. A key whose
//! insert returned before the lookup began is among them (its stores
//! happen before the lookup's loads, as in the counting filter's case),
//! until a remove of it begins.

use std::sync::atomic::{AtomicU64, Ordering};

use approxset_core::atomic::AtomicWords;
use approxset_core::format::Words;
use approxset_core::seqlock::Version;
use approxset_core::sharded::ShardFilter;
use approxset_core::{Count, Digest, HashKey, Removal, Result};

use crate::bucket;
use crate::filter::CuckooFilter;
use crate::kick::{Slots, Victim, Xorshift, copies_in, stash_holds};
use crate::table::{SetWords, Table, Width, with_width};

/// A version and the stash, on 128 bytes of their own: the writer stores
/// them only around moves, so lookups that read the slots do not lose
/// their lines on every insert.
#[repr(align(128))]
struct Guard {
    /// Odd while a writer moves fingerprints.
    version: Version,
    /// The stashed fingerprint (0: none).
    stash_fp: AtomicU64,
    /// The stashed fingerprint's bucket.
    stash_bucket: AtomicU64,
}

/// The slots and stash of a cuckoo filter's shard, which lookups read
/// without a lock and one writer at a time, holding the shard's lock,
/// changes. Built by [`ShardFilter::share`].
pub struct SharedCuckoo {
    guard: Guard,
    words: AtomicWords,
    buckets: usize,
    bits: u32,
    key: HashKey,
    capacity: usize,
    fp_rate: f64,
}

impl std::fmt::Debug for SharedCuckoo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCuckoo")
            .field("buckets", &self.buckets)
            .field("fingerprint_bits", &self.bits)
            .finish_non_exhaustive()
    }
}

/// What only the holder of a cuckoo shard's lock reads and changes.
#[derive(Debug)]
pub struct CuckooLocal {
    victim: Option<Victim>,
    rng: Xorshift,
    len: usize,
}

/// The shard's words as its writer stores into them, with the version
/// the moves bump.
struct Writing<'a> {
    shared: &'a SharedCuckoo,
    /// The version before the moves began.
    version: u64,
}

impl Words for Writing<'_> {
    #[inline(always)]
    fn word_count(&self) -> usize {
        self.shared.words.word_count()
    }
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self.shared.words.load(i)
    }
    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        self.shared.words.get(i)
    }
    #[inline(always)]
    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        self.shared.words.block(at)
    }
}

impl SetWords for Writing<'_> {
    #[inline(always)]
    fn set_word(&mut self, i: usize, value: u64) {
        self.shared.words.store(i, value);
    }

    /// The version made odd, then a release fence: every store of the
    /// moves comes after the odd version (see the module's comment).
    #[inline(always)]
    fn begin_moves(&mut self) {
        self.version = self.shared.guard.version.begin();
    }

    /// The stash published, then the version made even with `Release`.
    #[inline(always)]
    fn end_moves(&mut self, stash_fp: u64, stash_bucket: usize) {
        let guard = &self.shared.guard;
        guard
            .stash_bucket
            .store(stash_bucket as u64, Ordering::Relaxed);
        guard.stash_fp.store(stash_fp, Ordering::Relaxed);
        guard.version.end(self.version);
    }
}

impl SharedCuckoo {
    /// The slots, for reading.
    #[inline(always)]
    fn table(&self) -> Table<&AtomicWords> {
        Table::over(&self.words, self.buckets, self.bits)
    }

    /// The stash as last published.
    #[inline(always)]
    fn victim(&self) -> Option<Victim> {
        let fp = self.guard.stash_fp.load(Ordering::Relaxed);
        (fp != 0).then(|| Victim {
            fp,
            bucket: self.guard.stash_bucket.load(Ordering::Relaxed) as usize,
        })
    }

    #[inline(always)]
    fn contains<W: Width>(&self, digest: Digest) -> bool {
        let (fp, i1, i2) = bucket::locate::<W>(digest, self.buckets);
        let table = self.table();
        // Read between two sections of moves unless found (the module's
        // comment). The stash (on the version's line) only when the
        // buckets do not hold it: a hit reads no line the writer stores to
        // around its moves.
        self.guard.version.read(
            || {
                let b1 = table.bucket::<W>(i1);
                let b2 = table.bucket::<W>(i2);
                (W::matching(b1, fp) | W::matching(b2, fp)) != W::ZERO
                    || stash_holds(self.victim(), fp, i1, i2)
            },
            |found| found,
        )
    }

    #[inline(always)]
    fn copies<W: Width>(&self, digest: Digest) -> u32 {
        // Counted afresh until no move overlapped the count.
        let table = self.table();
        self.guard
            .version
            .read_checked(|| copies_in::<W, _>(&table, self.victim(), digest).0)
    }

    /// The writer's view of the slots: the shard's lock must be held.
    #[inline(always)]
    fn writing(&self) -> Table<Writing<'_>> {
        Table::over(
            Writing {
                shared: self,
                version: 0,
            },
            self.buckets,
            self.bits,
        )
    }
}

impl CuckooLocal {
    /// The state an insert or remove changes, over `table`.
    #[inline(always)]
    fn slots<'a, S>(&'a mut self, table: &'a mut Table<S>) -> Slots<'a, S> {
        Slots {
            table,
            victim: &mut self.victim,
            rng: &mut self.rng,
            len: &mut self.len,
        }
    }
}

/// The cuckoo filter's shard: lookups and counts read the atomic slots
/// with no lock, checking the shard's version when they find nothing;
/// writes run the filter's own code on the shard's words.
impl ShardFilter for CuckooFilter {
    type Shared = SharedCuckoo;
    type Local = CuckooLocal;

    fn share(self) -> (SharedCuckoo, CuckooLocal) {
        let words = AtomicWords::from_words(self.table.words().iter().copied())
            .expect("as large as the original");
        let (fp, bucket) = self.victim.map_or((0, 0), |v| (v.fp, v.bucket as u64));
        let shared = SharedCuckoo {
            guard: Guard {
                version: Version::new(),
                stash_fp: AtomicU64::new(fp),
                stash_bucket: AtomicU64::new(bucket),
            },
            words,
            buckets: self.table.buckets(),
            bits: self.table.bits(),
            key: self.key,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        };
        let local = CuckooLocal {
            victim: self.victim,
            rng: self.rng,
            len: self.len,
        };
        (shared, local)
    }

    fn unshare(shared: &SharedCuckoo, local: &CuckooLocal) -> Self {
        let table = Table::from_words(
            shared.words.iter().collect::<Vec<u64>>(),
            shared.buckets as u64,
            shared.bits,
        )
        .expect("slots written by the filter are valid");
        CuckooFilter {
            table,
            victim: local.victim,
            rng: local.rng,
            key: shared.key,
            len: local.len,
            capacity: shared.capacity,
            fp_rate: shared.fp_rate,
        }
    }

    #[inline]
    fn contains_shared(shared: &SharedCuckoo, digest: Digest) -> bool {
        with_width!(shared.bits, W => shared.contains::<W>(digest))
    }

    #[inline]
    fn count_shared(shared: &SharedCuckoo, digest: Digest) -> Count {
        Count::AtMost(with_width!(shared.bits, W => shared.copies::<W>(digest)))
    }

    #[inline]
    fn insert_locked(
        shared: &SharedCuckoo,
        local: &mut CuckooLocal,
        digest: Digest,
    ) -> Result<bool> {
        let mut table = shared.writing();
        with_width!(shared.bits, W => local.slots(&mut table).insert::<W>(digest))
    }

    #[inline]
    fn remove_locked(shared: &SharedCuckoo, local: &mut CuckooLocal, digest: Digest) -> Removal {
        let mut table = shared.writing();
        if with_width!(shared.bits, W => local.slots(&mut table).remove::<W>(digest)) {
            Removal::Removed
        } else {
            Removal::Absent
        }
    }

    fn clear_locked(shared: &mut SharedCuckoo, local: &mut CuckooLocal) {
        shared.words.clear();
        *shared.guard.stash_fp.get_mut() = 0;
        *shared.guard.stash_bucket.get_mut() = 0;
        local.victim = None;
        local.len = 0;
        local.rng = Xorshift::from_key(shared.key);
    }

    fn len_locked(_: &SharedCuckoo, local: &CuckooLocal) -> usize {
        local.len
    }
}
