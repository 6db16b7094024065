//! The scalable filter grown far past its initial capacity stays under its
//! target false-positive rate (where peers measured above theirs).

mod common;

use approxset::{ApproxSet, Error, PartitionedBloomFilter, ScalableBloomFilter, Variant, sizing};
use common::{Z_ONE_SIDED_1E6, binomial_upper};

fn grow_and_measure(growth: f64, seed: u64) {
    let (initial, items, queries) = (1_000usize, 100_000u64, 200_000u64);
    let p = 0.01;
    let mut f = ScalableBloomFilter::with_fp_rate(p)
        .growth(growth)
        .seed(seed)
        .initial_capacity(initial)
        .unwrap();
    for i in 0..items {
        f.insert_bytes(&i.to_le_bytes()).unwrap();
    }
    // No false negatives after growing 100×.
    for i in 0..items {
        assert!(f.contains_bytes(&i.to_le_bytes()), "lost {i}");
    }
    assert!(f.stages().len() >= 4, "{} stages", f.stages().len());
    // Fresh keys: under p with a one-sided binomial bound (false alarm < 1e-6).
    let fp = (items..items + queries)
        .filter(|i| f.contains_bytes(&i.to_le_bytes()))
        .count() as u64;
    let bound = binomial_upper(queries, p, Z_ONE_SIDED_1E6);
    assert!(
        (fp as f64) <= bound,
        "growth {growth}: {fp} false positives in {queries}, bound {bound:.0}"
    );
    // The compound estimate from the fills is under the target too.
    assert!(f.estimated_fp_rate() < p, "{}", f.estimated_fp_rate());
    // Every accepted insert counts, the false positives too; the stages
    // store only the rest.
    assert_eq!(f.len() as u64, items);
    let stored: usize = f.stages().iter().map(|s| s.len()).sum();
    assert!(stored as f64 >= items as f64 * (1.0 - p), "{stored}");
    // The distinct items, estimated from the fills: within 3 %.
    let est = f.estimated_items();
    assert!((est / items as f64 - 1.0).abs() < 0.03, "{est}");
}

#[test]
fn growth_two_stays_under_target_after_100x() {
    grow_and_measure(2.0, 11);
}

#[test]
fn growth_four_stays_under_target_after_100x() {
    grow_and_measure(4.0, 12);
}

#[test]
fn stage_errors_sum_below_target_for_any_number_of_stages() {
    // Σ p₀·rⁱ = p·(1 − r)·(1 − rᴺ)/(1 − r) < p for every N.
    let mut f = ScalableBloomFilter::with_fp_rate(0.05)
        .tightening(0.5)
        .seed(3)
        .initial_capacity(4)
        .unwrap();
    f.try_extend(0..20_000u32).unwrap();
    let total: f64 = f.stages().iter().map(|s| s.fp_rate()).sum();
    assert!(f.stages().len() > 10);
    assert!(total < 0.05, "{total}");
}

#[test]
fn built_through_variant_it_grows() {
    let mut f = Variant::Scalable
        .builder()
        .seed(1)
        .build(100, 0.01)
        .unwrap();
    for i in 0..10_000u32 {
        f.insert(&i).unwrap();
    }
    assert!(f.capacity() >= 10_000);
    assert!((0..10_000u32).all(|i| f.contains(&i)));
}

#[test]
fn len_counts_every_accepted_insert_and_estimated_items_the_distinct_ones() {
    // It counted distinct items before (999,814 for 10⁶ keys in the issue);
    // now len is the inserts accepted, as in every variant.
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(21)
        .initial_capacity(1_000)
        .unwrap();
    for i in 0..30_000u32 {
        assert!(f.insert(&i).is_ok());
    }
    for i in 0..10_000u32 {
        // Repeats: accepted, counted, not stored.
        assert!(!f.insert(&i).unwrap());
    }
    assert_eq!(f.len(), 40_000);
    let stored: usize = f.stages().iter().map(|s| s.len()).sum();
    // The keys that were false positives when inserted are not stored: at
    // a rate under p = 1 %, fewer than 30,000·p + 4.76·√(30,000·p) ≈ 383
    // (false alarm below 10⁻⁶).
    assert!((29_600..=30_000).contains(&stored), "{stored}");
    let est = f.estimated_items();
    assert!((est / 30_000.0 - 1.0).abs() < 0.03, "{est}");
    // The trait reports the same count.
    let dynamic: &dyn ApproxSet = &f;
    assert_eq!(dynamic.len(), 40_000);
    // And a reload keeps both counts.
    let again = ScalableBloomFilter::from_bytes(&f.to_bytes().unwrap()).unwrap();
    assert_eq!(again.len(), 40_000);
    assert_eq!(again.estimated_items(), est);
}

#[test]
fn a_file_written_when_len_was_the_stages_sum_loads_and_answers_the_same() {
    // tests/golden/scalable.bin: 50 keys in a chain of 10, 20, 40.
    let golden = std::fs::read(common::golden_path("scalable.bin")).unwrap();
    let g = ScalableBloomFilter::from_bytes(&golden).unwrap();
    let sum: usize = g.stages().iter().map(|s| s.len()).sum();
    assert_eq!((g.len(), sum, g.stages().len()), (50, 50, 3));
    // Built with the golden file's function, the default when it was written.
    let mut fresh = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(42)
        .hash(approxset::HashFunction::SipHash13)
        .initial_capacity(10)
        .unwrap();
    for i in 0..50 {
        fresh
            .insert_bytes(format!("golden-{i}").as_bytes())
            .unwrap();
    }
    assert_eq!(g, fresh);
    for i in 0..10_000u32 {
        let k = format!("other-{i}");
        assert_eq!(
            g.contains_bytes(k.as_bytes()),
            fresh.contains_bytes(k.as_bytes())
        );
    }
    assert!(common::same_data(&golden, &g.to_bytes().unwrap()));
}

#[test]
fn rates_below_what_a_variant_reaches_are_invalid_fp_rate_quoting_the_value() {
    // Scalable said "cannot grow after 0 stages" for 5e-324 and quoted
    // 1.5e-301 for 1e-300.
    for &variant in Variant::INSERTABLE {
        for p in [5e-324, 1e-300, 1e-25] {
            match variant.builder().seed(1).build(100, p) {
                Err(Error::InvalidParameter {
                    name: "fp_rate",
                    reason,
                }) => assert!(
                    reason.starts_with(&format!("{p:?} ")),
                    "{variant} {p}: {reason}"
                ),
                other => panic!("{variant} {p}: {other:?}"),
            }
            assert!(
                matches!(
                    variant.design(100, p),
                    Err(Error::InvalidParameter {
                        name: "fp_rate",
                        ..
                    })
                ),
                "{variant} {p}"
            );
        }
    }
    // Each variant's least rate builds; a little below it does not.
    let scalable = ScalableBloomFilter::min_fp_rate(approxset_bloom::DEFAULT_TIGHTENING);
    assert!(scalable > 4e-18 && scalable < 6e-18, "{scalable}");
    for (variant, least) in [
        (Variant::Classic, sizing::MIN_FP_RATE),
        (Variant::Partitioned, sizing::MIN_FP_RATE),
        (Variant::Counting, sizing::MIN_FP_RATE),
        (Variant::Blocked, sizing::MIN_FP_RATE),
        (Variant::SplitBlock, sizing::MIN_SPLIT_BLOCK_FP_RATE),
        (Variant::Scalable, scalable),
        (Variant::Sliding, sizing::MIN_FP_RATE),
    ] {
        assert!(
            variant.builder().seed(1).build(100, least).is_ok(),
            "{variant}"
        );
        assert!(
            matches!(
                variant.builder().seed(1).build(100, least * 0.999),
                Err(Error::InvalidParameter {
                    name: "fp_rate",
                    ..
                })
            ),
            "{variant}"
        );
    }
    // At its least rate a scalable chain grows its MIN_STAGES stages.
    let mut f = ScalableBloomFilter::with_fp_rate(scalable)
        .growth(1.000_001)
        .seed(1)
        .initial_capacity(2)
        .unwrap();
    let mut i = 0u32;
    while f.stages().len() < approxset_bloom::MIN_STAGES as usize {
        f.insert(&i).unwrap();
        i += 1;
    }
}

#[test]
fn one_stage_and_a_full_stage() {
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(8)
        .initial_capacity(50)
        .unwrap();
    let mut i = 0u32;
    // Fill the first stage to exactly its capacity: still one stage.
    while f.stages()[0].len() < 50 {
        f.insert(&i).unwrap();
        i += 1;
    }
    assert_eq!(f.stages().len(), 1);
    let full = ScalableBloomFilter::from_bytes(&f.to_bytes().unwrap()).unwrap();
    assert_eq!(full, f);
    // The next stored key opens the second stage, in memory and reloaded.
    for mut g in [f, full] {
        let mut j = i;
        while g.stages().len() == 1 {
            g.insert(&j).unwrap();
            j += 1;
        }
        assert_eq!(g.stages()[0].len(), 50);
        assert_eq!(g.stages()[1].len(), 1);
        assert!((0..j).all(|k| g.contains(&k)));
        assert_eq!(
            ScalableBloomFilter::from_bytes(&g.to_bytes().unwrap()).unwrap(),
            g
        );
    }
}

/// A filter of initial capacity 100 capped at `max_bytes`, filled until an
/// insert fails; returns it with the error.
fn fill_to_the_cap(max_bytes: usize) -> (ScalableBloomFilter, Error, u32) {
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(6)
        .max_bytes(max_bytes)
        .initial_capacity(100)
        .unwrap();
    let mut i = 0u32;
    loop {
        if let Err(e) = f.insert(&i) {
            assert!((0..i).all(|k| f.contains(&k)));
            return (f, e, i);
        }
        i += 1;
    }
}

#[test]
fn max_bytes_exactly_at_the_next_stage_admits_it() {
    let first = PartitionedBloomFilter::plan(100, 0.01 * 0.15)
        .unwrap()
        .bytes() as usize;
    let second = PartitionedBloomFilter::plan(200, 0.01 * 0.15 * 0.85)
        .unwrap()
        .bytes() as usize;
    // Exactly the two stages: the second is added, the third refused.
    let (f, err, _) = fill_to_the_cap(first + second);
    assert_eq!(f.stages().len(), 2);
    assert_eq!(f.memory_bytes(), first + second);
    assert!(
        matches!(err, Error::TooLarge { limit, needed } if limit == (first + second) as u128 && needed > limit),
        "{err}"
    );
    // A byte less: the second stage is refused, nothing is lost, and the
    // refusal repeats without changing the filter.
    let (mut f, err, i) = fill_to_the_cap(first + second - 1);
    assert_eq!(f.stages().len(), 1);
    assert_eq!(f.stages()[0].len(), 100);
    assert!(
        matches!(err, Error::TooLarge { needed, .. } if needed == (first + second) as u128),
        "{err}"
    );
    let before = f.clone();
    assert!(f.insert(&i).is_err());
    assert_eq!(f, before);
    assert_eq!(
        ScalableBloomFilter::from_bytes(&f.to_bytes().unwrap()).unwrap(),
        f
    );
}
