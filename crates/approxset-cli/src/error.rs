//! What went wrong in a command, and so its exit code: the error every
//! command returns, and how library and I/O errors become one.

use std::fmt;
use std::io;

/// What went wrong, and so the exit code.
#[derive(Debug)]
pub(crate) enum CliError {
    /// Bad usage: a value out of range, conflicting options. Exit code 2.
    Usage(String),
    /// Anything else: I/O, memory, a damaged filter file, an operation the
    /// filter's variant cannot do. Exit code 1.
    Failure(String),
    /// Standard output was closed early (`approxset … | head`): stop quietly.
    BrokenPipe,
}

impl CliError {
    /// A usage error (exit code 2).
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        CliError::Usage(message.into())
    }

    /// A failure (exit code 1).
    pub(crate) fn failure(message: impl Into<String>) -> Self {
        CliError::Failure(message.into())
    }

    /// An I/O error with what was being done, e.g. "cannot read 'keys.txt'".
    pub(crate) fn io(context: impl fmt::Display, error: &io::Error) -> Self {
        if error.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Failure(format!("{context}: {error}"))
        }
    }

    /// The process exit code.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failure(_) => 1,
            CliError::BrokenPipe => 0,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failure(m) => f.write_str(m),
            CliError::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}

impl From<approxset::Error> for CliError {
    /// A parameter the library refuses is a usage error; running out of
    /// memory or room is a failure.
    fn from(error: approxset::Error) -> Self {
        match error {
            approxset::Error::InvalidParameter { .. } => CliError::Usage(error.to_string()),
            _ => CliError::Failure(error.to_string()),
        }
    }
}

impl From<io::Error> for CliError {
    /// An error writing standard output.
    fn from(error: io::Error) -> Self {
        CliError::io("cannot write the output", &error)
    }
}
