//! Choosing a filter variant at run time.

use std::fmt;
use std::str::FromStr;

use approxset_bloom::cells::{BitVec, Cells};
use approxset_bloom::{
    Blocked, BlockedBloomFilter, Bloom, BloomFilter, Classic, CountingBloomFilter, Layout,
    Partitioned, PartitionedBloomFilter, ScalableBloomFilter, SlidingBloomFilter, SplitBlock,
    SplitBlockBloomFilter,
};
use approxset_core::format::tag;
use approxset_core::sharded::ShardFilter;
use approxset_core::{
    ApproxSet, BuildOptions, ConcurrentDeletable, Deletable, Digest, Error, HashFunction, Key,
    Membership, Result, Sharded,
};
use approxset_cuckoo::CuckooFilter;
use approxset_fuse::BinaryFuseFilter;
use approxset_quotient::QuotientFilter;
use approxset_ribbon::RibbonFilter;

use crate::load::Opened;

/// A filter variant, to choose at run time and use through
/// `Box<dyn ApproxSet + Send + Sync>`.
///
/// ```
/// use approxset::{ApproxSet, Variant};
/// let mut f: Box<dyn ApproxSet + Send + Sync> = Variant::Classic.build(1_000_000, 0.01)?;
/// f.insert("alice")?;
/// assert!(f.contains("alice"));
/// assert_eq!(f.variant(), Variant::Classic);
/// let v: Variant = "partitioned".parse()?;
/// assert_eq!(v.to_string(), "partitioned");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// New variants are added as they land, so the enum is `#[non_exhaustive]`;
/// iterate [`Variant::ALL`] to cover every one, and
/// [`Variant::INSERTABLE`] for those that [`build`](Self::build) empty and
/// take inserts. The static variants, [`Fuse`](Self::Fuse) and
/// [`Ribbon`](Self::Ribbon), are built from every key at once with
/// [`build_from`](Self::build_from), which every variant offers:
///
/// ```
/// use approxset::Variant;
/// let keys = ["alice", "bob"];
/// for &v in Variant::ALL {
///     let f = v.builder().seed(1).build_from(&keys, 0.01)?;
///     assert!(f.contains("alice") && f.contains("bob"));
/// }
/// assert!(Variant::Fuse.is_static());
/// assert!(Variant::Fuse.build(10, 0.01).is_err());
/// assert!(Variant::Ribbon.is_static());
/// # Ok::<(), approxset::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Variant {
    /// The classic Bloom filter, [`BloomFilter`](crate::BloomFilter).
    Classic,
    /// The partitioned Bloom filter, [`PartitionedBloomFilter`](crate::PartitionedBloomFilter).
    Partitioned,
    /// The counting Bloom filter with 4-bit counters, [`CountingBloomFilter`];
    /// deletes.
    Counting,
    /// The cuckoo filter, [`CuckooFilter`](crate::CuckooFilter): 4 to 32-bit
    /// fingerprints (the narrowest that meets the rate, so rates down to
    /// about 1.9·10⁻⁹) in buckets of four; deletes; bounded room (an insert
    /// into a full filter is `Err(Error::Full)`).
    Cuckoo,
    /// The scalable Bloom filter, [`ScalableBloomFilter`]: `expected_items`
    /// is its initial capacity, and it grows past it without exceeding
    /// `fp_rate`.
    Scalable,
    /// The cache-blocked Bloom filter, [`BlockedBloomFilter`](crate::BlockedBloomFilter):
    /// every key's bits in one 64-byte cache line, so a lookup reads one
    /// line, at about 3 % more bits than the classic filter at 1 %.
    Blocked,
    /// The split-block Bloom filter of Apache Parquet,
    /// [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter): one bit in
    /// each 32-bit word of one 256-bit block per key (`k` = 8), a lookup of
    /// eight masks and one comparison, at about 10 % more bits than the
    /// classic filter at 1 %.
    SplitBlock,
    /// The binary fuse filter, [`BinaryFuseFilter`](crate::BinaryFuseFilter):
    /// **static**, built once from every key with
    /// [`build_from`](Self::build_from) and read-only after (a
    /// `Box<dyn Membership>`), at about `1.125·f` bits per key for 8, 16 or
    /// 32-bit fingerprints (9.0 at 0.39 %), the least of the family.
    Fuse,
    /// The sliding-window Bloom filter, [`SlidingBloomFilter`](crate::SlidingBloomFilter):
    /// `expected_items` is its window `W`, and it remembers the keys of
    /// its last `W` inserts (at least; up to about `W·(r + 1)/r`) and
    /// forgets older ones, at most `fp_rate` at every moment. A key inserted
    /// earlier than its window is **not** guaranteed to be found.
    Sliding,
    /// The counting quotient filter, [`QuotientFilter`](crate::QuotientFilter):
    /// deletes, counts without a cap, grows past `expected_items` at
    /// `fp_rate` (a chain of tables) and merges, at 9.74 bits per key at 1 %.
    Quotient,
    /// The Ribbon filter, [`RibbonFilter`](crate::RibbonFilter): **static**
    /// like [`Fuse`](Self::Fuse), sized for any rate at about
    /// `1.05·log₂(1/p)` bits per key (7.0 at 1 %, 10.5 at 0.1 %), the least
    /// of the family where the rate is not a power of two.
    Ribbon,
}

impl Variant {
    /// Every variant, in a stable order.
    pub const ALL: &'static [Variant] = &[
        Variant::Classic,
        Variant::Partitioned,
        Variant::Counting,
        Variant::Cuckoo,
        Variant::Scalable,
        Variant::Blocked,
        Variant::SplitBlock,
        Variant::Fuse,
        Variant::Sliding,
        Variant::Quotient,
        Variant::Ribbon,
    ];

    /// The variants that [`build`](Self::build) empty and take inserts:
    /// every one but the static [`Fuse`](Self::Fuse) and
    /// [`Ribbon`](Self::Ribbon). All but
    /// [`Sliding`](Self::Sliding) keep every key inserted; the sliding
    /// filter keeps its window's.
    pub const INSERTABLE: &'static [Variant] = &[
        Variant::Classic,
        Variant::Partitioned,
        Variant::Counting,
        Variant::Cuckoo,
        Variant::Scalable,
        Variant::Blocked,
        Variant::SplitBlock,
        Variant::Sliding,
        Variant::Quotient,
    ];

    /// The lowercase name, as [`Display`](fmt::Display) prints it and
    /// [`FromStr`] and [`Membership::variant`] use.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Classic => "classic",
            Variant::Partitioned => "partitioned",
            Variant::Counting => "counting",
            Variant::Cuckoo => "cuckoo",
            Variant::Scalable => "scalable",
            Variant::Blocked => "blocked",
            Variant::SplitBlock => "split-block",
            Variant::Fuse => "fuse",
            Variant::Sliding => "sliding",
            Variant::Quotient => "quotient",
            Variant::Ribbon => "ribbon",
        }
    }

    /// Whether the variant forgets keys by itself: the
    /// [`Sliding`](Self::Sliding) filter remembers only its window (the
    /// last `expected_items` inserts), every other variant every key
    /// inserted (until `clear`, or a remove).
    pub const fn is_windowed(self) -> bool {
        matches!(self, Variant::Sliding)
    }

    /// Whether the variant is static: built once from every key
    /// ([`build_from`](Self::build_from)), with no inserts after, so that
    /// [`build`](Self::build) and [`approxset::load`](crate::load) refuse it
    /// with [`Error::StaticFilter`].
    pub const fn is_static(self) -> bool {
        matches!(self, Variant::Fuse | Variant::Ribbon)
    }

    /// Whether the variant can remove items (and so
    /// [`build_deletable`](Self::build_deletable) succeeds).
    pub const fn supports_delete(self) -> bool {
        match self {
            Variant::Counting | Variant::Cuckoo | Variant::Quotient => true,
            Variant::Classic
            | Variant::Partitioned
            | Variant::Scalable
            | Variant::Blocked
            | Variant::SplitBlock
            | Variant::Fuse
            | Variant::Sliding
            | Variant::Ribbon => false,
        }
    }

    /// Whether a filter of the variant is saved and loaded in bounded
    /// chunks, with no second copy of itself in memory
    /// ([`Membership::write_into`], [`load_streamed`](crate::load_streamed)):
    /// the variants with one flat payload (classic, partitioned, blocked,
    /// split-block, counting, cuckoo), which can also be read page by page
    /// ([`paged::PagedFilter`](crate::paged::PagedFilter)). The others are
    /// serialized whole first, a second copy.
    pub const fn is_streamed(self) -> bool {
        matches!(
            self,
            Variant::Classic
                | Variant::Partitioned
                | Variant::Blocked
                | Variant::SplitBlock
                | Variant::Counting
                | Variant::Cuckoo
        )
    }

    /// Whether the variant can be built with (and load files of) the hash
    /// `function`: [`SipHash13`](HashFunction::SipHash13) and
    /// [`Xxh3`](HashFunction::Xxh3) for every variant; Parquet's
    /// [`ParquetXxh64`](HashFunction::ParquetXxh64), which gives 64 bits,
    /// for the split-block filter only, so for no variant of this release.
    /// The rule is [`format::tag::supports_hash`](approxset_core::format::tag::supports_hash).
    ///
    /// ```
    /// use approxset::{HashFunction, Variant};
    /// assert!(Variant::Cuckoo.supports_hash(HashFunction::Xxh3));
    /// assert!(!Variant::Classic.supports_hash(HashFunction::ParquetXxh64));
    /// assert!(Variant::Classic.builder().hash(HashFunction::ParquetXxh64).build(10, 0.01).is_err());
    /// ```
    pub const fn supports_hash(self, function: HashFunction) -> bool {
        tag::supports_hash(self.tag(), function)
    }

    /// The variant's tag in the format.
    const fn tag(self) -> u8 {
        match self {
            Variant::Classic => tag::CLASSIC,
            Variant::Partitioned => tag::PARTITIONED,
            Variant::Counting => tag::COUNTING,
            Variant::Cuckoo => tag::CUCKOO,
            Variant::Scalable => tag::SCALABLE,
            Variant::Blocked => tag::BLOCKED,
            Variant::SplitBlock => tag::SPLIT_BLOCK,
            Variant::Fuse => tag::FUSE,
            Variant::Sliding => tag::SLIDING,
            Variant::Quotient => tag::QUOTIENT,
            Variant::Ribbon => tag::RIBBON,
        }
    }

    /// The variant of a filter, when it is one of this crate's.
    pub fn of<S: Membership + ?Sized>(filter: &S) -> Option<Variant> {
        filter.variant().parse().ok()
    }

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

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseVariantError;

    /// Parses a lowercase name (`"classic"`, `"partitioned"`, …); ASCII case
    /// is ignored, and `"bloom"` is an alias of `"classic"`.
    ///
    /// ```
    /// use approxset::Variant;
    /// assert_eq!("Bloom".parse::<Variant>(), Ok(Variant::Classic));
    /// assert_eq!("cuckoo".parse::<Variant>(), Ok(Variant::Cuckoo));
    /// ```
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("bloom") {
            return Ok(Variant::Classic);
        }
        Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseVariantError {
                input: s.to_owned(),
            })
    }
}

impl PartialEq<&str> for Variant {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl PartialEq<Variant> for &str {
    fn eq(&self, other: &Variant) -> bool {
        *self == other.name()
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

/// The error of parsing an unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVariantError {
    input: String,
}

impl fmt::Display for ParseVariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant {:?}, expected one of ", self.input)?;
        for (i, v) in Variant::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(v.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseVariantError {}

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
    /// [`shards_for(threads)`](crate::sharded::shards_for) shards (counting
    /// and cuckoo only), read without a lock, each written under its own. A
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
    /// once through `&self`: a [`Sharded`] counting or cuckoo filter, for
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
        let shards = crate::sharded::shards_for(threads);
        let mut options = self.options.hash_key(self.options.key_or_random());
        if let Some(limit) = self.options.max_bytes_limit() {
            options = options.max_bytes(limit / shards);
        }
        let one = VariantBuilder {
            variant: self.variant,
            options,
            threads: None,
        };
        let (n, p) = (expected_items, fp_rate);
        match self.variant {
            Variant::Counting => Ok(B::from_sharded(Sharded::build(n, shards, |c| {
                one.counting(c, p)
            })?)),
            Variant::Cuckoo => Ok(B::from_sharded(Sharded::build(n, shards, |c| {
                one.cuckoo(c, p)
            })?)),
            // Its lookups would need a version per cluster, as the cuckoo
            // shard has one, since updates shift runs: not yet built.
            Variant::Quotient => Err(Error::Unsupported {
                operation: "sharing between threads",
                variant: self.variant.name(),
            }),
            Variant::Classic
            | Variant::Partitioned
            | Variant::Scalable
            | Variant::Blocked
            | Variant::SplitBlock
            | Variant::Fuse
            | Variant::Sliding
            | Variant::Ribbon => Err(Error::DeleteUnsupported {
                variant: self.variant.name(),
            }),
        }
    }

    fn bloom<L: Layout, C: Cells<L>>(
        &self,
        expected_items: usize,
        fp_rate: f64,
    ) -> Result<Bloom<L, C>> {
        Bloom::<L, C>::with_fp_rate(fp_rate)
            .options(self.options)
            .expected_items(expected_items)
    }

    fn cuckoo(&self, expected_items: usize, fp_rate: f64) -> Result<CuckooFilter> {
        CuckooFilter::with_fp_rate(fp_rate)
            .options(self.options)
            .expected_items(expected_items)
    }

    fn quotient(&self, expected_items: usize, fp_rate: f64) -> Result<QuotientFilter> {
        QuotientFilter::with_fp_rate(fp_rate)
            .options(self.options)
            .expected_items(expected_items)
    }

    fn scalable(&self, expected_items: usize, fp_rate: f64) -> Result<ScalableBloomFilter> {
        ScalableBloomFilter::with_fp_rate(fp_rate)
            .options(self.options)
            .initial_capacity(expected_items)
    }

    fn sliding(&self, window: usize, fp_rate: f64) -> Result<SlidingBloomFilter> {
        SlidingBloomFilter::with_fp_rate(fp_rate)
            .options(self.options)
            .window(window)
    }

    fn counting(&self, expected_items: usize, fp_rate: f64) -> Result<CountingBloomFilter> {
        self.bloom(expected_items, fp_rate)
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
                let f = BinaryFuseFilter::with_fp_rate(fp_rate)
                    .options(self.options)
                    .build(keys)?;
                return Ok(Box::new(f));
            }
            Variant::Ribbon => {
                let f = RibbonFilter::with_fp_rate(fp_rate)
                    .options(self.options)
                    .build(keys)?;
                return Ok(Box::new(f));
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
            Variant::Fuse => Ok(Box::new(
                BinaryFuseFilter::with_fp_rate(fp_rate)
                    .options(self.options)
                    .build_digests(digests)?,
            )),
            Variant::Ribbon => Ok(Box::new(
                RibbonFilter::with_fp_rate(fp_rate)
                    .options(self.options)
                    .build_digests(digests)?,
            )),
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
        let (n, p) = (expected_items, fp_rate);
        match self.variant {
            Variant::Classic => filled(self.bloom::<Classic, BitVec>(n, p)?, fill),
            Variant::Partitioned => filled(self.bloom::<Partitioned, BitVec>(n, p)?, fill),
            Variant::Counting => filled(self.counting(n, p)?, fill),
            Variant::Cuckoo => filled(self.cuckoo(n, p)?, fill),
            Variant::Scalable => filled(self.scalable(n, p)?, fill),
            Variant::Blocked => filled(self.bloom::<Blocked, BitVec>(n, p)?, fill),
            Variant::SplitBlock => filled(self.bloom::<SplitBlock, BitVec>(n, p)?, fill),
            Variant::Sliding => filled(self.sliding(n, p)?, fill),
            Variant::Quotient => filled(self.quotient(n, p)?, fill),
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
        match self.variant {
            Variant::Counting => Ok(Box::new(self.counting(expected_items, fp_rate)?)),
            Variant::Cuckoo => Ok(Box::new(self.cuckoo(expected_items, fp_rate)?)),
            Variant::Quotient => Ok(Box::new(self.quotient(expected_items, fp_rate)?)),
            Variant::Classic
            | Variant::Partitioned
            | Variant::Scalable
            | Variant::Blocked
            | Variant::SplitBlock
            | Variant::Fuse
            | Variant::Sliding
            | Variant::Ribbon => Err(Error::DeleteUnsupported {
                variant: self.variant.name(),
            }),
        }
    }
}
