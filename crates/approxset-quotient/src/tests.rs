//! Unit tests: the filter against a multiset model, growth, merge.

use std::collections::HashMap;

use approxset_core::{Count, Digest, Removal};
use proptest::prelude::*;

use crate::QuotientFilter;
use crate::bits::{Pdep, Portable};

fn filter(n: usize, p: f64) -> QuotientFilter {
    QuotientFilter::with_fp_rate(p)
        .seed(3)
        .expected_items(n)
        .unwrap()
}

#[derive(Debug, Clone)]
enum Op {
    Insert(u16),
    Remove(u16),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0u16..400).prop_map(Op::Insert),
            2 => (0u16..400).prop_map(Op::Remove),
        ],
        0..600,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha, ..ProptestConfig::default() })]

    /// Against a multiset: no key inserted more often than removed is
    /// absent, counts are at least the model's, and `len` is exact; the
    /// tables stay canonical. Small and coarse filters (64 slots, 2-bit
    /// remainders) make collisions, long clusters, counters and growth.
    #[test]
    fn matches_a_multiset(ops in ops(), p in prop_oneof![Just(0.5), Just(0.1), Just(0.01)], n in 1usize..80) {
        let mut f = filter(n, p);
        let mut model: HashMap<u16, u64> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(k) => {
                    f.insert(&k).unwrap();
                    *model.entry(k).or_default() += 1;
                }
                Op::Remove(k) => {
                    // Remove only what was inserted.
                    if model.get(&k).copied().unwrap_or(0) > 0 {
                        prop_assert_eq!(f.remove(&k), Removal::Removed);
                        *model.get_mut(&k).unwrap() -= 1;
                    }
                }
            }
        }
        f.check_invariants();
        let total: u64 = model.values().sum();
        prop_assert_eq!(f.len() as u64, total);
        for (k, &c) in &model {
            if c > 0 {
                prop_assert!(f.contains(k));
                let bound = f.count(k).upper_bound().unwrap();
                prop_assert!(u64::from(bound) >= c);
            }
        }
    }
}

#[test]
fn counts_past_fifteen() {
    let mut f = filter(100, 0.01);
    for _ in 0..1000 {
        f.insert("hot").unwrap();
    }
    assert_eq!(f.count("hot"), Count::AtMost(1000));
    for _ in 0..999 {
        assert!(f.remove("hot").is_removed());
    }
    assert_eq!(f.count("hot"), Count::AtMost(1));
    assert!(f.remove("hot").is_removed());
    assert_eq!(f.remove("hot"), Removal::Absent);
    assert_eq!(f.count("hot"), Count::AtMost(0));
    f.check_invariants();
}

#[test]
fn huge_counts_through_digests() {
    let mut f = filter(10, 0.01);
    let d = Digest::new(12345, 0);
    // Counts kept in the slots: a thousand copies of every remainder take a
    // few slots each.
    for k in 0..50u64 {
        for _ in 0..200 {
            f.insert_digest(Digest::new(k << 58, 0)).unwrap();
        }
    }
    f.insert_digest(d).unwrap();
    f.check_invariants();
    assert!(f.tables[0].used < 50 * 6 + 1, "{}", f.tables[0].used);
    assert_eq!(f.count_digest(Digest::new(7 << 58, 0)), Count::AtMost(200));
}

#[test]
fn grows_without_false_negatives_and_within_the_rate() {
    for p in [0.01, 0.001] {
        let mut f = filter(1000, p);
        let n = 200_000u64;
        for i in 0..n {
            f.insert(&i).unwrap();
        }
        assert!(f.tables() >= 8, "{}", f.tables());
        assert!((0..n).all(|i| f.contains(&i)));
        // Binomial bound at the target: mean q·p, 5.3 sd (false alarm < 1e-7).
        let q = 200_000u64;
        let fps = (n..n + q).filter(|i| f.contains(i)).count() as f64;
        let mean = q as f64 * p;
        assert!(
            fps <= mean + 5.3 * (mean * (1.0 - p)).sqrt(),
            "p {p}: {fps} false positives"
        );
        assert!(f.estimated_fp_rate() <= p);
        // Removes after growth.
        for i in (0..n).step_by(2) {
            assert!(f.remove(&i).is_removed());
        }
        assert!((1..n).step_by(2).all(|i| f.contains(&i)));
        assert_eq!(f.len() as u64, n / 2);
        f.check_invariants();
    }
}

#[test]
fn design_load_memory() {
    for (p, target) in [(0.01, 10.0), (0.001, 13.5)] {
        let n = 1_000_000;
        let mut f = filter(n, p);
        for i in 0..n as u64 {
            f.insert(&i).unwrap();
        }
        assert_eq!(f.tables(), 1);
        let bits = f.memory_bytes() as f64 * 8.0 / n as f64;
        assert!(bits <= target, "p {p}: {bits} bits per key");
        let q = 1_000_000u64;
        let fps = (n as u64..n as u64 + q).filter(|i| f.contains(i)).count() as f64;
        let mean = q as f64 * p;
        assert!(
            fps <= mean + 5.3 * (mean * (1.0 - p)).sqrt(),
            "p {p}: {fps}"
        );
    }
}

#[test]
fn merge_adds_counts_and_answers_both() {
    let mut a = filter(1000, 0.01);
    let mut b = filter(1000, 0.01);
    for i in 0..3000u32 {
        a.insert(&i).unwrap();
    }
    for i in 2000..4000u32 {
        b.insert(&i).unwrap();
    }
    b.insert(&5u32).unwrap();
    let (la, lb) = (a.len(), b.len());
    a.union(&b).unwrap();
    a.check_invariants();
    assert_eq!(a.len(), la + lb);
    assert!((0..4000u32).all(|i| a.contains(&i)));
    assert!(a.count(&2500u32).upper_bound().unwrap() >= 2);
    assert!(a.count(&5u32).upper_bound().unwrap() >= 2);
    // Removes after the merge: every copy, then the rest still present.
    for i in 2000..3000u32 {
        assert!(a.remove(&i).is_removed());
    }
    for i in 0..4000u32 {
        assert!(a.contains(&i), "{i}");
    }
    for i in 0..4000u32 {
        assert!(a.remove(&i).is_removed(), "{i}");
    }
    assert!(a.remove(&5u32).is_removed());
    assert_eq!(a.len(), 0);
    a.check_invariants();
    // Other keys or plans are refused, and change nothing.
    let other = QuotientFilter::with_fp_rate(0.01)
        .seed(4)
        .expected_items(1000)
        .unwrap();
    assert!(a.union(&other).is_err());
    assert!(a.union(&filter(1000, 0.001)).is_err());
}

#[test]
fn merge_of_full_filters_widens() {
    let mut a = filter(1000, 0.01);
    let mut b = filter(1000, 0.01);
    for i in 0..950u32 {
        a.insert(&i).unwrap();
        b.insert(&(i + 10_000)).unwrap();
    }
    assert_eq!((a.tables(), b.tables()), (1, 1));
    a.union(&b).unwrap();
    a.check_invariants();
    assert!(a.tables[0].home > b.tables[0].home);
    // The widened table's remainders are a bit shorter, and every report
    // of them says so: the filter, its parameters, a reloaded copy, a view.
    assert_eq!(a.remainder_bits(), b.remainder_bits() - 1);
    let reported = |params: Vec<(&str, approxset_core::Value)>| {
        params
            .into_iter()
            .find(|(n, _)| *n == "remainder_bits")
            .map(|(_, v)| v)
    };
    let bits = Some(approxset_core::Value::Count(a.remainder_bits().into()));
    assert_eq!(reported(a.parameters()), bits);
    let saved = a.to_bytes().unwrap();
    assert_eq!(
        QuotientFilter::from_bytes(&saved).unwrap().remainder_bits(),
        a.remainder_bits()
    );
    assert_eq!(
        reported(QuotientFilter::view(&saved).unwrap().parameters()),
        bits
    );
    assert!((0..950u32).all(|i| a.contains(&i) && a.contains(&(i + 10_000))));
    for i in 0..2000u32 {
        a.insert(&(i + 50_000)).unwrap();
    }
    a.check_invariants();
    assert!((0..950u32).all(|i| a.remove(&i).is_removed()));
    assert!((0..2000u32).all(|i| a.contains(&(i + 50_000))));
}

#[test]
fn clear_and_edges() {
    let mut f = filter(1, 0.5);
    assert!(!f.contains("a"));
    assert_eq!(f.remove("a"), Removal::Absent);
    for i in 0..500u32 {
        f.insert(&i).unwrap();
    }
    f.clear();
    assert_eq!((f.len(), f.tables()), (0, 1));
    assert!(f.insert("a").unwrap());
    assert!(!f.insert("a").unwrap());
    assert!(!f.insert_if_absent("a").unwrap());
    f.check_invariants();
}

#[test]
fn send_sync() {
    fn ok<T: Send + Sync>() {}
    ok::<QuotientFilter>();
}

#[test]
fn saves_loads_and_views() {
    let mut f = filter(100, 0.01);
    for i in 0..2000u32 {
        f.insert(&i).unwrap();
    }
    for _ in 0..40 {
        f.insert("hot").unwrap();
    }
    let bytes = f.to_bytes().unwrap();
    let g = QuotientFilter::from_bytes(&bytes).unwrap();
    assert_eq!(f, g);
    let v = QuotientFilter::view(&bytes).unwrap();
    v.verify().unwrap();
    assert!((0..2000u32).all(|i| v.contains(&i)));
    assert_eq!(
        v.count_digest(f.hash_key().digest("hot")),
        Count::AtMost(40)
    );
    assert_eq!(v.to_bytes().unwrap(), bytes);
    assert_eq!(v.into_owned().unwrap(), f);
    // Every single-byte change of the payload is refused by the loader
    // (checksum) and by the view (the fields' cross-checks) or leaves a
    // filter that answers every key present.
    for at in (32..bytes.len() - 8).step_by(7) {
        let mut forged = bytes.clone();
        forged[at] ^= 0x10;
        assert!(QuotientFilter::from_bytes(&forged).is_err());
        if let Ok(v) = QuotientFilter::view(&forged) {
            let _ = v.contains("x");
        }
    }
}

/// `settle`, the word-stepping search of inserts and removes, against its
/// definition slot by slot, on a table at its full load (long clusters),
/// from every quotient's run end.
#[test]
fn settle_matches_a_slot_by_slot_scan() {
    let mut f = filter(5_000, 0.01);
    for i in 0..5_000u32 {
        f.insert(&i).unwrap();
    }
    assert_eq!(f.tables(), 1);
    let t = &f.tables[0];
    // Slot x is held by an earlier quotient's run, or by any run.
    let held_before = |x: usize| x > 0 && t.covered_to(x - 1) > x;
    let used = |x: usize| t.covered_to(x) > x;
    let mut checked = 0;
    for q in 0..t.home {
        let place = t.place(q, 0);
        let pending = t.occupied_count(q + 1, place.end);
        assert_eq!(place.pending, pending, "quotient {q}");
        let mut free = place.end;
        while free < t.slots() && used(free) {
            free += 1;
        }
        let mut stop = place.end;
        while stop < t.slots() && held_before(stop) {
            stop += 1;
        }
        assert_eq!(t.settle(place.end, pending, true), free, "quotient {q}");
        assert_eq!(t.settle(place.end, pending, false), stop, "quotient {q}");
        checked += usize::from(free > place.end + 64);
    }
    // The table is full enough that some searches cross several words.
    assert!(checked > 0);
}

/// `Table::is_free` and `Table::is_alone_at_home`, the select-free tests
/// of an insert's and a remove's home slot, against their definitions (no
/// run reaches the slot; the run of the slot's quotient is that slot alone,
/// and holds the remainder once) at every home slot of a table filled a
/// fifth, three fifths and to its limit, with the remainder there and
/// another.
#[test]
fn home_slot_tests_match_their_definitions() {
    let mut f = filter(5_000, 0.01);
    let mut i = 0u32;
    for n in [1_000, 3_000, 4_750] {
        while i < n {
            f.insert(&i).unwrap();
            i += 1;
        }
        let t = &f.tables[0];
        let free = (0..t.home).filter(|&x| {
            assert_eq!(t.is_free(x), t.covered_to(x) <= x, "slot {x} at {n}");
            t.is_free(x)
        });
        assert!(free.count() >= t.home - t.used);
        let mut alone = 0;
        for x in 0..t.home {
            for rem in [t.rem(x), t.rem(x) ^ 1] {
                let place = t.place(x, rem);
                let want = place.start == x && place.end == x + 1 && place.count == 1;
                assert_eq!(t.is_alone_at_home(x, rem), want, "slot {x} at {n}");
                alone += usize::from(want);
            }
        }
        assert!(alone > t.home / 10);
    }
}

/// `Table::contains`, the codec-free membership test, against the count
/// for every fingerprint of coarse tables (2- to 7-bit remainders: many
/// zero remainders, counters that open with 0 and with a smaller value)
/// A lookup's run bounds for every quotient, occupied or not: an
/// unoccupied one is what a shard's torn read can show a lookup (its
/// version check throws the answer away), so its bounds must come back
/// (any), not panic; an occupied one's run is never empty.
#[test]
fn run_bounds_of_any_quotient_come_back() {
    let mut f = filter(1000, 0.01);
    for i in 0..900u32 {
        f.insert(&i).unwrap();
    }
    for t in &f.tables {
        for q in 0..t.home {
            let (start, end) = t.run_of(Portable, q);
            assert!(end <= t.slots(), "quotient {q}");
            if t.next_occupied(q) == Some(q) {
                assert!(start < end, "occupied quotient {q}");
            }
            if let Some(pdep) = Pdep::detect() {
                assert_eq!(
                    pdep.run(|| t.run_of(pdep, q)),
                    (start, end),
                    "PDEP: quotient {q}"
                );
            }
        }
    }
}

/// holding keys inserted up to 40 times each.
#[test]
fn contains_matches_the_count_for_every_fingerprint() {
    let mut counters = 0;
    for p in [0.5, 0.2, 0.01] {
        let mut f = filter(300, p);
        for i in 0..300u32 {
            for _ in 0..=(i * 7) % 41 {
                f.insert(&i).unwrap();
            }
        }
        f.check_invariants();
        for t in &f.tables {
            for q in 0..t.home {
                let mut in_run = 0;
                for rem in 0..1u64 << t.bits {
                    let c = t.count(q, rem);
                    assert_eq!(
                        t.contains(Portable, q, rem),
                        c > 0,
                        "p {p} quotient {q} remainder {rem}"
                    );
                    if let Some(pdep) = Pdep::detect() {
                        assert_eq!(
                            pdep.run(|| t.contains(pdep, q, rem)),
                            c > 0,
                            "PDEP: p {p} quotient {q}"
                        );
                    }
                    in_run += u64::from(c >= 3);
                }
                counters += in_run;
            }
        }
    }
    // Counters were there to be read past.
    assert!(counters > 100, "{counters}");
}
