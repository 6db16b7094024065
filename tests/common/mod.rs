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
        golden == bytes,
        "{what}: serialized bytes differ from {}",
        path.display()
    );
    golden
}
