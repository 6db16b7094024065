//! The scalable filter grown far past its initial capacity stays under its
//! target false-positive rate (where peers measured above theirs).

mod common;

use approxset::{ApproxSet, ScalableBloomFilter, Variant};
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
    // Distinct items: all counted but for the few that were already false
    // positives when inserted (at most p of them).
    assert!(f.len() as f64 >= items as f64 * (1.0 - p), "{}", f.len());
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
