//! The scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison
//! 2007): a chain of partitioned Bloom filters that grows with its content
//! and keeps the compound false-positive rate under its target.

use std::fmt;

use approxset_core::sizing::{
    self, MAX_HASHES, MIN_FP_RATE, Plan, validate_fp_rate, validate_items,
};
use approxset_core::{BuildOptions, Digest, Error, HashKey, Result, Value};

use crate::bloom::Bloom;
use crate::partitioned::PartitionedBloomFilter;

/// The default growth factor `s`: each stage holds twice the previous one.
pub const DEFAULT_GROWTH: f64 = 2.0;

/// The default tightening ratio `r`: each stage's error is 0.85 times the
/// previous one's.
pub const DEFAULT_TIGHTENING: f64 = 0.85;

/// The largest growth factor: `1 < s ≤ 16`. One insert that adds a stage
/// allocates at most about `2s` times the newest stage's bytes (see
/// `docs/design.md`, "Scalable Bloom filter"), so a loaded file's
/// parameters cannot make one insert allocate more than a small multiple
/// of the file.
pub const MAX_GROWTH: f64 = 16.0;

/// The least tightening ratio: `0.5 ≤ r < 1`. At `r ≥ ½` the bits per item
/// a stage's rate needs, `−log₂ pᵢ / ln 2`, grow by at most 1.44 (one hash
/// function) from one stage to the next, at most doubling; a smaller `r`
/// could add dozens of hash functions in one stage.
pub const MIN_TIGHTENING: f64 = 0.5;

/// The stages every chain has room for before a stage's rate would fall
/// below [`MIN_FP_RATE`]: the target rate must leave them, see
/// [`ScalableBloomFilter::min_fp_rate`]. Sixteen stages hold 65,535 times
/// the initial capacity at growth 2.
pub const MIN_STAGES: u32 = 16;

/// A scalable Bloom filter: it never runs out of room and never exceeds its
/// target false-positive rate `p`, however many items it is given.
///
/// It is a chain of [`PartitionedBloomFilter`] stages. Stage `i` holds
/// `n₀·sⁱ` items at error `pᵢ = p₀·rⁱ`, with `p₀ = p·(1 − r)`; when the
/// newest stage reaches its designed capacity, a new one is added. A key
/// tests positive when any stage says so, so the compound rate is at most
/// `Σ pᵢ = p₀ / (1 − r) = p` for any number of stages.
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::ScalableBloomFilter;
///
/// let mut f = ScalableBloomFilter::with_fp_rate(0.01).seed(5).initial_capacity(1000)?;
/// for i in 0..100_000u32 {
///     f.insert(&i)?;
/// }
/// assert!(f.stages().len() > 1);
/// assert!((0..100_000u32).all(|i| f.contains(&i)));
/// let fp = (100_000..200_000u32).filter(|i| f.contains(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000 at a 1 % target");
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
///
/// It has no `Extend`: an insert can fail (a memory cap, or a chain that
/// cannot grow further), and `Extend` could only panic then. Use
/// [`try_extend`](Self::try_extend), which stops at the first error.
///
/// `insert` first tests membership and does not add an item that is
/// (probably) present to the newest stage, which keeps the stages from
/// filling early; an item that is a false positive of the filter costs
/// nothing: it already tests positive. [`len`](Self::len) still counts
/// every accepted insert, as in every variant;
/// [`estimated_items`](Self::estimated_items) estimates the distinct items.
#[derive(Clone, PartialEq)]
pub struct ScalableBloomFilter {
    pub(crate) stages: Vec<PartitionedBloomFilter>,
    pub(crate) key: HashKey,
    pub(crate) initial_capacity: usize,
    pub(crate) fp_rate: f64,
    pub(crate) growth: f64,
    pub(crate) tightening: f64,
    pub(crate) max_bytes: Option<usize>,
    pub(crate) len: usize,
}

/// A builder of [`ScalableBloomFilter`]s: start with
/// [`ScalableBloomFilter::with_fp_rate`], finish with
/// [`initial_capacity`](Self::initial_capacity).
#[derive(Clone, Debug)]
pub struct ScalableBuilder {
    fp_rate: f64,
    growth: f64,
    tightening: f64,
    options: BuildOptions,
}

impl ScalableBuilder {
    /// The growth factor `s`, in (1, [`MAX_GROWTH`]] (default 2; 4 grows in
    /// fewer, larger stages at some memory cost).
    pub fn growth(mut self, growth: f64) -> Self {
        self.growth = growth;
        self
    }

    /// The tightening ratio `r`, in [[`MIN_TIGHTENING`], 1) (default 0.85).
    pub fn tightening(mut self, tightening: f64) -> Self {
        self.tightening = tightening;
        self
    }

    // `max_bytes` caps all stages together: an insert that would need a
    // stage past the cap returns `Error::TooLarge` and changes nothing.
    approxset_core::build_options_setters!();

    /// Builds the filter with its first stage sized for `initial_capacity`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `fp_rate` outside (0, 1) or below
    /// [`ScalableBloomFilter::min_fp_rate`], growth outside (1,
    /// [`MAX_GROWTH`]], tightening outside [[`MIN_TIGHTENING`], 1), or an
    /// initial capacity of 0, or naming `hash` for Parquet's xxHash64
    /// ([`BuildOptions::key_for`]); [`Error::TooLarge`] or
    /// [`Error::AllocationFailed`] when the first stage does not fit.
    pub fn initial_capacity(self, initial_capacity: usize) -> Result<ScalableBloomFilter> {
        self.validate(initial_capacity)?;
        let mut filter = ScalableBloomFilter {
            stages: Vec::new(),
            key: self
                .options
                .key_for(approxset_core::format::tag::SCALABLE)?,
            initial_capacity,
            fp_rate: self.fp_rate,
            growth: self.growth,
            tightening: self.tightening,
            max_bytes: self.options.max_bytes_limit(),
            len: 0,
        };
        let first = filter.new_stage()?;
        filter.stages.push(first);
        Ok(filter)
    }

    /// Checks every parameter against its documented range; the load checks
    /// a file's parameters with this too.
    pub(crate) fn validate(&self, initial_capacity: usize) -> Result<()> {
        validate_fp_rate(self.fp_rate)?;
        validate_items(initial_capacity)?;
        if !(self.growth > 1.0 && self.growth <= MAX_GROWTH) {
            return Err(Error::invalid(
                "growth",
                format!(
                    "must be above 1 and at most {MAX_GROWTH}, got {:?}",
                    self.growth
                ),
            ));
        }
        if !(self.tightening >= MIN_TIGHTENING && self.tightening < 1.0) {
            return Err(Error::invalid(
                "tightening",
                format!(
                    "must be at least {MIN_TIGHTENING} and below 1, got {:?}",
                    self.tightening
                ),
            ));
        }
        let least = ScalableBloomFilter::min_fp_rate(self.tightening);
        if self.fp_rate < least {
            return Err(Error::invalid(
                "fp_rate",
                format!(
                    "{:?} is below {least:.3e}, the least a scalable filter with tightening {:?} \
                     is sized for (its stage {MIN_STAGES} would need more than {MAX_HASHES} \
                     hash functions)",
                    self.fp_rate, self.tightening
                ),
            ));
        }
        Ok(())
    }
}

impl ScalableBloomFilter {
    /// A filter starting at `initial_capacity` items, target `fp_rate`,
    /// default growth and tightening, random key.
    ///
    /// # Errors
    /// As [`ScalableBuilder::initial_capacity`].
    pub fn new(initial_capacity: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).initial_capacity(initial_capacity)
    }

    /// Starts a builder for target rate `fp_rate`.
    pub fn with_fp_rate(fp_rate: f64) -> ScalableBuilder {
        ScalableBuilder {
            fp_rate,
            growth: DEFAULT_GROWTH,
            tightening: DEFAULT_TIGHTENING,
            options: BuildOptions::new(),
        }
    }

    /// What the first stage of a filter for `initial_capacity` items at
    /// `fp_rate` takes (default growth and tightening), computed without
    /// building it: partitioned, at `p·(1 − r)`.
    ///
    /// # Errors
    /// As [`ScalableBuilder::initial_capacity`], except that nothing is
    /// allocated.
    pub fn plan(initial_capacity: usize, fp_rate: f64) -> Result<Plan> {
        Self::with_fp_rate(fp_rate).validate(initial_capacity)?;
        PartitionedBloomFilter::plan(initial_capacity, fp_rate * (1.0 - DEFAULT_TIGHTENING))
    }

    /// The least target rate a chain with tightening `r` (in range) is built
    /// for: `MIN_FP_RATE / ((1 − r)·r^(MIN_STAGES − 1))`, so that its first
    /// [`MIN_STAGES`] stages' rates `p·(1 − r)·rⁱ` are all at least
    /// [`MIN_FP_RATE`] (2⁻⁶⁴, what 64 hash functions reach). About
    /// 4.1·10⁻¹⁸ at the default `r = 0.85`.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::{Error, ScalableBloomFilter};
    /// let least = ScalableBloomFilter::min_fp_rate(0.85);
    /// assert!(ScalableBloomFilter::new(10, least).is_ok());
    /// assert!(matches!(
    ///     ScalableBloomFilter::new(10, least / 2.0),
    ///     Err(Error::InvalidParameter { name: "fp_rate", .. })
    /// ));
    /// ```
    pub fn min_fp_rate(tightening: f64) -> f64 {
        // Rounded up by a few ulps so that the stages' own products, taken
        // in another order, stay at or above MIN_FP_RATE.
        MIN_FP_RATE / ((1.0 - tightening) * tightening.powi(MIN_STAGES as i32 - 1))
            * (1.0 + 8.0 * f64::EPSILON)
    }

    /// Capacity and error of stage `index`, or why that stage cannot exist.
    pub(crate) fn stage_params(&self, index: usize) -> Result<(usize, f64)> {
        let cannot_grow = |reason: String| Error::CannotGrow {
            stages: self.stages.len(),
            items: self.len,
            reason,
        };
        let exponent = i32::try_from(index).unwrap_or(i32::MAX);
        let capacity = match index {
            // Exactly n₀, which a float might round up past usize::MAX.
            0 => self.initial_capacity as f64,
            _ => (self.initial_capacity as f64 * self.growth.powi(exponent)).ceil(),
        };
        if index > 0 && (capacity.is_nan() || capacity >= usize::MAX as f64) {
            return Err(cannot_grow(format!(
                "stage {} would hold more than {} items",
                index + 1,
                usize::MAX
            )));
        }
        let error = self.fp_rate * (1.0 - self.tightening) * self.tightening.powi(exponent);
        if error < MIN_FP_RATE {
            return Err(cannot_grow(format!(
                "stage {} would need a false-positive rate of {error:.3e}, beyond what \
                 {MAX_HASHES} hash functions reach (a larger growth or tightening \
                 postpones this)",
                index + 1
            )));
        }
        let capacity = if index == 0 {
            self.initial_capacity
        } else {
            capacity as usize
        };
        Ok((capacity, error))
    }

    /// The next stage, planned and checked against `max_bytes` and the
    /// address space before anything is allocated; does not add it.
    fn new_stage(&self) -> Result<PartitionedBloomFilter> {
        let (capacity, error) = self.stage_params(self.stages.len())?;
        // Fails with `TooLarge` past MAX_BITS; the rate is at least
        // MIN_FP_RATE, so it is not refused.
        let params = sizing::partitioned_params(capacity, error)?;
        let needed = u128::from(params.bits()).div_ceil(64) * 8;
        sizing::check_memory(self.memory_bytes() as u128 + needed, self.max_bytes)?;
        Bloom::empty(
            params,
            capacity,
            error,
            BuildOptions::new().hash_key(self.key),
        )
    }

    approxset_core::key_methods!(insert -> Result<bool>);

    /// Inserts a precomputed digest; returns `Ok(true)` when it was added,
    /// `Ok(false)` when it (probably) was present already and was not stored
    /// again. Either way the insert is accepted and counts in
    /// [`len`](Self::len).
    ///
    /// # Errors
    /// When a new stage is needed and would pass the memory cap or the
    /// address space ([`Error::TooLarge`], checked before anything is
    /// allocated) or cannot be allocated, and [`Error::CannotGrow`] when
    /// the chain has tightened so far that the next stage's rate is below
    /// [`MIN_FP_RATE`] (after about 230 stages at the default rate, growth
    /// and tightening, far past any memory; after [`MIN_STAGES`] at the
    /// least rate). The filter is unchanged.
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        if self.contains_digest(digest) {
            self.len = self.len.saturating_add(1);
            return Ok(false);
        }
        let newest = self.stages.last().expect("a filter always has a stage");
        if newest.len() >= newest.capacity() {
            let stage = self.new_stage()?;
            self.stages
                .try_reserve(1)
                .map_err(|_| Error::AllocationFailed {
                    bytes: std::mem::size_of::<PartitionedBloomFilter>(),
                })?;
            self.stages.push(stage);
        }
        let newest = self.stages.last_mut().expect("a filter always has a stage");
        newest.add_digest(digest);
        // Saturates, like every variant's count. Every stored item counts
        // here too, so the stages' sum stays at most `len`.
        self.len = self.len.saturating_add(1);
        Ok(true)
    }

    /// Whether a precomputed digest may be present: any stage, newest first.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        self.stages.iter().rev().any(|s| s.contains_digest(digest))
    }

    /// The stages, oldest first; each reports its capacity, fill and error.
    pub fn stages(&self) -> &[PartitionedBloomFilter] {
        &self.stages
    }

    approxset_core::bookkeeping_methods!(
        len = "Inserts accepted, repeats included, as in every variant (an item that \
               tests present is counted but not stored again; see the type docs). For \
               distinct items use `estimated_items`."
    );

    /// The number of distinct items estimated from the stages' fills: the
    /// sum of each stage's estimate (Swamidass and Baldi), as
    /// [`Bloom::estimated_items`]. Infinite when a stage is all ones.
    pub fn estimated_items(&self) -> f64 {
        self.stages.iter().map(|s| s.estimated_items()).sum()
    }

    /// The first stage's capacity, `n₀`.
    pub fn initial_capacity(&self) -> usize {
        self.initial_capacity
    }

    /// Items the stages built so far hold before the next one is added.
    pub fn capacity(&self) -> usize {
        self.stages
            .iter()
            .map(|s| s.capacity())
            .fold(0, usize::saturating_add)
    }

    /// The growth factor `s`.
    pub fn growth(&self) -> f64 {
        self.growth
    }

    /// The tightening ratio `r`.
    pub fn tightening(&self) -> f64 {
        self.tightening
    }

    /// The compound false-positive rate from the stages' fills:
    /// 1 − Π(1 − fᵢ), fᵢ each stage's estimate.
    pub fn estimated_fp_rate(&self) -> f64 {
        1.0 - self
            .stages
            .iter()
            .map(|s| 1.0 - s.estimated_fp_rate())
            .product::<f64>()
    }

    /// Bytes of all stages' bits.
    pub fn memory_bytes(&self) -> usize {
        self.stages.iter().map(|s| s.memory_bytes()).sum()
    }

    /// The parameters by name: `stages`, `initial_capacity`, `growth`,
    /// `tightening`, `max_bytes` (when set), and the first stage's `bits`
    /// and `hashes`.
    pub fn parameters(&self) -> Vec<(&'static str, Value)> {
        let first = &self.stages[0];
        let mut out = vec![
            ("stages", self.stages.len().into()),
            ("initial_capacity", self.initial_capacity.into()),
            ("growth", self.growth.into()),
            ("tightening", self.tightening.into()),
            ("bits", first.bits().into()),
            ("hashes", first.hashes().into()),
        ];
        if let Some(m) = self.max_bytes {
            out.push(("max_bytes", m.into()));
        }
        out
    }

    /// Removes every item: back to one empty first stage.
    pub fn clear(&mut self) {
        self.stages.truncate(1);
        self.stages[0].clear();
        self.len = 0;
    }

    approxset_core::key_methods!(try_extend);
}

impl fmt::Debug for ScalableBloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScalableBloomFilter")
            .field("variant", &"scalable")
            .field("stages", &self.stages.len())
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .field("fp_rate", &self.fp_rate)
            .field("growth", &self.growth)
            .field("tightening", &self.tightening)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

approxset_core::impl_approx_set!([] ScalableBloomFilter, variant = "scalable");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_grow_and_tighten() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(100)
            .unwrap();
        for i in 0..1_000u32 {
            f.insert(&i).unwrap();
        }
        let stages = f.stages();
        // 100 + 200 + 400 = 700 < 1000 ≤ 1500: four stages.
        assert_eq!(stages.len(), 4);
        for (i, s) in stages.iter().enumerate() {
            assert_eq!(s.capacity(), 100 << i);
            let expected = 0.01 * 0.15 * 0.85f64.powi(i as i32);
            assert!((s.fp_rate() - expected).abs() < 1e-15);
        }
        // Every full stage holds exactly its capacity.
        for s in &stages[..3] {
            assert_eq!(s.len(), s.capacity());
        }
        assert_eq!(f.capacity(), 1500);
        // The stages' targets sum below p.
        let sum: f64 = stages.iter().map(|s| s.fp_rate()).sum();
        assert!(sum < 0.01);
    }

    #[test]
    fn growth_four() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .growth(4.0)
            .seed(1)
            .initial_capacity(100)
            .unwrap();
        f.try_extend(0..2_000u32).unwrap();
        let caps: Vec<usize> = f.stages().iter().map(|s| s.capacity()).collect();
        assert_eq!(caps, vec![100, 400, 1600]);
    }

    #[test]
    fn duplicates_count_but_are_not_stored() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(10)
            .unwrap();
        assert!(f.insert("a").unwrap());
        assert!(!f.insert("a").unwrap());
        // Every accepted insert counts (it counted 1 before); the stage
        // stores the key once.
        assert_eq!(f.len(), 2);
        for _ in 0..100 {
            f.insert("a").unwrap();
        }
        assert_eq!(f.len(), 102);
        assert_eq!(f.stages().len(), 1);
        assert_eq!(f.stages()[0].len(), 1);
        assert!(
            (f.estimated_items() - 1.0).abs() < 0.1,
            "{}",
            f.estimated_items()
        );
    }

    #[test]
    fn estimated_items_sums_the_stages() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(4)
            .initial_capacity(1_000)
            .unwrap();
        assert_eq!(f.estimated_items(), 0.0);
        for round in 0..3 {
            for i in 0..20_000u32 {
                f.insert(&i).unwrap();
            }
            assert_eq!(f.len(), 20_000 * (round + 1));
        }
        let sum: f64 = f.stages().iter().map(|s| s.estimated_items()).sum();
        assert_eq!(f.estimated_items(), sum);
        // The fill estimate of 20,000 distinct keys: within 3 % (its
        // standard deviation here is well under 1 %).
        let est = f.estimated_items();
        assert!((est - 20_000.0).abs() < 600.0, "{est}");
    }

    #[test]
    fn memory_cap_refuses_growth_and_keeps_everything() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(2)
            .max_bytes(4096)
            .initial_capacity(1000)
            .unwrap();
        let mut inserted = 0u32;
        let err = loop {
            match f.insert(&inserted) {
                Ok(_) => inserted += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(err, Error::TooLarge { limit: 4096, .. }), "{err}");
        assert!(f.memory_bytes() <= 4096);
        let before = f.clone();
        assert!(f.insert(&inserted).is_err());
        assert_eq!(f, before, "a refused insert changes nothing");
        assert!((0..inserted).all(|i| f.contains(&i)));
    }

    #[test]
    fn bad_parameters() {
        let b = || ScalableBloomFilter::with_fp_rate(0.01);
        for g in [
            1.0,
            0.5,
            -2.0,
            16.000_001,
            6e7,
            1e10,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(matches!(
                b().growth(g).initial_capacity(10),
                Err(Error::InvalidParameter { name: "growth", .. })
            ));
        }
        for r in [0.0, 1e-10, 0.499, 1.0, 1.5, f64::NAN] {
            assert!(matches!(
                b().tightening(r).initial_capacity(10),
                Err(Error::InvalidParameter {
                    name: "tightening",
                    ..
                })
            ));
        }
        // The edges of the ranges build.
        assert!(b().growth(MAX_GROWTH).initial_capacity(10).is_ok());
        assert!(b().growth(1.000_001).initial_capacity(10).is_ok());
        assert!(b().tightening(MIN_TIGHTENING).initial_capacity(10).is_ok());
        assert!(b().initial_capacity(0).is_err());
        assert!(ScalableBloomFilter::new(10, 1.0).is_err());
        assert!(
            ScalableBloomFilter::with_fp_rate(0.01)
                .max_bytes(10)
                .initial_capacity(1000)
                .is_err()
        );
    }

    #[test]
    fn clear_returns_to_one_stage() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(10)
            .unwrap();
        f.try_extend(0..100u32).unwrap();
        assert!(f.stages().len() > 1);
        f.clear();
        assert_eq!(f.stages().len(), 1);
        assert!(f.is_empty());
        assert!(!f.contains(&5u32));
    }
}
