//! The options every filter builder shares: the hash key and function,
//! and a memory limit.

use crate::error::{Error, Result};
use crate::format::tag;
use crate::hash::{HashFunction, HashKey};

/// The options every filter builder shares: a hash key (random unless set),
/// the hash function it keys (SipHash-1-3 unless set) and a cap on the
/// filter's memory. Each builder embeds one, and `approxset::VariantBuilder`
/// passes its own to whichever builder it uses.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::{BuildOptions, HashFunction};
/// let options = BuildOptions::new().seed(7).hash(HashFunction::Xxh3).max_bytes(1 << 20);
/// assert_eq!(options.max_bytes_limit(), Some(1 << 20));
/// assert_eq!(options.key().map(|k| k.function()), Some(HashFunction::Xxh3));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    key: Option<HashKey>,
    function: HashFunction,
    max_bytes: Option<usize>,
}

impl BuildOptions {
    /// No options: a random key of the default function and no memory
    /// cap beyond the address space.
    pub const fn new() -> Self {
        BuildOptions {
            key: None,
            function: HashFunction::SipHash13x64,
            max_bytes: None,
        }
    }

    /// Hash with a key derived from `seed`, for a reproducible filter. The
    /// function stays the one chosen (by [`hash`](Self::hash)).
    pub fn seed(mut self, seed: u64) -> Self {
        self.key = Some(HashKey::from_seed(seed));
        self
    }

    /// Hash with this key and its function, e.g. to build a filter that can
    /// be combined with another one (`other.hash_key()`).
    pub fn hash_key(mut self, key: HashKey) -> Self {
        self.key = Some(key);
        self.function = key.function();
        self
    }

    /// Hash with `function` (the default is
    /// [`SipHash13x64`](HashFunction::SipHash13x64)); the key, seed or random,
    /// keys it. The last of `hash` and [`hash_key`](Self::hash_key) says
    /// the function. Choose XXH3 only for keys no attacker chooses
    /// (`docs/guide.md`).
    pub fn hash(mut self, function: HashFunction) -> Self {
        self.function = function;
        self
    }

    /// Refuse to build (or grow) a filter whose data would take more than
    /// `max_bytes` bytes: the build returns
    /// [`Error::TooLarge`](crate::Error::TooLarge).
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }

    /// The key set with [`seed`](Self::seed) or [`hash_key`](Self::hash_key),
    /// applied to the function chosen.
    pub fn key(&self) -> Option<HashKey> {
        self.key.map(|k| k.with_function(self.function))
    }

    /// The hash function chosen with [`hash`](Self::hash) or
    /// [`hash_key`](Self::hash_key).
    pub fn hash_function(&self) -> HashFunction {
        self.function
    }

    /// The key set, or a fresh random one, applied to the function chosen.
    /// Builders use [`key_for`](Self::key_for), which also checks that the
    /// variant can use the function.
    pub fn key_or_random(&self) -> HashKey {
        self.key
            .unwrap_or_else(HashKey::random)
            .with_function(self.function)
    }

    /// [`key_or_random`](Self::key_or_random) for a filter of the variant
    /// tagged `tag` (see [`format::tag`](crate::format::tag)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `"hash"` when the variant cannot
    /// use the function ([`tag::supports_hash`]): Parquet's xxHash64 is for
    /// the split-block filter only.
    pub fn key_for(&self, tag: u8) -> Result<HashKey> {
        if !tag::supports_hash(tag, self.function) {
            return Err(Error::InvalidParameter {
                name: "hash",
                reason: format!(
                    "the {} filter cannot use {} ({}): it gives 64 bits, for the \
                     split-block filter only",
                    tag::name(tag).unwrap_or("unknown"),
                    self.function,
                    self.function.algorithm()
                ),
            });
        }
        Ok(self.key_or_random())
    }

    /// The memory cap set with [`max_bytes`](Self::max_bytes).
    pub fn max_bytes_limit(&self) -> Option<usize> {
        self.max_bytes
    }
}

/// Writes the builder methods `seed`, `hash_key`, `hash`, `max_bytes` and
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

        /// Hash with this key and its function, e.g. to build a filter
        /// that can be combined with another one (`other.hash_key()`).
        pub fn hash_key(mut self, key: $crate::HashKey) -> Self {
            self.options = self.options.hash_key(key);
            self
        }

        /// Hash with `function` (the default is keyed SipHash-1-3, the only
        /// choice safe against keys an attacker chooses); the key, seed or
        /// random, keys it. See `docs/guide.md` before choosing XXH3.
        pub fn hash(mut self, function: $crate::HashFunction) -> Self {
            self.options = self.options.hash(function);
            self
        }

        /// Refuse a filter whose data would take more than `max_bytes`
        /// bytes: the build returns [`Error::TooLarge`]($crate::Error::TooLarge).
        pub fn max_bytes(mut self, max_bytes: usize) -> Self {
            self.options = self.options.max_bytes(max_bytes);
            self
        }

        /// Replace every shared option (key, hash function, memory cap) at
        /// once.
        pub fn options(mut self, options: $crate::BuildOptions) -> Self {
            self.options = options;
            self
        }
    };
}
