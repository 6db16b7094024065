//! The answers of `approxset query` and `approxset remove`, one per key:
//! a `key<TAB>answer` line each (the key's bytes as given), or one JSON
//! array of objects whose `key` is the key as a string (bytes that are not
//! UTF-8 become U+FFFD).

use std::io::{self, BufWriter, IsTerminal, Write};

use serde::Serialize;

use crate::CliError;

/// Standard output, buffered, and flushed after every line when the keys
/// are typed at a terminal (so answers come as the keys do).
pub(crate) struct Answers {
    out: BufWriter<io::StdoutLock<'static>>,
    interactive: bool,
}

impl Answers {
    /// Standard output; `from_stdin`: the keys come from standard input.
    pub(crate) fn new(from_stdin: bool) -> Self {
        Answers {
            out: BufWriter::new(io::stdout().lock()),
            interactive: from_stdin && io::stdin().is_terminal(),
        }
    }

    /// Writes `key<TAB>answer`.
    pub(crate) fn line(&mut self, key: &[u8], answer: &str) -> Result<(), CliError> {
        self.out.write_all(key)?;
        writeln!(self.out, "\t{answer}")?;
        if self.interactive {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Writes `rows` as one JSON array.
    pub(crate) fn json<T: Serialize>(&mut self, rows: &[T]) -> Result<(), CliError> {
        serde_json::to_writer_pretty(&mut self.out, rows)
            .map_err(|e| CliError::from(io::Error::from(e)))?;
        writeln!(self.out)?;
        Ok(())
    }

    /// Flushes what is left.
    pub(crate) fn finish(mut self) -> Result<(), CliError> {
        self.out.flush()?;
        Ok(())
    }
}

/// A key for JSON.
pub(crate) fn key_string(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

/// The word for an answer.
pub(crate) fn word(yes: bool, when_yes: &'static str, when_no: &'static str) -> &'static str {
    if yes { when_yes } else { when_no }
}
