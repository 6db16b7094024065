//! The sliding-window filter: a ring of Bloom filters, one per generation,
//! that remembers the keys of its last `W` inserts, or of its last `T`
//! ticks of a clock the caller keeps.

use std::fmt;

use approxset_core::format::tag;
use approxset_core::sizing::{
    Plan, SlidingParams, any_block_rate, sliding_params, sliding_params_with_generations,
};
use approxset_core::{BuildOptions, Digest, Error, HashKey, ProbeScheme, Result, Value};

use crate::bits::BitVec;
use crate::layout::{Classic, Layout, all_probes};

/// A sliding-window Bloom filter: it remembers the keys of the last `W`
/// inserts (or, with [`time_window`](SlidingBuilder::time_window), of the
/// last `T` ticks of a clock passed to [`advance_to`](Self::advance_to))
/// and forgets older ones, at a false-positive rate of at most `p` at
/// every moment.
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::SlidingBloomFilter;
///
/// let mut f = SlidingBloomFilter::with_fp_rate(0.01).seed(1).window(1000)?;
/// for i in 0..5000u32 {
///     f.insert(&i)?;
/// }
/// assert!((4000..5000u32).all(|i| f.contains(&i))); // the last 1000: always
/// let old = (0..1000u32).filter(|i| f.contains(i)).count();
/// assert!(old < 40, "{old} of the first 1000 still answer yes"); // forgotten
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
///
/// It is a ring of `r + 1` Bloom filters (blocks) of `m` bits: a key sets
/// its `k` bits in the newest block, and a query asks whether some block
/// holds all `k` of the key's bits. Every `g` inserts (a *generation*) the
/// oldest block is cleared and becomes the newest. So the keys of the
/// current generation and the `r` before it are always found: the last
/// `r·g ≥ W` inserts ([`window`](Self::window)) at least, up to `(r + 1)·g`;
/// a key older than `(r + 1)·g` inserts is gone with its block and answers
/// yes only at a fresh key's rate. `(k, r, g, m)` are the fewest bits whose
/// rate at the worst moment (just before a shift) is at most `p`
/// (`docs/design.md`, "Sliding window").
///
/// A time window ends a generation every `⌈T/r⌉` ticks instead of every
/// `g` inserts: the keys of the last `r·⌈T/r⌉ ≥ T` ticks are always
/// found, those older than `(r + 1)·⌈T/r⌉` are forgotten. More than `g` inserts in one
/// generation lose nothing but raise the false-positive rate above `p`:
/// [`is_overfilled`](Self::is_overfilled) says when.
#[derive(Clone, PartialEq)]
pub struct SlidingBloomFilter {
    pub(crate) bits: BitVec,
    pub(crate) params: SlidingParams,
    /// The physical index of the newest block.
    pub(crate) newest: u32,
    /// Generations ended since the filter was built (or cleared).
    pub(crate) generation: u64,
    /// Inserts made while each physical block was the newest.
    pub(crate) counts: Vec<u64>,
    /// Ticks per generation; 0 for a window of inserts.
    pub(crate) interval: u64,
    /// The last tick passed to `advance_to`.
    pub(crate) tick: u64,
    /// The window asked for: `(g − 1)·r < capacity ≤ g·r`.
    pub(crate) capacity: usize,
    pub(crate) key: HashKey,
    pub(crate) fp_rate: f64,
}

/// A builder of [`SlidingBloomFilter`]s: start with
/// [`SlidingBloomFilter::with_fp_rate`], finish with
/// [`window`](Self::window).
#[derive(Clone, Debug)]
pub struct SlidingBuilder {
    fp_rate: f64,
    ticks: Option<u64>,
    generations: Option<u32>,
    options: BuildOptions,
}

impl SlidingBuilder {
    /// Remember the keys of the last `ticks` ticks of the caller's clock
    /// ([`advance_to`](SlidingBloomFilter::advance_to)) instead of the last
    /// inserts; [`window`](Self::window) is then the inserts expected
    /// within `ticks`.
    pub fn time_window(mut self, ticks: u64) -> Self {
        self.ticks = Some(ticks);
        self
    }

    /// Splits the window into `r` generations instead of the number that
    /// takes the fewest bits (about 7 at 1 %): a key is then forgotten at
    /// most `W/r` inserts past the window, for a few more bits per key.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::SlidingBloomFilter;
    /// let f = SlidingBloomFilter::with_fp_rate(0.01).generations(50).window(1000)?;
    /// assert_eq!(f.params().generations(), 50);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    pub fn generations(mut self, generations: u32) -> Self {
        self.generations = Some(generations);
        self
    }

    approxset_core::build_options_setters!();

    /// Builds the filter that remembers the last `window` inserts (or, with
    /// a time window, sized for `window` inserts within it) at a
    /// false-positive rate of at most the target at every moment.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `fp_rate` outside (0, 1) or below
    /// [`MIN_FP_RATE`](approxset_core::sizing::MIN_FP_RATE), a window or
    /// time window of 0, [`generations`](Self::generations) of 0 or over 63,
    /// or naming `hash` for Parquet's xxHash64
    /// ([`BuildOptions::key_for`]); [`Error::TooLarge`] or
    /// [`Error::AllocationFailed`] when the bits do not fit.
    pub fn window(self, window: usize) -> Result<SlidingBloomFilter> {
        let key = self.options.key_for(tag::SLIDING)?;
        let params = match self.generations {
            None => sliding_params(window, self.fp_rate)?,
            Some(r) => sliding_params_with_generations(window, self.fp_rate, r)?,
        };
        let interval = match self.ticks {
            None => 0,
            Some(ticks) => generation_interval(ticks, params.generations())?,
        };
        let slices = params.slices() as usize;
        Ok(SlidingBloomFilter {
            bits: BitVec::zeros(params.bits(), self.options.max_bytes_limit())?,
            params,
            newest: 0,
            generation: 0,
            counts: vec![0; slices],
            interval,
            tick: 0,
            capacity: window,
            key,
            fp_rate: self.fp_rate,
        })
    }
}

/// The ticks of one generation of a time window of `ticks` over `r`
/// generations, `⌈ticks/r⌉`.
fn generation_interval(ticks: u64, generations: u32) -> Result<u64> {
    if ticks == 0 {
        return Err(Error::invalid(
            "time_window",
            "must be at least 1 tick, got 0",
        ));
    }
    let interval = ticks.div_ceil(u64::from(generations));
    interval
        .checked_mul(u64::from(generations) + 1)
        .ok_or_else(|| {
            Error::invalid(
                "time_window",
                format!("{ticks} ticks: the window plus a generation would pass u64"),
            )
        })?;
    Ok(interval)
}

impl SlidingBloomFilter {
    /// A filter remembering the last `window` inserts at `fp_rate`, with a
    /// random key.
    ///
    /// # Errors
    /// As [`SlidingBuilder::window`].
    pub fn new(window: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).window(window)
    }

    /// Starts a builder for target rate `fp_rate`.
    pub fn with_fp_rate(fp_rate: f64) -> SlidingBuilder {
        SlidingBuilder {
            fp_rate,
            ticks: None,
            generations: None,
            options: BuildOptions::new(),
        }
    }

    /// What a filter for a window of `window` inserts at `fp_rate` takes,
    /// computed without building it: bits, bytes, `k` and the rate at the
    /// worst moment.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::SlidingBloomFilter;
    /// let plan = SlidingBloomFilter::plan(1_000_000, 0.01)?;
    /// assert!(plan.expected_fp() <= 0.01);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`SlidingBuilder::window`], except that nothing is allocated.
    pub fn plan(window: usize, fp_rate: f64) -> Result<Plan> {
        let params = sliding_params(window, fp_rate)?;
        Ok(Plan::new(
            window,
            u128::from(params.bits()),
            u128::from(params.bits().div_ceil(64)) * 8,
            params.hashes(),
            params.fp_rate(),
        ))
    }

    approxset_core::key_methods!(insert);

    /// Inserts a precomputed digest into the current generation, ending it
    /// first when it already holds `g` inserts (a window of inserts);
    /// returns `Ok(true)` when the filter certainly did not hold the key
    /// (it tested absent before the insert).
    ///
    /// A bit changing proves nothing here, unlike in the other Bloom
    /// filters: a key of an older generation holds its bits in an older
    /// block, not in the newest one. So the insert asks
    /// [`contains_digest`](Self::contains_digest) first, and costs a lookup
    /// more than setting `k` bits.
    ///
    /// # Errors
    /// None: the filter always has room. The `Result` is the trait's
    /// signature.
    #[inline]
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        let held = self.contains_digest(digest);
        if self.interval == 0 && self.counts[self.newest as usize] >= self.params.generation_size()
        {
            self.advance();
        }
        let (m, k) = (self.params.slice_bits(), self.params.hashes());
        let start = u64::from(self.newest) * m;
        for position in Classic::positions(m, k, ProbeScheme::Mixed, digest) {
            self.bits.set(start + position);
        }
        let count = &mut self.counts[self.newest as usize];
        *count = count.saturating_add(1);
        Ok(!held)
    }

    /// Whether a precomputed digest may be present: some block holds all
    /// `k` of its bits. Blocks are read newest first, each as the Bloom
    /// filters read theirs (a few bits at a time, up to a clear one).
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        let (m, k) = (self.params.slice_bits(), self.params.hashes());
        (0..self.params.slices()).any(|age| {
            let start = u64::from(self.physical(age)) * m;
            all_probes(
                Classic::positions(m, k, ProbeScheme::Mixed, digest),
                |position| self.bits.get(start + position),
            )
        })
    }

    /// The physical index of the block of age `age` (0 the newest).
    #[inline]
    fn physical(&self, age: u32) -> u32 {
        let slices = self.params.slices();
        let index = self.newest + age;
        if index >= slices {
            index - slices
        } else {
            index
        }
    }

    /// Ends the current generation now: the oldest block is cleared and
    /// becomes the newest. With a window of inserts this happens by itself
    /// every `g` inserts; with a time window, [`advance_to`](Self::advance_to)
    /// calls it. Keys of the `r` generations before the new one stay.
    pub fn advance(&mut self) {
        let slices = self.params.slices();
        self.newest = if self.newest == 0 {
            slices - 1
        } else {
            self.newest - 1
        };
        let m = self.params.slice_bits();
        let start = u64::from(self.newest) * m;
        self.bits.clear_range(start, start + m);
        self.counts[self.newest as usize] = 0;
        self.generation = self.generation.saturating_add(1);
    }

    /// Moves the clock of a time window to `tick` (the caller's time, in
    /// the units of [`time_window`](SlidingBuilder::time_window)), ending
    /// every generation boundary passed since the last tick; returns how
    /// many. Ticks are counted from 0 (a generation ends at every multiple
    /// of [`generation_interval`](Self::generation_interval)); the filter
    /// never reads a clock itself.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::SlidingBloomFilter;
    /// // Remember the last 60 seconds, about 1000 keys in them.
    /// let mut f = SlidingBloomFilter::with_fp_rate(0.01).seed(1).time_window(60).window(1000)?;
    /// f.advance_to(1_000)?;
    /// f.insert("alice")?;
    /// f.advance_to(1_059)?;
    /// assert!(f.contains("alice")); // 59 s ago: inside the window
    /// f.advance_to(2_000)?;
    /// assert!(!f.contains("alice"));
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `tick` for a filter with a window
    /// of inserts (it has no clock) or a tick before the last one; the
    /// filter is then unchanged.
    pub fn advance_to(&mut self, tick: u64) -> Result<u64> {
        if self.interval == 0 {
            return Err(Error::invalid(
                "tick",
                "this filter's window is counted in inserts, not ticks (build it with \
                 time_window for a clock)",
            ));
        }
        if tick < self.tick {
            return Err(Error::invalid(
                "tick",
                format!("the clock went back from {} to {tick}", self.tick),
            ));
        }
        let passed = tick / self.interval - self.tick / self.interval;
        self.tick = tick;
        let slices = u64::from(self.params.slices());
        if passed >= slices {
            // Every block is cleared: do it at once, and keep the newest
            // block where `passed` single steps would have put it.
            let steps = (passed % slices) as u32;
            self.newest = (self.newest + self.params.slices() - steps) % self.params.slices();
            self.bits.clear();
            self.counts.fill(0);
            self.generation = self.generation.saturating_add(passed);
        } else {
            for _ in 0..passed {
                self.advance();
            }
        }
        Ok(passed)
    }

    /// `r·g`: the inserts always remembered, at least the
    /// [`capacity`](Self::capacity) asked for.
    pub fn window(&self) -> usize {
        usize::try_from(self.params.window()).unwrap_or(usize::MAX)
    }

    /// The ticks always remembered, `r·⌈T/r⌉ ≥ T`, for a time window.
    pub fn time_window(&self) -> Option<u64> {
        (self.interval > 0).then(|| self.interval * u64::from(self.params.generations()))
    }

    /// The ticks of one generation, `⌈T/r⌉`, for a time window.
    pub fn generation_interval(&self) -> Option<u64> {
        (self.interval > 0).then_some(self.interval)
    }

    /// The last tick passed to [`advance_to`](Self::advance_to) (0 before).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Generations ended since the filter was built or cleared.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Inserts in the current generation.
    pub fn generation_len(&self) -> u64 {
        self.counts[self.newest as usize]
    }

    /// The sizing: `k`, `r`, `g` and the block bits `m`.
    pub fn params(&self) -> SlidingParams {
        self.params
    }

    /// `k`: the bits a key sets in its block.
    pub fn hashes(&self) -> u32 {
        self.params.hashes()
    }

    /// Bits of all `r + 1` blocks.
    pub fn bits(&self) -> u64 {
        self.params.bits()
    }

    approxset_core::bookkeeping_methods!(
        len = "Inserts of the generations still remembered (the current one and \
               the `r` before it), repeats included: at most `(r + 1)·g` with a \
               window of inserts. Every key they inserted is present.",
        len_from = remembered
    );

    fn remembered(&self) -> usize {
        let total = (0..=self.params.generations())
            .map(|age| self.counts[self.physical(age) as usize])
            .fold(0u64, u64::saturating_add);
        usize::try_from(total).unwrap_or(usize::MAX)
    }

    /// The window `W` asked for, in inserts (the inserts expected within
    /// a time window): what the filter is sized for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether a generation the filter still holds took more than `g`
    /// inserts (possible with a time window) and the estimated rate is
    /// above the target: the keys are all there, with more false positives
    /// than asked for.
    pub fn is_overfilled(&self) -> bool {
        let g = self.params.generation_size();
        self.counts.iter().any(|&c| c > g) && self.estimated_fp_rate() > self.fp_rate
    }

    /// The fraction of block `age`'s bits that are set.
    fn fill(&self, age: u32) -> f64 {
        let m = self.params.slice_bits();
        let start = u64::from(self.physical(age)) * m;
        self.bits.count_ones_range(start, start + m) as f64 / m as f64
    }

    /// The false-positive rate now, from the blocks' fills: a fresh key
    /// is in a block with probability `fill^k`, and in the ring when in any
    /// block (`docs/design.md`, "Sliding window").
    pub fn estimated_fp_rate(&self) -> f64 {
        let k = self.params.hashes() as i32;
        any_block_rate((0..self.params.slices()).map(|age| self.fill(age).powi(k)))
    }

    /// The distinct keys of the remembered generations, estimated from
    /// each block's fill as for a classic filter, `−(m/k)·ln(1 − fill)`,
    /// summed. Infinite when a block is all ones.
    pub fn estimated_items(&self) -> f64 {
        let m = self.params.slice_bits() as f64;
        let k = f64::from(self.params.hashes());
        (0..self.params.slices())
            .map(|age| -m / k * (-self.fill(age)).ln_1p())
            .sum()
    }

    /// Bytes of the blocks' bits.
    pub fn memory_bytes(&self) -> usize {
        self.bits.memory_bytes()
    }

    /// The parameters by name: `hashes` (k), `generations` (r),
    /// `generation_size` (g), `slice_bits` (m), `bits`, `window`,
    /// `generation`, `generation_len`, `ones`, and for a time window
    /// `time_window`, `generation_interval` and `tick`.
    pub fn parameters(&self) -> Vec<(&'static str, Value)> {
        let p = self.params;
        let mut out = vec![
            ("hashes", p.hashes().into()),
            ("generations", p.generations().into()),
            ("generation_size", p.generation_size().into()),
            ("slice_bits", p.slice_bits().into()),
            ("bits", p.bits().into()),
            ("window", self.window().into()),
            ("generation", self.generation.into()),
            ("generation_len", self.generation_len().into()),
            ("ones", self.bits.count_ones().into()),
        ];
        if let (Some(window), Some(interval)) = (self.time_window(), self.generation_interval()) {
            out.push(("time_window", window.into()));
            out.push(("generation_interval", interval.into()));
            out.push(("tick", self.tick.into()));
        }
        out
    }

    /// Forgets every key: back to generation 0, keeping the size, the key
    /// and the clock's last tick.
    pub fn clear(&mut self) {
        self.bits.clear();
        self.counts.fill(0);
        self.newest = 0;
        self.generation = 0;
    }
}

impl fmt::Debug for SlidingBloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlidingBloomFilter")
            .field("variant", &"sliding")
            .field("hashes", &self.params.hashes())
            .field("generations", &self.params.generations())
            .field("generation_size", &self.params.generation_size())
            .field("slice_bits", &self.params.slice_bits())
            .field("capacity", &self.capacity)
            .field("generation", &self.generation)
            .field("len", &self.len())
            .field("fp_rate", &self.fp_rate)
            .field("time_window", &self.time_window())
            .finish_non_exhaustive()
    }
}

/// Inserts every item (an insert never fails), moving the window on.
impl<T: approxset_core::Key> Extend<T> for SlidingBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            // Infallible: the filter always has room.
            let _ = self.insert(&item);
        }
    }
}

approxset_core::impl_approx_set!([] SlidingBloomFilter, variant = "sliding", overfill);

#[cfg(test)]
mod tests {
    use super::*;
    use approxset_core::ApproxSet;

    fn filter(window: usize, p: f64) -> SlidingBloomFilter {
        SlidingBloomFilter::with_fp_rate(p)
            .seed(7)
            .window(window)
            .unwrap()
    }

    /// The false-positive count a correct filter stays under at a true rate
    /// of at most `p` over `q` queries: mean plus five standard deviations
    /// (normal tail below 3·10⁻⁷) plus one for the discreteness.
    fn bound(q: u64, p: f64) -> u64 {
        let mean = q as f64 * p;
        (mean + 5.0 * (mean * (1.0 - p)).sqrt() + 1.0).ceil() as u64
    }

    #[test]
    fn the_window_is_never_missing_a_key() {
        for (w, p) in [(1, 0.01), (2, 0.01), (3, 0.1), (10, 0.01), (1000, 0.001)] {
            let mut f = filter(w, p);
            let window = f.window();
            assert!(window >= w);
            assert!(f.is_empty() && !f.contains(&0u64));
            let total = (window * 5).max(50) as u64;
            for i in 0..total {
                f.insert(&i).unwrap();
                let from = (i + 1).saturating_sub(window as u64);
                // Checked at every insert for small windows, at the worst
                // moments (a generation full) for the large one.
                if window <= 20 || f.generation_len() == f.params().generation_size() {
                    for j in from..=i {
                        assert!(f.contains(&j), "w {w}: key {j} missing after {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn insert_reports_new_only_for_keys_that_tested_absent() {
        let mut f = filter(100, 0.01);
        assert_eq!(f.insert("old"), Ok(true));
        // Later generations: "old" holds its bits in an older block only,
        // so inserting it again sets bits in the newest one but is not new.
        for generation in 1..=f.params().generations() {
            f.advance();
            assert!(f.contains("old"));
            assert_eq!(f.insert("old"), Ok(false), "generation {generation}");
        }
        let mut fresh = 0;
        for i in 0..1000u32 {
            let absent = !f.contains(&i);
            assert_eq!(f.insert(&i), Ok(absent), "{i}");
            fresh += usize::from(absent);
        }
        assert!(fresh > 900, "{fresh}");
    }

    #[test]
    fn one_key_is_forgotten_exactly_after_r_plus_one_generations() {
        for (w, p) in [(1, 0.01), (10, 0.01), (1000, 0.001)] {
            let mut f = filter(w, p);
            let r = f.params().generations();
            f.insert("x").unwrap();
            for _ in 0..r {
                f.advance();
                assert!(f.contains("x"));
            }
            f.advance();
            // Its block was cleared, and it was the only key: no bit is
            // left, so certainly absent.
            assert!(!f.contains("x"), "w {w}");
            assert_eq!(f.parameters()[8], ("ones", 0u64.into()));
        }
    }

    #[test]
    fn the_guarantee_in_inserts() {
        // Inserted more than (r + 1)·g inserts ago: the key's generation is
        // at least r + 1 back, its block cleared.
        let mut f = filter(100, 0.01);
        let (r, g) = (f.params().generations(), f.params().generation_size());
        let horizon = u64::from(r + 1) * g;
        for i in 0..3 * horizon {
            f.insert(&i).unwrap();
        }
        assert!(f.generation() >= 2 * u64::from(r));
        assert_eq!(f.len() as u64, u64::from(r) * g + f.generation_len());
        assert!(f.len() as u64 <= horizon);
    }

    #[test]
    fn keys_just_past_the_horizon_answer_at_the_fresh_rate() {
        // The issue's guarantee: at most one generation past the window a
        // key is gone, so the keys of the generation cleared last answer
        // yes no more often than fresh keys, at the worst moment.
        let (w, p) = (7_000, 0.01);
        let mut f = filter(w, p);
        let (r, g) = (f.params().generations(), f.params().generation_size());
        let mut next = 0u64;
        let mut gone = 0u64;
        let mut queries = 0u64;
        for round in 1..=8u64 {
            // Fill to the worst moment: r + 1 full generations after the
            // ones of the last round.
            while f.generation() < u64::from(r + 1) * round || f.generation_len() < g {
                f.insert(&next).unwrap();
                next += 1;
            }
            // The keys of generation `generation() − r − 1` just left.
            let first = (f.generation() - u64::from(r) - 1) * g;
            gone += (first..first + g).filter(|i| f.contains(i)).count() as u64;
            queries += g;
        }
        assert!(gone <= bound(queries, p), "{gone} of {queries} at {p}");
    }

    #[test]
    fn the_rate_stays_under_the_target_at_the_worst_moment() {
        for (w, p, q) in [(2_000, 0.01, 200_000u64), (500, 0.05, 100_000)] {
            let mut f = filter(w, p);
            let (r, g) = (f.params().generations(), f.params().generation_size());
            let mut next = 0u64;
            // Several windows; measure each time a generation is full.
            let mut worst = 0;
            for round in 0..3u64 {
                while f.generation() < u64::from(r + 1) * (round + 1) || f.generation_len() < g {
                    f.insert(&next).unwrap();
                    next += 1;
                }
                let fp = (0..q)
                    .filter(|i| f.contains(&(u64::MAX - round * q - i)))
                    .count() as u64;
                worst = worst.max(fp);
                let expected = f.estimated_fp_rate();
                assert!(expected <= p * 1.3, "fill says {expected}");
            }
            assert!(worst <= bound(q, p), "{worst} of {q} at target {p}");
        }
    }

    #[test]
    fn old_keys_answer_yes_no_more_than_the_target() {
        let (w, p) = (1_000, 0.01);
        let mut f = filter(w, p);
        let horizon = u64::from(f.params().generations() + 1) * f.params().generation_size();
        let old = 50_000u64;
        for i in 0..old + horizon {
            f.insert(&i).unwrap();
        }
        let fp = (0..old).filter(|i| f.contains(i)).count() as u64;
        assert!(
            fp <= bound(old, p),
            "{fp} of {old} forgotten keys still answer yes"
        );
        assert!(fp > 0, "a full filter has some false positives");
    }

    #[test]
    fn time_window_remembers_ticks_not_inserts() {
        let mut f = SlidingBloomFilter::with_fp_rate(0.01)
            .seed(3)
            .time_window(100)
            .window(1_000)
            .unwrap();
        let interval = f.generation_interval().unwrap();
        let r = u64::from(f.params().generations());
        assert_eq!(f.time_window(), Some(interval * r));
        assert!(interval * r >= 100);
        // Many keys in one generation: nothing is shifted out.
        for i in 0..5_000u32 {
            f.insert(&i).unwrap();
        }
        assert_eq!(f.generation(), 0);
        assert!((0..5_000u32).all(|i| f.contains(&i)));
        assert!(f.is_overfilled());
        // Within T ticks: present; the clock never goes back.
        assert_eq!(f.advance_to(99).unwrap(), 99 / interval);
        assert!((0..5_000u32).all(|i| f.contains(&i)));
        let before = f.clone();
        assert!(matches!(
            f.advance_to(50),
            Err(Error::InvalidParameter { name: "tick", .. })
        ));
        assert_eq!(f, before);
        // Past every block: all cleared at once, the newest block where
        // single steps would put it.
        let mut stepped = f.clone();
        let passed = f.advance_to(99 + 1000 * interval).unwrap();
        for _ in 0..passed {
            stepped.advance();
        }
        assert_eq!(f.generation(), stepped.generation());
        assert_eq!(f.to_bytes().unwrap(), {
            let mut s = stepped.clone();
            s.tick = f.tick;
            s.to_bytes().unwrap()
        });
        assert!(!(0..5_000u32).any(|i| f.contains(&i)));
        assert!(f.is_empty() && !f.is_overfilled());
        // A key of tick t is present at t + T − 1 and gone at t + T + interval.
        f.insert("k").unwrap();
        let t = f.tick();
        f.advance_to(t + 99).unwrap();
        assert!(f.contains("k"));
        f.advance_to(t + r * interval + interval).unwrap();
        assert!(!f.contains("k"));
    }

    #[test]
    fn a_window_of_inserts_has_no_clock() {
        let mut f = filter(10, 0.01);
        assert!(matches!(
            f.advance_to(5),
            Err(Error::InvalidParameter { name: "tick", .. })
        ));
        assert_eq!(f.time_window(), None);
        for i in 0..1000u32 {
            f.insert(&i).unwrap();
            assert!(!f.is_overfilled());
        }
    }

    #[test]
    fn bytes_round_trip_and_continue_alike() {
        for ticks in [None, Some(1_000)] {
            let mut b = SlidingBloomFilter::with_fp_rate(0.01).seed(9);
            if let Some(t) = ticks {
                b = b.time_window(t);
            }
            let mut f = b.window(300).unwrap();
            for i in 0..777u32 {
                f.insert(&i).unwrap();
                if ticks.is_some() && i % 50 == 0 {
                    f.advance_to(u64::from(i) * 3).unwrap();
                }
            }
            let bytes = f.to_bytes().unwrap();
            let mut g = SlidingBloomFilter::from_bytes(&bytes).unwrap();
            assert_eq!(g, f);
            assert_eq!(g.len(), f.len());
            for i in 777..2000u32 {
                f.insert(&i).unwrap();
                g.insert(&i).unwrap();
            }
            assert_eq!(g, f);
            let mut stream = Vec::new();
            g.write_to(&mut stream).unwrap();
            assert_eq!(SlidingBloomFilter::read_from(&stream[..]).unwrap(), f);
        }
    }

    #[test]
    fn clear_forgets_and_len_counts_the_window() {
        let mut f = filter(10, 0.01);
        for i in 0..5u32 {
            f.insert(&i).unwrap();
        }
        assert_eq!(f.len(), 5);
        f.insert(&0u32).unwrap();
        assert_eq!(f.len(), 6, "repeats count");
        f.clear();
        assert!(f.is_empty() && f.generation() == 0);
        assert!(!(0..5u32).any(|i| f.contains(&i)));
        assert_eq!(f.estimated_fp_rate(), 0.0);
        assert_eq!(f.estimated_items(), 0.0);
        assert_eq!(f, filter(10, 0.01));
    }

    #[test]
    fn estimated_items_follow_the_window() {
        let mut f = filter(10_000, 0.01);
        for i in 0..5_000u32 {
            f.insert(&i).unwrap();
        }
        let est = f.estimated_items();
        assert!((est - 5_000.0).abs() < 250.0, "{est}");
        for i in 0..100_000u32 {
            f.insert(&i).unwrap();
        }
        // Every block holds its own generation's keys, distinct here.
        let est = f.estimated_items();
        let len = f.len() as f64;
        assert!((est / len - 1.0).abs() < 0.05, "{est} vs {len}");
    }

    #[test]
    fn bad_parameters_are_errors() {
        let b = || SlidingBloomFilter::with_fp_rate(0.01);
        assert!(b().window(0).is_err());
        assert!(SlidingBloomFilter::new(10, 0.0).is_err());
        assert!(SlidingBloomFilter::new(10, 1.0).is_err());
        assert!(b().time_window(0).window(10).is_err());
        assert!(b().generations(0).window(10).is_err());
        assert!(b().generations(64).window(10).is_err());
        assert_eq!(b().generations(63).window(10).unwrap().window(), 63);
        assert!(b().time_window(u64::MAX).window(10).is_err());
        assert!(b().time_window(u64::MAX / 128).window(10).is_ok());
        assert!(matches!(
            b().max_bytes(100).window(1_000_000),
            Err(Error::TooLarge { .. })
        ));
        assert!(
            b().hash(approxset_core::HashFunction::ParquetXxh64)
                .window(10)
                .is_err()
        );
    }

    #[test]
    fn through_the_trait() {
        let mut f: Box<dyn ApproxSet + Send + Sync> = Box::new(filter(100, 0.01));
        f.insert("a").unwrap();
        assert!(f.contains("a"));
        assert_eq!(f.variant(), "sliding");
        assert_eq!(f.capacity(), 100);
        let typed = f
            .as_any()
            .unwrap()
            .downcast_ref::<SlidingBloomFilter>()
            .unwrap();
        assert!(typed.window() >= 100);
        assert!(f.union_dyn(&filter(100, 0.01)).is_err());
        let names: Vec<&str> = f.parameters().iter().map(|(n, _)| *n).collect();
        for name in [
            "hashes",
            "generations",
            "generation_size",
            "slice_bits",
            "generation",
        ] {
            assert!(names.contains(&name), "{name}");
        }
        fn traits<T: Send + Sync + Clone + fmt::Debug + PartialEq + Extend<u32>>() {}
        traits::<SlidingBloomFilter>();
        let mut g = filter(100, 0.01);
        g.extend(0..50u32);
        assert!((0..50u32).all(|i| g.contains(&i)) && g.len() == 50);
    }
}
