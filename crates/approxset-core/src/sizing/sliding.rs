//! Sizing of the age-partitioned Bloom filter (Shtul, Baquero and Almeida
//! 2020), the sliding-window filter: `k + l` slices of `m` bits, a key sets
//! one bit in each of the `k` newest, a query asks whether some `k`
//! consecutive slices all hold the key's bit, and every `g` inserts the
//! oldest slice is cleared and becomes the newest.
//!
//! The false-positive rate is the probability that independent slices,
//! slice `i` (newest first) set with probability `fᵢ`, hold a run of `k`
//! set bits: a dynamic program over the length of the current run
//! ([`run_probability`]). It is highest just before a shift, when every
//! generation holds `g` keys: slice `i` then holds the keys of
//! `min(i + 1, k)` generations, `fᵢ = 1 − (1 − 1/m)^(g·min(i+1, k))`
//! ([`fp_rate_sliding`]). [`sliding_params`] searches `(k, l)` for the
//! fewest bits `(k + l)·m` whose worst moment meets the target.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::{MAX_BITS, too_many_bits, validate_bloom_fp_rate, validate_items};
use crate::error::{Error, Result};

/// The most slices (`k + l`) a sliding filter has: a query reads at most
/// this many bits.
pub const MAX_SLICES: u32 = 64;

/// The parameters of an age-partitioned Bloom filter: `k` slices a key
/// sets, `l` more slices of its past, `g` inserts per generation and `m`
/// bits per slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlidingParams {
    hashes: u32,
    generations: u32,
    generation_size: u64,
    slice_bits: u64,
}

impl SlidingParams {
    /// Parameters from their four numbers.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `k` or `l` of 0, `k + l` over
    /// [`MAX_SLICES`], `g` or `m` of 0; [`Error::TooLarge`] when the bits
    /// `(k + l)·m` pass [`MAX_BITS`] or the window `(l + 1)·g` a `u64`.
    pub fn new(
        hashes: u32,
        generations: u32,
        generation_size: u64,
        slice_bits: u64,
    ) -> Result<Self> {
        if hashes == 0 || generations == 0 || hashes.saturating_add(generations) > MAX_SLICES {
            return Err(Error::invalid(
                "slices",
                format!(
                    "k = {hashes} and l = {generations} must both be at least 1, with k + l at \
                     most {MAX_SLICES}"
                ),
            ));
        }
        if generation_size == 0 {
            return Err(Error::invalid(
                "generation_size",
                "must be at least 1, got 0",
            ));
        }
        if slice_bits == 0 {
            return Err(Error::invalid("slice_bits", "must be at least 1, got 0"));
        }
        let slices = u64::from(hashes + generations);
        let bits = u128::from(slices) * u128::from(slice_bits);
        if bits > u128::from(MAX_BITS) {
            return Err(too_many_bits(bits));
        }
        if generation_size
            .checked_mul(u64::from(generations) + 1)
            .is_none()
        {
            return Err(Error::TooLarge {
                needed: u128::from(generation_size) * (u128::from(generations) + 1),
                limit: u128::from(u64::MAX),
            });
        }
        Ok(SlidingParams {
            hashes,
            generations,
            generation_size,
            slice_bits,
        })
    }

    /// `k`: the slices a key sets, and the run a query looks for.
    pub const fn hashes(self) -> u32 {
        self.hashes
    }

    /// `l`: the full generations remembered besides the current one.
    pub const fn generations(self) -> u32 {
        self.generations
    }

    /// `g`: inserts per generation.
    pub const fn generation_size(self) -> u64 {
        self.generation_size
    }

    /// `m`: bits per slice.
    pub const fn slice_bits(self) -> u64 {
        self.slice_bits
    }

    /// `k + l`: the slices.
    pub const fn slices(self) -> u32 {
        self.hashes + self.generations
    }

    /// `(k + l)·m`: every bit.
    pub const fn bits(self) -> u64 {
        self.slices() as u64 * self.slice_bits
    }

    /// `W = l·g`: the inserts always remembered.
    pub const fn window(self) -> u64 {
        self.generations as u64 * self.generation_size
    }

    /// The false-positive rate at the worst moment ([`fp_rate_sliding`]).
    pub fn fp_rate(self) -> f64 {
        fp_rate_sliding(self)
    }
}

/// The probability that independent slices, set with probabilities
/// `fills` (in order), hold `k` consecutive set slices: a dynamic program
/// over the length of the current run of set slices, `O(k)` per slice.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sizing::run_probability;
/// assert_eq!(run_probability(2, [1.0, 0.0, 1.0]), 0.0);
/// assert!((run_probability(1, [0.5, 0.5]) - 0.75).abs() < 1e-15);
/// assert!((run_probability(2, [0.5; 3]) - 0.375).abs() < 1e-15);
/// ```
pub fn run_probability(k: u32, fills: impl IntoIterator<Item = f64>) -> f64 {
    let k = k.clamp(1, MAX_SLICES) as usize;
    // run[r]: no run of k yet, and the last r slices set.
    let mut run = [0.0f64; MAX_SLICES as usize];
    run[0] = 1.0;
    let mut found = 0.0;
    for f in fills {
        let f = f.clamp(0.0, 1.0);
        found += f * run[k - 1];
        let none: f64 = run[..k].iter().sum::<f64>() * (1.0 - f);
        for r in (1..k).rev() {
            run[r] = run[r - 1] * f;
        }
        run[0] = none;
    }
    found.min(1.0)
}

/// The probability that a bit of a slice of `m` bits is set after
/// `inserts` keys each set one uniform bit: `1 − (1 − 1/m)^inserts`.
pub fn slice_fill(slice_bits: u64, inserts: u64) -> f64 {
    if slice_bits == 0 {
        return 1.0;
    }
    fill_after(slice_bits, inserts as f64)
}

/// The false-positive rate of a sliding filter at its worst moment: just
/// before a shift, every generation holding `g` keys, so slice `i` (newest
/// first) holds `g·min(i + 1, k)` keys.
pub fn fp_rate_sliding(params: SlidingParams) -> f64 {
    let k = params.hashes as usize;
    let m = params.slice_bits;
    // Slices k − 1 and older all hold k generations.
    let mut fills = [0.0f64; MAX_SLICES as usize];
    for (n, fill) in fills[..k].iter_mut().enumerate() {
        *fill = fill_after(m, params.generation_size as f64 * (n + 1) as f64);
    }
    run_probability(
        params.hashes,
        (0..params.slices() as usize).map(|i| fills[i.min(k - 1)]),
    )
}

/// [`slice_fill`] of a real number of inserts (`g·n` may pass a `u64`).
fn fill_after(slice_bits: u64, inserts: f64) -> f64 {
    -(inserts * (-1.0 / slice_bits as f64).ln_1p()).exp_m1()
}

/// A lower bound on the slice bits `(k, l, g)` needs for `fp_rate`: the
/// oldest run of `k` slices alone, each holding at least
/// `g·min(l + 1, k)` keys, must be all set with probability at most the
/// target.
fn slice_bits_lower_bound(k: u32, l: u32, g: u64, fp_rate: f64) -> f64 {
    let least = g as f64 * f64::from((l + 1).min(k));
    let per_slice = fp_rate.powf(1.0 / f64::from(k));
    1.0 / -((-per_slice).ln_1p() / least).exp_m1()
}

/// The least `m` at which `(k, l, g)` meets `fp_rate` at its worst moment,
/// or `None` when it would pass [`MAX_BITS`]. `hint` is a guess (the
/// answer for a neighbouring `l`, scaled): the search gallops from it, then
/// bisects.
fn least_slice_bits(k: u32, l: u32, g: u64, fp_rate: f64, hint: u64) -> Option<u64> {
    let meets = |m: u64| {
        SlidingParams::new(k, l, g, m)
            .ok()
            .is_some_and(|p| fp_rate_sliding(p) <= fp_rate)
    };
    let max = MAX_BITS / u64::from(k + l);
    let start = hint.clamp(1, max);
    let mut step = (start / 64).max(1);
    // lo fails (0 is not a size), hi meets.
    let (mut lo, mut hi) = if meets(start) {
        let mut hi = start;
        loop {
            let next = hi.saturating_sub(step);
            if next == 0 || !meets(next) {
                break (next, hi);
            }
            hi = next;
            step = step.saturating_mul(2);
        }
    } else {
        let mut lo = start;
        loop {
            if lo == max {
                return None;
            }
            let next = lo.saturating_add(step).min(max);
            if meets(next) {
                break (lo, next);
            }
            lo = next;
            step = step.saturating_mul(2);
        }
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The parameters of a sliding filter that always remembers the last
/// `window` inserts with the fewest bits `(k + l)·m` whose false-positive
/// rate is at most `fp_rate` at every moment ([`fp_rate_sliding`]); `g` is
/// `⌈window / l⌉`, so the window remembered, `l·g`, is at least `window`.
///
/// The search tries every `l` for each `k` from 1 (with `k + l ≤
/// MAX_SLICES`), and stops once `k` is three past the best found. The last
/// few hundred answers are kept, so building many filters of one size
/// searches once.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sizing::sliding_params;
/// let p = sliding_params(100_000, 0.01)?;
/// assert!(p.window() >= 100_000);
/// assert!(p.fp_rate() <= 0.01);
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for `window` = 0 or `fp_rate` outside
/// (0, 1) or below [`MIN_FP_RATE`](super::MIN_FP_RATE), as for every Bloom
/// filter; [`Error::TooLarge`] when no filter fits [`MAX_BITS`].
pub fn sliding_params(window: usize, fp_rate: f64) -> Result<SlidingParams> {
    validate_bloom_fp_rate(fp_rate)?;
    validate_items(window)?;
    // The search takes milliseconds, and programs (and tests) build many
    // filters of one size: remember the last few hundred answers.
    type Cache = Mutex<HashMap<(usize, u64), SlidingParams>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let key = (window, fp_rate.to_bits());
    if let Some(&params) = cache
        .lock()
        .ok()
        .and_then(|c| c.get(&key).copied())
        .as_ref()
    {
        return Ok(params);
    }
    let params = search(window as u64, fp_rate)?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(key, params);
    }
    Ok(params)
}

/// The search behind [`sliding_params`], on checked arguments.
fn search(window: u64, fp_rate: f64) -> Result<SlidingParams> {
    // No filter holds W keys at rate p in fewer than W·log₂(1/p) bits.
    let floor = window as f64 * -fp_rate.log2();
    if floor > MAX_BITS as f64 {
        return Err(too_many_bits(floor as u128));
    }
    // (bits, slices, params) of the best so far, first a guess near where
    // the optimum lies (k ≈ ½·log₂(1/p) + 7, k + l near the most slices),
    // so the lower bound below skips most pairs.
    let mut best: Option<(u128, u32, SlidingParams)> = None;
    let guess = (0.5 * -fp_rate.log2() + 7.0)
        .round()
        .clamp(1.0, f64::from(MAX_SLICES - 1)) as u32;
    let l = (MAX_SLICES - guess).saturating_sub(2).max(1);
    let g = window.div_ceil(u64::from(l));
    if let Some(m) = least_slice_bits(guess, l, g, fp_rate, g.saturating_mul(u64::from(guess))) {
        best = Some((
            u128::from(guess + l) * u128::from(m),
            guess + l,
            SlidingParams::new(guess, l, g, m)?,
        ));
    }
    let mut best_k = if best.is_some() { guess } else { 0 };
    for k in 1..MAX_SLICES {
        if best_k > 0 && k > best_k + 3 {
            break;
        }
        // A slice holds the keys of up to k generations: start near the
        // bits a partitioned slice needs for them at this rate.
        let mut hint = (window as f64 * f64::from(k) * 1.5).min(MAX_BITS as f64) as u64;
        let mut last_g = window;
        // Every l: the rounding of g = ⌈W/l⌉ makes the memory jagged in l.
        for l in 1..=(MAX_SLICES - k) {
            let g = window.div_ceil(u64::from(l));
            hint = (u128::from(hint) * u128::from(g) / u128::from(last_g)).max(1) as u64;
            last_g = g;
            if let Some((b, _, _)) = best {
                let least = f64::from(k + l) * slice_bits_lower_bound(k, l, g, fp_rate);
                if least >= b as f64 {
                    continue;
                }
            }
            let Some(m) = least_slice_bits(k, l, g, fp_rate, hint) else {
                continue;
            };
            hint = m;
            let bits = u128::from(k + l) * u128::from(m);
            let better = match best {
                None => true,
                Some((b, s, _)) => bits < b || (bits == b && k + l < s),
            };
            if better {
                let params = SlidingParams::new(k, l, g, m)?;
                best = Some((bits, k + l, params));
                best_k = k;
            }
        }
    }
    match best {
        Some((_, _, params)) => Ok(params),
        None => Err(too_many_bits(
            u128::from(window) * 64 * u128::from(MAX_SLICES),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run probability by enumerating every pattern of set slices.
    fn brute(k: u32, fills: &[f64]) -> f64 {
        let n = fills.len();
        let mut total = 0.0;
        for mask in 0u32..(1 << n) {
            let mut p = 1.0;
            let mut run = 0;
            let mut hit = false;
            for (i, &f) in fills.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    p *= f;
                    run += 1;
                    hit |= run >= k;
                } else {
                    p *= 1.0 - f;
                    run = 0;
                }
            }
            if hit {
                total += p;
            }
        }
        total
    }

    #[test]
    fn run_dp_matches_enumeration() {
        let fills = [0.1, 0.35, 0.5, 0.62, 0.7, 0.2, 0.9, 0.45, 0.55, 0.3];
        for k in 1..=6 {
            for n in 0..=fills.len() {
                let (a, b) = (
                    run_probability(k, fills[..n].iter().copied()),
                    brute(k, &fills[..n]),
                );
                assert!((a - b).abs() < 1e-13, "k {k} n {n}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn worst_moment_lies_between_its_likeliest_run_and_the_union_bound() {
        // Slice i holds g·min(i + 1, k) keys; the l + 1 runs of k slices
        // bound the rate below (the likeliest) and above (their sum).
        let p = SlidingParams::new(7, 3, 1000, 10_000).unwrap();
        let f = |i: u64| slice_fill(10_000, 1000 * (i + 1).min(7));
        let runs: Vec<f64> = (0..=3).map(|a| (a..a + 7).map(f).product()).collect();
        let fp = fp_rate_sliding(p);
        let max = runs.iter().copied().fold(0.0, f64::max);
        assert!(fp >= max && fp <= runs.iter().sum::<f64>(), "{fp} {runs:?}");
    }

    #[test]
    fn params_meet_the_target_with_the_least_memory_nearby() {
        for (w, p) in [
            (1, 0.01),
            (2, 0.5),
            (10, 0.01),
            (1000, 0.001),
            (1_000_000, 0.01),
        ] {
            let s = sliding_params(w, p).unwrap();
            assert!(s.window() >= w as u64);
            assert!(s.fp_rate() <= p, "{s:?} {}", s.fp_rate());
            // One bit fewer per slice misses the target.
            if s.slice_bits() > 1 {
                let less = SlidingParams::new(
                    s.hashes(),
                    s.generations(),
                    s.generation_size(),
                    s.slice_bits() - 1,
                )
                .unwrap();
                assert!(less.fp_rate() > p);
            }
            // Neighbouring (k, l) need at least as many bits.
            for (dk, dl) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                let (k, l) = (s.hashes() as i32 + dk, s.generations() as i32 + dl);
                if k < 1 || l < 1 || k + l > MAX_SLICES as i32 {
                    continue;
                }
                let g = (w as u64).div_ceil(l as u64);
                if let Some(m) = least_slice_bits(k as u32, l as u32, g, p, 1) {
                    assert!(
                        (k + l) as u64 * m >= s.bits(),
                        "{w} {p}: ({k}, {l}) beats {s:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_gallop_finds_the_least_from_any_hint() {
        for hint in [1, 2, 100, 5_000, 12_345, 1 << 20, u64::MAX] {
            assert_eq!(
                least_slice_bits(5, 4, 250, 0.01, hint),
                least_slice_bits(5, 4, 250, 0.01, 7_000)
            );
        }
        let m = least_slice_bits(5, 4, 250, 0.01, 1).unwrap();
        let at = |m| fp_rate_sliding(SlidingParams::new(5, 4, 250, m).unwrap());
        assert!(at(m) <= 0.01 && at(m - 1) > 0.01);
    }

    #[test]
    fn the_lower_bound_is_below_the_least() {
        for (k, l, g, p) in [
            (1, 1, 1, 0.5),
            (5, 4, 250, 0.01),
            (12, 50, 20_000, 0.001),
            (3, 60, 7, 0.2),
        ] {
            let m = least_slice_bits(k, l, g, p, 1).unwrap();
            let lb = slice_bits_lower_bound(k, l, g, p);
            assert!(lb <= m as f64, "({k}, {l}, {g}, {p}): {lb} > {m}");
        }
    }

    #[test]
    fn huge_windows_are_too_large_not_overflows() {
        for (w, p) in [(usize::MAX, 1e-4), (1 << 62, 1e-12), (1 << 62, 0.01)] {
            assert!(
                matches!(sliding_params(w, p), Err(Error::TooLarge { .. })),
                "{w} {p}"
            );
        }
        let p = SlidingParams::new(63, 1, u64::MAX / 2, 1 << 56).unwrap();
        assert!(fp_rate_sliding(p) > 0.99);
    }

    #[test]
    fn bad_targets_are_errors() {
        assert!(sliding_params(0, 0.01).is_err());
        assert!(sliding_params(10, 0.0).is_err());
        assert!(sliding_params(10, 1.0).is_err());
        assert!(sliding_params(10, f64::NAN).is_err());
        assert!(SlidingParams::new(0, 1, 1, 1).is_err());
        assert!(SlidingParams::new(1, 0, 1, 1).is_err());
        assert!(SlidingParams::new(40, 25, 1, 1).is_err());
        assert!(SlidingParams::new(1, 1, 0, 1).is_err());
        assert!(SlidingParams::new(1, 1, 1, 0).is_err());
        assert!(SlidingParams::new(1, 1, 1, MAX_BITS).is_err());
        assert!(SlidingParams::new(1, 1, u64::MAX, 1).is_err());
    }
}

/// The figures of `docs/design.md`: bits per remembered key by `l`.
#[cfg(test)]
mod figures {
    use super::*;

    #[test]
    #[ignore = "prints the sizing table of docs/design.md"]
    fn bits_per_key_by_generations() {
        for p in [0.01, 0.001, 0.0001] {
            let w = 1_000_000u64;
            for l in [1u32, 2, 4, 8, 16, 24, 32, 48, 56] {
                let mut best = (u128::MAX, 0, 0);
                for k in 1..(MAX_SLICES - l).min(40) {
                    let g = w.div_ceil(u64::from(l));
                    if let Some(m) = least_slice_bits(k, l, g, p, g * u64::from(k)) {
                        let b = u128::from(k + l) * u128::from(m);
                        if b < best.0 {
                            best = (b, k, m);
                        }
                    }
                }
                println!(
                    "p {p} l {l}: k {} bits/key {:.2}",
                    best.1,
                    best.0 as f64 / w as f64
                );
            }
            let t = std::time::Instant::now();
            let s = sliding_params(w as usize, p).unwrap();
            println!(
                "chosen {s:?} {:.2} bits/key, searched in {:?}",
                s.bits() as f64 / w as f64,
                t.elapsed()
            );
        }
    }
}
