//! The core of the approxset filter family: the object-safe [`ApproxSet`] and
//! [`Deletable`] traits with their generic extensions, the keyed 128-bit key
//! [`Digest`], the [`Error`] type and the [`sizing`] math.
//!
//! Filter implementations, in this workspace or elsewhere, depend on this
//! crate alone. Applications use the `approxset` facade, which re-exports
//! everything here along with the filters and `Variant`.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod concurrent;
mod error;
pub mod format;
pub mod hash;
mod key;
mod macros;
mod options;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod sizing;
mod traits;

pub use concurrent::{ConcurrentApproxSet, ConcurrentApproxSetExt};
pub use error::{Error, Result};
pub use hash::{Digest, HashKey};
pub use key::{Hashed, Key, KeySink};
#[doc(hidden)]
pub use macros::{BytesOutcome, InsertOutcome};
pub use options::BuildOptions;
pub use traits::{ApproxSet, ApproxSetExt, Deletable, DeletableExt, Value};
