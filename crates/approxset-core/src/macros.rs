//! Macros that write the methods every filter shares, so each filter states
//! only what is its own. Used inside a filter's inherent `impl` block.

/// Writes the generic key methods of a filter from its `insert_digest`,
/// `contains_digest` (and, with `remove`, `remove_digest`) and `hash_key`:
/// `insert`, `contains`, `insert_bytes`, `contains_bytes` (`remove`,
/// `remove_bytes`). `insert -> bool` for filters that cannot fail,
/// `insert -> Result<bool>` for those that can.
#[macro_export]
macro_rules! key_methods {
    (insert -> bool) => {
        /// Inserts `item` (through `std::hash::Hash`); returns `true` when it
        /// was certainly new. This filter never fails to insert.
        #[inline]
        pub fn insert<T: ::std::hash::Hash + ?Sized>(&mut self, item: &T) -> bool {
            self.insert_digest(self.hash_key().digest(item))
        }

        /// Inserts a byte string hashed as raw bytes (portable across
        /// platforms).
        #[inline]
        pub fn insert_bytes(&mut self, bytes: &[u8]) -> bool {
            self.insert_digest(self.hash_key().digest_bytes(bytes))
        }

        $crate::key_methods!(contains);
    };
    (insert -> Result<bool>) => {
        /// Inserts `item` (through `std::hash::Hash`); returns `Ok(true)`
        /// when it was certainly new.
        ///
        /// # Errors
        /// As [`insert_digest`](Self::insert_digest); the filter is then
        /// unchanged.
        #[inline]
        pub fn insert<T: ::std::hash::Hash + ?Sized>(&mut self, item: &T) -> $crate::Result<bool> {
            self.insert_digest(self.hash_key().digest(item))
        }

        /// Inserts a byte string hashed as raw bytes (portable across
        /// platforms).
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
        pub fn contains<T: ::std::hash::Hash + ?Sized>(&self, item: &T) -> bool {
            self.contains_digest(self.hash_key().digest(item))
        }

        /// Whether a byte string inserted with `insert_bytes` may be
        /// present.
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
        pub fn remove<T: ::std::hash::Hash + ?Sized>(&mut self, item: &T) -> bool {
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
        /// The filter's hash key.
        pub fn hash_key(&self) -> $crate::HashKey {
            self.key
        }

        #[doc = $len_doc]
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether the filter holds nothing.
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The false-positive rate the filter was built for, at its
        /// capacity.
        pub fn fp_rate(&self) -> f64 {
            self.fp_rate
        }
    };
}
