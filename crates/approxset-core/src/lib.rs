//! The core of the approxset filter family: the object-safe [`Membership`]
//! (lookups), [`ApproxSet`] (inserts) and [`Deletable`] (removes) traits with
//! their generic extensions (all in [`prelude`]), the keyed 128-bit key
//! [`Digest`], the [`Error`] type and the [`sizing`] math.
//!
//! Filter implementations, in this workspace or elsewhere, depend on this
//! crate alone. Applications use the `approxset` facade, which re-exports
//! everything here along with the filters and `Variant`.
//!
//! The sizing math answers design questions without building anything:
//!
//! ```
//! use approxset_core::sizing;
//!
//! // A classic Bloom filter at 1 %: about 9.59 bits per key and k = 7.
//! let bits_per_key = sizing::optimal_bits_per_key(0.01);
//! assert!((bits_per_key - 9.585).abs() < 0.001);
//! assert_eq!(sizing::optimal_hashes(bits_per_key).round(), 7.0);
//! // Each tenfold drop in the rate costs about 4.79 bits per key.
//! let step = sizing::optimal_bits_per_key(0.001) - bits_per_key;
//! assert!((step - 4.79).abs() < 0.01);
//! ```
//!
//! Keys reach the bits through one keyed digest, whatever path they take:
//!
//! ```
//! use approxset_core::HashKey;
//!
//! let key = HashKey::from_seed(7);
//! // A string, its bytes and a `String` are one key.
//! assert_eq!(key.digest("alice"), key.digest(b"alice".as_slice()));
//! assert_eq!(key.digest("alice"), key.digest(&String::from("alice")));
//! ```
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod atomic;
mod batch;
mod concurrent;
pub mod cpu;
mod error;
mod extensions;
pub mod format;
mod forwarding;
pub mod hash;
mod key;
mod macros;
mod options;
mod outcome;
pub mod seqlock;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod sharded;
pub mod sizing;
pub mod static_filter;
mod traits;
mod value;

pub use concurrent::{
    ConcurrentApproxSet, ConcurrentApproxSetExt, ConcurrentDeletable, ConcurrentDeletableExt,
};
pub use error::{Error, Result};
pub use extensions::{ApproxSetExt, DeletableExt, MembershipExt};
pub use hash::{Digest, HashFunction, HashKey, ProbeScheme};
pub use key::{Hashed, Key, KeySink};
#[doc(hidden)]
pub use macros::same_type;
pub use options::BuildOptions;
pub use outcome::{Count, Removal};
pub use sharded::Sharded;
pub use traits::{ApproxSet, Deletable, Membership};
pub use value::Value;

pub mod prelude {
    //! The filter traits and their extensions, for generic code:
    //! `use approxset::prelude::*;` gives `S: ApproxSet` (or `Membership`)
    //! its `contains`, `insert`, `remove`, … in one line.
    //!
    //! ```
    //! # extern crate approxset_core as approxset;
    //! use approxset::prelude::*;
    //! fn known<S: ApproxSet + ?Sized>(set: &S, key: &str) -> bool {
    //!     set.contains(key)
    //! }
    //! # let _ = known::<dyn ApproxSet>;
    //! ```

    pub use crate::concurrent::{
        ConcurrentApproxSet, ConcurrentApproxSetExt, ConcurrentDeletable, ConcurrentDeletableExt,
    };
    pub use crate::extensions::{ApproxSetExt, DeletableExt, MembershipExt};
    pub use crate::traits::{ApproxSet, Deletable, Membership};
}
