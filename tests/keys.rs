//! One key, one encoding: every path a key can take into a filter reaches
//! the same bits, for every variant, through a saved file as well.

use approxset::{ApproxSet, Deletable, Hashed, Variant};

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

fn contains_by(path: usize, f: &dyn ApproxSet, s: &str) -> bool {
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
    for &variant in Variant::ALL {
        for into in 0..PATHS {
            let mut f = variant.builder().seed(11).build(1000, 0.001).unwrap();
            for k in keys() {
                insert_by(into, &mut *f, &k);
            }
            // Saved and loaded too: the file keeps the encoding.
            let g = approxset::load(&f.to_bytes().unwrap()).unwrap();
            for out in 0..PATHS {
                for k in keys() {
                    assert!(
                        contains_by(out, &*f, &k) && contains_by(out, &*g, &k),
                        "{variant}: inserted by path {into}, absent by path {out}: {k}"
                    );
                }
            }
        }
    }
}

#[test]
fn removing_by_any_path_removes_the_same_key() {
    for &variant in Variant::ALL.iter().filter(|v| v.supports_delete()) {
        let mut f: Box<dyn Deletable + Send + Sync> = variant
            .builder()
            .seed(5)
            .build_deletable(1000, 0.001)
            .unwrap();
        f.insert("alice").unwrap();
        f.insert(b"bob").unwrap();
        assert!(f.remove_bytes(b"alice"), "{variant}");
        assert!(f.remove(&String::from("bob")), "{variant}");
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
