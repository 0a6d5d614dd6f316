//! rehearse's harness (layers 5 and 6 of docs/ARCHITECTURE.md): what a trial runs on.
//!
//! - [`sandbox`]: the copy of a checkpoint's working set, hashed and verified, and the source
//!   checked unchanged afterwards;
//! - [`kafka`]: topic admin, seeding so every checkpointed offset exists, rebasing offsets in the
//!   sandbox copy, reading outputs, and the read-only mirror of a production broker;
//! - [`deps`]: the job's packages (Maven) and requirements (pip), resolved on the host and cached;
//! - [`images`]: the local Spark and Kafka images built from the recipes in `docker/`;
//! - [`spark`]: the spark-submit command line and logging configuration;
//! - [`runtime`]: Kafka brokers and Spark drivers as containers, host processes or a standalone
//!   cluster, and the sweep of what a rehearsal left behind.
//!
//! Imports only go down: the harness uses the scenario, checkpoint, verdict, store and base
//! crates, and nothing of the trial, the report or the pipelines above it. Unsafe code is denied
//! everywhere but `kafka/legacy.rs`, the FFI to librdkafka's group-less consumer.
#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod deps;
pub mod images;
pub mod kafka;
pub mod runtime;
pub mod sandbox;
pub mod spark;
