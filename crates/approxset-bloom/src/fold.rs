//! Fold-to-fit: a classic or split-block filter built for an upper bound
//! on its items, halved after the fact while its false-positive rate stays
//! at or under a target (as arrow-rs, Arrow C++ and ClickHouse do for
//! Parquet's filters, whose writers rarely know the distinct count).
//!
//! Halving is exact because both layouts place a key by multiply-shift,
//! `⌊x·z / 2^w⌋` for `z` units (blocks, or bits): with `z` even,
//! `⌊x·(z/2) / 2^w⌋ = ⌊⌊x·z / 2^w⌋ / 2⌋`, so every key of units `2j` and
//! `2j + 1` is a key of unit `j` after the fold, and the new unit `j` is
//! the OR of the two: no false negative can appear. (OR-ing unit `j` with
//! unit `j + z/2`, the fold of a modulo layout, would lose keys here.) A
//! split-block key's bits inside its block come from the low 32 bits of its
//! hash and do not move. Derivation and measurements: `docs/design.md`,
//! "Folding to fit".

use approxset_core::{Error, Result, sizing};

use crate::bits::BitVec;
use crate::bloom::Bloom;
use crate::layout::{Classic, Layout, SplitBlock};

/// One halving: the halved words and bit count, or `None` when the unit
/// count is odd.
type Halve = fn(&[u64], u64) -> Option<(Vec<u64>, u64)>;

/// `u64` words per split-block block.
const BLOCK_WORDS: usize = (sizing::SPLIT_BLOCK_BITS / 64) as usize;

impl Bloom<SplitBlock> {
    /// Halves the filter, block pairs `(2j, 2j + 1)` into block `j`, while
    /// the block count is even and the false-positive rate of the halved
    /// bits stays at or under `fp_rate`; returns the number of halvings
    /// (0: unchanged). A block count with a factor 2^f folds up to `f`
    /// times: Parquet writers size bitsets in powers of two.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::SplitBlockBloomFilter;
    /// // 4096 blocks for about 100,000 keys; 1,000 go in.
    /// let mut f = SplitBlockBloomFilter::with_num_bits(4096 * 256).seed(1).hashes(8)?;
    /// for i in 0..1_000u32 {
    ///     f.insert(&i)?;
    /// }
    /// let halvings = f.fold_to(0.01)?;
    /// assert!(halvings >= 5 && f.bits() == 4096 * 256 >> halvings);
    /// assert!((0..1_000u32).all(|i| f.contains(&i)) && f.estimated_fp_rate() <= 0.01);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `fp_rate` outside (0, 1); the
    /// filter is unchanged.
    pub fn fold_to(&mut self, fp_rate: f64) -> Result<u32> {
        fold(self, fp_rate, halve_blocks, split_block_fp)
    }
}

impl Bloom<Classic> {
    /// Halves the filter, bit pairs `(2i, 2i + 1)` into bit `i`, while the
    /// bit count is even and the false-positive rate estimated from the
    /// halved bits, `(ones/m)^k`, stays at or under `fp_rate`; returns the
    /// number of halvings (0: unchanged).
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    /// let mut f = BloomFilter::with_num_bits(1 << 20).seed(1).hashes(7)?;
    /// for i in 0..1_000u32 {
    ///     f.insert(&i)?;
    /// }
    /// let halvings = f.fold_to(0.01)?;
    /// assert!(halvings >= 5 && f.bits() == 1 << (20 - halvings));
    /// assert!((0..1_000u32).all(|i| f.contains(&i)));
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `fp_rate` outside (0, 1); the
    /// filter is unchanged.
    pub fn fold_to(&mut self, fp_rate: f64) -> Result<u32> {
        fold(self, fp_rate, halve_bits, classic_fp)
    }
}

/// The fold loop: halve while `halve` can and `fp` of the result is at or
/// under `target`, then set the capacity and target the smaller filter
/// keeps at `target`.
fn fold<L: Layout>(
    bloom: &mut Bloom<L>,
    target: f64,
    halve: Halve,
    fp: fn(&[u64], u64, u32) -> f64,
) -> Result<u32> {
    if !(target > 0.0 && target < 1.0) {
        return Err(Error::invalid(
            "fp_rate",
            format!("{target} is outside (0, 1)"),
        ));
    }
    let mut halvings = 0;
    while let Some((words, bits)) = halve(bloom.cells.words(), bloom.cells.len()) {
        if fp(&words, bits, bloom.hashes) > target {
            break;
        }
        bloom.cells = BitVec::from_words_iter(words.into_iter(), bits)?;
        halvings += 1;
    }
    if halvings > 0 {
        let bits = bloom.cells.len();
        bloom.fp_rate = target;
        bloom.capacity = capacity_at::<L>(bits, bloom.hashes, target).max(bloom.len);
    }
    Ok(halvings)
}

/// The most items `bits` hold at `target` by the layout's model (at least 1).
fn capacity_at<L: Layout>(bits: u64, hashes: u32, target: f64) -> usize {
    let (mut lo, mut hi) = (1u64, bits.max(2));
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if L::fp_rate(bits, mid, hashes) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    usize::try_from(lo).unwrap_or(usize::MAX)
}

/// Split-block words with block pairs ORed, or `None` for an odd count.
fn halve_blocks(words: &[u64], bits: u64) -> Option<(Vec<u64>, u64)> {
    let blocks = bits / sizing::SPLIT_BLOCK_BITS;
    if blocks % 2 != 0 {
        return None;
    }
    let out = words
        .chunks_exact(2 * BLOCK_WORDS)
        .flat_map(|pair| {
            let (a, b) = pair.split_at(BLOCK_WORDS);
            a.iter().zip(b).map(|(x, y)| x | y)
        })
        .collect();
    Some((out, bits / 2))
}

/// The exact false-positive rate of split-block bits for a key hashed
/// uniformly: the mean over blocks of the product over its eight 32-bit
/// words of the share of bits set.
fn split_block_fp(words: &[u64], _bits: u64, _hashes: u32) -> f64 {
    let blocks = words.len() / BLOCK_WORDS;
    let sum: f64 = words
        .chunks_exact(BLOCK_WORDS)
        .map(|block| {
            block
                .iter()
                .map(|w| {
                    let lo = f64::from((*w as u32).count_ones()) / 32.0;
                    let hi = f64::from(((*w >> 32) as u32).count_ones()) / 32.0;
                    lo * hi
                })
                .product::<f64>()
        })
        .sum();
    sum / blocks as f64
}

/// Classic bits with bit pairs ORed, or `None` for an odd count.
fn halve_bits(words: &[u64], bits: u64) -> Option<(Vec<u64>, u64)> {
    if bits % 2 != 0 || bits < 2 {
        return None;
    }
    let new_bits = bits / 2;
    let count = new_bits.div_ceil(64) as usize;
    let out = (0..count)
        .map(|w| {
            let lo = squeeze(words[2 * w]);
            let hi = words.get(2 * w + 1).map_or(0, |&x| squeeze(x));
            lo | (hi << 32)
        })
        .collect();
    Some((out, new_bits))
}

/// The 32 ORs of the bit pairs of `w`: bit `i` is bit `2i` | bit `2i + 1`.
fn squeeze(w: u64) -> u64 {
    let mut x = (w | (w >> 1)) & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | (x >> 4)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    (x | (x >> 16)) & 0x0000_0000_ffff_ffff
}

/// The classic estimate from the fill: `(ones/m)^k`.
fn classic_fp(words: &[u64], bits: u64, hashes: u32) -> f64 {
    let ones: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
    (ones as f64 / bits as f64).powi(hashes as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeeze_ors_pairs() {
        assert_eq!(squeeze(0b11), 1);
        assert_eq!(squeeze(0b10), 1);
        assert_eq!(squeeze(0b0100), 0b10);
        assert_eq!(squeeze(1 << 63), 1 << 31);
        assert_eq!(squeeze(u64::MAX), u64::from(u32::MAX));
        assert_eq!(squeeze(0), 0);
    }

    #[test]
    fn halving_maps_by_multiply_shift() {
        // Every bit i of a 256-bit array halves to bit i/2.
        for i in 0..256u64 {
            let mut words = vec![0u64; 4];
            words[(i / 64) as usize] = 1 << (i % 64);
            let (out, bits) = halve_bits(&words, 256).unwrap();
            assert_eq!(bits, 128);
            let j = i / 2;
            assert_eq!(out[(j / 64) as usize], 1 << (j % 64), "{i}");
        }
        assert!(halve_bits(&[0], 63).is_none());
        assert!(halve_blocks(&[0; 12], 768).is_none());
        let (out, bits) = halve_blocks(&[1, 2, 3, 4, 8, 16, 32, 64], 512).unwrap();
        assert_eq!((out, bits), (vec![9, 18, 35, 68], 256));
    }
}
