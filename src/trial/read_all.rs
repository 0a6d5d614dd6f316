//! Whether a restarted query has read every seeded record and settled (issue 13 §3): the fair
//! point to stop two runs whose outputs are compared. Judged from the event log's
//! `QueryProgressEvent`s (`StreamingQueryProgress.sources[i]`: `startOffset`, `endOffset`,
//! progress.scala 3.3–4.0; the event log writes them as JSON strings): read every record once
//! some source's `endOffset` reached the seeded end of every partition; settled once a report
//! after that shows start = end for every source (the no-data batch Spark runs when the
//! watermark moved, or an idle trigger's report): windows the last watermark closes are written
//! by then. An idle trigger posts no progress event (3.5.3), so the driver's idle line settles
//! it too ([`ReadAll::feed_line`]). Pure: the caller feeds lines.

use serde_json::Value;

use super::driver::{DriverStream, Next};
use crate::checkpoint::KafkaOffsets;

/// Keeps reading the driver's stream after the verdict until the query read every record of
/// `seeded` and settled ([`ReadAll::done`]), the driver exits, or `deadline` passes. `Ok`: the
/// evidence; `Err`: why it stopped first. The driver's lines still go to `logs/driver.log`.
pub(super) async fn until_read_all(
    stream: &mut DriverStream,
    deadline: tokio::time::Instant,
    seeded: &KafkaOffsets,
) -> Result<String, String> {
    let mut read = ReadAll::default();
    loop {
        match stream.next(deadline).await {
            Next::Event(line) => {
                if read.feed_event(&line, seeded) {
                    return Ok(read.settled_at.unwrap_or_default());
                }
            }
            Next::Line(line) => {
                if read.feed_line(&line) {
                    return Ok(read.settled_at.unwrap_or_default());
                }
            }
            Next::Exited => {
                return Err(format!(
                    "the driver exited first ({})",
                    read.progress_so_far(seeded)
                ))
            }
            Next::TimedOut if tokio::time::Instant::now() < deadline => {}
            Next::TimedOut => {
                return Err(format!(
                    "the trial's timeout passed first ({})",
                    read.progress_so_far(seeded)
                ))
            }
        }
    }
}

/// What the progress reports fed so far show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadAll {
    /// The batch whose end offsets reached the seeded end, once one did.
    pub read_at: Option<u64>,
    /// The report after it whose sources started where they ended (no record left), once one
    /// came: the query is settled.
    pub settled_at: Option<String>,
}

impl ReadAll {
    /// Feeds one event-log line; returns true once the query read every record of `seeded` (the
    /// topics' end offsets after seeding) and settled.
    pub fn feed_event(&mut self, line: &str, seeded: &KafkaOffsets) -> bool {
        if !line.contains("QueryProgressEvent") {
            return self.done();
        }
        let Ok(v) = serde_json::from_str::<Value>(line.trim()) else {
            return self.done();
        };
        let Some(p) = v.get("progress") else {
            return self.done();
        };
        let batch = p.get("batchId").and_then(Value::as_u64);
        let sources: Vec<(Option<Value>, Option<Value>)> = p
            .get("sources")
            .and_then(Value::as_array)
            .map(|s| {
                s.iter()
                    .map(|s| (offsets(s.get("startOffset")), offsets(s.get("endOffset"))))
                    .collect()
            })
            .unwrap_or_default();
        let reached = sources
            .iter()
            .any(|(_, end)| end.as_ref().is_some_and(|e| covers(e, seeded)));
        if self.read_at.is_none() && reached {
            self.read_at = batch.or(Some(0));
        }
        let still = !sources.is_empty() && sources.iter().all(|(s, e)| s.is_some() && s == e);
        if self.read_at.is_some() && self.settled_at.is_none() && reached && still {
            self.settled_at = Some(format!(
                "batch {} started at the seeded end offsets {} (nothing left to read)",
                batch.map_or_else(|| "?".into(), |b| b.to_string()),
                crate::checkpoint::kafka_offsets_json(seeded)
            ));
        }
        self.done()
    }

    /// Feeds one driver-log line: Spark's idle line ("Streaming query has been idle and waiting
    /// for new data more than 10000 ms", `MicroBatchExecution` 3.x / `ProgressReporter` 4.x,
    /// logged once a trigger found no new offset for `noDataProgressEventInterval`) settles the
    /// query — the caller feeds only lines after a resume that read fresh records, and nothing
    /// else writes the sandbox's input topics, so no new offset means every seeded record was
    /// read and no no-data batch is due. (An idle trigger posts no progress event to the event
    /// log: seen on 3.5.3.)
    pub fn feed_line(&mut self, line: &str) -> bool {
        if self.settled_at.is_none() && line.contains("has been idle and waiting for new data") {
            self.settled_at = Some(format!(
                "the driver logged the query idle after the verdict (no offset left to read): {}",
                line.trim()
            ));
        }
        self.done()
    }

    /// What was reached, for an error: the batch that read the last records, or that none did.
    fn progress_so_far(&self, seeded: &KafkaOffsets) -> String {
        match self.read_at {
            Some(b) => format!("batch {b} read up to the seeded end offsets, but no later report showed the query settled"),
            None => format!(
                "no progress report reached the seeded end offsets {}",
                crate::checkpoint::kafka_offsets_json(seeded)
            ),
        }
    }

    /// Whether every record was read and the query settled.
    pub fn done(&self) -> bool {
        self.settled_at.is_some()
    }
}

/// A source offset as JSON: the event log's string parsed, the log's object as is.
fn offsets(v: Option<&Value>) -> Option<Value> {
    match v? {
        Value::Null => None,
        Value::String(s) => serde_json::from_str(s).ok(),
        other => Some(other.clone()),
    }
}

/// Whether a Kafka source offset `{"topic":{"0":5}}` is at or past `seeded` for every partition
/// of every seeded topic.
fn covers(offset: &Value, seeded: &KafkaOffsets) -> bool {
    !seeded.is_empty()
        && seeded.iter().all(|(topic, parts)| {
            parts.iter().all(|(p, end)| {
                offset
                    .pointer(&format!("/{topic}/{p}"))
                    .and_then(Value::as_i64)
                    .is_some_and(|o| o >= *end)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(batch: u64, start: &str, end: &str) -> String {
        let p = serde_json::json!({
            "Event": "org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent",
            "progress": {"id": "q", "batchId": batch, "sources": [{"startOffset": start, "endOffset": end}]}
        });
        p.to_string()
    }

    fn seeded() -> KafkaOffsets {
        let mut k = KafkaOffsets::new();
        k.entry("events".into()).or_default().insert(0, 20);
        k.entry("events".into()).or_default().insert(1, 18);
        k
    }

    #[test]
    fn read_once_the_end_reaches_every_partition_and_settled_after_a_batch_with_nothing_left() {
        let s = seeded();
        let mut r = ReadAll::default();
        assert!(!r.feed_event(
            &event(
                4,
                r#"{"events":{"0":15,"1":15}}"#,
                r#"{"events":{"0":18,"1":18}}"#
            ),
            &s
        ));
        assert_eq!(r.read_at, None, "partition 0 is short");
        assert!(!r.feed_event(
            &event(
                5,
                r#"{"events":{"0":18,"1":18}}"#,
                r#"{"events":{"0":20,"1":18}}"#
            ),
            &s
        ));
        assert_eq!(r.read_at, Some(5));
        assert!(
            !r.done(),
            "the batch that read the last records may leave windows to close"
        );
        assert!(r.feed_event(
            &event(
                6,
                r#"{"events":{"0":20,"1":18}}"#,
                r#"{"events":{"0":20,"1":18}}"#
            ),
            &s
        ));
        assert!(r
            .settled_at
            .as_deref()
            .unwrap()
            .starts_with("batch 6 started at the seeded end"));
    }

    #[test]
    fn the_idle_line_settles_the_query() {
        let mut r = ReadAll::default();
        assert!(!r.feed_line(
            "26/12/01 23:44:25 INFO MicroBatchExecution: Streaming query made progress: {"
        ));
        assert!(r.feed_line("26/12/01 23:44:36 INFO MicroBatchExecution: Streaming query has been idle and waiting for new data more than 10000 ms."));
        assert!(r
            .settled_at
            .as_deref()
            .unwrap()
            .contains("idle after the verdict"));
    }

    #[test]
    fn other_lines_and_a_missing_partition_never_count() {
        let s = seeded();
        let mut r = ReadAll::default();
        assert!(!r.feed_event("{\"Event\":\"SparkListenerJobStart\"}", &s));
        assert!(!r.feed_event("not json QueryProgressEvent", &s));
        assert!(!r.feed_event(
            &event(3, r#"{"events":{"0":20}}"#, r#"{"events":{"0":20}}"#),
            &s
        ));
        assert!(!r.done());
        assert!(
            !ReadAll::default().feed_event(&event(3, "{}", "{}"), &KafkaOffsets::new()),
            "nothing seeded: never read"
        );
    }
}
