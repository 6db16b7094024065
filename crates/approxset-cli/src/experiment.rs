//! `approxset experiment`: the classic Bloom filter's false-positive rate,
//! measured against its formulas (`theory`) and against its number of hash
//! functions (`optimal-k`).
//!
//! Both insert the keys `member-0 … member-{n−1}` and query
//! `nonmember-0 … nonmember-{q−1}` as byte strings into a classic filter of
//! a chosen number of bits `m` and hash functions `k`:
//!
//! - `theory`: k ∈ {2, 4, 6, 8} × m/n ∈ {4, 6, 8, 10, 12, 16, 20};
//!   the measured rate against (1 − e^(−kn/m))^k and (1 − (1 − 1/m)^(kn))^k.
//! - `optimal-k`: m/n fixed, k = 1 … 10; the U-shaped curve
//!   whose bottom is at k* = (m/n)·ln 2.
//!
//! `sliding` (in `crate::window`) follows a sliding filter's rate over time.

use approxset::{BloomFilter, sizing};
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::error::CliError;
use crate::keys::KeyList;
use crate::options::check_count;
use crate::output::{self, Report};
use crate::plot::{self, Axis, Chart, Mark, Scale, Series, Style};

/// Examples shown by `approxset experiment --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset experiment theory --plot theory.svg
  approxset experiment optimal-k --bits-per-key 10 --plot optimal-k.svg
  approxset experiment theory --items 20000 --queries 20000 --json
  approxset experiment sliding --plot docs/sliding.svg";

/// Examples shown by `approxset experiment theory --help`.
const THEORY_EXAMPLES: &str = "\
Examples:
  approxset experiment theory
  approxset experiment theory --items 1000000 --queries 1000000 --plot theory.svg
  approxset experiment theory --seed 7 --json";

/// Examples shown by `approxset experiment optimal-k --help`.
const OPTIMAL_K_EXAMPLES: &str = "\
Examples:
  approxset experiment optimal-k
  approxset experiment optimal-k --bits-per-key 16 --max-k 16 --plot optimal-k.svg
  approxset experiment optimal-k --json";

/// The experiments.
#[derive(Debug, Subcommand)]
pub(crate) enum ExperimentCommand {
    /// The measured false-positive rate against the approximate and the
    /// exact formula, for k in {2,4,6,8} and m/n in {4,6,8,10,12,16,20}.
    #[command(after_help = THEORY_EXAMPLES)]
    Theory(TheoryArgs),

    /// The false-positive rate for k = 1..10 at fixed m/n, with its minimum
    /// near k* = (m/n) ln 2.
    #[command(after_help = OPTIMAL_K_EXAMPLES)]
    OptimalK(OptimalKArgs),

    /// The sliding filter's false-positive rate over time: measured every
    /// g/4 inserts on fresh keys and on keys that left the window, against
    /// the target and the formula's worst moment, beside a ring of Bloom
    /// filters.
    #[command(after_help = crate::window::EXAMPLES)]
    Sliding(crate::window::SlidingArgs),
}

/// The options both experiments share.
#[derive(Debug, Args)]
pub(crate) struct SampleArgs {
    /// Keys inserted: member-0, member-1, ...
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    items: usize,

    /// Non-member queries: nonmember-0, nonmember-1, ...
    #[arg(long, value_name = "Q", default_value_t = 100_000)]
    queries: usize,

    #[command(flatten)]
    run: crate::options::RunChoice,
}

/// The options of `approxset experiment theory`.
#[derive(Debug, Args)]
pub(crate) struct TheoryArgs {
    /// Sizes, seed and plot.
    #[command(flatten)]
    sample: SampleArgs,
}

/// The options of `approxset experiment optimal-k`.
#[derive(Debug, Args)]
pub(crate) struct OptimalKArgs {
    /// Bits per key m/n of the filter.
    #[arg(
        long,
        value_name = "M/N",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    bits_per_key: f64,

    /// The largest k tried (from 1).
    #[arg(long, value_name = "K", default_value_t = 10)]
    max_k: u32,

    /// Sizes, seed and plot.
    #[command(flatten)]
    sample: SampleArgs,
}

/// The hash counts of `theory`.
const THEORY_HASHES: [u32; 4] = [2, 4, 6, 8];

/// The bits per key of `theory`.
const THEORY_BITS_PER_KEY: [u32; 7] = [4, 6, 8, 10, 12, 16, 20];

/// The keys of an experiment and the seed of its filters.
#[derive(Debug)]
struct Sample {
    members: KeyList,
    queries: KeyList,
    seed: u64,
    hash: approxset::HashFunction,
}

impl Sample {
    /// Checks the sizes and makes the keys.
    fn new(args: &SampleArgs) -> Result<Self, CliError> {
        let items = check_count("items", args.items)?;
        let queries = check_count("queries", args.queries)?;
        if let Some(path) = &args.run.plot {
            plot::check_writable(path)?;
        }
        Ok(Sample {
            members: KeyList::numbered("member-", items)?,
            queries: KeyList::numbered("nonmember-", queries)?,
            seed: args.run.seed,
            hash: args.run.hash.for_variant(approxset::Variant::Classic)?,
        })
    }

    /// n.
    fn items(&self) -> u64 {
        self.members.len() as u64
    }

    /// The measured false-positive rate of a classic filter of `bits` bits
    /// and `hashes` hash functions holding the members.
    fn measure(&self, bits: u64, hashes: u32) -> Result<f64, CliError> {
        let mut filter = BloomFilter::with_num_bits(bits)
            .seed(self.seed)
            .hash(self.hash)
            .hashes(hashes)?;
        for key in self.members.iter() {
            filter.insert_bytes(key)?;
        }
        let hits = self
            .queries
            .iter()
            .filter(|q| filter.contains_bytes(q))
            .count();
        Ok(hits as f64 / self.queries.len() as f64)
    }

    /// The line describing the sample, for the human output.
    fn describe(&self, what: &str) -> String {
        let hash = match self.hash {
            f if f == approxset::HashFunction::default() => String::new(),
            other => format!(", hash {other}"),
        };
        format!(
            "{what}: classic Bloom filter, n = {} keys member-i, {} queries nonmember-i, seed {}{hash}",
            output::count(self.items()),
            output::count(self.queries.len() as u64),
            self.seed
        )
    }
}

/// Runs an experiment.
pub(crate) fn run(command: &ExperimentCommand, json: bool) -> Result<(), CliError> {
    match command {
        ExperimentCommand::Theory(args) => theory(args, json),
        ExperimentCommand::OptimalK(args) => optimal_k(args, json),
        ExperimentCommand::Sliding(args) => crate::window::run(args, json),
    }
}

/// A row of `experiment theory`.
#[derive(Debug, Serialize)]
pub(crate) struct TheoryRow {
    /// Hash functions.
    k: u32,
    /// m/n.
    bits_per_key: f64,
    /// The measured false-positive rate.
    measured_fp: f64,
    /// (1 − e^(−kn/m))^k.
    theory_approx: f64,
    /// (1 − (1 − 1/m)^(kn))^k.
    theory_exact: f64,
    /// (measured − exact) / exact.
    relative_error: f64,
}

output::table_row!(TheoryRow {
    number "k" => |r| r.k.to_string(),
    number "m/n" => |r| format!("{}", r.bits_per_key),
    number "measured FP" => |r| output::rate(r.measured_fp),
    number "theory approx" => |r| output::rate(r.theory_approx),
    number "theory exact" => |r| output::rate(r.theory_exact),
    number "rel. error" => |r| format!("{:+.2} %", 100.0 * r.relative_error),
});

/// Runs `experiment theory`.
fn theory(args: &TheoryArgs, json: bool) -> Result<(), CliError> {
    let sample = Sample::new(&args.sample)?;
    let n = sample.items();
    let bar = output::progress(
        (THEORY_HASHES.len() * THEORY_BITS_PER_KEY.len()) as u64,
        json,
    );
    let mut rows = Vec::new();
    for k in THEORY_HASHES {
        for bits_per_key in THEORY_BITS_PER_KEY {
            bar.set_message(format!("k = {k}, m/n = {bits_per_key}"));
            let bits = u64::from(bits_per_key).saturating_mul(n);
            let measured_fp = sample.measure(bits, k)?;
            let theory_exact = sizing::fp_rate_exact(bits, n, k);
            rows.push(TheoryRow {
                k,
                bits_per_key: f64::from(bits_per_key),
                measured_fp,
                theory_approx: sizing::fp_rate_approx(bits as f64, n as f64, f64::from(k)),
                theory_exact,
                relative_error: (measured_fp - theory_exact) / theory_exact,
            });
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    let mut report = Report::new(rows);
    report
        .header
        .push(sample.describe("Measured FP against theory"));
    let close = report
        .rows
        .iter()
        .filter(|r| r.relative_error.abs() <= 0.05)
        .count();
    report.notes.push(format!(
        "within 5 % of the exact formula: {close} of {} (small rates rest on few false positives)",
        report.rows.len()
    ));
    if let Some(path) = &args.sample.run.plot {
        plot::write_svg(path, &theory_chart(&report.rows, n))?;
        report.notes.push(format!("plot: {}", path.display()));
    }
    report.print(json)
}

/// The figure of `theory`: FP against m/n on a log axis, theory as lines and
/// measurements as dots, one colour per k.
fn theory_chart(rows: &[TheoryRow], n: u64) -> Chart {
    let (lo, hi) = (
        f64::from(THEORY_BITS_PER_KEY[0]),
        f64::from(THEORY_BITS_PER_KEY[THEORY_BITS_PER_KEY.len() - 1]),
    );
    let mut series = Vec::new();
    for (i, &k) in THEORY_HASHES.iter().enumerate() {
        let colour = plot::colour(i);
        let curve = plot::linspace(lo..hi, 160)
            .map(|x| {
                let bits = (x * n as f64).round() as u64;
                (x, sizing::fp_rate_exact(bits, n, k))
            })
            .collect();
        series.push(Series {
            label: Some(format!("k = {k}")),
            colour,
            style: Style::Line,
            points: curve,
        });
        series.push(Series {
            label: None,
            colour,
            style: Style::Points(Mark::Dot),
            points: rows
                .iter()
                .filter(|r| r.k == k && r.measured_fp > 0.0)
                .map(|r| (r.bits_per_key, r.measured_fp))
                .collect(),
        });
    }
    series.push(legend_key("theory (exact formula)", Style::Line));
    series.push(legend_key("measured", Style::Points(Mark::Dot)));
    let values = rows.iter().flat_map(|r| [r.measured_fp, r.theory_exact]);
    Chart {
        title: format!(
            "False-positive rate of a classic Bloom filter against theory, n = {}",
            output::count(n)
        ),
        x: Axis {
            label: "bits per key m/n".to_owned(),
            range: lo - 1.0..hi + 1.0,
            scale: Scale::Linear,
        },
        y: Axis {
            label: "false-positive rate (log scale)".to_owned(),
            range: plot::log_range(values, 1e-3),
            scale: Scale::Log,
        },
        series,
        labels: Vec::new(),
    }
}

/// A legend-only entry in black.
fn legend_key(label: &str, style: Style) -> Series {
    Series {
        label: Some(label.to_owned()),
        colour: plot::INK,
        style,
        points: Vec::new(),
    }
}

/// A row of `experiment optimal-k`.
#[derive(Debug, Serialize)]
pub(crate) struct OptimalKRow {
    /// Hash functions.
    k: u32,
    /// m/n.
    bits_per_key: f64,
    /// The measured false-positive rate.
    measured_fp: f64,
    /// (1 − (1 − 1/m)^(kn))^k.
    theory_exact: f64,
    /// Marks for the table only: where the minima are.
    #[serde(skip)]
    note: String,
}

output::table_row!(OptimalKRow {
    number "k" => |r| r.k.to_string(),
    number "measured FP" => |r| output::rate(r.measured_fp),
    number "theory exact" => |r| output::rate(r.theory_exact),
    text "note" => |r| r.note.clone(),
});

/// The index of the least value.
fn argmin(values: impl Iterator<Item = f64>) -> Option<usize> {
    values
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// Runs `experiment optimal-k`.
fn optimal_k(args: &OptimalKArgs, json: bool) -> Result<(), CliError> {
    let bits_per_key = args.bits_per_key;
    if !(bits_per_key.is_finite() && bits_per_key > 0.0) {
        return Err(CliError::usage(format!(
            "invalid --bits-per-key: must be a positive number, got {bits_per_key}"
        )));
    }
    if !(1..=sizing::MAX_HASHES).contains(&args.max_k) {
        return Err(CliError::usage(format!(
            "invalid --max-k: must be between 1 and {}, got {}",
            sizing::MAX_HASHES,
            args.max_k
        )));
    }
    let sample = Sample::new(&args.sample)?;
    let n = sample.items();
    let bits = (bits_per_key * n as f64).round().max(1.0) as u64;
    let bar = output::progress(u64::from(args.max_k), json);
    let mut rows = Vec::new();
    for k in 1..=args.max_k {
        bar.set_message(format!("k = {k}"));
        rows.push(OptimalKRow {
            k,
            bits_per_key,
            measured_fp: sample.measure(bits, k)?,
            theory_exact: sizing::fp_rate_exact(bits, n, k),
            note: String::new(),
        });
        bar.inc(1);
    }
    bar.finish_and_clear();

    let k_star = sizing::optimal_hashes(bits_per_key);
    let measured_min = argmin(rows.iter().map(|r| r.measured_fp));
    let theory_min = argmin(rows.iter().map(|r| r.theory_exact));
    for (index, mark) in [(measured_min, "measured min"), (theory_min, "theory min")] {
        if let Some(row) = index.and_then(|i| rows.get_mut(i)) {
            if !row.note.is_empty() {
                row.note.push_str(", ");
            }
            row.note.push_str(mark);
        }
    }
    let mut report = Report::new(rows);
    report.header.push(sample.describe(&format!(
        "FP against the number of hash functions k at m/n = {bits_per_key}"
    )));
    let at = |i: Option<usize>| {
        i.and_then(|i| report.rows.get(i))
            .map_or_else(String::new, |r| r.k.to_string())
    };
    report.notes.push(format!(
        "k* = (m/n) ln 2 = {k_star:.2}; theory minimum at k = {}, measured minimum at k = {}",
        at(theory_min),
        at(measured_min)
    ));
    if let Some(path) = &args.sample.run.plot {
        plot::write_svg(path, &optimal_k_chart(&report.rows, bits_per_key, n))?;
        report.notes.push(format!("plot: {}", path.display()));
    }
    report.print(json)
}

/// The figure of `optimal-k`: FP against k on a log axis, the theory curve, the
/// measured dots and k* marked.
fn optimal_k_chart(rows: &[OptimalKRow], bits_per_key: f64, n: u64) -> Chart {
    let max_k = rows.last().map_or(1.0, |r| f64::from(r.k));
    let k_star = sizing::optimal_hashes(bits_per_key);
    let values = rows.iter().flat_map(|r| [r.measured_fp, r.theory_exact]);
    let y = plot::log_range(values, 1e-3);
    let theory = plot::linspace(1.0..max_k, 200)
        .map(|k| (k, sizing::fp_rate_approx(bits_per_key, 1.0, k)))
        .collect();
    let series = vec![
        Series {
            label: Some("theory (1 - e^(-kn/m))^k".to_owned()),
            colour: plot::colour(0),
            style: Style::Line,
            points: theory,
        },
        Series {
            label: Some("measured".to_owned()),
            colour: plot::colour(1),
            style: Style::Points(Mark::Dot),
            points: rows
                .iter()
                .filter(|r| r.measured_fp > 0.0)
                .map(|r| (f64::from(r.k), r.measured_fp))
                .collect(),
        },
        Series {
            label: Some(format!("k* = (m/n) ln 2 = {k_star:.2}")),
            colour: plot::colour(3),
            style: Style::Dashed,
            points: vec![(k_star, y.start), (k_star, y.end)],
        },
    ];
    Chart {
        title: format!(
            "The optimal number of hash functions k at m/n = {bits_per_key}, n = {}",
            output::count(n)
        ),
        x: Axis {
            label: "hash functions k".to_owned(),
            range: 0.5..max_k.max(k_star.ceil()) + 0.5,
            scale: Scale::Linear,
        },
        y: Axis::fp_rate(y),
        series,
        labels: Vec::new(),
    }
}
