//! Errors of the checkpoint model: [`CheckpointError`] when a directory cannot be inspected at
//! all, [`ParseError`] when one file's text is not what Spark writes.
//!
//! Everything else wrong with a checkpoint is a [`Finding`](super::Finding), not an error: one bad
//! file never stops an inspection.

use std::path::PathBuf;

use rehearse_base::{ErrorKind, HasErrorKind};
use rehearse_store::StoreError;

/// Why a checkpoint could not be inspected at all (the binary exits with code 3).
///
/// Every other problem (a garbled log, a missing state file) becomes a finding instead.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The path does not exist.
    #[error("checkpoint {path} does not exist")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path is a file (or another non-directory), not a checkpoint directory.
    #[error("checkpoint {path} is a file, not a directory")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The directory holds none of `metadata`, `offsets/`, `commits/`, `state/`, `sources/`.
    #[error("{path} is not a checkpoint: {what}")]
    NotACheckpoint {
        /// The path given.
        path: PathBuf,
        /// What was there instead ("the directory is empty", "found: a.txt, b/").
        what: String,
    },
    /// The path (or a link on the way to it) is a symbolic link loop.
    #[error("checkpoint {path} is a symbolic link loop")]
    SymlinkLoop {
        /// The path given.
        path: PathBuf,
    },
    /// The offset or commit log directory exists but cannot be listed: nothing about the
    /// batches can be said (Spark fails listing it too).
    #[error("cannot list {path}, which Spark lists on every restart to find the batches")]
    LogUnreadable {
        /// The log directory.
        path: PathBuf,
        /// The I/O cause.
        #[source]
        source: std::io::Error,
    },
    /// The directory exists but cannot be read (permissions, I/O error).
    #[error("checkpoint {path} cannot be read")]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// The I/O cause.
        #[source]
        source: std::io::Error,
    },
    /// A remote checkpoint could not be listed: no such bucket, nothing at the prefix, rejected
    /// credentials, an unreachable endpoint. The message names the URL and carries its own hint;
    /// [`StoreError::kind`] says whether it is bad input or the environment.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl CheckpointError {
    /// What the user can do about it, as one sentence.
    pub fn hint(&self) -> &'static str {
        match self {
            CheckpointError::NotFound { .. } | CheckpointError::NotACheckpoint { .. } => {
                "pass the query's checkpointLocation: the directory that holds metadata, offsets/ and commits/"
            }
            CheckpointError::NotADirectory { .. } => {
                "pass the checkpoint directory itself, not one of its files (for example the parent of offsets/)"
            }
            CheckpointError::SymlinkLoop { .. } => {
                "resolve the link to the real checkpoint directory, or copy the checkpoint and inspect the copy"
            }
            CheckpointError::LogUnreadable { .. } => {
                "make offsets/ and commits/ readable (and listable) by this user, then inspect again"
            }
            CheckpointError::Unreadable { .. } => {
                "check that the directory and its subdirectories are readable by this user"
            }
            // The store's message ends with its own `(hint: …)`.
            CheckpointError::Store(_) => "",
        }
    }
}

/// Why a log file's text could not be parsed: the line (1-based) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    /// 1-based line number the problem was found on.
    pub line: usize,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

impl ParseError {
    pub(crate) fn new(line: usize, kind: ParseErrorKind) -> Self {
        ParseError { line, kind }
    }
}

/// What was wrong with a log file's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The file is empty (Spark: "Incomplete log file").
    #[error("the file is empty (Spark reports \"Incomplete log file\")")]
    Empty,
    /// The first line is not `v<N>` with N ≥ 1 (MetadataVersionUtil.validateVersion).
    #[error("version line {0:?} is not v<N> (Spark reports \"Log file was malformed: failed to read correct log version\")")]
    MalformedVersion(String),
    /// The version is higher than any Spark release writes for this log.
    #[error("log version v{found} is newer than any Spark release writes (highest known: v{max})")]
    UnsupportedVersion {
        /// The version found.
        found: u32,
        /// The highest version any known Spark release writes for this log.
        max: u32,
    },
    /// A line that must be JSON is not.
    #[error("not valid JSON: {0}")]
    Json(String),
    /// A JSON line has the wrong shape (missing or mistyped field).
    #[error("{0}")]
    Shape(String),
    /// An offset log v2 line is not `<sourceId>:<offset>` (Spark 4.2+: "Invalid OffsetMap format").
    #[error("offset log v2 line is not <sourceId>:<offset> (Spark reports \"Invalid OffsetMap format\")")]
    InvalidOffsetMap,
}

/// The user's input is at fault (a missing or mistyped checkpoint: exit 3), unless a remote
/// checkpoint's store says the environment is (credentials, permissions, network: exit 4).
impl HasErrorKind for CheckpointError {
    fn error_kind(&self) -> ErrorKind {
        match self {
            CheckpointError::Store(e) => e.error_kind(),
            _ => ErrorKind::BadInput,
        }
    }
}
