//! Verdicts: what a restart of a checkpoint on a target Spark version came to, and the evidence.
//!
//! This module only declares and re-exports. Its files, each importing only the ones listed
//! before it:
//!
//! - `verdict.rs`: the [`Verdict`] enum and the [`Classification`] result; `context.rs`: the
//!   checkpoint facts a classifier needs, [`TrialContext::from_inspection`];
//! - `rules.rs`: the rule table as data (embedded from `default-rules.toml`); `builtin.rs`:
//!   the rules the classifier decides itself, [`BuiltinRule`] (embedded from
//!   `builtin-rules.toml`);
//! - `scan.rs` recognises log lines, `progress.rs` reads progress reports, `evidence.rs`
//!   bounds evidence lines, `store_load.rs` reads a RocksDB store's load of a checkpoint
//!   version from its log line; `exercised.rs`: which paths of the restarted query ran
//!   ([`Exercised`]), from its progress reports (and those load lines);
//! - `signs.rs`: WARN/ERROR messages that name a stalled or unexplained end (embedded from
//!   `sign-rules.toml`);
//! - `judge.rs`: the pure judgements (what a progress report proves, which rule explains
//!   a failure);
//! - `watch.rs`: the incremental [`Watcher`] a running trial feeds line by line (`watch/at_end.rs`:
//!   its decisions once the driver has ended);
//! - `classify.rs`: [`classify()`], a whole log fed to a watcher;
//! - `input.rs` feeds log files to it.
//!
//! Nothing here renders a [`Classification`]: `rehearse classify`'s text is written by the root
//! package's `report::classify` (`src/report/classify.rs`); its JSON is the serde form of the
//! type itself.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod builtin;
mod classify;
mod context;
mod evidence;
mod exercised;
mod input;
mod judge;
mod progress;
mod rules;
mod scan;
mod signs;
mod state_files;
mod store_load;
mod verdict;
mod warnings;
mod watch;

pub use builtin::{BuiltinRule, BUILTIN_RULES_TOML};
pub use classify::{classify, CompleteLog};
pub use context::{JobFacts, TrialContext};
pub use evidence::clip_owned as evidence_line;
pub use exercised::{Exercised, PathProof};
pub use input::{classify_files, InputError};
pub use rehearse_base::text::sanitize;
pub use rehearse_checkpoint::BatchId;
pub use rules::{FailureText, Rule, RuleMatch, RuleTable, RulesError, DEFAULT_RULES_TOML};
pub use signs::SIGN_RULES_TOML;
pub use state_files::{merge_warnings, state_file_warnings, stored_schema_evidence};
pub use verdict::{Classification, QueryRuns, SeveralRuns, Verdict};
pub use warnings::{settle_for_versions, Warning, WARNING_RULES_TOML};
pub use watch::{Ended, Watcher};
