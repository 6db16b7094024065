//! The sliding-window filter's clock on the command line. A CLI run has no
//! clock that keeps going between runs, so a time-window filter
//! (`build --variant sliding --time-window T`) moves only when a command
//! says what time it is: `build --tick N` starts its clock at N, `add
//! --tick N` moves it to N before inserting (ending every generation passed
//! since the file's last tick, and saving the new tick), and `query --tick
//! N` answers as of tick N without changing the file. A window of inserts
//! (no `--time-window`) needs no clock: every `g` inserts end a generation,
//! in `build` and `add` alike.

use std::path::Path;

use approxset::{ApproxSet, BuildOptions, Membership, SlidingBloomFilter, Variant};

use crate::error::CliError;
use crate::files;

/// What `--help` says of `--time-window`.
pub(crate) const TIME_WINDOW_HELP: &str = "For --variant sliding: remember the keys of the \
last T ticks of a clock the commands pass with --tick (seconds, minutes or any unit), instead \
of the last --items inserts; --items is then the inserts expected within T. A generation \
ends every ⌈T/r⌉ ticks (`info` shows r and the ticks per generation): the keys of the last \
r·⌈T/r⌉ ≥ T ticks are always found, those older than (r + 1)·⌈T/r⌉ ticks are forgotten. \
Without it the window is the last --items inserts";

/// What `--help` says of `build --tick`.
pub(crate) const BUILD_TICK_HELP: &str = "With --time-window: the clock's time when the keys \
are inserted (the file's tick) [default: 0]";

/// What `--help` says of `add --tick`.
pub(crate) const ADD_TICK_HELP: &str = "For a sliding filter with a time window: move its \
clock to tick N before inserting (ending the generations passed since the file's last tick, \
which forgets their keys) and save the tick; N must not be before the file's tick. Refused on \
any other filter";

/// What `--help` says of `query --tick`.
pub(crate) const QUERY_TICK_HELP: &str = "For a sliding filter with a time window: answer as \
of tick N (the file's clock moved to N in memory; the file is not changed); N must not be \
before the file's tick. Refused on any other filter";

/// Builds the time-window sliding filter of `build --time-window`: sized
/// for `window` inserts within `ticks` ticks, its clock at `tick`.
///
/// # Errors
/// A usage error for a time window of 0; the library's errors otherwise.
pub(crate) fn build_timed(
    options: BuildOptions,
    fp: f64,
    window: usize,
    ticks: u64,
    tick: u64,
) -> Result<Box<dyn ApproxSet + Send + Sync>, CliError> {
    if ticks == 0 {
        return Err(CliError::usage(
            "invalid --time-window: must be at least 1 tick, got 0",
        ));
    }
    let mut filter = SlidingBloomFilter::with_fp_rate(fp)
        .options(options)
        .time_window(ticks)
        .window(window)?;
    filter.advance_to(tick).map_err(tick_error)?;
    Ok(Box::new(filter))
}

/// Checks the sliding options of `build`: `--time-window` and `--tick` for
/// the sliding variant only, `--tick` with `--time-window` only.
///
/// # Errors
/// A usage error naming the flag.
pub(crate) fn check_build_flags(
    variant: Variant,
    time_window: Option<u64>,
    tick: Option<u64>,
) -> Result<(), CliError> {
    if time_window.is_some() && variant != Variant::Sliding {
        return Err(CliError::usage(format!(
            "invalid --time-window: only the sliding filter has a window (got --variant {variant})"
        )));
    }
    if tick.is_some() && time_window.is_none() {
        return Err(CliError::usage(
            "invalid --tick: only a sliding filter with a --time-window has a clock",
        ));
    }
    Ok(())
}

/// The library's clock error (a window of inserts, a tick going back) as a
/// usage error naming `--tick`.
fn tick_error(error: approxset::Error) -> CliError {
    match error {
        approxset::Error::InvalidParameter { reason, .. } => {
            CliError::usage(format!("invalid --tick: {reason}"))
        }
        other => other.into(),
    }
}

/// The sliding filter of the file `path` with its clock moved to `tick`.
///
/// # Errors
/// A usage error naming `--tick` when the file is not a sliding filter,
/// has a window of inserts, or its tick is after `tick`; the file's load
/// error otherwise.
pub(crate) fn load_at(
    path: &Path,
    bytes: &[u8],
    tick: u64,
) -> Result<SlidingBloomFilter, CliError> {
    let header =
        approxset::format::Header::parse(bytes).map_err(|e| files::load_error(path, &e))?;
    match header.variant() {
        Some(name) if name == Variant::Sliding.name() => {}
        Some(name) => {
            return Err(CliError::usage(format!(
                "invalid --tick: '{}' is a {name} filter, which has no clock (only a sliding \
                 filter built with --time-window has one)",
                path.display(),
            )));
        }
        // Not a filter this release knows: the loader says what is wrong.
        None => {
            let e = approxset::load_membership(bytes).err();
            return Err(e.map_or_else(
                || CliError::failure(format!("cannot load '{}'", path.display())),
                |e| files::load_error(path, &e),
            ));
        }
    }
    let mut filter =
        SlidingBloomFilter::from_bytes(bytes).map_err(|e| files::load_error(path, &e))?;
    if filter.time_window().is_none() {
        return Err(CliError::usage(format!(
            "invalid --tick: '{}' is a sliding filter with a window of {} inserts, not of \
             ticks (build it with --time-window for a clock)",
            path.display(),
            filter.capacity()
        )));
    }
    filter.advance_to(tick).map_err(|e| match tick_error(e) {
        CliError::Usage(m) => CliError::usage(format!("{m} ('{}')", path.display())),
        other => other,
    })?;
    Ok(filter)
}

/// The note `build` and `add` print on standard error when a sliding
/// filter with a window of inserts got more keys than its window: the
/// first ones may be forgotten already.
pub(crate) fn forgetting_note<F: Membership + ?Sized>(
    filter: &F,
    inserted: usize,
) -> Option<String> {
    if filter.variant() != Variant::Sliding.name() || inserted <= filter.capacity() {
        return None;
    }
    Some(format!(
        "note: {inserted} keys went into a sliding filter with a window of {} inserts: only \
         the last {} are certainly remembered, earlier ones may be forgotten",
        filter.capacity(),
        filter.capacity()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_for_the_sliding_variant_only() {
        assert!(check_build_flags(Variant::Sliding, Some(60), Some(5)).is_ok());
        assert!(check_build_flags(Variant::Sliding, None, None).is_ok());
        let e = check_build_flags(Variant::Classic, Some(60), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --time-window: only the sliding filter has a window (got --variant classic)"
        );
        let e = check_build_flags(Variant::Sliding, None, Some(3)).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
    }

    #[test]
    fn a_clock_moves_forward_only() {
        let f = build_timed(BuildOptions::new().seed(3), 0.01, 100, 60, 1000).unwrap();
        let bytes = f.to_bytes().unwrap();
        let path = Path::new("f.bin");
        let g = load_at(path, &bytes, 1000).unwrap();
        assert_eq!(g.tick(), 1000);
        let e = load_at(path, &bytes, 999).unwrap_err();
        assert!(matches!(e, CliError::Usage(_)), "{e}");
        assert!(e.to_string().contains("from 1000 to 999"), "{e}");
        assert!(build_timed(BuildOptions::new(), 0.01, 100, 0, 0).is_err());
    }
}
