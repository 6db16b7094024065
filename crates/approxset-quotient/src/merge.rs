//! The union of two quotient filters of one plan and hash key: table by
//! table, both tables' entries merged in ascending fingerprint order with
//! counts added, in time linear in both (`docs/design.md`, "Merge").

use approxset_core::{Error, Result};

use crate::QuotientFilter;
use crate::codec;
use crate::sizing::{MIN_BITS, limit};
use crate::table::Table;
use crate::update::Scratch;

impl QuotientFilter {
    /// Adds every item of `other`, a filter built with the same hash key,
    /// rate and size: afterwards it holds both multisets (counts add), in
    /// time linear in both. A table of the union past 95 % load takes
    /// bits from its remainders into its quotients (twice the slots), at
    /// twice that table's share of the rate.
    ///
    /// # Errors
    /// [`Error::Incompatible`] naming `hash key`, `fp_rate`,
    /// `expected_items` (another plan) or `len` (the sum overflows);
    /// [`Error::TooLarge`], [`Error::AllocationFailed`]. Nothing changes on
    /// error.
    pub fn union(&mut self, other: &QuotientFilter) -> Result<()> {
        if self.key != other.key {
            return Err(Error::Incompatible {
                parameter: "hash key",
                detail: "the filters were built with different hash keys".into(),
            });
        }
        if self.plan != other.plan {
            return Err(Error::Incompatible {
                parameter: if self.plan.r0 != other.plan.r0 || self.plan.gap != other.plan.gap {
                    "fp_rate"
                } else {
                    "expected_items"
                },
                detail: format!(
                    "{} slots of {} bits vs {} slots of {} bits",
                    self.plan.home, self.plan.r0, other.plan.home, other.plan.r0
                ),
            });
        }
        let len = self
            .len
            .checked_add(other.len)
            .ok_or_else(|| Error::Incompatible {
                parameter: "len",
                detail: "the sum of the counts overflows".into(),
            })?;
        let n = self.tables.len().max(other.tables.len());
        let mut out: Vec<Table> = Vec::with_capacity(n);
        let mut scratch = Scratch::default();
        let (mut a, mut b, mut merged) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let range = self.plan.range(i).expect("checked ranges");
            merged.clear();
            collect(self.tables.get(i), &mut a);
            collect(other.tables.get(i), &mut b);
            merge_sorted(&a, &b, &mut merged);
            // An entry whose fingerprint an older table of the union holds
            // goes there, where a lookup finds it first.
            merged.retain(|&(fp, c)| {
                for (k, t) in out.iter_mut().enumerate() {
                    let shift = (range / self.plan.range(k).expect("checked")).trailing_zeros();
                    let fk = fp >> shift;
                    let (q, rem) = ((fk >> t.bits) as usize, fk & ((1u64 << t.bits) - 1));
                    if t.count(q, rem) > 0 {
                        t.update(q, rem, &mut scratch, |old| old + c)
                            .expect("a vector grows");
                        return false;
                    }
                }
                true
            });
            let home = self.plan.home(i).expect("checked");
            let bits = self.plan.bits(i);
            let slots: usize = merged.iter().map(|&(_, c)| codec::max_len(c, bits)).sum();
            let mut w = 0;
            while slots > limit(home << w) && bits - w > MIN_BITS {
                w += 1;
            }
            out.push(Table::from_sorted(
                home << w,
                bits - w,
                &merged,
                self.max_bytes,
            )?);
        }
        self.tables = out;
        self.len = len;
        Ok(())
    }

    /// [`union`](Self::union) with a filter chosen at run time.
    ///
    /// # Errors
    /// [`Error::Incompatible`] naming `variant` when `other` is not a
    /// quotient filter, and as [`union`](Self::union).
    pub fn union_dyn(&mut self, other: &dyn approxset_core::ApproxSet) -> Result<()> {
        let other = approxset_core::same_type(self, other)?;
        self.union(other)
    }
}

/// Appends the entries of `table` (if any), sorted by fingerprint.
fn collect(table: Option<&Table>, out: &mut Vec<(u64, u64)>) {
    out.clear();
    if let Some(t) = table {
        t.for_each(|fp, c| out.push((fp, c)));
    }
}

/// The union of two sorted entry lists, counts of equal fingerprints added.
fn merge_sorted(a: &[(u64, u64)], b: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 < y.0 {
            out.push(x);
            i += 1;
        } else if y.0 < x.0 {
            out.push(y);
            j += 1;
        } else {
            out.push((x.0, x.1 + y.1));
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}
