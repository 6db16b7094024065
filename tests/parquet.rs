//! Parquet interop, against the real thing: files written by the `parquet`
//! crate, their column chunks' bloom filters read back through
//! `SplitBlockBloomFilter::from_parquet_bitset`, and bitsets built here
//! answered through `parquet`'s own `Sbbf`.
//!
//! Parquet hashes a value's plain encoding with xxHash64 seed 0: a
//! BYTE_ARRAY's bytes, an INT64's 8 little-endian bytes, an INT32's 4, which
//! are approxset's canonical bytes of a `&str`, an `i64` and an `i32`.

use approxset::{HashFunction, SplitBlockBloomFilter};
use bytes::Bytes;
use parquet::bloom_filter::Sbbf;
use parquet::file::reader::FileReader;

#[path = "common/parquet.rs"]
mod parquet_files;
use parquet_files::{Values, reader};

const ROW_GROUPS: usize = 4;
const PER_GROUP: usize = 2_500;
/// Absent values asked of each column chunk's filter.
const ABSENT: usize = 100_000;

/// The columns with a filter, in schema order (`nofilter` comes last).
const FILTERED: [&str; 3] = ["name", "id", "day"];

fn name(i: usize) -> String {
    // Not ASCII: the UTF-8 bytes are hashed as they are.
    format!("user-{i:06}-é")
}
fn id(i: usize) -> i64 {
    // Negative and large values.
    (i as i64 - 5_000) * 1_000_003
}
fn day(i: usize) -> i32 {
    i as i32 * 7 - 20_000
}
fn absent_name(i: usize) -> String {
    format!("nobody-{i}")
}
fn absent_id(i: usize) -> i64 {
    i64::MAX - i as i64 * 7
}
fn absent_day(i: usize) -> i32 {
    i32::MIN + i as i32 * 3
}

/// A Parquet file of 4 row groups of 2,500 rows with bloom filters on
/// `name` (BYTE_ARRAY UTF8), `id` (INT64) and `day` (INT32) but not on
/// `nofilter`.
fn write_file() -> Bytes {
    let mut buf = Vec::new();
    parquet_files::write(
        &mut buf,
        "message t { required binary name (UTF8); required int64 id; \
         required int32 day; required int64 nofilter; }",
        &FILTERED,
        ROW_GROUPS,
        PER_GROUP,
        |rows| {
            let ids: Vec<i64> = rows.clone().map(id).collect();
            vec![
                Values::Str(rows.clone().map(name).collect()),
                Values::I64(ids.clone()),
                Values::I32(rows.map(day).collect()),
                Values::I64(ids),
            ]
        },
    );
    Bytes::from(buf)
}

/// The bitset `sbbf` holds: the bytes after the Thrift header.
fn bitset(sbbf: &Sbbf) -> Vec<u8> {
    let mut out = Vec::new();
    sbbf.write_bitset(&mut out).unwrap();
    out
}

/// Asks `ours` and `theirs` the same absent values of `column`: they agree
/// on every one; returns how many answered present.
fn agree_on_absent(column: &str, ours: &SplitBlockBloomFilter, theirs: &Sbbf) -> usize {
    let mut present = 0;
    for i in 0..ABSENT {
        let (a, b) = match column {
            "name" => {
                let v = absent_name(i);
                (ours.contains(v.as_str()), theirs.check(v.as_str()))
            }
            "id" => {
                let v = absent_id(i);
                (ours.contains(&v), theirs.check(&v))
            }
            _ => {
                let v = absent_day(i);
                (ours.contains(&v), theirs.check(&v))
            }
        };
        assert_eq!(a, b, "{column}: absent value {i}");
        present += usize::from(a);
    }
    present
}

#[test]
fn every_column_chunks_filter_reads_back_through_approxset() {
    let r = reader(write_file());
    assert_eq!(r.num_row_groups(), ROW_GROUPS);
    let mut false_positives = [0usize; 3];
    for rg in 0..ROW_GROUPS {
        let g = r.get_row_group(rg).unwrap();
        assert!(g.get_column_bloom_filter(3).is_none(), "nofilter has none");
        for (col, column) in FILTERED.iter().enumerate() {
            let sbbf = g.get_column_bloom_filter(col).expect("a bloom filter");
            let bits = bitset(sbbf);
            let ours = SplitBlockBloomFilter::from_parquet_bitset(&bits).unwrap();
            assert_eq!(ours.hash_key().function(), HashFunction::ParquetXxh64);
            assert_eq!(ours.bits(), bits.len() as u64 * 8);
            assert_eq!(ours.to_parquet_bitset().unwrap(), bits);
            // The same values inserted here set exactly the file's bits.
            let mut rebuilt = SplitBlockBloomFilter::with_num_bits(ours.bits())
                .hash(HashFunction::ParquetXxh64)
                .hashes(8)
                .unwrap();
            for i in rg * PER_GROUP..(rg + 1) * PER_GROUP {
                let present = match *column {
                    "name" => {
                        rebuilt.insert(name(i).as_str()).unwrap();
                        ours.contains(name(i).as_str())
                    }
                    "id" => {
                        rebuilt.insert(&id(i)).unwrap();
                        ours.contains(&id(i))
                    }
                    _ => {
                        rebuilt.insert(&day(i)).unwrap();
                        ours.contains(&day(i))
                    }
                };
                assert!(present, "{column}: row {i} of row group {rg}");
            }
            assert_eq!(rebuilt.to_parquet_bitset().unwrap(), bits, "{column} {rg}");
            false_positives[col] += agree_on_absent(column, &ours, sbbf);
        }
    }
    // Some absent values answer present, so the agreement covered both
    // answers; and the rate is near the writer's 1 % target (4·10^5 asked
    // per column; parquet-rs rounds the filter up to a power of two).
    for (column, fp) in FILTERED.iter().zip(false_positives) {
        assert!(fp > 100 && fp < 8_000, "{column}: {fp} false positives");
    }
}

#[test]
fn a_bitset_built_by_approxset_answers_alike_through_sbbf() {
    // A power of two (what parquet-rs writes), and block counts that are
    // not (the format allows any).
    for blocks in [64u64, 37, 1] {
        let mut ours = SplitBlockBloomFilter::with_num_bits(blocks * 256)
            .hash(HashFunction::ParquetXxh64)
            .hashes(8)
            .unwrap();
        let mut built_by_parquet = Sbbf::new(&vec![0; blocks as usize * 32]);
        let n = (blocks as usize * 40).min(2_500);
        for i in 0..n {
            ours.insert(name(i).as_str()).unwrap();
            ours.insert(&id(i)).unwrap();
            ours.insert(&day(i)).unwrap();
            built_by_parquet.insert(name(i).as_str());
            built_by_parquet.insert(&id(i));
            built_by_parquet.insert(&day(i));
        }
        let bits = ours.to_parquet_bitset().unwrap();
        assert_eq!(bits, bitset(&built_by_parquet), "{blocks} blocks");
        let theirs = Sbbf::new(&bits);
        assert_eq!(theirs.num_blocks() as u64, blocks);
        for i in 0..n {
            assert!(theirs.check(name(i).as_str()), "{blocks}: name {i}");
            assert!(
                theirs.check(&id(i)) && theirs.check(&day(i)),
                "{blocks}: {i}"
            );
        }
        let mut present = 0;
        for column in FILTERED {
            present += agree_on_absent(column, &ours, &theirs);
        }
        assert!(
            present > 0,
            "{blocks} blocks: no false positive to agree on"
        );
    }
}

#[test]
fn a_filter_in_another_hash_gives_no_bitset() {
    let f = SplitBlockBloomFilter::with_num_bits(1024)
        .seed(3)
        .hashes(8)
        .unwrap();
    let err = f.to_parquet_bitset().unwrap_err();
    assert!(err.to_string().contains("siphash"), "{err}");
}
