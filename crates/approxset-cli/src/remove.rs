//! `approxset remove`: keys removed from a saved filter of a variant that
//! can delete (counting, cuckoo), with one answer per key (`answers`).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input (the library's `remove("line")`). The keys are read in full first;
//! then, holding the filter file's lock, the filter is loaded, each key
//! removed and the file rewritten whole (`rewrite::update`, as `add` does).

use std::path::PathBuf;

use clap::Args;

use approxset::Removal;
use serde::Serialize;

use crate::answers::{self, Answers};
use crate::error::CliError;
use crate::keys;
use crate::rewrite::{self, Need};

/// Examples shown by `approxset remove --help`.
pub(crate) const EXAMPLES: &str = concat!(
    crate::keys::keys_note!(),
    "

Each key removes one copy and is reported `removed`, `absent` (certainly \
not in the filter; nothing changed) or `saturated` (a counting filter's \
counters for the key are all at 15, as after 15 inserts of it: it can no \
longer be removed, and nothing changed). Only remove keys that were \
inserted: removing a false positive can make the filter miss keys it holds.

Examples:
  approxset build --variant counting --input words.txt --output words.bin
  approxset remove --filter words.bin apple pear
  approxset remove --filter words.bin --json < stale.txt"
);

/// The options of `approxset remove`.
#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The filter file, of a variant that can delete (`approxset info`
    /// says); rewritten whole, or left alone on failure. Any other variant
    /// is an error (exit code 1) and the file is not touched. Concurrent
    /// `remove`, `add` and `build` runs on one file take turns on its lock file
    /// `.FILTER.lock` (waiting, not failing), so none loses another's update;
    /// the lock file must be a regular file (a link or FIFO there is an
    /// error). A FIFO or device as FILTER is refused.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,

    #[command(flatten)]
    keys: keys::KeyArgs,
}

/// One key's answer in the JSON output: `removed` (a copy was taken out)
/// and `saturated` (a counting filter's counters for the key are all at 15,
/// so it can no longer be removed; nothing changed).
#[derive(Serialize)]
struct Row {
    key: String,
    removed: bool,
    saturated: bool,
}

/// Runs `approxset remove`: reads the keys, then, holding the filter
/// file's lock, loads it, removes each key and rewrites the file when
/// anything was removed (`rewrite::update`); then reports each key as
/// `removed`, `absent` (the filter certainly did not hold it; nothing
/// changed) or `saturated`. A filter of a variant that cannot delete is an
/// error (exit code 1) and the file is left alone.
pub(crate) fn run(args: &RemoveArgs, json: bool) -> Result<(), CliError> {
    // Fail early on a missing or unfit file, before waiting for keys.
    rewrite::check(&args.filter, Need::Delete)?;
    let keys = args.keys.collect()?;
    // Lock, load, remove, write, unlock: the file cannot change meanwhile.
    let rows = rewrite::update(&args.filter, rewrite::load_deletable, |filter| {
        Ok(keys
            .into_iter()
            .map(|key| {
                let removal = filter.remove_bytes(&key);
                (key, removal)
            })
            .collect::<Vec<_>>())
    })?;
    let mut answers = Answers::new(false);
    if json {
        let rows: Vec<Row> = rows
            .iter()
            .map(|(key, removal)| Row {
                key: answers::key_string(key),
                removed: removal.is_removed(),
                saturated: *removal == Removal::Saturated,
            })
            .collect();
        answers.json(&rows)?;
    } else {
        for (key, removal) in &rows {
            answers.line(key, &removal.to_string())?;
        }
    }
    answers.finish()
}
