//! Pristine fixtures: what each Spark version wrote, described as it wrote it; inspect never
//! writes.

use super::*;

// ---------------------------------------------------------------------------------------------
// Pristine fixtures: what each Spark version wrote.

/// One row per fixture: what inspect must report.
pub(super) struct Expect {
    pub(super) case: &'static str,
    pub(super) committed: u64,
    pub(super) pending: Option<u64>,
    pub(super) kinds: &'static [&'static str],
    pub(super) provider: &'static str,
    pub(super) name: Option<&'static str>,
    pub(super) writer: (&'static str, &'static str),
}

pub(super) const PRISTINE: &[Expect] = &[
    Expect {
        case: "3.3.4/file-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.3.4/file-dedup",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.3.4/file-join",
        committed: 5,
        pending: None,
        kinds: &["file", "file"],
        provider: "hdfs",
        name: Some("join"),
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.3.4/rate-agg",
        committed: 3,
        pending: None,
        kinds: &["rate"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.3.4/rocksdb-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/file-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/file-dedup",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/file-join",
        committed: 5,
        pending: None,
        kinds: &["file", "file"],
        provider: "hdfs",
        name: Some("join"),
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/rate-agg",
        committed: 3,
        pending: None,
        kinds: &["rate"],
        provider: "hdfs",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/rocksdb-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: None,
        writer: ("3.2.1", "3.5.4"),
    },
    Expect {
        case: "3.5.3/rocksdb-changelog-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: None,
        writer: ("3.4.0", "3.5.4"),
    },
    Expect {
        case: "4.0.1/file-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: Some("stateStoreSave"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/file-dedup",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "hdfs",
        name: Some("dedupe"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/file-join",
        committed: 5,
        pending: None,
        kinds: &["file", "file"],
        provider: "hdfs",
        name: Some("symmetricHashJoin"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/rate-agg",
        committed: 3,
        pending: None,
        kinds: &["rate"],
        provider: "hdfs",
        name: Some("stateStoreSave"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/rocksdb-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: Some("stateStoreSave"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/rocksdb-changelog-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: Some("stateStoreSave"),
        writer: ("4.0.0", "4.1.x"),
    },
    Expect {
        case: "4.0.1/rocksdb-ckptv2-agg",
        committed: 5,
        pending: None,
        kinds: &["file"],
        provider: "rocksdb",
        name: Some("stateStoreSave"),
        writer: ("4.0.0", "4.1.x"),
    },
];

#[test]
fn pristine_fixtures_are_described_as_spark_wrote_them() {
    for e in PRISTINE {
        let doc = inspect(&fixture(e.case), true).code(0).doc();
        let case = e.case;
        assert_eq!(doc.schema, "rehearse.inspect/v1");
        assert!(
            doc.query_id.as_deref().is_some_and(|id| id.len() == 36),
            "{case}: query id"
        );
        assert_eq!(doc.last_committed_batch, Some(e.committed), "{case}");
        assert_eq!(doc.latest_batch, Some(e.committed), "{case}");
        assert_eq!(doc.pending_batch, e.pending, "{case}");
        let offsets = doc.batches.offsets.as_ref().unwrap();
        assert_eq!(
            (offsets.first, offsets.last, offsets.count),
            (0, e.committed, e.committed as usize + 1),
            "{case}"
        );
        assert_eq!(
            doc.batches.commits.as_ref().unwrap().count,
            e.committed as usize + 1,
            "{case}"
        );
        assert!(doc.batches.gaps.is_empty(), "{case}");
        let kinds: Vec<&str> = doc.sources.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds, e.kinds, "{case}");
        assert_eq!(doc.operators.len(), 1, "{case}");
        let op = &doc.operators[0];
        assert_eq!(
            (op.id, op.partitions, op.provider.as_str()),
            (0, 2, e.provider),
            "{case}"
        );
        assert_eq!(op.name.as_deref(), e.name, "{case}");
        assert_eq!(
            op.latest_version,
            Some(e.committed + 1),
            "{case}: state version = last committed batch + 1"
        );
        assert_eq!(
            op.schemas.len(),
            op.stores.len(),
            "{case}: one schema file per store (3.1+)"
        );
        assert_eq!(
            op.operator_metadata.is_some(),
            case.starts_with("4."),
            "{case}: operator metadata is 4.0+"
        );
        assert_eq!(
            doc.writer_version.min.as_deref(),
            Some(e.writer.0),
            "{case}"
        );
        assert_eq!(
            doc.writer_version.max.as_deref(),
            Some(e.writer.1),
            "{case}"
        );
        assert!(
            doc.writer_version
                .evidence
                .iter()
                .all(|ev| !ev.source.is_empty() && !ev.file.is_empty()),
            "{case}"
        );
        let log = doc.offset_log.as_ref().unwrap();
        assert_eq!((log.batch, log.version), (e.committed, 1), "{case}");
        assert_eq!(
            log.conf.as_ref().unwrap()["spark.sql.shuffle.partitions"],
            "2",
            "{case}"
        );
        assert!(
            log.pinned
                .iter()
                .any(|p| p.key == "spark.sql.streaming.stateStore.providerClass"),
            "{case}"
        );
        assert!(
            doc.files.crc_sidecars > 0,
            "{case}: written on a local file system"
        );
        // Only the checkpoint-format-v2 fixture has something to say.
        let expected: &[&str] = if case.ends_with("ckptv2-agg") {
            &["warning:commit-log-v2"]
        } else {
            &[]
        };
        assert_eq!(doc.codes(), expected, "{case}");
        assert_eq!(doc.starting_offsets, None, "{case}: no Kafka source");
    }
}

/// Kafka-source checkpoints written by rehearse's own harness (`generate-kafka.sh`): real Spark
/// of each version reading a real Kafka 3.9.1 broker, windowed count, 3 data batches of 5
/// records into each of 2 partitions, stopped by the harness (so a pending batch may be left).
pub(super) const KAFKA: &[&str] = &["3.3.4/kafka-agg", "3.5.3/kafka-agg", "4.0.1/kafka-agg"];

#[test]
fn kafka_fixtures_give_offsets_partitions_and_starting_offsets() {
    let expected = serde_json::json!({"events": {"0": 15, "1": 15}});
    for case in KAFKA {
        let path = fixture(case);
        let doc = inspect(&path, true).code(0).doc();
        let kinds: Vec<&str> = doc.sources.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds, ["kafka"], "{case}");
        assert_eq!(doc.sources[0].offsets, expected, "{case}");
        assert_eq!(
            doc.starting_offsets.as_deref(),
            Some(r#"{"events":{"0":15,"1":15}}"#),
            "{case}"
        );
        assert!(doc.last_committed_batch.is_some_and(|b| b >= 2), "{case}");
        let inspection = checkpoint::inspect(&path).unwrap();
        assert_eq!(
            inspection.kafka_partition_counts(),
            BTreeMap::from([("events".to_string(), 2)]),
            "{case}"
        );
        let required = inspection.required_kafka_offsets();
        assert!(required["events"].values().all(|o| *o >= 15), "{case}");
        let ctx = rehearse::verdict::TrialContext::from_inspection(&inspection);
        assert_eq!(
            ctx.committed_offsets,
            vec![Some(expected.clone())],
            "{case}"
        );
        assert_eq!(ctx.operator_ids, vec![0], "{case}");
    }
}

#[test]
fn every_fixture_directory_is_covered_by_a_test_row() {
    let mut dirs = Vec::new();
    for version in fs::read_dir(fixtures()).unwrap() {
        let version = version.unwrap();
        if !version.file_type().unwrap().is_dir() {
            continue;
        }
        for case in fs::read_dir(version.path()).unwrap() {
            dirs.push(format!(
                "{}/{}",
                version.file_name().to_string_lossy(),
                case.unwrap().file_name().to_string_lossy()
            ));
        }
    }
    dirs.sort();
    for dir in dirs {
        let covered = PRISTINE.iter().any(|e| e.case == dir)
            || DAMAGED.iter().any(|d| d.case == dir)
            || KAFKA.contains(&dir.as_str())
            || dir.starts_with("atlas/") // atlas_source_checkpoints_inspect_clean
            || SPARK_FIXTURES.iter().any(|c| c.case == dir)
            || SPARK_SPECIAL.contains(&dir.as_str());
        assert!(covered, "fixture {dir} has no row in PRISTINE or DAMAGED");
    }
}

/// The atlas's source checkpoints (real Spark 4.0.1 / 4.2.0 on RocksDB, reading Kafka) whose
/// restart on 3.3.4 failed: inspect reads each without an error finding.
#[test]
fn atlas_source_checkpoints_inspect_clean() {
    let mut n = 0;
    for case in fs::read_dir(fixtures().join("atlas")).unwrap() {
        let case = case.unwrap().file_name().to_string_lossy().into_owned();
        inspect(&fixture(&format!("atlas/{case}")), true).code(0);
        n += 1;
    }
    assert_eq!(n, 8);
}

#[test]
fn rocksdb_and_checkpoint_format_v2_details() {
    let doc = inspect(&fixture("4.0.1/rocksdb-ckptv2-agg"), true)
        .code(0)
        .doc();
    let commit = doc.commit_log.unwrap();
    assert_eq!(commit.version, 2);
    assert!(commit.state_unique_ids.is_some());
    assert!(doc.operators[0].unique_id_files);
    assert!(doc
        .writer_version
        .evidence
        .iter()
        .any(|e| e.marker == "commit-log-v2"));

    let doc = inspect(&fixture("3.5.3/rocksdb-changelog-agg"), true)
        .code(0)
        .doc();
    assert!(doc.operators[0].changelog_checkpointing);
    assert!(doc
        .writer_version
        .evidence
        .iter()
        .any(|e| e.marker == "rocksdb-changelog"));

    let doc = inspect(&fixture("4.0.1/file-join"), true).code(0).doc();
    assert_eq!(
        doc.operators[0].stores,
        [
            "left-keyToNumValues",
            "left-keyWithIndexToValue",
            "right-keyToNumValues",
            "right-keyWithIndexToValue"
        ]
    );
    let commit = doc.commit_log.unwrap();
    assert_eq!(commit.version, 1);
    assert!(commit.next_batch_watermark_ms.is_some());
    assert!(doc.offset_log.unwrap().batch_watermark_ms.is_some());
}

#[test]
fn every_spark_written_offset_file_round_trips_byte_for_byte() {
    let mut checked = 0;
    for e in PRISTINE {
        let dir = fixture(e.case).join("offsets");
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let text = fs::read_to_string(entry.path()).unwrap();
            let log = parse_offset_log(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            assert_eq!(log.to_text(), text, "{}", entry.path().display());
            checked += 1;
        }
    }
    assert!(checked > 80);
}

#[test]
fn inspect_never_writes_to_the_checkpoint() {
    let (_tmp, ckpt) = copy_of("4.0.1/rocksdb-ckptv2-agg");
    let before = snapshot_tree(&ckpt);
    inspect(&ckpt, true).code(0);
    inspect(&ckpt, false).code(0);
    checkpoint::inspect(&ckpt).unwrap();
    assert_eq!(snapshot_tree(&ckpt), before);
}

/// Every path with its bytes and modification time.
pub(super) fn snapshot_tree(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
                out.insert(entry.path(), (Vec::new(), meta.modified().unwrap()));
            } else {
                out.insert(
                    entry.path(),
                    (fs::read(entry.path()).unwrap(), meta.modified().unwrap()),
                );
            }
        }
    }
    out
}

#[test]
fn text_report_names_the_essentials() {
    let out = inspect(&fixture("3.5.3/damaged-pending-batch"), false).code(0);
    for needle in [
        "pending batch   5 (offsets without commit: Spark re-runs it on restart)",
        "last committed  4",
        "written by      Spark 3.2.1 – 3.5.4",
        "spark.sql.shuffle.partitions = 2",
        "#0 file",
        "HDFS-backed, 2 partition(s)",
        "pending-batch",
    ] {
        assert!(
            out.stdout.contains(needle),
            "missing {needle:?} in:\n{}",
            out.stdout
        );
    }
}
