//! The builder of binary fuse filters, and the fingerprint width a target
//! rate needs.

use approxset_core::{BuildOptions, Digest, Error, Key, Result};

use crate::BinaryFuseFilter;
use crate::construct::{self, Keys, MAX_ATTEMPTS, Settings};
use crate::fingerprint::{Cells, Fingerprint};
use crate::layout::Layout;

/// The least false-positive rate a filter reaches: 2⁻³², with 32-bit
/// fingerprints.
pub const MIN_FP_RATE: f64 = 1.0 / 4_294_967_296.0;

/// The fingerprint widths, narrowest first.
const WIDTHS: [u32; 3] = [8, 16, 32];

/// The narrowest width `f` of 8, 16, 32 with 2⁻ᶠ ≤ `fp_rate`.
///
/// # Errors
/// [`Error::InvalidParameter`] named `fp_rate` outside (0, 1) or below
/// [`MIN_FP_RATE`].
pub fn fingerprint_bits_for(fp_rate: f64) -> Result<u32> {
    if !(fp_rate > 0.0 && fp_rate < 1.0) {
        return Err(Error::invalid(
            "fp_rate",
            format!("must be in (0, 1), got {fp_rate}"),
        ));
    }
    WIDTHS
        .into_iter()
        .find(|&f| (-f64::from(f)).exp2() <= fp_rate)
        .ok_or_else(|| {
            Error::invalid(
                "fp_rate",
                format!("{fp_rate:e} is below 2^-32, what 32-bit fingerprints reach"),
            )
        })
}

/// What a filter of `items` distinct keys at `fp_rate` takes, without
/// building it: the family's common plan (array cells × fingerprint bits,
/// bytes, the fingerprint width in place of a hash count, and 2⁻ᶠ).
///
/// ```
/// # extern crate approxset_fuse as approxset;
/// let plan = approxset::plan(10_000_000, 0.01)?;
/// assert_eq!(plan.probes(), 8);
/// assert!((plan.bits() as f64 / 1e7 - 9.02).abs() < 0.01);
/// # Ok::<(), approxset_fuse::Error>(())
/// ```
///
/// # Errors
/// As [`fingerprint_bits_for`]; [`Error::TooLarge`] past 2³² − 1 cells.
pub fn plan(items: usize, fp_rate: f64) -> Result<approxset_core::sizing::Plan> {
    let bits = fingerprint_bits_for(fp_rate)?;
    let cells = Layout::plan(items)?.array_len() as u128;
    let bytes = cells * u128::from(bits / 8);
    Ok(approxset_core::sizing::Plan::new(
        items,
        bytes * 8,
        bytes,
        bits,
        (-f64::from(bits)).exp2(),
    ))
}

/// A builder of [`BinaryFuseFilter`]s, after fastbloom: started by
/// [`BinaryFuseFilter::with_fp_rate`], options in any order, finished by
/// one of the `build` calls with every key.
///
/// ```
/// # extern crate approxset_fuse as approxset;
/// use approxset::BinaryFuseFilter;
/// let keys = ["alice", "bob", "carol", "alice"];
/// let f = BinaryFuseFilter::with_fp_rate(0.0001).seed(7).build(keys)?;
/// assert_eq!(f.fingerprint_bits(), 16);
/// assert_eq!(f.len(), 3);
/// assert!(f.contains("carol"));
/// let g = BinaryFuseFilter::with_fp_rate(0.01).seed(7).build_bytes([b"alice".as_slice()])?;
/// assert!(g.contains_bytes(b"alice"));
/// # Ok::<(), approxset_fuse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FuseBuilder {
    fp_rate: f64,
    options: BuildOptions,
    fingerprint_bits: Option<u32>,
    pub(crate) attempts: u32,
    pub(crate) fallback: u32,
    pub(crate) layout: Option<Layout>,
}

/// The state the construction seeds of a filter keyed by `key` are drawn
/// from: they follow from the hash key, so a seeded build is reproducible
/// (and, the key known, predictable: hence the random fallback of
/// [`construct::build`]); they are stored, not re-derived.
pub(crate) fn seed_state(key: approxset_core::HashKey) -> u64 {
    let (k0, k1) = key.to_parts();
    k0 ^ k1.rotate_left(32) ^ 0x6675_7365_5f73_6565
}

impl FuseBuilder {
    // A seeded key also fixes the construction seeds: a seeded build is
    // reproducible.
    approxset_core::build_options_setters!();

    /// Use fingerprints of `bits` bits (8, 16 or 32) instead of the
    /// narrowest that reaches the target rate; checked when the filter is
    /// built.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// Builds the filter of `keys` (repeats allowed; the filter holds the
    /// set). Each key is hashed to its digest, of which the construction
    /// keeps 8 bytes.
    ///
    /// # Errors
    /// As [`build_digests`](Self::build_digests).
    pub fn build<I>(self, keys: I) -> Result<BinaryFuseFilter>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let key = self.options.key_for(approxset_core::format::tag::FUSE)?;
        let values: Vec<u64> = keys.into_iter().map(|k| key.digest(&k).h1()).collect();
        self.hash_key(key).finish(values.as_slice())
    }

    /// Builds the filter of byte strings: the same keys as
    /// [`build`](Self::build) of the same bytes.
    ///
    /// # Errors
    /// As [`build_digests`](Self::build_digests).
    pub fn build_bytes<I>(self, keys: I) -> Result<BinaryFuseFilter>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let key = self.options.key_for(approxset_core::format::tag::FUSE)?;
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
    /// [`Error::InvalidParameter`] for a rate outside (0, 1) or below
    /// [`MIN_FP_RATE`], a width other than 8, 16, 32 or one above the
    /// target, and Parquet's xxHash64 (`hash`);
    /// [`Error::TooLarge`] past `max_bytes` or 2³² − 1 cells;
    /// [`Error::AllocationFailed`]; [`Error::ConstructionFailed`] when no
    /// seed peels, neither the [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS)
    /// derived from the hash key nor as many random ones, which takes a
    /// layout far too small for the keys.
    pub fn build_digests(self, digests: &[Digest]) -> Result<BinaryFuseFilter> {
        self.finish(digests)
    }

    fn finish<K: Keys + ?Sized>(self, keys: &K) -> Result<BinaryFuseFilter> {
        let bits = self.bits()?;
        let key = self.options.key_for(approxset_core::format::tag::FUSE)?;
        let state = seed_state(key);
        let settings = Settings {
            attempts: self.attempts,
            fallback: self.fallback,
            max_bytes: self.options.max_bytes_limit(),
            layout: self.layout,
        };
        fn make<F: Fingerprint, K: Keys + ?Sized>(
            keys: &K,
            state: u64,
            settings: Settings,
            key: approxset_core::HashKey,
        ) -> Result<BinaryFuseFilter> {
            let built = construct::build::<F, K>(keys, state, settings)?;
            Ok(BinaryFuseFilter {
                cells: Cells::new(built.layout, built.cells)?,
                layout: built.layout,
                seed: built.seed,
                key,
                len: built.len,
            })
        }
        match bits {
            8 => make::<u8, K>(keys, state, settings, key),
            16 => make::<u16, K>(keys, state, settings, key),
            _ => make::<u32, K>(keys, state, settings, key),
        }
    }

    /// The width: the one set, checked, or the narrowest for the rate.
    fn bits(&self) -> Result<u32> {
        let least = fingerprint_bits_for(self.fp_rate)?;
        match self.fingerprint_bits {
            None => Ok(least),
            Some(bits) if !WIDTHS.contains(&bits) => Err(Error::invalid(
                "fingerprint_bits",
                format!("must be 8, 16 or 32, got {bits}"),
            )),
            Some(bits) if bits < least => Err(Error::invalid(
                "fingerprint_bits",
                format!(
                    "{bits}-bit fingerprints give 2^-{bits}, above the target {}",
                    self.fp_rate
                ),
            )),
            Some(bits) => Ok(bits),
        }
    }

    /// Test hook: build on a fixed layout with this many seeds (and no
    /// random ones).
    #[cfg(test)]
    pub(crate) fn with_layout(mut self, layout: Layout, attempts: u32) -> Self {
        self.layout = Some(layout);
        self.attempts = attempts;
        self.fallback = 0;
        self
    }
}

impl BinaryFuseFilter {
    /// Starts a builder for a target false-positive rate; finish with
    /// [`FuseBuilder::build`] (or `build_bytes`, `build_digests`).
    pub fn with_fp_rate(fp_rate: f64) -> FuseBuilder {
        FuseBuilder {
            fp_rate,
            options: BuildOptions::new(),
            fingerprint_bits: None,
            attempts: MAX_ATTEMPTS,
            fallback: MAX_ATTEMPTS,
            layout: None,
        }
    }

    /// The filter of `keys` at rate `fp_rate`, with a random hash key.
    /// Shorthand for `with_fp_rate(fp_rate).build(keys)`.
    ///
    /// # Errors
    /// As [`FuseBuilder::build_digests`].
    pub fn build<I>(keys: I, fp_rate: f64) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        Self::with_fp_rate(fp_rate).build(keys)
    }
}
