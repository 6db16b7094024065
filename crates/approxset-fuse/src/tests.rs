//! Unit tests of the binary fuse filter: every key found at every size and
//! width, duplicates, the false-positive rate within a binomial bound, the
//! width choice, the space, failure after the last seed, persistence.

use approxset_core::{Digest, Error, HashFunction, HashKey};

use crate::layout::Layout;
use crate::{BinaryFuseFilter, fingerprint_bits_for};

fn keys(n: usize, tag: &str) -> Vec<String> {
    (0..n).map(|i| format!("{tag}-{i}")).collect()
}

/// The least count `t` with P(X ≥ t) ≤ 1e-6 for X ~ Binomial(q, p), by
/// the Chernoff bound exp(−δ²μ/(2 + δ)), and the greatest `t` with
/// P(X ≤ t) ≤ 1e-6, by exp(−δ²μ/2).
fn chernoff(q: u64, p: f64) -> (f64, f64) {
    let mu = q as f64 * p;
    let ln = 1e6f64.ln();
    let mut d = 0.0;
    while d * d * mu / (2.0 + d) < ln {
        d += 0.001;
    }
    let upper = mu * (1.0 + d);
    let lower = mu * (1.0 - (2.0 * ln / mu).sqrt());
    (lower, upper)
}

fn false_positives(f: &BinaryFuseFilter, queries: usize) -> u64 {
    (0..queries)
        .filter(|i| f.contains(&format!("absent-{i}")))
        .count() as u64
}

#[test]
fn every_key_is_found_at_every_size_and_width() {
    for n in [0usize, 1, 2, 3, 4, 5, 10, 100, 1000, 100_000] {
        let ks = keys(n, "k");
        for (p, bits) in [(0.01, 8), (1e-4, 16), (1e-7, 32)] {
            let f = BinaryFuseFilter::with_fp_rate(p)
                .seed(n as u64)
                .build(&ks)
                .unwrap();
            assert_eq!(f.fingerprint_bits(), bits);
            assert_eq!(f.len(), n, "{n} {bits}");
            assert_eq!(f.is_empty(), n == 0);
            assert_eq!(f.capacity(), n);
            assert!(ks.iter().all(|k| f.contains(k)), "{n} keys, {bits} bits");
            assert_eq!(f.memory_bytes(), f.array_len() * bits as usize / 8);
        }
    }
}

#[test]
fn every_small_size_builds() {
    for n in 0..=400usize {
        let ks = keys(n, "small");
        let f = BinaryFuseFilter::with_fp_rate(0.01)
            .seed(3)
            .build(&ks)
            .unwrap();
        assert!(ks.iter().all(|k| f.contains(k)), "{n}");
        assert_eq!(f.len(), n);
    }
}

#[test]
fn sizes_at_the_segment_length_steps_build() {
    // Just after the sizing doubles L (n ≈ 11.2k, 37k, 124k), few long
    // segments peel poorly; 11,504 and 11,521 fail most seeds of the
    // paper's layout (FastFilter/xor_singleheader#77).
    for n in [11_180usize, 11_200, 11_504, 11_521, 11_549, 37_300, 124_200] {
        for seed in 0..4 {
            let ks = keys(n, &format!("step{seed}"));
            let f = BinaryFuseFilter::with_fp_rate(0.01)
                .seed(seed)
                .build(&ks)
                .unwrap();
            assert!(ks.iter().all(|k| f.contains(k)), "{n}");
        }
    }
}

#[test]
fn duplicates_are_stored_once() {
    // Every key three times, interleaved.
    let distinct = keys(1000, "dup");
    let repeated: Vec<&String> = (0..3).flat_map(|_| distinct.iter()).collect();
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(1)
        .build(&repeated)
        .unwrap();
    assert_eq!(f.len(), 1000);
    assert!(distinct.iter().all(|k| f.contains(k)));
    // One key 100,000 times (its cells' counts overflow) and a few others:
    // the deduplicating retry sizes the filter for the set.
    let mut heavy: Vec<String> = vec!["same".to_string(); 100_000];
    heavy.extend(keys(5, "few"));
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(2)
        .build(&heavy)
        .unwrap();
    assert_eq!(f.len(), 6);
    assert!(heavy.iter().all(|k| f.contains(k)));
    assert!(f.array_len() < 100, "{}", f.array_len());
    // Only repeats of one key.
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(2)
        .build(["x"; 64])
        .unwrap();
    assert_eq!(f.len(), 1);
    assert!(f.contains("x"));
    // Half the keys twice, 10⁵ keys.
    let half = keys(100_000, "half");
    let mixed: Vec<&String> = half.iter().chain(half.iter().step_by(2)).collect();
    let f = BinaryFuseFilter::with_fp_rate(0.001)
        .seed(9)
        .build(&mixed)
        .unwrap();
    assert_eq!(f.len(), 100_000);
    assert!(half.iter().all(|k| f.contains(k)));
}

#[test]
fn false_positive_rate_is_two_to_the_minus_f() {
    for (p, bits, queries) in [(0.01, 8u32, 400_000usize), (1e-4, 16, 4_000_000)] {
        let ks = keys(20_000, "fp");
        let f = BinaryFuseFilter::with_fp_rate(p)
            .seed(11)
            .build(&ks)
            .unwrap();
        assert_eq!(f.fingerprint_bits(), bits);
        let rate = (-f64::from(bits)).exp2();
        assert_eq!(f.fp_rate(), rate);
        assert_eq!(f.estimated_fp_rate(), rate);
        let (lower, upper) = chernoff(queries as u64, rate);
        let fp = false_positives(&f, queries) as f64;
        assert!(
            fp <= upper && fp >= lower,
            "{bits} bits: {fp} outside [{lower}, {upper}]"
        );
    }
}

#[test]
fn the_width_is_the_narrowest_that_meets_the_target() {
    assert_eq!(fingerprint_bits_for(0.5), Ok(8));
    assert_eq!(fingerprint_bits_for(0.01), Ok(8));
    assert_eq!(fingerprint_bits_for(1.0 / 256.0), Ok(8));
    assert_eq!(fingerprint_bits_for(0.0039), Ok(16));
    assert_eq!(fingerprint_bits_for(1.0 / 65536.0), Ok(16));
    assert_eq!(fingerprint_bits_for(1e-5), Ok(32));
    assert_eq!(fingerprint_bits_for(crate::MIN_FP_RATE), Ok(32));
    for bad in [0.0, 1.0, -0.1, f64::NAN, crate::MIN_FP_RATE / 2.0] {
        let e = fingerprint_bits_for(bad).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    name: "fp_rate",
                    ..
                }
            ),
            "{bad}"
        );
    }
    let ks = keys(10, "w");
    let wide = BinaryFuseFilter::with_fp_rate(0.01)
        .fingerprint_bits(32)
        .build(&ks)
        .unwrap();
    assert_eq!(wide.fingerprint_bits(), 32);
    for (p, bits) in [(1e-4, 8), (0.01, 12), (0.01, 0)] {
        let e = BinaryFuseFilter::with_fp_rate(p)
            .fingerprint_bits(bits)
            .build(&ks)
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    name: "fingerprint_bits",
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn a_million_keys_take_at_most_1_13_f_bits_each() {
    let digests: Vec<Digest> = {
        let key = HashKey::from_seed(5);
        (0..1_000_000u64).map(|i| key.digest(&i)).collect()
    };
    for (p, bits) in [(0.01, 8u32), (1e-4, 16)] {
        let f = BinaryFuseFilter::with_fp_rate(p)
            .seed(5)
            .build_digests(&digests)
            .unwrap();
        assert_eq!(f.len(), 1_000_000);
        let per_key = f.bits_per_key();
        assert!(per_key <= 1.13 * f64::from(bits), "{bits}: {per_key}");
        assert!(per_key >= 1.125 * f64::from(bits), "{bits}: {per_key}");
        assert!(digests.iter().all(|&d| f.contains_digest(d)));
    }
}

#[test]
fn every_key_path_reaches_the_same_filter() {
    let ks = keys(500, "path");
    let key = HashKey::from_seed(21);
    let from_keys = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(21)
        .build(&ks)
        .unwrap();
    let from_bytes = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(21)
        .build_bytes(ks.iter().map(|k| k.as_bytes()))
        .unwrap();
    let digests: Vec<Digest> = ks.iter().map(|k| key.digest(k)).collect();
    let from_digests = BinaryFuseFilter::with_fp_rate(0.01)
        .hash_key(key)
        .build_digests(&digests)
        .unwrap();
    assert_eq!(from_keys, from_bytes);
    assert_eq!(from_keys, from_digests);
    let mut out = Vec::new();
    from_keys.contains_digests(&digests, &mut out);
    assert!(out.iter().all(|&b| b));
    let others: Vec<Digest> = (0..10_000u32).map(|i| key.digest(&i)).collect();
    from_keys.contains_digests(&others, &mut out);
    assert_eq!(out.len(), others.len());
    assert!(
        others
            .iter()
            .zip(&out)
            .all(|(&d, &b)| from_keys.contains_digest(d) == b)
    );
    // A seeded build is reproducible; another seed gives another filter.
    let again = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(21)
        .build(&ks)
        .unwrap();
    assert_eq!(again, from_keys);
    let other = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(22)
        .build(&ks)
        .unwrap();
    assert_ne!(other, from_keys);
}

#[test]
fn running_out_of_seeds_is_an_error() {
    // 1,000 keys in a 12-cell layout can never peel (each peeled key needs
    // a cell of its own).
    let ks = keys(1000, "tight");
    let tiny = Layout::new(4, 1).unwrap();
    for attempts in [0, 1, 5] {
        let e = BinaryFuseFilter::with_fp_rate(0.01)
            .seed(1)
            .with_layout(tiny, attempts)
            .build(&ks)
            .unwrap_err();
        assert_eq!(
            e,
            Error::ConstructionFailed {
                attempts,
                items: 1000
            },
            "{attempts}"
        );
        assert!(e.to_string().contains("peels"), "{e}");
    }
    // Duplicates are counted out before the error names the keys.
    let twice: Vec<&String> = ks.iter().chain(ks.iter()).collect();
    let e = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(1)
        .with_layout(tiny, 3)
        .build(&twice)
        .unwrap_err();
    assert_eq!(
        e,
        Error::ConstructionFailed {
            attempts: 3,
            items: 1000
        }
    );
    // The same layout takes two keys.
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(1)
        .with_layout(tiny, 100)
        .build(["a", "b"])
        .unwrap();
    assert!(f.contains("a") && f.contains("b"));
}

#[test]
fn limits_and_hash_functions() {
    let ks = keys(1000, "lim");
    let e = BinaryFuseFilter::with_fp_rate(0.01)
        .max_bytes(100)
        .build(&ks)
        .unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
    let e = BinaryFuseFilter::with_fp_rate(0.01)
        .hash(HashFunction::ParquetXxh64)
        .build(&ks)
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidParameter { name: "hash", .. }),
        "{e}"
    );
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(4)
        .hash(HashFunction::Xxh3)
        .build(&ks)
        .unwrap();
    assert_eq!(f.hash_key().function(), HashFunction::Xxh3);
    assert!(ks.iter().all(|k| f.contains(k)));
}

#[test]
fn round_trips_through_bytes() {
    for n in [0usize, 1, 7, 3000] {
        for p in [0.01, 1e-4, 1e-8] {
            let f = BinaryFuseFilter::with_fp_rate(p)
                .seed(8)
                .build(keys(n, "rt"))
                .unwrap();
            let bytes = f.to_bytes().unwrap();
            assert_eq!(bytes[6], approxset_core::format::tag::FUSE);
            assert_eq!(
                u16::from_le_bytes([bytes[4], bytes[5]]),
                approxset_core::format::VERSION
            );
            assert_eq!(bytes.len() % 8, 0);
            let g = BinaryFuseFilter::from_bytes(&bytes).unwrap();
            assert_eq!(g, f);
            assert_eq!(g.to_bytes().unwrap(), bytes);
            let mut stream = Vec::new();
            f.write_to(&mut stream).unwrap();
            assert_eq!(BinaryFuseFilter::read_from(stream.as_slice()).unwrap(), f);
        }
    }
}

#[test]
fn the_filter_is_send_sync_and_debug() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<BinaryFuseFilter>();
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(1)
        .build(["a"])
        .unwrap();
    let s = format!("{f:?}");
    assert!(
        s.contains("fingerprint_bits: 8") && s.contains("len: 1"),
        "{s}"
    );
    let names: Vec<&str> = f.parameters().iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "fingerprint_bits",
            "segment_length",
            "segment_count",
            "array_length",
            "seed"
        ]
    );
}

/// The share of seeds that peel, for the sizing notes of `docs/design.md`:
/// `cargo test -p approxset-fuse --release -- --ignored peel_rates --nocapture`.
#[test]
#[ignore]
fn peel_rates() {
    use crate::construct::{Settings, build};
    let sizes: Vec<usize> = match std::env::var("FUSE_SIZES") {
        Ok(v) => v.split(',').filter_map(|t| t.parse().ok()).collect(),
        Err(_) => vec![10, 100, 1000, 11_000, 11_504, 50_000, 100_000, 1_000_000],
    };
    for n in sizes {
        let key = HashKey::from_seed(n as u64);
        let digests: Vec<Digest> = (0..n as u64).map(|i| key.digest(&i)).collect();
        let plan = Layout::plan(n).unwrap();
        let trials = std::env::var("FUSE_TRIALS")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(if n >= 1_000_000 { 20 } else { 200 });
        let extra: Vec<(&str, Option<Layout>)> = match std::env::var("FUSE_LAYOUTS") {
            Ok(v) => v
                .split(',')
                .filter_map(|t| {
                    let mut it = t.split(':');
                    let (m, l, c) = (it.next()?, it.next()?, it.next()?);
                    let layout = Layout::new(l.parse().ok()?, c.parse().ok()?).ok();
                    (m.parse::<usize>().ok()? == n).then_some(("given", layout))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        let mut all = vec![("plan", Some(plan)), ("halved", plan.halved())];
        all.extend(extra);
        all.push(("paper", Layout::new(plan_paper(n).0, plan_paper(n).1).ok()));
        for (name, layout) in all {
            let Some(layout) = layout else { continue };
            let settings = Settings {
                attempts: 1,
                fallback: 0,
                max_bytes: None,
                layout: Some(layout),
            };
            let ok = (0..trials)
                .filter(|&t| build::<u8, _>(digests.as_slice(), t, settings).is_ok())
                .count();
            println!(
                "n {n:>8} {name:>6} L {:>6} c {:>5} cells/key {:.4}: {ok}/{trials}",
                layout.segment_length(),
                layout.segment_count(),
                layout.array_len() as f64 / n as f64
            );
        }
    }
}

/// The reference code's layout for `n` (no halving), for [`peel_rates`].
fn plan_paper(n: usize) -> (u32, u32) {
    let nf = n as f64;
    let l = 1u32 << ((nf.ln() / 3.33f64.ln() + 2.25).floor() as u32).min(18);
    let cap = (nf * f64::max(1.125, 0.875 + 0.25 * 1e6f64.ln() / nf.ln())).round() as u64;
    let whole = cap.div_ceil(u64::from(l)).max(3);
    (l, (whole - 2) as u32)
}

/// A key set whose first seed fails on the tighter layout of 10⁶ keys
/// (the benchmark's when SipHash-1-3-128 was the default: SplitMix64 of
/// 0 … 10⁶ − 1 under the hash key of seed 1) builds on the paper's looser
/// one, with every key found.
#[test]
fn a_failed_seed_falls_back_to_the_papers_layout() {
    let key = HashKey::from_seed(1).with_function(HashFunction::SipHash13);
    let digests: Vec<Digest> = (0..1_000_000u64)
        .map(|i| key.digest(&approxset_core::hash::splitmix64(&mut { i })))
        .collect();
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .hash_key(key)
        .build_digests(&digests)
        .unwrap();
    assert_eq!(
        f.array_len(),
        Layout::plan_loose(1_000_000).unwrap().array_len()
    );
    assert_ne!(f.array_len(), Layout::plan(1_000_000).unwrap().array_len());
    assert_eq!(f.len(), 1_000_000);
    assert!(digests.iter().all(|&d| f.contains_digest(d)));
    // Another key set peels on its first seed, on the tighter layout.
    let other = HashKey::from_seed(5).with_function(HashFunction::SipHash13);
    let digests: Vec<Digest> = (0..1_000_000u64).map(|i| other.digest(&i)).collect();
    let g = BinaryFuseFilter::with_fp_rate(0.01)
        .hash_key(other)
        .build_digests(&digests)
        .unwrap();
    assert_eq!(g.array_len(), Layout::plan(1_000_000).unwrap().array_len());
}

/// With the hash key known (a filter built with a given seed), every
/// construction seed derived from it is known too: for each, a pair of
/// keys whose fuse hashes share all three cells never peels (each of the
/// cells keeps both). 100 such pairs, 200 distinct keys, fail every derived
/// seed; the build still succeeds on the random seeds that follow, and
/// stores the one that peeled.
#[test]
fn keys_crafted_against_a_known_seed_still_build() {
    use crate::builder::seed_state;
    use crate::construct::{Settings, build};
    use crate::layout::fuse_hash;
    use std::collections::HashMap;

    let key = HashKey::from_seed(7);
    let n = 200;
    let plan = Layout::plan(n).unwrap();
    // The layouts each attempt uses for 200 distinct keys: the plan on
    // even attempts, its halved form on odd ones (the looser layout and a
    // deduplicated re-plan are the same array here).
    assert_eq!(Layout::plan_loose(n).unwrap(), plan);
    let halved = plan.halved().unwrap();
    let mut state = seed_state(key);
    let mut next = 0u64;
    let mut crafted: Vec<u64> = Vec::with_capacity(n);
    let mut seeds = Vec::new();
    for attempt in 0..crate::MAX_ATTEMPTS {
        let seed = approxset_core::hash::splitmix64(&mut state);
        seeds.push(seed);
        let layout = if attempt % 2 == 1 { halved } else { plan };
        // Birthday search on the three cells (about 2¹⁹ of them): some
        // thousand keys.
        let mut seen: HashMap<[usize; 3], u64> = HashMap::new();
        loop {
            let k = next;
            next += 1;
            let cells = layout.positions(fuse_hash(key.digest(&k).h1(), seed));
            if let Some(&other) = seen.get(&cells) {
                crafted.extend([other, k]);
                break;
            }
            seen.insert(cells, k);
        }
    }
    assert_eq!(crafted.len(), n);
    let digests: Vec<Digest> = crafted.iter().map(|k| key.digest(k)).collect();
    let mut h1s: Vec<u64> = digests.iter().map(|d| d.h1()).collect();
    h1s.sort_unstable();
    h1s.dedup();
    assert_eq!(h1s.len(), n, "the crafted keys are distinct");
    // Every derived seed fails.
    let seeded_only = Settings {
        attempts: crate::MAX_ATTEMPTS,
        fallback: 0,
        max_bytes: None,
        layout: None,
    };
    assert_eq!(
        build::<u8, _>(digests.as_slice(), seed_state(key), seeded_only).unwrap_err(),
        Error::ConstructionFailed {
            attempts: crate::MAX_ATTEMPTS,
            items: n
        }
    );
    // The builder goes on to random seeds, from a key as from a digest.
    for f in [
        BinaryFuseFilter::with_fp_rate(0.01).seed(7).build(&crafted),
        BinaryFuseFilter::with_fp_rate(0.01)
            .hash_key(key)
            .build_digests(&digests),
    ] {
        let f = f.unwrap();
        assert_eq!(f.len(), n);
        assert!(crafted.iter().all(|k| f.contains(k)));
        assert!(!seeds.contains(&f.seed()));
        // The stored seed answers after a round trip.
        let g = BinaryFuseFilter::from_bytes(&f.to_bytes().unwrap()).unwrap();
        assert_eq!(g, f);
    }
}

#[test]
fn a_lookup_reads_the_first_half_of_the_digest_alone() {
    // `contains_digest` promises that `Digest::new(h1, 0)` answers as the
    // whole digest does, for members and non-members, at every width.
    let ks = keys(2_000, "half");
    for p in [0.01, 1e-4, 1e-7] {
        let f = BinaryFuseFilter::with_fp_rate(p)
            .seed(9)
            .build(&ks)
            .unwrap();
        let key = f.hash_key();
        let mut positives = 0;
        for i in 0..20_000 {
            let d = if i < ks.len() {
                key.digest(&ks[i])
            } else {
                key.digest(&format!("absent-{i}"))
            };
            let whole = f.contains_digest(d);
            assert_eq!(whole, f.contains_digest(Digest::new(d.h1(), 0)), "{p} {i}");
            assert_eq!(
                whole,
                f.contains_digest(Digest::new(d.h1(), !d.h2())),
                "{p} {i}"
            );
            positives += usize::from(whole);
        }
        // Every member, so the comparison covers both answers.
        assert!(positives >= ks.len());
    }
}
