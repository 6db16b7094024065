//! The binary format: round trips through every variant, golden files that
//! pin the bytes, and bad input of every kind returning a specific error.

mod common;

use approxset::format::{CHECKSUM_LEN, HEADER_LEN, MAGIC, VERSION, checksum};
use approxset::{ApproxSet, Error, HashFunction, HashKey, Membership, Variant};
use common::proptest_config;
use proptest::prelude::*;

const SEED: u64 = 42;

/// A small filter of `variant` built from fixed keys with a fixed seed.
fn sample(variant: Variant) -> Box<dyn ApproxSet + Send + Sync> {
    sample_hashed(variant, HashFunction::SipHash13)
}

/// [`sample`] hashed with `function`.
fn sample_hashed(variant: Variant, function: HashFunction) -> Box<dyn ApproxSet + Send + Sync> {
    // The scalable filter starts small so that it grows several stages;
    // the sliding filter's window holds every key the tests insert (250).
    let n = match variant {
        Variant::Scalable => 10,
        Variant::Sliding => 300,
        _ => 100,
    };
    let mut f = variant
        .builder()
        .seed(SEED)
        .hash(function)
        .build(n, 0.01)
        .unwrap();
    for i in 0..50 {
        f.insert_bytes(format!("golden-{i}").as_bytes()).unwrap();
    }
    f
}

fn members() -> impl Iterator<Item = Vec<u8>> {
    (0..50).map(|i| format!("golden-{i}").into_bytes())
}

#[test]
fn round_trip_every_variant() {
    for &variant in Variant::INSERTABLE {
        let f = sample(variant);
        let bytes = f.to_bytes().unwrap();
        let g = approxset::load(&bytes).unwrap();
        assert_eq!(g.variant(), variant.name());
        assert_eq!(g.hash_key(), f.hash_key());
        assert_eq!(g.len(), f.len());
        assert_eq!(g.capacity(), f.capacity());
        assert_eq!(g.fp_rate(), f.fp_rate());
        assert_eq!(g.memory_bytes(), f.memory_bytes());
        assert_eq!(g.estimated_fp_rate(), f.estimated_fp_rate());
        for k in members() {
            assert!(g.contains_bytes(&k), "{variant}: lost a member");
        }
        for i in 0..10_000u32 {
            let k = format!("other-{i}");
            assert_eq!(
                g.contains_bytes(k.as_bytes()),
                f.contains_bytes(k.as_bytes())
            );
        }
        // The reloaded filter serializes to the same bytes.
        assert_eq!(g.to_bytes().unwrap(), bytes, "{variant}");
        // Through io::Write / io::Read, with more data after it in the stream.
        let mut stream = Vec::new();
        f.write_to(&mut stream).unwrap();
        stream.extend_from_slice(b"and then something else");
        let mut cursor = std::io::Cursor::new(stream);
        let h = approxset::read_from(&mut cursor).unwrap();
        assert_eq!(h.to_bytes().unwrap(), bytes);
        assert_eq!(cursor.position() as usize, bytes.len());
        // Deletable variants load as Deletable; the others say why not.
        match approxset::load_deletable(&bytes) {
            Ok(mut d) => {
                assert!(variant.supports_delete());
                assert!(d.remove_bytes(b"golden-0").is_removed());
            }
            Err(Error::DeleteUnsupported { variant: name }) => {
                assert!(!variant.supports_delete());
                assert_eq!(name, variant.name());
            }
            Err(e) => panic!("{variant}: {e}"),
        }
    }
}

/// `load_membership` opens every variant (SipHash and XXH3) as `load` does:
/// the same filter behind the read-only object, answering key for key as
/// the other, and the same error for every truncation.
#[test]
fn load_membership_answers_as_load_for_every_variant() {
    let others: Vec<String> = (0..10_000u32).map(|i| format!("other-{i}")).collect();
    for &variant in Variant::INSERTABLE {
        for function in [HashFunction::SipHash13, HashFunction::Xxh3] {
            if !variant.supports_hash(function) {
                continue;
            }
            let bytes = sample_hashed(variant, function).to_bytes().unwrap();
            let a = approxset::load(&bytes).unwrap();
            let m: Box<dyn Membership + Send + Sync> = approxset::load_membership(&bytes).unwrap();
            assert_eq!(m.variant(), variant.name());
            assert_eq!(m.hash_key(), a.hash_key(), "{variant}");
            assert_eq!(m.len(), a.len(), "{variant}");
            assert_eq!(m.capacity(), a.capacity(), "{variant}");
            assert_eq!(m.fp_rate(), a.fp_rate(), "{variant}");
            assert_eq!(m.estimated_fp_rate(), a.estimated_fp_rate(), "{variant}");
            assert_eq!(m.estimated_items(), a.estimated_items(), "{variant}");
            assert_eq!(m.memory_bytes(), a.memory_bytes(), "{variant}");
            assert_eq!(m.parameters(), a.parameters(), "{variant}");
            assert_eq!(m.to_bytes().unwrap(), bytes, "{variant}");
            assert!(members().all(|k| m.contains_bytes(&k)), "{variant}");
            let (mut from_m, mut from_a) = (Vec::new(), Vec::new());
            m.contains_batch(&others, &mut from_m);
            a.contains_batch(&others, &mut from_a);
            assert_eq!(from_m, from_a, "{variant}");
            assert!(
                from_m.iter().any(|&x| !x),
                "{variant}: a filter that says yes to all"
            );
            for (k, &answer) in others.iter().zip(&from_a) {
                assert_eq!(m.contains(k), answer, "{variant}: {k}");
            }
            for len in (0..bytes.len()).step_by(7) {
                assert_eq!(
                    format!(
                        "{:?}",
                        approxset::load_membership(&bytes[..len]).unwrap_err()
                    ),
                    format!("{:?}", approxset::load(&bytes[..len]).unwrap_err()),
                    "{variant} truncated to {len}"
                );
            }
            // Through io::Read, with more data after it in the stream.
            let mut stream = bytes.clone();
            stream.extend_from_slice(b"and then something else");
            let mut cursor = std::io::Cursor::new(stream);
            let r = approxset::read_membership_from(&mut cursor).unwrap();
            assert_eq!(r.to_bytes().unwrap(), bytes);
            assert_eq!(cursor.position() as usize, bytes.len());
            let limit = bytes.len() as u64;
            assert!(approxset::read_membership_from_limited(&bytes[..], limit).is_ok());
            assert!(matches!(
                approxset::read_membership_from_limited(&bytes[..], limit - 1),
                Err(Error::TooLarge { .. })
            ));
        }
    }
    let unknown = common::forged(&sample(Variant::Classic).to_bytes().unwrap(), 6, &[0xEE]);
    assert_eq!(
        format!("{:?}", approxset::load_membership(&unknown).unwrap_err()),
        format!("{:?}", approxset::load(&unknown).unwrap_err())
    );
}

/// A filter loaded as a `dyn Membership` takes inserts again through
/// `as_approx_set_mut`, exactly as the same filter loaded by `load`.
#[test]
fn a_loaded_membership_object_takes_inserts() {
    for &variant in Variant::INSERTABLE {
        let bytes = sample(variant).to_bytes().unwrap();
        let mut m = approxset::load_membership(&bytes).unwrap();
        let mut a = approxset::load(&bytes).unwrap();
        assert!(m.as_approx_set().is_some(), "{variant}");
        let set = m.as_approx_set_mut().expect("every variant takes inserts");
        for i in 0..20 {
            let k = format!("more-{i}");
            assert_eq!(
                set.insert_bytes(k.as_bytes()).ok(),
                a.insert_bytes(k.as_bytes()).ok(),
                "{variant}"
            );
        }
        assert!(
            (0..20).all(|i| m.contains_bytes(format!("more-{i}").as_bytes())),
            "{variant}: the inserts reached the filter"
        );
        assert_eq!(m.len(), 70, "{variant}");
        assert_eq!(m.to_bytes().unwrap(), a.to_bytes().unwrap(), "{variant}");
    }
}

#[test]
fn reloaded_filters_keep_working() {
    for &variant in Variant::INSERTABLE {
        let f = sample(variant);
        let mut g = approxset::load(&f.to_bytes().unwrap()).unwrap();
        // The cuckoo filter has bounded room: keep what it accepts.
        let mut accepted = Vec::new();
        for i in 0..200 {
            let k = format!("more-{i}");
            match g.insert_bytes(k.as_bytes()) {
                Ok(_) => accepted.push(k),
                Err(Error::Full { .. }) if variant == Variant::Cuckoo => {}
                Err(e) => panic!("{variant}: {e}"),
            }
        }
        assert!(accepted.len() >= 40, "{variant}: {}", accepted.len());
        for k in &accepted {
            assert!(g.contains_bytes(k.as_bytes()));
        }
        assert!(members().all(|k| g.contains_bytes(&k)));
    }
}

/// Filters built from fixed keys with a fixed seed serialize to the
/// committed bytes, so an accidental format change fails here. After an
/// intended change (with a new format version), regenerate them with
/// `APPROXSET_BLESS=1 cargo test --test persistence golden`.
#[test]
fn golden_files() {
    for &variant in Variant::INSERTABLE {
        let bytes = sample(variant).to_bytes().unwrap();
        let golden = common::golden(&format!("{variant}.bin"), &bytes, variant.name());
        // The header, read by hand from the documented layout.
        assert_eq!(golden[..4], MAGIC);
        // Version 2 is needed by the mixed probes of the classic layouts;
        // the blocked and cuckoo layouts did not change and stay version 1.
        // The sliding filter is new in version 3.
        let version = match variant {
            Variant::Blocked | Variant::Cuckoo => 1,
            Variant::Sliding | Variant::Quotient => 3,
            _ => 2,
        };
        assert_eq!(
            u16::from_le_bytes([golden[4], golden[5]]),
            version,
            "{variant}"
        );
        assert!(version <= VERSION);
        assert_eq!(golden[7], 0);
        let total = u64::from_le_bytes(golden[8..16].try_into().unwrap());
        assert_eq!(total as usize, golden.len());
        assert_eq!(golden[16..32], HashKey::from_seed(SEED).to_le_bytes());
        let stored = u64::from_le_bytes(golden[golden.len() - 8..].try_into().unwrap());
        assert_eq!(stored, checksum(&golden[..golden.len() - 8]));
        // And it loads, with the same answers, keeping its function (the
        // default was SipHash-1-3 then) and its bytes.
        let g = approxset::load(&golden).unwrap();
        assert!(members().all(|k| g.contains_bytes(&k)));
        assert_eq!(g.hash_key().function(), HashFunction::SipHash13);
        assert!(
            common::same_data(&golden, &g.to_bytes().unwrap()),
            "{variant}"
        );
    }
}

/// A filter built without a function is of the default, SipHash-1-3-64
/// widened: code 3 in byte 7 of a version-3 file, loaded back with it and
/// answering every key as the filter did.
#[test]
fn the_default_function_is_code_3() {
    assert_eq!(HashFunction::default(), HashFunction::SipHash13x64);
    for &variant in Variant::INSERTABLE {
        let n = if variant == Variant::Scalable {
            10
        } else {
            300
        };
        let mut f = variant.builder().seed(SEED).build(n, 0.01).unwrap();
        for i in 0..50 {
            f.insert_bytes(format!("golden-{i}").as_bytes()).unwrap();
        }
        assert_eq!(f.hash_key().function(), HashFunction::SipHash13x64);
        let bytes = f.to_bytes().unwrap();
        assert_eq!(
            u16::from_le_bytes([bytes[4], bytes[5]]),
            VERSION,
            "{variant}"
        );
        assert_eq!(bytes[7], 3, "{variant}");
        assert_eq!(bytes[16..32], HashKey::from_seed(SEED).to_le_bytes());
        let g = approxset::load(&bytes).unwrap();
        assert_eq!(g.hash_key(), f.hash_key(), "{variant}");
        assert!(members().all(|k| g.contains_bytes(&k)), "{variant}");
        for i in 0..2000 {
            let k = format!("other-{i}");
            assert_eq!(
                g.contains_bytes(k.as_bytes()),
                f.contains_bytes(k.as_bytes()),
                "{variant} {k}"
            );
        }
    }
}

/// The XXH3 filters of every variant, pinned like [`golden_files`]: format
/// version 3 with the function's code 1 in byte 7 and the seed's key bits;
/// they load, keep the function, answer for their keys and serialize back
/// to the same bytes.
#[test]
fn golden_files_of_xxh3() {
    for &variant in Variant::INSERTABLE {
        let f = sample_hashed(variant, HashFunction::Xxh3);
        let bytes = f.to_bytes().unwrap();
        let golden = common::golden(&format!("{variant}-xxh3.bin"), &bytes, variant.name());
        assert_eq!(u16::from_le_bytes([golden[4], golden[5]]), 3, "{variant}");
        assert_eq!(golden[7], 1, "{variant}: XXH3's code");
        assert_eq!(golden[16..32], HashKey::from_seed(SEED).to_le_bytes());
        let g = approxset::load(&golden).unwrap();
        assert_eq!(g.hash_key().function(), HashFunction::Xxh3, "{variant}");
        assert_eq!(g.hash_key(), f.hash_key());
        assert!(members().all(|k| g.contains_bytes(&k)), "{variant}");
        assert!(
            common::same_data(&golden, &g.to_bytes().unwrap()),
            "{variant}"
        );
        // Only the function differs from the SipHash file: the same
        // parameters, other bits.
        let sip = sample(variant).to_bytes().unwrap();
        let (sip, golden) = (common::data_of(&sip), common::data_of(&golden));
        assert_eq!(sip.len(), golden.len(), "{variant}");
        assert_ne!(sip[HEADER_LEN..], golden[HEADER_LEN..], "{variant}");
    }
}

/// The files of format version 1 (double hashing, before the probes were
/// mixed) load, answer exactly as they did when they were written (the
/// keys among `other-0 … other-19999` that tested positive then, recorded in
/// `NAME-v1.answers` by that release), and are written back with the same
/// data (in version 4, which changed only the trailer). A filter grown from one keeps its scheme, so its old
/// keys stay found.
#[test]
fn version_1_files_answer_as_they_did() {
    for name in ["classic", "partitioned", "counting", "scalable"] {
        let bytes = std::fs::read(common::golden_path(&format!("{name}-v1.bin"))).unwrap();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1, "{name}");
        let f = approxset::load(&bytes).unwrap();
        assert!(members().all(|k| f.contains_bytes(&k)), "{name}");
        let recorded =
            std::fs::read_to_string(common::golden_path(&format!("{name}-v1.answers"))).unwrap();
        let recorded: Vec<u32> = recorded.lines().map(|l| l.parse().unwrap()).collect();
        let now: Vec<u32> = (0..20_000u32)
            .filter(|i| f.contains_bytes(format!("other-{i}").as_bytes()))
            .collect();
        assert_eq!(now, recorded, "{name}: answers changed");
        assert!(
            !recorded.is_empty(),
            "{name}: the check needs some positives"
        );
        assert!(
            common::same_data(&bytes, &f.to_bytes().unwrap()),
            "{name}: not written back as it was"
        );
        // More keys into the old filter: nothing lost, and it reloads.
        let mut g = approxset::load(&bytes).unwrap();
        for i in 0..100 {
            g.insert_bytes(format!("later-{i}").as_bytes()).unwrap();
        }
        let again = approxset::load(&g.to_bytes().unwrap()).unwrap();
        assert!(members().all(|k| again.contains_bytes(&k)), "{name}");
        assert!((0..100).all(|i| again.contains_bytes(format!("later-{i}").as_bytes())));
    }
}

/// A version-1 file with a non-zero reserved field, or a version-2 file
/// with an unknown probe scheme, is corrupt; a blocked filter has no scheme.
#[test]
fn probe_scheme_field_is_checked() {
    // Offset of the scheme field: header, then cells u64 and hashes u32.
    const SCHEME: usize = HEADER_LEN + 12;
    let v1 = std::fs::read(common::golden_path("classic-v1.bin")).unwrap();
    assert!(matches!(
        approxset::load(&common::forged(&v1, SCHEME, &[1])),
        Err(Error::Corrupt { .. })
    ));
    let v2 = sample(Variant::Classic).to_bytes().unwrap();
    assert_eq!(
        u32::from_le_bytes(v2[SCHEME..SCHEME + 4].try_into().unwrap()),
        1
    );
    assert!(matches!(
        approxset::load(&common::forged(&v2, SCHEME, &[2])),
        Err(Error::Corrupt { .. })
    ));
    let blocked = sample(Variant::Blocked).to_bytes().unwrap();
    assert!(matches!(
        approxset::load(&common::forged(&blocked, SCHEME, &[1])),
        Err(Error::Corrupt { .. })
    ));
}

#[test]
fn every_truncation_and_every_bit_flip_is_an_error() {
    for &variant in Variant::INSERTABLE {
        let bytes = sample(variant).to_bytes().unwrap();
        for len in 0..bytes.len() {
            match approxset::load(&bytes[..len]) {
                Err(Error::Truncated { .. }) => {}
                other => panic!("{variant} truncated to {len}: {other:?}"),
            }
        }
        for bit in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(
                approxset::load(&bad).is_err(),
                "{variant}: flip of bit {bit} loaded"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            approxset::load(&long),
            Err(Error::TrailingBytes { .. })
        ));
    }
}

/// Rewrites a field of a serialized filter and fixes the checksum, so the
/// checks behind the checksum are what rejects it.
fn patched(bytes: &[u8], offset: usize, value: &[u8]) -> Vec<u8> {
    common::forged(bytes, offset, value)
}

#[test]
fn specific_errors_behind_a_valid_checksum() {
    let classic = sample(Variant::Classic).to_bytes().unwrap();
    let p = HEADER_LEN; // classic parameters: bits u64, hashes u32, probe scheme u32, …

    let mut magic = classic.clone();
    magic[..4].copy_from_slice(b"GIF8");
    assert_eq!(
        approxset::load(&magic).unwrap_err(),
        Error::BadMagic { found: *b"GIF8" }
    );

    let future = patched(&classic, 4, &(VERSION + 1).to_le_bytes());
    assert_eq!(
        approxset::load(&future).unwrap_err(),
        Error::UnsupportedVersion {
            found: VERSION + 1,
            supported: VERSION
        }
    );

    let unknown = patched(&classic, 6, &[77]);
    assert_eq!(
        approxset::load(&unknown).unwrap_err(),
        Error::UnknownVariant { tag: 77 }
    );

    let huge = patched(&classic, p, &(1u64 << 60).to_le_bytes());
    let err = approxset::load(&huge).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("words"), "{err}");

    let fewer_bits = patched(&classic, p, &64u64.to_le_bytes());
    assert!(matches!(
        approxset::load(&fewer_bits),
        Err(Error::Corrupt { .. })
    ));

    for k in [0u32, 65, u32::MAX] {
        let bad = patched(&classic, p + 8, &k.to_le_bytes());
        let err = approxset::load(&bad).unwrap_err();
        assert!(err.to_string().contains("hashes"), "k = {k}: {err}");
    }

    let zero_bits = patched(&classic, p, &0u64.to_le_bytes());
    assert!(matches!(
        approxset::load(&zero_bits),
        Err(Error::Corrupt { .. })
    ));

    // Garbage appended inside the checksum: the parameters do not account for it.
    let mut inner = common::data_of(&classic).to_vec();
    inner.extend_from_slice(&[0xAB; 16]);
    let err = approxset::load(&common::seal(inner)).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");

    // A cuckoo filter whose stored count disagrees with its slots, and one
    // with an odd bucket count (the alternate-bucket map needs it even).
    let cuckoo = sample(Variant::Cuckoo).to_bytes().unwrap();
    // cuckoo parameters: bits u32, reserved u32, buckets u64, len u64, …
    let wrong_len = patched(&cuckoo, p + 16, &7u64.to_le_bytes());
    let err = approxset::load(&wrong_len).unwrap_err();
    assert!(err.to_string().contains("fingerprints stored"), "{err}");
    // One more than the table and stash can hold: a view refuses it too.
    let rooms = u64::from_le_bytes(cuckoo[p + 8..p + 16].try_into().unwrap()) * 4;
    let too_many = patched(&cuckoo, p + 16, &(rooms + 1).to_le_bytes());
    for err in [
        approxset::load(&too_many).unwrap_err(),
        approxset::view(&too_many).unwrap_err(),
    ] {
        assert!(
            err.to_string().contains("the table and stash hold"),
            "{err}"
        );
    }
    let any = patched(&cuckoo, p + 16, &u64::MAX.to_le_bytes());
    assert!(approxset::view(&any).is_err());
    let buckets = u64::from_le_bytes(cuckoo[p + 8..p + 16].try_into().unwrap());
    let odd = patched(&cuckoo, p + 8, &(buckets - 1).to_le_bytes());
    assert!(matches!(approxset::load(&odd), Err(Error::Corrupt { .. })));
    for bits in [0u32, 3, 33] {
        let width = patched(&cuckoo, p, &bits.to_le_bytes());
        let err = approxset::load(&width).unwrap_err();
        assert!(err.to_string().contains("outside 4..=32"), "{err}");
    }

    // A classic file is not a counting filter.
    assert_eq!(
        approxset::CountingBloomFilter::from_bytes(&classic).unwrap_err(),
        Error::WrongVariant {
            expected: "counting",
            found: "classic"
        }
    );
    // A bit set past the end of the filter.
    let f = approxset::BloomFilter::with_num_bits(100)
        .seed(1)
        .hashes(3)
        .unwrap();
    let bytes = f.to_bytes().unwrap();
    let last_word = common::data_of(&bytes).len() - 8;
    let err = approxset::load(&patched(&bytes, last_word + 7, &[0x80])).unwrap_err();
    assert!(err.to_string().contains("past the end"), "{err}");
}

#[test]
fn a_header_claiming_a_huge_length_reads_safely_from_a_stream() {
    let mut bytes = sample(Variant::Classic).to_bytes().unwrap();
    let real = bytes.len() as u64;
    bytes[8..16].copy_from_slice(&(1u64 << 60).to_le_bytes());
    // Above the default limit: refused before the body is read.
    match approxset::read_from(std::io::Cursor::new(&bytes)) {
        Err(Error::TooLarge { needed, .. }) => assert_eq!(needed, 1 << 60),
        other => panic!("{other:?}"),
    }
    // Under the limit over a short stream: truncated.
    bytes[8..16].copy_from_slice(&(1u64 << 30).to_le_bytes());
    match approxset::read_from(std::io::Cursor::new(&bytes)) {
        Err(Error::Truncated { needed, available }) => {
            assert_eq!((needed, available), (1 << 30, real));
        }
        other => panic!("{other:?}"),
    }
    // Over a caller's limit.
    assert!(matches!(
        approxset::read_from_limited(std::io::Cursor::new(&bytes), real),
        Err(Error::TooLarge { .. })
    ));
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Append(Vec<u8>),
    Splice(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, m)| Mutation::Flip(i, m)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..16)
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        proptest::collection::vec(any::<u8>(), 1..16).prop_map(Mutation::Append),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..24)
        )
            .prop_map(|(i, v)| Mutation::Splice(i, v)),
    ]
}

fn apply(bytes: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for m in mutations {
        let len = out.len().max(1);
        match m {
            Mutation::Flip(i, mask) => {
                if !out.is_empty() {
                    out[i % len] ^= mask;
                }
            }
            Mutation::Set(i, b) => {
                if !out.is_empty() {
                    out[i % len] = *b;
                }
            }
            Mutation::Truncate(i) => out.truncate(i % len),
            Mutation::Insert(i, v) => {
                let at = i % (out.len() + 1);
                out.splice(at..at, v.iter().copied());
            }
            Mutation::Append(v) => out.extend_from_slice(v),
            Mutation::Splice(i, v) => {
                let at = i % len;
                let end = (at + v.len()).min(out.len());
                if at <= end {
                    out.splice(at..end, v.iter().copied());
                }
            }
        }
    }
    out
}

fn corruption_is_an_error(variant: Variant, mutations: &[Mutation]) -> Result<(), TestCaseError> {
    let bytes = sample(variant).to_bytes().unwrap();
    let bad = apply(&bytes, mutations);
    // A mutation that writes a byte's own value proves nothing.
    if bad != bytes {
        prop_assert!(
            approxset::load(&bad).is_err(),
            "{variant}: corrupted bytes loaded"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(10_000))]

    /// Every variant's sample file, mutated the same way.
    #[test]
    fn corrupted_files_are_errors(m in proptest::collection::vec(mutation(), 1..4)) {
        for &variant in Variant::INSERTABLE {
            corruption_is_an_error(variant, &m)?;
        }
    }
}

/// The split-block filter's fields: `k` is 8, the probe scheme 0, the bits
/// whole 256-bit blocks, at most 2^32 of them, and the file version at
/// least 2 (the tag is new in it); anything else is corrupt, behind a valid checksum.
#[test]
fn split_block_fields_are_checked() {
    let good = sample(Variant::SplitBlock).to_bytes().unwrap();
    let p = HEADER_LEN; // bits u64, hashes u32, probe scheme u32, len, capacity, fp_rate
    assert_eq!(good[6], approxset::format::tag::SPLIT_BLOCK);
    assert_eq!(u16::from_le_bytes([good[4], good[5]]), VERSION);
    let bits = u64::from_le_bytes(good[p..p + 8].try_into().unwrap());
    assert_eq!(bits % 256, 0);
    assert_eq!(
        u32::from_le_bytes(good[p + 8..p + 12].try_into().unwrap()),
        8
    );
    let corrupt = |bad: Vec<u8>, what: &str| {
        let err = approxset::load(&bad).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{what}: {err}");
        err.to_string()
    };
    for k in [1u32, 7, 9, 64] {
        let msg = corrupt(patched(&good, p + 8, &k.to_le_bytes()), "hashes");
        assert!(msg.contains("hashes is 8"), "{msg}");
    }
    corrupt(patched(&good, p + 12, &1u32.to_le_bytes()), "probe scheme");
    let msg = corrupt(
        patched(&good, p, &(bits + 64).to_le_bytes()),
        "part of a block",
    );
    assert!(msg.contains("split-block filter's whole units"), "{msg}");
    corrupt(
        patched(&good, p, &(bits - 256).to_le_bytes()),
        "one block fewer",
    );
    // 2^32 + 1 blocks: past the 32-bit block index, refused before the
    // payload is looked at.
    let msg = corrupt(
        patched(&good, p, &(256u64 << 32 | 256).to_le_bytes()),
        "too many blocks",
    );
    assert!(msg.contains("bytes"), "{msg}");
    let msg = corrupt(common::with_version(&good, 1), "version 1");
    assert!(msg.contains("new in version 2"), "{msg}");
}

/// The payload is Parquet's bitset, byte for byte: block j at bytes 32j,
/// word i of it the little-endian u32 at byte 32j + 4i, and a key with
/// 64-bit hash h (the digest's `h1`) sets bit (x·SALTᵢ) >> 27 of word i of
/// block ((h >> 32)·z) >> 32, x the low 32 bits of h.
#[test]
fn split_block_payload_is_the_parquet_bitset() {
    const SALTS: [u32; 8] = [
        0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947,
        0x5c6bfb31,
    ];
    let f = sample(Variant::SplitBlock);
    let bytes = f.to_bytes().unwrap();
    let payload = &common::data_of(&bytes)[HEADER_LEN + 40..];
    let z = payload.len() / 32;
    assert_eq!(z as u64 * 256, f.memory_bytes() as u64 * 8);
    let mut bitset = vec![0u8; payload.len()];
    for key in members() {
        let h = f.hash_key().digest_bytes(&key).h1();
        let block = (((h >> 32) * z as u64) >> 32) as usize;
        for (i, salt) in SALTS.iter().enumerate() {
            let at = 32 * block + 4 * i;
            let mut word = u32::from_le_bytes(bitset[at..at + 4].try_into().unwrap());
            word |= 1 << ((h as u32).wrapping_mul(*salt) >> 27);
            bitset[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
    }
    assert_eq!(payload, &bitset[..]);
}

/// The fuse filters of every width (SipHash) and the 8-bit one with XXH3,
/// built from the golden keys, pinned like [`golden_files`]: always
/// version 3 (the first with tag 8), the parameters at the documented
/// offsets, the array from byte 72; they load and serialize back to the
/// same bytes.
#[test]
fn golden_files_of_fuse() {
    use approxset::BinaryFuseFilter;
    for (name, fp, bits, function) in [
        ("fuse-8bit", 0.01, 8u32, HashFunction::SipHash13),
        ("fuse-16bit", 1e-4, 16, HashFunction::SipHash13),
        ("fuse-32bit", 1e-6, 32, HashFunction::SipHash13),
        ("fuse-8bit-xxh3", 0.01, 8, HashFunction::Xxh3),
    ] {
        let f = BinaryFuseFilter::with_fp_rate(fp)
            .seed(SEED)
            .hash(function)
            .build_bytes(members())
            .unwrap();
        let bytes = f.to_bytes().unwrap();
        let golden = common::golden(&format!("{name}.bin"), &bytes, name);
        let u32_at = |at: usize| u32::from_le_bytes(golden[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_le_bytes(golden[at..at + 8].try_into().unwrap());
        assert_eq!(golden[..4], MAGIC);
        assert_eq!(u16::from_le_bytes([golden[4], golden[5]]), 3, "{name}");
        assert_eq!(golden[6], 8, "{name}: the fuse tag");
        assert_eq!(golden[7], function.code(), "{name}");
        assert_eq!(u64_at(8) as usize, golden.len());
        assert_eq!(golden[16..32], HashKey::from_seed(SEED).to_le_bytes());
        assert_eq!(u32_at(32), bits, "{name}");
        assert_eq!(u32_at(36), 0, "{name}: reserved");
        assert_eq!(u64_at(40), f.seed(), "{name}");
        let (length, count) = (u64::from(u32_at(48)), u64::from(u32_at(52)));
        assert!(length.is_power_of_two() && count >= 1, "{name}");
        assert_eq!(u64_at(56), (count + 2) * length, "{name}");
        assert_eq!(u64_at(64), 50, "{name}: len");
        let cells = (count + 2) * length * u64::from(bits) / 8;
        assert_eq!(
            golden.len() as u64,
            72 + cells.next_multiple_of(8) + CHECKSUM_LEN as u64,
            "{name}"
        );
        let stored = u64_at(golden.len() - 8);
        assert_eq!(stored, checksum(&golden[..golden.len() - 8]));
        let g = BinaryFuseFilter::from_bytes(&golden).unwrap();
        assert_eq!(g, f);
        assert!(members().all(|k| g.contains_bytes(&k)), "{name}");
        assert!(common::same_data(&golden, &g.to_bytes().unwrap()), "{name}");
    }
}

/// A fuse file claiming version 1 or 2 (which have no tag 8) is corrupt;
/// another tag's reader names the variant it found.
#[test]
fn fuse_files_are_version_3_only() {
    use approxset::BinaryFuseFilter;
    // SipHash-1-3-128, whose code 0 is valid before version 3 too, so that
    // the fuse tag's own check is what refuses the old versions.
    let f = BinaryFuseFilter::with_fp_rate(0.01)
        .seed(SEED)
        .hash(HashFunction::SipHash13)
        .build_bytes(members())
        .unwrap();
    let bytes = f.to_bytes().unwrap();
    for version in [1u16, 2] {
        let old = common::with_version(&bytes, version);
        let e = BinaryFuseFilter::from_bytes(&old).unwrap_err();
        assert!(matches!(e, Error::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("new in version 3"), "{e}");
    }
    let e = approxset::CuckooFilter::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        e,
        Error::WrongVariant {
            expected: "cuckoo",
            found: "fuse"
        }
    );
    let e = BinaryFuseFilter::from_bytes(&sample(Variant::Cuckoo).to_bytes().unwrap()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::WrongVariant {
                expected: "fuse",
                ..
            }
        ),
        "{e}"
    );
}

/// Every variant written page by page (`write_into`, what the CLI saves
/// with) gives exactly its `to_bytes`, at sizes around page boundaries.
#[test]
fn streamed_writes_are_the_bytes() {
    for &variant in Variant::INSERTABLE {
        for n in [1usize, 10, 300, 3_000, 40_000] {
            let mut f = variant.builder().seed(SEED).build(n, 0.01).unwrap();
            for i in 0..n / 2 {
                let _ = f.insert_bytes(format!("k-{i}").as_bytes());
            }
            let mut streamed = Vec::new();
            f.write_into(&mut streamed).unwrap();
            assert_eq!(streamed, f.to_bytes().unwrap(), "{variant} at {n}");
        }
    }
}
/// The Ribbon filters at a rate between powers of two (lower and upper
/// blocks), at a power of two (lower blocks only) and with XXH3, built
/// from the golden keys, pinned like [`golden_files`]: always version 3,
/// tag 11, the parameters at the documented offsets (`docs/format.md`,
/// "Ribbon (11)"), the solution from byte 72; they load and serialize
/// back to the same bytes.
#[test]
fn golden_files_of_ribbon() {
    use approxset::RibbonFilter;
    for (name, fp, lower, function) in [
        ("ribbon-1pct", 0.01, 6u32, HashFunction::SipHash13),
        ("ribbon-2pow-10", 1.0 / 1024.0, 10, HashFunction::SipHash13),
        ("ribbon-1pct-xxh3", 0.01, 6, HashFunction::Xxh3),
    ] {
        let f = RibbonFilter::with_fp_rate(fp)
            .seed(SEED)
            .hash(function)
            .build_bytes(members())
            .unwrap();
        let bytes = f.to_bytes().unwrap();
        let golden = common::golden(&format!("{name}.bin"), &bytes, name);
        let u32_at = |at: usize| u32::from_le_bytes(golden[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_le_bytes(golden[at..at + 8].try_into().unwrap());
        assert_eq!(golden[..4], MAGIC);
        assert_eq!(u16::from_le_bytes([golden[4], golden[5]]), 3, "{name}");
        assert_eq!(golden[6], 11, "{name}: the ribbon tag");
        assert_eq!(golden[7], function.code(), "{name}");
        assert_eq!(u64_at(8) as usize, golden.len());
        assert_eq!(golden[16..32], HashKey::from_seed(SEED).to_le_bytes());
        assert_eq!(u32_at(32), 128, "{name}: coefficient bits");
        assert_eq!(u32_at(36), lower, "{name}: lower columns");
        assert_eq!(u64_at(40), f.seed(), "{name}");
        let (blocks, upper_start) = (u64_at(48), u64_at(56));
        // 50 keys: one block; at 1 % every start is in an upper block.
        assert_eq!(blocks, 1, "{name}");
        assert_eq!(upper_start, if lower == 6 { 0 } else { 1 }, "{name}");
        assert_eq!(u64_at(64), 50, "{name}: len");
        let words = blocks * u64::from(lower) + (blocks - upper_start);
        assert_eq!(
            golden.len() as u64,
            72 + 16 * words + CHECKSUM_LEN as u64,
            "{name}"
        );
        let stored = u64_at(golden.len() - 8);
        assert_eq!(stored, checksum(&golden[..golden.len() - 8]));
        let g = RibbonFilter::from_bytes(&golden).unwrap();
        assert_eq!(g, f);
        assert!(members().all(|k| g.contains_bytes(&k)), "{name}");
        assert!(common::same_data(&golden, &g.to_bytes().unwrap()), "{name}");
    }
}

/// A Ribbon file claiming version 1 or 2 (which have no tag 11) is
/// corrupt; another tag's reader names the variant it found.
#[test]
fn ribbon_files_are_version_3_only() {
    use approxset::RibbonFilter;
    let f = RibbonFilter::with_fp_rate(0.01)
        .seed(SEED)
        .hash(HashFunction::SipHash13)
        .build_bytes(members())
        .unwrap();
    let bytes = f.to_bytes().unwrap();
    for version in [1u16, 2] {
        let old = common::with_version(&bytes, version);
        let e = RibbonFilter::from_bytes(&old).unwrap_err();
        assert!(matches!(e, Error::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("new in version 3"), "{e}");
    }
    let e = approxset::BinaryFuseFilter::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        e,
        Error::WrongVariant {
            expected: "fuse",
            found: "ribbon"
        }
    );
}
