//! serde round trips through bincode 2 and serde_json for every filter type,
//! and damaged input rejected with the loader's error.
#![cfg(feature = "serde")]

use approxset::{
    BloomFilter, CountingBloomFilter, CuckooFilter, PartitionedBloomFilter, ScalableBloomFilter,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

fn filled<T>(mut f: T, insert: impl Fn(&mut T, &[u8])) -> T {
    for i in 0..300 {
        insert(&mut f, format!("key-{i}").as_bytes());
    }
    f
}

fn round_trip<T>(f: &T, contains: impl Fn(&T, &[u8]) -> bool)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
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
        assert!(contains(&decoded, k.as_bytes()) && contains(&from_json, k.as_bytes()));
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
fn every_filter_round_trips() {
    let classic = filled(
        BloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)
            .unwrap(),
        |f, k| {
            f.insert_bytes(k);
        },
    );
    round_trip(&classic, |f, k| f.contains_bytes(k));
    let parted = filled(
        PartitionedBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)
            .unwrap(),
        |f, k| {
            f.insert_bytes(k);
        },
    );
    round_trip(&parted, |f, k| f.contains_bytes(k));
    let counting = filled(
        CountingBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)
            .unwrap(),
        |f, k| {
            f.insert_bytes(k);
        },
    );
    round_trip(&counting, |f, k| f.contains_bytes(k));
    let cuckoo = filled(
        CuckooFilter::with_fp_rate(0.01)
            .seed(1)
            .expected_items(300)
            .unwrap(),
        |f, k| {
            f.insert_bytes(k).unwrap();
        },
    );
    round_trip(&cuckoo, |f, k| f.contains_bytes(k));
    let scalable = filled(
        ScalableBloomFilter::with_fp_rate(0.01)
            .seed(1)
            .initial_capacity(50)
            .unwrap(),
        |f, k| {
            f.insert_bytes(k).unwrap();
        },
    );
    round_trip(&scalable, |f, k| f.contains_bytes(k));
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
