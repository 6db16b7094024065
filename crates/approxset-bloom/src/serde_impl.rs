//! serde for the Bloom family (feature `serde`): each filter serializes as
//! its binary format and deserializes through its validating `from_bytes`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use approxset_core::serde_support;

use crate::cells::Cells;
use crate::{Bloom, Layout, ScalableBloomFilter};

impl<L: Layout, C: Cells<L>> Serialize for Bloom<L, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, L: Layout, C: Cells<L>> Deserialize<'de> for Bloom<L, C> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, Self::from_bytes)
    }
}

impl Serialize for ScalableBloomFilter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de> Deserialize<'de> for ScalableBloomFilter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, Self::from_bytes)
    }
}
