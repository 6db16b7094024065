//! Walks over a whole table: its entries in ascending order of
//! fingerprint (saving, merging, counting), and the next run end or
//! occupied quotient from a slot (checks and rewrites). Lookups and
//! updates never walk a table; they find a run by rank and select
//! (`table.rs`).

use approxset_core::format::Words;

use crate::codec;
use crate::table::Table;

impl<S: Words> Table<S> {
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

    /// The first occupied quotient at or after `q`, if any.
    pub(crate) fn next_occupied(&self, q: usize) -> Option<usize> {
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
}
