//! Writes of one table: single bits, remainders and offsets, and the two
//! changes nearly every insert and remove makes, one slot in
//! ([`Table::insert_slot`]) or one slot out ([`Table::remove_slot`]), which
//! move the slots after it by one a word at a time (the remainders of a
//! block are one bit string of `64·r` bits, shifted by `r`) and adjust the
//! offsets by one instead of computing them again.

use crate::bits::{Store, mask, range_mask};
use crate::table::{Place, SATURATED, Table, data_words, offset_words};

impl<S: Store> Table<S> {
    fn set_bit(&mut self, word: usize, bit: usize, on: bool) {
        let w = self.data.word(word);
        let w = if on { w | 1 << bit } else { w & !(1 << bit) };
        self.data.set_word(word, w);
    }

    pub(crate) fn set_occupied(&mut self, q: usize, on: bool) {
        let w = (q / 64) * self.stride();
        self.set_bit(w, q % 64, on);
    }

    pub(crate) fn set_runend(&mut self, x: usize, on: bool) {
        let w = (x / 64) * self.stride() + 1;
        self.set_bit(w, x % 64, on);
    }

    pub(crate) fn set_rem(&mut self, x: usize, v: u64) {
        let r = self.bits;
        let (at, o) = self.rem_at(x);
        let m = mask(r);
        let w = self.data.word(at);
        self.data.set_word(at, (w & !(m << o)) | (v << o));
        if o + r > 64 {
            let hi = 64 - o;
            let w = self.data.word(at + 1);
            self.data.set_word(at + 1, (w & !(m >> hi)) | (v >> hi));
        }
    }

    pub(crate) fn set_offset(&mut self, b: usize, o: usize) {
        let v = (o as u64).min(SATURATED);
        let shift = 16 * (b % 4);
        let w = self.offsets.word(b / 4);
        self.offsets
            .set_word(b / 4, (w & !(0xFFFF << shift)) | (v << shift));
    }

    /// Appends overflow blocks until the table has `slots` slots, or says
    /// `false` (changing nothing) when its storage cannot grow.
    pub(crate) fn ensure_slots(&mut self, slots: usize) -> bool {
        if self.slots() >= slots {
            return true;
        }
        let blocks = slots.div_ceil(64);
        if !(self.data.extend_to(data_words(blocks, self.bits))
            && self.offsets.extend_to(offset_words(blocks)))
        {
            return false;
        }
        self.blocks = blocks;
        true
    }

    /// Bits `[lo, hi)` of the bit string in words `base..` set to its bits
    /// `[lo − sh, hi − sh)` (`sh ≤ lo`, `0 < sh < 64`).
    fn bits_up(&mut self, base: usize, lo: usize, hi: usize, sh: usize) {
        if lo >= hi {
            return;
        }
        let (first, last) = (lo / 64, (hi - 1) / 64);
        // From the top word down, so that the word below is still unchanged
        // (and read once: it is the next word moved).
        let mut w = last;
        let mut cur = self.data.word(base + w);
        loop {
            let below = if w > 0 {
                self.data.word(base + w - 1)
            } else {
                0
            };
            let moved = (cur << sh) | (below >> (64 - sh));
            self.data
                .set_word(base + w, edge(w, first, last, lo, hi, cur, moved));
            if w == first {
                return;
            }
            w -= 1;
            cur = below;
        }
    }

    /// Bits `[lo, hi)` of the bit string in words `base..base + words` set
    /// to its bits `[lo + sh, hi + sh)` (`hi + sh ≤ 64·words`).
    fn bits_down(&mut self, base: usize, lo: usize, hi: usize, sh: usize, words: usize) {
        if lo >= hi {
            return;
        }
        let (first, last) = (lo / 64, (hi - 1) / 64);
        // From the bottom word up, so that the word above is still unchanged
        // (and read once: it is the next word moved).
        let mut w = first;
        let mut cur = self.data.word(base + w);
        loop {
            let above = if w + 1 < words {
                self.data.word(base + w + 1)
            } else {
                0
            };
            let moved = (cur >> sh) | (above << (64 - sh));
            self.data
                .set_word(base + w, edge(w, first, last, lo, hi, cur, moved));
            if w == last {
                return;
            }
            w += 1;
            cur = above;
        }
    }

    /// Moves the remainders and run-end bits of slots `[p, e)` to
    /// `[p + 1, e + 1)` (slot `e` must exist; slot `p` keeps its old value).
    fn shift_up(&mut self, p: usize, e: usize) {
        let r = self.bits as usize;
        // From the last block down: a block's slot 0 takes the slot 63 of
        // the block below before that block moves.
        for b in (p / 64..=e / 64).rev() {
            let s = b * 64;
            let lo = (p + 1).max(s) - s;
            let hi = (e + 1).min(s + 64) - s;
            if lo >= hi {
                continue;
            }
            let base = b * self.stride();
            let from = lo.max(1);
            self.bits_up(base + 2, from * r, hi * r, r);
            let ends = self.data.word(base + 1);
            let m = range_mask(from, hi);
            let mut moved = (ends & !m) | ((ends << 1) & m);
            if lo == 0 {
                let carry = self.rem(s - 1);
                self.set_rem(s, carry);
                moved = (moved & !1) | (self.runends(b - 1) >> 63);
            }
            self.data.set_word(base + 1, moved);
        }
    }

    /// Moves the remainders and run-end bits of slots `[p + 1, e)` to
    /// `[p, e − 1)`, and clears slot `e − 1` (`p < e`).
    fn shift_down(&mut self, p: usize, e: usize) {
        let r = self.bits as usize;
        // From the first block up: a block's slot 63 takes the slot 0 of
        // the block above before that block moves.
        for b in p / 64..=(e - 1) / 64 {
            let s = b * 64;
            let lo = p.max(s) - s;
            let hi = (e - 1).min(s + 64) - s;
            if lo >= hi {
                continue;
            }
            let base = b * self.stride();
            let to = hi.min(63);
            self.bits_down(base + 2, lo * r, to * r, r, r);
            let ends = self.data.word(base + 1);
            let m = range_mask(lo, to);
            let mut moved = (ends & !m) | ((ends >> 1) & m);
            if hi == 64 {
                let carry = self.rem(s + 64);
                self.set_rem(s + 63, carry);
                moved = (moved & !(1 << 63)) | (self.runends(b + 1) << 63);
            }
            self.data.set_word(base + 1, moved);
        }
        self.set_rem(e - 1, 0);
        self.set_runend(e - 1, false);
    }

    /// Adds `delta` (±1) to the offsets of the blocks after quotient `q`'s
    /// whose first slot is at most `last`: the runs that cover their
    /// first slots from before them all moved by one.
    fn bump_offsets(&mut self, q: usize, last: usize, up: bool) {
        let to = (last / 64).min(self.blocks - 1);
        let mut recompute = None;
        for b in q / 64 + 1..=to {
            let o = self.stored_offset(b);
            if up {
                if o < SATURATED {
                    self.set_offset(b, o as usize + 1);
                }
            } else if o < SATURATED {
                self.set_offset(b, (o as usize).saturating_sub(1));
            } else {
                // Saturated: the true offset is not stored; count it again.
                recompute.get_or_insert(b);
            }
        }
        if let Some(b) = recompute {
            self.fix_offsets(b * 64, to * 64);
        }
    }

    /// Writes `value` into a new slot at `place.at` of quotient `q`'s run
    /// (a new entry of count 1, or the second copy of one), moving the
    /// slots from there to the first free one up by one; `false` (nothing
    /// changed) when the table's storage cannot grow to hold it.
    pub(crate) fn insert_slot(&mut self, q: usize, place: &Place, value: u64) -> bool {
        let p = place.at;
        // Runs of quotients up to `q` end before `place.end`; those of the
        // occupied quotients after `q` and before it are pending there.
        let pending = self.occupied_count(q + 1, place.end);
        let free = self.settle(place.end, pending, true);
        if !self.ensure_slots(free + 1) {
            return false;
        }
        if free > p {
            self.shift_up(p, free);
        }
        self.set_rem(p, value);
        if place.start == place.end {
            self.set_runend(p, true);
        } else if p == place.end {
            self.set_runend(p - 1, false);
            self.set_runend(p, true);
        } else {
            self.set_runend(p, false);
        }
        self.set_occupied(q, true);
        self.bump_offsets(q, free, true);
        self.used += 1;
        true
    }

    /// Takes out the slot at `place.at` of quotient `q`'s run (an entry of
    /// count 1, or one copy of an entry of count 2), moving the runs after
    /// it down by one up to the first that starts at its own quotient or
    /// after a free slot.
    pub(crate) fn remove_slot(&mut self, q: usize, place: &Place) {
        let p = place.at;
        let pending = self.occupied_count(q + 1, place.end);
        let stop = self.settle(place.end, pending, false);
        self.shift_down(p, stop);
        if place.end - place.start == 1 {
            self.set_occupied(q, false);
        } else if p + 1 == place.end {
            self.set_runend(p - 1, true);
        }
        self.bump_offsets(q, stop, false);
        self.used -= 1;
    }

    /// Recomputes the offsets of the blocks whose first slot is in
    /// `[from, to]`, in order (each from the one before).
    pub(crate) fn fix_offsets(&mut self, from: usize, to: usize) {
        let first = from.div_ceil(64).max(1);
        let last = (to / 64).min(self.blocks - 1);
        for b in first..=last {
            let o = self.covered_to(b * 64 - 1).saturating_sub(b * 64);
            self.set_offset(b, o);
        }
    }
}

/// Word `w` of a move of bits `[lo, hi)` (words `first..=last`): the
/// moved word, keeping `cur`'s bits outside the range in the first and
/// last words.
#[inline(always)]
fn edge(w: usize, first: usize, last: usize, lo: usize, hi: usize, cur: u64, moved: u64) -> u64 {
    if w != first && w != last {
        return moved;
    }
    let m = range_mask(lo.max(w * 64) - w * 64, hi.min(w * 64 + 64) - w * 64);
    (cur & !m) | (moved & m)
}
