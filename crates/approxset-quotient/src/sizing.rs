//! The plan of a quotient filter: the first table's home slots and
//! remainder width, and the remainder widths of the tables it grows.
//!
//! A lookup that matches no stored fingerprint of a table of `m` home
//! slots and `r`-bit remainders holding `D` distinct fingerprints (each a
//! number in `[0, m·2^r)`, `m·2^r ≤ 2⁶⁴`) is a false positive with
//! probability `D/(m·2^r) ≤ α·2^-r`, where `α` = [`MAX_LOAD`]. Table `i`
//! (from 0) has `m₀·2^i` home slots; the first has `r₀` bits, table
//! `i ≥ 1` has `r₀ + g + i`. A lookup reads every table, so the rate is at
//! most `α·2^-r₀ + α·Σ_{i≥1} 2^-(r₀+g+i) = α·2^-r₀ + α·2^-(r₀+g)`, which
//! the plan keeps at most `p` (`docs/design.md`, "Quotient filter").

use approxset_core::{Error, Result};

/// The most slots of a table in use before the filter adds the next one
/// (and the load the first table is sized for).
pub const MAX_LOAD: f64 = 0.95;

/// Remainders are at least this wide (a counter needs 3 symbols).
pub(crate) const MIN_BITS: u32 = 2;

/// Remainders are at most this wide.
pub(crate) const MAX_BITS: u32 = 58;

/// The schedule of a quotient filter's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Home slots of the first table, a multiple of 64.
    pub(crate) home: usize,
    /// Remainder bits of the first table.
    pub(crate) r0: u32,
    /// `g`: the second table has `r0 + g + 1` bits.
    pub(crate) gap: u32,
}

/// The most slots in use of a table of `home` slots before it counts as full.
/// (`⌈home/20⌉` as `(home + 19)/20`: one multiplication, no test of the
/// remainder, where `div_ceil` tests it; `home` is at most 2⁶³.)
#[inline(always)]
#[allow(clippy::manual_div_ceil)]
pub(crate) fn limit(home: usize) -> usize {
    home - (home + 19) / 20
}

impl Plan {
    /// The plan for `items` at rate `p`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `fp_rate` or `expected_items`.
    pub(crate) fn new(items: usize, p: f64) -> Result<Plan> {
        approxset_core::sizing::validate_fp_rate(p)?;
        approxset_core::sizing::validate_items(items)?;
        let home = ((items as f64 / MAX_LOAD).ceil() as u128)
            .next_multiple_of(64)
            .max(64);
        let mut r0 = ((MAX_LOAD / p).log2().ceil() as u32).max(MIN_BITS);
        let blocks = home / 64 + 1;
        let bytes = (blocks * (2 + u128::from(r0.min(MAX_BITS))) + blocks.div_ceil(4)) * 8;
        approxset_core::sizing::check_memory(bytes, None)?;
        let home = home as usize;
        let too_fine = |r0: u32| {
            Error::invalid(
                "fp_rate",
                format!(
                    "{p:?} needs remainders of {r0} bits for {items} items, more than 64 bits \
                     of fingerprint"
                ),
            )
        };
        let gap = loop {
            if r0 > MAX_BITS - 10 {
                return Err(too_fine(r0));
            }
            let slack = p - MAX_LOAD * (-f64::from(r0)).exp2();
            let gap = ((MAX_LOAD / slack).log2().ceil() as i64 - i64::from(r0)).max(1);
            if gap <= 8 {
                break gap as u32;
            }
            r0 += 1;
        };
        let plan = Plan { home, r0, gap };
        if plan.range(0).is_none() {
            return Err(too_fine(r0));
        }
        Ok(plan)
    }

    /// Remainder bits of table `i` (as planned; a merge may widen a table,
    /// taking bits from its remainders into its quotients).
    pub(crate) fn bits(&self, i: usize) -> u32 {
        if i == 0 {
            self.r0
        } else {
            self.r0.saturating_add(self.gap).saturating_add(i as u32)
        }
    }

    /// Home slots of table `i` as planned, `None` past the address space.
    pub(crate) fn home(&self, i: usize) -> Option<usize> {
        let shift = u32::try_from(i).ok()?;
        let home = self.home.checked_shl(shift)?;
        (home >> shift == self.home).then_some(home)
    }

    /// The range `m_i·2^(r_i)` of table `i`'s fingerprints, `None` when it
    /// is past 2⁶⁴ (or the width past [`MAX_BITS`]).
    pub(crate) fn range(&self, i: usize) -> Option<u64> {
        let bits = self.bits(i);
        if bits > MAX_BITS {
            return None;
        }
        let home = self.home(i)? as u128;
        u64::try_from(home << bits).ok()
    }

    /// The false-positive rate bound of the plan at full load.
    #[cfg(test)]
    pub(crate) fn bound(&self) -> f64 {
        MAX_LOAD * ((-(self.r0 as f64)).exp2() + (-((self.r0 + self.gap) as f64)).exp2())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_meet_their_rates() {
        for p in [0.5, 0.25, 0.1, 0.03, 0.01, 0.001, 1e-4, 1e-6, 1e-9] {
            for n in [1, 10, 1000, 1_000_000] {
                let plan = Plan::new(n, p).unwrap();
                assert!(plan.bound() <= p, "{p} {n} {plan:?}");
                assert!(plan.home as f64 * MAX_LOAD >= n as f64);
                assert_eq!(plan.home % 64, 0);
            }
        }
        let plan = Plan::new(1_000_000, 0.01).unwrap();
        assert_eq!((plan.r0, plan.gap, plan.bits(1)), (7, 2, 10));
        let plan = Plan::new(1_000_000, 0.001).unwrap();
        assert_eq!((plan.r0, plan.bits(1)), (10, 15));
    }

    #[test]
    fn limit_is_the_load() {
        assert_eq!(limit(64), 60);
        assert_eq!(limit(1 << 20), (1u64 << 20) as usize * 19 / 20);
        for home in (64..=64 * 2000)
            .step_by(64)
            .chain([1 << 40, 1 << 62, 1 << 63])
        {
            assert_eq!(limit(home), home - home.div_ceil(20), "{home}");
            // `Table::home_tests_pay` implies a table below its limit.
            assert!(home - home / 8 <= limit(home), "{home}");
        }
        assert!(Plan::new(0, 0.01).is_err());
        assert!(Plan::new(10, 0.0).is_err());
        assert!(Plan::new(10, 1e-30).is_err());
    }
}
