//! What `compare` is asked (its options) and what it measures of one
//! variant at one rate (a row): the floor the measurement and the charts
//! stand on.

use std::path::PathBuf;

use approxset::Variant;
use clap::Args;
use serde::Serialize;

use crate::design::variant_parser;
use crate::keys;
use crate::options::DEFAULT_SEED;
use crate::output::{self};

/// Examples shown by `approxset compare --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset compare
  approxset compare --items 1000000 --fp 0.001 --plot compare.svg
  approxset compare --keys /usr/share/dict/words --fp 0.01 --json
  approxset compare --variant classic,counting --seed 7
  approxset compare --variant classic,blocked --hash xxh3
  approxset compare --sweep --plot sweep.svg";

/// Keys inserted without `--items` (and without `--sweep`).
pub(super) const DEFAULT_ITEMS: usize = 1_000_000;

/// The options of `approxset compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Keys inserted (random 64-bit numbers) [default: 1000000; 100000
    /// with --sweep].
    #[arg(long, value_name = "N", conflicts_with = "keys")]
    pub(super) items: Option<usize>,

    #[command(flatten)]
    pub(super) fp: crate::options::TargetFp,

    /// Non-member queries (random 64-bit numbers) [default: N; 10000000
    /// with --sweep].
    #[arg(long, value_name = "Q", conflicts_with = "keys")]
    pub(super) queries: Option<usize>,

    /// Take the keys from the lines of FILE instead: the first half is
    /// inserted, the second half (less the lines also in the first) queried.
    #[arg(long, value_name = "FILE")]
    pub(super) keys: Option<PathBuf>,

    #[arg(long, requires = "keys", conflicts_with_all = ["items", "queries"], help = keys::RAW_KEYS_HELP)]
    pub(super) raw_keys: bool,

    /// Seed of the random keys and of the filters' hash keys.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub(super) seed: u64,

    #[command(flatten)]
    pub(super) hash: crate::options::HashChoice,

    /// Only these variants (comma-separated names in any case, or aliases);
    /// all by default.
    #[arg(long, value_name = "VARIANT", value_delimiter = ',', value_parser = variant_parser())]
    pub(super) variant: Vec<Variant>,

    /// Build every variant at each of the target rates 10 %, 3 %, 1 %,
    /// 0.3 %, 0.1 %, 10⁻⁴, 10⁻⁵ and 10⁻⁶ (where the variant can) instead of
    /// at one --fp: one row per variant and rate, and with --plot one curve
    /// per variant. Without --items and --queries it measures 100,000 keys
    /// against 10,000,000 non-members, so rates near 10⁻⁶ are seen.
    #[arg(long, conflicts_with = "fp")]
    pub(super) sweep: bool,

    /// Also draw bits per key against the measured rate into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub(super) plot: Option<PathBuf>,
}

/// The target rates of `--sweep`, from the loosest.
pub(crate) const SWEEP_RATES: [f64; 8] = [0.1, 0.03, 0.01, 0.003, 0.001, 1e-4, 1e-5, 1e-6];

/// The keys and queries of `--sweep` when `--items` and `--queries` are not
/// given: enough queries to see a rate of 10⁻⁶ about ten times.
pub(super) const SWEEP_ITEMS: usize = 100_000;
pub(super) const SWEEP_QUERIES: usize = 10_000_000;

/// One variant's measurements: a row of the table and of the JSON array.
#[derive(Debug, Serialize)]
pub(crate) struct CompareRow {
    /// The variant's name.
    pub(super) variant: String,
    /// Memory in bits per inserted key.
    pub(super) bits_per_key: f64,
    /// Memory in bytes, as the filter reports it after the insertions.
    pub(super) bytes: u64,
    /// The false-positive rate the filter was built for.
    pub(super) target_fp: f64,
    /// The measured false-positive rate over the non-members.
    pub(super) measured_fp: f64,
    /// Inserted keys the filter did not find (must be 0).
    pub(super) false_negatives: u64,
    /// Nanoseconds per insertion.
    pub(super) insert_ns: f64,
    /// Nanoseconds per query of an inserted key.
    pub(super) contains_hit_ns: f64,
    /// Nanoseconds per query of a non-member.
    pub(super) contains_miss_ns: f64,
    /// Whether the variant can remove keys.
    pub(super) supports_delete: bool,
    /// Insertions the filter refused (a full cuckoo table).
    pub(super) insert_errors: u64,
}

output::table_row!(CompareRow {
    text "variant" => |r| r.variant.clone(),
    number "bits/key" => |r| format!("{:.2}", r.bits_per_key),
    number "memory" => |r| output::bytes(r.bytes),
    number "target FP" => |r| output::rate(r.target_fp),
    number "measured FP" => |r| output::rate(r.measured_fp),
    number "false neg." => |r| r.false_negatives.to_string(),
    number "insert ns" => |r| format!("{:.1}", r.insert_ns),
    number "hit ns" => |r| format!("{:.1}", r.contains_hit_ns),
    number "miss ns" => |r| format!("{:.1}", r.contains_miss_ns),
    text "delete" => |r| if r.supports_delete { "yes" } else { "no" }.to_owned(),
    number "refused" => |r| r.insert_errors.to_string(),
});
