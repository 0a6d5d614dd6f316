//! The scenario file as written: [`ScenarioFile`] and its tables mirror the TOML exactly
//! (`deny_unknown_fields`, no untagged or flattened types, so toml's errors name the key and
//! line). Nothing here validates; `parse/` turns a [`ScenarioFile`] into a
//! [`Scenario`](super::Scenario). The format is documented for users in `scenarios/README.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

/// The TOML document, field for field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Scenario name for reports (default: the file stem).
    pub name: Option<String>,
    /// Where the source checkpoint comes from.
    pub checkpoint: CheckpointSpec,
    /// The streaming job to restart.
    pub job: JobSpec,
    /// Kafka topics the job reads.
    #[serde(default)]
    pub topics: Vec<TopicSpec>,
    /// Kafka topics the job writes: created empty, never seeded, counted after the restart.
    #[serde(default)]
    pub output_topics: Vec<OutputTopicSpec>,
    /// Target Spark versions.
    pub targets: Vec<String>,
    /// Seconds per trial from submit to verdict.
    pub timeout_seconds: Option<u64>,
    /// Expected verdict per target version (regression suites): `"4.0.1" = "resumed"`.
    #[serde(default)]
    pub expect: BTreeMap<String, String>,
    /// Kafka broker version of the sandbox (default: [`DEFAULT_KAFKA_VERSION`](super::DEFAULT_KAFKA_VERSION)).
    pub kafka_version: Option<String>,
    /// Above this many filler records in one partition, rebase offsets in the sandbox copy
    /// instead of producing them (default [`DEFAULT_REBASE_THRESHOLD`](super::DEFAULT_REBASE_THRESHOLD)).
    pub rebase_threshold: Option<u64>,
    /// Semantic warnings fail the run (`rehearse run --deny-warnings`); default false.
    #[serde(default)]
    pub deny_warnings: bool,
    /// `[cluster]`: rehearse on a Spark standalone cluster of this shape (as
    /// `--runtime standalone`), unless `--runtime` says otherwise.
    pub cluster: Option<ClusterSpec>,
    /// Run a control beside the targets (`rehearse run --control`): the same copy restarted on
    /// the source version with the unchanged job, outputs compared (`scenario/parity.rs`).
    #[serde(default)]
    pub control: bool,
    /// The Spark version the control runs on (default: the generating version, or the
    /// checkpoint's writer when it is one release).
    pub control_version: Option<String>,
    /// Top-level JSON keys left out of the parity comparison (`["processed_at"]`).
    #[serde(default)]
    pub volatile_columns: Vec<String>,
    /// `"must-match"` (default) or `"may-differ"`: whether a differing output fails the run.
    pub parity: Option<String>,
    /// `fresh = true` (every target) or `fresh = ["4.0.1"]` (those targets): also rehearse the
    /// remedy — the target's job on a new empty checkpoint with `{starting_offsets}`
    /// (`scenario/parity.rs`, `trial/fresh.rs`). Turns the control on.
    pub fresh: Option<FreshSpec>,
    /// `[kafka]`: where the sandbox's records come from besides `[[topics]]`.
    pub kafka: Option<KafkaSpec>,
}

/// `[kafka]` of a scenario or a suite.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KafkaSpec {
    /// `[kafka.mirror]`: copy the records around the checkpoint's offsets from a real cluster.
    pub mirror: Option<MirrorSpec>,
}

/// `[kafka.mirror]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorSpec {
    /// The production cluster's bootstrap servers.
    pub bootstrap_servers: String,
    /// A client properties file (security.protocol, SASL, SSL), relative to the scenario.
    pub properties: Option<PathBuf>,
    /// Records per partition copied below the checkpointed offset.
    pub history: Option<u64>,
    /// Records per partition copied from the checkpointed offset on.
    pub fresh: Option<u64>,
}

/// `[cluster]` of a scenario or a suite: a Spark standalone cluster's shape. Every key is
/// optional (defaults: 1 worker, 2 cores, 1024 MiB).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Worker containers.
    pub workers: Option<u16>,
    /// Cores each worker offers.
    pub cores: Option<u16>,
    /// Memory each worker offers to its executor, MiB.
    pub memory_mb: Option<u32>,
}

/// `[checkpoint]`: exactly one of `path` or `generate`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSpec {
    /// An existing checkpoint directory (relative to the scenario file). Never written to.
    pub path: Option<PathBuf>,
    /// Write the source checkpoint with real Spark first.
    pub generate: Option<GenerateSpec>,
}

/// `[checkpoint.generate]`: run the job on `spark` until `batches` data batches committed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateSpec {
    /// Spark version that writes the checkpoint (the source version).
    pub spark: String,
    /// Number of micro-batches with data to commit.
    pub batches: u32,
    /// Records produced per partition for each batch (default 5).
    pub records_per_batch: Option<u64>,
    /// Extra job arguments used only while generating (appended to `job.args`).
    #[serde(default)]
    pub extra_args: Vec<String>,
}

/// `[job]`: a PySpark file, or a jar and main class.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// A PySpark file (relative to the scenario file).
    pub file: Option<PathBuf>,
    /// A jar (relative to the scenario file); needs `main_class`.
    pub jar: Option<PathBuf>,
    /// Main class of the jar.
    pub main_class: Option<String>,
    /// Arguments; `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` are filled
    /// by the harness.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra arguments used only on the restart (e.g. a changed query); appended to `args`.
    #[serde(default)]
    pub restart_args: Vec<String>,
    /// Spark conf passed as `--conf key=value`.
    #[serde(default)]
    pub conf: BTreeMap<String, String>,
    /// Maven coordinates (`group:artifact:version`, `{spark}`/`{scala}` filled per version),
    /// resolved on the host and passed with `--jars`.
    #[serde(default)]
    pub packages: Vec<String>,
    /// Local jars (relative to the scenario file) passed with `--jars`.
    #[serde(default)]
    pub jars: Vec<PathBuf>,
    /// Local `.py`, `.zip` or `.egg` files (relative to the scenario file) passed with
    /// `--py-files`.
    #[serde(default)]
    pub py_files: Vec<PathBuf>,
    /// A pip requirements file (relative to the scenario file) installed as wheels for the
    /// image's Python (PySpark jobs).
    pub requirements: Option<PathBuf>,
    /// `[job.per_target."4.0.1"]`, `[job.per_target."4.*"]`: what a target runs instead of the
    /// base job (see `scenario/job.rs` for which entry applies).
    #[serde(default)]
    pub per_target: BTreeMap<String, JobOverrideSpec>,
}

/// `[job.per_target."KEY"]`: the keys of `[job]` a target (or a version pattern) overrides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobOverrideSpec {
    /// A PySpark file (relative to the scenario file; `{spark}`, `{scala}` filled).
    pub file: Option<PathBuf>,
    /// A jar (relative to the scenario file; `{spark}`, `{scala}` filled).
    pub jar: Option<PathBuf>,
    /// Main class of the jar.
    pub main_class: Option<String>,
    /// Arguments replacing `[job] args`.
    pub args: Option<Vec<String>>,
    /// Restart-only arguments replacing `[job] restart_args`.
    pub restart_args: Option<Vec<String>>,
}

/// `[[topics]]`: one Kafka topic.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    /// Topic name, as in the checkpoint's offset log.
    pub name: String,
    /// Partitions when the checkpoint names none for this topic (generation); otherwise the
    /// checkpoint's count wins.
    pub partitions: Option<u32>,
    /// Record value template: `{n}` record number in its partition, `{partition}`.
    pub template: Option<String>,
    /// A file of sample record values, one per line, used round-robin instead of `template`.
    pub sample_file: Option<PathBuf>,
    /// A JSON Lines file of whole records (`key`/`key_base64`, `value`/`value_base64`,
    /// `headers`, `timestamp_ms`, `partition`) instead of `template` or `sample_file`.
    pub records_file: Option<PathBuf>,
    /// Milliseconds of event time between records `n` and `n + 1` in `{timestamp_ms}`
    /// (default 1000).
    pub time_step_ms: Option<u64>,
    /// Produce template and sample records with `{timestamp_ms}` as their Kafka timestamp
    /// (default false: the producer's clock).
    pub kafka_timestamp: Option<bool>,
    /// Fresh records per partition after the checkpointed offsets (new work for the restart).
    pub fresh_records: Option<u64>,
    /// Fill each partition up to the checkpoint's offsets (default true). `false` leaves Kafka
    /// short of them, as when retention deleted data the checkpoint points at.
    pub fill_to_checkpoint: Option<bool>,
}

/// `[[output_topics]]`: a Kafka topic the job writes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputTopicSpec {
    /// Topic name (`{topic.NAME}` in job arguments).
    pub name: String,
    /// Partitions to create (default 1).
    pub partitions: Option<u32>,
    /// Topic configs at creation, e.g. `config = { "cleanup.policy" = "compact" }`; values are
    /// strings, integers or booleans.
    #[serde(default)]
    pub config: BTreeMap<String, toml::Value>,
}

/// `fresh = true | false | ["4.0.1", …]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum FreshSpec {
    /// Every target (`true`) or none.
    All(bool),
    /// These targets.
    Targets(Vec<String>),
}
