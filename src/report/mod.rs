//! Reporters: one result model ([`RunReport`]) in, four writers out — terminal summary, JSON
//! (`rehearse.run/v1`), JUnit XML, Markdown — plus the outcome (exit code) a report implies and
//! whether progress may draw bars ([`progress_style`]).
//!
//! Writers are generic over `std::io::Write` so tests render into memory; none of them prints to
//! stdout or stderr, decides colour, or runs a trial. The stable surfaces are the JSON document
//! ([`json`]) and the JUnit mapping ([`junit`]); the terminal and Markdown layouts may change.
//!
//! This module only declares and re-exports.

mod format;
mod fresh;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
mod model;
mod outcome;
pub mod parity;
mod progress;
pub mod terminal;
#[cfg(test)]
pub(crate) mod test_helpers;
mod text;

pub use format::{write, ReportFormat};
pub use fresh::{FreshReport, StartProof, StartStatus};
pub use json::{write_json, write_trial_json};
pub use junit::write_junit;
pub use markdown::write_markdown;
pub use model::{
    CopyReport, ExecutorsReport, JobArtifact, OutputCount, RemoteSourceReport, RunReport,
    SeedingSummary, TrialReport, RUN_SCHEMA,
};
pub use outcome::{decide, ending, outcome, Judgement};
pub use parity::{Parity, ParityStatus, RowSet};
pub use progress::{progress_style, ProgressMode};
pub use terminal::{write_summary, TerminalStyle};
