//! The offset log file `offsets/<batchId>`: a pure parser and a lossless writer.
//!
//! Layout (OffsetSeqLog.scala, OffsetSeq.scala; spark-checkpoints.md §1.1):
//!
//! ```text
//! v1                                   version line (v2 from Spark 4.2 with source evolution)
//! {"batchWatermarkMs":0,...,"conf":{}} OffsetSeqMetadata JSON (empty in Spark 2.0 logs)
//! {"topic":{"0":42}}                   one line per source, in plan order; "-" = no offset yet
//! ```
//!
//! No trailing newline. Version 2 writes each source line as `<sourceId>:<offset>`.
//! [`OffsetLogFile`] keeps every line's raw text, so [`OffsetLogFile::to_text`] gives back the
//! input byte for byte and unknown fields survive an edit of one source's offset. Nothing here
//! touches the file system.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Serialize;

use super::error::{ParseError, ParseErrorKind};
use super::KafkaOffsets;

/// Highest offset log version any Spark release writes (`OffsetSeqLog.MAX_VERSION = 2`, 4.2.0+).
pub const OFFSET_LOG_MAX_VERSION: u32 = 2;

/// The void offset a source has before its first batch (`OffsetSeqLog.SERIALIZED_VOID_OFFSET`).
pub const VOID_OFFSET: &str = "-";

/// One parsed `offsets/N` file, with the raw text of every line kept.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetLogFile {
    version: u32,
    header: String,
    metadata_line: String,
    metadata: Option<OffsetSeqMetadata>,
    sources: Vec<SourceLine>,
    trailing_newline: bool,
}

/// One source's line of an offset log file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// `Some` in offset log v2 (`<sourceId>:<offset>`), `None` in v1.
    source_id: Option<String>,
    /// The offset text exactly as written (`-` for no offset).
    offset: String,
}

/// The OffsetSeqMetadata JSON of line 2 (OffsetSeq.scala; `conf` since 2.2.0).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OffsetSeqMetadata {
    /// `batchWatermarkMs`: the event-time watermark the batch ran with.
    pub batch_watermark_ms: Option<i64>,
    /// `batchTimestampMs`: the batch's processing time (epoch ms).
    pub batch_timestamp_ms: Option<i64>,
    /// `conf`: the SQL confs Spark restores over the session's values on restart. `None` when the
    /// field is absent (written by Spark 2.1).
    pub conf: Option<BTreeMap<String, String>>,
    /// `sourceMetadataInfo` of offset log v2 (4.2+), raw.
    pub source_metadata_info: Option<serde_json::Value>,
    /// `controlBatchInfo` of offset log v2 (4.2+), raw.
    pub control_batch_info: Option<serde_json::Value>,
}

/// Parses the text of an `offsets/N` file the way Spark's OffsetSeqLog reads it.
///
/// Fails on what makes Spark fail: an empty file, a version line that is not `v<N>` or names a
/// version no release writes, a missing or non-JSON metadata line, a v2 line without `id:`.
/// Source offsets are kept as text; they are only interpreted on request.
pub fn parse_offset_log(text: &str) -> Result<OffsetLogFile, ParseError> {
    let trailing_newline = text.ends_with('\n');
    let body = if trailing_newline {
        &text[..text.len() - 1]
    } else {
        text
    };
    if text.is_empty() {
        return Err(ParseError::new(1, ParseErrorKind::Empty));
    }
    let mut lines = body.split('\n');
    let header = lines.next().unwrap_or_default();
    let version =
        parse_version_line(header, OFFSET_LOG_MAX_VERSION).map_err(|k| ParseError::new(1, k))?;
    let Some(metadata_line) = lines.next() else {
        return Err(ParseError::new(
            2,
            ParseErrorKind::Shape(
                "the metadata line is missing (the file ends after its version line)".into(),
            ),
        ));
    };
    let metadata = parse_metadata(metadata_line).map_err(|k| ParseError::new(2, k))?;
    if version >= 2 && metadata.is_none() {
        return Err(ParseError::new(
            2,
            ParseErrorKind::Shape("offset log v2 requires a metadata line (Spark: \"VERSION_2 offset log requires metadata\")".into()),
        ));
    }
    let mut sources = Vec::new();
    for (i, line) in lines.enumerate() {
        let source = if version >= 2 {
            let (id, offset) = line
                .split_once(':')
                .ok_or_else(|| ParseError::new(i + 3, ParseErrorKind::InvalidOffsetMap))?;
            SourceLine {
                source_id: Some(id.to_string()),
                offset: offset.to_string(),
            }
        } else {
            SourceLine {
                source_id: None,
                offset: line.to_string(),
            }
        };
        sources.push(source);
    }
    Ok(OffsetLogFile {
        version,
        header: header.to_string(),
        metadata_line: metadata_line.to_string(),
        metadata,
        sources,
        trailing_newline,
    })
}

/// Checks a version line as `MetadataVersionUtil.validateVersion` does: `v<N>`, N ≥ 1, N ≤ max.
pub(crate) fn parse_version_line(line: &str, max: u32) -> Result<u32, ParseErrorKind> {
    let trimmed = line.trim();
    let version = trimmed
        .strip_prefix('v')
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse::<u32>().ok())
        .filter(|v| *v >= 1)
        .ok_or_else(|| ParseErrorKind::MalformedVersion(clip(line, 40)))?;
    if version > max {
        return Err(ParseErrorKind::UnsupportedVersion {
            found: version,
            max,
        });
    }
    Ok(version)
}

fn parse_metadata(line: &str) -> Result<Option<OffsetSeqMetadata>, ParseErrorKind> {
    if line.trim().is_empty() {
        // Spark 2.0 wrote an empty metadata line.
        return Ok(None);
    }
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| ParseErrorKind::Json(e.to_string()))?;
    let serde_json::Value::Object(map) = value else {
        return Err(ParseErrorKind::Shape(
            "the metadata line is not a JSON object".into(),
        ));
    };
    let long = |key: &str| -> Result<Option<i64>, ParseErrorKind> {
        match map.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| ParseErrorKind::Shape(format!("{key} is not an integer"))),
        }
    };
    let conf = match map.get("conf") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Object(conf)) => Some(
            conf.iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Some(_) => return Err(ParseErrorKind::Shape("conf is not a JSON object".into())),
    };
    Ok(Some(OffsetSeqMetadata {
        batch_watermark_ms: long("batchWatermarkMs")?,
        batch_timestamp_ms: long("batchTimestampMs")?,
        conf,
        source_metadata_info: map.get("sourceMetadataInfo").cloned(),
        control_batch_info: map.get("controlBatchInfo").cloned(),
    }))
}

impl OffsetLogFile {
    /// The text Spark would read back: the exact input for an unmodified file.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(
            self.header.len()
                + self.metadata_line.len()
                + self
                    .sources
                    .iter()
                    .map(|s| s.offset.len() + 2)
                    .sum::<usize>()
                + 4,
        );
        out.push_str(&self.header);
        out.push('\n');
        out.push_str(&self.metadata_line);
        for source in &self.sources {
            out.push('\n');
            if let Some(id) = &source.source_id {
                out.push_str(id);
                out.push(':');
            }
            out.push_str(&source.offset);
        }
        if self.trailing_newline {
            out.push('\n');
        }
        out
    }

    /// The log version (1, or 2 for Spark 4.2+ named sources).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The parsed metadata line; `None` when it was empty (Spark 2.0).
    pub fn metadata(&self) -> Option<&OffsetSeqMetadata> {
        self.metadata.as_ref()
    }

    /// The metadata line's raw text.
    pub fn metadata_text(&self) -> &str {
        &self.metadata_line
    }

    /// The source lines, in plan order.
    pub fn sources(&self) -> &[SourceLine] {
        &self.sources
    }

    /// The source lines, to edit one source's offset (for example to rebase Kafka offsets in a
    /// sandbox copy).
    pub fn sources_mut(&mut self) -> &mut [SourceLine] {
        &mut self.sources
    }
}

impl SourceLine {
    /// The source id of an offset log v2 line; `None` in v1.
    pub fn source_id(&self) -> Option<&str> {
        self.source_id.as_deref()
    }

    /// The offset text as written; `None` for the void offset `-`.
    pub fn offset_text(&self) -> Option<&str> {
        (self.offset != VOID_OFFSET).then_some(self.offset.as_str())
    }

    /// The offset as JSON; `None` for `-` or text that is not JSON.
    pub fn offset_json(&self) -> Option<serde_json::Value> {
        self.offset_text()
            .and_then(|t| serde_json::from_str(t).ok())
    }

    /// The offset as a Kafka source offset, when it has that shape.
    pub fn kafka(&self) -> Option<KafkaSourceOffset> {
        self.offset_text().and_then(KafkaSourceOffset::parse)
    }

    /// Replaces the offset text (written as given: compact JSON, as Spark writes it).
    pub fn set_offset_text(&mut self, text: impl Into<String>) {
        self.offset = text.into();
    }

    /// Replaces the offset with a Kafka offset, keeping its topic and partition order.
    pub fn set_kafka(&mut self, offset: &KafkaSourceOffset) {
        self.offset = offset.to_json();
    }
}

/// A Kafka source offset `{"topic":{"partition":offset}}` (KafkaSourceOffset, JsonUtils.scala),
/// with topics and partitions in the order they were written (Spark writes a hash map, so the
/// order is arbitrary; keeping it makes an edited line differ from the original only in values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaSourceOffset {
    topics: Vec<(String, Vec<(u32, i64)>)>,
}

impl KafkaSourceOffset {
    /// Parses `{"topic":{"0":23}}`; `None` for anything of another shape (including `{}`).
    pub fn parse(text: &str) -> Option<Self> {
        let parsed: OrderedTopics = serde_json::from_str(text).ok()?;
        (!parsed.0.is_empty()).then_some(KafkaSourceOffset { topics: parsed.0 })
    }

    /// Builds one from a topic → partition → offset map (partitions in ascending order).
    pub fn from_offsets(offsets: &KafkaOffsets) -> Self {
        KafkaSourceOffset {
            topics: offsets
                .iter()
                .map(|(topic, parts)| {
                    (topic.clone(), parts.iter().map(|(p, o)| (*p, *o)).collect())
                })
                .collect(),
        }
    }

    /// topic → partition → offset.
    pub fn offsets(&self) -> KafkaOffsets {
        let mut out = KafkaOffsets::new();
        for (topic, parts) in &self.topics {
            let entry = out.entry(topic.clone()).or_default();
            for (p, o) in parts {
                entry.insert(*p, *o);
            }
        }
        out
    }

    /// Sets one partition's offset; returns false when the topic-partition is not in this offset.
    pub fn set(&mut self, topic: &str, partition: u32, offset: i64) -> bool {
        for (t, parts) in &mut self.topics {
            if t == topic {
                for (p, o) in parts.iter_mut() {
                    if *p == partition {
                        *o = offset;
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Compact JSON in the stored order, as Spark writes it.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        for (i, (topic, parts)) in self.topics.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::Value::String(topic.clone()).to_string());
            out.push_str(":{");
            for (j, (p, o)) in parts.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                out.push_str(&format!("\"{p}\":{o}"));
            }
            out.push('}');
        }
        out.push('}');
        out
    }
}

/// Serializes a topic → partition → offset map the way Spark's Kafka source option
/// `startingOffsets` accepts it: `{"topic":{"0":42,"1":17}}` (JsonUtils.partitionOffsets).
pub fn kafka_offsets_json(offsets: &KafkaOffsets) -> String {
    KafkaSourceOffset::from_offsets(offsets).to_json()
}

/// The shape of one source's offset JSON, which says what kind of source wrote it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OffsetShape {
    /// `{"topic":{"0":42}}`: Kafka.
    Kafka(KafkaSourceOffset),
    /// `{"logOffset":N}`: file source (FileStreamSourceOffset).
    FileLog(i64),
    /// A bare integer: LongOffset (rate source, MemoryStream, socket).
    Long(i64),
    /// `{"offset":N,"timestampInMs":T}`: rate-micro-batch (RatePerMicroBatchStreamOffset, 3.3+).
    RatePerMicroBatch,
    /// Anything else.
    Other,
}

pub(crate) fn offset_shape(text: &str) -> OffsetShape {
    if let Some(kafka) = KafkaSourceOffset::parse(text) {
        return OffsetShape::Kafka(kafka);
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Number(n)) if n.is_i64() => {
            OffsetShape::Long(n.as_i64().unwrap_or_default())
        }
        Ok(serde_json::Value::Object(map)) => {
            if map.len() == 1 {
                if let Some(n) = map.get("logOffset").and_then(|v| v.as_i64()) {
                    return OffsetShape::FileLog(n);
                }
            }
            if map.contains_key("offset") && map.contains_key("timestampInMs") {
                return OffsetShape::RatePerMicroBatch;
            }
            OffsetShape::Other
        }
        _ => OffsetShape::Other,
    }
}

/// Why Spark cannot read one source's offset text on restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OffsetProblem {
    /// Not JSON at all (every source's offset is JSON; a Kafka source fails in
    /// JsonUtils.partitionOffsets, others in their own deserializer).
    NotJson { value: String, error: String },
    /// A Kafka offset (`{"topic":{"0":42}}`: an object of objects whose keys are partition
    /// numbers) with a value JsonUtils.partitionOffsets cannot read as a Long, or a negative one
    /// other than the sentinels -1 (latest) and -2 (earliest).
    KafkaValue {
        topic: String,
        partition: String,
        /// The value as JSON text (escaped, so it prints safely).
        value: String,
        why: &'static str,
        /// Spark's JSON reader itself fails (otherwise it reads the value but cannot use it).
        parse_fails: bool,
    },
}

/// Checks one source's offset text the way Spark reads it on restart; `None` when it can be
/// read (or belongs to a source whose format is not known here). `kafka_known`: another offset
/// file shows this source is Kafka, so its offset is checked as Kafka's whatever its keys.
pub(crate) fn offset_problem(text: &str, kafka_known: bool) -> Option<OffsetProblem> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Some(OffsetProblem::NotJson {
                value: serde_json::Value::String(clip(text, 60)).to_string(),
                error: e.to_string(),
            })
        }
    };
    let serde_json::Value::Object(topics) = value else {
        return None;
    };
    // Kafka's shape: every value an object keyed by partition numbers. Other sources' objects
    // (a rate source's {"0":{"value":1,"runTimeMs":2}}) have other keys; a key of digits of
    // any size marks Kafka's shape, so that one Spark cannot read is not taken for another
    // source's.
    let digits = |k: &str| {
        !k.is_empty()
            && k.trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit())
    };
    let objects = !topics.is_empty()
        && topics
            .values()
            .all(|parts| parts.as_object().is_some_and(|p| !p.is_empty()));
    let kafka = objects
        && (kafka_known
            || topics.values().all(|parts| {
                parts
                    .as_object()
                    .is_some_and(|p| p.keys().any(|k| digits(k)))
            }));
    if !kafka {
        return None;
    }
    for (topic, parts) in &topics {
        for (partition, offset) in parts.as_object().into_iter().flatten() {
            // JsonUtils.partitionOffsets: `new TopicPartition(topic, part.toInt)`, a Java int.
            if partition.parse::<i32>().is_err() {
                return Some(OffsetProblem::KafkaValue {
                    topic: topic.clone(),
                    partition: clip(partition, 60),
                    value: clip(&offset.to_string(), 60),
                    why: "has a partition key that is not a Java int (JsonUtils.partitionOffsets reads it with toInt and throws NumberFormatException)",
                    parse_fails: true,
                });
            }
            let (why, parse_fails) = match offset {
                serde_json::Value::Number(n) => match n.as_i64() {
                    Some(o) if o >= 0 || o == -1 || o == -2 => continue,
                    Some(_) => (
                        "is negative; only -1 (latest) and -2 (earliest) mean anything to Spark",
                        false,
                    ),
                    None if raw_number(text, partition).is_some_and(|r| {
                        r.trim_start_matches('-')
                            .bytes()
                            .all(|b| b.is_ascii_digit())
                    }) =>
                    {
                        (
                            "is a whole number larger than a Long can hold (Spark reads a Long)",
                            true,
                        )
                    }
                    None => ("is not a whole number (Spark reads a Long)", true),
                },
                _ => ("is not a number (Spark reads a Long)", true),
            };
            // The number as written: serde_json turns a huge one into a float ("1e+20").
            let value = match offset {
                serde_json::Value::Number(_) => raw_number(text, partition)
                    .map(str::to_string)
                    .unwrap_or_else(|| offset.to_string()),
                _ => offset.to_string(),
            };
            return Some(OffsetProblem::KafkaValue {
                topic: topic.clone(),
                partition: partition.clone(),
                value: clip(&value, 60),
                why,
                parse_fails,
            });
        }
    }
    None
}

/// The text of the number after the key `"<partition>":` in `text`, as written (the first such
/// key; a partition key repeated across topics shows the first one's).
fn raw_number<'a>(text: &'a str, partition: &str) -> Option<&'a str> {
    let key = serde_json::Value::String(partition.to_string()).to_string();
    let mut rest = text;
    while let Some(at) = rest.find(&key) {
        let after = rest[at + key.len()..].trim_start();
        if let Some(value) = after.strip_prefix(':') {
            let value = value.trim_start();
            let end = value
                .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
                .unwrap_or(value.len());
            if end > 0 {
                return Some(&value[..end]);
            }
        }
        rest = &rest[at + key.len()..];
    }
    None
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// `{"topic":{"0":1}}` read in document order; fails on any other shape.
struct OrderedTopics(Vec<(String, Vec<(u32, i64)>)>);
struct OrderedPartitions(Vec<(u32, i64)>);

impl<'de> serde::Deserialize<'de> for OrderedTopics {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedTopics;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of topics")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((topic, parts)) = map.next_entry::<String, OrderedPartitions>()? {
                    out.push((topic, parts.0));
                }
                Ok(OrderedTopics(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> serde::Deserialize<'de> for OrderedPartitions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedPartitions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of partition offsets")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((partition, offset)) = map.next_entry::<String, i64>()? {
                    let partition = partition
                        .parse::<u32>()
                        .map_err(|_| de::Error::custom("partition is not a number"))?;
                    out.push((partition, offset));
                }
                Ok(OrderedPartitions(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line 2 and 3 of the 2.4.3 Kafka fixture quoted in spark-checkpoints.md §1.1
    /// (`checkpoint-version-2.4.3-kafka-include-headers-default/offsets/0`, topic name shortened).
    const KAFKA_2_4_3: &str = "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1568508285207,\"conf\":{\"spark.sql.streaming.stateStore.providerClass\":\"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider\",\"spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion\":\"2\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\",\"spark.sql.streaming.aggregation.stateFormatVersion\":\"2\",\"spark.sql.shuffle.partitions\":\"5\"}}\n{\"kafka-topic\":{\"2\":3,\"4\":3,\"1\":3,\"3\":3,\"0\":3}}";

    /// `offsets/3` of the 3.5.3 aggregation checkpoint in the shared cases (file source).
    const FILE_3_5_3: &str = "v1\n{\"batchWatermarkMs\":1704067224000,\"batchTimestampMs\":1796044092455,\"conf\":{\"spark.sql.streaming.stateStore.providerClass\":\"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider\",\"spark.sql.streaming.join.stateFormatVersion\":\"2\",\"spark.sql.streaming.stateStore.compression.codec\":\"lz4\",\"spark.sql.streaming.stateStore.rocksdb.formatVersion\":\"5\",\"spark.sql.streaming.statefulOperator.useStrictDistribution\":\"true\",\"spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion\":\"2\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\",\"spark.sql.streaming.aggregation.stateFormatVersion\":\"2\",\"spark.sql.shuffle.partitions\":\"2\"}}\n{\"logOffset\":2}";

    #[test]
    fn kafka_offsets_are_parsed_from_a_2_4_3_log() {
        let log = parse_offset_log(KAFKA_2_4_3).unwrap();
        assert_eq!(log.version(), 1);
        let meta = log.metadata().unwrap();
        assert_eq!(meta.batch_watermark_ms, Some(0));
        assert_eq!(meta.batch_timestamp_ms, Some(1568508285207));
        assert_eq!(
            meta.conf.as_ref().unwrap()["spark.sql.shuffle.partitions"],
            "5"
        );
        let kafka = log.sources()[0].kafka().unwrap().offsets();
        assert_eq!(kafka["kafka-topic"].len(), 5);
        assert_eq!(kafka["kafka-topic"][&4], 3);
    }

    #[test]
    fn spark_written_files_round_trip_byte_for_byte() {
        for text in [
            KAFKA_2_4_3,
            FILE_3_5_3,
            "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1}\n-\n1",
        ] {
            assert_eq!(parse_offset_log(text).unwrap().to_text(), text);
        }
    }

    #[test]
    fn editing_one_kafka_partition_changes_only_that_value() {
        let mut log = parse_offset_log(KAFKA_2_4_3).unwrap();
        let mut kafka = log.sources()[0].kafka().unwrap();
        assert!(kafka.set("kafka-topic", 4, 1_000_000));
        assert!(!kafka.set("kafka-topic", 9, 1));
        log.sources_mut()[0].set_kafka(&kafka);
        let text = log.to_text();
        assert!(text.ends_with("{\"kafka-topic\":{\"2\":3,\"4\":1000000,\"1\":3,\"3\":3,\"0\":3}}"));
        assert_eq!(text.len(), KAFKA_2_4_3.len() + 6);
    }

    #[test]
    fn kafka_source_offset_from_the_2_1_0_fixture() {
        // kafka-source-offset-version-2.1.0.txt (spark-checkpoints.md §5).
        let k = KafkaSourceOffset::parse("{\"topic1\":{\"0\":456,\"1\":789},\"topic2\":{\"0\":0}}")
            .unwrap();
        let o = k.offsets();
        assert_eq!(o["topic1"][&1], 789);
        assert_eq!(o["topic2"][&0], 0);
        assert_eq!(
            kafka_offsets_json(&o),
            "{\"topic1\":{\"0\":456,\"1\":789},\"topic2\":{\"0\":0}}"
        );
    }

    #[test]
    fn offsets_of_other_shapes_are_not_kafka() {
        for text in [
            "{\"logOffset\":2}",
            "6",
            "{}",
            "{\"t\":{\"x\":1}}",
            "{\"t\":{\"0\":\"1\"}}",
            "{\"t\":[1]}",
        ] {
            assert_eq!(KafkaSourceOffset::parse(text), None, "{text}");
        }
        assert_eq!(offset_shape("{\"logOffset\":2}"), OffsetShape::FileLog(2));
        assert_eq!(offset_shape("6"), OffsetShape::Long(6));
        assert_eq!(
            offset_shape("{\"offset\":10,\"timestampInMs\":5}"),
            OffsetShape::RatePerMicroBatch
        );
        assert_eq!(
            offset_shape("{\"0\":{\"value\":1,\"runTimeMs\":2}}"),
            OffsetShape::Other
        );
    }

    #[test]
    fn offsets_spark_cannot_read_are_named_with_their_value() {
        for good in [
            "{\"t\":{\"0\":42,\"1\":0}}",
            "{\"t\":{\"0\":-1,\"1\":-2}}",
            "{\"logOffset\":2}",
            "6",
            "{\"0\":{\"value\":1,\"runTimeMs\":2}}",
            "{\"offset\":10,\"timestampInMs\":5}",
        ] {
            assert_eq!(offset_problem(good, false), None, "{good}");
        }
        let kafka = |text: &str| match offset_problem(text, false) {
            Some(OffsetProblem::KafkaValue {
                topic,
                partition,
                value,
                why,
                ..
            }) => (topic, partition, value, why),
            other => panic!("{text}: {other:?}"),
        };
        let (t, p, v, why) = kafka("{\"t\":{\"0\":5,\"1\":\"abc\"}}");
        assert_eq!((t.as_str(), p.as_str(), v.as_str()), ("t", "1", "\"abc\""));
        assert!(why.contains("not a number"));
        assert_eq!(kafka("{\"t\":{\"0\":null}}").2, "null");
        assert!(kafka("{\"t\":{\"0\":1.5}}").3.contains("whole number"));
        assert!(kafka("{\"t\":{\"0\":1e30}}").3.contains("whole number"));
        assert!(kafka("{\"t\":{\"0\":-3}}").3.contains("negative"));
        assert!(matches!(
            offset_problem("{\"t\":{\"0\":4", false),
            Some(OffsetProblem::NotJson { .. })
        ));
        // The value is quoted and escaped: a control character cannot reach a terminal.
        let Some(OffsetProblem::NotJson { value, .. }) = offset_problem("\u{1b}[31mred", false)
        else {
            panic!()
        };
        assert_eq!(value, "\"\\u001b[31mred\"");
    }

    #[test]
    fn void_offset_is_none() {
        let log = parse_offset_log("v1\n{}\n-\n{\"logOffset\":0}").unwrap();
        assert_eq!(log.sources()[0].offset_text(), None);
        assert_eq!(
            log.sources()[1].offset_json(),
            Some(serde_json::json!({"logOffset": 0}))
        );
    }

    #[test]
    fn spark_2_0_empty_metadata_line_and_2_1_metadata_without_conf() {
        let log = parse_offset_log("v1\n\n1").unwrap();
        assert!(log.metadata().is_none());
        let log =
            parse_offset_log("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1}\n1").unwrap();
        assert_eq!(log.metadata().unwrap().conf, None);
    }

    #[test]
    fn offset_log_v2_lines_carry_source_ids() {
        let text = "v2\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"sourceMetadataInfo\":{\"a\":{\"sourceId\":\"a\",\"providerName\":\"kafka\",\"apiVersion\":\"v2\"}}}\na:{\"t\":{\"0\":5}}\nb:-";
        let log = parse_offset_log(text).unwrap();
        assert_eq!(log.version(), 2);
        assert_eq!(log.sources()[0].source_id(), Some("a"));
        assert_eq!(log.sources()[0].kafka().unwrap().offsets()["t"][&0], 5);
        assert_eq!(log.sources()[1].offset_text(), None);
        assert!(log.metadata().unwrap().source_metadata_info.is_some());
        assert_eq!(log.to_text(), text);
        // Spark splits at the first ':' (OffsetSeqLog.deserialize, master), so only a line
        // without one is invalid.
        let bad = parse_offset_log("v2\n{}\n5").unwrap_err();
        assert_eq!(bad, ParseError::new(3, ParseErrorKind::InvalidOffsetMap));
        assert_eq!(
            parse_offset_log("v2\n\na:5").unwrap_err().line,
            2,
            "v2 requires metadata"
        );
    }

    #[test]
    fn damaged_files_fail_as_spark_would() {
        assert_eq!(
            parse_offset_log("").unwrap_err().kind,
            ParseErrorKind::Empty
        );
        assert_eq!(
            parse_offset_log("v99\n{}\n1").unwrap_err().kind,
            ParseErrorKind::UnsupportedVersion { found: 99, max: 2 }
        );
        for bad in ["xyz", "v", "v-1", "v123xyz", "v0"] {
            let err = parse_offset_log(&format!("{bad}\n{{}}")).unwrap_err();
            assert!(
                matches!(err.kind, ParseErrorKind::MalformedVersion(_)),
                "{bad}: {err}"
            );
        }
        assert_eq!(parse_offset_log("v1").unwrap_err().line, 2);
        let cut = &FILE_3_5_3[..40];
        assert!(matches!(
            parse_offset_log(cut).unwrap_err().kind,
            ParseErrorKind::Json(_)
        ));
    }
}
