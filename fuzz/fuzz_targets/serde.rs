//! Arbitrary bytes and JSON through serde deserialization of every filter
//! type: an error or a filter that works, never a panic.
#![no_main]

use approxset::{
    BloomFilter, CountingBloomFilter, CuckooFilter, PartitionedBloomFilter, ScalableBloomFilter,
    SlidingBloomFilter,
};
use libfuzzer_sys::fuzz_target;

fn check<T: serde::de::DeserializeOwned>(data: &[u8]) {
    let config = bincode::config::standard();
    let _ = bincode::serde::decode_from_slice::<T, _>(data, config);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = serde_json::from_str::<T>(text);
    }
}

fuzz_target!(|data: &[u8]| {
    check::<BloomFilter>(data);
    check::<PartitionedBloomFilter>(data);
    check::<CountingBloomFilter>(data);
    check::<CuckooFilter>(data);
    check::<ScalableBloomFilter>(data);
    check::<SlidingBloomFilter>(data);
});
