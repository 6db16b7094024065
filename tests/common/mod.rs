//! Helpers shared by the top-level test suites.
#![allow(dead_code)]

/// z such that P(Z > z) < 10⁻⁶ for a standard normal Z (one-sided).
pub(crate) const Z_ONE_SIDED_1E6: f64 = 4.76;

/// The one-sided upper bound on a binomial count: q·p + z·√(q·p(1−p)).
pub(crate) fn binomial_upper(queries: u64, p: f64, z: f64) -> f64 {
    let q = queries as f64;
    q * p + z * (q * p * (1.0 - p)).sqrt()
}

/// The two-sided tolerance z·√(q·p(1−p)) around the mean q·p.
pub(crate) fn binomial_tolerance(queries: u64, p: f64, z: f64) -> f64 {
    let q = queries as f64;
    z * (q * p * (1.0 - p)).sqrt()
}

/// The proptest settings every top-level suite uses: `cases` cases from a
/// fixed seed, so a run is reproducible and CI sees the same inputs as a
/// developer (a failure there is a failure here), and no regression files.
/// Set `PROPTEST_RNG_SEED` to explore other inputs.
pub(crate) fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    let defaults = proptest::test_runner::Config::default();
    let rng_seed = if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
        defaults.rng_seed
    } else {
        proptest::test_runner::RngSeed::Fixed(0x5EED_A99E)
    };
    proptest::test_runner::Config {
        cases,
        rng_seed,
        failure_persistence: None,
        ..defaults
    }
}

/// The path of the golden file `name` under `tests/golden/`.
pub(crate) fn golden_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The committed golden file `name`, checked to hold exactly `bytes`
/// (`what` names the filter in the failure). With `APPROXSET_BLESS` set,
/// `bytes` are written there first: run so only after an intended format
/// change.
pub(crate) fn golden(name: &str, bytes: &[u8], what: &str) -> Vec<u8> {
    let path = golden_path(name);
    if std::env::var_os("APPROXSET_BLESS").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    let golden = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless to create it)", path.display()));
    assert!(
        golden == bytes || same_data(&golden, bytes),
        "{what}: serialized bytes differ from {}",
        path.display()
    );
    golden
}

/// Whether `old`, a file of format version 1 to 3, and `new`, the same
/// filter written in version 4, hold the same data: the same header but
/// for the version and total length, the same parameters and payload.
/// (Version 4 changed only the trailer, so every older golden file is
/// checked this way against what is written today.)
#[allow(dead_code)]
pub(crate) fn same_data(old: &[u8], new: &[u8]) -> bool {
    let (a, b) = (data_of(old), data_of(new));
    a.len() == b.len() && a[..4] == b[..4] && a[6..8] == b[6..8] && a[16..] == b[16..]
}

/// The data of a serialized filter (header, parameters, payload): its
/// bytes without the page table and checksum (version 4) or the checksum
/// (versions 1 to 3).
#[allow(dead_code)]
pub(crate) fn data_of(bytes: &[u8]) -> &[u8] {
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    let end = if version >= approxset::format::PAGED_VERSION {
        approxset::format::PageLayout::from_total(bytes.len() as u64)
            .unwrap()
            .data_len() as usize
    } else {
        bytes.len() - approxset::format::CHECKSUM_LEN
    };
    &bytes[..end]
}

/// A serialized filter made of `data` (header, parameters, payload, of
/// any length): its total length set and its checksums appended as its
/// version (bytes 4–5) lays them out, so that the checks behind the
/// checksums are what reject it.
#[allow(dead_code)]
pub(crate) fn seal(mut data: Vec<u8>) -> Vec<u8> {
    let version = u16::from_le_bytes([data[4], data[5]]);
    let total = if version >= approxset::format::PAGED_VERSION {
        approxset::format::PageLayout::for_data(data.len() as u64).total_len()
    } else {
        data.len() as u64 + approxset::format::CHECKSUM_LEN as u64
    };
    data[8..16].copy_from_slice(&total.to_le_bytes());
    data.resize(total as usize, 0);
    approxset::format::reseal(&mut data).unwrap();
    data
}

/// `bytes` with `value` written at `at` and the checksums made valid again.
#[allow(dead_code)]
pub(crate) fn forged(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut data = data_of(bytes).to_vec();
    data[at..at + value.len()].copy_from_slice(value);
    seal(data)
}

/// `bytes` laid out as a file of format `version` (its data unchanged, its
/// trailer that version's), checksums valid.
#[allow(dead_code)]
pub(crate) fn with_version(bytes: &[u8], version: u16) -> Vec<u8> {
    let mut data = data_of(bytes).to_vec();
    data[4..6].copy_from_slice(&version.to_le_bytes());
    seal(data)
}
