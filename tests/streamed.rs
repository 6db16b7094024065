//! Streamed loading (`approxset::load_streamed`) of the saved files of every
//! format version: the golden files of versions 1 to 3 (one checksum of the
//! whole file, computed as the file streams by) and fresh version-4 files
//! (a checksum per page) load to the same filter as `approxset::load`, and
//! a flipped bit anywhere is refused, never loaded.

use approxset::{Variant, load, load_streamed};

/// Every golden file: its name and bytes.
fn golden() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// `load` and `load_streamed` agree on `bytes`: the same filter, or both
/// refuse.
fn agree(name: &str, bytes: &[u8]) {
    let total = bytes.len() as u64;
    match (load(bytes), load_streamed(&bytes.to_vec(), total)) {
        (Ok(whole), Ok(streamed)) => {
            assert_eq!(
                whole.to_bytes().unwrap(),
                streamed.to_bytes().unwrap(),
                "{name}"
            );
            assert_eq!(whole.len(), streamed.len(), "{name}");
        }
        (Err(_), Err(_)) => {}
        (whole, streamed) => panic!(
            "{name}: load {:?}, load_streamed {:?}",
            whole.err(),
            streamed.err()
        ),
    }
}

#[test]
fn golden_files_of_every_version_stream_to_the_filter_load_gives() {
    let files = golden();
    assert!(files.len() >= 30, "{} golden files", files.len());
    let mut versions = std::collections::BTreeSet::new();
    for (name, bytes) in &files {
        versions.insert(u16::from_le_bytes([bytes[4], bytes[5]]));
        agree(name, bytes);
    }
    assert_eq!(versions.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn a_flipped_bit_anywhere_in_a_streamed_file_is_refused() {
    let mut files = golden();
    // And version-4 files larger than a read chunk, of every streamed variant.
    for &variant in Variant::ALL.iter().filter(|v| v.is_streamed()) {
        let mut f = variant.builder().seed(9).build(1_500_000, 0.01).unwrap();
        for i in 0..1000u32 {
            f.insert(&i).unwrap();
        }
        files.push((format!("{variant} v4"), f.to_bytes().unwrap()));
    }
    let mut checked = std::collections::BTreeSet::new();
    for (name, bytes) in &files {
        let header = approxset::format::Header::parse(bytes).unwrap();
        let variant: Variant = header.variant().unwrap().parse().unwrap();
        if !variant.is_streamed() {
            continue;
        }
        checked.insert(variant);
        assert!(
            load_streamed(&bytes.to_vec(), bytes.len() as u64).is_ok(),
            "{name}"
        );
        // Bits spread over the file: header, parameters, payload, trailer.
        let step = (bytes.len() / 97).max(1);
        for at in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << (at % 8);
            assert!(
                load_streamed(&damaged, damaged.len() as u64).is_err(),
                "{name}: bit {} of byte {at} flipped, loaded anyway",
                at % 8
            );
            assert!(load(&damaged).is_err(), "{name}: byte {at}");
        }
    }
    assert_eq!(checked.len(), 6, "{checked:?}");
}
