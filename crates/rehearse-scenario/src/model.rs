//! A validated scenario: what [`Scenario::load`](Scenario::load) returns once every key of the
//! file is checked and every path resolved, and the defaults it fills in.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::dependencies::Dependencies;
use super::records::RecordsFile;

use rehearse_store::CheckpointLocation;
use rehearse_verdict::Verdict;

/// Default seconds a trial may take from `spark-submit` to a verdict.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 300;
/// Default fresh records produced per partition after the checkpointed offsets.
pub const DEFAULT_FRESH_RECORDS: u64 = 10;
/// Above this many filler records in one partition, offsets are rebased in the sandbox copy
/// instead of produced (defined beside the records-file bound it also is).
pub use super::records::DEFAULT_REBASE_THRESHOLD;
pub use rehearse_base::versions::DEFAULT_KAFKA_VERSION;

/// Where the source checkpoint comes from, validated.
///
/// `[checkpoint] path` is a local directory (a plain path, resolved against the scenario file's
/// directory, or `file:///abs`) or a remote URL (`s3://`, `gs://`, `az://`, `wasbs://`,
/// `abfss://`, `hdfs://`, `webhdfs://`, as [`CheckpointLocation::parse`] reads them). Either is
/// only ever listed and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointSource {
    /// An existing local directory.
    Path(PathBuf),
    /// A checkpoint in an object store or HDFS, never a [`CheckpointLocation::Local`]: the run
    /// stages it into a local directory once, and checks at the end that it did not change.
    Remote(CheckpointLocation),
    /// Generate with real Spark.
    Generate {
        /// Source Spark version, a known release (parsed once, at load; shown as written).
        spark: rehearse_base::versions::SparkVersion,
        /// Data batches to commit.
        batches: u32,
        /// Records per partition per batch.
        records_per_batch: u64,
        /// Extra args while generating.
        extra_args: Vec<String>,
    },
}

/// The job, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// A PySpark file.
    Python {
        /// Absolute path of the file.
        file: PathBuf,
    },
    /// A jar with its main class.
    Jar {
        /// Absolute path of the jar.
        jar: PathBuf,
        /// Main class.
        main_class: String,
    },
}

/// A topic, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// Name.
    pub name: String,
    /// Partitions for generation (default 2).
    pub partitions: u32,
    /// Record values.
    pub records: RecordSource,
    /// Fresh records per partition.
    pub fresh_records: u64,
    /// Whether to fill partitions up to the checkpoint's offsets.
    pub fill_to_checkpoint: bool,
    /// `{timestamp_ms}` steps by this between records (ms; default [`DEFAULT_TIME_STEP_MS`]),
    /// counted from the checkpoint's watermark at its offsets (`kafka::TopicRecords`): fresh
    /// records move event time past it.
    pub time_step_ms: u64,
    /// Whether template and sample records carry their `{timestamp_ms}` as their Kafka
    /// timestamp (CreateTime); otherwise the producer's clock. `records_file` lines carry their
    /// own `timestamp_ms`.
    pub kafka_timestamp: bool,
}

/// The name output topic `name` takes for one trial on `target` on a suite's shared broker,
/// where the cells of a group run at once: `<name>.<target>`, the version's dots as `_`.
pub fn trial_output_topic(name: &str, target: &str) -> String {
    format!("{name}.{}", target.replace('.', "_"))
}

/// Versions as messages list them: each as written, `, ` between (`3.5.3, 4.0.1`).
pub fn version_list(versions: &[rehearse_base::versions::SparkVersion]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Default `time_step_ms`: one second of event time per record.
pub const DEFAULT_TIME_STEP_MS: u64 = 1000;

/// An output topic (`[[output_topics]]`), validated: created empty before the generation and
/// before each trial, never seeded, never waited on; the records the restarted job writes
/// there are counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputTopic {
    /// Name (`{topic.NAME}` in job arguments): on a suite's shared broker renamed per group
    /// and per trial (`<suite>.<shape>.<provider>.<source>.<name>.<target>`, the control's
    /// `….<name>.control.<source>`).
    pub name: String,
    /// The name the scenario file declares, never renamed: a control's and a target's rows of
    /// one output topic are matched by it (`trial::parity::compare` matches row sets by name).
    pub declared: String,
    /// Partitions to create (default 1).
    pub partitions: u32,
    /// Topic configs passed at creation (`cleanup.policy`, `retention.ms`…), values as text.
    pub config: BTreeMap<String, String>,
}

/// Where record values come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordSource {
    /// A template with `{n}` and `{partition}`.
    Template(String),
    /// Sample values, used round-robin.
    Samples(Vec<String>),
    /// Records of a `records_file` (keys, headers, timestamps, binary values), laid out per
    /// partition by `kafka` once the partition count is known.
    File(Arc<RecordsFile>),
}

impl RecordSource {
    /// The value of record `n` in `partition` (`{timestamp_ms}` of a template filled with
    /// `n`, a base of 0 and a step of [`DEFAULT_TIME_STEP_MS`]); a records file's `n`-th record
    /// of the whole file, as text. Seeding uses `kafka::TopicRecords`, which knows the time base
    /// and the partitions.
    pub fn value(&self, partition: u32, n: u64) -> String {
        self.value_at(partition, n, n.saturating_mul(DEFAULT_TIME_STEP_MS) as i64)
    }

    /// The value of record `n` in `partition` with `{timestamp_ms}` = `timestamp_ms`
    /// (templates only: sample lines and records files are used as they are).
    pub fn value_at(&self, partition: u32, n: u64, timestamp_ms: i64) -> String {
        match self {
            RecordSource::Template(t) => {
                let filled = t
                    .replace("{n}", &n.to_string())
                    .replace("{partition}", &partition.to_string())
                    .replace("{timestamp_ms}", &timestamp_ms.to_string());
                let filled = if filled.contains("{timestamp") {
                    super::event_time::fill(&filled, timestamp_ms)
                } else {
                    filled
                };
                if filled.contains("{random:") {
                    super::placeholders::fill_random(&filled, partition, n)
                } else {
                    filled
                }
            }
            RecordSource::Samples(s) => s[(n as usize) % s.len()].clone(),
            RecordSource::File(f) => {
                let r = &f.records[(n as usize) % f.records.len()];
                String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned()
            }
        }
    }
}

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Name for reports.
    pub name: String,
    /// The scenario file.
    pub file: PathBuf,
    /// Source checkpoint.
    pub checkpoint: CheckpointSource,
    /// The job.
    pub job: Job,
    /// Job arguments (placeholders unfilled).
    pub args: Vec<String>,
    /// Restart-only arguments.
    pub restart_args: Vec<String>,
    /// Spark conf.
    pub conf: BTreeMap<String, String>,
    /// `[job.per_target."V"]` entries, in key order ([`Scenario::job_for`] picks one).
    pub per_target: Vec<super::JobOverride>,
    /// Whether the generation runs the job of its version, `per_target` entries included (a
    /// suite's sources, each writing its own checkpoint), rather than the base `[job]` (a
    /// scenario: the base job wrote the checkpoint). Set by `suite::Suite::group_scenario`.
    pub per_target_generates: bool,
    /// The job's dependencies (`packages`, `jars`, `py_files`, `requirements`).
    pub dependencies: Dependencies,
    /// Topics.
    pub topics: Vec<Topic>,
    /// Output topics the job writes (created empty, never seeded).
    pub output_topics: Vec<OutputTopic>,
    /// Target versions, known releases in file order (parsed once, at load; shown as written).
    pub targets: Vec<rehearse_base::versions::SparkVersion>,
    /// Trial timeout in seconds.
    pub timeout_seconds: u64,
    /// Expected verdicts per target.
    pub expect: BTreeMap<String, Verdict>,
    /// Kafka broker version.
    pub kafka_version: String,
    /// Filler records per partition above which offsets are rebased.
    pub rebase_threshold: u64,
    /// `deny_warnings = true`: a target that resumed with a semantic warning fails the run, as
    /// with `rehearse run --deny-warnings`.
    pub deny_warnings: bool,
    /// The control run and output parity (`control`, `control_version`, `volatile_columns`,
    /// `parity`; `rehearse run --control`).
    pub parity: super::parity::ParitySettings,
    /// `[cluster]`: the standalone cluster the scenario asks to rehearse on (`None`: the
    /// runtime `--runtime` picks, `local[2]` in a container by default).
    pub cluster: Option<ClusterShape>,
    /// `[kafka.mirror]`: the production cluster the checkpoint's topics are copied from
    /// (read-only) instead of seeded from templates.
    pub mirror: Option<super::MirrorConfig>,
}

/// A Spark standalone cluster's shape, checked: `workers` workers offering `cores` cores and
/// `memory_mb` MiB each (the runtime's `Cluster`; this layer cannot name it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterShape {
    /// Worker containers, 1..=[`MAX_WORKERS`].
    pub workers: u16,
    /// Cores per worker, 1..=64.
    pub cores: u16,
    /// Memory per worker, MiB, at least [`MIN_WORKER_MEMORY_MB`].
    pub memory_mb: u32,
}

/// Most workers a rehearsal starts (each is a JVM plus its executor's on this machine).
pub const MAX_WORKERS: u16 = 16;

/// Least memory per worker, MiB: Spark refuses an executor below 450 MiB of heap
/// (`UnifiedMemoryManager.MIN_SYSTEM_MEMORY_BYTES` × 1.5).
pub const MIN_WORKER_MEMORY_MB: u32 = 512;

impl Default for ClusterShape {
    /// One worker with 2 cores and 1 GiB: the parallelism of `local[2]`, the fewest JVMs.
    fn default() -> Self {
        ClusterShape {
            workers: 1,
            cores: 2,
            memory_mb: 1024,
        }
    }
}

/// Why a scenario file was rejected. Messages name the file and the key.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read: missing, not a regular file, too big, not UTF-8 (the
    /// message names the file and the fix).
    #[error(transparent)]
    Read(#[from] rehearse_base::userfile::UserFileError),
    /// The TOML is malformed or has unknown/mistyped keys.
    #[error(
        "scenario {path} is not valid: {message}\n(hint: see scenarios/README.md for the format)"
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message, which names the key and line.
        message: String,
    },
    /// A value is wrong.
    #[error("scenario {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}

/// A scenario that cannot be read or is wrong is the user's to fix (exit 3).
impl rehearse_base::HasErrorKind for ScenarioError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        rehearse_base::ErrorKind::BadInput
    }
}

impl Scenario {
    /// The names `{topic.NAME}` may take: the input topics, then the output topics.
    pub fn topic_names(&self) -> Vec<&str> {
        self.topics
            .iter()
            .map(|t| t.name.as_str())
            .chain(self.output_topics.iter().map(|t| t.name.as_str()))
            .collect()
    }

    /// The topic spec named `name`, if the scenario has one.
    pub fn topic(&self, name: &str) -> Option<&Topic> {
        self.topics.iter().find(|t| t.name == name)
    }
}
