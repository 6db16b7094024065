//! Key hashing: one 128-bit digest per key (keyed SipHash-1-3 with 64-bit
//! output, widened by a keyed mix, unless the filter was built with
//! another [`HashFunction`]), and the probe sequence
//! every Bloom-family filter derives from it.
//!
//! A filter owns a [`HashKey`] (the key and the function it keys); hashing
//! an item with it gives a [`Digest`] (two 64-bit halves, `h1` and `h2`). Filters turn a digest into as many
//! positions as they need with [`Digest::probes`] (enhanced double hashing)
//! and [`reduce`] (multiply-shift range reduction).
//!
//! # Portability
//!
//! [`HashKey::digest`] hashes a key's canonical bytes (see [`Key`](crate::Key)): a
//! string, its byte string and [`HashKey::digest_bytes`] of the same bytes
//! give one digest, on every platform and compiler version, so a filter
//! saved anywhere answers the same everywhere. Only the [`Hashed`](crate::Hashed)
//! wrapper goes through the standard `Hash` trait, whose output Rust does not
//! promise to keep stable across platforms or releases.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};

use siphasher::sip::SipHasher13 as SipHasher13x64;
use siphasher::sip128::SipHasher13;
use xxhash_rust::{xxh3::xxh3_128_with_seed, xxh64::xxh64};

mod digest;
mod function;
mod mix;
mod xxh3;

pub use digest::{Digest, FirstProbes, ProbeScheme, Probes, mix_probe, reduce};
pub use function::{HashFunction, ParseHashFunctionError};
pub use mix::{SPLITMIX64_GAMMA, mix64, splitmix64};

/// The hash key of a filter: 128 key bits and the [`HashFunction`] they
/// key (the default function unless [`with_function`](Self::with_function)
/// says otherwise).
///
/// The key is part of a filter's identity: two filters can only be combined
/// or compared when their keys (function included) are equal, and a filter
/// saved to disk must be reloaded with its key. [`HashKey::random`] (the
/// default of every builder) makes the filter's positions unpredictable to
/// whoever chooses the keys inserted into it, like the standard library's
/// `RandomState`; [`HashKey::from_seed`] gives reproducible filters.
///
/// `Debug` does not print the key bits, so logs do not leak them.
// Equality is that of (`k0`, `k1`, `function`): `words` are a bijection of
// (`k0`, `k1`) for each function. `Hash` feeds `k0`, `k1` and `function`,
// as the derive did when those were the fields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct HashKey {
    /// The key bits in the form the function uses them, computed once here
    /// rather than for every key hashed: for the SipHash functions
    /// SipHash-1-3's initial state `v0..v3` (`k0 ⊕ "somepseu"`,
    /// `k1 ⊕ "dorandom"`, `k0 ⊕ "lygenera"`, `k1 ⊕ "tedbytes"`, and
    /// `v1 ⊕ 0xee` for the 128-bit output of
    /// [`SipHash13`](HashFunction::SipHash13)); for the others `k0`, `k1`,
    /// XXH3's seed `k0 ⊕ k1` and 0.
    words: [u64; 4],
    function: HashFunction,
}

/// SipHash's initialisation constants, "somepseudorandomlygeneratedbytes".
const SIP_INIT: [u64; 4] = [
    0x736f_6d65_7073_6575,
    0x646f_7261_6e64_6f6d,
    0x6c79_6765_6e65_7261,
    0x7465_6462_7974_6573,
];

/// What SipHash-1-3 with 128-bit output XORs into `v1` at the start.
const SIP_WIDE: u64 = 0xee;

impl Hash for HashKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // `k0`, `k1`, `function`: what `#[derive(Hash)]` fed, in its order,
        // when they were the fields.
        let (k0, k1) = self.to_parts();
        k0.hash(state);
        k1.hash(state);
        self.function.hash(state);
    }
}

impl HashKey {
    /// A key drawn from the operating system's randomness (through the
    /// standard library's `RandomState`).
    pub fn random() -> Self {
        let state = RandomState::new();
        HashKey::from_parts(
            state.hash_one(0x5eed_0000_u64),
            state.hash_one(0x5eed_0001_u64),
        )
    }

    /// A key derived from a 64-bit seed (by SplitMix64), for reproducible
    /// filters. Different seeds give unrelated keys.
    pub fn from_seed(seed: u64) -> Self {
        let mut state = seed;
        let k0 = splitmix64(&mut state);
        let k1 = splitmix64(&mut state);
        HashKey::from_parts(k0, k1)
    }

    /// The key made of two 64-bit halves, for the default function
    /// ([`HashFunction::SipHash13x64`]).
    pub const fn from_parts(k0: u64, k1: u64) -> Self {
        HashKey::keyed(k0, k1, HashFunction::SipHash13x64)
    }

    /// The key (`k0`, `k1`) of `function`, in the form `function` uses it.
    const fn keyed(k0: u64, k1: u64, function: HashFunction) -> Self {
        let words = match function {
            HashFunction::SipHash13x64 => [
                k0 ^ SIP_INIT[0],
                k1 ^ SIP_INIT[1],
                k0 ^ SIP_INIT[2],
                k1 ^ SIP_INIT[3],
            ],
            // 128-bit output: `v1 ⊕ 0xee` (the reference's `outlen == 16`).
            HashFunction::SipHash13 => [
                k0 ^ SIP_INIT[0],
                k1 ^ SIP_INIT[1] ^ SIP_WIDE,
                k0 ^ SIP_INIT[2],
                k1 ^ SIP_INIT[3],
            ],
            _ => [k0, k1, k0 ^ k1, 0],
        };
        HashKey { words, function }
    }

    /// This key applied to `function` instead. For
    /// [`ParquetXxh64`](HashFunction::ParquetXxh64), which takes no key,
    /// the key bits become 0, so that every such key is one key (and
    /// filters built with it can be combined).
    ///
    /// ```
    /// # extern crate approxset_core as approxset;
    /// use approxset::hash::{HashFunction, HashKey};
    /// let key = HashKey::from_seed(7).with_function(HashFunction::Xxh3);
    /// assert_eq!(key.function(), HashFunction::Xxh3);
    /// assert_ne!(key, HashKey::from_seed(7));
    /// assert_eq!(key.with_function(HashFunction::SipHash13x64), HashKey::from_seed(7));
    /// ```
    pub const fn with_function(self, function: HashFunction) -> Self {
        match function {
            HashFunction::ParquetXxh64 => HashKey::keyed(0, 0, function),
            _ => {
                let (k0, k1) = self.to_parts();
                HashKey::keyed(k0, k1, function)
            }
        }
    }

    /// The function this key keys.
    pub const fn function(self) -> HashFunction {
        self.function
    }

    /// The two 64-bit halves of the key (the function aside).
    pub const fn to_parts(self) -> (u64, u64) {
        let [a, b, ..] = self.words;
        match self.function {
            HashFunction::SipHash13x64 => (a ^ SIP_INIT[0], b ^ SIP_INIT[1]),
            HashFunction::SipHash13 => (a ^ SIP_INIT[0], b ^ SIP_INIT[1] ^ SIP_WIDE),
            _ => (a, b),
        }
    }

    /// XXH3's seed: both halves folded into one, so both matter. Of an
    /// [`Xxh3`](HashFunction::Xxh3) key only, which keeps it.
    const fn xxh3_seed(self) -> u64 {
        debug_assert!(matches!(self.function, HashFunction::Xxh3));
        self.words[2]
    }

    /// The key bits as 16 little-endian bytes (`k0` then `k1`; the function
    /// aside, as the format stores it).
    pub fn to_le_bytes(self) -> [u8; 16] {
        let (k0, k1) = self.to_parts();
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&k0.to_le_bytes());
        out[8..].copy_from_slice(&k1.to_le_bytes());
        out
    }

    /// The key of the default function from the 16 bytes written by
    /// [`HashKey::to_le_bytes`].
    pub fn from_le_bytes(bytes: [u8; 16]) -> Self {
        let mut k0 = [0u8; 8];
        let mut k1 = [0u8; 8];
        k0.copy_from_slice(&bytes[..8]);
        k1.copy_from_slice(&bytes[8..]);
        HashKey::from_parts(u64::from_le_bytes(k0), u64::from_le_bytes(k1))
    }

    /// The digest of a byte string: the same on every platform. SipHash-1-3
    /// and XXH3-128 give their 128 bits (`h1` the low half); xxHash64 gives
    /// `h1` = its hash and `h2` = 0; SipHash-1-3-64 gives `h1` = its hash
    /// and `h2` = [`mix64`]`(h1 ⊕ k1)`.
    #[inline]
    pub fn digest_bytes(&self, bytes: &[u8]) -> Digest {
        match self.function {
            HashFunction::SipHash13x64 => self.widen(siphash13_64(self.words, bytes)),
            HashFunction::SipHash13 => Digest::from_u128(siphash13_128(self.words, bytes)),
            HashFunction::Xxh3 => Digest::from_u128(xxh3_128_with_seed(bytes, self.xxh3_seed())),
            HashFunction::ParquetXxh64 => Digest::new(xxh64(bytes, 0), 0),
        }
    }

    /// [`digest_bytes`](Self::digest_bytes) of a fixed-length byte array
    /// (an integer key's bytes): the default function inlined, so that the
    /// length and the tail fold away.
    #[inline(always)]
    pub(crate) fn digest_fixed<const N: usize>(&self, bytes: &[u8; N]) -> Digest {
        if self.function == HashFunction::SipHash13x64 {
            self.widen(siphash13_64(self.words, bytes))
        } else {
            digest_other(*self, bytes)
        }
    }

    /// The digest of SipHash-1-3-64's `h1`: `h2` is [`mix64`] of `h1`
    /// under the key's second half, a bijection of `h1` for each key, so
    /// two keys' digests collide exactly where their keyed hashes do.
    #[inline(always)]
    fn widen(&self, h1: u64) -> Digest {
        // `k1` of a SipHash13x64 key, `v1 ⊕ "dorandom"`, without the
        // match of `to_parts`.
        debug_assert_eq!(self.function, HashFunction::SipHash13x64);
        Digest::new(h1, mix64(h1 ^ self.words[1] ^ SIP_INIT[1]))
    }

    /// The streaming hasher of this key, for keys written in parts.
    pub(crate) fn hasher(&self) -> KeyHasher {
        match self.function {
            HashFunction::SipHash13x64 => {
                let (k0, k1) = self.to_parts();
                KeyHasher::Sip64(SipHasher13x64::new_with_keys(k0, k1), *self)
            }
            HashFunction::SipHash13 => {
                let (k0, k1) = self.to_parts();
                KeyHasher::Sip(SipHasher13::new_with_keys(k0, k1))
            }
            HashFunction::Xxh3 => KeyHasher::Xxh3(Xxh3Sink {
                seed: self.xxh3_seed(),
                buf: [0; XXH3_GATHER],
                len: 0,
                stream: None,
            }),
            HashFunction::ParquetXxh64 => KeyHasher::Xxh64(xxhash_rust::xxh64::Xxh64::new(0)),
        }
    }
}

/// [`HashKey::digest_bytes`] out of line: the other functions' path of
/// [`HashKey::digest_fixed`]. A call keeps the inlined default one compare
/// and branch on the function (with `digest_bytes` inlined there, its
/// four-way match became a jump table on the default's path too), and
/// taking the key by value copies it only on this path (given its
/// address, LLVM copied the key to the stack before the branch, on every
/// call).
///
/// XXH3 of 8 bytes skips the length dispatch of `xxh3_128_with_seed`
/// (`xxh3.rs`) here: 75 → 52 instructions for a `u64` key (`icount
/// hash-xxh3`, less `none`), the default's `icount hash` 109 → 107. Inlined
/// in `digest_fixed`, after the default's branch, it took 42 but cost the
/// default 3 more (112).
#[inline(never)]
fn digest_other<const N: usize>(key: HashKey, bytes: &[u8; N]) -> Digest {
    match bytes.first_chunk::<8>() {
        Some(x) if N == 8 && key.function == HashFunction::Xxh3 => {
            Digest::from_u128(xxh3::xxh3_128_u64(u64::from_le_bytes(*x), key.xxh3_seed()))
        }
        _ => key.digest_bytes(bytes),
    }
}

/// The streaming form of [`HashKey::digest_bytes`]: bytes written in any
/// pieces give the digest of their concatenation.
pub(crate) enum KeyHasher {
    Sip(SipHasher13),
    /// The 64-bit hasher and the key that widens its hash.
    Sip64(SipHasher13x64, HashKey),
    Xxh3(Xxh3Sink),
    Xxh64(xxhash_rust::xxh64::Xxh64),
}

/// Bytes of a key written in parts that XXH3 gathers before hashing them
/// in one pass.
const XXH3_GATHER: usize = 128;

/// XXH3 of a key written in parts. xxhash-rust's seeded streaming state
/// derives a 192-byte secret from the seed, which costs more than hashing
/// a short key (a tuple of a short string and a `u64` took 1.4 times
/// SipHash's time through it), so the parts are gathered here and hashed
/// in one pass; only a key longer than the buffer streams, boxed, since
/// that state is about 600 bytes.
pub(crate) struct Xxh3Sink {
    seed: u64,
    buf: [u8; XXH3_GATHER],
    len: usize,
    stream: Option<Box<xxhash_rust::xxh3::Xxh3>>,
}

impl Xxh3Sink {
    fn write(&mut self, bytes: &[u8]) {
        if let Some(stream) = &mut self.stream {
            stream.update(bytes);
        } else if let Some(room) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            room.copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            let mut stream = Box::new(xxhash_rust::xxh3::Xxh3::with_seed(self.seed));
            stream.update(&self.buf[..self.len]);
            stream.update(bytes);
            self.stream = Some(stream);
        }
    }

    fn digest(&self) -> u128 {
        match &self.stream {
            Some(stream) => stream.digest128(),
            None => xxh3_128_with_seed(&self.buf[..self.len], self.seed),
        }
    }
}

impl KeyHasher {
    /// Appends bytes.
    #[inline]
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        match self {
            KeyHasher::Sip(h) => std::hash::Hasher::write(h, bytes),
            KeyHasher::Sip64(h, _) => std::hash::Hasher::write(h, bytes),
            KeyHasher::Xxh3(h) => h.write(bytes),
            KeyHasher::Xxh64(h) => h.update(bytes),
        }
    }

    /// The digest of everything written.
    pub(crate) fn digest(&self) -> Digest {
        use siphasher::sip128::Hasher128;
        match self {
            KeyHasher::Sip(h) => Digest::from_u128(h.finish128().as_u128()),
            KeyHasher::Sip64(h, key) => key.widen(std::hash::Hasher::finish(h)),
            KeyHasher::Xxh3(h) => Digest::from_u128(h.digest()),
            KeyHasher::Xxh64(h) => Digest::new(h.digest(), 0),
        }
    }
}

impl fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The states hold the key: print the function only.
        let name = match self {
            KeyHasher::Sip(_) => HashFunction::SipHash13,
            KeyHasher::Sip64(..) => HashFunction::SipHash13x64,
            KeyHasher::Xxh3(_) => HashFunction::Xxh3,
            KeyHasher::Xxh64(_) => HashFunction::ParquetXxh64,
        };
        write!(f, "KeyHasher({name}, <secret>)")
    }
}

impl Default for HashKey {
    /// A random key, as [`HashKey::random`].
    fn default() -> Self {
        HashKey::random()
    }
}

impl fmt::Debug for HashKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HashKey({}, <secret>)", self.function)
    }
}

/// SipHash-1-3 with 64-bit output (Aumasson and Bernstein 2012; one
/// compression round per 8-byte block, three finalisation rounds) of
/// `bytes` from the key's initial state `v` (its [`HashKey`]'s `words`), in
/// one pass: the value of `siphasher`'s `SipHasher13::hash` (tested),
/// written out so that a key of a fixed length (an integer's 8 bytes)
/// compiles to straight-line code with its length and tail folded, where
/// the crate's general loop cost about 40 more instructions per `u64` key
/// (`docs/design.md`, "Hashing"), and so that the key-dependent state is
/// not recomputed per key.
#[inline(always)]
fn siphash13_64(mut v: [u64; 4], bytes: &[u8]) -> u64 {
    sip13_compress(&mut v, bytes);
    v[2] ^= 0xff;
    sip_finalise(&mut v)
}

/// SipHash-1-3 with 128-bit output of `bytes` from the state `v` (with
/// the `0xee` of 128-bit mode in `v[1]`): `h1 | h2 << 64`, the value of
/// `siphasher`'s `sip128::SipHasher13::hash(…).as_u128()` (tested).
#[inline(always)]
fn siphash13_128(mut v: [u64; 4], bytes: &[u8]) -> u128 {
    sip13_compress(&mut v, bytes);
    v[2] ^= 0xee;
    let h1 = sip_finalise(&mut v);
    v[1] ^= 0xdd;
    let h2 = sip_finalise(&mut v);
    u128::from(h1) | (u128::from(h2) << 64)
}

/// SipHash-1-3's compression of `bytes` into `v`: one round per 8-byte
/// block, then one for the last block (the tail and the length's low
/// byte).
#[inline(always)]
fn sip13_compress(v: &mut [u64; 4], bytes: &[u8]) {
    let mut blocks = bytes.chunks_exact(8);
    for block in &mut blocks {
        let mut word = [0u8; 8];
        word.copy_from_slice(block);
        let m = u64::from_le_bytes(word);
        v[3] ^= m;
        sip_round(v);
        v[0] ^= m;
    }
    // The tail byte by byte: a copy of a variable length would be a call.
    let mut last = (bytes.len() as u64) << 56;
    for (i, &b) in blocks.remainder().iter().enumerate() {
        last |= u64::from(b) << (8 * i);
    }
    v[3] ^= last;
    sip_round(v);
    v[0] ^= last;
}

/// SipHash-1-3's three finalisation rounds, then the state folded into
/// 64 bits.
#[inline(always)]
fn sip_finalise(v: &mut [u64; 4]) -> u64 {
    sip_round(v);
    sip_round(v);
    sip_round(v);
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// One SipRound.
#[inline(always)]
fn sip_round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_the_reference() {
        // The first outputs for seed 1234567 of the reference implementation.
        let mut state = 1234567;
        assert_eq!(splitmix64(&mut state), 6457827717110365317);
        assert_eq!(splitmix64(&mut state), 3203168211198807973);
    }

    /// SipHash-1-3 with 128-bit output, written from the paper's description
    /// (one compression round, three finalisation rounds) over the module's
    /// one [`sip_round`], as a reference for the digest (the tests below
    /// hold it to `siphasher`).
    fn reference_siphash13_128(k0: u64, k1: u64, msg: &[u8]) -> u128 {
        let mut v = [
            k0 ^ 0x736f_6d65_7073_6575,
            k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee,
            k0 ^ 0x6c79_6765_6e65_7261,
            k1 ^ 0x7465_6462_7974_6573,
        ];
        let mut blocks = msg.chunks_exact(8);
        for block in &mut blocks {
            let m = u64::from_le_bytes(block.try_into().unwrap());
            v[3] ^= m;
            sip_round(&mut v);
            v[0] ^= m;
        }
        let mut last = (msg.len() as u64 & 0xff) << 56;
        for (i, b) in blocks.remainder().iter().enumerate() {
            last |= u64::from(*b) << (8 * i);
        }
        v[3] ^= last;
        sip_round(&mut v);
        v[0] ^= last;
        v[2] ^= 0xee;
        for _ in 0..3 {
            sip_round(&mut v);
        }
        let h1 = v[0] ^ v[1] ^ v[2] ^ v[3];
        v[1] ^= 0xdd;
        for _ in 0..3 {
            sip_round(&mut v);
        }
        let h2 = v[0] ^ v[1] ^ v[2] ^ v[3];
        u128::from(h1) | (u128::from(h2) << 64)
    }

    #[test]
    fn digest_bytes_is_siphash13_128() {
        let key = HashKey::from_parts(0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908)
            .with_function(HashFunction::SipHash13);
        let mut msg = Vec::new();
        for len in 0..40u8 {
            let d = key.digest_bytes(&msg);
            assert_eq!(
                d.to_u128(),
                reference_siphash13_128(0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908, &msg),
                "length {len}"
            );
            msg.push(len.wrapping_mul(37));
        }
    }

    /// The default: SipHash-1-3 with 64-bit output (the 128-bit
    /// reference's first finalisation, without the `0xee` of 128-bit mode)
    /// as `h1`, and `h2` its keyed mix.
    #[test]
    fn digest_bytes_is_siphash13_64_widened() {
        let (k0, k1) = (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908);
        let key = HashKey::from_parts(k0, k1);
        assert_eq!(key.function(), HashFunction::SipHash13x64);
        let mut msg = Vec::new();
        for len in 0..70u8 {
            let h1 = SipHasher13x64::new_with_keys(k0, k1).hash(&msg);
            assert_eq!(siphash13_64(key.words, &msg), h1, "length {len}");
            let d = key.digest_bytes(&msg);
            assert_eq!(d, Digest::new(h1, mix64(h1 ^ k1)), "length {len}");
            // Its own function, not the 128-bit one's halves.
            assert_ne!(
                d.h1(),
                reference_siphash13_128(k0, k1, &msg) as u64,
                "length {len}"
            );
            msg.push(len.wrapping_mul(37));
        }
        // SipHash-1-3-64's value for the empty input under this key, as
        // std's `SipHasher13` (the 64-bit mode) computes it.
        let h1 = SipHasher13x64::new_with_keys(k0, k1).hash(b"");
        assert_eq!(key.digest_bytes(b"").h1(), h1);
        // The streamed digest of bytes in parts is the one-pass digest.
        let mut sink = key.hasher();
        sink.write(b"ali");
        sink.write(b"ce");
        assert_eq!(sink.digest(), key.digest_bytes(b"alice"));
    }

    /// The keys the SipHash tests run under: the reference's, the edges
    /// and seeded ones.
    fn sip_test_keys() -> Vec<(u64, u64)> {
        let mut keys = vec![
            (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908),
            (0, 0),
            (u64::MAX, u64::MAX),
            (u64::MAX, 0),
        ];
        keys.extend((1..5).map(|s| HashKey::from_seed(s).to_parts()));
        keys
    }

    /// The state precomputed in the key gives `siphasher`'s values bit for
    /// bit, for both functions that use SipHash, at every length up to 70,
    /// in one pass, streamed and at fixed lengths.
    #[test]
    fn the_precomputed_sip_state_is_siphasher_bit_for_bit() {
        for (k0, k1) in sip_test_keys() {
            let key64 = HashKey::from_parts(k0, k1);
            let key128 = key64.with_function(HashFunction::SipHash13);
            assert_eq!(key128.function(), HashFunction::SipHash13);
            assert_ne!(key128.words, key64.words);
            assert_eq!(key128.to_parts(), (k0, k1));
            assert_eq!(key64.to_parts(), (k0, k1));
            assert_eq!(
                key128.with_function(HashFunction::SipHash13x64).words,
                key64.words
            );
            let mut msg = Vec::new();
            for len in 0..=70usize {
                let h1 = SipHasher13x64::new_with_keys(k0, k1).hash(&msg);
                let d = key64.digest_bytes(&msg);
                assert_eq!(d, Digest::new(h1, mix64(h1 ^ k1)), "{k0:x} {len}");
                let wide = SipHasher13::new_with_keys(k0, k1).hash(&msg).as_u128();
                assert_eq!(key128.digest_bytes(&msg).to_u128(), wide, "{k0:x} {len}");
                assert_eq!(wide, reference_siphash13_128(k0, k1, &msg), "{len}");
                for key in [key64, key128] {
                    let mut sink = key.hasher();
                    sink.write(&msg[..len / 3]);
                    sink.write(&msg[len / 3..]);
                    assert_eq!(sink.digest(), key.digest_bytes(&msg), "{len}");
                }
                msg.push((len as u8).wrapping_mul(37) ^ k0 as u8);
            }
            macro_rules! fixed {
                ($($n:literal)*) => {$(
                    let bytes: [u8; $n] =
                        std::array::from_fn(|i| (i as u8).wrapping_mul(101) ^ k1 as u8);
                    let h1 = SipHasher13x64::new_with_keys(k0, k1).hash(&bytes);
                    assert_eq!(key64.digest_fixed(&bytes).h1(), h1, "{}", $n);
                    for key in [key64, key128] {
                        assert_eq!(key.digest_fixed(&bytes), key.digest_bytes(&bytes), "{}", $n);
                    }
                )*};
            }
            fixed!(0 1 4 7 8 9 15 16 17 24 64 70);
        }
    }

    /// Equality and `Hash` are those of the key bits and the function
    /// alone (the derived ones of the fields before the SipHash state was
    /// kept), and the `const` constructors still are.
    #[test]
    fn equality_and_hash_are_the_key_bits_and_the_function() {
        use std::hash::DefaultHasher;
        const KEY: HashKey = HashKey::from_parts(1, 2).with_function(HashFunction::SipHash13);
        assert_eq!(KEY.to_parts(), (1, 2));
        // The state and the function: five words at most.
        assert!(std::mem::size_of::<HashKey>() <= 40);
        assert_eq!(
            KEY,
            HashKey::from_parts(1, 2).with_function(HashFunction::SipHash13)
        );
        for &f in HashFunction::ALL {
            for (k0, k1) in sip_test_keys() {
                let key = HashKey::from_parts(k0, k1).with_function(f);
                let (a, b) = key.to_parts();
                let mut h = DefaultHasher::new();
                key.hash(&mut h);
                let mut g = DefaultHasher::new();
                a.hash(&mut g);
                b.hash(&mut g);
                f.hash(&mut g);
                assert_eq!(h.finish(), g.finish(), "{f}");
                assert_eq!(key, HashKey::from_parts(a, b).with_function(f));
                let bits = if f == HashFunction::ParquetXxh64 {
                    (0, 0)
                } else {
                    (k0, k1)
                };
                assert_eq!((a, b), bits, "{f}");
                assert_eq!(
                    HashKey::from_le_bytes(key.to_le_bytes()).with_function(f),
                    key
                );
                for &other in HashFunction::ALL {
                    assert_eq!(key == key.with_function(other), other == f, "{f} {other}");
                }
            }
        }
    }

    #[test]
    fn each_function_is_its_crate_function_of_the_bytes() {
        let key = HashKey::from_parts(0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908);
        let seed = 0x0706_0504_0302_0100 ^ 0x0f0e_0d0c_0b0a_0908;
        let xxh3 = key.with_function(HashFunction::Xxh3);
        let parquet = key.with_function(HashFunction::ParquetXxh64);
        let mut msg = Vec::new();
        for len in 0..300u32 {
            let d = xxh3.digest_bytes(&msg);
            assert_eq!(d.to_u128(), xxh3_128_with_seed(&msg, seed), "length {len}");
            assert_eq!(parquet.digest_bytes(&msg), Digest::new(xxh64(&msg, 0), 0));
            assert_ne!(d, key.digest_bytes(&msg), "length {len}");
            msg.push(len.wrapping_mul(37) as u8);
        }
        // xxHash64's published value for the empty input, seed 0.
        assert_eq!(parquet.digest_bytes(b"").h1(), 0xEF46_DB37_51D8_E999);
        // XXH3-128's published value for the empty input, seed 0.
        assert_eq!(
            HashKey::from_parts(0, 0)
                .with_function(HashFunction::Xxh3)
                .digest_bytes(b"")
                .to_u128(),
            0x99aa_06d3_0147_98d8_6001_c324_468d_497f
        );
    }

    #[test]
    fn functions_are_part_of_the_key() {
        let key = HashKey::from_seed(1);
        assert_eq!(key.function(), HashFunction::SipHash13x64);
        let xxh3 = key.with_function(HashFunction::Xxh3);
        assert_ne!(key, xxh3);
        assert_eq!(xxh3.to_parts(), key.to_parts());
        assert_eq!(xxh3.with_function(HashFunction::SipHash13x64), key);
        // The 128-bit SipHash is another function of the same key bits.
        let sip128 = key.with_function(HashFunction::SipHash13);
        assert_ne!(sip128, key);
        assert_ne!(sip128.digest_bytes(b"alice"), key.digest_bytes(b"alice"));
        // xxHash64 takes no key: every such key is one.
        let p = key.with_function(HashFunction::ParquetXxh64);
        assert_eq!(p.to_parts(), (0, 0));
        assert_eq!(
            p,
            HashKey::from_seed(2).with_function(HashFunction::ParquetXxh64)
        );
        // The seed matters under XXH3.
        let other = HashKey::from_seed(2).with_function(HashFunction::Xxh3);
        assert_ne!(xxh3.digest_bytes(b"alice"), other.digest_bytes(b"alice"));
        assert!(format!("{xxh3:?}").contains("xxh3"));
    }

    #[test]
    fn names_and_codes_round_trip() {
        for (i, &f) in HashFunction::ALL.iter().enumerate() {
            assert_eq!(usize::from(f.code()), i);
            assert_eq!(HashFunction::from_code(f.code()), Some(f));
            assert_eq!(f.to_string().parse::<HashFunction>(), Ok(f));
            assert_eq!(f.name().to_uppercase().parse::<HashFunction>(), Ok(f));
        }
        assert_eq!(HashFunction::from_code(4), None);
        assert_eq!(HashFunction::default().code(), 3);
        assert_eq!("siphash-1-3".parse(), Ok(HashFunction::SipHash13));
        let err = "md5".parse::<HashFunction>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown hash function \"md5\", expected one of siphash, xxh3, parquet-xxh64, siphash64"
        );
        assert!(HashFunction::SipHash13.is_keyed() && !HashFunction::Xxh3.is_keyed());
        assert!(HashFunction::SipHash13x64.is_keyed());
    }

    #[test]
    fn keys_change_digests() {
        let a = HashKey::from_seed(1);
        let b = HashKey::from_seed(2);
        assert_ne!(a, b);
        assert_ne!(a.digest_bytes(b"alice"), b.digest_bytes(b"alice"));
        assert_eq!(a.digest_bytes(b"alice"), a.digest_bytes(b"alice"));
        assert_ne!(HashKey::random(), HashKey::random());
    }

    #[test]
    fn key_bytes_round_trip() {
        let k = HashKey::from_parts(0x0102_0304_0506_0708, 0x1112_1314_1516_1718);
        assert_eq!(HashKey::from_le_bytes(k.to_le_bytes()), k);
        assert_eq!(k.to_le_bytes()[0], 0x08);
        assert_eq!(k.to_parts(), (0x0102_0304_0506_0708, 0x1112_1314_1516_1718));
    }

    #[test]
    fn debug_hides_the_key() {
        let s = format!("{:?}", HashKey::from_parts(0xdead_beef, 0xfeed));
        assert!(!s.contains("dead") && !s.to_lowercase().contains("deadbeef"));
        assert!(!s.contains(&0xdead_beef_u64.to_string()));
    }

    #[test]
    fn probes_follow_enhanced_double_hashing() {
        // Closed form of the recurrence: xᵢ = h1 + i·y₀ + (i³ − i)/6.
        let (h1, h2) = (u64::MAX - 20, 0x1234_5678_9abc_def0_u64);
        let y0 = h2 | 1;
        for (i, x) in Digest::new(h1, h2).probes().take(64).enumerate() {
            let i = i as u64;
            let expected = h1
                .wrapping_add(i.wrapping_mul(y0))
                .wrapping_add((i * i * i - i) / 6);
            assert_eq!(x, expected, "probe {i}");
        }
    }

    #[test]
    fn one_probe_is_the_sequence_item() {
        for seed in 0..100u64 {
            let d = Digest::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), !seed << 7);
            for (i, x) in d.probes().take(300).enumerate() {
                assert_eq!(d.probe(i as u32), x, "probe {i}");
            }
        }
        // Far out, against the recurrence stepped by hand, on both sides
        // of the switch to 128 bits.
        let d = Digest::new(u64::MAX, u64::MAX);
        for i in [100_000u32, (1 << 21) - 1, 1 << 21, 3_000_000] {
            assert_eq!(d.probe(i), d.probes().nth(i as usize).unwrap(), "{i}");
        }
    }

    #[test]
    fn first_probes_are_the_sequence_cut_at_k() {
        for seed in 0..20u64 {
            let d = Digest::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), !seed << 3);
            for k in 0..=40u32 {
                let mut first = d.first_probes(k);
                assert_eq!(first.len(), k as usize);
                let got: Vec<u64> = first.by_ref().collect();
                let want: Vec<u64> = d.probes().take(k as usize).collect();
                assert_eq!(got, want, "k = {k}");
                assert_eq!((first.len(), first.next()), (0, None));
            }
        }
    }

    #[test]
    fn zero_digest_still_probes_distinct_positions() {
        // fastbloom derived h2 from h1, so h1 = 0 gave a step of 0 and every
        // probe hit the same bit. Here the step is never 0.
        let probes: Vec<u64> = Digest::new(0, 0).probes().take(8).collect();
        let mut dedup = probes.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), 8);
    }

    #[test]
    fn reduce_covers_the_range_exactly() {
        assert_eq!(reduce(0, 1000), 0);
        assert_eq!(reduce(u64::MAX, 1000), 999);
        assert_eq!(reduce(u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(reduce(1 << 63, 1 << 40), 1 << 39);
        assert_eq!(reduce(12345, 0), 0);
        // A range of 2^40 bits is reached: the top hash maps near its end.
        let m = 1u64 << 40;
        assert_eq!(reduce(u64::MAX, m), m - 1);
        assert!(reduce(u64::MAX / 3 * 2, m) > (1u64 << 32));
    }

    #[test]
    fn digest_u128_round_trip() {
        let d = Digest::new(7, 9);
        assert_eq!(Digest::from_u128(d.to_u128()), d);
        assert_eq!(d.h1(), 7);
        assert_eq!(d.h2(), 9);
    }
}
