//! The quotient filter as a shard of a
//! [`Sharded`](approxset_core::Sharded) filter: its tables in
//! [`AtomicWords`] ([`SharedQuotient`]), read by lookups without a lock,
//! and written by the one thread that holds the shard's lock, through the
//! filter's own table code (`shift.rs`, `update.rs`) over the atomics.
//!
//! Nearly every insert and remove moves slots (a run shifts by one to make
//! room or close a gap), so a lookup racing it may read a run half moved.
//! Lookups are protected by a version per shard, a seqlock as in the
//! cuckoo shard (and libcuckoo): the writer makes it odd before its first
//! store and even after its last; a lookup that finds nothing reads it
//! before and after reading the tables, and looks again when it was odd or
//! has changed. A lookup that finds the fingerprint answers at once (a
//! "present" is never a false negative; a torn read can at worst add a
//! false positive). Reads of a torn table cannot panic: every position a
//! read computes is bounded by the table's blocks.
//!
//! The memory orderings are [`Version`]'s (its module's comment).
//!
//! Growth: a shard's tables are published once each in a [`OnceLock`]
//! (its `get` is an acquire load), newest last; a lookup reads every table
//! published. A table's storage cannot move while lookups read it, so each
//! has overflow blocks reserved past its home slots (a 32nd of them, 8 to
//! 64 blocks); an insert that would run past them starts the next table
//! instead when its fingerprint is new, and fails (changing nothing) when
//! it would add a copy to a full older table, which a table of random keys
//! at most 95 % full does not meet: the slots its runs spill past its home
//! slots are the length of a queue at load 0.95, above `L` with probability
//! about `exp(−0.105·L)`, below 10⁻²⁰ at the least reserve of 512 slots.

use std::sync::OnceLock;

use approxset_core::atomic::AtomicWords;
use approxset_core::format::Words;
use approxset_core::seqlock::Version;
use approxset_core::sharded::ShardFilter;
use approxset_core::{Count, Digest, Error, HashKey, Removal, Result};

use crate::QuotientFilter;
use crate::bits::Store;
use crate::filter::{Located, find, holds, locate, next_table};
use crate::sizing::{Plan, limit};
use crate::table::{Table, data_words, offset_words};
use crate::update::Scratch;

/// The most tables a filter has (the format's bound).
const MAX_TABLES: usize = 64;

/// Overflow blocks a shard's table reserves past its home slots: a
/// 32nd of them, at least 8 and at most 64.
fn reserve(home: usize) -> usize {
    (home / 64 / 32).clamp(8, 64)
}

/// The version, on 128 bytes of its own: the writer stores it twice per
/// update, and lookups read it.
#[repr(align(128))]
struct Guard {
    /// Odd while a writer changes the tables.
    version: Version,
}

/// The tables of a quotient filter's shard, which lookups read without a
/// lock and one writer at a time, holding the shard's lock, changes.
/// Built by [`ShardFilter::share`].
pub struct SharedQuotient {
    guard: Guard,
    /// Tables `0..k` published, the rest empty. A table's `used` and
    /// `entries` here are not kept (the writer's [`QuotientLocal`] has
    /// them); its `blocks` are all its storage.
    tables: Box<[OnceLock<Table<AtomicWords>>]>,
    plan: Plan,
    key: HashKey,
    capacity: usize,
    fp_rate: f64,
    max_bytes: Option<usize>,
}

impl std::fmt::Debug for SharedQuotient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedQuotient")
            .field("tables", &self.published().count())
            .field(
                "remainder_bits",
                &self.published().next().map_or(self.plan.r0, |t| t.bits),
            )
            .finish_non_exhaustive()
    }
}

/// What only the holder of a quotient shard's lock reads and changes:
/// the count of items and each table's slots in use and entries.
#[derive(Debug)]
pub struct QuotientLocal {
    len: usize,
    used: Vec<usize>,
    entries: Vec<usize>,
    scratch: Scratch,
}

/// A shard's atomic words as its writer (the lock holder) stores into
/// them; they cannot grow.
struct Writer<'a>(&'a AtomicWords);

impl Words for Writer<'_> {
    #[inline(always)]
    fn word_count(&self) -> usize {
        self.0.word_count()
    }
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self.0.load(i)
    }
    #[inline(always)]
    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        self.0.block(at)
    }
}

impl Store for Writer<'_> {
    #[inline(always)]
    fn set_word(&mut self, i: usize, value: u64) {
        self.0.store(i, value);
    }
    fn extend_to(&mut self, n: usize) -> bool {
        n <= self.0.word_count()
    }
}

/// A table of `home` slots and `bits`-bit remainders in atomics, with
/// `blocks` blocks of storage (home and reserve), zero.
fn atomic_table(
    home: usize,
    bits: u32,
    blocks: usize,
    max_bytes: Option<usize>,
) -> Result<Table<AtomicWords>> {
    let bytes = (data_words(blocks, bits) as u128 + offset_words(blocks) as u128) * 8;
    approxset_core::sizing::check_memory(bytes, max_bytes)?;
    Ok(Table {
        home,
        bits,
        blocks,
        data: AtomicWords::zeros(data_words(blocks, bits), None)?,
        offsets: AtomicWords::zeros(offset_words(blocks), None)?,
        used: 0,
        entries: 0,
    })
}

/// The words of `words`, then zeros to `n`.
fn padded(words: &[u64], n: usize) -> AtomicWords {
    let iter = (0..n).map(|i| words.get(i).copied().unwrap_or(0));
    AtomicWords::from_words(iter).expect("a table's words fit twice")
}

impl SharedQuotient {
    /// The tables published so far, oldest first.
    #[inline(always)]
    fn published(&self) -> impl Iterator<Item = &Table<AtomicWords>> {
        self.tables.iter().map_while(OnceLock::get)
    }

    /// Table `i` as its writer changes it (the shard's lock held).
    fn writing<'a>(&'a self, local: &QuotientLocal, i: usize) -> Table<Writer<'a>> {
        let t = self.tables[i].get().expect("a published table");
        Table {
            home: t.home,
            bits: t.bits,
            blocks: t.blocks,
            data: Writer(&t.data),
            offsets: Writer(&t.offsets),
            used: local.used[i],
            entries: local.entries[i],
        }
    }

    /// Sets the count of the fingerprint `at` locates to `f(old)`, the
    /// version odd meanwhile; `false` (nothing changed) when its table has
    /// no room left.
    fn update(&self, local: &mut QuotientLocal, at: &Located, f: impl FnOnce(u64) -> u64) -> bool {
        let i = at.table;
        let mut t = self.writing(local, i);
        let version = self.guard.version.begin();
        let done = t
            .update_at(at.q, at.rem, &at.place, &mut local.scratch, f)
            .is_some();
        self.guard.version.end(version);
        local.used[i] = t.used;
        local.entries[i] = t.entries;
        done
    }

    /// The fingerprint's place in the tables from `from` on, numbered
    /// from the first (the lock holder's reads need no check).
    fn locate_from(&self, from: usize, digest: Digest) -> Located {
        let mut at = locate(self.published().skip(from), digest);
        at.table += from;
        at
    }

    /// Publishes the next table.
    fn grow(&self, local: &mut QuotientLocal) -> Result<()> {
        let i = local.used.len();
        if i >= MAX_TABLES {
            return Err(Error::CannotGrow {
                stages: i,
                items: local.len,
                reason: format!("a filter has at most {MAX_TABLES} tables"),
            });
        }
        let have: usize = self.published().map(Table::memory_bytes).sum();
        let table = next_table(&self.plan, i, local.len, have, self.max_bytes, |h, b, m| {
            atomic_table(h, b, h / 64 + 1 + reserve(h), m)
        })?;
        self.tables[i]
            .set(table)
            .map_err(|_| ())
            .expect("only the lock holder publishes");
        local.used.push(0);
        local.entries.push(0);
        Ok(())
    }
}

/// The quotient filter's shard: lookups and counts read the atomic tables
/// with no lock, checking the shard's version when they find nothing;
/// writes run the filter's own table code on the shard's words.
impl ShardFilter for QuotientFilter {
    type Shared = SharedQuotient;
    type Local = QuotientLocal;

    fn share(self) -> (SharedQuotient, QuotientLocal) {
        let tables: Box<[OnceLock<Table<AtomicWords>>]> =
            (0..MAX_TABLES).map(|_| OnceLock::new()).collect();
        for (slot, t) in tables.iter().zip(&self.tables) {
            let blocks = t.blocks.max(t.home / 64 + 1 + reserve(t.home));
            let shared = Table {
                home: t.home,
                bits: t.bits,
                blocks,
                data: padded(&t.data, data_words(blocks, t.bits)),
                offsets: padded(&t.offsets, offset_words(blocks)),
                used: 0,
                entries: 0,
            };
            slot.set(shared).map_err(|_| ()).expect("a new lock");
        }
        let local = QuotientLocal {
            len: self.len,
            used: self.tables.iter().map(|t| t.used).collect(),
            entries: self.tables.iter().map(|t| t.entries).collect(),
            scratch: Scratch::default(),
        };
        let shared = SharedQuotient {
            guard: Guard {
                version: Version::new(),
            },
            tables,
            plan: self.plan,
            key: self.key,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
            max_bytes: self.max_bytes,
        };
        (shared, local)
    }

    fn unshare(shared: &SharedQuotient, local: &QuotientLocal) -> Self {
        let tables = shared
            .published()
            .enumerate()
            .map(|(i, t)| {
                // The blocks up to the last that holds a run, and no fewer
                // than a new table has.
                let blocks = (t.home / 64 + 1..t.blocks)
                    .rev()
                    .find(|&b| t.runends(b) != 0)
                    .map_or(t.home / 64 + 1, |b| b + 1);
                Table {
                    home: t.home,
                    bits: t.bits,
                    blocks,
                    data: t.data.iter().take(data_words(blocks, t.bits)).collect(),
                    offsets: t.offsets.iter().take(offset_words(blocks)).collect(),
                    used: local.used[i],
                    entries: local.entries[i],
                }
            })
            .collect();
        QuotientFilter {
            tables,
            plan: shared.plan,
            key: shared.key,
            len: local.len,
            capacity: shared.capacity,
            fp_rate: shared.fp_rate,
            max_bytes: shared.max_bytes,
            scratch: Scratch::default(),
        }
    }

    #[inline]
    fn contains_shared(shared: &SharedQuotient, digest: Digest) -> bool {
        // The first table that holds the fingerprint, read between two
        // writes unless found (the module's comment).
        shared
            .guard
            .version
            .read(|| holds(shared.published(), digest), |found| found)
    }

    #[inline]
    fn count_shared(shared: &SharedQuotient, digest: Digest) -> Count {
        // Every count checked: a shift can make it too small.
        let found = shared
            .guard
            .version
            .read_checked(|| find(shared.published(), digest));
        match found {
            None => Count::AtMost(0),
            Some((_, c)) => u32::try_from(c).map_or(Count::AtLeast(u32::MAX), Count::AtMost),
        }
    }

    fn insert_locked(
        shared: &SharedQuotient,
        local: &mut QuotientLocal,
        digest: Digest,
    ) -> Result<bool> {
        let mut at = shared.locate_from(0, digest);
        let new = at.place.count == 0;
        let last = local.used.len() - 1;
        let full = shared.tables[last].get().expect("published").home;
        if new && local.used[last] >= limit(full) {
            shared.grow(local)?;
            at = shared.locate_from(last + 1, digest);
        }
        if !shared.update(local, &at, |c| c + 1) {
            let full = |local: &QuotientLocal| Error::CannotGrow {
                stages: local.used.len(),
                items: local.len,
                reason: format!("table {} of the shard has no overflow room left", at.table),
            };
            if !new || at.table + 1 != local.used.len() {
                return Err(full(local));
            }
            // A new fingerprint: the next table takes it.
            let next = local.used.len();
            shared.grow(local)?;
            let at = shared.locate_from(next, digest);
            if !shared.update(local, &at, |c| c + 1) {
                return Err(full(local));
            }
        }
        local.len += 1;
        Ok(new)
    }

    fn remove_locked(
        shared: &SharedQuotient,
        local: &mut QuotientLocal,
        digest: Digest,
    ) -> Removal {
        let at = shared.locate_from(0, digest);
        if at.place.count == 0 {
            return Removal::Absent;
        }
        // A remove never needs more slots than the run had.
        let done = shared.update(local, &at, |c| c - 1);
        debug_assert!(done);
        local.len -= 1;
        Removal::Removed
    }

    fn clear_locked(shared: &mut SharedQuotient, local: &mut QuotientLocal) {
        for slot in shared.tables.iter_mut().skip(1) {
            slot.take();
        }
        if let Some(t) = shared.tables[0].get_mut() {
            t.data.clear();
            t.offsets.clear();
        }
        local.len = 0;
        local.used.truncate(1);
        local.entries.truncate(1);
        local.used[0] = 0;
        local.entries[0] = 0;
    }

    fn len_locked(_: &SharedQuotient, local: &QuotientLocal) -> usize {
        local.len
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    use approxset_core::Sharded;
    use approxset_core::prelude::*;

    use crate::QuotientFilter;

    /// Readers race shifts and growth on one shard: resident keys, inserted
    /// before the readers start and never removed, are found on every pass
    /// while a writer churns a window of keys large enough to make the
    /// shard add tables; a churn key is found from its insert's return
    /// until its remove is announced. Fixed seeds, no sleeps.
    #[test]
    fn readers_racing_shifts_and_growth_find_every_published_key() {
        const RESIDENT: u64 = 1_500;
        const CHURN: u64 = 40_000;
        const LIVE: u64 = 6_000;
        const BASE: u64 = 1 << 40;
        let filter: Sharded<QuotientFilter> = Sharded::build(2_000, 1, |c| {
            QuotientFilter::with_fp_rate(0.01).seed(5).expected_items(c)
        })
        .unwrap();
        for k in 0..RESIDENT {
            filter.insert_shared(&k).unwrap();
        }
        let (lo, hi) = (AtomicU64::new(BASE), AtomicU64::new(BASE));
        let done = AtomicBool::new(false);
        let (f, lo, hi, done) = (&filter, &lo, &hi, &done);
        std::thread::scope(|s| {
            s.spawn(move || {
                for c in BASE..BASE + CHURN {
                    f.insert_shared(&c).unwrap();
                    hi.store(c + 1, Ordering::Release);
                    if c >= BASE + LIVE {
                        let old = c - LIVE;
                        lo.store(old + 1, Ordering::Release);
                        assert!(f.remove_shared(&old).is_removed(), "{old}");
                    }
                }
                done.store(true, Ordering::Release);
            });
            for r in 0..3u64 {
                s.spawn(move || {
                    let mut passes = 0u64;
                    let mut rng = r + 9;
                    while !done.load(Ordering::Acquire) || passes < 2 {
                        for k in 0..RESIDENT {
                            assert!(f.contains_shared(&k), "pass {passes}: lost {k}");
                            if k % 16 == r {
                                assert!(f.count(&k).may_exceed(0), "count of {k}");
                            }
                            let (l, h) = (lo.load(Ordering::Acquire), hi.load(Ordering::Acquire));
                            if h > l {
                                rng = rng.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
                                let c = l + (rng >> 20) % (h - l);
                                if !f.contains_shared(&c) {
                                    let now = lo.load(Ordering::Acquire);
                                    assert!(now > c, "churn key {c} missing, remove not begun");
                                }
                            }
                        }
                        passes += 1;
                    }
                });
            }
        });
        assert_eq!(filter.len(), (RESIDENT + LIVE) as usize);
        let whole = filter.into_shards().remove(0);
        assert!(whole.tables() > 1, "the shard grew");
        whole.check_invariants();
        assert!((0..RESIDENT).all(|k| whole.contains(&k)));
        assert!((BASE + CHURN - LIVE..BASE + CHURN).all(|k| whole.contains(&k)));
    }
}
