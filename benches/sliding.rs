//! The sliding-window filter (an age-partitioned Bloom filter) against the
//! simple alternative, a ring of whole Bloom filters remembering the same
//! window at the same worst-moment rate, and a classic filter of the window's
//! keys as the floor (it never forgets, so it is no sliding filter: the
//! cost of a lookup without a window). Window W = 10⁶ at 1 %, in the steady
//! state (2·W keys inserted before the W members, so every generation is
//! full); contains-hit on the window's keys, contains-miss on fresh keys,
//! and insert (which moves the window on).
//!
//! Run with `cargo bench -p approxset-benches --bench sliding`. Setup
//! prints, on stderr, each filter's bits per key of the window and its
//! measured false-positive rate.

mod common;

use approxset::{BloomFilter, Digest, SlidingBloomFilter};
use common::Subject;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FP: f64 = 0.01;
const WINDOW: usize = 1_000_000;

/// `r + 1` classic filters of ⌈W/r⌉ keys at `p/(r + 1)` each, one key
/// hashed once: the newest takes inserts, the oldest is cleared and becomes
/// the newest every ⌈W/r⌉ inserts, a key is present when any filter holds
/// it. `r` is the one that takes the fewest bits (7 at 1 %, tests/sliding.rs).
struct Ring {
    filters: Vec<BloomFilter>,
    newest: usize,
    in_generation: usize,
    per: usize,
}

impl Ring {
    fn new(window: usize, fp: f64, r: usize) -> Self {
        let per = window.div_ceil(r);
        let filters = (0..=r)
            .map(|_| {
                BloomFilter::with_fp_rate(fp / (r + 1) as f64)
                    .seed(1)
                    .expected_items(per)
                    .unwrap()
            })
            .collect();
        Ring {
            filters,
            newest: 0,
            in_generation: 0,
            per,
        }
    }

    fn digest(&self, key: &u64) -> Digest {
        self.filters[0].hash_key().digest(key)
    }
}

impl Subject for Ring {
    fn bits(&self) -> Option<u64> {
        Some(self.filters.iter().map(|f| f.bits()).sum())
    }

    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        if self.in_generation == self.per {
            self.newest = (self.newest + 1) % self.filters.len();
            self.filters[self.newest].clear();
            self.in_generation = 0;
        }
        let d = self.digest(key);
        self.in_generation += 1;
        self.filters[self.newest].insert_digest(d).is_ok()
    }

    #[inline]
    fn has(&self, key: &u64) -> bool {
        let d = self.digest(key);
        // Newest first: a recent key is found early.
        let n = self.filters.len();
        (0..n).any(|i| self.filters[(self.newest + n - i) % n].contains_digest(d))
    }
}

/// `filter` after 2·W keys that are neither members nor queried.
fn steady<S: Subject>(mut filter: S) -> S {
    for i in 0..2 * WINDOW as u64 {
        filter.put(&(i | 1 << 62));
    }
    filter
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(WINDOW);
    let mut group = c.benchmark_group(format!("sliding/W={WINDOW}"));
    group.throughput(Throughput::Elements(1));
    let sliding = SlidingBloomFilter::with_fp_rate(FP)
        .seed(1)
        .window(WINDOW)
        .unwrap();
    common::lookups(
        &mut group,
        "approxset-sliding",
        steady(sliding),
        &keys,
        true,
    );
    common::lookups(
        &mut group,
        "ring-of-8-bloom",
        steady(Ring::new(WINDOW, FP, 7)),
        &keys,
        true,
    );
    let floor: BloomFilter = common::bloom(WINDOW, FP);
    common::lookups(&mut group, "classic-no-window", floor, &keys, true);
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
