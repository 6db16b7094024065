//! The answers of `approxset query`, `add` and `remove`, one per key: a
//! `key<TAB>answer` line each (the key's bytes as given), or one JSON array
//! of objects whose `key` is the key as a string (bytes that are not UTF-8
//! become U+FFFD) and whose other field is the answer as a boolean.

use std::io::{self, BufWriter, IsTerminal, Write};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::error::CliError;

/// The exit code of `query --quiet` when a key is certainly absent: not 1
/// or 2, which stay the error codes.
pub(crate) const EXIT_ABSENT: u8 = 3;

/// One key's answer to `query`.
#[derive(Debug, Serialize)]
pub(crate) struct QueryRow {
    /// The key (lossy UTF-8).
    key: String,
    /// Whether the filter may hold it (`false`: certainly not).
    present: bool,
}

impl QueryRow {
    /// The answer `present` for `key`.
    pub(crate) fn new(key: String, present: bool) -> Self {
        QueryRow { key, present }
    }
}

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

/// How the yes-or-no answers of a command are shown: the JSON field, and
/// the words of the human output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Answer {
    /// The JSON field next to `key` (`"removed"`, `"new"`).
    pub(crate) field: &'static str,
    /// The word for `true`.
    pub(crate) yes: &'static str,
    /// The word for `false`.
    pub(crate) no: &'static str,
}

/// One key and its answer, serialised as `{"key": …, FIELD: bool}`.
struct Row<'a> {
    key: &'a [u8],
    field: &'static str,
    value: bool,
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("key", &key_string(self.key))?;
        map.serialize_entry(self.field, &self.value)?;
        map.end()
    }
}

/// Prints every key's answer on standard output, as `answer` says: one
/// JSON array with `json`, `key<TAB>word` lines otherwise.
///
/// # Errors
/// A failure writing standard output.
pub(crate) fn report(rows: &[(Vec<u8>, bool)], answer: Answer, json: bool) -> Result<(), CliError> {
    let mut answers = Answers::new(false);
    if json {
        let rows: Vec<Row<'_>> = rows
            .iter()
            .map(|(key, value)| Row {
                key,
                field: answer.field,
                value: *value,
            })
            .collect();
        answers.json(&rows)?;
    } else {
        for (key, value) in rows {
            answers.line(key, word(*value, answer.yes, answer.no))?;
        }
    }
    answers.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_objects_of_key_and_answer() {
        let row = Row {
            key: b"a\xffb",
            field: "new",
            value: true,
        };
        assert_eq!(
            serde_json::to_value(&row).unwrap(),
            serde_json::json!({"key": "a\u{FFFD}b", "new": true})
        );
    }
}
