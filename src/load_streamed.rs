//! Loading a saved filter of any variant from a file without a copy of the
//! file: the variants whose files are streamed
//! ([`Variant::is_streamed`](crate::Variant::is_streamed)) fill their words
//! from the file in bounded chunks; the others read the file whole first.

use approxset_bloom::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, PartitionedBloomFilter,
    SplitBlockBloomFilter,
};
use approxset_core::format::{Header, PageRead, tag};
use approxset_core::{ApproxSet, Deletable, Error, Result};
use approxset_cuckoo::CuckooFilter;

use crate::Variant;

/// The variant a file's first bytes name, when it is streamed.
fn streamed_tag(source: &dyn PageRead, total: u64) -> Option<u8> {
    let mut head = [0u8; 16];
    if total < head.len() as u64 || source.read_exact_at(&mut head, 0).is_err() {
        return None;
    }
    let header = Header::parse(&head).ok()?;
    let variant: Variant = header.variant()?.parse().ok()?;
    variant.is_streamed().then_some(header.tag())
}

/// The whole file of `total` bytes that `source` reads.
fn read_whole(source: &dyn PageRead, total: u64) -> Result<Vec<u8>> {
    let len = usize::try_from(total).map_err(|_| Error::TooLarge {
        needed: u128::from(total),
        limit: usize::MAX as u128,
    })?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len)
        .map_err(|_| Error::AllocationFailed { bytes: len })?;
    bytes.resize(len, 0);
    source.read_exact_at(&mut bytes, 0)?;
    Ok(bytes)
}

/// [`load`](crate::load) of the file of `total` bytes that `source` reads
/// (a [`std::fs::File`] and its length), with no copy of the file held for
/// a streamed variant: its words are filled from the file in chunks of
/// [`CHUNK_LEN`](approxset_core::format::CHUNK_LEN), and every byte is
/// checked against the file's checksums before the filter is returned.
///
/// ```
/// use approxset::Variant;
/// let mut f = Variant::Cuckoo.builder().seed(1).build(1000, 0.01)?;
/// f.insert("alice")?;
/// let bytes = f.to_bytes()?;
/// let g = approxset::load_streamed(&bytes, bytes.len() as u64)?;
/// assert!(g.contains("alice"));
/// # Ok::<(), approxset::Error>(())
/// ```
///
/// # Errors
/// As [`load`](crate::load), and [`Error::Io`] from the source (a file
/// shorter than `total`).
pub fn load_streamed(
    source: &dyn PageRead,
    total: u64,
) -> Result<Box<dyn ApproxSet + Send + Sync>> {
    Ok(match streamed_tag(source, total) {
        Some(tag::CLASSIC) => Box::new(BloomFilter::load_streamed(source, total)?),
        Some(tag::PARTITIONED) => Box::new(PartitionedBloomFilter::load_streamed(source, total)?),
        Some(tag::BLOCKED) => Box::new(BlockedBloomFilter::load_streamed(source, total)?),
        Some(tag::SPLIT_BLOCK) => Box::new(SplitBlockBloomFilter::load_streamed(source, total)?),
        Some(tag::COUNTING) => Box::new(CountingBloomFilter::load_streamed(source, total)?),
        Some(tag::CUCKOO) => Box::new(CuckooFilter::load_streamed(source, total)?),
        _ => return crate::load(&read_whole(source, total)?),
    })
}

/// [`load_deletable`](crate::load_deletable) of the file of `total` bytes
/// that `source` reads, streamed as [`load_streamed`] streams.
///
/// # Errors
/// As [`load_deletable`](crate::load_deletable), and [`Error::Io`] from
/// the source.
pub fn load_deletable_streamed(
    source: &dyn PageRead,
    total: u64,
) -> Result<Box<dyn Deletable + Send + Sync>> {
    Ok(match streamed_tag(source, total) {
        Some(tag::COUNTING) => Box::new(CountingBloomFilter::load_streamed(source, total)?),
        Some(tag::CUCKOO) => Box::new(CuckooFilter::load_streamed(source, total)?),
        _ => return crate::load_deletable(&read_whole(source, total)?),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Bytes read through positioned reads, recording the largest read.
    struct Recorded {
        bytes: Vec<u8>,
        largest: AtomicUsize,
    }

    impl PageRead for Recorded {
        fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
            self.largest.fetch_max(buf.len(), Ordering::Relaxed);
            self.bytes.read_exact_at(buf, offset)
        }
    }

    /// A sink that records the bytes written and the largest single write.
    #[derive(Default)]
    struct LargestWrite {
        total: usize,
        largest: usize,
    }

    impl std::io::Write for LargestWrite {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.total += buf.len();
            self.largest = self.largest.max(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn exactly_the_streamed_variants_save_and_load_in_bounded_pieces() {
        let chunk = approxset_core::format::CHUNK_LEN;
        for variant in Variant::ALL {
            let n = 2_000_000;
            let mut f = match variant.builder().seed(5).build(n, 0.01) {
                Ok(f) => f,
                Err(Error::StaticFilter { .. }) => {
                    let keys: Vec<u64> = (0..1000).collect();
                    let f = variant.builder().seed(5).build_from(&keys, 0.01).unwrap();
                    let bytes = f.to_bytes().unwrap();
                    assert!(!variant.is_streamed(), "{variant}");
                    let e = load_streamed(&bytes, bytes.len() as u64).err().unwrap();
                    assert!(matches!(e, Error::StaticFilter { .. }), "{variant}: {e}");
                    continue;
                }
                Err(e) => panic!("{variant}: {e}"),
            };
            for i in 0..1000u64 {
                f.insert(&i).unwrap();
            }
            let bytes = f.to_bytes().unwrap();
            assert!(bytes.len() > 2 * chunk, "{variant}: {} bytes", bytes.len());
            // Saving streams too: no write of the whole file at once.
            let mut sink = LargestWrite::default();
            f.write_into(&mut sink).unwrap();
            assert_eq!(sink.total, bytes.len(), "{variant}");
            assert_eq!(
                sink.largest < bytes.len() / 2,
                variant.is_streamed(),
                "{variant}"
            );
            let total = bytes.len() as u64;
            let source = Recorded {
                bytes,
                largest: AtomicUsize::new(0),
            };
            let g = load_streamed(&source, total).unwrap();
            assert_eq!(g.to_bytes().unwrap(), source.bytes, "{variant}");
            assert!((0..1000u64).all(|i| g.contains(&i)), "{variant}");
            let largest = source.largest.load(Ordering::Relaxed);
            // The page table is read in one go: 8 bytes a page.
            let table = (total as usize).div_ceil(4096) * 8 + 8;
            assert_eq!(
                largest <= chunk.max(table),
                variant.is_streamed(),
                "{variant}: largest read {largest}"
            );
            assert_eq!(
                load_deletable_streamed(&source, total).is_ok(),
                variant.supports_delete(),
                "{variant}"
            );
        }
    }

    #[test]
    fn damage_and_short_files_are_refused() {
        let mut f = Variant::Counting
            .builder()
            .seed(5)
            .build(100_000, 0.01)
            .unwrap();
        f.insert("a").unwrap();
        let bytes = f.to_bytes().unwrap();
        let total = bytes.len() as u64;
        for at in [3, 40, 100, 300_000, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(load_streamed(&damaged, total).is_err(), "byte {at}");
        }
        let short = bytes[..bytes.len() - 10].to_vec();
        assert!(load_streamed(&short, total).is_err());
        assert!(load_streamed(&bytes, total + 1).is_err());
        assert!(load_streamed(&Vec::new(), 0).is_err());
    }
}
