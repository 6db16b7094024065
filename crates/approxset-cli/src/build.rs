//! `approxset build`: a filter of one variant filled with the lines of a
//! file, saved in the persistent format.

use std::path::{Path, PathBuf};

use approxset::{ApproxSet, Membership, Variant};
use clap::Args;
use indicatif::ProgressBar;
use serde::Serialize;

use crate::design::variant_parser;
use crate::error::CliError;
use crate::keys::{self, LineKeys};
use crate::options::check_count;
use crate::output::{self, Record};
use crate::overfill::Overfill;
use crate::{files, sliding};

/// Examples shown by `approxset build --help`.
pub(crate) const EXAMPLES: &str = concat!(
    crate::keys::keys_note!(),
    "

Examples:
  approxset build --variant classic --input /usr/share/dict/words --output words.bin
  approxset build --variant counting --fp 0.001 --items 1000000 --input keys.txt --output keys.bin
  sort -u names.txt | approxset build --variant partitioned --seed 7 --input - --output names.bin --json
  approxset build --variant blocked --hash xxh3 --input trusted-ids.txt --output ids.bin
  approxset build --variant fuse --fp 0.0039 --input sstable-keys.txt --output sstable.fuse
  approxset build --variant ribbon --fp 0.001 --input sstable-keys.txt --output sstable.ribbon
  approxset build --variant sliding --items 100000 --input recent.txt --output recent.bin
  approxset build --variant sliding --items 100000 --time-window 3600 --tick 1700000000 \
    --input last-hour.txt --output hour.bin
  approxset build --spark --spark-keys long --fp 0.03 --input ids.txt --output ids.bf

A fuse or Ribbon filter is static: it is built from all the keys at once \
(repeats allowed, held once), holds exactly them, and takes no add or \
remove after.

A sliding filter remembers a window: the last --items inserts (each \
`approxset add` moves it on), or with --time-window the last T ticks of a \
clock that `build --tick`, `add --tick` and `query --tick` set (a command \
line has no clock of its own). Keys older than the window are forgotten."
);

/// Keys from which a progress bar is worth showing.
const PROGRESS_FROM: usize = 1 << 20;

/// Keys between two updates of the progress bar.
const PROGRESS_STEP: usize = 1 << 14;

/// The most copies of one key a cuckoo filter holds: 2b, with b = 4 slots
/// in each of the key's two buckets.
const CUCKOO_MAX_COPIES: usize = 8;

/// The options of `approxset build`.
#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// The filter variant: a name below in any case, or an alias.
    #[arg(long, value_name = "VARIANT", value_parser = variant_parser(), required_unless_present = "spark")]
    variant: Option<Variant>,

    /// Write Apache Spark's BloomFilter format (version 2, seed 0, sized
    /// as Spark's BloomFilter.create(--items, --fp)) instead of an
    /// approxset file: Spark's BloomFilter.readFrom reads it, and `query`
    /// and `info` recognise it.
    #[arg(long, conflicts_with_all = ["variant", "seed", "hash", "time_window", "tick"])]
    spark: bool,

    #[arg(long, value_enum, value_name = "TYPE", requires = "spark", help = crate::spark::SPARK_KEYS_HELP)]
    spark_keys: Option<crate::spark::SparkKeys>,

    #[command(flatten)]
    fp: crate::options::TargetFp,

    /// Items the filter is sized for [default: the number of keys, at least 1].
    #[arg(long, value_name = "N")]
    items: Option<usize>,

    /// Seed of the filter's hash key, for a reproducible file [default: a random key].
    #[arg(long)]
    seed: Option<u64>,

    #[command(flatten)]
    hash: crate::options::HashChoice,

    #[arg(long, value_name = "T", help = sliding::TIME_WINDOW_HELP)]
    time_window: Option<u64>,

    #[arg(long, value_name = "N", help = sliding::BUILD_TICK_HELP)]
    tick: Option<u64>,

    /// The keys, one per line (`-` for standard input), as raw bytes (the
    /// file need not be UTF-8; --raw-keys says what is dropped); empty lines
    /// are skipped.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,

    #[arg(long, help = keys::RAW_KEYS_HELP)]
    raw_keys: bool,

    /// The filter file to write: replaced whole, or left alone on failure.
    /// The new file is renamed into place holding the lock file
    /// `.FILTER.lock` next to it (removed when done; it must be a regular
    /// file, a link or FIFO there is an error), so a concurrent `add` or `remove`
    /// of the same file finishes before it or works on the new file.
    /// Temporary files of runs that were killed are removed. A warning on
    /// standard error says when the filter holds more keys than --items and
    /// its estimated FP is above --fp, and when the input holds no keys.
    #[arg(long, value_name = "FILTER")]
    output: PathBuf,
}

/// What was built: the JSON object and the human lines.
#[derive(Debug, Serialize)]
pub(crate) struct BuildRecord {
    /// The variant's name.
    variant: String,
    /// The hash function's name (`--hash`).
    #[serde(serialize_with = "output::hash_name")]
    hash: approxset::HashFunction,
    /// The filter's `len()`: the inserts it accepted (a static filter: its
    /// distinct keys), as `info` reports it.
    items: u64,
    /// Keys read from the input and inserted (empty lines skipped).
    keys: u64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate asked for (`--fp`).
    target_fp: f64,
    /// The false-positive rate the filter gives at its capacity, as `info`
    /// reports it (`Membership::fp_rate`): the target for the filters that
    /// are sized to it, 2⁻ᶠ for a fuse filter's `f`-bit fingerprints, the
    /// blocks' rate for a Ribbon filter.
    fp_rate: f64,
    /// The false-positive rate estimated from its fill.
    estimated_fp: f64,
    /// Bytes of filter data in memory, as `info` reports them.
    bytes: u64,
    /// Bytes written to the file (`info`'s `file_bytes`).
    file_bytes: u64,
    /// The filter file.
    output: String,
    /// Whether it is overfilled (`ApproxSet::is_overfilled`: more items
    /// than it was sized for, estimated FP above target); a warning on
    /// standard error says so.
    overfilled: bool,
}

impl Record for BuildRecord {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("variant", self.variant.clone()),
            ("hash", output::hash_shown(self.hash)),
            ("items", output::count(self.items)),
            ("keys read", output::count(self.keys)),
            ("capacity", output::count(self.capacity)),
            ("target FP", output::rate(self.target_fp)),
            ("FP rate", output::rate(self.fp_rate)),
            ("estimated FP", output::rate(self.estimated_fp)),
            ("memory", output::bytes(self.bytes)),
            ("written", output::bytes_exact(self.file_bytes)),
            ("output", self.output.clone()),
        ]
    }
}

/// Where filling a filter stopped: the keys that went in, the key it
/// refused, and why.
#[derive(Debug)]
struct Refusal<'a> {
    /// Keys inserted before the refused one.
    inserted: usize,
    /// The refused key.
    key: &'a [u8],
    /// The filter's error.
    error: approxset::Error,
}

/// Inserts every line of `data` (read as `how` says) as a key, advancing
/// `bar`: the number of keys inserted, or where the filter refused one (a
/// full cuckoo table) and why.
fn insert_all<'a>(
    filter: &mut (dyn ApproxSet + Send + Sync),
    data: &'a [u8],
    how: LineKeys,
    bar: &ProgressBar,
) -> Result<usize, Refusal<'a>> {
    let mut inserted = 0usize;
    for key in keys::lines(data, how) {
        filter.insert_bytes(key).map_err(|error| Refusal {
            inserted,
            key,
            error,
        })?;
        inserted += 1;
        if inserted.is_multiple_of(PROGRESS_STEP) {
            bar.inc(PROGRESS_STEP as u64);
        }
    }
    Ok(inserted)
}

/// The error of a filter that refused a key after `inserted` of `total`
/// keys went in; `copies` is how many times the refused key went in before
/// (and `held` whether the filter says it holds it).
fn refused(
    output: &Path,
    refusal: &Refusal<'_>,
    total: usize,
    copies: usize,
    held: bool,
) -> CliError {
    let Refusal {
        inserted, error, ..
    } = refusal;
    let output = output.display();
    let too_many = matches!(error, approxset::Error::TooManyCopies { .. })
        || (matches!(error, approxset::Error::Full { .. }) && held && copies >= CUCKOO_MAX_COPIES);
    if too_many && copies < CUCKOO_MAX_COPIES {
        // Other keys share this key's fingerprint and both buckets.
        return CliError::failure(format!(
            "cannot build '{output}': {inserted} of {total} keys went in, then the key {} \
             met the cuckoo filter's limit of 2b = {CUCKOO_MAX_COPIES} equal fingerprints in \
             its two buckets (other keys share them); a lower --fp gives wider fingerprints; \
             nothing was written",
            keys::shown(refusal.key)
        ));
    }
    if too_many {
        // Not a lack of room: a larger --items fails the same way.
        return CliError::failure(format!(
            "cannot build '{output}': {inserted} of {total} keys went in, then the key {} \
             came once more after {copies} copies, and a cuckoo filter holds at most \
             2b = {CUCKOO_MAX_COPIES} copies of one key; remove the duplicate keys (e.g. with \
             sort -u) and build again; nothing was written",
            keys::shown(refusal.key)
        ));
    }
    let hint = match error {
        approxset::Error::Full { .. } => "; try a larger --items",
        _ => "",
    };
    CliError::failure(format!(
        "cannot build '{output}': {inserted} of {total} keys went in, then: {error}{hint}; \
         nothing was written"
    ))
}

/// Refuses, before any work, a filter of `variant` for `n` items at `fp`
/// that takes more memory than this machine has available (`MemAvailable`
/// of `/proc/meminfo`; no check where that is unknown): the same one-line
/// error for every variant, where the allocation would otherwise fail (or
/// the kernel end the process) after the keys were read.
fn fits_in_memory(
    variant: approxset::Variant,
    n: usize,
    fp: f64,
    output: &std::path::Path,
) -> Result<(), CliError> {
    let refuse = |why: String| {
        CliError::failure(format!(
            "cannot build '{}': {why}; nothing was written",
            output.display()
        ))
    };
    let design = variant.design(n, fp).map_err(|e| refuse(e.to_string()))?;
    let Some(available) = available_memory() else {
        return Ok(());
    };
    // The streamed variants are saved page by page; the others are
    // serialized whole first, a second copy (`Membership::write_into`).
    let needed = design.peak_bytes();
    if needed > available {
        return Err(refuse(format!(
            "a {variant} filter for {n} items at {fp} needs {}, more than the {} this \
             machine has available",
            output::bytes_exact(needed),
            output::bytes_exact(available)
        )));
    }
    Ok(())
}

/// The memory available to a new process, in bytes, where the system says.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Runs `approxset build`.
pub(crate) fn run(args: &BuildArgs, json: bool) -> Result<(), CliError> {
    let fp = args.fp.get()?;
    let items = args.items.map(|n| check_count("items", n)).transpose()?;
    if files::is_stdin(&args.output) {
        return Err(CliError::usage(
            "invalid --output: give a file name; the filter is not written to standard output",
        ));
    }
    files::check_writable(&args.output, "filter")?;
    if let (Some(variant), Some(n)) = (args.variant, items) {
        fits_in_memory(variant, n, fp, &args.output)?;
    }
    let data = files::read_input(&args.input, "--input")?;
    let how = LineKeys::from_flag(args.raw_keys);
    let total = keys::lines(&data, how).count();
    if total == 0 {
        eprintln!(
            "warning: {} holds no keys (empty lines are skipped); '{}' will be an empty filter",
            files::describe(&args.input),
            args.output.display()
        );
    }
    let capacity = items.unwrap_or(total.max(1));
    if args.spark {
        let spark_keys = args.spark_keys.unwrap_or_default();
        let lines = keys::lines(&data, how);
        return crate::spark::build(lines, capacity, fp, spark_keys, &args.output, json);
    }
    let variant = args
        .variant
        .ok_or_else(|| CliError::usage("build needs --variant VARIANT or --spark"))?;

    sliding::check_build_flags(variant, args.time_window, args.tick)?;
    let hash = args.hash.for_variant(variant)?;
    let mut builder = variant.builder().hash(hash);
    if let Some(seed) = args.seed {
        builder = builder.seed(seed);
    }
    if variant.is_static() {
        // Every key is read already; the filter is built from all of them
        // at once, and holds exactly them.
        if items.is_some() {
            eprintln!(
                "warning: --items does not apply to a {} filter, which holds exactly its keys",
                variant
            );
        }
        // Its size follows from the keys: checked once they are counted,
        // before the filter is built.
        fits_in_memory(variant, total.max(1), fp, &args.output)?;
        let keys: Vec<&[u8]> = keys::lines(&data, how).collect();
        let filter = builder.build_from(&keys, fp).map_err(|e| {
            CliError::failure(format!(
                "cannot build '{}': {e}; nothing was written",
                args.output.display()
            ))
        })?;
        return save(&*filter, args, total, fp, None, json);
    }
    let mut filter = match args.time_window {
        Some(ticks) => {
            let mut options = approxset::BuildOptions::new().hash(hash);
            if let Some(seed) = args.seed {
                options = options.seed(seed);
            }
            sliding::build_timed(options, fp, capacity, ticks, args.tick.unwrap_or(0))?
        }
        None => builder.build(capacity, fp)?,
    };

    let bar = if json || total < PROGRESS_FROM {
        ProgressBar::hidden()
    } else {
        output::progress(total as u64, json)
    };
    bar.set_message(format!("{}: insert", variant));
    let filled = insert_all(&mut *filter, &data, how, &bar);
    bar.finish_and_clear();
    // The keys that went in are the filter's `len`, which the record shows.
    let inserted = filled.map_err(|refusal| {
        let copies = keys::lines(&data, how)
            .take(refusal.inserted)
            .filter(|&k| k == refusal.key)
            .count();
        let held = filter.contains_bytes(refusal.key);
        refused(&args.output, &refusal, total, copies, held)
    })?;
    let overfill = Overfill::of(&*filter);
    if let Some(note) = sliding::forgetting_note(&*filter, inserted) {
        eprintln!("{note}");
    }
    save(&*filter, args, inserted, fp, overfill, json)
}

/// Saves the built `filter` to `--output`, warns when it is overfilled, and
/// prints what was built: `keys` read and inserted, at `target`.
fn save<F: Membership + ?Sized>(
    filter: &F,
    args: &BuildArgs,
    keys: usize,
    target: f64,
    overfill: Option<Overfill>,
    json: bool,
) -> Result<(), CliError> {
    let file_bytes = files::save_filter(&args.output, filter, true, false)?;
    if let Some(overfill) = overfill {
        overfill.warn(&args.output);
    }
    BuildRecord {
        variant: filter.variant().to_owned(),
        hash: filter.hash_key().function(),
        items: filter.len() as u64,
        keys: keys as u64,
        capacity: filter.capacity() as u64,
        target_fp: target,
        fp_rate: filter.fp_rate(),
        estimated_fp: filter.estimated_fp_rate(),
        bytes: filter.memory_bytes() as u64,
        file_bytes,
        output: args.output.display().to_string(),
        overfilled: overfill.is_some(),
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

    impl approxset::Membership for Bounded {
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
        fn variant(&self) -> &'static str {
            "bounded"
        }
    }

    impl ApproxSet for Bounded {
        fn insert_digest(&mut self, _: Digest) -> approxset::Result<bool> {
            if self.len == self.room {
                return Err(approxset::Error::Full { items: self.len });
            }
            self.len += 1;
            Ok(true)
        }
        fn clear(&mut self) {
            self.len = 0;
        }
    }

    #[test]
    fn a_full_filter_names_how_many_keys_went_in() {
        let mut filter = Bounded { len: 0, room: 2 };
        let bar = ProgressBar::hidden();
        let refusal = insert_all(&mut filter, b"a\nb\n\nc\nd\n", LineKeys::Text, &bar).unwrap_err();
        assert_eq!(refusal.inserted, 2);
        assert_eq!(refusal.key, b"c");
        let message = refused(Path::new("out.bin"), &refusal, 4, 0, true).to_string();
        assert_eq!(
            message,
            "cannot build 'out.bin': 2 of 4 keys went in, then: filter is full: no room for \
             another item after 2 items; try a larger --items; nothing was written"
        );
        let mut roomy = Bounded { len: 0, room: 9 };
        assert_eq!(
            insert_all(&mut roomy, b"a\r\nb", LineKeys::Text, &bar).unwrap(),
            2
        );
    }

    #[test]
    fn a_key_repeated_past_the_cuckoo_limit_is_named() {
        let error = approxset::Error::TooManyCopies { limit: 8 };
        let refusal = Refusal {
            inserted: 8,
            key: b"apple",
            error,
        };
        let message = refused(Path::new("out.bin"), &refusal, 9, 8, true).to_string();
        assert_eq!(
            message,
            "cannot build 'out.bin': 8 of 9 keys went in, then the key \"apple\" came once \
             more after 8 copies, and a cuckoo filter holds at most 2b = 8 copies of one key; \
             remove the duplicate keys (e.g. with sort -u) and build again; nothing was written"
        );
        assert!(!message.contains("--items"));
        // Fewer copies: other keys share the fingerprint and buckets.
        let message = refused(Path::new("out.bin"), &refusal, 9, 3, true).to_string();
        assert!(message.contains("lower --fp"), "{message}");
        // A full table is a lack of room.
        let full = Refusal {
            error: approxset::Error::Full { items: 8 },
            ..refusal
        };
        let message = refused(Path::new("out.bin"), &full, 9, 3, true).to_string();
        assert!(message.contains("try a larger --items"), "{message}");
    }
}
