//! `approxset experiment sliding`: the false-positive rate of a sliding
//! filter over time. Keys `member-0, member-1, …` stream through a filter
//! with a window of `W` inserts at target `p`, for each `W` asked; every
//! `⌈g/4⌉` inserts the rate is measured on a fixed set of fresh keys
//! (`nonmember-j`) and on the members that left the window (more than
//! `(r + 1)·g` inserts ago: their block cleared, so false positives only),
//! beside the rate the formula gives at the worst moment (every generation
//! full) and the one estimated from the blocks' fills.

use std::io::Write;

use approxset::{Digest, HashKey, SlidingBloomFilter, sizing};
use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::keys::KeyList;
use crate::options::check_count;
use crate::output::{self, Report};
use crate::plot::{self, Axis, Chart, Mark, Scale, Series, Style};

/// Examples shown by `approxset experiment sliding --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset experiment sliding --plot docs/sliding.svg
  approxset experiment sliding --windows 1000 --fp 0.001 --queries 20000
  approxset experiment sliding --generations 50 --windows 10000 --queries 20000
  approxset experiment sliding --windows 10000 --json";

/// The most windows streamed one after another.
const MAX_PASSES: usize = 100;

/// The options of `approxset experiment sliding`.
#[derive(Debug, Args)]
pub(crate) struct SlidingArgs {
    /// The windows W, in inserts (comma-separated): one filter each.
    #[arg(
        long,
        value_name = "W",
        value_delimiter = ',',
        default_values_t = [10_000usize, 100_000]
    )]
    windows: Vec<usize>,

    #[command(flatten)]
    fp: crate::options::TargetFp,

    /// Inserts streamed, in windows: passes·W keys per filter.
    #[arg(long, value_name = "N", default_value_t = 3)]
    passes: usize,

    /// Fresh keys asked at each point (nonmember-0, …), and at most as
    /// many forgotten members.
    #[arg(long, value_name = "Q", default_value_t = 100_000)]
    queries: usize,

    /// Generations r of the filters (r + 1 blocks, 1 to 63); 0 for the
    /// number that takes the fewest bits.
    #[arg(long, value_name = "R", default_value_t = 0)]
    generations: u32,

    #[command(flatten)]
    run: crate::options::RunChoice,
}

/// One measurement: a point of the series (`--json` prints them all).
#[derive(Debug, Serialize)]
pub(crate) struct Point {
    /// The window W asked for.
    window: usize,
    /// Keys inserted so far.
    inserts: u64,
    /// The rate measured on the fresh keys.
    measured_fp: f64,
    /// The rate estimated from the blocks' fills.
    estimated_fp: f64,
    /// The rate on the members that just left: inserted between
    /// `(r + 2)·g` and `(r + 1)·g` inserts ago, their block cleared at most
    /// a generation ago; absent before there are any.
    forgotten_fp: Option<f64>,
    /// How many of them were asked (at most g and Q).
    forgotten_queries: u64,
    /// The rate on members older than `(r + 2)·g` inserts (at most Q, the
    /// most recent); absent before there are any.
    gone_fp: Option<f64>,
    /// How many of them were asked.
    gone_queries: u64,
}

/// One window's summary: a row of the human table.
#[derive(Debug, Serialize)]
pub(crate) struct Summary {
    window: usize,
    hashes: u32,
    generations: u32,
    generation_size: u64,
    bits_per_key: f64,
    worst_fp: f64,
    max_measured_fp: f64,
    mean_measured_fp: f64,
    just_left_fp: f64,
    gone_fp: f64,
    false_negatives: u64,
}

output::table_row!(Summary {
    number "W" => |r| output::count(r.window as u64),
    number "k" => |r| r.hashes.to_string(),
    number "r" => |r| r.generations.to_string(),
    number "g" => |r| output::count(r.generation_size),
    number "bits/key" => |r| format!("{:.2}", r.bits_per_key),
    number "worst FP (formula)" => |r| output::rate(r.worst_fp),
    number "max measured" => |r| output::rate(r.max_measured_fp),
    number "mean" => |r| output::rate(r.mean_measured_fp),
    number "just left" => |r| output::rate(r.just_left_fp),
    number "gone" => |r| output::rate(r.gone_fp),
    number "false neg." => |r| r.false_negatives.to_string(),
});

/// The share of `digests` that `present` says yes to.
fn rate(digests: &[Digest], present: impl Fn(Digest) -> bool) -> f64 {
    let hits = digests.iter().filter(|&&d| present(d)).count();
    hits as f64 / digests.len().max(1) as f64
}

/// The rate over every point's queries together: the hits `f` gives
/// (rate and queries) summed, over the queries summed.
fn pooled(points: &[Point], f: fn(&Point) -> (Option<f64>, u64)) -> f64 {
    let (hits, queries) = points.iter().fold((0.0, 0u64), |(h, q), p| match f(p) {
        (Some(rate), n) => (h + rate * n as f64, q + n),
        (None, _) => (h, q),
    });
    hits / queries.max(1) as f64
}

/// The digests of `keys` under `key`, or a failure when the memory cannot
/// be had.
fn digests(keys: &KeyList, key: HashKey) -> Result<Vec<Digest>, CliError> {
    let mut out = Vec::new();
    out.try_reserve_exact(keys.len()).map_err(|_| {
        CliError::failure(format!("cannot allocate memory for {} digests", keys.len()))
    })?;
    out.extend(keys.iter().map(|k| key.digest_bytes(k)));
    Ok(out)
}

/// Streams `passes·window` keys through a sliding filter, measuring as
/// the module says.
fn stream(
    args: &SlidingArgs,
    window: usize,
    fp: f64,
    fresh: &KeyList,
) -> Result<(Summary, Vec<Point>), CliError> {
    let hash = args.run.hash.for_variant(approxset::Variant::Sliding)?;
    let mut builder = SlidingBloomFilter::with_fp_rate(fp)
        .seed(args.run.seed)
        .hash(hash);
    if args.generations > 0 {
        builder = builder.generations(args.generations);
    }
    let mut filter = builder.window(window)?;
    let key = filter.hash_key();
    let params = filter.params();
    let (r, g) = (u64::from(params.generations()), params.generation_size());
    let total = window
        .checked_mul(args.passes)
        .ok_or_else(|| CliError::usage("invalid --passes: passes·W is too large"))?;
    let members = digests(&KeyList::numbered("member-", total)?, key)?;
    let fresh = digests(fresh, key)?;
    let step = g.div_ceil(4).max(1);
    let horizon = (r + 1) * g;
    let gone_after = (r + 2) * g;
    let mut points = Vec::new();
    let mut false_negatives = 0u64;
    for (i, &d) in members.iter().enumerate() {
        filter.insert_digest(d)?;
        let inserts = i as u64 + 1;
        if !inserts.is_multiple_of(step) && inserts != total as u64 {
            continue;
        }
        // The window never misses a key: the last W are checked at every
        // point.
        let from = (inserts as usize).saturating_sub(window);
        false_negatives += members[from..=i]
            .iter()
            .filter(|&&d| !filter.contains_digest(d))
            .count() as u64;
        let past = inserts.saturating_sub(horizon) as usize;
        let forgotten = &members[past.saturating_sub(args.queries.min(g as usize))..past];
        let gone = inserts.saturating_sub(gone_after) as usize;
        let gone = &members[gone.saturating_sub(args.queries)..gone];
        points.push(Point {
            window,
            inserts,
            measured_fp: rate(&fresh, |d| filter.contains_digest(d)),
            estimated_fp: filter.estimated_fp_rate(),
            forgotten_fp: (!forgotten.is_empty())
                .then(|| rate(forgotten, |d| filter.contains_digest(d))),
            forgotten_queries: forgotten.len() as u64,
            gone_fp: (!gone.is_empty()).then(|| rate(gone, |d| filter.contains_digest(d))),
            gone_queries: gone.len() as u64,
        });
    }
    let max = |f: fn(&Point) -> Option<f64>| points.iter().filter_map(f).fold(0.0, f64::max);
    let summary = Summary {
        window,
        hashes: params.hashes(),
        generations: params.generations(),
        generation_size: g,
        bits_per_key: filter.memory_bytes() as f64 * 8.0 / window as f64,
        worst_fp: sizing::fp_rate_sliding(params),
        max_measured_fp: max(|p| Some(p.measured_fp)),
        // Over the points from the first generation end on (the filter
        // full), which the rates of forgotten keys compare with.
        mean_measured_fp: {
            let full: Vec<f64> = points
                .iter()
                .filter(|p| p.inserts >= horizon)
                .map(|p| p.measured_fp)
                .collect();
            full.iter().sum::<f64>() / full.len().max(1) as f64
        },
        just_left_fp: pooled(&points, |p| (p.forgotten_fp, p.forgotten_queries)),
        gone_fp: pooled(&points, |p| (p.gone_fp, p.gone_queries)),
        false_negatives,
    };
    Ok((summary, points))
}

/// Runs `approxset experiment sliding`.
pub(crate) fn run(args: &SlidingArgs, json: bool) -> Result<(), CliError> {
    let fp = args.fp.get()?;
    let queries = check_count("queries", args.queries)?;
    if !(1..=MAX_PASSES).contains(&args.passes) {
        return Err(CliError::usage(format!(
            "invalid --passes: must be between 1 and {MAX_PASSES}, got {}",
            args.passes
        )));
    }
    if args.generations >= sizing::MAX_SLICES {
        return Err(CliError::usage(format!(
            "invalid --generations: must be between 0 and {}, got {}",
            sizing::MAX_SLICES - 1,
            args.generations
        )));
    }
    if args.windows.is_empty() {
        return Err(CliError::usage(
            "invalid --windows: give at least one window",
        ));
    }
    for &w in &args.windows {
        check_count("windows", w)?;
    }
    if let Some(path) = &args.run.plot {
        plot::check_writable(path)?;
    }
    let fresh = KeyList::numbered("nonmember-", queries)?;
    let bar = output::progress(args.windows.len() as u64, json);
    let mut summaries = Vec::new();
    let mut points = Vec::new();
    for &window in &args.windows {
        bar.set_message(format!("W = {window}"));
        let (summary, mut series) = stream(args, window, fp, &fresh)?;
        summaries.push(summary);
        points.append(&mut series);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(path) = &args.run.plot {
        plot::write_svg(path, &chart(&summaries, &points, fp, args))?;
    }
    if json {
        // The series: one object per point, every window's in turn.
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &points)
            .map_err(|e| CliError::from(std::io::Error::from(e)))?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let mut report = Report::new(summaries);
    report.header.push(format!(
        "Sliding filter over time: passes·W = {}·W keys member-i streamed, at target FP {fp}, \
         {} fresh queries nonmember-j every ⌈g/4⌉ inserts, seed {}",
        args.passes,
        output::count(queries as u64),
        args.run.seed
    ));
    report.notes.push(
        "worst FP: the formula's rate just before a generation ends (every generation full); \
         max measured: the highest rate on the fresh keys at any point; mean: their mean once \
         (r + 1)·g keys are in; just left: the rate over every point's members (r + 1)·g to \
         (r + 2)·g inserts old, their block cleared at most a generation ago; gone: the rate \
         over every point's members more than (r + 2)·g inserts old; both are a fresh key's \
         rate; false neg.: keys of the last W missing, summed over the points (always 0)"
            .to_owned(),
    );
    if let Some(path) = &args.run.plot {
        report.notes.push(format!("plot: {}", path.display()));
    }
    report.print(false)
}

/// The figure: FP against inserts (in windows), per window the measured
/// rate on fresh keys, on forgotten keys and the worst-moment formula, with
/// the target.
fn chart(summaries: &[Summary], points: &[Point], fp: f64, args: &SlidingArgs) -> Chart {
    let mut series = Vec::new();
    for (i, s) in summaries.iter().enumerate() {
        let w = s.window;
        let colour = plot::series_colour(i);
        let mine: Vec<&Point> = points.iter().filter(|p| p.window == w).collect();
        let x = |p: &Point| p.inserts as f64 / w as f64;
        let curve = |f: fn(&Point) -> Option<f64>, every: usize| -> Vec<(f64, f64)> {
            mine.iter()
                .step_by(every)
                .filter_map(|p| Some((x(p), f(p)?)))
                .collect()
        };
        // The window's colour in the legend; the styles below say what.
        series.push(Series {
            label: Some(format!(
                "W = {}: k = {}, r = {}, g = {}, {:.1} bits/key",
                output::count(w as u64),
                s.hashes,
                s.generations,
                output::count(s.generation_size),
                s.bits_per_key
            )),
            colour,
            style: Style::Line,
            points: curve(|p| Some(p.measured_fp), 1),
        });
        series.push(Series {
            label: None,
            colour,
            style: Style::Points(Mark::Ring),
            points: curve(|p| p.forgotten_fp, 4),
        });
        series.push(Series {
            label: None,
            colour,
            style: Style::Points(Mark::Cross),
            points: curve(|p| p.gone_fp, 4),
        });
        series.push(Series {
            label: None,
            colour,
            style: Style::Dashed,
            points: vec![(0.0, s.worst_fp), (args.passes as f64, s.worst_fp)],
        });
    }
    let key = |label: String, style: Style| Series {
        label: Some(label),
        colour: plot::INK,
        style,
        points: Vec::new(),
    };
    series.extend([
        key("fresh keys (line)".to_owned(), Style::Line),
        key(
            "keys that just left: (r+1)g to (r+2)g inserts old".to_owned(),
            Style::Points(Mark::Ring),
        ),
        key(
            "keys older than (r+2)g inserts".to_owned(),
            Style::Points(Mark::Cross),
        ),
        key("worst moment, formula".to_owned(), Style::Dashed),
    ]);
    series.push(Series {
        label: Some(format!("target p = {fp}")),
        colour: plot::colour(plot::REFERENCE_COLOUR),
        style: Style::Line,
        points: vec![(0.0, fp), (args.passes as f64, fp)],
    });
    // From a tenth of the target (the first inserts, below it, are cut) to
    // 1, and room above for the legend.
    let y = fp * 0.1..100.0;
    for s in &mut series {
        s.points.retain(|&(_, v)| y.contains(&v));
    }
    Chart {
        title: format!(
            "Sliding filter: false-positive rate over time, target p = {fp}, {} fresh keys \
             per point",
            output::count(args.queries as u64)
        ),
        x: Axis {
            label: "keys inserted, in windows W".to_owned(),
            range: 0.0..args.passes as f64,
            scale: Scale::Linear,
        },
        y: Axis::fp_rate(y),
        series,
        labels: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: SlidingArgs,
    }

    fn args(line: &[&str]) -> SlidingArgs {
        let mut all = vec!["t"];
        all.extend_from_slice(line);
        Cli::try_parse_from(all).unwrap().args
    }

    /// The false-positive count a correct filter stays under at a true
    /// rate of at most `p` over `q` queries: mean plus seven standard
    /// deviations (a normal tail under 1.3·10⁻¹², so under 10⁻⁹ over the
    /// few thousand points of a run) plus one for the discreteness.
    fn bound(q: u64, p: f64) -> f64 {
        let mean = q as f64 * p;
        mean + 7.0 * (mean * (1.0 - p)).sqrt() + 1.0
    }

    #[test]
    fn a_small_stream_keeps_its_window_and_its_rate() {
        let a = args(&[
            "--windows",
            "1,10,1000",
            "--queries",
            "5000",
            "--passes",
            "3",
        ]);
        let fresh = KeyList::numbered("nonmember-", a.queries).unwrap();
        for &w in &a.windows {
            let (s, points) = stream(&a, w, 0.01, &fresh).unwrap();
            assert_eq!(s.false_negatives, 0, "W = {w}");
            assert!(s.worst_fp <= 0.01, "W = {w}: {s:?}");
            assert_eq!(points.last().unwrap().inserts, 3 * w as u64);
            // Points every ⌈g/4⌉ inserts: about 4·r a window.
            let per_window = points.len() as f64 / 3.0;
            assert!(
                per_window >= f64::from(s.generations),
                "W = {w}: {}",
                points.len()
            );
            let q = a.queries as u64;
            for p in &points {
                assert!(p.measured_fp * q as f64 <= bound(q, 0.01), "W = {w}: {p:?}");
                // Keys past the horizon are gone: a fresh key's rate.
                for (f, n) in [
                    (p.gone_fp, p.gone_queries),
                    (p.forgotten_fp, p.forgotten_queries),
                ] {
                    if let Some(f) = f {
                        assert!(f * n as f64 <= bound(n, 0.01), "W = {w}: {p:?}");
                    }
                }
            }
            // Keys leave: by the last point some are past (r + 2)·g.
            let gone_after = u64::from(s.generations + 2) * s.generation_size;
            let last = points.last().unwrap();
            assert_eq!(last.gone_queries > 0, 3 * w as u64 > gone_after, "W = {w}");
            assert!(last.forgotten_queries > 0 || w < 10, "W = {w}");
        }
    }

    #[test]
    fn bad_options_are_usage_errors() {
        for line in [
            &["--passes", "0"][..],
            &["--passes", "101"],
            &["--windows", "0"],
            &["--fp", "1.5"],
            &["--queries", "0"],
            &["--generations", "64"],
        ] {
            let e = run(&args(line), true).unwrap_err();
            assert!(matches!(e, CliError::Usage(_)), "{line:?}: {e}");
        }
    }
}
