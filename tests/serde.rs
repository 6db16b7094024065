//! serde round trips through bincode 2 and serde_json for every filter type,
//! and damaged input rejected with the loader's error.
#![cfg(feature = "serde")]

use approxset::{
    ApproxSet, ApproxSetExt, BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter,
    PartitionedBloomFilter, ScalableBloomFilter, SplitBlockBloomFilter,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Fills `f` with 300 keys, then checks that it round-trips through bincode
/// and JSON with every key still present, and that damaged input is
/// rejected with the loader's error.
fn round_trip<T>(mut f: T)
where
    T: ApproxSet + Serialize + DeserializeOwned + PartialEq,
{
    for i in 0..300 {
        f.insert_bytes(format!("key-{i}").as_bytes()).unwrap();
    }
    let f = &f;
    let config = bincode::config::standard();
    let encoded = bincode::serde::encode_to_vec(f, config).unwrap();
    let (decoded, used): (T, usize) = bincode::serde::decode_from_slice(&encoded, config).unwrap();
    assert_eq!(used, encoded.len());
    assert_eq!(&decoded, f);
    let json = serde_json::to_string(f).unwrap();
    let from_json: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&from_json, f);
    for i in 0..300 {
        let k = format!("key-{i}");
        assert!(decoded.contains_bytes(k.as_bytes()) && from_json.contains_bytes(k.as_bytes()));
    }
    // Damage one byte inside the serialized filter: an error, not a panic.
    let mut damaged = encoded.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x10;
    let err = bincode::serde::decode_from_slice::<T, _>(&damaged, config).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
    let err = serde_json::from_str::<T>("[65, 80, 88, 83, 1, 0]").unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    assert!(serde_json::from_str::<T>("\"not a filter\"").is_err());
}

#[test]
fn every_filter_round_trips() -> Result<(), approxset::Error> {
    round_trip(
        BloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    round_trip(
        PartitionedBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    round_trip(
        CountingBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    round_trip(
        CuckooFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    round_trip(
        ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(50)?,
    );
    round_trip(
        BlockedBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    round_trip(
        SplitBlockBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)?,
    );
    Ok(())
}

#[test]
fn a_classic_filter_does_not_deserialize_as_counting() {
    let classic = BloomFilter::with_fp_rate(0.01)
        .seed(1)
        .expected_items(10)
        .unwrap();
    let json = serde_json::to_string(&classic).unwrap();
    let err = serde_json::from_str::<CountingBloomFilter>(&json).unwrap_err();
    assert!(
        err.to_string().contains("expected a counting filter"),
        "{err}"
    );
}
