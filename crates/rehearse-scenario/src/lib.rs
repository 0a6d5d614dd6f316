//! Scenario files and suite files (TOML): what a rehearsal runs, read and validated before any
//! container starts. The formats are documented for users in `scenarios/README.md` and
//! `scenarios/suites/README.md`.
//!
//! One scenario: `file.rs` mirrors the TOML, `parse/` validates it table by table (`job_table.rs` the `[job]` table, `topics.rs` the topics) into the
//! types of `model.rs`, `placeholders.rs` fills the job's `{…}` arguments, `job.rs` picks the job a target runs
//! (`[job.per_target]`) and checks its artifact, `records.rs` reads a topic's
//! `records_file`, `job_dir.rs` what of a PySpark job's directory travels with it. [`suite`] reads a
//! suite (query shapes × state store providers × source versions × target versions) and cuts it
//! into cells, groups and shards. [`init`] writes a starting scenario from a checkpoint's
//! inspection (`rehearse init`). This module only declares and re-exports.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod dependencies;
pub mod event_time;
mod file;
pub mod init;
mod job;
pub mod job_dir;
mod mirror;
mod model;
mod overrides;
mod parity;
mod parse;
mod placeholders;
mod records;
pub mod suite;

pub use dependencies::{
    requirement_lines, requirements_pin_hashes, Coordinate, Dependencies,
    SPARK_DISTRIBUTION_MODULES,
};
pub use file::{
    CheckpointSpec, ClusterSpec, GenerateSpec, JobOverrideSpec, JobSpec, KafkaSpec, MirrorSpec,
    OutputTopicSpec, ScenarioFile, TopicSpec,
};
pub use job::{JobOverride, ResolvedJob, TargetPattern};
pub use job_dir::{master_overrides, JobDir, MasterOverride, NotShipped};
pub use mirror::{
    mirror_config, MirrorConfig, DEFAULT_MIRROR_FRESH, DEFAULT_MIRROR_HISTORY, MAX_MIRROR_RECORDS,
};
pub use model::{
    trial_output_topic, version_list, CheckpointSource, ClusterShape, Job, OutputTopic,
    RecordSource, Scenario, ScenarioError, Topic, DEFAULT_FRESH_RECORDS, DEFAULT_KAFKA_VERSION,
    DEFAULT_REBASE_THRESHOLD, DEFAULT_TIMEOUT_SECONDS, DEFAULT_TIME_STEP_MS,
};
pub use overrides::{OverrideError, Overrides};
pub use parity::{control_version, parity_settings, ParitySettings};
pub use parse::{
    check_conf, check_name, check_release, check_timeout, check_topic_name, check_version,
    cluster_shape, MAX_NAME_CHARS, MAX_TIMEOUT_SECONDS,
};
pub use placeholders::{
    check_versions, fill, fill_topics, fill_versions, Placeholders, VERSION_NAMES,
};
pub use records::{FileRecord, RecordsFile, MAX_FILLER_RECORDS, MAX_RECORDS_FILE_BYTES};
