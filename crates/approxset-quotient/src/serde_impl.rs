//! serde for the quotient filter (feature `serde`): it serializes as its
//! binary format and deserializes through its validating `from_bytes`.

use crate::QuotientFilter;

approxset_core::serde_as_binary_format!([] QuotientFilter);
