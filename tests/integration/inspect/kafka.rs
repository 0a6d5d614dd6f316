//! Kafka offsets: checkpoints assembled from the offset lines quoted in spark-checkpoints.md.

use super::*;

// ---------------------------------------------------------------------------------------------
// Kafka: no Kafka fixture yet (it comes from the trial harness), so a checkpoint is assembled
// from the Kafka offset lines quoted in spark-checkpoints.md §1.1 and §5.

pub(super) const META: &str = r#"{"batchWatermarkMs":0,"batchTimestampMs":1568508285207,"conf":{"spark.sql.streaming.stateStore.providerClass":"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider","spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion":"2","spark.sql.streaming.multipleWatermarkPolicy":"min","spark.sql.streaming.aggregation.stateFormatVersion":"2","spark.sql.shuffle.partitions":"5"}}"#;

pub(super) fn kafka_checkpoint(dir: &Path) {
    fs::create_dir_all(dir.join("offsets")).unwrap();
    fs::create_dir_all(dir.join("commits")).unwrap();
    fs::create_dir_all(dir.join("sources/0")).unwrap();
    fs::write(
        dir.join("metadata"),
        r#"{"id":"d7f1c5b2-8f0e-4a3b-9c6d-2e1f0a9b8c7d"}"#,
    )
    .unwrap();
    fs::write(
        dir.join("sources/0/0"),
        b"\x00v1\n{\"topic1\":{\"0\":0,\"1\":0},\"topic2\":{\"0\":0}}",
    )
    .unwrap();
    // Batch 0 and 1 committed; batch 2 pending with higher offsets (and topic2's second partition).
    let lines = [
        r#"{"topic1":{"0":100,"1":50},"topic2":{"0":0}}"#,
        r#"{"topic1":{"0":456,"1":789},"topic2":{"0":0}}"#,
        r#"{"topic1":{"1":800,"0":460},"topic2":{"0":3,"1":7}}"#,
    ];
    for (n, line) in lines.iter().enumerate() {
        fs::write(
            dir.join(format!("offsets/{n}")),
            format!("v1\n{META}\n{line}\n-"),
        )
        .unwrap();
        if n < 2 {
            fs::write(
                dir.join(format!("commits/{n}")),
                "v1\n{\"nextBatchWatermarkMs\":0}",
            )
            .unwrap();
        }
    }
}

#[test]
fn kafka_offsets_committed_required_and_the_fresh_start_remedy() {
    let tmp = tempfile::tempdir().unwrap();
    kafka_checkpoint(tmp.path());
    let inspection = checkpoint::inspect(tmp.path()).unwrap();
    assert_eq!(inspection.last_committed_batch, Some(BatchId(1)));
    assert_eq!(inspection.pending_batch, Some(BatchId(2)));

    let committed = inspection.committed_kafka_offsets();
    assert_eq!(committed["topic1"][&1], 789);
    assert_eq!(committed["topic2"].len(), 1);
    let required = inspection.required_kafka_offsets();
    assert_eq!(required["topic1"][&0], 460);
    assert_eq!(required["topic2"][&1], 7);
    assert_eq!(
        inspection.kafka_partition_counts(),
        BTreeMap::from([("topic1".into(), 2), ("topic2".into(), 2)])
    );
    assert_eq!(
        inspection.starting_offsets().as_deref(),
        Some(r#"{"topic1":{"0":456,"1":789},"topic2":{"0":0}}"#)
    );
    assert_eq!(
        inspection.committed_offsets(),
        vec![
            Some(serde_json::json!({"topic1": {"0": 456, "1": 789}, "topic2": {"0": 0}})),
            None
        ]
    );
    let ctx = rehearse::verdict::TrialContext::from_inspection(&inspection);
    assert_eq!(
        ctx.query_id.as_deref(),
        Some("d7f1c5b2-8f0e-4a3b-9c6d-2e1f0a9b8c7d")
    );
    assert_eq!(
        (ctx.last_committed_batch, ctx.pending_batch),
        (Some(BatchId(1)), Some(BatchId(2)))
    );
    assert_eq!(ctx.committed_offsets.len(), 2);
    assert!(ctx.operator_ids.is_empty());
    assert_eq!(inspection.worst(), Some(Severity::Info));
    // 2.4.0–2.4.x: the conf keys of the 2.4.3 fixture quoted in spark-checkpoints.md §1.1.
    assert_eq!(inspection.writer_version.describe(), "2.4.0 – 2.4.x");

    let doc = inspect(tmp.path(), true).code(0).doc();
    assert_eq!(doc.sources[0].kind, "kafka");
    assert_eq!(doc.sources[0].index, 0);
    assert_eq!(doc.sources[0].offsets["topic1"]["1"], 789);
    assert_eq!(doc.sources[1].kind, "unknown");
    assert_eq!(doc.sources[1].offsets, serde_json::Value::Null);
    assert!(doc.sources[0].starting_offsets.is_some());
    assert_eq!(doc.kafka.required["topic1"]["0"], 460);
    assert_eq!(doc.kafka.partitions["topic2"], 2);
    assert_eq!(
        doc.starting_offsets.as_deref(),
        Some(r#"{"topic1":{"0":456,"1":789},"topic2":{"0":0}}"#)
    );
    let text = inspect(tmp.path(), false).code(0).stdout;
    assert!(
        text.contains(
            r#".option("startingOffsets", '{"topic1":{"0":456,"1":789},"topic2":{"0":0}}')"#
        ),
        "{text}"
    );
}

/// Replaces line `n` (1-based) of `offsets/<batch>`.
pub(super) fn set_offset_line(dir: &Path, batch: u64, n: usize, text: &str) {
    let path = dir.join(format!("offsets/{batch}"));
    let old = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = old.split('\n').collect();
    lines[n - 1] = text;
    fs::write(&path, lines.join("\n")).unwrap();
}

#[test]
fn corrupt_json_in_the_pending_batch_is_an_error_with_the_fix() {
    // Batch 2 is pending (offsets/2, no commits/2); Spark re-runs it from offsets/1 to offsets/2.
    let tmp = tempfile::tempdir().unwrap();
    kafka_checkpoint(tmp.path());
    set_offset_line(tmp.path(), 2, 3, r#"{"topic1":{"1":800,"0":46"#);
    let doc = inspect(tmp.path(), true).code(5).doc();
    let f = doc.finding("source-offset-garbled");
    assert_eq!(
        (f.severity.as_str(), f.file.as_deref()),
        ("error", Some("offsets/2"))
    );
    for part in [
        "line 3",
        r#""{\"topic1\":{\"1\":800,\"0\":46""#,
        "pending batch",
        "delete it",
    ] {
        assert!(f.message.contains(part), "{part} not in {}", f.message);
    }
    let raw: serde_json::Value = serde_json::from_str(&inspect(tmp.path(), true).stdout).unwrap();
    assert!(raw["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "source-offset-garbled" && f["line"] == 3));

    // The metadata line of the pending batch: the same file, line 2, and the same fix.
    let tmp = tempfile::tempdir().unwrap();
    kafka_checkpoint(tmp.path());
    set_offset_line(tmp.path(), 2, 2, r#"{"batchWatermarkMs":0,"#);
    let doc = inspect(tmp.path(), true).code(5).doc();
    let f = doc.finding("log-garbled");
    assert_eq!(
        (f.severity.as_str(), f.file.as_deref()),
        ("error", Some("offsets/2"))
    );
    assert!(
        f.message.contains("line 2") && f.message.contains("pending batch"),
        "{}",
        f.message
    );
}

#[test]
fn kafka_offsets_spark_cannot_read_are_errors_naming_file_line_and_value() {
    for (value, shown, why) in [
        (r#""abc""#, r#""abc""#, "not a number"),
        ("null", "null", "not a number"),
        ("4.5", "4.5", "not a whole number"),
        ("-7", "-7", "negative"),
    ] {
        // The committed batch 1 (read on restart as the one before the pending batch 2).
        let tmp = tempfile::tempdir().unwrap();
        kafka_checkpoint(tmp.path());
        set_offset_line(
            tmp.path(),
            1,
            3,
            &format!(r#"{{"topic1":{{"0":456,"1":{value}}},"topic2":{{"0":0}}}}"#),
        );
        let doc = inspect(tmp.path(), true).code(5).doc();
        let f = doc.finding("kafka-offset-invalid");
        assert_eq!(
            (f.severity.as_str(), f.file.as_deref()),
            ("error", Some("offsets/1")),
            "{value}"
        );
        for part in ["line 3", "topic1-1", &format!("is {shown}"), why, "fix:"] {
            assert!(f.message.contains(part), "{part} not in {}", f.message);
        }
    }
    // Spark's sentinels -1 (latest) and -2 (earliest) are read; they are not this error.
    let tmp = tempfile::tempdir().unwrap();
    kafka_checkpoint(tmp.path());
    set_offset_line(
        tmp.path(),
        2,
        3,
        r#"{"topic1":{"1":-1,"0":-2},"topic2":{"0":3,"1":7}}"#,
    );
    let doc = inspect(tmp.path(), true).code(0).doc();
    assert!(
        !doc.codes()
            .iter()
            .any(|c| c.ends_with("kafka-offset-invalid")),
        "{:?}",
        doc.codes()
    );
    // An old batch Spark does not read on restart: a warning.
    let tmp = tempfile::tempdir().unwrap();
    kafka_checkpoint(tmp.path());
    set_offset_line(tmp.path(), 0, 3, r#"{"topic1":{"0":"abc","1":50}}"#);
    let doc = inspect(tmp.path(), true).code(0).doc();
    let f = doc.finding("kafka-offset-invalid");
    assert_eq!(
        (f.severity.as_str(), f.file.as_deref()),
        ("warning", Some("offsets/0"))
    );
}
