//! Deletion from many threads: a 50/25/25 contains/insert/remove mix on a
//! filter sized for n = 10⁶ that holds 10⁶ keys, for the counting, the
//! cuckoo and the quotient filter, with T = 1, 2, 4, … threads up to
//! `std::thread::available_parallelism()`:
//!
//! - `sharded-T`: [`Sharded`] with `shards_for_items(T, n)` shards (what
//!   `.shared(T)` builds: 8 for 2 threads at 10⁶ keys, 64 at 10⁷), T threads:
//!   lookups take no lock (atomic loads; the cuckoo and quotient filters
//!   check their shard's version when they find nothing), writes lock
//!   their shard;
//! - `locked-T`: the design it replaced, as a comparison row: the same
//!   number of shards, each a plain filter behind a `Mutex` that lookups
//!   take too;
//! - `private-T` (T ≥ 2): nothing shared, a plain filter of n/T per thread
//!   behind a lock only its thread takes: the ceiling T threads reach on
//!   the machine at that moment (near T× `plain-1` on T idle cores);
//! - `plain-1`: the plain filter through `&mut`, one thread, no lock.
//!
//! Each thread owns its keys: it inserts the next of its own, removes its
//! oldest live one (so the filter holds 10⁶ keys throughout) and looks up
//! one of its live keys and one never inserted, in the order contains,
//! insert, contains, remove. One criterion iteration is those 4 operations
//! on every thread; the throughput is operations per second over all
//! threads, so `sharded-T` / `sharded-1` is the scaling.
//!
//! Run with `cargo bench -p approxset-benches --bench shared -- --warm-up-time 1
//! --measurement-time 3 --sample-size 10` (a filter alone: add
//! `shared-mix/quotient`; another number of live keys:
//! `APPROXSET_BENCH_N=10000000`; another number of shards:
//! `APPROXSET_BENCH_SHARDS_PER_THREAD=64`, the power of two at or above
//! 64·T for T threads, at most `MAX_SHARDS`).

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use approxset::hash::mix64;
use approxset::prelude::*;
use approxset::sharded::{MAX_SHARDS, ShardFilter, shard_capacity, shards_for_items};
use approxset::{CountingBloomFilter, CuckooFilter, QuotientFilter, Sharded};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// The live keys: 10⁶, or `APPROXSET_BENCH_N`.
fn live_keys() -> usize {
    std::env::var("APPROXSET_BENCH_N").map_or(1_000_000, |v| v.parse().expect("a number of keys"))
}
const FP: f64 = 0.01;

/// The shards for `threads` threads: what `.shared(threads)` builds,
/// `shards_for_items(threads, live_keys())`, or
/// `APPROXSET_BENCH_SHARDS_PER_THREAD` times `threads` (a power of two at
/// or above it, at most `MAX_SHARDS`).
fn shards(threads: usize) -> usize {
    std::env::var("APPROXSET_BENCH_SHARDS_PER_THREAD").map_or(
        shards_for_items(threads, live_keys()),
        |v| {
            let per: usize = v.parse().expect("a number of shards per thread");
            (per * threads).next_power_of_two().min(MAX_SHARDS)
        },
    )
}

/// A filter the threads share, however it is shared.
trait Target: Sync {
    fn contains(&self, key: u64) -> bool;
    fn insert(&self, key: u64);
    fn remove(&self, key: u64);
}

impl<F: ShardFilter> Target for Sharded<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.contains_shared(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.insert_shared(&key).expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(self.remove_shared(&key).is_removed());
    }
}

/// The design [`Sharded`] replaced: shards of the plain filter, each
/// behind a `Mutex` that lookups take as well as writes.
struct Locked<F> {
    shards: Vec<Padded<Mutex<F>>>,
}

/// A lock on cache lines of its own.
#[repr(align(128))]
struct Padded<T>(T);

impl<F> Locked<F> {
    fn new(shards: usize, build: impl Fn(usize) -> F) -> Self {
        let cap = shard_capacity(live_keys(), shards);
        Locked {
            shards: (0..shards)
                .map(|_| Padded(Mutex::new(build(cap))))
                .collect(),
        }
    }

    #[inline]
    fn shard(&self, key: u64) -> std::sync::MutexGuard<'_, F> {
        let i = (mix64(key ^ 0x5BD1_E995_C2B2_AE35) as usize) & (self.shards.len() - 1);
        self.shards[i].0.lock().unwrap()
    }
}

impl<F: Deletable + Send> Target for Locked<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.shard(key).contains(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.shard(key)
            .insert(&key)
            .expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(self.shard(key).remove(&key).is_removed());
    }
}

/// Not shared at all: a plain filter per thread, each behind a lock no
/// other thread takes (thread `t`'s keys carry `t` in bits 40 to 62). T
/// threads on it are the ceiling the machine allows at that moment.
struct Private<F>(Vec<Padded<Mutex<F>>>);

impl<F> Private<F> {
    #[inline]
    fn own(&self, key: u64) -> std::sync::MutexGuard<'_, F> {
        self.0[((key >> 40) & 0xFFFF) as usize].0.lock().unwrap()
    }
}

impl<F: Deletable + Send> Target for Private<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.own(key).contains(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.own(key).insert(&key).expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(self.own(key).remove(&key).is_removed());
    }
}

/// Thread `t`'s `j`-th key; the never-inserted keys have the top bit set.
#[inline]
fn key(t: usize, j: u64) -> u64 {
    ((t as u64) << 40) | j
}

/// Where each thread's live window starts: its keys `start..start + live`
/// are in the filter. Kept between criterion's calls so keys never repeat.
struct Windows {
    start: Vec<u64>,
    live: u64,
}

impl Windows {
    /// Fills `insert` with `threads` windows that share the live keys.
    fn fill(threads: usize, mut insert: impl FnMut(u64)) -> Windows {
        let live = (live_keys() / threads) as u64;
        for t in 0..threads {
            for j in 0..live {
                insert(key(t, j));
            }
        }
        Windows {
            start: vec![0; threads],
            live,
        }
    }
}

/// `rounds` rounds of the mix on thread `t` from window start `start`.
#[inline]
fn mix(target: &impl Target, t: usize, start: u64, live: u64, rounds: u64) -> u64 {
    let mut found = 0;
    for r in 0..rounds {
        let oldest = start + r;
        found += u64::from(target.contains(key(t, oldest + live / 2)));
        target.insert(key(t, oldest + live));
        found += u64::from(target.contains(key(t, oldest) | (1 << 63)));
        target.remove(key(t, oldest));
    }
    found
}

/// Runs `iters` rounds on each of the windows' threads; the wall time.
fn run(target: &impl Target, windows: &mut Windows, iters: u64) -> Duration {
    let live = windows.live;
    let begin = Instant::now();
    if windows.start.len() == 1 {
        black_box(mix(target, 0, windows.start[0], live, iters));
    } else {
        std::thread::scope(|s| {
            for (t, &start) in windows.start.iter().enumerate() {
                s.spawn(move || black_box(mix(target, t, start, live, iters)));
            }
        });
    }
    let elapsed = begin.elapsed();
    for start in &mut windows.start {
        *start += iters;
    }
    elapsed
}

/// T = 1, 2, 4, … up to the cores present (and that number itself when it
/// is no power of two).
fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t <= cores)
        .collect();
    if counts.last() != Some(&cores) {
        counts.push(cores);
    }
    counts
}

fn bench_variant<F: ShardFilter + Send + Sync>(
    c: &mut Criterion,
    name: &str,
    build: impl Fn(usize) -> F,
) {
    let mut group = c.benchmark_group(format!("shared-mix/{name}"));
    for threads in thread_counts() {
        group.throughput(Throughput::Elements(4 * threads as u64));
        let shards = shards(threads);
        let sharded = Sharded::build(live_keys(), shards, |cap| Ok(build(cap))).unwrap();
        let mut windows = Windows::fill(threads, |k| {
            sharded.insert_shared(&k).unwrap();
        });
        group.bench_function(BenchmarkId::new("sharded", threads), |b| {
            b.iter_custom(|iters| run(&sharded, &mut windows, iters))
        });
        drop(sharded);
        let locked = Locked::new(shards, &build);
        let mut windows = Windows::fill(threads, |k| locked.insert(k));
        group.bench_function(BenchmarkId::new("locked", threads), |b| {
            b.iter_custom(|iters| run(&locked, &mut windows, iters))
        });
        drop(locked);
        if threads >= 2 {
            let private = Private(
                (0..threads)
                    .map(|_| Padded(Mutex::new(build(live_keys() / threads))))
                    .collect(),
            );
            let mut windows = Windows::fill(threads, |k| private.insert(k));
            group.bench_function(BenchmarkId::new("private", threads), |b| {
                b.iter_custom(|iters| run(&private, &mut windows, iters))
            });
            drop(private);
        } else {
            // The floor: one thread, no lock at all.
            let mut plain = build(live_keys());
            let live = live_keys() as u64;
            for j in 0..live {
                plain.insert(&key(0, j)).unwrap();
            }
            let mut start = 0u64;
            group.bench_function(BenchmarkId::new("plain", threads), |b| {
                b.iter_custom(|iters| {
                    let begin = Instant::now();
                    let mut found = 0u64;
                    for r in 0..iters {
                        let oldest = start + r;
                        found += u64::from(plain.contains(&key(0, oldest + live / 2)));
                        plain.insert(&key(0, oldest + live)).unwrap();
                        found += u64::from(plain.contains(&(key(0, oldest) | (1 << 63))));
                        black_box(plain.remove(&key(0, oldest)).is_removed());
                    }
                    black_box(found);
                    start += iters;
                    begin.elapsed()
                })
            });
        }
    }
    group.finish();
}

fn shared(c: &mut Criterion) {
    bench_variant(c, "counting", |n| {
        CountingBloomFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap()
    });
    bench_variant(c, "cuckoo", |n| {
        CuckooFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap()
    });
    bench_variant(c, "quotient", |n| {
        QuotientFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap()
    });
}

criterion_group!(benches, shared);
criterion_main!(benches);
