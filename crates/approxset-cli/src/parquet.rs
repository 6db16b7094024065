//! `approxset query --parquet FILE --column NAME`: keys looked up in the
//! bloom filters a Parquet file stores for one column, one answer per row
//! group (the cargo feature `parquet`; the library crates never depend on
//! the `parquet` crate).
//!
//! Each row group's filter is the column chunk's split-block bitset, read
//! by the `parquet` crate and answered through
//! `SplitBlockBloomFilter::from_parquet_bitset`, in Parquet mode (xxHash64
//! seed 0). A key is encoded as Parquet hashes the column's values, by the
//! column's physical type: BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY take the
//! key's bytes as they are, INT32 and INT64 the key read as a decimal
//! integer (4 or 8 little-endian bytes); other types are refused. A row
//! group without a filter for the column answers "no-filter", which may
//! hold any key.
//!
//! The file is opened as a regular file and read by `parquet`'s reader:
//! the footer, then only the chosen column's filters, each checked to lie
//! within the file before it is read.

use std::fs::File;
use std::path::{Path, PathBuf};

use approxset::SplitBlockBloomFilter;
use parquet::basic::Type as PhysicalType;
use parquet::bloom_filter::Sbbf;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use serde::Serialize;

use crate::answers::{Answers, EXIT_ABSENT, key_string};
use crate::error::CliError;
use crate::keys;

/// `--parquet` and `--column` of `approxset query`.
#[derive(Debug, clap::Args)]
pub(crate) struct ParquetArgs {
    /// A Parquet file whose bloom filters for --column answer instead of a
    /// filter file, one answer per row group (present: the row group may
    /// hold the key; absent: certainly not; no-filter: the row group has
    /// no bloom filter for the column). BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
    /// columns take each key's bytes, INT32 and INT64 columns a decimal
    /// integer.
    #[arg(
        long,
        value_name = "FILE",
        requires = "column",
        conflicts_with = "filter"
    )]
    pub(crate) parquet: Option<PathBuf>,

    /// The column of --parquet to ask: its path, with dots between the
    /// parts of a nested column (`a.b.c`).
    #[arg(long, value_name = "NAME", requires = "parquet")]
    pub(crate) column: Option<String>,
}

/// One row group's answer for a key in the JSON output.
#[derive(Debug, Serialize)]
struct RowGroupAnswer {
    /// The row group's index in the file.
    row_group: usize,
    /// Whether the row group has a bloom filter for the column.
    bloom_filter: bool,
    /// Whether the row group may hold the key (`true` without a filter).
    present: bool,
}

/// One key's answers to `query --parquet`.
#[derive(Debug, Serialize)]
struct ParquetRow {
    /// The key (lossy UTF-8).
    key: String,
    /// The answers, one per row group in file order.
    row_groups: Vec<RowGroupAnswer>,
}

/// The bloom filters of one column of a Parquet file.
struct ColumnFilters {
    /// The column's path, for messages.
    column: String,
    /// How its values are encoded.
    physical: PhysicalType,
    /// Each row group's filter, `None` where it has none.
    row_groups: Vec<Option<SplitBlockBloomFilter>>,
}

impl ColumnFilters {
    /// Reads the filters of `column` from the Parquet file `path`.
    ///
    /// # Errors
    /// A usage error for a column the file does not have or whose type has
    /// no key encoding here; a failure naming the file when it cannot be
    /// read or is not valid Parquet.
    fn read(path: &Path, column: &str) -> Result<Self, CliError> {
        let shown = path.display();
        let file =
            File::open(path).map_err(|e| CliError::io(format!("cannot open '{shown}'"), &e))?;
        let size = file
            .metadata()
            .map_err(|e| CliError::io(format!("cannot read '{shown}'"), &e))?;
        if !size.is_file() {
            return Err(CliError::failure(format!(
                "'{shown}' is not a regular file (a Parquet file is read by seeking)"
            )));
        }
        let size = size.len();
        let bad = |e: parquet::errors::ParquetError| {
            CliError::failure(format!("'{shown}' is not a readable Parquet file: {e}"))
        };
        let handle = file
            .try_clone()
            .map_err(|e| CliError::io(format!("cannot read '{shown}'"), &e))?;
        let reader = SerializedFileReader::new(handle).map_err(bad)?;
        let schema = reader.metadata().file_metadata().schema_descr();
        let index = (0..schema.num_columns())
            .find(|&i| schema.column(i).path().string() == column)
            .ok_or_else(|| {
                let names: Vec<String> = (0..schema.num_columns())
                    .map(|i| schema.column(i).path().string())
                    .collect();
                CliError::usage(format!(
                    "invalid --column: '{shown}' has no column '{column}' (its columns: {})",
                    names.join(", ")
                ))
            })?;
        let physical = schema.column(index).physical_type();
        if !matches!(
            physical,
            PhysicalType::BYTE_ARRAY
                | PhysicalType::FIXED_LEN_BYTE_ARRAY
                | PhysicalType::INT32
                | PhysicalType::INT64
        ) {
            return Err(CliError::usage(format!(
                "invalid --column: '{column}' is {physical}; query --parquet asks BYTE_ARRAY, \
                 FIXED_LEN_BYTE_ARRAY, INT32 and INT64 columns"
            )));
        }
        let row_groups = reader
            .metadata()
            .row_groups()
            .iter()
            .enumerate()
            .map(|(rg, meta)| {
                let chunk = meta.column(index);
                let context = format!("'{shown}', row group {rg}, column '{column}'");
                filter_of(chunk, &file, size, &context)
            })
            .collect::<Result<_, _>>()?;
        Ok(ColumnFilters {
            column: column.to_owned(),
            physical,
            row_groups,
        })
    }

    /// The bytes Parquet hashes for `key` as a value of the column.
    ///
    /// # Errors
    /// A usage error when an integer column's key is not an integer of its
    /// width.
    fn encode(&self, key: &[u8]) -> Result<Vec<u8>, CliError> {
        let not_a = |what: &str| {
            CliError::usage(format!(
                "invalid key {}: column '{}' is {}, and the key is not {what}",
                keys::shown(key),
                self.column,
                self.physical
            ))
        };
        let text = || std::str::from_utf8(key).ok();
        Ok(match self.physical {
            PhysicalType::INT32 => text()
                .and_then(|t| t.parse::<i32>().ok())
                .ok_or_else(|| not_a("a 32-bit integer"))?
                .to_le_bytes()
                .to_vec(),
            PhysicalType::INT64 => text()
                .and_then(|t| t.parse::<i64>().ok())
                .ok_or_else(|| not_a("a 64-bit integer"))?
                .to_le_bytes()
                .to_vec(),
            // BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (`read` refuses the rest).
            _ => key.to_vec(),
        })
    }

    /// Each row group's answer for `key`: `None` without a filter.
    fn answers(&self, key: &[u8]) -> Result<Vec<Option<bool>>, CliError> {
        let value = self.encode(key)?;
        Ok(self
            .row_groups
            .iter()
            .map(|f| f.as_ref().map(|f| f.contains_bytes(&value)))
            .collect())
    }
}

/// The filter of one column chunk, if it has one: its bitset read by
/// `parquet` (after checking that the region the metadata gives lies within
/// the file's `size` bytes) and taken as a split-block filter.
fn filter_of(
    chunk: &ColumnChunkMetaData,
    file: &File,
    size: u64,
    context: &str,
) -> Result<Option<SplitBlockBloomFilter>, CliError> {
    let Some(offset) = chunk.bloom_filter_offset() else {
        return Ok(None);
    };
    // Bound what is read by the file: parquet-rs allocates the length the
    // metadata claims before reading it.
    let end = u64::try_from(offset)
        .ok()
        .and_then(|o| o.checked_add(u64::try_from(chunk.bloom_filter_length().unwrap_or(0)).ok()?));
    if end.is_none_or(|end| end > size) {
        return Err(CliError::failure(format!(
            "{context}: the bloom filter's offset {offset} and length {:?} pass the end of \
             the file ({size} bytes)",
            chunk.bloom_filter_length()
        )));
    }
    let sbbf = Sbbf::read_from_column_chunk(chunk, file)
        .map_err(|e| CliError::failure(format!("{context}: cannot read the bloom filter: {e}")))?;
    let Some(sbbf) = sbbf else {
        return Ok(None);
    };
    let mut bitset = Vec::new();
    sbbf.write_bitset(&mut bitset)
        .map_err(|e| CliError::failure(format!("{context}: {e}")))?;
    SplitBlockBloomFilter::from_parquet_bitset(&bitset)
        .map(Some)
        .map_err(|e| CliError::failure(format!("{context}: {e}")))
}

/// The words of a key's answers: `0:present 1:absent 2:no-filter`.
fn words(answers: &[Option<bool>]) -> String {
    let mut line = String::new();
    for (rg, answer) in answers.iter().enumerate() {
        if rg > 0 {
            line.push(' ');
        }
        let word = match answer {
            Some(true) => "present",
            Some(false) => "absent",
            None => "no-filter",
        };
        line.push_str(&format!("{rg}:{word}"));
    }
    line
}

/// Runs `approxset query --parquet FILE --column NAME`; returns the exit
/// code: 0, or with `quiet` [`EXIT_ABSENT`] when
/// a key is certainly in no row group.
///
/// # Errors
/// As [`ColumnFilters::read`] and [`ColumnFilters::encode`], and a failure
/// reading the keys or writing the answers.
pub(crate) fn query(
    path: &Path,
    column: &str,
    keys: &keys::KeyArgs,
    quiet: bool,
    json: bool,
) -> Result<u8, CliError> {
    let filters = ColumnFilters::read(path, column)?;
    if !keys.read_stdin() {
        // Keys given as arguments are all checked before any answer, so a
        // bad one prints nothing but its error (lines of standard input
        // are answered as they come).
        keys.for_each(|key| filters.encode(key).map(drop))?;
    }
    if quiet {
        let mut all_somewhere = true;
        keys.for_each(|key| {
            all_somewhere &= filters.answers(key)?.iter().any(|a| a.unwrap_or(true));
            Ok(())
        })?;
        return Ok(if all_somewhere { 0 } else { EXIT_ABSENT });
    }
    let mut answers = Answers::new(keys.read_stdin());
    let mut rows = Vec::new();
    keys.for_each(|key| {
        let each = filters.answers(key)?;
        if json {
            rows.push(ParquetRow {
                key: key_string(key),
                row_groups: each
                    .iter()
                    .enumerate()
                    .map(|(row_group, a)| RowGroupAnswer {
                        row_group,
                        bloom_filter: a.is_some(),
                        present: a.unwrap_or(true),
                    })
                    .collect(),
            });
            Ok(())
        } else {
            answers.line(key, &words(&each))
        }
    })?;
    if json {
        answers.json(&rows)?;
    }
    answers.finish()?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_words_per_row_group() {
        assert_eq!(
            words(&[Some(true), Some(false), None]),
            "0:present 1:absent 2:no-filter"
        );
        assert_eq!(words(&[]), "");
    }

    #[test]
    fn integer_keys_are_little_endian_plain_values() {
        let filters = |physical| ColumnFilters {
            column: "c".into(),
            physical,
            row_groups: Vec::new(),
        };
        let int64 = filters(PhysicalType::INT64);
        assert_eq!(int64.encode(b"-2").unwrap(), (-2i64).to_le_bytes());
        assert_eq!(
            filters(PhysicalType::INT32).encode(b"7").unwrap(),
            7i32.to_le_bytes()
        );
        assert_eq!(
            filters(PhysicalType::BYTE_ARRAY).encode(b"7").unwrap(),
            b"7"
        );
        for bad in [
            &b"x"[..],
            b"",
            b" 1",
            b"1.5",
            b"9223372036854775808",
            b"\xff",
        ] {
            let err = int64.encode(bad).unwrap_err();
            assert!(matches!(err, CliError::Usage(_)), "{bad:?}");
        }
        let err = filters(PhysicalType::INT32)
            .encode(b"2147483648")
            .unwrap_err();
        assert!(err.to_string().contains("32-bit"), "{err}");
    }
}
