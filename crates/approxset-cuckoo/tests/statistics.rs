//! Statistical tests of the cuckoo filter through its public API, with fixed
//! seeds, over fingerprint widths from 4 to 32 bits: the load it reaches
//! before the first failure (nothing lost there), the bits per key there,
//! and the false-positive rate and bits per key at the sized capacity.
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
    // (items sized for, fingerprint bits, seed): every test width, bucket
    // counts that are not powers of two, the largest sized for a million
    // keys.
    let cases = [
        (1_000_000, 10, 1),
        (1_000_000, 4, 2),
        (300_000, 7, 3),
        (300_000, 13, 4),
        (100_000, 16, 5),
        (100_000, 23, 6),
        (100_000, 32, 7),
        (77_777, 12, 8),
        (30_001, 8, 9),
        (30_001, 4, 10),
        (10_000, 5, 11),
        (10_000, 27, 12),
        (3_000, 4, 13),
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
            assert!(
                f.contains(&key(run, i)),
                "{bits} bits: lost key {i} of {stored}"
            );
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
    // rate is within several percent (about 500 to 8,000 false positives).
    let cases = [
        (4, 20_000),
        (7, 100_000),
        (8, 200_000),
        (10, 500_000),
        (12, 1_000_000),
        (13, 2_000_000),
        (16, 4_000_000),
    ];
    for (run, (bits, queries)) in cases.into_iter().enumerate() {
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

/// Bits per key of a filter sized for `n` items at `p`, at capacity.
fn bits_per_key(plan_bytes: u128, n: usize) -> f64 {
    plan_bytes as f64 * 8.0 / n as f64
}

#[test]
fn bits_per_key_at_capacity_are_within_the_target() {
    // The target: at most (log2(1/p) + 4) / 0.94 bits per key at
    // capacity, for sizes where the 94 % load dominates.
    for n in [10_000, 100_000, 1_000_000, 10_000_000, 1 << 40] {
        for p in [0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8] {
            let plan = CuckooFilter::plan(n, p).unwrap();
            let per_key = bits_per_key(plan.bytes(), n);
            let bound = ((1.0 / p).log2() + 4.0) / 0.94;
            assert!(
                per_key <= bound,
                "n = {n}, p = {p}: {} bits, {per_key:.3} bits/key > {bound:.3}",
                plan.fingerprint_bits()
            );
            assert!(plan.expected_fp() <= p);
        }
    }
}

#[test]
fn fp_rate_at_capacity_is_under_the_target() {
    // (target, fingerprint bits: explicit or None for automatic). The
    // automatic widths at 94 % load: 7, 10, 13 and 17 bits.
    let cases = [
        (0.1, None),
        (0.03, Some(8)),
        (0.01, None),
        (0.001, None),
        (1e-4, None),
    ];
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
        let per_key = f.memory_bytes() as f64 * 8.0 / n as f64;
        let per_key_bound = ((1.0 / p).log2() + 4.0) / 0.94;
        eprintln!(
            "p = {p}, {}-bit, load {:.4}: {fp} false positives in {queries} \
             (rate {:.3e}, estimate {e:.3e}, bound {bound:.0}); \
             {per_key:.2} bits/key (bound {per_key_bound:.2})",
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
        if bits.is_none() {
            assert!(per_key <= per_key_bound, "p = {p}: {per_key} bits/key");
            // The least width: one bit fewer would miss the target.
            let fewer = CuckooFilter::with_fp_rate(p)
                .fingerprint_bits(f.fingerprint_bits() - 1)
                .expected_items(n);
            assert!(fewer.is_err(), "p = {p}");
        }
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
        assert!(f.remove(&key(run, i)).is_removed());
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
