//! Loading a saved filter without knowing its variant.

use std::io::Read;

use approxset_bloom::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, PartitionedBloomFilter,
    ScalableBloomFilter, SlidingBloomFilter, SplitBlockBloomFilter,
};
use approxset_core::format::{Header, Reader, read_all, read_all_limited, tag};
use approxset_core::{ApproxSet, Deletable, Error, Membership, Result};
use approxset_cuckoo::CuckooFilter;
use approxset_fuse::BinaryFuseFilter;
use approxset_quotient::QuotientFilter;
use approxset_ribbon::RibbonFilter;

/// The variant tag of `bytes`, or the envelope error that explains why
/// there is none. The typed loader then checks everything else.
fn peek_tag(bytes: &[u8]) -> Result<u8> {
    Ok(Header::parse(bytes)?.tag())
}

/// Loads a filter saved with `to_bytes` (of any variant) behind a trait
/// object, checking every invariant.
///
/// ```
/// use approxset::Variant;
/// let mut f = Variant::Counting.builder().seed(1).build(1000, 0.01)?;
/// f.insert_bytes(b"alice")?;
/// let saved = f.to_bytes()?;
/// let g = approxset::load(&saved)?;
/// assert_eq!(g.variant(), Variant::Counting);
/// assert!(g.contains_bytes(b"alice"));
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// The format errors of [`Error`]: `Truncated`, `TrailingBytes`, `BadMagic`,
/// `UnsupportedVersion`, `ChecksumMismatch`, `UnknownVariant`, `Corrupt`;
/// [`Error::StaticFilter`] for a saved static filter (a binary fuse or Ribbon filter),
/// which takes no inserts: open it with [`load_membership`].
pub fn load(bytes: &[u8]) -> Result<Box<dyn ApproxSet + Send + Sync>> {
    open(bytes)
}

/// Loads a saved filter of any variant, static ones included, behind the
/// read-only trait object; see [`load`].
/// [`as_approx_set_mut`](Membership::as_approx_set_mut) gives back the
/// inserts of a variant that takes them.
///
/// ```
/// use approxset::{Membership, Variant};
/// let mut f = Variant::Cuckoo.builder().seed(1).build(1000, 0.01)?;
/// f.insert("alice")?;
/// let mut g = approxset::load_membership(&f.to_bytes()?)?;
/// assert!(g.contains("alice"));
/// g.as_approx_set_mut().expect("a cuckoo filter takes inserts").insert("bob")?;
/// assert!(g.contains("bob"));
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// As [`load`], less `StaticFilter`: a binary fuse or Ribbon filter loads.
pub fn load_membership(bytes: &[u8]) -> Result<Box<dyn Membership + Send + Sync>> {
    open(bytes)
}

/// The trait objects [`open`] loads into: how a loaded filter of each kind
/// goes into a box of that object (without relying on trait upcasting).
pub(crate) trait Opened: Sized {
    /// `filter` behind the trait object.
    fn insertable<F: ApproxSet + Send + Sync + 'static>(filter: F) -> Self;
    /// A static `filter` behind the trait object, or
    /// [`Error::StaticFilter`] for an object that takes inserts.
    fn read_only<F: Membership + Send + Sync + 'static>(filter: F) -> Result<Self>;
}

impl Opened for Box<dyn ApproxSet + Send + Sync> {
    fn insertable<F: ApproxSet + Send + Sync + 'static>(filter: F) -> Self {
        Box::new(filter)
    }
    fn read_only<F: Membership + Send + Sync + 'static>(filter: F) -> Result<Self> {
        Err(Error::StaticFilter {
            variant: filter.variant(),
        })
    }
}

impl Opened for Box<dyn Membership + Send + Sync> {
    fn insertable<F: ApproxSet + Send + Sync + 'static>(filter: F) -> Self {
        Box::new(filter)
    }
    fn read_only<F: Membership + Send + Sync + 'static>(filter: F) -> Result<Self> {
        Ok(Box::new(filter))
    }
}

/// The one dispatch on the variant tag behind [`load`] and
/// [`load_membership`].
fn open<B: Opened>(bytes: &[u8]) -> Result<B> {
    Ok(match peek_tag(bytes)? {
        tag::CLASSIC => B::insertable(BloomFilter::from_bytes(bytes)?),
        tag::PARTITIONED => B::insertable(PartitionedBloomFilter::from_bytes(bytes)?),
        tag::COUNTING => B::insertable(CountingBloomFilter::from_bytes(bytes)?),
        tag::CUCKOO => B::insertable(CuckooFilter::from_bytes(bytes)?),
        tag::SCALABLE => B::insertable(ScalableBloomFilter::from_bytes(bytes)?),
        tag::BLOCKED => B::insertable(BlockedBloomFilter::from_bytes(bytes)?),
        tag::SPLIT_BLOCK => B::insertable(SplitBlockBloomFilter::from_bytes(bytes)?),
        tag::FUSE => B::read_only(BinaryFuseFilter::from_bytes(bytes)?)?,
        tag::SLIDING => B::insertable(SlidingBloomFilter::from_bytes(bytes)?),
        tag::QUOTIENT => B::insertable(QuotientFilter::from_bytes(bytes)?),
        tag::RIBBON => B::read_only(RibbonFilter::from_bytes(bytes)?)?,
        // Let the envelope check say what is wrong (damage or unknown tag).
        _ => {
            Reader::open(bytes)?;
            return Err(Error::UnknownVariant { tag: bytes[6] });
        }
    })
}

/// A read-only view of a saved filter of any flat variant, answering from
/// `bytes` where they lie (a `Vec`, a memory map, one block of a larger
/// file; any alignment) without copying them.
///
/// Opening checks the envelope and every parameter and length against
/// `bytes`, as [`load`] does, in time independent of the filter's size,
/// but not the checksum, which reads every byte: call
/// [`verify`](approxset_bloom::Bloom::verify) on the typed view (or
/// [`view_verified`]) for bytes from elsewhere; a file this process just
/// wrote needs none. A view of damaged or forged bytes may answer wrongly
/// but never panics or reads out of bounds. The typed views are
/// [`BloomFilter::view`], [`CuckooFilter::view`] and the like; the trait
/// object's [`as_any`](Membership::as_any) is `None` (the view borrows),
/// and an owned copy is [`load_membership`] of the same bytes (or the
/// typed view's `into_owned`).
///
/// ```
/// use approxset::Variant;
/// let mut f = Variant::Blocked.builder().seed(1).build(1000, 0.01)?;
/// f.insert("alice")?;
/// let saved = f.to_bytes()?;
/// let view = approxset::view(&saved)?;
/// assert!(view.contains("alice"));
/// assert_eq!(view.variant(), "blocked");
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// As [`load`], except [`Error::ChecksumMismatch`];
/// [`Error::Unsupported`] for a scalable filter, whose payload is a chain
/// of stages rather than one flat array, and a sliding filter, whose
/// slices are read in an order its header gives: load them instead
/// ([`load_membership`]).
pub fn view(bytes: &[u8]) -> Result<Box<dyn Membership + Send + Sync + '_>> {
    open_view(bytes, false)
}

/// [`view`] after checking everything [`load`] checks, the checksum
/// included (reading every byte once): for bytes from elsewhere.
///
/// # Errors
/// As [`load`], and [`Error::Unsupported`] as [`view`].
pub fn view_verified(bytes: &[u8]) -> Result<Box<dyn Membership + Send + Sync + '_>> {
    open_view(bytes, true)
}

/// The one dispatch on the variant tag behind [`view`] and
/// [`view_verified`]: adding a flat variant is one arm.
fn open_view(bytes: &[u8], verified: bool) -> Result<Box<dyn Membership + Send + Sync + '_>> {
    /// The typed view of `$filter`, verified or not, boxed.
    macro_rules! view_of {
        ($filter:ty) => {
            if verified {
                Box::new(<$filter>::view_verified(bytes)?)
            } else {
                Box::new(<$filter>::view(bytes)?)
            }
        };
    }
    Ok(match peek_tag(bytes)? {
        tag::CLASSIC => view_of!(BloomFilter),
        tag::PARTITIONED => view_of!(PartitionedBloomFilter),
        tag::COUNTING => view_of!(CountingBloomFilter),
        tag::CUCKOO => view_of!(CuckooFilter),
        tag::BLOCKED => view_of!(BlockedBloomFilter),
        tag::SPLIT_BLOCK => view_of!(SplitBlockBloomFilter),
        tag::SCALABLE | tag::SLIDING => {
            // Damage first, as for every other variant.
            open_envelope(bytes, verified)?;
            return Err(Error::Unsupported {
                operation: "view",
                variant: tag::name(bytes[6]).unwrap_or("unknown"),
            });
        }
        tag::FUSE => view_of!(BinaryFuseFilter),
        tag::QUOTIENT => view_of!(QuotientFilter),
        tag::RIBBON => view_of!(RibbonFilter),
        _ => {
            open_envelope(bytes, verified)?;
            return Err(Error::UnknownVariant { tag: bytes[6] });
        }
    })
}

/// Checks the envelope of `bytes`, with or without the checksum.
fn open_envelope(bytes: &[u8], verified: bool) -> Result<()> {
    if verified {
        Reader::open(bytes)?;
    } else {
        Reader::open_unverified(bytes)?;
    }
    Ok(())
}

/// Loads a filter that can delete; see [`load`].
///
/// # Errors
/// As [`load`], and [`Error::DeleteUnsupported`] for a saved filter of a
/// variant that cannot delete.
pub fn load_deletable(bytes: &[u8]) -> Result<Box<dyn Deletable + Send + Sync>> {
    match peek_tag(bytes)? {
        tag::COUNTING => Ok(Box::new(CountingBloomFilter::from_bytes(bytes)?)),
        tag::CUCKOO => Ok(Box::new(CuckooFilter::from_bytes(bytes)?)),
        tag::QUOTIENT => Ok(Box::new(QuotientFilter::from_bytes(bytes)?)),
        _ => {
            // Report damage (or an unknown tag) first, then the variant's
            // inability to delete; the envelope check needs no allocation.
            let reader = Reader::open(bytes)?;
            Err(Error::DeleteUnsupported {
                variant: tag::name(reader.tag()).unwrap_or("unknown"),
            })
        }
    }
}

/// Reads one saved filter of any variant from `reader`; see [`load`].
///
/// It reads exactly the length the header announces, at most
/// [`format::DEFAULT_READ_LIMIT`](approxset_core::format::DEFAULT_READ_LIMIT)
/// bytes; for untrusted streams set a tighter bound with
/// [`read_from_limited`].
///
/// # Errors
/// [`Error::Io`], [`Error::TooLarge`] for a header announcing more than the
/// limit, and as [`load`].
pub fn read_from<R: Read>(reader: R) -> Result<Box<dyn ApproxSet + Send + Sync>> {
    load(&read_all(reader)?)
}

/// Reads one saved filter of any variant from `reader`, refusing a header
/// that announces more than `max_bytes` before reading or allocating it.
///
/// ```
/// use approxset::{Error, Variant};
/// let f = Variant::Classic.builder().seed(1).build(1000, 0.01)?;
/// let saved = f.to_bytes()?;
/// assert!(approxset::read_from_limited(&saved[..], saved.len() as u64).is_ok());
/// let err = approxset::read_from_limited(&saved[..], 100).unwrap_err();
/// assert!(matches!(err, Error::TooLarge { .. }));
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// As [`read_from`].
pub fn read_from_limited<R: Read>(
    reader: R,
    max_bytes: u64,
) -> Result<Box<dyn ApproxSet + Send + Sync>> {
    load(&read_all_limited(reader, max_bytes)?)
}

/// Reads one saved filter that can delete from `reader`, at most `max_bytes`
/// bytes; see [`read_from_limited`] and [`load_deletable`].
///
/// # Errors
/// As [`read_deletable_from`], and [`Error::TooLarge`].
pub fn read_deletable_from_limited<R: Read>(
    reader: R,
    max_bytes: u64,
) -> Result<Box<dyn Deletable + Send + Sync>> {
    load_deletable(&read_all_limited(reader, max_bytes)?)
}

/// Reads one saved filter that can delete from `reader`; see
/// [`load_deletable`].
///
/// # Errors
/// [`Error::Io`], and as [`load_deletable`].
pub fn read_deletable_from<R: Read>(reader: R) -> Result<Box<dyn Deletable + Send + Sync>> {
    load_deletable(&read_all(reader)?)
}

/// Reads one saved filter of any variant from `reader` behind the read-only
/// trait object; see [`load_membership`] and [`read_from`].
///
/// # Errors
/// As [`read_from`].
pub fn read_membership_from<R: Read>(reader: R) -> Result<Box<dyn Membership + Send + Sync>> {
    load_membership(&read_all(reader)?)
}

/// Reads one saved filter of any variant from `reader` behind the read-only
/// trait object, at most `max_bytes` bytes; see [`read_from_limited`].
///
/// # Errors
/// As [`read_from_limited`].
pub fn read_membership_from_limited<R: Read>(
    reader: R,
    max_bytes: u64,
) -> Result<Box<dyn Membership + Send + Sync>> {
    load_membership(&read_all_limited(reader, max_bytes)?)
}
