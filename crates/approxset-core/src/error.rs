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
    /// A filter that stores copies (a cuckoo table) already holds as many
    /// copies of this key as it can tell apart: a cuckoo filter keeps at most
    /// 2b = 8 copies of one fingerprint in a key's two buckets. The table
    /// itself may have room; remove duplicates before inserting. Every item
    /// stored before is still present.
    TooManyCopies {
        /// The most copies of one key the filter holds.
        limit: usize,
    },
    /// A growing filter (the scalable Bloom filter) cannot add the stage it
    /// needs: the stage's error rate or capacity is beyond what a filter can
    /// be built for. Every item stored before is still present.
    CannotGrow {
        /// Stages the filter has.
        stages: usize,
        /// Items it holds.
        items: usize,
        /// Why the next stage cannot be built.
        reason: String,
    },
    /// A static filter (the binary fuse or Ribbon filter) could not be
    /// built: no seed tried gave a layout that peels (fuse) or solves
    /// (Ribbon). Only a layout far too small for
    /// the keys fails this way in practice.
    ConstructionFailed {
        /// Seeds tried.
        attempts: u32,
        /// Distinct keys the filter was built for.
        items: usize,
    },
    /// A static filter (the binary fuse or Ribbon filter, built once from every key)
    /// was asked for an operation that inserts: building it empty, loading
    /// it as an `ApproxSet`, or adding keys. Open it with
    /// `approxset::load_membership`, build it with `build_from`.
    StaticFilter {
        /// The variant's name.
        variant: &'static str,
    },
    /// A filter variant cannot delete items, so it cannot be built as a
    /// [`Deletable`](crate::Deletable).
    DeleteUnsupported {
        /// The variant's name.
        variant: &'static str,
    },
    /// A filter does not support an operation (e.g. a third-party filter
    /// that has no serialized form).
    Unsupported {
        /// The operation.
        operation: &'static str,
        /// The variant's name.
        variant: &'static str,
    },
    /// Serialized input ends before the filter does.
    Truncated {
        /// Bytes the input should have.
        needed: u64,
        /// Bytes it has.
        available: u64,
    },
    /// Serialized input goes on after the filter ends.
    TrailingBytes {
        /// Bytes the filter takes.
        expected: u64,
        /// Bytes the input has.
        found: u64,
    },
    /// The input does not start with the approxset magic bytes.
    BadMagic {
        /// The first four bytes found.
        found: [u8; 4],
    },
    /// The input was written by a newer format version than this library reads.
    UnsupportedVersion {
        /// The version in the input.
        found: u16,
        /// The newest version this library reads.
        supported: u16,
    },
    /// The input's variant tag is not one this library knows.
    UnknownVariant {
        /// The tag found.
        tag: u8,
    },
    /// The input holds another variant than the one asked for.
    WrongVariant {
        /// The variant asked for.
        expected: &'static str,
        /// The variant in the input.
        found: &'static str,
    },
    /// The checksum stored in the input does not match its content: the
    /// bytes were damaged.
    ChecksumMismatch {
        /// The checksum stored in the input.
        stored: u64,
        /// The checksum of the content.
        computed: u64,
    },
    /// The input's parameters contradict each other or its payload (a
    /// well-formed checksum over inconsistent content).
    Corrupt {
        /// What is inconsistent.
        reason: String,
    },
    /// Reading or writing failed.
    Io {
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
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

impl Error {
    /// Builds an [`Error::Corrupt`].
    pub fn corrupt(reason: impl Into<String>) -> Self {
        Error::Corrupt {
            reason: reason.into(),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter { name, reason } => write!(f, "invalid {name}: {reason}"),
            Error::TooLarge { needed, limit } if *needed == u128::MAX => write!(
                f,
                "filter would need more bytes than can be counted, more than the limit of {limit} bytes"
            ),
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
            Error::TooManyCopies { limit } => write!(
                f,
                "too many copies of one key: the filter holds at most {limit} copies of a key \
                 (or of keys sharing its fingerprint and buckets); remove duplicates"
            ),
            Error::CannotGrow {
                stages,
                items,
                reason,
            } => write!(
                f,
                "filter cannot grow further after {stages} stages and {items} items: {reason}"
            ),
            Error::ConstructionFailed { attempts, items } => write!(
                f,
                "could not build the filter for {items} keys: none of {attempts} seeds gave a \
                 layout that peels or solves"
            ),
            Error::StaticFilter { variant } => write!(
                f,
                "the {variant} filter is static (built once from every key, it takes no \
                 inserts): open it with `load_membership`, build it with `build_from`"
            ),
            Error::DeleteUnsupported { variant } => {
                write!(f, "the {variant} variant cannot delete items")
            }
            Error::Unsupported { operation, variant } => {
                write!(f, "the {variant} variant does not support {operation}")
            }
            Error::Truncated { needed, available } => write!(
                f,
                "input is truncated: the filter needs {needed} bytes, the input has {available}"
            ),
            Error::TrailingBytes { expected, found } => write!(
                f,
                "input has trailing bytes: the filter takes {expected} bytes, the input has {found}"
            ),
            Error::BadMagic { found } => write!(
                f,
                "not an approxset filter: expected magic bytes \"APXS\", found {}",
                show_magic(found)
            ),
            Error::UnsupportedVersion { found, supported } => write!(
                f,
                "unsupported format version {found}: this library reads versions up to {supported}"
            ),
            Error::UnknownVariant { tag } => write!(f, "unknown variant tag {tag}"),
            Error::WrongVariant { expected, found } => {
                write!(f, "expected a {expected} filter, found a {found} filter")
            }
            Error::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch: stored {stored:#018x}, computed {computed:#018x}; the input is damaged"
            ),
            Error::Corrupt { reason } => write!(f, "corrupt filter: {reason}"),
            Error::Io { message, .. } => write!(f, "i/o error: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Four bytes as text when they are printable ASCII (`"GIF8"`), as hex
/// otherwise (`0x7f 0x45 0x4c 0x46`).
fn show_magic(bytes: &[u8; 4]) -> String {
    if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!(
            "\"{}\"",
            bytes.iter().map(|&b| char::from(b)).collect::<String>()
        )
    } else {
        bytes
            .iter()
            .map(|b| format!("{b:#04x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

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
            Error::TooManyCopies { limit: 8 },
            Error::CannotGrow {
                stages: 3,
                items: 70,
                reason: "stage 3 would need 65 hash functions".into(),
            },
            Error::DeleteUnsupported { variant: "classic" },
            Error::StaticFilter { variant: "fuse" },
            Error::ConstructionFailed {
                attempts: 100,
                items: 7,
            },
            Error::Truncated {
                needed: 10,
                available: 3,
            },
            Error::BadMagic { found: *b"GIF8" },
            Error::UnsupportedVersion {
                found: 9,
                supported: 1,
            },
            Error::ChecksumMismatch {
                stored: 1,
                computed: 2,
            },
            Error::corrupt("bits is 0"),
            Error::from(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file",
            )),
        ];
        for e in errors {
            let s = e.to_string();
            let first = s.chars().next().unwrap();
            assert!(first.is_lowercase(), "{s}");
            assert!(!s.ends_with('.') && !s.ends_with('!'), "{s}");
        }
    }

    #[test]
    fn magic_bytes_show_as_text_or_hex() {
        let s = Error::BadMagic { found: *b"GIF8" }.to_string();
        assert!(s.ends_with("found \"GIF8\""), "{s}");
        let s = Error::BadMagic {
            found: [0x7f, b'E', b'L', b'F'],
        }
        .to_string();
        assert!(s.ends_with("found 0x7f 0x45 0x4c 0x46"), "{s}");
        assert!(!s.contains('['), "{s}");
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
