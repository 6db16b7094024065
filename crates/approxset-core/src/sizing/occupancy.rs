//! The classic filter's false-positive rate as the mean over its fill.
//!
//! After `n` items a classic filter of `m` bits has `X` bits set, `X` the
//! number of occupied bins after `d = k·n` uniform draws into `m` bins, and
//! a fresh key is a false positive with probability `(X/m)^k`. The formula
//! of the seed article, (1 − (1 − 1/m)^d)^k, is `(E[X]/m)^k`: by Jensen's
//! inequality it is below the real rate `E[(X/m)^k]`, by a factor of about
//! 1 + 0.15·k(k−1)/m near the optimum. Negligible for a filter of millions
//! of bits, that factor is 2 for a one-key filter at 0.1 % (15 bits, 10
//! probes): sizing by it broke the rate promised for small filters
//! (`docs/design.md`, "Small filters").

/// The second-order expansion is used while its correction term is at most
/// this: its error, about half the correction's square, is then below
/// 2·10⁻⁴ of the rate. Larger corrections (filters of fewer than about
/// 8·k² bits) are computed exactly.
const SECOND_ORDER_MAX: f64 = 0.02;

/// Probabilities of fill levels below this are dropped from the exact
/// computation: about 13 standard deviations from the mean, and even
/// weighted by the largest ratio (m/X)^k ≤ 2⁶⁴ they change no digit of a
/// rate above 10⁻²⁰.
const NEGLIGIBLE: f64 = 1e-40;

/// The false-positive rate `E[(X/m)^k]` of a classic Bloom filter of `bits`
/// bits and `hashes` independent uniform positions per key holding `items`
/// items, `X` the bits set.
///
/// To second order, `μ^k·(1 + k(k−1)/2 · σ²/μ²)` with the exact mean `μ`
/// and variance `σ²` of `X/m`, while that correction is at most 2 %; exact
/// (from the distribution of `X`, by dynamic programming over the draws)
/// for the smaller filters where it is larger.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sizing::{fp_rate_classic, fp_rate_exact};
/// // One key in 15 bits with 10 probes: about twice the textbook formula.
/// let real = fp_rate_classic(15, 1, 10);
/// assert!(real > 1.9 * fp_rate_exact(15, 1, 10));
/// // A large filter: the two agree to a fraction of a percent.
/// let (a, b) = (fp_rate_classic(9_585_059, 1_000_000, 7), fp_rate_exact(9_585_059, 1_000_000, 7));
/// assert!((a / b - 1.0).abs() < 1e-4);
/// ```
pub fn fp_rate_classic(bits: u64, items: u64, hashes: u32) -> f64 {
    if bits == 0 {
        return 1.0;
    }
    let draws = u128::from(items) * u128::from(hashes);
    if draws == 0 {
        return 0.0;
    }
    if bits == 1 {
        return 1.0;
    }
    let (mean, correction) = moments(bits, draws as f64, hashes);
    if correction <= SECOND_ORDER_MAX || draws > u128::from(u32::MAX) {
        (mean.powi(hashes as i32) * (1.0 + correction)).min(1.0)
    } else {
        exact(bits, draws as u64, hashes)
    }
}

/// The mean `μ` of `X/m` and the second-order correction
/// `k(k−1)/2 · σ²/μ²`, from the exact mean and variance of the number of
/// empty bins, computed without cancellation.
fn moments(bits: u64, draws: f64, hashes: u32) -> (f64, f64) {
    let m = bits as f64;
    // q = (1 − 1/m)^d: the chance a given bin stays empty.
    let q = (draws * (-1.0 / m).ln_1p()).exp();
    // a = (1 − 2/m)^d: the chance two given bins both stay empty.
    let a = (draws * (-2.0 / m).ln_1p()).exp();
    // Var(empty) = m(m−1)·a + m·q − m²q² = m²(a − q²) + m(q − a), and
    // a − q² = q²·expm1(d·ln(1 − 1/(m−1)²)).
    let spread = (draws * (-1.0 / ((m - 1.0) * (m - 1.0))).ln_1p()).exp_m1();
    let variance = (m * m * q * q * spread + m * (q - a)).max(0.0) / (m * m);
    let mean = 1.0 - q;
    if mean <= 0.0 {
        return (0.0, 0.0);
    }
    let k = f64::from(hashes);
    (mean, k * (k - 1.0) / 2.0 * variance / (mean * mean))
}

/// `E[(X/m)^k]` from the distribution of `X`: after each draw, a bin is
/// newly occupied with probability (m − x)/m. Only the fill levels with a
/// probability above [`NEGLIGIBLE`] are carried, about 26 standard
/// deviations of `X`, so the cost is about `7·d·√m`.
fn exact(bits: u64, draws: u64, hashes: u32) -> f64 {
    let m = bits as f64;
    let top = draws.min(bits) as usize;
    // dist[x] = P(X = x) after the draws so far, for x in lo..=hi.
    let mut dist = vec![0.0f64; top + 1];
    dist[0] = 1.0;
    let (mut lo, mut hi) = (0usize, 0usize);
    for _ in 0..draws {
        let new_hi = (hi + 1).min(top);
        for x in (lo.max(1)..=new_hi).rev() {
            let stay = if x <= hi {
                dist[x] * (x as f64 / m)
            } else {
                0.0
            };
            let enter = if x > lo {
                dist[x - 1] * ((m - (x - 1) as f64) / m)
            } else {
                0.0
            };
            dist[x] = stay + enter;
        }
        if lo == 0 {
            // An empty filter never stays empty after a draw.
            dist[0] = 0.0;
        }
        hi = new_hi;
        while lo < hi && dist[lo] < NEGLIGIBLE {
            lo += 1;
        }
        while hi > lo && dist[hi] < NEGLIGIBLE {
            hi -= 1;
        }
    }
    dist[lo..=hi]
        .iter()
        .zip(lo..)
        .map(|(p, x)| p * (x as f64 / m).powi(hashes as i32))
        .sum::<f64>()
        .min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizing::fp_rate_exact;

    /// E[(X/m)^k] by brute force over every sequence of draws.
    fn brute(bits: u64, items: u64, hashes: u32) -> f64 {
        let draws = (items * u64::from(hashes)) as u32;
        let total = bits.pow(draws);
        let mut sum = 0.0;
        for seq in 0..total {
            let mut set = vec![false; bits as usize];
            let mut s = seq;
            for _ in 0..draws {
                set[(s % bits) as usize] = true;
                s /= bits;
            }
            let x = set.iter().filter(|b| **b).count() as f64;
            sum += (x / bits as f64).powi(hashes as i32);
        }
        sum / total as f64
    }

    #[test]
    fn exact_matches_brute_force() {
        for (m, n, k) in [
            (2, 1, 1),
            (3, 1, 2),
            (5, 2, 3),
            (4, 3, 2),
            (6, 1, 6),
            (7, 2, 4),
        ] {
            let b = brute(m, n, k);
            let a = exact(m, n * u64::from(k), k);
            assert!((a / b - 1.0).abs() < 1e-9, "m={m} n={n} k={k}: {a} vs {b}");
            let c = fp_rate_classic(m, n, k);
            assert!((c / b - 1.0).abs() < 5e-4, "m={m} n={n} k={k}: {c} vs {b}");
        }
    }

    #[test]
    fn second_order_meets_exact_where_it_takes_over() {
        // Filters sized near the optimum where the correction is about the
        // switch's 2 % (and below it): the expansion is within 5·10⁻⁴ of
        // the exact rate.
        for k in [3u32, 7, 10, 14, 20, 30] {
            for m in [8 * k * k, 16 * k * k, 40 * k * k] {
                let m = u64::from(m);
                let n = ((m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64).max(1);
                let draws = n * u64::from(k);
                let (mean, c) = moments(m, draws as f64, k);
                let second = mean.powi(k as i32) * (1.0 + c);
                let e = exact(m, draws, k);
                assert!(
                    (second / e - 1.0).abs() < 5e-4,
                    "m={m} n={n} k={k}: {e} vs {second}, c={c}"
                );
            }
        }
    }

    #[test]
    fn trimming_changes_nothing_measurable() {
        // The exact rate with the band against the full distribution.
        fn full(bits: u64, draws: u64, hashes: u32) -> f64 {
            let m = bits as f64;
            let mut dist = vec![0.0f64; bits as usize + 1];
            dist[0] = 1.0;
            for _ in 0..draws {
                for x in (1..=bits as usize).rev() {
                    dist[x] = dist[x] * (x as f64 / m) + dist[x - 1] * ((m - (x - 1) as f64) / m);
                }
                dist[0] = 0.0;
            }
            dist.iter()
                .enumerate()
                .map(|(x, p)| p * (x as f64 / m).powi(hashes as i32))
                .sum()
        }
        for (m, d, k) in [
            (15, 10, 10),
            (300, 200, 10),
            (2000, 1400, 20),
            (64, 640, 64),
        ] {
            let (a, b) = (exact(m, d, k), full(m, d, k));
            assert!((a / b - 1.0).abs() < 1e-9, "m={m} d={d} k={k}: {a} vs {b}");
        }
    }

    #[test]
    fn above_the_textbook_formula_and_converging_to_it() {
        assert!(fp_rate_classic(15, 1, 10) > 2.0 * fp_rate_exact(15, 1, 10));
        let big = fp_rate_classic(95_851, 10_000, 7) / fp_rate_exact(95_851, 10_000, 7);
        assert!(big > 1.0 && big < 1.001, "{big}");
        assert_eq!(fp_rate_classic(0, 5, 3), 1.0);
        assert_eq!(fp_rate_classic(100, 0, 3), 0.0);
        assert_eq!(fp_rate_classic(1, 1, 3), 1.0);
        assert!(fp_rate_classic(u64::MAX, u64::MAX, 64) <= 1.0);
    }
}
