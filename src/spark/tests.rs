use super::*;

/// Spark SQL's `hash(x)` is the same Murmur3 variant with seed 42 (its
/// `hashUnsafeBytes` for strings and binary, `hashLong` for a bigint):
/// values printed by PySpark 4.3.0's `spark.sql("select hash(…)")`.
#[test]
fn murmur3_matches_spark_sql_hash() {
    let bytes: [(&[u8], i32); 7] = [
        (b"", 142_593_372),
        (b"a", 1_485_273_170),
        (b"abcd", -396_302_900),
        (b"abcde", 814_637_928),
        ("héllo".as_bytes(), 1_212_979_866),
        // Tail bytes are sign-extended: 0xff and 0x80 are negative.
        (&[0xff, 0x80], -577_813_652),
        (&0i64.to_le_bytes(), -1_670_924_195),
    ];
    for (key, want) in bytes {
        assert_eq!(murmur3_spark(key, 42), want, "{key:?}");
    }
    for (v, want) in [(-1i64, -939_490_007), (1_234_567_890_123, 1_304_145_252)] {
        assert_eq!(murmur3_spark(&v.to_le_bytes(), 42), want, "{v}");
    }
}

/// The tail differs from standard Murmur3 (which packs the tail into one
/// word): "abcde" under seed 0 as standard Murmur3 is 0xe89b9af6.
#[test]
fn tail_bytes_are_not_standard_murmur3() {
    assert_ne!(murmur3_spark(b"abcde", 0) as u32, 0xe89b_9af6);
    // Whole words agree with the standard: "abcd" seed 0 is 0x43ed676a.
    assert_eq!(murmur3_spark(b"abcd", 0) as u32, 0x43ed_676a);
}

#[test]
fn spark_sizing() {
    // Spark: optimalNumOfBits(100000, 0.01) = 958505, k = round(958505/1e5·ln2) = 7.
    assert_eq!(optimal_num_bits(100_000, 0.01).unwrap(), 958_505);
    let f = SparkBloomFilter::with_capacity(100_000, 0.01).unwrap();
    assert_eq!(f.num_hash_functions(), 7);
    assert_eq!(f.bit_size(), 958_505u64.div_ceil(64) * 64);
    assert_eq!(f.version(), SparkVersion::V2);
    // 4 + 4 + 4 + 4 + 14977 words: the 119,832 bytes Spark wrote for this size.
    assert_eq!(f.to_bytes().len(), 119_832);
    assert!(optimal_num_bits(0, 0.01).is_err());
    assert!(optimal_num_bits(10, 1.0).is_err());
    assert!(optimal_num_bits(10, f64::NAN).is_err());
}

#[test]
fn no_false_negatives_both_versions() {
    for version in [SparkVersion::V1, SparkVersion::V2] {
        let seed = if version == SparkVersion::V2 { -7 } else { 0 };
        let mut f = SparkBloomFilter::create(version, 1000, 9_000, seed).unwrap();
        for i in 0..1000i64 {
            f.put_long(i * 7919 - 3_000_000);
            f.put_str(&format!("key-{i}"));
        }
        for i in 0..1000i64 {
            assert!(f.might_contain_long(i * 7919 - 3_000_000));
            assert!(f.might_contain_str(&format!("key-{i}")));
        }
        let back = SparkBloomFilter::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(back, f);
        // 2000 keys in 9000 bits, k = 6: about 20 % false positives; far
        // from 1 (a filter that answers true everywhere).
        let fp = (0..10_000i64)
            .filter(|i| f.might_contain_long(10_000_000 + i))
            .count();
        assert!(fp < 4_000, "{fp}");
    }
}

#[test]
fn empty_filter_answers_no() {
    let f = SparkBloomFilter::new(SparkVersion::V1, 1, 1, 0).unwrap();
    assert_eq!(f.bit_size(), 64);
    assert!(!f.might_contain_long(0));
    assert!(!f.might_contain_bytes(b""));
    assert_eq!(f.cardinality(), 0);
    assert_eq!(f.expected_fpp(), 0.0);
}

#[test]
fn layout_is_big_endian() {
    let mut f = SparkBloomFilter::new(SparkVersion::V2, 3, 128, 0x0102_0304).unwrap();
    f.words[1] = 0x1122_3344_5566_7788;
    let b = f.to_bytes();
    assert_eq!(&b[..16], &[0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 0, 0, 0, 2]);
    assert_eq!(&b[24..], &[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    let v1 = SparkBloomFilter::new(SparkVersion::V1, 3, 64, 0).unwrap();
    assert_eq!(&v1.to_bytes()[..12], &[0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 1]);
    assert!(SparkBloomFilter::is_spark(&b));
    assert!(!SparkBloomFilter::is_spark(b"ASET"));
}

#[test]
fn forged_bytes_are_errors() {
    let good = SparkBloomFilter::new(SparkVersion::V2, 3, 128, 5)
        .unwrap()
        .to_bytes();
    // Every truncation.
    for n in 0..good.len() {
        assert!(SparkBloomFilter::from_bytes(&good[..n]).is_err(), "{n}");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        SparkBloomFilter::from_bytes(&longer),
        Err(Error::TrailingBytes { .. })
    ));
    let forge = |at: usize, v: i32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&v.to_be_bytes());
        SparkBloomFilter::from_bytes(&b)
    };
    for version in [0, 3, -1, i32::MAX] {
        assert!(forge(0, version).is_err());
    }
    for k in [0, -1, i32::MIN, MAX_HASH_FUNCTIONS as i32 + 1] {
        assert!(forge(4, k).is_err());
    }
    // A word count beyond the bytes present: no allocation, a clear error.
    for words in [0, -1, 1, 3, i32::MAX] {
        assert!(forge(12, words).is_err(), "{words}");
    }
    assert!(forge(4, MAX_HASH_FUNCTIONS as i32).is_ok());
    // Version 1's header is 4 bytes shorter: the same bytes read as version
    // 1 see the seed as the word count.
    assert!(forge(0, 1).is_err());
}

#[test]
fn parameters_are_checked() {
    assert!(SparkBloomFilter::new(SparkVersion::V1, 0, 64, 0).is_err());
    assert!(SparkBloomFilter::new(SparkVersion::V1, 1, 0, 0).is_err());
    assert!(SparkBloomFilter::new(SparkVersion::V1, 1, 64, 3).is_err());
    assert!(SparkBloomFilter::new(SparkVersion::V2, 1, (MAX_WORDS + 1) * 64, 0).is_err());
    assert!(SparkBloomFilter::create(SparkVersion::V2, 0, 64, 0).is_err());
    let a = SparkBloomFilter::new(SparkVersion::V2, 2, 64, 0).unwrap();
    let mut b = SparkBloomFilter::new(SparkVersion::V2, 2, 64, 1).unwrap();
    assert!(b.union(&a).is_err());
    let mut c = SparkBloomFilter::new(SparkVersion::V2, 2, 128, 0).unwrap();
    assert!(c.union(&a).is_err());
}

#[test]
fn union_and_intersect() {
    let mut a = SparkBloomFilter::with_capacity(100, 0.01).unwrap();
    let mut b = a.clone();
    a.put_long(1);
    b.put_long(2);
    let mut u = a.clone();
    u.union(&b).unwrap();
    assert!(u.might_contain_long(1) && u.might_contain_long(2));
    let mut i = a.clone();
    i.intersect(&b).unwrap();
    assert!(i.cardinality() <= a.cardinality().min(b.cardinality()));
}
