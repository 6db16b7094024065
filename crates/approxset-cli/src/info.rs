//! `approxset info`: what a saved filter holds. Everything comes from the
//! library, nothing from byte offsets: the format version from the file's
//! envelope ([`Header`]), the hash function from the filter's key, the
//! common facts (items, capacity, rates, memory)
//! and the variant's own parameters ([`Membership::parameters`](approxset::Membership::parameters): bits and k,
//! counters, fingerprint width and buckets, stages, …) from the filter,
//! viewed in place through a memory map of its file (checksum verified). In the JSON record `parameters` is an object of those names,
//! each a number; the human output gives each one a line of its own. A
//! filter holding more items than it was sized for, with an estimated FP
//! rate above its target, is `overfilled` (a JSON boolean, and a human line
//! saying by how much and its FP rate now).

use std::path::PathBuf;

use approxset::format::Header;
use approxset::{Membership, Value, Variant};
use clap::Args;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::error::CliError;
use crate::files;
use crate::output::{self, Record};
use crate::overfill::Overfill;

/// Examples shown by `approxset info --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset info --filter words.bin
  approxset info --filter words.bin --json
  approxset info --filter spark-ids.bf    (a file Spark's BloomFilter.writeTo wrote)";

/// The options of `approxset info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The filter file, written by `approxset build`.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,

    #[command(flatten)]
    limit: files::StreamLimit,
}

/// The variant's parameters as the filter reports them, in its order:
/// serialised as one JSON object of name → number (a count as an integer,
/// a real as a number).
#[derive(Debug)]
pub(crate) struct Parameters(Vec<(&'static str, Value)>);

impl Serialize for Parameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            match *value {
                Value::Count(n) => map.serialize_entry(name, &n)?,
                Value::Real(x) => map.serialize_entry(name, &x)?,
                // A kind of value this tool does not know yet: as it displays.
                ref other => map.serialize_entry(name, &other.to_string())?,
            }
        }
        map.end()
    }
}

/// How a parameter's value is shown in the human output.
#[derive(Clone, Copy, Debug)]
enum Shown {
    /// A count with thousands separators.
    Count,
    /// A byte count in binary units.
    Bytes,
    /// A real number, to six decimals at most.
    Real,
}

/// The human label and format of each parameter name the library reports;
/// a name not listed here is shown under its own name.
const LABELS: &[(&str, &str, Shown)] = &[
    ("bits", "bits", Shown::Count),
    ("counters", "counters", Shown::Count),
    ("hashes", "hashes", Shown::Count),
    ("ones", "bits set", Shown::Count),
    ("nonzero", "nonzero counters", Shown::Count),
    ("saturated", "saturated counters", Shown::Count),
    ("fingerprint_bits", "fingerprint bits", Shown::Count),
    ("segment_length", "segment length", Shown::Count),
    ("segment_count", "segments", Shown::Count),
    ("array_length", "cells", Shown::Count),
    ("seed", "construction seed", Shown::Count),
    ("buckets", "buckets", Shown::Count),
    ("remainder_bits", "remainder bits", Shown::Count),
    ("tables", "tables", Shown::Count),
    ("entries", "distinct fingerprints", Shown::Count),
    ("slots", "slots", Shown::Count),
    ("load", "load factor", Shown::Real),
    ("stash", "stashed fingerprints", Shown::Count),
    ("stages", "stages", Shown::Count),
    ("initial_capacity", "initial capacity", Shown::Count),
    ("growth", "growth", Shown::Real),
    ("tightening", "tightening", Shown::Real),
    ("max_bytes", "memory limit", Shown::Bytes),
    ("generations", "generations r", Shown::Count),
    ("generation_size", "generation size g", Shown::Count),
    ("slice_bits", "bits per block", Shown::Count),
    ("window", "window (inserts)", Shown::Count),
    ("generation", "generation", Shown::Count),
    ("generation_len", "inserts this generation", Shown::Count),
    ("time_window", "time window (ticks)", Shown::Count),
    ("generation_interval", "ticks per generation", Shown::Count),
    ("tick", "tick", Shown::Count),
    ("coefficient_bits", "coefficient bits w", Shown::Count),
    ("blocks", "blocks of 128 slots", Shown::Count),
    ("lower_columns", "columns r (lower blocks)", Shown::Count),
    ("upper_start", "first block of r + 1 columns", Shown::Count),
    ("bits_per_slot", "solution bits per slot", Shown::Real),
];

/// The label of parameter `name`; `staged` (a scalable filter) marks the
/// first stage's bits and hashes as such.
fn label(name: &'static str, staged: bool) -> &'static str {
    match name {
        "bits" if staged => "bits (stage 1)",
        "hashes" if staged => "hashes (stage 1)",
        _ => LABELS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map_or(name, |&(_, label, _)| label),
    }
}

/// Parameter `name`'s value as the human output shows it.
fn shown(name: &str, value: Value) -> String {
    let how = LABELS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map_or(Shown::Count, |&(_, _, how)| how);
    match (how, value) {
        (Shown::Bytes, Value::Count(n)) => output::bytes(n),
        (_, Value::Count(n)) => output::count(n),
        (_, Value::Real(x)) => output::real(x),
        (_, other) => other.to_string(),
    }
}

/// What a filter file holds: the JSON object and the human lines.
#[derive(Debug, Serialize)]
pub(crate) struct InfoRecord {
    /// The filter file.
    file: String,
    /// The variant's name.
    variant: String,
    /// The format version of the file.
    format_version: u16,
    /// The hash function's name, as `build --hash` takes it: `siphash`,
    /// `xxh3` or `parquet-xxh64`.
    #[serde(serialize_with = "output::hash_name")]
    hash: approxset::HashFunction,
    /// Items inserted (less items removed).
    items: u64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate asked for at build time, as `build --json`
    /// reports it; `null` for the static filters (fuse, Ribbon), whose
    /// files do not store it: `fp_rate` is the rate they give.
    target_fp: Option<f64>,
    /// The false-positive rate the filter gives at its capacity
    /// (`Membership::fp_rate`): the target for the filters that are sized
    /// to it, 2⁻ᶠ for a fuse filter's `f`-bit fingerprints, the blocks'
    /// rate for a Ribbon filter.
    fp_rate: f64,
    /// The false-positive rate estimated from its fill.
    estimated_fp: f64,
    /// Whether it holds more items than it was sized for with an estimated
    /// FP above target (`ApproxSet::is_overfilled`); the human output then
    /// has an `overfilled` line.
    overfilled: bool,
    /// Bytes of filter data in memory.
    bytes: u64,
    /// Bytes of the file.
    file_bytes: u64,
    /// Whether the variant can remove keys (`approxset remove`).
    supports_delete: bool,
    /// The variant's parameters.
    parameters: Parameters,
}

impl Record for InfoRecord {
    fn fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = vec![
            ("file", self.file.clone()),
            ("variant", self.variant.clone()),
            ("format version", self.format_version.to_string()),
            ("hash", output::hash_shown(self.hash)),
            ("items", output::count(self.items)),
            ("capacity", output::count(self.capacity)),
            (
                "target FP",
                self.target_fp.map_or_else(
                    || "not stored (a static filter stores the rate it gives)".to_owned(),
                    output::rate,
                ),
            ),
            ("FP rate", output::rate(self.fp_rate)),
            ("estimated FP", output::rate(self.estimated_fp)),
        ];
        if self.overfilled {
            let generation_size = (self.variant == Variant::Sliding.name())
                .then(|| {
                    self.parameters
                        .0
                        .iter()
                        .find_map(|&(name, value)| match value {
                            Value::Count(g) if name == "generation_size" => Some(g),
                            _ => None,
                        })
                })
                .flatten();
            let overfill =
                Overfill::from_counts(self.items, self.capacity, self.estimated_fp, self.fp_rate)
                    .per_generation(generation_size);
            fields.push(("overfilled", format!("yes: {}", overfill.describe())));
        }
        fields.extend([
            ("memory", output::bytes(self.bytes)),
            ("file size", output::bytes_exact(self.file_bytes)),
            (
                "deletes",
                if self.supports_delete { "yes" } else { "no" }.to_owned(),
            ),
        ]);
        let staged = self.variant == Variant::Scalable.name();
        fields.extend(
            self.parameters
                .0
                .iter()
                .map(|&(name, value)| (label(name, staged), shown(name, value))),
        );
        fields
    }
}

/// The record of the opened `filter`, read from the file `bytes` of `file`.
fn record(file: &str, filter: &dyn Membership, header: &Header, bytes: &[u8]) -> InfoRecord {
    InfoRecord {
        file: file.to_owned(),
        variant: filter.variant().to_owned(),
        format_version: header.version(),
        hash: filter.hash_key().function(),
        items: filter.len() as u64,
        capacity: filter.capacity() as u64,
        target_fp: (!Variant::of(filter).is_some_and(Variant::is_static)).then(|| filter.fp_rate()),
        fp_rate: filter.fp_rate(),
        estimated_fp: filter.estimated_fp_rate(),
        overfilled: Overfill::of_read_only(filter).is_some(),
        bytes: filter.memory_bytes() as u64,
        file_bytes: bytes.len() as u64,
        supports_delete: Variant::of(filter).is_some_and(Variant::supports_delete),
        parameters: Parameters(filter.parameters()),
    }
}

/// Runs `approxset info`.
pub(crate) fn run(args: &InfoArgs, json: bool) -> Result<(), CliError> {
    if let Some(bytes) = crate::spark::read_if_spark(&args.filter)? {
        return crate::spark::info(&args.filter, &bytes, json);
    }
    // Read whole and checked whole (every checksum), since `info` is where
    // a damaged file should show, and its counts read every cell anyway.
    let bytes = files::read_filter(&args.filter, args.limit)?;
    let filter = files::open_filter(&args.filter, &bytes)?;
    let header = Header::parse(&bytes).map_err(|e| files::load_error(&args.filter, &e))?;
    let file = args.filter.display().to_string();
    record(&file, &*filter, &header, &bytes).print(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of a filter of `variant` built with a fixed seed.
    /// (Sized for 1,000 keys, holding 100; the static one holds its 100.)
    fn record_of(variant: Variant) -> InfoRecord {
        let bytes = if variant.is_static() {
            let keys: Vec<u32> = (0..100).collect();
            let f = variant.builder().seed(3).build_from(&keys, 0.01).unwrap();
            f.to_bytes().unwrap()
        } else {
            let mut f = variant.builder().seed(3).build(1000, 0.01).unwrap();
            for i in 0..100u32 {
                f.insert(&i).unwrap();
            }
            f.to_bytes().unwrap()
        };
        record_of_bytes(&bytes)
    }

    /// The record of the saved filter `bytes`, loaded as the library loads
    /// it, and checked to be the record of its view where it has one.
    fn record_of_bytes(bytes: &[u8]) -> InfoRecord {
        let header = Header::parse(bytes).unwrap();
        let f = approxset::load_membership(bytes).unwrap();
        let r = record("f.bin", &*f, &header, bytes);
        if let Ok(v) = approxset::view(bytes) {
            assert_eq!(
                serde_json::to_value(record("f.bin", &*v, &header, bytes)).unwrap(),
                serde_json::to_value(&r).unwrap(),
                "a view shows the filter's fields"
            );
        }
        r
    }

    #[test]
    fn every_variant_has_its_parameters_as_json_numbers() {
        for &variant in Variant::ALL {
            let r = record_of(variant);
            // Every file is written in the newest version, with the
            // default hash function.
            assert_eq!(r.format_version, approxset::format::VERSION, "{variant}");
            assert_eq!(r.hash, approxset::HashFunction::SipHash13x64, "{variant}");
            assert_eq!(serde_json::to_value(&r).unwrap()["hash"], "siphash64");
            assert!(!r.parameters.0.is_empty(), "{variant}");
            let json = serde_json::to_value(&r).unwrap();
            let params = json["parameters"].as_object().unwrap();
            assert_eq!(params.len(), r.parameters.0.len(), "{variant}");
            for (name, value) in &r.parameters.0 {
                match *value {
                    Value::Count(n) => assert_eq!(params[*name].as_u64(), Some(n), "{name}"),
                    Value::Real(x) => {
                        assert!(params[*name].is_f64(), "{variant}: {name}");
                        assert_eq!(params[*name].as_f64(), Some(x), "{name}");
                    }
                    _ => panic!("{variant}: {name}: unexpected kind of value"),
                }
            }
        }
    }

    #[test]
    fn an_overfilled_filter_says_so() {
        let mut f = Variant::Classic.builder().seed(3).build(100, 0.01).unwrap();
        for i in 0..1000u32 {
            f.insert(&i).unwrap();
        }
        let bytes = f.to_bytes().unwrap();
        let header = Header::parse(&bytes).unwrap();
        let r = record_of_bytes(&bytes);
        assert!(r.overfilled);
        let v = approxset::view(&bytes).unwrap();
        assert!(
            record("f.bin", &*v, &header, &bytes).overfilled,
            "a view too"
        );
        assert_eq!(serde_json::to_value(&r).unwrap()["overfilled"], true);
        let fields = r.fields();
        let (_, line) = fields.iter().find(|(l, _)| *l == "overfilled").unwrap();
        // 7,000 probes into 962 bits leave one bit clear or none.
        let head = "yes: holds 1,000 items, 10.0× the 100 it was sized for; estimated FP now ";
        assert!(
            line.starts_with(&format!("{head}0.9")) || line.starts_with(&format!("{head}1.0")),
            "{line}"
        );
        let r = record_of(Variant::Classic);
        assert!(!r.overfilled);
        assert!(r.fields().iter().all(|(l, _)| *l != "overfilled"));
    }

    #[test]
    fn every_parameter_has_a_readable_label() {
        for &variant in Variant::ALL {
            let r = record_of(variant);
            for (name, _) in &r.parameters.0 {
                assert!(!label(name, false).contains('_'), "{variant}: {name}");
            }
        }
        assert_eq!(label("fingerprint_bits", false), "fingerprint bits");
        assert_eq!(label("initial_capacity", true), "initial capacity");
        assert_eq!(label("hashes", true), "hashes (stage 1)");
        assert_eq!(label("hashes", false), "hashes");
        assert_eq!(label("something_new", false), "something_new");
        assert_eq!(shown("buckets", Value::Count(12_345)), "12,345");
        assert_eq!(shown("max_bytes", Value::Count(1 << 20)), "1.0 MiB");
        assert_eq!(shown("growth", Value::Real(2.0)), "2");
        assert_eq!(shown("load", Value::Real(0.123_456_789)), "0.123457");
    }

    #[test]
    fn cuckoo_lines_show_fingerprints_and_buckets() {
        let r = record_of(Variant::Cuckoo);
        let fields = r.fields();
        let line = |label: &str| {
            fields
                .iter()
                .find(|(l, _)| *l == label)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("no {label} in {fields:?}"))
        };
        let bits: u32 = line("fingerprint bits").parse().unwrap();
        assert!((4..=32).contains(&bits), "{bits}");
        assert!(!line("buckets").is_empty() && !line("load factor").is_empty());
        let scalable = record_of(Variant::Scalable).fields();
        assert!(scalable.iter().any(|(l, _)| *l == "hashes (stage 1)"));
    }
}
