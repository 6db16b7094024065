//! One quotient table: `home` slots (a multiple of 64) of `r`-bit
//! remainders in blocks of 64, with the rank-and-select metadata of Pandey
//! et al. (SIGMOD 2017): per block an `occupieds` word (bit `i`: some
//! fingerprint has quotient `i`), a `runends` word (bit `j`: slot `j` ends
//! a run) and a 16-bit offset (the slots from the block's first on that
//! runs of earlier quotients cover), kept apart so that a block is whole
//! words: `2 + r` words per block.
//!
//! Reads are functions of the words alone (generic over [`Words`], so a
//! view of saved bytes runs this code); writes are on `Vec<u64>` storage.
//! Runs past the last home slot go to overflow blocks appended as needed.

use approxset_core::Result;
use approxset_core::format::Words;

use crate::codec::{self, Entry};

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

#[inline(always)]
const fn mask(r: u32) -> u64 {
    (1u64 << r) - 1
}

/// The position of the `k`-th (from 1) set bit of `w`, which has at least `k`.
#[inline(always)]
fn select(mut w: u64, k: u32) -> u32 {
    for _ in 1..k {
        w &= w - 1;
    }
    w.trailing_zeros()
}

impl<S: Words> Table<S> {
    #[inline(always)]
    fn stride(&self) -> usize {
        2 + self.bits as usize
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

    /// The remainder in slot `x`.
    #[inline(always)]
    pub(crate) fn rem(&self, x: usize) -> u64 {
        let r = self.bits;
        let bit = (x % 64) * r as usize;
        let at = (x / 64) * self.stride() + 2 + bit / 64;
        let o = (bit % 64) as u32;
        let mut v = self.data.word(at) >> o;
        if o + r > 64 {
            v |= self.data.word(at + 1) << (64 - o);
        }
        v & mask(r)
    }

    /// The offset of block `b` as stored (saturated at 0xFFFF).
    #[inline(always)]
    pub(crate) fn stored_offset(&self, b: usize) -> u64 {
        (self.offsets.word(b / 4) >> (16 * (b % 4))) & 0xFFFF
    }

    /// The offset of block `b`: slots from its first on covered by runs of
    /// quotients before it.
    #[inline]
    fn offset(&self, b: usize) -> usize {
        let o = self.stored_offset(b);
        if o < SATURATED {
            return o as usize;
        }
        // A cluster of 65,535 slots or more: walk back to a block whose
        // offset is stored, then forward (never on a table of random keys).
        let mut from = b;
        while from > 0 && self.stored_offset(from) >= SATURATED {
            from -= 1;
        }
        let mut o = self.stored_offset(from) as usize;
        for k in from + 1..=b {
            o = self.covered_with(k * 64 - 1, o).saturating_sub(k * 64);
        }
        o
    }

    /// The end (exclusive) of the run of the largest occupied quotient at
    /// most `x`, or a position at most `x` when no run reaches `x`: slot
    /// `x` is in use exactly when this is above `x`.
    #[inline]
    pub(crate) fn covered_to(&self, x: usize) -> usize {
        self.covered_with(x, self.offset(x / 64))
    }

    #[inline]
    fn covered_with(&self, x: usize, offset: usize) -> usize {
        let b = x / 64;
        let s = b * 64;
        let below = (x - s) as u32;
        let keep = if below == 63 {
            u64::MAX
        } else {
            (2u64 << below) - 1
        };
        let d = (self.occupieds(b) & keep).count_ones();
        let from = s + offset;
        if d == 0 {
            return from;
        }
        // The d-th run end at or after `from`.
        let mut d = d;
        let mut blk = from / 64;
        let mut w = if blk < self.blocks {
            self.runends(blk) & (u64::MAX << (from % 64))
        } else {
            return self.slots();
        };
        loop {
            let n = w.count_ones();
            if n >= d {
                return blk * 64 + select(w, d) as usize + 1;
            }
            d -= n;
            blk += 1;
            if blk >= self.blocks {
                return self.slots();
            }
            w = self.runends(blk);
        }
    }

    /// The slots `[start, end)` of the run of quotient `q`, if it has one.
    #[inline]
    pub(crate) fn run(&self, q: usize) -> Option<(usize, usize)> {
        if !self.is_occupied(q) {
            return None;
        }
        let end = self.covered_to(q);
        let mut p = end - 1;
        while p > q && !self.is_runend(p - 1) {
            p -= 1;
        }
        Some((p, end))
    }

    /// The count of fingerprint `(q, rem)`: 0 when absent.
    #[inline]
    pub(crate) fn count(&self, q: usize, rem: u64) -> u64 {
        let Some((start, end)) = self.run(q) else {
            return 0;
        };
        let len = end - start;
        let mut i = 0;
        while i < len {
            let Some(((x, c), next)) = codec::decode(|j| self.rem(start + j), i, len, self.bits)
            else {
                return 0;
            };
            if x >= rem {
                return if x == rem { c } else { 0 };
            }
            i = next;
        }
        0
    }

    /// Calls `f(fingerprint, count)` for every entry, in ascending order of
    /// fingerprint (`q·2^r + rem`).
    pub(crate) fn for_each(&self, mut f: impl FnMut(u64, u64)) {
        let mut pos = 0;
        for b in 0..self.home / 64 {
            let mut occ = self.occupieds(b);
            while occ != 0 {
                let q = b * 64 + occ.trailing_zeros() as usize;
                occ &= occ - 1;
                let start = pos.max(q);
                let end = self.next_runend(start) + 1;
                let len = end - start;
                let mut i = 0;
                while i < len {
                    let Some(((x, c), next)) =
                        codec::decode(|j| self.rem(start + j), i, len, self.bits)
                    else {
                        break;
                    };
                    f(((q as u64) << self.bits) | x, c);
                    i = next;
                }
                pos = end;
            }
        }
    }

    /// The first run end at or after `x` (the last slot when there is none).
    pub(crate) fn next_runend(&self, x: usize) -> usize {
        let mut blk = x / 64;
        let mut w = self.runends(blk) & (u64::MAX << (x % 64));
        while w == 0 {
            blk += 1;
            if blk >= self.blocks {
                return self.slots() - 1;
            }
            w = self.runends(blk);
        }
        blk * 64 + w.trailing_zeros() as usize
    }

    /// Bytes of the block words and offsets.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.data.word_count() + self.offsets.word_count()) * 8
    }
}

impl Table {
    /// An empty table of `home` slots (a multiple of 64, at least 64) and
    /// `r`-bit remainders, with one overflow block.
    ///
    /// # Errors
    /// [`Error::TooLarge`] or [`Error::AllocationFailed`].
    pub(crate) fn new(home: usize, r: u32, max_bytes: Option<usize>) -> Result<Self> {
        debug_assert!(home % 64 == 0 && home >= 64);
        let blocks = home / 64 + 1;
        let words = data_words(blocks, r) as u128 + offset_words(blocks) as u128;
        approxset_core::sizing::check_memory(words * 8, max_bytes)?;
        let data = approxset_core::sizing::zeroed_words(data_words(blocks, r) as u128, None)?;
        let offsets = approxset_core::sizing::zeroed_words(offset_words(blocks) as u128, None)?;
        Ok(Table {
            home,
            bits: r,
            blocks,
            data,
            offsets,
            used: 0,
            entries: 0,
        })
    }

    /// Removes every entry.
    pub(crate) fn clear(&mut self) {
        self.blocks = self.home / 64 + 1;
        self.data.clear();
        self.data.resize(data_words(self.blocks, self.bits), 0);
        self.offsets.clear();
        self.offsets.resize(offset_words(self.blocks), 0);
        self.used = 0;
        self.entries = 0;
    }

    fn set_bit(&mut self, word: usize, bit: usize, on: bool) {
        if on {
            self.data[word] |= 1 << bit;
        } else {
            self.data[word] &= !(1 << bit);
        }
    }

    fn set_occupied(&mut self, q: usize, on: bool) {
        let w = (q / 64) * self.stride();
        self.set_bit(w, q % 64, on);
    }

    fn set_runend(&mut self, x: usize, on: bool) {
        let w = (x / 64) * self.stride() + 1;
        self.set_bit(w, x % 64, on);
    }

    fn set_rem(&mut self, x: usize, v: u64) {
        let r = self.bits;
        let bit = (x % 64) * r as usize;
        let at = (x / 64) * self.stride() + 2 + bit / 64;
        let o = (bit % 64) as u32;
        let m = mask(r);
        self.data[at] = (self.data[at] & !(m << o)) | (v << o);
        if o + r > 64 {
            let hi = 64 - o;
            self.data[at + 1] = (self.data[at + 1] & !(m >> hi)) | (v >> hi);
        }
    }

    /// The remainders of slots `[x, x + k)` (one block, `k·r ≤ 64`) as one
    /// bit string, slot `x` lowest.
    #[inline(always)]
    fn rems(&self, x: usize, k: usize) -> u64 {
        let r = self.bits as usize;
        let width = k * r;
        let bit = (x % 64) * r;
        let at = (x / 64) * self.stride() + 2 + bit / 64;
        let o = bit % 64;
        let mut v = self.data[at] >> o;
        if o + width > 64 {
            v |= self.data[at + 1] << (64 - o);
        }
        if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        }
    }

    /// Writes [`rems`](Self::rems)' bit string back at slots `[x, x + k)`.
    #[inline(always)]
    fn set_rems(&mut self, x: usize, k: usize, v: u64) {
        let r = self.bits as usize;
        let width = k * r;
        let m = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let bit = (x % 64) * r;
        let at = (x / 64) * self.stride() + 2 + bit / 64;
        let o = bit % 64;
        self.data[at] = (self.data[at] & !(m << o)) | (v << o);
        if o + width > 64 {
            let hi = 64 - o;
            self.data[at + 1] = (self.data[at + 1] & !(m >> hi)) | (v >> hi);
        }
    }

    /// Copies the remainders of slots `[from, from + n)` to `[to, to + n)`,
    /// in chunks of up to `64/r` slots that stay within a block on both
    /// sides; back to front when moving right, so overlaps are safe.
    fn move_slots(&mut self, from: usize, n: usize, to: usize) {
        let per = (64 / self.bits as usize).max(1);
        if to > from {
            let mut end = n;
            while end > 0 {
                let (s, t) = (from + end - 1, to + end - 1);
                let k = per.min(end).min(s % 64 + 1).min(t % 64 + 1);
                let v = self.rems(s + 1 - k, k);
                self.set_rems(t + 1 - k, k, v);
                end -= k;
            }
        } else {
            let mut done = 0;
            while done < n {
                let (s, t) = (from + done, to + done);
                let k = per.min(n - done).min(64 - s % 64).min(64 - t % 64);
                let v = self.rems(s, k);
                self.set_rems(t, k, v);
                done += k;
            }
        }
    }

    /// Clears the remainders (`zero`) or the run-end bits of slots `[a, b)`.
    fn clear_range(&mut self, a: usize, b: usize, zero: bool) {
        let mut x = a;
        while x < b {
            if zero {
                let k = ((64 / self.bits as usize).max(1))
                    .min(b - x)
                    .min(64 - x % 64);
                self.set_rems(x, k, 0);
                x += k;
            } else {
                let k = (b - x).min(64 - x % 64);
                let m = if k == 64 {
                    u64::MAX
                } else {
                    ((1u64 << k) - 1) << (x % 64)
                };
                let w = (x / 64) * self.stride() + 1;
                self.data[w] &= !m;
                x += k;
            }
        }
    }

    fn set_offset(&mut self, b: usize, o: usize) {
        let v = (o as u64).min(SATURATED);
        let shift = 16 * (b % 4);
        let w = &mut self.offsets[b / 4];
        *w = (*w & !(0xFFFF << shift)) | (v << shift);
    }

    /// Appends overflow blocks until the table has `slots` slots.
    fn ensure_slots(&mut self, slots: usize) {
        while self.slots() < slots {
            self.blocks += 1;
            self.data.resize(data_words(self.blocks, self.bits), 0);
            self.offsets.resize(offset_words(self.blocks), 0);
        }
    }

    /// Recomputes the offsets of the blocks whose first slot is in
    /// `[from, to]`, in order (each from the one before).
    fn fix_offsets(&mut self, from: usize, to: usize) {
        let first = from.div_ceil(64).max(1);
        let last = (to / 64).min(self.blocks - 1);
        for b in first..=last {
            let o = self.covered_to(b * 64 - 1).saturating_sub(b * 64);
            self.set_offset(b, o);
        }
    }

    /// Sets the count of fingerprint `(q, rem)` to `f(old count)` (0 removes
    /// it) and returns the old count. `scratch` holds the run's entries and
    /// slots meanwhile.
    pub(crate) fn update(
        &mut self,
        q: usize,
        rem: u64,
        scratch: &mut Scratch,
        f: impl FnOnce(u64) -> u64,
    ) -> u64 {
        let (start, old_end) = match self.run(q) {
            Some(run) => run,
            None => {
                let s = self.covered_to(q).max(q);
                (s, s)
            }
        };
        // The run's entries, with the one changed.
        let entries = &mut scratch.entries;
        entries.clear();
        let len = old_end - start;
        let mut i = 0;
        while i < len {
            let (e, next) = codec::decode(|j| self.rem(start + j), i, len, self.bits)
                .expect("a checked table decodes");
            entries.push(e);
            i = next;
        }
        let at = entries.partition_point(|&(x, _)| x < rem);
        let old = match entries.get(at) {
            Some(&(x, c)) if x == rem => c,
            _ => 0,
        };
        let new = f(old);
        if new == old {
            return old;
        }
        match (old, new) {
            (0, _) => {
                entries.insert(at, (rem, new));
                self.entries += 1;
            }
            (_, 0) => {
                entries.remove(at);
                self.entries -= 1;
            }
            _ => entries[at].1 = new,
        }
        let slots = &mut scratch.slots;
        slots.clear();
        for &(x, c) in entries.iter() {
            codec::encode(x, c, self.bits, slots);
        }
        let new_len = slots.len();
        // The runs after it that move, as (old start, length, new start).
        let moves = &mut scratch.moves;
        moves.clear();
        scratch.ends.clear();
        let mut pos = old_end;
        let mut write = start + new_len;
        let mut next_q = q + 1;
        while pos != write {
            let Some(nq) = self.next_occupied(next_q) else {
                break;
            };
            let old_st = nq.max(pos);
            let new_st = nq.max(write);
            if old_st == new_st {
                break;
            }
            let end = self.next_runend(old_st) + 1;
            scratch.ends.push(new_st + (end - old_st) - 1);
            // Runs that lie end to end and move by as much move as one.
            match moves.last_mut() {
                Some((from, n, to)) if *from + *n == old_st && *to + *n == new_st => {
                    *n += end - old_st;
                }
                _ => moves.push((old_st, end - old_st, new_st)),
            }
            pos = end;
            write = new_st + (end - old_st);
            next_q = nq + 1;
        }
        let span_end = pos.max(write);
        self.ensure_slots(span_end);
        if new_len > len {
            for &(from, n, to) in moves.iter().rev() {
                self.move_slots(from, n, to);
            }
            for (k, &v) in slots.iter().enumerate() {
                self.set_rem(start + k, v);
            }
        } else {
            for (k, &v) in slots.iter().enumerate() {
                self.set_rem(start + k, v);
            }
            for &(from, n, to) in moves.iter() {
                self.move_slots(from, n, to);
            }
        }
        // Slots of the span that no run holds now are 0.
        let mut cursor = start + new_len;
        for &(_, n, to) in moves.iter() {
            self.clear_range(cursor, to, true);
            cursor = to + n;
        }
        self.clear_range(cursor, span_end, true);
        self.clear_range(start, span_end, false);
        if new_len > 0 {
            self.set_runend(start + new_len - 1, true);
        }
        for &end in scratch.ends.iter() {
            self.set_runend(end, true);
        }
        self.set_occupied(q, new_len > 0);
        self.used = self.used + new_len - len;
        self.fix_offsets(q + 1, span_end);
        old
    }

    /// The first occupied quotient at or after `q`, if any.
    fn next_occupied(&self, q: usize) -> Option<usize> {
        let home_blocks = self.home / 64;
        let mut b = q / 64;
        if b >= home_blocks {
            return None;
        }
        let mut w = self.occupieds(b) & (u64::MAX << (q % 64));
        while w == 0 {
            b += 1;
            if b >= home_blocks {
                return None;
            }
            w = self.occupieds(b);
        }
        Some(b * 64 + w.trailing_zeros() as usize)
    }

    /// A table of `home` slots and `r`-bit remainders holding `entries`
    /// (fingerprint, count), sorted by fingerprint with no repeats: one
    /// pass.
    ///
    /// # Errors
    /// [`Error::TooLarge`] or [`Error::AllocationFailed`].
    pub(crate) fn from_sorted(
        home: usize,
        r: u32,
        entries: &[Entry],
        max_bytes: Option<usize>,
    ) -> Result<Self> {
        let mut t = Table::new(home, r, max_bytes)?;
        let mut slots = Vec::new();
        let mut pos = 0;
        let mut i = 0;
        while i < entries.len() {
            let q = (entries[i].0 >> r) as usize;
            slots.clear();
            while i < entries.len() && (entries[i].0 >> r) as usize == q {
                codec::encode(entries[i].0 & mask(r), entries[i].1, r, &mut slots);
                t.entries += 1;
                i += 1;
            }
            let start = pos.max(q);
            t.ensure_slots(start + slots.len());
            for (k, &v) in slots.iter().enumerate() {
                t.set_rem(start + k, v);
            }
            t.set_runend(start + slots.len() - 1, true);
            t.set_occupied(q, true);
            t.used += slots.len();
            pos = start + slots.len();
        }
        let end = t.slots();
        t.fix_offsets(0, end);
        Ok(t)
    }
}

/// Buffers an update reuses: a run's entries and slots, the runs it moves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    entries: Vec<Entry>,
    slots: Vec<u64>,
    moves: Vec<(usize, usize, usize)>,
    ends: Vec<usize>,
}
