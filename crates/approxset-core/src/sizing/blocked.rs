//! Sizing of the cache-blocked Bloom filter: the Poisson mixture over block
//! loads and the least whole number of blocks that meets a target.

use super::{
    BloomParams, MAX_BITS, hash_candidates, optimal_bits_per_key, too_many_bits,
    validate_bloom_fp_rate, validate_items,
};
use crate::error::Result;

/// Bits of one block of a blocked Bloom filter: a 64-byte cache line.
pub const BLOCK_BITS: u64 = 512;

/// The false-positive rate of a blocked Bloom filter of `bits` bits (whole
/// blocks of [`BLOCK_BITS`]) and `hashes` positions per key inside one block
/// (Putze, Sanders and Singler 2007): the block loads are Poisson with mean
/// λ = n·B/m, and a block holding `i` keys answers like a classic filter of
/// B bits: Σᵢ Poisson(i; λ) · (1 − (1 − 1/B)^(k·i))^k.
pub fn fp_rate_blocked(bits: u64, items: u64, hashes: u32) -> f64 {
    let blocks = bits / BLOCK_BITS;
    if blocks == 0 || hashes == 0 {
        return 1.0;
    }
    if items == 0 {
        return 0.0;
    }
    let lambda = items as f64 / blocks as f64;
    if lambda > 1e4 {
        // Ten thousand keys in 512 bits: every bit is set.
        return 1.0;
    }
    let k = f64::from(hashes);
    let miss = (-1.0 / BLOCK_BITS as f64).ln_1p();
    let inner = |i: f64| (-(k * i * miss).exp_m1()).powi(hashes as i32);
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
    let max_blocks = MAX_BITS / BLOCK_BITS;
    let mut best: Option<BloomParams> = None;
    for k in k_lo..=k_hi {
        let meets = |blocks: u64| fp_rate_blocked(blocks * BLOCK_BITS, n, k) <= fp_rate;
        // A first guess from the classic optimum, doubled until it meets p.
        let guess = (n as f64 * optimal_bits_per_key(fp_rate) / BLOCK_BITS as f64).ceil();
        let mut hi = (guess.min(max_blocks as f64) as u64).max(1);
        while !meets(hi) {
            if hi >= max_blocks {
                // This k cannot reach p within MAX_BITS; another may.
                hi = 0;
                break;
            }
            hi = hi.saturating_mul(2).min(max_blocks);
        }
        if hi == 0 {
            continue;
        }
        // The least block count that meets p: fp falls as blocks grow.
        let mut lo = 0;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if meets(mid) { hi = mid } else { lo = mid }
        }
        let m = hi * BLOCK_BITS;
        if best.is_none_or(|b| m < b.bits) {
            best = Some(BloomParams { bits: m, hashes: k });
        }
    }
    best.ok_or_else(|| {
        // Even the largest filter misses p: report about what it would take.
        let estimate = n as f64 * optimal_bits_per_key(fp_rate);
        too_many_bits((estimate as u128).max(u128::from(MAX_BITS) + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
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
}
