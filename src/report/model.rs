//! The result model every reporter reads.
//!
//! The `rehearse.run/v1` JSON document is written from it by [`super::json`], whose docs define
//! that format; the `Serialize` derives here are not the document (topics, for one, would come
//! out as bare `[name, partitions]` arrays) and must not be written out as if they were.

use std::path::PathBuf;

use serde::Serialize;

use crate::sandbox::CopySummary;
use crate::verdict::{BatchId, Exercised, Verdict, Warning};

/// How the sandbox Kafka was seeded (the seeding step owns it; reports carry it as is).
pub use crate::kafka::SeedingSummary;

/// What the restarted job wrote to one output topic (the trial reads it back; reports carry it).
pub use crate::kafka::OutputCount;

/// Schema id written in the JSON report's `"schema"` field. Bump on breaking changes.
pub const RUN_SCHEMA: &str = "rehearse.run/v1";

/// The outcome of `rehearse run`: one scenario, one trial per target version.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Always [`RUN_SCHEMA`].
    pub schema: &'static str,
    /// Scenario name (the `name` key, or the file stem).
    pub scenario: String,
    /// The source checkpoint directory (read-only; copied into each trial's sandbox).
    pub source_checkpoint: PathBuf,
    /// Spark version that wrote the checkpoint, when the scenario generated it or says so.
    pub source_version: Option<String>,
    /// One entry per target version, in the order run.
    pub trials: Vec<TrialReport>,
    /// The control run (`--control`, `control = true`): the same source checkpoint restarted on
    /// the source version with the unchanged job; each trial's `parity` compares with it.
    /// `None` when no control ran.
    pub control: Option<Box<TrialReport>>,
    /// Whether semantic warnings fail the run (`--deny-warnings`, or the scenario's
    /// `deny_warnings = true`): a target that resumed with a warning then exits 19.
    pub deny_warnings: bool,
    /// Where a remote source came from and whether it was unchanged at the end (`None`: the
    /// source was a local directory or generated).
    pub remote_source: Option<RemoteSourceReport>,
}

/// A remote source checkpoint (`[checkpoint] path = "s3://…"`): staged once into a local
/// directory that the trials copied from, and listed again at the end of the run.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteSourceReport {
    /// The URL as the scenario gives it (never credentials: a URL with a query string is
    /// refused when the scenario is read).
    pub url: String,
    /// The local directory it was staged into (removed after the run unless `--keep`).
    pub staged_at: PathBuf,
    /// What was staged, as a trial's `copy` says it (the same keys, flattened into this object):
    /// files and bytes staged of the source's, and whether only the working set was.
    #[serde(flatten)]
    pub staged: CopyReport,
    /// What was compared between the listing at staging time and the one at the end.
    pub compared: String,
    /// `Some(true)`: every object had the same size and change markers at the end;
    /// `Some(false)`: see `changes`; `None`: the source could not be listed again (`verify_error`).
    pub unchanged: Option<bool>,
    /// What changed (`changed offsets/12`, `added …`, `removed …`).
    pub changes: Vec<String>,
    /// Why the source could not be listed again, when it could not.
    pub verify_error: Option<String>,
}

/// One trial: the checkpoint restarted on one target Spark version.
#[derive(Debug, Clone, Serialize)]
pub struct TrialReport {
    /// The Spark version the checkpoint was restarted on.
    pub target_version: String,
    /// The outcome.
    pub verdict: Verdict,
    /// The verdict the scenario expects for this target (regression suites), if any.
    pub expected_verdict: Option<Verdict>,
    /// Id of the rule that decided the verdict.
    pub rule: String,
    /// Driver-log lines and events behind the verdict, verbatim.
    pub evidence: Vec<String>,
    /// Last committed batch of the checkpoint before the restart.
    pub last_committed_batch: Option<BatchId>,
    /// First micro-batch that completed after the restart.
    pub first_batch_after_restart: Option<BatchId>,
    /// Whether that batch's start offsets equal the checkpoint's committed end offsets.
    pub start_offsets_match: Option<bool>,
    /// Seconds from submitting the job to the verdict.
    pub seconds_to_verdict: f64,
    /// Whether the source checkpoint hashed the same after the trial as before it.
    pub source_untouched: bool,
    /// One sentence a data engineer can act on.
    pub remedy: String,
    /// `startingOffsets` JSON for a fresh start from the last committed offsets, if Kafka.
    pub starting_offsets: Option<String>,
    /// How Kafka was seeded.
    pub seeding: SeedingSummary,
    /// Per `[[output_topics]]` entry, the records the restarted job wrote there (empty when the
    /// scenario declares none).
    pub output: Vec<OutputCount>,
    /// Where the sandbox was kept (`--keep`), else `None` (removed).
    pub sandbox: Option<PathBuf>,
    /// Where the trial's evidence is kept, whatever `--keep` says: a directory holding
    /// `logs/driver.log`, `eventlog/` and `trial.json` (`Sandbox::keep_evidence`: the sandbox
    /// under `--report-dir`, else `<cache>/reports/<sandbox name>/`); `None` when it could not
    /// be kept (a note says why) or in reports built without a trial.
    pub logs: Option<PathBuf>,
    /// Anything else the user should know (e.g. offsets were rebased in the sandbox copy).
    pub notes: Vec<String>,
    /// Semantic warnings: the restart resumed but its meaning may have changed (a watermark
    /// removed, state read under other field names). `rehearse run --deny-warnings` fails on them.
    pub warnings: Vec<Warning>,
    /// What the sandbox copy of the source held.
    pub copy: CopyReport,
    /// The dependencies the job ran with (`[job] packages`, `jars`, `py_files`,
    /// `requirements`); `None` when it names none.
    pub dependencies: Option<crate::deps::DependencyReport>,
    /// The job artifact this trial ran (`[job]` or a `[job.per_target]` entry); `None` in
    /// reports built without a trial.
    pub job: Option<JobArtifact>,
    /// The executors of a restart on a cluster (`--runtime standalone`), from the event log;
    /// `None` for `local[2]` (no executor is announced there).
    pub executors: Option<ExecutorsReport>,
    /// The paths the restarted query has and whether each ran after the restart (state
    /// loaded, state updated, watermark advanced, state evicted, sink wrote; see
    /// `verdict/exercised.rs`); `None` when no complete progress report of the restart was seen.
    pub exercised: Option<Exercised>,
    /// Output parity against the control run (`--control`, `control = true`): what this
    /// target wrote after the restart compared with what the control wrote (`trial/parity.rs`);
    /// `None` when no control ran.
    pub parity: Option<super::parity::Parity>,
    /// The remedy rehearsed (`--fresh`, `fresh = …`): this target's job on a new empty
    /// checkpoint with `{starting_offsets}`, beside the control (`report/fresh.rs`); `None`
    /// when not asked for this target.
    pub fresh: Option<Box<super::fresh::FreshReport>>,
}

/// The executors a restart on a cluster ran, from the driver's event log
/// (`SparkListenerExecutorAdded` / `SparkListenerExecutorRemoved`, Spark's `JsonProtocol`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ExecutorsReport {
    /// Executors announced until the verdict.
    pub count: u64,
    /// Their hosts (the workers' names on a standalone cluster), sorted, once each.
    pub workers: Vec<String>,
    /// `executor <id> on <host> removed: <Spark's reason>`, one per removed executor.
    pub removed: Vec<String>,
}

/// The artifact a trial ran, as the reports name it (also in a matrix report's cells, read
/// back by `matrix merge`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct JobArtifact {
    /// The scenario table it comes from: `[job]` or `[job.per_target."4.*"]`.
    pub table: String,
    /// `jar` or `file` (PySpark).
    pub kind: String,
    /// The artifact's path, `{spark}`/`{scala}` filled.
    pub path: PathBuf,
    /// The jar's main class.
    pub main_class: Option<String>,
    /// blake3 of the artifact's bytes as staged (hex), when it could be read.
    pub blake3: Option<String>,
}

impl JobArtifact {
    /// One line for terminal and Markdown reports: `jar app_2.13-4.0.1.jar (com.example.Main)
    /// from [job.per_target."4.*"]`.
    pub fn describe(&self) -> String {
        let name = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let class = self
            .main_class
            .as_ref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        format!("{} {name}{class} from {}", self.kind, self.table)
    }
}

/// What a trial's sandbox copy of the source checkpoint held: the restart's working set, or
/// everything (and why).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CopyReport {
    /// Files copied.
    pub files: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Files in the source checkpoint.
    pub source_files: u64,
    /// Bytes in the source checkpoint.
    pub source_bytes: u64,
    /// True when only the restart's working set was copied.
    pub working_set: bool,
    /// Why everything was copied, when it was.
    pub why_full: Option<String>,
}

impl From<&CopySummary> for CopyReport {
    fn from(c: &CopySummary) -> Self {
        CopyReport {
            files: c.files,
            bytes: c.bytes,
            source_files: c.source_files,
            source_bytes: c.source_bytes,
            working_set: c.working_set,
            why_full: c.why_full.clone(),
        }
    }
}

impl TrialReport {
    /// Whether this trial's output parity fails it: it differs from the control's and the
    /// scenario does not allow it (the verdict is untouched: see [`crate::report::outcome`]).
    pub fn parity_failed(&self) -> bool {
        self.parity
            .as_ref()
            .is_some_and(super::parity::Parity::fails)
    }

    /// Whether this trial's remedy run fails the run: it failed or its start is not proven
    /// ([`FreshReport::failed`](super::FreshReport::failed)).
    pub fn fresh_failed(&self) -> bool {
        self.fresh.as_ref().is_some_and(|f| f.failed())
    }

    /// Whether the remedy run's parity fails the run.
    pub fn fresh_parity_failed(&self) -> bool {
        self.fresh.as_ref().is_some_and(|f| f.parity_failed())
    }

    /// Whether a check beside the verdict fails this trial: its parity, its fresh run, or the
    /// fresh run's parity.
    pub fn checks_failed(&self) -> bool {
        self.parity_failed() || self.fresh_failed() || self.fresh_parity_failed()
    }

    /// Whether this trial passes: `resumed`, or equal to its expected verdict when one is given.
    pub fn passed(&self) -> bool {
        match self.expected_verdict {
            Some(expected) => expected == self.verdict,
            None => self.verdict == Verdict::Resumed,
        }
    }
}
