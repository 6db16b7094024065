//! Placing a fingerprint whose two buckets are full: one step of
//! breadth-first search, then a random walk of kicks, then the one-entry
//! victim stash.

use approxset_core::HashKey;
use approxset_core::hash::splitmix64;

use crate::CuckooFilter;
use crate::bucket::alternate;
use crate::table::{SLOTS, Width};

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

impl CuckooFilter {
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
    pub(crate) fn displace<W: Width>(&mut self, fp: u64, i1: usize, i2: usize) {
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
        self.victim = Some(Victim { fp, bucket });
    }

    /// Places `fp` (known to belong to `bucket` and its alternate) into a
    /// free slot of either bucket or by kicking; the stash must be free.
    pub(crate) fn place<W: Width>(&mut self, fp: u64, bucket: usize) {
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
