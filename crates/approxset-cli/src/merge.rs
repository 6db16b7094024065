//! `approxset merge`: the union of saved filters, written to one file. The
//! map-reduce build: each worker builds a filter over its shard of the keys
//! (same variant, size and `--seed`), and `merge` combines the files into
//! the filter over all keys, bit for bit the one a single build would have
//! made (the library's `union_dyn`; the `sharded_union` example does the
//! same in memory).

use std::path::PathBuf;

use approxset::{ApproxSet, Variant};
use serde::Serialize;

use crate::error::CliError;
use crate::files;
use crate::output::{self, Record};
use crate::overfill::Overfill;

/// The variants whose filters merge, and those whose do not: asked of the
/// library (`ApproxSet::union_dyn` of two empty filters built alike), so the
/// help cannot drift from what `merge` does. Static variants, which cannot
/// be built empty, do not merge.
pub(crate) fn merging() -> (Vec<Variant>, Vec<Variant>) {
    Variant::ALL.iter().partition(|v| {
        let build = || v.builder().seed(1).build(16, 0.01);
        match (build(), build()) {
            (Ok(mut a), Ok(b)) => a.union_dyn(&*b).is_ok(),
            _ => false,
        }
    })
}

/// The names of `variants`, comma-separated.
fn names(variants: &[Variant]) -> String {
    variants
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Examples shown by `approxset merge --help`.
pub(crate) fn examples() -> String {
    let (merge, other) = merging();
    format!(
        "\
Variants that merge: {}. Filters merge when they have the same variant, the \
same size and hash count, and the same seed (or key): build every shard with \
the same --variant, --fp, --items and --seed. The merged filter holds every \
shard's keys (a quotient filter adds their counts, and its removes keep \
working).

Variants that cannot merge: {} (their counters, fingerprint tables, stages or \
generations do not combine into the filter of all the keys; a static filter \
is built once: build it from all the keys with approxset build).

Examples:
  approxset build --variant blocked --items 1000000 --seed 7 --input shard-0.txt --output shard-0.bin
  approxset build --variant blocked --items 1000000 --seed 7 --input shard-1.txt --output shard-1.bin
  approxset merge --output all.bin shard-0.bin shard-1.bin
  approxset merge -o all.bin all.bin shard-2.bin   # add a shard to a merged file",
        names(&merge),
        names(&other)
    )
}

/// `approxset merge`.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The filter file to write: replaced whole, or left alone on failure
    /// (it may be one of the inputs). Renamed into place holding its lock
    /// file `.FILTER.lock`, as `build` does.
    #[arg(short = 'o', long, value_name = "FILTER")]
    output: PathBuf,

    /// The filter files to merge, two or more.
    #[arg(value_name = "INPUT", num_args = 2.., required = true)]
    inputs: Vec<PathBuf>,
}

/// What was merged: the JSON object and the human lines.
#[derive(Debug, Serialize)]
pub(crate) struct MergeRecord {
    /// The variant's name.
    variant: String,
    /// The files merged.
    inputs: u64,
    /// The merged filter's `len`: the sum of the inputs' (a key inserted in
    /// two shards counts twice).
    items: u64,
    /// The distinct items estimated from the merged filter's fill.
    estimated_items: f64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate it was built for.
    target_fp: f64,
    /// The false-positive rate estimated from its fill.
    estimated_fp: f64,
    /// Whether the merged filter is overfilled (more items than it was sized
    /// for, estimated FP above target); a warning on standard error says so.
    overfilled: bool,
    /// Bytes written to the file.
    bytes: u64,
    /// The filter file.
    output: String,
}

impl Record for MergeRecord {
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("variant", self.variant.clone()),
            ("inputs", output::count(self.inputs)),
            ("items", output::count(self.items)),
            ("estimated items", output::real(self.estimated_items)),
            ("capacity", output::count(self.capacity)),
            ("target FP", output::rate(self.target_fp)),
            ("estimated FP", output::rate(self.estimated_fp)),
            ("written", output::bytes_exact(self.bytes)),
            ("output", self.output.clone()),
        ]
    }
}

/// Runs `approxset merge`: loads every input (all of them before anything
/// is written), unions them in order, and writes the result.
pub(crate) fn run(args: &MergeArgs, json: bool) -> Result<(), CliError> {
    let (first, rest) = args
        .inputs
        .split_first()
        .ok_or_else(|| CliError::usage("merge needs at least two input files"))?;
    let mut merged = files::load_insertable(first, files::StreamLimit::default())?;
    for path in rest {
        let other = files::load_insertable(path, files::StreamLimit::default())?;
        merged.union_dyn(&*other).map_err(|e| {
            CliError::failure(format!(
                "cannot merge '{}' into '{}': {e}; nothing was written",
                path.display(),
                first.display()
            ))
        })?;
    }
    let file_bytes = files::save_filter(&args.output, &*merged, true, false)?;
    let overfill = Overfill::of(&*merged);
    if let Some(overfill) = overfill {
        overfill.warn(&args.output);
    }
    MergeRecord {
        variant: merged.variant().to_owned(),
        inputs: args.inputs.len() as u64,
        items: merged.len() as u64,
        estimated_items: merged.estimated_items(),
        capacity: merged.capacity() as u64,
        target_fp: merged.fp_rate(),
        estimated_fp: merged.estimated_fp_rate(),
        overfilled: overfill.is_some(),
        bytes: file_bytes,
        output: args.output.display().to_string(),
    }
    .print(json)
}
