//! Loading a saved filter from a file in bounded chunks, straight into the
//! filter's own words: no copy of the file is held, so loading a filter of
//! `S` bytes takes `S` (the filter) plus the page table (`S / 512`) and one
//! chunk of [`CHUNK_LEN`] bytes.
//!
//! [`load_streamed`] reads the header and the parameters from the first
//! [`HEAD_LEN`] bytes, hands the filter's parser a [`Reader`] over them
//! and a [`Payload`] that fills the payload's words from the file, and
//! returns the parsed filter only once every byte of the file was checked:
//! each page against the page table and the table against its own
//! checksum (version 4), or the one checksum of the whole file, computed
//! as the bytes go by (versions 1 to 3).

use super::checksum::Running;
use super::pages::{PAGE_LEN, PAGED_VERSION, PageRead, PageTable};
use super::{CHECKSUM_LEN, HEADER_LEN, Header, Reader};
use crate::error::{Error, Result};

/// Bytes read from the file at a time past the head: 1 MiB.
pub const CHUNK_LEN: usize = 256 * PAGE_LEN;

/// Bytes at the start of the file that hold the header and the parameters:
/// 64 KiB (less for a smaller file).
pub const HEAD_LEN: usize = 16 * PAGE_LEN;

/// How the bytes read are checked.
enum Check {
    /// Version 4: each page against the page table.
    Pages(PageTable),
    /// Versions 1 to 3: the checksum of every byte so far.
    Whole(Running),
}

/// The payload of a file being loaded: its words, read in chunks of
/// [`CHUNK_LEN`] bytes and checked as they are read (see
/// [`load_streamed`]).
pub struct Payload<'s> {
    source: &'s dyn PageRead,
    check: Check,
    data_len: u64,
    /// Bytes of the data held in the head, `[0, head_len)`.
    head_len: u64,
    /// The next byte of the data to read from the source.
    next: u64,
}

impl std::fmt::Debug for Payload<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Payload")
            .field("data_len", &self.data_len)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// Words assembled from bytes that arrive in parts of any length.
struct WordSink<'v> {
    out: &'v mut Vec<u64>,
    carry: [u8; 8],
    held: usize,
}

impl WordSink<'_> {
    fn push(&mut self, mut bytes: &[u8]) {
        if self.held > 0 {
            let take = (8 - self.held).min(bytes.len());
            self.carry[self.held..self.held + take].copy_from_slice(&bytes[..take]);
            self.held += take;
            bytes = &bytes[take..];
            if self.held < 8 {
                return;
            }
            self.out.push(u64::from_le_bytes(self.carry));
            self.held = 0;
        }
        let mut words = bytes.chunks_exact(8);
        self.out
            .extend((&mut words).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))));
        let rest = words.remainder();
        self.carry[..rest.len()].copy_from_slice(rest);
        self.held = rest.len();
    }
}

impl<'s> Payload<'s> {
    /// Opens the file of `total` bytes that `source` reads: its header, its
    /// page table (version 4) and its head, which it returns with the
    /// header that the head states.
    fn open(source: &'s dyn PageRead, total: u64) -> Result<(Self, Vec<u8>, Header)> {
        let mut first = [0u8; 16];
        let got = first.len().min(usize::try_from(total).unwrap_or(16));
        source.read_exact_at(&mut first[..got], 0)?;
        let header = Header::parse(&first[..got])?;
        let stated = header.total_len();
        if stated > total {
            return Err(Error::Truncated {
                needed: stated,
                available: total,
            });
        }
        if stated < total {
            return Err(Error::TrailingBytes {
                expected: stated,
                found: total,
            });
        }
        let (check, data_len) = if header.version() >= PAGED_VERSION {
            let table = PageTable::read(source, total)?;
            let data_len = table.layout().data_len();
            (Check::Pages(table), data_len)
        } else {
            (Check::Whole(Running::new()), total - CHECKSUM_LEN as u64)
        };
        if data_len < HEADER_LEN as u64 {
            return Err(Error::corrupt(format!(
                "total length {total} leaves no room for a header"
            )));
        }
        let mut payload = Payload {
            source,
            check,
            data_len,
            head_len: data_len.min(HEAD_LEN as u64),
            next: 0,
        };
        let mut head = vec![0u8; payload.head_len as usize];
        payload.read_checked(&mut head)?;
        // The header as the checked bytes state it.
        let header = Header::parse(&head)?;
        if header.total_len() != total || (header.version() >= PAGED_VERSION) != payload.paged() {
            return Err(Error::corrupt(format!(
                "the header states version {} and {} bytes, read as a file of {total} bytes",
                header.version(),
                header.total_len(),
            )));
        }
        Ok((payload, head, header))
    }

    fn paged(&self) -> bool {
        matches!(self.check, Check::Pages(_))
    }

    /// Fills `buf` with the data's next bytes and checks them: whole pages
    /// against the page table (`buf` holds whole pages, or ends at the
    /// data's end), or into the running checksum.
    fn read_checked(&mut self, buf: &mut [u8]) -> Result<()> {
        self.source.read_exact_at(buf, self.next)?;
        match &mut self.check {
            Check::Pages(table) => {
                let first = self.next / PAGE_LEN as u64;
                for (i, page) in buf.chunks(PAGE_LEN).enumerate() {
                    table.check(first + i as u64, page)?;
                }
            }
            Check::Whole(running) => running.update(buf),
        }
        self.next += buf.len() as u64;
        Ok(())
    }

    /// Appends the next `count` little-endian words of the payload at the
    /// reader's position to `out` (whose allocation, and so its alignment,
    /// the caller chose), reading the file past the head in chunks, and
    /// moves the reader past them. The count is checked against the bytes
    /// that remain before anything is allocated. The words of a payload are
    /// read once, in order: nothing past them is read from the reader.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when fewer than `count` words remain;
    /// [`Error::AllocationFailed`]; [`Error::Io`] and
    /// [`Error::ChecksumMismatch`] for bytes that cannot be read or are not
    /// as written.
    pub fn words_into(
        &mut self,
        r: &mut Reader<'_>,
        count: u64,
        what: &str,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        let rest = r.remaining() as u64;
        if count > rest / 8 {
            return Err(Error::corrupt(format!(
                "{what} claims {count} words, the payload has {rest} bytes"
            )));
        }
        out.try_reserve_exact(count as usize)
            .map_err(|_| Error::AllocationFailed {
                bytes: count as usize * 8,
            })?;
        let start = r.pos as u64;
        let end = start + 8 * count;
        let mut sink = WordSink {
            out,
            carry: [0; 8],
            held: 0,
        };
        if start < self.head_len {
            sink.push(&r.body[start as usize..end.min(self.head_len) as usize]);
        }
        if end > self.head_len {
            if start.max(self.head_len) != self.next {
                return Err(Error::corrupt(format!(
                    "{what} do not follow the bytes read before them"
                )));
            }
            // A whole number of pages, so every chunk ends on a page's end.
            let wanted = (end - self.next).next_multiple_of(PAGE_LEN as u64);
            let mut buf = vec![0u8; CHUNK_LEN.min(usize::try_from(wanted).unwrap_or(CHUNK_LEN))];
            while self.next < end {
                let from = self.next;
                // Whole pages for a paged file, so each can be checked.
                let stop = match self.check {
                    Check::Pages(_) => end.next_multiple_of(PAGE_LEN as u64),
                    Check::Whole(_) => end,
                }
                .min(self.data_len)
                .min(from + buf.len() as u64);
                let len = (stop - from) as usize;
                self.read_checked(&mut buf[..len])?;
                sink.push(&buf[..(end.min(stop) - from) as usize]);
            }
        }
        r.pos = end as usize;
        Ok(())
    }

    /// [`words_into`](Self::words_into) a new vector.
    ///
    /// # Errors
    /// As [`words_into`](Self::words_into).
    pub fn words(&mut self, r: &mut Reader<'_>, count: u64, what: &str) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        self.words_into(r, count, what, &mut out)?;
        Ok(out)
    }

    /// Reads and checks whatever of the data is left, then (versions 1 to
    /// 3) the file's checksum.
    fn finish(mut self) -> Result<()> {
        let mut buf = Vec::new();
        while self.next < self.data_len {
            let len = CHUNK_LEN.min((self.data_len - self.next) as usize);
            buf.resize(len, 0);
            self.read_checked(&mut buf)?;
        }
        if let Check::Whole(running) = self.check {
            let mut tail = [0u8; CHECKSUM_LEN];
            self.source.read_exact_at(&mut tail, self.data_len)?;
            let stored = u64::from_le_bytes(tail);
            let computed = running.finish();
            if stored != computed {
                return Err(Error::ChecksumMismatch { stored, computed });
            }
        }
        Ok(())
    }
}

/// Loads the saved filter of variant `expected` from the file of `total`
/// bytes that `source` reads: `parse` reads the parameters from the reader
/// and the payload's words through the [`Payload`]; what it returns is
/// given back only once every byte of the file was read and checked.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Writer, load_streamed, tag};
/// use approxset::HashKey;
/// let mut w = Writer::new(tag::CLASSIC, HashKey::from_seed(1), 0);
/// w.u64(3).words(&[7, 8, 9]);
/// let bytes = w.finish();
/// let words = load_streamed(&bytes, bytes.len() as u64, tag::CLASSIC, |mut r, payload| {
///     let count = r.u64("count")?;
///     let words = payload.words(&mut r, count, "words")?;
///     r.finish()?;
///     Ok(words)
/// })?;
/// assert_eq!(words, [7, 8, 9]);
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// The envelope errors of [`Reader::open`] (a file shorter or longer than
/// its header says is [`Error::Truncated`] or [`Error::TrailingBytes`]);
/// [`Error::Io`] from the source; [`Error::ChecksumMismatch`] for bytes
/// that are not as written; whatever `parse` returns.
pub fn load_streamed<T>(
    source: &dyn PageRead,
    total: u64,
    expected: u8,
    parse: impl FnOnce(Reader<'_>, &mut Payload<'_>) -> Result<T>,
) -> Result<T> {
    let (mut payload, head, header) = Payload::open(source, total)?;
    let data_len = usize::try_from(payload.data_len)
        .map_err(|_| Error::corrupt("the data does not fit this platform"))?;
    let reader = Reader::with_header(&head, &head, data_len, header)?.expect_variant(expected)?;
    let parsed = parse(reader, &mut payload);
    // Damage is reported as damage, whatever the parser made of it.
    payload.finish()?;
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HashKey;
    use crate::format::{Writer, tag};

    /// A classic-tagged file of `count` words after a one-word parameter,
    /// in format version `version` (4, or an older one resealed whole).
    fn file(count: u64) -> (Vec<u8>, Vec<u64>) {
        let words: Vec<u64> = (0..count).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let mut w = Writer::new(tag::CLASSIC, HashKey::from_seed(7), 0);
        w.u64(count).words(&words);
        (w.finish(), words)
    }

    fn load(bytes: &[u8]) -> Result<Vec<u64>> {
        load_streamed(
            &bytes.to_vec(),
            bytes.len() as u64,
            tag::CLASSIC,
            |mut r, payload| {
                let count = r.u64("count")?;
                let words = payload.words(&mut r, count, "words")?;
                r.finish()?;
                Ok(words)
            },
        )
    }

    #[test]
    fn words_come_back_across_the_head_and_chunks() {
        // Small (inside the head), at the head's edge, and over two chunks.
        for count in [0, 1, 10, 8186, 8187, 8188, 300_000] {
            let (bytes, words) = file(count);
            assert_eq!(load(&bytes).unwrap(), words, "{count} words");
        }
    }

    #[test]
    fn a_flipped_bit_anywhere_is_refused() {
        let (bytes, _) = file(20_000);
        for at in [
            0,
            20,
            40,
            5000,
            70_000,
            150_000,
            bytes.len() - 100,
            bytes.len() - 1,
        ] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 4;
            assert!(load(&damaged).is_err(), "byte {at}");
        }
        // A short or long source is an error too.
        assert!(
            load_streamed(&bytes, bytes.len() as u64 - 1, tag::CLASSIC, |_, _| Ok(())).is_err()
        );
        assert!(matches!(
            load_streamed(
                &bytes[..100].to_vec(),
                bytes.len() as u64,
                tag::CLASSIC,
                |_, _| Ok(())
            ),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn the_wrong_variant_or_a_bad_count_is_refused() {
        let (bytes, _) = file(10);
        assert!(matches!(
            load_streamed(&bytes, bytes.len() as u64, tag::CUCKOO, |_, _| Ok(())),
            Err(Error::WrongVariant { .. })
        ));
        let e = load_streamed(&bytes, bytes.len() as u64, tag::CLASSIC, |mut r, p| {
            r.u64("count")?;
            p.words(&mut r, 11, "words")
        })
        .unwrap_err();
        assert!(matches!(e, Error::Corrupt { .. }), "{e}");
    }

    #[test]
    fn an_old_version_is_checked_whole_as_it_streams() {
        // Version 3 ends with one checksum of the whole file.
        let (bytes, words) = file(200_000);
        let data_len = crate::format::PageLayout::from_total(bytes.len() as u64)
            .unwrap()
            .data_len();
        let mut old = bytes[..data_len as usize].to_vec();
        old[4..6].copy_from_slice(&3u16.to_le_bytes());
        let total = (old.len() + CHECKSUM_LEN) as u64;
        old[8..16].copy_from_slice(&total.to_le_bytes());
        let sum = crate::format::checksum(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(load(&old).unwrap(), words);
        for at in [30, 100_000, old.len() - 3] {
            let mut damaged = old.clone();
            damaged[at] ^= 1;
            assert!(load(&damaged).is_err(), "byte {at}");
        }
    }
}
