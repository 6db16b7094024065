//! The options every filter builder shares: the hash key and a memory limit.

use crate::hash::HashKey;

/// The options every filter builder shares: a hash key (random unless set)
/// and a cap on the filter's memory. Each builder embeds one, and
/// `approxset::VariantBuilder` passes its own to whichever builder it uses.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::BuildOptions;
/// let options = BuildOptions::new().seed(7).max_bytes(1 << 20);
/// assert_eq!(options.max_bytes_limit(), Some(1 << 20));
/// assert!(options.key().is_some());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    key: Option<HashKey>,
    max_bytes: Option<usize>,
}

impl BuildOptions {
    /// No options: a random key and no memory cap beyond the address space.
    pub const fn new() -> Self {
        BuildOptions {
            key: None,
            max_bytes: None,
        }
    }

    /// Hash with a key derived from `seed`, for a reproducible filter.
    pub fn seed(mut self, seed: u64) -> Self {
        self.key = Some(HashKey::from_seed(seed));
        self
    }

    /// Hash with this key, e.g. to build a filter that can be combined with
    /// another one.
    pub fn hash_key(mut self, key: HashKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Refuse to build (or grow) a filter whose data would take more than
    /// `max_bytes` bytes: the build returns
    /// [`Error::TooLarge`](crate::Error::TooLarge).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }

    /// The key set with [`seed`](Self::seed) or [`hash_key`](Self::hash_key).
    pub fn key(&self) -> Option<HashKey> {
        self.key
    }

    /// The key set, or a fresh random one.
    pub fn key_or_random(&self) -> HashKey {
        self.key.unwrap_or_else(HashKey::random)
    }

    /// The memory cap set with [`max_bytes`](Self::max_bytes).
    pub fn max_bytes_limit(&self) -> Option<usize> {
        self.max_bytes
    }
}

/// Writes the builder methods `seed`, `hash_key`, `max_bytes` and
/// `options` for a builder whose field `options` is a [`BuildOptions`], so
/// that every builder offers them with the same docs and none restates them.
/// Use it inside the builder's `impl` block.
#[macro_export]
macro_rules! build_options_setters {
    () => {
        /// Hash with a key derived from `seed`, for a reproducible filter
        /// (the default is a random key).
        pub fn seed(mut self, seed: u64) -> Self {
            self.options = self.options.seed(seed);
            self
        }

        /// Hash with this key, e.g. to build a filter that can be combined
        /// with another one.
        pub fn hash_key(mut self, key: $crate::HashKey) -> Self {
            self.options = self.options.hash_key(key);
            self
        }

        /// Refuse a filter whose data would take more than `max_bytes`
        /// bytes: the build returns [`Error::TooLarge`]($crate::Error::TooLarge).
        pub fn max_bytes(mut self, max_bytes: usize) -> Self {
            self.options = self.options.max_bytes(max_bytes);
            self
        }

        /// Replace every shared option (key, memory cap) at once.
        pub fn options(mut self, options: $crate::BuildOptions) -> Self {
            self.options = options;
            self
        }
    };
}
