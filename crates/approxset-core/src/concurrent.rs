//! Filters that threads share: inserts and lookups through `&self`.

use crate::error::Result;
use crate::hash::Digest;
use crate::key::Key;
use crate::outcome::Removal;
use crate::traits::{Deletable, Membership};

/// A filter that many threads insert into and query at once through a
/// shared reference: `approxset::AtomicBloomFilter` (no lock) and
/// [`Sharded`](crate::Sharded) (lookups without a lock, a lock per shard
/// for writes). Its read side is
/// [`Membership`], whose lookups already take `&self`.
/// Object safe; the generic methods are in [`ConcurrentApproxSetExt`] (and
/// [`MembershipExt`](crate::MembershipExt)) and inherent on
/// `dyn ConcurrentApproxSet + Send + Sync`.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::ConcurrentApproxSet;
///
/// fn warm(set: &(dyn ConcurrentApproxSet + Send + Sync), keys: &[&str]) -> approxset::Result<()> {
///     for k in keys {
///         set.insert_shared(*k)?;
///     }
///     Ok(())
/// }
/// # let _ = warm;
/// ```
pub trait ConcurrentApproxSet: Membership {
    /// Inserts the key whose digest is `digest`; `Ok(true)` when it was
    /// certainly new.
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digest`](crate::ApproxSet::insert_digest) on
    /// the filter (or shard) that takes the key, and then nothing changes:
    /// the atomic Bloom filter never fails, a sharded cuckoo filter fails
    /// with [`Error::Full`](crate::Error::Full) when the key's shard is full.
    fn insert_digest_shared(&self, digest: Digest) -> Result<bool>;

    /// Whether the key whose digest is `digest` may be in the set:
    /// [`Membership::contains_digest`], by default.
    fn contains_digest_shared(&self, digest: Digest) -> bool {
        self.contains_digest(digest)
    }

    /// Answers [`contains_digest_shared`](Self::contains_digest_shared) for
    /// every digest: `out` is cleared, then gets one answer per digest, in
    /// order; [`Membership::contains_digests`], by default.
    fn contains_digests_shared(&self, digests: &[Digest], out: &mut Vec<bool>) {
        self.contains_digests(digests, out)
    }

    /// Inserts every digest, in order, as
    /// [`insert_digest_shared`](Self::insert_digest_shared) on each would.
    /// The default is a loop; `AtomicBloomFilter` asks for a chunk's blocks
    /// before it sets their bits, so that their cache misses overlap.
    ///
    /// # Errors
    /// As [`insert_digest_shared`](Self::insert_digest_shared): the first
    /// error stops the batch, and the digests before it stay inserted.
    fn insert_digests_shared(&self, digests: &[Digest]) -> Result<()> {
        for &digest in digests {
            self.insert_digest_shared(digest)?;
        }
        Ok(())
    }
}

/// The generic methods of every [`ConcurrentApproxSet`], trait objects
/// included.
pub trait ConcurrentApproxSetExt: ConcurrentApproxSet {
    /// Inserts `item` (its [`Key`] bytes) through `&self`.
    ///
    /// # Errors
    /// As [`ConcurrentApproxSet::insert_digest_shared`].
    #[inline]
    fn insert_shared<K: Key + ?Sized>(&self, item: &K) -> Result<bool> {
        self.insert_digest_shared(self.hash_key().digest(item))
    }

    /// Whether `item` may be in the set.
    #[inline]
    fn contains_shared<K: Key + ?Sized>(&self, item: &K) -> bool {
        self.contains_digest_shared(self.hash_key().digest(item))
    }

    /// Answers [`contains_shared`](Self::contains_shared) for every item:
    /// `out` is cleared, then gets one answer per item, in order (see
    /// [`MembershipExt::contains_batch`](crate::MembershipExt::contains_batch)).
    #[inline]
    fn contains_batch_shared<K: Key>(&self, items: &[K], out: &mut Vec<bool>) {
        crate::batch::by_chunks(self.hash_key(), items, out, |digests, answers| {
            self.contains_digests_shared(digests, answers)
        });
    }

    /// Inserts every item, in order, as
    /// [`insert_shared`](Self::insert_shared) on each would; hashed a chunk
    /// at a time, then inserted through
    /// [`insert_digests_shared`](ConcurrentApproxSet::insert_digests_shared).
    ///
    /// # Errors
    /// As [`ConcurrentApproxSet::insert_digests_shared`]: the first error
    /// stops the batch, and the items before it stay inserted.
    #[inline]
    fn insert_batch_shared<K: Key>(&self, items: &[K]) -> Result<()> {
        crate::batch::insert_by_chunks(self.hash_key(), items, |digests| {
            self.insert_digests_shared(digests)
        })
    }
}

impl<S: ConcurrentApproxSet + ?Sized> ConcurrentApproxSetExt for S {}

/// A [`ConcurrentApproxSet`] that threads also remove from through `&self`
/// ([`Sharded`](crate::Sharded) over the counting and cuckoo filters). A key
/// whose insert returned `Ok` is found until a remove of it begins. Object
/// safe; the generic methods are in [`ConcurrentDeletableExt`] and inherent
/// on `dyn ConcurrentDeletable + Send + Sync`.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::ConcurrentDeletable;
///
/// fn evict(set: &(dyn ConcurrentDeletable + Send + Sync), keys: &[&str]) -> usize {
///     keys.iter().filter(|k| set.remove_shared(**k).is_removed()).count()
/// }
/// # let _ = evict;
/// ```
pub trait ConcurrentDeletable: ConcurrentApproxSet + Deletable {
    /// Removes one copy of the key whose digest is `digest`, as
    /// [`Deletable::remove_digest`] does, through `&self`. (Its count is
    /// [`Deletable::count_digest`], which takes `&self` already.)
    fn remove_digest_shared(&self, digest: Digest) -> Removal;

    /// [`ApproxSet::insert_digest_if_absent`](crate::ApproxSet::insert_digest_if_absent)
    /// through `&self`, in one step that no other thread's operation on the
    /// key comes between: of threads inserting one absent key this way, one
    /// gets `Ok(true)`.
    ///
    /// # Errors
    /// As [`insert_digest_shared`](ConcurrentApproxSet::insert_digest_shared).
    fn insert_digest_if_absent_shared(&self, digest: Digest) -> Result<bool>;
}

/// The generic methods of every [`ConcurrentDeletable`], trait objects
/// included.
pub trait ConcurrentDeletableExt: ConcurrentDeletable {
    /// Removes one copy of `item` through `&self`; see
    /// [`ConcurrentDeletable::remove_digest_shared`].
    #[inline]
    fn remove_shared<K: Key + ?Sized>(&self, item: &K) -> Removal {
        self.remove_digest_shared(self.hash_key().digest(item))
    }

    /// Inserts `item` unless the filter may already hold it; see
    /// [`ConcurrentDeletable::insert_digest_if_absent_shared`].
    ///
    /// # Errors
    /// As [`ConcurrentApproxSet::insert_digest_shared`].
    #[inline]
    fn insert_if_absent_shared<K: Key + ?Sized>(&self, item: &K) -> Result<bool> {
        self.insert_digest_if_absent_shared(self.hash_key().digest(item))
    }
}

impl<S: ConcurrentDeletable + ?Sized> ConcurrentDeletableExt for S {}

macro_rules! inherent_shared_methods {
    ($($dyn_ty:ty),*) => {$(
        impl<'a> $dyn_ty {
            /// Inserts `item`; see [`ConcurrentApproxSetExt::insert_shared`].
            ///
            /// # Errors
            /// As [`ConcurrentApproxSet::insert_digest_shared`].
            #[inline]
            pub fn insert_shared<K: Key + ?Sized>(&self, item: &K) -> Result<bool> {
                ConcurrentApproxSetExt::insert_shared(self, item)
            }

            /// Whether `item` may be in the set; see
            /// [`ConcurrentApproxSetExt::contains_shared`].
            #[inline]
            pub fn contains_shared<K: Key + ?Sized>(&self, item: &K) -> bool {
                ConcurrentApproxSetExt::contains_shared(self, item)
            }

            /// Answers `contains_shared` for every item, in order, into `out`
            /// (cleared first); see [`ConcurrentApproxSetExt::contains_batch_shared`].
            #[inline]
            pub fn contains_batch_shared<K: Key>(&self, items: &[K], out: &mut Vec<bool>) {
                ConcurrentApproxSetExt::contains_batch_shared(self, items, out)
            }

            /// Inserts every item, in order; see
            /// [`ConcurrentApproxSetExt::insert_batch_shared`].
            ///
            /// # Errors
            /// As [`ConcurrentApproxSetExt::insert_batch_shared`].
            #[inline]
            pub fn insert_batch_shared<K: Key>(&self, items: &[K]) -> Result<()> {
                ConcurrentApproxSetExt::insert_batch_shared(self, items)
            }
        }
    )*};
}

inherent_shared_methods!(
    dyn ConcurrentApproxSet + 'a,
    dyn ConcurrentApproxSet + Send + Sync + 'a,
    dyn ConcurrentDeletable + 'a,
    dyn ConcurrentDeletable + Send + Sync + 'a
);

macro_rules! inherent_shared_removes {
    ($($dyn_ty:ty),*) => {$(
        impl<'a> $dyn_ty {
            /// Removes one copy of `item`; see
            /// [`ConcurrentDeletableExt::remove_shared`].
            #[inline]
            pub fn remove_shared<K: Key + ?Sized>(&self, item: &K) -> Removal {
                ConcurrentDeletableExt::remove_shared(self, item)
            }

            /// Inserts `item` unless it may be present; see
            /// [`ConcurrentDeletableExt::insert_if_absent_shared`].
            ///
            /// # Errors
            /// As [`ConcurrentApproxSet::insert_digest_shared`].
            #[inline]
            pub fn insert_if_absent_shared<K: Key + ?Sized>(&self, item: &K) -> Result<bool> {
                ConcurrentDeletableExt::insert_if_absent_shared(self, item)
            }
        }
    )*};
}

inherent_shared_removes!(
    dyn ConcurrentDeletable + 'a,
    dyn ConcurrentDeletable + Send + Sync + 'a
);
