//! How a Bloom filter lays its `k` positions out over its bits: anywhere
//! ([`Classic`]), one per slice ([`Partitioned`]), all in one cache line
//! ([`Blocked`]) or one in each 32-bit word of a 256-bit block
//! ([`SplitBlock`]).

use std::fmt::Debug;

use approxset_core::format::Words;
use approxset_core::hash::{Digest, ProbeScheme, SPLITMIX64_GAMMA, mix64, reduce};
use approxset_core::sizing::{self, BloomParams};
use approxset_core::{Error, Result};

use crate::split_kernel;

mod sealed {
    pub trait Sealed {}
}

/// The position layout of a [`Bloom`](crate::Bloom) filter. Sealed: the
/// layouts are [`Classic`], [`Partitioned`], [`Blocked`] and [`SplitBlock`].
pub trait Layout: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The variant name the filter reports (`"classic"`, `"split-block"`, …).
    const NAME: &'static str;

    /// The variant tag of the binary format.
    const TAG: u8;

    /// The fewest bits and the hash count reaching `fp_rate` at `items`.
    ///
    /// # Errors
    /// As [`sizing::classic_params`].
    fn params(items: usize, fp_rate: f64) -> Result<BloomParams>;

    /// `bits` rounded up to what the layout can use with `hashes` probes:
    /// by default whole blocks (of `BLOCK_BYTES`), or `bits` as they are
    /// for a layout without blocks.
    fn round_bits(bits: u64, _hashes: u32) -> u64 {
        match Self::BLOCK_BYTES as u64 * 8 {
            0 => bits,
            block => bits.div_ceil(block) * block,
        }
    }

    /// The theoretical false-positive rate at `items` items.
    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64;

    /// The probe scheme of a filter built now: [`ProbeScheme::Mixed`] for
    /// the layouts that place positions from [`Digest::probes`]; the blocked
    /// and split-block layouts place their own and record
    /// [`ProbeScheme::DoubleHashing`] (format code 0) without using it.
    const NEW_SCHEME: ProbeScheme;

    /// The `hashes` positions of `digest` in a filter of `bits` bits whose
    /// probes follow `scheme`.
    fn positions(
        bits: u64,
        hashes: u32,
        scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64>;

    /// Whether the first `j` of a key's `hashes` positions are its
    /// positions with `j` hashes (a position does not depend on `k`), so
    /// that [`first_group`](Self::first_group) can take a constant count.
    #[doc(hidden)]
    const NESTED: bool = false;

    /// The first `G` of the [`positions`](Self::positions) (a batched
    /// lookup's first pass reads [`PROBE_GROUP`] for the blocked layout,
    /// one for the others); with fewer probes, the first repeated (which
    /// tests the same bit again).
    #[doc(hidden)]
    #[inline(always)]
    fn first_group<const G: usize>(
        bits: u64,
        hashes: u32,
        scheme: ProbeScheme,
        digest: Digest,
    ) -> [u64; G] {
        let group = G as u32;
        if Self::NESTED && hashes >= group {
            // A constant count: the compiler unrolls it, with no test of
            // the count left at each position.
            first_of(Self::positions(bits, group, scheme, digest))
        } else {
            first_of(Self::positions(bits, hashes, scheme, digest))
        }
    }

    /// Whether a key's positions all fall in one cache line, so that the
    /// batched operations prefetch one position per key.
    #[doc(hidden)]
    const ONE_LINE: bool = false;

    /// Bytes of the block that holds all of a key's positions (a cache
    /// line for the blocked layout), 0 for a layout that spreads them: a
    /// view, whose blocks may straddle two lines where the bytes lie,
    /// prefetches both ends of a block.
    #[doc(hidden)]
    const BLOCK_BYTES: usize = 0;

    /// The oldest format version that has the layout's tag.
    #[doc(hidden)]
    const FORMAT_VERSION: u16 = 1;

    /// The layout's own limits on a filter of `bits` bits (already rounded)
    /// and `hashes` hashes, beyond the core's.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] or [`Error::TooLarge`] naming the limit.
    #[doc(hidden)]
    fn check(_bits: u64, _hashes: u32) -> Result<()> {
        Ok(())
    }

    /// For a layout that keeps a key in one block: the block's bits and the
    /// expected fraction of them one key sets, for the estimates from the
    /// fill; `None` for a layout that spreads a key over the filter.
    #[doc(hidden)]
    fn block_fill(_hashes: u32) -> Option<(u64, f64)> {
        None
    }

    /// Whether a batched lookup tests each key's block at once after its
    /// prefetch ([`block_contains_all`](Self::block_contains_all), or
    /// [`block_contains`](Self::block_contains) key by key), with no second
    /// pass: the split-block layout. The blocked layout answers
    /// `block_contains` too, but its batched lookup keeps its two passes.
    #[doc(hidden)]
    const BLOCK_TEST: bool = false;

    /// Whether `digest` may be in the bits `words` (of a filter of this
    /// layout, owned or a view's, of `bits` bits and `hashes` probes), for
    /// a layout that tests a block at once; `None`: test the positions one
    /// by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_contains<W: Words + ?Sized>(
        _words: &W,
        _bits: u64,
        _hashes: u32,
        _digest: Digest,
    ) -> Option<bool> {
        None
    }

    /// Appends to `out` whether each of `digests` may be in the bits
    /// `words`, for a layout that tests a block at once; `false` (nothing
    /// appended): look them up one by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_contains_all<W: Words + ?Sized>(
        _words: &W,
        _digests: &[Digest],
        _out: &mut Vec<bool>,
    ) -> bool {
        false
    }

    /// Sets the bits of `digest` in `words` (a filter of `bits` bits and
    /// `hashes` probes: the bits [`positions`](Self::positions) names) and
    /// returns how many were clear, for a layout that sets a block at once;
    /// `None` (nothing done): set the positions one by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_insert(_words: &mut [u64], _bits: u64, _hashes: u32, _digest: Digest) -> Option<u32> {
        None
    }
}

/// Declares each layout: a unit type with the common derives, sealed.
macro_rules! layouts {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name;

            impl sealed::Sealed for $name {}
        )*
    };
}

layouts! {
    /// The classic layout: `k` positions anywhere in the `m` bits, by enhanced
    /// double hashing with each probe mixed ([`ProbeScheme`]). False-positive
    /// rate about (1 − (1 − 1/m)^(kn))^k; exactly, the mean of (X/m)^k over the
    /// bits set X ([`sizing::fp_rate_classic`]).
    Classic,
    /// The partitioned layout (Almeida et al.): `k` slices of `m/k` bits, one
    /// position in each, so the `k` positions of a key are always distinct.
    /// False-positive rate (1 − (1 − k/m)^n)^k: a hair above the classic rate at
    /// the same size, and the building block of the scalable filter.
    Partitioned,
    /// The cache-blocked layout (Putze, Sanders and Singler 2007): each key
    /// picks one 512-bit block (a 64-byte cache line) from `h1` and sets its `k`
    /// positions inside it, derived from `h2` with one multiply each, so a
    /// lookup reads one cache line. Sized by the Poisson mixture over block
    /// loads ([`sizing::fp_rate_blocked`]): about 3 % more bits than the
    /// classic filter at 1 %.
    Blocked,
    /// The split-block layout of Apache Parquet's Bloom filters: 256-bit blocks
    /// of eight 32-bit words; a key picks its block from the high 32 bits of
    /// `h1` and sets one bit in each word from the low 32 bits, with Parquet's
    /// salts, so a lookup is eight masks and one comparison (see
    /// [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter)). `k` is always
    /// 8, and a filter has at most 2^32 blocks. Sized by the Poisson mixture
    /// over block loads ([`sizing::fp_rate_split_block`]): about 10 % more bits
    /// than the classic filter at 1 %.
    SplitBlock,
}

impl Layout for Classic {
    const NAME: &'static str = "classic";
    const NESTED: bool = true;
    const TAG: u8 = approxset_core::format::tag::CLASSIC;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::classic_params(items, fp_rate)
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::Mixed;

    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64 {
        sizing::fp_rate_classic(bits, items, hashes)
    }

    #[inline]
    fn positions(
        bits: u64,
        hashes: u32,
        scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64> {
        digest
            .first_probes(hashes)
            .map(move |h| reduce(scheme.finish(h), bits))
    }
}

impl Layout for Partitioned {
    const NAME: &'static str = "partitioned";
    const TAG: u8 = approxset_core::format::tag::PARTITIONED;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::partitioned_params(items, fp_rate)
    }

    fn round_bits(bits: u64, hashes: u32) -> u64 {
        bits.div_ceil(u64::from(hashes)) * u64::from(hashes)
    }

    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64 {
        sizing::fp_rate_partitioned(bits, items, hashes)
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::Mixed;

    #[inline]
    fn positions(
        bits: u64,
        hashes: u32,
        scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64> {
        let slice = bits / u64::from(hashes);
        digest
            .first_probes(hashes)
            .zip((0..u64::from(hashes)).map(move |i| i * slice))
            .map(move |(h, start)| start + reduce(scheme.finish(h), slice))
    }
}

/// Odd multipliers, one per in-block position: position `i` of a key is the
/// top 9 bits of `h2 · SALTS[i]`.
const SALTS: [u64; sizing::MAX_HASHES as usize] = {
    let mut salts = [0u64; sizing::MAX_HASHES as usize];
    let mut state: u64 = 0x5A17_B10C_ED00_0001;
    let mut i = 0;
    while i < salts.len() {
        // SplitMix64, stepped by hand: a const block cannot call
        // `splitmix64`, which takes `&mut`.
        state = state.wrapping_add(SPLITMIX64_GAMMA);
        salts[i] = mix64(state) | 1;
        i += 1;
    }
    salts
};

impl Layout for Blocked {
    const NAME: &'static str = "blocked";
    const NESTED: bool = true;
    const TAG: u8 = approxset_core::format::tag::BLOCKED;
    const ONE_LINE: bool = true;
    const BLOCK_BYTES: usize = (sizing::BLOCK_BITS / 8) as usize;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::blocked_params(items, fp_rate)
    }

    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64 {
        sizing::fp_rate_blocked(bits, items, hashes)
    }

    fn block_fill(hashes: u32) -> Option<(u64, f64)> {
        let block = sizing::BLOCK_BITS;
        let per_key = -(f64::from(hashes) * (-1.0 / block as f64).ln_1p()).exp_m1();
        Some((block, per_key))
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::DoubleHashing;

    #[inline]
    fn positions(
        bits: u64,
        hashes: u32,
        _scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64> {
        let base = blocked_block(bits, digest) * sizing::BLOCK_BITS;
        let h2 = digest.h2();
        SALTS[..hashes as usize]
            .iter()
            .map(move |&salt| base + in_block(h2, salt))
    }

    /// The key's block read as eight words (one bounds check), every probe
    /// tested in them with no branch: the line is read once, and a miss
    /// costs no mispredicted early exit.
    #[inline(always)]
    fn block_contains<W: Words + ?Sized>(
        words: &W,
        bits: u64,
        hashes: u32,
        digest: Digest,
    ) -> Option<bool> {
        let block: [u64; BLOCK_WORDS] =
            words.block(blocked_block(bits, digest) as usize * BLOCK_WORDS);
        let h2 = digest.h2();
        let mut all = true;
        for &salt in &SALTS[..hashes as usize] {
            let pos = in_block(h2, salt);
            all &= (block[(pos >> 6) as usize] >> (pos & 63)) & 1 == 1;
        }
        Some(all)
    }

    /// The key's 512-bit block taken as eight words with one bounds check,
    /// its bits set in them with none (each in-block position is below
    /// 512): 253 → 239 instructions an insert (`icount blocked-insert`).
    #[inline(always)]
    fn block_insert(words: &mut [u64], bits: u64, hashes: u32, digest: Digest) -> Option<u32> {
        let at = blocked_block(bits, digest) as usize * BLOCK_WORDS;
        let block: &mut [u64; BLOCK_WORDS] =
            words.get_mut(at..at + BLOCK_WORDS)?.try_into().ok()?;
        let h2 = digest.h2();
        let mut new = 0;
        for &salt in &SALTS[..hashes as usize] {
            let pos = in_block(h2, salt);
            let word = &mut block[(pos >> 6) as usize];
            let mask = 1 << (pos & 63);
            new += u32::from(*word & mask == 0);
            *word |= mask;
        }
        Some(new)
    }
}

/// The words of a blocked filter's block.
const BLOCK_WORDS: usize = (sizing::BLOCK_BITS / 64) as usize;

/// The block of `digest` in a blocked filter of `bits` bits.
#[inline(always)]
fn blocked_block(bits: u64, digest: Digest) -> u64 {
    reduce(digest.h1(), bits / sizing::BLOCK_BITS)
}

/// The position in its block of a blocked filter's probe of multiplier
/// `salt`: the top 9 bits of `h2 · salt`, below 512.
#[inline(always)]
fn in_block(h2: u64, salt: u64) -> u64 {
    h2.wrapping_mul(salt) >> 55
}

impl Layout for SplitBlock {
    const NAME: &'static str = "split-block";
    const TAG: u8 = approxset_core::format::tag::SPLIT_BLOCK;
    const ONE_LINE: bool = true;
    const BLOCK_BYTES: usize = (sizing::SPLIT_BLOCK_BITS / 8) as usize;
    const BLOCK_TEST: bool = true;
    const FORMAT_VERSION: u16 = 2;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::split_block_params(items, fp_rate)
    }

    fn fp_rate(bits: u64, items: u64, _hashes: u32) -> f64 {
        sizing::fp_rate_split_block(bits, items)
    }

    fn check(bits: u64, hashes: u32) -> Result<()> {
        if hashes != sizing::SPLIT_BLOCK_HASHES {
            return Err(Error::invalid(
                "hashes",
                format!(
                    "a split-block filter sets one bit in each of its block's 8 words, \
                     so hashes is 8, got {hashes}"
                ),
            ));
        }
        let max = sizing::MAX_SPLIT_BLOCKS * sizing::SPLIT_BLOCK_BITS;
        if bits > max {
            return Err(Error::TooLarge {
                needed: u128::from(bits).div_ceil(8),
                limit: u128::from(max / 8),
            });
        }
        Ok(())
    }

    fn block_fill(_hashes: u32) -> Option<(u64, f64)> {
        // Eight bits in eight words: never two on one bit.
        let block = sizing::SPLIT_BLOCK_BITS;
        Some((block, f64::from(sizing::SPLIT_BLOCK_HASHES) / block as f64))
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::DoubleHashing;

    #[inline]
    fn positions(
        bits: u64,
        _hashes: u32,
        _scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64> {
        let hash = digest.h1();
        let block = split_kernel::block_index(hash, bits / sizing::SPLIT_BLOCK_BITS);
        let base = block * sizing::SPLIT_BLOCK_BITS;
        (0..8).map(move |i| base + 32 * i as u64 + u64::from(split_kernel::bit_in_word(hash, i)))
    }

    #[inline(always)]
    fn block_contains<W: Words + ?Sized>(
        words: &W,
        _bits: u64,
        _hashes: u32,
        digest: Digest,
    ) -> Option<bool> {
        Some(split_kernel::contains(words, digest))
    }

    #[inline(always)]
    fn block_contains_all<W: Words + ?Sized>(
        words: &W,
        digests: &[Digest],
        out: &mut Vec<bool>,
    ) -> bool {
        split_kernel::contains_all(words, digests, out);
        true
    }

    #[inline(always)]
    fn block_insert(words: &mut [u64], _bits: u64, _hashes: u32, digest: Digest) -> Option<u32> {
        Some(split_kernel::insert(words, digest))
    }
}

/// Probes read together before a branch in [`all_probes`].
pub(crate) const PROBE_GROUP: usize = 3;

/// Whether `test` holds at every position, reading the positions three at a
/// time with no branch inside a group, so the group's cache misses overlap
/// (why three, and what was measured: `docs/design.md`, "Lookups and
/// loading").
#[inline(always)]
pub(crate) fn all_probes(
    mut positions: impl Iterator<Item = u64>,
    test: impl Fn(u64) -> bool,
) -> bool {
    loop {
        let mut all = true;
        let mut any = false;
        for _ in 0..PROBE_GROUP {
            if let Some(pos) = positions.next() {
                all &= test(pos);
                any = true;
            }
        }
        if !any {
            return true;
        }
        if !all {
            return false;
        }
    }
}

/// Keys whose first probes [`Bloom::contains_digests`](crate::Bloom::contains_digests)
/// prefetches and reads together for a layout that keeps a key in one line
/// (and whose positions [`Bloom::insert_digests`](crate::Bloom::insert_digests)
/// prefetches, for every layout): enough to keep the core's outstanding
/// misses busy, few enough that their lines are still cached when they are
/// read (32 measured better than 16, 64 and 128 at 10⁷ keys).
pub(crate) const BATCH_CHUNK: usize = 32;

/// Keys that [`Bloom::contains_digests`](crate::Bloom::contains_digests)
/// answers together in waves for a layout that spreads a key's probes over
/// the filter (classic, partitioned, counting): the first wave reads one
/// probe of each key, each later wave the next [`WAVE_GROUP`] of the keys
/// still possibly present. At most 64 lines are asked for at once, fewer
/// than the 96 (32 keys, three probes) of the previous scheme that 32 keys
/// measured best with (`docs/design.md`, "Batched lookups").
pub(crate) const WAVE_CHUNK: usize = 64;

// The waves keep a key's index in a byte.
const _: () = assert!(WAVE_CHUNK <= 256);

/// Probes per key in each wave after the first of
/// [`Bloom::contains_digests`](crate::Bloom::contains_digests).
pub(crate) const WAVE_GROUP: usize = 2;

/// The first `G` of `positions` (at least one), the first repeated where
/// there are fewer.
#[inline(always)]
pub(crate) fn first_of<const G: usize>(mut positions: impl Iterator<Item = u64>) -> [u64; G] {
    let first = positions.next().unwrap_or(0);
    let mut group = [first; G];
    for (slot, pos) in group[1..].iter_mut().zip(positions) {
        *slot = pos;
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitioned_positions_fall_one_per_slice() {
        let (bits, k) = (7 * 1000, 7);
        for seed in 0..1000u64 {
            let d = Digest::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), seed);
            let pos: Vec<u64> = Partitioned::positions(bits, k, ProbeScheme::Mixed, d).collect();
            assert_eq!(pos.len(), 7);
            for (i, p) in pos.iter().enumerate() {
                assert_eq!(p / 1000, i as u64, "position {p} outside slice {i}");
            }
        }
    }

    #[test]
    fn classic_positions_stay_in_range_for_huge_filters() {
        let bits = (1u64 << 40) + 12345;
        let mut max = 0;
        for seed in 0..10_000u64 {
            let d = Digest::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), !seed);
            for p in Classic::positions(bits, 5, ProbeScheme::Mixed, d) {
                assert!(p < bits);
                max = max.max(p);
            }
        }
        // Positions reach past 2^32 and near the top of a 2^40-bit filter.
        assert!(max > bits - bits / 100, "{max}");
    }

    #[test]
    fn blocked_block_operations_are_its_positions() {
        // The block insert sets exactly the bits `positions` names (the
        // batched lookups read those), and the block test answers as
        // testing each position does, at every hash count and at one block.
        for blocks in [1u64, 3, 1000] {
            let bits = blocks * sizing::BLOCK_BITS;
            for hashes in [1, 2, 6, 13, sizing::MAX_HASHES] {
                for seed in 0..200u64 {
                    let d = Digest::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), !seed << 5);
                    let mut words = vec![0u64; (bits / 64) as usize];
                    let new = Blocked::block_insert(&mut words, bits, hashes, d).unwrap();
                    let mut want = vec![0u64; words.len()];
                    for p in Blocked::positions(bits, hashes, ProbeScheme::DoubleHashing, d) {
                        want[(p >> 6) as usize] |= 1 << (p & 63);
                    }
                    assert_eq!(words, want, "{blocks} blocks, {hashes} hashes");
                    let ones: u32 = want.iter().map(|w| w.count_ones()).sum();
                    assert_eq!(new, ones);
                    assert_eq!(Blocked::block_insert(&mut words, bits, hashes, d), Some(0));
                    assert_eq!(
                        Blocked::block_contains(&words[..], bits, hashes, d),
                        Some(true)
                    );
                    // Clearing any one of its bits makes the key absent.
                    let p = Blocked::positions(bits, hashes, ProbeScheme::DoubleHashing, d)
                        .nth(seed as usize % hashes as usize)
                        .unwrap();
                    words[(p >> 6) as usize] &= !(1 << (p & 63));
                    assert_eq!(
                        Blocked::block_contains(&words[..], bits, hashes, d),
                        Some(false)
                    );
                }
            }
        }
    }

    #[test]
    fn round_bits() {
        assert_eq!(Partitioned::round_bits(100, 7), 105);
        assert_eq!(Partitioned::round_bits(105, 7), 105);
        assert_eq!(Classic::round_bits(100, 7), 100);
    }
}
