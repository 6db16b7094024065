//! Inserts and removes at a fingerprint's home slot, frequent in a table
//! below 7/8 load (half the inserts of a fill, and of emptying a filter):
//! select-free tests of the slot (free; holding its quotient's run alone)
//! and the writes that then move nothing; and the update of a filter of
//! one table, which needs no walk of a chain of tables. [`QuotientFilter`]'s
//! `insert_digest` and `remove_digest` try them
//! ([`insert_direct`](QuotientFilter::insert_direct),
//! [`remove_direct`](QuotientFilter::remove_direct)) before the search of
//! an update in a chain (`locate`, then `Table::update_at`); they change
//! nothing when they do not apply.

use approxset_core::format::Words;
use approxset_core::{Digest, Removal};

use crate::QuotientFilter;
use crate::bits::Store;
use crate::filter::{locate, split};
use crate::sizing::limit;
use crate::table::Table;

impl<S: Words> Table<S> {
    /// Whether the table is below 7/8 of its home slots in use, where
    /// [`is_free`](Self::is_free) and
    /// [`is_alone_at_home`](Self::is_alone_at_home) hold often enough to
    /// pay for the test before an update's search (at 95 % load a remove
    /// and re-insert paid about 55 instructions more for them).
    #[inline(always)]
    pub(crate) fn home_tests_pay(&self) -> bool {
        self.used < self.home - self.home / 8
    }

    /// Whether slot `q` (a home slot) is free: quotient `q` is not
    /// occupied and no run of an earlier quotient holds the slot
    /// ([`unheld_before`](Self::unheld_before)).
    #[inline(always)]
    pub(crate) fn is_free(&self, q: usize) -> bool {
        self.unheld_before(q, false)
    }

    /// Whether slot `q` (a home slot) holds the run of quotient `q` alone,
    /// remainder `rem` with count 1: quotient `q` occupied, the slot a run
    /// end, no run of an earlier quotient holding it, and `rem` there.
    #[inline(always)]
    pub(crate) fn is_alone_at_home(&self, q: usize, rem: u64) -> bool {
        self.is_runend(q) && self.unheld_before(q, true) && self.rem(q) == rem
    }

    /// Whether quotient `q` is occupied exactly when `occupied`, and no run
    /// of a quotient below `q` holds slot `q`; without a select: the runs
    /// of quotients before `q`'s block hold the block's slots up to its
    /// offset; past it, those of the block's quotients below `q` hold
    /// slot `q` unless each has ended before it, that is, unless the
    /// block's run ends from its offset to `q` are as many as its
    /// occupied quotients below `q` (a run ending before `q` has a
    /// quotient below `q`).
    #[inline(always)]
    fn unheld_before(&self, q: usize, occupied: bool) -> bool {
        let (b, bit) = (q / 64, q % 64);
        let occ = self.occupieds(b);
        if ((occ >> bit) & 1 == 1) != occupied {
            return false;
        }
        let o = self.offset(b);
        if o > bit {
            return false;
        }
        let below = !(u64::MAX << bit);
        let ends = self.runends(b) & (u64::MAX << o) & below;
        (occ & below).count_ones() == ends.count_ones()
    }
}

impl<S: Store> Table<S> {
    /// Writes `value` into free slot `q` ([`Table::is_free`]) as the run
    /// of quotient `q` alone, a new entry of count 1: what
    /// [`insert_slot`](Self::insert_slot) does there, with nothing to
    /// move and no offset to change.
    pub(crate) fn put_at_home(&mut self, q: usize, value: u64) {
        debug_assert!(self.is_free(q));
        self.set_rem(q, value);
        self.set_runend(q, true);
        self.set_occupied(q, true);
        self.used += 1;
        self.entries += 1;
    }

    /// Clears slot `q`, which holds the run of quotient `q` alone with
    /// count 1 ([`Table::is_alone_at_home`]): what
    /// [`remove_slot`](Self::remove_slot) does there, where nothing after
    /// it moves (the runs pending at `q + 1` all ended at `q`) and no
    /// offset changes.
    pub(crate) fn take_at_home(&mut self, q: usize) {
        self.set_rem(q, 0);
        self.set_runend(q, false);
        self.set_occupied(q, false);
        self.used -= 1;
        self.entries -= 1;
    }
}

impl QuotientFilter {
    /// An insert without the search of a chain of tables: at the home slot
    /// ([`insert_at_home`](Self::insert_at_home)), or else, in a filter of
    /// one table that need not grow first, at the fingerprint's place there
    /// (`Table::place`, then `Table::update_at`). `Some(new)` as
    /// `insert_digest` answers; `None`, nothing changed, in any other case.
    #[inline(always)]
    pub(crate) fn insert_direct(&mut self, digest: Digest) -> Option<bool> {
        let Err((q, rem)) = self.insert_at_home(digest) else {
            return Some(true);
        };
        // (The one table is the newest, so `(q, rem)` is its fingerprint.)
        let [t] = &mut self.tables[..] else {
            return None;
        };
        let place = t.place(q, rem);
        if place.count > 0 || t.used < limit(t.home) {
            t.update_at(q, rem, &place, &mut self.scratch, |c| c + 1)
                .expect("a vector grows");
            self.len += 1;
            return Some(place.count == 0);
        }
        None
    }

    /// A remove without the search of a chain of tables: at the home slot
    /// ([`remove_at_home`](Self::remove_at_home)), or else, in a filter of
    /// one table, at the fingerprint's place there. `Some` of what
    /// `remove_digest` answers; `None`, nothing changed, for a filter of
    /// more tables.
    #[inline(always)]
    pub(crate) fn remove_direct(&mut self, digest: Digest) -> Option<Removal> {
        let Err((q, rem)) = self.remove_at_home(digest) else {
            return Some(Removal::Removed);
        };
        // (The one table is the oldest, so `(q, rem)` is its fingerprint.)
        let [t] = &mut self.tables[..] else {
            return None;
        };
        let place = t.place(q, rem);
        if place.count == 0 {
            return Some(Removal::Absent);
        }
        t.update_at(q, rem, &place, &mut self.scratch, |c| c - 1)
            .expect("a vector grows");
        self.len -= 1;
        Some(Removal::Removed)
    }

    /// The insert of most of a fill, without the search of an update: a
    /// fingerprint whose home slot in the newest table is free
    /// ([`Table::is_free`]; so that table does not hold it), which no
    /// older table holds, while the newest is below 7/8 load (so below its
    /// limit; [`Table::home_tests_pay`]), goes into that slot as a run of
    /// its own (nothing moves). In any other case nothing changes, and
    /// the error is the fingerprint's quotient and remainder in the newest
    /// table.
    #[inline(always)]
    pub(crate) fn insert_at_home(&mut self, digest: Digest) -> Result<(), (usize, u64)> {
        let last = self.tables.len() - 1;
        let (older, newest) = self.tables.split_at_mut(last);
        let t = &mut newest[0];
        let (q, rem) = split(digest.h1(), t.range(), t.bits);
        if !t.home_tests_pay() || !t.is_free(q) {
            return Err((q, rem));
        }
        if !older.is_empty() && locate(&*older, digest).place.count > 0 {
            return Err((q, rem));
        }
        t.put_at_home(q, rem);
        self.len += 1;
        Ok(())
    }

    /// The remove of a fingerprint whose run in the oldest table, the
    /// first a remove looks in, is its home slot alone with count 1
    /// ([`Table::is_alone_at_home`], below 7/8 load): that copy goes, and
    /// nothing moves. In any other case nothing changes, and the error is
    /// the fingerprint's quotient and remainder in the oldest table.
    #[inline(always)]
    pub(crate) fn remove_at_home(&mut self, digest: Digest) -> Result<(), (usize, u64)> {
        let t = &mut self.tables[0];
        let (q, rem) = split(digest.h1(), t.range(), t.bits);
        if !t.home_tests_pay() || !t.is_alone_at_home(q, rem) {
            return Err((q, rem));
        }
        t.take_at_home(q);
        self.len -= 1;
        Ok(())
    }
}
