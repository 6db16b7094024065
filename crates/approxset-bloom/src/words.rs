//! Checks on the saved words of a filter's cells, shared by the bits, the
//! counters and the views of both.

use approxset_core::format::Words;
use approxset_core::{Error, Result};

/// Checks serialized cell words: exactly ⌈len/per_word⌉ of them, holding
/// `per_word` equal-width cells each, with the cells past `len` clear;
/// `what` names the cells ("bits", "counters") in the error. It reads one
/// word, so a view makes it too.
pub(crate) fn check_words<W: Words + ?Sized>(
    words: &W,
    len: u64,
    per_word: u64,
    what: &str,
) -> Result<()> {
    let count = words.word_count();
    if count as u64 != len.div_ceil(per_word) {
        return Err(Error::corrupt(format!(
            "{} {what} need {} words, the payload has {}",
            len,
            len.div_ceil(per_word),
            count
        )));
    }
    if len % per_word != 0 {
        let last = words.word(count - 1);
        if last >> ((len % per_word) * (64 / per_word)) != 0 {
            return Err(Error::corrupt(format!(
                "{what} set past the end of the filter"
            )));
        }
    }
    Ok(())
}
