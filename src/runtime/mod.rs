//! Containers for one trial (testcontainers): a network, a Kafka broker, a Spark driver.
//! The only module that names testcontainers.
//!
//! Every container carries the labels [`LABEL_MANAGED`] and [`LABEL_TRIAL`], so `rehearse gc`
//! can sweep what an interrupted trial left; containers are removed explicitly at the end of a
//! trial, and on drop as a safety net.

mod containers;

pub use containers::{
    free_port, gc, start_kafka, start_spark, GcScope, KafkaContainer, LogLine, RuntimeError,
    SparkContainer, Stream, TrialIds, LABEL_MANAGED, LABEL_PID, LABEL_TRIAL,
};
