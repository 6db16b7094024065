//! Lookups through a view of a saved filter against the owned filter, in
//! the same run, at n = 10⁷ and p = 1 % for every flat variant: one key at
//! a time (`contains`, members and non-members) and batched
//! (`contains_batch`, non-members). The view reads the saved bytes where
//! they lie (here a `Vec<u8>`, deliberately one byte past an 8-byte
//! boundary), through the owned filter's own lookup code over
//! little-endian words. The row `view-line/batch-miss` places the
//! payload on a cache line, as the owned filter's words are.
//!
//! Each iteration answers the next 1024 keys; criterion reports the time
//! per key. Run with
//! `cargo bench -p approxset-benches --bench view -- --warm-up-time 1
//! --measurement-time 3`, and compare each `view` row with the `owned`
//! row beside it (`docs/design.md`, "Views", has the table).

#[allow(dead_code)] // the keys only
mod common;
mod window;

use approxset::prelude::*;
use approxset::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter, PartitionedBloomFilter,
    SplitBlockBloomFilter,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use window::{batched, row};

const FP: f64 = 0.01;
const N: usize = 10_000_000;

/// `bytes` copied to start one byte past an 8-byte boundary (the view
/// assumes no alignment), with the buffer that holds them.
fn unaligned(bytes: &[u8]) -> (Vec<u8>, usize) {
    placed(bytes, |buf| (buf.as_ptr() as usize).wrapping_neg() % 8 + 1)
}

/// `bytes` copied so that the payload (72 bytes in) starts on a cache
/// line, as the owned filter's words do.
fn line_aligned(bytes: &[u8]) -> (Vec<u8>, usize) {
    placed(bytes, |buf| {
        (buf.as_ptr() as usize + 72).wrapping_neg() % 64
    })
}

/// `bytes` copied into a buffer at the offset `at` gives for it.
fn placed(bytes: &[u8], at: impl Fn(&[u8]) -> usize) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 64];
    let at = at(&buf);
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

/// Registers the rows of one variant: the owned filter and its view, one
/// key at a time (misses, hits) and batched (misses).
macro_rules! variant {
    ($c:expr, $keys:expr, $filter:ty, $name:literal) => {{
        let keys = $keys;
        let mut owned = <$filter>::with_fp_rate(FP)
            .seed(1)
            .expected_items(N)
            .unwrap();
        for k in &keys.members {
            owned.insert(k).unwrap();
        }
        let bytes = owned.to_bytes().unwrap();
        let (buf, at) = unaligned(&bytes);
        let view = <$filter>::view(&buf[at..at + bytes.len()]).unwrap();
        let mut group = window::group($c, concat!("view/", $name, "/n=1e7"));
        for (id, hits) in [("miss", &keys.others), ("hit", &keys.members)] {
            row(&mut group, BenchmarkId::new("owned", id), hits, |k| {
                owned.contains(k)
            });
            row(&mut group, BenchmarkId::new("view", id), hits, |k| {
                view.contains(k)
            });
        }
        batched(
            &mut group,
            BenchmarkId::new("owned", "batch-miss"),
            &keys.others,
            |k, out| owned.contains_batch(k, out),
        );
        batched(
            &mut group,
            BenchmarkId::new("view", "batch-miss"),
            &keys.others,
            |k, out| view.contains_batch(k, out),
        );
        // The payload on a cache line: what placement costs a block layout.
        let (buf, at) = line_aligned(&bytes);
        let line = <$filter>::view(&buf[at..at + bytes.len()]).unwrap();
        batched(
            &mut group,
            BenchmarkId::new("view-line", "batch-miss"),
            &keys.others,
            |k, out| line.contains_batch(k, out),
        );
        group.finish();
    }};
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(N);
    // `VIEW_VARIANTS=classic,cuckoo` runs only those.
    let only = std::env::var("VIEW_VARIANTS").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|v| v == name))
    };
    if wanted("classic") {
        variant!(c, &keys, BloomFilter, "classic");
    }
    if wanted("partitioned") {
        variant!(c, &keys, PartitionedBloomFilter, "partitioned");
    }
    if wanted("blocked") {
        variant!(c, &keys, BlockedBloomFilter, "blocked");
    }
    if wanted("split-block") {
        variant!(c, &keys, SplitBlockBloomFilter, "split-block");
    }
    if wanted("counting") {
        variant!(c, &keys, CountingBloomFilter, "counting");
    }
    if wanted("cuckoo") {
        variant!(c, &keys, CuckooFilter, "cuckoo");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
