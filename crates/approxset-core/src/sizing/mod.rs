//! Sizing math: the false-positive formulas of the seed article and the
//! parameters that reach a target rate with the fewest bits.
//!
//! Notation: `m` bits, `n` items, `k` hash functions, `p` false-positive rate.
//!
//! | formula | function |
//! |---|---|
//! | p ≈ (1 − e^(−kn/m))^k | [`fp_rate_approx`] |
//! | p = (1 − (1 − 1/m)^(kn))^k | [`fp_rate_exact`] |
//! | p = E[(X/m)^k], X the bits set (what a classic filter really has) | [`fp_rate_classic`] |
//! | p = (1 − (1 − k/m)^n)^k (k slices of m/k bits) | [`fp_rate_partitioned`] |
//! | k* = (m/n)·ln 2 | [`optimal_hashes`] |
//! | p* = 2^(−k*) ≈ 0.6185^(m/n) | [`optimal_fp_rate`] |
//! | m/n = −ln p / (ln 2)² | [`optimal_bits_per_key`] |
//!
//! [`classic_params`] and [`partitioned_params`] turn a target `(n, p)` into
//! whole numbers: `k` is ⌊log₂(1/p)⌋ or ⌈log₂(1/p)⌉, whichever needs fewer
//! bits, and `m` is the least number of bits for which the real rate with
//! that whole `k` is at most `p`: [`fp_rate_classic`] for the classic
//! layout (the textbook formula is below it for small filters) and the
//! partitioned formula, exact for independent positions, for slices. So a filter sized for `(n, p)` really
//! has a false-positive rate of at most `p` after `n` insertions, at a price
//! of a fraction of a percent over the real-valued optimum.

use crate::error::{Error, Result};

mod blocked;
mod occupancy;
mod sliding;

pub use blocked::{
    BLOCK_BITS, MAX_SPLIT_BLOCKS, MIN_SPLIT_BLOCK_FP_RATE, SPLIT_BLOCK_BITS, SPLIT_BLOCK_HASHES,
    blocked_params, fp_rate_blocked, fp_rate_split_block, split_block_params,
};
pub use occupancy::fp_rate_classic;
pub use sliding::{
    MAX_SLICES, SlidingParams, fp_rate_sliding, run_probability, slice_fill, sliding_params,
};

/// The largest number of hash functions a filter accepts (`p ≈ 5·10⁻²⁰` at
/// the optimum). More than this is rejected as absurd.
pub const MAX_HASHES: u32 = 64;

/// The largest bit count a filter accepts (2⁶³), whatever the memory limit.
pub const MAX_BITS: u64 = 1 << 63;

/// The least target false-positive rate of the Bloom family (classic,
/// partitioned, counting, blocked, atomic, and each stage of a scalable
/// filter): 2⁻⁶⁴ ≈ 5.4·10⁻²⁰, what [`MAX_HASHES`] hash functions give at
/// their optimum (half the bits set). A lower target would need more hash
/// functions than a filter accepts; [`validate_bloom_fp_rate`] refuses it.
pub const MIN_FP_RATE: f64 = 1.0 / 18_446_744_073_709_551_616.0;

/// The approximate false-positive rate (1 − e^(−kn/m))^k of a classic Bloom
/// filter of `bits` bits and `hashes` hash functions holding `items` items.
pub fn fp_rate_approx(bits: f64, items: f64, hashes: f64) -> f64 {
    (-(-hashes * items / bits).exp_m1()).powf(hashes)
}

/// The seed article's "exact" false-positive rate (1 − (1 − 1/m)^(kn))^k of
/// a classic Bloom filter (independent uniform positions), computed without
/// cancellation: exact in `m`, but the rate of a filter whose fill is its
/// mean. The real rate, higher for small filters, is [`fp_rate_classic`].
pub fn fp_rate_exact(bits: u64, items: u64, hashes: u32) -> f64 {
    if bits == 0 {
        return 1.0;
    }
    let zero = (hashes as f64 * items as f64 * (-1.0 / bits as f64).ln_1p()).exp();
    (1.0 - zero).powi(hashes as i32)
}

/// The false-positive rate (1 − (1 − k/m)^n)^k of a partitioned Bloom filter:
/// `hashes` slices of `bits / hashes` bits each, one position per slice.
pub fn fp_rate_partitioned(bits: u64, items: u64, hashes: u32) -> f64 {
    if hashes == 0 {
        return 1.0;
    }
    let slice = bits / u64::from(hashes);
    if slice == 0 {
        return 1.0;
    }
    let zero = (items as f64 * (-1.0 / slice as f64).ln_1p()).exp();
    (1.0 - zero).powi(hashes as i32)
}

/// The number of hash functions k* = (m/n)·ln 2 that minimises the
/// false-positive rate at `bits_per_key` = m/n.
pub fn optimal_hashes(bits_per_key: f64) -> f64 {
    bits_per_key * std::f64::consts::LN_2
}

/// The false-positive rate p* = 2^(−k*) ≈ 0.6185^(m/n) at the optimal k.
pub fn optimal_fp_rate(bits_per_key: f64) -> f64 {
    (-optimal_hashes(bits_per_key)).exp2()
}

/// The bits per key m/n = −ln p / (ln 2)² that reach `fp_rate` at the optimal
/// (real-valued) k: 9.6 at 1 %, plus 4.8 for every further factor of ten.
pub fn optimal_bits_per_key(fp_rate: f64) -> f64 {
    -fp_rate.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2)
}

/// Checks that `fp_rate` is a number strictly between 0 and 1.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fp_rate` otherwise.
pub fn validate_fp_rate(fp_rate: f64) -> Result<()> {
    require(
        fp_rate.is_finite() && fp_rate > 0.0 && fp_rate < 1.0,
        "fp_rate",
        || format!("must be strictly between 0 and 1, got {fp_rate:?}"),
    )
}

/// Checks a Bloom-family target rate: strictly between 0 and 1 and at least
/// [`MIN_FP_RATE`].
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fp_rate` and quoting it otherwise.
pub fn validate_bloom_fp_rate(fp_rate: f64) -> Result<()> {
    validate_fp_rate(fp_rate)?;
    require(fp_rate >= MIN_FP_RATE, "fp_rate", || {
        format!(
            "{fp_rate:?} is below 2^-64 ≈ {MIN_FP_RATE:.3e}, the least a Bloom filter of at \
             most {MAX_HASHES} hash functions is sized for"
        )
    })
}

/// `Ok` when `ok`, else [`Error::InvalidParameter`] naming `name`.
fn require(ok: bool, name: &'static str, reason: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(name, reason()))
    }
}

/// Checks that a filter is sized for at least one item.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `expected_items` when `items` is 0.
pub fn validate_items(items: usize) -> Result<()> {
    require(items > 0, "expected_items", || {
        "must be at least 1, got 0".into()
    })
}

/// Checks a hash-function count: `1..=MAX_HASHES`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `hashes` otherwise.
pub fn validate_hashes(hashes: u32) -> Result<()> {
    require((1..=MAX_HASHES).contains(&hashes), "hashes", || {
        format!("must be between 1 and {MAX_HASHES}, got {hashes}")
    })
}

/// Checks a bit count: `1..=MAX_BITS`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `bits` when it is 0, [`Error::TooLarge`]
/// when it is over [`MAX_BITS`].
pub fn validate_bits(bits: u64) -> Result<()> {
    if bits == 0 {
        return Err(Error::invalid("bits", "must be at least 1, got 0"));
    }
    if bits > MAX_BITS {
        return Err(Error::TooLarge {
            needed: u128::from(bits).div_ceil(8),
            limit: u128::from(MAX_BITS / 8),
        });
    }
    Ok(())
}

/// Checks that `needed` bytes fit under `max_bytes` (when set) and in the
/// address space, and returns them as a `usize`.
///
/// # Errors
/// [`Error::TooLarge`] with the bytes needed and the limit passed.
pub fn check_memory(needed: u128, max_bytes: Option<usize>) -> Result<usize> {
    let address_space = isize::MAX as u128;
    let limit = max_bytes.map_or(address_space, |m| (m as u128).min(address_space));
    if needed > limit {
        return Err(Error::TooLarge { needed, limit });
    }
    // Cannot fail: needed <= isize::MAX.
    Ok(needed as usize)
}

/// `words` zeroed 64-bit words of filter storage, checked against
/// `max_bytes` and the address space first and allocated fallibly, so that a
/// size the machine cannot give is an error, not an abort.
///
/// # Errors
/// [`Error::TooLarge`] as [`check_memory`]; [`Error::AllocationFailed`] when
/// the allocator refuses.
pub fn zeroed_words(words: u128, max_bytes: Option<usize>) -> Result<Vec<u64>> {
    let bytes = check_memory(words.saturating_mul(8), max_bytes)?;
    let words = bytes / 8;
    let mut storage = Vec::new();
    storage
        .try_reserve_exact(words)
        .map_err(|_| Error::AllocationFailed { bytes })?;
    storage.resize(words, 0);
    Ok(storage)
}

/// The bits and hash count of a Bloom filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BloomParams {
    bits: u64,
    hashes: u32,
}

impl BloomParams {
    /// Parameters from a bit count and a hash count.
    ///
    /// # Errors
    /// As [`validate_bits`] and [`validate_hashes`].
    pub fn new(bits: u64, hashes: u32) -> Result<Self> {
        validate_bits(bits)?;
        validate_hashes(hashes)?;
        Ok(BloomParams { bits, hashes })
    }

    /// Total bits `m` (for a partitioned filter, `hashes` × the slice size).
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// Hash functions `k`.
    pub const fn hashes(self) -> u32 {
        self.hashes
    }

    /// Bits per key `m / n` for `items` items.
    pub fn bits_per_key(self, items: usize) -> f64 {
        self.bits as f64 / items as f64
    }
}

/// What a filter takes for a target `(n, p)`, computed without building
/// it: every filter's `plan` returns one, and `approxset::Variant::design`
/// reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    items: usize,
    bits: u128,
    bytes: u128,
    probes: u32,
    expected_fp: f64,
}

impl Plan {
    /// A plan of `bits` bits of filter data in `bytes` allocated bytes, with
    /// `probes` hash functions (or fingerprint bits), expecting
    /// `expected_fp` at `items` items.
    pub fn new(items: usize, bits: u128, bytes: u128, probes: u32, expected_fp: f64) -> Self {
        Plan {
            items,
            bits,
            bytes,
            probes,
            expected_fp,
        }
    }

    /// The items planned for.
    pub fn items(&self) -> usize {
        self.items
    }

    /// Bits of filter data (bits, 4 per counter, or slots × fingerprint bits).
    pub fn bits(&self) -> u128 {
        self.bits
    }

    /// Bytes of filter data as allocated (whole 64-bit words).
    pub fn bytes(&self) -> u128 {
        self.bytes
    }

    /// Hash functions `k` for the Bloom family, fingerprint bits for the
    /// cuckoo filter.
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// The false-positive rate expected at the planned item count.
    pub fn expected_fp(&self) -> f64 {
        self.expected_fp
    }
}

/// The whole-number k candidates around the real optimum log₂(1/p).
fn hash_candidates(fp_rate: f64) -> Result<[u32; 2]> {
    let ideal = -fp_rate.log2();
    let lo = ideal.floor().max(1.0);
    let hi = ideal.ceil().max(1.0);
    if lo > f64::from(MAX_HASHES) {
        return Err(Error::invalid(
            "fp_rate",
            format!("{fp_rate:?} would need more than {MAX_HASHES} hash functions"),
        ));
    }
    let hi = hi.min(f64::from(MAX_HASHES));
    Ok([lo as u32, hi as u32])
}

/// The error for a filter of `bits` bits, more than [`MAX_BITS`].
fn too_many_bits(bits: u128) -> Error {
    Error::TooLarge {
        needed: bits.div_ceil(8),
        limit: u128::from(MAX_BITS / 8),
    }
}

/// The least whole number `x ≥ 1` with `x ≥ bound`, or `TooLarge` when
/// `x · scale` passes [`MAX_BITS`].
fn ceil_bits(bound: f64, scale: u64) -> Result<u64> {
    let total = bound * scale as f64;
    if !total.is_finite() {
        // Not reached for p in (0, 1) and n ≥ 1: the bound is at most about
        // 64·n/ln 2. Say "more than can be counted" rather than invent one.
        return Err(Error::TooLarge {
            needed: u128::MAX,
            limit: u128::from(MAX_BITS / 8),
        });
    }
    if total > MAX_BITS as f64 {
        // A float cast saturates; these sizes are far below u128::MAX.
        return Err(too_many_bits(total.ceil() as u128));
    }
    Ok((bound.ceil() as u64).max(1))
}

/// Bits and hash count of a classic Bloom filter holding `items` items at a
/// false-positive rate of at most `fp_rate` by [`fp_rate_classic`], with the
/// fewest bits over the two whole numbers nearest the optimal k.
///
/// # Errors
/// [`Error::InvalidParameter`] for `items` = 0 or `fp_rate` outside (0, 1)
/// or below [`MIN_FP_RATE`] (it would need more than [`MAX_HASHES`] hash
/// functions);
/// [`Error::TooLarge`] when the filter would need more than [`MAX_BITS`] bits.
pub fn classic_params(items: usize, fp_rate: f64) -> Result<BloomParams> {
    least_params(items, fp_rate, false)
}

/// Bits (`hashes` × slice size) and hash count of a partitioned Bloom filter
/// holding `items` items at a false-positive rate of at most `fp_rate` by the
/// partitioned formula (1 − (1 − 1/s)^n)^k, s the slice size.
///
/// # Errors
/// As [`classic_params`].
pub fn partitioned_params(items: usize, fp_rate: f64) -> Result<BloomParams> {
    least_params(items, fp_rate, true)
}

/// The fewest bits over the two whole `k` nearest the optimum. Both layouts
/// solve (1 − (1 − 1/u)^d)^k ≤ p for the least unit count `u`: the classic
/// filter with `u = m` bits and `d = k·n` draws, the partitioned one with
/// `u` the slice size, `d = n` draws per slice and `m = k·u`. Then
/// `u ≥ 1 / (1 − exp(ln(1 − p^(1/k)) / d))`, stepped up past any
/// floating-point slack until the exact formula is within target.
fn least_params(items: usize, fp_rate: f64, partitioned: bool) -> Result<BloomParams> {
    validate_items(items)?;
    validate_bloom_fp_rate(fp_rate)?;
    let n = items as u64;
    let mut best: Option<BloomParams> = None;
    for k in hash_candidates(fp_rate)? {
        let (draws, scale) = if partitioned {
            (n as f64, u64::from(k))
        } else {
            (f64::from(k) * n as f64, 1)
        };
        let rate = |u: u64| {
            if partitioned {
                fp_rate_partitioned(u * scale, n, k)
            } else {
                fp_rate_classic(u, n, k)
            }
        };
        let root = fp_rate.powf(1.0 / f64::from(k));
        let t = (-root).ln_1p() / draws;
        let mut u = ceil_bits(1.0 / -t.exp_m1(), scale)?;
        let mut below = None;
        while rate(u) > fp_rate {
            below = Some(u);
            u = u
                .checked_add(1 + u / 1_000_000)
                .ok_or_else(|| too_many_bits(u128::from(u) + 1))?;
        }
        // The steps may overshoot by up to one part in 10⁶: bisect back to
        // the least unit count that meets the target.
        if let Some(mut lo) = below {
            while u - lo > 1 {
                let mid = lo + (u - lo) / 2;
                if rate(mid) > fp_rate {
                    lo = mid;
                } else {
                    u = mid;
                }
            }
        }
        let m = u
            .checked_mul(scale)
            .ok_or_else(|| too_many_bits(u128::from(u) * u128::from(scale)))?;
        validate_bits(m)?;
        if best.is_none_or(|b| m < b.bits) {
            best = Some(BloomParams { bits: m, hashes: k });
        }
    }
    Ok(best.expect("two candidates were tried"))
}

/// The number of items at which a filter of `bits` bits and `hashes` hash
/// functions is at its optimum (half its bits set): ⌊m·ln 2 / k⌋, at least 1.
pub fn optimal_items(bits: u64, hashes: u32) -> usize {
    let n = (bits as f64 * std::f64::consts::LN_2 / f64::from(hashes.max(1))).floor();
    (n as usize).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed article's design table: target p → bits per key, k.
    const DESIGN_TABLE: [(f64, f64, u32); 6] = [
        (0.10, 4.8, 3),
        (0.05, 6.2, 4),
        (0.02, 8.1, 6),
        (0.01, 9.6, 7),
        (0.001, 14.4, 10),
        (0.0001, 19.2, 13),
    ];

    #[test]
    fn formulas_reproduce_the_design_table() {
        for (p, bits_per_key, k) in DESIGN_TABLE {
            let b = optimal_bits_per_key(p);
            assert_eq!((b * 10.0).round() / 10.0, bits_per_key, "p = {p}: {b}");
            assert_eq!(optimal_hashes(b).round() as u32, k, "p = {p}");
            // p* = 2^-k* recovers the target.
            assert!((optimal_fp_rate(b) - p).abs() < 1e-12 * p.max(1.0) + p * 1e-9);
        }
    }

    #[test]
    fn whole_number_parameters_match_the_design_table() {
        let n = 1_000_000;
        for (p, _, k) in DESIGN_TABLE {
            let params = classic_params(n, p).unwrap();
            assert_eq!(params.hashes(), k, "p = {p}");
            let ideal = optimal_bits_per_key(p);
            let got = params.bits_per_key(n);
            // At most 1 % over the real-valued optimum, and never under the
            // exact bound.
            assert!(
                got >= ideal * 0.999 && got <= ideal * 1.01,
                "p = {p}: {got} vs {ideal}"
            );
            assert!(fp_rate_classic(params.bits(), n as u64, k) <= p);
            // One bit fewer would miss the target: m is the least.
            assert!(fp_rate_classic(params.bits() - 1, n as u64, k) > p);
        }
    }

    #[test]
    fn hundred_million_keys_at_one_percent() {
        let n = 100_000_000;
        let ideal = optimal_bits_per_key(0.01) * n as f64;
        assert!((ideal / 1e8 - 9.585).abs() < 0.001, "{ideal}");
        let params = classic_params(n, 0.01).unwrap();
        assert_eq!(params.hashes(), 7);
        let bits = params.bits() as f64;
        assert!((bits / 1e8 - 9.6).abs() < 0.05, "{bits}");
        // about 115 MB (the seed's figure is 9.6e8 / 8 / 1e6 = 120 MB decimal, 114 MiB)
        let mib = bits / 8.0 / (1 << 20) as f64;
        assert!((mib - 114.4).abs() < 1.0, "{mib}");
    }

    #[test]
    fn approx_and_exact_agree_for_large_filters() {
        // The seed's Experiment 1 example: k = 4, m/n = 8: theory 0.023969.
        let approx = fp_rate_approx(800_000.0, 100_000.0, 4.0);
        assert!((approx - 0.023969).abs() < 5e-6, "{approx}");
        let exact = fp_rate_exact(800_000, 100_000, 4);
        assert!((exact - approx).abs() / approx < 1e-4);
        // The exact rate is slightly above the approximation.
        assert!(exact > approx);
    }

    #[test]
    fn exact_formula_for_tiny_filters() {
        // m = 2, n = 1, k = 1: one bit of two set, p = 1/2.
        assert!((fp_rate_exact(2, 1, 1) - 0.5).abs() < 1e-15);
        // m = 4, n = 1, k = 2: P(bit zero) = (3/4)^2, p = (7/16)^2.
        assert!((fp_rate_exact(4, 1, 2) - (7.0f64 / 16.0).powi(2)).abs() < 1e-15);
        // Partitioned m = 4, k = 2: slices of 2, one bit per slice, p = 1/4.
        assert!((fp_rate_partitioned(4, 1, 2) - 0.25).abs() < 1e-15);
        assert_eq!(fp_rate_exact(0, 1, 1), 1.0);
        assert_eq!(fp_rate_exact(100, 0, 3), 0.0);
    }

    #[test]
    fn optimum_at_experiment_two() {
        // m/n = 10: k* = 6.93, the U curve bottoms at 7.
        assert!((optimal_hashes(10.0) - 6.931).abs() < 1e-3);
        let rates: Vec<f64> = (1..=10)
            .map(|k| fp_rate_exact(1_000_000, 100_000, k))
            .collect();
        let best = rates
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0
            + 1;
        assert_eq!(best, 7);
    }

    #[test]
    fn partitioned_params_meet_their_formula() {
        for p in [0.1, 0.01, 0.001] {
            let params = partitioned_params(10_000, p).unwrap();
            assert_eq!(params.bits() % u64::from(params.hashes()), 0);
            assert!(fp_rate_partitioned(params.bits(), 10_000, params.hashes()) <= p);
            let classic = classic_params(10_000, p).unwrap();
            assert!(params.bits() >= classic.bits());
            assert!((params.bits() as f64) < classic.bits() as f64 * 1.01);
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        for p in [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                classic_params(10, p),
                Err(Error::InvalidParameter {
                    name: "fp_rate",
                    ..
                })
            ));
        }
        assert!(matches!(
            classic_params(0, 0.01),
            Err(Error::InvalidParameter {
                name: "expected_items",
                ..
            })
        ));
        // k would be ~997: absurd.
        assert!(matches!(
            classic_params(10, 1e-300),
            Err(Error::InvalidParameter {
                name: "fp_rate",
                ..
            })
        ));
        // Below 2^-64 every Bloom layout refuses the rate, quoting it.
        assert!(classic_params(10, MIN_FP_RATE).is_ok());
        assert!(partitioned_params(10, MIN_FP_RATE).is_ok());
        assert!(blocked_params(10, MIN_FP_RATE).is_ok());
        assert!(split_block_params(10, MIN_SPLIT_BLOCK_FP_RATE).is_ok());
        for p in [MIN_FP_RATE * 0.99, 1e-300, 5e-324] {
            for params in [
                classic_params,
                partitioned_params,
                blocked_params,
                split_block_params,
            ] {
                match params(10, p) {
                    Err(Error::InvalidParameter {
                        name: "fp_rate",
                        reason,
                    }) => assert!(reason.starts_with(&format!("{p:?} ")), "{reason}"),
                    other => panic!("{p}: {other:?}"),
                }
            }
        }
        assert!(matches!(
            classic_params(usize::MAX, 1e-18),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            partitioned_params(usize::MAX, 1e-18),
            Err(Error::TooLarge { .. })
        ));
        assert!(BloomParams::new(0, 3).is_err());
        assert!(BloomParams::new(10, 0).is_err());
        assert!(BloomParams::new(10, MAX_HASHES + 1).is_err());
        assert!(BloomParams::new(u64::MAX, 3).is_err());
    }

    #[test]
    fn memory_limits() {
        assert_eq!(check_memory(100, Some(100)).unwrap(), 100);
        assert_eq!(
            check_memory(101, Some(100)),
            Err(Error::TooLarge {
                needed: 101,
                limit: 100
            })
        );
        assert!(check_memory(u128::MAX, None).is_err());
    }

    #[test]
    fn nearly_one_fp_rate_is_a_tiny_filter() {
        let params = classic_params(1, 0.9999).unwrap();
        assert_eq!(params.hashes(), 1);
        assert!(params.bits() >= 1 && params.bits() <= 2);
        assert!(fp_rate_exact(params.bits(), 1, 1) <= 0.9999);
    }
}
