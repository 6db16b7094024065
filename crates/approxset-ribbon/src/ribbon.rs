//! The Standard Ribbon (Dillinger and Walzer, "Ribbon filter: practically
//! smaller than Bloom and Xor", 2021), as RocksDB's `Standard128Ribbon`
//! shapes it: a key's equation, banding on the fly, back-substitution into
//! interleaved column-major storage, and the query.
//!
//! # The math
//!
//! A filter of `n` keys at rate `p` stores a solution `S`: `m` slots of
//! `b` bits (the *columns*). Each key hashes to an equation: a start
//! `s ∈ [0, m − w]`, a coefficient row `c` of `w = 128` bits (its first
//! bit forced to 1) and a result row `h` of `b` bits. The filter holds the
//! key when `⊕ᵢ cᵢ·S[s + i] = h` in every column: the XOR of the solution
//! rows the coefficient bits select equals the key's result row. A key
//! that is not in the filter has a result row independent of `S` and of
//! its own coefficients, so it matches with probability exactly `2⁻ᵇ`:
//! the rate depends on the columns alone, not on the load, and `b` need
//! not be a power of two or even a whole number (below).
//!
//! Finding `S` is solving `n` linear equations over GF(2) in `m` unknowns
//! (per column, all columns at once). The equations are *banded*: each
//! has its nonzero coefficients within `w` consecutive unknowns. Sorted by
//! start, Gaussian elimination stays inside the band, and Ribbon
//! ("Rapid Incremental Boolean Banding ON the fly") does it one key at a
//! time: slot `i` holds at most one row, whose first coefficient is at
//! `i`. A new row goes to its start slot; if the slot is taken, it is
//! XORed with the row there (coefficients and results), which clears its
//! first bit, and moves on to its next set bit. It ends in an empty slot
//! (a pivot), or with no coefficient left: then its result is 0 (the
//! equation was implied by the others, as a repeated key's is) or not (the
//! system has no solution for this hash seed: retry with another). Each
//! step is a 128-bit XOR, a trailing-zero count and a shift; on average a
//! row takes a few steps at the loads used here.
//!
//! Back-substitution then walks the slots from the top: `S[i]` is the
//! stored result at `i` XOR the parity of the stored row AND the solution
//! above `i` (an empty slot's solution is 0; a non-key's match does not
//! depend on it). Per column, the 128 solution bits above `i` are kept in
//! one `u128` window shifted by one slot each step.
//!
//! # Space
//!
//! Elimination fails when the band is too full. With `w = 128` it
//! succeeds with probability about 0.95 at `m/n` = 1.023 (1000 keys),
//! 1.036 (126,000), 1.048 (10⁶) and 1.059 (10⁷): the overhead grows by
//! about 0.0038 per doubling of `n`, from the last `w` slots, which fewer
//! equations reach (RocksDB's `ribbon_config.cc` measurements, which
//! `layout::blocks_for` uses; our own hashing meets them, see the tests).
//! With `w = 64` the same success takes `m/n` = 1.094 at 120,000 keys
//! and grows by 0.0083 per doubling (1.12 at 10⁶, 1.15 at 10⁷): at 1 %
//! that is 7.5 bits per key at 10⁶, over the 7.27 we aim for, where
//! `w = 128` gives 7.04. The
//! price of `w = 128` is the band's scratch (16 bytes of coefficients per
//! slot) and the query's 128-bit words; both are cheap next to the space.
//!
//! # Fractional bits per key
//!
//! `log₂(1/p)` is rarely whole. The solution is stored in blocks of 128
//! slots, each column of a block one 128-bit word, the block's words
//! together (interleaved column-major storage: a query reads the same
//! word index of two neighbouring blocks). Blocks before `upper_start`
//! have `r = ⌊log₂(1/p)⌋` columns, the others `r + 1`. A key starting in a
//! lower block is checked on `r` columns, one in an upper block on `r + 1`;
//! since a row's pivots all lie at or after its start, and upper blocks
//! come last, every equation an upper key depends on lies in upper blocks
//! and the extra column is solved there alone. With a share `φ` of the
//! starts in lower blocks the rate is `φ·2⁻ʳ + (1 − φ)·2⁻⁽ʳ⁺¹⁾`, which is
//! `p` for `φ = 2ʳ⁺¹·p − 1` (rounded down to whole blocks, so at most `p`).
//! The mean columns `r + 1 − φ` exceed `log₂(1/p)` a little (the rate is
//! convex in the columns): 6.72 for 6.64 at 1 %, 9.98 for 9.97 at 0.1 %,
//! 13.36 for 13.29 at 0.01 %. Times `m/n`: 7.04 bits per key at 1 % and
//! 10.45 at 0.1 % for 10⁶ keys (the bound is 6.64 and 9.97; binary fuse
//! takes 9.0 and 18.0, a classic Bloom filter 9.6 and 14.4).
//!
//! # Small filters
//!
//! A filter has at least one block: 128 slots, `r` or `r + 1` words. One
//! block holds up to about 120 keys (every equation starts at 0, and `k`
//! random 128-bit rows are independent with probability about
//! `1 − 2^(k−128)`), so 10 keys at 1 % take 896 bits (90 per key) and 100
//! keys 8.96 per key; from 1000 keys on the overhead is that of the table.
//!
//! # The query
//!
//! Hash, split the coefficient row at the block boundary (`c << off` for
//! the start's block, `c >> (128 − off)` for the next), and for each
//! column the parity of the two words ANDed with their halves: two 128-bit
//! loads, four ANDs and a parity per column, from two adjacent blocks
//! (`2·16·b` bytes, a few cache lines the prefetcher follows). The last
//! two columns are checked first: 3 non-keys in 4 are answered there. A
//! binary fuse filter reads three cells instead; `docs/design.md` has the
//! instruction counts and the measured ratio.

use crate::layout::{Layout, W};

/// The key's equation: start slot, coefficient row (bit 0 set) and result
/// row (the low bits are the columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) start: usize,
    pub(crate) coeffs: u128,
    pub(crate) result: u32,
}

/// The 64-bit Ribbon hash of a key under `seed`: SplitMix64's finalizer of
/// `h1 + seed`, a bijection of `h1` for every seed, so a new seed gives
/// every key a new equation while equal keys stay equal.
#[inline(always)]
pub(crate) fn ribbon_hash(h1: u64, seed: u64) -> u64 {
    approxset_core::hash::mix64(h1.wrapping_add(seed))
}

/// The high and low halves of `a·b` XORed: every bit depends on every bit
/// of `a` (for an odd constant `b`).
#[inline(always)]
fn fold_multiply(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The equation of the key of Ribbon hash `hash` among `starts` start
/// positions: the start from the hash's high bits (a multiply-shift range
/// reduction), coefficients and result from three independent multipliers.
#[inline(always)]
pub(crate) fn row(hash: u64, starts: u64) -> Row {
    let start = ((u128::from(hash) * u128::from(starts)) >> 64) as usize;
    let lo = fold_multiply(hash, 0x9E37_79B9_7F4A_7C15);
    let hi = fold_multiply(hash, 0xC2B2_AE3D_27D4_EB4F);
    let result = fold_multiply(hash, 0xD6E8_FEB8_6659_FD93) as u32;
    Row {
        start,
        coeffs: (u128::from(hi) << 64) | u128::from(lo) | 1,
        result,
    }
}

/// Parity of a 128-bit word: the halves folded, then `count_ones() & 1`,
/// which LLVM lowers to `popcnt` where the target has it and otherwise to
/// a fold to one byte and x86's parity flag (about eight instructions).
#[inline(always)]
pub(crate) fn parity(x: u128) -> u32 {
    ((x as u64) ^ ((x >> 64) as u64)).count_ones() & 1
}

/// The low `columns` bits set.
#[inline(always)]
pub(crate) fn column_mask(columns: u32) -> u32 {
    ((1u64 << columns) - 1) as u32
}

/// What adding a row to the band did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Added {
    /// It took an empty slot: a new independent equation.
    Pivot,
    /// It reduced to `0 = 0`: implied by the rows before (a repeated key).
    Redundant,
    /// It reduced to `0 = h` with `h ≠ 0`: no solution for this seed.
    Conflict,
}

/// The banded system under construction: per slot, the row whose first
/// coefficient is there (0 when empty) and its result; 20 bytes a slot.
#[derive(Debug, Default)]
pub(crate) struct Band {
    coeffs: Vec<u128>,
    results: Vec<u32>,
}

impl Band {
    /// Empties the band and sizes it for `slots` slots (its allocations
    /// reused).
    pub(crate) fn reset(&mut self, slots: usize) {
        self.coeffs.clear();
        self.coeffs.resize(slots, 0);
        self.results.clear();
        self.results.resize(slots, 0);
    }

    /// Adds a row (see the module docs). A stored row at slot `i` has bit
    /// 0 set and ends before `i + 128`; a row of start `s ≤ slots − 128`
    /// only ever moves to slots below `s + 128`, so every index is in
    /// bounds.
    #[inline]
    pub(crate) fn add(&mut self, row: Row) -> Added {
        let (mut i, mut c, mut r) = (row.start, row.coeffs, row.result);
        loop {
            let here = self.coeffs[i];
            if here == 0 {
                self.coeffs[i] = c;
                self.results[i] = r;
                return Added::Pivot;
            }
            c ^= here;
            r ^= self.results[i];
            if c == 0 {
                return if r == 0 {
                    Added::Redundant
                } else {
                    Added::Conflict
                };
            }
            let shift = c.trailing_zeros();
            i += shift as usize;
            c >>= shift;
        }
    }

    /// The solution of the banded system in `layout`'s interleaved storage
    /// (`layout.words()` words): back-substitution from the top slot, one
    /// 128-bit window of solution bits per column, a block's windows
    /// stored once its lowest slot is solved.
    pub(crate) fn back_substitute(&self, layout: &Layout) -> Vec<u128> {
        let mut solution = vec![0u128; layout.words()];
        let mut windows = [0u128; crate::layout::MAX_COLUMNS as usize + 1];
        for b in (0..layout.blocks()).rev() {
            let columns = layout.columns(b) as usize;
            let slots = b * W..(b + 1) * W;
            for (&c, &r) in self.coeffs[slots.clone()]
                .iter()
                .zip(&self.results[slots])
                .rev()
            {
                for (j, window) in windows[..columns].iter_mut().enumerate() {
                    let above = *window << 1;
                    let bit = parity(above & c) ^ ((r >> j) & 1);
                    *window = above | u128::from(bit);
                }
            }
            let at = layout.offset(b);
            solution[at..at + columns].copy_from_slice(&windows[..columns]);
        }
        solution
    }
}

/// The parity of a key's equation in one column: the column's word of the
/// start's block ANDed with `here`, XOR the next block's ANDed with `next`,
/// folded to 64 bits.
#[inline(always)]
fn column_parity(x: u128, y: u128, here: u128, next: u128) -> u32 {
    parity((x & here) ^ (y & next))
}

/// Whether a key's computed result row over the column words of the
/// start's block and the next block, pairwise, equals `expected` (the
/// columns' low bits). The columns are taken from the last, each parity
/// shifted in from the right (one `lea`, where bit `j` would take a
/// variable shift), and the last two first: most non-keys (3 in 4) are
/// answered after two columns.
#[inline(always)]
fn matches(pairs: impl PairsIter, here: u128, next: u128, expected: u32) -> bool {
    let columns = pairs.len();
    let mut pairs = pairs.rev();
    let mut got = 0;
    for (x, y) in pairs.by_ref().take(2) {
        got = got << 1 | column_parity(x, y, here, next);
    }
    if got != expected >> columns.saturating_sub(2) {
        return false;
    }
    for (x, y) in pairs {
        got = got << 1 | column_parity(x, y, here, next);
    }
    got == expected
}

/// The pairs of words a lookup reads (see [`Solution::pairs`]).
pub(crate) trait PairsIter:
    DoubleEndedIterator<Item = (u128, u128)> + ExactSizeIterator
{
}

impl<I: DoubleEndedIterator<Item = (u128, u128)> + ExactSizeIterator> PairsIter for I {}

/// Read access to a solution's 128-bit words: the owned array, or a saved
/// filter's bytes.
pub(crate) trait Solution {
    /// Word `i` (in bounds for every index a checked layout gives).
    #[cfg(test)]
    fn word(&self, i: usize) -> u128;

    /// The pairs (word `w0 + j`, word `w0 + columns + j`) for `j <
    /// columns`: a key's words in the start's block and in the next block
    /// (block `b + 1` starts `columns(b)` words after block `b`); without
    /// `two_blocks`, the start's words twice (its `next` half is then 0).
    fn pairs(&self, w0: usize, columns: usize, two_blocks: bool) -> impl PairsIter;
}

/// The words a lookup reads, `w0..w0 + columns` and, with `two_blocks`,
/// the `columns` after them: one range, one bounds check.
#[inline(always)]
fn span(w0: usize, columns: usize, two_blocks: bool) -> std::ops::Range<usize> {
    w0..w0 + columns + if two_blocks { columns } else { 0 }
}

impl Solution for [u128] {
    #[cfg(test)]
    fn word(&self, i: usize) -> u128 {
        self[i]
    }

    #[inline(always)]
    fn pairs(&self, w0: usize, columns: usize, two: bool) -> impl PairsIter {
        let (a, rest) = self[span(w0, columns, two)].split_at(columns);
        a.iter()
            .zip(if two { rest } else { a })
            .map(|(&x, &y)| (x, y))
    }
}

/// A solution's words where they lie in a saved filter: 16 bytes each,
/// little-endian, at any alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SolutionBytes<'a>(pub(crate) &'a [u8]);

/// The little-endian `u128` of 16 bytes.
#[inline(always)]
fn le_word(bytes: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(bytes);
    u128::from_le_bytes(b)
}

impl SolutionBytes<'_> {
    /// The words, copied out.
    pub(crate) fn words(&self) -> Box<[u128]> {
        self.0.chunks_exact(16).map(le_word).collect()
    }
}

impl Solution for SolutionBytes<'_> {
    #[cfg(test)]
    fn word(&self, i: usize) -> u128 {
        le_word(&self.0[16 * i..16 * i + 16])
    }

    /// Over the bytes of the words, 16 a word.
    #[inline(always)]
    fn pairs(&self, w0: usize, columns: usize, two: bool) -> impl PairsIter {
        let words = span(w0, columns, two);
        let (a, rest) = self.0[16 * words.start..16 * words.end].split_at(16 * columns);
        let b = if two { rest } else { a };
        let pairs = a.chunks_exact(16).zip(b.chunks_exact(16));
        pairs.map(|(x, y)| (le_word(x), le_word(y)))
    }
}

/// Whether the key of Ribbon hash `hash` may be in the filter of
/// `solution` and `layout`: its equation holds in every column of its
/// start block.
#[inline(always)]
pub(crate) fn contains<S: Solution + ?Sized>(solution: &S, layout: &Layout, hash: u64) -> bool {
    if layout.starts() == 0 {
        return false;
    }
    let row = row(hash, layout.starts());
    let (block, off) = (row.start / W, (row.start % W) as u32);
    // The coefficients over the start's block and over the next one (none
    // when the row starts on a block boundary: then the "next" block read
    // is the start's own, ANDed with 0).
    let here = row.coeffs << off;
    let next = (row.coeffs >> 1) >> (127 - off);
    let columns = layout.columns(block);
    let expected = row.result & column_mask(columns);
    let w0 = layout.offset(block);
    matches(
        solution.pairs(w0, columns as usize, off != 0),
        here,
        next,
        expected,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_matches_count_ones() {
        let mut s = 1u64;
        for _ in 0..10_000 {
            let x = (u128::from(approxset_core::hash::splitmix64(&mut s)) << 64)
                | u128::from(approxset_core::hash::splitmix64(&mut s));
            assert_eq!(parity(x), x.count_ones() & 1);
        }
        assert_eq!(parity(0), 0);
        assert_eq!(parity(u128::MAX), 0);
        assert_eq!(parity(1 << 127), 1);
    }

    #[test]
    fn rows_start_in_range_with_bit_zero_set() {
        for starts in [1u64, 2, 129, 1 << 20] {
            for h in [0, 1, u64::MAX, 0x1234_5678_9abc_def0] {
                let r = row(h, starts);
                assert!((r.start as u64) < starts);
                assert_eq!(r.coeffs & 1, 1);
            }
        }
    }

    #[test]
    fn a_repeated_row_is_redundant_and_a_contradiction_conflicts() {
        let mut band = Band::default();
        band.reset(256);
        let r = row(42, 129);
        assert_eq!(band.add(r), Added::Pivot);
        assert_eq!(band.add(r), Added::Redundant);
        let mut bad = r;
        bad.result ^= 1;
        assert_eq!(band.add(bad), Added::Conflict);
    }

    /// Solves a random system and checks every equation against a naive
    /// dot product, in every column of every block, with a mix of lower
    /// and upper blocks.
    #[test]
    fn back_substitution_satisfies_every_equation() {
        for (blocks, lower, upper_start) in [(1u64, 7, 0u64), (4, 7, 2), (9, 0, 3), (5, 31, 4)] {
            let layout = Layout::new(blocks, lower, upper_start).unwrap();
            let mut band = Band::default();
            band.reset(layout.slots());
            let mut rows = Vec::new();
            let mut s = blocks * 1000 + u64::from(lower);
            while rows.len() < layout.slots() * 9 / 10 {
                let r = row(approxset_core::hash::splitmix64(&mut s), layout.starts());
                if band.add(r) != Added::Conflict {
                    rows.push(r);
                } else {
                    break;
                }
            }
            assert!(rows.len() > layout.slots() / 2, "{blocks} blocks");
            let solution = band.back_substitute(&layout);
            assert_eq!(solution.len(), layout.words());
            // The naive check: slot i's bit of column j.
            let bit = |slot: usize, j: u32| -> u32 {
                let b = slot / W;
                if j >= layout.columns(b) {
                    return 0;
                }
                ((solution[layout.offset(b) + j as usize] >> (slot % W)) & 1) as u32
            };
            for r in &rows {
                let columns = layout.columns(r.start / W);
                for j in 0..columns {
                    let mut dot = 0;
                    for i in 0..W {
                        if (r.coeffs >> i) & 1 == 1 {
                            dot ^= bit(r.start + i, j);
                        }
                    }
                    assert_eq!(
                        dot,
                        (r.result >> j) & 1,
                        "column {j} of a row at {}",
                        r.start
                    );
                }
                // And the query agrees.
                let got = {
                    let (block, off) = (r.start / W, (r.start % W) as u32);
                    let here = r.coeffs << off;
                    let next = (r.coeffs >> 1) >> (127 - off);
                    let w0 = layout.offset(block);
                    let w1 = layout.offset(block + usize::from(off != 0));
                    (0..columns as usize).fold(0u32, |acc, j| {
                        acc | parity((solution[w0 + j] & here) ^ (solution[w1 + j] & next)) << j
                    })
                };
                assert_eq!(got, r.result & column_mask(columns));
            }
        }
    }

    #[test]
    fn the_owned_and_byte_solutions_read_alike() {
        let words = [
            1u128,
            u128::MAX,
            0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            6,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let view = SolutionBytes(&bytes);
        for (i, &w) in words.iter().enumerate() {
            assert_eq!(view.word(i), w);
            assert_eq!(words[..].word(i), w);
        }
        // One block (`next` 0, as for a start on a block boundary) or two
        // adjacent ones, the second `columns` words after the first.
        for (w0, columns, two) in [
            (0, 3, false),
            (0, 1, true),
            (0, 2, true),
            (1, 1, true),
            (2, 0, false),
        ] {
            let here = 0xF0F0_1234u128 << 70 | 5;
            let next = if two { u128::MAX >> 3 } else { 0 };
            let w1 = if two { w0 + columns } else { w0 };
            let by_word = (0..columns).fold(0u32, |acc, j| {
                acc | parity((words[w0 + j] & here) ^ (words[w1 + j] & next)) << j
            });
            // The true row, then each bit of it wrong in turn.
            for flip in 0..=columns {
                let expected = if flip == 0 {
                    by_word
                } else {
                    by_word ^ (1 << (flip - 1))
                };
                let want = flip == 0;
                let owned = words[..].pairs(w0, columns, two);
                assert_eq!(matches(owned, here, next, expected), want);
                let saved = view.pairs(w0, columns, two);
                assert_eq!(matches(saved, here, next, expected), want);
            }
        }
    }
}
