//! The sliding-window filter's rate against its formula, at the worst
//! moment and through a generation, and the guarantee: a key one
//! generation past the window is gone, answering at a fresh key's rate
//! (`docs/design.md`, "Sliding window"). The tables of the design notes
//! come from the ignored tests:
//! `cargo test --release --test sliding -- --ignored --nocapture`.

mod common;

use approxset::SlidingBloomFilter;
use approxset::sizing::{self, SlidingParams, any_block_rate, fp_rate_classic};
use common::binomial_tolerance;

/// The rate the formula gives when the current generation holds `c` keys
/// and every older one `g`: the newest block holds `c` keys, the `r`
/// others `g` each.
fn rate_at(params: SlidingParams, c: u64) -> f64 {
    let (k, g, m) = (
        params.hashes(),
        params.generation_size(),
        params.slice_bits(),
    );
    let older = std::iter::repeat_n(fp_rate_classic(m, g, k), params.generations() as usize);
    any_block_rate(std::iter::once(fp_rate_classic(m, c, k)).chain(older))
}

/// A filter in its steady state: more than `r + 1` generations in, the
/// current one holding `c` keys. Keys are `u64`s from `next` on.
fn steady(window: usize, p: f64, seed: u64, c: u64, next: &mut u64) -> SlidingBloomFilter {
    let mut f = SlidingBloomFilter::with_fp_rate(p)
        .seed(seed)
        .window(window)
        .unwrap();
    let slices = u64::from(f.params().slices());
    let g = f.params().generation_size();
    while f.generation() < 2 * slices || f.generation_len() != g {
        f.insert(next).unwrap();
        *next += 1;
    }
    for _ in 0..c {
        f.insert(next).unwrap();
        *next += 1;
    }
    assert_eq!(f.generation_len(), if c == 0 { g } else { c });
    f
}

/// False positives among `queries` keys no filter here ever inserted.
fn false_positives(f: &SlidingBloomFilter, queries: u64) -> u64 {
    (0..queries).filter(|i| f.contains(&(u64::MAX - i))).count() as u64
}

/// At the worst moment (every generation full, just before a shift) the
/// measured rate is the formula's, from both sides: a two-sided binomial
/// band (false alarm below 10⁻⁶) plus 5 % for the spread of the blocks'
/// real fills around their means. The fill estimate agrees within 10 %.
#[test]
fn worst_moment_rate_matches_the_formula() {
    const Z_TWO_SIDED_1E6: f64 = 4.9;
    for (window, p, queries) in [(10_000, 0.01, 400_000u64), (5_000, 0.001, 2_000_000)] {
        let mut next = 0;
        let f = steady(window, p, 0x511D, 0, &mut next);
        let model = sizing::fp_rate_sliding(f.params());
        assert!(model <= p);
        assert!((rate_at(f.params(), f.params().generation_size()) - model).abs() < 1e-15);
        let fp = false_positives(&f, queries) as f64;
        let mean = queries as f64 * model;
        let tolerance = binomial_tolerance(queries, model, Z_TWO_SIDED_1E6) + 0.05 * mean;
        assert!(
            (fp - mean).abs() <= tolerance,
            "W = {window}, p = {p}: {fp} false positives in {queries}, the formula expects \
             {mean:.0} ± {tolerance:.0}"
        );
        let estimated = f.estimated_fp_rate();
        assert!(
            (estimated / model - 1.0).abs() < 0.1,
            "estimated {estimated} vs {model}"
        );
    }
}

/// The rate through one generation, measured against the formula: the
/// sawtooth that peaks just before each shift (a table of the design
/// notes).
#[test]
#[ignore = "prints the table of docs/design.md"]
fn rate_through_a_generation() {
    let queries = 2_000_000u64;
    println!("| W | p | k | r | g | m | keys in the current generation | formula | measured |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (window, p) in [(10_000, 0.01), (10_000, 0.001), (100_000, 0.01)] {
        let params = sizing::sliding_params(window, p).unwrap();
        let g = params.generation_size();
        for c in [1, g / 2, g] {
            let mut next = 0;
            let f = steady(window, p, 0x7AB1E, c % g, &mut next);
            let fp = false_positives(&f, queries) as f64 / queries as f64;
            println!(
                "| {window} | {p} | {} | {} | {g} | {} | {c} | {:.5} | {fp:.5} |",
                params.hashes(),
                params.generations(),
                params.slice_bits(),
                rate_at(params, c)
            );
        }
    }
}

/// The guarantee, "at most one generation": right after a shift
/// the keys of the generation just cleared (inserted `r·g` to `(r + 1)·g`
/// inserts ago) answer yes exactly as often as fresh keys, which is at
/// most the formula's rate (one-sided binomial bound, false alarm below
/// 10⁻⁶); before the shift they are all present.
#[test]
fn a_key_one_generation_past_the_window_is_at_the_fresh_rate() {
    const Z_ONE_SIDED_1E6: f64 = 4.8;
    for (window, p, rounds) in [(10_000, 0.01, 40u64), (2_000, 0.001, 400)] {
        let mut next = 0;
        let mut f = steady(window, p, 0x6E2, 0, &mut next);
        let (r, g) = (
            u64::from(f.params().generations()),
            f.params().generation_size(),
        );
        let (mut gone, mut queries) = (0u64, 0u64);
        for _ in 0..rounds {
            // The oldest generation held: its keys are all present.
            let oldest = (f.generation() - r) * g;
            assert!((oldest..oldest + g).all(|i| f.contains(&i)));
            // One insert starts a new generation and clears that block.
            f.insert(&next).unwrap();
            next += 1;
            gone += (oldest..oldest + g).filter(|i| f.contains(i)).count() as u64;
            queries += g;
            while f.generation_len() != g {
                f.insert(&next).unwrap();
                next += 1;
            }
        }
        let model = rate_at(f.params(), 1);
        assert!(model <= p);
        let mean = queries as f64 * model;
        let limit = mean + binomial_tolerance(queries, model, Z_ONE_SIDED_1E6) + 1.0;
        assert!(
            (gone as f64) <= limit,
            "W = {window}, p = {p}: {gone} of {queries} keys one generation past the window \
             answer yes, a fresh key's rate allows {limit:.0}"
        );
    }
}

/// The sliding filter's memory is what its plan says, its window holds at
/// least what was asked for, and the sizing table of the design notes
/// holds: about 15.9 bits per key at 1 %, 21.3 at 0.1 %.
#[test]
fn the_sizing_in_the_design_notes_holds() {
    for (p, low, high) in [(0.01, 15.5, 16.5), (0.001, 21.0, 22.0)] {
        let plan = SlidingBloomFilter::plan(1_000_000, p).unwrap();
        let params = sizing::sliding_params(1_000_000, p).unwrap();
        assert_eq!(plan.bits(), u128::from(params.bits()));
        assert!(params.window() >= 1_000_000);
        let per_key = params.bits() as f64 / 1e6;
        assert!((low..high).contains(&per_key), "p = {p}: {params:?}");
    }
}
