//! The quotient filter of approxset: an approximate multiset that removes,
//! counts without a cap, grows without limit at its target rate, and
//! merges, after Pandey, Bender, Johnson and Patro, "A General-Purpose
//! Counting Filter: Making Every Bit Count" (SIGMOD 2017).
//!
//! ```
//! use approxset_quotient::QuotientFilter;
//!
//! let mut filter = QuotientFilter::new(1_000, 0.01)?;
//! filter.insert("alice")?;
//! filter.insert("alice")?;
//! assert_eq!(filter.count("alice").upper_bound(), Some(2));
//! assert!(filter.remove("alice").is_removed());
//! assert!(filter.contains("alice"));
//! # Ok::<(), approxset_quotient::Error>(())
//! ```
//!
//! It implements [`ApproxSet`](approxset_core::ApproxSet) and
//! [`Deletable`](approxset_core::Deletable).
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

#[macro_use]
mod macros;

mod bits;
mod check;
mod codec;
mod filter;
mod home;
mod merge;
mod persist;
mod save;
#[cfg(feature = "serde")]
mod serde_impl;
mod shared;
mod shift;
mod sizing;
mod table;
mod update;
mod view;
mod walk;

pub use approxset_core::{Count, Error, Removal, Result};
pub use filter::{QuotientBuilder, QuotientFilter};
pub use shared::{QuotientLocal, SharedQuotient};
pub use sizing::MAX_LOAD;
pub use view::QuotientFilterView;

#[cfg(test)]
mod tests;
