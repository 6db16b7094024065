//! Sizing of the Bloom filters that keep each key in one block: the
//! cache-blocked filter (512-bit blocks, `k` positions anywhere in the
//! block) and the split-block filter (256-bit blocks of eight 32-bit words,
//! one position in each word). Both rates are a Poisson mixture over block
//! loads, and both are sized by the least whole number of blocks that meets
//! a target.

use super::{
    BloomParams, MAX_BITS, hash_candidates, optimal_bits_per_key, validate_bloom_fp_rate,
    validate_items,
};
use crate::error::{Error, Result};

/// Bits of one block of a blocked Bloom filter: a 64-byte cache line.
pub const BLOCK_BITS: u64 = 512;

/// Bits of one block of a split-block Bloom filter: eight 32-bit words.
pub const SPLIT_BLOCK_BITS: u64 = 256;

/// The hash count of the split-block Bloom filter: one bit in each of its
/// block's eight words.
pub const SPLIT_BLOCK_HASHES: u32 = 8;

/// The most blocks of a split-block Bloom filter (2^40 bits): its block
/// index is Parquet's multiply-shift of the hash's high 32 bits by the block
/// count, which must fit in 32 bits for the product to fit in 64.
pub const MAX_SPLIT_BLOCKS: u64 = 1 << 32;

/// The least target rate of a split-block Bloom filter, 2^-40 = (1/32)^8:
/// the rate of a block holding a single key. With `k` fixed at 8, a lower
/// rate needs most blocks empty, at more than 3 500 bits per key (64 at
/// 10⁻⁶, 318 at 10⁻⁹).
pub const MIN_SPLIT_BLOCK_FP_RATE: f64 = 1.0 / 1_099_511_627_776.0;

/// The false-positive rate of a blocked Bloom filter of `bits` bits (whole
/// blocks of [`BLOCK_BITS`]) and `hashes` positions per key inside one block
/// (Putze, Sanders and Singler 2007): the block loads are Poisson with mean
/// λ = n·B/m, and a block holding `i` keys answers like a classic filter of
/// B bits: Σᵢ Poisson(i; λ) · (1 − (1 − 1/B)^(k·i))^k.
pub fn fp_rate_blocked(bits: u64, items: u64, hashes: u32) -> f64 {
    if hashes == 0 {
        return 1.0;
    }
    let k = f64::from(hashes);
    let miss = (-1.0 / BLOCK_BITS as f64).ln_1p();
    poisson_mixture(bits / BLOCK_BITS, items, |i| {
        (-(k * i * miss).exp_m1()).powi(hashes as i32)
    })
}

/// The false-positive rate of a split-block Bloom filter of `bits` bits
/// (whole blocks of [`SPLIT_BLOCK_BITS`]) holding `items` keys: each key
/// sets one bit in each of its block's eight 32-bit words, so a block of
/// `i` keys has each probed bit set with probability 1 − (1 − 1/32)^i, and
/// with Poisson loads of mean λ = n·256/m the rate is
/// Σᵢ Poisson(i; λ) · (1 − (1 − 1/32)^i)^8.
pub fn fp_rate_split_block(bits: u64, items: u64) -> f64 {
    let miss = (-1.0 / 32.0f64).ln_1p();
    poisson_mixture(bits / SPLIT_BLOCK_BITS, items, |i| {
        (-(i * miss).exp_m1()).powi(SPLIT_BLOCK_HASHES as i32)
    })
}

/// Σᵢ Poisson(i; λ) · `inner(i)` for `items` keys spread over `blocks`
/// blocks, λ = items / blocks: the rate of a filter whose block holding `i`
/// keys answers `inner(i)`. 1 without blocks, 0 without items.
fn poisson_mixture(blocks: u64, items: u64, inner: impl Fn(f64) -> f64) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    if items == 0 {
        return 0.0;
    }
    let lambda = items as f64 / blocks as f64;
    if lambda > 1e4 {
        // Ten thousand keys in one block: every bit is set.
        return 1.0;
    }
    // Walk out from the mode in both directions until the Poisson terms no
    // longer matter.
    let mode = lambda.floor();
    let at_mode = (mode * lambda.ln() - lambda - ln_factorial(mode)).exp();
    let mut sum = at_mode * inner(mode);
    let (mut pmf, mut i) = (at_mode, mode);
    while pmf > 1e-18 {
        pmf *= lambda / (i + 1.0);
        i += 1.0;
        sum += pmf * inner(i);
    }
    let (mut pmf, mut i) = (at_mode, mode);
    while pmf > 1e-18 && i > 0.0 {
        pmf *= i / lambda;
        i -= 1.0;
        sum += pmf * inner(i);
    }
    sum.min(1.0)
}

/// ln(n!) for a whole number `n ≥ 0`: summed for small `n`, Stirling's
/// series (error below 10⁻¹⁰) above.
fn ln_factorial(n: f64) -> f64 {
    if n < 20.0 {
        (2..=n as u32).map(|j| f64::from(j).ln()).sum()
    } else {
        n * n.ln() - n + 0.5 * (std::f64::consts::TAU * n).ln() + 1.0 / (12.0 * n)
            - 1.0 / (360.0 * n * n * n)
    }
}

/// Bits (whole blocks of [`BLOCK_BITS`]) and hash count of a blocked Bloom
/// filter holding `items` items at a false-positive rate of at most
/// `fp_rate` by [`fp_rate_blocked`], the fewest bits over the `k` near the
/// optimum (which is lower than the classic filter's).
///
/// # Errors
/// As [`classic_params`](super::classic_params).
pub fn blocked_params(items: usize, fp_rate: f64) -> Result<BloomParams> {
    validate_items(items)?;
    validate_bloom_fp_rate(fp_rate)?;
    let [_, k_hi] = hash_candidates(fp_rate)?;
    let k_lo = ((-fp_rate.log2() * 0.6).floor() as u32).max(1).min(k_hi);
    let n = items as u64;
    let mut best: Option<BloomParams> = None;
    for k in k_lo..=k_hi {
        let found = least_blocks(n, fp_rate, BLOCK_BITS, MAX_BITS / BLOCK_BITS, |blocks| {
            fp_rate_blocked(blocks * BLOCK_BITS, n, k)
        });
        // A `k` that cannot reach p within MAX_BITS is skipped; another may.
        if let Some(blocks) = found {
            let m = blocks * BLOCK_BITS;
            if best.is_none_or(|b| m < b.bits) {
                best = Some(BloomParams { bits: m, hashes: k });
            }
        }
    }
    best.ok_or_else(|| too_large(n, fp_rate, MAX_BITS))
}

/// Bits (whole blocks of [`SPLIT_BLOCK_BITS`], at most
/// [`MAX_SPLIT_BLOCKS`]) and hash count ([`SPLIT_BLOCK_HASHES`], always) of
/// a split-block Bloom filter holding `items` items at a false-positive rate
/// of at most `fp_rate` by [`fp_rate_split_block`].
///
/// # Errors
/// As [`classic_params`](super::classic_params), with
/// [`Error::InvalidParameter`] for a rate below [`MIN_SPLIT_BLOCK_FP_RATE`]
/// and [`Error::TooLarge`] past [`MAX_SPLIT_BLOCKS`].
pub fn split_block_params(items: usize, fp_rate: f64) -> Result<BloomParams> {
    validate_items(items)?;
    validate_bloom_fp_rate(fp_rate)?;
    if fp_rate < MIN_SPLIT_BLOCK_FP_RATE {
        return Err(Error::invalid(
            "fp_rate",
            format!(
                "{fp_rate:?} is below 2^-40 ≈ {MIN_SPLIT_BLOCK_FP_RATE:.3e}, the least a \
                 split-block filter (k = 8) is sized for"
            ),
        ));
    }
    let n = items as u64;
    least_blocks(n, fp_rate, SPLIT_BLOCK_BITS, MAX_SPLIT_BLOCKS, |blocks| {
        fp_rate_split_block(blocks * SPLIT_BLOCK_BITS, n)
    })
    .map(|blocks| BloomParams {
        bits: blocks * SPLIT_BLOCK_BITS,
        hashes: SPLIT_BLOCK_HASHES,
    })
    .ok_or_else(|| too_large(n, fp_rate, MAX_SPLIT_BLOCKS * SPLIT_BLOCK_BITS))
}

/// The least number of blocks of `block_bits` bits, at most `max_blocks`,
/// whose `rate` (falling as blocks are added) is at most `fp_rate` for `n`
/// keys, or `None` when even `max_blocks` misses it.
fn least_blocks(
    n: u64,
    fp_rate: f64,
    block_bits: u64,
    max_blocks: u64,
    rate: impl Fn(u64) -> f64,
) -> Option<u64> {
    let meets = |blocks: u64| rate(blocks) <= fp_rate;
    // A first guess from the classic optimum, doubled until it meets p.
    let guess = (n as f64 * optimal_bits_per_key(fp_rate) / block_bits as f64).ceil();
    let mut hi = (guess.min(max_blocks as f64) as u64).max(1);
    while !meets(hi) {
        if hi >= max_blocks {
            return None;
        }
        hi = hi.saturating_mul(2).min(max_blocks);
    }
    // The least block count that meets p: fp falls as blocks grow.
    let mut lo = 0;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) { hi = mid } else { lo = mid }
    }
    Some(hi)
}

/// The error when even the largest filter misses the target: about what it
/// would take, past the limit of `max_bits`.
fn too_large(n: u64, fp_rate: f64, max_bits: u64) -> Error {
    let estimate = n as f64 * optimal_bits_per_key(fp_rate);
    let needed = (estimate as u128).max(u128::from(max_bits) + 1);
    Error::TooLarge {
        needed: needed.div_ceil(8),
        limit: u128::from(max_bits / 8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizing::{classic_params, fp_rate_exact};

    #[test]
    fn blocked_params_meet_their_formula_near_the_classic_size() {
        for (p, most) in [(0.1, 1.02), (0.01, 1.05), (0.001, 1.1), (0.0001, 1.15)] {
            let n = 1_000_000;
            let b = blocked_params(n, p).unwrap();
            assert_eq!(b.bits() % BLOCK_BITS, 0);
            assert!(fp_rate_blocked(b.bits(), n as u64, b.hashes()) <= p);
            // One block fewer misses the target at that k.
            assert!(fp_rate_blocked(b.bits() - BLOCK_BITS, n as u64, b.hashes()) > p);
            let classic = classic_params(n, p).unwrap();
            let ratio = b.bits() as f64 / classic.bits() as f64;
            assert!((1.0..most).contains(&ratio), "p = {p}: {ratio}");
            // The optimum k is lower than the classic one.
            assert!(b.hashes() <= classic.hashes());
        }
        // Tiny and huge.
        assert_eq!(blocked_params(1, 0.5).unwrap().bits(), BLOCK_BITS);
        assert!(matches!(
            blocked_params(usize::MAX, 1e-18),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn blocked_formula_is_a_mixture_of_classic_blocks() {
        // One block: the load is Poisson around n, close to a classic filter
        // of 512 bits with n keys.
        let one = fp_rate_blocked(512, 40, 5);
        let classic = fp_rate_exact(512, 40, 5);
        assert!(one > classic && one < classic * 1.5, "{one} vs {classic}");
        // More blocks, same load per block: the same rate.
        let many = fp_rate_blocked(512 * 1000, 40_000, 5);
        assert!((many - one).abs() < 1e-12, "{many} vs {one}");
        assert_eq!(fp_rate_blocked(511, 10, 3), 1.0);
        assert_eq!(fp_rate_blocked(512, 0, 3), 0.0);
        // ln n! matches the product at the switch between the two forms.
        let exact: f64 = (2..=25).map(|j| f64::from(j).ln()).sum();
        assert!((ln_factorial(25.0) - exact).abs() < 1e-9);
    }

    #[test]
    fn split_block_params_meet_their_formula_within_the_promised_size() {
        for (p, most) in [(0.1, 1.3), (0.01, 1.15), (0.001, 1.2)] {
            let n = 1_000_000;
            let b = split_block_params(n, p).unwrap();
            assert_eq!(b.bits() % SPLIT_BLOCK_BITS, 0);
            assert_eq!(b.hashes(), SPLIT_BLOCK_HASHES);
            assert!(fp_rate_split_block(b.bits(), n as u64) <= p);
            // One block fewer misses the target.
            assert!(fp_rate_split_block(b.bits() - SPLIT_BLOCK_BITS, n as u64) > p);
            let classic = classic_params(n, p).unwrap();
            let ratio = b.bits() as f64 / classic.bits() as f64;
            assert!((1.0..most).contains(&ratio), "p = {p}: {ratio}");
        }
        assert_eq!(split_block_params(1, 0.5).unwrap().bits(), SPLIT_BLOCK_BITS);
        // Past 2^32 blocks: too large, with the split-block limit.
        match split_block_params(1 << 40, 0.01) {
            Err(Error::TooLarge { needed, limit }) => {
                assert_eq!(limit, 1 << 37);
                assert!(needed > limit);
            }
            other => panic!("{other:?}"),
        }
        assert!(split_block_params(1 << 20, 0.01).is_ok());
        // Its least rate builds; below it is an invalid rate, quoted.
        let least = split_block_params(100, MIN_SPLIT_BLOCK_FP_RATE).unwrap();
        assert!(least.bits() / 100 > 3_000, "{least:?}");
        match split_block_params(100, MIN_SPLIT_BLOCK_FP_RATE * 0.999) {
            Err(Error::InvalidParameter {
                name: "fp_rate",
                reason,
            }) => {
                assert!(reason.contains("2^-40"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn split_block_formula_is_a_mixture_of_word_loads() {
        // A block of i keys: each of the eight probed bits is set with
        // probability 1 − (31/32)^i. The mixture is above its value at the
        // mean load (the rate is convex in the load), not far above.
        let one = fp_rate_split_block(256, 20);
        let at_mean = (1.0 - (31.0f64 / 32.0).powi(20)).powi(8);
        assert!(one > at_mean && one < at_mean * 2.0, "{one} vs {at_mean}");
        // More blocks, same load per block: the same rate.
        let many = fp_rate_split_block(256 * 1000, 20_000);
        assert!((many - one).abs() < 1e-12, "{many} vs {one}");
        assert_eq!(fp_rate_split_block(255, 10), 1.0);
        assert_eq!(fp_rate_split_block(256, 0), 0.0);
        // 10.53 bits per key at 1 % (the Poisson mixture, summed by hand).
        let bits = split_block_params(1_000_000, 0.01).unwrap().bits();
        assert!((bits as f64 / 1e6 - 10.53).abs() < 0.01, "{bits}");
    }
}
