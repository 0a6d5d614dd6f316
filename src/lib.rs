//! rehearse: rehearse the restart of a Spark Structured Streaming query (Kafka source) from its
//! production checkpoint on a target Spark version, in containers, and give a verdict with evidence.
//!
//! Data flows one way, each part usable alone:
//!
//! ```text
//! scenario ─▶ checkpoint (inspect, read-only) ─▶ sandbox (copy + hashes) ─▶ runtime (Kafka, Spark
//! containers) ─▶ kafka (seed) ─▶ verdict (watch driver log + event log, classify) ─▶ report
//! ```
//!
//! The library never prints: commands return values (or send [`trial::TrialEvent`]s to a
//! callback) and the binary's reporters decide what reaches the terminal.
#![warn(missing_docs)]
// Enforced: output is the binary's (tests may `#[allow]` it where they say why they skip).
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![forbid(unsafe_code)]

pub mod exit;
pub mod matrix;
pub mod rehearsal;
pub mod report;
pub mod trial;

// The lower layers are crates of their own (crates/): re-exported under their module names so
// that `rehearse::checkpoint::inspect`, `crate::store::…` and the like name what they always did.
pub use rehearse_base::{cache, text, userfile, versions};
pub use rehearse_checkpoint as checkpoint;
pub use rehearse_harness::{deps, images, kafka, runtime, sandbox, spark};
pub use rehearse_scenario as scenario;
pub use rehearse_store as store;
pub use rehearse_verdict as verdict;
