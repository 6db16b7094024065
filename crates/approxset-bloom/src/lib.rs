//! The Bloom family of approxset: the classic [`BloomFilter`], the
//! [`PartitionedBloomFilter`], the cache-[`BlockedBloomFilter`], the [`CountingBloomFilter`] (4-bit counters,
//! with deletion) and the [`ScalableBloomFilter`] (grows without passing its
//! target rate).
//!
//! The classic, partitioned and counting filters are one generic [`Bloom`]
//! core: a position [`Layout`] (classic or partitioned) over [`cells`]
//! (bits, or 4-bit counters for the counting filter); the scalable filter
//! chains partitioned stages. All implement
//! [`ApproxSet`](approxset_core::ApproxSet). Their inherent `insert` returns
//! a plain `bool` where inserting cannot fail.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod atomic;
mod bits;
mod blocked;
mod bloom;
pub mod builder;
pub mod cells;
mod classic;
mod counters;
mod counting;
mod layout;
mod partitioned;
mod persist;
mod scalable;
#[cfg(feature = "serde")]
mod serde_impl;

pub use approxset_core::{Error, Result};
pub use atomic::AtomicBloomFilter;
pub use blocked::BlockedBloomFilter;
pub use bloom::Bloom;
pub use classic::BloomFilter;
pub use counting::CountingBloomFilter;
pub use layout::{Blocked, Classic, Layout, Partitioned};
pub use partitioned::PartitionedBloomFilter;
pub use scalable::{DEFAULT_GROWTH, DEFAULT_TIGHTENING, ScalableBloomFilter, ScalableBuilder};
