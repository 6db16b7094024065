//! Sizing of the sliding-window filter: a ring of `r + 1` classic Bloom
//! filters (blocks) of `m` bits and `k` hashes each. A key sets its `k`
//! bits in the newest block only; a query asks whether some block holds all
//! `k` of the key's bits; every `g` inserts the oldest block is cleared and
//! becomes the newest.
//!
//! The false-positive rate is highest just before a shift, when every
//! block holds `g` keys. The blocks hold different keys, so a fresh key is
//! a false positive of each block independently, at the classic rate
//! `f = fp_rate_classic(m, g, k)`, and of the ring at
//! `1 − (1 − f)^(r + 1)` ([`fp_rate_sliding`]). [`sliding_params`] tries
//! every `r`: a block is then the least classic filter of `g = ⌈W/r⌉` keys
//! at the rate `p_b = 1 − (1 − p)^(1/(r + 1))`, and the ring of the fewest
//! bits `(r + 1)·m` wins.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::{
    MAX_BITS, MAX_HASHES, fp_rate_classic, least_classic_block, too_many_bits,
    validate_bloom_fp_rate, validate_items,
};
use crate::error::{Error, Result};

/// The most blocks (`r + 1`) a sliding filter has: a query reads at most
/// this many blocks.
pub const MAX_SLICES: u32 = 64;

/// The parameters of a sliding filter's ring: `k` hashes per block, `r`
/// full generations remembered besides the current one (`r + 1` blocks),
/// `g` inserts per generation and `m` bits per block.
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
    /// [`Error::InvalidParameter`] for `k` of 0 or over [`MAX_HASHES`], `r`
    /// of 0 or `r + 1` over [`MAX_SLICES`], `g` or `m` of 0;
    /// [`Error::TooLarge`] when the bits `(r + 1)·m` pass [`MAX_BITS`] or
    /// the inserts `(r + 1)·g` a `u64`.
    pub fn new(
        hashes: u32,
        generations: u32,
        generation_size: u64,
        slice_bits: u64,
    ) -> Result<Self> {
        if hashes == 0 || hashes > MAX_HASHES {
            return Err(Error::invalid(
                "hashes",
                format!("k = {hashes} must be between 1 and {MAX_HASHES}"),
            ));
        }
        if generations == 0 || generations >= MAX_SLICES {
            return Err(Error::invalid(
                "slices",
                format!(
                    "r = {generations} must be at least 1, with r + 1 blocks at most \
                     {MAX_SLICES}"
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
        let blocks = u64::from(generations) + 1;
        let bits = u128::from(blocks) * u128::from(slice_bits);
        if bits > u128::from(MAX_BITS) {
            return Err(too_many_bits(bits));
        }
        if generation_size.checked_mul(blocks).is_none() {
            return Err(Error::TooLarge {
                needed: u128::from(generation_size) * u128::from(blocks),
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

    /// `k`: the bits a key sets in its block, and a query tests per block.
    pub const fn hashes(self) -> u32 {
        self.hashes
    }

    /// `r`: the full generations remembered besides the current one.
    pub const fn generations(self) -> u32 {
        self.generations
    }

    /// `g`: inserts per generation.
    pub const fn generation_size(self) -> u64 {
        self.generation_size
    }

    /// `m`: bits per block.
    pub const fn slice_bits(self) -> u64 {
        self.slice_bits
    }

    /// `r + 1`: the blocks.
    pub const fn slices(self) -> u32 {
        self.generations + 1
    }

    /// `(r + 1)·m`: every bit.
    pub const fn bits(self) -> u64 {
        self.slices() as u64 * self.slice_bits
    }

    /// `W = r·g`: the inserts always remembered.
    pub const fn window(self) -> u64 {
        self.generations as u64 * self.generation_size
    }

    /// The false-positive rate of one full block, `g` keys in `m` bits
    /// with `k` hashes ([`fp_rate_classic`]).
    pub fn block_fp_rate(self) -> f64 {
        fp_rate_classic(self.slice_bits, self.generation_size, self.hashes)
    }

    /// The false-positive rate at the worst moment ([`fp_rate_sliding`]).
    pub fn fp_rate(self) -> f64 {
        fp_rate_sliding(self)
    }
}

/// The rate `1 − Π (1 − fᵢ)` of a query that answers yes when any of
/// independent blocks does, block `i` at rate `fᵢ`, computed without
/// cancellation.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sizing::any_block_rate;
/// assert_eq!(any_block_rate([0.0, 0.0]), 0.0);
/// assert!((any_block_rate([0.5, 0.5]) - 0.75).abs() < 1e-15);
/// assert_eq!(any_block_rate([0.1, 1.0]), 1.0);
/// ```
pub fn any_block_rate(rates: impl IntoIterator<Item = f64>) -> f64 {
    let log_none: f64 = rates
        .into_iter()
        .map(|f| (-f.clamp(0.0, 1.0)).ln_1p())
        .sum();
    (-log_none.exp_m1()).clamp(0.0, 1.0)
}

/// The false-positive rate of a sliding filter at its worst moment: just
/// before a shift, all `r + 1` blocks holding `g` keys each,
/// `1 − (1 − f)^(r + 1)` with `f` the rate of one full block
/// ([`SlidingParams::block_fp_rate`]).
pub fn fp_rate_sliding(params: SlidingParams) -> f64 {
    let f = params.block_fp_rate();
    any_block_rate(std::iter::repeat_n(f, params.slices() as usize))
}

/// The rate each of `blocks` blocks may have for the ring to meet
/// `fp_rate`: `1 − (1 − p)^(1/blocks)`.
fn block_target(fp_rate: f64, blocks: u32) -> f64 {
    -((-fp_rate).ln_1p() / f64::from(blocks)).exp_m1()
}

/// The least ring of `r` generations (`g = ⌈window / r⌉`) that meets
/// `fp_rate` at its worst moment, or `None` when none fits [`MAX_BITS`].
fn ring_for(window: u64, fp_rate: f64, r: u32) -> Option<SlidingParams> {
    let g = window.div_ceil(u64::from(r));
    let block = least_classic_block(g, block_target(fp_rate, r + 1)).ok()?;
    let mut m = block.bits();
    // The block target is met; rounding in the product may still pass the
    // ring's target by an ulp: step up until the ring's own formula agrees.
    for _ in 0..64 {
        let params = SlidingParams::new(block.hashes(), r, g, m).ok()?;
        if params.fp_rate() <= fp_rate {
            return Some(params);
        }
        m = m.checked_add(1 + m / 1_000_000)?;
    }
    None
}

/// The parameters of a sliding filter that always remembers the last
/// `window` inserts with the fewest bits `(r + 1)·m` whose false-positive
/// rate is at most `fp_rate` at every moment ([`fp_rate_sliding`]); `g` is
/// `⌈window / r⌉`, so the window remembered, `r·g`, is at least `window`.
///
/// Every `r` from 1 to `MAX_SLICES − 1` is tried (about 7 wins at 1 %).
/// The last few hundred answers are kept, so building many filters of one
/// size searches once.
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
    cached(window, fp_rate, 0)
}

/// As [`sliding_params`] with `generations` = `r` fixed: more generations
/// forget a key sooner past the window (within `W/r` inserts) for a few
/// more bits per key.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::sizing::sliding_params_with_generations;
/// let p = sliding_params_with_generations(100_000, 0.01, 50)?;
/// assert_eq!(p.generations(), 50);
/// assert_eq!(p.generation_size(), 2_000);
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// As [`sliding_params`], and [`Error::InvalidParameter`] named
/// `generations` for `r` of 0 or `r + 1` over [`MAX_SLICES`].
pub fn sliding_params_with_generations(
    window: usize,
    fp_rate: f64,
    generations: u32,
) -> Result<SlidingParams> {
    if generations == 0 || generations >= MAX_SLICES {
        return Err(Error::invalid(
            "generations",
            format!(
                "must be between 1 and {}, got {generations}",
                MAX_SLICES - 1
            ),
        ));
    }
    cached(window, fp_rate, generations)
}

/// The search, checked and cached; `generations` 0 for every `r`.
fn cached(window: usize, fp_rate: f64, generations: u32) -> Result<SlidingParams> {
    validate_bloom_fp_rate(fp_rate)?;
    validate_items(window)?;
    // The search takes milliseconds, and programs (and tests) build many
    // filters of one size: remember the last few hundred answers.
    type Cache = Mutex<HashMap<(usize, u64, u32), SlidingParams>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let key = (window, fp_rate.to_bits(), generations);
    if let Some(&params) = cache
        .lock()
        .ok()
        .and_then(|c| c.get(&key).copied())
        .as_ref()
    {
        return Ok(params);
    }
    let params = search(window as u64, fp_rate, generations)?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(key, params);
    }
    Ok(params)
}

/// The search behind [`sliding_params`], on checked arguments.
fn search(window: u64, fp_rate: f64, generations: u32) -> Result<SlidingParams> {
    // No filter holds W keys at rate p in fewer than W·log₂(1/p) bits.
    let floor = window as f64 * -fp_rate.log2();
    if floor > MAX_BITS as f64 {
        return Err(too_many_bits(floor as u128));
    }
    let range = if generations == 0 {
        1..=MAX_SLICES - 1
    } else {
        generations..=generations
    };
    // A block of g keys at rate p_b takes at least g·log₂(1/p_b)/ln 2 bits
    // (the textbook rate at its best real k is below every classic rate):
    // try the rings from the least such bound up, and stop once the bound
    // passes the best ring found. Sizing a small block exactly is slow, so
    // this matters more than the order of a few dozen comparisons.
    let mut order: Vec<(f64, u32)> = range
        .map(|r| {
            let g = window.div_ceil(u64::from(r)) as f64;
            let per_block = g * -block_target(fp_rate, r + 1).log2() / std::f64::consts::LN_2;
            (f64::from(r + 1) * per_block, r)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best: Option<SlidingParams> = None;
    for (least, r) in order {
        if best.is_some_and(|b| least >= b.bits() as f64) {
            break;
        }
        let Some(params) = ring_for(window, fp_rate, r) else {
            continue;
        };
        let better = best.is_none_or(|b| {
            params.bits() < b.bits() || (params.bits() == b.bits() && r < b.generations())
        });
        if better {
            best = Some(params);
        }
    }
    best.ok_or_else(|| too_many_bits(u128::from(window) * 64 * u128::from(MAX_SLICES)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_block_rate_is_one_minus_the_product() {
        let rates = [0.1, 0.35, 0.5, 0.0, 1e-12];
        let product: f64 = rates.iter().map(|f| 1.0 - f).product();
        assert!((any_block_rate(rates) - (1.0 - product)).abs() < 1e-15);
        // Small rates keep their digits: 64 blocks at 1e-15 is 6.4e-14.
        let small = any_block_rate([1e-15; 64]);
        assert!((small / 6.4e-14 - 1.0).abs() < 1e-9, "{small}");
    }

    #[test]
    fn worst_moment_is_between_one_block_and_the_union_bound() {
        let p = SlidingParams::new(7, 7, 1000, 9_600).unwrap();
        let f = fp_rate_classic(9_600, 1000, 7);
        assert!((p.block_fp_rate() / f - 1.0).abs() < 1e-12);
        let fp = fp_rate_sliding(p);
        assert!(fp > f && fp <= 8.0 * f, "{fp} {f}");
        assert!(fp > 8.0 * f * (1.0 - 3.5 * f), "{fp} {f}");
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
            // One bit fewer per block misses the target (or the other k
            // candidate does better, which the search would have taken).
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
            // Every other r needs at least as many bits.
            for r in 1..MAX_SLICES {
                if let Some(other) = ring_for(w as u64, p, r) {
                    assert!(other.bits() >= s.bits(), "{w} {p}: {other:?} beats {s:?}");
                }
            }
        }
    }

    #[test]
    fn one_percent_takes_about_sixteen_bits_per_key() {
        let s = sliding_params(1_000_000, 0.01).unwrap();
        let per_key = s.bits() as f64 / 1e6;
        assert!((15.0..17.0).contains(&per_key), "{s:?}: {per_key}");
        assert!((4..=12).contains(&s.generations()), "{s:?}");
        let fixed = sliding_params_with_generations(1_000_000, 0.01, 50).unwrap();
        assert_eq!((fixed.generations(), fixed.generation_size()), (50, 20_000));
        assert!(fixed.bits() > s.bits() && fixed.fp_rate() <= 0.01);
        assert!(sliding_params_with_generations(10, 0.01, 0).is_err());
        assert!(sliding_params_with_generations(10, 0.01, MAX_SLICES).is_err());
    }

    #[test]
    fn the_least_rate_builds_with_capped_hashes() {
        let s = sliding_params(100, super::super::MIN_FP_RATE).unwrap();
        assert!(s.hashes() <= MAX_HASHES);
        assert!(s.fp_rate() <= super::super::MIN_FP_RATE);
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
        assert!(SlidingParams::new(65, 1, 1, 1).is_err());
        assert!(SlidingParams::new(1, 0, 1, 1).is_err());
        assert!(SlidingParams::new(1, 64, 1, 1).is_err());
        assert!(SlidingParams::new(1, 63, 1, 1).is_ok());
        assert!(SlidingParams::new(1, 1, 0, 1).is_err());
        assert!(SlidingParams::new(1, 1, 1, 0).is_err());
        assert!(SlidingParams::new(1, 1, 1, MAX_BITS).is_err());
        assert!(SlidingParams::new(1, 1, u64::MAX, 1).is_err());
    }
}

/// The figures of `docs/design.md`: bits per remembered key by `r`.
#[cfg(test)]
mod figures {
    use super::*;

    #[test]
    #[ignore = "prints the sizing table of docs/design.md"]
    fn bits_per_key_by_generations() {
        for p in [0.01, 0.001, 0.0001] {
            let w = 1_000_000u64;
            for r in [1u32, 2, 4, 6, 7, 8, 12, 16, 32, 50, 63] {
                let s = ring_for(w, p, r).unwrap();
                println!(
                    "p {p} r {r}: k {} bits/key {:.2}",
                    s.hashes(),
                    s.bits() as f64 / w as f64
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
