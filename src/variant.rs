//! Choosing a filter variant at run time.

use std::fmt;
use std::str::FromStr;

use approxset_core::format::tag;
use approxset_core::{HashFunction, Membership};

/// The pattern of the variants that cannot delete (the complement of
/// counting, cuckoo and quotient), for the matches that refuse them.
macro_rules! cannot_delete {
    () => {
        Variant::Classic
            | Variant::Partitioned
            | Variant::Scalable
            | Variant::Blocked
            | Variant::SplitBlock
            | Variant::Fuse
            | Variant::Sliding
            | Variant::Ribbon
    };
}
pub(crate) use cannot_delete;

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
    /// The counting Bloom filter with 4-bit counters, [`CountingBloomFilter`](crate::CountingBloomFilter);
    /// deletes.
    Counting,
    /// The cuckoo filter, [`CuckooFilter`](crate::CuckooFilter): 4 to 32-bit
    /// fingerprints (the narrowest that meets the rate, so rates down to
    /// about 1.9·10⁻⁹) in buckets of four; deletes; bounded room (an insert
    /// into a full filter is `Err(Error::Full)`).
    Cuckoo,
    /// The scalable Bloom filter, [`ScalableBloomFilter`](crate::ScalableBloomFilter): `expected_items`
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
    pub const INSERTABLE: &'static [Variant] = &Self::without_static();

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
    /// with [`Error::StaticFilter`](crate::Error::StaticFilter).
    pub const fn is_static(self) -> bool {
        matches!(self, Variant::Fuse | Variant::Ribbon)
    }

    /// [`ALL`](Self::ALL) but the static variants, in its order.
    const fn without_static() -> [Variant; Self::ALL.len() - 2] {
        let mut out = [Variant::Classic; Self::ALL.len() - 2];
        let (mut i, mut j) = (0, 0);
        while i < Self::ALL.len() {
            if !Self::ALL[i].is_static() {
                out[j] = Self::ALL[i];
                j += 1;
            }
            i += 1;
        }
        assert!(j == out.len(), "two static variants");
        out
    }

    /// Whether the variant can remove items (and so
    /// [`build_deletable`](Self::build_deletable) succeeds).
    pub const fn supports_delete(self) -> bool {
        match self {
            Variant::Counting | Variant::Cuckoo | Variant::Quotient => true,
            cannot_delete!() => false,
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

#[cfg(test)]
mod tests {
    use super::Variant;

    #[test]
    fn insertable_is_every_variant_but_the_static_ones_in_order() {
        let dynamic: Vec<Variant> = Variant::ALL
            .iter()
            .copied()
            .filter(|v| !v.is_static())
            .collect();
        assert_eq!(Variant::INSERTABLE, dynamic);
        assert_eq!(Variant::INSERTABLE.len(), 9);
        for &v in Variant::ALL {
            let deletes = matches!(v, Variant::Counting | Variant::Cuckoo | Variant::Quotient);
            assert_eq!(v.supports_delete(), deletes, "{v}");
        }
    }
}
