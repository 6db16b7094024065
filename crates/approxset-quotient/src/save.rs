//! Saving: a filter's or a view's tables and fields in the binary format
//! of `approxset_core::format` (tag 10, `docs/format.md`). Loading, and
//! the checks it makes, are in `persist.rs`.

use approxset_core::HashKey;
use approxset_core::format::{Words, Writer, tag};

use crate::sizing::Plan;
use crate::table::Table;

/// Writes tables and fields in the format.
pub(crate) fn write<S: Words>(
    tables: &[Table<S>],
    plan: &Plan,
    key: HashKey,
    len: usize,
    capacity: usize,
    fp_rate: f64,
) -> Vec<u8> {
    let bytes: usize = tables.iter().map(|t| t.memory_bytes() + 40).sum();
    let mut w = Writer::new(tag::QUOTIENT, key, bytes + 64);
    w.require_version(approxset_core::format::HASH_FUNCTION_VERSION);
    w.u32(plan.r0)
        .u32(plan.gap)
        .u64(plan.home as u64)
        .u64(len as u64)
        .u64(capacity as u64)
        .f64(fp_rate)
        .u64(tables.len() as u64);
    for t in tables {
        w.u64(t.home as u64)
            .u32(t.bits)
            .u32(0)
            .u64(t.blocks as u64)
            .u64(t.used as u64)
            .u64(t.entries as u64);
    }
    for t in tables {
        w.words_from(&t.data).words_from(&t.offsets);
    }
    w.finish()
}
