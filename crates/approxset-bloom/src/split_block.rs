//! The split-block Bloom filter of Apache Parquet (the SBBF of the Parquet
//! format's `BloomFilter.md`, also Impala's, Kudu's and arrow-rs's): 256-bit
//! blocks of eight 32-bit words, one bit set in each word.
//!
//! A key's 64-bit hash is its digest's `h1`: the high 32 bits pick the block
//! by multiply-shift, ((h >> 32) · blocks) >> 32, and the low 32 bits `x`
//! pick bit (x · SALTᵢ) >> 27 of word `i`, for Parquet's eight odd salts. A
//! lookup computes the eight one-bit masks and compares them with the block
//! in one AND, with no branch on the data: eight lanes of 32 bits, which the
//! compiler turns into a handful of vector instructions. AVX2 has the
//! 32-bit lane multiply and the per-lane shift that SSE2 lacks, so where the
//! processor has it (detected once at run time) the same code runs compiled
//! for AVX2; the portable build is the fallback and the reference.
//!
//! Word `i` of block `j` is the little-endian `u32` at bytes 32j + 4i of
//! the payload, as in Parquet's bitset: in the filter's `u64` words it is
//! the low half (`i` even) or the high half (`i` odd) of word 4j + i/2, so
//! the bit is position 256j + 32i + b of the bit array.

use std::marker::PhantomData;

use approxset_core::sizing::{self, SPLIT_BLOCK_BITS, SPLIT_BLOCK_HASHES};
use approxset_core::{Error, HashFunction, HashKey, Result};

use crate::bits::BitVec;
use crate::bloom::Bloom;
use crate::layout::{Layout, SplitBlock};

/// A split-block Bloom filter, the layout of Apache Parquet's Bloom
/// filters: each key sets one bit in each of the eight 32-bit words of one
/// 256-bit block, so `contains` reads 32 bytes and tests them in one
/// comparison. `k` is always 8; it takes about 10 % more bits than the
/// classic filter at 1 % (`docs/design.md`, "Split-block Bloom filter").
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::SplitBlockBloomFilter;
///
/// let mut filter = SplitBlockBloomFilter::with_fp_rate(0.01).seed(7).expected_items(10_000)?;
/// for i in 0..10_000u32 {
///     filter.insert(&i)?;
/// }
/// assert!((0..10_000u32).all(|i| filter.contains(&i)));
/// let fp = (10_000..110_000u32).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_100, "{fp} false positives in 100,000 at a 1 % target");
/// assert_eq!((filter.bits() % 256, filter.hashes()), (0, 8));
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
pub type SplitBlockBloomFilter = Bloom<SplitBlock>;

/// Bytes of one block of a Parquet bitset: eight little-endian `u32` words.
const BLOCK_BYTES: usize = (SPLIT_BLOCK_BITS / 8) as usize;

/// Conversion to and from the bitset Apache Parquet stores for a column
/// chunk (the bytes after the chunk's Thrift `BloomFilterHeader`). The
/// filter's payload words hold exactly those bytes, so the conversion is a
/// copy; a bitset answers alike on both sides only in Parquet mode, with
/// keys hashed by xxHash64 seed 0 ([`HashFunction::ParquetXxh64`]) of their
/// plain encoding: a string's UTF-8 bytes (`insert("abc")`), an INT64's 8
/// little-endian bytes (`insert(&7i64)`), an INT32's 4 (`insert(&7i32)`).
/// `docs/format.md`, "Parquet bitsets", has the layout.
impl SplitBlockBloomFilter {
    /// The filter Parquet's bitset `bitset` describes, in Parquet mode (its
    /// key is the one key of [`HashFunction::ParquetXxh64`]), so that it
    /// answers every key as Parquet's own reader does.
    ///
    /// A bitset records neither a count nor a target, so those are derived
    /// from the bits: [`len`](Self::len) is the number of distinct items
    /// estimated from the fill ([`estimated_items`](Self::estimated_items),
    /// rounded; `usize::MAX` when every bit is set), and
    /// [`capacity`](Self::capacity) and [`fp_rate`](Self::fp_rate) are what
    /// [`with_num_bits`](Self::with_num_bits)`(8 · bitset.len()).hashes(8)`
    /// gives: the item count at the optimum, ⌊m·ln 2 / 8⌋, and the model's
    /// rate there. [`estimated_fp_rate`](Self::estimated_fp_rate) is the
    /// rate of the bits as they are, by the same model.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::SplitBlockBloomFilter;
    ///
    /// let mut bitset = vec![0u8; 64]; // two blocks, as Parquet would store them
    /// let mut filter = SplitBlockBloomFilter::from_parquet_bitset(&bitset)?;
    /// filter.insert("alice")?; // a BYTE_ARRAY value: its UTF-8 bytes
    /// filter.insert(&-7i64)?; // an INT64 value: 8 little-endian bytes
    /// bitset = filter.to_parquet_bitset()?;
    /// let again = SplitBlockBloomFilter::from_parquet_bitset(&bitset)?;
    /// assert!(again.contains("alice") && again.contains(&-7i64));
    /// assert_eq!((again.bits(), again.count_ones(), again.len()), (512, 16, 2));
    /// assert!(SplitBlockBloomFilter::from_parquet_bitset(&bitset[..40]).is_err());
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the length is not a positive multiple of 32
    /// bytes (whole blocks) or passes the layout's 2^32 blocks;
    /// [`Error::AllocationFailed`] when the copy cannot be had.
    pub fn from_parquet_bitset(bitset: &[u8]) -> Result<Self> {
        let bits = parquet_bits(bitset.len())?;
        let words = bitset
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
        let cells = BitVec::from_words_iter(words, bits)?;
        let capacity = sizing::optimal_items(bits, SPLIT_BLOCK_HASHES);
        let estimated =
            crate::estimate::items::<SplitBlock>(bits, SPLIT_BLOCK_HASHES, cells.count_ones());
        Ok(Bloom {
            cells,
            hashes: SPLIT_BLOCK_HASHES,
            scheme: SplitBlock::NEW_SCHEME,
            key: PARQUET_KEY,
            // Saturating: an infinite estimate (every bit set) is usize::MAX.
            len: estimated.round() as usize,
            capacity,
            fp_rate: SplitBlock::fp_rate(bits, capacity as u64, SPLIT_BLOCK_HASHES),
            layout: PhantomData,
        })
    }

    /// The filter's bits as Parquet's bitset for a column chunk (the bytes
    /// after the Thrift header): 32 bytes per block, each block eight
    /// little-endian `u32` words, ready for `parquet`'s `Sbbf::new`. See
    /// [`from_parquet_bitset`](Self::from_parquet_bitset) for an example.
    ///
    /// # Errors
    /// [`Error::Incompatible`] naming the hash function when the filter is
    /// not in Parquet mode (built without
    /// `.hash(HashFunction::ParquetXxh64)`): Parquet would look its keys up
    /// by another hash and miss them.
    pub fn to_parquet_bitset(&self) -> Result<Vec<u8>> {
        let function = self.key.function();
        if function != HashFunction::ParquetXxh64 {
            return Err(Error::Incompatible {
                parameter: "hash function",
                detail: format!(
                    "the filter hashes with {function} ({}), Parquet with {} ({}): \
                     build it with .hash(HashFunction::ParquetXxh64)",
                    function.algorithm(),
                    HashFunction::ParquetXxh64,
                    HashFunction::ParquetXxh64.algorithm()
                ),
            });
        }
        Ok(self
            .cells
            .words()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect())
    }
}

/// The key of every filter in Parquet mode: xxHash64 takes none.
const PARQUET_KEY: HashKey = HashKey::from_parts(0, 0).with_function(HashFunction::ParquetXxh64);

/// The bits of a Parquet bitset of `len` bytes: whole 32-byte blocks, at
/// least one and at most the layout's 2^32.
fn parquet_bits(len: usize) -> Result<u64> {
    let blocks = (len / BLOCK_BYTES) as u64;
    if len == 0 || len % BLOCK_BYTES != 0 {
        return Err(Error::corrupt(format!(
            "a Parquet bitset is whole blocks of {BLOCK_BYTES} bytes, at least one; got {len} bytes"
        )));
    }
    if blocks > sizing::MAX_SPLIT_BLOCKS {
        return Err(Error::corrupt(format!(
            "a Parquet bitset of {blocks} blocks passes the split-block filter's {} blocks",
            sizing::MAX_SPLIT_BLOCKS
        )));
    }
    Ok(blocks * SPLIT_BLOCK_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use crate::split_kernel::{BLOCK_WORDS, SALTS, contains, insert};
    use approxset_core::hash::splitmix64;
    use approxset_core::{Digest, ProbeScheme};

    fn digest(state: &mut u64) -> Digest {
        Digest::new(splitmix64(state), splitmix64(state))
    }

    #[test]
    fn the_kernel_sets_the_bits_of_the_positions() {
        // The positions are the reference: bit 256j + 32i + (x·SALTᵢ >> 27).
        let mut state = 7;
        let blocks = 37u64;
        for _ in 0..2000 {
            let d = digest(&mut state);
            let mut words = vec![0u64; blocks as usize * BLOCK_WORDS];
            assert_eq!(insert(&mut words, d), 8);
            assert_eq!(insert(&mut words, d), 0);
            let mut expected = vec![0u64; words.len()];
            let bits = blocks * SPLIT_BLOCK_BITS;
            for pos in SplitBlock::positions(bits, 8, ProbeScheme::DoubleHashing, d) {
                expected[(pos / 64) as usize] |= 1 << (pos % 64);
            }
            assert_eq!(words, expected);
            assert!(contains(&words, d));
        }
    }

    #[test]
    fn parquet_bytes_for_a_known_hash() {
        // Parquet's layout by hand: block ((h >> 32)·z) >> 32, then in word
        // i (little-endian u32 at byte 32j + 4i) bit (x·SALTᵢ) >> 27.
        let h: u64 = 0x9E37_79B9_7F4A_7C15;
        let z = 10u64;
        let j = (((h >> 32) * z) >> 32) as usize;
        let x = h as u32;
        let mut bytes = vec![0u8; z as usize * 32];
        for (i, salt) in SALTS.iter().enumerate() {
            let at = 32 * j + 4 * i;
            let word = 1u32 << (x.wrapping_mul(*salt) >> 27);
            bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
        let mut words = vec![0u64; z as usize * BLOCK_WORDS];
        insert(&mut words, Digest::new(h, 0));
        let ours: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(ours, bytes);
        // h2 plays no part.
        assert!(contains(&words, Digest::new(h, 12345)));
    }

    #[test]
    fn k_is_eight_and_blocks_at_most_two_to_the_32() {
        use approxset_core::Error;
        for k in [1, 7, 9, 64] {
            let err = SplitBlockBloomFilter::with_num_bits(1024)
                .hashes(k)
                .unwrap_err();
            assert!(
                matches!(err, Error::InvalidParameter { name: "hashes", .. }),
                "{k}: {err}"
            );
        }
        // Whole blocks, any count of them.
        let f = SplitBlockBloomFilter::with_num_bits(1000)
            .seed(1)
            .hashes(8)
            .unwrap();
        assert_eq!((f.bits(), f.hashes()), (1024, 8));
        let f = SplitBlockBloomFilter::with_num_bits(256 * 3)
            .hashes(8)
            .unwrap();
        assert_eq!(f.bits(), 768);
        // Past 2^32 blocks: refused before anything is allocated.
        let err = SplitBlockBloomFilter::with_num_bits((1 << 40) + 1)
            .hashes(8)
            .unwrap_err();
        assert!(
            matches!(err, Error::TooLarge { limit, .. } if limit == 1 << 37),
            "{err}"
        );
        let err = SplitBlockBloomFilter::new(1 << 40, 0.01).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
    }

    #[test]
    fn a_key_sets_one_bit_in_each_word_of_one_block() {
        let mut f = SplitBlockBloomFilter::with_num_bits(256 * 50)
            .seed(3)
            .hashes(8)
            .unwrap();
        for i in 0..200u32 {
            let mut g = SplitBlockBloomFilter::with_num_bits(256 * 50)
                .seed(3)
                .hashes(8)
                .unwrap();
            assert!(g.insert(&i).unwrap());
            assert!(!g.insert(&i).unwrap());
            assert_eq!(g.count_ones(), 8);
            let words = g.cells().words();
            let used: Vec<usize> = (0..words.len()).filter(|&j| words[j] != 0).collect();
            assert_eq!(used.len(), 4, "key {i}");
            assert_eq!(used[0] % 4, 0);
            assert_eq!(used[3], used[0] + 3);
            // One bit in each 32-bit half.
            for &j in &used {
                assert_eq!((words[j] as u32).count_ones(), 1);
                assert_eq!(((words[j] >> 32) as u32).count_ones(), 1);
            }
            f.insert(&i).unwrap();
        }
        assert!((0..200u32).all(|i| f.contains(&i)));
        // The running count agrees with a recount.
        let recount: u64 = f
            .cells()
            .words()
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum();
        assert_eq!(f.count_ones(), recount);
    }

    fn parquet_filter(blocks: u64) -> SplitBlockBloomFilter {
        SplitBlockBloomFilter::with_num_bits(blocks * SPLIT_BLOCK_BITS)
            .hash(HashFunction::ParquetXxh64)
            .hashes(8)
            .unwrap()
    }

    #[test]
    fn a_parquet_bitset_round_trips_bit_for_bit() {
        for blocks in [1u64, 37, 64] {
            let mut f = parquet_filter(blocks);
            for i in 0..blocks as i64 * 20 {
                f.insert(&i).unwrap();
                f.insert(&format!("v{i}")).unwrap();
            }
            let bitset = f.to_parquet_bitset().unwrap();
            assert_eq!(bitset.len() as u64, blocks * 32);
            let words: Vec<u8> = f
                .cells()
                .words()
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            assert_eq!(bitset, words, "the payload words, little-endian");
            let g = SplitBlockBloomFilter::from_parquet_bitset(&bitset).unwrap();
            assert_eq!(g.cells(), f.cells());
            assert_eq!(g.hash_key(), f.hash_key(), "the one Parquet key");
            assert_eq!(g.hash_key().function(), HashFunction::ParquetXxh64);
            assert!(
                (0..blocks as i64 * 20).all(|i| g.contains(&i) && g.contains(&format!("v{i}")))
            );
            // Same parameters and key: the two combine.
            f.check_compatible(&g).unwrap();
            assert_eq!(g.to_parquet_bitset().unwrap(), bitset);
            // The bookkeeping: capacity and target as with_num_bits gives,
            // len the fill's estimate.
            let sized = parquet_filter(blocks);
            assert_eq!(
                (g.capacity(), g.fp_rate()),
                (sized.capacity(), sized.fp_rate())
            );
            assert_eq!(g.len(), g.estimated_items().round() as usize);
            // And it persists in approxset's own format.
            assert_eq!(
                SplitBlockBloomFilter::from_bytes(&g.to_bytes().unwrap()).unwrap(),
                g
            );
        }
    }

    #[test]
    fn an_imported_bitset_counts_what_its_fill_says() {
        let empty = SplitBlockBloomFilter::from_parquet_bitset(&[0; 96]).unwrap();
        assert_eq!((empty.len(), empty.bits(), empty.count_ones()), (0, 768, 0));
        assert!(empty.is_empty() && empty.estimated_fp_rate() == 0.0);
        assert_eq!(
            empty.capacity(),
            (768.0 * std::f64::consts::LN_2 / 8.0) as usize
        );
        let full = SplitBlockBloomFilter::from_parquet_bitset(&[0xff; 32]).unwrap();
        assert_eq!(full.len(), usize::MAX);
        assert_eq!(full.estimated_fp_rate(), 1.0);
        assert!(full.contains("anything"));
        assert!(full.fp_rate() > 0.0 && full.fp_rate() < 1.0);
    }

    #[test]
    fn a_bitset_must_be_whole_blocks_within_the_limit() {
        for len in [0usize, 1, 31, 33, 40, 63] {
            let err = SplitBlockBloomFilter::from_parquet_bitset(&vec![0; len]).unwrap_err();
            assert!(matches!(err, Error::Corrupt { .. }), "{len}: {err}");
            assert!(
                err.to_string().contains(&format!("got {len} bytes")),
                "{err}"
            );
        }
        assert_eq!(parquet_bits(32).unwrap(), 256);
        #[cfg(target_pointer_width = "64")]
        {
            let max = (sizing::MAX_SPLIT_BLOCKS as usize) * 32;
            assert_eq!(parquet_bits(max).unwrap(), sizing::MAX_SPLIT_BLOCKS * 256);
            let err = parquet_bits(max + 32).unwrap_err();
            assert!(matches!(err, Error::Corrupt { .. }), "{err}");
        }
    }

    #[test]
    fn only_a_filter_in_parquet_mode_gives_a_bitset() {
        for function in [HashFunction::SipHash13, HashFunction::Xxh3] {
            let f = SplitBlockBloomFilter::with_num_bits(1024)
                .seed(1)
                .hash(function)
                .hashes(8)
                .unwrap();
            let err = f.to_parquet_bitset().unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::Incompatible {
                        parameter: "hash function",
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains(function.name()), "{err}");
        }
    }

    #[test]
    fn keys_hash_as_parquet_plain_encodings() {
        // Parquet hashes a value's plain encoding; our keys' canonical bytes
        // are the same: raw UTF-8, 8 LE bytes for INT64, 4 for INT32.
        let key = PARQUET_KEY;
        assert_eq!(key.digest("héllo"), key.digest_bytes("héllo".as_bytes()));
        assert_eq!(key.digest(&-5i64), key.digest_bytes(&(-5i64).to_le_bytes()));
        assert_eq!(key.digest(&-5i32), key.digest_bytes(&(-5i32).to_le_bytes()));
        assert_ne!(key.digest(&-5i32), key.digest(&-5i64));
        // xxHash64 of nothing with seed 0 (parquet-rs's own test value).
        assert_eq!(key.digest_bytes(b"").h1(), 17_241_709_254_077_376_921);
    }
}
