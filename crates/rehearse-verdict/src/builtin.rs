//! The built-in rules as data: the verdicts the classifier decides itself (resume proofs,
//! fresh starts, endings without a certain line, failures no rule explains), with their ids
//! and remedies, embedded from `builtin-rules.toml` and named in code by [`BuiltinRule`].
//!
//! Code never spells a built-in rule id or remedy: it names the row. The rows that match
//! failure text are the other table (`rules.rs`, `default-rules.toml`).

use std::sync::OnceLock;

use serde::Deserialize;

use super::{Classification, Verdict};

/// The built-in rule table compiled into the binary (`crates/rehearse-verdict/src/builtin-rules.toml`).
pub const BUILTIN_RULES_TOML: &str = include_str!("builtin-rules.toml");

/// A row of `builtin-rules.toml`, by its `key`. See the file for what each row means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuiltinRule {
    /// The first batch after the restart started from the committed offsets.
    ProgressAfterRestart,
    /// The remedy of a resume proof once a later batch read rows.
    ResumedAndReadRows,
    /// Without committed offsets: the batch Spark said it resumed at ran.
    BatchIdsContinue,
    /// A batch id below the checkpoint's next batch ran after the restart.
    BatchIdsRestarted,
    /// The checkpoint's next batch started from other offsets.
    StartOffsetsDiffer,
    /// Spark started a new query and reported batch 0.
    NewQueryRanBatchZero,
    /// Spark started a new query, then failed or ended.
    NewQueryStarted,
    /// Only queries with other ids than the checkpoint's ran.
    QueryIdDiffers,
    /// The resume was proved, but no batch read the fresh records before the end.
    ResumedWithoutReadingRows,
    /// The resume was proved and rows were read, but a path the query has did not run before
    /// the end (`exercised.rs`).
    ResumeUnproven,
    /// A resume proved where nothing fresh was seeded past the checkpoint's offsets
    /// ([`TrialContext::nothing_fresh`](super::TrialContext::nothing_fresh)): no path could run
    /// on a new record (what ran, ran on the checkpoint's planned batch or on none).
    NothingFreshSeeded,
    /// The trial timed out with no verdict.
    NoOutcomeBeforeTimeout,
    /// The driver ended without any Spark output.
    SparkDidNotStart,
    /// A Python traceback before Spark started.
    JobFailedBeforeSparkStarted,
    /// Spark started, the streaming query did not.
    FailedBeforeQueryStart,
    /// A state error names an operator the checkpoint has no state for.
    StateOperatorNotInCheckpoint,
    /// A failure no row matches, thrown inside the state store (by its first own frame).
    StateStoreFrame,
    /// A failure no row of the rule table matches.
    NoRuleMatched,
    /// Progress was reported, but none of it proves the resume.
    NoResumeProof,
    /// No batch completed and no failure was logged.
    NoBatchAfterRestart,
    /// The sandbox Kafka ends below offsets the checkpoint needs (the trial decides it).
    KafkaShortOfCheckpoint,
    /// Every executor of a restart on a cluster was removed and none replaced them before the
    /// restart was proved (the trial decides it, from the event log).
    ExecutorsLost,
    /// The trial's own Kafka broker stopped before the verdict (the trial decides it).
    SandboxKafkaDied,
    /// The kernel's OOM killer killed the Spark driver under its memory cap.
    SparkOomKilled,
    /// The Spark driver was killed by SIGKILL from outside (exit 137, not an OOM kill).
    SparkKilled,
    /// The container engine stopped answering during the trial.
    EngineLost,
}

/// One row of `builtin-rules.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    key: BuiltinRule,
    id: String,
    verdict: Verdict,
    remedy: String,
    #[serde(default)]
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    rule: Vec<Row>,
}

impl Classification {
    /// `rule`'s verdict, id and remedy with `evidence`, and nothing known of a log: no batch
    /// facts, warnings or paths (a verdict the harness gives itself, or a test's start).
    pub fn of_builtin(rule: BuiltinRule, evidence: Vec<String>) -> Classification {
        Classification {
            verdict: rule.verdict(),
            rule: rule.id().to_string(),
            evidence,
            last_committed_batch: None,
            first_batch_after_restart: None,
            start_offsets_match: None,
            remedy: rule.remedy().to_string(),
            resuming_at: None,
            error_class: None,
            excerpt: false,
            warnings: Vec::new(),
            exercised: None,
            several_runs: None,
        }
    }
}

impl BuiltinRule {
    /// Every built-in rule, in the order of `builtin-rules.toml`.
    pub const ALL: [BuiltinRule; 26] = [
        BuiltinRule::ProgressAfterRestart,
        BuiltinRule::ResumedAndReadRows,
        BuiltinRule::BatchIdsContinue,
        BuiltinRule::BatchIdsRestarted,
        BuiltinRule::StartOffsetsDiffer,
        BuiltinRule::NewQueryRanBatchZero,
        BuiltinRule::NewQueryStarted,
        BuiltinRule::QueryIdDiffers,
        BuiltinRule::ResumedWithoutReadingRows,
        BuiltinRule::ResumeUnproven,
        BuiltinRule::NothingFreshSeeded,
        BuiltinRule::NoOutcomeBeforeTimeout,
        BuiltinRule::SparkDidNotStart,
        BuiltinRule::JobFailedBeforeSparkStarted,
        BuiltinRule::FailedBeforeQueryStart,
        BuiltinRule::StateOperatorNotInCheckpoint,
        BuiltinRule::StateStoreFrame,
        BuiltinRule::NoRuleMatched,
        BuiltinRule::NoResumeProof,
        BuiltinRule::NoBatchAfterRestart,
        BuiltinRule::KafkaShortOfCheckpoint,
        BuiltinRule::ExecutorsLost,
        BuiltinRule::SandboxKafkaDied,
        BuiltinRule::SparkOomKilled,
        BuiltinRule::SparkKilled,
        BuiltinRule::EngineLost,
    ];

    /// The rule id shown with the verdict (`progress-after-restart`).
    pub fn id(self) -> &'static str {
        &self.row().id
    }

    /// The verdict the rule gives.
    pub fn verdict(self) -> Verdict {
        self.row().verdict
    }

    /// The remedy, one sentence; `{op}` stands for an operator id where the row names one.
    pub fn remedy(self) -> &'static str {
        &self.row().remedy
    }

    /// Where Spark's behaviour the rule relies on is written; empty for the harness's own rules.
    pub fn source(self) -> &'static str {
        &self.row().source
    }

    fn row(self) -> &'static Row {
        &table()[self as usize]
    }
}

/// The rows in [`BuiltinRule`] order, parsed once.
fn table() -> &'static [Row] {
    static TABLE: OnceLock<Vec<Row>> = OnceLock::new();
    TABLE.get_or_init(|| {
        parse(BUILTIN_RULES_TOML)
            .expect("the embedded builtin-rules.toml is validated by a unit test")
    })
}

/// The rows of `text` in [`BuiltinRule`] order; an error names a key without exactly one row.
fn parse(text: &str) -> Result<Vec<Row>, String> {
    let raw: RawTable = toml::from_str(text).map_err(|e| e.to_string())?;
    BuiltinRule::ALL
        .iter()
        .map(|&key| {
            let mut rows = raw.rule.iter().filter(|r| r.key == key);
            match (rows.next(), rows.next()) {
                (Some(row), None) => Ok(row.clone()),
                (None, _) => Err(format!("no row for {key:?}")),
                (Some(_), Some(_)) => Err(format!("more than one row for {key:?}")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RuleTable, DEFAULT_RULES_TOML};

    #[test]
    fn every_key_has_one_row_in_enum_order() {
        let rows = parse(BUILTIN_RULES_TOML).expect("builtin rules load");
        let raw: RawTable = toml::from_str(BUILTIN_RULES_TOML).unwrap();
        assert_eq!(raw.rule.len(), BuiltinRule::ALL.len(), "one row per key");
        for (i, key) in BuiltinRule::ALL.into_iter().enumerate() {
            assert_eq!(key as usize, i, "ALL is in declaration order");
            assert_eq!(rows[i].key, key);
            assert_eq!(
                raw.rule[i].key, key,
                "the file lists the rows in enum order"
            );
        }
    }

    #[test]
    fn every_row_is_documented() {
        for key in BuiltinRule::ALL {
            assert!(!key.id().trim().is_empty(), "{key:?} has no id");
            assert!(
                key.remedy().ends_with('.'),
                "{key:?}: remedy is one sentence ending in '.'"
            );
        }
        assert!(BuiltinRule::StateOperatorNotInCheckpoint
            .remedy()
            .contains("{op}"));
    }

    #[test]
    fn rows_sharing_an_id_give_the_same_verdict() {
        for a in BuiltinRule::ALL {
            for b in BuiltinRule::ALL {
                if a.id() == b.id() {
                    assert_eq!(a.verdict(), b.verdict(), "{a:?} and {b:?}");
                }
            }
        }
    }

    #[test]
    fn builtin_ids_are_not_ids_of_the_default_rules() {
        let defaults = RuleTable::parse(DEFAULT_RULES_TOML).unwrap();
        for r in defaults.rules() {
            assert!(
                BuiltinRule::ALL.iter().all(|b| b.id() != r.id),
                "{} is a built-in id",
                r.id
            );
        }
    }
}
