//! [`TrialContext`]: what the classifier must know about the checkpoint being restarted, and how
//! it is read off an [`Inspection`]. It lives in the verdict layer (the checkpoint model knows
//! nothing of verdicts); the checkpoint only answers the questions asked here.

use serde::Serialize;

use rehearse_base::versions::{SparkLine, SparkVersion};
use rehearse_checkpoint::{BatchId, Inspection};

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
    /// A live trial that seeded fresh records sets this too: `resumed` then also needs every
    /// path the query has to have run (`exercised.rs`: state loaded and updated, watermark
    /// advanced, state evicted, sink wrote). The watcher keeps watching after the proof until
    /// they all ran; if the trial ends first, the verdict is `resume-unproven`. `false`
    /// (classify of a finished log): the paths are evidence only.
    #[serde(default)]
    pub require_paths: bool,
    /// A live trial that seeded nothing past the checkpoint's offsets sets this (`fresh_records
    /// = 0`, or a records file or capture with nothing after them): a `resumed` is then
    /// `resume-unproven` ([`BuiltinRule::NothingFreshSeeded`](super::BuiltinRule::NothingFreshSeeded)):
    /// the re-run of the pending batch proves the offsets, but no batch can read a new record,
    /// so no path of the query is proved on one; why a path did not run then says no fresh
    /// records were seeded (`exercised.rs`). `false` (classify of a finished log): a resume stands.
    pub nothing_fresh: bool,
    /// The event-time watermark the checkpoint's query had reached, in ms since the epoch: the
    /// larger of `batchWatermarkMs` in the newest `offsets/N` (OffsetSeqMetadata) and
    /// `nextBatchWatermarkMs` in the newest `commits/N` (CommitMetadata, 2.4+). Above 0 proves
    /// the query had a watermark; 0 or `None` tells nothing (a watermark that never advanced).
    #[serde(default)]
    pub checkpoint_watermark_ms: Option<i64>,
    /// The job the trial runs, when the harness knows it (a trial sets it; `rehearse classify`
    /// does not): a linkage failure in the job's own classes is then explained.
    #[serde(default)]
    pub job: Option<JobFacts>,
}

/// The job a trial runs and the Spark version its artifact was built for, as far as the
/// harness knows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobFacts {
    /// The artifact's file name (`app_2.12-3.5.3.jar`).
    pub artifact: String,
    /// The Spark version the artifact ran on before (the version that wrote the checkpoint,
    /// when the trial runs the same artifact as the generation, or the base job on a
    /// checkpoint whose writer line is known); `None` when the trial runs its own artifact.
    pub built_for: Option<String>,
    /// The target the trial restarts on.
    pub target: String,
    /// Names beside a PySpark job an `import` could mean that did not travel with it into the
    /// sandbox (`lib` for a directory `lib/` without `__init__.py`), each with why, a fragment
    /// (`scenario::JobDir::not_shipped`): a `ModuleNotFoundError` for one of them is the fact
    /// `module-beside-job`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_shipped: Vec<(String, String)>,
}

impl JobFacts {
    /// `(source line, source Scala, target line, target Scala)` when the artifact was built
    /// for another Spark line than the target's and the two differ in Scala binary version or
    /// major version (Spark 4 moved the Dataset and streaming API classes to `sql-api` and is
    /// Scala 2.13 only: SPARK-45314, SPARK-49700) — the fact `job-built-for-another-line`.
    pub fn line_change(&self) -> Option<(String, &'static str, String, &'static str)> {
        let from = SparkVersion::parse(self.built_for.as_deref()?).ok()?;
        let to = SparkVersion::parse(&self.target).ok()?;
        let (from_row, to_row) = (SparkLine::of(&from)?, SparkLine::of(&to)?);
        let (fl, tl) = (from.line()?, to.line()?);
        (from_row.scala != to_row.scala || fl.0 != tl.0).then(|| {
            (
                format!("{}.{}", fl.0, fl.1),
                from_row.scala,
                format!("{}.{}", tl.0, tl.1),
                to_row.scala,
            )
        })
    }
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
            require_paths: false,
            nothing_fresh: false,
            checkpoint_watermark_ms: inspection.watermark_ms(),
            // Only a trial knows the job it runs; it sets this itself.
            job: None,
        }
    }
}
