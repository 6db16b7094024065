//! `approxset compare`: every variant built for the same n and p, filled
//! with the same keys and measured: memory, false-positive rate, false
//! negatives (there must be none) and time per operation.

use approxset::{HashFunction, Variant};

use crate::design::selected;
use crate::error::CliError;
use crate::output::{self, Report};
use crate::plot;

mod charts;
mod measure;
mod spec;

use charts::{chart, sweep_chart};
use measure::{KeySource, measure};
use spec::*;
pub(crate) use spec::{CompareArgs, EXAMPLES};

/// The variants chosen with `--variant` (every one by default) that can be
/// hashed with `hash`: without `--variant`, those that can; a variant
/// named that cannot is a usage error.
fn hashed_variants(
    chosen: &[Variant],
    choice: &crate::options::HashChoice,
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
