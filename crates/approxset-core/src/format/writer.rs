//! Writing a filter in the format: into memory ([`Writer::new`], then
//! [`Writer::finish`]), or straight to a sink page by page
//! ([`write_streamed`]), so that saving a filter needs no second copy of
//! it.

use std::io::Write;

use super::pages::{PageLayout, append_trailer, page_checksum};
use super::{CHECKSUM_LEN, HEADER_LEN, LeWords, MAGIC, PAGE_LEN, VERSION, Words, checksum};
use crate::error::{Error, Result};
use crate::hash::HashKey;

/// Writes a filter in the format: header, then parameters and payload
/// through the `u32`/`u64`/`f64`/`words` calls, then [`finish`](Self::finish)
/// (or, streaming, through [`write_streamed`]).
pub struct Writer<'s> {
    /// The data so far (in memory), or the page being filled (streaming).
    buf: Vec<u8>,
    mode: Mode<'s>,
}

enum Mode<'s> {
    /// Everything in `buf`.
    Memory,
    /// Only counting the data's bytes.
    Count(u64),
    /// Full pages go to the sink as they fill.
    Stream(Stream<'s>),
}

struct Stream<'s> {
    sink: &'s mut dyn Write,
    /// Data bytes the header announced.
    data_len: u64,
    /// Pages already written, and their bytes.
    pages: u64,
    bytes: u64,
    table: Vec<u8>,
    error: Option<std::io::Error>,
}

impl std::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            Mode::Memory => "memory",
            Mode::Count(_) => "count",
            Mode::Stream(_) => "stream",
        };
        f.debug_struct("Writer")
            .field("mode", &mode)
            .field("buffered", &self.buf.len())
            .finish()
    }
}

fn header(tag: u8, key: HashKey, total: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(&MAGIC);
    h[4..6].copy_from_slice(&VERSION.to_le_bytes());
    h[6] = tag;
    h[7] = key.function().code();
    h[8..16].copy_from_slice(&total.to_le_bytes());
    h[16..].copy_from_slice(&key.to_le_bytes());
    h
}

impl Writer<'static> {
    /// Starts a filter of variant `tag` hashed with `key`, in format
    /// version [`VERSION`] (its function's code in byte 7), in memory;
    /// `capacity` is a size hint in bytes.
    pub fn new(tag: u8, key: HashKey, capacity: usize) -> Self {
        let pages = capacity / PAGE_LEN + 1;
        let mut buf =
            Vec::with_capacity(capacity.saturating_add(HEADER_LEN + 8 * pages + CHECKSUM_LEN));
        buf.extend_from_slice(&header(tag, key, 0)); // total length, patched by finish
        Writer {
            buf,
            mode: Mode::Memory,
        }
    }

    fn counting() -> Self {
        Writer {
            buf: Vec::new(),
            mode: Mode::Count(HEADER_LEN as u64),
        }
    }

    /// Patches the total length, appends the page table and its checksum
    /// ([`PageTable`](super::PageTable)), and returns the bytes.
    pub fn finish(mut self) -> Vec<u8> {
        let total = PageLayout::for_data(self.buf.len() as u64).total_len();
        self.buf[8..16].copy_from_slice(&total.to_le_bytes());
        append_trailer(&mut self.buf);
        self.buf
    }
}

impl Writer<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        match &mut self.mode {
            Mode::Memory => self.buf.extend_from_slice(bytes),
            Mode::Count(n) => *n += bytes.len() as u64,
            Mode::Stream(_) => {
                let mut rest = bytes;
                while !rest.is_empty() {
                    let room = PAGE_LEN - self.buf.len();
                    let (now, later) = rest.split_at(room.min(rest.len()));
                    self.buf.extend_from_slice(now);
                    rest = later;
                    if self.buf.len() == PAGE_LEN {
                        self.flush_page();
                    }
                }
            }
        }
    }

    /// Writes the page in `buf` to the sink (streaming).
    fn flush_page(&mut self) {
        let Mode::Stream(s) = &mut self.mode else {
            return;
        };
        s.table
            .extend_from_slice(&page_checksum(s.pages, &self.buf).to_le_bytes());
        s.pages += 1;
        s.bytes += self.buf.len() as u64;
        if s.error.is_none()
            && let Err(e) = s.sink.write_all(&self.buf)
        {
            s.error = Some(e);
        }
        self.buf.clear();
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.put(&v.to_le_bytes());
        self
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.put(&v.to_le_bytes());
        self
    }

    /// Appends an `f64` (its IEEE 754 bits).
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.u64(v.to_bits())
    }

    /// Appends words already in the format's little-endian bytes (a view's
    /// payload), as they are.
    pub fn le_words(&mut self, words: LeWords<'_>) -> &mut Self {
        self.put(words.bytes());
        self
    }

    /// Appends the words of any source, little-endian: a filter's own or a
    /// view's (copied as they lie).
    pub fn words_from<W: Words + ?Sized>(&mut self, words: &W) -> &mut Self {
        if let Some(bytes) = words.le_bytes() {
            self.put(bytes);
            return self;
        }
        if let Mode::Count(n) = &mut self.mode {
            *n += words.word_count() as u64 * 8;
            return self;
        }
        if let Mode::Memory = self.mode {
            self.buf.reserve(words.word_count() * 8);
        }
        for i in 0..words.word_count() {
            self.put(&words.word(i).to_le_bytes());
        }
        self
    }

    /// Appends words, little-endian.
    pub fn words(&mut self, words: &[u64]) -> &mut Self {
        match self.mode {
            Mode::Count(ref mut n) => *n += words.len() as u64 * 8,
            Mode::Memory => {
                self.buf.reserve(words.len() * 8);
                for w in words {
                    self.buf.extend_from_slice(&w.to_le_bytes());
                }
            }
            Mode::Stream(_) => {
                for w in words {
                    self.put(&w.to_le_bytes());
                }
            }
        }
        self
    }

    /// Appends raw bytes (a payload of narrower cells than words, such as
    /// a fuse filter's fingerprints), then zero bytes up to a whole number
    /// of 8-byte words, so the payload stays word-sized.
    pub fn bytes_padded(&mut self, bytes: &[u8]) -> &mut Self {
        self.put(bytes);
        let pad = bytes.len().next_multiple_of(8) - bytes.len();
        self.put(&[0u8; 8][..pad]);
        self
    }

    /// Checks that `version` is one this library writes: every filter is
    /// written in [`VERSION`], which describes every variant.
    ///
    /// # Panics
    /// When `version` is above [`VERSION`], which this library cannot read.
    pub fn require_version(&mut self, version: u16) -> &mut Self {
        assert!(version <= VERSION, "format version {version} is unknown");
        self
    }
}

/// Writes the filter that `body` describes (its parameters and payload,
/// through the [`Writer`] calls) to `sink` as a whole serialized filter,
/// page by page: the memory it takes is one page and the page table
/// (8 bytes per 4 KiB), not a copy of the filter. `body` runs twice, once
/// to count the bytes (the header states the total length first), so it
/// must write the same bytes each time.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Writer, tag, write_streamed};
/// use approxset::HashKey;
/// let key = HashKey::from_seed(1);
/// let body = |w: &mut Writer<'_>| {
///     w.u64(3).words(&[1, 2, 3]);
/// };
/// let mut streamed = Vec::new();
/// write_streamed(tag::CLASSIC, key, &mut streamed, body)?;
/// let mut w = Writer::new(tag::CLASSIC, key, 0);
/// body(&mut w);
/// assert_eq!(streamed, w.finish());
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] from the sink.
///
/// # Panics
/// When `body` writes a different number of bytes the second time.
pub fn write_streamed(
    tag: u8,
    key: HashKey,
    sink: &mut dyn Write,
    body: impl Fn(&mut Writer<'_>),
) -> Result<()> {
    let mut count = Writer::counting();
    body(&mut count);
    let Mode::Count(data_len) = count.mode else {
        unreachable!("a counting writer")
    };
    let layout = PageLayout::for_data(data_len);
    let mut w = Writer {
        buf: Vec::with_capacity(PAGE_LEN),
        mode: Mode::Stream(Stream {
            sink,
            data_len,
            pages: 0,
            bytes: 0,
            table: Vec::new(),
            error: None,
        }),
    };
    w.put(&header(tag, key, layout.total_len()));
    body(&mut w);
    if !w.buf.is_empty() {
        w.flush_page();
    }
    let Mode::Stream(s) = w.mode else {
        unreachable!("a streaming writer")
    };
    assert_eq!(
        (s.bytes, s.pages),
        (s.data_len, layout.pages()),
        "the filter wrote other bytes than it counted"
    );
    if let Some(e) = s.error {
        return Err(Error::from(e));
    }
    let sum = checksum(&s.table);
    s.sink.write_all(&s.table)?;
    s.sink.write_all(&sum.to_le_bytes())?;
    Ok(())
}
