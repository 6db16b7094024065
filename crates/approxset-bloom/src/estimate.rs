//! What a Bloom filter's fill says, by layout: the distinct items it holds
//! and its false-positive rate. The classic and partitioned layouts spread a
//! key's `k` positions over the whole filter, so the fill X/m determines
//! both directly; the blocked layout puts them in one 512-bit block, so its
//! rate is the Poisson mixture over block loads (the loads vary, and an
//! overloaded block costs more than an underloaded one saves).
//! `docs/design.md`, "API rules", compares the estimates with measurement.

use approxset_core::format::tag;
use approxset_core::sizing::{BLOCK_BITS, fp_rate_blocked};

use crate::layout::Layout;

/// Whether `L` puts a key's positions in one block.
fn blocked<L: Layout>() -> bool {
    L::TAG == tag::BLOCKED
}

/// Distinct items estimated from `nonzero` of `cells` cells set, with
/// `hashes` positions per key; infinite when every cell is set.
///
/// Classic and partitioned: each key sets each cell with probability about
/// k/m, so E[X/m] = 1 − e^(−kn/m) and n = −(m/k)·ln(1 − X/m). Blocked: a
/// block of load `j` has each bit unset with probability (1 − 1/512)^(kj),
/// and with Poisson loads of mean λ = 512n/m, E[X/m] = 1 − e^(−λ·(1 − (1 −
/// 1/512)^k)), inverted the same way.
pub(crate) fn items<L: Layout>(cells: u64, hashes: u32, nonzero: u64) -> f64 {
    if cells == 0 || hashes == 0 {
        return 0.0;
    }
    let m = cells as f64;
    let empty = (-(nonzero as f64 / m)).ln_1p();
    if blocked::<L>() {
        let blocks = m / BLOCK_BITS as f64;
        let per_key = -(f64::from(hashes) * (-1.0 / BLOCK_BITS as f64).ln_1p()).exp_m1();
        -blocks * empty / per_key
    } else {
        -(m / f64::from(hashes)) * empty
    }
}

/// The false-positive rate estimated from `nonzero` of `cells` cells set.
///
/// Classic and partitioned: (X/m)^k. Blocked: [`fp_rate_blocked`] at the
/// [`items`] the fill gives, rounded to a whole number.
pub(crate) fn fp_rate<L: Layout>(cells: u64, hashes: u32, nonzero: u64) -> f64 {
    if cells == 0 {
        return 1.0;
    }
    if blocked::<L>() {
        if nonzero >= cells {
            return 1.0;
        }
        let n = items::<L>(cells, hashes, nonzero).round();
        fp_rate_blocked(cells, n as u64, hashes)
    } else {
        (nonzero as f64 / cells as f64).powi(hashes as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Blocked, Classic};

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
}
