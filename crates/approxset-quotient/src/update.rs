//! Any change of a table: [`Table::update`] sets the count of one
//! fingerprint, through `shift.rs` when one slot goes in or out (an entry
//! of count 1 or 2 appears, grows to 2, or drops by one) and otherwise by
//! writing the run again and moving the runs after it by as much as it
//! grew or shrank; and the tables built whole (empty, or from sorted
//! entries in one pass).

use approxset_core::Result;

use crate::bits::{Store, mask};
use crate::codec::{self, Entry};
use crate::table::{Place, Table, data_words, offset_words};

/// Buffers an update reuses: a run's entries and slots, the runs it moves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    entries: Vec<Entry>,
    slots: Vec<u64>,
    moves: Vec<(usize, usize, usize)>,
    ends: Vec<usize>,
}

impl Table {
    /// An empty table of `home` slots (a multiple of 64, at least 64) and
    /// `r`-bit remainders, with one overflow block.
    ///
    /// # Errors
    /// [`Error::TooLarge`](approxset_core::Error::TooLarge) or
    /// [`Error::AllocationFailed`](approxset_core::Error::AllocationFailed).
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

    /// A table of `home` slots and `r`-bit remainders holding `entries`
    /// (fingerprint, count), sorted by fingerprint with no repeats: one
    /// pass.
    ///
    /// # Errors
    /// As [`new`](Self::new).
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

impl<S: Store> Table<S> {
    /// Sets the count of fingerprint `(q, rem)` to `f(old count)` (0 removes
    /// it) and returns the old count; `None` (nothing changed) when the
    /// table's storage cannot grow to hold the change. `scratch` holds a
    /// rewritten run's entries and slots meanwhile.
    pub(crate) fn update(
        &mut self,
        q: usize,
        rem: u64,
        scratch: &mut Scratch,
        f: impl FnOnce(u64) -> u64,
    ) -> Option<u64> {
        let place = self.place(q, rem);
        self.update_at(q, rem, &place, scratch, f)
    }

    /// [`update`](Self::update) with the place of `(q, rem)` found
    /// already ([`Table::place`], the table unchanged since).
    pub(crate) fn update_at(
        &mut self,
        q: usize,
        rem: u64,
        place: &Place,
        scratch: &mut Scratch,
        f: impl FnOnce(u64) -> u64,
    ) -> Option<u64> {
        let place = *place;
        let old = place.count;
        let new = f(old);
        match (old, new) {
            _ if new == old => {}
            (0, 1) | (1, 2) => {
                if !self.insert_slot(q, &place, rem) {
                    return None;
                }
                self.entries += usize::from(old == 0);
            }
            (1, 0) | (2, 1) => {
                self.remove_slot(q, &place);
                self.entries -= usize::from(new == 0);
            }
            _ => {
                if !self.rewrite(q, rem, &place, new, scratch) {
                    return None;
                }
            }
        }
        Some(old)
    }

    /// [`update`](Self::update) always through [`rewrite`](Self::rewrite),
    /// the reference the one-slot paths are tested against.
    #[cfg(test)]
    pub(crate) fn update_by_rewrite(&mut self, q: usize, rem: u64, new: u64) {
        let place = self.place(q, rem);
        if new != place.count {
            assert!(self.rewrite(q, rem, &place, new, &mut Scratch::default()));
        }
    }

    /// Writes the run of quotient `q` again with the count of `rem` set to
    /// `new`, moving the runs after it; `false` (nothing changed) when the
    /// storage cannot grow.
    fn rewrite(
        &mut self,
        q: usize,
        rem: u64,
        place: &Place,
        new: u64,
        scratch: &mut Scratch,
    ) -> bool {
        let (start, old_end) = (place.start, place.end);
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
        let entry_delta = match (place.count, new) {
            (0, _) => {
                entries.insert(at, (rem, new));
                1
            }
            (_, 0) => {
                entries.remove(at);
                -1
            }
            _ => {
                entries[at].1 = new;
                0
            }
        };
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
        if !self.ensure_slots(span_end) {
            return false;
        }
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
        self.entries = self.entries.wrapping_add_signed(entry_delta);
        self.fix_offsets(q + 1, span_end);
        true
    }

    /// The remainders of slots `[x, x + k)` (one block, `k·r ≤ 64`) as one
    /// bit string, slot `x` lowest.
    #[inline(always)]
    fn rems(&self, x: usize, k: usize) -> u64 {
        let width = k * self.bits as usize;
        let (at, o) = self.rem_at(x);
        let o = o as usize;
        let mut v = self.data.word(at) >> o;
        if o + width > 64 {
            v |= self.data.word(at + 1) << (64 - o);
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
        let width = k * self.bits as usize;
        let m = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let (at, o) = self.rem_at(x);
        let o = o as usize;
        let w = self.data.word(at);
        self.data.set_word(at, (w & !(m << o)) | (v << o));
        if o + width > 64 {
            let hi = 64 - o;
            let w = self.data.word(at + 1);
            self.data.set_word(at + 1, (w & !(m >> hi)) | (v >> hi));
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
                let m = crate::bits::range_mask(x % 64, x % 64 + k);
                let w = (x / 64) * self.stride() + 1;
                let v = self.data.word(w);
                self.data.set_word(w, v & !m);
                x += k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;
    use crate::table::Table;

    fn entries(t: &Table) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        t.for_each(|fp, c| v.push((fp, c)));
        v
    }

    /// The one-slot paths leave exactly the table the general rewrite
    /// leaves, canonical after every step: small tables at high load, so
    /// clusters cross blocks and run into the overflow blocks, for every
    /// width of remainder that splits a slot across words or not.
    #[test]
    fn one_slot_paths_match_the_rewrite() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut scratch = Scratch::default();
        for r in [2u32, 3, 7, 13, 33, 58] {
            for home in [64usize, 192] {
                let mut fast = Table::new(home, r, None).unwrap();
                let mut slow = fast.clone();
                let mut live: Vec<(usize, u64)> = Vec::new();
                for step in 0..3000 {
                    let remove = !live.is_empty() && (fast.used >= home || rand() % 5 < 2);
                    let (q, rem) = if remove {
                        live.swap_remove(rand() as usize % live.len())
                    } else if !live.is_empty() && rand() % 4 == 0 {
                        // Another copy of a stored fingerprint.
                        live[rand() as usize % live.len()]
                    } else {
                        // Quotients bunched near the end and the start.
                        let q = (rand() as usize % 48 + home - 24) % home;
                        (
                            q,
                            rand() & ((1u64 << r) - 1) & if step % 2 == 0 { 3 } else { !0 },
                        )
                    };
                    let old = fast.count(q, rem);
                    let new = if remove { old - 1 } else { old + 1 };
                    if !remove {
                        live.push((q, rem));
                    }
                    assert_eq!(fast.update(q, rem, &mut scratch, |_| new), Some(old));
                    slow.update_by_rewrite(q, rem, new);
                    fast.check()
                        .unwrap_or_else(|e| panic!("r {r} home {home} step {step}: {e}"));
                    assert_eq!(fast.used, slow.used);
                    assert_eq!(fast.entries, slow.entries);
                    if step % 50 == 0 {
                        assert_eq!(entries(&fast), entries(&slow));
                    }
                }
                assert_eq!(entries(&fast), entries(&slow));
            }
        }
    }
}
