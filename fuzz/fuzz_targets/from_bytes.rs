//! Arbitrary bytes through every loader: an error or a filter that works,
//! never a panic, an abort or an allocation larger than the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut filter) = approxset::load(data) {
        // A loaded filter must be usable without panicking.
        let _ = filter.contains_bytes(b"probe");
        let _ = filter.estimated_fp_rate();
        if filter.insert_bytes(b"probe").is_ok() {
            assert!(filter.contains_bytes(b"probe"));
        }
        let again = filter.to_bytes().expect("every approxset filter serializes");
        assert!(approxset::load(&again).is_ok());
    }
    if let Ok(mut filter) = approxset::load_membership(data) {
        let _ = filter.contains_bytes(b"probe");
        let inserted = filter
            .as_approx_set_mut()
            .is_some_and(|set| set.insert_bytes(b"probe").is_ok());
        if inserted {
            assert!(filter.contains_bytes(b"probe"));
        }
    }
    if let Ok(mut filter) = approxset::load_deletable(data) {
        if filter.insert_bytes(b"probe").is_ok() {
            assert!(filter.remove_bytes(b"probe").is_removed());
        }
    }
    // Every loadable filter, static ones included, opens read-only.
    if let Ok(filter) = approxset::load_membership(data) {
        let _ = filter.contains_bytes(b"probe");
        let again = filter.to_bytes().expect("every approxset filter serializes");
        assert!(approxset::load_membership(&again).is_ok());
    }
    let _ = approxset::read_from(std::io::Cursor::new(data));
});
