//! The scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison
//! 2007): a chain of partitioned Bloom filters that grows with its content
//! and keeps the compound false-positive rate under its target.

use approxset_core::Key;
use std::fmt;

use approxset_core::sizing::{self, MAX_HASHES, Plan, validate_fp_rate, validate_items};
use approxset_core::{ApproxSet, BuildOptions, Digest, Error, HashKey, Result, Value};

use crate::partitioned::PartitionedBloomFilter;

/// The default growth factor `s`: each stage holds twice the previous one.
pub const DEFAULT_GROWTH: f64 = 2.0;

/// The default tightening ratio `r`: each stage's error is 0.85 times the
/// previous one's.
pub const DEFAULT_TIGHTENING: f64 = 0.85;

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
/// (probably) present, so [`len`](Self::len) counts distinct items as well
/// as the filter can tell (like RedisBloom's `BF.ADD`); an item that is a
/// false positive of the filter is counted as present and not added, which
/// costs nothing: it already tests positive.
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
    /// The growth factor `s > 1` (default 2; 4 grows in fewer, larger
    /// stages at some memory cost).
    pub fn growth(mut self, growth: f64) -> Self {
        self.growth = growth;
        self
    }

    /// The tightening ratio `r` in (0, 1) (default 0.85).
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
    /// [`Error::InvalidParameter`] for `fp_rate` outside (0, 1), growth not
    /// above 1 (or not finite), tightening outside (0, 1), or an initial
    /// capacity of 0; [`Error::TooLarge`] or [`Error::AllocationFailed`] when
    /// the first stage does not fit.
    pub fn initial_capacity(self, initial_capacity: usize) -> Result<ScalableBloomFilter> {
        self.validate(initial_capacity)?;
        let mut filter = ScalableBloomFilter {
            stages: Vec::new(),
            key: self.options.key_or_random(),
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

    pub(crate) fn validate(&self, initial_capacity: usize) -> Result<()> {
        validate_fp_rate(self.fp_rate)?;
        validate_items(initial_capacity)?;
        if !(self.growth.is_finite() && self.growth > 1.0) {
            return Err(Error::invalid(
                "growth",
                format!("must be a number above 1, got {:?}", self.growth),
            ));
        }
        if !(self.tightening > 0.0 && self.tightening < 1.0) {
            return Err(Error::invalid(
                "tightening",
                format!(
                    "must be strictly between 0 and 1, got {:?}",
                    self.tightening
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
        validate_fp_rate(fp_rate)?;
        PartitionedBloomFilter::plan(initial_capacity, fp_rate * (1.0 - DEFAULT_TIGHTENING))
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
        if sizing::validate_fp_rate(error).is_err() {
            return Err(cannot_grow(format!(
                "stage {} would need a false-positive rate of {error:.3e}",
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

    /// The next stage, checked against the memory cap; does not add it.
    fn new_stage(&self) -> Result<PartitionedBloomFilter> {
        let index = self.stages.len();
        let (capacity, error) = self.stage_params(index)?;
        let used = self.memory_bytes();
        let params = sizing::partitioned_params(capacity, error).map_err(|e| match e {
            // The rate is valid but too small for any filter: the chain has
            // tightened as far as it can.
            Error::InvalidParameter { .. } if index > 0 => Error::CannotGrow {
                stages: index,
                items: self.len,
                reason: format!(
                    "stage {} would need a false-positive rate of {error:.3e}, beyond what \
                     {MAX_HASHES} hash functions reach (a larger growth or tightening \
                     postpones this)",
                    index + 1
                ),
            },
            e => e,
        })?;
        let needed = u128::from(params.bits()).div_ceil(64) * 8;
        if let Some(max) = self.max_bytes {
            if used as u128 + needed > max as u128 {
                return Err(Error::TooLarge {
                    needed: used as u128 + needed,
                    limit: max as u128,
                });
            }
        }
        PartitionedBloomFilter::with_fp_rate(error)
            .hash_key(self.key)
            .expected_items(capacity)
    }

    approxset_core::key_methods!(insert -> Result<bool>);

    /// Inserts a precomputed digest unless it (probably) is present;
    /// returns `Ok(true)` when it was added.
    ///
    /// # Errors
    /// When a new stage is needed and would pass the memory cap
    /// ([`Error::TooLarge`]) or cannot be allocated, and
    /// [`Error::CannotGrow`] when the chain has tightened so far that the
    /// next stage's rate needs more than 64 hash functions (after about 240
    /// stages at the default growth and tightening, far past any memory;
    /// sooner with a growth near 1 or a tiny tightening). The filter is
    /// unchanged.
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        if self.contains_digest(digest) {
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
        newest.insert_digest(digest);
        // Cannot overflow: each item takes a bit in the newest stage's
        // memory, and a loaded len is checked against the stages.
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
        len = "Distinct items added (see the type docs): an item that tests present \
               is not added again."
    );

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

    /// Inserts every item of `iter`, stopping at the first error.
    ///
    /// # Errors
    /// As [`insert`](Self::insert); the items before the failing one stay.
    pub fn try_extend<T: Key, I: IntoIterator<Item = T>>(&mut self, iter: I) -> Result<()> {
        for item in iter {
            self.insert(&item)?;
        }
        Ok(())
    }
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
    fn duplicates_are_not_added() {
        let mut f = ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(10)
            .unwrap();
        assert!(f.insert("a").unwrap());
        assert!(!f.insert("a").unwrap());
        assert_eq!(f.len(), 1);
        for _ in 0..100 {
            f.insert("a").unwrap();
        }
        assert_eq!(f.stages().len(), 1);
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
        for g in [1.0, 0.5, -2.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                b().growth(g).initial_capacity(10),
                Err(Error::InvalidParameter { name: "growth", .. })
            ));
        }
        for r in [0.0, 1.0, 1.5, f64::NAN] {
            assert!(matches!(
                b().tightening(r).initial_capacity(10),
                Err(Error::InvalidParameter {
                    name: "tightening",
                    ..
                })
            ));
        }
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
