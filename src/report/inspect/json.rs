//! The versioned JSON document of `rehearse inspect --json` (`"schema": "rehearse.inspect/v1"`).
//!
//! The types here only serialize; they borrow from an [`Inspection`] and fix the document's
//! layout, so the model can change without changing the document.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::checkpoint::{
    BatchId, CommitLogInfo, FileSummary, Finding, Inspection, KafkaOffsets, OffsetLogInfo,
    Operator, PinnedConf, SourceKind, WriterSegment, WriterVersion,
};

/// The schema id of the document; bumped on any incompatible change (a removed or retyped key).
/// Adding keys is compatible.
pub const SCHEMA: &str = "rehearse.inspect/v1";

/// The `rehearse inspect --json` document.
///
/// # Format
///
/// One JSON object. Batch ids and offsets are numbers; versions are strings; absent values are
/// `null` (keys are never omitted). Paths inside the checkpoint are relative and `/`-separated.
///
/// | key | type | meaning |
/// |---|---|---|
/// | `schema` | string | `"rehearse.inspect/v1"` |
/// | `path` | string | the checkpoint directory as given |
/// | `query_id` | string \| null | id from `metadata` |
/// | `batches` | object | `offsets` and `commits`: `{first, last, count}` or null; `gaps`: batch ids missing inside the offset log (the first 1,000) |
/// | `latest_batch` | number \| null | highest `offsets/N` |
/// | `last_committed_batch` | number \| null | highest `commits/N` |
/// | `pending_batch` | number \| null | latest batch without a commit (re-run on restart) |
/// | `offset_log` | object \| null | latest offset file: `batch`, `file`, `version` (1 or 2), `batch_watermark_ms`, `batch_timestamp_ms`, `conf` (object, or null before 2.2), `pinned[]` (`key`, `value`, `meaning`: the confs Spark restores from the log on restart), `defaults_on_restart[]` (confs the log lacks and a newer Spark fills with this default) |
/// | `commit_log` | object \| null | last commit file: `batch`, `file`, `version` (1–3), `next_batch_watermark_ms`, `state_unique_ids` (v2), `sink_metadata` (v3) |
/// | `sources[]` | array | per source in plan order, at the last committed batch: `index`, `source_id` (v2 logs), `kind` (`kafka`\|`file`\|`rate`\|`unknown`), `batch`, `committed`, `raw` (the offset line, null for `-`), `offsets` (Kafka: topic → partition → offset; others: the offset JSON), `starting_offsets` (Kafka: the `startingOffsets` JSON), `initial_offsets` (Kafka `sources/<n>/0`) |
/// | `operators[]` | array | `id`, `name`, `partitions`, `provider` (`hdfs`\|`rocksdb`\|`unknown`), `stores[]`, `latest_version`, `partition_states[]` (`id`, `latest_version`, `oldest_version`), `changelog_checkpointing`, `unique_id_files`, `schemas[]` (`file`, `store`, `schema`: {`version`, `key_schema`, `value_schema`} or null), `operator_metadata` (`file`, `metadata`: {`version`, `operator_id`, `operator_name`, `stores[]` (`name`, `partitions`)}) or null, `state_schema_v3_files` |
/// | `writer_version` | object | `min` (string \| null; `"4.0.0-preview"` = a preview, RC or development build of 4.0.0), `max` (string such as `"3.5.x"` \| null; never below `min`), `or_pre_release` (string, only when a pre-release outside `min`..`max` fits too: `"4.0.0-preview"` for a stateless checkpoint with 3.5's conf keys), `evidence[]` (`marker`, `file`, `observed`, `implies`, `source`, `consistent`) |
/// | `writer_history[]` | array | runs of batches with the same conf keys: `first_batch`, `last_batch`, `min`, `max`; the last run's range is `writer_version`'s |
/// | `files` | object | `total`, `crc_sidecars`, `tmp_files[]`, `symlinks[]` |
/// | `findings[]` | array | worst first: `severity` (`error`\|`warning`\|`info`), `code`, `file`, `line`, `message` |
/// | `starting_offsets` | string \| null | the fresh-start remedy: `startingOffsets` JSON from the last committed Kafka offsets, all Kafka sources merged |
/// | `kafka` | object | `committed`, `required` (highest offset per partition over every retained offset file) and `partitions` (count per topic) |
///
/// Example (abridged):
///
/// ```json
/// {"schema":"rehearse.inspect/v1","path":"ckpt","query_id":"347fa587-d246-436c-9c94-aa57c7581372",
///  "batches":{"offsets":{"first":0,"last":3,"count":4},"commits":{"first":0,"last":3,"count":4},"gaps":[]},
///  "latest_batch":3,"last_committed_batch":3,"pending_batch":null,
///  "sources":[{"index":0,"kind":"kafka","offsets":{"events":{"0":42,"1":17}},"starting_offsets":"{\"events\":{\"0\":42,\"1\":17}}", "…":"…"}],
///  "operators":[{"id":0,"partitions":2,"provider":"hdfs","latest_version":4,"…":"…"}],
///  "writer_version":{"min":"3.2.1","max":"3.5.x","evidence":["…"]},
///  "findings":[],"starting_offsets":"{\"events\":{\"0\":42,\"1\":17}}","…":"…"}
/// ```
#[derive(Debug, Serialize)]
pub struct InspectDocument<'a> {
    schema: &'static str,
    path: String,
    query_id: Option<&'a str>,
    batches: Batches,
    latest_batch: Option<BatchId>,
    last_committed_batch: Option<BatchId>,
    pending_batch: Option<BatchId>,
    offset_log: Option<OffsetLogDoc<'a>>,
    commit_log: Option<&'a CommitLogInfo>,
    sources: Vec<SourceDoc<'a>>,
    operators: &'a [Operator],
    writer_version: &'a WriterVersion,
    writer_history: &'a [WriterSegment],
    files: &'a FileSummary,
    findings: &'a [Finding],
    starting_offsets: Option<String>,
    kafka: KafkaDoc,
}

#[derive(Debug, Serialize)]
struct Batches {
    offsets: Option<Span>,
    commits: Option<Span>,
    gaps: Vec<BatchId>,
}

#[derive(Debug, Serialize)]
struct Span {
    first: BatchId,
    last: BatchId,
    count: usize,
}

impl Span {
    fn of(ids: &[BatchId]) -> Option<Span> {
        Some(Span {
            first: *ids.first()?,
            last: *ids.last()?,
            count: ids.len(),
        })
    }
}

#[derive(Debug, Serialize)]
struct OffsetLogDoc<'a> {
    batch: BatchId,
    file: &'a str,
    version: u32,
    batch_watermark_ms: Option<i64>,
    batch_timestamp_ms: Option<i64>,
    conf: Option<&'a BTreeMap<String, String>>,
    pinned: &'a [PinnedConf],
    defaults_on_restart: &'a [PinnedConf],
}

impl<'a> OffsetLogDoc<'a> {
    fn of(info: &'a OffsetLogInfo) -> Self {
        let meta = info.metadata.as_ref();
        OffsetLogDoc {
            batch: info.batch,
            file: &info.file,
            version: info.version,
            batch_watermark_ms: meta.and_then(|m| m.batch_watermark_ms),
            batch_timestamp_ms: meta.and_then(|m| m.batch_timestamp_ms),
            conf: meta.and_then(|m| m.conf.as_ref()),
            pinned: &info.pinned,
            defaults_on_restart: &info.defaults_on_restart,
        }
    }
}

#[derive(Debug, Serialize)]
struct SourceDoc<'a> {
    index: usize,
    source_id: Option<&'a str>,
    kind: SourceKind,
    batch: BatchId,
    committed: bool,
    raw: Option<&'a str>,
    offsets: serde_json::Value,
    starting_offsets: Option<&'a str>,
    initial_offsets: Option<&'a KafkaOffsets>,
}

#[derive(Debug, Serialize)]
struct KafkaDoc {
    committed: KafkaOffsets,
    required: KafkaOffsets,
    partitions: BTreeMap<String, u32>,
}

impl<'a> InspectDocument<'a> {
    /// Lays out the document of one inspection.
    pub fn new(inspection: &'a Inspection) -> Self {
        let sources = inspection
            .sources
            .iter()
            .map(|s| SourceDoc {
                index: s.index,
                source_id: s.source_id.as_deref(),
                kind: s.kind,
                batch: s.batch,
                committed: s.committed,
                raw: s.raw.as_deref(),
                offsets: match &s.kafka {
                    Some(k) => serde_json::to_value(k).unwrap_or(serde_json::Value::Null),
                    None => s.offset.clone().unwrap_or(serde_json::Value::Null),
                },
                starting_offsets: s.starting_offsets.as_deref(),
                initial_offsets: s.initial_offsets.as_ref(),
            })
            .collect();
        InspectDocument {
            schema: SCHEMA,
            path: inspection.path.display().to_string(),
            query_id: inspection.query_id.as_deref(),
            batches: Batches {
                offsets: Span::of(&inspection.offset_batches),
                commits: Span::of(&inspection.commit_batches),
                gaps: inspection.gaps.clone(),
            },
            latest_batch: inspection.latest_batch,
            last_committed_batch: inspection.last_committed_batch,
            pending_batch: inspection.pending_batch,
            offset_log: inspection.offset_log.as_ref().map(OffsetLogDoc::of),
            commit_log: inspection.commit_log.as_ref(),
            sources,
            operators: &inspection.operators,
            writer_version: &inspection.writer_version,
            writer_history: &inspection.writer_history,
            files: &inspection.files,
            findings: &inspection.findings,
            starting_offsets: inspection.starting_offsets(),
            kafka: KafkaDoc {
                committed: inspection.committed_kafka_offsets(),
                required: inspection.required_kafka_offsets(),
                partitions: inspection.kafka_partition_counts(),
            },
        }
    }
}

/// The `rehearse.inspect/v1` document of an inspection as a JSON value.
pub fn to_json(inspection: &Inspection) -> serde_json::Value {
    serde_json::to_value(InspectDocument::new(inspection)).unwrap_or(serde_json::Value::Null)
}
