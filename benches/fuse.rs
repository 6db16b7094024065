//! Binary fuse filters against xorf 0.13's `BinaryFuse8` and
//! `BinaryFuse16`, with approxset's classic Bloom filter for reference, in
//! the same run, at n = 10⁶ and 10⁷ random `u64` keys:
//!
//! - `build n=N`: construction from precomputed keys (ours from digests,
//!   xorf from `u64`s), per key; the classic filter's build + fill from the
//!   same digests at 1 % and 0.39 %;
//! - `lookup n=N`: contains-hit and contains-miss from a precomputed digest
//!   (ours, classic) or `u64` (xorf), one key per iteration; the `-h1` xorf
//!   rows read the same digest array as ours (xorf built from the members'
//!   `h1`, looked up with a digest's `h1`), and the `key-` rows look up the
//!   `u64` key itself: ours hashing it with the default function,
//!   xorf-`h1` with the same digest's `h1`, so both pay the same hash;
//!   the `h1-` rows look ours up from an array of the digests' first
//!   halves (`Digest::new(h1, 0)`: all a fuse lookup reads), 8 bytes a key
//!   as xorf's own rows read;
//! - `batch n=N`: `contains_digests` of 1,024 digests against the simple
//!   loop over `contains_digest`;
//! - on stderr, before the timings: each subject's bits per key, measured
//!   rate, false negatives and peak construction memory (bytes per key
//!   above what was allocated before, from a counting global allocator).
//!
//! Instruction counts (no timing): with `STATIC_ICOUNT=MODE` set the binary
//! counts MODE's lookups instead (`common/static_filters.rs`, `icount`).
//!
//! Run with `cargo bench -p approxset-benches --bench fuse` (add
//! `-- --sample-size 10 --measurement-time 5` at 10⁷; `-- 'n=1000000/'`
//! for one size).

#[allow(dead_code)] // only `keys`, `sizes` and `step` are used here
mod common;
#[path = "common/static_filters.rs"]
mod static_filters;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use approxset::Digest;
use common::step;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use static_filters::{classic, fuse as ours, report};
use xorf::{BinaryFuse8, BinaryFuse16, Filter};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's arguments, so
// the allocator contract is `System`'s; the counters are plain atomics.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `build` and returns its result with the peak bytes allocated
/// during it above those live before (the result itself included).
fn peak<T>(build: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = build();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

fn bench(c: &mut Criterion) {
    if static_filters::icount() {
        return;
    }
    for n in common::sizes() {
        let (keys, key, members, others) = static_filters::digests(n);

        // Setup lines, with each subject's peak construction memory.
        let (f8, p) = peak(|| ours(&members, 0.01, key));
        report(
            n,
            "approxset-fuse-8",
            f8.memory_bytes(),
            Some(p),
            |i, hit| f8.contains_digest(if hit { members[i] } else { others[i] }),
        );
        let (f16, p) = peak(|| ours(&members, 1e-4, key));
        report(
            n,
            "approxset-fuse-16",
            f16.memory_bytes(),
            Some(p),
            |i, hit| f16.contains_digest(if hit { members[i] } else { others[i] }),
        );
        let (x8, p) = peak(|| BinaryFuse8::try_from(&keys.members).unwrap());
        report(
            n,
            "xorf-BinaryFuse8",
            x8.fingerprints.len(),
            Some(p),
            |i, hit| {
                x8.contains(if hit {
                    &keys.members[i]
                } else {
                    &keys.others[i]
                })
            },
        );
        let (x16, p) = peak(|| BinaryFuse16::try_from(&keys.members).unwrap());
        report(
            n,
            "xorf-BinaryFuse16",
            x16.fingerprints.len() * 2,
            Some(p),
            |i, hit| {
                x16.contains(if hit {
                    &keys.members[i]
                } else {
                    &keys.others[i]
                })
            },
        );
        let (cl, p) = peak(|| classic(&members, 0.01, key));
        report(
            n,
            "approxset-classic-1%",
            cl.memory_bytes(),
            Some(p),
            |i, hit| cl.contains_digest(if hit { members[i] } else { others[i] }),
        );

        let mut group = c.benchmark_group(format!("build n={n}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function("approxset-fuse-8", |b| {
            b.iter(|| ours(black_box(&members), 0.01, key))
        });
        group.bench_function("approxset-fuse-16", |b| {
            b.iter(|| ours(black_box(&members), 1e-4, key))
        });
        group.bench_function("xorf-BinaryFuse8", |b| {
            b.iter(|| BinaryFuse8::try_from(black_box(&keys.members)).unwrap())
        });
        group.bench_function("xorf-BinaryFuse16", |b| {
            b.iter(|| BinaryFuse16::try_from(black_box(&keys.members)).unwrap())
        });
        for (name, fp) in [
            ("approxset-classic-1%", 0.01),
            ("approxset-classic-0.39%", 1.0 / 256.0),
        ] {
            group.bench_function(name, |b| b.iter(|| classic(black_box(&members), fp, key)));
        }
        group.finish();

        // xorf over the members' `h1`, for the rows that read digests.
        let h1s: Vec<u64> = members.iter().map(|d| d.h1()).collect();
        let x8h = BinaryFuse8::try_from(&h1s).unwrap();
        let x16h = BinaryFuse16::try_from(&h1s).unwrap();
        drop(h1s);
        // The digests' first halves alone, all a fuse lookup reads: 8 bytes
        // a key, as xorf's `u64` keys are (the `h1-` rows).
        let member_h1s: Vec<u64> = members.iter().map(|d| d.h1()).collect();
        let other_h1s: Vec<u64> = others.iter().map(|d| d.h1()).collect();

        let mut group = c.benchmark_group(format!("lookup n={n}"));
        let mut i = 0usize;
        for (kind, set, raw, halves) in [
            ("contains-hit", &members, &keys.members, &member_h1s),
            ("contains-miss", &others, &keys.others, &other_h1s),
        ] {
            group.bench_function(BenchmarkId::new(kind, "approxset-fuse-8"), |b| {
                b.iter(|| black_box(f8.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "approxset-fuse-16"), |b| {
                b.iter(|| black_box(f16.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "xorf-BinaryFuse8"), |b| {
                b.iter(|| black_box(x8.contains(black_box(&raw[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "xorf-BinaryFuse16"), |b| {
                b.iter(|| black_box(x16.contains(black_box(&raw[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "approxset-classic-1%"), |b| {
                b.iter(|| black_box(cl.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "xorf-BinaryFuse8-h1"), |b| {
                b.iter(|| black_box(x8h.contains(&black_box(set[step(&mut i, n)]).h1())))
            });
            group.bench_function(BenchmarkId::new(kind, "xorf-BinaryFuse16-h1"), |b| {
                b.iter(|| black_box(x16h.contains(&black_box(set[step(&mut i, n)]).h1())))
            });
            let h1_kind = format!("h1-{kind}");
            group.bench_function(BenchmarkId::new(&h1_kind, "approxset-fuse-8"), |b| {
                b.iter(|| {
                    let h1 = black_box(halves[step(&mut i, n)]);
                    black_box(f8.contains_digest(Digest::new(h1, 0)))
                })
            });
            group.bench_function(BenchmarkId::new(&h1_kind, "approxset-fuse-16"), |b| {
                b.iter(|| {
                    let h1 = black_box(halves[step(&mut i, n)]);
                    black_box(f16.contains_digest(Digest::new(h1, 0)))
                })
            });
            let key_kind = format!("key-{kind}");
            group.bench_function(BenchmarkId::new(&key_kind, "approxset-fuse-8"), |b| {
                b.iter(|| black_box(f8.contains(black_box(&raw[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(&key_kind, "approxset-fuse-16"), |b| {
                b.iter(|| black_box(f16.contains(black_box(&raw[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(&key_kind, "xorf-BinaryFuse8-h1"), |b| {
                b.iter(|| {
                    let h1 = key.digest(black_box(&raw[step(&mut i, n)])).h1();
                    black_box(x8h.contains(&h1))
                })
            });
            group.bench_function(BenchmarkId::new(&key_kind, "xorf-BinaryFuse16-h1"), |b| {
                b.iter(|| {
                    let h1 = key.digest(black_box(&raw[step(&mut i, n)])).h1();
                    black_box(x16h.contains(&h1))
                })
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("batch n={n}"));
        const BATCH: usize = 1024;
        group.throughput(Throughput::Elements(BATCH as u64));
        let mut out = Vec::with_capacity(BATCH);
        let mut at = 0usize;
        group.bench_function("approxset-fuse-8/contains_digests", |b| {
            b.iter(|| {
                at = (at + BATCH) % (n - BATCH);
                f8.contains_digests(black_box(&others[at..at + BATCH]), &mut out);
                black_box(out.len())
            })
        });
        group.bench_function("approxset-fuse-8/loop", |b| {
            b.iter(|| {
                at = (at + BATCH) % (n - BATCH);
                out.clear();
                out.extend(
                    others[at..at + BATCH]
                        .iter()
                        .map(|&d| f8.contains_digest(d)),
                );
                black_box(out.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
