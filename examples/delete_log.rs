//! Deletion-capable membership in an application: a store whose records
//! live in an immutable segment records deleted primary keys in a delete
//! log, and keeps a deletable filter of that log in memory. Every
//! read asks the filter first and consults the log only when the filter
//! says "maybe deleted"; a key inserted again is removed from the log and
//! from the filter, which only a deletable filter can do.
//!
//! The filter is a `Box<dyn Deletable + Send + Sync>` chosen by the first
//! command-line word: `quotient` (the default, as the guide's table says for
//! a log whose size is not known in advance: it grows at its rate, and keys
//! deleted again and again are counted without a cap), `cuckoo` (the least
//! memory when the number of deletes is known) or `counting`. The filter is
//! sized for a tenth of the deletes, so the quotient filter grows:
//!
//! `cargo run --release --example delete_log -- cuckoo`

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use approxset::{Deletable, Variant};

const RECORDS: u64 = 1_000_000;
/// Every tenth key is deleted, and every third deleted key (every
/// thirtieth key) is inserted again.
const DELETE_EVERY: u64 = 10;
const REINSERT_EVERY: u64 = 30;
const DELETES: u64 = RECORDS / DELETE_EVERY;
const FP_RATE: f64 = 0.01;

/// A store: an immutable segment of records, newer writes over it, a delete
/// log (an exact set, standing for a log on disk that costs a lookup to
/// consult) and the filter of the log.
struct Store {
    segment: Vec<String>,
    writes: HashMap<u64, String>,
    delete_log: HashSet<u64>,
    deleted: Box<dyn Deletable + Send + Sync>,
    log_lookups: u64,
}

impl Store {
    fn new(records: u64, deleted: Box<dyn Deletable + Send + Sync>) -> Store {
        Store {
            segment: (0..records).map(|id| format!("record {id}")).collect(),
            writes: HashMap::new(),
            delete_log: HashSet::new(),
            deleted,
            log_lookups: 0,
        }
    }

    /// Deletes `id`: recorded once in the log and once in the filter.
    fn delete(&mut self, id: u64) -> approxset::Result<()> {
        if self.delete_log.insert(id) {
            self.deleted.insert(&id)?;
        }
        self.writes.remove(&id);
        Ok(())
    }

    /// Writes `id`; a deleted key leaves the log and the filter again (it
    /// was inserted into the filter exactly once, so removing it is safe).
    fn put(&mut self, id: u64, value: String) {
        if self.delete_log.remove(&id) {
            let removal = self.deleted.remove(&id);
            debug_assert!(removal.is_removed(), "inserted once, so removable");
        }
        self.writes.insert(id, value);
    }

    /// Reads `id`: the filter answers "certainly not deleted" for almost
    /// every live key, so the log is consulted only for deleted keys and
    /// the filter's false positives.
    fn get(&mut self, id: u64) -> Option<&str> {
        if self.deleted.contains(&id) {
            self.log_lookups += 1;
            if self.delete_log.contains(&id) {
                return None;
            }
        }
        match self.writes.get(&id) {
            Some(value) => Some(value),
            None => self
                .segment
                .get(usize::try_from(id).ok()?)
                .map(String::as_str),
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let word = std::env::args().nth(1).unwrap_or_else(|| "quotient".into());
    let variant = match word.parse::<Variant>() {
        Ok(variant) if variant.supports_delete() => variant,
        parsed => {
            let why = match parsed {
                Ok(variant) => format!("{variant} filters cannot delete"),
                Err(_) => format!("unknown variant {word:?}"),
            };
            eprintln!(
                "{why}\nusage: cargo run --release --example delete_log -- [quotient|cuckoo|counting]"
            );
            std::process::exit(2);
        }
    };
    // A log's size is rarely known: the growing filter starts at a tenth of
    // it; the others, which cannot grow, are sized for all of it.
    let expected = if variant == Variant::Quotient {
        DELETES / 10
    } else {
        DELETES
    };
    let filter = variant
        .builder()
        .seed(1)
        .build_deletable(expected as usize, FP_RATE)?;
    println!(
        "delete filter: {} ({} bytes for {DELETES} deleted keys at {FP_RATE} fp: {:.1} bits/key)",
        filter.variant(),
        filter.memory_bytes(),
        filter.memory_bytes() as f64 * 8.0 / DELETES as f64
    );
    let mut store = Store::new(RECORDS, filter);

    // Delete every tenth key, then insert a third of those again.
    let start = Instant::now();
    for id in (0..RECORDS).filter(|id| id % DELETE_EVERY == 0) {
        store.delete(id)?;
    }
    for id in (0..RECORDS).filter(|id| id % REINSERT_EVERY == 0) {
        store.put(id, format!("record {id}, written again"));
    }
    let reinserted = store.writes.len() as u64;
    println!(
        "{RECORDS} records; {DELETES} deleted, {reinserted} of them inserted again \
         ({:.0} ms); filter now holds {} keys, the log {}",
        start.elapsed().as_secs_f64() * 1e3,
        store.deleted.len(),
        store.delete_log.len()
    );

    // Read every key and check each answer against the truth.
    let start = Instant::now();
    let (mut live, mut gone, mut wrong) = (0u64, 0u64, 0u64);
    for id in 0..RECORDS {
        let expected_deleted = id % DELETE_EVERY == 0 && id % REINSERT_EVERY != 0;
        let found = store.get(id).is_some();
        if found {
            live += 1;
        } else {
            gone += 1;
        }
        wrong += u64::from(found == expected_deleted);
    }
    let read_time = start.elapsed();
    assert_eq!(wrong, 0, "every read answers as the store's truth");
    let false_positives = store.log_lookups - gone;
    println!(
        "read all {RECORDS} keys in {:.0} ms ({:.0} ns/read): {live} live, {gone} deleted, {wrong} wrong",
        read_time.as_secs_f64() * 1e3,
        read_time.as_nanos() as f64 / RECORDS as f64
    );
    println!(
        "delete log consulted {} times instead of {RECORDS}: {gone} deleted keys + {false_positives} \
         false positives ({:.3} % of {live} live keys)",
        store.log_lookups,
        100.0 * false_positives as f64 / live as f64
    );
    let still_flagged = (0..RECORDS)
        .filter(|id| store.writes.contains_key(id) && store.deleted.contains(id))
        .count();
    println!(
        "re-inserted keys the filter still flags: {still_flagged} of {reinserted} \
         (false positives only: each was removed from the filter)"
    );
    Ok(())
}
