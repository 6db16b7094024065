//! The space-efficient spell checker of the encyclopedia seed: a Bloom
//! filter of a word list answers "is this a word?" in about one byte per
//! word, against several dozen bytes per word for a `HashSet<String>`, and
//! never rejects a correct word; the price is that a few misspellings pass.
//!
//! It builds filters at 10 %, 1 % and 0.1 % from `examples/data/words.txt`
//! (15,276 words), checks `examples/data/text.txt`, and counts the false
//! positives among 100,000 one-letter misspellings that are not in the list.
//!
//! `cargo run --release --example spell_check`

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Instant;

use approxset::BloomFilter;
use approxset::hash::splitmix64;

const WORDS: &str = include_str!("data/words.txt");
const TEXT: &str = include_str!("data/text.txt");
const MISSPELLINGS: usize = 100_000;
const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// One random one-letter edit of `word`: a substitution, deletion,
/// insertion or transposition of neighbours.
fn edit(word: &str, rng: &mut u64) -> String {
    let mut bytes = word.as_bytes().to_vec();
    let len = bytes.len();
    let mut pick = |n: usize| (splitmix64(rng) % n as u64) as usize;
    let letter = LETTERS[pick(LETTERS.len())];
    match pick(4) {
        0 => bytes[pick(len)] = letter,
        1 if len > 1 => {
            bytes.remove(pick(len));
        }
        2 => bytes.insert(pick(len + 1), letter),
        _ if len > 1 => {
            let i = pick(len - 1);
            bytes.swap(i, i + 1);
        }
        _ => bytes.push(letter),
    }
    // Only ASCII letters were written, so this is valid UTF-8.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The heap a `HashSet<String>` holds, estimated from its layout: std's
/// hash table (hashbrown) keeps at most 7/8 of its buckets full, so it has
/// `capacity × 8/7` buckets, each a `String` (pointer, capacity, length)
/// and one control byte, plus 16 trailing control bytes; each string's
/// bytes are a separate allocation of `String::capacity` bytes (allocator
/// headers and rounding not counted, so this is a lower bound).
fn hash_set_heap_bytes(set: &HashSet<String>) -> usize {
    let buckets = (set.capacity() * 8).div_ceil(7).next_power_of_two();
    let table = buckets * (size_of::<String>() + 1) + 16;
    let strings: usize = set.iter().map(String::capacity).sum();
    table + strings
}

/// The words of a text: runs of ASCII letters, lowercased.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let words: Vec<&str> = WORDS.lines().filter(|w| !w.is_empty()).collect();
    let exact: HashSet<String> = words.iter().map(|w| (*w).to_owned()).collect();
    let set_bytes = hash_set_heap_bytes(&exact);
    let n = words.len();
    println!("{n} words from examples/data/words.txt");
    println!(
        "HashSet<String>: {set_bytes} bytes of heap ({:.1} bytes/word; estimated as \
         buckets (capacity {} × 8/7, rounded to a power of two) × ({} B String + 1 control byte) \
         + string bytes)",
        set_bytes as f64 / n as f64,
        exact.capacity(),
        size_of::<String>()
    );

    // Misspellings: one-letter edits of list words that are not in the list.
    let mut rng = 2024;
    let mut misspellings = HashSet::with_capacity(MISSPELLINGS);
    let mut attempts = 0;
    while misspellings.len() < MISSPELLINGS && attempts < 100 * MISSPELLINGS {
        let word = words[attempts % n];
        attempts += 1;
        let candidate = edit(word, &mut rng);
        if !exact.contains(&candidate) {
            misspellings.insert(candidate);
        }
    }
    let mut misspellings: Vec<String> = misspellings.into_iter().collect();
    misspellings.sort_unstable();
    println!(
        "{} distinct one-letter misspellings, none in the list\n",
        misspellings.len()
    );

    println!(
        "{:>9} {:>10} {:>11} {:>14} {:>15} {:>12} {:>12}",
        "target fp",
        "bytes",
        "bytes/word",
        "vs HashSet",
        "fp misspelled",
        "fp rate",
        "words missed"
    );
    let mut one_percent = None;
    for fp_rate in [0.1, 0.01, 0.001] {
        let mut filter = BloomFilter::with_fp_rate(fp_rate)
            .seed(1)
            .expected_items(n)?;
        for word in &words {
            filter.insert(*word)?;
        }
        let missed = words.iter().filter(|w| !filter.contains(**w)).count();
        let passed = misspellings
            .iter()
            .filter(|w| filter.contains(w.as_str()))
            .count();
        let bytes = filter.memory_bytes();
        println!(
            "{:>8.1}% {:>10} {:>11.2} {:>13.1}× {:>15} {:>11.3}% {:>12}",
            100.0 * fp_rate,
            bytes,
            bytes as f64 / n as f64,
            set_bytes as f64 / bytes as f64,
            passed,
            100.0 * passed as f64 / misspellings.len() as f64,
            missed
        );
        if fp_rate == 0.01 {
            one_percent = Some(filter);
        }
    }
    let filter = one_percent.ok_or("no 1 % filter")?;
    println!(
        "(bytes: the filter's bit array; saved with to_bytes it is {} bytes with its header)\n",
        filter.to_bytes()?.len()
    );

    // Check the text with the 1 % filter, and with the exact set for reference.
    let text = words_of(TEXT);
    let flagged: Vec<&str> = text
        .iter()
        .filter(|w| !filter.contains(w.as_str()))
        .map(String::as_str)
        .collect();
    let unknown: Vec<&str> = text
        .iter()
        .filter(|w| !exact.contains(*w))
        .map(String::as_str)
        .collect();
    println!("examples/data/text.txt: {} words", text.len());
    println!("flagged by the 1 % filter: {flagged:?}");
    println!("not in the list (exact):   {unknown:?}");
    println!(
        "misspellings the filter let through: {}",
        unknown.len() - flagged.len()
    );

    // Lookup speed, over the misspellings (the checker's slow path).
    let start = Instant::now();
    let hits = misspellings
        .iter()
        .filter(|w| black_box(&filter).contains(w.as_str()))
        .count();
    let filter_ns = start.elapsed().as_nanos() as f64 / misspellings.len() as f64;
    let start = Instant::now();
    let exact_hits = misspellings
        .iter()
        .filter(|w| black_box(&exact).contains(*w))
        .count();
    let set_ns = start.elapsed().as_nanos() as f64 / misspellings.len() as f64;
    println!(
        "\nlookup of a misspelling: filter {filter_ns:.1} ns ({hits} passed), \
         HashSet {set_ns:.1} ns ({exact_hits} passed)"
    );
    Ok(())
}
