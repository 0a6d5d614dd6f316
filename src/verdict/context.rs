//! [`TrialContext`]: what the classifier must know about the checkpoint being restarted, and how
//! it is read off an [`Inspection`]. It lives in the verdict layer (the checkpoint model knows
//! nothing of verdicts); the checkpoint only answers the questions asked here.

use serde::Serialize;

use crate::checkpoint::{BatchId, Inspection};

/// What the classifier must know about the checkpoint being restarted. Built by
/// [`TrialContext::from_inspection`] (the trial) or given partly by hand (`rehearse classify`
/// without `--checkpoint`: then `resumed` cannot be proven from offsets and is reported as such).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrialContext {
    /// Query id from the checkpoint's `metadata` file (StreamMetadata.scala).
    pub query_id: Option<String>,
    /// Highest N with `commits/N`.
    pub last_committed_batch: Option<BatchId>,
    /// Highest N with `offsets/N` but no `commits/N`: Spark re-runs it on restart.
    pub pending_batch: Option<BatchId>,
    /// Per source (plan order), its offset JSON in `offsets/<last committed batch>`: the start
    /// offsets the first batch after a resume must report. `None` for `-` (no offset yet).
    pub committed_offsets: Vec<Option<serde_json::Value>>,
    /// Stateful operator ids present under `state/` (to tell `plan-change` from a state error).
    pub operator_ids: Vec<u32>,
    /// A live trial that seeded fresh records sets this: `resumed` then also needs a batch of
    /// the restarted run that READ rows (`numInputRows` > 0), so the restart is proved on the
    /// data and state paths, not only by the re-run of a pending batch that read nothing.
    /// Until that batch comes the verdict stays open (a later failure wins); if it never comes,
    /// the verdict is `timeout`. `false` (classify of a finished log): the first batch proves.
    pub require_input_rows: bool,
    /// The event-time watermark the checkpoint's query had reached, in ms since the epoch: the
    /// larger of `batchWatermarkMs` in the newest `offsets/N` (OffsetSeqMetadata) and
    /// `nextBatchWatermarkMs` in the newest `commits/N` (CommitMetadata, 2.4+). Above 0 proves
    /// the query had a watermark; 0 or `None` tells nothing (a watermark that never advanced).
    #[serde(default)]
    pub checkpoint_watermark_ms: Option<i64>,
}

impl TrialContext {
    /// What the verdict classifier needs to know about this checkpoint.
    pub fn from_inspection(inspection: &Inspection) -> TrialContext {
        TrialContext {
            query_id: inspection.query_id.clone(),
            last_committed_batch: inspection.last_committed_batch,
            pending_batch: inspection.pending_batch,
            committed_offsets: inspection.committed_offsets(),
            operator_ids: inspection.operators.iter().map(|o| o.id).collect(),
            // Only a live trial knows it seeded fresh records; it sets this itself.
            require_input_rows: false,
            checkpoint_watermark_ms: inspection.watermark_ms(),
        }
    }
}
