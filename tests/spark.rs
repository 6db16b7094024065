//! Filters built by a real Spark (PySpark 4.3.0, tests/spark/make_golden.py)
//! read by `approxset::spark::SparkBloomFilter`: every answer Spark gave is
//! the answer here, and writing the filter back gives Spark's bytes.

use std::path::PathBuf;

use approxset::spark::{SparkBloomFilter, SparkVersion};

mod common;

fn golden(name: &str) -> (Vec<u8>, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/spark");
    let bin = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
    let txt = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
    (bin, txt)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Checks every probe; returns (probes, true answers).
fn check(name: &str, version: SparkVersion) -> (usize, usize) {
    let (bin, txt) = golden(name);
    let f = SparkBloomFilter::from_bytes(&bin).unwrap();
    assert_eq!(f.version(), version, "{name}");
    assert_eq!(f.to_bytes(), bin, "{name}: written back byte for byte");
    let (mut probes, mut yes) = (0, 0);
    for line in txt.lines() {
        let mut parts = line.split(' ');
        let (kind, key, want) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let want = want == "1";
        let got = match kind {
            "L" => f.might_contain_long(key.parse().unwrap()),
            "S" => f.might_contain_str(std::str::from_utf8(&hex(key)).unwrap()),
            "B" => f.might_contain_bytes(&hex(key)),
            other => panic!("unknown probe kind {other}"),
        };
        assert_eq!(got, want, "{name}: {line}");
        probes += 1;
        yes += usize::from(want);
    }
    (probes, yes)
}

#[test]
fn version_2_from_df_stat_bloom_filter() {
    for name in ["v2_longs", "v2_strings"] {
        let (probes, yes) = check(name, SparkVersion::V2);
        // 2000 members (all true) and 2000 non-members at about 3 %.
        assert_eq!(probes, 4000);
        assert!((2000..2200).contains(&yes), "{name}: {yes}");
    }
}

#[test]
fn version_1_and_a_seeded_version_2() {
    for (name, version) in [
        ("v1_longs", SparkVersion::V1),
        ("v1_strings", SparkVersion::V1),
        ("v2_seeded_longs", SparkVersion::V2),
        ("v2_seeded_strings", SparkVersion::V2),
    ] {
        let (probes, yes) = check(name, version);
        assert_eq!(probes, 3000);
        // 1500 members and 1500 non-members at about 2 %.
        assert!((1500..1650).contains(&yes), "{name}: {yes}");
    }
    let (bin, _) = golden("v2_seeded_longs");
    assert_eq!(
        SparkBloomFilter::from_bytes(&bin).unwrap().seed(),
        -123_456_789
    );
}

#[test]
fn binary_keys() {
    check("v1_binary", SparkVersion::V1);
    check("v2_binary", SparkVersion::V2);
}

/// Built here as Spark builds: the same members give Spark's bytes.
#[test]
fn built_here_is_spark_byte_for_byte() {
    let (bin, txt) = golden("v1_longs");
    let mut f = SparkBloomFilter::create(SparkVersion::V1, 1500, 12_000, 0).unwrap();
    for line in txt.lines().take(1500) {
        f.put_long(line.split(' ').nth(1).unwrap().parse().unwrap());
    }
    assert_eq!(f.to_bytes(), bin);
    let (bin, txt) = golden("v2_strings");
    let mut f = SparkBloomFilter::with_capacity(2000, 0.03).unwrap();
    for line in txt.lines().take(2000) {
        f.put_bytes(&hex(line.split(' ').nth(1).unwrap()));
    }
    assert_eq!(f.to_bytes(), bin);
}

mod forged {
    use approxset::spark::SparkBloomFilter;
    use proptest::prelude::*;

    use super::common;

    proptest! {
        #![proptest_config(common::proptest_config(512))]

        /// Arbitrary bytes: an error or a filter that writes them back,
        /// never a panic; a valid header with any word count is checked
        /// against the bytes present before anything is allocated.
        #[test]
        fn arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(f) = SparkBloomFilter::from_bytes(&data) {
                prop_assert_eq!(f.to_bytes(), data);
            }
        }

        #[test]
        fn any_header(version in 1i32..=2, k in any::<i32>(), seed in any::<i32>(),
                      words in any::<i32>(), body in 0usize..64) {
            let mut data = version.to_be_bytes().to_vec();
            data.extend(k.to_be_bytes());
            if version == 2 {
                data.extend(seed.to_be_bytes());
            }
            data.extend(words.to_be_bytes());
            data.extend(vec![0xA5; body * 8]);
            let ok = SparkBloomFilter::from_bytes(&data).is_ok();
            let valid = (1..=1 << 16).contains(&k) && words >= 1 && words as usize == body;
            prop_assert_eq!(ok, valid);
        }
    }
}
