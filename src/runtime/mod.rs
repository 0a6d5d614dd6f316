//! The runtime of one trial: a Kafka broker and a Spark driver, in containers (testcontainers;
//! `containers.rs`, the only file that names testcontainers) or as host processes (the `local`
//! runtime, `local.rs`), behind one interface (`handles.rs`) chosen by [`RuntimeKind`].
//!
//! Every container carries the labels [`LABEL_MANAGED`] and [`LABEL_TRIAL`], and every local
//! process group a pid file under [`local::run_dir`], so `rehearse gc` can sweep what an
//! interrupted trial left; both are removed explicitly at the end of a trial, and on drop as a
//! safety net.

mod containers;
mod handles;
pub mod local;

pub use containers::{
    free_port, GcScope, LogLine, RuntimeError, Stream, TrialIds, LABEL_MANAGED, LABEL_PID,
    LABEL_TRIAL,
};
pub use handles::{
    gc, prepare_local, start_kafka, start_spark, KafkaContainer, RuntimeKind, SparkContainer,
};
