//! The result of an inspection ([`Inspection`]) and the questions the rest of rehearse asks it:
//! committed and required Kafka offsets, partition counts and the `startingOffsets` remedy (the
//! verdict layer reads its trial context off it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::findings::{Finding, Severity};
use super::fingerprint::WriterVersion;
use super::metadata::{OperatorMetadata, StateSchema};
use super::offsets::{kafka_offsets_json, OffsetSeqMetadata};
use super::state::{PartitionState, Provider};
use super::{BatchId, KafkaOffsets};
use rehearse_base::versions::SparkVersion;

/// Everything `inspect` found in a checkpoint directory.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The checkpoint directory that was read.
    pub path: PathBuf,
    /// Query id from `metadata` (StreamMetadata.scala).
    pub query_id: Option<String>,
    /// Batch ids with an `offsets/N` file, ascending.
    pub offset_batches: Vec<BatchId>,
    /// Batch ids with a `commits/N` file, ascending.
    pub commit_batches: Vec<BatchId>,
    /// Highest N with `offsets/N`.
    pub latest_batch: Option<BatchId>,
    /// Highest N with `commits/N`.
    pub last_committed_batch: Option<BatchId>,
    /// The latest batch when it has `offsets/N` but no `commits/N`: Spark re-runs it on restart.
    pub pending_batch: Option<BatchId>,
    /// Batch ids missing between the first and the latest `offsets/N`.
    pub gaps: Vec<BatchId>,
    /// The offset log file of the latest batch.
    pub offset_log: Option<OffsetLogInfo>,
    /// The commit log file of the last committed batch.
    pub commit_log: Option<CommitLogInfo>,
    /// Per source (plan order): its offset at the last committed batch (or, with no commit yet,
    /// in the latest offset file).
    pub sources: Vec<SourceOffset>,
    /// Stateful operators under `state/`, by id.
    pub operators: Vec<Operator>,
    /// The Spark release range that wrote the latest batch, with its evidence.
    pub writer_version: WriterVersion,
    /// Runs of consecutive batches whose offset files carry the same conf keys; more than one
    /// means the query was restarted on another Spark release at some batch.
    pub writer_history: Vec<WriterSegment>,
    /// File counts and leftovers.
    pub files: FileSummary,
    /// Problems and notable facts, worst first.
    pub findings: Vec<Finding>,
    /// Per topic-partition, the highest Kafka offset in any retained offset file.
    #[serde(skip)]
    pub(crate) required_kafka: KafkaOffsets,
}

/// The offset log file of the latest batch.
#[derive(Debug, Clone, Serialize)]
pub struct OffsetLogInfo {
    /// Its batch id.
    pub batch: BatchId,
    /// Its path relative to the checkpoint.
    pub file: String,
    /// Log version: 1, or 2 (Spark 4.2+ named sources).
    pub version: u32,
    /// Its OffsetSeqMetadata; `None` when the metadata line is empty (Spark 2.0).
    pub metadata: Option<OffsetSeqMetadata>,
    /// The confs Spark restores from the log over the session's values on restart.
    pub pinned: Vec<PinnedConf>,
    /// Confs this log lacks, which a newer Spark fills in with a default on restart
    /// (it logs `Conf '<key>' was not found in the offset log, using default value`).
    pub defaults_on_restart: Vec<PinnedConf>,
}

/// A conf Spark takes from the offset log (or defaults) instead of the session on restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PinnedConf {
    /// The conf key.
    pub key: String,
    /// The value in the log (or the default a newer release applies when it is missing).
    pub value: String,
    /// What the value controls, when the marker table knows the key.
    pub meaning: Option<String>,
}

/// The commit log file of the last committed batch.
#[derive(Debug, Clone, Serialize)]
pub struct CommitLogInfo {
    /// Its batch id.
    pub batch: BatchId,
    /// Its path relative to the checkpoint.
    pub file: String,
    /// Log version: 1; 2 with checkpoint format v2 (4.0+); 3 with sink metadata (4.2+).
    pub version: u32,
    /// `nextBatchWatermarkMs` (2.4+).
    pub next_batch_watermark_ms: Option<i64>,
    /// `stateUniqueIds` (v2): operator id → per partition, the store file ids to load.
    pub state_unique_ids: Option<serde_json::Value>,
    /// `sinkMetadataMap` (v3), raw.
    pub sink_metadata: Option<serde_json::Value>,
}

/// What kind of source an offset belongs to, judged from the offset's shape and `sources/<n>/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// Kafka: `{"topic":{"partition":offset}}`.
    Kafka,
    /// File source: `{"logOffset":N}`.
    File,
    /// Rate source: a bare number with `sources/<n>/0` holding the start time, or rate-micro-batch.
    Rate,
    /// Anything else, or no offset yet.
    Unknown,
}

impl SourceKind {
    /// `kafka`, `file`, `rate` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Kafka => "kafka",
            SourceKind::File => "file",
            SourceKind::Rate => "rate",
            SourceKind::Unknown => "unknown",
        }
    }
}

/// One source's offset at the last committed batch.
#[derive(Debug, Clone, Serialize)]
pub struct SourceOffset {
    /// Position in the plan (the line order of the offset log; `sources/<index>/`).
    pub index: usize,
    /// The source id of an offset log v2 line (4.2+ named sources).
    pub source_id: Option<String>,
    /// What kind of source wrote it.
    pub kind: SourceKind,
    /// The batch whose offset file it comes from.
    pub batch: BatchId,
    /// Whether that batch is committed (false only before the first commit).
    pub committed: bool,
    /// The offset line as written; `None` for `-` (no offset yet).
    pub raw: Option<String>,
    /// The offset parsed as JSON, when it is JSON.
    pub offset: Option<serde_json::Value>,
    /// For Kafka: topic → partition → offset.
    pub kafka: Option<KafkaOffsets>,
    /// For Kafka: the `startingOffsets` JSON that restarts the query on a fresh checkpoint
    /// exactly where this one stopped.
    pub starting_offsets: Option<String>,
    /// For Kafka: the initial offsets in `sources/<index>/0`, when readable.
    pub initial_offsets: Option<KafkaOffsets>,
}

/// One stateful operator.
#[derive(Debug, Clone, Serialize)]
pub struct Operator {
    /// Operator id (`state/<id>/`).
    pub id: u32,
    /// Operator name from operator metadata (4.0+), e.g. `stateStoreSave`; or `join` when the
    /// store names are those of a stream-stream join.
    pub name: Option<String>,
    /// Number of partition directories.
    pub partitions: u32,
    /// Which provider wrote the files.
    pub provider: Provider,
    /// Store names (`default`, or the four join stores).
    pub stores: Vec<String>,
    /// Newest state version over all partitions.
    pub latest_version: Option<u64>,
    /// Per partition: newest and oldest retained state version.
    pub partition_states: Vec<PartitionState>,
    /// RocksDB changelog checkpointing in use (`.changelog` files).
    pub changelog_checkpointing: bool,
    /// Checkpoint format v2 state file names (`<v>_<uuid>.*`, 4.0+).
    pub unique_id_files: bool,
    /// State schema files (`_metadata/schema` of partition 0, one per store).
    pub schemas: Vec<SchemaFile>,
    /// Operator metadata (4.0+), the newest of v1 and v2.
    pub operator_metadata: Option<OperatorMetadataFile>,
    /// Number of state schema v3 files (`_stateSchema/`, transformWithState, 4.0+).
    pub state_schema_v3_files: usize,
}

/// A state schema file and what it says.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaFile {
    /// Path relative to the checkpoint.
    pub file: String,
    /// Store name.
    pub store: String,
    /// The decoded file; `None` when it could not be read or decoded (see findings).
    pub schema: Option<StateSchema>,
}

/// An operator metadata file and what it says.
#[derive(Debug, Clone, Serialize)]
pub struct OperatorMetadataFile {
    /// Path relative to the checkpoint.
    pub file: String,
    /// The parsed file.
    pub metadata: OperatorMetadata,
}

/// Consecutive batches whose offset files name the same conf keys (one Spark release line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriterSegment {
    /// First batch of the run.
    pub first_batch: BatchId,
    /// Last batch of the run.
    pub last_batch: BatchId,
    /// Lowest release its conf keys fit.
    pub min: Option<SparkVersion>,
    /// Highest release its conf keys fit.
    pub max: Option<String>,
}

/// File counts and leftovers found while listing.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileSummary {
    /// Regular files in the checkpoint.
    pub total: usize,
    /// Hadoop `.<name>.crc` side files (written when the checkpoint sat on a local file system).
    pub crc_sidecars: usize,
    /// Leftover `.<name>.<uuid>.tmp` files of interrupted writes.
    pub tmp_files: Vec<String>,
    /// Symbolic links found (listed, never followed).
    pub symlinks: Vec<String>,
}

impl Inspection {
    /// The worst finding's severity, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// Whether any finding is an error (the binary then exits with code 5).
    pub fn has_errors(&self) -> bool {
        self.worst() == Some(Severity::Error)
    }

    /// The event-time watermark the query had reached, in ms since the epoch: the larger of
    /// the newest offset file's `batchWatermarkMs` and the last commit's `nextBatchWatermarkMs`.
    /// `None` when neither file says (Spark 2.0 logs, 2.2–2.3 commits).
    pub fn watermark_ms(&self) -> Option<i64> {
        let offsets = self
            .offset_log
            .as_ref()
            .and_then(|o| o.metadata.as_ref())
            .and_then(|m| m.batch_watermark_ms);
        let commits = self
            .commit_log
            .as_ref()
            .and_then(|c| c.next_batch_watermark_ms);
        offsets.max(commits)
    }

    /// Per source, the offset JSON in `offsets/<last committed batch>`; `None` for `-`. Empty when
    /// no batch is committed. When that file is missing or damaged (an error finding), these are
    /// the offsets of the newest committed batch before it whose file parses (see
    /// [`SourceOffset::batch`]).
    pub fn committed_offsets(&self) -> Vec<Option<serde_json::Value>> {
        if self.last_committed_batch.is_none() {
            return Vec::new();
        }
        self.sources
            .iter()
            .filter(|s| s.committed)
            .map(|s| s.offset.clone())
            .collect()
    }

    /// The Kafka offsets of the last committed batch, merged across Kafka sources. When two
    /// sources name the same topic-partition, the lower offset is kept (the merged value is
    /// then a safe start for both; a finding reports the conflict).
    pub fn committed_kafka_offsets(&self) -> KafkaOffsets {
        let mut out = KafkaOffsets::new();
        for source in self.sources.iter().filter(|s| s.committed) {
            for (topic, parts) in source.kafka.iter().flatten() {
                let entry = out.entry(topic.clone()).or_default();
                for (p, o) in parts {
                    entry
                        .entry(*p)
                        .and_modify(|x: &mut i64| *x = (*x).min(*o))
                        .or_insert(*o);
                }
            }
        }
        out
    }

    /// Per topic-partition, the highest offset in any retained `offsets/N` file: what a sandbox
    /// Kafka must reach so that every batch Spark may re-read exists. "Retained" means the files
    /// read: the newest [`LOG_WINDOW`](super::LOG_WINDOW) offset files (every file under Spark's
    /// default retention) and the oldest; a restart re-reads at most the latest batch.
    pub fn required_kafka_offsets(&self) -> KafkaOffsets {
        self.required_kafka.clone()
    }

    /// Partitions per topic (highest partition id seen in any retained offset file + 1).
    pub fn kafka_partition_counts(&self) -> BTreeMap<String, u32> {
        self.required_kafka
            .iter()
            .map(|(topic, parts)| {
                (
                    topic.clone(),
                    parts.keys().next_back().map_or(0, |p| p.saturating_add(1)),
                )
            })
            .collect()
    }

    /// The `startingOffsets` JSON Spark's Kafka source accepts, from the last committed offsets:
    /// restarting the query on a fresh checkpoint with it resumes exactly where this one stopped.
    /// `None` when there is no Kafka source or no committed batch.
    pub fn starting_offsets(&self) -> Option<String> {
        let offsets = self.committed_kafka_offsets();
        (!offsets.is_empty()).then(|| kafka_offsets_json(&offsets))
    }
}
