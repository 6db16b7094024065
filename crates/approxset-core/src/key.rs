//! Keys: the canonical bytes each key type contributes to its digest, the
//! same on every platform and on every path into a filter.
//!
//! `insert("alice")`, `insert(&String::from("alice"))`, `insert(b"alice")`,
//! `insert_bytes(b"alice")` and the CLI line `alice` hash the same five
//! bytes, so they are one key. Rust's `Hash` is not such an encoding (it
//! appends a terminator to `str`, a `usize` length to `[u8]`, and is not
//! promised stable across platforms or releases); types that only implement
//! `Hash` go through the [`Hashed`] wrapper, which is documented as not
//! portable.

use std::hash::Hash;

use crate::hash::{Digest, HashKey, KeyHasher};

/// Where a key writes its canonical bytes: the hash function of a digest,
/// or a counter that measures a part of a tuple.
#[derive(Debug)]
pub struct KeySink {
    inner: Sink,
}

#[derive(Debug)]
enum Sink {
    Hash(KeyHasher),
    Count(u64),
}

impl KeySink {
    /// A sink feeding the digest under `key` (its function, keyed).
    pub(crate) fn hashing(key: &HashKey) -> Self {
        KeySink {
            inner: Sink::Hash(key.hasher()),
        }
    }

    /// The digest of everything written (zero for a counting sink).
    pub(crate) fn digest(&self) -> Digest {
        match &self.inner {
            Sink::Hash(h) => h.digest(),
            Sink::Count(_) => Digest::new(0, 0),
        }
    }

    /// Appends bytes to the key's canonical form.
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) {
        match &mut self.inner {
            Sink::Hash(h) => h.write(bytes),
            Sink::Count(n) => *n += bytes.len() as u64,
        }
    }

    /// Appends one part of a composite key (a tuple element) so that the
    /// parts cannot run into each other: its byte length as a `u64` LE, then
    /// its bytes.
    pub fn write_part<K: Key + ?Sized>(&mut self, part: &K) {
        let mut counter = KeySink {
            inner: Sink::Count(0),
        };
        part.write_key(&mut counter);
        let Sink::Count(len) = counter.inner else {
            unreachable!("a counting sink")
        };
        self.write(&len.to_le_bytes());
        part.write_key(self);
    }
}

/// A key type: what bytes it contributes to its digest. Implemented for
/// strings and byte strings (their bytes), integers (fixed-width
/// little-endian; `usize`/`isize` as 64-bit), `bool` (one byte), `char` (its
/// code point as a `u32`), references and boxes of keys, and tuples of up to
/// four keys (each part length-prefixed).
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::HashKey;
/// let key = HashKey::from_seed(1);
/// let a = key.digest("alice");
/// assert_eq!(a, key.digest(&String::from("alice")));
/// assert_eq!(a, key.digest(b"alice"));
/// assert_eq!(a, key.digest_bytes(b"alice"));
/// assert_eq!(key.digest(&7u32), key.digest_bytes(&7u32.to_le_bytes()));
/// ```
///
/// Implement it for your own key types by writing a canonical form, e.g.
/// a struct's fields through [`KeySink::write_part`].
pub trait Key {
    /// Writes the key's canonical bytes into `sink`.
    fn write_key(&self, sink: &mut KeySink);

    /// The key's digest under `key`: the bytes of
    /// [`write_key`](Self::write_key) streamed through the key's function.
    /// The library's keys whose canonical form is one byte string (strings,
    /// byte strings, integers, `bool`, `char`) override it to hash that
    /// string in one pass, which gives the same digest in fewer
    /// instructions; an override must keep that equality.
    #[doc(hidden)]
    #[inline]
    fn digest_under(&self, key: &HashKey) -> Digest {
        let mut sink = KeySink::hashing(key);
        self.write_key(&mut sink);
        sink.digest()
    }
}

/// The `write_key` and one-pass `digest_under` of a key whose canonical
/// form is the byte string `$bytes` (an expression of `$self`); `fixed`
/// for a byte array of a fixed length, whose digest compiles to
/// straight-line code.
macro_rules! byte_string_key {
    (fixed $self:ident => $bytes:expr) => {
        #[inline]
        fn write_key(&$self, sink: &mut KeySink) {
            sink.write($bytes);
        }

        #[inline]
        fn digest_under(&$self, key: &HashKey) -> Digest {
            key.digest_fixed($bytes)
        }
    };
    ($self:ident => $bytes:expr) => {
        #[inline]
        fn write_key(&$self, sink: &mut KeySink) {
            sink.write($bytes);
        }

        #[inline]
        fn digest_under(&$self, key: &HashKey) -> Digest {
            key.digest_bytes($bytes)
        }
    };
}

/// The `write_key` and `digest_under` of a pointer to a key: the key's own.
macro_rules! pointer_key {
    () => {
        #[inline]
        fn write_key(&self, sink: &mut KeySink) {
            (**self).write_key(sink);
        }

        #[inline]
        fn digest_under(&self, key: &HashKey) -> Digest {
            (**self).digest_under(key)
        }
    };
}

impl HashKey {
    /// The digest of a key: the key's function applied to its canonical
    /// bytes (see [`Key`]), the same on every platform; for a string or
    /// byte string, the same as [`digest_bytes`](Self::digest_bytes).
    #[inline]
    pub fn digest<K: Key + ?Sized>(&self, item: &K) -> Digest {
        item.digest_under(self)
    }
}

impl Key for str {
    byte_string_key!(self => self.as_bytes());
}

impl Key for String {
    byte_string_key!(self => self.as_bytes());
}

impl Key for [u8] {
    byte_string_key!(self => self);
}

impl Key for Vec<u8> {
    byte_string_key!(self => self);
}

impl<const N: usize> Key for [u8; N] {
    byte_string_key!(self => self);
}

impl<K: Key + ?Sized> Key for &K {
    pointer_key!();
}

impl<K: Key + ?Sized> Key for &mut K {
    pointer_key!();
}

impl<K: Key + ?Sized> Key for Box<K> {
    pointer_key!();
}

/// Integers as fixed-width little-endian bytes.
macro_rules! int_keys {
    ($($t:ty => $as:ty),*) => {$(
        impl Key for $t {
            byte_string_key!(fixed self => &(*self as $as).to_le_bytes());
        }
    )*};
}

int_keys!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => u64,
    i8 => i8, i16 => i16, i32 => i32, i64 => i64, i128 => i128, isize => i64
);

impl Key for bool {
    byte_string_key!(fixed self => &[u8::from(*self)]);
}

impl Key for char {
    byte_string_key!(fixed self => &u32::from(*self).to_le_bytes());
}

/// Tuples: each part length-prefixed, so `("ab", "c")` and `("a", "bc")`
/// are different keys.
macro_rules! tuple_keys {
    ($(($($name:ident),+)),*) => {$(
        impl<$($name: Key),+> Key for ($($name,)+) {
            #[allow(non_snake_case)]
            fn write_key(&self, sink: &mut KeySink) {
                let ($($name,)+) = self;
                $(sink.write_part($name);)+
            }
        }
    )*};
}

tuple_keys!((A, B), (A, B, C), (A, B, C, D));

/// A key hashed through its `std::hash::Hash` implementation, for types that
/// have no [`Key`] encoding. Not portable: `Hash` output may differ between
/// platforms and Rust releases, so a filter filled this way should not be
/// saved and read elsewhere, and `Hashed(&"a")` is not the key `"a"`.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::{HashKey, Hashed};
/// #[derive(Hash)]
/// struct Point { x: i32, y: i32 }
/// let key = HashKey::from_seed(1);
/// let d = key.digest(&Hashed(&Point { x: 1, y: 2 }));
/// assert_eq!(d, key.digest(&Hashed(&Point { x: 1, y: 2 })));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Hashed<T>(pub T);

impl<T: Hash> Key for Hashed<T> {
    fn write_key(&self, sink: &mut KeySink) {
        self.0.hash(&mut HashBridge(sink));
    }
}

/// Feeds `std::hash::Hash` output into a key sink.
struct HashBridge<'a>(&'a mut KeySink);

impl std::hash::Hasher for HashBridge<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    fn finish(&self) -> u64 {
        // Never used: the digest is taken from the sink.
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_of_a_string_is_one_key() {
        let key = HashKey::from_seed(3);
        let d = key.digest_bytes(b"alice");
        assert_eq!(key.digest("alice"), d);
        assert_eq!(key.digest(&"alice"), d);
        assert_eq!(key.digest(&String::from("alice")), d);
        assert_eq!(key.digest(&&String::from("alice")), d);
        assert_eq!(key.digest(b"alice"), d);
        assert_eq!(key.digest(&b"alice"[..]), d);
        assert_eq!(key.digest(&b"alice".to_vec()), d);
        assert_eq!(key.digest(&Box::<str>::from("alice")), d);
    }

    #[test]
    fn integers_are_fixed_width_little_endian() {
        let key = HashKey::from_seed(3);
        assert_eq!(key.digest(&1u8), key.digest_bytes(&[1]));
        assert_eq!(key.digest(&258u16), key.digest_bytes(&[2, 1]));
        assert_eq!(key.digest(&-1i32), key.digest_bytes(&[0xFF; 4]));
        assert_eq!(key.digest(&5usize), key.digest_bytes(&5u64.to_le_bytes()));
        assert_eq!(
            key.digest(&-5isize),
            key.digest_bytes(&(-5i64).to_le_bytes())
        );
        assert_eq!(key.digest(&7u128), key.digest_bytes(&7u128.to_le_bytes()));
        assert_eq!(key.digest(&true), key.digest_bytes(&[1]));
        assert_eq!(key.digest(&'é'), key.digest_bytes(&0xE9u32.to_le_bytes()));
        // Width is part of the key: 1u8 and 1u16 differ.
        assert_ne!(key.digest(&1u8), key.digest(&1u16));
    }

    #[test]
    fn tuple_parts_do_not_run_together() {
        let key = HashKey::from_seed(3);
        assert_ne!(key.digest(&("ab", "c")), key.digest(&("a", "bc")));
        let mut expected = Vec::new();
        expected.extend_from_slice(&2u64.to_le_bytes());
        expected.extend_from_slice(b"ab");
        expected.extend_from_slice(&4u64.to_le_bytes());
        expected.extend_from_slice(&7u32.to_le_bytes());
        assert_eq!(key.digest(&("ab", 7u32)), key.digest_bytes(&expected));
        assert_eq!(
            key.digest(&("ab", 7u32)),
            key.digest(&(String::from("ab"), 7u32))
        );
    }

    /// A key that streams its bytes one at a time, through the provided
    /// `digest_under`.
    struct Bytewise<'a>(&'a [u8]);

    impl Key for Bytewise<'_> {
        fn write_key(&self, sink: &mut KeySink) {
            for b in self.0 {
                sink.write(std::slice::from_ref(b));
            }
        }
    }

    #[test]
    fn one_pass_digests_equal_the_streamed_ones() {
        let mut state = 9;
        let key = HashKey::from_seed(5);
        let mut msg = Vec::new();
        for len in 0..70 {
            assert_eq!(key.digest(&Bytewise(&msg)), key.digest_bytes(&msg), "{len}");
            msg.push(crate::hash::splitmix64(&mut state) as u8);
        }
        for _ in 0..1000 {
            let x = crate::hash::splitmix64(&mut state);
            let streamed = |bytes: &[u8]| key.digest(&Bytewise(bytes));
            assert_eq!(key.digest(&x), streamed(&x.to_le_bytes()));
            assert_eq!(key.digest(&(x as u32)), streamed(&(x as u32).to_le_bytes()));
            assert_eq!(key.digest(&(x as i16)), streamed(&(x as i16).to_le_bytes()));
            assert_eq!(
                key.digest(&u128::from(x)),
                streamed(&u128::from(x).to_le_bytes())
            );
            assert_eq!(key.digest(&&x), streamed(&x.to_le_bytes()));
            assert_eq!(key.digest(&Box::new(x)), streamed(&x.to_le_bytes()));
            let s = format!("{x:x}");
            assert_eq!(key.digest(s.as_str()), streamed(s.as_bytes()));
            assert_eq!(key.digest(&(x & 1 == 1)), streamed(&[(x & 1) as u8]));
        }
    }

    #[test]
    fn streamed_digests_equal_one_pass_for_every_function() {
        let mut state = 17;
        for &function in crate::hash::HashFunction::ALL {
            let key = HashKey::from_seed(5).with_function(function);
            let mut msg = Vec::new();
            // Past XXH3's 240-byte short path and its 1 KiB stripes.
            for len in 0..1100 {
                assert_eq!(
                    key.digest(&Bytewise(&msg)),
                    key.digest_bytes(&msg),
                    "{function} {len}"
                );
                msg.push(crate::hash::splitmix64(&mut state) as u8);
            }
            let mut tuple = Vec::new();
            tuple.extend_from_slice(&2u64.to_le_bytes());
            tuple.extend_from_slice(b"ab");
            tuple.extend_from_slice(&8u64.to_le_bytes());
            tuple.extend_from_slice(&7u64.to_le_bytes());
            assert_eq!(
                key.digest(&("ab", 7u64)),
                key.digest_bytes(&tuple),
                "{function}"
            );
            // Parts that overflow XXH3's gathering buffer in one write.
            for long in [120, 128, 300] {
                let part = "x".repeat(long);
                let mut tuple = Vec::new();
                tuple.extend_from_slice(&1u64.to_le_bytes());
                tuple.push(b'a');
                tuple.extend_from_slice(&(long as u64).to_le_bytes());
                tuple.extend_from_slice(part.as_bytes());
                let digest = key.digest(&("a", part.as_str()));
                assert_eq!(digest, key.digest_bytes(&tuple), "{function} {long}");
            }
        }
    }

    #[test]
    fn hashed_keys_follow_std_hash() {
        let key = HashKey::from_seed(3);
        // str's Hash appends 0xFF: not the key "a".
        assert_ne!(key.digest(&Hashed("a")), key.digest("a"));
        assert_eq!(key.digest(&Hashed("a")), key.digest_bytes(b"a\xff"));
    }
}
