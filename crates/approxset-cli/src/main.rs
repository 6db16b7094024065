//! `approxset`, the command-line tool of the approxset filters: what a filter
//! of each variant takes (`design`), the classic Bloom filter's measured
//! rate against its formulas (`experiment theory`) and against its number
//! of hash functions (`experiment optimal-k`), a
//! sliding filter's false-positive rate over time (`experiment sliding`), a
//! measured comparison of every variant (`compare`), and filter files:
//! `build` one from a list of keys, `query` it, show its `info`, `add` keys
//! to it, `remove` keys from it, and `merge` filters built over shards.
//!
//! A key is the bytes of a line (or of an argument): the same key as the
//! library's `insert("line")` or `insert_bytes(b"line")`, so a filter built
//! by either answers the other.
//!
//! Every subcommand prints an aligned table (or lines), or with `--json` one
//! JSON document on standard output and nothing else. Errors are one line on
//! standard error: exit code 2 for bad usage (unknown flags, values out of
//! range), 1 for everything else (I/O errors, memory, a damaged filter file,
//! removing from a filter that cannot delete, a key a cuckoo filter
//! refuses). `query --quiet` answers with exit code 3 when a key is
//! certainly absent. Files are written whole or
//! not at all: a failed or interrupted (SIGINT, SIGTERM) run leaves no
//! partial filter, plot or temporary file behind. Commands that rewrite a
//! filter file take turns on its lock file (`files` explains), so none
//! loses another's update.

mod add;
mod answers;
mod build;
mod compare;
mod design;
mod error;
mod experiment;
mod files;
mod info;
mod keys;
mod merge;
mod options;
mod output;
mod overfill;
#[cfg(feature = "parquet")]
mod parquet;
mod plot;
mod query;
mod remove;
mod rewrite;
#[cfg(test)]
mod scratch;
mod sliding;
mod spark;
mod window;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

use crate::error::CliError;

/// Keys, exit codes and examples shown by `approxset --help`.
const EXAMPLES: &str = concat!(
    keys::keys_note!(),
    "

Exit codes: 0 success; 1 failure (I/O, a damaged filter file, a refused \
key); 2 bad usage; 3 `query --quiet` found a key certainly absent; 128 + N \
after signal N (unless the new file was in place already: then the run \
finishes and exits 0).

Examples:
  approxset design --items 100000000 --fp 0.01
  approxset experiment theory --plot theory.svg
  approxset experiment optimal-k --bits-per-key 10
  approxset experiment sliding --plot sliding.svg
  approxset compare --items 1000000 --fp 0.01 --json
  approxset build --variant classic --input /usr/share/dict/words --output words.bin
  approxset query --filter words.bin apple zzyzx
  approxset query --filter words.bin --quiet apple && echo 'maybe present'
  approxset add --filter words.bin pear plum
  approxset build --variant sliding --items 100000 --input recent.txt --output recent.bin
  approxset merge --output all.bin shard-0.bin shard-1.bin
  approxset info --filter words.bin --json"
);

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "approxset",
    version,
    about = "Approximate-membership filters: design, experiments and comparisons",
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    /// Print one JSON document on standard output instead of a table.
    #[arg(long, global = true)]
    json: bool,

    /// The subcommand.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// What a filter of each variant takes for N items at a target false-positive rate.
    #[command(after_help = design::EXAMPLES)]
    Design(design::DesignArgs),

    /// The classic Bloom filter's measured false-positive rate against its
    /// formulas and its number of hash functions, and a sliding filter's
    /// rate over time.
    #[command(subcommand, after_help = experiment::EXAMPLES)]
    Experiment(experiment::ExperimentCommand),

    /// Build every variant for the same N and p, fill it and measure it.
    #[command(after_help = compare::EXAMPLES)]
    Compare(compare::CompareArgs),

    /// Build a filter from a file of keys, one per line, and save it.
    #[command(after_help = build::EXAMPLES)]
    Build(build::BuildArgs),

    /// Look keys up in a saved filter: present (maybe) or absent (certainly).
    #[command(after_help = query::EXAMPLES)]
    Query(query::QueryArgs),

    /// What a saved filter is: variant, parameters, items, size, estimated FP.
    #[command(after_help = info::EXAMPLES)]
    Info(info::InfoArgs),

    /// Add keys to a saved filter (any variant) and save it.
    #[command(after_help = add::EXAMPLES)]
    Add(add::AddArgs),

    /// Remove keys from a saved filter of a variant that can delete, and save it.
    #[command(after_help = remove::EXAMPLES)]
    Remove(remove::RemoveArgs),

    /// Merge saved filters (the union of their keys) into one file.
    #[command(after_help = merge::examples())]
    Merge(merge::MergeArgs),
}

/// Clap's error (usually several lines: message, usage, tip) as one line.
fn one_line(rendered: &str) -> String {
    let mut paragraphs = rendered
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty());
    let mut line = paragraphs.next().unwrap_or_default();
    if !line.starts_with("error:") {
        line.insert_str(0, "error: ");
    }
    for tip in paragraphs.filter(|p| p.starts_with("tip:")) {
        line.push_str(&format!(" ({tip})"));
    }
    line
}

/// Runs the command; returns the exit code of a run that did not fail (0,
/// or `query --quiet`'s answer).
fn run(cli: Cli) -> Result<u8, CliError> {
    let json = cli.json;
    match cli.command {
        Command::Design(args) => design::run(&args, json).map(|()| 0),
        Command::Experiment(command) => experiment::run(&command, json).map(|()| 0),
        Command::Compare(args) => compare::run(&args, json).map(|()| 0),
        Command::Build(args) => build::run(&args, json).map(|()| 0),
        Command::Query(args) => query::run(&args, json),
        Command::Info(args) => info::run(&args, json).map(|()| 0),
        Command::Add(args) => add::run(&args, json).map(|()| 0),
        Command::Remove(args) => remove::run(&args, json).map(|()| 0),
        Command::Merge(args) => merge::run(&args, json).map(|()| 0),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version: print them and succeed.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // No subcommand: the help, on standard error.
            let _ = error.print();
            return ExitCode::from(2);
        }
        Err(error) => {
            eprintln!("{}", one_line(&error.render().to_string()));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            if !matches!(error, CliError::BrokenPipe) {
                eprintln!("error: {error}");
            }
            ExitCode::from(error.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn clap_errors_become_one_line() {
        let rendered = "error: the following required arguments were not provided:\n  \
                        --items <N>\n\nUsage: approxset design --items <N>\n\n\
                        For more information, try '--help'.\n";
        assert_eq!(
            one_line(rendered),
            "error: the following required arguments were not provided: --items <N>"
        );
        let rendered = "error: unrecognized subcommand 'desing'\n\n  \
                        tip: a similar subcommand exists: 'design'\n\nUsage: approxset\n";
        assert_eq!(
            one_line(rendered),
            "error: unrecognized subcommand 'desing' (tip: a similar subcommand exists: 'design')"
        );
    }
}
