//! The records seeding produces into one topic, once its partition count is known
//! ([`TopicRecords`]): record `n` of a partition (its offset in the sandbox) is
//!
//! | source | key | value | headers | Kafka timestamp |
//! |---|---|---|---|---|
//! | `template` | `n` | the template, `{n}` `{partition}` `{timestamp_ms}` filled | none | `{timestamp_ms}` with `kafka_timestamp`, else the producer's clock |
//! | `sample_file` | `n` | line `n` mod lines | none | as for a template |
//! | `records_file` | the line's | the line's | the line's | the line's `timestamp_ms`, else the producer's clock |
//!
//! `{timestamp_ms}` = the time base + (`n` − `c` + 1) × `time_step_ms`, `c` the partition's
//! checkpointed offset: the first fresh record lies one step past the base, the next two steps…,
//! the fillers before it (a re-run pending batch reads them) at or before it. The base is the
//! checkpoint's event time when seeding for a restart ([`time_base_ms`]: its watermark, or its
//! last batch's timestamp without one), so fresh records carry event times just past its
//! watermark however large its offsets are; a generation uses its start time and `c` = 0.
//!
//! A `records_file`'s records are laid out per partition as a Java producer would have written
//! them: a line's `partition`, else Kafka's default partitioner on its key
//! ([`partition_for_key`]), else round-robin over the keyless lines. Record `n` of a partition is
//! its `n mod count`-th record: a generation reads the first ones, the restart reads on from the
//! checkpoint's offsets. A partition the file gives no record to cycles through the whole file
//! (its keys then do not hash to that partition: say so with `partition` or more lines).
//!
//! A `records_file` whose lines carry production offsets (`rehearse capture`'s) is placed by
//! them instead ([`TopicRecords::placed`]): seeding puts each record at its offset less the
//! sandbox's rebase base, by the same rule as a mirror (`seed::mirror_slots`), with template
//! filler (`{"n":N,"partition":P}`, key N) below the first and in gaps, and nothing after the
//! last: the restart reads production's record at the checkpoint's offset.

use std::borrow::Cow;

use super::error::KafkaError;
use super::partitioner::partition_for_key;
use rehearse_checkpoint::Inspection;
use rehearse_scenario::{FileRecord, RecordSource, RecordsFile, Topic, DEFAULT_TIME_STEP_MS};

/// Checks, before any trial starts, that every `records_file` fits the topic as `inspection`'s
/// checkpoint has it: a line's `partition` below the checkpoint's partition count (the scenario's
/// `partitions` was checked at load; a checkpoint may name fewer), and, for a file with
/// production offsets, its first record in a partition at most
/// [`MAX_FILLER_RECORDS`](rehearse_scenario::MAX_FILLER_RECORDS) offsets past the checkpoint's:
/// seeding fills the offsets between with one filler record each (an offset of i64::MAX once
/// made it allocate 8 GiB and abort after Kafka had started; issue 25 §4). The error names the
/// line.
pub fn check_records_fit(inspection: &Inspection, topics: &[Topic]) -> Result<(), KafkaError> {
    let counts = inspection.kafka_partition_counts();
    let required = inspection.required_kafka_offsets();
    for t in topics {
        let RecordSource::File(file) = &t.records else {
            continue;
        };
        if let Some(n) = counts.get(&t.name) {
            TopicRecords::new(&t.name, &t.records, *n, 0, t.time_step_ms, false)?;
        }
        for (&partition, &needed) in required.get(&t.name).into_iter().flatten() {
            let first = file
                .records
                .iter()
                .filter(|r| r.partition == Some(partition))
                .filter_map(|r| r.offset.map(|o| (o, r.line)))
                .min();
            let Some((first, line)) = first else {
                continue;
            };
            let filler = i128::from(first) - i128::from(needed.max(0));
            if filler > i128::from(rehearse_scenario::MAX_FILLER_RECORDS) {
                return Err(KafkaError::Records {
                    topic: t.name.clone(),
                    message: format!(
                        "{}:{line}: the first record of partition {partition} is at offset {first}, {filler} offsets past the checkpoint's offset {needed}: seeding would produce that many filler records, more than {}\n(hint: a capture of this checkpoint's topic holds records from its offsets on; capture again with `rehearse capture`, or remove the offsets)",
                        file.path.display(),
                        rehearse_scenario::MAX_FILLER_RECORDS
                    ),
                });
            }
        }
    }
    Ok(())
}

/// One record to produce, borrowed from a records file or made from a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// Key bytes (`None`: no key).
    pub key: Option<Cow<'a, [u8]>>,
    /// Value bytes (`None`: null value).
    pub value: Option<Cow<'a, [u8]>>,
    /// Headers (name, value).
    pub headers: &'a [(String, Option<Vec<u8>>)],
    /// Kafka timestamp in ms (`None`: the producer's clock).
    pub timestamp_ms: Option<i64>,
}

/// How one topic's records are made, for a known partition count and time base.
#[derive(Debug, Clone)]
pub struct TopicRecords {
    source: RecordSource,
    /// Per partition, indices into the records file (records files only).
    by_partition: Vec<Vec<usize>>,
    base_ms: i64,
    step_ms: u64,
    kafka_timestamp: bool,
    /// Per partition, the offset `{timestamp_ms}` counts from (absent: 0).
    origins: std::collections::BTreeMap<u32, u64>,
}

impl TopicRecords {
    /// These records with `{timestamp_ms}` counted from each partition's checkpointed offset.
    pub fn counting_from(mut self, origins: std::collections::BTreeMap<u32, u64>) -> Self {
        self.origins = origins;
        self
    }

    /// The records of `source` over `partitions` partitions, `{timestamp_ms}` = `base_ms` +
    /// `n` × `step_ms`. A records-file line whose `partition` is not below `partitions` (the
    /// checkpoint names fewer partitions than the file assumed) is an error naming the line.
    pub fn new(
        topic: &str,
        source: &RecordSource,
        partitions: u32,
        base_ms: i64,
        step_ms: u64,
        kafka_timestamp: bool,
    ) -> Result<TopicRecords, KafkaError> {
        let by_partition = match source {
            RecordSource::File(f) => {
                layout(f, partitions).map_err(|message| KafkaError::Records {
                    topic: topic.to_string(),
                    message,
                })?
            }
            _ => Vec::new(),
        };
        Ok(TopicRecords {
            source: source.clone(),
            by_partition,
            base_ms,
            step_ms,
            kafka_timestamp,
            origins: Default::default(),
        })
    }

    /// [`TopicRecords::new`] with a scenario topic's step and timestamp choice (defaults for a
    /// topic the scenario does not name).
    pub fn of(
        name: &str,
        source: &RecordSource,
        spec: Option<&Topic>,
        partitions: u32,
        base_ms: i64,
    ) -> Result<TopicRecords, KafkaError> {
        TopicRecords::new(
            name,
            source,
            partitions,
            base_ms,
            spec.map_or(DEFAULT_TIME_STEP_MS, |t| t.time_step_ms),
            spec.is_some_and(|t| t.kafka_timestamp),
        )
    }

    /// `{timestamp_ms}` of record `n` of `partition`: base + (n − origin + 1) × step, never
    /// below 0 (Kafka refuses negative timestamps).
    pub fn timestamp_ms(&self, partition: u32, n: u64) -> i64 {
        let step = i64::try_from(self.step_ms).unwrap_or(i64::MAX);
        let origin = self.origins.get(&partition).copied().unwrap_or(0);
        let steps = i128::from(n) - i128::from(origin) + 1;
        let steps = i64::try_from(steps).unwrap_or(if steps < 0 { i64::MIN } else { i64::MAX });
        self.base_ms
            .saturating_add(steps.saturating_mul(step))
            .max(0)
    }

    /// Whether the records carry production offsets (a capture's records file): seeding places
    /// them by [`TopicRecords::placed`], never by [`TopicRecords::record`].
    pub fn by_offset(&self) -> bool {
        matches!(&self.source, RecordSource::File(f) if f.records.first().is_some_and(|r| r.offset.is_some()))
    }

    /// With [`TopicRecords::by_offset`], the records of `partition` with their production
    /// offsets, ascending; else none.
    pub fn placed(&self, partition: u32) -> Vec<(i64, Record<'_>)> {
        let RecordSource::File(f) = &self.source else {
            return Vec::new();
        };
        let Some(lines) = self.by_partition.get(partition as usize) else {
            return Vec::new();
        };
        lines
            .iter()
            .filter_map(|&i| {
                let r = &f.records[i];
                r.offset.map(|o| (o, file_record(r)))
            })
            .collect()
    }

    /// The template filler at offset `n` of `partition` where a placed records file has no
    /// record (the default template's record: key `n`, value `{"n":n,"partition":p}`).
    pub fn filler(&self, partition: u32, n: u64) -> Record<'static> {
        Record {
            key: Some(Cow::Owned(n.to_string().into_bytes())),
            value: Some(Cow::Owned(
                format!("{{\"n\":{n},\"partition\":{partition}}}").into_bytes(),
            )),
            headers: &[],
            timestamp_ms: None,
        }
    }

    /// Record `n` (its offset) of `partition`.
    pub fn record(&self, partition: u32, n: u64) -> Record<'_> {
        match &self.source {
            RecordSource::File(f) => {
                let i = match self.by_partition.get(partition as usize) {
                    Some(v) if !v.is_empty() => v[(n as usize) % v.len()],
                    _ => (n as usize) % f.records.len(),
                };
                file_record(&f.records[i])
            }
            other => {
                let ts = self.timestamp_ms(partition, n);
                Record {
                    key: Some(Cow::Owned(n.to_string().into_bytes())),
                    value: Some(Cow::Owned(other.value_at(partition, n, ts).into_bytes())),
                    headers: &[],
                    timestamp_ms: self.kafka_timestamp.then_some(ts),
                }
            }
        }
    }
}

fn file_record(r: &FileRecord) -> Record<'_> {
    Record {
        key: r.key.as_deref().map(Cow::Borrowed),
        value: r.value.as_deref().map(Cow::Borrowed),
        headers: &r.headers,
        timestamp_ms: r.timestamp_ms,
    }
}

/// The evidence that a `records_file` with production offsets (a capture's) does not reach
/// back to the checkpoint's offset in a partition it holds: its first record there is above the
/// offset the restart reads from, so the offsets between are template filler, not production's
/// records — production had lost them when it was captured (its log start was past the
/// checkpoint's offset; `rehearse capture` reported `kafka-data-loss` then). `checkpointed` are
/// the checkpoint's own (production) offsets, before any rebase. `None` when every partition
/// the file holds starts at or below them, or the file has no offsets.
///
/// Breaker pass, session 7: such a file replayed got `resumed`, the restart reading filler at
/// the checkpoint's offsets as if production still held records there.
pub fn records_file_loss(
    topics: &[Topic],
    checkpointed: &rehearse_checkpoint::KafkaOffsets,
) -> Option<String> {
    let mut short = Vec::new();
    for topic in topics {
        let RecordSource::File(file) = &topic.records else {
            continue;
        };
        let Some(parts) = checkpointed.get(&topic.name) else {
            continue;
        };
        for (&partition, &needed) in parts {
            let first = file
                .records
                .iter()
                .filter(|r| r.partition.map(i64::from) == Some(i64::from(partition)))
                .filter_map(|r| r.offset)
                .min();
            if let Some(first) = first.filter(|&f| f > needed) {
                short.push(format!(
                    "{}/{partition} starts at offset {first} in {}, above the checkpoint's offset {needed}",
                    topic.name,
                    file.path.display()
                ));
            }
        }
    }
    (!short.is_empty()).then(|| {
        format!(
            "the records_file does not reach back to the checkpoint's offsets: {}; the offsets between are template filler, not production's records (production no longer held them when they were captured), so a production restart would meet Kafka data loss",
            short.join("; ")
        )
    })
}

/// The records file's line indices per partition: the line's `partition`, the key's
/// (murmur2), or round-robin over keyless lines.
fn layout(f: &RecordsFile, partitions: u32) -> Result<Vec<Vec<usize>>, String> {
    let partitions = partitions.max(1);
    let mut out = vec![Vec::new(); partitions as usize];
    let mut keyless = 0u32;
    for (i, r) in f.records.iter().enumerate() {
        let p = match (r.partition, &r.key) {
            (Some(p), _) if p >= partitions => {
                return Err(format!(
                    "{}:{}: `partition` = {p}, but the topic has {partitions} partition(s) in the checkpoint\n(hint: fix the line, or leave `partition` out to partition by key)",
                    f.path.display(),
                    r.line
                ))
            }
            (Some(p), _) => p,
            (None, Some(k)) => partition_for_key(k, partitions),
            (None, None) => {
                keyless += 1;
                (keyless - 1) % partitions
            }
        };
        out[p as usize].push(i);
    }
    // Records with offsets (all or none, checked at load) in offset order.
    for lines in &mut out {
        lines.sort_by_key(|&i| f.records[i].offset.unwrap_or(0));
    }
    Ok(out)
}

/// The event-time base of records seeded for a restart of `inspection`'s checkpoint: the
/// watermark it resumes with (`batchWatermarkMs` of the latest offset file, or the last
/// commit's `nextBatchWatermarkMs` when later), else its last batch's `batchTimestampMs`
/// (`OffsetSeqMetadata`, Spark's OffsetSeq.scala), else `now_ms`.
pub fn time_base_ms(inspection: &Inspection, now_ms: i64) -> i64 {
    let meta = inspection
        .offset_log
        .as_ref()
        .and_then(|o| o.metadata.as_ref());
    time_base(
        meta.and_then(|m| m.batch_watermark_ms),
        inspection
            .commit_log
            .as_ref()
            .and_then(|c| c.next_batch_watermark_ms),
        meta.and_then(|m| m.batch_timestamp_ms),
        now_ms,
    )
}

/// [`time_base_ms`] from its facts: Spark writes a watermark of 0 when the query has none.
fn time_base(
    watermark: Option<i64>,
    next_watermark: Option<i64>,
    batch_timestamp: Option<i64>,
    now_ms: i64,
) -> i64 {
    watermark
        .into_iter()
        .chain(next_watermark)
        .max()
        .filter(|w| *w > 0)
        .or(batch_timestamp.filter(|t| *t > 0))
        .unwrap_or(now_ms)
}

/// Milliseconds since the epoch now (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn file(text: &str) -> RecordSource {
        RecordSource::File(Arc::new(
            RecordsFile::parse(text.as_bytes(), Path::new("r.jsonl"), None).unwrap(),
        ))
    }

    #[test]
    fn keyed_lines_go_where_kafkas_partitioner_puts_them_keyless_round_robin() {
        // Where "21" goes is the partitioner's answer, which its own test ties to Kafka's values.
        let src = file(concat!(
            "{\"key\":\"21\",\"value\":\"a\"}\n",
            "{\"value\":\"k0\"}\n",
            "{\"value\":\"k1\"}\n",
            "{\"key\":\"abc\",\"value\":\"b\",\"partition\":2}\n",
        ));
        let r = TopicRecords::new("t", &src, 3, 0, 1000, false).unwrap();
        let p21 = partition_for_key(b"21", 3) as usize;
        assert!(r.by_partition[p21].contains(&0));
        assert!(r.by_partition[0].contains(&1), "first keyless line → 0");
        assert!(r.by_partition[1].contains(&2), "second keyless line → 1");
        assert!(r.by_partition[2].contains(&3), "explicit partition kept");
        let rec = r.record(2, 7);
        assert_eq!(rec.key.as_deref(), Some(&b"abc"[..]));
    }

    /// Breaker pass (issue 25 §4): a records file offset of i64::MAX passed every check and
    /// seeding aborted allocating filler for it after Kafka had started.
    #[test]
    fn a_records_file_far_past_the_checkpoints_offset_is_refused_before_any_trial() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        rehearse_checkpoint::write_test_checkpoint(root, &[&[r#"{"events":{"0":15}}"#]]);
        let inspection = rehearse_checkpoint::inspect(root).unwrap();
        let topic = |text: &str| Topic {
            name: "events".into(),
            partitions: 1,
            records: file(text),
            fresh_records: 1,
            fill_to_checkpoint: true,
            time_step_ms: 1000,
            kafka_timestamp: false,
        };
        let near = topic("{\"value\":\"a\",\"partition\":0,\"offset\":15}\n");
        check_records_fit(&inspection, &[near]).unwrap();
        let far = topic("{\"value\":\"a\",\"partition\":0,\"offset\":9223372036854775807}\n");
        let err = check_records_fit(&inspection, &[far]).unwrap_err();
        assert!(matches!(err, KafkaError::Records { .. }), "{err}");
        let said = err.to_string();
        assert!(
            said.contains("r.jsonl:1") && said.contains("filler records") && said.contains("hint"),
            "{said}"
        );
    }

    /// Breaker pass, session 7: a capture made after production lost the records at the
    /// checkpoint's offsets, replayed, got `resumed` — the restart read template filler there.
    #[test]
    fn a_records_file_starting_above_the_checkpoints_offset_is_data_loss_evidence() {
        let topic = |text: &str| Topic {
            name: "events".into(),
            partitions: 2,
            records: file(text),
            fresh_records: 1,
            fill_to_checkpoint: true,
            time_step_ms: 1000,
            kafka_timestamp: false,
        };
        let mut ck = rehearse_checkpoint::KafkaOffsets::new();
        ck.entry("events".into()).or_default().insert(0, 15);
        ck.entry("events".into()).or_default().insert(1, 15);
        let lost = topic(concat!(
            "{\"value\":\"a\",\"partition\":0,\"offset\":20}\n",
            "{\"value\":\"b\",\"partition\":1,\"offset\":10}\n",
        ));
        let e = records_file_loss(&[lost], &ck).expect("partition 0 starts past offset 15");
        assert!(e.contains("events/0 starts at offset 20"), "{e}");
        assert!(!e.contains("events/1"), "{e}");
        // Starting at the checkpoint's offset, or a file without offsets: no evidence.
        let whole = topic(concat!(
            "{\"value\":\"a\",\"partition\":0,\"offset\":15}\n",
            "{\"value\":\"b\",\"partition\":1,\"offset\":14}\n",
        ));
        assert_eq!(records_file_loss(&[whole], &ck), None);
        let plain = topic("{\"value\":\"a\"}\n");
        assert_eq!(records_file_loss(&[plain], &ck), None);
    }

    #[test]
    fn a_partition_past_the_checkpoints_count_is_bad_input_naming_the_line() {
        let src = file("{\"value\":\"a\"}\n{\"value\":\"b\",\"partition\":4}\n");
        let err = TopicRecords::new("t", &src, 2, 0, 1000, false).unwrap_err();
        assert!(err.to_string().contains("r.jsonl:2"), "{err}");
        assert_eq!(
            rehearse_base::HasErrorKind::error_kind(&err),
            rehearse_base::ErrorKind::BadInput
        );
    }

    #[test]
    fn records_files_are_checked_against_the_checkpoints_partition_counts() {
        // kafka-agg reads one Kafka topic; a line for a partition it lacks is refused.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/checkpoints/3.3.4/kafka-agg");
        let inspection = rehearse_checkpoint::inspect(&dir).unwrap();
        let (name, count) = inspection
            .kafka_partition_counts()
            .into_iter()
            .next()
            .expect("a Kafka topic");
        let topic = |line: String| Topic {
            name: name.clone(),
            partitions: 64,
            records: file(&line),
            fresh_records: 1,
            fill_to_checkpoint: true,
            time_step_ms: 1000,
            kafka_timestamp: false,
        };
        let fits = topic(format!("{{\"value\":\"a\",\"partition\":{}}}", count - 1));
        assert!(check_records_fit(&inspection, &[fits]).is_ok());
        let past = topic(format!("{{\"value\":\"a\",\"partition\":{count}}}"));
        let err = check_records_fit(&inspection, &[past]).unwrap_err();
        assert!(err.to_string().contains("r.jsonl:1"), "{err}");
    }

    #[test]
    fn file_records_keep_headers_and_timestamps_and_cycle_by_offset() {
        let src = file(concat!(
            "{\"key\":\"k\",\"value_base64\":\"AAE=\",\"headers\":{\"h\":\"x\"},\"timestamp_ms\":5,\"partition\":0}\n",
            "{\"key\":\"k2\",\"value\":\"v\",\"partition\":0}\n",
        ));
        let r = TopicRecords::new("t", &src, 2, 0, 1000, true).unwrap();
        let a = r.record(0, 0);
        assert_eq!(a.value.as_deref(), Some(&[0u8, 1][..]));
        assert_eq!(a.headers[0].0, "h");
        assert_eq!(a.timestamp_ms, Some(5));
        assert_eq!(r.record(0, 3).key.as_deref(), Some(&b"k2"[..]));
        assert_eq!(
            r.record(1, 0).key.as_deref(),
            Some(&b"k"[..]),
            "a partition the file gives nothing cycles through the whole file"
        );
    }

    #[test]
    fn records_with_offsets_are_placed_by_them_in_order_per_partition() {
        let src = file(concat!(
            "{\"key\":\"b\",\"partition\":0,\"offset\":41}\n",
            "{\"key\":\"a\",\"partition\":0,\"offset\":40}\n",
            "{\"key\":\"c\",\"partition\":1,\"offset\":7}\n",
        ));
        let r = TopicRecords::new("t", &src, 2, 0, 1000, false).unwrap();
        assert!(r.by_offset());
        let placed = r.placed(0);
        let p0: Vec<(i64, Option<&[u8]>)> = placed
            .iter()
            .map(|(o, rec)| (*o, rec.key.as_deref()))
            .collect();
        assert_eq!(p0, [(40, Some(&b"a"[..])), (41, Some(&b"b"[..]))]);
        assert_eq!(r.placed(1).len(), 1);
        assert_eq!(
            r.filler(1, 3).value.as_deref(),
            Some(&b"{\"n\":3,\"partition\":1}"[..])
        );
        let plain = TopicRecords::new("t", &file("{\"key\":\"x\"}\n"), 2, 0, 1000, false).unwrap();
        assert!(!plain.by_offset() && plain.placed(0).is_empty());
    }

    #[test]
    fn the_time_base_is_the_watermark_else_the_batch_timestamp_else_now() {
        assert_eq!(time_base(Some(10), Some(20), Some(99), 5), 20);
        assert_eq!(time_base(Some(0), None, Some(99), 5), 99, "0: no watermark");
        assert_eq!(time_base(None, None, None, 5), 5);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/checkpoints/3.3.4/rocksdb-agg");
        let inspection = rehearse_checkpoint::inspect(&dir).unwrap();
        assert_eq!(time_base_ms(&inspection, 5), 1_704_067_860_000);
    }

    #[test]
    fn templates_fill_timestamp_ms_from_the_base_and_step() {
        let src = RecordSource::Template("{\"n\":{n},\"ts\":{timestamp_ms}}".into());
        let r = TopicRecords::new("t", &src, 1, 1_000_000, 500, true).unwrap();
        let rec = r.record(0, 4);
        assert_eq!(rec.value.as_deref(), Some(&b"{\"n\":4,\"ts\":1002500}"[..]));
        assert_eq!(rec.timestamp_ms, Some(1_002_500));
        assert_eq!(rec.key.as_deref(), Some(&b"4"[..]));
        // Counted from the checkpointed offset: the first fresh record is one step past the
        // base (the watermark) however large the offsets, fillers at or before it.
        let r = r.counting_from([(0, 2_000_000)].into());
        assert_eq!(r.timestamp_ms(0, 2_000_000), 1_000_500);
        assert_eq!(r.timestamp_ms(0, 2_000_003), 1_002_000);
        assert_eq!(r.timestamp_ms(0, 1_999_999), 1_000_000);
        assert_eq!(r.timestamp_ms(0, 0), 0, "never negative");
        let r = TopicRecords::new("t", &src, 1, 0, 500, false).unwrap();
        assert_eq!(r.record(0, 1).timestamp_ms, None, "the producer's clock");
    }
}
