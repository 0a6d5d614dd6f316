//! The verdict enum and the classification result with its evidence (the context a classifier
//! needs from the inspected checkpoint is in `context.rs`).

use super::exercised::Exercised;
use super::warnings::Warning;
use serde::Serialize;

use rehearse_checkpoint::BatchId;

/// The outcome of one trial (one restart on one target version); see shared/docs/DESIGN.md,
/// "Verdicts".
///
/// Declared in order of severity for an upgrade decision: `max()` over a run is the worst.
/// Only `Resumed` means "safe to restart"; it needs positive proof (a completed micro-batch
/// after the restart whose start offsets equal the checkpoint's committed end offsets).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A micro-batch completed after the restart, continuing the checkpoint's batch ids and
    /// offsets; in a live trial, every path the query has (state loaded and updated, watermark
    /// advanced, state evicted, sink wrote: `exercised.rs`) also ran.
    Resumed,
    /// The restart continued the checkpoint's offsets, but not every path the query has ran
    /// before the trial ended (no window closed, the sink wrote nothing): the resume is not
    /// proved. The evidence names the paths that did not run and why.
    ResumeUnproven,
    /// No outcome within the trial's timeout.
    Timeout,
    /// The driver ended (or the log ends) with no completed batch and no failure logged: the
    /// restart was neither proved nor seen to fail.
    NoOutcome,
    /// The rehearsal could not test the restart: image, connector jar, container, JVM.
    EnvironmentError,
    /// The sandbox Kafka lacks offsets the checkpoint needs (seeding short, or retention).
    KafkaDataLoss,
    /// The query ignored the checkpoint: batch ids restarted from 0, or offsets from the start.
    StartedFresh,
    /// The query failed for a cause outside the verdicts above: no rule matched (the top
    /// exception is the evidence), or a rule for a known Spark defect did
    /// (`spark-kafka-source-metrics-npe`: the release fails whatever the checkpoint holds; its
    /// remedy names the release with the fix).
    UnclassifiedFailure,
    /// The query changed: number of sources, or stateful operators added, removed, reordered.
    PlanChange,
    /// The offset log or commit log (or `metadata`) could not be read or is inconsistent.
    OffsetLogError,
    /// The state store could not be loaded: schema, format version, provider, missing files.
    StateStoreError,
}

impl Verdict {
    /// Every verdict, in declaration (severity) order.
    pub const ALL: [Verdict; 11] = [
        Verdict::Resumed,
        Verdict::ResumeUnproven,
        Verdict::Timeout,
        Verdict::NoOutcome,
        Verdict::EnvironmentError,
        Verdict::KafkaDataLoss,
        Verdict::StartedFresh,
        Verdict::UnclassifiedFailure,
        Verdict::PlanChange,
        Verdict::OffsetLogError,
        Verdict::StateStoreError,
    ];

    /// The verdict's name as written in reports, scenario files and JSON (`state-store-error`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Resumed => "resumed",
            Verdict::ResumeUnproven => "resume-unproven",
            Verdict::Timeout => "timeout",
            Verdict::NoOutcome => "no-outcome",
            Verdict::EnvironmentError => "environment-error",
            Verdict::KafkaDataLoss => "kafka-data-loss",
            Verdict::StartedFresh => "started-fresh",
            Verdict::UnclassifiedFailure => "unclassified-failure",
            Verdict::PlanChange => "plan-change",
            Verdict::OffsetLogError => "offset-log-error",
            Verdict::StateStoreError => "state-store-error",
        }
    }

    /// Parses a verdict name as [`Verdict::name`] writes it.
    pub fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A verdict with the rule that produced it and the evidence behind it.
#[derive(Debug, Clone, Serialize)]
pub struct Classification {
    /// The outcome.
    pub verdict: Verdict,
    /// Id of the rule that matched (a row of `default-rules.toml`, or of `builtin-rules.toml`
    /// such as `progress-after-restart`).
    pub rule: String,
    /// The log lines and events behind the verdict, verbatim (trimmed to a bounded length).
    pub evidence: Vec<String>,
    /// Last committed batch of the checkpoint before the restart.
    pub last_committed_batch: Option<BatchId>,
    /// Batch id of the first micro-batch that completed after the restart, if any.
    pub first_batch_after_restart: Option<BatchId>,
    /// Whether that batch's start offsets equal the checkpoint's committed end offsets;
    /// `None` when no batch completed or the committed offsets were unknown.
    pub start_offsets_match: Option<bool>,
    /// One sentence a data engineer can act on.
    pub remedy: String,
    /// N of Spark's own "Resuming at batch N" line, if logged (context, never proof).
    pub resuming_at: Option<BatchId>,
    /// The first Spark error class named by the failure (`STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE`),
    /// wrappers such as `STREAM_FAILED` skipped.
    pub error_class: Option<String>,
    /// The input was an excerpt (lines pasted from a ticket), not a driver log: nothing in it
    /// says Spark or the query started or ran a batch, so the batch facts are unknown. An
    /// excerpt is never `resumed`.
    #[serde(default)]
    pub excerpt: bool,
    /// Semantic warnings (`warning-rules.toml`): a restart Spark accepted whose meaning may have
    /// changed. They never change the verdict; `--deny-warnings` makes them fail a run.
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// The paths the restarted query has and whether each ran (`exercised.rs`); `None` when no
    /// complete progress report of the restarted run was seen.
    #[serde(default)]
    pub exercised: Option<Exercised>,
    /// The log holds more than one run or query (logs concatenated, two drivers writing one
    /// file, a job with two queries): what it holds and which run the verdict judged. Only a
    /// whole log read by `rehearse classify` says so; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub several_runs: Option<SeveralRuns>,
}

/// What a log holding more than one run holds, counted over every line (also those after the
/// verdict was final): driver starts (`SparkContext: Running Spark version`, one per
/// spark-submit), query starts (`Starting <name> [id = …, runId = …]. Use … to store the query
/// checkpoint.`, MicroBatchExecution, one per `start()`; or the event log's
/// `QueryStartedEvent`), and whether their lines interleave.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeveralRuns {
    /// Times Spark's driver started (`Running Spark version` lines).
    pub spark_starts: usize,
    /// Each query that started, with its runs in start order (at most 16 of each).
    pub queries: Vec<QueryRuns>,
    /// A line of an earlier run comes after a later run started: two drivers wrote the file at
    /// once, not one after the other.
    pub interleaved: bool,
    /// runId of the run the verdict judged, when the log names it.
    pub judged_run: Option<String>,
    /// One sentence saying all of it, as the text output prints it.
    pub note: String,
}

/// One query id in a log and the runIds it started with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QueryRuns {
    /// The query id (the checkpoint's `metadata` id).
    pub id: String,
    /// Its runIds, in start order.
    pub runs: Vec<String>,
}
