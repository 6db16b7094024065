//! Apache Spark's BloomFilter bytes from arbitrary input: an error, or a
//! filter that writes back the same bytes, answers lookups, and keeps a key
//! it is given.
#![no_main]

use approxset::spark::SparkBloomFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut filter) = SparkBloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        let _ = (filter.expected_fpp(), filter.cardinality(), filter.might_contain_long(-1));
        filter.put_bytes(data);
        assert!(filter.might_contain_bytes(data));
        filter.put_long(data.len() as i64);
        assert!(filter.might_contain_long(data.len() as i64));
        let again = SparkBloomFilter::from_bytes(&filter.to_bytes()).unwrap();
        assert_eq!(again, filter);
    }
});
