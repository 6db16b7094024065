//! What pointers and trait objects get: `Box<S>` and `&mut S` are filters
//! when `S` is (each method forwarded), and the generic methods of
//! [`ApproxSetExt`] and [`DeletableExt`] are also inherent on the `dyn`
//! types, so a `Box<dyn ApproxSet + Send + Sync>` needs only [`ApproxSet`]
//! in scope.

use std::any::Any;

use crate::error::Result;
use crate::hash::{Digest, HashKey};
use crate::key::Key;
use crate::traits::{ApproxSet, ApproxSetExt, Deletable, DeletableExt, Value};

macro_rules! forward_approx_set {
    ($($ty:ty),*) => {$(
        impl<S: ApproxSet + ?Sized> ApproxSet for $ty {
            #[inline]
            fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
                (**self).insert_digest(digest)
            }
            #[inline]
            fn contains_digest(&self, digest: Digest) -> bool {
                (**self).contains_digest(digest)
            }
            #[inline]
            fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
                (**self).contains_digests(digests, out)
            }
            #[inline]
            fn insert_digests(&mut self, digests: &[Digest]) -> Result<()> {
                (**self).insert_digests(digests)
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
            fn memory_bytes(&self) -> usize {
                (**self).memory_bytes()
            }
            fn clear(&mut self) {
                (**self).clear()
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
            fn estimated_items(&self) -> f64 {
                (**self).estimated_items()
            }
            fn is_overfilled(&self) -> bool {
                (**self).is_overfilled()
            }
            fn as_any(&self) -> Option<&dyn Any> {
                (**self).as_any()
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
    )*};
}

forward_approx_set!(Box<S>, &mut S);

impl<S: Deletable + ?Sized> Deletable for Box<S> {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> bool {
        (**self).remove_digest(digest)
    }
}

impl<S: Deletable + ?Sized> Deletable for &mut S {
    #[inline]
    fn remove_digest(&mut self, digest: Digest) -> bool {
        (**self).remove_digest(digest)
    }
}

/// Inherent copies of the extension methods on the trait-object types, so
/// `Box<dyn ApproxSet + Send + Sync>` needs only `ApproxSet` in scope.
macro_rules! inherent_generic_methods {
    ($($dyn_ty:ty),*) => {$(
        impl<'a> $dyn_ty {
            /// The digest of `item` under this filter's key; see [`ApproxSetExt::digest`].
            #[inline]
            pub fn digest<K: Key + ?Sized>(&self, item: &K) -> Digest {
                ApproxSetExt::digest(self, item)
            }

            /// Inserts `item`; see [`ApproxSetExt::insert`].
            ///
            /// # Errors
            /// As [`ApproxSet::insert_digest`].
            #[inline]
            pub fn insert<K: Key + ?Sized>(&mut self, item: &K) -> Result<bool> {
                ApproxSetExt::insert(self, item)
            }

            /// Whether `item` may be in the set; see [`ApproxSetExt::contains`].
            #[inline]
            pub fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
                ApproxSetExt::contains(self, item)
            }

            /// Answers `contains` for every item, in order, into `out` (cleared
            /// first); see [`ApproxSetExt::contains_batch`].
            #[inline]
            pub fn contains_batch<K: Key>(&self, items: &[K], out: &mut Vec<bool>) {
                ApproxSetExt::contains_batch(self, items, out)
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

            /// Whether a byte string may be in the set; see [`ApproxSetExt::contains_bytes`].
            #[inline]
            pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
                ApproxSetExt::contains_bytes(self, bytes)
            }

            /// Writes the filter in the binary format; see [`ApproxSetExt::write_to`].
            ///
            /// # Errors
            /// As [`ApproxSetExt::write_to`].
            pub fn write_to<W: std::io::Write>(&self, writer: W) -> Result<()> {
                ApproxSetExt::write_to(self, writer)
            }
        }
    )*};
}

inherent_generic_methods!(
    dyn ApproxSet + 'a,
    dyn ApproxSet + Send + 'a,
    dyn ApproxSet + Send + Sync + 'a,
    dyn Deletable + 'a,
    dyn Deletable + Send + 'a,
    dyn Deletable + Send + Sync + 'a
);

macro_rules! inherent_remove_methods {
    ($($dyn_ty:ty),*) => {$(
        impl<'a> $dyn_ty {
            /// Removes one copy of `item`; see [`DeletableExt::remove`].
            #[inline]
            pub fn remove<K: Key + ?Sized>(&mut self, item: &K) -> bool {
                DeletableExt::remove(self, item)
            }

            /// Removes one copy of a byte string; see [`DeletableExt::remove_bytes`].
            #[inline]
            pub fn remove_bytes(&mut self, bytes: &[u8]) -> bool {
                DeletableExt::remove_bytes(self, bytes)
            }
        }
    )*};
}

inherent_remove_methods!(
    dyn Deletable + 'a,
    dyn Deletable + Send + 'a,
    dyn Deletable + Send + Sync + 'a
);
