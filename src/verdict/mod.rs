//! Verdicts: what a restart of a checkpoint on a target Spark version came to, and the evidence.
//!
//! This module only declares and re-exports; rules live in `rules.rs` (data, embedded from
//! `default-rules.toml`), the pure classifier in `classify.rs`, the incremental watcher that
//! a running trial feeds line by line in `watch.rs`; `scan.rs` recognises log lines and
//! `progress.rs` reads progress reports; `input.rs` feeds log files to a watcher and
//! `render.rs` prints a classification as text. The checkpoint facts come from
//! [`TrialContext::from_inspection`] (`context.rs`).

mod classify;
mod context;
mod input;
mod progress;
mod render;
mod rules;
mod scan;
#[expect(
    clippy::module_inception,
    reason = "verdict.rs predates this layout and keeps its name"
)]
mod verdict;
mod watch;

pub use crate::checkpoint::BatchId;
pub use crate::text::sanitize;
pub use classify::{classify, CompleteLog, Ended};
pub use context::TrialContext;
pub use input::{classify_files, InputError};
pub use render::write_text;
pub use rules::{FailureText, Rule, RuleMatch, RuleTable, RulesError, DEFAULT_RULES_TOML};
pub use verdict::{Classification, Verdict};
pub use watch::Watcher;
