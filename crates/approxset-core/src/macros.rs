//! Macros that write what every filter shares, so each filter states only
//! what is its own: the generic key methods, the bookkeeping accessors, the
//! stream persistence methods (inside a filter's inherent `impl` block) and
//! the `ApproxSet`/`Deletable` impls (at module level).

use crate::Result;

/// Writes the generic key methods of a filter from its `insert_digest`,
/// `contains_digest` (and, with `remove`, `remove_digest`) and `hash_key`:
/// `insert`, `contains`, `insert_bytes`, `contains_bytes` (`remove`,
/// `remove_bytes`). `insert -> bool` for filters that cannot fail,
/// `insert -> Result<bool>` for those that can.
#[macro_export]
macro_rules! key_methods {
    (insert -> bool) => {
        /// Inserts `item` (its [`Key`]($crate::Key) bytes); returns `true` when it
        /// was certainly new. This filter never fails to insert.
        #[inline]
        pub fn insert<K: $crate::Key + ?Sized>(&mut self, item: &K) -> bool {
            self.insert_digest(self.hash_key().digest(item))
        }

        /// Inserts a byte string: the same key as `insert(bytes)`.
        #[inline]
        pub fn insert_bytes(&mut self, bytes: &[u8]) -> bool {
            self.insert_digest(self.hash_key().digest_bytes(bytes))
        }

        $crate::key_methods!(contains);
    };
    (insert -> Result<bool>) => {
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

        $crate::key_methods!(contains);
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
        /// Removes one copy of `item`: `false`, changing nothing, when it is
        /// certainly absent. Remove only what was inserted (see the type's
        /// docs).
        #[inline]
        pub fn remove<K: $crate::Key + ?Sized>(&mut self, item: &K) -> bool {
            self.remove_digest(self.hash_key().digest(item))
        }

        /// Removes one copy of a byte string; see `remove`.
        #[inline]
        pub fn remove_bytes(&mut self, bytes: &[u8]) -> bool {
            self.remove_digest(self.hash_key().digest_bytes(bytes))
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

/// What an inherent `insert_digest` returns, as the trait's `Result<bool>`:
/// a filter that cannot fail returns a plain `bool`.
#[doc(hidden)]
pub trait InsertOutcome {
    /// The outcome as a `Result`.
    fn into_result(self) -> Result<bool>;
}

impl InsertOutcome for bool {
    #[inline]
    fn into_result(self) -> Result<bool> {
        Ok(self)
    }
}

impl InsertOutcome for Result<bool> {
    #[inline]
    fn into_result(self) -> Result<bool> {
        self
    }
}

/// What an inherent `to_bytes` returns, as the trait's `Result<Vec<u8>>`.
#[doc(hidden)]
pub trait BytesOutcome {
    /// The outcome as a `Result`.
    fn into_result(self) -> Result<Vec<u8>>;
}

impl BytesOutcome for Vec<u8> {
    fn into_result(self) -> Result<Vec<u8>> {
        Ok(self)
    }
}

impl BytesOutcome for Result<Vec<u8>> {
    fn into_result(self) -> Result<Vec<u8>> {
        self
    }
}

/// Implements [`ApproxSet`](crate::ApproxSet) (and, with `remove`,
/// [`Deletable`](crate::Deletable)) for a filter
/// by forwarding every method to the filter's inherent method of the same
/// name, so each filter writes its methods once. The inherent
/// `insert_digest` may return `bool` or `Result<bool>`, and `to_bytes`
/// `Vec<u8>` or `Result<Vec<u8>>`; `parameters` returns
/// `Vec<(&'static str, Value)>`. With `batch`, `contains_digests` and
/// `insert_digests` forward to the filter's inherent methods too (the
/// default loops otherwise); the inherent `insert_digests` returns `()`,
/// for filters whose inserts cannot fail.
///
/// ```ignore
/// approxset_core::impl_approx_set!([L: Layout, C: Cells<L>] Bloom<L, C>, variant = C::NAME);
/// approxset_core::impl_approx_set!([] CuckooFilter, variant = "cuckoo", remove);
/// ```
#[macro_export]
macro_rules! impl_approx_set {
    ([$($gen:tt)*] $ty:ty, variant = $name:expr) => {
        $crate::impl_approx_set!(@impl [$($gen)*] $ty, variant = $name, {});
    };
    ([$($gen:tt)*] $ty:ty, variant = $name:expr, batch) => {
        $crate::impl_approx_set!(@impl [$($gen)*] $ty, variant = $name, {
            #[inline]
            fn contains_digests(&self, digests: &[$crate::Digest], out: &mut ::std::vec::Vec<bool>) {
                <$ty>::contains_digests(self, digests, out)
            }
            #[inline]
            fn insert_digests(&mut self, digests: &[$crate::Digest]) -> $crate::Result<()> {
                <$ty>::insert_digests(self, digests);
                Ok(())
            }
        });
    };
    (@impl [$($gen:tt)*] $ty:ty, variant = $name:expr, {$($extra:tt)*}) => {
        impl<$($gen)*> $crate::ApproxSet for $ty {
            $($extra)*
            #[inline]
            fn insert_digest(&mut self, digest: $crate::Digest) -> $crate::Result<bool> {
                $crate::InsertOutcome::into_result(<$ty>::insert_digest(self, digest))
            }
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
            fn memory_bytes(&self) -> usize {
                <$ty>::memory_bytes(self)
            }
            fn clear(&mut self) {
                <$ty>::clear(self)
            }
            fn variant(&self) -> &'static str {
                $name
            }
            fn parameters(&self) -> Vec<(&'static str, $crate::Value)> {
                <$ty>::parameters(self)
            }
            fn to_bytes(&self) -> $crate::Result<Vec<u8>> {
                $crate::BytesOutcome::into_result(<$ty>::to_bytes(self))
            }
        }
    };
    ([$($gen:tt)*] $ty:ty, variant = $name:expr, remove) => {
        $crate::impl_approx_set!([$($gen)*] $ty, variant = $name);
        impl<$($gen)*> $crate::Deletable for $ty {
            #[inline]
            fn remove_digest(&mut self, digest: $crate::Digest) -> bool {
                <$ty>::remove_digest(self, digest)
            }
        }
    };
}

/// Writes `write_to` and `read_from` from a filter's `to_bytes` and
/// `from_bytes`. Use it inside the filter's inherent `impl` block.
#[macro_export]
macro_rules! stream_methods {
    () => {
        /// Writes [`to_bytes`](Self::to_bytes) to `writer`.
        ///
        /// # Errors
        /// [`Error::Io`]($crate::Error::Io).
        pub fn write_to<W: ::std::io::Write>(&self, mut writer: W) -> $crate::Result<()> {
            let bytes: ::std::vec::Vec<u8> =
                $crate::BytesOutcome::into_result(Self::to_bytes(self))?;
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
