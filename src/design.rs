//! What a filter of a variant takes, computed without building it.

use approxset_bloom::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, PartitionedBloomFilter,
    ScalableBloomFilter, SlidingBloomFilter, SplitBlockBloomFilter,
};
use approxset_core::{Error, Result};
use approxset_cuckoo::CuckooFilter;
use approxset_quotient::QuotientFilter;

use crate::variant::Variant;

impl Variant {
    /// What a filter of this variant for `expected_items` items at
    /// `fp_rate` takes (bits, bytes, hashes) and its expected false-positive
    /// rate, computed without building it.
    ///
    /// ```
    /// use approxset::Variant;
    /// let d = Variant::Classic.design(100_000_000, 0.01)?;
    /// assert_eq!(d.hashes(), 7);
    /// assert!((d.bits() as f64 / 1e8 - 9.59).abs() < 0.01);
    /// # Ok::<(), approxset::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`build`](Self::build), except that memory is not allocated: a
    /// size beyond the address space (or bits beyond a `u64`) is
    /// [`Error::TooLarge`], never a clamped figure.
    pub fn design(self, expected_items: usize, fp_rate: f64) -> Result<Design> {
        approxset_core::sizing::validate_fp_rate(fp_rate)?;
        approxset_core::sizing::validate_items(expected_items)?;
        let plan = match self {
            Variant::Classic => BloomFilter::plan(expected_items, fp_rate)?,
            Variant::Partitioned => PartitionedBloomFilter::plan(expected_items, fp_rate)?,
            Variant::Counting => CountingBloomFilter::plan(expected_items, fp_rate)?,
            Variant::Cuckoo => CuckooFilter::plan(expected_items, fp_rate)?.into(),
            Variant::Scalable => ScalableBloomFilter::plan(expected_items, fp_rate)?,
            Variant::Blocked => BlockedBloomFilter::plan(expected_items, fp_rate)?,
            Variant::SplitBlock => SplitBlockBloomFilter::plan(expected_items, fp_rate)?,
            Variant::Fuse => approxset_fuse::plan(expected_items, fp_rate)?,
            Variant::Sliding => SlidingBloomFilter::plan(expected_items, fp_rate)?,
            Variant::Quotient => QuotientFilter::plan(expected_items, fp_rate)?,
            Variant::Ribbon => approxset_ribbon::plan(expected_items, fp_rate)?,
        };
        // A size beyond the address space (or bits beyond a u64, which a
        // counting filter of more than 2⁶¹ bytes has) is `TooLarge`, never
        // a clamped figure.
        let bytes = approxset_core::sizing::check_memory(plan.bytes(), None)? as u64;
        let bits = u64::try_from(plan.bits()).map_err(|_| Error::TooLarge {
            needed: plan.bits().div_ceil(8),
            limit: u128::from(u64::MAX / 8),
        })?;
        let (hashes, expected_fp) = (plan.probes(), plan.expected_fp());
        Ok(Design {
            variant: self,
            items: expected_items,
            bits,
            bytes,
            hashes,
            expected_fp,
        })
    }
}

/// What a filter takes, from [`Variant::design`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Design {
    variant: Variant,
    items: usize,
    bits: u64,
    bytes: u64,
    hashes: u32,
    expected_fp: f64,
}

impl Design {
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Bits of filter data: `m` for the Bloom filters, 4·`m` for the
    /// counting filter, slots × fingerprint bits for the cuckoo filter,
    /// cells × fingerprint bits for the fuse filter, the solution's words for
    /// the Ribbon filter.
    pub fn bits(&self) -> u64 {
        self.bits
    }

    /// Bytes of filter data as allocated (whole 64-bit words).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes a build and save of this design hold at once: the filter's
    /// [`bytes`](Self::bytes), twice for a variant that is serialized whole
    /// before it is written ([`Variant::is_streamed`] is false).
    ///
    /// ```
    /// use approxset::Variant;
    /// let classic = Variant::Classic.design(1_000_000, 0.01)?;
    /// assert_eq!(classic.peak_bytes(), classic.bytes());
    /// let fuse = Variant::Fuse.design(1_000_000, 0.01)?;
    /// assert_eq!(fuse.peak_bytes(), 2 * fuse.bytes());
    /// # Ok::<(), approxset::Error>(())
    /// ```
    pub fn peak_bytes(&self) -> u64 {
        let copies = if self.variant.is_streamed() { 1 } else { 2 };
        self.bytes.saturating_mul(copies)
    }

    /// Bits per item.
    pub fn bits_per_key(&self) -> f64 {
        self.bits as f64 / self.items as f64
    }

    /// Hash functions `k`, or fingerprint bits for the cuckoo and fuse
    /// filters, or the lower blocks' columns `r` for the Ribbon filter
    /// (whose upper blocks have `r + 1`).
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// The false-positive rate expected at the designed item count.
    pub fn expected_fp(&self) -> f64 {
        self.expected_fp
    }
}
