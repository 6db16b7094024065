//! SVG plots with plotters' SVG backend only: no bitmap backend and no
//! system fonts (text is written as SVG `<text>` elements and the viewer
//! draws the glyphs).
//!
//! A subcommand describes its figure as a [`Chart`] (axes, series, point
//! labels) and [`write_svg`] draws it, on a linear or a log scale per axis.

use std::ops::Range;
use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

use crate::error::CliError;
use crate::files;

/// The size of a figure in pixels.
const SIZE: (u32, u32) = (960, 640);

/// The font family of every text.
const FONT: &str = "sans-serif";

/// Distinct colours (Tableau 10), one per series.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The `i`-th colour of the palette (cycling).
pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The palette entry of the reference lower bound (grey).
pub(crate) const REFERENCE_COLOUR: usize = 7;

/// The colour of the `i`-th data series: the palette without the grey of
/// the reference lower bound, so no variant's curve looks like it.
pub(crate) fn series_colour(i: usize) -> RGBColor {
    let i = i % (PALETTE.len() - 1);
    colour(if i >= REFERENCE_COLOUR { i + 1 } else { i })
}

/// Black, for reference series and legend keys.
pub(crate) const INK: RGBColor = RGBColor(0, 0, 0);

/// The scale of an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// Linear.
    Linear,
    /// Logarithmic (base 10); the range must be positive.
    Log,
}

/// An axis: its description, range and scale.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    /// The axis label.
    pub(crate) label: String,
    /// The range shown.
    pub(crate) range: Range<f64>,
    /// Linear or logarithmic.
    pub(crate) scale: Scale,
}

impl Axis {
    /// The false-positive rate over `range`, on a log scale: the y axis of
    /// every experiment's chart.
    pub(crate) fn fp_rate(range: Range<f64>) -> Self {
        Axis {
            label: "false-positive rate (log scale)".to_owned(),
            range,
            scale: Scale::Log,
        }
    }
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// A solid line through the points.
    Line,
    /// A dashed line through the points.
    Dashed,
    /// A thin dashed line through the points, for a reference drawn over
    /// the data: what lies under it shows between the dashes.
    Thin,
    /// A mark at each point.
    Points(Mark),
    /// A solid line through the points with a mark at each; its legend key
    /// is the mark, so curves that coincide stay apart by their marks.
    LineMarks(Mark),
}

/// The mark drawn at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A filled dot.
    Dot,
    /// A hollow circle, larger than a dot: a dot inside it stays visible.
    Ring,
    /// A hollow square.
    Square,
    /// A filled triangle.
    Triangle,
    /// A cross.
    Cross,
    /// A filled square.
    Block,
    /// A hollow triangle, larger than the filled one.
    OpenTriangle,
}

impl Mark {
    /// Every mark, for series to take in turn ([`mark`]).
    pub(crate) const ALL: [Mark; 7] = [
        Mark::Dot,
        Mark::Ring,
        Mark::Square,
        Mark::Triangle,
        Mark::Cross,
        Mark::Block,
        Mark::OpenTriangle,
    ];
}

/// The `i`-th mark (cycling), for the `i`-th series.
pub(crate) fn mark(i: usize) -> Mark {
    Mark::ALL[i % Mark::ALL.len()]
}

/// The element of `mark` in `colour` at the pixel offset `at`.
fn mark_element<'b, DB: DrawingBackend>(
    mark: Mark,
    at: (i32, i32),
    colour: RGBColor,
) -> DynElement<'b, DB, (i32, i32)> {
    let (x, y) = at;
    let outline = colour.stroke_width(2);
    match mark {
        Mark::Dot => Circle::new(at, 4, colour.filled()).into_dyn(),
        Mark::Ring => Circle::new(at, 7, outline).into_dyn(),
        Mark::Square => Rectangle::new([(x - 5, y - 5), (x + 5, y + 5)], outline).into_dyn(),
        Mark::Block => Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], colour.filled()).into_dyn(),
        Mark::Triangle => TriangleMarker::new(at, 6, colour.filled()).into_dyn(),
        Mark::OpenTriangle => TriangleMarker::new(at, 8, outline).into_dyn(),
        Mark::Cross => Cross::new(at, 5, outline).into_dyn(),
    }
}

/// A series of points in data coordinates.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// The legend entry; `None` for no entry. A series with a label and no
    /// points is a legend key only.
    pub(crate) label: Option<String>,
    /// Its colour.
    pub(crate) colour: RGBColor,
    /// How it is drawn.
    pub(crate) style: Style,
    /// The points.
    pub(crate) points: Vec<(f64, f64)>,
}

/// A dot with a text beside it.
#[derive(Clone, Debug)]
pub(crate) struct Label {
    /// Where, in data coordinates.
    pub(crate) at: (f64, f64),
    /// The text.
    pub(crate) text: String,
    /// The colour of the dot.
    pub(crate) colour: RGBColor,
}

/// A figure.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    /// The caption.
    pub(crate) title: String,
    /// The horizontal axis.
    pub(crate) x: Axis,
    /// The vertical axis.
    pub(crate) y: Axis,
    /// The series, drawn in order.
    pub(crate) series: Vec<Series>,
    /// Labelled dots, drawn over the series.
    pub(crate) labels: Vec<Label>,
}

/// Checks before a long run that `path` can be written, without creating
/// it: a run that fails later leaves no file behind.
///
/// # Errors
/// A failure naming the file.
pub(crate) fn check_writable(path: &Path) -> Result<(), CliError> {
    files::check_writable(path, "plot")
}

/// Draws `chart` into the SVG file `path`, which appears only once the
/// whole figure is drawn (see [`files::write_atomically`]).
///
/// # Errors
/// A failure when the figure cannot be drawn or the file written.
pub(crate) fn write_svg(path: &Path, chart: &Chart) -> Result<(), CliError> {
    let mut svg = String::new();
    render(&mut svg, chart)
        .map_err(|e| CliError::failure(format!("cannot draw plot '{}': {e}", path.display())))?;
    let svg = with_desc(&svg, &format!("regenerate with: {}", command_line()));
    files::write_atomically(path, svg.as_bytes(), "plot")
}

/// This run's command line, as `approxset ARG…`, each argument that is not
/// plain quoted for a POSIX shell.
fn command_line() -> String {
    let mut line = String::from("approxset");
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy();
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@".contains(c));
        line.push(' ');
        if plain {
            line.push_str(&arg);
        } else {
            line.push('\'');
            line.push_str(&arg.replace('\'', "'\\''"));
            line.push('\'');
        }
    }
    line
}

/// `svg` with a `<desc>` element holding `text` (escaped for XML) right
/// after its `<svg …>` tag, or first when there is none.
fn with_desc(svg: &str, text: &str) -> String {
    let text = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let desc = format!("\n<desc>{text}</desc>");
    let at = svg
        .find("<svg")
        .and_then(|start| svg[start..].find('>').map(|end| start + end + 1))
        .unwrap_or(0);
    let mut out = String::with_capacity(svg.len() + desc.len());
    out.push_str(&svg[..at]);
    out.push_str(&desc);
    out.push_str(&svg[at..]);
    out
}

/// Draws `chart` as SVG text into `svg`.
fn render(svg: &mut String, chart: &Chart) -> Result<(), String> {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    // A log axis labels the powers of ten inside its range; widen it a hair
    // so that ends at a power of ten are labelled despite rounding.
    let widen = |r: &Range<f64>| r.start * 0.999..r.end * 1.001;
    let (x, y) = (chart.x.range.clone(), chart.y.range.clone());
    let drawn = match (chart.x.scale, chart.y.scale) {
        (Scale::Linear, Scale::Linear) => draw(&root, chart, x, y),
        (Scale::Linear, Scale::Log) => draw(&root, chart, x, widen(&y).log_scale()),
        (Scale::Log, Scale::Linear) => draw(&root, chart, widen(&x).log_scale(), y),
        (Scale::Log, Scale::Log) => {
            draw(&root, chart, widen(&x).log_scale(), widen(&y).log_scale())
        }
    };
    drawn
        .and_then(|()| root.present())
        .map_err(|e| e.to_string())
}

/// The error of drawing on the SVG backend.
type DrawError<'a> = DrawingAreaErrorKind<<SVGBackend<'a> as DrawingBackend>::ErrorType>;

/// Draws the chart with the given coordinate specs (linear or log ranges).
fn draw<'a, X, Y>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    chart: &Chart,
    x: X,
    y: Y,
) -> Result<(), DrawError<'a>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    root.fill(&WHITE)?;
    let mut ctx = ChartBuilder::on(root)
        .caption(&chart.title, (FONT, 22))
        .margin(16)
        .margin_right(28)
        .x_label_area_size(56)
        .y_label_area_size(84)
        .build_cartesian_2d(x, y)?;
    ctx.configure_mesh()
        .x_desc(chart.x.label.as_str())
        .y_desc(chart.y.label.as_str())
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 14))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()?;

    for series in &chart.series {
        let colour = series.colour;
        let line = colour.stroke_width(2);
        let thin = colour.stroke_width(1);
        let points = series.points.clone();
        let marks = |mark: Mark, points: Vec<(f64, f64)>| {
            points
                .into_iter()
                .map(move |p| EmptyElement::at(p) + mark_element(mark, (0, 0), colour))
        };
        let annotation = match series.style {
            Style::Line => ctx.draw_series(LineSeries::new(points, line))?,
            Style::Dashed => ctx.draw_series(DashedLineSeries::new(points, 8, 5, line))?,
            Style::Thin => ctx.draw_series(DashedLineSeries::new(points, 6, 6, thin))?,
            Style::Points(mark) => ctx.draw_series(marks(mark, points))?,
            Style::LineMarks(mark) => {
                ctx.draw_series(LineSeries::new(points.clone(), line))?;
                ctx.draw_series(marks(mark, points))?
            }
        };
        if let Some(label) = &series.label {
            let style = series.style;
            annotation.label(label.as_str()).legend(move |(x, y)| {
                let key: DynElement<'static, SVGBackend<'a>, (i32, i32)> = match style {
                    // The mark in the series' colour names the curve.
                    Style::Points(mark) | Style::LineMarks(mark) => {
                        mark_element(mark, (x + 10, y), colour)
                    }
                    Style::Line | Style::Dashed => {
                        PathElement::new(vec![(x, y), (x + 20, y)], line).into_dyn()
                    }
                    Style::Thin => PathElement::new(vec![(x, y), (x + 20, y)], thin).into_dyn(),
                };
                key
            });
        }
    }

    let dots: Vec<(i32, i32)> = chart
        .labels
        .iter()
        .map(|l| ctx.backend_coord(&l.at))
        .collect();
    let (xs, ys) = ctx.plotting_area().get_pixel_range();
    let legend_width = chart
        .series
        .iter()
        .filter_map(|s| s.label.as_ref())
        .map(|l| text_width(l) + 60)
        .max();
    let legend_entries = chart.series.iter().filter(|s| s.label.is_some()).count() as i32;
    let mut taken: Vec<PixelBox> = dots
        .iter()
        .map(|&(x, y)| (x - DOT, y - DOT, x + DOT, y + DOT))
        .chain(legend_width.map(|w| {
            (
                xs.end - w,
                ys.start,
                xs.end,
                ys.start + 20 * legend_entries + 20,
            )
        }))
        .collect();
    for (label, &dot) in chart.labels.iter().zip(&dots) {
        let offset = place(&label.text, dot, (&xs, &ys), &mut taken);
        ctx.draw_series(std::iter::once(
            EmptyElement::at(label.at)
                + Circle::new((0, 0), DOT, label.colour.filled())
                + Circle::new((0, 0), DOT, INK.stroke_width(1))
                + Text::new(label.text.clone(), offset, (FONT, LABEL_SIZE).into_font()),
        ))?;
    }

    if chart.series.iter().any(|s| s.label.is_some()) {
        ctx.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 15))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(160, 160, 160))
            .draw()?;
    }
    Ok(())
}

/// The radius of a labelled dot, in pixels.
const DOT: i32 = 6;

/// The font size of point labels.
const LABEL_SIZE: i32 = 15;

/// A box in pixels: left, top, right, bottom.
type PixelBox = (i32, i32, i32, i32);

/// The width in pixels of `text` at [`LABEL_SIZE`], estimated (the SVG
/// backend has no font metrics): a little over half an em per character.
fn text_width(text: &str) -> i32 {
    (text.chars().count() as f64 * f64::from(LABEL_SIZE) * 0.56).ceil() as i32
}

/// Where to put the text of a label whose dot is at `dot` (pixels): the
/// first of a few offsets around the dot where it stays inside the plot and
/// overlaps no box `taken` (dots, the legend, earlier labels). The box chosen
/// is added to `taken`. Returns the offset of the text's top-left corner.
fn place(
    text: &str,
    dot: (i32, i32),
    (xs, ys): (&Range<i32>, &Range<i32>),
    taken: &mut Vec<PixelBox>,
) -> (i32, i32) {
    let (w, h) = (text_width(text), LABEL_SIZE + 3);
    let gap = DOT + 2;
    let candidates = [
        (gap, -h - 2),
        (gap, 2),
        (-gap - w, -h - 2),
        (-gap - w, 2),
        (gap, -2 * h - 2),
        (gap, h + 2),
        (-gap - w, -2 * h - 2),
        (-gap - w, h + 2),
        (-w / 2, -2 * h - 8),
        (-w / 2, h + 8),
    ];
    let boxed = |(dx, dy): (i32, i32)| (dot.0 + dx, dot.1 + dy, dot.0 + dx + w, dot.1 + dy + h);
    let inside =
        |b: &PixelBox| b.0 >= xs.start && b.2 <= xs.end && b.1 >= ys.start && b.3 <= ys.end;
    let free = |b: &PixelBox| {
        !taken
            .iter()
            .any(|t| b.0 < t.2 && t.0 < b.2 && b.1 < t.3 && t.1 < b.3)
    };
    let offset = candidates
        .iter()
        .copied()
        .find(|&c| inside(&boxed(c)) && free(&boxed(c)))
        .or_else(|| candidates.iter().copied().find(|&c| inside(&boxed(c))))
        .unwrap_or(candidates[0]);
    taken.push(boxed(offset));
    offset
}

/// A tick label: three significant digits, plain down to 0.001, then
/// scientific (`1e-4`, `2.5e-5`).
fn tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let rounded: f64 = format!("{v:.2e}").parse().unwrap_or(v);
    if rounded.abs() >= 1e-3 {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

/// A linear range of `steps + 1` evenly spaced values from `range.start` to
/// `range.end`, for smooth theory curves.
pub(crate) fn linspace(range: Range<f64>, steps: usize) -> impl Iterator<Item = f64> {
    let step = (range.end - range.start) / steps.max(1) as f64;
    (0..=steps).map(move |i| range.start + step * i as f64)
}

/// A geometric range of `steps + 1` values from `range.start` to
/// `range.end` (both positive), for curves on a log axis.
pub(crate) fn logspace(range: Range<f64>, steps: usize) -> impl Iterator<Item = f64> {
    let (a, b) = (range.start.ln(), range.end.ln());
    linspace(a..b, steps).map(f64::exp)
}

/// A log-axis range around positive `values`: from a power of ten below the
/// least to one above the greatest (`floor` when there is no positive value).
pub(crate) fn log_range(values: impl IntoIterator<Item = f64>, floor: f64) -> Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values.into_iter().filter(|v| *v > 0.0 && v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return floor..floor * 10.0;
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    lo..hi
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_goes_into_a_desc_element_escaped() {
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"9\">\n<rect/>\n</svg>\n";
        let out = super::with_desc(svg, "a --b <c> & d");
        assert_eq!(
            out,
            "<?xml version=\"1.0\"?>\n<svg width=\"9\">\n<desc>a --b &lt;c&gt; &amp; d</desc>\n<rect/>\n</svg>\n"
        );
    }

    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.0020000000000000005), "0.002");
        assert_eq!(tick(0.0001), "1e-4");
        assert_eq!(tick(2.5e-5), "2.5e-5");
        assert_eq!(tick(8.0), "8");
        assert_eq!(tick(0.5), "0.5");
    }

    #[test]
    fn labels_of_close_dots_do_not_overlap() {
        let area = (&(0..800), &(0..600));
        let mut taken = vec![(394, 294, 406, 306), (394, 300, 406, 312)];
        let a = place("classic", (400, 300), area, &mut taken);
        let b = place("partitioned", (400, 306), area, &mut taken);
        assert_ne!(a, b);
        let (ba, bb) = (taken[2], taken[3]);
        assert!(ba.2 <= bb.0 || bb.2 <= ba.0 || ba.3 <= bb.1 || bb.3 <= ba.1);
        // At the right edge the text goes to the left of the dot.
        let c = place("scalable", (795, 100), area, &mut taken);
        assert!(c.0 < 0);
    }

    #[test]
    fn log_ranges_cover_the_values() {
        assert_eq!(log_range([0.0235, 0.00014, 0.0], 1e-3), 1e-4..0.1);
        assert_eq!(log_range([0.0], 1e-3), 1e-3..1e-2);
        let xs: Vec<f64> = logspace(0.001..0.1, 2).collect();
        assert!((xs[1] - 0.01).abs() < 1e-12);
    }
}
