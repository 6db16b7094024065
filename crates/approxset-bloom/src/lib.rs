//! The Bloom family of approxset: the classic [`BloomFilter`], the
//! [`PartitionedBloomFilter`], the cache-[`BlockedBloomFilter`], Parquet's
//! [`SplitBlockBloomFilter`], the
//! [`CountingBloomFilter`] (4-bit counters, with deletion), the
//! [`ScalableBloomFilter`] (grows without passing its target rate), the
//! [`SlidingBloomFilter`] (remembers a sliding window of its last inserts)
//! and the lock-free [`AtomicBloomFilter`] (the blocked layout over atomic
//! words).
//!
//! ```
//! use approxset_bloom::{AtomicBloomFilter, BloomFilter, CountingBloomFilter};
//!
//! let mut classic = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(10_000)?;
//! classic.insert("alice")?; // never fails on a Bloom filter; `?` as on every filter
//! assert!(classic.contains("alice"));
//!
//! let mut counting = CountingBloomFilter::with_fp_rate(0.01).expected_items(10_000)?;
//! counting.insert("bob")?;
//! assert!(counting.remove("bob").is_removed());
//! assert!(!counting.contains("bob"));
//!
//! // Shared between threads without a lock: `insert_shared` takes `&self`.
//! let shared = AtomicBloomFilter::with_fp_rate(0.01).expected_items(10_000)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| shared.insert_shared("carol"));
//!     s.spawn(|| shared.insert_shared("dave"));
//! });
//! assert!(shared.contains("carol") && shared.contains("dave"));
//! # Ok::<(), approxset_bloom::Error>(())
//! ```
//!
//! The classic, partitioned, blocked, split-block and counting filters are
//! one generic [`Bloom`] core: a position [`Layout`] (classic, partitioned,
//! blocked or split-block)
//! over [`cells`] (bits, 4-bit counters for the counting filter, atomic
//! words for the atomic filter); the scalable filter chains partitioned
//! stages. All implement [`ApproxSet`](approxset_core::ApproxSet), and an
//! inherent method named as a trait method has the trait method's signature:
//! `insert` returns `Result<bool>` on every filter, also where inserting
//! cannot fail.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

// The core first: rustdoc lists `Bloom`'s inherent methods in the order
// the modules declare them, and `new`, `insert` and `contains` should lead,
// then the builders' `with_fp_rate` and `with_num_bits`, not the atomic
// filter's `insert_shared`.
mod bloom;
pub mod builder;

mod atomic;
mod batch_lookup;
mod bits;
mod blocked;
mod cell_traits;
pub mod cells;
mod classic;
mod counters;
mod counting;
mod estimate;
mod fold;
mod layout;
mod paged;
mod partitioned;
mod persist;
mod scalable;
#[cfg(feature = "serde")]
mod serde_impl;
mod shared_counting;
mod sliding;
mod sliding_persist;
mod split_block;
mod split_kernel;
mod storage;
mod view;
mod words;

pub use approxset_core::{Count, Error, Removal, Result};
pub use atomic::AtomicBloomFilter;
pub use blocked::BlockedBloomFilter;
pub use bloom::Bloom;
pub use classic::BloomFilter;
pub use counting::CountingBloomFilter;
pub use layout::{Blocked, Classic, Layout, Partitioned, SplitBlock};
pub use paged::{PagedBits, PagedCounters};
pub use partitioned::PartitionedBloomFilter;
pub use scalable::{
    DEFAULT_GROWTH, DEFAULT_TIGHTENING, MAX_GROWTH, MIN_STAGES, MIN_TIGHTENING,
    ScalableBloomFilter, ScalableBuilder,
};
pub use sliding::{SlidingBloomFilter, SlidingBuilder};
pub use split_block::SplitBlockBloomFilter;
pub use view::{
    BlockedBloomFilterView, BloomFilterView, CountingBloomFilterView, PartitionedBloomFilterView,
    SplitBlockBloomFilterView,
};
