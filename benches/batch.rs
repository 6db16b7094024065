//! Batched lookups against the one-at-a-time loop, in the same run, at
//! n = 10⁷ and p = 1 % (filters of 12 MB, past the L2 cache): contains-miss
//! for the classic and blocked filters, one key at a time (`contains`) and
//! batched (`contains_batch`), with fastbloom 0.17 one key at a time as the
//! peer, and the same two paths from precomputed digests (`contains_digest`
//! against `contains_digests`), which leaves hashing out.
//!
//! Also insert (of members again, into the full filter), one key at a time
//! against `insert_batch`.
//!
//! The group `single/n=…` (n = 10⁶ and 10⁷) takes single lookups apart:
//! the hash alone, the lookup from precomputed hashes, and both, for the
//! classic and blocked filters and fastbloom, beside the floor of a
//! one-line lookup (a hash, then one dependent random read; see
//! [`single`]). Run it alone with
//! `cargo bench -p approxset-benches --bench batch -- --warm-up-time 1
//! --measurement-time 5 single/`.
//!
//! The group `split/n=…` (see [`split`]) measures the split-block filter
//! and the fast hashes one key at a time, over `u64` and 16-byte string
//! keys, against fastbloom with its default hasher and with XXH3. Run it
//! alone with `cargo bench -p approxset-benches --bench batch --
//! --warm-up-time 1 --measurement-time 3 split/`.
//!
//! Each iteration answers the next 1024 non-members into one `Vec<bool>`
//! (or inserts the next 1024 members); criterion reports the time per key. Run with
//! `cargo bench -p approxset-benches --bench batch -- --warm-up-time 1
//! --measurement-time 5`.

#[allow(dead_code)] // the `Subject` lookups are for the other benches
mod common;
mod window;

use std::hash::Hash;
use std::hint::black_box;

use approxset::hash::reduce;
use approxset::prelude::*;
use approxset::{
    ApproxSet, BlockedBloomFilter, BloomFilter, Digest, HashFunction, Key, SplitBlockBloomFilter,
};
use common::Keys;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use window::row;

const FP: f64 = 0.01;
const N: usize = 10_000_000;
/// Keys answered per iteration.
const BATCH: usize = window::WINDOW;

/// String keys looked up in the `split/` group: this many members and as
/// many non-members (the filter holds all n members).
const STR_KEYS: usize = 1 << 20;

/// The floor's array: one 8-byte word per 8 bytes of a filter, read at an
/// index taken from a hash.
struct Floor(Vec<u64>);

impl Floor {
    fn new(bytes: usize) -> Self {
        Self((0..bytes as u64 / 8).collect())
    }

    /// The word at index `reduce(h, len)`: one random read.
    #[inline(always)]
    fn at(&self, h: u64) -> u64 {
        self.0[reduce(h, self.0.len() as u64) as usize]
    }
}

/// One-at-a-time and batched contains-miss (from keys and from digests) of
/// one of our filters.
fn ours<S: ApproxSet>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    filter: &mut S,
    keys: &Keys,
) {
    let mut out = Vec::with_capacity(BATCH);
    let mut at = 0;
    let others = &keys.others;
    group.bench_function(BenchmarkId::new("contains-miss/one-at-a-time", name), |b| {
        b.iter(|| {
            out.clear();
            out.extend(
                window::next(others, &mut at)
                    .iter()
                    .map(|k| filter.contains(k)),
            );
            black_box(&out);
        })
    });
    window::batched(
        group,
        BenchmarkId::new("contains-miss/batched", name),
        others,
        |keys, out| filter.contains_batch(keys, out),
    );
    let members = &keys.members;
    group.bench_function(BenchmarkId::new("insert/one-at-a-time", name), |b| {
        b.iter(|| {
            for k in window::next(members, &mut at) {
                filter.insert(k).unwrap();
            }
        })
    });
    group.bench_function(BenchmarkId::new("insert/batched", name), |b| {
        b.iter(|| filter.insert_batch(window::next(members, &mut at)).unwrap())
    });
    let filter = &*filter;
    let digests: Vec<Digest> = others.iter().map(|k| filter.digest(k)).collect();
    group.bench_function(BenchmarkId::new("digest-miss/one-at-a-time", name), |b| {
        b.iter(|| {
            out.clear();
            out.extend(
                window::next(&digests, &mut at)
                    .iter()
                    .map(|&d| filter.contains_digest(d)),
            );
            black_box(&out);
        })
    });
    window::batched(
        group,
        BenchmarkId::new("digest-miss/batched", name),
        &digests,
        |digests, out| filter.contains_digests(digests, out),
    );
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(N);
    let mut group = window::group(c, &format!("batch/n={N}"));

    let mut classic: approxset::BloomFilter = common::bloom(N, FP);
    classic.extend(&keys.members);
    ours(&mut group, "approxset-classic", &mut classic, &keys);
    drop(classic);

    let mut blocked: approxset::BlockedBloomFilter = common::bloom(N, FP);
    blocked.extend(&keys.members);
    ours(&mut group, "approxset-blocked", &mut blocked, &keys);
    drop(blocked);

    let mut peer = common::fastbloom(N, FP);
    peer.extend(&keys.members);
    let (mut out, mut at) = (Vec::with_capacity(BATCH), 0);
    group.bench_function(
        BenchmarkId::new("contains-miss/one-at-a-time", "fastbloom"),
        |b| {
            b.iter(|| {
                out.clear();
                out.extend(
                    window::next(&keys.others, &mut at)
                        .iter()
                        .map(|k| peer.contains(k)),
                );
                black_box(&out);
            })
        },
    );
    group.finish();
}

/// Single lookups, one key at a time, at n = 10⁶ and 10⁷: where the time
/// goes. `hash/*` hashes only: our 128-bit SipHash-1-3 digest through the
/// library (`approxset-128`) against fastbloom's 64-bit SipHash-1-3 source
/// hash. `<filter>-miss` and `<filter>-hit` look up non-members and
/// members: `contains` from keys (`dyn` through `&dyn ApproxSet`),
/// `digest` (or `hash` for fastbloom) from precomputed hashes, so memory
/// alone. `read/array` is one random 8-byte read per key over an array of
/// the blocked filter's size, and
/// `hash-then-read/…` the same read at an index taken from the key's hash
/// (ours or fastbloom's): the floor of any filter that hashes a key and
/// reads one line for it. (A digest written out for one `u64` was a row
/// here until the library's one-pass digest matched its time; see the
/// commit that removed it.) The probe-order A/B of the classic filter
/// (first probe alone, first two, then one or three at a time), its code
/// and its figures are in the message of the commit that added this group
/// (`git log benches/batch.rs`).
fn single(c: &mut Criterion) {
    for n in [1_000_000, N] {
        let keys = common::keys(n);
        let mut group = window::group(c, &format!("single/n={n}"));
        let (members, others) = (&keys.members[..], &keys.others[..]);

        let mut classic: approxset::BloomFilter = common::bloom(n, FP);
        classic.extend(members);
        let hk = classic.hash_key();
        row(
            &mut group,
            BenchmarkId::new("hash", "approxset-128"),
            others,
            |k| hk.digest(k),
        );
        let indices: Vec<u64> = (0..n as u64).collect();
        for (name, keys) in [("miss", others), ("hit", members)] {
            let digests: Vec<Digest> = keys.iter().map(|k| hk.digest(k)).collect();
            let f = &classic;
            let id = |what| BenchmarkId::new(format!("classic-{name}"), what);
            row(&mut group, id("digest"), &indices, |&i| {
                f.contains_digest(digests[i as usize])
            });
            row(&mut group, id("contains"), keys, |k| f.contains(k));
            // The same lookup through a trait object, as an app that picks
            // the variant at run time makes it.
            let d: &dyn ApproxSet = f;
            row(&mut group, id("dyn"), keys, |k| d.contains(k));
        }
        drop(classic);

        let mut blocked: approxset::BlockedBloomFilter = common::bloom(n, FP);
        blocked.extend(members);
        let digests: Vec<Digest> = others.iter().map(|k| blocked.digest(k)).collect();
        for (name, keys) in [("miss", others), ("hit", members)] {
            let f = &blocked;
            row(
                &mut group,
                BenchmarkId::new(format!("blocked-{name}"), "contains"),
                keys,
                |k| f.contains(k),
            );
        }
        row(
            &mut group,
            BenchmarkId::new("blocked-miss", "digest"),
            &indices,
            |&i| blocked.contains_digest(digests[i as usize]),
        );
        // The floor of any filter that reads one line per key: one random
        // 8-byte read over as many bytes as the blocked filter holds, alone
        // (`read/array`: the key is the index) and after hashing the key
        // (`hash-then-read/…`: the read's address depends on the hash).
        let floor = Floor::new(blocked.memory_bytes());
        let at = |h: u64| floor.at(h);
        row(
            &mut group,
            BenchmarkId::new("read", "array"),
            others,
            |&k| at(k),
        );
        let hk = blocked.hash_key();
        row(
            &mut group,
            BenchmarkId::new("hash-then-read", "approxset-128"),
            others,
            |k| at(hk.digest(k).h1()),
        );
        drop(blocked);

        let mut peer = common::fastbloom(n, FP);
        peer.extend(members);
        row(
            &mut group,
            BenchmarkId::new("hash", "fastbloom-64"),
            others,
            |k| peer.source_hash(k),
        );
        row(
            &mut group,
            BenchmarkId::new("hash-then-read", "fastbloom-64"),
            others,
            |k| at(peer.source_hash(k)),
        );
        let hashes: Vec<u64> = others.iter().map(|k| peer.source_hash(k)).collect();
        row(
            &mut group,
            BenchmarkId::new("fastbloom-miss", "hash"),
            &indices,
            |&i| peer.contains_hash(hashes[i as usize]),
        );
        for (name, keys) in [("miss", others), ("hit", members)] {
            row(
                &mut group,
                BenchmarkId::new(format!("fastbloom-{name}"), "contains"),
                keys,
                |k| peer.contains(k),
            );
        }
        group.finish();
    }
}

/// An experiment for issue 11, not a library path: what a 64-bit source
/// hash would give. The classic and blocked filters are filled through
/// `insert_digest` with digests made of fastbloom's 64-bit SipHash-1-3
/// source hash `h` (the same hasher and cost as fastbloom's) as
/// `Digest::new(h, splitmix64(h))`, then looked up one key at a time the
/// same way (`<filter>-<miss|hit>/sip64`), beside the library's 128-bit
/// digest (`contains`) and fastbloom, in the same group. Each setup prints
/// the measured false-positive rate over the non-members on stderr. Run
/// with `cargo bench -p approxset-benches --bench batch -- digest64/`.
fn digest64(c: &mut Criterion) {
    for n in [1_000_000, N] {
        let keys = common::keys(n);
        let mut group = window::group(c, &format!("digest64/n={n}"));
        let (members, others) = (&keys.members[..], &keys.others[..]);
        let mut peer = common::fastbloom(n, FP);
        peer.extend(members);
        let peer = &peer;
        let d64 = |k: &u64| {
            let h = peer.source_hash(k);
            let mut state = h;
            Digest::new(h, approxset::hash::splitmix64(&mut state))
        };
        let mut classic: approxset::BloomFilter = common::bloom(n, FP);
        let mut classic64 = classic.clone();
        classic.extend(members);
        members.iter().for_each(|k| {
            classic64.insert_digest(d64(k)).unwrap();
        });
        let mut blocked: approxset::BlockedBloomFilter = common::bloom(n, FP);
        let mut blocked64 = blocked.clone();
        blocked.extend(members);
        members.iter().for_each(|k| {
            blocked64.insert_digest(d64(k)).unwrap();
        });
        let rate = |f: &dyn Fn(&u64) -> bool| {
            others.iter().filter(|k| f(k)).count() as f64 / others.len() as f64
        };
        eprintln!(
            "digest64/n={n}: measured fp over {} non-members: classic {:.5}, classic sip64 {:.5}, blocked {:.5}, blocked sip64 {:.5}",
            others.len(),
            rate(&|k| classic.contains(k)),
            rate(&|k| classic64.contains_digest(d64(k))),
            rate(&|k| blocked.contains(k)),
            rate(&|k| blocked64.contains_digest(d64(k))),
        );
        for (name, keys) in [("miss", others), ("hit", members)] {
            let id = |filter: &str, what: &str| BenchmarkId::new(format!("{filter}-{name}"), what);
            row(&mut group, id("classic", "contains"), keys, |k| {
                classic.contains(k)
            });
            row(&mut group, id("classic", "sip64"), keys, |k| {
                classic64.contains_digest(d64(k))
            });
            row(&mut group, id("blocked", "contains"), keys, |k| {
                blocked.contains(k)
            });
            row(&mut group, id("blocked", "sip64"), keys, |k| {
                blocked64.contains_digest(d64(k))
            });
            row(&mut group, id("fastbloom", "contains"), keys, |k| {
                peer.contains(k)
            });
        }
        group.finish();
    }
}

/// The split-block filter and the fast hashes, one key at a time, at
/// n = 10⁶ and 10⁷, p = 1 %, random `u64` keys (`u64/…`) and 16-byte
/// string keys (`str16/…`, 16 hex digits; 2²⁰ members and non-members
/// looked up): the split-block filter with SipHash-1-3 (`split-sip`) and
/// with XXH3 (`split-xxh3`), the classic and blocked filters with XXH3,
/// fastbloom 0.17 with its default SipHash-1-3 (`fastbloom`) and with
/// XXH3 (`fastbloom-xxh3`, `xxhash-rust`'s `Xxh3Builder`), hits and misses,
/// beside the floor of a one-line lookup with the split-block filter's own
/// hash (`hash-then-read-sip`, `hash-then-read-xxh3`: the read of
/// [`single`] at the index taken from the digest's `h1`). Key-free rows
/// (`digest/…`, the `u64` group): the split-block lookup from precomputed
/// digests against `read-array`, one random read per key over an array of
/// its size, one at a time (`split-sip-hit`, `-miss`) and with
/// `contains_digests` (`split-sip-hit-batched`, `-miss-batched`). At 10⁷, `<filter>-miss-batched` answers each window with
/// `contains_batch`. Each setup prints every filter's bits per key and
/// measured false-positive rate on stderr. Run with
/// `cargo bench -p approxset-benches --bench batch -- --warm-up-time 1
/// --measurement-time 3 split/`.
fn split(c: &mut Criterion) {
    for n in [1_000_000, N] {
        let keys = common::keys(n);
        let mut group = window::group(c, &format!("split/n={n}"));
        let (members, others) = (&keys.members[..], &keys.others[..]);

        let mut sip: SplitBlockBloomFilter = common::bloom(n, FP);
        sip.extend(members);
        let floor = Floor::new(sip.memory_bytes());
        row(
            &mut group,
            BenchmarkId::new("u64", "read-array"),
            others,
            |&k| floor.at(k),
        );
        for (name, keys) in [("hit", members), ("miss", others)] {
            let digests: Vec<Digest> = keys.iter().map(|k| sip.digest(k)).collect();
            let id = BenchmarkId::new("digest", format!("split-sip-{name}"));
            row(&mut group, id, &digests, |&d| sip.contains_digest(d));
            let id = BenchmarkId::new("digest", format!("split-sip-{name}-batched"));
            window::batched(&mut group, id, &digests, |d, out| {
                sip.contains_digests(d, out)
            });
        }
        drop((sip, floor));

        split_rows(
            &mut group,
            "u64",
            n,
            members.iter().copied(),
            (members, others),
        );
        let strs = |keys: &[u64]| -> Vec<String> {
            keys[..STR_KEYS.min(n)]
                .iter()
                .map(|&k| common::str16(k))
                .collect()
        };
        split_rows(
            &mut group,
            "str16",
            n,
            members.iter().map(|&k| common::str16(k)),
            (&strs(members), &strs(others)),
        );
        group.finish();
    }
}

/// The rows of [`split`] for one kind of key: fills every filter with
/// `fill` (all n members), prints the setup lines, then looks up `members`
/// and `others` one key at a time (and batched at 10⁷).
fn split_rows<K: Key + Hash>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    kind: &str,
    n: usize,
    fill: impl Iterator<Item = K>,
    (members, others): (&[K], &[K]),
) {
    let mut sip: SplitBlockBloomFilter = common::bloom(n, FP);
    let mut xxh3: SplitBlockBloomFilter = common::bloom_hashed(n, FP, HashFunction::Xxh3);
    let mut classic: BloomFilter = common::bloom_hashed(n, FP, HashFunction::Xxh3);
    let mut blocked: BlockedBloomFilter = common::bloom_hashed(n, FP, HashFunction::Xxh3);
    let mut peer = common::fastbloom(n, FP);
    let mut peer_xxh3 = common::fastbloom_xxh3(n, FP);
    let mut failed = [0usize; 4];
    for k in fill {
        failed[0] += usize::from(sip.insert(&k).is_err());
        failed[1] += usize::from(xxh3.insert(&k).is_err());
        failed[2] += usize::from(classic.insert(&k).is_err());
        failed[3] += usize::from(blocked.insert(&k).is_err());
        peer.insert(&k);
        peer_xxh3.insert(&k);
    }
    let line = |name: &str, bits: u64, failed: usize, has: &dyn Fn(&K) -> bool| {
        let name = format!("{kind} {name}");
        common::setup_line(n, &name, Some(bits), failed, (members, others), has);
    };
    line("split-sip", sip.bits(), failed[0], &|k| sip.contains(k));
    line("split-xxh3", xxh3.bits(), failed[1], &|k| xxh3.contains(k));
    line("classic-xxh3", classic.bits(), failed[2], &|k| {
        classic.contains(k)
    });
    line("blocked-xxh3", blocked.bits(), failed[3], &|k| {
        blocked.contains(k)
    });
    line("fastbloom", peer.num_bits() as u64, 0, &|k| {
        peer.contains(k)
    });
    let bits = peer_xxh3.num_bits() as u64;
    line("fastbloom-xxh3", bits, 0, &|k| peer_xxh3.contains(k));

    let floor = Floor::new(sip.memory_bytes());
    let (key_sip, key_xxh3) = (sip.hash_key(), xxh3.hash_key());
    row(
        group,
        BenchmarkId::new(kind, "hash-then-read-sip"),
        others,
        |k| floor.at(key_sip.digest(k).h1()),
    );
    row(
        group,
        BenchmarkId::new(kind, "hash-then-read-xxh3"),
        others,
        |k| floor.at(key_xxh3.digest(k).h1()),
    );
    for (name, keys) in [("hit", members), ("miss", others)] {
        let id = |filter: &str| BenchmarkId::new(kind, format!("{filter}-{name}"));
        row(group, id("split-sip"), keys, |k| sip.contains(k));
        row(group, id("split-xxh3"), keys, |k| xxh3.contains(k));
        row(group, id("classic-xxh3"), keys, |k| classic.contains(k));
        row(group, id("blocked-xxh3"), keys, |k| blocked.contains(k));
        row(group, id("fastbloom"), keys, |k| peer.contains(k));
        row(group, id("fastbloom-xxh3"), keys, |k| peer_xxh3.contains(k));
    }
    if n == N {
        for (name, f) in [("split-sip", &sip), ("split-xxh3", &xxh3)] {
            let id = BenchmarkId::new(kind, format!("{name}-miss-batched"));
            window::batched(group, id, others, |keys, out| f.contains_batch(keys, out));
        }
    }
}

criterion_group!(benches, bench, single, digest64, split);
criterion_main!(benches);
