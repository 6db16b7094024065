//! What the static filters (built once from every key: binary fuse,
//! Ribbon) share: the keys of a construction, the seeds it tries, the
//! key-set deduplication and fallible scratch, and the macros that write
//! their common view type and methods.
//!
//! ```
//! # extern crate approxset_core as approxset;
//! use approxset::static_filter::{Seeds, StaticKeys, dedup};
//!
//! // Keys as their digests' first halves; repeats allowed.
//! let keys = [3u64, 1, 3, 2];
//! assert_eq!(StaticKeys::count(&keys[..]), 4);
//! assert_eq!(dedup(&keys[..])?, [1, 2, 3]);
//! // Two seeds derived from the state 7, then one nobody can predict.
//! let seeds: Vec<u64> = Seeds::new(7, 2, 1).collect();
//! assert_eq!(seeds.len(), 3);
//! assert_eq!(seeds[..2], Seeds::new(7, 2, 0).collect::<Vec<_>>()[..]);
//! # Ok::<(), approxset::Error>(())
//! ```

use crate::format::{Reader, Writer};
use crate::hash::splitmix64;
use crate::{Digest, Error, HashKey, Result};

/// The keys of a construction, as the 64-bit values a static filter mixes
/// with its seed: a digest's `h1`, or a value already reduced to it.
pub trait StaticKeys {
    /// Number of keys, repeats included.
    fn count(&self) -> usize;
    /// Calls `f` with every key's value, in order.
    fn each(&self, f: impl FnMut(u64));
}

impl StaticKeys for [Digest] {
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn each(&self, mut f: impl FnMut(u64)) {
        for d in self {
            f(d.h1());
        }
    }
}

impl StaticKeys for [u64] {
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn each(&self, mut f: impl FnMut(u64)) {
        for &v in self {
            f(v);
        }
    }
}

/// The construction seeds a static filter tries, in order: `derived`
/// seeds drawn by SplitMix64 from a state (the hash key's, so a build is
/// reproducible), then `fallback` seeds from a state drawn from the
/// operating system's randomness (which keys crafted against the derived
/// seeds cannot fail).
#[derive(Clone, Debug)]
pub struct Seeds {
    rng: u64,
    derived: u32,
    total: u32,
    attempt: u32,
}

impl Seeds {
    /// The seeds of state `seed_state`: `derived` of them, then `fallback`
    /// random ones.
    pub fn new(seed_state: u64, derived: u32, fallback: u32) -> Self {
        Seeds {
            rng: seed_state,
            derived,
            total: derived.saturating_add(fallback),
            attempt: 0,
        }
    }

    /// Seeds tried so far (the index of the next one).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
}

impl Iterator for Seeds {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.attempt == self.total {
            return None;
        }
        if self.attempt == self.derived {
            self.rng = HashKey::random().to_parts().0;
        }
        self.attempt += 1;
        Some(splitmix64(&mut self.rng))
    }
}

/// The distinct values of `keys`, sorted (a copy: 8 bytes per key).
///
/// # Errors
/// [`Error::AllocationFailed`] when the copy cannot be allocated.
pub fn dedup<K: StaticKeys + ?Sized>(keys: &K) -> Result<Vec<u64>> {
    let mut out = try_vec::<u64>(0, keys.count())?;
    keys.each(|v| out.push(v));
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A vector of `len` default values with room for `capacity`, allocated
/// fallibly.
///
/// # Errors
/// [`Error::AllocationFailed`] with the bytes of `capacity` values.
pub fn try_vec<T: Default + Clone>(len: usize, capacity: usize) -> Result<Vec<T>> {
    let bytes = capacity.max(len).saturating_mul(std::mem::size_of::<T>());
    let mut v = Vec::new();
    v.try_reserve_exact(capacity.max(len))
        .map_err(|_| Error::AllocationFailed { bytes })?;
    v.resize(len, T::default());
    Ok(v)
}

/// The head every saved static filter's parameters begin with: two `u32`
/// fields (named `fields`, the variant's own) and the construction seed,
/// after the check that the file's version has the variant (`since`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedHead {
    /// The hash key of the envelope.
    pub key: HashKey,
    /// The two `u32` fields, in order.
    pub fields: [u32; 2],
    /// The construction seed.
    pub seed: u64,
}

impl SavedHead {
    /// Reads the head from `r`, the variant named `variant` in messages.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a version before `since`; as
    /// [`Reader::u32`] and [`Reader::u64`] for a truncated head.
    pub fn read(r: &mut Reader<'_>, variant: &str, since: u16, fields: [&str; 2]) -> Result<Self> {
        if r.version() < since {
            return Err(Error::corrupt(format!(
                "a {variant} filter in a version-{} file: the variant is new in version {since}",
                r.version()
            )));
        }
        Ok(SavedHead {
            key: r.key(),
            fields: [r.u32(fields[0])?, r.u32(fields[1])?],
            seed: r.u64("seed")?,
        })
    }

    /// The fields read, with the variant's checked `layout` and `len`,
    /// and the payload of `bytes` bytes (named `what`) that ends `r`.
    ///
    /// # Errors
    /// As [`Reader::bytes_padded`] and [`Reader::finish`].
    pub fn finish<'a, L>(
        self,
        mut r: Reader<'a>,
        layout: L,
        len: usize,
        bytes: u64,
        what: &str,
    ) -> Result<Saved<'a, L>> {
        let payload = r.bytes_padded(bytes, what)?;
        r.finish()?;
        Ok(Saved {
            key: self.key,
            fields: self.fields,
            seed: self.seed,
            layout,
            len,
            payload,
        })
    }

    /// A writer of a `tag` filter of at least version `since`, the head
    /// written, with room for `capacity` bytes.
    pub fn writer(&self, tag: u8, since: u16, capacity: usize) -> Writer<'static> {
        let mut w = Writer::new(tag, self.key, capacity);
        w.require_version(since)
            .u32(self.fields[0])
            .u32(self.fields[1])
            .u64(self.seed);
        w
    }
}

/// A saved static filter's fields, every one checked against the others,
/// and its payload where it lies: what `from_bytes` and `view` make a
/// filter of.
#[derive(Clone, Copy, Debug)]
pub struct Saved<'a, L> {
    /// The hash key.
    pub key: HashKey,
    /// The head's two variant fields.
    pub fields: [u32; 2],
    /// The construction seed.
    pub seed: u64,
    /// The variant's layout.
    pub layout: L,
    /// The distinct keys.
    pub len: usize,
    /// The payload's bytes.
    pub payload: &'a [u8],
}

/// Declares a static filter's view type: the filter read in place from a
/// saved filter's bytes, with the fields `file` (the whole saved filter),
/// the store `$store` (named `$field`), `layout`, `seed`, `key` and `len`.
#[macro_export]
macro_rules! static_filter_view {
    (
        $view:ident of $filter:ident in $krate:literal,
        $field:ident: $store:ty,
        layout: $layout:ty $(,)?
    ) => {
        #[doc = concat!(
                    "A [`", stringify!($filter), "`] read in place from a saved filter's bytes ",
                    "(a `Vec`, a memory map, a block of a larger file), at any alignment: [`",
                    stringify!($filter), "::view`] opens it in time independent of its size, and ",
                    "it answers as the filter it was saved from, with the same code.\n\n",
                    "```\n",
                    "# extern crate ", $krate, " as approxset;\n",
                    "use approxset::", stringify!($filter), ";\n\n",
                    "let filter = ", stringify!($filter), "::build([\"alice\", \"bob\"], 0.01)?;\n",
                    "let saved = filter.to_bytes()?;\n",
                    "let view = ", stringify!($filter), "::view(&saved)?;\n",
                    "assert!(view.contains(\"alice\") && view.contains(\"bob\"));\n",
                    "assert_eq!(view.into_owned(), filter);\n",
                    "# Ok::<(), ", $krate, "::Error>(())\n",
                    "```"
                )]
        #[derive(Clone, Copy, PartialEq)]
        pub struct $view<'a> {
            /// The whole saved filter, for `verify` and `as_bytes`.
            pub(crate) file: &'a [u8],
            pub(crate) $field: $store,
            pub(crate) layout: $layout,
            pub(crate) seed: u64,
            pub(crate) key: $crate::HashKey,
            pub(crate) len: usize,
        }
    };
}

/// Writes the accessors a static filter and its view share over their
/// fields `key`, `len` and `seed` and their `memory_bytes`: `hash_key`,
/// `len`, `is_empty`, `capacity`, `estimated_fp_rate`, `estimated_items`,
/// `seed` and `bits_per_key`. `$seed_doc` says what the seed did.
#[macro_export]
macro_rules! static_filter_methods {
    (seed = $seed_doc:literal) => {
        /// The filter's hash key.
        pub fn hash_key(&self) -> $crate::HashKey {
            self.key
        }

        /// The distinct keys it holds (keys are told apart by their digest's
        /// first 64 bits, so two keys in about 2⁶⁵/n² count once).
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether it holds no key.
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The keys it holds, [`len`](Self::len): a static filter holds
        /// exactly what it was built from.
        pub fn capacity(&self) -> usize {
            self.len
        }

        /// The false-positive rate, [`fp_rate`](Self::fp_rate): it does not
        /// depend on the keys.
        pub fn estimated_fp_rate(&self) -> f64 {
            self.fp_rate()
        }

        /// The distinct keys it holds, exactly [`len`](Self::len).
        pub fn estimated_items(&self) -> f64 {
            self.len as f64
        }

        #[doc = $seed_doc]
        pub fn seed(&self) -> u64 {
            self.seed
        }

        /// Bits of the filter's array per distinct key (infinite when
        /// empty).
        pub fn bits_per_key(&self) -> f64 {
            self.memory_bytes() as f64 * 8.0 / self.len as f64
        }
    };
}

/// Writes the loading methods of a static filter (inside the filter's
/// inherent `impl`): `from_bytes` (its `# Errors` section `$errors`),
/// `view`, `view_verified` and the stream methods, the filter or view of
/// the [`Saved`] fields that `$read` reads from a
/// [`Reader`](crate::format::Reader) past the [`SavedHead`] of `$head`
/// (variant name, first version, field names), with the store `$field` made by
/// `$owned` or `$store`; with `view`, the view's own `verify`, `as_bytes`
/// and `into_owned` (inside the view's `impl<'a>`), the owned store made
/// by `$owned`.
#[macro_export]
macro_rules! static_view_methods {
    (
        filter,
        $view:ident,
        tag = $tag:expr,
        head = ($variant:literal, $since:expr, $names:expr),
        read = $read:path,
        errors = $errors:literal,
        $field:ident = |$saved:ident| $owned:expr, $store:expr $(,)?
    ) => {
        /// A filter from bytes written by [`to_bytes`](Self::to_bytes),
        /// every field checked against the others (so a loaded filter
        /// cannot panic or read out of bounds) and nothing larger than the
        /// input allocated.
        ///
        /// # Errors
        #[doc = $errors]
        pub fn from_bytes(bytes: &[u8]) -> $crate::Result<Self> {
            let mut r = $crate::format::Reader::open_variant(bytes, $tag)?;
            let head = $crate::static_filter::SavedHead::read(&mut r, $variant, $since, $names)?;
            let $saved = $read(head, r)?;
            Ok(Self {
                $field: $owned,
                layout: $saved.layout,
                seed: $saved.seed,
                key: $saved.key,
                len: $saved.len,
            })
        }

        /// A view of a saved filter, answering from `bytes` where they lie
        /// (at any alignment): every check of
        /// [`from_bytes`](Self::from_bytes) but the checksum, in time
        /// independent of the filter's size. For a file this process wrote
        /// or one already verified; otherwise
        /// [`view_verified`](Self::view_verified), or `verify` once.
        ///
        /// # Errors
        /// As [`from_bytes`](Self::from_bytes), but for
        /// [`Error::ChecksumMismatch`]($crate::Error::ChecksumMismatch).
        pub fn view(bytes: &[u8]) -> $crate::Result<$view<'_>> {
            let mut r = $crate::format::Reader::open_variant_unverified(bytes, $tag)?;
            let head = $crate::static_filter::SavedHead::read(&mut r, $variant, $since, $names)?;
            let $saved = $read(head, r)?;
            Ok($view {
                file: bytes,
                $field: $store,
                layout: $saved.layout,
                seed: $saved.seed,
                key: $saved.key,
                len: $saved.len,
            })
        }

        /// [`view`](Self::view) after every check of
        /// [`from_bytes`](Self::from_bytes), the checksum included (one
        /// read of every byte): for bytes from elsewhere.
        ///
        /// # Errors
        /// As [`from_bytes`](Self::from_bytes).
        pub fn view_verified(bytes: &[u8]) -> $crate::Result<$view<'_>> {
            $crate::format::Reader::open_variant(bytes, $tag)?;
            Self::view(bytes)
        }

        $crate::stream_methods!();
    };
    (view, $filter:ident, $field:ident = |$v:ident| $owned:expr $(,)?) => {
        /// The owned filter of the same contents (a copy of the store).
        pub fn into_owned(self) -> $filter {
            let $v = &self;
            $filter {
                $field: $owned,
                layout: self.layout,
                seed: self.seed,
                key: self.key,
                len: self.len,
            }
        }

        /// The check `view` leaves out, the checksum (a static filter has
        /// no other that reads the whole payload).
        ///
        /// # Errors
        /// [`Error::ChecksumMismatch`]($crate::Error::ChecksumMismatch).
        pub fn verify(&self) -> $crate::Result<()> {
            $crate::format::verify_checksum(self.file)
        }

        /// The saved filter the view reads, as it was given.
        pub fn as_bytes(&self) -> &'a [u8] {
            self.file
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_derived_then_random() {
        let derived: Vec<u64> = Seeds::new(5, 3, 0).collect();
        assert_eq!(derived.len(), 3);
        let mut state = 5;
        let expect: Vec<u64> = (0..3).map(|_| splitmix64(&mut state)).collect();
        assert_eq!(derived, expect);
        let mut seeds = Seeds::new(5, 3, 2);
        assert_eq!(seeds.by_ref().take(3).collect::<Vec<_>>(), expect);
        assert_eq!(seeds.attempt(), 3);
        assert_eq!(seeds.count(), 2);
        assert_eq!(Seeds::new(5, 0, 0).count(), 0);
        assert_eq!(Seeds::new(5, u32::MAX, u32::MAX).total, u32::MAX);
    }

    #[test]
    fn dedup_sorts_and_drops_repeats() {
        assert_eq!(dedup(&[][..] as &[u64]).unwrap(), Vec::<u64>::new());
        assert_eq!(dedup(&[9u64, 9, 9][..]).unwrap(), [9]);
        let key = HashKey::from_seed(1);
        let digests = [key.digest("a"), key.digest("b"), key.digest("a")];
        let mut h1s = vec![digests[0].h1(), digests[1].h1()];
        h1s.sort_unstable();
        assert_eq!(dedup(&digests[..]).unwrap(), h1s);
        assert_eq!(StaticKeys::count(&digests[..]), 3);
    }

    #[test]
    fn try_vec_reports_what_it_could_not_allocate() {
        assert_eq!(try_vec::<u32>(3, 10).unwrap(), [0, 0, 0]);
        assert!(try_vec::<u32>(3, 10).unwrap().capacity() >= 10);
        match try_vec::<u64>(0, usize::MAX / 8) {
            Err(Error::AllocationFailed { bytes }) => assert_eq!(bytes, usize::MAX / 8 * 8),
            other => panic!("expected AllocationFailed, got {other:?}"),
        }
    }
}
