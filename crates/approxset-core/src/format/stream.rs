//! Reading one serialized filter from a stream, bounded by its header and
//! by a limit the caller sets.

use std::io::Read;

use super::{CHECKSUM_LEN, HEADER_LEN, Header, Reader};
use crate::error::{Error, Result};

/// The largest filter [`read_all`] accepts from a stream: 1 TiB. A header
/// announcing more is refused with [`Error::TooLarge`] before anything is
/// read; use [`read_all_limited`] to set a tighter bound for untrusted input.
pub const DEFAULT_READ_LIMIT: u64 = 1 << 40;

/// Bytes of the header that [`read_all_limited`] checks before reading on:
/// magic, version, variant tag, hash function and the total length.
const PREFIX_LEN: usize = 16;

/// Checks the first 16 bytes of a serialized filter (the [`Header`], its
/// tag and hash function, and the announced length against `max_bytes`) and returns
/// the announced total length.
fn check_prefix(head: &[u8; PREFIX_LEN], max_bytes: u64) -> Result<u64> {
    let header = Header::parse(head)?;
    header.check_tag_and_hash()?;
    let total = header.total_len();
    let limit = max_bytes.min(usize::MAX as u64);
    if total > limit {
        return Err(Error::TooLarge {
            needed: u128::from(total),
            limit: u128::from(limit),
        });
    }
    Ok(total)
}

/// Reads one serialized filter from `reader`, at most
/// [`DEFAULT_READ_LIMIT`] bytes; see [`read_all_limited`].
///
/// # Errors
/// As [`read_all_limited`].
pub fn read_all<R: Read>(reader: R) -> Result<Vec<u8>> {
    read_all_limited(reader, DEFAULT_READ_LIMIT)
}

/// Reads one serialized filter from `reader`: the first 16 bytes, which are
/// checked at once (magic, version, variant tag, hash function, and the announced
/// length against `max_bytes`), then exactly the announced length and not a
/// byte more, so the rest of the stream stays with the caller. Memory grows
/// with the bytes actually received, so a header announcing a huge length
/// over a short stream costs little.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::{Error, format};
/// // An endless stream of zeros fails after the first 16 bytes.
/// let err = format::read_all_limited(std::io::repeat(0), 1 << 20).unwrap_err();
/// assert!(matches!(err, Error::BadMagic { .. }));
/// ```
///
/// # Errors
/// [`Error::Io`] from the reader; [`Error::Truncated`] when the stream ends
/// early; [`Error::BadMagic`], [`Error::UnsupportedVersion`],
/// [`Error::Corrupt`] (hash function, a length shorter than a header),
/// [`Error::UnknownVariant`] from the first 16 bytes; [`Error::TooLarge`]
/// when the announced length passes `max_bytes` (or this platform's
/// address space).
pub fn read_all_limited<R: Read>(mut reader: R, max_bytes: u64) -> Result<Vec<u8>> {
    let mut head = [0u8; PREFIX_LEN];
    let got = read_up_to(&mut reader, &mut head)?;
    if got < head.len() {
        // Let the envelope check explain short or foreign input (it always
        // fails on fewer than 16 bytes).
        return Err(Reader::open(&head[..got])
            .err()
            .unwrap_or(Error::Truncated {
                needed: (HEADER_LEN + CHECKSUM_LEN) as u64,
                available: got as u64,
            }));
    }
    let total = check_prefix(&head, max_bytes)?;
    // Start small and grow with what arrives: the announced length is only a
    // claim until the bytes are there.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact((total as usize).min(1 << 16))
        .map_err(|_| Error::AllocationFailed { bytes: 1 << 16 })?;
    bytes.extend_from_slice(&head);
    reader.by_ref().take(total - 16).read_to_end(&mut bytes)?;
    if (bytes.len() as u64) < total {
        return Err(Error::Truncated {
            needed: total,
            available: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_up_to<R: Read>(reader: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tests::sample;

    #[test]
    fn read_all_stops_at_the_announced_length() {
        let mut stream = sample();
        let len = stream.len();
        stream.extend_from_slice(b"next record");
        let mut cursor = std::io::Cursor::new(stream);
        let got = read_all(&mut cursor).unwrap();
        assert_eq!(got.len(), len);
        assert!(Reader::open(&got).is_ok());
        assert_eq!(cursor.position() as usize, len);
        // A short stream is a clean error.
        assert!(matches!(
            read_all(std::io::Cursor::new(&sample()[..10])),
            Err(Error::Truncated { .. })
        ));
        assert!(matches!(
            read_all(std::io::Cursor::new(&sample()[..30])),
            Err(Error::Truncated { available: 30, .. })
        ));
    }

    /// A reader that counts the bytes taken from an inner reader.
    struct Counting<R> {
        inner: R,
        taken: u64,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken += n as u64;
            Ok(n)
        }
    }

    fn counted<R: Read>(inner: R) -> Counting<R> {
        Counting { inner, taken: 0 }
    }

    #[test]
    fn endless_foreign_streams_fail_after_one_header() {
        for byte in [0u8, 0xAB] {
            let mut stream = counted(std::io::repeat(byte));
            let err = read_all(&mut stream).unwrap_err();
            assert!(matches!(err, Error::BadMagic { .. }), "{err}");
            assert!(stream.taken <= (HEADER_LEN + CHECKSUM_LEN) as u64);
        }
        // The right magic, then garbage: the version is checked at once.
        let mut stream = counted(std::io::Cursor::new(b"APXS").chain(std::io::repeat(0xAB)));
        let err = read_all(&mut stream).unwrap_err();
        assert!(matches!(err, Error::UnsupportedVersion { .. }), "{err}");
        assert!(stream.taken <= (HEADER_LEN + CHECKSUM_LEN) as u64);
    }

    /// The first 16 bytes of a valid header announcing `total` bytes.
    fn announcing(total: u64) -> Vec<u8> {
        let mut head = sample()[..16].to_vec();
        head[8..16].copy_from_slice(&total.to_le_bytes());
        head
    }

    #[test]
    fn announced_lengths_are_bounded() {
        // Above the default limit: refused before reading on.
        let mut stream =
            counted(std::io::Cursor::new(announcing(1 << 60)).chain(std::io::repeat(0)));
        let err = read_all(&mut stream).unwrap_err();
        assert!(
            matches!(err, Error::TooLarge { needed, .. } if needed == 1 << 60),
            "{err}"
        );
        assert_eq!(stream.taken, 16);
        // Above a caller's limit, even if the bytes would follow.
        let bytes = sample();
        let limit = bytes.len() as u64 - 1;
        assert!(matches!(
            read_all_limited(std::io::Cursor::new(&bytes), limit),
            Err(Error::TooLarge { .. })
        ));
        assert_eq!(
            read_all_limited(std::io::Cursor::new(&bytes), limit + 1).unwrap(),
            bytes
        );
        // Under the limit but over a short stream: truncated, with memory
        // that grew only with the bytes received.
        let stream = std::io::Cursor::new(announcing(1 << 39)).chain(std::io::repeat(0).take(1000));
        assert_eq!(
            read_all(stream).unwrap_err(),
            Error::Truncated {
                needed: 1 << 39,
                available: 1016
            }
        );
        // Flags and tags are checked before the body is read.
        let mut flagged = announcing(1 << 39);
        flagged[7] = 99;
        assert!(matches!(
            read_all(std::io::Cursor::new(flagged).chain(std::io::repeat(0))),
            Err(Error::Corrupt { .. })
        ));
        let mut unknown = announcing(1 << 39);
        unknown[6] = 200;
        assert_eq!(
            read_all(std::io::Cursor::new(unknown).chain(std::io::repeat(0))).unwrap_err(),
            Error::UnknownVariant { tag: 200 }
        );
    }
}
