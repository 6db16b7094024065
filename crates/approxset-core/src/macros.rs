//! Macros that write what every filter shares, so each filter states only
//! what is its own: the generic key methods, the bookkeeping accessors, the
//! stream persistence methods (inside a filter's inherent `impl` block) and
//! the `Membership`/`ApproxSet`/`Deletable` impls (at module level).

use crate::Result;

/// Writes the generic key methods of a filter from its `insert_digest`,
/// `contains_digest` (and, with `remove`, `remove_digest`) and `hash_key`:
/// `insert`, `contains`, `insert_bytes`, `contains_bytes` (`remove`,
/// `remove_bytes`). They have the signatures of the trait methods of the same
/// names ([`MembershipExt`](crate::MembershipExt),
/// [`ApproxSetExt`](crate::ApproxSetExt),
/// [`DeletableExt`](crate::DeletableExt)): `insert` returns
/// `Result<bool>` for every filter, also those that cannot fail, so that
/// `f.insert(k)?` means one thing on a concrete filter and on a
/// `dyn ApproxSet` (`docs/design.md`, "API rules").
#[macro_export]
macro_rules! key_methods {
    // The older spelling, kept for callers that still use it.
    (insert -> Result<bool>) => {
        $crate::key_methods!(insert);
    };
    (insert) => {
        $crate::key_methods!(insert_only);
        $crate::key_methods!(contains);
    };
    (insert_only) => {
        /// Inserts `item` (its [`Key`]($crate::Key) bytes); returns `Ok(true)`
        /// when it was certainly new.
        ///
        /// # Errors
        /// As [`insert_digest`](Self::insert_digest); the filter is then
        /// unchanged.
        #[inline]
        pub fn insert<K: $crate::Key + ?Sized>(&mut self, item: &K) -> $crate::Result<bool> {
            self.insert_digest(self.hash_key().digest(item))
        }

        /// Inserts a byte string: the same key as `insert(bytes)`.
        ///
        /// # Errors
        /// As [`insert_digest`](Self::insert_digest).
        #[inline]
        pub fn insert_bytes(&mut self, bytes: &[u8]) -> $crate::Result<bool> {
            self.insert_digest(self.hash_key().digest_bytes(bytes))
        }

        /// Inserts `item` only when the filter does not already seem to
        /// hold it: `Ok(true)` when it was inserted, `Ok(false)` when it
        /// tested present and nothing changed (see
        /// [`ApproxSet::insert_digest_if_absent`]($crate::ApproxSet::insert_digest_if_absent)).
        ///
        /// # Errors
        /// As [`insert_digest`](Self::insert_digest); the filter is then
        /// unchanged.
        #[inline]
        pub fn insert_if_absent<K: $crate::Key + ?Sized>(
            &mut self,
            item: &K,
        ) -> $crate::Result<bool> {
            $crate::ApproxSet::insert_digest_if_absent(self, self.hash_key().digest(item))
        }
    };
    (try_extend) => {
        /// Inserts every item of `iter`, in order, stopping at the first
        /// error.
        ///
        /// # Errors
        /// The first error of [`insert`](Self::insert). The items before
        /// the failing one stay inserted; the failing one and the rest are
        /// not.
        pub fn try_extend<I>(&mut self, iter: I) -> $crate::Result<()>
        where
            I: IntoIterator,
            I::Item: $crate::Key,
        {
            for item in iter {
                self.insert(&item)?;
            }
            Ok(())
        }
    };
    (contains) => {
        /// Whether `item` may be present (`false`: certainly not).
        #[inline]
        pub fn contains<K: $crate::Key + ?Sized>(&self, item: &K) -> bool {
            self.contains_digest(self.hash_key().digest(item))
        }

        /// Whether a byte string may be present: the same key as
        /// `contains(bytes)`.
        #[inline]
        pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
            self.contains_digest(self.hash_key().digest_bytes(bytes))
        }
    };
    (remove) => {
        /// Removes one copy of `item`: [`Removal::Absent`]($crate::Removal::Absent),
        /// changing nothing, when it is certainly absent. Remove only what was
        /// inserted (see the type's docs).
        #[inline]
        pub fn remove<K: $crate::Key + ?Sized>(&mut self, item: &K) -> $crate::Removal {
            self.remove_digest(self.hash_key().digest(item))
        }

        /// Removes one copy of a byte string; see `remove`.
        #[inline]
        pub fn remove_bytes(&mut self, bytes: &[u8]) -> $crate::Removal {
            self.remove_digest(self.hash_key().digest_bytes(bytes))
        }

        /// An upper bound on the times `item` went in (see
        /// [`Count`]($crate::Count)): never below the true count of a key not
        /// removed more often than it was inserted.
        #[inline]
        pub fn count<K: $crate::Key + ?Sized>(&self, item: &K) -> $crate::Count {
            self.count_digest(self.hash_key().digest(item))
        }
    };
}

/// Writes the bookkeeping accessors of a filter with fields `key`, `len`
/// and `fp_rate`: `hash_key`, `len` (documented by `$len_doc`), `is_empty`
/// and `fp_rate`.
#[macro_export]
macro_rules! bookkeeping_methods {
    (len = $len_doc:literal) => {
        $crate::bookkeeping_methods!(len = $len_doc, len_from = len_field);

        fn len_field(&self) -> usize {
            self.len
        }
    };
    (len = $len_doc:literal, len_from = $len_fn:ident) => {
        /// The filter's hash key.
        pub fn hash_key(&self) -> $crate::HashKey {
            self.key
        }

        #[doc = $len_doc]
        pub fn len(&self) -> usize {
            self.$len_fn()
        }

        /// Whether the filter holds nothing.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        /// The false-positive rate the filter was built for, at its
        /// capacity.
        pub fn fp_rate(&self) -> f64 {
            self.fp_rate
        }
    };
}

/// Implements [`Membership`](crate::Membership) and
/// [`ApproxSet`](crate::ApproxSet) for a filter by forwarding every method to
/// the filter's inherent method of the same name and signature, so each
/// filter writes its methods once. Flags add:
/// - `batch`: `contains_digests` and `insert_digests` forward too (the
///   traits' default loops otherwise);
/// - `combine`: `union_dyn` and `intersect_dyn` forward too (the trait's
///   default is [`Error::Unsupported`](crate::Error::Unsupported));
/// - `remove`: [`Deletable`](crate::Deletable) is implemented from
///   `remove_digest`, and `as_deletable`/`as_deletable_mut` return the
///   filter;
/// - `deletable`: `as_deletable` and `as_deletable_mut` forward to the
///   filter's inherent methods (for a generic type only some of whose
///   instances delete, which implements `Deletable` itself);
/// - `overfill`: `is_overfilled` forwards too (for a filter whose own
///   test is not the trait's `len() > capacity()`).
///
/// Every filter forwards `estimated_items` and returns itself from
/// `as_any` and `as_approx_set(_mut)`, so it must be `'static`.
///
/// ```ignore
/// approxset_core::impl_approx_set!([L: Layout, C: Cells<L>] Bloom<L, C>, variant = C::NAME, batch, combine);
/// approxset_core::impl_approx_set!([] CuckooFilter, variant = "cuckoo", remove);
/// ```
#[macro_export]
macro_rules! impl_approx_set {
    (@membership [$($gen:tt)*] $ty:ty, $name:expr, [$($flag:ident)*], $insertable:ident) => {
        impl<$($gen)*> $crate::Membership for $ty {
            $($crate::impl_approx_set!(@read $flag $ty);)*
            $crate::impl_approx_set!(@read $insertable $ty);
            $crate::impl_approx_set!(@any $insertable);
            #[inline]
            fn contains_digest(&self, digest: $crate::Digest) -> bool {
                <$ty>::contains_digest(self, digest)
            }
            fn hash_key(&self) -> $crate::HashKey {
                <$ty>::hash_key(self)
            }
            fn len(&self) -> usize {
                <$ty>::len(self)
            }
            fn capacity(&self) -> usize {
                <$ty>::capacity(self)
            }
            fn fp_rate(&self) -> f64 {
                <$ty>::fp_rate(self)
            }
            fn estimated_fp_rate(&self) -> f64 {
                <$ty>::estimated_fp_rate(self)
            }
            fn estimated_items(&self) -> f64 {
                <$ty>::estimated_items(self)
            }
            fn memory_bytes(&self) -> usize {
                <$ty>::memory_bytes(self)
            }
            fn variant(&self) -> &'static str {
                $name
            }
            fn parameters(&self) -> Vec<(&'static str, $crate::Value)> {
                <$ty>::parameters(self)
            }
            fn to_bytes(&self) -> $crate::Result<Vec<u8>> {
                <$ty>::to_bytes(self)
            }
        }
    };
    (@any borrowed) => {};
    (@any $owned:ident) => {
        fn as_any(&self) -> Option<&dyn ::std::any::Any> {
            Some(self)
        }
    };
    (@impl [$($gen:tt)*] $ty:ty, [$($flag:ident)*]) => {
        impl<$($gen)*> $crate::ApproxSet for $ty {
            $($crate::impl_approx_set!(@write $flag $ty);)*
            #[inline]
            fn insert_digest(&mut self, digest: $crate::Digest) -> $crate::Result<bool> {
                <$ty>::insert_digest(self, digest)
            }
            fn clear(&mut self) {
                <$ty>::clear(self)
            }
        }
    };
    (@read batch $ty:ty) => {
        #[inline]
        fn contains_digests(&self, digests: &[$crate::Digest], out: &mut ::std::vec::Vec<bool>) {
            <$ty>::contains_digests(self, digests, out)
        }
    };
    (@read insertable $ty:ty) => {
        fn as_approx_set(&self) -> Option<&dyn $crate::ApproxSet> {
            Some(self)
        }
        fn as_approx_set_mut(&mut self) -> Option<&mut dyn $crate::ApproxSet> {
            Some(self)
        }
    };
    (@read streamed $ty:ty) => {
        fn write_into(&self, sink: &mut dyn ::std::io::Write) -> $crate::Result<()> {
            <$ty>::write_into(self, sink)
        }
    };
    (@read $other:ident $ty:ty) => {};
    (@write batch $ty:ty) => {
        #[inline]
        fn insert_digests(&mut self, digests: &[$crate::Digest]) -> $crate::Result<()> {
            <$ty>::insert_digests(self, digests)
        }
    };
    (@write combine $ty:ty) => {
        fn union_dyn(&mut self, other: &dyn $crate::ApproxSet) -> $crate::Result<()> {
            <$ty>::union_dyn(self, other)
        }
        fn intersect_dyn(&mut self, other: &dyn $crate::ApproxSet) -> $crate::Result<()> {
            <$ty>::intersect_dyn(self, other)
        }
    };
    (@write remove $ty:ty) => {
        fn as_deletable(&self) -> Option<&dyn $crate::Deletable> {
            Some(self)
        }
        fn as_deletable_mut(&mut self) -> Option<&mut dyn $crate::Deletable> {
            Some(self)
        }
    };
    (@write streamed $ty:ty) => {};
    (@write overfill $ty:ty) => {
        fn is_overfilled(&self) -> bool {
            <$ty>::is_overfilled(self)
        }
    };
    (@write deletable $ty:ty) => {
        fn as_deletable(&self) -> Option<&dyn $crate::Deletable> {
            <$ty>::as_deletable(self)
        }
        fn as_deletable_mut(&mut self) -> Option<&mut dyn $crate::Deletable> {
            <$ty>::as_deletable_mut(self)
        }
    };
    (@outer remove [$($gen:tt)*] $ty:ty) => {
        impl<$($gen)*> $crate::Deletable for $ty {
            #[inline]
            fn remove_digest(&mut self, digest: $crate::Digest) -> $crate::Removal {
                <$ty>::remove_digest(self, digest)
            }
            #[inline]
            fn count_digest(&self, digest: $crate::Digest) -> $crate::Count {
                <$ty>::count_digest(self, digest)
            }
        }
    };
    (@outer $other:ident $gens:tt $ty:ty) => {};
    ($gens:tt $ty:ty, variant = $name:expr $(, $flag:ident)*) => {
        $crate::impl_approx_set!(@membership $gens $ty, $name, [$($flag)*], insertable);
        $crate::impl_approx_set!(@impl $gens $ty, [$($flag)*]);
        $($crate::impl_approx_set!(@outer $flag $gens $ty);)*
    };
}

/// Implements [`Membership`](crate::Membership) alone, for a static filter
/// (built once, read-only), as [`impl_approx_set!`](crate::impl_approx_set)
/// does; the one flag, `batch`, forwards `contains_digests`.
/// `as_approx_set` is `None`. Prefixed by `borrowed`, for a view that
/// borrows its bytes (not `'static`): `as_any` is then `None` too.
///
/// ```ignore
/// approxset_core::impl_membership!([] FuseFilter, variant = "fuse", batch);
/// approxset_core::impl_membership!(borrowed ['a] CuckooFilterView<'a>, variant = "cuckoo");
/// ```
#[macro_export]
macro_rules! impl_membership {
    (borrowed $gens:tt $ty:ty, variant = $name:expr $(, $flag:ident)*) => {
        $crate::impl_approx_set!(@membership $gens $ty, $name, [$($flag)*], borrowed);
    };
    ($gens:tt $ty:ty, variant = $name:expr $(, $flag:ident)*) => {
        $crate::impl_approx_set!(@membership $gens $ty, $name, [$($flag)*], read_only);
    };
}

/// Downcasts `other` to the filter type `T` of `this`, for the `union_dyn`
/// and `intersect_dyn` of a filter: `other`'s own filter when it is a `T`.
///
/// # Errors
/// [`Error::Incompatible`](crate::Error::Incompatible) naming the
/// `"variant"` when `other` is another type.
#[doc(hidden)]
pub fn same_type<'o, T: crate::ApproxSet + 'static>(
    this: &T,
    other: &'o dyn crate::ApproxSet,
) -> Result<&'o T> {
    other
        .as_any()
        .and_then(|any| any.downcast_ref::<T>())
        .ok_or_else(|| crate::Error::Incompatible {
            parameter: "variant",
            detail: format!("{} vs {}", this.variant(), other.variant()),
        })
}

/// Writes `write_to` and `read_from` from a filter's `to_bytes` and
/// `from_bytes`. Use it inside the filter's inherent `impl` block.
#[macro_export]
macro_rules! stream_methods {
    () => {
        /// Writes [`to_bytes`](Self::to_bytes) to `writer`.
        ///
        /// # Errors
        /// [`Error::Io`]($crate::Error::Io), and as
        /// [`to_bytes`](Self::to_bytes).
        pub fn write_to<W: ::std::io::Write>(&self, mut writer: W) -> $crate::Result<()> {
            let bytes: ::std::vec::Vec<u8> = Self::to_bytes(self)?;
            writer.write_all(&bytes)?;
            Ok(())
        }

        /// Reads one filter from `reader` (and nothing past it), at most
        /// [`DEFAULT_READ_LIMIT`]($crate::format::DEFAULT_READ_LIMIT) bytes.
        ///
        /// # Errors
        /// [`Error::Io`]($crate::Error::Io), and as
        /// [`from_bytes`](Self::from_bytes).
        pub fn read_from<R: ::std::io::Read>(reader: R) -> $crate::Result<Self> {
            Self::from_bytes(&$crate::format::read_all(reader)?)
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::{Digest, HashKey, Membership, MembershipExt, Result, Value};

    /// A static filter whose `Membership` impl `impl_membership!` writes.
    #[derive(Debug)]
    struct Static(Vec<u128>);

    impl Static {
        fn contains_digest(&self, d: Digest) -> bool {
            self.0.contains(&d.to_u128())
        }
        fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
            out.clear();
            out.extend(digests.iter().map(|&d| !self.contains_digest(d)));
        }
        fn hash_key(&self) -> HashKey {
            HashKey::from_seed(3)
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn capacity(&self) -> usize {
            self.0.len()
        }
        fn fp_rate(&self) -> f64 {
            0.0
        }
        fn estimated_fp_rate(&self) -> f64 {
            0.0
        }
        fn estimated_items(&self) -> f64 {
            self.0.len() as f64
        }
        fn memory_bytes(&self) -> usize {
            self.0.len() * 16
        }
        fn parameters(&self) -> Vec<(&'static str, Value)> {
            vec![("keys", self.0.len().into())]
        }
        fn to_bytes(&self) -> Result<Vec<u8>> {
            Ok(Vec::new())
        }
    }

    crate::impl_membership!([] Static, variant = "static", batch);

    #[test]
    fn impl_membership_writes_a_read_only_filter() {
        let key = HashKey::from_seed(3);
        let f: Box<dyn Membership> = Box::new(Static(vec![key.digest("a").to_u128()]));
        assert!(f.contains("a") && !f.contains("b"));
        assert!(f.as_approx_set().is_none());
        assert!(f.as_any().is_some_and(|a| a.is::<Static>()));
        assert_eq!((f.variant(), f.capacity()), ("static", 1));
        assert_eq!(f.parameters(), [("keys", Value::Count(1))]);
        // `batch` forwards the override (which inverts, to be told apart).
        let mut out = Vec::new();
        f.contains_digests(&[f.digest("a")], &mut out);
        assert_eq!(out, [false]);
    }
}
