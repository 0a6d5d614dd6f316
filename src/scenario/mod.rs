//! Scenario files and suite files (TOML): what a rehearsal runs, read and validated before any
//! container starts. The formats are documented for users in `scenarios/README.md` and
//! `scenarios/suites/README.md`.
//!
//! [`file`] reads one scenario (the checkpoint, the job, Kafka topics, targets and
//! expectations); [`suite`] reads a suite (query shapes × state store providers × source
//! versions × target versions) and cuts it into cells, groups and shards. This module only
//! declares and re-exports.

pub mod file;
pub mod suite;

pub use file::*;
