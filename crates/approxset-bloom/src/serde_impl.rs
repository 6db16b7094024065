//! serde for the Bloom family (feature `serde`): each filter serializes as
//! its binary format and deserializes through its validating `from_bytes`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use approxset_core::serde_support;

use crate::{Bloom, CountingBloomFilter, Layout, ScalableBloomFilter};

impl<L: Layout> Serialize for Bloom<L> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, L: Layout> Deserialize<'de> for Bloom<L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, Self::from_bytes)
    }
}

/// Serialize/Deserialize through `to_bytes`/`from_bytes` for the
/// non-generic filters.
macro_rules! serde_via_bytes {
    ($($ty:ty),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serde_support::serialize(&self.to_bytes(), serializer)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                serde_support::deserialize(deserializer, Self::from_bytes)
            }
        }
    )*};
}

serde_via_bytes!(CountingBloomFilter, ScalableBloomFilter);
