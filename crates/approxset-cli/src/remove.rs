//! `approxset remove`: keys removed from a saved filter of a variant that
//! can delete (counting, cuckoo), with one answer per key (`answers`).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input. The keys are read in full first; then, holding the filter file's
//! lock (`files`), the filter is loaded, each key removed and the file
//! rewritten whole.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::answers::{Answers, key_string, word};
use crate::{CliError, files, keys};

/// Examples shown by `approxset remove --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset build --variant counting --input words.txt --output words.bin
  approxset remove --filter words.bin apple pear
  approxset remove --filter words.bin --json < stale.txt";

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

/// One key's answer to `remove`.
#[derive(Debug, Serialize)]
pub(crate) struct RemoveRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether one copy was removed (`false`: it was not in the filter).
    removed: bool,
}

/// Runs `approxset remove`: reads the keys, then, holding the filter
/// file's lock, loads it, removes each key and rewrites the file when
/// anything was removed; then reports. A filter of a variant that cannot
/// delete is an error (exit code 1) and the file is left alone.
pub(crate) fn run(args: &RemoveArgs, json: bool) -> Result<(), CliError> {
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
