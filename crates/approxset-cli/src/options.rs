//! The options several commands share (`--fp`, `--seed`, `--hash`,
//! `--plot`) and the checks of their values.

use crate::error::CliError;

/// The filter seed used where none is given, for reproducible runs.
pub(crate) const DEFAULT_SEED: u64 = 1;

/// `--fp`, the target false-positive rate of `build`, `compare` and
/// `experiment sliding`.
#[derive(Debug, clap::Args)]
pub(crate) struct TargetFp {
    /// Target false-positive rate, strictly between 0 and 1.
    #[arg(
        long = "fp",
        value_name = "P",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    fp: f64,
}

impl TargetFp {
    /// The rate, checked as [`check_fp`] does.
    pub(crate) fn get(&self) -> Result<f64, CliError> {
        check_fp("fp", self.fp)
    }
}

/// `--seed`, `--hash` and `--plot` of the experiments: the filters' hash
/// key and function, and where to draw the result.
#[derive(Debug, clap::Args)]
pub(crate) struct RunChoice {
    /// Seed of the filters' hash key.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub(crate) seed: u64,

    #[command(flatten)]
    pub(crate) hash: HashChoice,

    /// Also draw the result into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) plot: Option<std::path::PathBuf>,
}

/// `--hash`, the hash function of the filters `build`, `compare` and
/// `experiment` make (`add` and `query` take the file's).
#[derive(Debug, clap::Args)]
pub(crate) struct HashChoice {
    /// The function applied to each key's bytes, recorded in the filter.
    /// siphash64 (the default) is keyed SipHash-1-3 with a 64-bit output
    /// widened by a keyed mix, and siphash the same with a 128-bit output
    /// (the default of earlier releases): the only choices safe when
    /// untrusted users choose keys; xxh3 is faster, for keys no attacker chooses
    /// (one who can pick keys can then force false positives without
    /// knowing the filter's key); parquet-xxh64 is Parquet's unkeyed
    /// xxHash64, for the split-block filter only.
    #[arg(
        long = "hash",
        value_name = "FUNCTION",
        default_value = "siphash64",
        value_parser = hash_parser()
    )]
    hash: approxset::HashFunction,
}

impl HashChoice {
    /// The function chosen.
    pub(crate) fn get(&self) -> approxset::HashFunction {
        self.hash
    }

    /// The function chosen, checked to suit `variant`.
    ///
    /// # Errors
    /// A usage error naming `--hash` when the variant cannot use it.
    pub(crate) fn for_variant(
        &self,
        variant: approxset::Variant,
    ) -> Result<approxset::HashFunction, CliError> {
        if variant.supports_hash(self.hash) {
            Ok(self.hash)
        } else {
            Err(CliError::usage(format!(
                "invalid --hash: the {variant} filter cannot use {} ({}), which is for the \
                 split-block filter only",
                self.hash,
                self.hash.algorithm()
            )))
        }
    }
}

/// The parser of `--hash`: the names of `HashFunction::ALL`.
fn hash_parser() -> impl clap::builder::TypedValueParser<Value = approxset::HashFunction> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        approxset::HashFunction::ALL
            .iter()
            .map(|&h| PossibleValue::new(h.name()).help(h.algorithm())),
    )
    .map(|name| name.parse::<approxset::HashFunction>().unwrap_or_default())
}

/// Checks a false-positive rate given as `--{flag}`: strictly between 0 and 1.
pub(crate) fn check_fp(flag: &str, fp: f64) -> Result<f64, CliError> {
    if fp.is_finite() && fp > 0.0 && fp < 1.0 {
        Ok(fp)
    } else {
        Err(CliError::usage(format!(
            "invalid --{flag}: must be strictly between 0 and 1, got {fp}"
        )))
    }
}

/// Checks a count given as `--{flag}`: at least 1.
pub(crate) fn check_count(flag: &str, count: usize) -> Result<usize, CliError> {
    if count >= 1 {
        Ok(count)
    } else {
        Err(CliError::usage(format!(
            "invalid --{flag}: must be at least 1, got {count}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks_name_the_flag() {
        let e = check_fp("fp", 1.5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --fp: must be strictly between 0 and 1, got 1.5"
        );
        assert_eq!(e.exit_code(), 2);
        assert!(check_fp("fp", f64::NAN).is_err());
        assert!(check_fp("fp", 0.0).is_err());
        assert_eq!(check_fp("fp", 0.01).unwrap(), 0.01);
        assert_eq!(check_count("items", 0).unwrap_err().exit_code(), 2);
    }
}
