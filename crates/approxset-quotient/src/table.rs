//! One quotient table: `home` slots (a multiple of 64) of `r`-bit
//! remainders in blocks of 64, with the rank-and-select metadata of Pandey
//! et al. (SIGMOD 2017): per block an `occupieds` word (bit `i`: some
//! fingerprint has quotient `i`), a `runends` word (bit `j`: slot `j` ends
//! a run) and a 16-bit offset (the slots from the block's first on that
//! runs of earlier quotients cover), kept apart so that a block is whole
//! words: `2 + r` words per block.
//!
//! This file holds the type and its reads, functions of the words alone
//! (generic over [`Words`], so a view of saved bytes and a shard's atomics
//! run this code); the walks over a whole table are in `walk.rs`. The
//! writes are in `shift.rs` (one slot in or out, the common case),
//! `home.rs` (a run of one slot at its home, nothing moved) and
//! `update.rs` (any change of a run). Runs past the last home slot go to
//! overflow blocks appended as needed.

use approxset_core::format::Words;

use crate::bits::{Portable, Select, first_zero, mask, with_select};
use crate::codec;

/// An offset this large is stored as this, and computed when read.
pub(crate) const SATURATED: u64 = 0xFFFF;

/// A quotient table over storage `S`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table<S = Vec<u64>> {
    pub(crate) home: usize,
    pub(crate) bits: u32,
    pub(crate) blocks: usize,
    pub(crate) data: S,
    pub(crate) offsets: S,
    /// Slots in use.
    pub(crate) used: usize,
    /// Distinct fingerprints (entries) stored.
    pub(crate) entries: usize,
}

/// The words of block data for `blocks` blocks of `r`-bit remainders.
pub(crate) const fn data_words(blocks: usize, r: u32) -> usize {
    blocks * (2 + r as usize)
}

/// The words of 16-bit offsets for `blocks` blocks.
pub(crate) const fn offset_words(blocks: usize) -> usize {
    blocks.div_ceil(4)
}

/// Where a fingerprint's remainder lies or would go in its quotient's run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    /// The run's slots `[start, end)` (`start == end`: no run, and
    /// `start` is where it would begin).
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The slot of the first entry whose remainder is at least the one
    /// sought (`end` when there is none).
    pub(crate) at: usize,
    /// That entry's count when its remainder is the one sought, else 0.
    pub(crate) count: u64,
    /// The occupied quotients after the run's and before `end`: the runs
    /// of later quotients pending at slot `end` (what an update's
    /// [`settle`](Table::settle) starts from).
    pub(crate) pending: usize,
}

impl<S: Words> Table<S> {
    #[inline(always)]
    pub(crate) fn stride(&self) -> usize {
        2 + self.bits as usize
    }

    /// The range `home·2^bits` of the table's fingerprints (below 2⁶⁴ in
    /// every table a plan or a check allows).
    #[inline(always)]
    pub(crate) fn range(&self) -> u64 {
        (self.home as u64) << self.bits
    }

    /// Slots in all blocks, home and overflow.
    pub(crate) fn slots(&self) -> usize {
        self.blocks * 64
    }

    #[inline(always)]
    pub(crate) fn occupieds(&self, b: usize) -> u64 {
        self.data.word(b * self.stride())
    }

    #[inline(always)]
    pub(crate) fn runends(&self, b: usize) -> u64 {
        self.data.word(b * self.stride() + 1)
    }

    #[inline(always)]
    pub(crate) fn is_occupied(&self, q: usize) -> bool {
        self.occupieds(q / 64) >> (q % 64) & 1 == 1
    }

    #[inline(always)]
    pub(crate) fn is_runend(&self, x: usize) -> bool {
        self.runends(x / 64) >> (x % 64) & 1 == 1
    }

    /// The word and bit at which slot `x`'s remainder begins.
    #[inline(always)]
    pub(crate) fn rem_at(&self, x: usize) -> (usize, u32) {
        let bit = (x % 64) * self.bits as usize;
        ((x / 64) * self.stride() + 2 + bit / 64, (bit % 64) as u32)
    }

    /// The remainder in slot `x`.
    #[inline(always)]
    pub(crate) fn rem(&self, x: usize) -> u64 {
        let r = self.bits;
        let (at, o) = self.rem_at(x);
        let mut v = self.data.word(at) >> o;
        if o + r > 64 {
            v |= self.data.word(at + 1) << (64 - o);
        }
        v & mask(r)
    }

    /// [`rem`](Self::rem) with no branch: both words read (the second
    /// clamped to the last word, where its bits are masked off anyway),
    /// for lookups, which cannot predict whether a slot straddles two.
    #[inline(always)]
    pub(crate) fn rem_both(&self, x: usize) -> u64 {
        let (at, o) = self.rem_at(x);
        let lo = self.data.word(at);
        let hi = self.data.word((at + 1).min(self.data.word_count() - 1));
        ((u128::from(hi) << 64 | u128::from(lo)) >> o) as u64 & mask(self.bits)
    }

    /// The remainders in slots `x` and `x + 1` (`x`'s again unless
    /// `two`), from one read of the two words at `x`'s remainder when
    /// both slots lie there (the same block, `r ≤ 32`: nearly always).
    #[inline(always)]
    pub(crate) fn rem_pair(&self, x: usize, two: bool) -> (u64, u64) {
        let (at, o) = self.rem_at(x);
        let lo = self.data.word(at);
        let hi = self.data.word((at + 1).min(self.data.word_count() - 1));
        let both = u128::from(hi) << 64 | u128::from(lo);
        // The 64 bits from `x`'s remainder on: both slots when `2r ≤ 64`.
        let window = (both >> o) as u64;
        let first = window & mask(self.bits);
        if x % 64 == 63 || self.bits > 32 {
            return (first, self.rem_both(x + usize::from(two)));
        }
        let next = (window >> self.bits) & mask(self.bits);
        (first, if two { next } else { first })
    }

    /// The offset of block `b` as stored (saturated at 0xFFFF).
    #[inline(always)]
    pub(crate) fn stored_offset(&self, b: usize) -> u64 {
        (self.offsets.word(b / 4) >> (16 * (b % 4))) & 0xFFFF
    }

    /// The offset of block `b`: slots from its first on covered by runs of
    /// quotients before it.
    #[inline(always)]
    pub(crate) fn offset(&self, b: usize) -> usize {
        let o = self.stored_offset(b);
        if o < SATURATED {
            return o as usize;
        }
        self.saturated_offset(b)
    }

    /// The offset of a block whose stored offset is saturated: in a
    /// cluster of 65,535 slots or more, never on a table of random keys.
    #[cold]
    #[inline(never)]
    fn saturated_offset(&self, b: usize) -> usize {
        // Walk back to a block whose offset is stored, then forward.
        let mut from = b;
        while from > 0 && self.stored_offset(from) >= SATURATED {
            from -= 1;
        }
        let mut o = self.stored_offset(from) as usize;
        for k in from + 1..=b {
            o = self
                .covered_with(Portable, k * 64 - 1, o)
                .saturating_sub(k * 64);
        }
        o
    }

    /// The end (exclusive) of the run of the largest occupied quotient at
    /// most `x`, or a position at most `x` when no run reaches `x`: slot
    /// `x` is in use exactly when this is above `x`.
    #[inline]
    pub(crate) fn covered_to(&self, x: usize) -> usize {
        self.covered_with(Portable, x, self.offset(x / 64))
    }

    #[inline(always)]
    fn covered_with(&self, sel: impl Select, x: usize, offset: usize) -> usize {
        let b = x / 64;
        let s = b * 64;
        let keep = u64::MAX >> (63 - (x - s));
        let d = (self.occupieds(b) & keep).count_ones();
        let from = s + offset;
        if d == 0 {
            return from;
        }
        self.nth_runend(sel, from, d as usize)
            .map_or(self.slots(), |p| p + 1)
    }

    /// The `d`-th (from 1) run end at or after slot `x`, if the table has
    /// that many.
    #[inline(always)]
    pub(crate) fn nth_runend(&self, sel: impl Select, x: usize, d: usize) -> Option<usize> {
        self.nth_runend_in(sel, x, d).map(|(p, _)| p)
    }

    /// [`nth_runend`](Self::nth_runend) and the run-end word it lies in
    /// (without the run ends before `x` when that is `x`'s word).
    #[inline(always)]
    fn nth_runend_in(&self, sel: impl Select, x: usize, mut d: usize) -> Option<(usize, u64)> {
        let mut blk = x / 64;
        if blk >= self.blocks {
            return None;
        }
        let mut w = self.runends(blk) & (u64::MAX << (x % 64));
        loop {
            // (A word has at most 64 set bits, so 65 stands for any more.)
            match sel.select_or_count(w, d.min(65) as u32) {
                Ok(p) => return Some((blk * 64 + p as usize, w)),
                Err(n) => d -= n as usize,
            }
            blk += 1;
            if blk >= self.blocks {
                return None;
            }
            w = self.runends(blk);
        }
    }

    /// The occupied quotients in `[a, b)` (`b ≤ slots()`).
    #[inline]
    pub(crate) fn occupied_count(&self, a: usize, b: usize) -> usize {
        if a >= b {
            return 0;
        }
        let (mut blk, last) = (a / 64, (b - 1) / 64);
        let mut w = self.occupieds(blk) & (u64::MAX << (a % 64));
        let mut n = 0;
        while blk < last {
            n += w.count_ones() as usize;
            blk += 1;
            w = self.occupieds(blk);
        }
        n + (w & (u64::MAX >> (63 - (b - 1) % 64))).count_ones() as usize
    }

    /// The first slot at or after `y` that no run of an earlier quotient
    /// holds, given the `k` runs of earlier quotients that hold `y` on
    /// (not ended before it); with `unused`, the first such slot that its
    /// own quotient's run does not start at either: the first unused slot.
    /// `slots()` when the runs reach the table's end.
    ///
    /// The runs pending at slot `x + 1` are those pending at `x`, plus one
    /// when quotient `x` is occupied, less one when slot `x` ends a run; so
    /// the search walks that balance over the occupieds and run-end words,
    /// a word at a time ([`first_zero`]). With `unused` it walks the
    /// balance plus slot `x`'s own occupied bit, which is 0 exactly at an
    /// unused slot and moves by the occupied bit of `x + 1` less the
    /// run-end bit of `x`: the occupieds read one slot ahead.
    ///
    /// The test for no pending run at `y` (an update at a free slot, most
    /// of a fill) is inlined into the caller; the walk is out of line.
    #[inline(always)]
    pub(crate) fn settle(&self, y: usize, k: usize, unused: bool) -> usize {
        if y >= self.slots() {
            return self.slots();
        }
        let occ = self.occupieds(y / 64);
        let pending = k as i64 + i64::from(unused && (occ >> (y % 64)) & 1 == 1);
        if pending == 0 {
            return y;
        }
        if unused {
            self.settle_walk::<true>(y, pending)
        } else {
            self.settle_walk::<false>(y, pending)
        }
    }

    /// [`settle`](Self::settle) from slot `y < slots()` with `pending > 0`
    /// runs pending there (its own quotient's counted when `UNUSED`), in
    /// one build for each search.
    #[inline(never)]
    fn settle_walk<const UNUSED: bool>(&self, y: usize, mut pending: i64) -> usize {
        let mut blk = y / 64;
        let mut occ = self.occupieds(blk);
        // Slots before `y` in its word move nothing (the balance, above 0,
        // has no zero there).
        let mut keep = u64::MAX << (y % 64);
        loop {
            let next = if blk + 1 < self.blocks {
                self.occupieds(blk + 1)
            } else {
                0
            };
            let up = if UNUSED {
                (occ >> 1) | (next << 63)
            } else {
                occ
            };
            match first_zero(pending, up & keep, self.runends(blk) & keep) {
                Ok(i) => return blk * 64 + i as usize,
                Err(p) => pending = p,
            }
            blk += 1;
            if blk >= self.blocks {
                return self.slots();
            }
            (occ, keep) = (next, u64::MAX);
        }
    }

    /// The slots `[start, end)` of the run of occupied quotient `q`: the
    /// end as [`covered_with`](Self::covered_with) finds it, the start
    /// from the run end before it in the word the select read (masked
    /// below the block's offset in the first word), as
    /// [`run_start`](Self::run_start) would find it: with no run end
    /// between the block's first uncovered slot `from` and the end in
    /// that first word, `q` is the block's first run, which starts at
    /// `max(q, from)` (the slot before `from` ends a run of an earlier
    /// quotient). Any other case, rare, goes to `run_start`.
    #[inline(always)]
    pub(crate) fn run_of(&self, sel: impl Select, q: usize) -> (usize, usize) {
        let b = q / 64;
        let from = b * 64 + self.offset(b);
        // The occupied quotients of the block up to `q`: those below it,
        // and `q` (the callers found it occupied), counted as 1 without
        // reading it again. So a shard's torn read, whose answer its
        // version check throws away, cannot ask the select for the 0th
        // run end.
        let d = (self.occupieds(b) & ((1u64 << (q % 64)) - 1)).count_ones() + 1;
        // The first run-end word with one test, of the index against the
        // words (`get`), not also of its block against `blocks`: in a
        // table's own words `from` lies in one of its blocks (`q`'s run
        // starts at or after it), and a torn read past them is `None`.
        // The words after it, rarely read, go to `nth_runend_in`.
        let blk = from / 64;
        let Some(first) = self.data.get(blk * self.stride() + 1) else {
            return (self.run_start(q, self.slots()), self.slots());
        };
        let first = first & (u64::MAX << (from % 64));
        let (last, w) = match sel.select_or_count(first, d) {
            Ok(p) => (blk * 64 + p as usize, first),
            Err(n) => match self.nth_runend_in(sel, (blk + 1) * 64, (d - n) as usize) {
                Some(found) => found,
                None => return (self.run_start(q, self.slots()), self.slots()),
            },
        };
        let end = last + 1;
        let below = w & ((1u64 << (last % 64)) - 1);
        // The branch on `below` first: it is 0 in about one lookup in 20,
        // where the run end's word is another than `from`'s in about one
        // in seven.
        let start = if below != 0 {
            last - last % 64 + 1 + below.ilog2() as usize
        } else if last / 64 == from / 64 {
            from
        } else {
            return (self.run_start(q, end), end);
        };
        (start.max(q), end)
    }

    /// The last run end before slot `end - 1` and after `floor`, plus one,
    /// or `floor` when there is none: where a run ending at `end` starts.
    #[inline]
    fn run_start(&self, floor: usize, end: usize) -> usize {
        let last = end.saturating_sub(1);
        let mut blk = last / 64;
        let mut w = self.runends(blk) & ((1u64 << (last % 64)) - 1);
        // A run end below `last` in its word (nearly always): no branch on
        // `floor`, whose test a lookup could not predict.
        if w != 0 {
            return (blk * 64 + 64 - w.leading_zeros() as usize).max(floor);
        }
        if last <= floor {
            return floor;
        }
        loop {
            if w != 0 {
                let p = blk * 64 + 63 - w.leading_zeros() as usize + 1;
                return p.max(floor);
            }
            if blk * 64 <= floor {
                return floor;
            }
            blk -= 1;
            w = self.runends(blk);
        }
    }

    /// Where remainder `rem` lies or would go in the run of quotient `q`.
    /// The rank and select that find the run's end, and the count of the
    /// occupied quotients after `q` before it, run in the POPCNT and PDEP
    /// build where the processor has them ([`with_select!`]): an update's
    /// search crosses into that build and back for them alone, their
    /// results two words in registers.
    #[inline]
    pub(crate) fn place(&self, q: usize, rem: u64) -> Place {
        self.touch_block_end(q / 64);
        let (covered, pending) = with_select!(|sel| {
            let covered = self.covered_with(sel, q, self.offset(q / 64));
            // (`covered.max(q)`: the end of the run, or of the empty run
            // at `q`, as below.)
            (covered, self.occupied_count(q + 1, covered.max(q)))
        });
        if !self.is_occupied(q) {
            let s = covered.max(q);
            return Place {
                start: s,
                end: s,
                at: s,
                count: 0,
                pending,
            };
        }
        let (start, end) = (self.run_start(q, covered), covered);
        // (Saturating: a lookup racing a shard's writer may read a torn
        // run, which the shard then reads again.)
        let len = end.saturating_sub(start);
        let found = |i: usize, count: u64| Place {
            start,
            end,
            at: start + i,
            count,
            pending,
        };
        // Runs of one or two slots (nearly all), without the codec: `[x]`,
        // `[x, x]` (count 2) or `[x, y]` (`x < y`, two entries).
        if len == 1 || len == 2 {
            let x = self.rem(start);
            let y = if len == 2 {
                self.rem(start + 1)
            } else {
                u64::MAX
            };
            if len == 2 && x == y {
                return found(if x >= rem { 0 } else { 2 }, if x == rem { 2 } else { 0 });
            }
            if x < y || len == 1 {
                return if x >= rem {
                    found(0, u64::from(x == rem))
                } else if len == 2 && y >= rem {
                    found(1, u64::from(y == rem))
                } else {
                    found(len, 0)
                };
            }
        }
        let mut i = 0;
        while i < len {
            let Some(((x, c), next)) = codec::decode(|j| self.rem(start + j), i, len, self.bits)
            else {
                break;
            };
            if x >= rem {
                let count = if x == rem { c } else { 0 };
                return Place {
                    start,
                    end,
                    at: start + i,
                    count,
                    pending,
                };
            }
            i = next;
        }
        Place {
            start,
            end,
            at: end,
            count: 0,
            pending,
        }
    }

    /// The count of fingerprint `(q, rem)`: 0 when absent. Runs of one or
    /// two slots (nearly all) are read without the codec.
    #[inline]
    pub(crate) fn count(&self, q: usize, rem: u64) -> u64 {
        let (b, bit) = (q / 64, q % 64);
        let occ = self.occupieds(b);
        if (occ >> bit) & 1 == 0 {
            return 0;
        }
        let end = self.covered_with(Portable, q, self.offset(b));
        let start = self.run_start(q, end);
        match end.saturating_sub(start) {
            1 => u64::from(self.rem(start) == rem),
            2 => {
                let (x, y) = (self.rem(start), self.rem(start + 1));
                u64::from(x == rem) + u64::from(y == rem)
            }
            _ => self.place(q, rem).count,
        }
    }

    /// Reads block `b`'s last word and drops it, so that its cache line is
    /// on its way while the select over the block's first words runs. A
    /// block of 7-bit remainders is 72 bytes, 8-byte aligned, so it always
    /// spans two lines, and the remainders a lookup reads after the select
    /// are often in the last; without this the two misses came one
    /// after the other. At 7,969,178 keys (a 9.7 MB table) lookups took
    /// 19 % less time, fills 6 % less; at 996,148 (within the L2) no
    /// change; hit 315 → 325 instructions, fill 626 → 632 (docs/design.md,
    /// "Quotient filter"). `black_box` keeps the read (a hint at best: no
    /// result depends on it) without `unsafe`.
    #[inline(always)]
    fn touch_block_end(&self, b: usize) {
        // (`+ bits + 1`, not `(b + 1)·stride − 1`: the block's first word,
        // which the caller read, plus a constant.)
        std::hint::black_box(self.data.word(b * self.stride() + self.bits as usize + 1));
    }

    /// Whether fingerprint `(q, rem)` is stored: `count(q, rem) > 0`, read
    /// without the codec. A run's first slot starts an entry, entries
    /// ascend by remainder, and a counter (see `codec.rs`) opens with a
    /// value below its remainder, or with 0 when its remainder is 0 (then
    /// the run's first entry). So while the slots ascend from a first
    /// slot that is not 0, each is an entry's first or the second copy of
    /// the one before, and the first that reaches `rem` answers; a slot
    /// that falls (a counter) leaves the answer to [`count`](Self::count).
    /// `sel` finds the run's end.
    #[inline]
    pub(crate) fn contains(&self, sel: impl Select, q: usize, rem: u64) -> bool {
        let (b, bit) = (q / 64, q % 64);
        if (self.occupieds(b) >> bit) & 1 == 0 {
            return false;
        }
        self.touch_block_end(b);
        let (start, end) = self.run_of(sel, q);
        // (Saturating: a shard's torn read.)
        let len = end.saturating_sub(start);
        if len == 0 {
            return false;
        }
        // The run's first two slots, compared with no branch on their
        // values (which a lookup could not predict): the first starts an
        // entry; the second, when it does not fall below the first, is
        // that entry's second copy or the next entry (a counter's first
        // slot falls; a counter of 0 is `[0, 0, 0, …]`). A run of one or
        // two slots (nearly nine in ten at 95 % load) holds nothing else.
        let (v0, v1) = self.rem_pair(start, len > 1);
        // `m` is 0 exactly when `v0 == rem`, or `v1 == rem` and `v1 ≥ v0`
        // (`v1 < v0` is the top bit of `v1 − v0`, which wraps: both are
        // below 2⁶³);
        // a run of one or two slots (`(len − 1) / 2 == 0`), or a find,
        // ends the lookup: one branch on a minimum (two branches, one on
        // the length, mispredict more).
        let m = (v0 ^ rem).min((v1 ^ rem) | (v1.wrapping_sub(v0) >> 63));
        if m.min(((len - 1) / 2) as u64) == 0 {
            return m == 0;
        }
        // A longer run, whose first two slots the loop below need not
        // read again (`m > 0`: neither is `rem` where the second ascends):
        // a first slot of 0 when `rem > 0` (a counter of 0), or a second
        // below the first, goes to `count` as the loop would send it; a
        // first or second at or above `rem` is a miss; else the loop reads
        // on from the third slot.
        if v0 < u64::from(rem > 0) || (v0 < rem && v1 < v0) {
            return self.count(q, rem) > 0;
        }
        if v0 >= rem || v1 >= rem {
            return false;
        }
        // The least value the next slot may hold while the run ascends.
        let mut low = v1;
        for x in start + 2..end {
            let v = self.rem_both(x);
            if v < low {
                return self.count(q, rem) > 0;
            }
            if v >= rem {
                return v == rem;
            }
            low = v;
        }
        false
    }

    /// Bytes of the block words and offsets.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.data.word_count() + self.offsets.word_count()) * 8
    }
}
