//! `approxset query`: keys looked up in a saved filter, with one answer
//! per key (`answers`): present (maybe) or absent (certainly).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input (the library's `contains("line")`). Answers to keys typed at a
//! terminal come as the keys do.
//!
//! A filter file of format version 4 is read page by page
//! (`files::open_paged`, positioned reads): only the pages the keys touch
//! are read, and each is checked against the file's page table before a
//! byte of it is used, so a damaged, overwritten or truncated file is an
//! error (exit 1), never an answer; `--verify` checks every page first.
//! Older files, the variants without one flat payload and streams are
//! read whole and checked whole first.
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

use crate::answers::{Answers, EXIT_ABSENT, QueryRow, key_string, word};
use crate::error::CliError;
use crate::{files, keys};

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
    crate::keys::keys_note!(),
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

    /// Check every page of the filter file before answering (reading the
    /// whole file once). Without it only the pages the keys touch are
    /// read, each checked before it is used, so no answer ever comes from
    /// damaged bytes either way; --verify also finds damage elsewhere.
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
    if let Some(bytes) = crate::spark::read_if_spark(path)? {
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
    if args.tick.is_none()
        && let Some(paged) = files::open_paged(path)?
    {
        if args.verify {
            paged
                .verify_all()
                .map_err(|e| files::load_error(path, &e))?;
        }
        return answer(args, json, |key| {
            paged
                .contains_bytes(key)
                .map_err(|e| files::damaged(path, &e))
        });
    }
    // A file of an earlier version (one checksum for the whole), a variant
    // without a flat payload, or a stream: read whole and checked whole,
    // then answered from this copy.
    let bytes = files::read_filter(path, args.limit)?;
    let filter = match args.tick {
        None => files::open_filter(path, &bytes)?,
        // Loaded whole (its checksum checked) and moved to the tick in
        // memory; the file is not changed.
        Some(tick) => Box::new(crate::sliding::load_at(path, &bytes, tick)?),
    };
    answer(args, json, |key| Ok(filter.contains_bytes(key)))
}

/// Answers every key with `contains`, as `args` asks (quiet, JSON or
/// lines); the answers given before a failing lookup are printed before
/// its error.
fn answer(
    args: &QueryArgs,
    json: bool,
    contains: impl Fn(&[u8]) -> Result<bool, CliError>,
) -> Result<u8, CliError> {
    if args.quiet {
        let mut all_present = true;
        args.keys.for_each(|key| {
            all_present &= contains(key)?;
            Ok(())
        })?;
        return Ok(if all_present { 0 } else { EXIT_ABSENT });
    }
    let mut answers = Answers::new(args.keys.read_stdin());
    let mut rows = Vec::new();
    let looked_up = args.keys.for_each(|key| {
        let present = contains(key)?;
        if json {
            rows.push(QueryRow::new(key_string(key), present));
            Ok(())
        } else {
            answers.line(key, word(present, "present", "absent"))
        }
    });
    if let Err(e) = looked_up {
        // The answers already computed came from checked bytes: give them.
        answers.finish()?;
        return Err(e);
    }
    if json {
        answers.json(&rows)?;
    }
    answers.finish()?;
    Ok(0)
}
