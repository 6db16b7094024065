//! Building a filter of a variant chosen at run time: [`VariantBuilder`].

use approxset_bloom::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, PartitionedBloomFilter,
    ScalableBloomFilter, SlidingBloomFilter, SplitBlockBloomFilter,
};
use approxset_core::sharded::ShardFilter;
use approxset_core::{
    ApproxSet, BuildOptions, ConcurrentDeletable, Deletable, Digest, Error, Key, Membership,
    Result, Sharded,
};
use approxset_cuckoo::CuckooFilter;
use approxset_fuse::BinaryFuseFilter;
use approxset_quotient::QuotientFilter;
use approxset_ribbon::RibbonFilter;

use crate::load::Opened;
use crate::variant::{Variant, cannot_delete};

/// Starts `$filter`'s builder at the rate `$fp_rate` with the options
/// `$options` and finishes it with `$finish($arg)`: the one chain by which
/// this file builds every variant.
macro_rules! build {
    ($options:expr, $filter:ty, $fp_rate:expr, $finish:ident($arg:expr)) => {
        <$filter>::with_fp_rate($fp_rate)
            .options($options)
            .$finish($arg)
    };
}

impl Variant {
    /// A filter of this variant for `expected_items` items at a
    /// false-positive rate of `fp_rate`, with a random hash key. For a seed
    /// or a memory limit use [`builder`](Self::builder).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `expected_items` = 0 or `fp_rate`
    /// outside (0, 1), or named `hash` for a hash function the variant
    /// cannot use (see [`supports_hash`](Self::supports_hash));
    /// [`Error::TooLarge`] or [`Error::AllocationFailed`]
    /// when the memory cannot be had; [`Error::StaticFilter`] for the
    /// static [`Fuse`](Self::Fuse) and [`Ribbon`](Self::Ribbon) (use
    /// [`build_from`](Self::build_from)).
    pub fn build(
        self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Box<dyn ApproxSet + Send + Sync>> {
        self.builder().build(expected_items, fp_rate)
    }

    /// A filter of this variant that can remove items.
    ///
    /// # Errors
    /// [`Error::DeleteUnsupported`] for a variant that cannot delete
    /// (see [`supports_delete`](Self::supports_delete)); otherwise as
    /// [`build`](Self::build).
    pub fn build_deletable(
        self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Box<dyn Deletable + Send + Sync>> {
        self.builder().build_deletable(expected_items, fp_rate)
    }

    /// A filter of this variant holding `keys`, behind the read-only trait:
    /// the static variant built from them in one call, any other sized for
    /// `keys.len()` (at least 1) and filled. Shorthand for
    /// `builder().build_from(keys, fp_rate)`.
    ///
    /// # Errors
    /// As [`build`](Self::build) (but never `StaticFilter`), and an
    /// insert's error (the cuckoo filter's `Full` or `TooManyCopies`);
    /// [`Error::ConstructionFailed`](crate::Error::ConstructionFailed) as
    /// [`FuseBuilder::build_digests`](crate::fuse::FuseBuilder::build_digests)
    /// and [`RibbonBuilder::build_digests`](crate::ribbon::RibbonBuilder::build_digests).
    pub fn build_from<K: Key>(
        self,
        keys: &[K],
        fp_rate: f64,
    ) -> Result<Box<dyn Membership + Send + Sync>> {
        self.builder().build_from(keys, fp_rate)
    }

    /// A builder with options (seed, hash key, hash function, memory limit)
    /// for this variant.
    pub fn builder(self) -> VariantBuilder {
        VariantBuilder {
            variant: self,
            options: BuildOptions::new(),
            threads: None,
        }
    }
}

/// Options for building a [`Variant`]: a seed or hash key for reproducible
/// filters, the hash function, and a memory limit.
///
/// ```
/// use approxset::Variant;
/// let a = Variant::Partitioned.builder().seed(7).build(1000, 0.01)?;
/// let b = Variant::Partitioned.builder().seed(7).build(1000, 0.01)?;
/// assert_eq!(a.hash_key(), b.hash_key());
/// assert!(Variant::Classic.builder().max_bytes(100).build(1_000_000, 0.01).is_err());
/// # Ok::<(), approxset::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct VariantBuilder {
    variant: Variant,
    options: BuildOptions,
    /// Set by [`shared`](Self::shared).
    threads: Option<usize>,
}

/// The boxes a [`Sharded`] filter is built into.
trait FromSharded: Sized {
    fn from_sharded<F: ShardFilter>(filter: Sharded<F>) -> Self;
}

impl FromSharded for Box<dyn ApproxSet + Send + Sync> {
    fn from_sharded<F: ShardFilter>(filter: Sharded<F>) -> Self {
        Box::new(filter)
    }
}

impl FromSharded for Box<dyn Deletable + Send + Sync> {
    fn from_sharded<F: ShardFilter>(filter: Sharded<F>) -> Self {
        Box::new(filter)
    }
}

impl FromSharded for Box<dyn ConcurrentDeletable + Send + Sync> {
    fn from_sharded<F: ShardFilter>(filter: Sharded<F>) -> Self {
        Box::new(filter)
    }
}

impl VariantBuilder {
    approxset_core::build_options_setters!();

    /// Shares the filter between `threads` threads: [`build`](Self::build),
    /// [`build_deletable`](Self::build_deletable) and
    /// [`build_shared`](Self::build_shared) then give a [`Sharded`] filter of
    /// [`shards_for_items(threads, expected_items)`](crate::sharded::shards_for_items)
    /// shards (at least 4 per thread, more where they cost under 2 % memory),
    /// read without a lock, each written under its own. A
    /// [`max_bytes`](Self::max_bytes) limit is for all the shards together;
    /// [`build_from`](Self::build_from) ignores `shared` (its filter is for
    /// reading).
    ///
    /// ```
    /// use approxset::Variant;
    /// let f = Variant::Cuckoo.builder().seed(7).shared(2).build_shared(1_000, 0.01)?;
    /// std::thread::scope(|s| -> approxset::Result<()> {
    ///     let alice = s.spawn(|| f.insert_shared("alice"));
    ///     f.insert_shared("bob")?;
    ///     alice.join().expect("no panic")?;
    ///     Ok(())
    /// })?;
    /// assert!(f.remove_shared("alice").is_removed());
    /// assert!(f.contains("bob"));
    /// # Ok::<(), approxset::Error>(())
    /// ```
    pub fn shared(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Builds the filter for threads that insert, remove and look up at
    /// once through `&self`: a [`Sharded`] counting, cuckoo or quotient filter, for
    /// the threads given to [`shared`](Self::shared) (or else
    /// [`std::thread::available_parallelism`]).
    ///
    /// # Errors
    /// [`Error::DeleteUnsupported`] for a variant that cannot delete;
    /// [`Error::InvalidParameter`] for 0 threads; otherwise as
    /// [`build`](Self::build), for each shard.
    pub fn build_shared(
        &self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Box<dyn ConcurrentDeletable + Send + Sync>> {
        self.make_shared(expected_items, fp_rate)
    }

    /// The one dispatch of the shared builds: the variant's [`Sharded`]
    /// filter, one hash key for every shard, `max_bytes` split between them.
    fn make_shared<B: FromSharded>(&self, expected_items: usize, fp_rate: f64) -> Result<B> {
        let threads = match self.threads {
            Some(threads) => threads,
            None => std::thread::available_parallelism().map_or(1, usize::from),
        };
        if threads == 0 {
            return Err(Error::InvalidParameter {
                name: "threads",
                reason: "must be at least 1".into(),
            });
        }
        let shards = approxset_core::sharded::shards_for_items(threads, expected_items);
        let mut options = self.options.hash_key(self.options.key_or_random());
        if let Some(limit) = self.options.max_bytes_limit() {
            options = options.max_bytes(limit / shards);
        }
        let (n, p) = (expected_items, fp_rate);
        match self.variant {
            Variant::Counting => Ok(B::from_sharded(Sharded::build(n, shards, |c| {
                build!(options, CountingBloomFilter, p, expected_items(c))
            })?)),
            Variant::Cuckoo => Ok(B::from_sharded(Sharded::build(n, shards, |c| {
                build!(options, CuckooFilter, p, expected_items(c))
            })?)),
            Variant::Quotient => Ok(B::from_sharded(Sharded::build(n, shards, |c| {
                build!(options, QuotientFilter, p, expected_items(c))
            })?)),
            cannot_delete!() => Err(Error::DeleteUnsupported {
                variant: self.variant.name(),
            }),
        }
    }

    /// Builds the filter; see [`Variant::build`].
    ///
    /// # Errors
    /// As [`Variant::build`].
    pub fn build(
        &self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Box<dyn ApproxSet + Send + Sync>> {
        if self.threads.is_some() {
            return self.make_shared(expected_items, fp_rate);
        }
        self.make(expected_items, fp_rate, |_| Ok(()))
    }

    /// Builds the filter of `keys`; see [`Variant::build_from`].
    ///
    /// # Errors
    /// As [`Variant::build_from`].
    pub fn build_from<K: Key>(
        &self,
        keys: &[K],
        fp_rate: f64,
    ) -> Result<Box<dyn Membership + Send + Sync>> {
        match self.variant {
            Variant::Fuse => {
                return Ok(Box::new(build!(
                    self.options,
                    BinaryFuseFilter,
                    fp_rate,
                    build(keys)
                )?));
            }
            Variant::Ribbon => {
                return Ok(Box::new(build!(
                    self.options,
                    RibbonFilter,
                    fp_rate,
                    build(keys)
                )?));
            }
            _ => {}
        }
        self.make(keys.len().max(1), fp_rate, |f| {
            keys.iter()
                .try_for_each(|k| f.insert_digest(f.hash_key().digest(k)).map(drop))
        })
    }

    /// Builds the filter of the keys whose digests, by this builder's hash
    /// key ([`hash_key`](crate::BuildOptions::hash_key) set first, so that
    /// they were computed with it), are `digests`: for callers that hash
    /// keys as they read them (the Python bindings). As
    /// [`build_from`](Self::build_from) otherwise.
    ///
    /// # Errors
    /// As [`Variant::build_from`].
    pub fn build_from_digests(
        &self,
        digests: &[Digest],
        fp_rate: f64,
    ) -> Result<Box<dyn Membership + Send + Sync>> {
        match self.variant {
            Variant::Fuse => Ok(Box::new(build!(
                self.options,
                BinaryFuseFilter,
                fp_rate,
                build_digests(digests)
            )?)),
            Variant::Ribbon => Ok(Box::new(build!(
                self.options,
                RibbonFilter,
                fp_rate,
                build_digests(digests)
            )?)),
            _ => self.make(digests.len().max(1), fp_rate, |f| {
                digests
                    .iter()
                    .try_for_each(|&d| f.insert_digest(d).map(drop))
            }),
        }
    }

    /// The one dispatch on the variant behind [`build`](Self::build) and
    /// [`build_from`](Self::build_from): the filter, `fill`ed, behind the
    /// trait object `B`.
    fn make<B: Opened>(
        &self,
        expected_items: usize,
        fp_rate: f64,
        fill: impl FnOnce(&mut dyn ApproxSet) -> Result<()>,
    ) -> Result<B> {
        fn filled<B: Opened, F: ApproxSet + Send + Sync + 'static>(
            mut f: F,
            fill: impl FnOnce(&mut dyn ApproxSet) -> Result<()>,
        ) -> Result<B> {
            fill(&mut f)?;
            Ok(B::insertable(f))
        }
        // The variant's filter, built and `fill`ed.
        macro_rules! made {
            ($filter:ty, $finish:ident) => {
                filled(
                    build!(self.options, $filter, fp_rate, $finish(expected_items))?,
                    fill,
                )
            };
        }
        match self.variant {
            Variant::Classic => made!(BloomFilter, expected_items),
            Variant::Partitioned => made!(PartitionedBloomFilter, expected_items),
            Variant::Counting => made!(CountingBloomFilter, expected_items),
            Variant::Cuckoo => made!(CuckooFilter, expected_items),
            Variant::Scalable => made!(ScalableBloomFilter, initial_capacity),
            Variant::Blocked => made!(BlockedBloomFilter, expected_items),
            Variant::SplitBlock => made!(SplitBlockBloomFilter, expected_items),
            Variant::Sliding => made!(SlidingBloomFilter, window),
            Variant::Quotient => made!(QuotientFilter, expected_items),
            Variant::Fuse | Variant::Ribbon => Err(Error::StaticFilter {
                variant: self.variant.name(),
            }),
        }
    }

    /// Builds the filter as a [`Deletable`]; see [`Variant::build_deletable`].
    ///
    /// # Errors
    /// As [`Variant::build_deletable`].
    pub fn build_deletable(
        &self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Box<dyn Deletable + Send + Sync>> {
        if self.threads.is_some() {
            return self.make_shared(expected_items, fp_rate);
        }
        let (o, n, p) = (self.options, expected_items, fp_rate);
        match self.variant {
            Variant::Counting => Ok(Box::new(build!(
                o,
                CountingBloomFilter,
                p,
                expected_items(n)
            )?)),
            Variant::Cuckoo => Ok(Box::new(build!(o, CuckooFilter, p, expected_items(n))?)),
            Variant::Quotient => Ok(Box::new(build!(o, QuotientFilter, p, expected_items(n))?)),
            cannot_delete!() => Err(Error::DeleteUnsupported {
                variant: self.variant.name(),
            }),
        }
    }
}
