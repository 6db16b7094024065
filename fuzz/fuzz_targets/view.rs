//! Arbitrary bytes, at any alignment, through `approxset::view`: an error
//! or a view that answers without panicking or reading out of bounds; what
//! a view refuses `load` refuses too, and where `load` accepts, the view
//! answers as the loaded filter.
#![no_main]

use approxset::Error;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte places the rest 0 to 7 bytes past an 8-byte boundary.
    let Some((&skew, rest)) = data.split_first() else {
        return;
    };
    let skew = usize::from(skew % 8);
    let mut buf = vec![0u8; skew];
    buf.extend_from_slice(rest);
    let bytes = &buf[skew..];
    let keys: Vec<u32> = (0..64).collect();
    match approxset::view(bytes) {
        Ok(view) => {
            let mut out = Vec::new();
            view.contains_batch(&keys, &mut out);
            for (k, &batched) in keys.iter().zip(&out) {
                assert_eq!(view.contains(k), batched);
            }
            let _ = (
                view.len(),
                view.capacity(),
                view.estimated_fp_rate(),
                view.estimated_items(),
                view.memory_bytes(),
                view.parameters(),
            );
            let again = view.to_bytes().expect("every view serializes");
            if let Ok(loaded) = approxset::load_membership(bytes) {
                for k in &keys {
                    assert_eq!(loaded.contains(k), view.contains(k));
                }
                assert_eq!(again, loaded.to_bytes().expect("it serializes"));
                assert!(approxset::view_verified(bytes).is_ok());
            }
        }
        Err(Error::Unsupported { .. }) => {}
        Err(_) => assert!(approxset::load_membership(bytes).is_err()),
    }
});
