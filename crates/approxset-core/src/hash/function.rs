//! The hash functions a filter can key: [`HashFunction`] and its parse
//! error.

use std::fmt;
use std::str::FromStr;

/// The function a filter applies to a key's canonical bytes (see [`Key`](crate::Key)),
/// chosen at build time and recorded in the saved file.
///
/// Only the function differs: every key path gives the same bytes under
/// each. Choose [`XXH3`](Self::Xxh3) only for keys no attacker chooses
/// (`docs/design.md`, "Hashing").
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::hash::HashFunction;
/// let f: HashFunction = "xxh3".parse()?;
/// assert_eq!(f, HashFunction::Xxh3);
/// assert_eq!(f.to_string(), "xxh3");
/// assert_eq!(HashFunction::default(), HashFunction::SipHash13x64);
/// # Ok::<(), approxset_core::hash::ParseHashFunctionError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum HashFunction {
    /// Keyed SipHash-1-3 with 128-bit output, keyed by the whole 128-bit
    /// [`HashKey`](crate::HashKey): the default before code 3, kept for the files written
    /// with it; safe against keys chosen by an attacker who does not know
    /// the filter's key.
    SipHash13,
    /// XXH3 with 128-bit output, seeded with `k0 ^ k1` of the
    /// [`HashKey`](crate::HashKey): several times faster on short keys, for keys an attacker
    /// cannot choose. `h1` is the low half, `h2` the high half.
    Xxh3,
    /// xxHash64 with seed 0, as Apache Parquet's split-block Bloom filters
    /// hash: `h1` is the hash and `h2` is 0, and the key's 128 bits are
    /// unused (zero). Only for variants that use `h1` alone (see
    /// [`format::tag::supports_hash`](crate::format::tag::supports_hash)).
    ParquetXxh64,
    /// Keyed SipHash-1-3 with 64-bit output `h1`, keyed by the whole
    /// 128-bit [`HashKey`](crate::HashKey), and `h2 = mix64(h1 ⊕ k1)`: the default, as safe
    /// against chosen keys as [`SipHash13`](Self::SipHash13) (two keys'
    /// digests collide only where their keyed 64-bit hashes do) at fewer
    /// instructions (`docs/design.md`, "Hashing").
    #[default]
    SipHash13x64,
}

impl HashFunction {
    /// Every function, in the order of their codes.
    pub const ALL: &'static [HashFunction] = &[
        HashFunction::SipHash13,
        HashFunction::Xxh3,
        HashFunction::ParquetXxh64,
        HashFunction::SipHash13x64,
    ];

    /// The name, as [`Display`](fmt::Display) prints it, [`FromStr`] reads
    /// it and the CLI's `--hash` takes it: `siphash`, `xxh3`,
    /// `parquet-xxh64` or `siphash64`.
    pub const fn name(self) -> &'static str {
        match self {
            HashFunction::SipHash13 => "siphash",
            HashFunction::Xxh3 => "xxh3",
            HashFunction::ParquetXxh64 => "parquet-xxh64",
            HashFunction::SipHash13x64 => "siphash64",
        }
    }

    /// The algorithm in full: `SipHash-1-3`, `XXH3-128`,
    /// `xxHash64 seed 0` or `SipHash-1-3-64, widened`.
    pub const fn algorithm(self) -> &'static str {
        match self {
            HashFunction::SipHash13 => "SipHash-1-3",
            HashFunction::Xxh3 => "XXH3-128",
            HashFunction::ParquetXxh64 => "xxHash64 seed 0",
            HashFunction::SipHash13x64 => "SipHash-1-3-64, widened",
        }
    }

    /// The function's code in the format (byte 7 of the envelope from
    /// version 3): 0 SipHash-1-3, 1 XXH3-128, 2 xxHash64 seed 0,
    /// 3 SipHash-1-3-64 widened.
    pub const fn code(self) -> u8 {
        match self {
            HashFunction::SipHash13 => 0,
            HashFunction::Xxh3 => 1,
            HashFunction::ParquetXxh64 => 2,
            HashFunction::SipHash13x64 => 3,
        }
    }

    /// The function numbered `code` in the format, if any.
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(HashFunction::SipHash13),
            1 => Some(HashFunction::Xxh3),
            2 => Some(HashFunction::ParquetXxh64),
            3 => Some(HashFunction::SipHash13x64),
            _ => None,
        }
    }

    /// Whether the function is keyed by the [`HashKey`](crate::HashKey), so that an attacker
    /// who does not know the key cannot predict a key's positions: true for
    /// the two SipHash-1-3 functions only. (XXH3's seed changes the digests
    /// but does not hide them: see `docs/design.md`, "Hashing".)
    pub const fn is_keyed(self) -> bool {
        matches!(self, HashFunction::SipHash13 | HashFunction::SipHash13x64)
    }
}

impl fmt::Display for HashFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HashFunction {
    type Err = ParseHashFunctionError;

    /// Parses a [`name`](HashFunction::name), ignoring ASCII case;
    /// `siphash-1-3`, `xxh3-128`, `xxhash64` and `siphash-1-3-64` are
    /// aliases.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        const ALIASES: [(&str, HashFunction); 4] = [
            ("siphash-1-3", HashFunction::SipHash13),
            ("xxh3-128", HashFunction::Xxh3),
            ("xxhash64", HashFunction::ParquetXxh64),
            ("siphash-1-3-64", HashFunction::SipHash13x64),
        ];
        HashFunction::ALL
            .iter()
            .map(|&f| (f.name(), f))
            .chain(ALIASES)
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|(_, f)| f)
            .ok_or_else(|| ParseHashFunctionError {
                input: s.to_owned(),
            })
    }
}

/// The error of parsing an unknown hash function name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseHashFunctionError {
    input: String,
}

impl fmt::Display for ParseHashFunctionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown hash function {:?}, expected one of ",
            self.input
        )?;
        for (i, h) in HashFunction::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(h.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseHashFunctionError {}
