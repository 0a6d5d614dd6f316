//! The runtime of one trial: a Kafka broker and a Spark driver, in containers (testcontainers;
//! `containers.rs`, the only file that names testcontainers) or as host processes (the `local`
//! runtime, `local.rs`), behind one interface (`handles.rs`: [`KafkaBroker`], [`SparkDriver`])
//! chosen by [`RuntimeKind`]. What both runtimes share (ids, errors, driver-output lines) is in
//! `common.rs`.
//!
//! Every container carries the labels [`LABEL_MANAGED`] and [`LABEL_TRIAL`], and every local
//! process group a pid file under [`local::run_dir`], so `rehearse gc` can sweep what an
//! interrupted trial left; both are removed explicitly at the end of a trial, and on drop as a
//! safety net.

mod common;
mod containers;
mod handles;
pub mod local;

pub use common::{
    free_port, left_sandboxes, mark_sandbox, process_start, still_runs, GcScope, LogLine,
    RuntimeError, RuntimeKind, Stream, TrialIds, SANDBOX_OWNER,
};
pub use containers::{LABEL_MANAGED, LABEL_PID, LABEL_TRIAL};
pub use handles::{gc, prepare_local, start_kafka, start_spark, KafkaBroker, SparkDriver};
