//! Apache Spark's Bloom filter files (`BloomFilter.writeTo`): `query` and
//! `info` recognise one by its first four bytes (a big-endian version
//! number 1 or 2, where an approxset file has its magic), and `build
//! --spark` writes one that Spark's `BloomFilter.readFrom` reads.
//!
//! Spark hashes a long as a long and a string as its UTF-8 bytes, and the
//! file does not say which the filter holds: `--spark-keys long` reads each
//! key as a decimal integer (Spark's `putLong` / `mightContainLong`; ints,
//! shorts and bytes are longs to Spark), `--spark-keys string` (the
//! default) takes each key's bytes (`putString` of its UTF-8, or
//! `putBinary`).

use std::path::Path;

use approxset::spark::SparkBloomFilter;
use serde::Serialize;

use crate::answers::{Answers, key_string, word};
use crate::answers::{EXIT_ABSENT, QueryRow};
use crate::error::CliError;
use crate::output::{self, Record};
use crate::{files, keys};

/// How the keys of a Spark filter are hashed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SparkKeys {
    /// Each key's bytes (Spark's putString / putBinary).
    #[default]
    String,
    /// Each key a decimal integer, hashed as Spark hashes a long.
    Long,
}

/// The help of `--spark-keys`.
pub(crate) const SPARK_KEYS_HELP: &str = "How keys are hashed in a Spark filter (a file Spark's \
     BloomFilter.writeTo wrote, or build --spark): `string`, each key's bytes (Spark's \
     putString of UTF-8, or putBinary); `long`, each key a decimal integer (Spark's putLong; \
     Spark hashes int, short and byte columns as longs too) [default: string]";

impl SparkKeys {
    /// Whether `filter` may hold `key`.
    fn contains(self, filter: &SparkBloomFilter, key: &[u8]) -> Result<bool, CliError> {
        Ok(match self {
            SparkKeys::String => filter.might_contain_bytes(key),
            SparkKeys::Long => filter.might_contain_long(parse_long(key)?),
        })
    }

    /// Adds `key` to `filter`.
    fn put(self, filter: &mut SparkBloomFilter, key: &[u8]) -> Result<(), CliError> {
        match self {
            SparkKeys::String => filter.put_bytes(key),
            SparkKeys::Long => filter.put_long(parse_long(key)?),
        };
        Ok(())
    }
}

/// A key read as a decimal long.
fn parse_long(key: &[u8]) -> Result<i64, CliError> {
    std::str::from_utf8(key)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| {
            CliError::usage(format!(
                "invalid key {} for --spark-keys long: not a decimal integer in the range of a long",
                keys::shown(key)
            ))
        })
}

/// Whether `bytes` hold a Spark filter rather than an approxset file.
pub(crate) fn is_spark(bytes: &[u8]) -> bool {
    SparkBloomFilter::is_spark(bytes)
}

/// The bytes of `path` when it is a regular file holding a Spark filter
/// (told by its first bytes), read whole; `None` for anything else, which
/// is then read as an approxset filter.
///
/// # Errors
/// A failure naming the file when it cannot be read.
pub(crate) fn read_if_spark(path: &Path) -> Result<Option<Vec<u8>>, CliError> {
    use std::io::Read;
    let cannot =
        |e: &std::io::Error| CliError::io(format_args!("cannot read '{}'", path.display()), e);
    // Only a regular file, told by its path: opening a FIFO here would
    // take its one writer from the read that follows.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let mut head = Vec::new();
    (&mut file)
        .take(8)
        .read_to_end(&mut head)
        .map_err(|e| cannot(&e))?;
    if !is_spark(&head) {
        return Ok(None);
    }
    let mut bytes = head;
    file.read_to_end(&mut bytes).map_err(|e| cannot(&e))?;
    Ok(Some(bytes))
}

/// The Spark filter in `bytes` read from `path`.
fn open(path: &Path, bytes: &[u8]) -> Result<SparkBloomFilter, CliError> {
    SparkBloomFilter::from_bytes(bytes).map_err(|e| {
        CliError::failure(format!(
            "cannot load '{}' as a Spark bloom filter: {e}",
            path.display()
        ))
    })
}

/// `approxset query` on a Spark filter file: one answer per key, or the
/// exit code with `quiet`.
pub(crate) fn query(
    path: &Path,
    bytes: &[u8],
    keys: &keys::KeyArgs,
    how: SparkKeys,
    quiet: bool,
    json: bool,
) -> Result<u8, CliError> {
    let filter = open(path, bytes)?;
    if quiet {
        let mut all_present = true;
        keys.for_each(|key| {
            all_present &= how.contains(&filter, key)?;
            Ok(())
        })?;
        return Ok(if all_present { 0 } else { EXIT_ABSENT });
    }
    let mut answers = Answers::new(keys.read_stdin());
    let mut rows = Vec::new();
    keys.for_each(|key| {
        let present = how.contains(&filter, key)?;
        if json {
            rows.push(QueryRow::new(key_string(key), present));
            Ok(())
        } else {
            answers.line(key, word(present, "present", "absent"))
        }
    })?;
    if json {
        answers.json(&rows)?;
    }
    answers.finish()?;
    Ok(0)
}

/// What a Spark filter file holds: the JSON object and the human lines.
#[derive(Debug, Serialize)]
struct SparkInfo {
    /// The filter file.
    file: String,
    /// Always `spark`.
    variant: &'static str,
    /// Spark's format version (1 or 2).
    spark_version: i32,
    /// Hash functions (k).
    hashes: u32,
    /// The Murmur3 seed (0 in version 1).
    seed: i32,
    /// Bits (a multiple of 64).
    bits: u64,
    /// Bits set.
    ones: u64,
    /// Spark's expectedFpp: (bits set / bits)^k.
    estimated_fp: f64,
    /// Bytes of filter data in memory.
    bytes: u64,
    /// Bytes of the file.
    file_bytes: u64,
}

impl Record for SparkInfo {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("file", self.file.clone()),
            ("variant", "spark (Apache Spark's BloomFilter)".to_owned()),
            ("spark version", self.spark_version.to_string()),
            ("hashes", output::count(u64::from(self.hashes))),
            ("seed", self.seed.to_string()),
            ("bits", output::count(self.bits)),
            ("bits set", output::count(self.ones)),
            ("estimated FP", output::rate(self.estimated_fp)),
            ("memory", output::bytes(self.bytes)),
            ("file size", output::bytes_exact(self.file_bytes)),
        ]
    }
}

/// `approxset info` on a Spark filter file.
pub(crate) fn info(path: &Path, bytes: &[u8], json: bool) -> Result<(), CliError> {
    let f = open(path, bytes)?;
    SparkInfo {
        file: path.display().to_string(),
        variant: "spark",
        spark_version: f.version().number(),
        hashes: f.num_hash_functions(),
        seed: f.seed(),
        bits: f.bit_size(),
        ones: f.cardinality(),
        estimated_fp: f.expected_fpp(),
        bytes: f.memory_bytes() as u64,
        file_bytes: bytes.len() as u64,
    }
    .print(json)
}

/// What `build --spark` wrote.
#[derive(Debug, Serialize)]
struct SparkBuilt {
    /// Always `spark`.
    variant: &'static str,
    /// Spark's format version (2).
    spark_version: i32,
    /// Keys read and put.
    keys: u64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate it was sized for.
    target_fp: f64,
    /// Spark's expectedFpp after the keys.
    estimated_fp: f64,
    /// Hash functions (k).
    hashes: u32,
    /// Bits.
    bits: u64,
    /// Bytes written.
    file_bytes: u64,
    /// The filter file.
    output: String,
}

impl Record for SparkBuilt {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("variant", "spark (Apache Spark's BloomFilter)".to_owned()),
            ("spark version", self.spark_version.to_string()),
            ("keys read", output::count(self.keys)),
            ("capacity", output::count(self.capacity)),
            ("target FP", output::rate(self.target_fp)),
            ("estimated FP", output::rate(self.estimated_fp)),
            ("hashes", output::count(u64::from(self.hashes))),
            ("bits", output::count(self.bits)),
            ("written", output::bytes_exact(self.file_bytes)),
            ("output", self.output.clone()),
        ]
    }
}

/// `approxset build --spark`: the keys of `data` put into a filter sized
/// as Spark's `BloomFilter.create(capacity, fp)` sizes it (version 2, seed
/// 0), written to `output`.
pub(crate) fn build<'a>(
    keys: impl Iterator<Item = &'a [u8]>,
    capacity: usize,
    fp: f64,
    how: SparkKeys,
    output: &Path,
    json: bool,
) -> Result<(), CliError> {
    let mut filter = SparkBloomFilter::with_capacity(capacity as u64, fp)
        .map_err(|e| CliError::failure(format!("cannot build '{}': {e}", output.display())))?;
    let mut count = 0u64;
    for key in keys {
        how.put(&mut filter, key)?;
        count += 1;
    }
    let bytes = filter.to_bytes();
    files::replace_locked(output, &bytes, "filter")?;
    SparkBuilt {
        variant: "spark",
        spark_version: filter.version().number(),
        keys: count,
        capacity: capacity as u64,
        target_fp: fp,
        estimated_fp: filter.expected_fpp(),
        hashes: filter.num_hash_functions(),
        bits: filter.bit_size(),
        file_bytes: bytes.len() as u64,
        output: output.display().to_string(),
    }
    .print(json)
}
