//! Overfilled filters: a filter that holds more items than it was sized
//! for and whose estimated false-positive rate is above its target (the
//! library's [`ApproxSet::is_overfilled`]) still answers, but with more
//! false positives than asked for, and inserting into it does not fail.
//! `build`, `add` and `merge` warn on standard error, `info` shows a line
//! and a JSON field. A filter one key past its capacity whose estimate is
//! still under target is not overfilled; a scalable filter grows its
//! capacity as it fills, so it is overfilled only when its own capacity
//! says so.

use std::path::Path;

use approxset::{ApproxSet, Membership};

use crate::output;

/// A filter that holds more items than it was sized for, with an estimated
/// false-positive rate above its target.
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
    /// A time-window sliding filter's inserts per generation `g`: it is
    /// overfilled when a generation took more than `g` inserts, however
    /// few items it holds in all.
    pub(crate) generation_size: Option<u64>,
}

/// The inserts per generation of a sliding filter, from its parameters.
fn generation_size<F: Membership + ?Sized>(filter: &F) -> Option<u64> {
    if filter.variant() != approxset::Variant::Sliding.name() {
        return None;
    }
    filter
        .parameters()
        .into_iter()
        .find_map(|(name, value)| match (name, value) {
            ("generation_size", approxset::Value::Count(g)) => Some(g),
            _ => None,
        })
}

impl Overfill {
    /// The overfill of `filter`, or `None` when it is not
    /// [overfilled](ApproxSet::is_overfilled).
    pub(crate) fn of<F: ApproxSet + ?Sized>(filter: &F) -> Option<Self> {
        filter.is_overfilled().then(|| {
            Self::from_counts(
                filter.len() as u64,
                filter.capacity() as u64,
                filter.estimated_fp_rate(),
                filter.fp_rate(),
            )
            .per_generation(generation_size(filter))
        })
    }

    /// The overfill of a read-only filter (a view of a saved one, for
    /// `info`): as [`of`](Self::of) when it takes inserts, else by the
    /// trait's own rule, `len > capacity` and the estimate above target.
    pub(crate) fn of_read_only(filter: &dyn Membership) -> Option<Self> {
        if let Some(set) = filter.as_approx_set() {
            return Self::of(set);
        }
        let overfilled =
            filter.len() > filter.capacity() && filter.estimated_fp_rate() > filter.fp_rate();
        overfilled.then(|| {
            Self::from_counts(
                filter.len() as u64,
                filter.capacity() as u64,
                filter.estimated_fp_rate(),
                filter.fp_rate(),
            )
        })
    }

    /// The overfill of a filter holding `items` of `capacity`, at
    /// `estimated_fp` against `target_fp` (for its description; whether it
    /// is overfilled is [`of`](Self::of)'s question).
    pub(crate) fn from_counts(
        items: u64,
        capacity: u64,
        estimated_fp: f64,
        target_fp: f64,
    ) -> Self {
        Overfill {
            items,
            capacity,
            estimated_fp,
            target_fp,
            generation_size: None,
        }
    }

    /// The overfill of a sliding filter of `generation_size` inserts per
    /// generation (`None`: any other filter).
    pub(crate) fn per_generation(self, generation_size: Option<u64>) -> Self {
        Overfill {
            generation_size,
            ..self
        }
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
        if let Some(g) = self.generation_size {
            return format!(
                "a generation took more than the g = {} inserts it was sized for ({} inserts \
                 within the time window); estimated FP now {} (target {})",
                output::count(g),
                output::count(self.capacity),
                output::rate(self.estimated_fp),
                output::rate(self.target_fp),
            );
        }
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
        let what = if self.generation_size.is_some() {
            "--items: the inserts expected within the time window"
        } else {
            "--items"
        };
        eprintln!(
            "warning: '{}' {}; build a larger filter ({what}) for fewer false positives",
            path.display(),
            self.describe()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approxset::{SlidingBloomFilter, Variant};

    #[test]
    fn a_time_window_overfills_by_the_generation() {
        let mut f = SlidingBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .time_window(60)
            .window(10_000)
            .unwrap();
        let g = f.params().generation_size();
        // Fewer items than the window, all in one generation: 3·g keys in
        // the newest block, where the sizing puts at most g.
        assert!(3 * g < 10_000);
        for i in 0..(3 * g) {
            f.insert(&i).unwrap();
        }
        assert!(f.len() < f.capacity());
        let o = Overfill::of(&f).unwrap();
        assert_eq!(o.generation_size, Some(g));
        let text = o.describe();
        assert!(
            text.starts_with("a generation took more than the g = "),
            "{text}"
        );
    }

    #[test]
    fn an_overfill_describes_itself() {
        let o = Overfill::from_counts(10_000, 1_000, 0.996_993, 0.01);
        assert_eq!(
            o.describe(),
            "holds 10,000 items, 10.0× the 1,000 it was sized for; estimated FP now \
             0.996993 (target 0.010000)"
        );
        let o = Overfill::from_counts(101, 100, 0.0101, 0.01);
        assert!(
            o.describe().starts_with("holds 101 items, 1.01× the 100"),
            "{o:?}"
        );
    }

    #[test]
    fn every_bloom_variant_can_overfill() {
        for &variant in Variant::INSERTABLE {
            let mut f = variant.builder().seed(1).build(100, 0.01).unwrap();
            for i in 0..100u32 {
                f.insert(&i).unwrap();
            }
            assert_eq!(Overfill::of(&*f), None, "{variant}");
            // Twice the capacity: far above the target rate, where the
            // variant takes that many (a cuckoo table sized for 100 has a
            // few more slots, at a rate still under target).
            let mut refused = false;
            for i in 100..200u32 {
                refused |= f.insert(&i).is_err();
            }
            let overfill = Overfill::of(&*f);
            if variant == Variant::Scalable || variant == Variant::Quotient {
                assert_eq!(overfill, None, "a scalable or quotient filter grows");
            } else if variant == Variant::Sliding {
                assert_eq!(overfill, None, "a window of inserts forgets the oldest");
            } else if variant == Variant::Cuckoo {
                assert!(refused, "a cuckoo table fills up first");
                assert_eq!(overfill.is_some(), f.is_overfilled(), "{variant}");
            } else {
                let o = overfill.unwrap_or_else(|| panic!("{variant}"));
                assert_eq!((o.items, o.capacity), (200, 100), "{variant}");
                assert_eq!(o.target_fp, 0.01, "{variant}");
                assert!(o.estimated_fp > 0.01, "{variant}");
            }
        }
    }
}
