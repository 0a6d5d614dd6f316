//! Streaming query progress (`StreamingQueryProgress`), read from the driver log's
//! "Streaming query made progress: {json}" (pretty JSON over many lines, any logger:
//! `MicroBatchExecution` to 3.5, `ProgressReporter` in 4.0, `…streaming.runtime.*` from
//! 4.1) or from the event log's `QueryProgressEvent`.
//!
//! Only reads what a resume proof needs: query id, batch id, whether a batch actually ran,
//! and each source's start offset. Offsets may be nested JSON (the log) or a JSON string
//! (the event log's Jackson form); both are normalised to a `serde_json::Value`.

use serde_json::Value;

/// What one progress report says, as far as it is visible.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Progress {
    /// `id`: the query id (the checkpoint's `metadata` id when the checkpoint was used).
    pub id: Option<String>,
    /// `runId`: new on every start.
    pub run_id: Option<String>,
    /// `batchId` (absent in Spark 2.1/2.2).
    pub batch_id: Option<u64>,
    /// Whether a micro-batch ran in this trigger (`Some(false)`: an idle trigger's report).
    pub executed: bool,
    /// `sources[i].startOffset`, normalised; `None` when the log did not show them.
    pub start_offsets: Option<Vec<Option<Value>>>,
    /// Rows the batch read: `numInputRows`, or the sum over `sources[i].numInputRows`.
    pub input_rows: u64,
    /// `eventTime.watermark`, as far as the report shows it.
    pub watermark: WatermarkSeen,
    /// The state rows of the batch, summed over `stateOperators[i]` (`StateOperatorProgress`,
    /// progress.scala, 3.x and 4.x); `None` when the report lists no stateful operator or was cut.
    pub state: Option<StateRows>,
    /// `sink.numOutputRows` (`SinkProgress`, progress.scala): the rows the sink wrote in this
    /// batch, `-1` when the sink does not report it (a V1 sink: the file sink, `foreachBatch`);
    /// `None` when the report shows no sink (cut, or Spark before 3.0).
    pub sink_rows: Option<i64>,
    /// A complete report of a trigger that found no new record and ran no batch: no `addBatch`
    /// duration, `numInputRows` 0 (`ProgressReporter.finishNoExecutionTrigger`, posted every
    /// `spark.sql.streaming.noDataProgressEventInterval`, 10 s by default). A stateful query
    /// that needs a no-data batch (its watermark moved) runs one instead (`shouldRunAnotherBatch`
    /// in MicroBatchExecution, 3.x–4.0), so an idle report means no batch will run until new
    /// records arrive. `false` for a cut report.
    pub idle: bool,
}

/// The state rows a batch reports, summed over its stateful operators
/// (`StateOperatorProgress` in sql/core's `streaming/progress.scala`, 3.3–4.0: `numRowsTotal`
/// is the number of keys in the operator's state store once the batch committed
/// (`StateStoreWriter.setStoreMetrics`: `store.metrics.numKeys`), `numRowsUpdated` the rows the
/// batch put, `numRowsRemoved` the rows it removed — by the watermark, or a timeout).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StateRows {
    /// `numRowsTotal`, summed.
    pub total: i64,
    /// `numRowsUpdated`, summed.
    pub updated: i64,
    /// `numRowsRemoved`, summed (0 where a version does not report it).
    pub removed: i64,
    /// Every operator reports `customMetrics.loadedMapCacheMissCount > 0`: its HDFS-backed
    /// store found the version it runs on in no cache and read it from the checkpoint's
    /// snapshot and delta files (`HDFSBackedStateStoreProvider.loadMap`, 3.3–4.x, which also
    /// logs "Reading snapshot file and delta files if needed"). `false` for RocksDB stores,
    /// which report no such metric.
    pub loaded_from_files: bool,
    /// How many stateful operators the report lists.
    pub operators: usize,
}

/// What a progress report says of the event-time watermark. Spark writes `eventTime.watermark`
/// only when the plan has a watermark (`ProgressReporter.extractEventTimeStats`: `hasEventTime`,
/// jar:3.5.3; `eventTime` itself is left out of the JSON when its map is empty,
/// `safeMapToJValue`), so a complete report without it means the query has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum WatermarkSeen {
    /// A report cut before its end: not known.
    #[default]
    Unknown,
    /// A complete report with no `eventTime.watermark` (or a null one): no watermark.
    Absent,
    /// The watermark the batch ran with (`2024-01-01T00:00:24.000Z`).
    At(String),
}

/// Tracks `{…}` nesting over the lines of a pretty-printed JSON document.
#[derive(Debug, Default, Clone)]
pub(crate) struct JsonDepth {
    depth: i64,
    started: bool,
    in_string: bool,
    escaped: bool,
}

impl JsonDepth {
    /// Feeds one chunk; returns `true` once the top-level value has closed.
    pub fn feed(&mut self, chunk: &str) -> bool {
        for b in chunk.bytes() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    self.started = true;
                }
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.started && self.depth <= 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }
}

/// Normalises an offset as printed: a JSON string holding JSON becomes that JSON.
pub(crate) fn normalise_offset(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(serde_json::from_str(s).unwrap_or_else(|_| v.clone())),
        other => Some(other.clone()),
    }
}

/// The scalar value of the first `"key" : value` in pretty or compact JSON text (quotes
/// stripped from strings); `None` when absent.
fn json_field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let mut from = 0;
    while let Some(p) = text[from..].find(key) {
        let at = from + p;
        from = at + key.len();
        let quoted = text[..at].ends_with('"') && text[from..].starts_with('"');
        if !quoted {
            continue;
        }
        let rest = text[from + 1..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        return if let Some(s) = rest.strip_prefix('"') {
            s.find('"').map(|e| &s[..e])
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
                .unwrap_or(rest.len());
            Some(&rest[..end])
        };
    }
    None
}

impl Progress {
    /// Reads a complete progress JSON object.
    pub fn from_json(v: &Value) -> Progress {
        let num = |v: Option<&Value>| v.and_then(Value::as_i64).unwrap_or(0);
        let sources = v.get("sources").and_then(Value::as_array);
        let rows_in_sources: i64 = sources
            .map(|s| s.iter().map(|s| num(s.get("numInputRows"))).sum())
            .unwrap_or(0);
        let added_batch = v
            .get("durationMs")
            .and_then(Value::as_object)
            .is_some_and(|d| d.contains_key("addBatch"));
        let stateful = v
            .get("stateOperators")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        // An idle trigger (no batch ran) reports numInputRows 0, no stateOperators (before
        // any batch of this run) and no `addBatch` duration; a batch that ran shows one of them.
        let executed =
            added_batch || stateful || num(v.get("numInputRows")) > 0 || rows_in_sources > 0;
        let state = v
            .get("stateOperators")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .map(|ops| {
                let sum = |key: &str| ops.iter().map(|o| num(o.get(key)).max(0)).sum();
                StateRows {
                    total: sum("numRowsTotal"),
                    updated: sum("numRowsUpdated"),
                    removed: sum("numRowsRemoved"),
                    loaded_from_files: ops.iter().all(|o| {
                        o.pointer("/customMetrics/loadedMapCacheMissCount")
                            .and_then(Value::as_i64)
                            .is_some_and(|n| n > 0)
                    }),
                    operators: ops.len(),
                }
            });
        let sink_rows = v.pointer("/sink/numOutputRows").and_then(Value::as_i64);
        let watermark = match v.pointer("/eventTime/watermark") {
            Some(Value::String(at)) => WatermarkSeen::At(at.clone()),
            _ => WatermarkSeen::Absent,
        };
        let idle = !added_batch
            && v.get("durationMs").is_some_and(Value::is_object)
            && num(v.get("numInputRows")) == 0
            && rows_in_sources == 0;
        Progress {
            watermark,
            state,
            sink_rows,
            idle,
            id: v.get("id").and_then(Value::as_str).map(str::to_owned),
            run_id: v.get("runId").and_then(Value::as_str).map(str::to_owned),
            batch_id: v.get("batchId").and_then(Value::as_u64),
            executed,
            input_rows: num(v.get("numInputRows")).max(rows_in_sources).max(0) as u64,
            start_offsets: sources.map(|s| {
                s.iter()
                    .map(|s| s.get("startOffset").and_then(normalise_offset))
                    .collect()
            }),
        }
    }

    /// Reads the text after "made progress: ": a complete JSON object, or (when the log was
    /// cut) whatever fields are visible — then the start offsets count as not shown.
    pub fn from_text(text: &str) -> Progress {
        if let Ok(v) = serde_json::from_str::<Value>(text.trim()) {
            if v.is_object() {
                return Progress::from_json(&v);
            }
        }
        // A cut report: read the visible fields by hand (this runs for every report of a
        // trimmed log, so no regex here).
        let rows: i64 = json_field(text, "numInputRows")
            .and_then(|r| r.parse().ok())
            .unwrap_or(0);
        Progress {
            id: json_field(text, "id").map(str::to_owned),
            run_id: json_field(text, "runId").map(str::to_owned),
            batch_id: json_field(text, "batchId").and_then(|b| b.parse().ok()),
            executed: rows > 0
                || text.contains("\"numRowsTotal\"")
                || text.contains("\"addBatch\""),
            start_offsets: None,
            input_rows: rows.max(0) as u64,
            watermark: WatermarkSeen::Unknown,
            state: None,
            sink_rows: None,
            idle: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_string_offsets_normalise_alike() {
        let nested = Progress::from_text(
            r#"{"id":"q","runId":"r","batchId":4,"numInputRows":3,"sources":[{"description":"KafkaV2[Subscribe[t]]","startOffset":{"t":{"0":42,"1":7}},"endOffset":{"t":{"0":45,"1":7}},"numInputRows":3}]}"#,
        );
        let string = Progress::from_json(&serde_json::json!({
            "id":"q","runId":"r","batchId":4,
            "sources":[{"startOffset":"{\"t\":{\"1\":7,\"0\":42}}","numInputRows":3}]
        }));
        assert_eq!(nested.start_offsets, string.start_offsets);
        assert!(nested.executed && string.executed);
        assert_eq!(nested.batch_id, Some(4));
    }

    #[test]
    fn idle_trigger_is_not_a_batch() {
        let p = Progress::from_json(&serde_json::json!({
            "id":"q","batchId":4,"numInputRows":0,"stateOperators":[],
            "durationMs":{"latestOffset":3,"triggerExecution":3},
            "sources":[{"startOffset":{"logOffset":2},"endOffset":{"logOffset":2},"numInputRows":0}]
        }));
        assert!(!p.executed);
        let no_data_batch = Progress::from_json(&serde_json::json!({
            "id":"q","batchId":6,"numInputRows":0,"stateOperators":[{"numRowsTotal":4}],
            "sources":[{"startOffset":{"logOffset":4},"numInputRows":0}]
        }));
        assert!(no_data_batch.executed);
    }

    #[test]
    fn cut_progress_keeps_ids_but_not_offsets() {
        let p = Progress::from_text("{\n  \"batchId\" : 4,\n  \"numInputRows\" : 10,\n    \"startOffset\" : {\n  ...[progress JSON trimmed]");
        assert_eq!(p.batch_id, Some(4));
        assert!(p.executed);
        assert_eq!(p.start_offsets, None);
    }

    #[test]
    fn cut_progress_fields_are_read_by_exact_key() {
        let t = "{\n  \"runId\" : \"r\",\n  \"id\" : \"q\",\n  \"batchId\" : 12,\n  \"description\" : \"x\"";
        assert_eq!(json_field(t, "id"), Some("q"));
        assert_eq!(json_field(t, "runId"), Some("r"));
        assert_eq!(json_field(t, "batchId"), Some("12"));
        assert_eq!(json_field(t, "numInputRows"), None);
    }

    #[test]
    fn depth_tracker_ignores_braces_in_strings() {
        let mut d = JsonDepth::default();
        assert!(!d.feed("{"));
        assert!(!d.feed("  \"description\" : \"FileStreamSource[{x}]\","));
        assert!(!d.feed("  \"sources\" : [ {"));
        assert!(!d.feed("  } ]"));
        assert!(d.feed("}"));
    }
}
