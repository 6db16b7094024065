//! The checks a table read from bytes passes before any read or write
//! (the loader's and the view's), one pass over its runs.

use approxset_core::format::Words;
use approxset_core::{Error, Result};

use crate::codec;
use crate::table::{SATURATED, Table};

impl<S: Words> Table<S> {
    /// Checks every invariant of a table read from bytes, so that no later
    /// read or write can go wrong: occupied bits in home blocks only, runs
    /// that decode canonically (remainders strictly ascending, counters in
    /// their shortest form), as many run ends as occupied quotients, unused
    /// slots zero, the offsets those runs give, and the `used`/`entries`
    /// counts.
    pub(crate) fn check(&self) -> Result<()> {
        let corrupt = |what: String| Err(Error::corrupt(what));
        let home_blocks = self.home / 64;
        for b in home_blocks..self.blocks {
            if self.occupieds(b) != 0 {
                return corrupt(format!("occupied bits in overflow block {b}"));
            }
        }
        let occupied: u64 = (0..self.blocks)
            .map(|b| u64::from(self.occupieds(b).count_ones()))
            .sum();
        let ends: u64 = (0..self.blocks)
            .map(|b| u64::from(self.runends(b).count_ones()))
            .sum();
        if occupied != ends {
            return corrupt(format!("{occupied} occupied quotients but {ends} run ends"));
        }
        let mut pos = 0;
        let mut used = 0;
        let mut entries = 0;
        let mut slots = Vec::new();
        let mut expected_offsets = vec![0usize; self.blocks];
        for b in 0..home_blocks {
            let mut occ = self.occupieds(b);
            while occ != 0 {
                let q = b * 64 + occ.trailing_zeros() as usize;
                occ &= occ - 1;
                let start = pos.max(q);
                if start >= self.slots() {
                    return corrupt(format!("run of quotient {q} starts past the table"));
                }
                // The gap before this run is unused.
                for x in pos..start {
                    if self.rem(x) != 0 {
                        return corrupt(format!("unused slot {x} is not 0"));
                    }
                }
                let end = self.next_runend(start) + 1;
                if !self.is_runend(end - 1) {
                    return corrupt(format!("run of quotient {q} has no end"));
                }
                // Offsets of the blocks this run covers from before them.
                let first_block = q / 64 + 1;
                let last_block = end.div_ceil(64).min(self.blocks);
                for (k, o) in expected_offsets
                    .iter_mut()
                    .enumerate()
                    .take(last_block)
                    .skip(first_block)
                {
                    *o = end - k * 64;
                }
                let len = end - start;
                let mut i = 0;
                let mut last: Option<u64> = None;
                slots.clear();
                while i < len {
                    let Some(((x, c), next)) =
                        codec::decode(|j| self.rem(start + j), i, len, self.bits)
                    else {
                        return corrupt(format!("run of quotient {q} does not decode"));
                    };
                    if last.is_some_and(|l| l >= x) {
                        return corrupt(format!("run of quotient {q} is not sorted"));
                    }
                    last = Some(x);
                    codec::encode(x, c, self.bits, &mut slots);
                    entries += 1;
                    i = next;
                }
                if slots.len() != len || (0..len).any(|j| slots[j] != self.rem(start + j)) {
                    return corrupt(format!("run of quotient {q} is not in its shortest form"));
                }
                used += len;
                pos = end;
            }
        }
        for x in pos..self.slots() {
            if self.rem(x) != 0 {
                return corrupt(format!("unused slot {x} is not 0"));
            }
        }
        for (b, &o) in expected_offsets.iter().enumerate() {
            if self.stored_offset(b) != (o as u64).min(SATURATED) {
                return corrupt(format!(
                    "offset of block {b} is {}, the runs give {o}",
                    self.stored_offset(b)
                ));
            }
        }
        for b in self.blocks..self.offsets.word_count() * 4 {
            if self.stored_offset(b) != 0 {
                return corrupt("offset padding is not 0".into());
            }
        }
        if (used, entries) != (self.used, self.entries) {
            return corrupt(format!(
                "the runs hold {used} slots and {entries} entries, the header says {} and {}",
                self.used, self.entries
            ));
        }
        Ok(())
    }
}
