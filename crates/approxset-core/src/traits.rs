//! The filter traits: the read-only [`Membership`], the insertable
//! [`ApproxSet`] and [`Deletable`], all object safe, and their generic
//! extensions [`MembershipExt`](crate::MembershipExt), [`ApproxSetExt`](crate::ApproxSetExt) and [`DeletableExt`](crate::DeletableExt).
//!
//! This follows `rand`'s `RngCore`/`Rng` split. Implementors write the small
//! digest-level traits; the generic methods (`contains<K: Key>`, `insert`,
//! the byte-string path) come from blanket extensions implemented for every
//! `S: Membership + ?Sized` (or `ApproxSet`), trait objects included. The
//! same generic methods are also inherent on the trait-object types
//! (`dyn Membership`, `dyn ApproxSet + Send + Sync`, …), so a boxed filter
//! is usable with only its trait in scope. Generic code imports them all
//! with `use approxset::prelude::*;`.

use std::any::Any;
use std::fmt;

use crate::error::{Error, Result};
use crate::hash::{Digest, HashKey};
use crate::outcome::{Count, Removal};
use crate::value::Value;

/// The read side of an approximate-membership filter: "is this key possibly
/// in the set?", and what the filter is.
///
/// A filter answers `contains` with `false` only for keys that were never
/// inserted (or, for a [`Deletable`] filter, removed as often as inserted):
/// it has **no false negatives**. It may answer `true` for a key that was
/// never inserted, a false positive, at about the rate it was built for.
///
/// Every filter implements it, static ones (built once from their keys)
/// included; the filters that take inserts also implement [`ApproxSet`]. It
/// is object safe and works on precomputed [`Digest`]s; the generic methods
/// are in [`MembershipExt`](crate::MembershipExt) and inherent on `dyn Membership` (with or
/// without `Send`/`Sync`). Generic code gets every extension trait with
/// `use approxset::prelude::*;`.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::prelude::*;
/// # use approxset_core::{Digest, HashKey, Result};
/// # #[derive(Debug, Default)]
/// # struct Exact(std::collections::HashSet<u128>, HashKey);
/// # impl approxset_core::Membership for Exact {
/// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains(&d.to_u128()) }
/// #     fn hash_key(&self) -> HashKey { self.1 }
/// #     fn len(&self) -> usize { self.0.len() }
/// #     fn capacity(&self) -> usize { usize::MAX }
/// #     fn fp_rate(&self) -> f64 { 0.0 }
/// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
/// #     fn memory_bytes(&self) -> usize { self.0.len() * 16 }
/// #     fn variant(&self) -> &'static str { "exact" }
/// # }
/// # impl approxset_core::ApproxSet for Exact {
/// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> { Ok(self.0.insert(d.to_u128())) }
/// #     fn clear(&mut self) { self.0.clear() }
/// # }
/// fn known(set: &dyn Membership, words: &[&str]) -> usize {
///     words.iter().filter(|w| set.contains(*w)).count()
/// }
/// let mut set = Exact::default();
/// set.insert("alice")?;
/// assert_eq!(known(&set, &["alice", "bob"]), 1);
/// # Ok::<(), approxset_core::Error>(())
/// ```
///
/// Insertion is not part of it, whatever is in scope:
///
/// ```compile_fail,E0599
/// use approxset_core::prelude::*;
/// fn add(set: &mut dyn Membership) {
///     set.insert("alice");
/// }
/// ```
pub trait Membership: fmt::Debug {
    /// Whether the key whose digest is `digest` may be in the set (`false`
    /// means certainly not).
    fn contains_digest(&self, digest: Digest) -> bool;

    /// Answers [`contains_digest`](Self::contains_digest) for every digest:
    /// `out` is cleared, then gets one answer per digest, in order.
    ///
    /// The default is a loop; the Bloom filters override it to probe a
    /// chunk of keys together so that their cache misses overlap (see
    /// `docs/design.md`, "Batched lookups").
    ///
    /// ```
    /// # extern crate approxset_core as approxset;
    /// use approxset::prelude::*;
    /// # use approxset_core::{Digest, HashKey, Result};
    /// # #[derive(Debug, Default)]
    /// # struct Exact(std::collections::HashSet<u128>, HashKey);
    /// # impl approxset_core::Membership for Exact {
    /// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains(&d.to_u128()) }
    /// #     fn hash_key(&self) -> HashKey { self.1 }
    /// #     fn len(&self) -> usize { self.0.len() }
    /// #     fn capacity(&self) -> usize { usize::MAX }
    /// #     fn fp_rate(&self) -> f64 { 0.0 }
    /// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
    /// #     fn memory_bytes(&self) -> usize { self.0.len() * 16 }
    /// #     fn variant(&self) -> &'static str { "exact" }
    /// # }
    /// # impl approxset_core::ApproxSet for Exact {
    /// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> { Ok(self.0.insert(d.to_u128())) }
    /// #     fn clear(&mut self) { self.0.clear() }
    /// # }
    /// let mut set = Exact::default();
    /// set.insert("alice")?;
    /// let digests = [set.digest("alice"), set.digest("bob")];
    /// let mut out = vec![true; 5];
    /// set.contains_digests(&digests, &mut out);
    /// assert_eq!(out, [true, false]);
    /// # Ok::<(), approxset_core::Error>(())
    /// ```
    fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
        out.clear();
        out.extend(digests.iter().map(|&digest| self.contains_digest(digest)));
    }

    /// The 128-bit key this filter hashes items with.
    fn hash_key(&self) -> HashKey;

    /// The number of inserts accepted, less the removes that succeeded.
    ///
    /// This is the one meaning of `len` for every variant: each `Ok` of an
    /// `insert*` call counts once, a repeated key included (inserting the
    /// same key twice gives 2), and each `remove*` that returns `true`
    /// takes one away. After a [`union_dyn`](ApproxSet::union_dyn) it is
    /// the sum of both counts, after an
    /// [`intersect_dyn`](ApproxSet::intersect_dyn) the smaller one. A
    /// static filter counts the distinct keys it was built from. For the number of
    /// distinct items use [`estimated_items`](Self::estimated_items).
    fn len(&self) -> usize;

    /// Whether no item was inserted (or all were removed).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of items the filter was sized for (a static filter: the
    /// keys it was built from).
    ///
    /// It is on the read side because every filter has one and the rates
    /// below are stated at it; only [`ApproxSet::is_overfilled`], which asks
    /// whether inserts went past it, needs inserts.
    fn capacity(&self) -> usize;

    /// The false-positive rate the filter was built for, at `capacity` items.
    fn fp_rate(&self) -> f64;

    /// The false-positive rate estimated from the filter's current fill,
    /// with the layout's own formula (the blocked and split-block filters'
    /// Poisson mixtures over block loads, the cuckoo table's rate at its
    /// load, …).
    fn estimated_fp_rate(&self) -> f64;

    /// The number of distinct items the filter holds, estimated from its
    /// content; unlike [`len`](Self::len), repeats of one key count once.
    ///
    /// The Bloom filters invert their fill (the fraction of bits or
    /// counters set) under their layout's model; the scalable filter sums
    /// its stages' estimates; the cuckoo table, which stores a fingerprint
    /// per accepted insert, returns the fingerprints it holds (its `len`).
    /// Infinite when every bit is set. The default is `len`, for
    /// third-party filters.
    fn estimated_items(&self) -> f64 {
        self.len() as f64
    }

    /// Bytes of filter data (bits, counters or slots), not counting the
    /// fixed-size struct around them.
    fn memory_bytes(&self) -> usize;

    /// The variant's lowercase name (`"classic"`, `"partitioned"`, …), as
    /// `approxset::Variant` displays it. Third-party filters return their own.
    fn variant(&self) -> &'static str;

    /// The variant's own parameters by name (bits and `k`, fingerprint
    /// width and buckets, stages, …), for tools such as `approxset info`.
    /// Empty by default, for third-party filters.
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// The filter in the versioned binary [format](crate::format), readable
    /// back with `approxset::load_membership` (and `approxset::load` when
    /// it takes inserts).
    ///
    /// # Errors
    /// [`Error::Unsupported`](crate::Error::Unsupported) from filters that
    /// have no serialized form (the default, for third-party filters); every
    /// approxset filter implements it.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        Err(Error::Unsupported {
            operation: "serialization",
            variant: self.variant(),
        })
    }

    /// Writes [`to_bytes`](Self::to_bytes) to `sink`. The large flat
    /// filters (the Bloom family, counting, cuckoo) write page by page
    /// without a copy of themselves ([`format::write_streamed`](crate::format::write_streamed)),
    /// so saving a filter of `S` bytes takes `S` plus a page table of
    /// `S / 512` bytes, not `2S`; the default writes `to_bytes`.
    ///
    /// # Errors
    /// As [`to_bytes`](Self::to_bytes), and [`Error::Io`](crate::Error::Io)
    /// from the sink.
    fn write_into(&self, sink: &mut dyn std::io::Write) -> Result<()> {
        sink.write_all(&self.to_bytes()?)?;
        Ok(())
    }

    /// The filter as [`Any`], for downcasting a trait object to its
    /// concrete type (`f.as_any()?.downcast_ref::<BloomFilter>()`). Every
    /// approxset filter returns `Some` but the views of saved bytes
    /// (`approxset::view`), which borrow them and so are not `'static`:
    /// their concrete type comes from the typed constructor
    /// (`BloomFilter::view`, chosen by [`variant`](Self::variant)). The
    /// default, for third-party filters, is `None`.
    fn as_any(&self) -> Option<&dyn Any> {
        None
    }

    /// The filter as an [`ApproxSet`] when it takes inserts, `None` for a
    /// static filter: the checked conversion from a `dyn Membership` chosen
    /// at run time. Every insertable approxset filter returns `Some`; the
    /// default, for third-party filters, is `None`.
    ///
    /// ```
    /// # use approxset_core::Membership;
    /// fn add(set: &mut dyn Membership, key: &str) -> bool {
    ///     match set.as_approx_set_mut() {
    ///         Some(set) => set.insert(key).is_ok(),
    ///         None => false,
    ///     }
    /// }
    /// # let _ = add;
    /// ```
    fn as_approx_set(&self) -> Option<&dyn ApproxSet> {
        None
    }

    /// The filter as a mutable [`ApproxSet`]; see
    /// [`as_approx_set`](Self::as_approx_set).
    fn as_approx_set_mut(&mut self) -> Option<&mut dyn ApproxSet> {
        None
    }
}

/// An approximate-membership filter that takes inserts: [`Membership`]
/// (its lookups) and `insert`, `clear`, the combining methods.
///
/// The trait is object safe and works on precomputed [`Digest`]s; the
/// generic methods are in [`ApproxSetExt`](crate::ApproxSetExt) (and the lookups in
/// [`MembershipExt`](crate::MembershipExt)), which every `ApproxSet` implements, and are inherent
/// on `dyn ApproxSet` (with or without `Send`/`Sync`). Generic code over
/// `S: ApproxSet` imports both with `use approxset::prelude::*;` (code that
/// imported `ApproxSetExt` alone for `contains` changes that one line).
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::prelude::*;
/// # use approxset_core::{Digest, HashKey, Result};
/// # #[derive(Debug, Default)]
/// # struct Exact(std::collections::HashSet<u128>, HashKey);
/// # impl approxset_core::Membership for Exact {
/// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains(&d.to_u128()) }
/// #     fn hash_key(&self) -> HashKey { self.1 }
/// #     fn len(&self) -> usize { self.0.len() }
/// #     fn capacity(&self) -> usize { usize::MAX }
/// #     fn fp_rate(&self) -> f64 { 0.0 }
/// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
/// #     fn memory_bytes(&self) -> usize { self.0.len() * 16 }
/// #     fn variant(&self) -> &'static str { "exact" }
/// # }
/// # impl approxset_core::ApproxSet for Exact {
/// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> { Ok(self.0.insert(d.to_u128())) }
/// #     fn clear(&mut self) { self.0.clear() }
/// # }
/// fn remember(set: &mut dyn ApproxSet, words: &[&str]) -> Result<(), approxset::Error> {
///     for w in words {
///         set.insert(w)?;
///     }
///     Ok(())
/// }
/// let mut set = Exact::default();
/// remember(&mut set, &["alice", "bob"])?;
/// assert!(set.contains("alice"));
/// # Ok::<(), approxset_core::Error>(())
/// ```
pub trait ApproxSet: Membership {
    /// Inserts the key whose digest is `digest`.
    ///
    /// Returns `Ok(true)` when the filter certainly did not hold the key
    /// before (a bit or counter changed), `Ok(false)` when it may have.
    /// Every `Ok` counts once in [`len`](Membership::len).
    ///
    /// # Errors
    /// The Bloom filters (classic, partitioned, blocked, split-block,
    /// counting, atomic) never fail. The others fail as follows, and then change nothing:
    /// - [`Error::Full`](crate::Error::Full): a variant with bounded room
    ///   (the cuckoo table) has none left;
    /// - [`Error::TooManyCopies`](crate::Error::TooManyCopies): the cuckoo
    ///   table already holds as many copies of the key as it can tell apart;
    /// - [`Error::CannotGrow`](crate::Error::CannotGrow) and
    ///   [`Error::TooLarge`](crate::Error::TooLarge): the scalable filter
    ///   needs a stage it cannot build (its rate or size is out of range, or
    ///   it passes the builder's `max_bytes`);
    /// - [`Error::AllocationFailed`](crate::Error::AllocationFailed): the
    ///   scalable filter's new stage could not be allocated.
    fn insert_digest(&mut self, digest: Digest) -> Result<bool>;

    /// Inserts every digest, in order, as [`insert_digest`](Self::insert_digest)
    /// on each would; the Bloom filters prefetch a chunk's positions first.
    ///
    /// # Errors
    /// As [`insert_digest`](Self::insert_digest): the first error stops the
    /// batch, and the digests before it stay inserted.
    fn insert_digests(&mut self, digests: &[Digest]) -> Result<()> {
        for &digest in digests {
            self.insert_digest(digest)?;
        }
        Ok(())
    }

    /// Inserts the key whose digest is `digest` only when the filter does
    /// not already seem to hold it (RedisBloom's `CF.ADDNX`): `Ok(true)`
    /// when it was inserted, `Ok(false)` when
    /// [`contains_digest`](Membership::contains_digest) was true and nothing
    /// changed.
    ///
    /// This is the way to keep a cuckoo filter from filling with copies of
    /// a key inserted again and again (each `insert` stores one more, up to
    /// eight). The price is that a key which is a false positive is never
    /// inserted, so a filter that deletes must not later remove it: remove
    /// only keys whose `insert_if_absent` returned `true`.
    ///
    /// # Errors
    /// As [`insert_digest`](Self::insert_digest); nothing changes on error.
    fn insert_digest_if_absent(&mut self, digest: Digest) -> Result<bool> {
        if self.contains_digest(digest) {
            return Ok(false);
        }
        self.insert_digest(digest).map(|_| true)
    }

    /// Whether the filter holds more than it was sized for **and** its
    /// estimated false-positive rate is above the rate it was built for:
    /// `len() > capacity() && estimated_fp_rate() > fp_rate()`. Inserting
    /// into an overfilled filter still works, with more false positives
    /// than asked for; this is the signal to build a larger one (the CLI
    /// warns on it). A scalable filter grows its capacity, so it is
    /// overfilled only when it cannot keep its rate.
    fn is_overfilled(&self) -> bool {
        self.len() > self.capacity() && self.estimated_fp_rate() > self.fp_rate()
    }

    /// Removes every item, keeping the size and the hash key.
    fn clear(&mut self);

    /// The filter as a [`Deletable`] when its variant can remove items
    /// (counting, cuckoo), `None` otherwise: the checked conversion from a
    /// `dyn ApproxSet` chosen at run time.
    ///
    /// ```
    /// # use approxset_core::ApproxSet;
    /// fn forget(set: &mut dyn ApproxSet, key: &str) -> bool {
    ///     match set.as_deletable_mut() {
    ///         Some(del) => del.remove(key).is_removed(),
    ///         None => false,
    ///     }
    /// }
    /// # let _ = forget;
    /// ```
    fn as_deletable(&self) -> Option<&dyn Deletable> {
        None
    }

    /// The filter as a mutable [`Deletable`]; see
    /// [`as_deletable`](Self::as_deletable).
    fn as_deletable_mut(&mut self) -> Option<&mut dyn Deletable> {
        None
    }

    /// Adds every item of `other` to this filter, for filters chosen at
    /// run time: afterwards it answers `true` for everything either held.
    /// `len` becomes the sum of both.
    ///
    /// The classic, partitioned, blocked and split-block filters union bit
    /// for bit (exactly the filter that inserting both sets would have
    /// built).
    ///
    /// # Errors
    /// Nothing changes on error.
    /// - [`Error::Unsupported`](crate::Error::Unsupported): this variant
    ///   cannot union (counting, atomic, cuckoo, scalable, and the
    ///   default, for third-party filters);
    /// - [`Error::Incompatible`](crate::Error::Incompatible): `other` is
    ///   another variant (`parameter` is `"variant"`), or has other bits,
    ///   hashes or hash key.
    fn union_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
        let _ = other;
        Err(Error::Unsupported {
            operation: "union",
            variant: self.variant(),
        })
    }

    /// Keeps only what both filters may hold, for filters chosen at run
    /// time: afterwards it answers `true` for every item both held, with a
    /// false-positive rate that may be above a filter built from the
    /// intersection alone. `len` becomes the smaller of both.
    ///
    /// # Errors
    /// As [`union_dyn`](Self::union_dyn), with `operation` `"intersection"`;
    /// nothing changes on error.
    fn intersect_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
        let _ = other;
        Err(Error::Unsupported {
            operation: "intersection",
            variant: self.variant(),
        })
    }
}

/// A filter that can also remove items.
///
/// Like [`ApproxSet`], it is object safe; the generic `remove` is in
/// [`DeletableExt`](crate::DeletableExt) and inherent on `dyn Deletable`.
pub trait Deletable: ApproxSet {
    /// Removes one copy of the key whose digest is `digest`.
    ///
    /// Returns [`Removal::Removed`] when a copy was taken out,
    /// [`Removal::Absent`] (changing nothing) when the key is certainly
    /// absent, and [`Removal::Saturated`] (changing nothing) when a counting
    /// filter's counters for the key are all saturated, so the key can no
    /// longer be removed.
    ///
    /// Removing a key that was never inserted but tests positive (a false
    /// positive) corrupts the filter: it may then miss keys that *were*
    /// inserted. No filter can detect that case; only remove keys you know
    /// you inserted.
    fn remove_digest(&mut self, digest: Digest) -> Removal;

    /// An upper bound on the number of times the key whose digest is
    /// `digest` went in: the smallest of a counting filter's counters
    /// ([`Count::AtLeast`] when they are all saturated), the copies of the
    /// fingerprint in a cuckoo filter's two buckets (at most 8). Never below
    /// the true count of a key not removed more often than it was inserted.
    fn count_digest(&self, digest: Digest) -> Count;
}
