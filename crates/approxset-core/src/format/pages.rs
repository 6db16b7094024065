//! Format version 4's integrity trailer: a checksum for every 4 KiB page
//! of the file, so a reader can check exactly the bytes a lookup touches.
//!
//! ```text
//! [0, D)          header, parameters, payload (as in versions 1 to 3)
//! [D, D + 8·P)    the page table: P = ⌈D / 4096⌉ u64 LE, entry i the
//!                 checksum of page i, bytes [4096·i, min(4096·(i+1), D))
//! [D + 8·P, +8)   the checksum of the page table's bytes
//! ```
//!
//! Versions 1 to 3 end with one checksum of every byte before it, which a
//! reader can only check by reading the whole file; a reader of a version-4
//! file checks the small page table once ([`PageTable::read`]) and then each
//! page when it first reads it ([`Pages`]). The total length in the header
//! fixes `D` (see [`PageLayout::from_total`]), and page 0, which holds the
//! header, is checked like any other. `docs/design.md`, "Damaged files",
//! says why.

use std::ops::Range;
use std::sync::OnceLock;

use super::checksum::checksum;
use super::{CHECKSUM_LEN, MAGIC};
use crate::error::{Error, Result};

/// Bytes of a page: the unit a version-4 file checks.
pub const PAGE_LEN: usize = 4096;

/// The first format version with a page table.
pub const PAGED_VERSION: u16 = 4;

/// The checksum of page `index` holding `bytes`: the format's checksum of
/// the bytes, then one more step with the index, so that a page copied to
/// another place in the file does not pass for it.
pub fn page_checksum(index: u64, bytes: &[u8]) -> u64 {
    (checksum(bytes) ^ index)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
}

/// Where the parts of a version-4 file lie: its data (header, parameters,
/// payload), the page table and the final checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    data_len: u64,
    pages: u64,
}

impl PageLayout {
    /// The layout of a file whose data (everything before the page table)
    /// takes `data_len` bytes.
    pub fn for_data(data_len: u64) -> Self {
        PageLayout {
            data_len,
            pages: data_len.div_ceil(PAGE_LEN as u64),
        }
    }

    /// The layout of a file of `total` bytes, checksum included: the one
    /// `data_len` whose layout is that long (the total grows with the data,
    /// so there is at most one).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when no data length gives `total`.
    pub fn from_total(total: u64) -> Result<Self> {
        let page = PAGE_LEN as u64;
        // total − 8 = D + 8·⌈D/4096⌉, so ⌈(total − 8) / 4104⌉ = ⌈D/4096⌉.
        let rest = total.saturating_sub(CHECKSUM_LEN as u64);
        let pages = rest.div_ceil(page + 8);
        let layout = rest
            .checked_sub(8 * pages)
            .map(Self::for_data)
            .filter(|l| l.pages == pages && l.total_len() == total);
        layout.ok_or_else(|| {
            Error::corrupt(format!(
                "a total length of {total} bytes does not fit a version-{PAGED_VERSION} \
                 file's page table"
            ))
        })
    }

    /// Bytes before the page table: header, parameters and payload.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// The number of pages.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// The whole file's length, checksum included.
    pub fn total_len(&self) -> u64 {
        self.data_len + 8 * self.pages + CHECKSUM_LEN as u64
    }

    /// The bytes of page `index` (the last one may be short).
    pub fn page_range(&self, index: u64) -> Range<u64> {
        let start = index * PAGE_LEN as u64;
        start..(start + PAGE_LEN as u64).min(self.data_len)
    }

    /// The bytes of the page table.
    pub fn table_range(&self) -> Range<u64> {
        self.data_len..self.data_len + 8 * self.pages
    }
}

/// The format version a serialized filter's header states, if its first
/// six bytes are a header's.
pub(crate) fn stated_version(bytes: &[u8]) -> Option<u16> {
    (bytes.len() >= 6 && bytes[..4] == MAGIC).then(|| u16::from_le_bytes([bytes[4], bytes[5]]))
}

/// Appends the page table and its checksum to `data` (header, parameters
/// and payload of a version-4 file, its total length already patched).
pub(crate) fn append_trailer(data: &mut Vec<u8>) {
    let layout = PageLayout::for_data(data.len() as u64);
    let mut table = Vec::with_capacity(8 * layout.pages as usize);
    for (i, page) in data.chunks(PAGE_LEN).enumerate() {
        table.extend_from_slice(&page_checksum(i as u64, page).to_le_bytes());
    }
    let sum = checksum(&table);
    data.extend_from_slice(&table);
    data.extend_from_slice(&sum.to_le_bytes());
}

/// Checks every page and the page table of `bytes`, a whole version-4 file.
pub(crate) fn verify_pages(bytes: &[u8]) -> Result<()> {
    let layout = PageLayout::from_total(bytes.len() as u64)?;
    let table = PageTable::from_bytes(layout, slice(bytes, layout.table_range()), tail(bytes))?;
    for i in 0..layout.pages {
        table.check(i, slice(bytes, layout.page_range(i)))?;
    }
    Ok(())
}

/// Recomputes the page table and its checksum of `bytes`, a whole
/// version-4 file whose data was edited in place.
pub(crate) fn reseal_pages(bytes: &mut Vec<u8>) -> Result<()> {
    let layout = PageLayout::from_total(bytes.len() as u64)?;
    bytes.truncate(layout.data_len as usize);
    append_trailer(bytes);
    Ok(())
}

fn slice(bytes: &[u8], range: Range<u64>) -> &[u8] {
    &bytes[range.start as usize..range.end as usize]
}

fn tail(bytes: &[u8]) -> u64 {
    let at = bytes.len() - CHECKSUM_LEN;
    u64::from_le_bytes(bytes[at..].try_into().expect("8 bytes"))
}

/// The page table of a version-4 file, its own checksum checked.
#[derive(Clone, Debug)]
pub struct PageTable {
    layout: PageLayout,
    sums: Vec<u64>,
}

impl PageTable {
    fn from_bytes(layout: PageLayout, table: &[u8], stored: u64) -> Result<Self> {
        let computed = checksum(table);
        if computed != stored {
            return Err(Error::ChecksumMismatch { stored, computed });
        }
        let sums = table
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        Ok(PageTable { layout, sums })
    }

    /// Reads and checks the page table of the version-4 file of `total`
    /// bytes that `source` reads: `8 · ⌈total / 4104⌉ + 8` bytes read.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a length no version-4 file has,
    /// [`Error::ChecksumMismatch`] for a damaged table, [`Error::Io`] (a
    /// shorter file among them) from the source.
    pub fn read<S: PageRead + ?Sized>(source: &S, total: u64) -> Result<Self> {
        let layout = PageLayout::from_total(total)?;
        let range = layout.table_range();
        let len = usize::try_from(range.end - range.start + CHECKSUM_LEN as u64).map_err(|_| {
            Error::TooLarge {
                needed: u128::from(range.end - range.start),
                limit: usize::MAX as u128,
            }
        })?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(len)
            .map_err(|_| Error::AllocationFailed { bytes: len })?;
        buf.resize(len, 0);
        source.read_exact_at(&mut buf, range.start)?;
        let stored = tail(&buf);
        Self::from_bytes(layout, &buf[..len - CHECKSUM_LEN], stored)
    }

    /// The file's layout.
    pub fn layout(&self) -> PageLayout {
        self.layout
    }

    /// Checks that `bytes` are page `index` as written.
    ///
    /// # Errors
    /// [`Error::ChecksumMismatch`] naming the page's checksums.
    pub fn check(&self, index: u64, bytes: &[u8]) -> Result<()> {
        let stored = self.sums[index as usize];
        let computed = page_checksum(index, bytes);
        let range = self.layout.page_range(index);
        if stored != computed || bytes.len() as u64 != range.end - range.start {
            return Err(Error::ChecksumMismatch { stored, computed });
        }
        Ok(())
    }
}

/// Positioned reads of a file's bytes: what [`Pages`] reads pages with.
/// Implemented for [`std::fs::File`] (a `pread`, which a concurrent
/// truncation turns into an error, not a signal) and for byte slices.
pub trait PageRead: Send + Sync {
    /// Fills `buf` with the bytes at `offset`.
    ///
    /// # Errors
    /// [`Error::Io`], of kind `UnexpectedEof` when the source ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()>;
}

impl PageRead for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|at| self.get(at..at.checked_add(buf.len())?))
            .ok_or_else(|| {
                Error::from(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the bytes end before the page",
                ))
            })?;
        buf.copy_from_slice(bytes);
        Ok(())
    }
}

impl PageRead for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        self.as_slice().read_exact_at(buf, offset)
    }
}

#[cfg(unix)]
impl PageRead for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                std::io::Error::new(e.kind(), "the file is shorter than when it was opened").into()
            } else {
                e.into()
            }
        })
    }
}

#[cfg(windows)]
impl PageRead for std::fs::File {
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.seek_read(buf, offset) {
                Ok(0) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file is shorter than when it was opened",
                    )
                    .into());
                }
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

/// The pages of a version-4 file read through a [`PageRead`], each checked
/// against the page table when first read and kept: lookups over
/// [`PagedWords`] read only the pages they touch, and only bytes that are
/// the bytes written.
///
/// A page that cannot be read or does not match its checksum is recorded
/// ([`error`](Self::error)) and read as zeros: an answer computed while an
/// error is recorded must be discarded.
pub struct Pages {
    source: Box<dyn PageRead>,
    table: PageTable,
    cache: Vec<OnceLock<Box<[u8]>>>,
    /// The first failure; read without a lock after every lookup.
    error: OnceLock<Error>,
}

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("layout", &self.table.layout)
            .finish_non_exhaustive()
    }
}

impl Pages {
    /// Opens the version-4 file of `total` bytes that `source` reads: its
    /// page table is read and checked.
    ///
    /// # Errors
    /// As [`PageTable::read`].
    pub fn open(source: Box<dyn PageRead>, total: u64) -> Result<Self> {
        let table = PageTable::read(&*source, total)?;
        let pages = table.layout.pages as usize;
        let mut cache = Vec::new();
        cache
            .try_reserve_exact(pages)
            .map_err(|_| Error::AllocationFailed { bytes: pages * 16 })?;
        cache.resize_with(pages, OnceLock::new);
        Ok(Pages {
            source,
            table,
            cache,
            error: OnceLock::new(),
        })
    }

    /// The file's layout.
    pub fn layout(&self) -> PageLayout {
        self.table.layout
    }

    /// Page `index`, read and checked the first time.
    ///
    /// # Errors
    /// [`Error::Io`] from the source, [`Error::ChecksumMismatch`] for a
    /// page that is not as written; either is also recorded.
    pub fn page(&self, index: u64) -> Result<&[u8]> {
        let slot = &self.cache[index as usize];
        if let Some(page) = slot.get() {
            return Ok(page);
        }
        let range = self.table.layout.page_range(index);
        let mut buf = vec![0u8; (range.end - range.start) as usize].into_boxed_slice();
        let read = self
            .source
            .read_exact_at(&mut buf, range.start)
            .and_then(|()| self.table.check(index, &buf));
        match read {
            Ok(()) => Ok(slot.get_or_init(|| buf)),
            Err(e) => {
                self.record(e.clone());
                Err(e)
            }
        }
    }

    /// The bytes `range` of the data, every page they touch checked.
    ///
    /// # Errors
    /// As [`page`](Self::page), and [`Error::Corrupt`] past the data.
    pub fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        if range.end > self.table.layout.data_len || range.start > range.end {
            return Err(Error::corrupt(format!(
                "bytes {range:?} pass the data's {} bytes",
                self.table.layout.data_len
            )));
        }
        let mut out = Vec::with_capacity((range.end - range.start) as usize);
        let mut at = range.start;
        while at < range.end {
            let index = at / PAGE_LEN as u64;
            let page = self.page(index)?;
            let from = (at - index * PAGE_LEN as u64) as usize;
            let to = page.len().min(from + (range.end - at) as usize);
            out.extend_from_slice(&page[from..to]);
            at += (to - from) as u64;
        }
        Ok(out)
    }

    /// Reads and checks every page (and keeps them): the whole file
    /// verified, as [`verify_checksum`](super::verify_checksum) does.
    ///
    /// # Errors
    /// As [`page`](Self::page).
    pub fn verify_all(&self) -> Result<()> {
        (0..self.table.layout.pages).try_for_each(|i| self.page(i).map(|_| ()))
    }

    fn record(&self, e: Error) {
        // Only the first failure is kept.
        let _ = self.error.set(e);
    }

    /// The first failure to read or check a page, if any: once one is
    /// recorded, no answer computed from these pages may be trusted.
    pub fn error(&self) -> Option<Error> {
        self.error.get().cloned()
    }

    /// The payload words at bytes `range` of the data (a whole number of
    /// words, starting at a multiple of 8), read through these pages.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a range that is not whole words of the data.
    pub fn words(self: &std::sync::Arc<Self>, range: Range<u64>) -> Result<PagedWords> {
        if range.start % 8 != 0
            || range.end < range.start
            || (range.end - range.start) % 8 != 0
            || range.end > self.table.layout.data_len
        {
            return Err(Error::corrupt(format!(
                "payload bytes {range:?} are not whole words of the data"
            )));
        }
        let count = usize::try_from((range.end - range.start) / 8)
            .map_err(|_| Error::corrupt("the payload does not fit this platform"))?;
        Ok(PagedWords {
            pages: std::sync::Arc::clone(self),
            start: range.start,
            count,
        })
    }
}

/// Payload words read through [`Pages`]: a [`Words`](super::Words) whose
/// every word comes from a checked page. A word of a page that fails is 0,
/// and the failure is recorded in the pages ([`Pages::error`]).
#[derive(Clone, Debug)]
pub struct PagedWords {
    pages: std::sync::Arc<Pages>,
    start: u64,
    count: usize,
}

impl PagedWords {
    /// The pages the words are read through.
    pub fn pages(&self) -> &std::sync::Arc<Pages> {
        &self.pages
    }
}

impl super::Words for PagedWords {
    fn word_count(&self) -> usize {
        self.count
    }

    fn word(&self, i: usize) -> u64 {
        assert!(i < self.count, "word {i} of {}", self.count);
        let at = self.start + 8 * i as u64;
        let index = at / PAGE_LEN as u64;
        let from = (at % PAGE_LEN as u64) as usize;
        match self.pages.page(index) {
            Ok(page) => u64::from_le_bytes(page[from..from + 8].try_into().expect("8 bytes")),
            Err(_) => 0,
        }
    }

    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        std::array::from_fn(|i| self.word(at + i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_total_length_maps_back_to_its_data_length() {
        for data in (32..20_000u64).chain([1 << 20, (1 << 20) + 1, 4096 * 1000 - 1]) {
            let layout = PageLayout::for_data(data);
            assert_eq!(PageLayout::from_total(layout.total_len()), Ok(layout));
            // The lengths between two layouts' totals are no layout's.
            let next = PageLayout::for_data(data + 1).total_len();
            for total in layout.total_len() + 1..next {
                assert!(PageLayout::from_total(total).is_err(), "{total}");
            }
        }
        assert!(PageLayout::from_total(0).is_err());
    }

    #[test]
    fn a_page_copied_elsewhere_does_not_pass() {
        let page = [7u8; PAGE_LEN];
        assert_ne!(page_checksum(0, &page), page_checksum(1, &page));
    }
}
