//! The `rehearse.run/v1` JSON document: the machine-readable, stable form of a run.
//!
//! The document is written from serialize-only types private to this module, not from the report
//! model itself, so that refactoring the model cannot change the schema by accident. Tests read
//! it back into their own types (`tests/integration/report.rs`), never these.
//!
//! # Format
//!
//! One JSON object, pretty-printed, followed by a newline. Keys appear in the order listed here,
//! always: a value that is unknown is `null` (or `[]` for lists), never an absent key. New keys
//! may be added within `v1`; renaming or removing a key, or changing its type, bumps `schema`.
//!
//! | key                 | type            | meaning |
//! |---------------------|-----------------|---------|
//! | `schema`            | string          | Always `"rehearse.run/v1"`. |
//! | `scenario`          | string          | Scenario name (its `name` key, or the file stem). |
//! | `source_checkpoint` | string          | The production checkpoint directory; read, never written. Non-UTF-8 bytes are replaced by U+FFFD. |
//! | `source_version`    | string \| null  | Spark version that wrote the checkpoint, when known. |
//! | `passed`            | bool            | Whether the run passed: `exit_code` is 0. Every trial passed (see `trials[].passed`) and, under `--deny-warnings` / `deny_warnings = true`, none resumed with a warning (those runs exit 19 with every trial passed, and `passed` is `false`). `true` for a run with no trials. |
//! | `exit_code`         | integer         | The exit code `rehearse run` returns for these verdicts (`crate::exit`); the process exits 71 instead when a trial's `source_untouched` is false. |
//! | `trials`            | array of trial  | One per target version, in the order run. |
//! | `control`           | trial (absent)  | Only with `--control` / `control = true`: the control run — the source checkpoint restarted on the source version (`target_version`) with the job that wrote it (no `restart_args`, no `[job.per_target]`), in a trial's layout (its `passed` is not part of the run's). Each trial's `parity` compares with it. |
//! | `remote_source`     | object \| null  | For a remote source checkpoint (`s3://…`, `gs://…`, `az://…`, `abfss://…`, `hdfs://…`): `url` (never credentials), `staged_at` (the local copy the trials copied from), `files`, `bytes` (staged), `source_files`, `source_bytes`, `working_set` (bool: only the files a restart reads were staged), `why_full` (string or null: why everything was staged), `compared` (what was compared between the listing at staging time and at the end: size and ETag, plus version id and MD5 where the server reports them; HDFS: size and modification time), `unchanged` (bool, or null when the source could not be listed again), `changes` (array of string), `verify_error` (string or null). `null` for a local or generated source. |
//!
//! Each trial:
//!
//! | key                         | type            | meaning |
//! |-----------------------------|-----------------|---------|
//! | `target_version`            | string          | The Spark version the checkpoint was restarted on. |
//! | `verdict`                   | string          | One of `resumed`, `timeout`, `no-outcome`, `environment-error`, `kafka-data-loss`, `started-fresh`, `unclassified-failure`, `plan-change`, `offset-log-error`, `state-store-error`. |
//! | `expected_verdict`          | string \| null  | The verdict the scenario expects for this target (regression suites). |
//! | `passed`                    | bool            | `verdict` equals `expected_verdict` when one is given, else `verdict` is `resumed`; and `parity` (when a control ran) does not fail it. |
//! | `rule`                      | string          | Id of the rule that decided the verdict. |
//! | `evidence`                  | array of string | Driver-log lines and events behind the verdict, verbatim (may be empty). |
//! | `last_committed_batch`      | integer \| null | Highest batch id with a commit in the checkpoint before the restart. |
//! | `first_batch_after_restart` | integer \| null | First micro-batch that completed after the restart; `null` if none did. |
//! | `start_offsets_match`       | bool \| null    | Whether that batch's start offsets equal the checkpoint's committed end offsets; `null` when no batch completed or they were unknown. |
//! | `seconds_to_verdict`        | number \| null  | Seconds from submitting the job to the verdict, rounded to milliseconds; `null` only if the clock gave no finite value. |
//! | `source_untouched`          | bool            | Whether the source checkpoint hashed the same after the trial as before. `false` means something wrote to the production checkpoint during the trial. |
//! | `remedy`                    | string          | One sentence a data engineer can act on. |
//! | `starting_offsets`          | string \| null  | The Kafka `startingOffsets` option value (itself JSON, kept as a string so it can be pasted as is) for a fresh start from the last committed offsets. |
//! | `seeding`                   | object          | How the sandbox Kafka was seeded, below. |
//! | `output`                    | array of object | Per `[[output_topics]]` entry, what the restarted job wrote there, below; `[]` when the scenario declares none. |
//! | `sandbox`                   | string \| null  | Where the sandbox was kept (`--keep`); `null` when it was removed. |
//! | `logs`                      | string          | Where the trial's evidence is kept whatever `--keep` says: `logs/driver.log`, `eventlog/`, `trial.json` (the sandbox under `--report-dir`, else `<cache>/reports/<sandbox>/`). Absent when it could not be kept (a note says why). |
//! | `notes`                     | array of string | Anything else the user should know (e.g. offsets rebased in the sandbox copy). |
//! | `warnings`                  | array of object | Semantic warnings: the restart resumed but its meaning may have changed. Each `{"code": string, "message": string, "evidence": [string]}`; codes `watermark-removed`, `state-schema-names-changed`, `stateful-operators-changed` (crates/rehearse-verdict/src/warning-rules.toml). With `deny_warnings` any warning fails the run (exit 19). |
//! | `copy`                      | object          | What the sandbox copy of the source held, below. |
//! | `job`                       | object          | The job artifact the trial ran: `table` (`[job]` or `[job.per_target."4.*"]`), `kind` (`jar` or `file`), `path` (`{spark}`/`{scala}` filled), `main_class` (string or null), `blake3` (hex of the artifact's bytes, or null). Absent only from reports built without a trial. |
//! | `executors`                 | object (absent) | Only for a restart on a cluster (`--runtime standalone`), from the event log: `count` (integer: executors announced until the verdict), `workers` (array of string: their hosts, the workers' container names, sorted, once each), `removed` (array of string: `executor <id> on <host> removed: <Spark's reason>`). Absent for `local[2]`. |
//! | `exercised`                 | object (absent) | The paths the restarted query has and whether each ran after the restart, from its progress reports (crates/rehearse-verdict/src/exercised.rs): `state_loaded`, `state_updated`, `watermark_advanced`, `state_evicted`, `sink_wrote`, each `null` (the query has no such path) or `{"ran": bool, "evidence": string}` (the batch and progress field behind it, or why it did not run); `not_measured` (array of string, absent when empty): paths progress cannot prove (a sink reporting `numOutputRows` -1). In `rehearse run`, `resumed` needs every present path `ran`; otherwise the verdict is `resume-unproven`. Absent when no complete progress report of the restart was seen. |
//! | `parity`                    | object (absent) | Only with `--control` / `control = true` (src/trial/parity.rs): what this target wrote after the restart compared with the control run (the same copy restarted on the source version with the unchanged job, over the same seeded records), below. Absent when no control ran. |
//! | `fresh`                     | object (absent) | Only with `--fresh` / `fresh = …` for this target (src/report/fresh.rs): the remedy rehearsed — this target's job on a new empty checkpoint with `{starting_offsets}` — below. Never a resume. |
//!
//! `seeding`:
//!
//! | key              | type            | meaning |
//! |------------------|-----------------|---------|
//! | `filler_records` | integer         | Template records produced to fill offsets up to the checkpoint's. |
//! | `fresh_records`  | integer         | Records produced after the checkpointed offsets (new work for the restart). |
//! | `topics`         | array of object | Topics created: `{"name": string, "partitions": integer}`. |
//! | `rebased`        | bool            | Whether offsets were rebased in the sandbox copy (too large to produce). |
//! | `mirrored`       | object (absent) | Only with `[kafka.mirror]`: what came from the production cluster — `from` (its bootstrap servers), `records`, `bytes` (key, value and header bytes), `fresh_records` (of them, at or past the checkpoint's offsets), `gap_fillers` (template records where the production log had none). |
//!
//! Each `output` entry:
//!
//! | key                     | type            | meaning |
//! |-------------------------|-----------------|---------|
//! | `topic`                 | string          | The output topic on the sandbox broker (in a suite, renamed per cell: `<topic>.<target>` with the version's dots as `_`). |
//! | `records_after_restart` | integer         | Records written after the restart: the topic's end offsets once the job stopped minus before it started, summed over partitions. |
//! | `sample`                | array of string | Up to 3 of them, `p<partition>@<offset> key=… value=… headers=[name=value, …]`, each part cut at 80 characters, controls removed, non-UTF-8 bytes as `base64:…`. |
//!
//! `parity`:
//!
//! | key                    | type            | meaning |
//! |------------------------|-----------------|---------|
//! | `status`               | string          | `same` (every row set holds the same rows, as multisets, volatile columns left out), `differs` (a row only on one side; fails the run with exit 21 unless `may_differ`), `not-checked` (see `reason`). |
//! | `control_version`      | string          | The Spark version the control ran on (the source version). |
//! | `rows_only_in_target`  | integer         | Rows only this target wrote (with multiplicity). |
//! | `rows_only_in_control` | integer         | Rows only the control wrote. |
//! | `examples`             | object          | `only_in_target`, `only_in_control`: up to 5 rows each, normalised (JSON keys sorted, volatile columns left out), `<set>: <row>`. |
//! | `compared`             | array of string | What was compared, one line per row set (a file sink directory under `{output}`, an output topic): rows per side and how they were chosen. |
//! | `volatile_columns`     | array of string | The scenario's `volatile_columns`, left out of JSON rows. |
//! | `reason`               | string \| null  | Why `not-checked` (the control did not resume, a run did not read every seeded record, the brokers got other records, a Parquet sink, nothing written), or that `differs` is allowed; `null` otherwise. |
//! | `may_differ`           | bool            | The scenario allows this target to differ (`parity = "may-differ"`). |
//!
//! `fresh`:
//!
//! | key                  | type            | meaning |
//! |----------------------|-----------------|---------|
//! | `ran`                | bool            | The job ran its batch 0 on the empty checkpoint (the watcher's `started-fresh`, rule `new-query-started`, at a progress report of batch 0). `false`: it failed (also after "Starting new streaming query": the evidence names the failure) or ran no batch by the timeout. |
//! | `verdict`, `rule`, `evidence` | string, string, array of string | The watcher's, as for a trial; `started-fresh` when it ran, never `resumed`. |
//! | `start`              | object          | Where its first batch started, from the new checkpoint's files: `status` (`proven`: every Kafka source's `sources/<n>/0` holds the expected offsets of its topics, `commits/0` exists, and with fresh records the last committed batch read some; `elsewhere`: a source started at other offsets; `unproven`: a file that would prove it is missing), `expected` (the `startingOffsets` JSON of the checkpoint's last committed batch, the rebased copy's after a rebase), `found` (string \| null: the initial offsets read), `evidence` (files and lines), `reason` (string \| null). |
//! | `stopped_early`      | string (absent) | Why it stopped before it read every seeded record (the driver exited after batch 0 — a later batch failed — or the timeout): a failed remedy. Absent when it read them all. |
//! | `parity`             | object (absent) | Its output against the control's, as a trial's `parity`; compared only when it ran and its start is proven. A `differs` on a checkpoint with state is expected (`may_differ` true, `reason` says why: the fresh start has none of the state); without state it fails the run (exit 21). |
//! | `passed`             | bool            | `ran`, start `proven`, not `stopped_early`, and its parity does not fail. A fresh run that failed or whose start is not proven fails the run with exit 22 (when every target passed). |
//! | `seconds_to_verdict`, `source_untouched`, `sandbox`, `notes` | | As for a trial; a kept sandbox holds the new checkpoint as `checkpoint/` and the copy it was not given as `checkpoint-copy/`. |
//!
//! `copy`:
//!
//! | key            | type           | meaning |
//! |----------------|----------------|---------|
//! | `files`        | integer        | Files copied into the sandbox. |
//! | `bytes`        | integer        | Bytes copied. |
//! | `source_files` | integer        | Files in the source checkpoint. |
//! | `source_bytes` | integer        | Bytes in the source checkpoint. |
//! | `working_set`  | bool           | `true`: only the files a restart from the last committed batch reads were copied; `false`: everything. |
//! | `why_full`     | string \| null | Why everything was copied (`--full-copy`, or why the working set was uncertain); `null` for a working set. |
//!
//! # Example
//!
//! ```json
//! {
//!   "schema": "rehearse.run/v1",
//!   "scenario": "windowed-counts",
//!   "source_checkpoint": "/data/prod/checkpoints/windowed-counts",
//!   "source_version": "3.5.3",
//!   "passed": true,
//!   "exit_code": 0,
//!   "trials": [
//!     {
//!       "target_version": "4.0.1",
//!       "verdict": "resumed",
//!       "expected_verdict": null,
//!       "passed": true,
//!       "rule": "progress-after-restart",
//!       "evidence": ["QueryProgressEvent batchId=4 startOffset={\"events\":{\"0\":1200}} numInputRows=200"],
//!       "last_committed_batch": 3,
//!       "first_batch_after_restart": 4,
//!       "start_offsets_match": true,
//!       "seconds_to_verdict": 41.27,
//!       "source_untouched": true,
//!       "remedy": "None needed: the query resumed from the checkpoint.",
//!       "starting_offsets": "{\"events\":{\"0\":1200}}",
//!       "seeding": {
//!         "filler_records": 4792,
//!         "fresh_records": 200,
//!         "topics": [{ "name": "events", "partitions": 1 }],
//!         "rebased": false
//!       },
//!       "output": [
//!         { "topic": "counts", "records_after_restart": 4, "sample": ["p0@12 key=user-1 value={\"count\":3}"] }
//!       ],
//!       "sandbox": null,
//!       "notes": [],
//!       "warnings": [],
//!       "copy": {
//!         "files": 38,
//!         "bytes": 1048576,
//!         "source_files": 136,
//!         "source_bytes": 10485760,
//!         "working_set": true,
//!         "why_full": null
//!       }
//!     }
//!   ]
//! }
//! ```

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::model::{RunReport, SeedingSummary, TrialReport, RUN_SCHEMA};
use super::outcome::outcome;
use crate::exit::Outcome;
use crate::verdict::Warning;

/// Writes `report` as the `rehearse.run/v1` document (see the module docs for the format).
pub fn write_json(report: &RunReport, out: &mut impl Write) -> io::Result<()> {
    // Masked as a whole: evidence, notes and warnings quote driver-log lines, whatever built
    // the report.
    crate::text::write_json(out, &RunDocument::new(report))
}

/// Writes one trial as the `trials[]` entry of a `rehearse.run/v1` document (the `trial.json`
/// kept with a trial's logs), masked as [`write_json`] is.
pub fn write_trial_json(trial: &TrialReport, out: &mut impl Write) -> io::Result<()> {
    crate::text::write_json(out, &TrialDocument::new(trial))
}

/// The top-level document. Field order is the key order.
#[derive(Serialize)]
struct RunDocument<'a> {
    /// Always [`RUN_SCHEMA`], whatever the model says: this type defines v1.
    schema: &'static str,
    /// Scenario name.
    scenario: &'a str,
    /// The production checkpoint directory, lossily as UTF-8.
    source_checkpoint: Cow<'a, str>,
    /// Spark version that wrote the checkpoint, if known.
    source_version: Option<&'a str>,
    /// Whether the run passed (its exit code is 0): every trial passed and no warning was denied.
    passed: bool,
    /// What `rehearse run` exits with for this report.
    exit_code: i32,
    /// One per target, in the order run.
    trials: Vec<TrialDocument<'a>>,
    /// The control run, in a trial's layout; left out when none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<TrialDocument<'a>>,
    /// A remote source's origin and end check.
    remote_source: Option<&'a crate::report::RemoteSourceReport>,
}

/// One trial. Field order is the key order.
#[derive(Serialize)]
struct TrialDocument<'a> {
    /// Target Spark version.
    target_version: &'a str,
    /// Verdict name (`state-store-error`).
    verdict: &'static str,
    /// Expected verdict name, if the scenario gives one.
    expected_verdict: Option<&'static str>,
    /// [`TrialReport::passed`].
    passed: bool,
    /// Rule id.
    rule: &'a str,
    /// Evidence lines, verbatim.
    evidence: &'a [String],
    /// Last committed batch before the restart.
    last_committed_batch: Option<u64>,
    /// First batch completed after the restart.
    first_batch_after_restart: Option<u64>,
    /// Whether its start offsets equal the committed end offsets.
    start_offsets_match: Option<bool>,
    /// Seconds to verdict, rounded to milliseconds.
    seconds_to_verdict: f64,
    /// Whether the source checkpoint hashed the same before and after.
    source_untouched: bool,
    /// What to do.
    remedy: &'a str,
    /// `startingOffsets` JSON, as a string.
    starting_offsets: Option<&'a str>,
    /// How Kafka was seeded.
    seeding: SeedingDocument<'a>,
    /// What the job wrote to each output topic.
    output: Vec<OutputDocument<'a>>,
    /// Kept sandbox, lossily as UTF-8.
    sandbox: Option<Cow<'a, str>>,
    /// Where the trial's driver log, event log and `trial.json` are kept; left out when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    logs: Option<Cow<'a, str>>,
    /// Notes.
    notes: &'a [String],
    /// Semantic warnings.
    warnings: &'a [Warning],
    /// What the sandbox copy held.
    copy: CopyDocument<'a>,
    /// The job artifact the trial ran; left out of reports built without a trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    job: Option<&'a crate::report::JobArtifact>,
    /// The job's dependencies (left out when it names none, so older documents read the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    dependencies: Option<&'a crate::deps::DependencyReport>,
    /// The executors of a restart on a cluster; left out for `local[2]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    executors: Option<&'a crate::report::ExecutorsReport>,
    /// The paths of the restarted query and whether each ran; left out when no complete
    /// progress report of the restart was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    exercised: Option<&'a crate::verdict::Exercised>,
    /// Output parity against the control run; left out when no control ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    parity: Option<ParityDocument<'a>>,
    /// The remedy rehearsed on a new empty checkpoint; left out when not asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    fresh: Option<FreshDocument<'a>>,
}

/// A target's fresh run (the remedy). Field order is the key order.
#[derive(Serialize)]
struct FreshDocument<'a> {
    ran: bool,
    verdict: &'static str,
    rule: &'a str,
    evidence: &'a [String],
    start: &'a crate::report::StartProof,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_early: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parity: Option<ParityDocument<'a>>,
    passed: bool,
    seconds_to_verdict: f64,
    source_untouched: bool,
    sandbox: Option<Cow<'a, str>>,
    notes: &'a [String],
}

/// A trial's output parity against the control. Field order is the key order.
#[derive(Serialize)]
struct ParityDocument<'a> {
    status: crate::report::ParityStatus,
    control_version: &'a str,
    rows_only_in_target: u64,
    rows_only_in_control: u64,
    examples: ParityExamples<'a>,
    compared: &'a [String],
    volatile_columns: &'a [String],
    reason: Option<&'a str>,
    may_differ: bool,
}

/// Up to five rows only one side wrote, per side.
#[derive(Serialize)]
struct ParityExamples<'a> {
    only_in_target: &'a [String],
    only_in_control: &'a [String],
}

impl<'a> ParityDocument<'a> {
    fn new(p: &'a crate::report::Parity) -> Self {
        ParityDocument {
            status: p.status,
            control_version: &p.control_version,
            rows_only_in_target: p.rows_only_in_target,
            rows_only_in_control: p.rows_only_in_control,
            examples: ParityExamples {
                only_in_target: &p.examples_only_in_target,
                only_in_control: &p.examples_only_in_control,
            },
            compared: &p.compared,
            volatile_columns: &p.volatile_columns,
            reason: p.reason.as_deref(),
            may_differ: p.may_differ,
        }
    }
}

/// What the sandbox copy held. Field order is the key order.
#[derive(Serialize)]
struct CopyDocument<'a> {
    files: u64,
    bytes: u64,
    source_files: u64,
    source_bytes: u64,
    working_set: bool,
    why_full: Option<&'a str>,
}

/// How Kafka was seeded. Field order is the key order.
#[derive(Serialize)]
struct SeedingDocument<'a> {
    /// Filler (template) records produced.
    filler_records: u64,
    /// Fresh records produced after the checkpointed offsets.
    fresh_records: u64,
    /// Topics created.
    topics: Vec<TopicDocument<'a>>,
    /// Whether offsets were rebased in the sandbox copy.
    rebased: bool,
    /// What came from a production cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    mirrored: Option<&'a crate::kafka::MirrorSummary>,
}

/// A topic created in the sandbox Kafka. An object rather than the model's `(name, partitions)`
/// tuple, which would serialize as an unlabelled two-element array.
#[derive(Serialize)]
struct TopicDocument<'a> {
    /// Topic name.
    name: &'a str,
    /// Partition count, as the checkpoint names it.
    partitions: u32,
}

/// What the restarted job wrote to one output topic. Field order is the key order.
#[derive(Serialize)]
struct OutputDocument<'a> {
    /// Topic name on the sandbox broker.
    topic: &'a str,
    /// Records written after the restart.
    records_after_restart: u64,
    /// A few of them, shown safely.
    sample: &'a [String],
}

impl<'a> RunDocument<'a> {
    fn new(report: &'a RunReport) -> Self {
        RunDocument {
            schema: RUN_SCHEMA,
            scenario: &report.scenario,
            source_checkpoint: lossy(&report.source_checkpoint),
            source_version: report.source_version.as_deref(),
            passed: matches!(outcome(report), Outcome::Success),
            exit_code: outcome(report).code(),
            trials: report.trials.iter().map(TrialDocument::new).collect(),
            control: report.control.as_deref().map(TrialDocument::new),
            remote_source: report.remote_source.as_ref(),
        }
    }
}

impl<'a> TrialDocument<'a> {
    fn new(trial: &'a TrialReport) -> Self {
        TrialDocument {
            target_version: &trial.target_version,
            verdict: trial.verdict.name(),
            expected_verdict: trial.expected_verdict.map(|v| v.name()),
            passed: trial.passed()
                && !trial.parity_failed()
                && !trial.fresh_failed()
                && !trial.fresh_parity_failed(),
            rule: &trial.rule,
            evidence: &trial.evidence,
            last_committed_batch: trial.last_committed_batch.map(|b| b.0),
            first_batch_after_restart: trial.first_batch_after_restart.map(|b| b.0),
            start_offsets_match: trial.start_offsets_match,
            // Millisecond precision: more digits are noise from the clock, not information.
            seconds_to_verdict: (trial.seconds_to_verdict * 1000.0).round() / 1000.0,
            source_untouched: trial.source_untouched,
            remedy: &trial.remedy,
            starting_offsets: trial.starting_offsets.as_deref(),
            seeding: SeedingDocument::new(&trial.seeding),
            output: trial
                .output
                .iter()
                .map(|o| OutputDocument {
                    topic: &o.topic,
                    records_after_restart: o.records_after_restart,
                    sample: &o.sample,
                })
                .collect(),
            sandbox: trial.sandbox.as_deref().map(lossy),
            logs: trial.logs.as_deref().map(lossy),
            notes: &trial.notes,
            warnings: &trial.warnings,
            dependencies: trial.dependencies.as_ref(),
            copy: CopyDocument {
                files: trial.copy.files,
                bytes: trial.copy.bytes,
                source_files: trial.copy.source_files,
                source_bytes: trial.copy.source_bytes,
                working_set: trial.copy.working_set,
                why_full: trial.copy.why_full.as_deref(),
            },
            job: trial.job.as_ref(),
            executors: trial.executors.as_ref(),
            exercised: trial.exercised.as_ref(),
            parity: trial.parity.as_ref().map(ParityDocument::new),
            fresh: trial.fresh.as_deref().map(|f| FreshDocument {
                ran: f.ran,
                verdict: f.verdict.name(),
                rule: &f.rule,
                evidence: &f.evidence,
                start: &f.start,
                stopped_early: f.stopped_early.as_deref(),
                parity: f.parity.as_ref().map(ParityDocument::new),
                passed: !f.failed() && !f.parity_failed(),
                seconds_to_verdict: (f.seconds_to_verdict * 1000.0).round() / 1000.0,
                source_untouched: f.source_untouched,
                sandbox: f.sandbox.as_deref().map(lossy),
                notes: &f.notes,
            }),
        }
    }
}

impl<'a> SeedingDocument<'a> {
    fn new(seeding: &'a SeedingSummary) -> Self {
        SeedingDocument {
            filler_records: seeding.filler_records,
            fresh_records: seeding.fresh_records,
            topics: seeding
                .topics
                .iter()
                .map(|(name, partitions)| TopicDocument {
                    name,
                    partitions: *partitions,
                })
                .collect(),
            rebased: seeding.rebased,
            mirrored: seeding.mirrored.as_ref(),
        }
    }
}

/// A path as a JSON string. serde refuses non-UTF-8 paths outright; a report with a slightly
/// mangled path beats no report.
fn lossy(path: &Path) -> Cow<'_, str> {
    path.to_string_lossy()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_helpers;

    fn render(report: &RunReport) -> String {
        test_helpers::render(crate::report::Format::Json, report)
    }

    test_helpers::writer_snapshot_tests!();

    /// New-user pass: `--deny-warnings` exited 19 while the document said `"passed": true`, so a
    /// CI step reading `passed` saw a green run.
    #[test]
    fn a_denied_warning_is_not_passed() {
        let mut report = test_helpers::resumed();
        report.deny_warnings = true;
        report.trials[0].warnings.push(Warning {
            code: "watermark-removed".into(),
            message: "the watermark was removed".into(),
            evidence: vec![],
        });
        let doc: serde_json::Value = serde_json::from_str(&render(&report)).expect("json");
        assert_eq!(doc["exit_code"], 19);
        assert_eq!(doc["passed"], false);
        assert_eq!(
            doc["trials"][0]["passed"], true,
            "the trial itself resumed as expected"
        );
        report.deny_warnings = false;
        let doc: serde_json::Value = serde_json::from_str(&render(&report)).expect("json");
        assert_eq!(
            (doc["exit_code"].as_i64(), doc["passed"].as_bool()),
            (Some(0), Some(true))
        );
    }

    #[test]
    fn every_trial_key_is_present_even_when_null() {
        let rendered = render(&test_helpers::empty_evidence());
        let value: serde_json::Value = serde_json::from_str(&rendered).expect("valid JSON");
        let trial = &value["trials"][0];
        for key in [
            "target_version",
            "verdict",
            "expected_verdict",
            "rule",
            "evidence",
            "last_committed_batch",
            "first_batch_after_restart",
            "start_offsets_match",
            "seconds_to_verdict",
            "source_untouched",
            "starting_offsets",
            "output",
            "sandbox",
            "copy",
        ] {
            assert!(trial.get(key).is_some(), "missing key {key}");
        }
        assert_eq!(trial["evidence"], serde_json::json!([]));
        assert_eq!(trial["last_committed_batch"], serde_json::Value::Null);
    }

    #[test]
    fn non_finite_seconds_serialize_as_null() {
        let mut report = test_helpers::resumed();
        report.trials[0].seconds_to_verdict = f64::NAN;
        let value: serde_json::Value = serde_json::from_str(&render(&report)).expect("valid JSON");
        assert_eq!(
            value["trials"][0]["seconds_to_verdict"],
            serde_json::Value::Null
        );
    }
}
