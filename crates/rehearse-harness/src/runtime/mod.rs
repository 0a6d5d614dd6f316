//! The runtime of one trial: a Kafka broker and a Spark driver, in containers (testcontainers;
//! `containers.rs`, which starts them from the image values of `images::SparkImage` and
//! `images::KafkaImage`) or as host processes (the `local`
//! runtime, `local.rs`), or a Spark standalone cluster in containers (`cluster.rs`, the
//! driver in client mode), behind one interface (`handles.rs`: [`KafkaBroker`], [`SparkDriver`])
//! chosen by [`RuntimeKind`]. What both runtimes share (ids, errors, driver-output lines) is in
//! `common.rs`; how many trials the machine runs at once, in `capacity.rs` ([`default_jobs`]).
//!
//! Every container carries the labels [`LABEL_MANAGED`] and [`LABEL_TRIAL`], and every local
//! process group a pid file under the run directory (`common.rs` `run_dir`), so `rehearse gc` can sweep what an
//! interrupted trial left; both are removed explicitly at the end of a trial, and on drop as a
//! safety net.

mod capacity;
mod cluster;
mod common;
mod containers;
mod handles;
pub mod local;

pub use capacity::{default_jobs, RESERVED_MEMORY_MB};
pub use cluster::{master_name, worker_name, LABEL_ROLE};
pub use common::{
    default_advertised_host, free_port, left_sandboxes, mark_sandbox, process_start,
    registered_sandboxes, still_runs, Cluster, ExternalCluster, GcScope, LogLine, PartState,
    RuntimeError, RuntimeKind, SharedCluster, Stream, TrialIds, SANDBOX_OWNER,
};
pub use containers::{LABEL_MANAGED, LABEL_PID, LABEL_TRIAL};
pub use handles::{
    gc, prepare_local, spark_master, start_kafka, start_spark, start_suite_cluster, KafkaBroker,
    SparkDriver, SuiteCluster,
};
