//! What a Bloom filter's fill says, by layout: the distinct items it holds
//! and its false-positive rate. The classic and partitioned layouts spread a
//! key's `k` positions over the whole filter, so the fill X/m determines
//! both directly; the blocked and split-block layouts put them in one block
//! ([`Layout::block_fill`]), so their rate is the layout's Poisson mixture
//! over block loads (the loads vary, and an overloaded block costs more
//! than an underloaded one saves).
//! `docs/design.md`, "API rules", compares the estimates with measurement.

use crate::layout::Layout;

/// Distinct items estimated from `nonzero` of `cells` cells set, with
/// `hashes` positions per key; infinite when every cell is set.
///
/// Classic and partitioned: each key sets each cell with probability about
/// k/m, so E[X/m] = 1 − e^(−kn/m) and n = −(m/k)·ln(1 − X/m). In blocks of
/// B bits where a key sets an expected fraction `f` of its block's bits
/// (blocked: f = 1 − (1 − 1/512)^k; split-block: f = 8/256, one bit per
/// word), a block of load `j` has each bit unset with probability
/// (1 − f)^j, and with Poisson loads of mean λ = Bn/m, E[X/m] = 1 −
/// e^(−λ·f), inverted the same way: n = −(m/B)·ln(1 − X/m)/f.
pub(crate) fn items<L: Layout>(cells: u64, hashes: u32, nonzero: u64) -> f64 {
    if cells == 0 || hashes == 0 {
        return 0.0;
    }
    let m = cells as f64;
    let empty = (-(nonzero as f64 / m)).ln_1p();
    match L::block_fill(hashes) {
        Some((block, per_key)) => -(m / block as f64) * empty / per_key,
        None => -(m / f64::from(hashes)) * empty,
    }
}

/// The false-positive rate estimated from `nonzero` of `cells` cells set.
///
/// Classic and partitioned: (X/m)^k. Blocked and split-block: the layout's
/// [`Layout::fp_rate`] (its Poisson mixture) at the [`items`] the fill
/// gives, rounded to a whole number.
pub(crate) fn fp_rate<L: Layout>(cells: u64, hashes: u32, nonzero: u64) -> f64 {
    if cells == 0 {
        return 1.0;
    }
    if L::block_fill(hashes).is_some() {
        if nonzero >= cells {
            return 1.0;
        }
        let n = items::<L>(cells, hashes, nonzero).round();
        L::fp_rate(cells, n as u64, hashes)
    } else {
        (nonzero as f64 / cells as f64).powi(hashes as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Blocked, Classic, SplitBlock};

    #[test]
    fn the_blocked_items_estimate_inverts_the_expected_fill() {
        let (m, k, n) = (512 * 1_000u64, 7u32, 40_000f64);
        let lambda = n * 512.0 / m as f64;
        let unset = (1.0 - 1.0 / 512.0f64).powi(k as i32);
        let fill = 1.0 - (-lambda * (1.0 - unset)).exp();
        let got = items::<Blocked>(m, k, (fill * m as f64).round() as u64);
        assert!((got - n).abs() < 10.0, "{got}");
        let classic = items::<Classic>(m, k, (fill * m as f64).round() as u64);
        assert!(classic < got, "the classic model reads a blocked fill low");
        assert_eq!(fp_rate::<Blocked>(m, k, m), 1.0);
        assert_eq!(fp_rate::<Classic>(m, k, 0), 0.0);
    }

    #[test]
    fn the_split_block_estimates_use_one_bit_per_word() {
        // Each key sets one bit in each of 8 words of 32: E[X/m] =
        // 1 − e^(−λ/32), λ = 256n/m.
        let (m, n) = (256 * 1_000u64, 20_000f64);
        let fill = 1.0 - (-(n * 256.0 / m as f64) / 32.0).exp();
        let ones = (fill * m as f64).round() as u64;
        let got = items::<SplitBlock>(m, 8, ones);
        assert!((got - n).abs() < 10.0, "{got}");
        let rate = fp_rate::<SplitBlock>(m, 8, ones);
        let model = approxset_core::sizing::fp_rate_split_block(m, n as u64);
        assert!((rate - model).abs() < model * 1e-3, "{rate} vs {model}");
        // Above the classic (X/m)^8 of the same fill: loads vary.
        assert!(rate > fill.powi(8));
        assert_eq!(fp_rate::<SplitBlock>(m, 8, m), 1.0);
    }
}
