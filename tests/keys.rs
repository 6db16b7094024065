//! One key, one encoding: every path a key can take into a filter reaches
//! the same bits, for every variant, through a saved file as well.

use approxset::{
    ApproxSet, BinaryFuseFilter, Deletable, Digest, HashFunction, HashKey, Hashed, Membership,
    MembershipExt, Variant,
};
use xxhash_rust::{xxh3::xxh3_128_with_seed, xxh64::xxh64};

/// The functions every variant can be built with.
const FUNCTIONS: [HashFunction; 2] = [HashFunction::SipHash13, HashFunction::Xxh3];

/// The ways a program can hand the key "alice…" to a filter.
fn insert_by(path: usize, f: &mut dyn ApproxSet, s: &str) {
    let r = match path {
        0 => f.insert(s),
        1 => f.insert(&String::from(s)),
        2 => f.insert(s.as_bytes()),
        3 => f.insert(&s.as_bytes().to_vec()),
        4 => f.insert_bytes(s.as_bytes()),
        5 => f.insert(&&s),
        _ => unreachable!(),
    };
    r.unwrap();
}

fn contains_by<F: Membership + ?Sized>(path: usize, f: &F, s: &str) -> bool {
    match path {
        0 => f.contains(s),
        1 => f.contains(&String::from(s)),
        2 => f.contains(s.as_bytes()),
        3 => f.contains(&s.as_bytes().to_vec()),
        4 => f.contains_bytes(s.as_bytes()),
        5 => f.contains(&&s),
        _ => unreachable!(),
    }
}

const PATHS: usize = 6;

fn keys() -> Vec<String> {
    (0..300).map(|i| format!("user-{i}@example.com")).collect()
}

#[test]
fn every_pair_of_paths_is_one_key_in_every_variant() {
    for function in FUNCTIONS {
        for &variant in Variant::INSERTABLE {
            for into in 0..PATHS {
                let mut f = variant
                    .builder()
                    .seed(11)
                    .hash(function)
                    .build(1000, 0.001)
                    .unwrap();
                for k in keys() {
                    insert_by(into, &mut *f, &k);
                }
                // Saved and loaded too: the file keeps the encoding and
                // the function.
                let g = approxset::load(&f.to_bytes().unwrap()).unwrap();
                assert_eq!(g.hash_key(), f.hash_key(), "{variant} {function}");
                for out in 0..PATHS {
                    for k in keys() {
                        assert!(
                            contains_by(out, &*f, &k) && contains_by(out, &*g, &k),
                            "{variant} {function}: inserted by path {into}, absent by path \
                             {out}: {k}"
                        );
                    }
                }
            }
        }
    }
}

/// The digests of an XXH3 filter are the xxhash-rust crate's XXH3-128 of
/// the canonical bytes, seeded with `k0 ^ k1`, whatever path the key takes
/// (a string, its bytes, an integer, a tuple, which streams its parts);
/// Parquet's function is the crate's xxHash64 with seed 0 in `h1`.
#[test]
fn xxh3_digests_are_the_crate_function_of_the_canonical_bytes() {
    let f = Variant::Classic
        .builder()
        .seed(11)
        .hash(HashFunction::Xxh3)
        .build(1000, 0.01)
        .unwrap();
    let key = f.hash_key();
    let (k0, k1) = key.to_parts();
    assert_eq!((k0, k1), HashKey::from_seed(11).to_parts());
    let xxh3 = |bytes: &[u8]| Digest::from_u128(xxh3_128_with_seed(bytes, k0 ^ k1));
    for k in keys() {
        assert_eq!(key.digest(k.as_str()), xxh3(k.as_bytes()), "{k}");
        assert_eq!(key.digest_bytes(k.as_bytes()), xxh3(k.as_bytes()), "{k}");
    }
    assert_eq!(key.digest(&7u32), xxh3(&7u32.to_le_bytes()));
    assert_eq!(key.digest(&-7i64), xxh3(&(-7i64).to_le_bytes()));
    // A tuple: each part length-prefixed, streamed through the hasher.
    let mut canonical = Vec::new();
    canonical.extend_from_slice(&5u64.to_le_bytes());
    canonical.extend_from_slice(b"alice");
    canonical.extend_from_slice(&4u64.to_le_bytes());
    canonical.extend_from_slice(&7u32.to_le_bytes());
    assert_eq!(key.digest(&("alice", 7u32)), xxh3(&canonical));
    // Not SipHash's digest, nor XXH3 of other bytes (Rust's `Hash` of
    // "alice" appends 0xFF).
    assert_ne!(key.digest("alice"), HashKey::from_seed(11).digest("alice"));
    assert_ne!(key.digest("alice"), xxh3(b"alice\xff"));
    let parquet = key.with_function(HashFunction::ParquetXxh64);
    assert_eq!(parquet.digest("alice"), Digest::new(xxh64(b"alice", 0), 0));
    assert_eq!(
        parquet.digest(&("alice", 7u32)),
        Digest::new(xxh64(&canonical, 0), 0)
    );
}

/// The static filter: built from the keys as `&str`, `String`, byte
/// strings, digests or through `Variant::build_from`, it is one filter, and
/// every lookup path finds every key, also after a reload.
#[test]
fn every_path_into_the_fuse_filter_is_one_key() {
    for function in FUNCTIONS {
        let ks = keys();
        let key = HashKey::from_seed(11).with_function(function);
        let build = || BinaryFuseFilter::with_fp_rate(0.001).hash_key(key);
        let strs: Vec<&str> = ks.iter().map(String::as_str).collect();
        let digests: Vec<Digest> = ks.iter().map(|k| key.digest(k)).collect();
        let by_str = build().build(&strs).unwrap();
        let filters = [
            build().build(&ks).unwrap(),
            build()
                .build_bytes(ks.iter().map(String::as_bytes))
                .unwrap(),
            build()
                .build(ks.iter().map(|k| k.as_bytes().to_vec()))
                .unwrap(),
            build().build_digests(&digests).unwrap(),
        ];
        for f in &filters {
            assert_eq!(*f, by_str, "{function}");
        }
        let via_variant = Variant::Fuse
            .builder()
            .hash_key(key)
            .build_from(&ks, 0.001)
            .unwrap();
        assert_eq!(via_variant.to_bytes().unwrap(), by_str.to_bytes().unwrap());
        let g = approxset::load_membership(&by_str.to_bytes().unwrap()).unwrap();
        for out in 0..PATHS {
            for k in &ks {
                assert!(
                    contains_by(out, &by_str, k) && contains_by(out, &*g, k),
                    "fuse {function}: absent by path {out}: {k}"
                );
            }
        }
    }
}

/// Parquet's xxHash64 is refused by every variant but the split-block
/// filter (the only one that reads `h1` alone): at build, with an error
/// naming `hash`. The split-block filter takes it, and its digest is
/// Parquet's hash of the key's bytes.
#[test]
fn parquet_hashing_is_for_the_split_block_filter_only() {
    for &variant in Variant::INSERTABLE {
        assert!(
            FUNCTIONS.iter().all(|&h| variant.supports_hash(h)),
            "{variant}"
        );
        let key = HashKey::from_seed(1).with_function(HashFunction::ParquetXxh64);
        if variant == Variant::SplitBlock {
            assert!(variant.supports_hash(HashFunction::ParquetXxh64));
            let mut f = variant
                .builder()
                .hash(HashFunction::ParquetXxh64)
                .build(1000, 0.01)
                .unwrap();
            assert_eq!(f.hash_key().function(), HashFunction::ParquetXxh64);
            assert_eq!(
                f.hash_key().digest("alice"),
                Digest::new(xxh64(b"alice", 0), 0)
            );
            f.insert("alice").unwrap();
            let again = approxset::load(&f.to_bytes().unwrap()).unwrap();
            assert!(again.contains("alice"));
            assert_eq!(again.hash_key(), f.hash_key());
            assert!(variant.builder().hash_key(key).build(1000, 0.01).is_ok());
            continue;
        }
        assert!(
            !variant.supports_hash(HashFunction::ParquetXxh64),
            "{variant}"
        );
        let e = variant
            .builder()
            .seed(1)
            .hash(HashFunction::ParquetXxh64)
            .build(1000, 0.01)
            .unwrap_err();
        assert!(
            matches!(e, approxset::Error::InvalidParameter { name: "hash", .. }),
            "{variant}: {e}"
        );
        // Through a key of that function too.
        assert!(
            variant.builder().hash_key(key).build(1000, 0.01).is_err(),
            "{variant}"
        );
    }
}

#[test]
fn removing_by_any_path_removes_the_same_key() {
    let deletable = Variant::INSERTABLE.iter().filter(|v| v.supports_delete());
    for (&variant, function) in deletable.flat_map(|v| FUNCTIONS.map(|h| (v, h))) {
        let mut f: Box<dyn Deletable + Send + Sync> = variant
            .builder()
            .seed(5)
            .hash(function)
            .build_deletable(1000, 0.001)
            .unwrap();
        f.insert("alice").unwrap();
        f.insert(b"bob").unwrap();
        assert!(f.remove_bytes(b"alice").is_removed(), "{variant}");
        assert!(f.remove(&String::from("bob")).is_removed(), "{variant}");
        assert!(f.is_empty(), "{variant}");
    }
}

/// The classic filter the single-variant tests below use.
fn classic() -> Box<dyn ApproxSet + Send + Sync> {
    Variant::Classic
        .builder()
        .seed(1)
        .build(1000, 0.001)
        .unwrap()
}

#[test]
fn integers_are_portable_bytes() {
    let mut f = classic();
    for i in 0..500u64 {
        f.insert(&i).unwrap();
    }
    // The little-endian bytes are the same key on every platform.
    for i in 0..500u64 {
        assert!(f.contains_bytes(&i.to_le_bytes()));
        assert!(f.contains(&(i as usize)), "usize is 64-bit");
    }
}

#[test]
fn hashed_is_a_separate_explicit_path() {
    #[derive(Hash)]
    struct Point(i32, i32);
    let mut f = classic();
    f.insert(&Hashed(Point(1, 2))).unwrap();
    assert!(f.contains(&Hashed(Point(1, 2))));
}
