//! Output: the JSON document or the aligned table on standard output, number
//! formatting for the tables, and the progress bar on standard error.

use std::io::{self, IsTerminal, Write};

use approxset::Variant;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::error::CliError;

/// How a column is aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text: flush left.
    Left,
    /// Numbers: flush right.
    Right,
}

/// A table column: its header and alignment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Column {
    /// The header.
    pub(crate) name: &'static str,
    /// The alignment of header and cells.
    pub(crate) align: Align,
}

impl Column {
    /// A left-aligned (text) column.
    pub(crate) const fn text(name: &'static str) -> Self {
        Column {
            name,
            align: Align::Left,
        }
    }

    /// A right-aligned (number) column.
    pub(crate) const fn number(name: &'static str) -> Self {
        Column {
            name,
            align: Align::Right,
        }
    }
}

/// A result row: serialised as-is for `--json`, formatted as cells for the
/// table.
pub(crate) trait TableRow: Serialize {
    /// The table's columns.
    const COLUMNS: &'static [Column];

    /// The row's cells, one per column.
    fn cells(&self) -> Vec<String>;
}

/// Implements [`TableRow`] for a row type from one list of its columns,
/// each its alignment (`text` or `number`), its header and its cell from
/// the row `r`, so a column's header and cell are stated once, together:
/// the one home of every table's layout.
///
/// ```text
/// output::table_row!(Row {
///     number "k" => |r| r.k.to_string(),
///     text "note" => |r| r.note.clone(),
/// });
/// ```
macro_rules! table_row {
    ($row:ty { $($align:ident $name:literal => |$r:ident| $cell:expr),+ $(,)? }) => {
        impl $crate::output::TableRow for $row {
            const COLUMNS: &'static [$crate::output::Column] =
                &[$($crate::output::Column::$align($name)),+];

            fn cells(&self) -> Vec<String> {
                vec![$({
                    let $r = self;
                    $cell
                }),+]
            }
        }
    };
}
pub(crate) use table_row;

/// A subcommand's result: rows, plus lines of text before and after the table
/// that only the human output shows.
#[derive(Debug)]
pub(crate) struct Report<R> {
    /// The rows: the JSON array, the table body.
    pub(crate) rows: Vec<R>,
    /// Lines before the table (what was measured).
    pub(crate) header: Vec<String>,
    /// Lines after the table (notes, optima, where a plot went).
    pub(crate) notes: Vec<String>,
}

impl<R: TableRow> Report<R> {
    /// A report of `rows` with no text around them.
    pub(crate) fn new(rows: Vec<R>) -> Self {
        Report {
            rows,
            header: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Prints the report on standard output: the rows as one JSON array
    /// with `json`, the table with its text otherwise.
    pub(crate) fn print(&self, json: bool) -> Result<(), CliError> {
        let mut out = io::stdout().lock();
        if json {
            serde_json::to_writer_pretty(&mut out, &self.rows)
                .map_err(|e| CliError::from(io::Error::from(e)))?;
            writeln!(out)?;
        } else {
            for line in &self.header {
                writeln!(out, "{line}")?;
            }
            let cells: Vec<Vec<String>> = self.rows.iter().map(TableRow::cells).collect();
            write_table(&mut out, R::COLUMNS, &cells)?;
            for line in &self.notes {
                writeln!(out, "{line}")?;
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// A single result (what a filter file holds, what was built): serialised
/// as one JSON object for `--json`, printed as aligned `name  value` lines
/// otherwise.
pub(crate) trait Record: Serialize {
    /// The lines of the human output: a label and a value each.
    fn fields(&self) -> Vec<(&'static str, String)>;

    /// Prints the record on standard output.
    fn print(&self, json: bool) -> Result<(), CliError> {
        let mut out = io::stdout().lock();
        if json {
            serde_json::to_writer_pretty(&mut out, self)
                .map_err(|e| CliError::from(io::Error::from(e)))?;
            writeln!(out)?;
        } else {
            write_fields(&mut out, &self.fields())?;
        }
        out.flush()?;
        Ok(())
    }
}

/// Writes `label  value` lines with the values aligned.
fn write_fields(out: &mut impl Write, fields: &[(&str, String)]) -> io::Result<()> {
    let width = fields
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    for (label, value) in fields {
        let pad = width - label.chars().count();
        writeln!(out, "{label}{}  {value}", " ".repeat(pad))?;
    }
    Ok(())
}

/// Writes an aligned table: a header, a rule and the rows.
fn write_table(out: &mut impl Write, columns: &[Column], rows: &[Vec<String>]) -> io::Result<()> {
    let mut widths: Vec<usize> = columns.iter().map(|c| c.name.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for ((column, width), cell) in columns.iter().zip(&widths).zip(cells) {
            if !s.is_empty() {
                s.push_str("  ");
            }
            let pad = width - cell.chars().count();
            match column.align {
                Align::Left => {
                    s.push_str(cell);
                    s.extend(std::iter::repeat_n(' ', pad));
                }
                Align::Right => {
                    s.extend(std::iter::repeat_n(' ', pad));
                    s.push_str(cell);
                }
            }
        }
        s.truncate(s.trim_end().len());
        s
    };
    writeln!(out, "{}", line(&mut columns.iter().map(|c| c.name)))?;
    let total = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    writeln!(out, "{}", "-".repeat(total))?;
    for row in rows {
        writeln!(out, "{}", line(&mut row.iter().map(String::as_str)))?;
    }
    Ok(())
}

/// Deals with the variants that could not be built: when none could
/// (`nothing_else`), the first error is the command's error; otherwise each
/// is a warning on standard error and a note line, returned.
///
/// # Errors
/// The first variant's error when nothing else is left to show.
pub(crate) fn skip_failed(
    nothing_else: bool,
    failed: Vec<(Variant, approxset::Error)>,
) -> Result<Vec<String>, CliError> {
    if nothing_else {
        if let Some((_, e)) = failed.into_iter().next() {
            return Err(e.into());
        }
        return Ok(Vec::new());
    }
    Ok(failed
        .into_iter()
        .map(|(variant, e)| {
            eprintln!("warning: {variant}: {e}");
            format!("not shown: {variant}: {e}")
        })
        .collect())
}

/// A false-positive rate for a table: six decimals down to 10⁻⁴, then
/// scientific notation.
pub(crate) fn rate(p: f64) -> String {
    if p == 0.0 || p >= 1e-4 {
        format!("{p:.6}")
    } else {
        format!("{p:.3e}")
    }
}

/// A whole number with thousands separators: `958,505,837`.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut s = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            s.push(',');
        }
        s.push(c);
    }
    s
}

/// A byte count in binary units: `114.3 MiB`.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A byte count in binary units and in full: `1.2 KiB (1,234 bytes)`.
pub(crate) fn bytes_exact(n: u64) -> String {
    format!("{} ({} bytes)", bytes(n), count(n))
}

/// A real number to six decimals at most, without trailing zeros: `2`,
/// `0.85`, `0.123457`.
pub(crate) fn real(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

/// A progress bar on standard error of `len` steps, shown only when standard
/// error is a terminal and the output is not JSON; hidden (and free) otherwise.
pub(crate) fn progress(len: u64, json: bool) -> ProgressBar {
    if json || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg:<24} [{bar:30}] {pos}/{len} {elapsed}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// A hash function in JSON: its name, as `--hash` takes it.
pub(crate) fn hash_name<S: serde::Serializer>(
    function: &approxset::HashFunction,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(function.name())
}

/// A hash function in the human output: its name and algorithm,
/// `siphash64 (SipHash-1-3-64, widened)`.
pub(crate) fn hash_shown(function: approxset::HashFunction) -> String {
    format!("{function} ({})", function.algorithm())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(958_505_837), "958,505,837");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(119_813_232), "114.3 MiB");
        assert_eq!(rate(0.023580), "0.023580");
        assert_eq!(rate(0.0), "0.000000");
        assert_eq!(rate(1.234e-6), "1.234e-6");
        assert_eq!(bytes_exact(1234), "1.2 KiB (1,234 bytes)");
        assert_eq!(real(2.0), "2");
        assert_eq!(real(0.85), "0.85");
        assert_eq!(real(0.123_456_789), "0.123457");
        assert_eq!(real(0.0), "0");
        assert_eq!(real(-1e-9), "0");
        assert_eq!(real(f64::INFINITY), "inf");
    }

    #[test]
    fn fields_align() {
        let mut out = Vec::new();
        write_fields(
            &mut out,
            &[("variant", "classic".to_owned()), ("k", "7".to_owned())],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "variant  classic\nk        7\n"
        );
    }

    #[test]
    fn tables_align() {
        let columns = [Column::text("name"), Column::number("value")];
        let rows = vec![
            vec!["a".to_owned(), "1".to_owned()],
            vec!["long name".to_owned(), "12345".to_owned()],
        ];
        let mut out = Vec::new();
        write_table(&mut out, &columns, &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "name       value\n----------------\na              1\nlong name  12345\n"
        );
    }
}
