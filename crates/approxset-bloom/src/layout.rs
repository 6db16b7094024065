//! How a Bloom filter lays its `k` positions out over its bits: anywhere
//! ([`Classic`]), one per slice ([`Partitioned`]) or all in one cache line
//! ([`Blocked`]).

use std::fmt::Debug;

use approxset_core::Result;
use approxset_core::hash::{Digest, ProbeScheme, SPLITMIX64_GAMMA, mix64, reduce};
use approxset_core::sizing::{self, BloomParams};

mod sealed {
    pub trait Sealed {}
}

/// The position layout of a [`Bloom`](crate::Bloom) filter. Sealed: the
/// layouts are [`Classic`], [`Partitioned`] and [`Blocked`].
pub trait Layout: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The variant name the filter reports (`"classic"`, `"partitioned"`).
    const NAME: &'static str;

    /// The variant tag of the binary format.
    const TAG: u8;

    /// The fewest bits and the hash count reaching `fp_rate` at `items`.
    ///
    /// # Errors
    /// As [`sizing::classic_params`].
    fn params(items: usize, fp_rate: f64) -> Result<BloomParams>;

    /// `bits` rounded up to what the layout can use with `hashes` probes.
    fn round_bits(bits: u64, hashes: u32) -> u64;

    /// The theoretical false-positive rate at `items` items.
    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64;

    /// The probe scheme of a filter built now: [`ProbeScheme::Mixed`] for
    /// the layouts that place positions from [`Digest::probes`]; the blocked
    /// layout places its own and records [`ProbeScheme::DoubleHashing`]
    /// (format code 0) without using it.
    const NEW_SCHEME: ProbeScheme;

    /// The `hashes` positions of `digest` in a filter of `bits` bits whose
    /// probes follow `scheme`.
    fn positions(
        bits: u64,
        hashes: u32,
        scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64>;

    /// Whether a key's positions all fall in one cache line, so that the
    /// batched operations prefetch one position per key.
    #[doc(hidden)]
    const ONE_LINE: bool = false;
}

/// The classic layout: `k` positions anywhere in the `m` bits, by enhanced
/// double hashing with each probe mixed ([`ProbeScheme`]). False-positive
/// rate about (1 − (1 − 1/m)^(kn))^k; exactly, the mean of (X/m)^k over the
/// bits set X ([`sizing::fp_rate_classic`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Classic;

impl sealed::Sealed for Classic {}

impl Layout for Classic {
    const NAME: &'static str = "classic";
    const TAG: u8 = approxset_core::format::tag::CLASSIC;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::classic_params(items, fp_rate)
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::Mixed;

    fn round_bits(bits: u64, _hashes: u32) -> u64 {
        bits
    }

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
            .probes()
            .take(hashes as usize)
            .map(move |h| reduce(scheme.finish(h), bits))
    }
}

/// The partitioned layout (Almeida et al.): `k` slices of `m/k` bits, one
/// position in each, so the `k` positions of a key are always distinct.
/// False-positive rate (1 − (1 − k/m)^n)^k: a hair above the classic rate at
/// the same size, and the building block of the scalable filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Partitioned;

impl sealed::Sealed for Partitioned {}

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
            .probes()
            .take(hashes as usize)
            .zip((0..u64::from(hashes)).map(move |i| i * slice))
            .map(move |(h, start)| start + reduce(scheme.finish(h), slice))
    }
}

/// The cache-blocked layout (Putze, Sanders and Singler 2007): each key
/// picks one 512-bit block (a 64-byte cache line) from `h1` and sets its `k`
/// positions inside it, derived from `h2` with one multiply each, so a
/// lookup reads one cache line. Sized by the Poisson mixture over block
/// loads ([`sizing::fp_rate_blocked`]): about 3 % more bits than the
/// classic filter at 1 %.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Blocked;

impl sealed::Sealed for Blocked {}

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
    const TAG: u8 = approxset_core::format::tag::BLOCKED;
    const ONE_LINE: bool = true;

    fn params(items: usize, fp_rate: f64) -> Result<BloomParams> {
        sizing::blocked_params(items, fp_rate)
    }

    fn round_bits(bits: u64, _hashes: u32) -> u64 {
        bits.div_ceil(sizing::BLOCK_BITS) * sizing::BLOCK_BITS
    }

    fn fp_rate(bits: u64, items: u64, hashes: u32) -> f64 {
        sizing::fp_rate_blocked(bits, items, hashes)
    }

    const NEW_SCHEME: ProbeScheme = ProbeScheme::DoubleHashing;

    #[inline]
    fn positions(
        bits: u64,
        hashes: u32,
        _scheme: ProbeScheme,
        digest: Digest,
    ) -> impl Iterator<Item = u64> {
        let base = reduce(digest.h1(), bits / sizing::BLOCK_BITS) * sizing::BLOCK_BITS;
        let h2 = digest.h2();
        SALTS[..hashes as usize]
            .iter()
            .map(move |&salt| base + (h2.wrapping_mul(salt) >> 55))
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
/// prefetches and reads together (and whose positions
/// [`Bloom::insert_digests`](crate::Bloom::insert_digests) prefetches): enough to keep the core's outstanding
/// misses busy, few enough that their lines are still cached when they are
/// read (32 measured better than 16, 64 and 128 at 10⁷ keys).
pub(crate) const BATCH_CHUNK: usize = 32;

/// Whether `test` holds at the first [`PROBE_GROUP`] positions, read with
/// no branch on what they hold (the batched lookup's first pass).
#[inline(always)]
pub(crate) fn first_probes(
    positions: impl Iterator<Item = u64>,
    test: impl Fn(u64) -> bool,
) -> bool {
    positions
        .take(PROBE_GROUP)
        .fold(true, |all, pos| all & test(pos))
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
    fn round_bits() {
        assert_eq!(Partitioned::round_bits(100, 7), 105);
        assert_eq!(Partitioned::round_bits(105, 7), 105);
        assert_eq!(Classic::round_bits(100, 7), 100);
    }
}
