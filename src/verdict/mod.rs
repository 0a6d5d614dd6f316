//! Verdicts: what a restart of a checkpoint on a target Spark version came to, and the evidence.
//!
//! This module only declares and re-exports; rules live in `rules.rs` (data, embedded from
//! `default-rules.toml`), the pure classifier in `classify.rs`, the incremental watcher that
//! a running trial feeds line by line in `watch.rs`.

mod verdict;

pub use verdict::{BatchId, Classification, TrialContext, Verdict};
