//! The Ribbon filter of approxset, after Dillinger and Walzer, "Ribbon
//! filter: practically smaller than Bloom and Xor" (2021), as RocksDB's
//! `Standard128Ribbon`: a static filter at any false-positive rate within
//! a few percent of the space bound.
//!
//! [`RibbonFilter`] is built once from every key (repeats allowed) and
//! answers lookups; it cannot be inserted into. It takes about
//! `1.05·log₂(1/p)` bits per key for any `p`, not only powers of two:
//! 7.0 bits per key at 1 %, 10.5 at 0.1 % (`ribbon.rs` has the math).
//!
//! ```
//! use approxset_ribbon::RibbonFilter;
//!
//! let keys = ["alice", "bob", "carol"];
//! let filter = RibbonFilter::with_fp_rate(0.01).seed(7).build(keys)?;
//! assert!(filter.contains("alice") && filter.contains("carol"));
//! assert_eq!(filter.len(), 3);
//! let again = RibbonFilter::from_bytes(&filter.to_bytes()?)?;
//! assert_eq!(again, filter);
//! # Ok::<(), approxset_ribbon::Error>(())
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
mod layout;
mod persist;
mod ribbon;
#[cfg(feature = "serde")]
mod serde_impl;

pub use approxset_core::{Error, Result};
pub use builder::{RibbonBuilder, plan};
pub use construct::MAX_ATTEMPTS;
pub use filter::{RibbonFilter, RibbonFilterView};
pub use layout::{COEFFICIENT_BITS, MAX_COLUMNS, MIN_FP_RATE, columns_for};

#[cfg(test)]
mod tests;
