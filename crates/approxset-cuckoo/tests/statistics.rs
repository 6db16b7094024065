//! Statistical tests of the cuckoo filter through its public API, with fixed
//! seeds: the load it reaches before the first failure, the bits per key
//! there, and the false-positive rate at the sized capacity.
//!
//! Bounds on counts are binomial: the number of false positives over `q`
//! fresh queries has mean `q·p` and standard deviation `√(q·p·(1 − p))`, and
//! a one-sided bound `z = 4.76` standard deviations out has a false-alarm
//! probability below 10⁻⁶ (two-sided, `z = 4.89`).

use approxset_core::hash::splitmix64;
use approxset_cuckoo::{CuckooFilter, Error};

/// One-sided z for a false-alarm probability below 10⁻⁶.
const Z_ONE_SIDED: f64 = 4.76;
/// Two-sided z for a false-alarm probability below 10⁻⁶.
const Z_TWO_SIDED: f64 = 4.89;

fn splitmix(mut x: u64) -> u64 {
    splitmix64(&mut x)
}

/// Distinct keys for a run: `splitmix` is a bijection, so keys from
/// disjoint index ranges never repeat.
fn key(run: u64, i: u64) -> u64 {
    splitmix((run << 40) | i)
}

/// Keys never inserted: a range of indices no fill reaches.
fn fresh(run: u64, i: u64) -> u64 {
    key(run, (1 << 39) | i)
}

/// Inserts distinct keys until the first error; returns how many went in.
fn fill_to_first_failure(f: &mut CuckooFilter, run: u64) -> u64 {
    let mut i = 0;
    loop {
        match f.insert(&key(run, i)) {
            Ok(_) => i += 1,
            Err(Error::Full { items }) => {
                assert_eq!(items as u64, i);
                return i;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
}

fn false_positives(f: &CuckooFilter, run: u64, queries: u64) -> u64 {
    (0..queries).filter(|&i| f.contains(&fresh(run, i))).count() as u64
}

#[test]
fn fills_past_94_percent_before_the_first_failure() {
    // (items sized for, fingerprint bits, seed): bucket counts that are not
    // powers of two, the largest sized for a million keys.
    let cases = [
        (1_000_000, 8, 1),
        (1_000_000, 12, 2),
        (100_000, 16, 3),
        (100_000, 8, 4),
        (77_777, 12, 5),
        (30_001, 16, 6),
        (30_001, 8, 7),
        (10_000, 12, 8),
        (10_000, 16, 9),
    ];
    for (run, (items, bits, seed)) in cases.into_iter().enumerate() {
        let run = run as u64;
        let mut f = CuckooFilter::with_fp_rate(0.5)
            .fingerprint_bits(bits)
            .seed(seed)
            .expected_items(items)
            .unwrap();
        assert!(!f.buckets().is_power_of_two());
        let stored = fill_to_first_failure(&mut f, run);
        assert_eq!(f.len() as u64, stored);
        let load = f.load_factor();
        eprintln!(
            "sized for {items}, {bits}-bit, {} buckets: first failure at load {load:.4}",
            f.buckets()
        );
        assert!(load >= 0.94, "{items} items, {bits} bits: {load}");
        assert!(stored >= items as u64, "the sized capacity went in");
        // Nothing stored was lost, the stashed victim included.
        for i in 0..stored {
            assert!(f.contains(&key(run, i)), "lost key {i} of {stored}");
        }
        // Still full, and the error changed nothing.
        let before = f.clone();
        assert!(f.insert(&fresh(run, u64::MAX >> 30)).is_err());
        assert_eq!(f, before);
    }
}

#[test]
fn bits_per_key_at_full_load_are_near_the_bound() {
    // (fingerprint bits, fresh queries): enough queries that the measured
    // rate is within a few percent (≥ 1,000 expected false positives).
    for (run, (bits, queries)) in [(8, 200_000), (12, 1_000_000), (16, 4_000_000)]
        .into_iter()
        .enumerate()
    {
        let run = 100 + run as u64;
        let mut f = CuckooFilter::with_fp_rate(0.5)
            .fingerprint_bits(bits)
            .seed(run)
            .expected_items(200_000)
            .unwrap();
        let stored = fill_to_first_failure(&mut f, run);
        let fp = false_positives(&f, run, queries);
        assert!(fp > 0);
        let eps = fp as f64 / queries as f64;
        let bits_per_key = f.memory_bytes() as f64 * 8.0 / stored as f64;
        let bound = ((1.0 / eps).log2() + 3.0) / 0.95;
        eprintln!(
            "{bits}-bit at full load {:.4}: {bits_per_key:.3} bits/key, measured eps {eps:.3e} \
             ({fp} of {queries}), bound (log2(1/eps) + 3)/0.95 = {bound:.3}",
            f.load_factor()
        );
        assert!(
            bits_per_key <= bound,
            "{bits} bits: {bits_per_key} > {bound}"
        );
    }
}

#[test]
fn fp_rate_at_capacity_is_under_the_target() {
    // (target, fingerprint bits: explicit or None for automatic).
    let cases = [(0.03, Some(8)), (0.01, None), (0.001, None)];
    let n = 100_000;
    let queries = 1_000_000u64;
    for (run, (p, bits)) in cases.into_iter().enumerate() {
        let run = 200 + run as u64;
        let mut builder = CuckooFilter::with_fp_rate(p).seed(run);
        if let Some(bits) = bits {
            builder = builder.fingerprint_bits(bits);
        }
        let mut f = builder.expected_items(n).unwrap();
        for i in 0..n as u64 {
            f.insert(&key(run, i)).unwrap();
        }
        assert!((0..n as u64).all(|i| f.contains(&key(run, i))));
        let fp = false_positives(&f, run, queries) as f64;
        let q = queries as f64;
        // Under the target: one-sided binomial bound.
        let bound = q * p + Z_ONE_SIDED * (q * p * (1.0 - p)).sqrt();
        // And at the rate the load predicts: two-sided.
        let e = f.estimated_fp_rate();
        let sd = (q * e * (1.0 - e)).sqrt();
        eprintln!(
            "p = {p}, {}-bit, load {:.4}: {fp} false positives in {queries} \
             (rate {:.3e}, estimate {e:.3e}, bound {bound:.0})",
            f.fingerprint_bits(),
            f.load_factor(),
            fp / q
        );
        assert!(e <= p, "estimate {e} over target {p}");
        assert!(fp <= bound, "p = {p}: {fp} > {bound}");
        assert!(
            (fp - q * e).abs() <= Z_TWO_SIDED * sd,
            "p = {p}: {fp} vs expected {}",
            q * e
        );
    }
}

#[test]
fn removing_half_restores_the_rate_of_half() {
    // Removal really frees slots: after removing half the keys, the rate is
    // that of a filter holding the other half, and the removed keys are gone
    // but for false positives.
    let n = 100_000u64;
    let run = 300;
    let mut f = CuckooFilter::with_fp_rate(0.01)
        .seed(run)
        .expected_items(n as usize)
        .unwrap();
    for i in 0..n {
        f.insert(&key(run, i)).unwrap();
    }
    for i in (0..n).step_by(2) {
        assert!(f.remove(&key(run, i)));
    }
    assert_eq!(f.len() as u64, n / 2);
    assert!((1..n).step_by(2).all(|i| f.contains(&key(run, i))));
    let e = f.estimated_fp_rate();
    let q = (n / 2) as f64;
    let still = (0..n)
        .step_by(2)
        .filter(|&i| f.contains(&key(run, i)))
        .count() as f64;
    let bound = q * e + Z_ONE_SIDED * (q * e * (1.0 - e)).sqrt();
    assert!(
        still <= bound,
        "{still} removed keys still found, bound {bound}"
    );
}
