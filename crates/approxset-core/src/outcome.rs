//! What a remove did ([`Removal`]) and what a filter can tell of a key's
//! count ([`Count`]): the answers of [`Deletable`](crate::Deletable).

use std::fmt;

/// What [`Deletable::remove_digest`](crate::Deletable::remove_digest) did.
///
/// ```
/// # use approxset_core::Removal;
/// let r = Removal::Removed;
/// assert!(r.is_removed());
/// assert!(!Removal::Saturated.is_removed());
/// ```
#[must_use = "a remove can find nothing to remove, or a key it cannot remove"]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Removal {
    /// One copy of the key was taken out, and [`len`](crate::Membership::len)
    /// went down by one.
    Removed,
    /// The key is certainly absent: nothing changed.
    Absent,
    /// The key cannot be removed, and nothing changed: every one of its
    /// counters in a counting filter is saturated (at 15, which a key
    /// inserted 15 times or more always reaches), so it tests present from
    /// now on. Decrementing a saturated counter could make another key a
    /// false negative, since the counter no longer knows what it counts.
    Saturated,
}

impl Removal {
    /// Whether a copy of the key was taken out
    /// ([`Removed`](Removal::Removed)).
    #[inline]
    pub const fn is_removed(self) -> bool {
        matches!(self, Removal::Removed)
    }
}

impl fmt::Display for Removal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Removal::Removed => "removed",
            Removal::Absent => "absent",
            Removal::Saturated => "saturated",
        })
    }
}

/// What a filter can tell of the number of times a key went in:
/// [`Deletable::count_digest`](crate::Deletable::count_digest).
///
/// The count is an upper bound, never below the true count of a key that was
/// not removed more often than it was inserted: other keys that share the
/// key's counters (a counting filter) or its fingerprint and buckets (a
/// cuckoo filter) add to it, and a key that was never inserted may count
/// above zero (a false positive).
///
/// ```
/// # use approxset_core::Count;
/// assert_eq!(Count::AtMost(0).upper_bound(), Some(0));
/// assert_eq!(Count::AtLeast(15).upper_bound(), None);
/// assert!(Count::AtMost(2).may_exceed(1) && !Count::AtMost(2).may_exceed(2));
/// assert_eq!(Count::AtLeast(15).to_string(), ">= 15");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Count {
    /// The key went in at most this many times (more removes than inserts
    /// aside); `AtMost(0)` means it is certainly absent.
    AtMost(u32),
    /// The filter can give no upper bound: the key's counters are saturated
    /// at this value (a counting filter's 15), so the key went in at least
    /// this many times, or shares its counters with keys that did.
    AtLeast(u32),
}

impl Count {
    /// The upper bound on the key's count, `None` when there is none
    /// ([`AtLeast`](Count::AtLeast)).
    #[inline]
    pub const fn upper_bound(self) -> Option<u32> {
        match self {
            Count::AtMost(n) => Some(n),
            Count::AtLeast(_) => None,
        }
    }

    /// Whether the key may have gone in more than `n` times.
    #[inline]
    pub const fn may_exceed(self, n: u32) -> bool {
        match self {
            Count::AtMost(bound) => bound > n,
            Count::AtLeast(_) => true,
        }
    }

    /// The value the filter holds for the key: the bound of
    /// [`AtMost`](Count::AtMost), the saturation value of
    /// [`AtLeast`](Count::AtLeast).
    #[inline]
    pub const fn value(self) -> u32 {
        match self {
            Count::AtMost(n) | Count::AtLeast(n) => n,
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::AtMost(n) => write!(f, "<= {n}"),
            Count::AtLeast(n) => write!(f, ">= {n}"),
        }
    }
}
