//! The sharded filter: threads inserting, removing and looking up at once
//! (no false negative for a key whose insert returned and whose remove has
//! not begun), its false-positive rate at its target, its sizing at every
//! n, and its errors. The shared suite (`tests/suite.rs`) also runs it
//! through `dyn Deletable`.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use approxset::hash::splitmix64;
use approxset::prelude::*;
use approxset::sharded::{MAX_SHARDS, SHARD_SLACK, shard_capacity, shards_for, shards_for_items};
use approxset::{
    CountingBloomFilter, CuckooFilter, Error, QuotientFilter, Sharded, ShardedCountingFilter,
    ShardedCuckooFilter, ShardedQuotientFilter, Variant,
};
use common::{Z_ONE_SIDED_1E6, binomial_upper};

type Shared = Box<dyn ConcurrentDeletable + Send + Sync>;

/// Both deletable variants, shared by `threads` threads, seeded.
fn shared(variant: Variant, threads: usize, n: usize, p: f64, seed: u64) -> Shared {
    variant
        .builder()
        .seed(seed)
        .shared(threads)
        .build_shared(n, p)
        .unwrap_or_else(|e| panic!("{variant}: {e}"))
}

const DELETABLE: [Variant; 3] = [Variant::Counting, Variant::Cuckoo, Variant::Quotient];

#[test]
fn shards_follow_the_threads() {
    assert_eq!(shards_for(0), 4);
    assert_eq!(shards_for(1), 4);
    assert_eq!(shards_for(2), 8);
    assert_eq!(shards_for(5), 32);
    assert_eq!(shards_for(usize::MAX), MAX_SHARDS);
    for variant in DELETABLE {
        let f = shared(variant, 2, 1_000, 0.01, 1);
        let params = f.parameters();
        assert_eq!(params[0], ("shards", approxset::Value::Count(8)));
        assert_eq!(f.variant(), variant.name());
        assert_eq!(Variant::of(&*f), Some(variant));
        assert_eq!((f.capacity(), f.fp_rate()), (1_000, 0.01));
    }
}

/// More shards than `shards_for` only where they cost at most 2 % memory,
/// and as many as that allows; never fewer, never past `MAX_SHARDS`.
#[test]
fn shards_for_items_spend_at_most_the_slack() {
    let slack = |n: usize, s: usize| (shard_capacity(n, s) * s) as f64 / n as f64 - 1.0;
    for threads in [0, 1, 2, 3, 16, 300, usize::MAX] {
        for n in [
            0,
            1,
            10,
            1_000,
            1_000_000,
            2_000_000,
            10_000_000,
            1_000_000_000,
            usize::MAX / 2048,
        ] {
            let (base, s) = (shards_for(threads), shards_for_items(threads, n));
            assert!(
                s.is_power_of_two() && s >= base && s <= MAX_SHARDS,
                "{threads} {n}: {s}"
            );
            if s > base {
                assert!(slack(n, s) <= SHARD_SLACK, "{threads} {n}: {s}");
            }
            if s < MAX_SHARDS && n > 0 {
                assert!(slack(n, 2 * s) > SHARD_SLACK, "{threads} {n}: {s}");
            }
        }
    }
    assert_eq!(shards_for_items(2, 0), 8);
    assert_eq!(shards_for_items(2, 1_000_000), 8);
    assert_eq!(shards_for_items(2, 2_000_000), 16);
    assert_eq!(shards_for_items(2, 10_000_000), 64);
    assert_eq!(shards_for_items(1, 10_000_000), 64);
    assert_eq!(shards_for_items(16, 1_000_000), 64);
    assert_eq!(shards_for_items(2, 1_000_000_000), MAX_SHARDS);
    // The builder takes them: 16 shards for 2 threads at 2·10⁶ items.
    let f = shared(Variant::Cuckoo, 2, 2_000_000, 0.01, 1);
    assert_eq!(f.parameters()[0], ("shards", approxset::Value::Count(16)));
}

/// Each shard is sized for its share with slack: at tiny n every key may
/// land in one shard, so each holds all n; at large n the slack is small.
#[test]
fn shard_capacity_holds_every_share() {
    assert_eq!(shard_capacity(1, 8), 1);
    assert_eq!(shard_capacity(10, 8), 10);
    assert_eq!(shard_capacity(10, 1), 10);
    assert_eq!(shard_capacity(usize::MAX, 1), usize::MAX);
    assert!(shard_capacity(usize::MAX, 1024) < usize::MAX);
    let big = shard_capacity(1_000_000, 8);
    assert!((125_000..127_500).contains(&big), "{big}");
    // The slack against what actually lands: 100 seeds of 10⁴ keys over 8
    // shards never pass it (it is met with probability 1e-9).
    let n = 10_000;
    let cap = shard_capacity(n, 8);
    assert!(cap < n / 8 * 2, "{cap}");
    for seed in 0..100 {
        let f = ShardedCountingFilter::build(n, 8, |c| {
            CountingBloomFilter::with_fp_rate(0.01)
                .seed(seed)
                .expected_items(c)
        })
        .unwrap();
        assert_eq!(f.shard_capacity(), cap);
        let mut f = f;
        for i in 0..n as u64 {
            f.insert(&i).unwrap();
        }
        let lens: Vec<usize> = f.into_shards().iter().map(|s| s.len()).collect();
        assert_eq!(lens.iter().sum::<usize>(), n);
        assert!(
            lens.iter().all(|&l| l <= cap),
            "seed {seed}: {lens:?} > {cap}"
        );
    }
}

/// The shard is chosen from a mix of the whole digest, so the keys of one
/// shard are no special set for the filter inside: the sharded filter keeps
/// its rate at n, tiny n included, and finds every key.
#[test]
fn sharded_filters_keep_their_false_positive_rate() {
    for variant in DELETABLE {
        for (n, p, threads) in [
            (100_000usize, 0.01, 2usize),
            (100_000, 0.001, 8),
            (1, 0.01, 2),
            (10, 0.01, 2),
        ] {
            let f = shared(variant, threads, n, p, 7);
            for i in 0..n as u64 {
                f.insert_shared(&i).unwrap();
            }
            assert!((0..n as u64).all(|i| f.contains(&i)), "{variant} n = {n}");
            let queries = 200_000u64;
            let fps = (0..queries).filter(|i| f.contains(&(i | 1 << 40))).count();
            let bound = binomial_upper(queries, p, Z_ONE_SIDED_1E6);
            assert!(
                (fps as f64) <= bound,
                "{variant} n = {n} p = {p}: {fps} false positives > {bound}"
            );
            assert!(f.estimated_fp_rate() <= p * 1.2, "{variant} n = {n}");
            assert_eq!(f.len(), n);
        }
    }
}

/// Every thread owns a range of keys: it inserts, removes and looks up its
/// own while the others churn theirs, and after each step its live keys
/// are all present and its removed ones absent from the multiset.
#[test]
fn threads_churning_their_own_keys_never_lose_one() {
    const THREADS: u64 = 4;
    const OPS: u64 = 20_000;
    for variant in DELETABLE {
        let f = shared(variant, THREADS as usize, 20_000, 0.01, 3);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let f = &f;
                s.spawn(move || {
                    let mut rng = t + 100;
                    let mut live: Vec<u64> = Vec::new();
                    let mut next = 0u64;
                    for op in 0..OPS {
                        let r = splitmix64(&mut rng);
                        if live.len() < 8 || (r % 3 != 0 && live.len() < 4_000) {
                            let k = (t << 48) | next;
                            next += 1;
                            f.insert_shared(&k).unwrap();
                            live.push(k);
                        } else {
                            let k = live.swap_remove((r >> 8) as usize % live.len());
                            assert!(f.remove_shared(&k).is_removed(), "{variant} t{t}: {k}");
                        }
                        // A sample of the live keys, all of them now and then.
                        let step = if op % 1_000 == 0 { 1 } else { 97 };
                        for &k in live.iter().step_by(step) {
                            assert!(f.contains_shared(&k), "{variant} t{t} op {op}: lost {k}");
                        }
                    }
                    live.len()
                });
            }
        });
        assert!(f.len() <= (THREADS * OPS) as usize);
    }
}

/// Keys published by a writer after their insert returned are found by the
/// readers until the writer announces their remove: a key that a reader
/// misses must have its remove announced by the time the reader looks. The
/// writer waits (spinning, no sleep) for the readers to keep up, so that
/// their lookups overlap its inserts and removes.
#[test]
fn keys_published_across_threads_are_found_until_removed() {
    const KEYS: u64 = 30_000;
    const WINDOW: u64 = 2_000;
    const READS: u64 = 20_000;
    for variant in DELETABLE {
        let f = shared(variant, 3, WINDOW as usize * 2, 0.01, 11);
        // Keys lo..hi are in the filter: hi is stored after an insert
        // returned, lo before a remove begins.
        let (lo, hi) = (AtomicU64::new(0), AtomicU64::new(0));
        let reads = AtomicU64::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                for k in 0..KEYS {
                    // Never more than two keys per read ahead of the readers.
                    while k % 64 == 0 && reads.load(Ordering::Acquire) < (k / 2).min(2 * READS) {
                        std::thread::yield_now();
                    }
                    f.insert_shared(&k).unwrap();
                    hi.store(k + 1, Ordering::Release);
                    if k >= WINDOW {
                        let old = k - WINDOW;
                        lo.store(old + 1, Ordering::Release);
                        assert!(f.remove_shared(&old).is_removed(), "{variant}: {old}");
                    }
                }
            });
            for r in 0..2u64 {
                let (f, lo, hi, reads) = (&f, &lo, &hi, &reads);
                s.spawn(move || {
                    let mut rng = r;
                    for _ in 0..READS {
                        let (l, h) = (lo.load(Ordering::Acquire), hi.load(Ordering::Acquire));
                        if h > l {
                            let k = l + splitmix64(&mut rng) % (h - l);
                            if !f.contains_shared(&k) {
                                let now = lo.load(Ordering::Acquire);
                                assert!(now > k, "{variant}: {k} missing, remove not begun");
                            }
                        }
                        reads.fetch_add(1, Ordering::Release);
                    }
                });
            }
        });
        assert_eq!(f.len(), WINDOW as usize, "{variant}");
        assert!((KEYS - WINDOW..KEYS).all(|k| f.contains(&k)), "{variant}");
    }
}

/// Threads racing to insert one key if absent: exactly one inserts it.
#[test]
fn insert_if_absent_is_one_step() {
    for variant in DELETABLE {
        let f = shared(variant, 4, 1_000, 0.001, 5);
        for key in 0..50u64 {
            let inserted: usize = std::thread::scope(|s| {
                let handles: Vec<_> = (0..4)
                    .map(|_| {
                        let f = &f;
                        s.spawn(move || usize::from(f.insert_if_absent_shared(&key).unwrap()))
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            // A false positive may make every thread see it present.
            assert!(inserted <= 1, "{variant} key {key}: {inserted} inserts");
        }
        assert!(f.len() <= 50 && f.len() >= 45, "{variant}: {}", f.len());
        assert!((0..50u64).all(|k| f.contains(&k)));
    }
}

/// A full cuckoo shard refuses the insert, changing nothing, through
/// `&self` and `&mut self`; every key accepted before is still found.
#[test]
fn a_full_shard_refuses_and_keeps_what_it_had() {
    let f = ShardedCuckooFilter::build(8, 2, |c| {
        CuckooFilter::with_fp_rate(0.01).seed(3).expected_items(c)
    })
    .unwrap();
    let mut accepted = Vec::new();
    let mut refused = 0;
    for k in 0..10_000u64 {
        let before = f.len();
        match f.insert_shared(&k) {
            Ok(_) => accepted.push(k),
            Err(Error::Full { .. } | Error::TooManyCopies { .. }) => {
                refused += 1;
                assert_eq!(f.len(), before, "a refused insert changed the count");
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(refused > 0, "the shards filled up");
    assert!(accepted.iter().all(|k| f.contains(k)));
    // Through `&mut self`, no lock: the same refusal.
    let mut f = f;
    let mut refused_mut = 0;
    for k in 10_000..20_000u64 {
        if f.insert(&k).is_err() {
            refused_mut += 1;
        } else {
            accepted.push(k);
        }
    }
    assert_eq!(f.len(), accepted.len(), "every refusal changed nothing");
    assert!(refused_mut > 0);
    assert!(accepted.iter().all(|k| f.contains(k)));
}

#[test]
fn the_builder_checks_its_input() {
    for n in [0usize] {
        for variant in DELETABLE {
            assert!(matches!(
                variant.builder().shared(2).build_shared(n, 0.01),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
    assert!(matches!(
        Variant::Counting.builder().shared(0).build_shared(10, 0.01),
        Err(Error::InvalidParameter {
            name: "threads",
            ..
        })
    ));
    assert!(matches!(
        Variant::Classic.builder().shared(2).build_shared(10, 0.01),
        Err(Error::DeleteUnsupported { .. })
    ));
    assert!(matches!(
        Variant::Blocked.builder().shared(2).build(10, 0.01),
        Err(Error::DeleteUnsupported { .. })
    ));
    // max_bytes is for all the shards together.
    let whole = Variant::Counting
        .builder()
        .seed(1)
        .shared(2)
        .build_shared(100_000, 0.01)
        .unwrap()
        .memory_bytes();
    assert!(matches!(
        Variant::Counting
            .builder()
            .shared(2)
            .max_bytes(whole / 2)
            .build_shared(100_000, 0.01),
        Err(Error::TooLarge { .. })
    ));
    assert!(
        Variant::Counting
            .builder()
            .shared(2)
            .max_bytes(whole + 64)
            .build_shared(100_000, 0.01)
            .is_ok()
    );
    for shards in [0usize, 3, 2 * MAX_SHARDS] {
        assert!(matches!(
            Sharded::build(10, shards, |c| CountingBloomFilter::with_fp_rate(0.01)
                .seed(1)
                .expected_items(c)),
            Err(Error::InvalidParameter { name: "shards", .. })
        ));
    }
    // Shards of other hash keys cannot share one filter.
    let mut seed = 0;
    let mixed = Sharded::build(10, 2, |c| {
        seed += 1;
        CountingBloomFilter::with_fp_rate(0.01)
            .seed(seed)
            .expected_items(c)
    });
    assert!(matches!(
        mixed,
        Err(Error::Incompatible {
            parameter: "hash key",
            ..
        })
    ));
    // A random key (no seed) is one key for every shard.
    assert!(
        Variant::Cuckoo
            .builder()
            .shared(4)
            .build_shared(100, 0.01)
            .is_ok()
    );
}

#[test]
fn a_sharded_filter_is_shareable_and_has_no_saved_form() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ShardedCountingFilter>();
    assert_send_sync::<ShardedCuckooFilter>();
    assert_send_sync::<ShardedQuotientFilter>();
    let f = shared(Variant::Counting, 2, 100, 0.01, 1);
    assert!(matches!(f.to_bytes(), Err(Error::Unsupported { .. })));
    assert!(format!("{f:?}").contains("shards: 8"));
    // The same key reaches the same bits through every path.
    let key = f.hash_key();
    f.insert_shared("x").unwrap();
    assert!(f.contains_bytes(b"x") && f.contains_digest(key.digest_bytes(b"x")));
    assert!(f.remove_shared(b"x".as_slice()).is_removed());
    assert!(!f.contains("x"));
}

/// Readers race the writers' moves: on one nearly full shard, a writer
/// churns keys (each insert at that load moves fingerprints: the
/// eight-bucket search and the kicks of the cuckoo filter) or counters
/// (the counting filter's increments and decrements of shared counters),
/// or runs (the quotient filter's shifts, one slot up on an insert and down
/// on a remove, across the cluster), while two readers look up every resident key again and again, without a
/// lock. Each resident key's insert returned before the readers started
/// and it is never removed, so every lookup must find it, and its count
/// must stay at least 1; the published churn keys must be found until
/// their remove is announced.
#[test]
fn readers_racing_kicks_and_counter_updates_find_every_published_key() {
    use std::sync::atomic::AtomicBool;
    const RESIDENT: u64 = 3_700;
    const CHURN: u64 = 300_000;
    const LIVE: u64 = 48;
    for variant in DELETABLE {
        let f: Shared = match variant {
            // One shard: every write and every read meet on it.
            Variant::Cuckoo => Box::new(
                ShardedCuckooFilter::build(4_000, 1, |c| {
                    CuckooFilter::with_fp_rate(0.01).seed(21).expected_items(c)
                })
                .unwrap(),
            ),
            // Nearly every write shifts a run under the readers.
            Variant::Quotient => Box::new(
                ShardedQuotientFilter::build(4_000, 1, |c| {
                    QuotientFilter::with_fp_rate(0.01)
                        .seed(21)
                        .expected_items(c)
                })
                .unwrap(),
            ),
            _ => Box::new(
                ShardedCountingFilter::build(4_000, 1, |c| {
                    CountingBloomFilter::with_fp_rate(0.01)
                        .seed(21)
                        .expected_items(c)
                })
                .unwrap(),
            ),
        };
        for k in 0..RESIDENT {
            f.insert_shared(&k).unwrap();
        }
        let load = f.len() as f64 / f.capacity() as f64;
        assert!(load > 0.9, "{variant}: load {load}");
        // Churn keys lo..hi are in: hi stored after an insert returned, lo
        // before a remove begins.
        let (lo, hi) = (AtomicU64::new(1 << 40), AtomicU64::new(1 << 40));
        let done = AtomicBool::new(false);
        let accepted: Vec<AtomicBool> = (0..CHURN).map(|_| AtomicBool::new(false)).collect();
        let (f, lo, hi, done, accepted) = (&f, &lo, &hi, &done, &accepted);
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut refused = 0u64;
                for c in (1u64 << 40)..(1 << 40) + CHURN {
                    match f.insert_shared(&c) {
                        Ok(_) => {
                            accepted[(c - (1 << 40)) as usize].store(true, Ordering::Relaxed);
                            hi.store(c + 1, Ordering::Release);
                        }
                        // A full table refuses, changing nothing: the key
                        // is then never published, and the window skips it.
                        Err(Error::Full { .. } | Error::TooManyCopies { .. }) => {
                            refused += 1;
                            hi.store(c + 1, Ordering::Release);
                        }
                        Err(e) => panic!("{e}"),
                    }
                    if c >= (1 << 40) + LIVE {
                        let old = c - LIVE;
                        lo.store(old + 1, Ordering::Release);
                        // Only a key that went in: removing one that did
                        // not could take a resident key's fingerprint.
                        if accepted[(old - (1 << 40)) as usize].load(Ordering::Relaxed) {
                            assert!(f.remove_shared(&old).is_removed(), "{variant}: {old}");
                        }
                    }
                }
                done.store(true, Ordering::Release);
                assert!(refused < CHURN / 2, "{variant}: {refused} refused");
            });
            for r in 0..2u64 {
                s.spawn(move || {
                    let mut passes = 0u64;
                    let mut rng = r + 77;
                    while !done.load(Ordering::Acquire) || passes < 2 {
                        for k in 0..RESIDENT {
                            assert!(f.contains_shared(&k), "{variant} pass {passes}: lost {k}");
                            if k % 16 == r {
                                assert!(f.count(&k).may_exceed(0), "{variant}: count of {k}");
                            }
                            if k % 8 == 0 {
                                let (l, h) =
                                    (lo.load(Ordering::Acquire), hi.load(Ordering::Acquire));
                                if h > l {
                                    let c = l + splitmix64(&mut rng) % (h - l);
                                    if !f.contains_shared(&c) {
                                        // Refused, or its remove began.
                                        let now = lo.load(Ordering::Acquire);
                                        let took = accepted[(c - (1 << 40)) as usize]
                                            .load(Ordering::Relaxed);
                                        assert!(
                                            now > c || !took,
                                            "{variant}: churn key {c} missing"
                                        );
                                    }
                                }
                            }
                        }
                        passes += 1;
                    }
                    passes
                });
            }
        });
        assert!((0..RESIDENT).all(|k| f.contains(&k)), "{variant}");
    }
}
