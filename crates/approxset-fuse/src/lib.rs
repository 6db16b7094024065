//! The binary fuse filter of approxset, after Graf and Lemire, "Binary
//! Fuse Filters: Fast and Smaller Than Xor Filters" (ACM JEA, 2022): the
//! smallest filter of the family, for keys known up front.
//!
//! [`BinaryFuseFilter`] is built once from every key (repeats allowed) and
//! answers lookups; it cannot be inserted into. It takes about `1.125·f`
//! bits per key for `f`-bit fingerprints (8, 16 or 32, the narrowest whose
//! rate 2⁻ᶠ meets the target): 9.0 bits per key at 0.39 %.
//!
//! ```
//! use approxset_fuse::BinaryFuseFilter;
//!
//! let keys = ["alice", "bob", "carol"];
//! let filter = BinaryFuseFilter::with_fp_rate(0.01).seed(7).build(keys)?;
//! assert!(filter.contains("alice") && filter.contains("carol"));
//! assert_eq!(filter.len(), 3);
//! let again = BinaryFuseFilter::from_bytes(&filter.to_bytes()?)?;
//! assert_eq!(again, filter);
//! # Ok::<(), approxset_fuse::Error>(())
//! ```
//!
//! It implements [`Membership`](approxset_core::Membership), the read-only
//! trait, and not `ApproxSet`: as a `Box<dyn Membership + Send + Sync>` it
//! sits beside every other filter of the family.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod builder;
mod construct;
mod filter;
mod fingerprint;
mod layout;
mod persist;
#[cfg(feature = "serde")]
mod serde_impl;

pub use approxset_core::{Error, Result};
pub use builder::{FuseBuilder, MIN_FP_RATE, fingerprint_bits_for, plan};
pub use construct::MAX_ATTEMPTS;
pub use filter::{BinaryFuseFilter, BinaryFuseFilterView};
pub use layout::MAX_SEGMENT_LENGTH;

#[cfg(test)]
mod tests;
