//! Overfilled filters: a filter that holds more items than it was sized
//! for (items > capacity, as the filter reports them) still answers, but
//! with more false positives than its target, and inserting into it does
//! not fail. `build` and `add` warn on standard error, `info` shows a line
//! and a JSON field. A scalable filter grows its capacity as it fills, so
//! it is overfilled only when its own capacity says so.

use std::path::Path;

use approxset::ApproxSet;

use crate::output;

/// A filter that holds more items than it was sized for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Overfill {
    /// Items it holds.
    pub(crate) items: u64,
    /// Items it was sized for.
    pub(crate) capacity: u64,
    /// The false-positive rate estimated from its fill now.
    pub(crate) estimated_fp: f64,
    /// The false-positive rate it was built for.
    pub(crate) target_fp: f64,
}

impl Overfill {
    /// The overfill of `filter`, or `None` when it holds at most its
    /// capacity.
    pub(crate) fn of<F: ApproxSet + ?Sized>(filter: &F) -> Option<Self> {
        Self::from_counts(
            filter.len() as u64,
            filter.capacity() as u64,
            filter.estimated_fp_rate(),
            filter.fp_rate(),
        )
    }

    /// The overfill of a filter holding `items` of `capacity`, or `None`
    /// when `items <= capacity`.
    pub(crate) fn from_counts(
        items: u64,
        capacity: u64,
        estimated_fp: f64,
        target_fp: f64,
    ) -> Option<Self> {
        (items > capacity).then_some(Overfill {
            items,
            capacity,
            estimated_fp,
            target_fp,
        })
    }

    /// How many times its capacity the filter holds, e.g. `10.0×`, `1.25×`.
    fn times(&self) -> String {
        let ratio = self.items as f64 / self.capacity.max(1) as f64;
        if ratio >= 10.0 {
            format!("{ratio:.1}×")
        } else {
            format!("{ratio:.2}×")
        }
    }

    /// `holds 10,000 items, 10.0× the 1,000 it was sized for; estimated FP
    /// now 0.996993 (target 0.010000)`.
    pub(crate) fn describe(&self) -> String {
        format!(
            "holds {} items, {} the {} it was sized for; estimated FP now {} (target {})",
            output::count(self.items),
            self.times(),
            output::count(self.capacity),
            output::rate(self.estimated_fp),
            output::rate(self.target_fp),
        )
    }

    /// Warns on standard error that the filter file `path` is overfilled.
    pub(crate) fn warn(&self, path: &Path) {
        eprintln!(
            "warning: '{}' {}; build a larger filter (--items) for fewer false positives",
            path.display(),
            self.describe()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approxset::Variant;

    #[test]
    fn only_more_items_than_capacity_is_overfilled() {
        assert_eq!(Overfill::from_counts(100, 100, 0.01, 0.01), None);
        let o = Overfill::from_counts(10_000, 1_000, 0.996_993, 0.01).unwrap();
        assert_eq!(
            o.describe(),
            "holds 10,000 items, 10.0× the 1,000 it was sized for; estimated FP now \
             0.996993 (target 0.010000)"
        );
        let o = Overfill::from_counts(101, 100, 0.0101, 0.01).unwrap();
        assert!(
            o.describe().starts_with("holds 101 items, 1.01× the 100"),
            "{o:?}"
        );
    }

    #[test]
    fn every_variant_but_the_scalable_one_can_overfill() {
        for &variant in Variant::ALL {
            let mut f = variant.builder().seed(1).build(100, 0.01).unwrap();
            for i in 0..100u32 {
                f.insert(&i).unwrap();
            }
            assert_eq!(Overfill::of(&*f), None, "{variant}");
            // A cuckoo table sized for 100 has a few more slots than that.
            for i in 100..110u32 {
                f.insert(&i).unwrap();
            }
            let overfill = Overfill::of(&*f);
            if variant == Variant::Scalable {
                assert_eq!(overfill, None, "a scalable filter grows");
            } else {
                let o = overfill.unwrap_or_else(|| panic!("{variant}"));
                assert_eq!((o.items, o.capacity), (110, 100), "{variant}");
                assert_eq!(o.target_fp, 0.01, "{variant}");
            }
        }
    }
}
