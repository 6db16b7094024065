//! The [`Reader`] of a filter written by a [`Writer`](super::Writer): the
//! envelope's checks, then the parameters and the payload in order.

use super::pages::PageLayout;
use super::{
    CHECKSUM_LEN, HEADER_LEN, Header, LeWords, PAGED_VERSION, PagedWords, Pages, Words, tag,
    verify_checksum,
};
use crate::error::{Error, Result};
use crate::hash::HashKey;

/// Reads a filter written by a [`Writer`](super::Writer).
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    all: &'a [u8],
    /// The data bytes at hand: all of them, or page 0 of a paged reader.
    pub(super) body: &'a [u8],
    /// The data's length (header, parameters, payload): `body.len()` but
    /// for a paged reader, whose payload stays in the pages.
    body_len: usize,
    pub(super) pos: usize,
    tag: u8,
    version: u16,
    key: HashKey,
}

impl<'a> Reader<'a> {
    /// Checks the envelope of `bytes` in this order: long enough for a
    /// header, magic, version, total length (so truncation and trailing
    /// bytes are told apart from damage), checksum, the hash function byte
    /// (0 before version 3, a known code from version 3), a known variant
    /// tag, and a function the variant can use (see [`tag::supports_hash`];
    /// xxHash64 takes no key, so its key bytes must be 0).
    ///
    /// # Errors
    /// [`Error::Truncated`], [`Error::BadMagic`],
    /// [`Error::UnsupportedVersion`], [`Error::TrailingBytes`],
    /// [`Error::ChecksumMismatch`], [`Error::Corrupt`] (hash function),
    /// [`Error::UnknownVariant`].
    pub fn open(bytes: &'a [u8]) -> Result<Self> {
        Self::open_with(bytes, true)
    }

    /// [`open`](Self::open) without the checksum: every check of the
    /// envelope but the one that reads every byte, for a view of a filter
    /// that answers from its bytes in place (`docs/format.md`, "Views").
    ///
    /// # Errors
    /// As [`open`](Self::open), but never [`Error::ChecksumMismatch`].
    pub fn open_unverified(bytes: &'a [u8]) -> Result<Self> {
        Self::open_with(bytes, false)
    }

    /// [`open_unverified`](Self::open_unverified), then checks the variant
    /// is `expected`.
    ///
    /// # Errors
    /// As [`open_unverified`](Self::open_unverified), and
    /// [`Error::WrongVariant`].
    pub fn open_variant_unverified(bytes: &'a [u8], expected: u8) -> Result<Self> {
        Self::open_unverified(bytes)?.expect_variant(expected)
    }

    fn open_with(bytes: &'a [u8], verify: bool) -> Result<Self> {
        let available = bytes.len() as u64;
        let header = Header::parse(bytes)?;
        let total = header.total_len();
        if available < total {
            return Err(Error::Truncated {
                needed: total,
                available,
            });
        }
        if available > total {
            return Err(Error::TrailingBytes {
                expected: total,
                found: available,
            });
        }
        let data_len = if header.version() >= PAGED_VERSION {
            PageLayout::from_total(total)?.data_len() as usize
        } else {
            bytes.len() - CHECKSUM_LEN
        };
        if data_len < HEADER_LEN {
            return Err(Error::corrupt(format!(
                "total length {total} leaves no room for a header"
            )));
        }
        if verify {
            verify_checksum(bytes)?;
        }
        Self::with_header(bytes, &bytes[..data_len], data_len, header)
    }

    /// The reader of a version-4 file read through `pages`: page 0 (read
    /// and checked against the page table) holds the header and the
    /// parameters, and [`paged_words`](Self::paged_words) gives the
    /// payload as words read through the pages, each checked when first
    /// read. Every check of [`open_unverified`](Self::open_unverified) is
    /// made; the pages a lookup never reads are never checked
    /// ([`Pages::verify_all`] checks them all).
    ///
    /// # Errors
    /// As [`open_unverified`](Self::open_unverified), and as
    /// [`Pages::page`] for page 0; [`Error::Corrupt`] for parameters that
    /// pass page 0.
    pub fn open_paged(pages: &'a Pages) -> Result<Self> {
        let first = pages.page(0)?;
        let header = Header::parse(first)?;
        let layout = pages.layout();
        if header.version() < PAGED_VERSION || header.total_len() != layout.total_len() {
            return Err(Error::corrupt(format!(
                "the header states version {} and {} bytes, read as a version-{PAGED_VERSION}                  file of {}",
                header.version(),
                header.total_len(),
                layout.total_len()
            )));
        }
        let data_len = usize::try_from(layout.data_len())
            .map_err(|_| Error::corrupt("the data does not fit this platform"))?;
        if first.len() < HEADER_LEN {
            return Err(Error::corrupt(format!(
                "total length {} leaves no room for a header",
                layout.total_len()
            )));
        }
        Self::with_header(first, first, data_len, header)
    }

    pub(super) fn with_header(
        all: &'a [u8],
        body: &'a [u8],
        body_len: usize,
        header: Header,
    ) -> Result<Self> {
        let function = header.check_tag_and_hash()?;
        let tag = header.tag();
        let stored = HashKey::from_le_bytes(all[16..32].try_into().expect("16 bytes"));
        let key = stored.with_function(function);
        if key.to_parts() != stored.to_parts() {
            return Err(Error::corrupt(format!(
                "hash key bytes are not 0 for {function}, which takes no key"
            )));
        }
        Ok(Reader {
            all,
            body,
            body_len,
            pos: HEADER_LEN,
            tag,
            version: header.version(),
            key,
        })
    }

    /// [`open_paged`](Self::open_paged), then checks the variant is
    /// `expected`.
    ///
    /// # Errors
    /// As [`open_paged`](Self::open_paged), and [`Error::WrongVariant`].
    pub fn open_variant_paged(pages: &'a Pages, expected: u8) -> Result<Self> {
        Self::open_paged(pages)?.expect_variant(expected)
    }

    /// [`open`](Self::open), then checks the variant is `expected`.
    ///
    /// # Errors
    /// As [`open`](Self::open), and [`Error::WrongVariant`].
    pub fn open_variant(bytes: &'a [u8], expected: u8) -> Result<Self> {
        Self::open(bytes)?.expect_variant(expected)
    }

    pub(super) fn expect_variant(self, expected: u8) -> Result<Self> {
        let reader = self;
        if reader.tag != expected {
            return Err(Error::WrongVariant {
                expected: tag::name(expected).unwrap_or("unknown"),
                found: tag::name(reader.tag).unwrap_or("unknown"),
            });
        }
        Ok(reader)
    }

    /// The variant tag.
    pub fn tag(&self) -> u8 {
        self.tag
    }

    /// The whole serialized filter the reader reads, checksum included.
    pub fn bytes(&self) -> &'a [u8] {
        self.all
    }

    /// The envelope's format version (1 ..= [`VERSION`](super::VERSION)).
    pub fn version(&self) -> u16 {
        self.version
    }

    /// The hash key, with the function the file records.
    pub fn key(&self) -> HashKey {
        self.key
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let rest = self.body_len - self.pos;
        if n > rest {
            return Err(Error::corrupt(format!(
                "{what} needs {n} bytes, only {rest} remain before the checksum"
            )));
        }
        if n > self.body.len() - self.pos {
            return Err(Error::corrupt(format!(
                "{what} passes the first page of a file read page by page"
            )));
        }
        let out = &self.body[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Reads a `u32` parameter.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the input ends first.
    pub fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    /// Reads a `u64` parameter.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the input ends first.
    pub fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    /// Reads a `u64` parameter that must fit a `usize`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the input ends first or the value is too big
    /// for this platform.
    pub fn usize(&mut self, what: &str) -> Result<usize> {
        let v = self.u64(what)?;
        usize::try_from(v)
            .map_err(|_| Error::corrupt(format!("{what} {v} does not fit this platform")))
    }

    /// Reads an `f64` parameter.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the input ends first.
    pub fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    /// Reads `count` little-endian words. The count is checked against the
    /// bytes that remain before anything is allocated, so a header that
    /// claims 2⁶⁰ bits costs nothing.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when fewer than `count` words remain.
    pub fn words(&mut self, count: u64, what: &str) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        self.words_into(count, what, &mut out)?;
        Ok(out)
    }

    /// Appends `count` little-endian words to `out` (whose allocation, and
    /// so its alignment, the caller chose), checked as [`words`](Self::words).
    ///
    /// # Errors
    /// As [`words`](Self::words), and [`Error::AllocationFailed`].
    pub fn words_into(&mut self, count: u64, what: &str, out: &mut Vec<u64>) -> Result<()> {
        let words = self.le_words(count, what)?;
        out.try_reserve_exact(words.word_count())
            .map_err(|_| Error::AllocationFailed {
                bytes: words.bytes().len(),
            })?;
        out.extend(words.iter());
        Ok(())
    }

    /// The next `count` words where they lie, for a view: checked as
    /// [`words`](Self::words), nothing copied or allocated.
    ///
    /// # Errors
    /// As [`words`](Self::words).
    pub fn le_words(&mut self, count: u64, what: &str) -> Result<LeWords<'a>> {
        let rest = (self.body_len - self.pos) as u64;
        if count > rest / 8 {
            return Err(Error::corrupt(format!(
                "{what} claims {count} words, the payload has {rest} bytes"
            )));
        }
        let bytes = self.take(count as usize * 8, what)?;
        Ok(LeWords::new(bytes).expect("whole words"))
    }

    /// Reads `count` raw bytes written by [`Writer::bytes_padded`](super::Writer::bytes_padded) and the
    /// zero padding after them, borrowed from the input (nothing is
    /// allocated).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when fewer bytes remain or a padding byte is not 0.
    pub fn bytes_padded(&mut self, count: u64, what: &str) -> Result<&'a [u8]> {
        let rest = (self.body_len - self.pos) as u64;
        let padded = count.checked_next_multiple_of(8).unwrap_or(u64::MAX);
        if padded > rest {
            return Err(Error::corrupt(format!(
                "{what} claims {count} bytes, the payload has {rest}"
            )));
        }
        let out = self.take(count as usize, what)?;
        let pad = self.take((padded - count) as usize, what)?;
        if pad.iter().any(|&b| b != 0) {
            return Err(Error::corrupt(format!("padding after the {what} is not 0")));
        }
        Ok(out)
    }

    /// The next `count` words read through `pages` (the pages this reader
    /// was opened on with [`open_paged`](Self::open_paged)), checked as
    /// [`words`](Self::words); nothing is read yet.
    ///
    /// # Errors
    /// As [`words`](Self::words).
    pub fn paged_words(
        &mut self,
        count: u64,
        what: &str,
        pages: &std::sync::Arc<Pages>,
    ) -> Result<PagedWords> {
        let rest = (self.body_len - self.pos) as u64;
        if count > rest / 8 {
            return Err(Error::corrupt(format!(
                "{what} claims {count} words, the payload has {rest} bytes"
            )));
        }
        let start = self.pos as u64;
        self.pos += count as usize * 8;
        pages.words(start..start + count * 8)
    }

    /// Bytes left before the checksum.
    pub fn remaining(&self) -> usize {
        self.body_len - self.pos
    }

    /// Checks that nothing is left before the checksum.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when bytes remain.
    pub fn finish(self) -> Result<()> {
        let rest = self.body_len - self.pos;
        if rest != 0 {
            return Err(Error::corrupt(format!(
                "{rest} bytes after the payload that the parameters do not account for"
            )));
        }
        Ok(())
    }
}
