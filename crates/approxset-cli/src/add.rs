//! `approxset add`: keys inserted into a saved filter of any variant, with
//! one answer per key (`answers`): `new` (the filter certainly did not hold
//! it) or `present` (it may have: the key was added before, or a false
//! positive).
//!
//! Keys are the command-line arguments, or the lines of standard input when
//! there is none, hashed as raw bytes like `build` hashes the lines of its
//! input (the library's `insert("line")`). The keys are read in full first;
//! then, holding the filter file's lock, the filter is loaded, every key
//! inserted and the file rewritten whole (`rewrite::update`, as `remove`
//! does): the file is parsed once, straight into the filter's words where
//! the variant allows, and written page by page, so the peak memory is
//! about the filter's size. A key the filter refuses (a full cuckoo table, a ninth copy of one
//! key, a scalable filter that cannot grow) fails the run and nothing is
//! written: all the keys go in, or none. `--tick N` moves a time-window
//! sliding filter's clock to N first (`crate::sliding`), under the same
//! lock.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::answers::{self, Answer};
use crate::error::CliError;
use crate::keys;
use crate::overfill::Overfill;
use crate::rewrite::{self, Need};

/// Examples shown by `approxset add --help`.
pub(crate) const EXAMPLES: &str = concat!(
    crate::keys::keys_note!(),
    "

Answers: KEY<TAB>new when the filter certainly did not hold the key, \
KEY<TAB>present when it may have (added before, or a false positive); with \
--json an array of {\"key\": \"…\", \"new\": true|false}. Either way the key \
is in the filter afterwards. A key added again counts as one more item (a \
counting or cuckoo filter stores one more copy, which one more remove takes \
away), except in a scalable filter, which does not store a key it already \
seems to hold. Adding to a sliding filter moves its window: with a window of \
inserts every g keys end a generation (the keys of the oldest are forgotten); \
with a time window, --tick N moves its clock to N first.

Examples:
  approxset build --variant counting --input words.txt --output words.bin
  approxset add --filter words.bin pear plum
  approxset add --filter words.bin --json < more-words.txt
  approxset add --filter hour.bin --tick 1700000600 alice bob"
);

/// The options of `approxset add`.
#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// The filter file, of any variant (written by `approxset build`);
    /// rewritten whole, or left alone on failure. Concurrent `add`,
    /// `remove` and `build` runs on one file take turns on its lock file
    /// `.FILTER.lock` (waiting, not failing), so none loses another's update;
    /// the lock file must be a regular file (a link or FIFO there is an
    /// error). A FIFO or device as FILTER is refused.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,

    #[arg(long, value_name = "N", help = crate::sliding::ADD_TICK_HELP)]
    tick: Option<u64>,

    #[command(flatten)]
    keys: keys::KeyArgs,
}

/// How `add` answers: `new` (certainly not held before) or `present` (may
/// have been held before).
const ANSWER: Answer = Answer {
    field: "new",
    yes: "new",
    no: "present",
};

/// The error of a filter that refused `key` after `before` of `total` keys
/// went in (and were dropped with it: nothing is written).
fn refused(
    path: &Path,
    key: &[u8],
    before: usize,
    total: usize,
    error: &approxset::Error,
) -> CliError {
    let hint = match error {
        approxset::Error::Full { .. } => {
            "; build a larger filter (approxset build --items) from all of its keys"
        }
        _ => "",
    };
    CliError::failure(format!(
        "cannot add to '{path}': the key {key} was refused after {before} of {total} keys: \
         {error}{hint}; nothing was written, '{path}' is unchanged",
        path = path.display(),
        key = keys::shown(key),
    ))
}

/// Runs `approxset add`: reads the keys, then, holding the filter file's
/// lock, loads it, inserts each key and rewrites the file; warns when the
/// filter is now overfilled (`ApproxSet::is_overfilled`); then reports. A key
/// the filter refuses is an error (exit code 1) and the file is left alone.
pub(crate) fn run(args: &AddArgs, json: bool) -> Result<(), CliError> {
    // Fail early on a missing or damaged file, before waiting for keys.
    rewrite::check(&args.filter, Need::Any)?;
    let keys = args.keys.collect()?;
    let total = keys.len();
    // Lock, load, insert, write, unlock: the file cannot change meanwhile.
    // With --tick, a time-window sliding filter's clock moves first.
    let load = |file: &rewrite::Opened<'_>| match args.tick {
        None => rewrite::load_any(file),
        Some(tick) => crate::sliding::load_at(file.path, &file.bytes()?, tick)
            .map(|f| -> Box<dyn approxset::ApproxSet + Send + Sync> { Box::new(f) }),
    };
    let (rows, overfill) = rewrite::update(&args.filter, load, |filter| {
        let mut rows = Vec::with_capacity(total);
        for key in keys {
            match filter.insert_bytes(&key) {
                Ok(new) => rows.push((key, new)),
                Err(error) => {
                    return Err(refused(&args.filter, &key, rows.len(), total, &error));
                }
            }
        }
        Ok((rows, Overfill::of(filter)))
    })?;
    if let Some(overfill) = overfill {
        overfill.warn(&args.filter);
    }
    answers::report(&rows, ANSWER, json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_key_the_cause_and_that_nothing_was_written() {
        let message = refused(
            Path::new("f.bin"),
            b"apple",
            3,
            10,
            &approxset::Error::Full { items: 120 },
        )
        .to_string();
        assert_eq!(
            message,
            "cannot add to 'f.bin': the key \"apple\" was refused after 3 of 10 keys: filter \
             is full: no room for another item after 120 items; build a larger filter \
             (approxset build --items) from all of its keys; nothing was written, 'f.bin' is \
             unchanged"
        );
        let message = refused(
            Path::new("f.bin"),
            b"apple",
            0,
            1,
            &approxset::Error::TooManyCopies { limit: 8 },
        )
        .to_string();
        assert!(message.contains("the key \"apple\""), "{message}");
        assert!(message.contains("too many copies of one key"), "{message}");
        assert!(!message.contains("--items"), "{message}");
    }
}
