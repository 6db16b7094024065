//! The figures of `compare`: bits per key against the measured rate, the
//! sweep over rates, and memory.

use approxset::sizing;

use super::spec::*;
use crate::plot::{self, Axis, Chart, Label, Scale, Series, Style};

/// The figure: bits per key against the measured rate (log axis), one
/// labelled dot per variant, with the classic optimum −ln p/(ln 2)² and the
/// lower bound log₂(1/p) of any filter for reference.
pub(super) fn chart(rows: &[CompareRow], target: f64) -> Chart {
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
pub(super) fn references(x: std::ops::Range<f64>, line: Style, dashed: Style) -> Vec<Series> {
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
pub(super) fn sweep_chart(rows: &[CompareRow], queries: usize) -> Chart {
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
pub(super) fn memory_chart(
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
    #![allow(unused_imports)]
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
