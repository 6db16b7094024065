//! The cuckoo filter's writes ([`Slots`]), for a filter and for a shard of
//! a sharded one alike: inserts, removes, and placing a fingerprint whose
//! two buckets are full (one step of breadth-first search, then a random
//! walk of kicks, then the one-entry victim stash).

use approxset_core::format::Words;
use approxset_core::hash::splitmix64;
use approxset_core::{Digest, Error, HashKey, Result};

use crate::bucket::{self, alternate};
use crate::table::{SLOTS, SetWords, Table, Width};

/// Most kicks (displacements) one insertion makes before it gives up and
/// stashes the fingerprint it holds, as in the reference implementation.
pub const MAX_KICKS: u32 = 500;

/// The displaced fingerprint of a kick chain that ran out of kicks, with one
/// of its two buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Victim {
    pub(crate) fp: u64,
    pub(crate) bucket: usize,
}

/// A small xorshift generator that picks the slot to kick; its state is
/// saved with the filter.
#[derive(Clone, Copy)]
pub(crate) struct Xorshift(pub(crate) u64);

impl std::fmt::Debug for Xorshift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Xorshift")
    }
}

impl Xorshift {
    /// The generator a filter with `key` starts with.
    pub(crate) fn from_key(key: HashKey) -> Self {
        let (k0, k1) = key.to_parts();
        // Any nonzero state will do; mix so the kicks of filters with related
        // keys are unrelated.
        Xorshift(splitmix64(&mut (k0 ^ k1.rotate_left(32))) | 1)
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

/// Whether `victim` holds `fp` for buckets `i1`/`i2`.
#[inline(always)]
pub(crate) fn stash_holds(victim: Option<Victim>, fp: u64, i1: usize, i2: usize) -> bool {
    victim.is_some_and(|v| v.fp == fp && (v.bucket == i1 || v.bucket == i2))
}

/// The copies of a digest's fingerprint in its two buckets of `table`
/// and the stash, with the fingerprint, its buckets and their contents.
#[inline(always)]
pub(crate) fn copies_in<W: Width, S: Words>(
    table: &Table<S>,
    victim: Option<Victim>,
    digest: Digest,
) -> (u32, u64, [(usize, W::Bucket); 2]) {
    let (fp, i1, i2) = bucket::locate::<W>(digest, table.buckets());
    debug_assert_ne!(i1, i2);
    let b1 = table.bucket::<W>(i1);
    let b2 = table.bucket::<W>(i2);
    let held = stash_holds(victim, fp, i1, i2);
    let copies = W::count(W::matching(b1, fp)) + W::count(W::matching(b2, fp));
    (copies + u32::from(held), fp, [(i1, b1), (i2, b2)])
}

/// The stash as the words' hooks take it: fingerprint (0: empty), bucket.
#[inline(always)]
fn stash_parts(victim: Option<Victim>) -> (u64, usize) {
    victim.map_or((0, 0), |v| (v.fp, v.bucket))
}

/// What an insert or a remove changes: the table, the stash, the kick
/// generator and the count, of a filter (`Vec<u64>` words) or of a
/// shard whose lock is held (atomic words). The one home of the cuckoo
/// filter's writes.
pub(crate) struct Slots<'a, S> {
    pub(crate) table: &'a mut Table<S>,
    pub(crate) victim: &'a mut Option<Victim>,
    pub(crate) rng: &'a mut Xorshift,
    pub(crate) len: &'a mut usize,
}

impl<S: SetWords> Slots<'_, S> {
    /// Inserts `digest`; see [`CuckooFilter::insert_digest`].
    #[inline(always)]
    pub(crate) fn insert<W: Width>(&mut self, digest: Digest) -> Result<bool> {
        let (copies, fp, [(i1, b1), (i2, b2)]) =
            copies_in::<W, S>(self.table, *self.victim, digest);
        let copies = copies as usize;
        if copies >= 2 * SLOTS {
            return Err(Error::TooManyCopies { limit: 2 * SLOTS });
        }
        if self.victim.is_some() {
            return Err(Error::Full { items: *self.len });
        }
        let fresh = copies == 0;
        if !self.table.put_free::<W>(i1, b1, fp) && !self.table.put_free::<W>(i2, b2, fp) {
            self.table.words_mut().begin_moves();
            self.displace::<W>(fp, i1, i2);
            let (sfp, sbucket) = stash_parts(*self.victim);
            self.table.words_mut().end_moves(sfp, sbucket);
        }
        *self.len += 1;
        Ok(fresh)
    }

    /// Removes one copy of `digest`; see [`CuckooFilter::remove_digest`].
    #[inline(always)]
    pub(crate) fn remove<W: Width>(&mut self, digest: Digest) -> bool {
        let (fp, i1, i2) = bucket::locate::<W>(digest, self.table.buckets());
        let mut removed = false;
        for i in [i1, i2] {
            let b = self.table.bucket::<W>(i);
            let m = W::matching(b, fp);
            if m != W::ZERO {
                self.table.set_bucket::<W>(i, W::with(b, W::first(m), 0));
                removed = true;
                break;
            }
        }
        if removed {
            *self.len -= 1;
            // A slot is free now: try to move the stashed victim back, so
            // that inserts work again.
            if let Some(v) = self.victim.take() {
                self.table.words_mut().begin_moves();
                self.place::<W>(v.fp, v.bucket);
                let (sfp, sbucket) = stash_parts(*self.victim);
                self.table.words_mut().end_moves(sfp, sbucket);
            }
            true
        } else if stash_holds(*self.victim, fp, i1, i2) {
            self.table.words_mut().begin_moves();
            *self.victim = None;
            self.table.words_mut().end_moves(0, 0);
            *self.len -= 1;
            true
        } else {
            false
        }
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
    fn displace<W: Width>(&mut self, fp: u64, i1: usize, i2: usize) {
        let buckets = self.table.buckets();
        let (b1, b2) = (self.table.bucket::<W>(i1), self.table.bucket::<W>(i2));
        let mut targets = [0usize; 2 * SLOTS];
        for lane in 0..SLOTS as u32 {
            targets[lane as usize] = alternate(i1, W::get(b1, lane), buckets);
            targets[SLOTS + lane as usize] = alternate(i2, W::get(b2, lane), buckets);
        }
        let contents = targets.map(|t| self.table.bucket::<W>(t));
        for (k, (&target, &content)) in targets.iter().zip(&contents).enumerate() {
            let (from, b) = if k < SLOTS { (i1, b1) } else { (i2, b2) };
            let lane = (k % SLOTS) as u32;
            if self.table.put_free::<W>(target, content, W::get(b, lane)) {
                self.table.set_bucket::<W>(from, W::with(b, lane, fp));
                return;
            }
        }
        let start = if self.rng.next() >> 63 == 0 { i1 } else { i2 };
        self.kick::<W>(fp, start);
    }

    /// Places `fp`, whose buckets are full, starting by kicking a random
    /// fingerprint out of `bucket`. After [`MAX_KICKS`] kicks, the
    /// fingerprint left over goes to the stash, which must be free.
    #[cold]
    #[inline(never)]
    fn kick<W: Width>(&mut self, mut fp: u64, mut bucket: usize) {
        debug_assert!(self.victim.is_none());
        let buckets = self.table.buckets();
        for _ in 0..MAX_KICKS {
            let lane = (self.rng.next() >> 62) as u32;
            let b = self.table.bucket::<W>(bucket);
            let out = W::get(b, lane);
            self.table.set_bucket::<W>(bucket, W::with(b, lane, fp));
            fp = out;
            bucket = alternate(bucket, fp, buckets);
            let b = self.table.bucket::<W>(bucket);
            if self.table.put_free::<W>(bucket, b, fp) {
                return;
            }
        }
        *self.victim = Some(Victim { fp, bucket });
    }

    /// Places `fp` (known to belong to `bucket` and its alternate) into a
    /// free slot of either bucket or by kicking; the stash must be free.
    fn place<W: Width>(&mut self, fp: u64, bucket: usize) {
        let other = alternate(bucket, fp, self.table.buckets());
        for i in [bucket, other] {
            let b = self.table.bucket::<W>(i);
            if self.table.put_free::<W>(i, b, fp) {
                return;
            }
        }
        self.displace::<W>(fp, bucket, other);
    }
}
