//! One trial: restart one checkpoint on one target Spark version and reach a verdict; and the
//! generation of a source checkpoint with real Spark for scenarios that ask for one.
//!
//! Flow of a trial: sandbox copy (hashed) → Kafka broker → seeding → Spark driver running the
//! job against the copy → the watcher reads the driver log and the event log until the verdict
//! is certain or the timeout passes → driver and broker removed → the source is hashed again. A
//! trial never prints: it reports progress as [`TrialEvent`]s.
//!
//! | file | job |
//! |---|---|
//! | `run.rs` | the trial, step by step ([`run_trial`], [`TrialSettings`]) |
//! | `broker.rs` | own or shared Kafka ([`Broker`]), starting it, seeding it ([`seed`]) |
//! | `job.rs` | the job staged into a sandbox, its spark-submit argv |
//! | `driver.rs`, `event_log.rs` | the driver's output and event log as one stream |
//! | `watch.rs` | feeding the watcher until the verdict |
//! | `kafka_short.rs` | the verdict override when Kafka is short of the checkpoint |
//! | `parts.rs` | the verdict when the trial's own parts fail (broker died, driver OOM-killed or killed, engine gone) |
//! | `generate.rs` | generating a source checkpoint, its cache key ([`generate_checkpoint`]) |
//! | `control.rs` | the trial's role (target, control, fresh), what it collects, the parity against the control |
//! | `parity.rs` | the parity judgement: the row sets of a target and its control compared ([`parity::compare`]) |
//! | `fresh.rs` | the remedy rehearsed: a target's job on a new empty checkpoint, the proof of where it started |
//! | `baseline.rs` | the bare restart the benchmark compares against |
//! | `events.rs`, `error.rs` | [`TrialEvent`], [`TrialError`] |
//!
//! This module only declares and re-exports.

mod baseline;
mod broker;
mod control;
mod driver;
mod error;
mod event_log;
mod events;
mod fresh;
mod generate;
mod job;
mod kafka_short;
pub mod parity;
mod parts;
mod read_all;
mod run;
mod sink_rows;
mod watch;

pub use baseline::bare_restart_seconds;
pub use broker::{seed, start_ready_kafka, Broker};
pub use control::{control_version, parity_of, Collected, TrialRole};
pub use error::{GenerationCause, TrialError};
pub use events::TrialEvent;
pub use fresh::{fresh_report, ran_batch_zero, start_proof, COPY_ASIDE};
pub use generate::{cached_checkpoint, generate_checkpoint, Generate};
pub use job::resolve_dependencies;
pub use run::{run_trial, run_trial_as, TrialRequest, TrialSettings};
