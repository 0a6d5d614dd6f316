//! The commit log file `commits/<batchId>`: a pure parser.
//!
//! Layout (CommitLog.scala; spark-checkpoints.md §1.2): a version line, then one JSON line.
//! `v1` + `{}` (2.2–2.3), `v1` + `{"nextBatchWatermarkMs":N}` (2.4+), `v2` adds `stateUniqueIds`
//! (4.0+ with `spark.sql.streaming.stateStore.checkpointFormatVersion=2`), `v3` adds
//! `sinkMetadataMap` (4.2+). A missing JSON line reads as `{}`. Nothing here touches the file system.

use serde::Serialize;

use super::error::{ParseError, ParseErrorKind};
use super::offsets::parse_version_line;

/// Highest commit log version any Spark release writes (`CommitLog.MAX_VERSION = 3`, 4.2.0+).
pub const COMMIT_LOG_MAX_VERSION: u32 = 3;

/// One parsed `commits/N` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogFile {
    /// The log version (1; 2 with checkpoint format v2 from 4.0; 3 from 4.2).
    pub version: u32,
    /// `nextBatchWatermarkMs` (2.4+); `None` in the `{}` body of 2.2–2.3.
    pub next_batch_watermark_ms: Option<i64>,
    /// `stateUniqueIds` (v2): operator id → per partition, the unique ids of its stores' files.
    pub state_unique_ids: Option<serde_json::Value>,
    /// `sinkMetadataMap` (v3), raw.
    pub sink_metadata: Option<serde_json::Value>,
    /// Whether the body line was `{}` or absent (written by Spark 2.2 or 2.3).
    pub empty_body: bool,
}

/// Parses the text of a `commits/N` file the way Spark's CommitLog reads it.
pub fn parse_commit_log(text: &str) -> Result<CommitLogFile, ParseError> {
    if text.is_empty() {
        return Err(ParseError::new(1, ParseErrorKind::Empty));
    }
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let version =
        parse_version_line(header, COMMIT_LOG_MAX_VERSION).map_err(|k| ParseError::new(1, k))?;
    let body = lines.next().unwrap_or("{}");
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| ParseError::new(2, ParseErrorKind::Json(e.to_string())))?;
    let serde_json::Value::Object(map) = value else {
        return Err(ParseError::new(
            2,
            ParseErrorKind::Shape("the commit metadata is not a JSON object".into()),
        ));
    };
    let next_batch_watermark_ms = match map.get("nextBatchWatermarkMs") {
        None => None,
        Some(v) => Some(v.as_i64().ok_or_else(|| {
            ParseError::new(
                2,
                ParseErrorKind::Shape("nextBatchWatermarkMs is not an integer".into()),
            )
        })?),
    };
    Ok(CommitLogFile {
        version,
        next_batch_watermark_ms,
        state_unique_ids: map.get("stateUniqueIds").filter(|v| !v.is_null()).cloned(),
        sink_metadata: map.get("sinkMetadataMap").filter(|v| !v.is_null()).cloned(),
        empty_body: map.is_empty(),
    })
}

impl CommitLogFile {
    /// The unique ids v2 names for one operator's partition, if any (`stateUniqueIds[op][part]`).
    pub fn unique_ids(&self, operator: u32, partition: u32) -> Vec<String> {
        self.state_unique_ids
            .as_ref()
            .and_then(|ids| ids.get(operator.to_string()))
            .and_then(|parts| parts.get(partition as usize))
            .and_then(|stores| stores.as_array())
            .map(|stores| {
                stores
                    .iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_of_every_version() {
        let c = parse_commit_log("v1\n{\"nextBatchWatermarkMs\":1704067224000}").unwrap();
        assert_eq!(
            (c.version, c.next_batch_watermark_ms, c.empty_body),
            (1, Some(1704067224000), false)
        );
        let c = parse_commit_log("v1\n{}").unwrap();
        assert!(c.empty_body);
        let c = parse_commit_log("v1").unwrap();
        assert!(c.empty_body, "a missing body reads as {{}}");
        let c = parse_commit_log(
            "v2\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{\"0\":[[\"u-0\"],[\"u-1\"]]}}",
        )
        .unwrap();
        assert_eq!(c.version, 2);
        assert_eq!(c.unique_ids(0, 1), vec!["u-1".to_string()]);
        assert!(c.unique_ids(1, 0).is_empty());
        let c =
            parse_commit_log("v3\n{\"nextBatchWatermarkMs\":0,\"sinkMetadataMap\":{}}").unwrap();
        assert_eq!(c.version, 3);
    }

    #[test]
    fn damaged_commit_files() {
        assert_eq!(
            parse_commit_log("").unwrap_err().kind,
            ParseErrorKind::Empty
        );
        assert!(matches!(
            parse_commit_log("v4\n{}").unwrap_err().kind,
            ParseErrorKind::UnsupportedVersion { found: 4, max: 3 }
        ));
        assert_eq!(parse_commit_log("v1\n{\"nextBatchWat").unwrap_err().line, 2);
        assert_eq!(parse_commit_log("v1\n[1]").unwrap_err().line, 2);
    }
}
