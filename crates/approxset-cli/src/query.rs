//! `approxset query`: keys looked up in a saved filter, with one answer
//! per key (`answers`): present (maybe) or absent (certainly).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input. Answers to keys typed at a terminal come as the keys do.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::answers::{Answers, key_string, word};
use crate::{CliError, files, keys};

/// Examples shown by `approxset query --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset query --filter words.bin apple pear zzyzx
  approxset query --filter words.bin --json apple
  approxset query --filter words.bin < candidates.txt
  approxset query --filter words.bin -- -leading-dash";

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

/// One key's answer to `query`.
#[derive(Debug, Serialize)]
pub(crate) struct QueryRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether the filter may hold it (`false`: certainly not).
    present: bool,
}

/// Runs `approxset query`. The exit code does not depend on the answers.
pub(crate) fn run(args: &QueryArgs, json: bool) -> Result<(), CliError> {
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
