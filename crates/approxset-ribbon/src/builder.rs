//! The builder of Ribbon filters, and the plan of one without building it.

use approxset_core::{BuildOptions, Digest, Key, Result};

use crate::RibbonFilter;
use crate::construct::{self, Keys, MAX_ATTEMPTS, Settings};
use crate::layout::Layout;

/// What a filter of `items` distinct keys at `fp_rate` takes, without
/// building it: the family's common plan (solution bits and bytes, the
/// lower blocks' columns `r` in place of a hash count, and the expected
/// rate, at most `fp_rate`).
///
/// ```
/// # extern crate approxset_ribbon as approxset;
/// let plan = approxset::plan(1_000_000, 0.01)?;
/// assert_eq!(plan.probes(), 6);
/// assert!(plan.bits() as f64 / 1e6 < 7.1);
/// assert!(plan.expected_fp() <= 0.01 && plan.expected_fp() > 0.0099);
/// # Ok::<(), approxset_ribbon::Error>(())
/// ```
///
/// # Errors
/// As [`columns_for`](crate::columns_for); [`Error::TooLarge`](approxset_core::Error::TooLarge)
/// past 2³² − 1 blocks.
pub fn plan(items: usize, fp_rate: f64) -> Result<approxset_core::sizing::Plan> {
    let layout = Layout::plan(items, fp_rate)?;
    let bytes = layout.words_u64() as u128 * 16;
    Ok(approxset_core::sizing::Plan::new(
        items,
        bytes * 8,
        bytes,
        layout.lower_columns(),
        if items == 0 {
            0.0
        } else {
            layout.expected_fp()
        },
    ))
}

/// A builder of [`RibbonFilter`]s, after fastbloom: started by
/// [`RibbonFilter::with_fp_rate`], options in any order, finished by one of
/// the `build` calls with every key.
///
/// ```
/// # extern crate approxset_ribbon as approxset;
/// use approxset::RibbonFilter;
/// let keys = ["alice", "bob", "carol", "alice"];
/// let f = RibbonFilter::with_fp_rate(0.001).seed(7).build(keys)?;
/// assert_eq!(f.len(), 3);
/// assert!(f.contains("carol"));
/// let g = RibbonFilter::with_fp_rate(0.01).seed(7).build_bytes([b"alice".as_slice()])?;
/// assert!(g.contains_bytes(b"alice"));
/// # Ok::<(), approxset_ribbon::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RibbonBuilder {
    fp_rate: f64,
    options: BuildOptions,
    attempts: u32,
    blocks: Option<u64>,
}

impl RibbonBuilder {
    // A seeded key also fixes the construction seeds: a seeded build is
    // reproducible.
    approxset_core::build_options_setters!();

    /// Builds the filter of `keys` (repeats allowed; the filter holds the
    /// set). Each key is hashed to its digest, of which the construction
    /// keeps 8 bytes.
    ///
    /// # Errors
    /// As [`build_digests`](Self::build_digests).
    pub fn build<I>(self, keys: I) -> Result<RibbonFilter>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let key = self.options.key_for(approxset_core::format::tag::RIBBON)?;
        let values: Vec<u64> = keys.into_iter().map(|k| key.digest(&k).h1()).collect();
        self.hash_key(key).finish(values.as_slice())
    }

    /// Builds the filter of byte strings: the same keys as
    /// [`build`](Self::build) of the same bytes.
    ///
    /// # Errors
    /// As [`build_digests`](Self::build_digests).
    pub fn build_bytes<I>(self, keys: I) -> Result<RibbonFilter>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let key = self.options.key_for(approxset_core::format::tag::RIBBON)?;
        let values: Vec<u64> = keys
            .into_iter()
            .map(|k| key.digest_bytes(k.as_ref()).h1())
            .collect();
        self.hash_key(key).finish(values.as_slice())
    }

    /// Builds the filter of precomputed digests (of the builder's hash key,
    /// which must then be set with [`hash_key`](Self::hash_key) or
    /// [`seed`](Self::seed)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](approxset_core::Error::InvalidParameter)
    /// for a rate outside (0, 1) or below [`MIN_FP_RATE`](crate::MIN_FP_RATE),
    /// and Parquet's xxHash64 (`hash`);
    /// [`Error::TooLarge`](approxset_core::Error::TooLarge) past
    /// `max_bytes` or 2³² − 1 blocks;
    /// [`Error::AllocationFailed`](approxset_core::Error::AllocationFailed);
    /// [`Error::ConstructionFailed`](approxset_core::Error::ConstructionFailed)
    /// when no seed of [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS) solves, which
    /// does not happen for any key set (the size grows on failures).
    pub fn build_digests(self, digests: &[Digest]) -> Result<RibbonFilter> {
        self.finish(digests)
    }

    fn finish<K: Keys + ?Sized>(self, keys: &K) -> Result<RibbonFilter> {
        // Checked first, so an empty key set refuses a bad rate too.
        crate::layout::columns_for(self.fp_rate)?;
        let key = self.options.key_for(approxset_core::format::tag::RIBBON)?;
        let (k0, k1) = key.to_parts();
        // The construction seeds follow from the hash key, so a seeded
        // build is reproducible; they are stored, not re-derived.
        let state = k0 ^ k1.rotate_left(32) ^ 0x7269_6262_6f6e_5f73;
        let settings = Settings {
            fp_rate: self.fp_rate,
            attempts: self.attempts,
            max_bytes: self.options.max_bytes_limit(),
            blocks: self.blocks,
        };
        let built = construct::build(keys, state, settings)?;
        Ok(RibbonFilter {
            solution: built.solution.into_boxed_slice(),
            layout: built.layout,
            seed: built.seed,
            key,
            len: built.len,
        })
    }

    /// Test hook: build on a fixed number of blocks with this many seeds.
    #[cfg(test)]
    pub(crate) fn with_blocks(mut self, blocks: u64, attempts: u32) -> Self {
        self.blocks = Some(blocks);
        self.attempts = attempts;
        self
    }
}

impl RibbonFilter {
    /// Starts a builder for a target false-positive rate; finish with
    /// [`RibbonBuilder::build`] (or `build_bytes`, `build_digests`).
    pub fn with_fp_rate(fp_rate: f64) -> RibbonBuilder {
        RibbonBuilder {
            fp_rate,
            options: BuildOptions::new(),
            attempts: MAX_ATTEMPTS,
            blocks: None,
        }
    }

    /// The filter of `keys` at rate `fp_rate`, with a random hash key.
    /// Shorthand for `with_fp_rate(fp_rate).build(keys)`.
    ///
    /// # Errors
    /// As [`RibbonBuilder::build_digests`].
    pub fn build<I>(keys: I, fp_rate: f64) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        Self::with_fp_rate(fp_rate).build(keys)
    }
}
