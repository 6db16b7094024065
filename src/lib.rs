//! Approximate-membership filters behind one object-safe trait.
//!
//! "Is this key possibly in the set?" answered in a few nanoseconds and a
//! few bits per key, with **no false negatives**. Choose a variant at run
//! time with [`Variant`] and use it through [`ApproxSet`]:
//!
//! ```
//! use approxset::{ApproxSet, Variant};
//! let mut f: Box<dyn ApproxSet + Send + Sync> = Variant::Classic.build(1_000_000, 0.01)?;
//! f.insert("alice")?;             // any Key: str, bytes, integers, tuples…
//! assert!(f.contains("alice"));   // never a false negative
//! let _maybe = f.contains(&42u64); // false, or a false positive at about 1 %
//! # Ok::<(), approxset::Error>(())
//! ```
//!
//! Or use a concrete filter directly:
//!
//! ```
//! use approxset::BloomFilter;
//! let mut f = BloomFilter::with_fp_rate(0.001).seed(1).expected_items(10_000)?;
//! f.insert_bytes(b"portable keys hash as bytes")?;
//! assert!(f.contains_bytes(b"portable keys hash as bytes"));
//! # Ok::<(), approxset::Error>(())
//! ```
//!
//! The crates behind this facade: `approxset-core` (traits, hashing, errors,
//! [`sizing`] math, the binary [`format`](mod@format); what third-party filters depend
//! on), `approxset-bloom` (the Bloom family: classic, partitioned, blocked,
//! split-block, counting, scalable and the lock-free `AtomicBloomFilter`) and
//! `approxset-cuckoo` (the cuckoo filter). Choosing among them:
//! `docs/guide.md` in the repository.
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod load;
mod variant;

pub use approxset_bloom::{
    AtomicBloomFilter, Blocked, BlockedBloomFilter, Bloom, BloomFilter, Classic,
    CountingBloomFilter, Layout, Partitioned, PartitionedBloomFilter, ScalableBloomFilter,
    ScalableBuilder, SplitBlock, SplitBlockBloomFilter, builder, cells,
};
pub use approxset_core::{
    ApproxSet, ApproxSetExt, BuildOptions, ConcurrentApproxSet, ConcurrentApproxSetExt, Deletable,
    DeletableExt, Digest, Error, HashKey, Hashed, Key, KeySink, Result, Value, format, hash,
    sizing,
};
pub use approxset_cuckoo::{CuckooBuilder, CuckooFilter, CuckooPlan};
pub use load::{
    load, load_deletable, read_deletable_from, read_deletable_from_limited, read_from,
    read_from_limited,
};
pub use variant::{Design, ParseVariantError, Variant, VariantBuilder};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
