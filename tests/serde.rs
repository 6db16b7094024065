//! serde round trips through bincode 2 and serde_json for every filter type,
//! and damaged input rejected with the loader's error. JSON (human-readable)
//! holds the binary form as one base64 string, bincode as a byte string, and
//! JSON written the old way (an array of numbers) still reads.
#![cfg(feature = "serde")]

use approxset::prelude::*;
use approxset::{
    ApproxSet, BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter,
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
    check_round_trip(&f);
}

/// The checks of [`round_trip`] on a filter that holds `key-0 … key-299`
/// (a static one built from them).
fn check_round_trip<T>(f: &T)
where
    T: Membership + Serialize + DeserializeOwned + PartialEq,
{
    let config = bincode::config::standard();
    let encoded = bincode::serde::encode_to_vec(f, config).unwrap();
    let (decoded, used): (T, usize) = bincode::serde::decode_from_slice(&encoded, config).unwrap();
    assert_eq!(used, encoded.len());
    assert_eq!(&decoded, f);
    let json = serde_json::to_string(f).unwrap();
    let from_json: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&from_json, f);
    // The compact forms: base64 in JSON, the raw bytes in bincode.
    let bytes = f.to_bytes().unwrap();
    assert_eq!(json, format!("\"{}\"", base64(&bytes)));
    let prefix = encoded.len() - bytes.len();
    assert!(
        prefix <= 9 && encoded[prefix..] == bytes[..],
        "bincode holds the bytes as they are"
    );
    // JSON from before the string form: an array of numbers.
    let old_json = serde_json::to_string(&bytes).unwrap();
    assert!(old_json.starts_with('['));
    let from_old: T = serde_json::from_str(&old_json).unwrap();
    assert_eq!(&from_old, f);
    // Through serde_json::Value, a second human-readable deserializer.
    let value = serde_json::to_value(f).unwrap();
    assert!(value.is_string());
    assert_eq!(&serde_json::from_value::<T>(value).unwrap(), f);
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
    let err = serde_json::from_str::<T>("\"not a filter\"").unwrap_err();
    assert!(err.to_string().contains("invalid base64"), "{err}");
    // Valid base64 of damaged bytes: the loader's error.
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 0x10;
    let err = serde_json::from_str::<T>(&format!("\"{}\"", base64(&damaged))).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
}

/// The static fuse filter, built from the same keys, round-trips alike.
#[test]
fn fuse_round_trips() {
    for fp in [0.01, 1e-4, 1e-8] {
        let keys: Vec<String> = (0..300).map(|i| format!("key-{i}")).collect();
        let f = approxset::BinaryFuseFilter::with_fp_rate(fp)
            .seed(5)
            .build(&keys)
            .unwrap();
        check_round_trip(&f);
    }
}

/// The static Ribbon filter, built from the same keys, round-trips alike.
#[test]
fn ribbon_round_trips() {
    for fp in [0.01, 0.003, 1e-8] {
        let keys: Vec<String> = (0..300).map(|i| format!("key-{i}")).collect();
        let f = approxset::RibbonFilter::with_fp_rate(fp)
            .seed(5)
            .build(&keys)
            .unwrap();
        check_round_trip(&f);
    }
}

/// Base64 (RFC 4648, padded), written independently of the library's so
/// that the test checks the format rather than the code.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut held = 0;
    let mut out = String::new();
    for &b in bytes {
        bits = (bits << 8) | u32::from(b);
        held += 8;
        while held >= 6 {
            held -= 6;
            out.push(char::from(A[((bits >> held) & 63) as usize]));
        }
    }
    if held > 0 {
        out.push(char::from(A[((bits << (6 - held)) & 63) as usize]));
    }
    while out.len() % 4 != 0 {
        out.push('=');
    }
    out
}

#[test]
fn json_is_a_base64_string_a_quarter_of_the_array() -> Result<(), approxset::Error> {
    let mut f = BloomFilter::with_fp_rate(0.01)
        .seed(3)
        .expected_items(1_000)?;
    f.extend(0..1_000u32);
    let bytes = Membership::to_bytes(&f)?;
    let json = serde_json::to_string(&f).unwrap();
    let old_json = serde_json::to_string(&bytes).unwrap();
    let bytes = bytes.len();
    assert_eq!(json.len(), bytes.div_ceil(3) * 4 + 2);
    assert!(
        json.len() * 2 < old_json.len(),
        "{} vs {}",
        json.len(),
        old_json.len()
    );
    Ok(())
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
