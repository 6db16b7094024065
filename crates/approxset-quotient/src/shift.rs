//! Writes of one table: single bits, remainders and offsets, and the two
//! changes nearly every insert and remove makes, one slot in
//! ([`Table::insert_slot`]) or one slot out ([`Table::remove_slot`]), which
//! move the slots after it by one a word at a time (the remainders of all
//! blocks are one bit string, a `Strand`, shifted by `r`, and the run-end
//! bits another, shifted by one) and adjust the offsets by one instead of
//! computing them again.

use crate::bits::{Store, mask};
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

    /// Bits `[lo, hi)` of strand `s` set to its bits `[lo − sh, hi − sh)`
    /// (`sh ≤ lo`, `0 < sh < 64`): from the top word down, so that the word
    /// below is still unchanged, masking only the first and last words;
    /// the words between go a block's run at a time ([`Store::words_up`]).
    #[inline(always)]
    fn strand_up(&mut self, s: Strand, lo: usize, hi: usize, sh: u32) {
        if lo >= hi {
            return;
        }
        let stride = self.stride();
        let (first, last) = (lo / 64, (hi - 1) / 64);
        let mut j = last % s.per;
        let mut at = s.word(stride, last);
        // The bits below `hi` in the last word.
        let mut m = u64::MAX >> (hi.wrapping_neg() % 64);
        let mut left = last - first;
        // The word at `at` from the one at `below`, under mask `m`.
        let put = |data: &mut S, at: usize, below: usize, m: u64| {
            let cur = data.word(at);
            let moved = (cur << sh) | (data.word(below) >> (64 - sh));
            data.set_word(at, cur ^ ((cur ^ moved) & m));
        };
        // The last word, masked (unless it is also the first).
        if left > 0 {
            let below = if j == 0 {
                at - (stride - s.per + 1)
            } else {
                at - 1
            };
            put(&mut self.data, at, below, m);
            (at, j, left, m) = (
                below,
                if j == 0 { s.per - 1 } else { j - 1 },
                left - 1,
                u64::MAX,
            );
        }
        while left > 0 {
            // The words with the one below in the same block, then the
            // block's first, from the last of the block before, past its
            // metadata words.
            let steps = j.min(left);
            self.data.words_up(at + 1 - steps, steps, sh);
            (at, j, left) = (at - steps, j - steps, left - steps);
            if left == 0 {
                break;
            }
            let below = at - (stride - s.per + 1);
            put(&mut self.data, at, below, u64::MAX);
            (at, j, left) = (below, s.per - 1, left - 1);
        }
        // The first word: word `first − 1` exists when the source reaches it.
        let m = m & (u64::MAX << (lo % 64));
        if lo - (sh as usize) < 64 * first {
            let below = if j == 0 {
                at - (stride - s.per + 1)
            } else {
                at - 1
            };
            put(&mut self.data, at, below, m);
        } else {
            let cur = self.data.word(at);
            self.data.set_word(at, cur ^ ((cur ^ (cur << sh)) & m));
        }
    }

    /// Bits `[lo, hi)` of strand `s` set to its bits `[lo + sh, hi + sh)`
    /// (`hi + sh` at most the strand's length, `0 < sh < 64`): from the
    /// bottom word up, so that the word above is still unchanged, masking
    /// only the first and last words; the words between go a block's run
    /// at a time ([`Store::words_down`]).
    #[inline(always)]
    fn strand_down(&mut self, s: Strand, lo: usize, hi: usize, sh: u32) {
        if lo >= hi {
            return;
        }
        let stride = self.stride();
        let (first, last) = (lo / 64, (hi - 1) / 64);
        // Words of the block left above `at`.
        let mut j = s.per - 1 - first % s.per;
        let mut at = s.word(stride, first);
        // The bits from `lo` on in the first word.
        let mut m = u64::MAX << (lo % 64);
        let mut left = last - first;
        let put = |data: &mut S, at: usize, above: usize, m: u64| {
            let cur = data.word(at);
            let moved = (cur >> sh) | (data.word(above) << (64 - sh));
            data.set_word(at, cur ^ ((cur ^ moved) & m));
        };
        if left > 0 {
            let above = if j == 0 {
                at + stride - s.per + 1
            } else {
                at + 1
            };
            put(&mut self.data, at, above, m);
            (at, j, left, m) = (
                above,
                if j == 0 { s.per - 1 } else { j - 1 },
                left - 1,
                u64::MAX,
            );
        }
        while left > 0 {
            let steps = j.min(left);
            self.data.words_down(at, steps, sh);
            (at, j, left) = (at + steps, j - steps, left - steps);
            if left == 0 {
                break;
            }
            let above = at + stride - s.per + 1;
            put(&mut self.data, at, above, u64::MAX);
            (at, j, left) = (above, s.per - 1, left - 1);
        }
        // The last word: word `last + 1` exists when the source reaches it.
        let m = m & (u64::MAX >> (hi.wrapping_neg() % 64));
        if hi + sh as usize > 64 * (last + 1) {
            let above = if j == 0 {
                at + stride - s.per + 1
            } else {
                at + 1
            };
            put(&mut self.data, at, above, m);
        } else {
            let cur = self.data.word(at);
            self.data.set_word(at, cur ^ ((cur ^ (cur >> sh)) & m));
        }
    }

    /// Moves the remainders and run-end bits of slots `[p, e)` to
    /// `[p + 1, e + 1)` (slot `e` must exist; slot `p` keeps its old value).
    fn shift_up(&mut self, p: usize, e: usize) {
        let r = self.bits as usize;
        self.strand_up(Strand::rems(r), (p + 1) * r, (e + 1) * r, r as u32);
        self.strand_up(Strand::RUNENDS, p + 1, e + 1, 1);
    }

    /// Moves the remainders and run-end bits of slots `[p + 1, e)` to
    /// `[p, e − 1)`, and clears slot `e − 1` (`p < e`).
    fn shift_down(&mut self, p: usize, e: usize) {
        let r = self.bits as usize;
        self.strand_down(Strand::rems(r), p * r, (e - 1) * r, r as u32);
        self.strand_down(Strand::RUNENDS, p, e - 1, 1);
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
        let free = self.settle(place.end, place.pending, true);
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
        let stop = self.settle(place.end, place.pending, false);
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

/// One bit string laid over the blocks: words `at..at + per` of each
/// block, read as the words of one string from block to block (the
/// remainders, `r` words from the third; the run ends, the second word),
/// so that a shift by whole slots crosses blocks with no carry of its own.
#[derive(Clone, Copy)]
struct Strand {
    at: usize,
    per: usize,
}

impl Strand {
    /// The run-end bits: one bit a slot.
    const RUNENDS: Strand = Strand { at: 1, per: 1 };

    /// The remainders: `r` bits a slot.
    #[inline(always)]
    fn rems(r: usize) -> Strand {
        Strand { at: 2, per: r }
    }

    /// The index in the table's words of the strand's word `k`.
    #[inline(always)]
    fn word(self, stride: usize, k: usize) -> usize {
        (k / self.per) * stride + self.at + k % self.per
    }
}
