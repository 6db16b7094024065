//! serde for the cuckoo filter (feature `serde`): it serializes as its
//! binary format and deserializes through its validating `from_bytes`.

use crate::filter::CuckooFilter;

approxset_core::serde_as_binary_format!([] CuckooFilter);
