//! serde for the Bloom family (feature `serde`): each filter serializes as
//! its binary format and deserializes through its validating `from_bytes`.

use crate::cell_traits::Cells;
use crate::{Bloom, Layout, ScalableBloomFilter, SlidingBloomFilter};

approxset_core::serde_as_binary_format!([L: Layout, C: Cells<L>] Bloom<L, C>);
approxset_core::serde_as_binary_format!([] ScalableBloomFilter);
approxset_core::serde_as_binary_format!([] SlidingBloomFilter);
