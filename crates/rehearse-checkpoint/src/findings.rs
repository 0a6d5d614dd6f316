//! Findings: every problem or notable fact an inspection found, each naming its file.
//!
//! A finding never stops an inspection; the caller decides what a severity means (the binary
//! exits with code 5 when any finding is an error).

use serde::Serialize;

/// How much a finding matters for a restart. Declared in increasing order, so the worst of a list
/// is its `max()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A fact worth knowing (a pending batch, `.crc` side files); nothing to fix.
    Info,
    /// Unusual, and may matter: leftover temp files, a gap in the logs Spark does not read.
    Warning,
    /// A restart from this checkpoint will fail or silently lose data or state.
    Error,
}

impl Severity {
    /// The lowercase name used in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem or fact, with the file it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How much it matters.
    pub severity: Severity,
    /// A stable kebab-case id (`pending-batch`, `log-garbled`, `state-version-missing`, …),
    /// for scripts and tests; the message is for people and may change.
    pub code: &'static str,
    /// The file or directory it is about, relative to the checkpoint (`offsets/3`); `None` when it
    /// is about the checkpoint as a whole.
    pub file: Option<String>,
    /// 1-based line in that file, when known.
    pub line: Option<usize>,
    /// What was found and what it means for a restart, in one or two sentences.
    pub message: String,
}

impl Finding {
    pub(crate) fn new(
        severity: Severity,
        code: &'static str,
        file: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            severity,
            code,
            file: file.map(str::to_string),
            line: None,
            message: message.into(),
        }
    }

    pub(crate) fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}
