//! Unit tests of the Ribbon filter: sizing, rates, edges and construction.

use approxset_core::{Error, HashKey, Membership};

use crate::layout::{Layout, blocks_for, columns_for};
use crate::{RibbonFilter, plan};

/// The filter of keys `0..n` (as `u64`) at `p`, seeded.
fn filter(n: u64, p: f64, seed: u64) -> RibbonFilter {
    RibbonFilter::with_fp_rate(p)
        .seed(seed)
        .build(0..n)
        .unwrap()
}

/// False positives of `queries` keys that are not in a filter of `0..n`.
fn false_positives(f: &RibbonFilter, n: u64, queries: u64) -> u64 {
    (n..n + queries).filter(|k| f.contains(k)).count() as u64
}

/// Whether `hits` of `q` trials is within 5.3 standard deviations of the
/// rate `p` (a false alarm below 1e-7 either way).
fn within_binomial(hits: u64, q: u64, p: f64) -> bool {
    let mean = q as f64 * p;
    let sd = (q as f64 * p * (1.0 - p)).sqrt();
    (hits as f64 - mean).abs() <= 5.3 * sd
}

#[test]
fn columns_split_the_rate_between_r_and_r_plus_one() {
    // 1 %: r = 6, φ = 2⁷·0.01 − 1 = 0.28.
    let (r, share) = columns_for(0.01).unwrap();
    assert_eq!(r, 6);
    assert!((share - 0.28).abs() < 1e-12);
    // A power of two: r columns everywhere.
    assert_eq!(columns_for(0.25).unwrap(), (2, 1.0));
    assert_eq!(columns_for(2f64.powi(-32)).unwrap(), (32, 1.0));
    assert_eq!(columns_for(0.6).unwrap().0, 0);
    for bad in [0.0, 1.0, -0.5, f64::NAN, 1e-10] {
        assert!(matches!(
            columns_for(bad),
            Err(Error::InvalidParameter {
                name: "fp_rate",
                ..
            })
        ));
    }
}

#[test]
fn the_planned_rate_is_the_target_at_most_and_close_to_it() {
    for p in [0.01, 0.003, 0.001, 0.0001, 0.3, 0.5, 0.25, 1e-9] {
        let layout = Layout::plan(100_000, p).unwrap();
        let fp = layout.expected_fp();
        assert!(fp <= p * (1.0 + 1e-12), "{p}: {fp}");
        assert!(fp >= p * 0.995, "{p}: {fp}");
    }
}

#[test]
fn layouts_check_their_fields() {
    assert!(Layout::new(10, 32, 10).is_ok());
    assert!(Layout::new(10, 32, 9).is_err()); // 33 columns
    assert!(Layout::new(10, 33, 10).is_err());
    assert!(Layout::new(10, u32::MAX, 0).is_err());
    assert!(Layout::new(10, u32::MAX, 10).is_err());
    assert!(Layout::new(10, 7, 11).is_err());
    assert!(Layout::new(0, 1, 0).is_err());
    assert!(Layout::new(u64::from(u32::MAX) + 1, 7, 0).is_err());
    let l = Layout::new(4, 7, 2).unwrap();
    assert_eq!(l.words(), 4 * 7 + 2);
    assert_eq!(l.words_u64(), 30);
    assert_eq!((l.columns(1), l.columns(2)), (7, 8));
    assert_eq!((l.offset(2), l.offset(3)), (14, 22));
}

#[test]
fn no_false_negatives_at_every_size() {
    for n in [0u64, 1, 2, 10, 100, 120, 127, 128, 129, 200, 1000, 5000] {
        for p in [0.01, 0.001, 0.5, 0.25] {
            let f = filter(n, p, n);
            assert_eq!(f.len() as u64, n, "n = {n}, p = {p}");
            assert!((0..n).all(|k| f.contains(&k)), "n = {n}, p = {p}");
        }
    }
}

#[test]
fn an_empty_filter_holds_nothing() {
    let f = filter(0, 0.01, 1);
    assert!(f.is_empty());
    assert_eq!((f.blocks(), f.memory_bytes()), (0, 0));
    assert_eq!(f.fp_rate(), 0.0);
    assert_eq!(false_positives(&f, 0, 10_000), 0);
}

#[test]
fn measured_rates_are_the_target_not_a_power_of_two() {
    let n = 100_000;
    for (p, queries) in [
        (0.01, 400_000),
        (0.003, 1_000_000),
        (0.001, 2_000_000),
        (0.0001, 4_000_000),
    ] {
        let f = filter(n, p, 7);
        let hits = false_positives(&f, n, queries);
        assert!(
            within_binomial(hits, queries, p),
            "p = {p}: {hits} of {queries}"
        );
        assert!((f.fp_rate() - p).abs() <= p * 0.005);
    }
}

#[test]
fn bits_per_key_meet_the_target_from_ten_to_the_fifth_keys() {
    for n in [100_000u64, 300_000] {
        for p in [0.01, 0.003, 0.001, 0.0001] {
            let f = filter(n, p, 3);
            let target = 1.08 * (1.0 / p).log2() + 0.1;
            assert!(
                f.bits_per_key() <= target,
                "n = {n}, p = {p}: {} > {target}",
                f.bits_per_key()
            );
            // And the plan says what the build gives (no growth needed).
            let planned = plan(n as usize, p).unwrap().bits() as f64 / n as f64;
            assert!(f.bits_per_key() <= planned * 1.04, "n = {n}, p = {p}");
        }
    }
}

#[test]
fn small_filters_cost_one_block() {
    // One block of 7 columns at 1 %: 896 bits.
    assert_eq!(filter(10, 0.01, 1).memory_bytes() * 8, 896);
    assert_eq!(filter(100, 0.01, 1).memory_bytes() * 8, 896);
    let thousand = filter(1000, 0.01, 1).bits_per_key();
    assert!(thousand < 7.3, "{thousand}");
}

#[test]
fn repeats_are_stored_once_and_sized_for() {
    let keys: Vec<u64> = (0..50_000u64).map(|i| i % 1000).collect();
    let f = RibbonFilter::with_fp_rate(0.01)
        .seed(5)
        .build(&keys)
        .unwrap();
    assert_eq!(f.len(), 1000);
    assert!((0..1000u64).all(|k| f.contains(&k)));
    assert_eq!(f.blocks() as u64, blocks_for(1000));
}

#[test]
fn construction_succeeds_for_every_seed_and_size_tried() {
    // Sizes about the one-block limit and the table's points, many seeds.
    for n in [110u64, 124, 125, 250, 255, 500, 2000] {
        for seed in 0..40 {
            let f = filter(n, 0.01, seed);
            assert_eq!(f.len() as u64, n);
            assert!((0..n).all(|k| f.contains(&k)));
        }
    }
}

#[test]
fn the_planned_size_usually_solves_on_the_first_seed() {
    // About 0.95 per seed: of 40 builds at 10⁴ keys, at least 30 keep
    // the planned size (a grown filter has more blocks).
    let n = 10_000;
    let planned = blocks_for(n as usize);
    let kept = (0..40)
        .filter(|&s| filter(n, 0.01, 100 + s).blocks() as u64 == planned)
        .count();
    assert!(kept >= 30, "{kept} of 40");
}

#[test]
fn too_few_blocks_fail_with_construction_failed() {
    let result = RibbonFilter::with_fp_rate(0.01)
        .seed(1)
        .with_blocks(1, 3)
        .build(0..1000u64);
    assert!(matches!(
        result,
        Err(Error::ConstructionFailed { attempts: 3, .. })
    ));
}

#[test]
fn the_memory_cap_is_honoured() {
    let result = RibbonFilter::with_fp_rate(0.01)
        .seed(1)
        .max_bytes(1000)
        .build(0..10_000u64);
    assert!(matches!(result, Err(Error::TooLarge { .. })));
}

#[test]
fn saved_filters_answer_alike() {
    for n in [0u64, 1, 300, 20_000] {
        let f = filter(n, 0.003, 9);
        let bytes = f.to_bytes().unwrap();
        let loaded = RibbonFilter::from_bytes(&bytes).unwrap();
        assert_eq!(loaded, f);
        let view = RibbonFilter::view(&bytes).unwrap();
        view.verify().unwrap();
        assert_eq!(view.to_bytes().unwrap(), bytes);
        for k in 0..2 * n + 100 {
            assert_eq!(view.contains(&k), f.contains(&k));
        }
        assert_eq!(view.into_owned(), f);
        // Unaligned bytes answer too.
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&bytes);
        let view = RibbonFilter::view(&shifted[1..]).unwrap();
        assert!((0..n).all(|k| view.contains(&k)));
    }
}

#[test]
fn digests_and_keys_agree_and_batches_match() {
    let f = filter(5000, 0.01, 2);
    let key: HashKey = f.hash_key();
    let digests: Vec<_> = (0..10_000u64).map(|k| key.digest(&k)).collect();
    let mut out = Vec::new();
    f.contains_digests(&digests, &mut out);
    for (k, (d, &got)) in digests.iter().zip(&out).enumerate() {
        assert_eq!(got, f.contains(&(k as u64)));
        assert_eq!(got, Membership::contains_digest(&f, *d));
    }
}

#[test]
fn is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<RibbonFilter>();
    check::<crate::RibbonFilterView<'static>>();
}
