//! `approxset design`: what a filter of each variant takes for N items at a
//! target false-positive rate, computed without building it.

use approxset::{Design, Variant, sizing};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde::Serialize;

use crate::error::CliError;
use crate::options::check_count;
use crate::options::check_fp;
use crate::output::{self, Report};

/// Examples shown by `approxset design --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset design --items 100000000 --fp 0.01
  approxset design --items 1000000 --fp 0.001 --variant classic,partitioned
  approxset design --items 1000000 --fp 0.01 --json";

/// The options of `approxset design`.
#[derive(Debug, Args)]
pub(crate) struct DesignArgs {
    /// Number of items the filter is sized for.
    #[arg(long, value_name = "N")]
    items: usize,

    /// Target false-positive rate, strictly between 0 and 1.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    fp: f64,

    /// Only these variants (comma-separated names in any case, or aliases);
    /// all by default.
    #[arg(long, value_name = "VARIANT", value_delimiter = ',', value_parser = variant_parser())]
    variant: Vec<Variant>,
}

/// One variant's design: a row of the table and of the JSON array.
#[derive(Debug, Serialize)]
pub(crate) struct DesignRow {
    /// The variant's name.
    variant: String,
    /// Bits of filter data.
    bits: u64,
    /// Bytes of filter data as allocated.
    bytes: u64,
    /// Bits per item.
    bits_per_key: f64,
    /// Hash functions k, or fingerprint bits for a cuckoo filter (kept so
    /// for compatibility; `fingerprint_bits` names them).
    hashes: u32,
    /// Fingerprint bits: in the cuckoo and fuse filters' rows only, and the
    /// Ribbon filter's lower columns `r` (its upper blocks have `r + 1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint_bits: Option<u32>,
    /// The false-positive rate asked for (`--fp`), as `build --json`
    /// reports it.
    target_fp: f64,
    /// The false-positive rate expected after N insertions (the sliding
    /// filter's: at its worst moment, every generation full).
    expected_fp: f64,
    /// The sliding filter's generations `r` remembered besides the current
    /// one: in its row only.
    #[serde(skip_serializing_if = "Option::is_none")]
    generations: Option<u32>,
    /// The sliding filter's inserts per generation `g`: in its row only.
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_size: Option<u64>,
    /// The sliding filter's window `r·g ≥ N`, the inserts always
    /// remembered: in its row only.
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<u64>,
}

impl DesignRow {
    /// The row of `variant`'s `design` for `items` at `fp`.
    fn new(variant: Variant, design: &Design, items: usize, fp: f64) -> Self {
        // The design succeeded, so the sizing does too (and is cached).
        let sliding = (variant == Variant::Sliding)
            .then(|| sizing::sliding_params(items, fp).ok())
            .flatten();
        DesignRow {
            variant: variant.to_string(),
            bits: design.bits(),
            bytes: design.bytes(),
            bits_per_key: design.bits_per_key(),
            hashes: design.hashes(),
            fingerprint_bits: matches!(
                variant,
                Variant::Cuckoo | Variant::Fuse | Variant::Quotient | Variant::Ribbon
            )
            .then(|| design.hashes()),
            target_fp: fp,
            expected_fp: design.expected_fp(),
            generations: sliding.map(|p| p.generations()),
            generation_size: sliding.map(|p| p.generation_size()),
            window: sliding.map(|p| p.window()),
        }
    }
}

output::table_row!(DesignRow {
    text "variant" => |r| r.variant.clone(),
    number "bits" => |r| output::count(r.bits),
    number "bytes" => |r| output::count(r.bytes),
    number "memory" => |r| output::bytes(r.bytes),
    number "bits/key" => |r| format!("{:.2}", r.bits_per_key),
    // Each where it applies: k, or the fingerprint bits.
    number "hashes" => |r| match r.fingerprint_bits {
        Some(_) => String::new(),
        None => r.hashes.to_string(),
    },
    number "fp bits" => |r| r.fingerprint_bits.map_or_else(String::new, |bits| bits.to_string()),
    number "expected FP" => |r| output::rate(r.expected_fp),
});

/// The other names a variant goes by, as the library's `Variant::from_str`
/// takes them; `--help` lists them.
const ALIASES: &[(&str, Variant)] = &[("bloom", Variant::Classic)];

/// What `--help` says of a variant, with its aliases.
fn variant_help(variant: Variant) -> String {
    let what = match variant {
        Variant::Classic => "the classic Bloom filter",
        Variant::Partitioned => "a Bloom filter in k slices, one probe in each",
        Variant::Counting => "4-bit counters instead of bits; deletes",
        Variant::Cuckoo => "fingerprints in buckets of four; deletes; bounded room",
        Variant::Scalable => "stages of Bloom filters; grows past its capacity at the same FP rate",
        Variant::Blocked => "each key's bits in one 64-byte cache line",
        Variant::SplitBlock => {
            "Parquet's layout: one bit in each 32-bit word of a 256-bit block, k = 8"
        }
        Variant::Fuse => {
            "binary fuse filter: static, built once from all keys, about 1.125·f bits per key \
             for f = 8, 16 or 32-bit fingerprints; no add or remove"
        }
        Variant::Ribbon => {
            "Ribbon filter: static, built once from all keys, about 1.05·log2(1/p) bits per key \
             at any rate (7.0 at 1 %, 10.5 at 0.1 %); no add or remove"
        }
        Variant::Sliding => {
            "sliding window: remembers the last N inserts (or, in build, the last T ticks), \
             forgets older keys; FP at most the target at every moment; no remove"
        }
        Variant::Quotient => {
            "counting quotient filter: deletes, counts without a cap, grows past --items at \
             the same FP rate, merges; about 9.7 bits per key at 1 %"
        }
        _ => "",
    };
    let aliases: Vec<&str> = ALIASES
        .iter()
        .filter(|(_, v)| *v == variant)
        .map(|(name, _)| *name)
        .collect();
    if aliases.is_empty() {
        what.to_owned()
    } else {
        format!("{what} (alias: {})", aliases.join(", "))
    }
}

/// The parser of `--variant`: the names of [`Variant::ALL`] and their
/// aliases (`bloom` for `classic`), in any ASCII case, as the library's
/// `Variant::from_str` takes them. `--help` lists each name with its
/// aliases; an unknown name is clap's error listing the names.
#[derive(Clone, Debug)]
pub(crate) struct VariantParser(PossibleValuesParser);

/// The parser of `--variant` (see [`VariantParser`]).
pub(crate) fn variant_parser() -> VariantParser {
    VariantParser(PossibleValuesParser::new(Variant::ALL.iter().map(|&v| {
        let aliases = ALIASES
            .iter()
            .filter(|(_, a)| *a == v)
            .map(|(name, _)| *name);
        PossibleValue::new(v.name())
            .aliases(aliases)
            .help(variant_help(v))
    })))
}

impl TypedValueParser for VariantParser {
    type Value = Variant;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Variant, clap::Error> {
        if let Some(variant) = value.to_str().and_then(|s| s.parse::<Variant>().ok()) {
            return Ok(variant);
        }
        // Not a name in any case: clap's error, which lists the names (and
        // suggests a near one).
        Err(match self.0.parse_ref(cmd, arg, value) {
            Err(e) => e,
            Ok(_) => clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd),
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// The variants chosen with `--variant`, or every one.
pub(crate) fn selected(chosen: &[Variant]) -> Vec<Variant> {
    if chosen.is_empty() {
        Variant::ALL.to_vec()
    } else {
        let mut v = Vec::with_capacity(chosen.len());
        for &c in chosen {
            if !v.contains(&c) {
                v.push(c);
            }
        }
        v
    }
}

/// Runs `approxset design`.
pub(crate) fn run(args: &DesignArgs, json: bool) -> Result<(), CliError> {
    let items = check_count("items", args.items)?;
    let fp = check_fp("fp", args.fp)?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for variant in selected(&args.variant) {
        match variant.design(items, fp) {
            Ok(design) => rows.push(DesignRow::new(variant, &design, items, fp)),
            Err(e) => failed.push((variant, e)),
        }
    }
    let sliding_note = rows.iter().find_map(|r| {
        Some(format!(
            "sliding: a window of the last N inserts; a ring of r + 1 = {} Bloom filters of k = \
             {} hashes, a generation every g = {} inserts; keys of the last r·g = {} inserts \
             always found, gone after (r + 1)·g = {}; expected FP at the worst moment (every \
             generation full)",
            r.generations? + 1,
            r.hashes,
            output::count(r.generation_size?),
            output::count(r.window?),
            output::count(r.window? + r.generation_size?),
        ))
    });
    let skipped = output::skip_failed(rows.is_empty(), failed)?;
    let mut report = Report::new(rows);
    report.header.push(format!(
        "Filters for n = {} items at a target false-positive rate of {fp}",
        output::count(items as u64)
    ));
    let ideal = sizing::optimal_bits_per_key(fp);
    report.notes.extend([
        "hashes: hash functions k (of the first stage for scalable); fp bits: the cuckoo \
         filter's fingerprint bits (it has no k), and the fuse filter's; the Ribbon \
         filter's lower columns r (its upper blocks have r + 1); bytes: as allocated, in whole \
         64-bit words"
            .to_owned(),
        format!(
            "reference: the classic optimum -ln p / (ln 2)^2 = {ideal:.2} bits/key with \
             k* = {:.2}; the lower bound of any filter log2(1/p) = {:.2} bits/key",
            sizing::optimal_hashes(ideal),
            -fp.log2()
        ),
    ]);
    report.notes.extend(sliding_note);
    report.notes.extend(skipped);
    report.print(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    use crate::output::TableRow;

    #[derive(Debug, Parser)]
    struct Cli {
        #[arg(long, value_parser = variant_parser())]
        variant: Variant,
    }

    #[test]
    fn bloom_is_classic() {
        for name in ["bloom", "classic"] {
            let cli = Cli::try_parse_from(["t", "--variant", name]).unwrap();
            assert_eq!(cli.variant, Variant::Classic, "{name}");
        }
        assert!(Cli::try_parse_from(["t", "--variant", "blom"]).is_err());
    }

    #[test]
    fn variant_names_ignore_case_and_help_lists_aliases() {
        for (name, variant) in [
            ("Bloom", Variant::Classic),
            ("CLASSIC", Variant::Classic),
            ("Cuckoo", Variant::Cuckoo),
            ("scaLable", Variant::Scalable),
        ] {
            let cli = Cli::try_parse_from(["t", "--variant", name]).unwrap();
            assert_eq!(cli.variant, variant, "{name}");
        }
        let e = Cli::try_parse_from(["t", "--variant", "blom"]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("classic") && text.contains("blocked"),
            "{text}"
        );
        assert!(variant_help(Variant::Classic).ends_with("(alias: bloom)"));
        assert!(!variant_help(Variant::Cuckoo).contains("alias"));
    }

    #[test]
    fn the_cuckoo_row_names_its_fingerprint_bits() {
        let row = |variant: Variant| {
            DesignRow::new(variant, &variant.design(1000, 0.01).unwrap(), 1000, 0.01)
        };
        let cuckoo = row(Variant::Cuckoo);
        let bits = cuckoo.hashes;
        let cells = cuckoo.cells();
        assert_eq!(cells[5], "");
        assert_eq!(cells[6], bits.to_string());
        let json = serde_json::to_value(&cuckoo).unwrap();
        assert_eq!(json["hashes"], bits);
        assert_eq!(json["fingerprint_bits"], bits);
        let classic = row(Variant::Classic);
        assert_eq!(classic.cells()[5], "7");
        assert_eq!(classic.cells()[6], "");
        assert!(
            serde_json::to_value(&classic)
                .unwrap()
                .get("fingerprint_bits")
                .is_none()
        );
    }
}
