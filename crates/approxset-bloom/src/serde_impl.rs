//! serde for the Bloom family (feature `serde`): each filter serializes as
//! its binary format and deserializes through its validating `from_bytes`.

use crate::bloom::Bloom;
use crate::cell_traits::Cells;
use crate::layout::Layout;
use crate::scalable::ScalableBloomFilter;
use crate::sliding::SlidingBloomFilter;

approxset_core::serde_as_binary_format!([L: Layout, C: Cells<L>] Bloom<L, C>);
approxset_core::serde_as_binary_format!([] ScalableBloomFilter);
approxset_core::serde_as_binary_format!([] SlidingBloomFilter);
