//! The builder of cuckoo filters.

use approxset_core::sizing::check_memory;
use approxset_core::{BuildOptions, Result};

use crate::filter::CuckooFilter;
use crate::kick::Xorshift;
use crate::sizing::{CuckooPlan, checked_plan, plan};
use crate::table::Table;

/// A builder of [`CuckooFilter`]s, after fastbloom: started by
/// [`CuckooFilter::with_fp_rate`], options in any order, finished by
/// [`expected_items`](Self::expected_items).
///
/// ```
/// # extern crate approxset_cuckoo as approxset;
/// use approxset::CuckooFilter;
/// let a = CuckooFilter::with_fp_rate(0.001).seed(42).expected_items(10_000)?;
/// assert_eq!(a.fingerprint_bits(), 13);
/// let b = CuckooFilter::with_fp_rate(0.03)
///     .fingerprint_bits(8)
///     .max_bytes(1 << 20)
///     .expected_items(10_000)?;
/// assert_eq!(b.fingerprint_bits(), 8);
/// assert!(b.memory_bytes() < a.memory_bytes());
/// # Ok::<(), approxset_cuckoo::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CuckooBuilder {
    fp_rate: f64,
    options: BuildOptions,
    fingerprint_bits: Option<u32>,
}

impl CuckooBuilder {
    // A seeded key also makes the kicks reproducible.
    approxset_core::build_options_setters!();

    /// Use fingerprints of `bits` bits (any of 4 to 32) instead of the
    /// smallest width that reaches the target rate. Checked when the filter
    /// is built: the width must reach the target at the planned load.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// Builds a filter that holds `expected_items` items at a false-positive
    /// rate of at most the target: the smallest fingerprint width that
    /// reaches it (unless set with [`fingerprint_bits`](Self::fingerprint_bits)),
    /// and an even bucket count sized for a load of at most 94 % (90 % for
    /// 4-bit fingerprints). The sizing rules and their reasons are in
    /// `docs/design.md`, "Cuckoo filter".
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming
    /// `fp_rate` when the rate is outside (0, 1) or below
    /// [`MIN_FP_RATE`](crate::MIN_FP_RATE) (2b/2³² ≈ 1.86·10⁻⁹, what 32-bit
    /// fingerprints reach; a filter of 9 items needs 9/(2³² − 1)),
    /// `expected_items` when it is 0, and `fingerprint_bits` when the width
    /// is outside 4..=32 or gives a rate above the target at
    /// `expected_items` items, and `hash` for Parquet's xxHash64
    /// ([`BuildOptions::key_for`]);
    /// [`Error::TooLarge`](crate::Error::TooLarge) or
    /// [`Error::AllocationFailed`](crate::Error::AllocationFailed) when the
    /// memory cannot be had.
    pub fn expected_items(self, expected_items: usize) -> Result<CuckooFilter> {
        let p = self.fp_rate;
        let plan = match self.fingerprint_bits {
            None => CuckooFilter::plan(expected_items, p)?,
            Some(bits) => checked_plan(expected_items, p, bits)?,
        };
        let (buckets, bits) = (plan.buckets(), plan.fingerprint_bits());
        // Checked before the conversion, so a count past the address space
        // is `TooLarge` rather than a wrapped bucket count.
        let max_bytes = self.options.max_bytes_limit();
        check_memory(Table::bytes_for(buckets, bits), max_bytes)?;
        let table = Table::new(buckets as usize, bits, max_bytes)?;
        let key = self.options.key_for(approxset_core::format::tag::CUCKOO)?;
        Ok(CuckooFilter {
            table,
            victim: None,
            rng: Xorshift::from_key(key),
            key,
            len: 0,
            capacity: expected_items,
            fp_rate: p,
        })
    }
}

impl CuckooFilter {
    /// Starts a builder that sizes the filter for a target false-positive
    /// rate; finish with [`CuckooBuilder::expected_items`].
    pub fn with_fp_rate(fp_rate: f64) -> CuckooBuilder {
        CuckooBuilder {
            fp_rate,
            options: BuildOptions::new(),
            fingerprint_bits: None,
        }
    }
}

impl CuckooFilter {
    /// What a filter for `expected_items` items at `fp_rate` takes, computed
    /// without building it (the automatic fingerprint width).
    ///
    /// # Errors
    /// As [`CuckooBuilder::expected_items`],
    /// except that memory is not allocated.
    pub fn plan(expected_items: usize, fp_rate: f64) -> Result<CuckooPlan> {
        plan(expected_items, fp_rate)
    }
}
