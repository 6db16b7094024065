//! serde for the Ribbon filter (feature `serde`): it serializes as its
//! binary format and deserializes through its validating `from_bytes`.

use crate::RibbonFilter;

approxset_core::serde_as_binary_format!([] RibbonFilter);
