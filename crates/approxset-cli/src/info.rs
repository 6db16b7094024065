//! `approxset info`: what a saved filter holds. The common facts come from
//! the loaded filter; the format version and the variant's parameters
//! (bits or counters and k for the Bloom family, stages for the scalable
//! filter) are read from the file's header as `docs/format.md` lays it out.

use std::path::PathBuf;

use approxset::format::{HEADER_LEN, tag};
use approxset::{ApproxSet, Variant};
use clap::Args;
use serde::Serialize;

use crate::output::{self, Record};
use crate::{CliError, files};

/// Examples shown by `approxset info --help`.
pub(crate) const EXAMPLES: &str = "\
Examples:
  approxset info --filter words.bin
  approxset info --filter words.bin --json";

/// The options of `approxset info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The filter file, written by `approxset build`.
    #[arg(long, value_name = "FILTER")]
    filter: PathBuf,
}

/// The variant's parameters as the file stores them; absent fields do not
/// apply to the variant.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Parameters {
    /// Bits m (classic, partitioned).
    #[serde(skip_serializing_if = "Option::is_none")]
    bits: Option<u64>,
    /// 4-bit counters m (counting).
    #[serde(skip_serializing_if = "Option::is_none")]
    counters: Option<u64>,
    /// Hash functions k (Bloom family; for scalable, of the first stage).
    #[serde(skip_serializing_if = "Option::is_none")]
    hashes: Option<u32>,
    /// Stages (scalable).
    #[serde(skip_serializing_if = "Option::is_none")]
    stages: Option<u64>,
    /// Capacity of the first stage (scalable).
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_capacity: Option<u64>,
    /// Capacity factor from one stage to the next (scalable).
    #[serde(skip_serializing_if = "Option::is_none")]
    growth: Option<f64>,
    /// False-positive factor from one stage to the next (scalable).
    #[serde(skip_serializing_if = "Option::is_none")]
    tightening: Option<f64>,
    /// Memory limit in bytes (scalable, when it has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    max_bytes: Option<u64>,
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
    /// Items inserted (less items removed).
    items: u64,
    /// Items the filter was sized for.
    capacity: u64,
    /// The false-positive rate it was built for.
    target_fp: f64,
    /// The false-positive rate estimated from its fill.
    estimated_fp: f64,
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
        let p = &self.parameters;
        let mut fields = vec![
            ("file", self.file.clone()),
            ("variant", self.variant.clone()),
            ("format version", self.format_version.to_string()),
            ("items", output::count(self.items)),
            ("capacity", output::count(self.capacity)),
            ("target FP", output::rate(self.target_fp)),
            ("estimated FP", output::rate(self.estimated_fp)),
            ("memory", output::bytes(self.bytes)),
            (
                "file size",
                format!(
                    "{} ({} bytes)",
                    output::bytes(self.file_bytes),
                    output::count(self.file_bytes)
                ),
            ),
            (
                "deletes",
                if self.supports_delete { "yes" } else { "no" }.to_owned(),
            ),
        ];
        let counts = [
            ("bits", p.bits),
            ("counters", p.counters),
            ("stages", p.stages),
            ("initial capacity", p.initial_capacity),
        ];
        for (label, value) in counts {
            if let Some(v) = value {
                fields.push((label, output::count(v)));
            }
        }
        if let Some(k) = p.hashes {
            let label = if p.stages.is_some() {
                "hashes (stage 1)"
            } else {
                "hashes"
            };
            fields.push((label, k.to_string()));
        }
        if let Some(g) = p.growth {
            fields.push(("growth", format!("{g}")));
        }
        if let Some(t) = p.tightening {
            fields.push(("tightening", format!("{t}")));
        }
        if let Some(m) = p.max_bytes {
            fields.push(("memory limit", output::bytes(m)));
        }
        fields
    }
}

/// The `u64` at `offset`, if the input reaches that far.
fn u64_at(bytes: &[u8], offset: usize) -> Option<u64> {
    let field = bytes.get(offset..offset.checked_add(8)?)?;
    Some(u64::from_le_bytes(field.try_into().ok()?))
}

/// The `u32` at `offset`, if the input reaches that far.
fn u32_at(bytes: &[u8], offset: usize) -> Option<u32> {
    let field = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes(field.try_into().ok()?))
}

/// The format version in the header.
fn format_version(bytes: &[u8]) -> Option<u16> {
    let field = bytes.get(4..6)?;
    Some(u16::from_le_bytes(field.try_into().ok()?))
}

/// The parameters of a (loaded, so valid) filter file; empty for a variant
/// whose parameter block this tool does not know.
fn parameters(bytes: &[u8]) -> Parameters {
    let at = HEADER_LEN;
    let mut p = Parameters::default();
    match bytes.get(6).copied() {
        Some(tag::CLASSIC | tag::PARTITIONED) => {
            p.bits = u64_at(bytes, at);
            p.hashes = u32_at(bytes, at + 8);
        }
        Some(tag::COUNTING) => {
            p.counters = u64_at(bytes, at);
            p.hashes = u32_at(bytes, at + 8);
        }
        Some(tag::SCALABLE) => {
            // initial capacity, fp, growth, tightening, memory cap, len,
            // stages; then the first stage's cell params.
            p.initial_capacity = u64_at(bytes, at);
            p.growth = u64_at(bytes, at + 16).map(f64::from_bits);
            p.tightening = u64_at(bytes, at + 24).map(f64::from_bits);
            p.max_bytes = u64_at(bytes, at + 32).filter(|&m| m != u64::MAX);
            p.stages = u64_at(bytes, at + 48);
            p.hashes = u32_at(bytes, at + 56 + 8);
        }
        _ => {}
    }
    p
}

/// Runs `approxset info`.
pub(crate) fn run(args: &InfoArgs, json: bool) -> Result<(), CliError> {
    let (filter, bytes) = files::load_filter(&args.filter)?;
    let supports_delete = filter
        .variant()
        .parse::<Variant>()
        .is_ok_and(Variant::supports_delete);
    InfoRecord {
        file: args.filter.display().to_string(),
        variant: filter.variant().to_owned(),
        format_version: format_version(&bytes).unwrap_or(approxset::format::VERSION),
        items: filter.len() as u64,
        capacity: filter.capacity() as u64,
        target_fp: filter.fp_rate(),
        estimated_fp: filter.estimated_fp_rate(),
        bytes: filter.memory_bytes() as u64,
        file_bytes: bytes.len() as u64,
        supports_delete,
        parameters: parameters(&bytes),
    }
    .print(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_of_every_bloom_variant() {
        for variant in [Variant::Classic, Variant::Partitioned, Variant::Counting] {
            let f = variant.builder().seed(3).build(1000, 0.01).unwrap();
            let bytes = f.to_bytes().unwrap();
            let p = parameters(&bytes);
            let design = variant.design(1000, 0.01).unwrap();
            assert_eq!(p.hashes, Some(design.hashes()), "{variant}");
            let cells = p.bits.or(p.counters).unwrap();
            assert!(cells > 0 && p.stages.is_none(), "{variant}");
            assert_eq!(format_version(&bytes), Some(1));
        }
        let f = Variant::Scalable
            .builder()
            .seed(3)
            .build(1000, 0.01)
            .unwrap();
        let p = parameters(&f.to_bytes().unwrap());
        assert_eq!(p.stages, Some(1));
        assert_eq!(p.initial_capacity, Some(1000));
        assert!(p.growth.unwrap() > 1.0);
        let t = p.tightening.unwrap();
        assert!(t > 0.0 && t < 1.0);
        assert!(p.hashes.unwrap() >= 1);
    }

    #[test]
    fn short_input_reads_nothing() {
        let p = parameters(&[b'A', b'P', b'X', b'S', 1, 0, tag::SCALABLE]);
        assert!(p.stages.is_none() && p.hashes.is_none());
        assert_eq!(u64_at(&[0; 8], 1), None);
        assert_eq!(u64_at(&[0; 8], usize::MAX), None);
        assert_eq!(format_version(&[0; 3]), None);
    }
}
