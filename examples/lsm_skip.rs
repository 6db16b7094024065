//! Per-file filters in a toy LSM store: several sorted runs on disk, each
//! with a filter in the library's format, all the filters saved one after
//! another in one file (as a store keeps them in a table's filter block or
//! a manifest). At start-up the store reads that file once and opens each
//! run's filter as a view of its slice (`approxset::view_verified`): no
//! copy, no parse of the bits, the filters answering from the one buffer.
//! A point read looks in the runs from newest to oldest and skips every
//! run whose filter says the key is certainly absent, so reads of absent
//! keys touch almost no file. It counts the block reads avoided and times
//! reads with and without the filters.
//!
//! The filters follow RocksDB's per-level choice: the newest runs (level
//! 0, flushed often, soon compacted away) get a Bloom filter, cheap to
//! build; the older, larger, cold runs (levels 1 and on, written once by
//! compaction and kept long) get a Ribbon filter, which takes about 30 %
//! less memory at the same rate for a few times the build time. It prints
//! what each kind cost and the memory saved against Bloom filters
//! everywhere.
//!
//! The store lives in a directory under `std::env::temp_dir()`, removed at
//! the end. The files are fresh, so the reads are served from the operating
//! system's page cache: the time saved here is system calls and copying; on
//! a cold disk each avoided read would save a device access as well.
//!
//! `cargo run --release --example lsm_skip`

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use approxset::hash::splitmix64;
use approxset::prelude::*;
use approxset::{BloomFilter, RibbonFilter, Variant};

const RUNS: usize = 8;
/// The newest runs (level 0): Bloom filters; the others: Ribbon filters.
const LEVEL0_RUNS: usize = 2;
const KEYS_PER_RUN: usize = 100_000;
const FP_RATE: f64 = 0.01;
/// A record: the key (8 bytes, big-endian so files sort as keys do) and a
/// value (8 bytes).
const RECORD: usize = 16;
/// Records per block: one block (4 KiB) is what one file read fetches.
const BLOCK_RECORDS: usize = 256;
const QUERIES: usize = 100_000;

/// The store's directory, removed when dropped (also on an early error).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One sorted run: its file, the first key of each block (the in-memory
/// index every LSM store keeps), and its filter, a view of its slice of the
/// filters file (a Bloom or a Ribbon filter: the view reads either).
struct Run<'f> {
    file: File,
    fences: Vec<u64>,
    records: usize,
    filter: Box<dyn Membership + Send + Sync + 'f>,
}

/// A run as written, before the filters file is read back, with what its
/// filter cost.
struct Written {
    data_path: PathBuf,
    fences: Vec<u64>,
    records: usize,
    filter_bytes: usize,
    filter_build: Duration,
}

/// The filter a run gets: a Bloom filter for level 0, a Ribbon filter for
/// the levels below.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Bloom,
    Ribbon,
}

/// What the reads cost.
#[derive(Default)]
struct Stats {
    block_reads: u64,
    skipped_by_filter: u64,
}

impl Written {
    /// Writes `records` (sorted by key), and appends the filter of `kind`
    /// over their keys to `filters` (the filters file).
    fn create(
        dir: &Path,
        id: usize,
        kind: Kind,
        records: &[(u64, u64)],
        filters: &mut impl Write,
    ) -> Result<Written, Box<dyn std::error::Error>> {
        let data_path = dir.join(format!("run-{id:03}.data"));
        let mut out = BufWriter::new(File::create(&data_path)?);
        for (key, value) in records {
            out.write_all(&key.to_be_bytes())?;
            out.write_all(&value.to_le_bytes())?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        let start = Instant::now();
        let bytes = match kind {
            Kind::Bloom => {
                let mut filter = BloomFilter::with_fp_rate(FP_RATE)
                    .seed(id as u64)
                    .expected_items(records.len())?;
                for (key, _) in records {
                    filter.insert(key)?;
                }
                filter.to_bytes()?
            }
            Kind::Ribbon => RibbonFilter::with_fp_rate(FP_RATE)
                .seed(id as u64)
                .build(records.iter().map(|r| r.0))?
                .to_bytes()?,
        };
        let filter_build = start.elapsed();
        filters.write_all(&bytes)?;
        let fences = records
            .chunks(BLOCK_RECORDS)
            .map(|block| block[0].0)
            .collect();
        Ok(Written {
            data_path,
            fences,
            records: records.len(),
            filter_bytes: bytes.len(),
            filter_build,
        })
    }

    /// Opens the run the way a store does at start-up, with `filter` (its
    /// slice of the filters file) as a view, checked once (the file came
    /// from disk).
    fn open(self, filter: &[u8]) -> Result<Run<'_>, Box<dyn std::error::Error>> {
        Ok(Run {
            file: File::open(&self.data_path)?,
            fences: self.fences,
            records: self.records,
            filter: approxset::view_verified(filter)?,
        })
    }
}

/// Opens every run over `filters`, the filters file's bytes: each filter
/// is cut from the rest by the total length in its header and viewed in
/// place.
fn open_runs(
    written: Vec<Written>,
    filters: &[u8],
) -> Result<Vec<Run<'_>>, Box<dyn std::error::Error>> {
    let mut rest = filters;
    let mut runs = Vec::with_capacity(written.len());
    for run in written {
        let (filter, after) = approxset::format::split_first(rest)?;
        rest = after;
        runs.push(run.open(filter)?);
    }
    assert!(rest.is_empty(), "one filter per run");
    Ok(runs)
}

impl Run<'_> {
    /// The value of `key` in this run, reading at most one block; the filter
    /// is asked first when `use_filter` is set.
    fn get(
        &mut self,
        key: u64,
        use_filter: bool,
        stats: &mut Stats,
    ) -> std::io::Result<Option<u64>> {
        if use_filter && !self.filter.contains(&key) {
            stats.skipped_by_filter += 1;
            return Ok(None);
        }
        // The block whose first key is the last one <= key.
        let block = match self.fences.partition_point(|&first| first <= key) {
            0 => return Ok(None),
            i => i - 1,
        };
        let start = block * BLOCK_RECORDS;
        let count = BLOCK_RECORDS.min(self.records - start);
        let mut buf = [0u8; BLOCK_RECORDS * RECORD];
        let buf = &mut buf[..count * RECORD];
        self.file.seek(SeekFrom::Start((start * RECORD) as u64))?;
        self.file.read_exact(buf)?;
        stats.block_reads += 1;
        let record_key = |i: usize| u64::from_be_bytes(eight_bytes(buf, i * RECORD));
        // Binary search inside the block for the first record >= key.
        let (mut lo, mut hi) = (0, count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if record_key(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo < count && record_key(lo) == key {
            return Ok(Some(u64::from_le_bytes(eight_bytes(buf, lo * RECORD + 8))));
        }
        Ok(None)
    }
}

/// The eight bytes of `buf` at `offset`.
fn eight_bytes(buf: &[u8], offset: usize) -> [u8; 8] {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&buf[offset..offset + 8]);
    bytes
}

/// A point read over all runs, newest first.
fn get(
    runs: &mut [Run<'_>],
    key: u64,
    use_filter: bool,
    stats: &mut Stats,
) -> std::io::Result<Option<u64>> {
    for run in runs.iter_mut().rev() {
        if let Some(value) = run.get(key, use_filter, stats)? {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// Reads every key, returning the stats, the time and how many were found.
fn read_all(
    runs: &mut [Run<'_>],
    keys: &[u64],
    use_filter: bool,
) -> std::io::Result<(Stats, Duration, usize)> {
    let mut stats = Stats::default();
    let start = Instant::now();
    let mut found = 0;
    for &key in keys {
        found += usize::from(get(runs, key, use_filter, &mut stats)?.is_some());
    }
    Ok((stats, start.elapsed(), found))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir =
        TempDir(std::env::temp_dir().join(format!("approxset-lsm-skip-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0)?;

    // Stored keys are even, absent keys odd: no absent key is in any run.
    let mut rng = 11;
    let mut stored = Vec::with_capacity(RUNS * KEYS_PER_RUN);
    let mut written = Vec::with_capacity(RUNS);
    let filters_path = dir.0.join("filters.bin");
    let mut filters_out = BufWriter::new(File::create(&filters_path)?);
    let start = Instant::now();
    for id in 0..RUNS {
        let mut records: Vec<(u64, u64)> = (0..KEYS_PER_RUN)
            .map(|_| (splitmix64(&mut rng) & !1, splitmix64(&mut rng)))
            .collect();
        records.sort_unstable();
        records.dedup_by_key(|r| r.0);
        stored.extend(records.iter().map(|r| r.0));
        // The oldest runs are the large cold levels; the last are level 0.
        let kind = if id >= RUNS - LEVEL0_RUNS {
            Kind::Bloom
        } else {
            Kind::Ribbon
        };
        written.push(Written::create(
            &dir.0,
            id,
            kind,
            &records,
            &mut filters_out,
        )?);
    }
    filters_out
        .into_inner()
        .map_err(|e| e.into_error())?
        .sync_all()?;
    let written_in = start.elapsed();

    // What each kind of filter cost, and Bloom filters everywhere instead.
    let mut costs = [(0usize, 0usize, Duration::ZERO); 2];
    for (i, w) in written.iter().enumerate() {
        let level0 = usize::from(i >= RUNS - LEVEL0_RUNS);
        costs[level0].0 += w.records;
        costs[level0].1 += w.filter_bytes;
        costs[level0].2 += w.filter_build;
    }
    let all_bloom: u64 = written
        .iter()
        .map(|w| {
            Variant::Classic
                .design(w.records, FP_RATE)
                .map(|d| d.bytes())
        })
        .sum::<Result<u64, _>>()?;

    // Start-up: one read of the filters file, then a view of each slice.
    let start = Instant::now();
    let mut filters = Vec::new();
    BufReader::new(File::open(&filters_path)?).read_to_end(&mut filters)?;
    let mut runs = open_runs(written, &filters)?;
    let opened_in = start.elapsed();
    let data_bytes: u64 = runs.iter().map(|r| (r.records * RECORD) as u64).sum();
    let filter_bytes = filters.len();
    println!(
        "{RUNS} sorted runs of {KEYS_PER_RUN} keys in {} ({:.1} MB of data, {} B blocks), written in {:.0} ms",
        dir.0.display(),
        data_bytes as f64 / 1e6,
        BLOCK_RECORDS * RECORD,
        written_in.as_secs_f64() * 1e3
    );
    println!(
        "one filter per run at {:.0} % fp, all in one file: {filter_bytes} bytes ({:.2} bits/key, {:.2} % of the data)",
        100.0 * FP_RATE,
        filter_bytes as f64 * 8.0 / stored.len() as f64,
        100.0 * filter_bytes as f64 / data_bytes as f64
    );
    for ((keys, bytes, build), what) in costs.iter().zip([
        "levels 1+ (older, cold runs): Ribbon filters",
        "level 0 (newest runs):         Bloom filters ",
    ]) {
        println!(
            "  {what}: {:.2} bits/key, built in {:.0} ns/key",
            *bytes as f64 * 8.0 / *keys as f64,
            build.as_secs_f64() * 1e9 / *keys as f64
        );
    }
    println!(
        "  Bloom filters everywhere would take {all_bloom} bytes of bits: the Ribbon levels save {} bytes ({:.1} %) at the same rate",
        all_bloom as i64 - filter_bytes as i64,
        100.0 * (1.0 - filter_bytes as f64 / all_bloom as f64)
    );
    println!(
        "start-up: the filters file read once and {RUNS} views opened (checksums verified) in {:.2} ms\n",
        opened_in.as_secs_f64() * 1e3
    );

    let absent: Vec<u64> = (0..QUERIES).map(|_| splitmix64(&mut rng) | 1).collect();
    let present: Vec<u64> = (0..QUERIES)
        .map(|_| stored[(splitmix64(&mut rng) % stored.len() as u64) as usize])
        .collect();

    println!(
        "{:<16} {:<9} {:>8} {:>12} {:>14} {:>10} {:>11}",
        "reads", "filters", "found", "block reads", "runs skipped", "time ms", "µs/read"
    );
    for (label, keys) in [("absent keys", &absent), ("present keys", &present)] {
        // Warm the page cache once so both passes see the same files.
        read_all(&mut runs, keys, false)?;
        let mut without_reads = 0;
        for use_filter in [false, true] {
            let (stats, time, found) = read_all(&mut runs, keys, use_filter)?;
            println!(
                "{:<16} {:<9} {:>8} {:>12} {:>14} {:>10.1} {:>11.2}",
                label,
                if use_filter { "yes" } else { "no" },
                found,
                stats.block_reads,
                stats.skipped_by_filter,
                time.as_secs_f64() * 1e3,
                time.as_secs_f64() * 1e6 / keys.len() as f64
            );
            if use_filter {
                println!(
                    "{:<16} block reads avoided: {} of {} ({:.2} %)",
                    "",
                    without_reads - stats.block_reads,
                    without_reads,
                    100.0 * (without_reads - stats.block_reads) as f64 / without_reads as f64
                );
            } else {
                without_reads = stats.block_reads;
            }
        }
    }
    println!(
        "\nblock reads left for absent keys are the filters' false positives: \
         expected about {:.0} ({QUERIES} reads × {RUNS} runs × {FP_RATE})",
        QUERIES as f64 * RUNS as f64 * FP_RATE
    );
    drop(runs);
    let path = dir.0.clone();
    drop(dir);
    println!("removed {}: {}", path.display(), !path.exists());
    Ok(())
}
