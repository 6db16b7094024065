//! The Bloom family of approxset: the classic [`BloomFilter`] and the
//! [`PartitionedBloomFilter`], both a [`Bloom`] over the bit storage they
//! share, differing only in their position [`Layout`].
//!
//! Both implement [`ApproxSet`](approxset_core::ApproxSet); their inherent
//! `insert` returns a plain `bool`, since a Bloom filter never fails to
//! insert.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod bits;
mod bloom;
pub mod builder;
mod classic;
mod layout;
mod partitioned;

pub use approxset_core::{Error, Result};
pub use bloom::Bloom;
pub use classic::BloomFilter;
pub use layout::{Classic, Layout, Partitioned};
pub use partitioned::PartitionedBloomFilter;
