//! Deletion from many threads: a 50/25/25 contains/insert/remove mix on a
//! filter sized for n = 10⁶ that holds 10⁶ keys, with 1 and 2 threads, for
//! the counting and the cuckoo filter:
//!
//! - `sharded-T`: [`Sharded`] with 8 shards (`shards_for(2)`), T threads;
//!   `sharded64-2`: with 64 shards, 2 threads; `sharded-cpu-T`: the same
//!   runs timed by the longest on-CPU time of a thread (from the scheduler)
//!   in place of the wall time, the throughput a core per thread would
//!   give on an idle machine (see `run_on_cpu`);
//! - `rwlock-2`, `mutex-2`: the plain filter behind one `RwLock` (lookups
//!   under the read lock) or one `Mutex`, 2 threads;
//! - `plain-1`: the plain filter through `&mut`, one thread, no lock (the
//!   floor a lock's cost is measured against);
//! - `private-2`: nothing shared, a plain filter of n/2 per thread behind a
//!   lock only its thread takes: the ceiling two threads reach on the
//!   machine at that moment (near 2× `plain-1` on two idle cores);
//! - `atomic-counters-T` (counting only): the lock-free alternative, 4-bit
//!   counters changed by compare-and-swap, prototyped below, T threads;
//!   `atomic-counters-cpu-T` timed by on-CPU time as `sharded-cpu-T`.
//!
//! Each thread owns its keys: it inserts the next of its own, removes its
//! oldest live one (so the filter holds 10⁶ keys throughout) and looks up
//! one of its live keys and one never inserted, in the order contains,
//! insert, contains, remove. One criterion iteration is those 4 operations
//! on every thread; the throughput is operations per second over all
//! threads, so `sharded-2` / `sharded-1` is the scaling.
//!
//! Run with `cargo bench -p approxset-benches --bench shared -- --warm-up-time 1
//! --measurement-time 3 --sample-size 10`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use approxset::prelude::*;
use approxset::{CountingBloomFilter, CuckooFilter, HashKey, Sharded};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const N: usize = 1_000_000;
const FP: f64 = 0.01;
const SHARDS: usize = 8;

/// A filter the threads share, however it is shared.
trait Target: Sync {
    fn contains(&self, key: u64) -> bool;
    fn insert(&self, key: u64);
    fn remove(&self, key: u64);
}

impl<F: approxset::sharded::ShardFilter> Target for Sharded<F> {
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

impl<F: Deletable + Send + Sync> Target for RwLock<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.read().unwrap().contains(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.write()
            .unwrap()
            .insert(&key)
            .expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(self.write().unwrap().remove(&key).is_removed());
    }
}

impl<F: Deletable + Send> Target for Mutex<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.lock().unwrap().contains(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.lock()
            .unwrap()
            .insert(&key)
            .expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(self.lock().unwrap().remove(&key).is_removed());
    }
}

/// The lock-free alternative, prototyped here only to be measured: a
/// counting Bloom filter of 4-bit counters packed 16 to an `AtomicU64`,
/// each changed by a compare-and-swap loop (saturating at 15, as the
/// counting filter's are). Classic layout, k positions `h1 + i·h2` reduced
/// by multiply-shift, m and k of the counting filter at the same n and p.
struct AtomicCounters {
    words: Vec<AtomicU64>,
    counters: u64,
    hashes: u32,
    key: HashKey,
}

impl AtomicCounters {
    fn new(n: usize, p: f64) -> AtomicCounters {
        let bits_per_key = approxset::sizing::optimal_bits_per_key(p);
        let counters = (n as f64 * bits_per_key).ceil() as u64;
        AtomicCounters {
            words: (0..counters.div_ceil(16))
                .map(|_| AtomicU64::new(0))
                .collect(),
            counters,
            hashes: approxset::sizing::optimal_hashes(bits_per_key).round() as u32,
            key: HashKey::from_seed(1),
        }
    }

    #[inline]
    fn positions(&self, key: u64) -> impl Iterator<Item = (usize, u32)> + '_ {
        let d = self.key.digest(&key);
        (0..u64::from(self.hashes)).map(move |i| {
            let h = d.h1().wrapping_add(i.wrapping_mul(d.h2()));
            let c = ((u128::from(h) * u128::from(self.counters)) >> 64) as u64;
            ((c / 16) as usize, (c % 16) as u32 * 4)
        })
    }

    /// Adds `delta` (±1) to one counter; a saturated counter stays, a zero
    /// one is not decremented.
    #[inline]
    fn step(&self, word: usize, shift: u32, up: bool) {
        let w = &self.words[word];
        let mut cur = w.load(Ordering::Relaxed);
        loop {
            let c = (cur >> shift) & 15;
            if c == 15 || (!up && c == 0) {
                return;
            }
            let new = if up {
                cur + (1 << shift)
            } else {
                cur - (1 << shift)
            };
            match w.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return,
                Err(seen) => cur = seen,
            }
        }
    }
}

impl Target for AtomicCounters {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.positions(key)
            .all(|(w, s)| (self.words[w].load(Ordering::Acquire) >> s) & 15 != 0)
    }
    #[inline]
    fn insert(&self, key: u64) {
        for (w, s) in self.positions(key) {
            self.step(w, s, true);
        }
    }
    #[inline]
    fn remove(&self, key: u64) {
        if self.contains(key) {
            for (w, s) in self.positions(key) {
                self.step(w, s, false);
            }
        }
    }
}

/// Not shared at all: a plain filter per thread, each behind a lock no
/// other thread takes (thread `t`'s keys carry `t` in bits 40 and up). Two
/// threads on it are the ceiling the machine allows at that moment.
struct Private<F>(Vec<Mutex<F>>);

impl<F: Deletable + Send> Target for Private<F> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0[(key >> 40) as usize & 1]
            .lock()
            .unwrap()
            .contains(&key)
    }
    #[inline]
    fn insert(&self, key: u64) {
        self.0[(key >> 40) as usize & 1]
            .lock()
            .unwrap()
            .insert(&key)
            .expect("sized for the live keys");
    }
    #[inline]
    fn remove(&self, key: u64) {
        black_box(
            self.0[(key >> 40) as usize & 1]
                .lock()
                .unwrap()
                .remove(&key)
                .is_removed(),
        );
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
    /// Fills `insert` with `threads` windows that share N keys.
    fn fill(threads: usize, mut insert: impl FnMut(u64)) -> Windows {
        let live = (N / threads) as u64;
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

/// This thread's time on a CPU so far, from the scheduler
/// (`/proc/thread-self/schedstat`, nanoseconds); zero where it is missing.
fn on_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// As [`run`], on spawned threads, but the time returned is the longest
/// time one of them spent on a CPU: what the wall time would be with a
/// core per thread and nothing else running, as long as the threads do
/// not sleep on a lock (time asleep is not counted, so this flatters a
/// contended lock: it is measured for the sharded filter and the lock-free
/// counters only).
fn run_on_cpu(target: &impl Target, windows: &mut Windows, iters: u64) -> Duration {
    let live = windows.live;
    let longest = std::thread::scope(|s| {
        let workers: Vec<_> = windows
            .start
            .iter()
            .enumerate()
            .map(|(t, &start)| {
                s.spawn(move || {
                    let begin = on_cpu();
                    black_box(mix(target, t, start, live, iters));
                    on_cpu() - begin
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap())
            .max()
            .unwrap_or_default()
    });
    for start in &mut windows.start {
        *start += iters;
    }
    longest
}

fn bench_variant<F: Deletable + Send + Sync + Clone + 'static>(
    c: &mut Criterion,
    name: &str,
    build: impl Fn(usize) -> F,
) {
    let mut group = c.benchmark_group(format!("shared-mix/{name}"));
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements(4 * threads as u64));
        if name == "counting" {
            let atomic = AtomicCounters::new(N, FP);
            let mut windows = Windows::fill(threads, |k| atomic.insert(k));
            group.bench_function(BenchmarkId::new("atomic-counters", threads), |b| {
                b.iter_custom(|iters| run(&atomic, &mut windows, iters))
            });
            group.bench_function(BenchmarkId::new("atomic-counters-cpu", threads), |b| {
                b.iter_custom(|iters| run_on_cpu(&atomic, &mut windows, iters))
            });
        }
        let sharded = Sharded::build(N, SHARDS, |cap| Ok(build(cap))).unwrap();
        let mut windows = Windows::fill(threads, |k| {
            sharded.insert_shared(&k).unwrap();
        });
        group.bench_function(BenchmarkId::new("sharded", threads), |b| {
            b.iter_custom(|iters| run(&sharded, &mut windows, iters))
        });
        group.bench_function(BenchmarkId::new("sharded-cpu", threads), |b| {
            b.iter_custom(|iters| run_on_cpu(&sharded, &mut windows, iters))
        });
        drop(sharded);

        if threads == 2 {
            // More shards: fewer meetings on one lock, more sizing slack.
            let many = Sharded::build(N, 8 * SHARDS, |cap| Ok(build(cap))).unwrap();
            let mut windows = Windows::fill(threads, |k| {
                many.insert_shared(&k).unwrap();
            });
            group.bench_function(BenchmarkId::new("sharded64", threads), |b| {
                b.iter_custom(|iters| run(&many, &mut windows, iters))
            });
            drop(many);
            let private = Private(vec![Mutex::new(build(N / 2)), Mutex::new(build(N / 2))]);
            let mut windows = Windows::fill(threads, |k| private.insert(k));
            group.bench_function(BenchmarkId::new("private", threads), |b| {
                b.iter_custom(|iters| run(&private, &mut windows, iters))
            });
            drop(private);
            let rw = RwLock::new(build(N));
            let mut windows = Windows::fill(threads, |k| {
                rw.insert(k);
            });
            group.bench_function(BenchmarkId::new("rwlock", threads), |b| {
                b.iter_custom(|iters| run(&rw, &mut windows, iters))
            });
            drop(rw);
            let mutex = Mutex::new(build(N));
            let mut windows = Windows::fill(threads, |k| {
                Target::insert(&mutex, k);
            });
            group.bench_function(BenchmarkId::new("mutex", threads), |b| {
                b.iter_custom(|iters| run(&mutex, &mut windows, iters))
            });
        } else {
            // The floor: one thread, no lock at all.
            let mut plain = build(N);
            let live = N as u64;
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
}

criterion_group!(benches, shared);
criterion_main!(benches);
