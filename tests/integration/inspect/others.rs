//! Issues 14 and 15: checkpoints nobody here wrote (Spark's own test resources), and bad
//! inputs a new user tries.

use super::*;

// ---------------------------------------------------------------------------------------------
// Issues 14 and 15: inputs nobody here wrote, and bad inputs a new user tries.

/// Runs `rehearse inspect --json` with the open-file limit lowered to `nofile` (as `ulimit -n`).
pub(super) fn inspect_with_nofile(path: &Path, nofile: u64) -> Outcome {
    use std::os::unix::process::CommandExt;
    let bin = assert_cmd::cargo::cargo_bin("rehearse");
    let mut cmd = std::process::Command::new(bin);
    cmd.arg("inspect").arg(path).arg("--json");
    // SAFETY: setrlimit is async-signal-safe; only the child's limit is lowered.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: nofile as libc::rlim_t,
                rlim_max: nofile as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("rehearse runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Issue 15: 2,000 state partitions under `ulimit -n 1024` gave 984 false "Too many open files"
/// errors: the walk held a directory open per queued directory. Here: 400 directories in one
/// directory under a limit of 64 open files; the walk must list them all, one open at a time.
#[test]
fn many_directories_under_a_low_open_file_limit_are_all_listed() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    for n in 0..400 {
        fs::create_dir_all(ckpt.join(format!("extra/d{n}/inner"))).unwrap();
    }
    let doc = inspect_with_nofile(&ckpt, 64).code(0).doc();
    assert_eq!(doc.codes(), Vec::<String>::new());
}

/// Issue 15: an empty `state/0/0/backup` was read as a store missing `6.delta` (exit 5). Spark
/// opens only the partition directory (and a join's four store directories): any other
/// subdirectory is ignored (StateStoreId.storeCheckpointLocation), so it is an info, not missing
/// state, whether it is empty or holds copies of state files.
#[test]
fn a_stray_directory_in_a_state_partition_is_not_missing_state() {
    for case in ["3.5.3/file-agg", "4.0.1/file-join"] {
        let (_tmp, ckpt) = copy_of(case);
        fs::create_dir_all(ckpt.join("state/0/0/backup")).unwrap();
        fs::create_dir_all(ckpt.join("state/0/1/old")).unwrap();
        fs::write(ckpt.join("state/0/1/old/2.delta"), b"x").unwrap();
        let doc = inspect(&ckpt, true).code(0).doc();
        assert_eq!(
            doc.codes(),
            ["info:unexpected-entry", "info:unexpected-entry"],
            "{case}"
        );
        assert!(has(&doc, "unexpected-entry", "state/0/0/backup"), "{case}");
        assert!(has(&doc, "unexpected-entry", "state/0/1/old"), "{case}");
        assert_eq!(doc.operators[0].partitions, 2, "{case}");
    }
}

/// One checkpoint from Spark's own test resources and what the Spark test that reads it says of
/// it: the release that wrote it (the directory's name; `X.Y.Z-preview` = a development build),
/// the last committed batch, and each stateful operator's partition count.
pub(super) struct SparkCase {
    pub(super) case: &'static str,
    pub(super) writer: &'static str,
    pub(super) last_committed: Option<u64>,
    pub(super) partitions: &'static [u32],
}

/// Healthy checkpoints from Spark's own test resources (tests/fixtures/checkpoints/README.md says
/// where each came from): `inspect` exits 0 with no error and a writer range holding the writer.
pub(super) const SPARK_FIXTURES: &[SparkCase] = &[
    SparkCase {
        case: "spark/2.1.0",
        writer: "2.1.0",
        last_committed: None,
        partitions: &[10],
    },
    SparkCase {
        case: "spark/2.3.1-flatMapGroupsWithState-state-format-1",
        writer: "2.3.1",
        last_committed: Some(1),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/2.3.1-for-multi-watermark-policy",
        writer: "2.3.1",
        last_committed: Some(1),
        partitions: &[],
    },
    SparkCase {
        case: "spark/2.4.0-streaming-join",
        writer: "2.4.0",
        last_committed: Some(0),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/2.4.5-for-compatibility-test-deduplicate",
        writer: "2.4.5",
        last_committed: Some(0),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/3.0.0-streaming-statestore-codec",
        writer: "3.0.0",
        last_committed: Some(0),
        partitions: &[1],
    },
    SparkCase {
        case: "spark/3.1.0-flatmapgroupswithstate-repartition",
        writer: "3.1.0",
        last_committed: Some(0),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/3.2.0-session-window-with-repartition",
        writer: "3.2.0",
        last_committed: Some(1),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/3.3.0-streaming-deduplication",
        writer: "3.3.0",
        last_committed: Some(1),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/3.5.1-streaming-join",
        writer: "3.5.1",
        last_committed: Some(0),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/3.5.4",
        writer: "3.5.4",
        last_committed: Some(1),
        partitions: &[],
    },
    SparkCase {
        case: "spark/4.0.0-hdfs-limit",
        writer: "4.0.0-preview",
        last_committed: Some(3),
        partitions: &[1],
    },
    SparkCase {
        case: "spark/4.0.0-rocksdb-agg",
        writer: "4.0.0-preview",
        last_committed: Some(3),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/4.0.0-tws-avro",
        writer: "4.0.0",
        last_committed: Some(1),
        partitions: &[5],
    },
    SparkCase {
        case: "spark/4.0.0-checkpoint-v2-rocksdb-limit",
        writer: "4.0.0",
        last_committed: Some(3),
        partitions: &[1],
    },
    SparkCase {
        case: "spark/4.0.1-dedup-spark-53942",
        writer: "4.0.1",
        last_committed: Some(0),
        partitions: &[5],
    },
];

/// Spark's test checkpoints that are not plain healthy ones, each with its own test below.
pub(super) const SPARK_SPECIAL: &[&str] = &[
    "spark/escaped-path-2.4.0",
    "spark/offsetId-commitId-inconsistent",
];

/// `3.5.4` → (3, 5, 4, 1); `4.0.0-preview` → (4, 0, 0, 0): a pre-release sorts before its release.
pub(super) fn version_key(v: &str) -> (u32, u32, u32, u32) {
    let (numbers, release) = match v.strip_suffix("-preview") {
        Some(n) => (n, 0),
        None => (v, 1),
    };
    let mut it = numbers
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(u32::MAX));
    (
        it.next().unwrap(),
        it.next().unwrap(),
        it.next().unwrap_or(u32::MAX),
        release,
    )
}

/// Whether release `v` lies in the writer range `min`..`max` (`max` as `3.5.x`, `3.5.4` or
/// `4.0.0-preview`), or is the pre-release the range says fits too.
pub(super) fn in_writer_range(v: &str, w: &WriterVersion) -> bool {
    if w.or_pre_release.as_deref() == Some(v) {
        return true;
    }
    let key = version_key(v);
    let above_min = w.min.as_deref().is_none_or(|m| version_key(m) <= key);
    let below_max = w.max.as_deref().is_none_or(|m| match m.strip_suffix(".x") {
        Some(line) => {
            let (a, b, _, _) = version_key(&format!("{line}.0"));
            (key.0, key.1) <= (a, b)
        }
        None => key <= version_key(m),
    });
    above_min && below_max
}

#[test]
fn spark_test_resource_checkpoints_get_no_error_and_their_writer() {
    assert!(SPARK_FIXTURES.len() >= 11);
    for c in SPARK_FIXTURES {
        let case = c.case;
        let doc = inspect(&fixture(case), true).code(0).doc();
        assert!(
            doc.findings.iter().all(|f| f.severity != "error"),
            "{case}: {:?}",
            doc.codes()
        );
        let w = &doc.writer_version;
        assert!(
            in_writer_range(c.writer, w),
            "{case}: written by {}, inspect says {:?} – {:?} (or {:?})",
            c.writer,
            w.min,
            w.max,
            w.or_pre_release
        );
        assert_eq!(doc.last_committed_batch, c.last_committed, "{case}");
        let partitions: Vec<u32> = doc.operators.iter().map(|o| o.partitions).collect();
        assert_eq!(partitions, c.partitions, "{case}");
        assert!(
            !doc.codes()
                .iter()
                .any(|c| c.contains("writer-version-conflict")),
            "{case}: {:?}",
            doc.codes()
        );
    }
}

/// Issue 14: Spark 3.5.5 renamed 3.5.4's misnamed `spark.databricks.sql.optimizer.
/// pruneFiltersCanPruneStreamingSubplan` to the key 4.0.0 writes (SPARK-51187): 3.5.4's key
/// read "possibly a release newer than the table (4.3)" and 3.5.5+'s read ">= 4.0.0".
#[test]
fn spark_3_5_4_is_placed_by_its_misnamed_key() {
    let doc = inspect(&fixture("spark/3.5.4"), true).code(0).doc();
    assert_eq!(
        (
            doc.writer_version.min.as_deref(),
            doc.writer_version.max.as_deref()
        ),
        (Some("3.5.4"), Some("3.5.4"))
    );
    let text = inspect(&fixture("spark/3.5.4"), false).code(0).stdout;
    assert!(text.contains("written by      Spark 3.5.4\n"), "{text}");
    assert!(!text.contains("newer than"), "{text}");
    // The same offsets with 3.5.5's key name: 3.5.5 – 3.5.x (a stateless 4.0.0 writes 4.0.0's
    // encodingFormat key too).
    let (_tmp, ckpt) = copy_of("spark/3.5.4");
    for n in 0..=1 {
        let file = ckpt.join(format!("offsets/{n}"));
        let text = fs::read_to_string(&file).unwrap();
        fs::write(&file, text.replace("spark.databricks.sql.", "spark.sql.")).unwrap();
        fs::remove_file(ckpt.join(format!("offsets/.{n}.crc"))).ok();
    }
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(
        (
            doc.writer_version.min.as_deref(),
            doc.writer_version.max.as_deref()
        ),
        (Some("3.5.5"), Some("3.5.x"))
    );
}

/// Issue 14 §3: a stateless checkpoint with 3.5's conf keys may come from a 4.0.0 development
/// build (Spark's own 4.0.0 test checkpoints lack the 3.5.5/4.0.0 key and there is no file
/// format to tell), so the range says so; a stateful 3.5 one does not (a 4.0.0 build writes
/// operator metadata for every stateful operator).
#[test]
fn a_stateless_3_5_checkpoint_may_be_a_4_0_0_pre_release() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_dir_all(ckpt.join("state")).unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(
        doc.writer_version.or_pre_release.as_deref(),
        Some("4.0.0-preview")
    );
    assert_eq!(doc.writer_version.max.as_deref(), Some("3.5.4"));
    let text = inspect(&ckpt, false).code(0).stdout;
    assert!(
        text.contains("3.2.1 – 3.5.4, or a 4.0.0 pre-release"),
        "{text}"
    );
    let doc = inspect(&fixture("3.5.3/file-agg"), true).code(0).doc();
    assert_eq!(doc.writer_version.or_pre_release, None);
}

/// Spark's SPARK-26824 test checkpoint: the directory holds one checkpoint under an escaped
/// name (listed, exit 3), which itself is healthy with the escaped-path warning.
#[test]
fn spark_escaped_path_checkpoint_is_listed_then_inspected() {
    let out = inspect(&fixture("spark/escaped-path-2.4.0"), false).code(3);
    assert!(
        out.stderr.contains("chk%252520%252525@%252523chk"),
        "{}",
        out.stderr
    );
    let inner = fixture("spark/escaped-path-2.4.0").join("chk%252520%252525@%252523chk");
    let doc = inspect(&inner, true).code(0).doc();
    assert!(
        doc.codes().iter().any(|c| c.starts_with("warning:")),
        "{:?}",
        doc.codes()
    );
    assert!(
        in_writer_range("2.4.0", &doc.writer_version),
        "{:?}",
        doc.writer_version
    );
}

/// Spark's "test gaps in offset log" checkpoint (offsets 0, 1, 2, 4; commits 0–2): Spark's test
/// restarts it only with async progress tracking on; a plain restart fails with "batch 3 doesn't
/// exist", so inspect's error names that condition.
#[test]
fn spark_offset_gap_checkpoint_is_an_error_naming_async_progress_tracking() {
    let doc = inspect(&fixture("spark/offsetId-commitId-inconsistent"), true)
        .code(5)
        .doc();
    let f = doc.finding("offset-gap-read");
    assert!(
        f.message.contains("asyncProgressTrackingEnabled"),
        "{}",
        f.message
    );
}

/// A state schema file as Spark 3.1.3+ writes it (SchemaHelper.SchemaV2Writer): `writeUTF("v2")`,
/// then for the key and the value schema `writeInt(1)` chunk and `writeUTF(json)`.
pub(super) fn schema_v2(key: &str, value: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let utf = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u16).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    utf(&mut out, "v2");
    for json in [key, value] {
        out.extend_from_slice(&1i32.to_be_bytes());
        utf(&mut out, json);
    }
    out
}

/// Issue 14: a streaming global limit keeps one state partition whatever
/// `spark.sql.shuffle.partitions` (5) and its operator metadata (5) say; Spark's own 4.0.0
/// `limit` checkpoint got a false `state-partition-missing` ("lacks partition(s) 1..4 of 5").
/// The class: operators whose required child distribution is AllTuples (StreamingGlobalLimitExec;
/// StateStoreRestoreExec/SaveExec without grouping keys), known by the operator metadata's name
/// or the state key schema (`struct<key: null>`, `struct<>`).
#[test]
fn single_partition_operators_are_not_missing_partitions() {
    let doc = inspect(&fixture("spark/4.0.0-hdfs-limit"), true)
        .code(0)
        .doc();
    assert!(
        !doc.codes().iter().any(|c| c.contains("partition")),
        "{:?}",
        doc.codes()
    );
    assert_eq!(doc.operators[0].partitions, 1);

    // A global count (no grouping keys) on 3.5.3, keyed by `struct<>`: only partition 0 exists.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_dir_all(ckpt.join("state/0/1")).unwrap();
    let value = r#"{"type":"struct","fields":[{"name":"count","type":"long","nullable":false,"metadata":{}}]}"#;
    fs::write(
        ckpt.join("state/0/0/_metadata/schema"),
        schema_v2(r#"{"type":"struct","fields":[]}"#, value),
    )
    .unwrap();
    fs::remove_file(ckpt.join("state/0/0/_metadata/.schema.crc")).ok();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(doc.codes(), Vec::<String>::new());

    // The limit's key, `struct<key: null>`, with a pinned count of 2.
    let key = r#"{"type":"struct","fields":[{"name":"key","type":"null","nullable":true,"metadata":{}}]}"#;
    fs::write(
        ckpt.join("state/0/0/_metadata/schema"),
        schema_v2(key, value),
    )
    .unwrap();
    assert_eq!(
        inspect(&ckpt, true).code(0).doc().codes(),
        Vec::<String>::new()
    );

    // No schema (before 3.1): only partition 0 is said, not called lost.
    fs::remove_file(ckpt.join("state/0/0/_metadata/schema")).unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(doc.codes(), ["warning:state-single-partition"]);

    // A keyed schema with partition 1 gone is still an error.
    let (_tmp2, keyed) = copy_of("3.5.3/file-agg");
    fs::remove_dir_all(keyed.join("state/0/1")).unwrap();
    let doc = inspect(&keyed, true).code(5).doc();
    assert!(has(&doc, "state-partition-missing", "state/0/1"));
}

/// Issue 14d: `writer_history` disagreed with `writer_version` on RocksDB checkpoints (the
/// history ignored the changelog evidence). The last run of batches is the latest writer's:
/// both say the same on every real checkpoint.
#[test]
fn writer_history_ends_with_what_writer_version_says() {
    let cases = PRISTINE
        .iter()
        .map(|e| e.case)
        .chain(SPARK_FIXTURES.iter().map(|c| c.case));
    for case in cases {
        let doc = inspect(&fixture(case), true).code(0).doc();
        // Spark 2.0/2.1 offset files have no conf: no run of conf keys to report.
        if doc.writer_version.max.as_deref() == Some("2.1.x") {
            assert!(doc.writer_history.is_empty(), "{case}");
            continue;
        }
        let last = doc.writer_history.last().expect("one run of batches");
        assert_eq!(last.last_batch, doc.latest_batch.unwrap(), "{case}");
        assert_eq!(
            (&last.min, &last.max),
            (&doc.writer_version.min, &doc.writer_version.max),
            "{case}"
        );
    }
}

pub(super) fn remove_log_file(ckpt: &Path, dir: &str, id: u64) {
    fs::remove_file(ckpt.join(format!("{dir}/{id}"))).unwrap();
    fs::remove_file(ckpt.join(format!("{dir}/.{id}.crc"))).ok();
}

/// Issue 14c: offsets 0, 1, 2, 4 with commits 0–2 exited 0 ("re-runs batch 4"), but Spark reads
/// offsets/3 on restart and fails with "batch 3 doesn't exist" (MicroBatchExecution's offset-log
/// validation) unless async progress tracking is on, which refuses stateful queries. The class:
/// any gap the restart reads (offsets/L−1, restart-working-set.md §1); gaps further back stay a
/// warning, and a stateless query whose commit log skips batches too (as async progress
/// tracking writes it) stays a warning.
#[test]
fn a_gap_the_restart_reads_is_an_error() {
    for stateful in [true, false] {
        let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
        if !stateful {
            fs::remove_dir_all(ckpt.join("state")).unwrap();
        }
        remove_log_file(&ckpt, "offsets", 3);
        remove_log_file(&ckpt, "offsets", 5);
        for c in 3..=5 {
            remove_log_file(&ckpt, "commits", c);
        }
        let doc = inspect(&ckpt, true).code(5).doc();
        let f = doc.finding("offset-gap-read");
        assert_eq!(
            (f.severity.as_str(), f.file.as_deref()),
            ("error", Some("offsets/3"))
        );
        assert!(f.message.contains("batch 3 doesn't exist"), "{}", f.message);
        assert!(!doc
            .codes()
            .contains(&"warning:offsets-ahead-of-commits".to_string()));
    }

    // Stateless, and the commit log skips batches as well: what async progress tracking writes.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_dir_all(ckpt.join("state")).unwrap();
    for (dir, id) in [
        ("offsets", 1),
        ("offsets", 3),
        ("commits", 1),
        ("commits", 3),
    ] {
        remove_log_file(&ckpt, dir, id);
    }
    remove_log_file(&ckpt, "offsets", 5);
    remove_log_file(&ckpt, "commits", 5);
    let doc = inspect(&ckpt, true).code(0).doc();
    assert!(
        doc.codes().contains(&"warning:offset-gaps".to_string()),
        "{:?}",
        doc.codes()
    );
    assert!(doc
        .finding("offset-gaps")
        .message
        .contains("batches 1, 3 (2 batches)"));
}

/// Issue 15: fatal damage that exited 0. Each is read by Spark on every restart and fails it:
/// a truncated `_metadata/schema` (SchemaHelper reads both schemas whole), a `metadata` id that
/// is not a UUID (StreamMetadata: `UUID.fromString`), a Kafka partition key that is not a Java
/// int (JsonUtils.partitionOffsets: `part.toInt`).
#[test]
fn fatal_damage_spark_reads_on_restart_is_an_error() {
    // A truncated state schema file.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    let schema = ckpt.join("state/0/0/_metadata/schema");
    let bytes = fs::read(&schema).unwrap();
    fs::write(&schema, &bytes[..bytes.len() / 2]).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("state-schema-garbled");
    assert!(f.message.contains("truncated"), "{}", f.message);

    // A query id that is not a UUID.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(ckpt.join("metadata"), r#"{"id":"my-query"}"#).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("log-garbled");
    assert_eq!(f.file.as_deref(), Some("metadata"));
    assert!(f.message.contains("UUID.fromString"), "{}", f.message);
    // Java's lenient short groups are accepted, as Spark accepts them.
    fs::write(ckpt.join("metadata"), r#"{"id":"1-2-3-4-5"}"#).unwrap();
    inspect(&ckpt, true).code(0);

    // Kafka partition keys Spark cannot read as an int, in the offsets it reads on restart.
    for key in ["x", "4294967296", "2147483648"] {
        let tmp = tempfile::tempdir().unwrap();
        let ckpt = tmp.path().join("ckpt");
        kafka_checkpoint(&ckpt);
        set_offset_line(
            &ckpt,
            2,
            3,
            &format!(r#"{{"topic1":{{"{key}":460,"1":800}},"topic2":{{"0":3}}}}"#),
        );
        let doc = inspect(&ckpt, true).code(5).doc();
        let f = doc.finding("kafka-offset-invalid");
        assert_eq!(
            (f.severity.as_str(), f.file.as_deref()),
            ("error", Some("offsets/2")),
            "{key}"
        );
        assert!(f.message.contains("not a Java int"), "{key}: {}", f.message);
    }
    // Only a non-int key, known to be Kafka from the other offset files.
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tmp.path().join("ckpt");
    kafka_checkpoint(&ckpt);
    set_offset_line(&ckpt, 2, 3, r#"{"topic1":{"x":460}}"#);
    let doc = inspect(&ckpt, true).code(5).doc();
    assert!(doc
        .finding("kafka-offset-invalid")
        .message
        .contains("not a Java int"));
}

/// Issue 15, unclear errors: each says what is wrong, where, and the fix.
#[test]
fn unclear_errors_name_the_real_file_and_value() {
    // `offsets` a file, `metadata` a directory: not "missing".
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::remove_dir_all(ckpt.join("offsets")).unwrap();
    fs::write(ckpt.join("offsets"), "x").unwrap();
    fs::remove_file(ckpt.join("metadata")).unwrap();
    fs::create_dir(ckpt.join("metadata")).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    assert!(has(&doc, "wrong-file-kind", "offsets"), "{:?}", doc.codes());
    assert!(
        has(&doc, "wrong-file-kind", "metadata"),
        "{:?}",
        doc.codes()
    );
    assert!(
        !doc.codes().iter().any(|c| c.contains("missing")),
        "{:?}",
        doc.codes()
    );

    // `offsets/005`: named as itself, with the file Spark reads instead.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::rename(ckpt.join("offsets/5"), ckpt.join("offsets/005")).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("batch-file-name");
    assert_eq!(
        (f.severity.as_str(), f.file.as_deref()),
        ("error", Some("offsets/005"))
    );
    assert!(
        f.message.contains("rename it to offsets/5"),
        "{}",
        f.message
    );

    // A Kafka offset too large for a Long is printed as written, not as "1e+20".
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tmp.path().join("ckpt");
    kafka_checkpoint(&ckpt);
    set_offset_line(
        &ckpt,
        2,
        3,
        r#"{"topic1":{"0":99999999999999999999,"1":800}}"#,
    );
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("kafka-offset-invalid");
    assert!(f.message.contains("99999999999999999999"), "{}", f.message);
    assert!(!f.message.contains("1e+20"), "{}", f.message);
    assert!(f.message.contains("larger than a Long"), "{}", f.message);

    // Garbage in sources/0/0 is no Spark 2.1 marker.
    fs::write(ckpt.join("sources/0/0"), b"garbage, not offsets").unwrap();
    set_offset_line(&ckpt, 2, 3, r#"{"topic1":{"0":460,"1":800}}"#);
    let doc = inspect(&ckpt, true).code(0).doc();
    assert!(
        doc.writer_version
            .evidence
            .iter()
            .all(|e| e.marker != "kafka-initial-offset-2-1-0"),
        "{:?}",
        doc.writer_version.evidence
    );
    assert!(has(&doc, "kafka-initial-offsets-garbled", "sources/0/0"));
    // Spark 2.1.0's own format (one length byte, then the JSON) still is one.
    let json = br#"{"topic1":{"0":0,"1":0}}"#;
    let mut bytes = vec![json.len() as u8];
    bytes.extend_from_slice(json);
    fs::write(ckpt.join("sources/0/0"), bytes).unwrap();
    let doc = inspect(&ckpt, true).doc();
    assert!(doc
        .writer_version
        .evidence
        .iter()
        .any(|e| e.marker == "kafka-initial-offset-2-1-0"));

    // A 20 MB metadata file is read: Spark has no cap on it.
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    let mut meta = fs::read(ckpt.join("metadata")).unwrap();
    meta.push(b'\n');
    meta.extend(std::iter::repeat_n(b' ', 20 * 1024 * 1024));
    fs::write(ckpt.join("metadata"), meta).unwrap();
    fs::remove_file(ckpt.join(".metadata.crc")).ok();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(doc.codes(), Vec::<String>::new());
}

/// Issue 14e: a directory holding several checkpoints was only "not a checkpoint". It lists them.
#[test]
fn a_directory_of_checkpoints_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&fixture("3.5.3/file-agg"), &tmp.path().join("q1"));
    copy_tree(&fixture("3.5.3/file-dedup"), &tmp.path().join("team/q2"));
    fs::write(tmp.path().join("README"), "checkpoints").unwrap();
    let out = inspect(tmp.path(), false).code(3);
    assert!(
        out.stderr.contains("it holds 2 checkpoints: q1/, team/q2/"),
        "{}",
        out.stderr
    );
}

/// Issue 14e, guidance: a 2.1-era checkpoint (no conf in the offset log) must restart with the
/// shuffle-partition count its state was written with (Spark's StreamSuite "recover from a Spark
/// v2.1 checkpoint": 10 resume, 15 fail); a URI-escaped checkpoint path is what Spark 2.4 wrote
/// for a location with special characters, which 3.0+ refuses (SPARK-26824).
#[test]
fn guidance_for_old_checkpoints_pinned_partitions_and_escaped_paths() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    for n in 0..=5 {
        set_offset_line(
            &ckpt,
            n,
            2,
            r#"{"batchWatermarkMs":0,"batchTimestampMs":0}"#,
        );
        fs::remove_file(ckpt.join(format!("offsets/.{n}.crc"))).ok();
    }
    let doc = inspect(&ckpt, true).code(0).doc();
    let f = doc.finding("shuffle-partitions-not-pinned");
    assert!(
        f.message.contains("spark.sql.shuffle.partitions=2"),
        "{}",
        f.message
    );
    assert!(
        doc.findings.iter().all(|f| f.severity != "error"),
        "{:?}",
        doc.codes()
    );

    let tmp = tempfile::tempdir().unwrap();
    let escaped = tmp.path().join("my%20checkpoint");
    copy_tree(&fixture("3.5.3/file-agg"), &escaped);
    let doc = inspect(&escaped, true).code(0).doc();
    assert!(doc
        .finding("escaped-checkpoint-path")
        .message
        .contains("SPARK-26824"));
    assert_eq!(doc.codes(), ["warning:escaped-checkpoint-path"]);
}

/// Issue 15: `-1` as a batch file name was "not a batch file; Spark ignores it", but Spark's
/// listing keeps every name that parses as a Long (HDFSMetadataLog.isBatchFile).
#[test]
fn a_negative_batch_file_is_said_as_spark_sees_it() {
    let (_tmp, ckpt) = copy_of("3.5.3/file-agg");
    fs::write(ckpt.join("offsets/-1"), "v1\n{}").unwrap();
    let doc = inspect(&ckpt, true).code(0).doc();
    assert_eq!(doc.finding("batch-file-negative").severity, "warning");

    let tmp = tempfile::tempdir().unwrap();
    let only = tmp.path().join("ckpt");
    fs::create_dir_all(only.join("offsets")).unwrap();
    fs::write(only.join("offsets/-1"), "v1\n{}").unwrap();
    let doc = inspect(&only, true).code(5).doc();
    assert_eq!(doc.finding("batch-file-negative").severity, "error");
}

/// Issue 15, unclear errors (the last of the list): a gap was printed as its first ten ids
/// (`gaps 5, 6, …, 14` for a thousand missing batches), and the ids of commits without offsets
/// as `(batches 1004)`. The text report now names the runs and how many batches are missing;
/// a `metadata` id that is not a UUID cites StreamMetadata.scala and the fix.
#[test]
fn gaps_and_a_non_uuid_id_are_said_with_their_extent_source_and_fix() {
    let (_tmp, ckpt) = copy_of("3.5.3/kafka-agg");
    fs::copy(ckpt.join("offsets/4"), ckpt.join("offsets/1005")).unwrap();
    fs::copy(ckpt.join("commits/3"), ckpt.join("commits/1004")).unwrap();
    let out = inspect(&ckpt, false).code(5);
    assert!(
        out.stdout
            .contains("gaps            offsets/ lacks batches 5 to 1004 (1,000 batches)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("commits/ holds batch 1004 with no offset file"),
        "{}",
        out.stdout
    );
    let (_tmp, ckpt) = copy_of("3.5.3/kafka-agg");
    fs::write(ckpt.join("metadata"), r#"{"id":"orders-query"}"#).unwrap();
    let doc = inspect(&ckpt, true).code(5).doc();
    let f = doc.finding("log-garbled");
    for needle in [
        "StreamMetadata.scala",
        "UUID.fromString",
        "fix: restore metadata",
    ] {
        assert!(f.message.contains(needle), "{needle}: {}", f.message);
    }
}

/// Issue 15, unclear errors: writing the report to a full disk said only "No space left on
/// device", exit 3. It names stdout and the fix, exit 4 (the environment's fault).
#[test]
fn a_full_stdout_is_named_and_is_the_environments_fault() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("SKIPPED: no /dev/full on this machine");
        return;
    };
    for json in [false, true] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_rehearse"));
        cmd.arg("inspect").arg(fixture("3.5.3/kafka-agg"));
        if json {
            cmd.arg("--json");
        }
        let out = cmd.stdout(full.try_clone().unwrap()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{stderr}");
        assert!(
            stderr.contains("cannot write the output to stdout")
                && stderr.contains("No space left on device")
                && stderr.contains("redirect it elsewhere"),
            "{stderr}"
        );
    }
}
