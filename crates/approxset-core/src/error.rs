//! The error type shared by every filter of the family.

use std::fmt;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when building, filling or combining a filter.
///
/// The enum is `#[non_exhaustive]`: later variants (persistence, for one)
/// add failure cases without breaking code that matches on it. Every message
/// is lowercase without trailing punctuation, in the style of the standard
/// library, so it can be embedded in a larger message.
///
/// An operation that returns an error leaves the filter exactly as it was.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A construction parameter is outside the range the filter accepts.
    InvalidParameter {
        /// The parameter, as the builder names it (`fp_rate`, `expected_items`, …).
        name: &'static str,
        /// What is wrong with the value that was given.
        reason: String,
    },
    /// The filter would need more memory than allowed: more than the
    /// `max_bytes` limit set on the builder, or more than the address space.
    TooLarge {
        /// Bytes the filter would need.
        needed: u128,
        /// The limit it would pass.
        limit: u128,
    },
    /// The allocator refused the filter's memory.
    AllocationFailed {
        /// Bytes that were requested.
        bytes: usize,
    },
    /// Two filters cannot be combined (union, intersection) because they were
    /// built differently.
    Incompatible {
        /// The parameter in which they differ (`bits`, `hashes`, `hash key`, …).
        parameter: &'static str,
        /// The two values, or a description where printing them would leak a
        /// secret (the hash key).
        detail: String,
    },
    /// A variant with bounded capacity (a cuckoo table) cannot take another
    /// item. Every item stored before is still present.
    Full {
        /// Items the filter holds.
        items: usize,
    },
    /// A filter variant cannot delete items, so it cannot be built as a
    /// [`Deletable`](crate::Deletable).
    DeleteUnsupported {
        /// The variant's name.
        variant: &'static str,
    },
}

impl Error {
    /// Builds an [`Error::InvalidParameter`].
    pub fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter { name, reason } => write!(f, "invalid {name}: {reason}"),
            Error::TooLarge { needed, limit } => write!(
                f,
                "filter would need {needed} bytes, more than the limit of {limit} bytes"
            ),
            Error::AllocationFailed { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the filter")
            }
            Error::Incompatible { parameter, detail } => {
                write!(f, "filters differ in {parameter}: {detail}")
            }
            Error::Full { items } => write!(
                f,
                "filter is full: no room for another item after {items} items"
            ),
            Error::DeleteUnsupported { variant } => {
                write!(f, "the {variant} variant cannot delete items")
            }
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_lowercase_without_trailing_punctuation() {
        let errors = [
            Error::invalid("fp_rate", "must be in (0, 1), got 1.5"),
            Error::TooLarge {
                needed: 10,
                limit: 5,
            },
            Error::AllocationFailed { bytes: 8 },
            Error::Incompatible {
                parameter: "bits",
                detail: "64 vs 128".into(),
            },
            Error::Full { items: 3 },
            Error::DeleteUnsupported { variant: "classic" },
        ];
        for e in errors {
            let s = e.to_string();
            let first = s.chars().next().unwrap();
            assert!(first.is_lowercase(), "{s}");
            assert!(!s.ends_with('.') && !s.ends_with('!'), "{s}");
        }
    }

    #[test]
    fn messages_carry_the_values() {
        let s = Error::TooLarge {
            needed: 1234,
            limit: 99,
        }
        .to_string();
        assert!(s.contains("1234") && s.contains("99"), "{s}");
        let s = Error::invalid("expected_items", "must be at least 1").to_string();
        assert!(s.contains("expected_items"), "{s}");
    }
}
