//! `approxset query`: keys looked up in a saved filter, with one answer
//! per key (`answers`): present (maybe) or absent (certainly).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input (the library's `contains("line")`). Answers to keys typed at a
//! terminal come as the keys do.
//!
//! The filter file is opened in place (`files::map_filter`, a read-only
//! memory map of a regular file, viewed with `approxset::view`): only the
//! pages the keys touch are read, and everything but the checksum is
//! checked; `--verify` checks the checksum too, reading the file once.
//!
//! With `--quiet` nothing is printed and the exit code answers, as with
//! `grep -q`: 0 when every key may be present, [`EXIT_ABSENT`] (3) when a
//! key is certainly absent; errors keep their codes 1 and 2.
//!
//! A file Spark's `BloomFilter.writeTo` wrote (recognised by its first
//! four bytes) is answered as Spark's `mightContain` (`crate::spark`),
//! its keys hashed as `--spark-keys` says.
//!
//! With the cargo feature `parquet`, `--parquet FILE --column NAME` asks
//! the bloom filters a Parquet file stores for a column instead, one
//! answer per row group (`crate::parquet`).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::answers::{Answers, key_string, word};
use crate::{CliError, files, keys};

/// The exit code of `query --quiet` when a key is certainly absent: not 1
/// or 2, which stay the error codes.
pub(crate) const EXIT_ABSENT: u8 = 3;

/// The `--parquet` example of `approxset query --help`, with the feature.
#[cfg(feature = "parquet")]
macro_rules! parquet_example {
    () => {
        "\n  approxset query --parquet events.parquet --column user_id 42 1000"
    };
}

/// No `--parquet` example without the feature.
#[cfg(not(feature = "parquet"))]
macro_rules! parquet_example {
    () => {
        ""
    };
}

/// Examples shown by `approxset query --help`.
pub(crate) const EXAMPLES: &str = concat!(
    crate::keys_note!(),
    "

Exit codes: 0 answered (with --quiet: every key may be present); 3 with \
--quiet: a key is certainly absent; 1 failure (unreadable or damaged filter \
file); 2 bad usage.

Examples:
  approxset query --filter words.bin apple pear zzyzx
  approxset query --filter words.bin --json apple
  approxset query --filter words.bin < candidates.txt
  approxset query --filter downloaded.bin --verify apple
  approxset query --filter words.bin -- -leading-dash
  if approxset query --filter words.bin --quiet apple; then echo maybe; fi
  approxset query --filter hour.bin --tick 1700003600 alice
  approxset query --filter spark-ids.bf --spark-keys long 42 1000",
    parquet_example!()
);

/// The options of `approxset query`.
#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    /// The filter file, written by `approxset build`. Read without a lock:
    /// a concurrent `build`, `add` or `remove` replaces it whole, so the
    /// old file or the new one is read, never a mix.
    #[arg(long, value_name = "FILTER")]
    #[cfg_attr(feature = "parquet", arg(required_unless_present = "parquet"))]
    #[cfg_attr(not(feature = "parquet"), arg(required = true))]
    filter: Option<PathBuf>,

    #[cfg(feature = "parquet")]
    #[command(flatten)]
    parquet: crate::parquet::ParquetArgs,

    #[command(flatten)]
    keys: keys::KeyArgs,

    #[command(flatten)]
    limit: files::StreamLimit,

    /// Check the filter file's checksum before answering (reading the whole
    /// file once). Without it the filter is opened in place through a
    /// memory map and only the pages the keys touch are read: a file
    /// written by `approxset` needs no check, a file from elsewhere does.
    #[arg(long)]
    verify: bool,

    #[arg(long, value_name = "N", requires = "filter", help = crate::sliding::QUERY_TICK_HELP)]
    tick: Option<u64>,

    #[arg(long, value_enum, value_name = "TYPE", help = crate::spark::SPARK_KEYS_HELP)]
    spark_keys: Option<crate::spark::SparkKeys>,

    /// Print nothing; answer with the exit code, as `grep -q` does: 0 when
    /// every key may be present, 3 when any key is certainly absent (1 and
    /// 2 stay the error codes). Every key is read, from standard input too.
    #[arg(short, long, conflicts_with = "json")]
    quiet: bool,
}

/// One key's answer to `query`.
#[derive(Debug, Serialize)]
pub(crate) struct QueryRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether the filter may hold it (`false`: certainly not).
    present: bool,
}

impl QueryRow {
    /// The answer `present` for `key`.
    pub(crate) fn new(key: String, present: bool) -> Self {
        QueryRow { key, present }
    }
}

/// Runs `approxset query`; returns the exit code. It does not depend on
/// the answers but with `--quiet`: then 0 when every key may be present,
/// [`EXIT_ABSENT`] when one is certainly absent.
pub(crate) fn run(args: &QueryArgs, json: bool) -> Result<u8, CliError> {
    #[cfg(feature = "parquet")]
    if let (Some(path), Some(column)) = (&args.parquet.parquet, &args.parquet.column) {
        return crate::parquet::query(path, column, &args.keys, args.quiet, json);
    }
    let path = args
        .filter
        .as_ref()
        .ok_or_else(|| CliError::usage("query needs --filter FILTER"))?;
    let access = if args.verify {
        files::Access::Sequential
    } else {
        files::Access::Random
    };
    let bytes = files::map_filter(path, args.limit, access)?;
    if crate::spark::is_spark(&bytes) {
        if args.tick.is_some() {
            return Err(CliError::usage(
                "--tick applies to a sliding filter, not to a Spark filter",
            ));
        }
        let how = args.spark_keys.unwrap_or_default();
        return crate::spark::query(path, &bytes, &args.keys, how, args.quiet, json);
    }
    if args.spark_keys.is_some() {
        return Err(CliError::usage(format!(
            "--spark-keys applies to a Spark filter file; '{}' is not one",
            path.display()
        )));
    }
    let filter = match args.tick {
        None => files::open_filter(path, &bytes, args.verify)?,
        // Loaded whole (its checksum checked) and moved to the tick in
        // memory; the file is not changed.
        Some(tick) => Box::new(crate::sliding::load_at(path, &bytes, tick)?),
    };
    if args.quiet {
        let mut all_present = true;
        args.keys.for_each(|key| {
            all_present &= filter.contains_bytes(key);
            Ok(())
        })?;
        return Ok(if all_present { 0 } else { EXIT_ABSENT });
    }
    let mut answers = Answers::new(args.keys.read_stdin());
    let mut rows = Vec::new();
    args.keys.for_each(|key| {
        let present = filter.contains_bytes(key);
        if json {
            rows.push(QueryRow {
                key: key_string(key),
                present,
            });
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
