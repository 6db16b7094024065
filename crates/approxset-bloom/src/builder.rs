//! Builders of Bloom filters, after fastbloom: the first call fixes how the
//! filter is sized, the options follow, and the last call builds it.
//!
//! ```
//! # extern crate approxset_bloom as approxset;
//! use approxset::BloomFilter;
//! // from a target false-positive rate and the expected number of items
//! let a = BloomFilter::with_fp_rate(0.01).seed(42).expected_items(10_000)?;
//! // from a bit count and a hash count
//! let b = BloomFilter::with_num_bits(95_851).seed(42).hashes(7)?;
//! assert_eq!(a.hashes(), b.hashes());
//! # Ok::<(), approxset_bloom::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use approxset_core::sizing::{BloomParams, optimal_items, validate_bits, validate_hashes};
use approxset_core::{BuildOptions, Result};

use crate::bloom::Bloom;
use crate::cell_traits::Cells;
use crate::layout::Layout;

/// Sizing by a target false-positive rate; finish with
/// [`expected_items`](Builder::expected_items).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FpRate(f64);

/// Sizing by a bit count; finish with [`hashes`](Builder::hashes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumBits(u64);

/// A builder of Bloom-family filters `F`; see the [module docs](self).
///
/// `S` is the sizing chosen by the first call ([`FpRate`] or [`NumBits`]).
pub struct Builder<F, S> {
    sizing: S,
    options: BuildOptions,
    layout: PhantomData<fn() -> F>,
}

impl<F, S: Clone> Clone for Builder<F, S> {
    fn clone(&self) -> Self {
        Builder {
            sizing: self.sizing.clone(),
            options: self.options,
            layout: PhantomData,
        }
    }
}

impl<L: Layout, C: Cells<L>, S: fmt::Debug> fmt::Debug for Builder<Bloom<L, C>, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("filter", &C::NAME)
            .field("sizing", &self.sizing)
            .field("options", &self.options)
            .finish()
    }
}

impl<L: Layout, C: Cells<L>, S> Builder<Bloom<L, C>, S> {
    pub(crate) fn new(sizing: S) -> Self {
        Builder {
            sizing,
            options: BuildOptions::new(),
            layout: PhantomData,
        }
    }

    approxset_core::build_options_setters!();

    fn build(self, params: BloomParams, capacity: usize, fp_rate: f64) -> Result<Bloom<L, C>> {
        Bloom::empty(params, capacity, fp_rate, self.options)
    }
}

impl<L: Layout, C: Cells<L>> Bloom<L, C> {
    /// Starts a builder that sizes the filter for a target false-positive
    /// rate; finish with [`Builder::expected_items`].
    pub fn with_fp_rate(fp_rate: f64) -> Builder<Self, FpRate> {
        Builder::fp_rate(fp_rate)
    }

    /// Starts a builder for a filter of `cells` bits (or counters); finish
    /// with [`Builder::hashes`].
    pub fn with_num_bits(cells: u64) -> Builder<Self, NumBits> {
        Builder::num_bits(cells)
    }
}

impl<L: Layout, C: Cells<L>> Builder<Bloom<L, C>, FpRate> {
    pub(crate) fn fp_rate(fp_rate: f64) -> Self {
        Builder::new(FpRate(fp_rate))
    }

    /// Builds the smallest filter whose false-positive rate after
    /// `expected_items` insertions is at most the target (exact formula).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) when the
    /// rate is outside (0, 1) or needs more than
    /// [`MAX_HASHES`](approxset_core::sizing::MAX_HASHES) hashes, or
    /// `expected_items` is 0, or naming `hash` for a hash function the
    /// layout cannot use ([`BuildOptions::key_for`]); [`Error::TooLarge`](crate::Error::TooLarge) or
    /// [`Error::AllocationFailed`](crate::Error::AllocationFailed) when the
    /// memory cannot be had.
    pub fn expected_items(self, expected_items: usize) -> Result<Bloom<L, C>> {
        let fp_rate = self.sizing.0;
        let params = L::params(expected_items, fp_rate)?;
        self.build(params, expected_items, fp_rate)
    }
}

impl<L: Layout, C: Cells<L>> Builder<Bloom<L, C>, NumBits> {
    pub(crate) fn num_bits(bits: u64) -> Self {
        Builder::new(NumBits(bits))
    }

    /// Builds a filter of the chosen bit (or counter) count, rounded up to a
    /// multiple of `hashes` for the partitioned layout (of the block for the
    /// blocked and split-block layouts), with `hashes` hash functions.
    /// Its capacity is the item count at the optimum, ⌊m·ln 2 / k⌋, and its
    /// target rate the theoretical rate there.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for 0 bits
    /// or a hash count outside `1..=MAX_HASHES` (other than 8 for the
    /// split-block layout), or naming `hash` for a hash function the layout
    /// cannot use ([`BuildOptions::key_for`]);
    /// [`Error::TooLarge`](crate::Error::TooLarge) (past 2^40 bits for the
    /// split-block layout) or
    /// [`Error::AllocationFailed`](crate::Error::AllocationFailed) when the
    /// memory cannot be had.
    pub fn hashes(self, hashes: u32) -> Result<Bloom<L, C>> {
        validate_bits(self.sizing.0)?;
        validate_hashes(hashes)?;
        let bits = L::round_bits(self.sizing.0, hashes);
        let params = BloomParams::new(bits, hashes)?;
        let capacity = optimal_items(bits, hashes);
        let fp_rate = L::fp_rate(bits, capacity as u64, hashes);
        self.build(params, capacity, fp_rate)
    }
}
