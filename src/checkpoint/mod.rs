//! Read-only model of a Spark Structured Streaming checkpoint (Spark 2.1–4.3).
//!
//! Reads a checkpoint; never writes, never follows links out of it.
//! (Skeleton: the parsers land with issue 2.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::verdict::BatchId;

/// Kafka offsets as the Kafka source writes them in the offset log: topic → partition → offset
/// (`{"topic":{"0":42}}`, KafkaSourceOffset / JsonUtils.scala, Spark 3.5).
pub type KafkaOffsets = BTreeMap<String, BTreeMap<u32, i64>>;

/// What `inspect` found in a checkpoint directory.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Inspection {
    /// The checkpoint directory that was read.
    pub path: PathBuf,
    /// Query id from `metadata`.
    pub query_id: Option<String>,
    /// Highest N with `commits/N`.
    pub last_committed_batch: Option<BatchId>,
    /// Highest N with `offsets/N` and no `commits/N`.
    pub pending_batch: Option<BatchId>,
}

/// Why a checkpoint could not be inspected at all.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The path does not exist or is not a directory.
    #[error("checkpoint {path} cannot be read")]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// The I/O cause.
        #[source]
        source: std::io::Error,
    },
}

/// Inspects the checkpoint at `path`, read-only.
pub fn inspect(path: &Path) -> Result<Inspection, CheckpointError> {
    std::fs::read_dir(path).map_err(|source| CheckpointError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Inspection {
        path: path.to_path_buf(),
        query_id: None,
        last_committed_batch: None,
        pending_batch: None,
    })
}
