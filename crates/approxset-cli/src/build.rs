//! `approxset build`: a filter of one variant filled with the lines of a
//! file, saved in the persistent format.

use std::path::{Path, PathBuf};

use approxset::{ApproxSet, Variant};
use clap::Args;
use indicatif::ProgressBar;
use serde::Serialize;

use crate::design::variant_parser;
use crate::output::{self, Record};
use crate::{CliError, check_count, check_fp, files, keys};

/// Examples shown by `approxset build --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset build --variant classic --input /usr/share/dict/words --output words.bin
  approxset build --variant counting --fp 0.001 --items 1000000 --input keys.txt --output keys.bin
  sort -u names.txt | approxset build --variant partitioned --seed 7 --input - --output names.bin --json";

/// Keys from which a progress bar is worth showing.
const PROGRESS_FROM: usize = 1 << 20;

/// Keys between two updates of the progress bar.
const PROGRESS_STEP: usize = 1 << 14;

/// The options of `approxset build`.
#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// The filter variant.
    #[arg(long, value_name = "VARIANT", value_parser = variant_parser())]
    variant: Variant,

    /// Target false-positive rate, strictly between 0 and 1.
    #[arg(
        long,
        value_name = "P",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    fp: f64,

    /// Items the filter is sized for [default: the number of keys, at least 1].
    #[arg(long, value_name = "N")]
    items: Option<usize>,

    /// Seed of the filter's hash key, for a reproducible file [default: a random key].
    #[arg(long)]
    seed: Option<u64>,

    /// The keys, one per line (`-` for standard input). Each line's raw bytes
    /// without the `\n` or `\r\n` are a key; empty lines are skipped.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,

    /// The filter file to write: replaced whole, or left alone on failure.
    #[arg(long, value_name = "FILTER")]
    output: PathBuf,
}

/// What was built: the JSON object and the human lines.
#[derive(Debug, Serialize)]
pub(crate) struct BuildRecord {
    /// The variant's name.
    variant: String,
    /// Keys inserted.
    items: u64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate it was built for.
    target_fp: f64,
    /// The false-positive rate estimated from its fill.
    estimated_fp: f64,
    /// Bytes written to the file.
    bytes: u64,
    /// The filter file.
    output: String,
}

impl Record for BuildRecord {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("variant", self.variant.clone()),
            ("items", output::count(self.items)),
            ("capacity", output::count(self.capacity)),
            ("target FP", output::rate(self.target_fp)),
            ("estimated FP", output::rate(self.estimated_fp)),
            (
                "written",
                format!(
                    "{} ({} bytes)",
                    output::bytes(self.bytes),
                    output::count(self.bytes)
                ),
            ),
            ("output", self.output.clone()),
        ]
    }
}

/// Inserts every line of `data` as a key, advancing `bar`: the number of
/// keys inserted, or where the filter refused one (a full cuckoo table) and
/// why.
fn insert_all(
    filter: &mut (dyn ApproxSet + Send + Sync),
    data: &[u8],
    bar: &ProgressBar,
) -> Result<usize, (usize, approxset::Error)> {
    let mut inserted = 0usize;
    for key in keys::lines(data) {
        filter.insert_bytes(key).map_err(|e| (inserted, e))?;
        inserted += 1;
        if inserted % PROGRESS_STEP == 0 {
            bar.inc(PROGRESS_STEP as u64);
        }
    }
    Ok(inserted)
}

/// The error of a filter that refused a key after `inserted` of `total`.
fn refused(output: &Path, inserted: usize, total: usize, error: &approxset::Error) -> CliError {
    let hint = match error {
        approxset::Error::Full { .. } => "; try a larger --items",
        _ => "",
    };
    CliError::failure(format!(
        "cannot build '{}': {inserted} of {total} keys went in, then: {error}{hint}; \
         nothing was written",
        output.display()
    ))
}

/// Runs `approxset build`.
pub(crate) fn run(args: &BuildArgs, json: bool) -> Result<(), CliError> {
    let fp = check_fp("fp", args.fp)?;
    let items = args.items.map(|n| check_count("items", n)).transpose()?;
    if files::is_stdin(&args.output) {
        return Err(CliError::usage(
            "invalid --output: give a file name; the filter is not written to standard output",
        ));
    }
    files::check_writable(&args.output, "filter")?;
    let data = files::read_input(&args.input, "--input")?;
    let total = keys::lines(&data).count();
    let capacity = items.unwrap_or(total.max(1));

    let mut builder = args.variant.builder();
    if let Some(seed) = args.seed {
        builder = builder.seed(seed);
    }
    let mut filter = builder.build(capacity, fp)?;

    let bar = if json || total < PROGRESS_FROM {
        ProgressBar::hidden()
    } else {
        output::progress(total as u64, json)
    };
    bar.set_message(format!("{}: insert", args.variant));
    let filled = insert_all(&mut *filter, &data, &bar);
    bar.finish_and_clear();
    let inserted = filled.map_err(|(inserted, e)| refused(&args.output, inserted, total, &e))?;

    let bytes = filter
        .to_bytes()
        .map_err(|e| CliError::failure(format!("cannot save '{}': {e}", args.output.display())))?;
    files::write_atomically(&args.output, &bytes, "filter")?;
    BuildRecord {
        variant: filter.variant().to_owned(),
        items: inserted as u64,
        capacity: filter.capacity() as u64,
        target_fp: filter.fp_rate(),
        estimated_fp: filter.estimated_fp_rate(),
        bytes: bytes.len() as u64,
        output: args.output.display().to_string(),
    }
    .print(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approxset::{Digest, HashKey};

    /// A filter with room for `room` keys, like a cuckoo table.
    #[derive(Debug)]
    struct Bounded {
        len: usize,
        room: usize,
    }

    impl ApproxSet for Bounded {
        fn insert_digest(&mut self, _: Digest) -> approxset::Result<bool> {
            if self.len == self.room {
                return Err(approxset::Error::Full { items: self.len });
            }
            self.len += 1;
            Ok(true)
        }
        fn contains_digest(&self, _: Digest) -> bool {
            true
        }
        fn hash_key(&self) -> HashKey {
            HashKey::from_seed(1)
        }
        fn len(&self) -> usize {
            self.len
        }
        fn capacity(&self) -> usize {
            self.room
        }
        fn fp_rate(&self) -> f64 {
            0.01
        }
        fn estimated_fp_rate(&self) -> f64 {
            0.01
        }
        fn memory_bytes(&self) -> usize {
            8
        }
        fn clear(&mut self) {
            self.len = 0;
        }
        fn variant(&self) -> &'static str {
            "bounded"
        }
    }

    #[test]
    fn a_full_filter_names_how_many_keys_went_in() {
        let mut filter = Bounded { len: 0, room: 2 };
        let bar = ProgressBar::hidden();
        let (inserted, e) = insert_all(&mut filter, b"a\nb\n\nc\nd\n", &bar).unwrap_err();
        assert_eq!(inserted, 2);
        let message = refused(Path::new("out.bin"), inserted, 4, &e).to_string();
        assert_eq!(
            message,
            "cannot build 'out.bin': 2 of 4 keys went in, then: filter is full: no room for \
             another item after 2 items; try a larger --items; nothing was written"
        );
        let mut roomy = Bounded { len: 0, room: 9 };
        assert_eq!(insert_all(&mut roomy, b"a\r\nb", &bar).unwrap(), 2);
    }
}
