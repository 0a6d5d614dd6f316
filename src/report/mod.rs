//! Reporters: every rendering of a result (the run report, the matrix report, `inspect`'s
//! inspection, `classify`'s classification) chosen through one [`Format`] enum, each report
//! kind with its own `write(format, report, out)` ([`write`] for a [`RunReport`],
//! [`matrix::write`], [`inspect::write`], [`classify::write`]). A run report ([`RunReport`])
//! has four writers — terminal summary, JSON (`rehearse.run/v1`), JUnit XML, Markdown; a matrix
//! five (`matrix/`). Plus the outcome (exit code) a report implies ([`decide`], shared by run
//! and matrix) and whether progress may draw bars ([`progress_style`]). The judgements a report
//! shows are made on the trial side — parity's comparison of row sets (`trial/parity.rs`), a
//! fresh run's start proof (`trial/fresh.rs`); the report holds and renders their values and
//! reads whether they fail ([`Parity::fails`], [`FreshReport::failed`]) for the outcome.
//!
//! Writers are generic over `std::io::Write` so tests render into memory; none of them prints to
//! stdout or stderr, decides colour, or runs a trial. The stable surfaces are the JSON document
//! ([`json`]) and the JUnit mapping ([`junit`]); the terminal and Markdown layouts may change.
//!
//! This module only declares and re-exports.

pub mod classify;
mod format;
mod fresh;
pub mod inspect;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
mod model;
mod outcome;
mod parity;
mod progress;
pub mod terminal;
#[cfg(test)]
pub(crate) mod test_helpers;
mod text;

pub use format::{write, Format};
pub use fresh::{FreshReport, StartProof, StartStatus};
pub use json::{write_json, write_trial_json};
pub use junit::write_junit;
pub use markdown::write_markdown;
pub use model::{
    CopyReport, ExecutorsReport, JobArtifact, OutputCount, RemoteSourceReport, RunReport,
    SeedingSummary, TrialReport, RUN_SCHEMA,
};
pub use outcome::{decide, ending, outcome, Judgement};
pub use parity::{Parity, ParityStatus};
pub use progress::{progress_style, ProgressMode};
pub use terminal::{write_summary, TerminalStyle};
