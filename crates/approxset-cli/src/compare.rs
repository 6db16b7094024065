//! `approxset compare`: every variant built for the same n and p, filled
//! with the same keys and measured: memory, false-positive rate, false
//! negatives (there must be none) and time per operation.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use approxset::{
    ApproxSet, HashFunction, Membership, MembershipExt, Variant, VariantBuilder, sizing,
};
use clap::Args;
use serde::Serialize;

use crate::design::{selected, variant_parser};
use crate::keys::{self, KeyList, SplitMix64};
use crate::output::{self, Column, Report, TableRow};
use crate::plot::{self, Axis, Chart, Label, Scale, Series, Style};
use crate::{CliError, DEFAULT_SEED, check_count};

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
const DEFAULT_ITEMS: usize = 1_000_000;

/// The options of `approxset compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Keys inserted (random 64-bit numbers) [default: 1000000; 100000
    /// with --sweep].
    #[arg(long, value_name = "N", conflicts_with = "keys")]
    items: Option<usize>,

    #[command(flatten)]
    fp: crate::TargetFp,

    /// Non-member queries (random 64-bit numbers) [default: N; 10000000
    /// with --sweep].
    #[arg(long, value_name = "Q", conflicts_with = "keys")]
    queries: Option<usize>,

    /// Take the keys from the lines of FILE instead: the first half is
    /// inserted, the second half (less the lines also in the first) queried.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,

    #[arg(long, requires = "keys", conflicts_with_all = ["items", "queries"], help = keys::RAW_KEYS_HELP)]
    raw_keys: bool,

    /// Seed of the random keys and of the filters' hash keys.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,

    #[command(flatten)]
    hash: crate::HashChoice,

    /// Only these variants (comma-separated names in any case, or aliases);
    /// all by default.
    #[arg(long, value_name = "VARIANT", value_delimiter = ',', value_parser = variant_parser())]
    variant: Vec<Variant>,

    /// Build every variant at each of the target rates 10 %, 3 %, 1 %,
    /// 0.3 %, 0.1 %, 10⁻⁴, 10⁻⁵ and 10⁻⁶ (where the variant can) instead of
    /// at one --fp: one row per variant and rate, and with --plot one curve
    /// per variant. Without --items and --queries it measures 100,000 keys
    /// against 10,000,000 non-members, so rates near 10⁻⁶ are seen.
    #[arg(long, conflicts_with = "fp")]
    sweep: bool,

    /// Also draw bits per key against the measured rate into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// The target rates of `--sweep`, from the loosest.
pub(crate) const SWEEP_RATES: [f64; 8] = [0.1, 0.03, 0.01, 0.003, 0.001, 1e-4, 1e-5, 1e-6];

/// The keys and queries of `--sweep` when `--items` and `--queries` are not
/// given: enough queries to see a rate of 10⁻⁶ about ten times.
const SWEEP_ITEMS: usize = 100_000;
const SWEEP_QUERIES: usize = 10_000_000;

/// One variant's measurements: a row of the table and of the JSON array.
#[derive(Debug, Serialize)]
pub(crate) struct CompareRow {
    /// The variant's name.
    variant: String,
    /// Memory in bits per inserted key.
    bits_per_key: f64,
    /// Memory in bytes, as the filter reports it after the insertions.
    bytes: u64,
    /// The false-positive rate the filter was built for.
    target_fp: f64,
    /// The measured false-positive rate over the non-members.
    measured_fp: f64,
    /// Inserted keys the filter did not find (must be 0).
    false_negatives: u64,
    /// Nanoseconds per insertion.
    insert_ns: f64,
    /// Nanoseconds per query of an inserted key.
    contains_hit_ns: f64,
    /// Nanoseconds per query of a non-member.
    contains_miss_ns: f64,
    /// Whether the variant can remove keys.
    supports_delete: bool,
    /// Insertions the filter refused (a full cuckoo table).
    insert_errors: u64,
}

impl TableRow for CompareRow {
    const COLUMNS: &'static [Column] = &[
        Column::text("variant"),
        Column::number("bits/key"),
        Column::number("memory"),
        Column::number("target FP"),
        Column::number("measured FP"),
        Column::number("false neg."),
        Column::number("insert ns"),
        Column::number("hit ns"),
        Column::number("miss ns"),
        Column::text("delete"),
        Column::number("refused"),
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.variant.clone(),
            format!("{:.2}", self.bits_per_key),
            output::bytes(self.bytes),
            output::rate(self.target_fp),
            output::rate(self.measured_fp),
            self.false_negatives.to_string(),
            format!("{:.1}", self.insert_ns),
            format!("{:.1}", self.contains_hit_ns),
            format!("{:.1}", self.contains_miss_ns),
            if self.supports_delete { "yes" } else { "no" }.to_owned(),
            self.insert_errors.to_string(),
        ]
    }
}

/// A boxed filter of any variant.
type Filter = Box<dyn ApproxSet + Send + Sync>;

/// Keys that can be inserted into and looked up in a filter by index: random
/// numbers (as their little-endian bytes) or byte strings.
trait Keys {
    /// The number of keys.
    fn len(&self) -> usize;
    /// Inserts key `i`.
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool>;
    /// Looks up key `i`.
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool;
    /// A static filter of every key, from `builder`.
    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static>;
}

/// A built static filter.
type Static = Box<dyn Membership + Send + Sync>;

impl Keys for Vec<u64> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline]
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool> {
        filter.insert(&self[i])
    }

    #[inline]
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool {
        filter.contains(&self[i])
    }

    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static> {
        builder.build_from(self, fp)
    }
}

impl Keys for KeyList {
    fn len(&self) -> usize {
        KeyList::len(self)
    }

    #[inline]
    fn insert(&self, filter: &mut Filter, i: usize) -> approxset::Result<bool> {
        filter.insert_bytes(self.get(i))
    }

    #[inline]
    fn contains<F: Membership + ?Sized>(&self, filter: &F, i: usize) -> bool {
        filter.contains_bytes(self.get(i))
    }

    fn build(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<Static> {
        let keys: Vec<&[u8]> = (0..KeyList::len(self)).map(|i| self.get(i)).collect();
        builder.build_from(&keys, fp)
    }
}

/// What an insertion pass did.
#[derive(Debug)]
struct Filled {
    /// Nanoseconds per insertion.
    insert_ns: f64,
    /// For each key, whether it was refused; empty when none was.
    refused: Vec<bool>,
    /// The first refusal, to report it.
    first_error: Option<approxset::Error>,
}

/// Inserts every member, timing the whole loop; refusals are counted, not
/// fatal.
fn fill<K: Keys + ?Sized>(filter: &mut Filter, members: &K) -> Filled {
    let n = members.len();
    let mut refused = Vec::new();
    let mut first_error = None;
    let start = Instant::now();
    for i in 0..n {
        if let Err(e) = members.insert(filter, black_box(i)) {
            if refused.is_empty() {
                refused = vec![false; n];
            }
            refused[i] = true;
            first_error.get_or_insert(e);
        }
    }
    let elapsed = start.elapsed();
    Filled {
        insert_ns: per_op(elapsed.as_nanos(), n),
        refused,
        first_error,
    }
}

/// Looks up every key, timing the whole loop: (keys found, ns per lookup).
fn lookup<K: Keys + ?Sized, F: Membership + ?Sized>(filter: &F, keys: &K) -> (u64, f64) {
    let start = Instant::now();
    let mut found = 0u64;
    for i in 0..keys.len() {
        found += u64::from(black_box(keys.contains(filter, black_box(i))));
    }
    (found, per_op(start.elapsed().as_nanos(), keys.len()))
}

/// Nanoseconds per operation.
fn per_op(nanos: u128, ops: usize) -> f64 {
    nanos as f64 / ops.max(1) as f64
}

/// The keys of a comparison.
enum KeySource {
    /// Random numbers: members and non-members (never equal: the generator
    /// does not repeat within its period).
    Random(Vec<u64>, Vec<u64>),
    /// Lines of a file: members and non-members.
    Lines(KeyList, KeyList),
}

impl KeySource {
    /// The keys from the options.
    fn new(args: &CompareArgs) -> Result<Self, CliError> {
        if let Some(path) = &args.keys {
            let data = std::fs::read(path).map_err(|e| {
                CliError::io(format_args!("cannot read --keys '{}'", path.display()), &e)
            })?;
            let (members, others) = keys::split_lines(
                &data,
                &path.display().to_string(),
                keys::LineKeys::from_flag(args.raw_keys),
            )?;
            Ok(KeySource::Lines(members, others))
        } else {
            let (items, queries) = match (args.sweep, args.items, args.queries) {
                (true, None, None) => (SWEEP_ITEMS, SWEEP_QUERIES),
                (_, items, queries) => {
                    let items = items.unwrap_or(DEFAULT_ITEMS);
                    (items, queries.unwrap_or(items))
                }
            };
            let items = check_count("items", items)?;
            let queries = check_count("queries", queries)?;
            let mut rng = SplitMix64::new(args.seed);
            let members = rng.take(items)?;
            let others = rng.take(queries)?;
            Ok(KeySource::Random(members, others))
        }
    }

    /// The members and the non-members.
    fn split(&self) -> (&dyn KeysDyn, &dyn KeysDyn) {
        match self {
            KeySource::Random(m, o) => (m, o),
            KeySource::Lines(m, o) => (m, o),
        }
    }
}

/// Object-safe access to [`Keys`] for dispatch per key source; the loops
/// themselves are monomorphised.
trait KeysDyn {
    /// The number of keys.
    fn count(&self) -> usize;
    /// Fills `filter` with these keys.
    fn fill_into(&self, filter: &mut Filter) -> Filled;
    /// Looks these keys up in `filter`.
    fn lookup_in(&self, filter: &Filter) -> (u64, f64);
    /// Counts the keys not refused that `filter` does not find.
    fn missing(&self, filter: &Filter, refused: &[bool]) -> u64;
    /// Builds a static filter of these keys: (filter, ns per key).
    fn build_static(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<(Static, f64)>;
    /// Looks these keys up in the static `filter`.
    fn lookup_in_static(&self, filter: &Static) -> (u64, f64);
}

impl<K: Keys + ?Sized> KeysDyn for K {
    fn count(&self) -> usize {
        self.len()
    }

    fn fill_into(&self, filter: &mut Filter) -> Filled {
        fill(filter, self)
    }

    fn lookup_in(&self, filter: &Filter) -> (u64, f64) {
        lookup(&**filter, self)
    }

    fn build_static(&self, builder: &VariantBuilder, fp: f64) -> approxset::Result<(Static, f64)> {
        let start = Instant::now();
        let filter = self.build(builder, fp)?;
        Ok((filter, per_op(start.elapsed().as_nanos(), self.len())))
    }

    fn lookup_in_static(&self, filter: &Static) -> (u64, f64) {
        lookup(&**filter, self)
    }

    fn missing(&self, filter: &Filter, refused: &[bool]) -> u64 {
        (0..self.len())
            .filter(|&i| !refused.get(i).copied().unwrap_or(false) && !self.contains(filter, i))
            .count() as u64
    }
}

/// Builds `variant` for `members.count()` keys at `fp`, fills it with
/// `members` and measures it against `others`; a refusal is a warning (in
/// `notes`), not a failure.
fn measure(
    variant: Variant,
    fp: f64,
    (seed, hash): (u64, HashFunction),
    (members, others): (&dyn KeysDyn, &dyn KeysDyn),
    notes: &mut Vec<String>,
) -> approxset::Result<CompareRow> {
    let n = members.count();
    let builder = variant.builder().seed(seed).hash(hash);
    if variant.is_static() {
        // Built from every member at once: the build's time per key is its
        // "insert" time.
        let (filter, insert_ns) = members.build_static(&builder, fp)?;
        let (found, contains_hit_ns) = members.lookup_in_static(&filter);
        let (false_positives, contains_miss_ns) = others.lookup_in_static(&filter);
        let bytes = filter.memory_bytes() as u64;
        return Ok(CompareRow {
            variant: variant.to_string(),
            bits_per_key: bytes as f64 * 8.0 / n as f64,
            bytes,
            target_fp: fp,
            measured_fp: false_positives as f64 / others.count() as f64,
            false_negatives: n as u64 - found,
            insert_ns,
            contains_hit_ns,
            contains_miss_ns,
            supports_delete: false,
            insert_errors: 0,
        });
    }
    let mut filter = builder.build(n, fp)?;
    let filled = members.fill_into(&mut filter);
    let refused = filled.refused.iter().filter(|&&r| r).count() as u64;
    if let Some(e) = &filled.first_error {
        notes.push(format!(
            "{variant} at {fp}: {refused} of {n} insertions refused: {e}"
        ));
    }
    let (found, contains_hit_ns) = members.lookup_in(&filter);
    let false_negatives = if refused == 0 {
        n as u64 - found
    } else {
        members.missing(&filter, &filled.refused)
    };
    let (false_positives, contains_miss_ns) = others.lookup_in(&filter);
    let bytes = filter.memory_bytes() as u64;
    Ok(CompareRow {
        variant: variant.to_string(),
        bits_per_key: bytes as f64 * 8.0 / n as f64,
        bytes,
        target_fp: fp,
        measured_fp: false_positives as f64 / others.count() as f64,
        false_negatives,
        insert_ns: filled.insert_ns,
        contains_hit_ns,
        contains_miss_ns,
        supports_delete: variant.supports_delete(),
        insert_errors: refused,
    })
}

/// The variants chosen with `--variant` (every one by default) that can be
/// hashed with `hash`: without `--variant`, those that can; a variant
/// named that cannot is a usage error.
fn hashed_variants(
    chosen: &[Variant],
    choice: &crate::HashChoice,
) -> Result<Vec<Variant>, CliError> {
    for &v in chosen {
        choice.for_variant(v)?;
    }
    let hash = choice.get();
    let variants: Vec<Variant> = selected(chosen)
        .into_iter()
        .filter(|v| v.supports_hash(hash))
        .collect();
    if variants.is_empty() {
        return Err(CliError::usage(format!(
            "invalid --hash: no variant can use {hash} ({})",
            hash.algorithm()
        )));
    }
    Ok(variants)
}

/// Runs `approxset compare`.
pub(crate) fn run(args: &CompareArgs, json: bool) -> Result<(), CliError> {
    let rates = if args.sweep {
        SWEEP_RATES.to_vec()
    } else {
        vec![args.fp.get()?]
    };
    if let Some(path) = &args.plot {
        plot::check_writable(path)?;
    }
    let source = KeySource::new(args)?;
    let (members, others) = source.split();
    let n = members.count();
    let variants = hashed_variants(&args.variant, &args.hash)?;
    let bar = output::progress((variants.len() * rates.len()) as u64, json);

    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut failed = Vec::new();
    for &variant in &variants {
        for &fp in &rates {
            bar.set_message(format!("{variant} at {fp}"));
            let mut warnings = Vec::new();
            let hashing = (args.seed, args.hash.get());
            match measure(variant, fp, hashing, (members, others), &mut warnings) {
                Ok(row) => rows.push(row),
                // One rate a variant cannot reach does not end a sweep.
                Err(e) if args.sweep => notes.push(format!("{variant} at {fp}: skipped: {e}")),
                Err(e) => failed.push((variant, e)),
            }
            for warning in &warnings {
                bar.suspend(|| eprintln!("warning: {warning}"));
            }
            notes.extend(warnings);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    if args.sweep && rows.is_empty() {
        return Err(CliError::failure("no variant could be built at any rate"));
    }
    notes.extend(output::skip_failed(rows.is_empty(), failed)?);

    let mut report = Report::new(rows);
    let what = match (&source, &args.keys) {
        (KeySource::Lines(..), Some(path)) => format!("lines of '{}'", path.display()),
        _ => format!("random 64-bit keys (seed {})", args.seed),
    };
    let target = if args.sweep {
        "target FP from 0.1 down to 1e-6".to_owned()
    } else {
        format!("target FP {}", rates[0])
    };
    let hash = match args.hash.get() {
        f if f == HashFunction::default() => String::new(),
        other => format!(", hash {other}"),
    };
    let asked = if args.variant.is_empty() {
        "Every variant".to_owned()
    } else {
        variants
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    report.header.push(format!(
        "{asked} for n = {} {what}, {} non-member queries, {target}{hash}",
        output::count(n as u64),
        output::count(others.count() as u64),
    ));
    report.notes.push(
        "ns: the whole loop timed, divided by its count; bits/key: memory * 8 / n".to_owned(),
    );
    if variants.contains(&Variant::Sliding) {
        report.notes.push(format!(
            "sliding: a window of W = n = {} inserts, so every member is in its window; its FP \
             is measured after the n inserts (the target bounds it at every moment, the worst \
             just before a generation ends)",
            output::count(n as u64)
        ));
    }
    report.notes.extend(notes);
    if let Some(path) = &args.plot {
        let chart = if args.sweep {
            sweep_chart(&report.rows, others.count())
        } else {
            chart(&report.rows, rates[0])
        };
        plot::write_svg(path, &chart)?;
        report.notes.push(format!("plot: {}", path.display()));
    }
    report.print(json)
}

/// The figure: bits per key against the measured rate (log axis), one
/// labelled dot per variant, with the classic optimum −ln p/(ln 2)² and the
/// lower bound log₂(1/p) of any filter for reference.
fn chart(rows: &[CompareRow], target: f64) -> Chart {
    let x = plot::log_range(
        rows.iter()
            .map(|r| r.measured_fp)
            .chain([target * 0.5, target * 2.0]),
        target,
    );
    let x = x.start..x.end.min(1.0);
    // A variant without a measured false positive sits on the left edge.
    let floor = x.start;
    let series = references(x.clone(), Style::Line, Style::Dashed);
    let labels = rows
        .iter()
        .enumerate()
        .map(|(i, r)| Label {
            at: (r.measured_fp.max(floor), r.bits_per_key),
            text: if r.measured_fp > 0.0 {
                r.variant.clone()
            } else {
                format!("{} (no FP measured)", r.variant)
            },
            colour: plot::series_colour(i),
        })
        .collect();
    memory_chart(
        format!("Memory against measured false-positive rate, target p = {target}"),
        rows,
        x,
        1.12,
        Scale::Linear,
        series,
        labels,
    )
}

/// The reference curves over `x`: the classic optimum −ln p/(ln 2)² and the
/// lower bound log₂(1/p) of any filter, drawn as `line` and `dashed`.
fn references(x: std::ops::Range<f64>, line: Style, dashed: Style) -> Vec<Series> {
    let curve = |f: fn(f64) -> f64| plot::logspace(x.clone(), 200).map(|p| (p, f(p))).collect();
    vec![
        Series {
            label: Some("classic optimum 1.44 log2(1/p)".to_owned()),
            colour: plot::INK,
            style: line,
            points: curve(sizing::optimal_bits_per_key),
        },
        Series {
            label: Some("lower bound log2(1/p)".to_owned()),
            colour: plot::colour(plot::REFERENCE_COLOUR),
            style: dashed,
            points: curve(|p| -p.log2()),
        },
    ]
}

/// The figure of `--sweep`: bits per key (log axis, so the counting
/// filter's ~120 bits/key at 10⁻⁶ leaves room for the others' 5 to 40)
/// against the measured rate (log axis), one line per variant through its
/// rates with its own mark at each (variants with the same memory, such as
/// classic and partitioned, stay apart by their marks), and the references
/// drawn last as thin dashed lines, so a curve on a reference line shows
/// between the dashes. A rate with no false positive in `queries` lookups
/// is drawn at 1/queries, the smallest rate the run can tell from zero (and
/// said in the legend).
fn sweep_chart(rows: &[CompareRow], queries: usize) -> Chart {
    let floor = 1.0 / queries.max(1) as f64;
    let at = |r: &CompareRow| (r.measured_fp.max(floor), r.bits_per_key);
    let x = plot::log_range(rows.iter().map(|r| at(r).0).chain([floor, 0.2]), floor);
    let x = x.start..x.end.min(1.0);
    let mut series = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.variant.as_str()) {
            names.push(&r.variant);
        }
    }
    for (i, name) in names.iter().enumerate() {
        let mut points: Vec<(f64, f64)> =
            rows.iter().filter(|r| r.variant == *name).map(at).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let unseen = rows
            .iter()
            .any(|r| r.variant == *name && r.measured_fp == 0.0);
        series.push(Series {
            label: Some(if unseen {
                format!("{name} (a rate with no FP at 1/queries)")
            } else {
                (*name).to_owned()
            }),
            colour: plot::series_colour(i),
            style: Style::LineMarks(plot::mark(i)),
            points,
        });
    }
    let mut chart = memory_chart(
        "Memory against measured false-positive rate, targets 10% to 1e-6".to_owned(),
        rows,
        x.clone(),
        // Room above the curves for the legend (top right).
        2.0,
        Scale::Log,
        series,
        Vec::new(),
    );
    // The references over the data, cut to the axis (the lower bound falls
    // to 0 bits at p = 1, which a log axis cannot show).
    let y = chart.y.range.clone();
    for mut reference in references(x, Style::Thin, Style::Thin) {
        reference.points.retain(|&(_, bits)| y.contains(&bits));
        chart.series.push(reference);
    }
    chart
}

/// A chart of bits per key against the measured rate over `x` (log): on a
/// linear axis from 0 to `headroom` × the largest of the rows and the
/// classic optimum at the left edge, or on a log axis from the smallest of
/// the rows over 1.1 to that largest.
fn memory_chart(
    title: String,
    rows: &[CompareRow],
    x: std::ops::Range<f64>,
    headroom: f64,
    scale: Scale,
    series: Vec<Series>,
    labels: Vec<Label>,
) -> Chart {
    let y_max = rows
        .iter()
        .map(|r| r.bits_per_key)
        .chain([sizing::optimal_bits_per_key(x.start)])
        .fold(0.0f64, f64::max)
        * headroom;
    let (y_min, label) = match scale {
        Scale::Linear => (0.0, "bits per key"),
        Scale::Log => (
            rows.iter()
                .map(|r| r.bits_per_key)
                .filter(|b| *b > 0.0)
                .fold(y_max, f64::min)
                / 1.1,
            "bits per key (log scale)",
        ),
    };
    Chart {
        title,
        x: Axis {
            label: "measured false-positive rate (log scale)".to_owned(),
            range: x,
            scale: Scale::Log,
        },
        y: Axis {
            label: label.to_owned(),
            range: y_min..y_max,
            scale,
        },
        series,
        labels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `variant` at `target` with `bits_per_key`, measured at the
    /// target.
    fn row(variant: &str, target: f64, bits_per_key: f64) -> CompareRow {
        CompareRow {
            variant: variant.to_owned(),
            bits_per_key,
            bytes: 0,
            target_fp: target,
            measured_fp: target,
            false_negatives: 0,
            insert_ns: 0.0,
            contains_hit_ns: 0.0,
            contains_miss_ns: 0.0,
            supports_delete: false,
            insert_errors: 0,
        }
    }

    /// The part of the y axis's height that `points` span, as drawn.
    fn height_spanned(chart: &Chart, points: &[(f64, f64)]) -> f64 {
        let (lo, hi) = points
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &(_, y)| {
                (lo.min(y), hi.max(y))
            });
        let y = &chart.y.range;
        match chart.y.scale {
            Scale::Linear => (hi - lo) / (y.end - y.start),
            Scale::Log => (hi / lo).ln() / (y.end / y.start).ln(),
        }
    }

    #[test]
    fn every_sweep_curve_is_visible() {
        // Memory as the variants take it: classic and partitioned on the
        // classic optimum, counting four times as much (120 bits/key at
        // 10⁻⁶), the others near them.
        let mut rows = Vec::new();
        for &fp in &SWEEP_RATES {
            let optimum = sizing::optimal_bits_per_key(fp);
            for (variant, factor) in [
                ("classic", 1.0),
                ("partitioned", 1.0),
                ("counting", 4.0),
                ("cuckoo", 0.9),
                ("scalable", 1.2),
                ("blocked", 1.3),
                ("split-block", 1.4),
            ] {
                rows.push(row(variant, fp, optimum * factor));
            }
        }
        let chart = sweep_chart(&rows, 10_000_000);
        let (variants, references): (Vec<&Series>, Vec<&Series>) = chart
            .series
            .iter()
            .partition(|s| matches!(s.style, Style::LineMarks(_)));
        assert_eq!(variants.len(), 7);
        // Each curve takes a good part of the height, not a thin band.
        for series in &variants {
            let part = height_spanned(&chart, &series.points);
            assert!(part > 0.35, "{:?}: {part}", series.label);
            assert!(series.points.iter().all(|p| chart.y.range.contains(&p.1)));
        }
        // Curves on the same points (classic, partitioned) differ by their
        // marks, and the references lie over them, thin and dashed.
        let marks: Vec<Style> = variants.iter().map(|s| s.style).collect();
        for (i, m) in marks.iter().enumerate() {
            assert!(!marks[..i].contains(m), "{marks:?}");
        }
        assert_eq!(references.len(), 2);
        assert!(references.iter().all(|s| s.style == Style::Thin));
        let first_reference = chart
            .series
            .iter()
            .position(|s| s.style == Style::Thin)
            .unwrap();
        assert_eq!(first_reference, variants.len(), "references drawn last");
        for reference in references {
            assert!(!reference.points.is_empty());
            assert!(
                reference
                    .points
                    .iter()
                    .all(|p| chart.y.range.contains(&p.1))
            );
        }
    }
}
