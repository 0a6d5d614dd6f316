//! What a trial or a generation reports while it runs: [`TrialEvent`]s, in the past tense, sent
//! to the caller's callback. Nothing in trial/ prints.

use std::path::PathBuf;

use crate::kafka::SeedingSummary;
use crate::verdict::Classification;

/// Something that happened during a trial or a generation, in the past tense.
#[derive(Debug, Clone)]
pub enum TrialEvent {
    /// The sandbox copy was made and hashed.
    SandboxCreated {
        /// Sandbox root.
        path: PathBuf,
        /// Files copied.
        files: usize,
    },
    /// The Kafka broker answered a metadata request.
    KafkaReady {
        /// Bootstrap servers for the host.
        bootstrap: String,
        /// Seconds from start to ready.
        seconds: f64,
    },
    /// Kafka was seeded.
    KafkaSeeded(SeedingSummary),
    /// The Spark driver started running spark-submit.
    SparkStarted {
        /// What runs it: the image, or the local Spark installation.
        image: String,
    },
    /// While generating: a data batch was committed.
    BatchCommitted {
        /// Batches committed so far.
        done: u32,
        /// Batches wanted.
        of: u32,
    },
    /// The restart continued the checkpoint's offsets, but the verdict waits for what is named
    /// ([`crate::verdict::Watcher::waiting_for`]: paths not run yet, or `rows-read`); sent each
    /// time that list changes.
    WaitingFor {
        /// What is still to be proved, in the report's words.
        what: Vec<String>,
    },
    /// The verdict was reached.
    VerdictReached {
        /// Target version.
        target: String,
        /// What the trial was for: a target, the control, or a fresh run (whose expected
        /// verdict is `started-fresh`, not `resumed`).
        role: super::TrialRole,
        /// The classification.
        classification: Box<Classification>,
    },
}
