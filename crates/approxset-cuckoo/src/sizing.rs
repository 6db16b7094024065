//! How big a cuckoo filter is: the bucket count for `n` items, the
//! fingerprint width for a target rate, and the rate a width gives at a load.

use approxset_core::sizing::{validate_fp_rate, validate_items};
use approxset_core::{Error, Result};

use crate::table::{MAX_BITS, MIN_BITS, SLOTS, Table, supported};

/// The load factor the filter is sized for, in percent: 94 %, and 90 % for
/// 4-bit fingerprints; see [`buckets_for`].
fn load_percent(bits: u32) -> u128 {
    if bits <= MIN_BITS { 90 } else { 94 }
}

/// The extra items of headroom for small tables; see [`buckets_for`].
const HEADROOM: u128 = 32;

/// The bound on the probability that nine of `n` items share both buckets,
/// which small tables are sized to stay under.
const CLUSTER_RISK: f64 = 1e-9;

/// The bucket count for `items` distinct items with `bits`-bit
/// fingerprints, by the rule in `docs/design.md`, "Cuckoo filter".
///
/// The first term keeps the load at most 94 %. Measured over 10⁵–10⁶
/// fills from fresh keys, the load at the first failure averages 97–98 %
/// for tables of a few hundred items and falls slowly with size (96 % at
/// 10⁶ items, 95.7 % at 10⁷, standard deviation about 0.2 %), so 94 %
/// leaves a margin of many standard deviations at any size, for 1/0.94 =
/// 1.064 slots per item. Only 4-bit fingerprints fall further (95.3 % at
/// 10⁶ items, 94.2–94.9 % at 10⁷ and 3·10⁷: a table of 2^f − 1 = 15
/// alternate-bucket offsets fills less evenly), and they are sized at 90 %.
/// The 32 extra items cover the heavier lower tail of tables of a few
/// hundred to a few thousand items (no failure in 10⁶ fills). The second
/// term bounds the likeliest failure of small tables, nine items that
/// share both buckets (each of the B²/4 bucket pairs draws an item with
/// probability 4/B², and a pair holds only 8 slots and the stash), below
/// 10⁻⁹; it dominates up to about 250 items.
pub(crate) fn buckets_for(items: usize, bits: u32) -> u128 {
    if items <= 2 * SLOTS + 1 {
        return 2;
    }
    let by_load = ((items as u128 + HEADROOM) * 100).div_ceil(SLOTS as u128 * load_percent(bits));
    let by_cluster = if items <= 10_000 {
        // C(n, 9) · 4⁸ / B¹⁶ ≤ risk  ⇔  B ≥ (C(n, 9) · 4⁸ / risk)^(1/16).
        let n = items as f64;
        let choose9: f64 = (0..9)
            .map(|k| (n - f64::from(k)) / f64::from(k + 1))
            .product();
        (choose9 * 65_536.0 / CLUSTER_RISK).powf(1.0 / 16.0).ceil() as u128
    } else {
        0
    };
    by_load.max(by_cluster).next_multiple_of(2)
}

/// The smallest target false-positive rate: 2b/2³² = 8/2³² ≈ 1.86·10⁻⁹,
/// what 32-bit fingerprints reach in a full table (2b = 8 fingerprints
/// compared, each equal with probability 2⁻³²). Every filter of 10 items or
/// more meets any target from here up, at a load of at most 94 %.
pub const MIN_FP_RATE: f64 = (2 * SLOTS) as f64 / 4_294_967_296.0;

/// The false-positive rate 1 − (1 − 1/(2^f − 1))^(2b·load) of `f`-bit
/// fingerprints at `load` (stored fingerprints per slot): a query compares
/// its fingerprint with 2b·load stored ones, each equal with probability
/// 1/(2^f − 1).
pub(crate) fn fp_rate_at(bits: u32, load: f64) -> f64 {
    let miss = (-1.0 / (f64::from(bits).exp2() - 1.0)).ln_1p();
    -((2 * SLOTS) as f64 * load * miss).exp_m1()
}

/// The plan for `items` items at `fp_rate` with an explicit width `bits`,
/// checked: in 4..=32, with a rate at the planned load within the target.
pub(crate) fn checked_plan(items: usize, fp_rate: f64, bits: u32) -> Result<CuckooPlan> {
    validate(items, fp_rate)?;
    if !supported(bits) {
        return Err(Error::invalid(
            "fingerprint_bits",
            format!("must be in {MIN_BITS}..={MAX_BITS}, got {bits}"),
        ));
    }
    let plan = CuckooPlan::at(items, bits);
    let rate = plan.expected_fp();
    if rate > fp_rate {
        return Err(Error::invalid(
            "fingerprint_bits",
            format!(
                "{bits}-bit fingerprints give a false-positive rate of {rate:.4e} \
                 at capacity, above the target {fp_rate}"
            ),
        ));
    }
    Ok(plan)
}

/// Checks the item count and the target rate, at least [`MIN_FP_RATE`].
fn validate(items: usize, fp_rate: f64) -> Result<()> {
    validate_fp_rate(fp_rate)?;
    validate_items(items)?;
    if fp_rate < MIN_FP_RATE {
        return Err(below_minimum(fp_rate, MIN_FP_RATE));
    }
    Ok(())
}

/// The error for a target rate `p` below `reach`, the least rate 32-bit
/// fingerprints give (at most [`MIN_FP_RATE`] but for the fullest tiny
/// tables).
fn below_minimum(p: f64, reach: f64) -> Error {
    Error::invalid(
        "fp_rate",
        format!(
            "{p:?} is below {reach:.3e}, the least a cuckoo filter with 32-bit \
             fingerprints reaches (2b/2^32 at full load); use a Bloom filter for \
             smaller rates"
        ),
    )
}

/// What a cuckoo filter for `(n, p)` takes, from [`CuckooFilter::plan`](crate::CuckooFilter::plan).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CuckooPlan {
    buckets: u128,
    fingerprint_bits: u32,
    items: usize,
}

impl From<CuckooPlan> for approxset_core::sizing::Plan {
    /// The family's common plan: slots × fingerprint bits, bytes, and the
    /// fingerprint width in place of a hash count.
    fn from(plan: CuckooPlan) -> Self {
        approxset_core::sizing::Plan::new(
            plan.items,
            plan.bits(),
            plan.bytes(),
            plan.fingerprint_bits(),
            plan.expected_fp(),
        )
    }
}

impl CuckooPlan {
    /// The plan for `items` items with `bits`-bit fingerprints.
    fn at(items: usize, bits: u32) -> Self {
        CuckooPlan {
            buckets: buckets_for(items, bits),
            fingerprint_bits: bits,
            items,
        }
    }

    /// Buckets of four slots.
    pub fn buckets(&self) -> u128 {
        self.buckets
    }

    /// Fingerprint width in bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.fingerprint_bits
    }

    /// Bits of the slot table: slots × fingerprint bits.
    pub fn bits(&self) -> u128 {
        self.buckets * SLOTS as u128 * u128::from(self.fingerprint_bits)
    }

    /// Bytes of the slot table as allocated (whole 64-bit words).
    pub fn bytes(&self) -> u128 {
        Table::bytes_for(self.buckets, self.fingerprint_bits)
    }

    /// The false-positive rate expected with the planned items stored.
    pub fn expected_fp(&self) -> f64 {
        fp_rate_at(self.fingerprint_bits, self.load())
    }

    /// Fingerprints per slot with the planned items stored.
    pub(crate) fn load(&self) -> f64 {
        self.items as f64 / (self.buckets as f64 * SLOTS as f64)
    }
}

/// The plan of [`CuckooFilter::plan`](crate::CuckooFilter::plan): the
/// least fingerprint width that reaches `fp_rate` at `expected_items`.
pub(crate) fn plan(expected_items: usize, fp_rate: f64) -> Result<CuckooPlan> {
    validate(expected_items, fp_rate)?;
    // The least width whose rate at its planned load (94 %, 90 % at 4
    // bits) is within the target. Only a table of 9 items in 2 buckets
    // (load 9/8) can miss a target of at least MIN_FP_RATE at 32 bits.
    (MIN_BITS..=MAX_BITS)
        .map(|bits| CuckooPlan::at(expected_items, bits))
        .find(|plan| plan.expected_fp() <= fp_rate)
        .ok_or_else(|| {
            let reach = CuckooPlan::at(expected_items, MAX_BITS).expected_fp();
            below_minimum(fp_rate, reach)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_rule() {
        for n in 1..=9 {
            assert_eq!(buckets_for(n, 4), 2);
            assert_eq!(buckets_for(n, 12), 2);
        }
        for n in (10..5_000).chain([1_000_000, 10_000_000, 123_456_789]) {
            for (bits, load) in [(4, 0.90), (5, 0.94), (12, 0.94), (32, 0.94)] {
                let b = buckets_for(n, bits);
                assert_eq!(b % 2, 0);
                // Never above 94 % load (90 % at 4 bits).
                assert!(n as f64 / (4 * b) as f64 <= load, "n = {n}: B = {b}");
                assert!(b >= buckets_for(n - 1, bits), "monotone at {n}");
            }
        }
        // 4-bit tables of a million items: 1/0.90 slots per item.
        let b = buckets_for(1_000_000, 4);
        assert_eq!(b, 277_788);
        // Large filters: 1/0.94 slots per item, and nothing like a power of two.
        let b = buckets_for(1_000_000, 10);
        assert_eq!(b, 265_966);
        let slots_per_item = (4 * b) as f64 / 1e6;
        assert!(
            (slots_per_item - 1.0 / 0.94).abs() < 1e-4,
            "{slots_per_item}"
        );
    }

    #[test]
    fn fp_rate_formula() {
        // One stored fingerprint per slot pair compared: at load 1, 8 compares
        // with 1/255 each.
        let p = fp_rate_at(8, 1.0);
        assert!((p - (1.0 - (254.0f64 / 255.0).powi(8))).abs() < 1e-15);
        assert_eq!(fp_rate_at(12, 0.0), 0.0);
        assert!((fp_rate_at(16, 0.94) - 8.0 * 0.94 / 65_535.0).abs() < 1e-8);
    }
}
