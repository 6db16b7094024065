//! A deletable filter that threads share: [`Sharded`], S filters each
//! behind its own lock, the key's shard chosen from its digest.
//!
//! The design, the shard choice and the measurements that chose it over
//! lock-free counters are in `docs/design.md`, "Deletion from many threads".

use std::any::Any;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::concurrent::{ConcurrentApproxSet, ConcurrentDeletable};
use crate::error::{Error, Result};
use crate::hash::{Digest, HashKey, mix64};
use crate::outcome::{Count, Removal};
use crate::traits::{ApproxSet, Deletable, Membership};
use crate::value::Value;

/// The most shards a [`Sharded`] filter has: far more than the threads of
/// any machine it is meant for, few enough that the shards' sizing slack
/// stays small.
pub const MAX_SHARDS: usize = 1024;

/// The probability, for `n` distinct keys, that any shard of a filter sized
/// by [`shard_capacity`] receives more keys than it was sized for.
pub const SHARD_OVERFLOW: f64 = 1e-9;

/// The shards for `threads` threads: the power of two at or above four per
/// thread (two threads: 8), so that two threads meet on one lock about once
/// in S operations; at most [`MAX_SHARDS`].
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sharded::shards_for;
/// assert_eq!((shards_for(1), shards_for(2), shards_for(3)), (4, 8, 16));
/// ```
pub fn shards_for(threads: usize) -> usize {
    threads
        .clamp(1, MAX_SHARDS / 4)
        .saturating_mul(4)
        .next_power_of_two()
        .min(MAX_SHARDS)
}

/// The most memory, as a share of the items, that [`shards_for_items`]
/// spends on shards beyond [`shards_for`]: what the shards' sizing slack
/// ([`shard_capacity`]) costs 2 threads at 10⁶ items (8 shards, 1.8 %).
pub const SHARD_SLACK: f64 = 0.02;

/// The shards for `threads` threads sharing a filter of `expected_items`:
/// [`shards_for`]`(threads)`, doubled while the shards' capacities together
/// stay within [`SHARD_SLACK`] (2 %) of the items; at most [`MAX_SHARDS`].
///
/// Writers that meet on one shard's lock wait for each other, and a write
/// holds its lock while the lines it writes arrive from another core, so
/// more shards than threads pay wherever they cost little memory: with many
/// items (2 threads at 10⁷ items: 64 shards, 1.8 % over the items;
/// measured in `docs/design.md`, "Deletion from many threads").
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sharded::shards_for_items;
/// assert_eq!(shards_for_items(2, 1_000_000), 8);
/// assert_eq!(shards_for_items(2, 10_000_000), 64);
/// assert_eq!(shards_for_items(2, 10), 8);
/// ```
pub fn shards_for_items(threads: usize, expected_items: usize) -> usize {
    let mut shards = shards_for(threads);
    if expected_items == 0 {
        return shards;
    }
    let budget = expected_items as f64 * (1.0 + SHARD_SLACK);
    while shards < MAX_SHARDS {
        let more = shards * 2;
        if shard_capacity(expected_items, more) as f64 * more as f64 > budget {
            break;
        }
        shards = more;
    }
    shards
}

/// The items each of `shards` shards is sized for, so that `expected_items`
/// distinct keys overfill none of them but with probability at most
/// [`SHARD_OVERFLOW`]: their mean share plus a Bernstein tail bound, and
/// never more than `expected_items` (derivation in `docs/design.md`).
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sharded::shard_capacity;
/// assert_eq!(shard_capacity(10, 8), 10); // tiny: every key may meet in one shard
/// let c = shard_capacity(1_000_000, 8);
/// assert!(c > 125_000 && c < 128_000); // under 2 % more than the mean
/// ```
pub fn shard_capacity(expected_items: usize, shards: usize) -> usize {
    if shards <= 1 {
        return expected_items;
    }
    let n = expected_items as f64;
    let q = 1.0 / shards as f64;
    let mean = n * q;
    let variance = mean * (1.0 - q);
    // P(X - mean >= t) <= exp(-t^2 / (2 (variance + t/3))), one shard; a
    // union over the shards: log(S / overflow).
    let l = (shards as f64 / SHARD_OVERFLOW).ln();
    let t = l / 3.0 + (l * l / 9.0 + 2.0 * l * variance).sqrt();
    let bound = (mean + t).ceil();
    if bound >= n {
        expected_items
    } else {
        // mean + t < n, so it fits.
        bound as usize
    }
}

/// A deletable filter that a [`Sharded`] filter holds so that lookups take
/// no lock: the filter split into its storage in atomic words
/// ([`Shared`](Self::Shared)), which lookups read through `&self` while
/// the holder of the shard's lock changes it, and what only that holder
/// reads and changes ([`Local`](Self::Local): counts, a kick generator).
///
/// An implementation promises that a lookup never misses a key whose
/// insert returned before the lookup began and whose remove has not begun,
/// whatever the one writer does meanwhile (with atomic loads alone where
/// entries never move, as the counting filter's counters; with a version
/// check where they move, as the cuckoo filter's kicks), and that every
/// write runs with `local` from the shard's lock, so writes on one shard
/// come one at a time. The design is in `docs/design.md`, "Deletion from
/// many threads"; an example, the [type's](Sharded).
pub trait ShardFilter: Deletable + Send + Sized + 'static {
    /// The filter's storage and parameters as threads share them.
    type Shared: Send + Sync + 'static;
    /// What only the holder of the shard's lock reads and changes.
    type Local: Send + 'static;

    /// The filter split for sharing.
    fn share(self) -> (Self::Shared, Self::Local);
    /// A copy of the filter as it stands (the shard's lock held).
    fn unshare(shared: &Self::Shared, local: &Self::Local) -> Self;
    /// Whether `digest` may be present: no lock taken, nothing written.
    fn contains_shared(shared: &Self::Shared, digest: Digest) -> bool;
    /// [`Deletable::count_digest`]: no lock taken, nothing written.
    fn count_shared(shared: &Self::Shared, digest: Digest) -> Count;
    /// [`ApproxSet::insert_digest`], the shard's lock held.
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digest`], and then nothing changes.
    fn insert_locked(
        shared: &Self::Shared,
        local: &mut Self::Local,
        digest: Digest,
    ) -> Result<bool>;
    /// [`ApproxSet::insert_digest_if_absent`], the shard's lock held: by
    /// default a lookup, then an insert when it says absent, one step as
    /// no other write on the shard comes between them.
    ///
    /// # Errors
    /// As [`insert_locked`](Self::insert_locked).
    fn insert_if_absent_locked(
        shared: &Self::Shared,
        local: &mut Self::Local,
        digest: Digest,
    ) -> Result<bool> {
        if Self::contains_shared(shared, digest) {
            Ok(false)
        } else {
            Self::insert_locked(shared, local, digest)
        }
    }
    /// [`Deletable::remove_digest`], the shard's lock held.
    fn remove_locked(shared: &Self::Shared, local: &mut Self::Local, digest: Digest) -> Removal;
    /// [`ApproxSet::clear`], with no other thread using the filter.
    fn clear_locked(shared: &mut Self::Shared, local: &mut Self::Local);
    /// [`Membership::len`], the shard's lock held.
    fn len_locked(shared: &Self::Shared, local: &Self::Local) -> usize;
}

/// Aligns its content on 128 bytes of its own (two cache lines, against
/// the adjacent-line prefetcher), so that what writers change and what
/// readers read never share a line.
#[repr(align(128))]
struct Line<T>(T);

/// One shard: what the writers change under its lock, on lines of its
/// own, and the storage the readers read without it.
struct Shard<F: ShardFilter> {
    lock: Line<Mutex<F::Local>>,
    shared: Line<F::Shared>,
}

impl<F: ShardFilter> Shard<F> {
    fn new(filter: F) -> Self {
        let (shared, local) = filter.share();
        Shard {
            lock: Line(Mutex::new(local)),
            shared: Line(shared),
        }
    }

    /// The lock's state, whether or not a thread panicked while it held
    /// it: every filter operation leaves its filter whole or unchanged
    /// before it can panic, so the lock's poison carries no meaning here.
    #[inline]
    fn lock(&self) -> MutexGuard<'_, F::Local> {
        self.lock.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state and the storage through `&mut self`: no lock taken.
    #[inline]
    fn get_mut(&mut self) -> (&mut F::Shared, &mut F::Local) {
        (
            &mut self.shared.0,
            self.lock
                .0
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// A copy of the shard's filter, read under its lock.
    fn filter(&self) -> F {
        F::unshare(&self.shared.0, &self.lock())
    }
}

/// S filters of one kind that many threads insert into, remove from and
/// query at once through `&self`; the key's shard is chosen from a strong
/// mix of its whole digest. Lookups and counts take no lock and write
/// nothing; inserts and removes take their shard's lock.
///
/// It is a [`ConcurrentApproxSet`] (and a [`ConcurrentDeletable`]), and
/// through `&mut self` an ordinary [`Deletable`] that takes no lock. A key
/// whose insert returned `Ok` is found until a remove of it begins.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::prelude::*;
/// use approxset::{Result, Sharded};
/// # use approxset_core::{Count, Digest, HashKey, Removal, sharded::ShardFilter};
/// # use std::sync::Mutex;
/// # use std::collections::HashMap;
/// # #[derive(Debug, Default)]
/// # struct Exact(HashMap<u128, usize>);
/// # impl approxset_core::Membership for Exact {
/// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains_key(&d.to_u128()) }
/// #     fn hash_key(&self) -> HashKey { HashKey::from_seed(7) }
/// #     fn len(&self) -> usize { self.0.values().sum() }
/// #     fn capacity(&self) -> usize { usize::MAX }
/// #     fn fp_rate(&self) -> f64 { 0.0 }
/// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
/// #     fn memory_bytes(&self) -> usize { self.0.len() * 24 }
/// #     fn variant(&self) -> &'static str { "exact" }
/// # }
/// # impl approxset_core::ApproxSet for Exact {
/// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> {
/// #         let c = self.0.entry(d.to_u128()).or_default(); *c += 1; Ok(*c == 1)
/// #     }
/// #     fn clear(&mut self) { self.0.clear() }
/// # }
/// # impl approxset_core::Deletable for Exact {
/// #     fn remove_digest(&mut self, d: Digest) -> Removal {
/// #         match self.0.get_mut(&d.to_u128()) {
/// #             None => Removal::Absent,
/// #             Some(c) => { *c -= 1; if *c == 0 { self.0.remove(&d.to_u128()); } Removal::Removed }
/// #         }
/// #     }
/// #     fn count_digest(&self, d: Digest) -> Count {
/// #         Count::AtMost(self.0.get(&d.to_u128()).map_or(0, |&c| c as u32))
/// #     }
/// # }
/// # // A toy: its lookups lock, where the real filters' read atomics.
/// # impl ShardFilter for Exact {
/// #     type Shared = Mutex<Exact>;
/// #     type Local = ();
/// #     fn share(self) -> (Mutex<Exact>, ()) { (Mutex::new(self), ()) }
/// #     fn unshare(s: &Mutex<Exact>, _: &()) -> Exact { Exact(s.lock().unwrap().0.clone()) }
/// #     fn contains_shared(s: &Mutex<Exact>, d: Digest) -> bool { s.lock().unwrap().contains_digest(d) }
/// #     fn count_shared(s: &Mutex<Exact>, d: Digest) -> Count { s.lock().unwrap().count_digest(d) }
/// #     fn insert_locked(s: &Mutex<Exact>, _: &mut (), d: Digest) -> Result<bool> { s.lock().unwrap().insert_digest(d) }
/// #     fn remove_locked(s: &Mutex<Exact>, _: &mut (), d: Digest) -> Removal { s.lock().unwrap().remove_digest(d) }
/// #     fn clear_locked(s: &mut Mutex<Exact>, _: &mut ()) { s.get_mut().unwrap().clear() }
/// #     fn len_locked(s: &Mutex<Exact>, _: &()) -> usize { s.lock().unwrap().len() }
/// # }
/// // Eight shards, each sized for its share of 1000 keys.
/// let set: Sharded<Exact> = Sharded::build(1_000, 8, |_capacity| Ok(Exact::default()))?;
/// std::thread::scope(|s| -> Result<()> {
///     let alice = s.spawn(|| set.insert_shared("alice"));
///     set.insert_shared("bob")?;
///     alice.join().expect("no panic")?;
///     Ok(())
/// })?;
/// assert!(set.contains("alice") && set.contains("bob"));
/// assert!(set.remove_shared("alice").is_removed());
/// # Ok::<(), approxset_core::Error>(())
/// ```
pub struct Sharded<F: ShardFilter> {
    shards: Box<[Shard<F>]>,
    /// Shards - 1: the shard of a mixed digest is its low bits.
    mask: usize,
    key: HashKey,
    capacity: usize,
    shard_capacity: usize,
    fp_rate: f64,
    variant: &'static str,
}

impl<F: ShardFilter> Sharded<F> {
    /// `shards` filters, each made by `shard(capacity)` for its share of
    /// `expected_items` ([`shard_capacity`]); `make` must give them all one
    /// hash key (build them with one seed). Example: the [type's](Sharded);
    /// `approxset::Variant::…builder().shared(threads)` builds the counting
    /// and cuckoo ones.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `expected_items` = 0 or `shards`
    /// not a power of two in 1..=[`MAX_SHARDS`];
    /// [`Error::Incompatible`] when the shards differ in hash key or rate;
    /// any error of `shard`.
    pub fn build(
        expected_items: usize,
        shards: usize,
        mut shard: impl FnMut(usize) -> Result<F>,
    ) -> Result<Self> {
        if expected_items == 0 {
            return Err(Error::InvalidParameter {
                name: "expected_items",
                reason: "must be at least 1".into(),
            });
        }
        if !shards.is_power_of_two() || shards > MAX_SHARDS {
            return Err(Error::InvalidParameter {
                name: "shards",
                reason: format!("must be a power of two from 1 to {MAX_SHARDS}, not {shards}"),
            });
        }
        let shard_capacity = shard_capacity(expected_items, shards);
        let mut filters = Vec::with_capacity(shards);
        for _ in 0..shards {
            filters.push(shard(shard_capacity)?);
        }
        let (key, fp_rate, variant) = (
            filters[0].hash_key(),
            filters[0].fp_rate(),
            filters[0].variant(),
        );
        for (i, f) in filters.iter().enumerate() {
            if f.hash_key() != key {
                return Err(Error::Incompatible {
                    parameter: "hash key",
                    detail: format!("shard {i} has another hash key than shard 0"),
                });
            }
            if f.fp_rate() != fp_rate || f.variant() != variant {
                return Err(Error::Incompatible {
                    parameter: "shards",
                    detail: format!(
                        "shard {i} is a {} filter at {}, shard 0 a {variant} filter at {fp_rate}",
                        f.variant(),
                        f.fp_rate()
                    ),
                });
            }
        }
        Ok(Sharded {
            shards: filters.into_iter().map(Shard::new).collect(),
            mask: shards - 1,
            key,
            capacity: expected_items,
            shard_capacity,
            fp_rate,
            variant,
        })
    }
}

impl<F: ShardFilter> Sharded<F> {
    /// The number of shards, a power of two.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The items each shard was sized for.
    pub fn shard_capacity(&self) -> usize {
        self.shard_capacity
    }

    /// The shard filters, in shard order.
    pub fn into_shards(self) -> Vec<F> {
        self.shards
            .into_vec()
            .into_iter()
            .map(|mut s| {
                let (shared, local) = s.get_mut();
                F::unshare(shared, local)
            })
            .collect()
    }

    /// The index of the shard of `digest`: the low bits of a mix of both
    /// halves, so that it is independent of the bits the shard's filter
    /// takes its positions and fingerprints from (each a plain function of
    /// `h1` or `h2`).
    #[inline]
    fn shard_index(&self, digest: Digest) -> usize {
        let mixed = mix64(digest.h1() ^ mix64(digest.h2() ^ SHARD_SALT));
        (mixed as usize) & self.mask
    }

    /// The shard of `digest`.
    #[inline]
    fn shard(&self, digest: Digest) -> &Shard<F> {
        &self.shards[self.shard_index(digest)]
    }

    /// Runs `write` on the shard of `digest`, under its lock.
    #[inline]
    fn write<T>(&self, digest: Digest, write: impl FnOnce(&F::Shared, &mut F::Local) -> T) -> T {
        let shard = self.shard(digest);
        write(&shard.shared.0, &mut shard.lock())
    }

    /// Runs `write` on the shard of `digest`, through `&mut self`: no lock
    /// taken.
    #[inline]
    fn write_mut<T>(
        &mut self,
        digest: Digest,
        write: impl FnOnce(&F::Shared, &mut F::Local) -> T,
    ) -> T {
        let i = self.shard_index(digest);
        let (shared, local) = self.shards[i].get_mut();
        write(shared, local)
    }

    /// A copy of each shard's filter in turn, each read under its lock.
    fn each<'a, T>(&'a self, mut f: impl FnMut(&F) -> T + 'a) -> impl Iterator<Item = T> + 'a {
        self.shards.iter().map(move |s| f(&s.filter()))
    }
}

/// Salts `h2` before it is mixed, so that the shard choice is no simple
/// function of a mix some other part of a filter may use.
const SHARD_SALT: u64 = 0x5BD1_E995_C2B2_AE35;

impl<F: ShardFilter> fmt::Debug for Sharded<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sharded")
            .field("variant", &self.variant)
            .field("shards", &self.shards.len())
            .field("capacity", &self.capacity)
            .field("shard_capacity", &self.shard_capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

impl<F: ShardFilter> Clone for Sharded<F> {
    fn clone(&self) -> Self {
        Sharded {
            shards: self.shards.iter().map(|s| Shard::new(s.filter())).collect(),
            mask: self.mask,
            key: self.key,
            capacity: self.capacity,
            shard_capacity: self.shard_capacity,
            fp_rate: self.fp_rate,
            variant: self.variant,
        }
    }
}

impl<F: ShardFilter> Membership for Sharded<F> {
    #[inline]
    fn contains_digest(&self, digest: Digest) -> bool {
        F::contains_shared(&self.shard(digest).shared.0, digest)
    }

    fn hash_key(&self) -> HashKey {
        self.key
    }

    /// The sum of the shards' counts, each read under its lock in turn (not
    /// one snapshot while other threads insert).
    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| F::len_locked(&s.shared.0, &s.lock()))
            .sum()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn fp_rate(&self) -> f64 {
        self.fp_rate
    }

    /// The mean of the shards' estimates: a key absent from the filter
    /// falls in each shard alike.
    fn estimated_fp_rate(&self) -> f64 {
        self.each(|f| f.estimated_fp_rate()).sum::<f64>() / self.shards.len() as f64
    }

    fn estimated_items(&self) -> f64 {
        self.each(|f| f.estimated_items()).sum()
    }

    /// The shards' storage, read from a copy of each.
    fn memory_bytes(&self) -> usize {
        self.each(|f| f.memory_bytes()).sum()
    }

    /// The shards' variant.
    fn variant(&self) -> &'static str {
        self.variant
    }

    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("shards", self.shards.len().into()),
            ("shard_capacity", self.shard_capacity.into()),
        ]
    }

    /// # Errors
    /// Always [`Error::Unsupported`]: a sharded filter has no saved form of
    /// its own; save each of [`into_shards`](Sharded::into_shards).
    fn to_bytes(&self) -> Result<Vec<u8>> {
        Err(Error::Unsupported {
            operation: "serialization when sharded",
            variant: self.variant,
        })
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    fn as_approx_set(&self) -> Option<&dyn ApproxSet> {
        Some(self)
    }

    fn as_approx_set_mut(&mut self) -> Option<&mut dyn ApproxSet> {
        Some(self)
    }
}

impl<F: ShardFilter> ApproxSet for Sharded<F> {
    #[inline]
    fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        self.write_mut(digest, |s, l| F::insert_locked(s, l, digest))
    }

    #[inline]
    fn insert_digest_if_absent(&mut self, digest: Digest) -> Result<bool> {
        self.write_mut(digest, |s, l| F::insert_if_absent_locked(s, l, digest))
    }

    fn clear(&mut self) {
        for s in self.shards.iter_mut() {
            let (shared, local) = s.get_mut();
            F::clear_locked(shared, local);
        }
    }

    fn as_deletable(&self) -> Option<&dyn Deletable> {
        Some(self)
    }

    fn as_deletable_mut(&mut self) -> Option<&mut dyn Deletable> {
        Some(self)
    }
}

impl<F: ShardFilter> ConcurrentApproxSet for Sharded<F> {
    #[inline]
    fn insert_digest_shared(&self, digest: Digest) -> Result<bool> {
        self.write(digest, |s, l| F::insert_locked(s, l, digest))
    }
}

impl<F: ShardFilter> Deletable for Sharded<F> {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> Removal {
        self.write_mut(digest, |s, l| F::remove_locked(s, l, digest))
    }

    /// The key's shard's count, read without a lock.
    #[inline]
    fn count_digest(&self, digest: Digest) -> Count {
        F::count_shared(&self.shard(digest).shared.0, digest)
    }
}

impl<F: ShardFilter> ConcurrentDeletable for Sharded<F> {
    #[inline]
    fn remove_digest_shared(&self, digest: Digest) -> Removal {
        self.write(digest, |s, l| F::remove_locked(s, l, digest))
    }

    #[inline]
    fn insert_digest_if_absent_shared(&self, digest: Digest) -> Result<bool> {
        self.write(digest, |s, l| F::insert_if_absent_locked(s, l, digest))
    }
}
