//! Parquet test files, shared by the library's interop tests
//! (`tests/parquet.rs`) and the CLI's (`crates/approxset-cli/tests/parquet.rs`,
//! through `#[path]`): a file of row groups written with the `parquet`
//! crate's low-level writer, bloom filters on the columns asked for, and a
//! reader that reads those filters back.

use std::ops::Range;
use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::ChunkReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;

/// One column chunk's values.
pub(crate) enum Values {
    /// A BYTE_ARRAY (UTF8) column.
    Str(Vec<String>),
    /// An INT64 column.
    I64(Vec<i64>),
    /// An INT32 column.
    I32(Vec<i32>),
    /// A DOUBLE column (the library's interop tests have none).
    #[allow(dead_code)]
    F64(Vec<f64>),
}

/// Writes to `out` a Parquet file of schema `schema` (a message type) in
/// `row_groups` row groups of `per_group` rows, with a bloom filter at
/// 1 % for `per_group` distinct values on each column of `filtered` (the
/// file-level `set_bloom_filter_*` would enable every column). `columns`
/// gives the values of every column of a group's rows, in schema order.
pub(crate) fn write<W: std::io::Write + Send>(
    out: W,
    schema: &str,
    filtered: &[&str],
    row_groups: usize,
    per_group: usize,
    columns: impl Fn(Range<usize>) -> Vec<Values>,
) {
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let mut props = WriterProperties::builder();
    for &column in filtered {
        let path = ColumnPath::from(column);
        props = props
            .set_column_bloom_filter_enabled(path.clone(), true)
            .set_column_bloom_filter_fpp(path.clone(), 0.01)
            .set_column_bloom_filter_max_ndv(path, per_group as u64);
    }
    let mut w = SerializedFileWriter::new(out, schema, Arc::new(props.build())).unwrap();
    for rg in 0..row_groups {
        let mut g = w.next_row_group().unwrap();
        for values in columns(rg * per_group..(rg + 1) * per_group) {
            let mut c = g.next_column().unwrap().expect("a column per value list");
            match values {
                Values::Str(v) => {
                    let v: Vec<ByteArray> = v.iter().map(|s| s.as_str().into()).collect();
                    c.typed::<ByteArrayType>().write_batch(&v, None, None)
                }
                Values::I64(v) => c.typed::<Int64Type>().write_batch(&v, None, None),
                Values::I32(v) => c.typed::<Int32Type>().write_batch(&v, None, None),
                Values::F64(v) => c.typed::<DoubleType>().write_batch(&v, None, None),
            }
            .unwrap();
            c.close().unwrap();
        }
        assert!(
            g.next_column().unwrap().is_none(),
            "values for every column"
        );
        g.close().unwrap();
    }
    w.close().unwrap();
}

/// A reader of `file` that reads the bloom filters.
pub(crate) fn reader<R: ChunkReader + 'static>(file: R) -> SerializedFileReader<R> {
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    SerializedFileReader::new_with_options(file, options).unwrap()
}
