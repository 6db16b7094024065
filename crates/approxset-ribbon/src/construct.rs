//! Construction of a Ribbon filter: hash every key under a seed, order the
//! hashes by start (one counting pass, so banding walks the band nearly in
//! order), band them, and back-substitute; on a conflict retry with a new
//! seed, and after two conflicts in a row on one size, with 1/64 more
//! blocks.
//!
//! Scratch memory, for `m ≈ 1.05·n` slots: the band's 20 bytes a slot
//! (21 bytes per key), the ordered hashes (8 bytes per key) and the
//! solution itself; the builder also holds each key's 8-byte digest half,
//! so about 37 bytes per key in all besides the filter.
//!
//! Repeated keys need no deduplication: a repeat reduces to `0 = 0` and is
//! skipped, so `len` counts the rows that took a pivot. When they make the
//! planned size much larger than the distinct keys need, the filter is
//! banded again at the size for those.

use approxset_core::sizing::check_memory;
use approxset_core::static_filter::{Seeds, try_vec};
use approxset_core::{Error, Result};

use crate::layout::{Layout, blocks_for};
use crate::ribbon::{Added, Band, ribbon_hash, row};

/// Seeds tried before a construction gives up with
/// [`Error::ConstructionFailed`]. A planned size succeeds for a seed with
/// probability about 0.95, and every two failures in a row add 1/64 to the
/// blocks, so even the unluckiest construction succeeds long before.
pub const MAX_ATTEMPTS: u32 = 64;

/// The keys of a construction, as the 64-bit values [`ribbon_hash`] mixes
/// (the static filters' shared trait).
pub(crate) use approxset_core::static_filter::StaticKeys as Keys;

/// How to build: target rate, attempts, memory cap and (for tests) a
/// fixed number of blocks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// The target false-positive rate.
    pub(crate) fp_rate: f64,
    /// Seeds to try.
    pub(crate) attempts: u32,
    /// The solution's cap in bytes.
    pub(crate) max_bytes: Option<usize>,
    /// Blocks to use whatever the key count, never grown (tests of failure).
    pub(crate) blocks: Option<u64>,
}

/// A built filter's solution and what it was built with.
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) solution: Vec<u128>,
    pub(crate) layout: Layout,
    pub(crate) seed: u64,
    pub(crate) len: usize,
}

/// Builds the solution for `keys`, seeds drawn from `seed_state` by
/// SplitMix64 (see the module docs).
pub(crate) fn build<K: Keys + ?Sized>(
    keys: &K,
    seed_state: u64,
    settings: Settings,
) -> Result<Built> {
    let n = keys.count();
    let mut blocks = settings.blocks.unwrap_or_else(|| blocks_for(n));
    let mut resized = settings.blocks.is_some();
    let mut failures_here = 0;
    let mut band = Band::default();
    let mut hashes = try_vec::<u64>(n, n)?;
    for seed in Seeds::new(seed_state, settings.attempts, 0) {
        let layout = Layout::for_rate(blocks, settings.fp_rate)?;
        check_memory(layout.words() as u128 * 16, settings.max_bytes)?;
        // The band: 20 bytes a slot, checked against the address space.
        check_memory(layout.slots() as u128 * 20, None)?;
        band.reset(layout.slots());
        order_by_start(keys, seed, &mut hashes);
        let starts = layout.starts();
        let mut len = 0;
        let mut conflict = false;
        for &h in &hashes {
            match band.add(row(h, starts)) {
                Added::Pivot => len += 1,
                Added::Redundant => {}
                Added::Conflict => {
                    conflict = true;
                    break;
                }
            }
        }
        if conflict {
            failures_here += 1;
            if failures_here >= 2 && settings.blocks.is_none() {
                blocks += (blocks / 64).max(1);
                failures_here = 0;
            }
            continue;
        }
        // Many repeats: band again at the size the distinct keys need.
        let wanted = blocks_for(len);
        if !resized && wanted < blocks - blocks / 64 {
            resized = true;
            blocks = wanted;
            failures_here = 0;
            continue;
        }
        return Ok(Built {
            solution: band.back_substitute(&layout),
            layout,
            seed,
            len,
        });
    }
    Err(Error::ConstructionFailed {
        attempts: settings.attempts,
        items: n,
    })
}

/// Fills `out` with every key's Ribbon hash under `seed`, ordered by its
/// top bits (so by start, which grows with the hash): a counting pass into
/// `2^b` buckets of about 16 keys, unordered within a bucket.
fn order_by_start<K: Keys + ?Sized>(keys: &K, seed: u64, out: &mut [u64]) {
    let n = out.len();
    let bits = (usize::BITS - (n / 16).leading_zeros()).min(20);
    let bucket = |h: u64| {
        if bits == 0 {
            0
        } else {
            (h >> (64 - bits)) as usize
        }
    };
    let mut next = vec![0usize; (1 << bits) + 1];
    keys.each(|v| next[bucket(ribbon_hash(v, seed)) + 1] += 1);
    for i in 1..next.len() {
        next[i] += next[i - 1];
    }
    keys.each(|v| {
        let h = ribbon_hash(v, seed);
        let b = bucket(h);
        out[next[b]] = h;
        next[b] += 1;
    });
}
