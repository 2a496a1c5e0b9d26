//! The library's error types, at the bottom of the house so that every stage can return
//! them: [`Error`], with a typed variant per stage a caller branches on ([`TargetError`],
//! [`RenderError`]), and [`InputError`] for a problem in a file the user wrote. Every
//! failure says what, where, and what was expected.

use std::fmt;
use std::path::{Path, PathBuf};

mod render;
mod target;

pub use render::RenderError;
pub use target::TargetError;

/// A problem in a file the user wrote (suite, drive, commentary, trace): it names the file,
/// the line and column (1-based; 0 when not known), the field, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file, as the user would name it (relative to the lab where possible).
    pub file: PathBuf,
    /// 1-based line, 0 when the problem is with the file as a whole.
    pub line: usize,
    /// 1-based column, 0 when not known.
    pub column: usize,
    /// The field path, e.g. `tests[0].queue_depth`; empty for the whole file.
    pub field: String,
    /// What was expected and what was found.
    pub message: String,
}

impl InputError {
    /// An error about a whole file or a field without a known position.
    pub fn new(
        file: impl AsRef<Path>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.as_ref().to_path_buf(),
            line: 0,
            column: 0,
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same error at a known position.
    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column;
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// One or more problems in the lab's input files.
    #[error("{}", list(.0))]
    Input(Vec<InputError>),
    /// An operating-system error on a named path. Its message includes the OS error's, so
    /// the OS error is not also given as its source (a chain would print it twice).
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or device.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A target (file, block device or simulated drive) refused or failed a job.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// What stops a run before it starts, one line each (the preflight's findings).
    #[error("{}", .0.join("\n"))]
    Preflight(Vec<String>),
    /// A results file that cannot be read or written.
    #[error("{}: {message}", path.display())]
    Store {
        /// The results file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// Results folders that cannot be merged as they are (conflicting jobs, damaged files),
    /// one line each; nothing was copied.
    #[error("{}\nnothing was merged", .0.join("\n"))]
    Merge(Vec<String>),
    /// Rendering the site failed.
    #[error("render: {0}")]
    Render(#[from] RenderError),
    /// The user interrupted the run (Ctrl-C); completed jobs are kept.
    #[error("interrupted")]
    Interrupted,
}

fn list(errors: &[InputError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::Input(vec![e])
    }
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            error: source,
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
