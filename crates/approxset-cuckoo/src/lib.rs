//! The cuckoo filter of approxset: an approximate set with deletion, after
//! Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically
//! Better Than Bloom" (CoNEXT 2014).
//!
//! [`CuckooFilter`] stores a fingerprint of each item, of 4 to 32 bits as
//! the target rate needs, in one of two buckets of four slots. Unlike a Bloom filter it can
//! [`remove`](CuckooFilter::remove) items and it has bounded room: when it is
//! full, [`insert`](CuckooFilter::insert) returns [`Error::Full`] and every
//! item stored before is still found.
//!
//! ```
//! use approxset_cuckoo::CuckooFilter;
//!
//! let mut filter = CuckooFilter::new(1_000, 0.01)?;
//! filter.insert("alice")?;
//! filter.insert("bob")?;
//! assert!(filter.contains("alice"));
//! assert!(filter.remove("alice").is_removed());
//! assert!(filter.contains("bob"));
//! assert_eq!(filter.len(), 1);
//! # Ok::<(), approxset_cuckoo::Error>(())
//! ```
//!
//! It implements [`ApproxSet`](approxset_core::ApproxSet) and
//! [`Deletable`](approxset_core::Deletable), so it can be used as a
//! `Box<dyn Deletable + Send + Sync>`.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod bucket;
mod builder;
mod filter;
mod kick;
mod paged;
mod persist;
#[cfg(feature = "serde")]
mod serde_impl;
mod shared;
mod sizing;
mod table;
mod view;
mod width;

pub use approxset_core::{Count, Error, Removal, Result};
pub use builder::CuckooBuilder;
pub use filter::CuckooFilter;
pub use kick::MAX_KICKS;
pub use paged::CuckooFilterPaged;
pub use shared::{CuckooLocal, SharedCuckoo};
pub use sizing::{CuckooPlan, MIN_FP_RATE};
pub use view::CuckooFilterView;

#[cfg(test)]
mod tests;
