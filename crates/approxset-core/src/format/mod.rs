//! The binary format shared by every approxset filter: a fixed header, the
//! variant's parameters, the payload as little-endian 64-bit words, and a
//! checksum. `docs/format.md` at the repository root documents the layout.
//!
//! Filters write themselves with a [`Writer`] and read themselves back with
//! a [`Reader`], which checks the envelope (length, magic, version,
//! checksum, variant) before the filter sees a parameter, and bounds every
//! allocation by the length of the input. A view of a saved filter reads
//! it in place: [`Reader::open_unverified`] (every check but the checksum,
//! which [`verify_checksum`] makes), [`Reader::le_words`] and [`LeWords`]
//! (the payload's words where they lie, any alignment) behind the
//! [`Words`] trait the lookups are written over; [`split_first`] walks
//! filters saved one after another.
//!
//! ```text
//! offset  size  field
//!      0     4  magic "APXS"
//!      4     2  format version, u16 LE (1 to 4)
//!      6     1  variant tag (1 classic, 2 partitioned, 3 counting, 4 cuckoo, 5 scalable, 6 blocked,
//!                 7 split-block, 8 fuse, 9 sliding, 10 quotient, 11 ribbon)
//!      7     1  hash function (version 3 on: 0 SipHash-1-3, 1 XXH3-128, 2 xxHash64,
//!                 3 SipHash-1-3-64 widened); 0 before
//!      8     8  total length in bytes, checksum included, u64 LE
//!     16    16  hash key k0, k1, u64 LE each
//!     32     …  variant parameters (u64 / u32 / f64 LE fields)
//!      …     …  payload: u64 LE words (a fuse filter: fingerprint bytes, zero-padded to whole words)
//!  end-8     8  checksum of every byte before it, u64 LE
//! ```

use crate::error::{Error, Result};

mod checksum;
mod header;
mod pages;
mod reader;
mod stream;
mod streamed;
mod words;
mod writer;

pub use checksum::checksum;
pub use header::Header;
pub use pages::{
    PAGE_LEN, PAGED_VERSION, PageLayout, PageRead, PageTable, PagedWords, Pages, page_checksum,
};
pub use reader::Reader;
pub use stream::{DEFAULT_READ_LIMIT, read_all, read_all_limited};
pub use streamed::{CHUNK_LEN, HEAD_LEN, Payload, load_streamed};
pub use words::{LeWords, Words};
pub use writer::{Writer, write_streamed};

/// The first four bytes of every serialized filter.
pub const MAGIC: [u8; 4] = *b"APXS";

/// The newest format version this library reads and writes. Version 2
/// added the probe scheme of the Bloom filters' cell parameters
/// ([`ProbeScheme`](crate::ProbeScheme)) and the split-block filter
/// ([`tag::SPLIT_BLOCK`]); version 3 records the [`HashFunction`](crate::HashFunction) in byte
/// 7, which was 0 before; version 4 (this release) ends the file with a
/// checksum per 4 KiB page ([`PageTable`]) instead of one of the whole,
/// so a reader can check exactly the pages a lookup reads. Every filter is
/// written in version 4; files of versions 1 to 3 load and answer as
/// before, checked whole.
pub const VERSION: u16 = 4;

/// The first version that records the hash function (byte 7).
pub const HASH_FUNCTION_VERSION: u16 = 3;

/// The oldest version this library reads.
pub const FIRST_VERSION: u16 = 1;

/// Bytes before the variant parameters.
pub const HEADER_LEN: usize = 32;

/// Bytes of the trailing checksum.
pub const CHECKSUM_LEN: usize = 8;

/// The variant tags.
pub mod tag {
    use crate::hash::HashFunction;

    /// Classic Bloom filter.
    pub const CLASSIC: u8 = 1;
    /// Partitioned Bloom filter.
    pub const PARTITIONED: u8 = 2;
    /// Counting Bloom filter.
    pub const COUNTING: u8 = 3;
    /// Cuckoo filter.
    pub const CUCKOO: u8 = 4;
    /// Scalable Bloom filter.
    pub const SCALABLE: u8 = 5;
    /// Cache-blocked Bloom filter.
    pub const BLOCKED: u8 = 6;
    /// Split-block Bloom filter (Parquet's layout); new in format version 2.
    pub const SPLIT_BLOCK: u8 = 7;
    /// Binary fuse filter (static: built once from every key); new in
    /// format version 3.
    pub const FUSE: u8 = 8;
    /// Sliding-window filter (a ring of Bloom filters); new in format
    /// version 3.
    pub const SLIDING: u8 = 9;
    /// Counting quotient filter that grows (a chain of quotient tables);
    /// new in format version 3.
    pub const QUOTIENT: u8 = 10;
    /// Ribbon filter (static: built once from every key); new in format
    /// version 3.
    pub const RIBBON: u8 = 11;

    /// The variant name of a tag, if it is known.
    pub fn name(tag: u8) -> Option<&'static str> {
        Some(match tag {
            CLASSIC => "classic",
            PARTITIONED => "partitioned",
            COUNTING => "counting",
            CUCKOO => "cuckoo",
            SCALABLE => "scalable",
            BLOCKED => "blocked",
            SPLIT_BLOCK => "split-block",
            FUSE => "fuse",
            SLIDING => "sliding",
            QUOTIENT => "quotient",
            RIBBON => "ribbon",
            _ => return None,
        })
    }

    /// Whether the variant of `tag` can be hashed with `function`: the one
    /// place that says so, for the builders ([`BuildOptions::key_for`](crate::BuildOptions::key_for))
    /// and the loaders ([`Reader::open`](super::Reader::open)).
    ///
    /// SipHash-1-3, XXH3-128 and SipHash-1-3-64 widened give two
    /// independent-looking halves and suit every variant. Parquet's xxHash64 gives `h1` only (`h2` = 0): a filter that
    /// derives several positions or a fingerprint and a bucket from both
    /// halves would lose its independence, so it is for the one layout that
    /// uses `h1` alone, the split-block filter.
    ///
    /// ```
    /// # extern crate approxset_core as approxset;
    /// use approxset::format::tag;
    /// use approxset::HashFunction;
    /// assert!(tag::supports_hash(tag::CUCKOO, HashFunction::Xxh3));
    /// assert!(!tag::supports_hash(tag::CLASSIC, HashFunction::ParquetXxh64));
    /// assert!(tag::supports_hash(tag::SPLIT_BLOCK, HashFunction::ParquetXxh64));
    /// ```
    pub const fn supports_hash(tag: u8, function: HashFunction) -> bool {
        match function {
            // Parquet's hash is a 64-bit one (h2 = 0): only the split-block
            // layout, which reads nothing but h1, can use it.
            HashFunction::ParquetXxh64 => tag == SPLIT_BLOCK,
            _ => true,
        }
    }
}

/// Checks the checksums of `bytes`, one whole serialized filter: every
/// page against the page table and the table's own checksum (version 4),
/// or the one trailing checksum (versions 1 to 3). The one check that
/// reads every byte, which [`Reader::open_unverified`] (and so a view)
/// leaves out.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Writer, tag, verify_checksum};
/// use approxset::HashKey;
/// let mut bytes = Writer::new(tag::CLASSIC, HashKey::from_seed(1), 0).finish();
/// assert!(verify_checksum(&bytes).is_ok());
/// bytes[20] ^= 1;
/// assert!(verify_checksum(&bytes).is_err());
/// ```
///
/// # Errors
/// [`Error::ChecksumMismatch`]; [`Error::Truncated`] for fewer bytes than
/// a checksum; [`Error::Corrupt`] for a version-4 length that no page
/// table fits.
pub fn verify_checksum(bytes: &[u8]) -> Result<()> {
    if pages::stated_version(bytes).is_some_and(|v| v >= PAGED_VERSION) {
        return pages::verify_pages(bytes);
    }
    let Some(at) = bytes.len().checked_sub(CHECKSUM_LEN) else {
        return Err(Error::Truncated {
            needed: (HEADER_LEN + CHECKSUM_LEN) as u64,
            available: bytes.len() as u64,
        });
    };
    let (body, stored) = bytes.split_at(at);
    let stored = u64::from_le_bytes(stored.try_into().expect("8 bytes"));
    let computed = checksum(body);
    if stored != computed {
        return Err(Error::ChecksumMismatch { stored, computed });
    }
    Ok(())
}

/// Recomputes the checksums of `bytes`, a whole serialized filter edited in
/// place (its length unchanged), so that they match its bytes again: the
/// page table and its checksum (version 4) or the trailing checksum. For
/// tools and tests that forge files on purpose.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Writer, reseal, tag, verify_checksum};
/// use approxset::HashKey;
/// let mut bytes = Writer::new(tag::CLASSIC, HashKey::from_seed(1), 0).finish();
/// bytes[20] ^= 1;
/// reseal(&mut bytes)?;
/// assert!(verify_checksum(&bytes).is_ok());
/// # Ok::<(), approxset_core::Error>(())
/// ```
///
/// # Errors
/// As [`verify_checksum`], for bytes too short or of a length no page
/// table fits.
pub fn reseal(bytes: &mut Vec<u8>) -> Result<()> {
    if pages::stated_version(bytes).is_some_and(|v| v >= PAGED_VERSION) {
        return pages::reseal_pages(bytes);
    }
    let Some(at) = bytes.len().checked_sub(CHECKSUM_LEN) else {
        return Err(Error::Truncated {
            needed: (HEADER_LEN + CHECKSUM_LEN) as u64,
            available: bytes.len() as u64,
        });
    };
    let sum = checksum(&bytes[..at]);
    bytes[at..].copy_from_slice(&sum.to_le_bytes());
    Ok(())
}

/// The first serialized filter of `bytes`, cut at the total length its
/// header announces, and the bytes after it: how to walk filters saved one
/// after another in one file (then view or load each).
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Writer, split_first, tag};
/// use approxset::HashKey;
/// let one = Writer::new(tag::CLASSIC, HashKey::from_seed(1), 0).finish();
/// let two = Writer::new(tag::CUCKOO, HashKey::from_seed(2), 0).finish();
/// let file = [one.clone(), two.clone()].concat();
/// let (first, rest) = split_first(&file)?;
/// assert_eq!((first, rest), (&one[..], &two[..]));
/// # Ok::<(), approxset_core::Error>(())
/// ```
///
/// # Errors
/// As [`Header::parse`], and [`Error::Truncated`] when fewer bytes remain
/// than the header announces.
pub fn split_first(bytes: &[u8]) -> Result<(&[u8], &[u8])> {
    let total = Header::parse(bytes)?.total_len();
    match usize::try_from(total) {
        Ok(at) if at <= bytes.len() => Ok(bytes.split_at(at)),
        _ => Err(Error::Truncated {
            needed: total,
            available: bytes.len() as u64,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{HashFunction, HashKey};

    pub(super) fn sample() -> Vec<u8> {
        // A SipHash-1-3 key, the function of every file before version 3.
        let key = HashKey::from_parts(1, 2).with_function(HashFunction::SipHash13);
        let mut w = Writer::new(tag::CLASSIC, key, 64);
        w.u64(1000).u32(7).f64(0.01).words(&[1, 2, u64::MAX]);
        w.finish()
    }

    #[test]
    fn round_trip() {
        let bytes = sample();
        assert_eq!(&bytes[..4], b"APXS");
        // One page: its checksum, then the table's.
        assert_eq!(bytes.len(), HEADER_LEN + 8 + 4 + 8 + 24 + 8 + CHECKSUM_LEN);
        let mut r = Reader::open_variant(&bytes, tag::CLASSIC).unwrap();
        assert_eq!(
            r.key(),
            HashKey::from_parts(1, 2).with_function(HashFunction::SipHash13)
        );
        assert_eq!(r.u64("bits").unwrap(), 1000);
        assert_eq!(r.u32("hashes").unwrap(), 7);
        assert_eq!(r.f64("fp").unwrap(), 0.01);
        assert_eq!(r.words(3, "payload").unwrap(), vec![1, 2, u64::MAX]);
        r.finish().unwrap();
    }

    #[test]
    fn every_single_bit_flip_is_caught() {
        let bytes = sample();
        for i in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert!(Reader::open(&bad).is_err(), "flip of bit {i} not detected");
        }
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample();
        for len in 0..bytes.len() {
            let err = Reader::open(&bytes[..len]).unwrap_err();
            assert!(
                matches!(err, Error::Truncated { .. }),
                "length {len}: {err}"
            );
        }
    }

    #[test]
    fn envelope_errors_are_specific() {
        let bytes = sample();
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(matches!(Reader::open(&bad), Err(Error::BadMagic { .. })));
        let mut future = bytes.clone();
        future[4..6].copy_from_slice(&(VERSION + 1).to_le_bytes());
        assert_eq!(
            Reader::open(&future).unwrap_err(),
            Error::UnsupportedVersion {
                found: 5,
                supported: 4
            }
        );
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            Reader::open(&long),
            Err(Error::TrailingBytes { .. })
        ));
        assert!(matches!(
            Reader::open_variant(&bytes, tag::COUNTING),
            Err(Error::WrongVariant {
                expected: "counting",
                found: "classic"
            })
        ));
        // An unknown tag with a valid checksum.
        let mut w = Writer::new(99, HashKey::from_parts(0, 0), 0);
        w.u64(1);
        assert_eq!(
            Reader::open(&w.finish()).unwrap_err(),
            Error::UnknownVariant { tag: 99 }
        );
    }

    /// `sample()` with byte 7 set to `code` at `version`, checksum fixed
    /// (a file of an earlier version: the one checksum of the whole).
    fn with_hash_byte(version: u16, code: u8) -> Vec<u8> {
        let sample = sample();
        let mut bytes = if version >= PAGED_VERSION {
            sample
        } else {
            let layout = PageLayout::from_total(sample.len() as u64).unwrap();
            let mut old = sample[..layout.data_len() as usize].to_vec();
            old.extend_from_slice(&[0; CHECKSUM_LEN]);
            let total = old.len() as u64;
            old[8..16].copy_from_slice(&total.to_le_bytes());
            old
        };
        bytes[4..6].copy_from_slice(&version.to_le_bytes());
        bytes[7] = code;
        reseal(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn every_file_is_version_4_and_names_its_function() {
        let bytes = sample();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), VERSION);
        assert_eq!(bytes[7], 0);
        let r = Reader::open(&bytes).unwrap();
        assert_eq!(r.key().function(), HashFunction::SipHash13);
    }

    #[test]
    fn earlier_versions_load_checked_whole() {
        for version in [1, 2, 3] {
            let bytes = with_hash_byte(version, 0);
            let mut r = Reader::open(&bytes).unwrap();
            assert_eq!(r.version(), version);
            assert_eq!(r.u64("bits").unwrap(), 1000);
            for i in 0..bytes.len() * 8 {
                let mut bad = bytes.clone();
                bad[i / 8] ^= 1 << (i % 8);
                assert!(Reader::open(&bad).is_err(), "v{version}: flip {i}");
            }
        }
    }

    #[test]
    fn a_paged_reader_reads_the_parameters_from_page_0_and_the_words_through_pages() {
        let mut w = Writer::new(tag::CLASSIC, HashKey::from_parts(1, 2), 0);
        let words: Vec<u64> = (0..3000u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        w.u64(7).words(&words);
        let bytes = w.finish();
        let pages =
            std::sync::Arc::new(Pages::open(Box::new(bytes.clone()), bytes.len() as u64).unwrap());
        let mut r = Reader::open_paged(&pages).unwrap();
        assert_eq!(r.u64("n").unwrap(), 7);
        let paged = r.paged_words(3000, "payload", &pages).unwrap();
        r.finish().unwrap();
        assert!((0..3000).all(|i| paged.word(i) == words[i]));
        assert!(pages.error().is_none());
        pages.verify_all().unwrap();
        // A damaged page is found when read, and recorded.
        let mut bad = bytes.clone();
        bad[3 * PAGE_LEN + 5] ^= 4;
        let pages =
            std::sync::Arc::new(Pages::open(Box::new(bad.clone()), bad.len() as u64).unwrap());
        let mut r = Reader::open_paged(&pages).unwrap();
        r.u64("n").unwrap();
        let paged = r.paged_words(3000, "payload", &pages).unwrap();
        assert_eq!(paged.word(10), words[10]);
        assert!(pages.error().is_none());
        let _ = paged.word((3 * PAGE_LEN - HEADER_LEN) / 8);
        assert!(matches!(
            pages.error(),
            Some(Error::ChecksumMismatch { .. })
        ));
        assert!(verify_checksum(&bad).is_err() && pages.verify_all().is_err());
        // A damaged table is found at once.
        let mut bad = bytes.clone();
        let at = bad.len() - 12;
        bad[at] ^= 1;
        assert!(Pages::open(Box::new(bad), bytes.len() as u64).is_err());
    }

    #[test]
    fn another_function_is_named_in_byte_7() {
        let key = HashKey::from_parts(1, 2).with_function(HashFunction::Xxh3);
        let mut w = Writer::new(tag::CUCKOO, key, 0);
        w.u64(5);
        // A later `require_version(2)` does not lower it.
        w.require_version(2);
        let bytes = w.finish();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), VERSION);
        assert_eq!(bytes[7], 1);
        let r = Reader::open(&bytes).unwrap();
        assert_eq!(r.key(), key);
        assert_eq!(
            Header::parse(&bytes).unwrap().hash_function(),
            Ok(HashFunction::Xxh3)
        );
    }

    #[test]
    fn the_hash_byte_is_checked_by_version() {
        // Before version 3 the byte is reserved: anything but 0 is refused.
        for version in [1, 2] {
            let err = Reader::open(&with_hash_byte(version, 1)).unwrap_err();
            assert!(err.to_string().contains("unknown flags 0x01"), "{err}");
        }
        // From version 3 it is a function's code; an unknown one is named.
        let err = Reader::open(&with_hash_byte(3, 9)).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
        assert!(
            err.to_string().contains("unknown hash function code 9"),
            "{err}"
        );
        // Version 3 with code 0 is SipHash, well defined.
        let v3 = with_hash_byte(3, 0);
        assert_eq!(
            Reader::open(&v3).unwrap().key(),
            HashKey::from_parts(1, 2).with_function(HashFunction::SipHash13)
        );
        // Code 3 is the default, SipHash-1-3-64 widened.
        let v3 = with_hash_byte(3, 3);
        assert_eq!(Reader::open(&v3).unwrap().key(), HashKey::from_parts(1, 2));
        // The stream reader checks the byte before reading on.
        let err = read_all(&with_hash_byte(3, 9)[..]).unwrap_err();
        assert!(
            err.to_string().contains("unknown hash function code 9"),
            "{err}"
        );
    }

    #[test]
    fn parquet_hashing_is_refused_where_the_variant_cannot_use_it() {
        for t in 1..=6 {
            assert!(!tag::supports_hash(t, HashFunction::ParquetXxh64), "{t}");
            assert!(tag::supports_hash(t, HashFunction::Xxh3), "{t}");
            assert!(tag::supports_hash(t, HashFunction::SipHash13), "{t}");
            assert!(tag::supports_hash(t, HashFunction::SipHash13x64), "{t}");
        }
        // A forged classic file (key bytes zeroed, as the function needs).
        let mut bytes = with_hash_byte(3, 2);
        bytes[16..32].fill(0);
        reseal(&mut bytes).unwrap();
        let err = Reader::open(&bytes).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("parquet-xxh64 on a classic filter"),
            "{err}"
        );
    }

    #[test]
    fn padded_bytes_round_trip_and_check_their_padding() {
        let mut w = Writer::new(tag::FUSE, HashKey::from_parts(0, 0), 0);
        w.bytes_padded(&[1, 2, 3]).u64(9);
        let bytes = w.finish();
        assert_eq!(bytes.len(), HEADER_LEN + 8 + 8 + 8 + CHECKSUM_LEN);
        let mut r = Reader::open(&bytes).unwrap();
        assert_eq!(r.bytes_padded(3, "cells").unwrap(), [1, 2, 3]);
        assert_eq!(r.u64("after").unwrap(), 9);
        r.finish().unwrap();
        let mut r = Reader::open(&bytes).unwrap();
        assert!(r.bytes_padded(17, "cells").is_err());
        let mut r = Reader::open(&bytes).unwrap();
        // Reading 2 bytes leaves the third as "padding", which is not 0.
        let e = r.bytes_padded(2, "cells").unwrap_err();
        assert!(e.to_string().contains("padding"), "{e}");
        let mut r = Reader::open(&bytes).unwrap();
        assert!(r.bytes_padded(u64::MAX, "cells").is_err());
    }

    #[test]
    fn unverified_opening_skips_only_the_checksum() {
        let bytes = sample();
        // A payload bit flipped: only the checksum shows it.
        let mut bad = bytes.clone();
        bad[HEADER_LEN + 30] ^= 1;
        assert!(matches!(
            Reader::open(&bad),
            Err(Error::ChecksumMismatch { .. })
        ));
        let mut r = Reader::open_unverified(&bad).unwrap();
        assert_eq!(r.u64("bits").unwrap(), 1000);
        assert!(verify_checksum(&bad).is_err() && verify_checksum(&bytes).is_ok());
        // Everything else is refused as by `open`.
        for len in 0..bytes.len() {
            assert_eq!(
                Reader::open_unverified(&bytes[..len]).unwrap_err(),
                Reader::open(&bytes[..len]).unwrap_err()
            );
        }
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert!(matches!(
            Reader::open_unverified(&magic),
            Err(Error::BadMagic { .. })
        ));
        assert!(matches!(
            Reader::open_variant_unverified(&bytes, tag::CUCKOO),
            Err(Error::WrongVariant { .. })
        ));
        // The borrowed payload words are the words written.
        let mut r = Reader::open_unverified(&bytes).unwrap();
        r.u64("bits").unwrap();
        r.u32("hashes").unwrap();
        r.f64("fp").unwrap();
        assert!(r.clone().le_words(4, "payload").is_err());
        let words = r.le_words(3, "payload").unwrap();
        assert_eq!(words.iter().collect::<Vec<_>>(), [1, 2, u64::MAX]);
        assert_eq!(r.bytes(), &bytes[..]);
        r.finish().unwrap();
        // Walking filters saved one after another.
        let two = [bytes.clone(), bytes.clone()].concat();
        let (first, rest) = split_first(&two).unwrap();
        assert_eq!((first, rest), (&bytes[..], &bytes[..]));
        assert!(matches!(
            split_first(&two[..bytes.len() - 1]),
            Err(Error::Truncated { .. })
        ));
    }

    #[test]
    fn oversized_claims_do_not_allocate() {
        let mut w = Writer::new(tag::CLASSIC, HashKey::from_parts(0, 0), 0);
        w.u64(1 << 60);
        let bytes = w.finish();
        let mut r = Reader::open(&bytes).unwrap();
        let _ = r.u64("bits").unwrap();
        assert!(matches!(
            r.words(1 << 54, "payload"),
            Err(Error::Corrupt { .. })
        ));
    }
}
