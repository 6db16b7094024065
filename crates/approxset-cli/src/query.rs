//! `approxset query` and `approxset remove`: keys looked up in, or removed
//! from, a saved filter, with one answer per key.
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input. The human output is one `key<TAB>answer` line per key (the key's
//! bytes as given); the JSON output is an array of objects whose `key` is
//! the key as a string (bytes that are not UTF-8 become U+FFFD).

use std::ffi::OsString;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use approxset::ApproxSet;
use clap::Args;
use serde::Serialize;

use crate::{CliError, files, keys};

/// Examples shown by `approxset query --help`.
pub(crate) const QUERY_EXAMPLES: &str = "\
Examples:
  approxset query --filter words.bin apple pear zzyzx
  approxset query --filter words.bin --json apple
  approxset query --filter words.bin < candidates.txt
  approxset query --filter words.bin -- -leading-dash";

/// Examples shown by `approxset remove --help`.
pub(crate) const REMOVE_EXAMPLES: &str = "\
Examples:
  approxset build --variant counting --input words.txt --output words.bin
  approxset remove --filter words.bin apple pear
  approxset remove --filter words.bin --json < stale.txt";

/// The options of `approxset query`.
#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    /// The filter file, written by `approxset build`. Read without a lock:
    /// a concurrent `build` or `remove` replaces it whole, so the old file
    /// or the new one is read, never a mix.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,

    /// Keys to look up [default: the lines of standard input]. Put `--`
    /// before keys that start with `-`.
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,

    #[arg(long, help = keys::RAW_KEYS_HELP)]
    raw_keys: bool,
}

/// The options of `approxset remove`.
#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The filter file, of a variant that can delete (`approxset info`
    /// says); rewritten whole, or left alone on failure. Any other variant
    /// is an error (exit code 1) and the file is not touched. Concurrent
    /// `remove` and `build` runs on one file take turns on its lock file
    /// `.FILTER.lock` (waiting, not failing), so none loses another's update.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,

    /// Keys to remove, each one copy [default: the lines of standard input,
    /// read in full before the filter is locked and loaded]. Only remove
    /// keys that were inserted: removing a false positive can make the
    /// filter miss keys it holds.
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,

    #[arg(long, help = keys::RAW_KEYS_HELP)]
    raw_keys: bool,
}

/// One key's answer to `query`.
#[derive(Debug, Serialize)]
pub(crate) struct QueryRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether the filter may hold it (`false`: certainly not).
    present: bool,
}

/// One key's answer to `remove`.
#[derive(Debug, Serialize)]
pub(crate) struct RemoveRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether one copy was removed (`false`: it was not in the filter).
    removed: bool,
}

/// Standard output, buffered, and flushed after every line when the keys
/// are typed at a terminal (so answers come as the keys do).
struct Answers {
    out: BufWriter<io::StdoutLock<'static>>,
    interactive: bool,
}

impl Answers {
    fn new(from_stdin: bool) -> Self {
        Answers {
            out: BufWriter::new(io::stdout().lock()),
            interactive: from_stdin && io::stdin().is_terminal(),
        }
    }

    /// Writes `key<TAB>answer`.
    fn line(&mut self, key: &[u8], answer: &str) -> Result<(), CliError> {
        self.out.write_all(key)?;
        writeln!(self.out, "\t{answer}")?;
        if self.interactive {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Writes `rows` as one JSON array.
    fn json<T: Serialize>(&mut self, rows: &[T]) -> Result<(), CliError> {
        serde_json::to_writer_pretty(&mut self.out, rows)
            .map_err(|e| CliError::from(io::Error::from(e)))?;
        writeln!(self.out)?;
        Ok(())
    }

    fn finish(mut self) -> Result<(), CliError> {
        self.out.flush()?;
        Ok(())
    }
}

/// A key for JSON.
fn key_string(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

/// The word for an answer.
fn word(yes: bool, when_yes: &'static str, when_no: &'static str) -> &'static str {
    if yes { when_yes } else { when_no }
}

/// Runs `approxset query`. The exit code does not depend on the answers.
pub(crate) fn query(args: &QueryArgs, json: bool) -> Result<(), CliError> {
    let (filter, _) = files::load_filter(&args.filter)?;
    let mut answers = Answers::new(args.keys.is_empty());
    let mut rows = Vec::new();
    keys::for_each_key(
        &args.keys,
        keys::LineKeys::from_flag(args.raw_keys),
        |key| {
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
        },
    )?;
    if json {
        answers.json(&rows)?;
    }
    answers.finish()
}

/// Runs `approxset remove`: reads the keys, then, holding the filter
/// file's lock, loads it, removes each key and rewrites the file when
/// anything was removed; then reports. A filter of a variant that cannot
/// delete is an error (exit code 1) and the file is left alone.
pub(crate) fn remove(args: &RemoveArgs, json: bool) -> Result<(), CliError> {
    // Fail early on a missing or unfit file, before waiting for keys.
    files::check_deletable(&args.filter)?;
    // The keys come first, so that the lock is not held while standard
    // input is typed or piped.
    let mut keys: Vec<Vec<u8>> = Vec::new();
    keys::for_each_key(
        &args.keys,
        keys::LineKeys::from_flag(args.raw_keys),
        |key| {
            keys.push(key.to_vec());
            Ok(())
        },
    )?;
    // Lock, load, remove, write, unlock: the file cannot change meanwhile.
    let lock = files::lock(&args.filter, "filter")?;
    let mut filter = files::load_deletable_filter(&args.filter)?;
    let rows: Vec<(Vec<u8>, bool)> = keys
        .into_iter()
        .map(|key| {
            let removed = filter.remove_bytes(&key);
            (key, removed)
        })
        .collect();
    if rows.iter().any(|&(_, removed)| removed) {
        let bytes = filter.to_bytes().map_err(|e| {
            CliError::failure(format!("cannot save '{}': {e}", args.filter.display()))
        })?;
        files::write_atomically(&args.filter, &bytes, "filter")?;
    }
    drop(lock);
    let mut answers = Answers::new(false);
    if json {
        let rows: Vec<RemoveRow> = rows
            .iter()
            .map(|(key, removed)| RemoveRow {
                key: key_string(key),
                removed: *removed,
            })
            .collect();
        answers.json(&rows)?;
    } else {
        for (key, removed) in &rows {
            answers.line(key, word(*removed, "removed", "absent"))?;
        }
    }
    answers.finish()
}
