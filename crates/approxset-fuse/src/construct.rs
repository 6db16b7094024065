//! Construction of a binary fuse filter (Graf and Lemire, 2022, section 5):
//! hash every key, order the hashes by segment (one bucketing pass, for
//! cache locality), count the keys of every cell and XOR their hashes,
//! peel cells holding one key, then assign the fingerprints in the reverse
//! of the peeling order.
//!
//! Scratch memory, for an array of `m ≈ 1.125·n` cells: a count byte and a
//! hash XOR per cell (`9m` bytes), a byte per key (which of its cells a
//! key peeled from), and one `u32` work area of `n + m + 1` slots that
//! first holds the bucketed hashes (two slots each) and then, as they are
//! no longer needed once counted, the peeling stack (hashes, from the
//! bottom) and queue (cells, from the top), which together never take more
//! than `n + m` slots: about 19.6 bytes per key, plus the filter's own
//! fingerprints (20.8 bytes per key measured at n = 10⁷ with 8-bit ones,
//! `docs/design.md`). The reference code keeps the queue, the stack and the
//! bucketed hashes apart (about 23.6 bytes per key).

use approxset_core::sizing::check_memory;
use approxset_core::static_filter::{Seeds, dedup};
use approxset_core::{Error, Result};

use crate::fingerprint::Fingerprint;
use crate::layout::{Layout, fuse_hash};

/// Seeds derived from the hash key that a construction tries, and as many
/// drawn from the operating system's randomness after them, before it
/// gives up with [`Error::ConstructionFailed`]. A sized layout peels for a
/// seed with probability well above ½ (`docs/design.md`), so 100 failures
/// in a row do not happen by chance; a layout far too small for its keys
/// fails them all. Whoever knows the hash key (a filter built with a
/// given seed) knows the derived seeds and can craft keys that fail each
/// of them; the random seeds that follow cannot be crafted against
/// (`docs/design.md`, "Binary fuse filter").
pub const MAX_ATTEMPTS: u32 = 100;

/// The keys of a construction, as the 64-bit values [`fuse_hash`] mixes
/// (the static filters' shared trait).
pub(crate) use approxset_core::static_filter::StaticKeys as Keys;

/// How to build: attempts, memory cap and (for tests) a fixed layout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Seeds to try from the seed state.
    pub(crate) attempts: u32,
    /// Seeds to try after those, drawn from the operating system's
    /// randomness.
    pub(crate) fallback: u32,
    /// The fingerprint array's cap in bytes.
    pub(crate) max_bytes: Option<usize>,
    /// A layout to use whatever the key count (tests of failure).
    pub(crate) layout: Option<Layout>,
}

impl Settings {
    fn layout_for(&self, n: usize) -> Result<Layout> {
        match self.layout {
            Some(l) => Ok(l),
            None => Layout::plan(n),
        }
    }
}

/// A built filter's array and what it was built with.
#[derive(Debug)]
pub(crate) struct Built<F> {
    pub(crate) cells: Box<[F]>,
    pub(crate) layout: Layout,
    pub(crate) seed: u64,
    pub(crate) len: usize,
}

/// Builds the array for `keys`, seeds drawn from `seed_state` by
/// SplitMix64 and, when `settings.attempts` of them failed, from a fresh
/// random state (so a key set crafted against the derived seeds still
/// builds; the seed that peeled is stored). A failure caused by repeated keys (or the third failure,
/// or a success with so many repeats that the set needs a smaller array)
/// deduplicates the keys (sorting a copy, 8 bytes per key) and re-plans
/// for the distinct ones; any other failure moves to the paper's looser
/// layout where the plan was tighter; with fewer than 16 segments every
/// other seed uses the layout with halved segments.
pub(crate) fn build<F: Fingerprint, K: Keys + ?Sized>(
    keys: &K,
    seed_state: u64,
    settings: Settings,
) -> Result<Built<F>> {
    let mut layout = settings.layout_for(keys.count())?;
    let mut scratch = Scratch::<F>::new(layout, keys.count(), settings.max_bytes)?;
    let mut distinct: Option<Vec<u64>> = None;
    let total = settings.attempts.saturating_add(settings.fallback);
    // When every seed derived from the hash key failed (whoever knows the
    // key can make that happen: one pair of keys sharing three cells per
    // seed), seeds nobody can predict end it.
    let seeds = Seeds::new(seed_state, settings.attempts, settings.fallback);
    for (attempt, seed) in (0u32..).zip(seeds) {
        let this = if attempt % 2 == 1 {
            layout.halved().unwrap_or(layout)
        } else {
            layout
        };
        let outcome = match &distinct {
            None => scratch.attempt(keys, seed, this),
            Some(d) => scratch.attempt(d.as_slice(), seed, this),
        };
        if let Outcome::Peeled(len) = outcome {
            // Many repeats caught while counting: size for the set instead.
            let oversized = distinct.is_none()
                && settings.layout.is_none()
                && Layout::plan(len)?.array_len() < this.array_len() - this.array_len() / 64;
            if !oversized {
                return Ok(Built {
                    cells: scratch.assign(this, len),
                    layout: this,
                    seed,
                    len,
                });
            }
        }
        // Repeats (seen while counting, or two equal keys left in a cell
        // of the unpeeled core) fail every seed until removed; so may
        // repeats neither saw, hence the third failure too. A plain unlucky
        // seed just tries the next one.
        let repeats = match outcome {
            Outcome::Peeled(_) => true,
            Outcome::Failed { repeats } => repeats || attempt >= 2,
        };
        // A plain failure on the tighter layout: the next seeds use the
        // paper's, which peels more often (at 10⁶ keys, 0.99 against 0.8
        // per seed), at a few more cells.
        if !repeats && settings.layout.is_none() {
            let count = distinct.as_ref().map_or(keys.count(), Vec::len);
            let loose = Layout::plan_loose(count)?;
            if loose.array_len() != layout.array_len() {
                // A larger array: new scratch (the old freed first), or,
                // past the memory cap, the tighter layout still.
                drop(std::mem::replace(&mut scratch, Scratch::empty()));
                match Scratch::new(loose, count, settings.max_bytes) {
                    Ok(larger) => {
                        scratch = larger;
                        layout = loose;
                    }
                    Err(_) => scratch = Scratch::new(layout, count, settings.max_bytes)?,
                }
            } else {
                layout = loose;
            }
        }
        if distinct.is_none() && repeats {
            // Free the scratch before the copy, so the peak is one of them
            // plus the copy.
            drop(std::mem::replace(&mut scratch, Scratch::empty()));
            let d = dedup(keys)?;
            layout = settings.layout_for(d.len())?;
            scratch = Scratch::new(layout, d.len(), settings.max_bytes)?;
            distinct = Some(d);
        }
    }
    Err(Error::ConstructionFailed {
        attempts: total,
        items: distinct.map_or(keys.count(), |d| d.len()),
    })
}

/// What one seed gave.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// Every key peeled: the number of distinct keys.
    Peeled(usize),
    /// Some did not; `repeats` when repeated keys were seen.
    Failed {
        /// Whether the keys certainly (or, after the seeds so far, likely)
        /// repeat.
        repeats: bool,
    },
}

/// The scratch arrays of one construction (see the module docs), reused
/// across seeds.
struct Scratch<F> {
    /// Per cell: the number of keys in bits 2…7 and, in bits 0…1, the XOR
    /// of which of its three cells this is for each of them (0, 1, 2), so
    /// a cell with one key knows which it is.
    counts: Vec<u8>,
    /// Per cell: the XOR of its keys' fuse hashes.
    hashes: Vec<u64>,
    /// The bucketed hashes (two slots each), then the stack (hashes, two
    /// slots each, from the bottom) and the queue (cells, from the top).
    work: Vec<u32>,
    /// Per stacked key: which of its three cells it peeled from.
    found: Vec<u8>,
    /// The fingerprint array, zero until assigned.
    cells: Vec<F>,
    /// Whether `counts` and `hashes` must be cleared before an attempt.
    dirty: bool,
}

impl<F: Fingerprint> Scratch<F> {
    fn empty() -> Self {
        Scratch {
            counts: Vec::new(),
            hashes: Vec::new(),
            work: Vec::new(),
            found: Vec::new(),
            cells: Vec::new(),
            dirty: false,
        }
    }

    fn new(layout: Layout, n: usize, max_bytes: Option<usize>) -> Result<Self> {
        let m = layout.array_len();
        let fingerprint_bytes = m as u128 * F::BYTES as u128;
        check_memory(fingerprint_bytes, max_bytes)?;
        // The stack takes two slots per key and the queue one per cell,
        // and a key is stacked only after its cell was queued, so `n + m`
        // slots (and one for the queue's branchless writes) hold both; at
        // least `2n` hold the bucketed hashes.
        let slots = (n as u128 + m as u128 + 1).max(2 * n as u128);
        check_memory(
            m as u128 * 9 + slots * 4 + n as u128 + fingerprint_bytes,
            None,
        )?;
        let slots = slots as usize;
        // `vec![0; _]` takes zeroed pages from the allocator (`calloc`),
        // which the passes then touch once, where a fallible reserve and
        // fill would write all of it first (about 10 % of a build). The
        // sizes are checked above and bounded by the keys' own; past that,
        // like the keys' vector, an allocation the system cannot give
        // aborts.
        Ok(Scratch {
            counts: vec![0; m],
            hashes: vec![0; m],
            work: vec![0; slots],
            found: vec![0; n],
            cells: vec![F::default(); m],
            dirty: false,
        })
    }

    /// One seed: the number of distinct keys when every key peeled.
    fn attempt<K: Keys + ?Sized>(&mut self, keys: &K, seed: u64, layout: Layout) -> Outcome {
        let n = keys.count();
        if self.dirty {
            self.counts.fill(0);
            self.hashes.fill(0);
        }
        self.dirty = true;
        self.bucket(keys, seed, layout);
        let (duplicates, overflow) = self.count(n, layout);
        if overflow {
            return Outcome::Failed { repeats: true };
        }
        let peeled = self.peel(layout);
        if peeled + duplicates == n {
            return Outcome::Peeled(peeled);
        }
        // A cell holding two keys whose hashes XOR to 0 holds one key twice.
        let pair = self
            .counts
            .iter()
            .zip(&self.hashes)
            .any(|(&c, &h)| c >> 2 == 2 && h == 0);
        Outcome::Failed {
            repeats: duplicates > 0 || pair,
        }
    }

    /// Writes the keys' hashes into `work`, ordered by their top bits (so
    /// by the segment of their first cell): `2^b ≥ c` blocks of about
    /// `n / 2^b` slots, a full block spilling into the next.
    fn bucket<K: Keys + ?Sized>(&mut self, keys: &K, seed: u64, layout: Layout) {
        let n = keys.count();
        let mut bits = 1;
        while (1u64 << bits) < u64::from(layout.segment_count()) {
            bits += 1;
        }
        let blocks = 1usize << bits;
        let start = |i: usize| ((i as u128 * n as u128) >> bits) as usize;
        // pos[i] is block i's next free slot, end[i] its end.
        let mut pos: Vec<usize> = (0..blocks).map(start).collect();
        let end: Vec<usize> = (1..=blocks).map(start).collect();
        let work = &mut self.work;
        let mask = blocks - 1;
        keys.each(|v| {
            let hash = fuse_hash(v, seed);
            let mut b = (hash >> (64 - bits)) as usize;
            // Some block has room: there are as many slots as keys.
            while pos[b] == end[b] {
                b = (b + 1) & mask;
            }
            let at = pos[b];
            pos[b] = at + 1;
            work[2 * at] = hash as u32;
            work[2 * at + 1] = (hash >> 32) as u32;
        });
    }

    /// Counts the keys of every cell and XORs their hashes, in bucketed
    /// order. A key met a second time whose cell then holds just the two
    /// copies is taken out again and counted as a duplicate (others are
    /// found by the deduplicating retry). Returns the duplicates and
    /// whether a count passed 63.
    fn count(&mut self, n: usize, layout: Layout) -> (usize, bool) {
        let (counts, hashes, work) = (&mut self.counts, &mut self.hashes, &self.work);
        let mut duplicates = 0;
        let mut overflow = false;
        for pair in work[..2 * n].chunks_exact(2) {
            let hash = u64::from(pair[0]) | (u64::from(pair[1]) << 32);
            let [p0, p1, p2] = layout.positions(hash);
            counts[p0] = counts[p0].wrapping_add(4);
            hashes[p0] ^= hash;
            counts[p1] = counts[p1].wrapping_add(4) ^ 1;
            hashes[p1] ^= hash;
            counts[p2] = counts[p2].wrapping_add(4) ^ 2;
            hashes[p2] ^= hash;
            if hashes[p0] & hashes[p1] & hashes[p2] == 0
                && ((hashes[p0] == 0 && counts[p0] == 8)
                    || (hashes[p1] == 0 && counts[p1] == 8)
                    || (hashes[p2] == 0 && counts[p2] == 8))
            {
                duplicates += 1;
                counts[p0] = counts[p0].wrapping_sub(4);
                hashes[p0] ^= hash;
                counts[p1] = counts[p1].wrapping_sub(4) ^ 1;
                hashes[p1] ^= hash;
                counts[p2] = counts[p2].wrapping_sub(4) ^ 2;
                hashes[p2] ^= hash;
            }
            overflow |= (counts[p0] < 4) | (counts[p1] < 4) | (counts[p2] < 4);
        }
        (duplicates, overflow)
    }

    /// Peels cells that hold one key, last found first: each such key goes
    /// on the stack (as its cell) and leaves its two other cells. Returns
    /// the keys peeled.
    fn peel(&mut self, layout: Layout) -> usize {
        let (counts, hashes, work) = (&mut self.counts, &mut self.hashes, &mut self.work);
        let found_of = &mut self.found;
        let top = work.len() - 1;
        // The queue grows down from `top`, the stack up from 0; they never
        // meet: each cell is queued at most once (when its count is 1 at
        // the start, or drops from 2 to 1), each stacked key was queued
        // first, so stack (2 slots a key, at most n keys) and queue (1 a
        // cell) take at most `n + m < work.len()` slots.
        let mut queued = 0;
        for (i, &c) in counts.iter().enumerate() {
            work[top - queued] = i as u32;
            queued += usize::from(c >> 2 == 1);
        }
        let mut stacked = 0;
        while queued > 0 {
            queued -= 1;
            let cell = work[top - queued] as usize;
            if counts[cell] >> 2 != 1 {
                continue;
            }
            let hash = hashes[cell];
            let found = usize::from(counts[cell] & 3);
            work[2 * stacked] = hash as u32;
            work[2 * stacked + 1] = (hash >> 32) as u32;
            found_of[stacked] = found as u8;
            stacked += 1;
            let [p0, p1, p2] = layout.positions(hash);
            let ring = [p0, p1, p2, p0, p1, p2];
            for step in 1..3 {
                let other = ring[found + step];
                work[top - queued] = other as u32;
                queued += usize::from(counts[other] >> 2 == 2);
                counts[other] = counts[other].wrapping_sub(4) ^ ((found + step) % 3) as u8;
                hashes[other] ^= hash;
            }
        }
        stacked
    }

    /// Assigns the fingerprints, last peeled first: a key's peeled cell
    /// gets its fingerprint XOR the two other cells, which no key peeled
    /// later (assigned earlier) changes again.
    fn assign(mut self, layout: Layout, len: usize) -> Box<[F]> {
        let cells = &mut self.cells;
        let stack = self.work[..2 * len].chunks_exact(2).zip(&self.found[..len]);
        for (pair, &found) in stack.rev() {
            let hash = u64::from(pair[0]) | (u64::from(pair[1]) << 32);
            let found = usize::from(found);
            let [p0, p1, p2] = layout.positions(hash);
            let ring = [p0, p1, p2, p0, p1, p2];
            cells[ring[found]] =
                F::from_hash(hash) ^ cells[ring[found + 1]] ^ cells[ring[found + 2]];
        }
        std::mem::take(&mut self.cells).into_boxed_slice()
    }
}
