//! Apache Spark's Bloom filter (`org.apache.spark.util.sketch.BloomFilter`),
//! read and written byte for byte.
//!
//! [`SparkBloomFilter`] answers exactly as Spark's `mightContain` and
//! serializes exactly as its `writeTo`, so that a filter built by
//! `df.stat.bloomFilter(…)` can be queried here and one built here can be
//! read by Spark's `BloomFilter.readFrom`. It follows Spark's own hashing
//! (its Murmur3 variant over the key's bytes, a long as its 8 little-endian
//! bytes), not approxset's [`Key`](crate::Key) digests, so it is not a
//! [`Variant`](crate::Variant) and does not implement the approxset traits.
//! The format and the hashing are written down in `docs/format.md`.
//!
//! ```
//! use approxset::spark::SparkBloomFilter;
//! let mut f = SparkBloomFilter::with_capacity(1_000, 0.01)?;
//! f.put_long(42);
//! f.put_str("alice");
//! assert!(f.might_contain_long(42) && f.might_contain_str("alice"));
//! let again = SparkBloomFilter::from_bytes(&f.to_bytes())?;
//! assert_eq!(again, f);
//! # Ok::<(), approxset::Error>(())
//! ```

use std::fmt;

use approxset_core::{Error, Result};

/// The most hash functions a filter read or built here may use. Spark
/// chooses `round(m/n·ln 2)`, far below this for any sensible size; the
/// bound keeps a forged file from making every lookup a long loop.
pub const MAX_HASH_FUNCTIONS: u32 = 1 << 16;

/// The most 64-bit words Spark's bit array holds (a Java `int` count).
pub const MAX_WORDS: u64 = i32::MAX as u64;

/// The serialized format version of a Spark Bloom filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SparkVersion {
    /// Version 1 (every Spark 2.x and 3.x, and Spark 4's
    /// `BloomFilter.create(Version.V1, …)`): 32-bit index arithmetic, seed 0.
    V1,
    /// Version 2 (the default of Spark 4): a stored seed and 64-bit index
    /// arithmetic, so that filters past 2³¹ bits use all their bits.
    V2,
}

impl SparkVersion {
    /// The version number in the serialized header.
    pub fn number(self) -> i32 {
        match self {
            SparkVersion::V1 => 1,
            SparkVersion::V2 => 2,
        }
    }

    /// The bytes before the bit array's word count.
    fn header_len(self) -> usize {
        match self {
            SparkVersion::V1 => 8,
            SparkVersion::V2 => 12,
        }
    }
}

impl fmt::Display for SparkVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// A Bloom filter in Apache Spark's format, answering as Spark does.
///
/// ```
/// use approxset::spark::{SparkBloomFilter, SparkVersion};
/// let mut f = SparkBloomFilter::new(SparkVersion::V1, 3, 1024, 0)?;
/// f.put_bytes(b"raw");
/// assert!(f.might_contain_bytes(b"raw"));
/// assert_eq!(f.to_bytes().len(), 8 + 4 + 1024 / 8);
/// # Ok::<(), approxset::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SparkBloomFilter {
    version: SparkVersion,
    num_hash_functions: u32,
    seed: i32,
    words: Vec<u64>,
}

impl fmt::Debug for SparkBloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparkBloomFilter")
            .field("version", &self.version)
            .field("num_hash_functions", &self.num_hash_functions)
            .field("seed", &self.seed)
            .field("bit_size", &self.bit_size())
            .finish()
    }
}

impl SparkBloomFilter {
    /// An empty filter as Spark's `BloomFilter.create(expectedNumItems, fpp)`
    /// makes it: version 2, seed 0, Spark's bit count and hash count.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `expected_items` = 0 or `fp_rate`
    /// outside (0, 1); as [`create`](Self::create) for the sizes.
    pub fn with_capacity(expected_items: u64, fp_rate: f64) -> Result<Self> {
        let bits = optimal_num_bits(expected_items, fp_rate)?;
        Self::create(SparkVersion::V2, expected_items, bits, 0)
    }

    /// An empty filter as Spark's `BloomFilter.create(version,
    /// expectedNumItems, numBits, seed)` makes it: the hash count
    /// `max(1, round(numBits / expectedNumItems · ln 2))`.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`Error::InvalidParameter`] for
    /// `expected_items` = 0.
    pub fn create(
        version: SparkVersion,
        expected_items: u64,
        num_bits: u64,
        seed: i32,
    ) -> Result<Self> {
        if expected_items == 0 || expected_items > i64::MAX as u64 {
            return Err(invalid("expected_items", "must be in 1..=2^63-1"));
        }
        // Java: max(1, (int) Math.round((double) m / n * Math.log(2))); the
        // (int) cast of the long keeps its low 32 bits.
        let k = (num_bits as f64 / expected_items as f64 * 2f64.ln()).round() as i64 as i32;
        Self::new(version, k.max(1) as u32, num_bits, seed)
    }

    /// An empty filter of `num_hash_functions` hashes over `num_bits` bits
    /// (rounded up to 64-bit words, as Spark's bit array does).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a hash count outside
    /// 1..=[`MAX_HASH_FUNCTIONS`], `num_bits` = 0 or more words than
    /// [`MAX_WORDS`], or a nonzero seed in version 1 (which has none);
    /// [`Error::AllocationFailed`] when the memory cannot be had.
    pub fn new(
        version: SparkVersion,
        num_hash_functions: u32,
        num_bits: u64,
        seed: i32,
    ) -> Result<Self> {
        check_hashes(num_hash_functions).map_err(|reason| invalid("num_hash_functions", reason))?;
        if num_bits == 0 {
            return Err(invalid("num_bits", "must be positive"));
        }
        let words = num_bits.div_ceil(64);
        if words > MAX_WORDS {
            return Err(invalid(
                "num_bits",
                format!("{num_bits} bits need more than {MAX_WORDS} 64-bit words"),
            ));
        }
        if version == SparkVersion::V1 && seed != 0 {
            return Err(invalid("seed", "version 1 has no seed (it is always 0)"));
        }
        let words =
            usize::try_from(words).map_err(|_| Error::AllocationFailed { bytes: usize::MAX })?;
        let mut v = Vec::new();
        v.try_reserve_exact(words)
            .map_err(|_| Error::AllocationFailed {
                bytes: words.saturating_mul(8),
            })?;
        v.resize(words, 0);
        Ok(SparkBloomFilter {
            version,
            num_hash_functions,
            seed,
            words: v,
        })
    }

    /// Whether `bytes` begins as a serialized Spark filter does (a version
    /// number 1 or 2, big-endian); [`from_bytes`](Self::from_bytes) checks
    /// the rest.
    pub fn is_spark(bytes: &[u8]) -> bool {
        matches!(bytes.get(..4), Some([0, 0, 0, 1 | 2]))
    }

    /// The filter Spark's `writeTo` wrote into `bytes`, every field checked:
    /// the word count must match the bytes present exactly.
    ///
    /// # Errors
    /// [`Error::Truncated`] for input shorter than its header or its words,
    /// [`Error::TrailingBytes`] for input longer than its words,
    /// [`Error::Corrupt`] for an unknown version, a hash count outside
    /// 1..=[`MAX_HASH_FUNCTIONS`] or a word count below 1.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let int_at = |at: usize| -> Result<i32> {
            match bytes.get(at..at + 4) {
                Some(b) => Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]])),
                None => Err(Error::Truncated {
                    needed: at as u64 + 4,
                    available: bytes.len() as u64,
                }),
            }
        };
        let version = match int_at(0)? {
            1 => SparkVersion::V1,
            2 => SparkVersion::V2,
            other => {
                return Err(Error::corrupt(format!(
                    "unknown spark bloom filter version {other} (1 and 2 are known)"
                )));
            }
        };
        let k = int_at(4)?;
        let k = u32::try_from(k)
            .map_err(|_| Error::corrupt(format!("spark filter with {k} hash functions")))?;
        check_hashes(k).map_err(|reason| Error::corrupt(format!("spark filter: {reason}")))?;
        let seed = match version {
            SparkVersion::V1 => 0,
            SparkVersion::V2 => int_at(8)?,
        };
        let at = version.header_len();
        let count = int_at(at)?;
        if count < 1 {
            return Err(Error::corrupt(format!(
                "spark filter with {count} words in its bit array (at least 1)"
            )));
        }
        let start = at + 4;
        let body = (bytes.len() - start) as u64;
        let needed = count as u64 * 8;
        if body < needed {
            return Err(Error::Truncated {
                needed: start as u64 + needed,
                available: bytes.len() as u64,
            });
        }
        if body > needed {
            return Err(Error::TrailingBytes {
                expected: start as u64 + needed,
                found: bytes.len() as u64,
            });
        }
        // The words are present, so the allocation is bounded by the input.
        let words = bytes[start..]
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        Ok(SparkBloomFilter {
            version,
            num_hash_functions: k,
            seed,
            words,
        })
    }

    /// The bytes Spark's `writeTo` writes for this filter (big-endian).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.version.header_len() + 4 + self.words.len() * 8);
        out.extend_from_slice(&self.version.number().to_be_bytes());
        out.extend_from_slice(&(self.num_hash_functions as i32).to_be_bytes());
        if self.version == SparkVersion::V2 {
            out.extend_from_slice(&self.seed.to_be_bytes());
        }
        // At most MAX_WORDS words (checked where every filter is made).
        out.extend_from_slice(&(self.words.len() as i32).to_be_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// The serialized format version.
    pub fn version(&self) -> SparkVersion {
        self.version
    }

    /// The number of hash functions (bit positions per key).
    pub fn num_hash_functions(&self) -> u32 {
        self.num_hash_functions
    }

    /// The Murmur3 seed of the first hash (always 0 in version 1).
    pub fn seed(&self) -> i32 {
        self.seed
    }

    /// The number of bits, a multiple of 64 (Spark's `bitSize`).
    pub fn bit_size(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// The number of set bits (Spark's `cardinality`).
    pub fn cardinality(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The false-positive rate at the present fill, `(set bits / bits)^k`
    /// (Spark's `expectedFpp`).
    pub fn expected_fpp(&self) -> f64 {
        (self.cardinality() as f64 / self.bit_size() as f64).powi(self.num_hash_functions as i32)
    }

    /// The bytes the bit array takes in memory.
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Adds a long (Spark's `putLong`; ints, shorts and bytes are widened
    /// to a long first, as Spark's `put` does). Returns whether a bit changed.
    pub fn put_long(&mut self, item: i64) -> bool {
        self.put_pair(hash_pair(&item.to_le_bytes(), self.seed))
    }

    /// Whether a long may be present (Spark's `mightContainLong`).
    pub fn might_contain_long(&self, item: i64) -> bool {
        self.contains_pair(hash_pair(&item.to_le_bytes(), self.seed))
    }

    /// Adds a byte array (Spark's `putBinary`). Returns whether a bit changed.
    pub fn put_bytes(&mut self, item: &[u8]) -> bool {
        self.put_pair(hash_pair(item, self.seed))
    }

    /// Whether a byte array may be present (Spark's `mightContainBinary`).
    pub fn might_contain_bytes(&self, item: &[u8]) -> bool {
        self.contains_pair(hash_pair(item, self.seed))
    }

    /// Adds a string as its UTF-8 bytes (Spark's `putString`).
    pub fn put_str(&mut self, item: &str) -> bool {
        self.put_bytes(item.as_bytes())
    }

    /// Whether a string may be present (Spark's `mightContainString`).
    pub fn might_contain_str(&self, item: &str) -> bool {
        self.might_contain_bytes(item.as_bytes())
    }

    /// ORs `other` into this filter (Spark's `mergeInPlace`).
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the version, bit size, hash count or
    /// seed differ; this filter is unchanged.
    pub fn union(&mut self, other: &SparkBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        Ok(())
    }

    /// ANDs `other` into this filter (Spark's `intersectInPlace`).
    ///
    /// # Errors
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &SparkBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
        Ok(())
    }

    fn check_compatible(&self, other: &SparkBloomFilter) -> Result<()> {
        let differ = |parameter: &'static str, a: String, b: String| Error::Incompatible {
            parameter,
            detail: format!("{a} and {b}"),
        };
        if self.version != other.version {
            return Err(differ(
                "version",
                self.version.to_string(),
                other.version.to_string(),
            ));
        }
        if self.words.len() != other.words.len() {
            let (a, b) = (self.bit_size(), other.bit_size());
            return Err(differ("bits", a.to_string(), b.to_string()));
        }
        if self.num_hash_functions != other.num_hash_functions {
            let (a, b) = (self.num_hash_functions, other.num_hash_functions);
            return Err(differ("hashes", a.to_string(), b.to_string()));
        }
        if self.seed != other.seed {
            return Err(differ(
                "seed",
                self.seed.to_string(),
                other.seed.to_string(),
            ));
        }
        Ok(())
    }

    /// Sets the key's bits; whether any changed.
    fn put_pair(&mut self, (h1, h2): (i32, i32)) -> bool {
        let mut changed = false;
        let (version, k, bits) = (self.version, self.num_hash_functions, self.bit_size());
        for_each_index(version, k, bits, h1, h2, |i| {
            let (w, mask) = ((i >> 6) as usize, 1u64 << (i & 63));
            changed |= self.words[w] & mask == 0;
            self.words[w] |= mask;
            true
        });
        changed
    }

    /// Whether every one of the key's bits is set.
    fn contains_pair(&self, (h1, h2): (i32, i32)) -> bool {
        let bits = self.bit_size();
        for_each_index(self.version, self.num_hash_functions, bits, h1, h2, |i| {
            self.words[(i >> 6) as usize] & (1u64 << (i & 63)) != 0
        })
    }
}

/// Spark's `optimalNumOfBits(n, p)`: `(long) (-n · ln p / (ln 2)²)`.
///
/// # Errors
/// [`Error::InvalidParameter`] for `expected_items` = 0 or `fp_rate`
/// outside (0, 1).
pub fn optimal_num_bits(expected_items: u64, fp_rate: f64) -> Result<u64> {
    if !(fp_rate > 0.0 && fp_rate < 1.0) {
        return Err(invalid("fp_rate", format!("{fp_rate} is outside (0, 1)")));
    }
    if expected_items == 0 || expected_items > i64::MAX as u64 {
        return Err(invalid("expected_items", "must be in 1..=2^63-1"));
    }
    let ln2 = 2f64.ln();
    Ok((-(expected_items as f64) * fp_rate.ln() / (ln2 * ln2)) as i64 as u64)
}

/// Calls `f` with each of the key's `k` bit indexes in Spark's order until
/// it returns false; whether every call returned true.
fn for_each_index(
    version: SparkVersion,
    k: u32,
    bits: u64,
    h1: i32,
    h2: i32,
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    // bits ≤ MAX_WORDS·64 < 2^37, positive; k ≤ MAX_HASH_FUNCTIONS.
    let bits = bits as i64;
    match version {
        SparkVersion::V1 => {
            for i in 1..=k as i32 {
                let mut combined = h1.wrapping_add(i.wrapping_mul(h2));
                if combined < 0 {
                    combined = !combined;
                }
                if !f((i64::from(combined) % bits) as u64) {
                    return false;
                }
            }
        }
        SparkVersion::V2 => {
            // |h1 · (2^31 − 1)| < 2^62: no overflow; Java's += wraps.
            let mut combined = i64::from(h1) * i64::from(i32::MAX);
            for _ in 0..k {
                combined = combined.wrapping_add(i64::from(h2));
                let index = if combined < 0 { !combined } else { combined };
                if !f((index % bits) as u64) {
                    return false;
                }
            }
        }
    }
    true
}

/// The hash count's bounds, as a reason when outside them.
fn check_hashes(k: u32) -> std::result::Result<(), String> {
    if (1..=MAX_HASH_FUNCTIONS).contains(&k) {
        Ok(())
    } else {
        Err(format!(
            "{k} hash functions (1..={MAX_HASH_FUNCTIONS} are accepted)"
        ))
    }
}

fn invalid(name: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidParameter {
        name,
        reason: reason.into(),
    }
}

/// Spark's two hashes of a key's bytes: `h1 = murmur3(bytes, seed)`,
/// `h2 = murmur3(bytes, h1)`.
fn hash_pair(bytes: &[u8], seed: i32) -> (i32, i32) {
    let h1 = murmur3_spark(bytes, seed);
    (h1, murmur3_spark(bytes, h1))
}

/// Spark's `Murmur3_x86_32.hashUnsafeBytes`: Murmur3 x86 32-bit over the
/// whole little-endian 4-byte words, then each tail byte, sign-extended, as
/// a word of its own (standard Murmur3 packs the tail into one word), then
/// the finalizer with the byte length. A long is its 8 little-endian bytes
/// (Spark's `hashLong`, which this equals).
fn murmur3_spark(bytes: &[u8], seed: i32) -> i32 {
    let mut h = seed as u32;
    let mut words = bytes.chunks_exact(4);
    for w in &mut words {
        h = mix_h1(h, mix_k1(u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    for &b in words.remainder() {
        h = mix_h1(h, mix_k1(b as i8 as i32 as u32));
    }
    fmix(h ^ bytes.len() as u32) as i32
}

fn mix_k1(k: u32) -> u32 {
    k.wrapping_mul(0xcc9e_2d51)
        .rotate_left(15)
        .wrapping_mul(0x1b87_3593)
}

fn mix_h1(h: u32, k: u32) -> u32 {
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests;
