//! serde for the cuckoo filter (feature `serde`): it serializes as its
//! binary format and deserializes through its validating `from_bytes`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use approxset_core::serde_support;

use crate::CuckooFilter;

impl Serialize for CuckooFilter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de> Deserialize<'de> for CuckooFilter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, Self::from_bytes)
    }
}
