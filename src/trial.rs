//! One trial: restart one checkpoint on one target Spark version and reach a verdict.

/// Something that happened during a trial, in the past tense; reporters consume these.
#[derive(Debug, Clone)]
pub enum TrialEvent {}
