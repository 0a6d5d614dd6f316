//! Read-only model of a Spark Structured Streaming checkpoint (Spark 2.1–4.3).
//!
//! Reads a checkpoint; never writes, reads through a link only to a regular file, never walks a
//! link to a directory, never opens a FIFO or device. [`inspect`] lists the
//! directory once (`loader.rs`, the only code that opens files), parses the logs with pure
//! parsers (`offsets.rs`, `commits.rs`, `metadata.rs`), and interprets them in a second pass
//! (`inspect.rs`, with `sources.rs`, `operators.rs`, `state.rs`, `fingerprint.rs`): batches,
//! Kafka offsets, state, the writer's Spark version and integrity [`Finding`]s. Nothing here
//! renders an [`Inspection`]: its text report and the versioned JSON document are written by the
//! root package's `report::inspect` (`src/report/inspect/`).
//!
//! `batch.rs` holds [`BatchId`], `model.rs` the [`Inspection`] types, `findings.rs` and `error.rs`
//! what can go wrong. Formats and their sources: spark-checkpoints.md §1–2 of the shared design
//! docs (outside this repository; the parsers cite it by section).
//!
//! The bottom layer of the pipeline: nothing here imports verdicts, scenarios or anything above;
//! of the leaves it imports `versions.rs` (the one
//! [`SparkVersion`](rehearse_base::versions::SparkVersion) type, which the writer's version range
//! is made of) and the error kinds.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod batch;
mod commits;
mod error;
mod findings;
mod fingerprint;
mod inspect;
mod loader;
mod metadata;
mod model;
mod offsets;
mod operators;
mod sources;
mod state;
mod working_set;

/// A minimal checkpoint written for unit tests: `metadata`, and per batch `offsets/N` (the
/// v1 header, batch metadata, then `sources` as its source lines) with `commits/N`.
#[cfg(any(test, feature = "test-fixtures"))]
#[doc(hidden)]
pub fn write_test_checkpoint(root: &std::path::Path, batches: &[&[&str]]) {
    const META: &str = r#"{"batchWatermarkMs":0,"batchTimestampMs":1,"conf":{}}"#;
    std::fs::create_dir_all(root.join("offsets")).unwrap();
    std::fs::create_dir_all(root.join("commits")).unwrap();
    std::fs::write(
        root.join("metadata"),
        r#"{"id":"5f0e6fa4-2a0c-4e38-9a4e-0d3f1c2b7a11"}"#,
    )
    .unwrap();
    for (id, sources) in batches.iter().enumerate() {
        let mut text = format!("v1\n{META}");
        for line in *sources {
            text.push('\n');
            text.push_str(line);
        }
        std::fs::write(root.join(format!("offsets/{id}")), text).unwrap();
        std::fs::write(
            root.join(format!("commits/{id}")),
            "v1\n{\"nextBatchWatermarkMs\":0}",
        )
        .unwrap();
    }
}

use std::collections::BTreeMap;

pub use batch::BatchId;

/// Kafka offsets as the Kafka source writes them in the offset log: topic → partition → offset
/// (`{"topic":{"0":42}}`, KafkaSourceOffset / JsonUtils.scala).
pub type KafkaOffsets = BTreeMap<String, BTreeMap<u32, i64>>;

pub use commits::{parse_commit_log, CommitLogFile, COMMIT_LOG_MAX_VERSION};
pub use error::{CheckpointError, ParseError, ParseErrorKind};
pub use findings::{Finding, Severity};
pub use fingerprint::{markers, ArtifactMarker, ConfKeyMarker, Evidence, Markers, WriterVersion};
pub use inspect::{
    describe_ranges, gap_ranges, inspect, inspect_store, inspect_store_counted, StoreReads,
    LOG_WINDOW,
};
pub use loader::READ_CAP;
pub use metadata::{
    parse_operator_metadata, parse_query_metadata, parse_state_schema, OperatorMetadata,
    StateSchema, StoreInfo,
};
pub use model::{
    CommitLogInfo, FileSummary, Inspection, OffsetLogInfo, Operator, OperatorMetadataFile,
    PinnedConf, SchemaFile, SourceKind, SourceOffset, WriterSegment,
};
pub use offsets::{
    kafka_offsets_json, parse_offset_log, KafkaSourceOffset, OffsetLogFile, OffsetSeqMetadata,
    SourceLine, OFFSET_LOG_MAX_VERSION, VOID_OFFSET,
};
pub use state::{PartitionState, Provider};
pub use working_set::{
    rocksdb_refs, working_set, zip_member, ReadSmall, VersionFact, WorkingSet,
    AUTO_SNAPSHOT_REPAIR, JOIN_STORES, RULES_COVER, ZIP_READ_CAP,
};
