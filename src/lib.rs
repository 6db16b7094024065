//! Approximate-membership filters behind one object-safe trait.
//!
//! "Is this key possibly in the set?" answered in a few nanoseconds and a
//! few bits per key, with **no false negatives**.
//!
//! # Where to start
//!
//! - [`Variant`]: every filter by name, chosen at run time
//!   ([`build`](Variant::build), [`builder`](Variant::builder),
//!   [`design`](Variant::design) to see the size without building).
//! - The filters: [`BloomFilter`] (classic), [`PartitionedBloomFilter`],
//!   [`BlockedBloomFilter`] (one cache line per key),
//!   [`CountingBloomFilter`] and [`CuckooFilter`] (both delete),
//!   [`ScalableBloomFilter`] (grows), [`SlidingBloomFilter`] (remembers a
//!   sliding window of the last inserts) and [`AtomicBloomFilter`] (shared
//!   by threads without a lock); [`Sharded`] shares a deletable filter
//!   between threads, lookups without a lock, writes locking one shard.
//! - The traits, all object safe: [`Membership`], the lookups every filter
//!   answers, with its generic methods in [`MembershipExt`]; [`ApproxSet`]
//!   for the filters that take inserts, with [`ApproxSetExt`];
//!   [`Deletable`] and [`DeletableExt`] for the filters that delete;
//!   [`ConcurrentApproxSet`] and [`ConcurrentApproxSetExt`] for inserts
//!   through `&self`, [`ConcurrentDeletable`] and [`ConcurrentDeletableExt`]
//!   for removes through `&self` ([`Sharded`]: [`ShardedCountingFilter`],
//!   [`ShardedCuckooFilter`], or `Variant::…builder().shared(threads)`). Generic code imports them all with
//!   `use approxset::prelude::*;` ([`prelude`]). Keys are any [`Key`]:
//!   strings, bytes, integers, tuples, or any `Hash` type through
//!   [`Hashed`].
//! - Saving and loading: every filter's `to_bytes` and `write_to`, read back
//!   without knowing the variant by [`load`] and [`read_from`] (and
//!   [`load_membership`], [`load_deletable`], [`read_membership_from`],
//!   [`read_deletable_from`], `…_limited`); without copying, [`view`]
//!   answers from saved bytes where they lie (a memory map, one block of
//!   a larger file), and each flat filter has its typed view
//!   ([`BloomFilterView`], [`CuckooFilterView`], …).
//! - Building blocks, for implementing or tuning filters: [`bloom`] (the
//!   generic Bloom core behind the Bloom types, its layouts, cells and
//!   builders), [`cuckoo`] (the cuckoo filter's builder and plan),
//!   [`format`](mod@format) (the binary format), [`hash`] and [`sizing`]
//!   (the sizing formulas).
//!
//! Choose a variant at run time with [`Variant`] and use it through
//! [`ApproxSet`]:
//!
//! ```
//! use approxset::{ApproxSet, Variant};
//! let mut f: Box<dyn ApproxSet + Send + Sync> = Variant::Classic.build(1_000_000, 0.01)?;
//! f.insert("alice")?;             // any Key: str, bytes, integers, tuples…
//! assert!(f.contains("alice"));   // never a false negative
//! let _maybe = f.contains(&42u64); // false, or a false positive at about 1 %
//! # Ok::<(), approxset::Error>(())
//! ```
//!
//! Or use a concrete filter directly:
//!
//! ```
//! use approxset::BloomFilter;
//! let mut f = BloomFilter::with_fp_rate(0.001).seed(1).expected_items(10_000)?;
//! f.insert_bytes(b"portable keys hash as bytes")?;
//! assert!(f.contains_bytes(b"portable keys hash as bytes"));
//! # Ok::<(), approxset::Error>(())
//! ```
//!
//! The crates behind this facade: `approxset-core` (traits, hashing, errors,
//! [`sizing`] math, the binary [`format`](mod@format); what third-party filters depend
//! on), `approxset-bloom` (the Bloom family: classic, partitioned, blocked,
//! split-block, counting, scalable and the lock-free `AtomicBloomFilter`) and
//! `approxset-cuckoo` (the cuckoo filter), `approxset-fuse` (the binary fuse
//! filter) and `approxset-quotient` (the counting quotient filter). Everything a user needs is here,
//! under `approxset::`. Choosing among the filters: `docs/guide.md` in the
//! repository.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod design;
mod load;
mod load_streamed;
pub mod paged;
pub mod spark;
mod variant;
mod variant_builder;

// In the order a reader needs them: the variant, the filters, the traits,
// keys and errors, loading; then the supporting types.
pub use design::Design;
pub use variant::{ParseVariantError, Variant};
pub use variant_builder::VariantBuilder;

pub use approxset_bloom::{
    AtomicBloomFilter, BlockedBloomFilter, BloomFilter, CountingBloomFilter,
    PartitionedBloomFilter, ScalableBloomFilter, SlidingBloomFilter, SplitBlockBloomFilter,
};
pub use approxset_cuckoo::CuckooFilter;
pub use approxset_fuse::{BinaryFuseFilter, BinaryFuseFilterView};
pub use approxset_quotient::{QuotientFilter, QuotientFilterView};
pub use approxset_ribbon::{RibbonFilter, RibbonFilterView};

pub use approxset_bloom::{
    BlockedBloomFilterView, BloomFilterView, CountingBloomFilterView, PartitionedBloomFilterView,
    SplitBlockBloomFilterView,
};
pub use approxset_cuckoo::CuckooFilterView;

pub use approxset_core::{
    ApproxSet, ApproxSetExt, ConcurrentApproxSet, ConcurrentApproxSetExt, ConcurrentDeletable,
    ConcurrentDeletableExt, Deletable, DeletableExt, Membership, MembershipExt, prelude,
};

pub use approxset_core::{Sharded, sharded};

/// The version counter that lets lookups of a shard read without a lock
/// while its writer moves entries (the cuckoo and quotient shards).
pub use approxset_core::seqlock;

/// The mechanics the static filters (fuse, Ribbon) share: their keys,
/// construction seeds and key-set deduplication.
pub use approxset_core::static_filter;

/// A [`CountingBloomFilter`] per shard: inserts, removes and lookups from
/// many threads through `&self`, lookups reading atomic counters without a
/// lock, writes locking one shard.
pub type ShardedCountingFilter = Sharded<CountingBloomFilter>;

/// A [`CuckooFilter`] per shard: inserts, removes and lookups from many
/// threads through `&self`, lookups reading atomic slots without a lock
/// (read again when a kick overlapped), writes locking one shard.
pub type ShardedCuckooFilter = Sharded<CuckooFilter>;

/// A [`QuotientFilter`] per shard: inserts, removes and lookups from many
/// threads through `&self`, lookups reading atomic slots without a lock
/// (read again when a shift overlapped), writes locking one shard.
pub type ShardedQuotientFilter = Sharded<QuotientFilter>;

pub use approxset_core::{Count, Error, Hashed, Key, KeySink, Removal, Result};

pub use load_streamed::{load_deletable_streamed, load_streamed};

pub use load::{
    load, load_deletable, load_membership, read_deletable_from, read_deletable_from_limited,
    read_from, read_from_limited, read_membership_from, read_membership_from_limited, view,
    view_verified,
};

pub use approxset_core::{
    BuildOptions, Digest, HashFunction, HashKey, ProbeScheme, Value, atomic, format, hash, sizing,
};

pub mod bloom {
    //! The generic core behind the Bloom filter types: each of
    //! [`BloomFilter`](crate::BloomFilter), [`PartitionedBloomFilter`](crate::PartitionedBloomFilter),
    //! [`BlockedBloomFilter`](crate::BlockedBloomFilter),
    //! [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter),
    //! [`CountingBloomFilter`](crate::CountingBloomFilter) and
    //! [`AtomicBloomFilter`](crate::AtomicBloomFilter) is a [`Bloom`] of a
    //! position [`Layout`] ([`Classic`], [`Partitioned`], [`Blocked`] or
    //! [`SplitBlock`])
    //! over [`cells`] (bits, 4-bit counters or atomic words; for a view
    //! such as [`BloomFilterView`](crate::BloomFilterView), the bytes of a
    //! saved filter, read in place), built by the
    //! [`builder`]s; [`ScalableBuilder`] builds the
    //! [`ScalableBloomFilter`](crate::ScalableBloomFilter) and
    //! [`SlidingBuilder`] the [`SlidingBloomFilter`](crate::SlidingBloomFilter).
    //!
    //! Most programs use the filter types and never name these.

    pub use approxset_bloom::{
        Blocked, Bloom, Classic, DEFAULT_GROWTH, DEFAULT_TIGHTENING, Layout, Partitioned,
        ScalableBuilder, SlidingBuilder, SplitBlock, builder, cells,
    };
}

pub mod cuckoo {
    //! The [`CuckooFilter`](crate::CuckooFilter)'s builder, its sizing plan
    //! and limits.

    pub use approxset_cuckoo::{CuckooBuilder, CuckooPlan, MAX_KICKS, MIN_FP_RATE};
}

pub mod fuse {
    //! The [`BinaryFuseFilter`](crate::BinaryFuseFilter)'s builder, its
    //! width choice and limits.

    pub use approxset_fuse::{
        FuseBuilder, MAX_ATTEMPTS, MAX_SEGMENT_LENGTH, MIN_FP_RATE, fingerprint_bits_for, plan,
    };
}

pub mod quotient {
    //! The [`QuotientFilter`](crate::QuotientFilter)'s builder and load limit.

    pub use approxset_quotient::{MAX_LOAD, QuotientBuilder};
}

pub mod ribbon {
    //! The [`RibbonFilter`](crate::RibbonFilter)'s builder, its sizing plan
    //! and limits.

    pub use approxset_ribbon::{
        COEFFICIENT_BITS, MAX_ATTEMPTS, MAX_COLUMNS, MIN_FP_RATE, RibbonBuilder, columns_for, plan,
    };
}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[doc = include_str!("../docs/guide.md")]
#[cfg(doctest)]
pub struct GuideDoctests;
