//! serde for the binary fuse filter (feature `serde`): it serializes as
//! its binary format and deserializes through its validating `from_bytes`.

use crate::BinaryFuseFilter;

approxset_core::serde_as_binary_format!([] BinaryFuseFilter);
