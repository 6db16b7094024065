//! What pointers and trait objects get: `Box<S>`, `&mut S` (and, for
//! [`Membership`], `&S`) are filters when `S` is (each method forwarded),
//! and the generic methods of [`MembershipExt`], [`ApproxSetExt`] and
//! [`DeletableExt`] are also inherent on the `dyn` types, so a
//! `Box<dyn ApproxSet + Send + Sync>` needs only [`ApproxSet`] in scope.

use std::any::Any;

use crate::concurrent::{ConcurrentApproxSet, ConcurrentDeletable};
use crate::error::Result;
use crate::extensions::{ApproxSetExt, DeletableExt, MembershipExt};
use crate::hash::{Digest, HashKey};
use crate::key::Key;
use crate::outcome::{Count, Removal};
use crate::traits::{ApproxSet, Deletable, Membership};
use crate::value::Value;

/// Forwards each listed trait for each pointer type to the filter it points
/// to: `membership` (with `as_approx_set_mut` forwarded for `mut` pointers,
/// `None` through a shared reference), `approx_set`, `deletable`.
macro_rules! forward_approx_set {
    ($($ty:ty => $access:ident [$($tr:ident),*];)*) => {$($(
        forward_approx_set!(@$tr $access $ty);
    )*)*};
    (@membership $access:ident $ty:ty) => {
        impl<S: Membership + ?Sized> Membership for $ty {
            #[inline]
            fn contains_digest(&self, digest: Digest) -> bool {
                (**self).contains_digest(digest)
            }
            #[inline]
            fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
                (**self).contains_digests(digests, out)
            }
            fn hash_key(&self) -> HashKey {
                (**self).hash_key()
            }
            fn len(&self) -> usize {
                (**self).len()
            }
            fn is_empty(&self) -> bool {
                (**self).is_empty()
            }
            fn capacity(&self) -> usize {
                (**self).capacity()
            }
            fn fp_rate(&self) -> f64 {
                (**self).fp_rate()
            }
            fn estimated_fp_rate(&self) -> f64 {
                (**self).estimated_fp_rate()
            }
            fn estimated_items(&self) -> f64 {
                (**self).estimated_items()
            }
            fn memory_bytes(&self) -> usize {
                (**self).memory_bytes()
            }
            fn variant(&self) -> &'static str {
                (**self).variant()
            }
            fn parameters(&self) -> Vec<(&'static str, Value)> {
                (**self).parameters()
            }
            fn to_bytes(&self) -> Result<Vec<u8>> {
                (**self).to_bytes()
            }
            fn write_into(&self, sink: &mut dyn std::io::Write) -> Result<()> {
                (**self).write_into(sink)
            }
            fn as_any(&self) -> Option<&dyn Any> {
                (**self).as_any()
            }
            fn as_approx_set(&self) -> Option<&dyn ApproxSet> {
                (**self).as_approx_set()
            }
            forward_approx_set!(@as_approx_set_mut $access);
        }
    };
    (@as_approx_set_mut mut) => {
        fn as_approx_set_mut(&mut self) -> Option<&mut dyn ApproxSet> {
            (**self).as_approx_set_mut()
        }
    };
    (@as_approx_set_mut shared) => {};
    (@approx_set $access:ident $ty:ty) => {
        impl<S: ApproxSet + ?Sized> ApproxSet for $ty {
            #[inline]
            fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
                (**self).insert_digest(digest)
            }
            #[inline]
            fn insert_digests(&mut self, digests: &[Digest]) -> Result<()> {
                (**self).insert_digests(digests)
            }
            #[inline]
            fn insert_digest_if_absent(&mut self, digest: Digest) -> Result<bool> {
                (**self).insert_digest_if_absent(digest)
            }
            fn is_overfilled(&self) -> bool {
                (**self).is_overfilled()
            }
            fn clear(&mut self) {
                (**self).clear()
            }
            fn as_deletable(&self) -> Option<&dyn Deletable> {
                (**self).as_deletable()
            }
            fn as_deletable_mut(&mut self) -> Option<&mut dyn Deletable> {
                (**self).as_deletable_mut()
            }
            fn union_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
                (**self).union_dyn(other)
            }
            fn intersect_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
                (**self).intersect_dyn(other)
            }
        }
    };
    (@deletable $access:ident $ty:ty) => {
        impl<S: Deletable + ?Sized> Deletable for $ty {
            #[inline]
            fn remove_digest(&mut self, digest: Digest) -> Removal {
                (**self).remove_digest(digest)
            }
            #[inline]
            fn count_digest(&self, digest: Digest) -> Count {
                (**self).count_digest(digest)
            }
        }
    };
}

forward_approx_set! {
    Box<S> => mut [membership, approx_set, deletable];
    &mut S => mut [membership, approx_set, deletable];
    &S => shared [membership];
}

/// Inherent copies of the extension methods on the trait-object types, so
/// `Box<dyn ApproxSet + Send + Sync>` needs only `ApproxSet` in scope: `read`
/// writes those of [`MembershipExt`], `insert` those of [`ApproxSetExt`],
/// `remove` those of [`DeletableExt`].
macro_rules! inherent_generic_methods {
    ($($dyn_ty:ty => [$($part:ident),*];)*) => {$($(
        inherent_generic_methods!(@$part $dyn_ty);
    )*)*};
    (@read $dyn_ty:ty) => {
        impl<'a> $dyn_ty {
            /// The digest of `item` under this filter's key; see [`MembershipExt::digest`].
            #[inline]
            pub fn digest<K: Key + ?Sized>(&self, item: &K) -> Digest {
                MembershipExt::digest(self, item)
            }

            /// Whether `item` may be in the set; see [`MembershipExt::contains`].
            #[inline]
            pub fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
                MembershipExt::contains(self, item)
            }

            /// Answers `contains` for every item, in order, into `out` (cleared
            /// first); see [`MembershipExt::contains_batch`].
            #[inline]
            pub fn contains_batch<K: Key>(&self, items: &[K], out: &mut Vec<bool>) {
                MembershipExt::contains_batch(self, items, out)
            }

            /// Whether a byte string may be in the set; see [`MembershipExt::contains_bytes`].
            #[inline]
            pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
                MembershipExt::contains_bytes(self, bytes)
            }

            /// Writes the filter in the binary format; see [`MembershipExt::write_to`].
            ///
            /// # Errors
            /// As [`MembershipExt::write_to`].
            pub fn write_to<W: std::io::Write>(&self, writer: W) -> Result<()> {
                MembershipExt::write_to(self, writer)
            }
        }
    };
    (@insert $dyn_ty:ty) => {
        impl<'a> $dyn_ty {
            /// Inserts `item`; see [`ApproxSetExt::insert`].
            ///
            /// # Errors
            /// As [`ApproxSet::insert_digest`].
            #[inline]
            pub fn insert<K: Key + ?Sized>(&mut self, item: &K) -> Result<bool> {
                ApproxSetExt::insert(self, item)
            }

            /// Inserts every item, in order; see [`ApproxSetExt::insert_batch`].
            ///
            /// # Errors
            /// As [`ApproxSetExt::insert_batch`].
            #[inline]
            pub fn insert_batch<K: Key>(&mut self, items: &[K]) -> Result<()> {
                ApproxSetExt::insert_batch(self, items)
            }

            /// Inserts a byte string; see [`ApproxSetExt::insert_bytes`].
            ///
            /// # Errors
            /// As [`ApproxSet::insert_digest`].
            #[inline]
            pub fn insert_bytes(&mut self, bytes: &[u8]) -> Result<bool> {
                ApproxSetExt::insert_bytes(self, bytes)
            }

            /// Inserts `item` unless it seems present; see
            /// [`ApproxSetExt::insert_if_absent`].
            ///
            /// # Errors
            /// As [`ApproxSet::insert_digest`].
            #[inline]
            pub fn insert_if_absent<K: Key + ?Sized>(&mut self, item: &K) -> Result<bool> {
                ApproxSetExt::insert_if_absent(self, item)
            }
        }
    };
    (@remove $dyn_ty:ty) => {
        impl<'a> $dyn_ty {
            /// Removes one copy of `item`; see [`DeletableExt::remove`].
            #[inline]
            pub fn remove<K: Key + ?Sized>(&mut self, item: &K) -> Removal {
                DeletableExt::remove(self, item)
            }

            /// Removes one copy of a byte string; see [`DeletableExt::remove_bytes`].
            #[inline]
            pub fn remove_bytes(&mut self, bytes: &[u8]) -> Removal {
                DeletableExt::remove_bytes(self, bytes)
            }

            /// An upper bound on the times `item` went in; see [`DeletableExt::count`].
            #[inline]
            pub fn count<K: Key + ?Sized>(&self, item: &K) -> Count {
                DeletableExt::count(self, item)
            }
        }
    };
}

inherent_generic_methods! {
    dyn Membership + 'a => [read];
    dyn Membership + Send + 'a => [read];
    dyn Membership + Send + Sync + 'a => [read];
    dyn ApproxSet + 'a => [read, insert];
    dyn ApproxSet + Send + 'a => [read, insert];
    dyn ApproxSet + Send + Sync + 'a => [read, insert];
    dyn Deletable + 'a => [read, insert, remove];
    dyn Deletable + Send + 'a => [read, insert, remove];
    dyn Deletable + Send + Sync + 'a => [read, insert, remove];
    dyn ConcurrentApproxSet + 'a => [read];
    dyn ConcurrentApproxSet + Send + Sync + 'a => [read];
    dyn ConcurrentDeletable + 'a => [read, insert, remove];
    dyn ConcurrentDeletable + Send + Sync + 'a => [read, insert, remove];
}
