//! Failure texts as users paste them (no header, no prefix, two lines): each gets its verdict
//! as an excerpt, never `resumed`.

use super::*;

/// Issue 14: real failure texts as users paste them — without Spark's "terminated with error"
/// header, without a log prefix, as a two-line excerpt — each gets its verdict (never
/// `resumed`), marked as an excerpt whose batch facts are unknown. Each row cites its source.
#[test]
fn cli_pasted_failure_texts_get_their_verdict_as_excerpts() {
    let cases: &[(&str, &str, Verdict, &str)] = &[
        (
            "yarn-user-class",
            // ApplicationMaster.runDriver logs `User class threw exception: $cause` (Spark
            // resource-managers/yarn); the message: MicroBatchExecution.populateStartOffsets.
            "User class threw exception: org.apache.spark.sql.streaming.StreamingQueryException: batch 3 doesn't exist\n=== Streaming Query ===\nIdentifier: [id = 1d4a, runId = 8c1f]\n",
            Verdict::OffsetLogError,
            "offset-log-gap",
        ),
        (
            "dotnet-jvmbridge",
            // .NET for Spark's logger prefix (dotnet/spark JvmBridge.cs); the failure of
            // https://github.com/dotnet/spark/issues/676 (public case 32).
            "[2020-09-18T05:54:04.5006780Z] [HOST] [Error] [JvmBridge] JVM method execution failed: Nonstatic method 'awaitTermination' failed for class '18' when called with no arguments\n[2020-09-18T05:54:04.5006780Z] [HOST] [Error] [JvmBridge] org.apache.spark.sql.streaming.StreamingQueryException: Multiple streaming queries are concurrently using hdfs://nn/user/x/checkpoint/offsets\n[2020-09-18T05:54:04.5006780Z] [HOST] [Error] [JvmBridge] \tat org.apache.spark.sql.execution.streaming.StreamExecution.org$apache$spark$sql$execution$streaming$StreamExecution$$runStream(StreamExecution.scala:353)\n",
            Verdict::OffsetLogError,
            "checkpoint-log-concurrent-writer",
        ),
        (
            "error-class-not-named-exception",
            // StateStoreErrors.scala: class StateStoreInvalidConfigAfterRestart, error class
            // STATE_STORE_INVALID_CONFIG_AFTER_RESTART (error-conditions.json, Spark 4.0).
            "org.apache.spark.sql.execution.streaming.state.StateStoreInvalidConfigAfterRestart: [STATE_STORE_INVALID_CONFIG_AFTER_RESTART] Cannot change spark.sql.streaming.stateStore.providerClass from org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider to org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider between restarts. Please set spark.sql.streaming.stateStore.providerClass to org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider, or restart with a new checkpoint directory. SQLSTATE: 42K06\n",
            Verdict::StateStoreError,
            "state-config-changed",
        ),
        (
            "rocksdb-unique-id-two-lines",
            // https://github.com/apache/spark/pull/47850 (SPARK-49363), sbt output as pasted.
            "[info]   org.rocksdb.RocksDBException: Mismatch in unique ID on table file 8. Expected: {12521394303566436904,8218421418606057953} Actual: {12521394303566436907,7844327260652356763}  The file /tmp/spark-3438/workingDir-a30c/MANIFEST-000005 may be corrupted.\n[info]   at org.rocksdb.RocksDB.open(Native Method)\n",
            Verdict::StateStoreError,
            "rocksdb-sst-unique-id-mismatch",
        ),
        (
            "rocksdb-unique-id-message-only",
            // https://github.com/apache/spark/pull/41089 (SPARK-43404): the message alone.
            "Mismatch in unique ID on table file 24220. Expected: {9692563551998415634,4655083329411385714} Actual: {9692563551998415639,10299185534092933087} in file /local_disk0/spark-f58a/StateStoreId(opId=2147483648,partId=53,name=default)-d89e/workingDir-9928/MANIFEST-024212\n",
            Verdict::StateStoreError,
            "rocksdb-sst-unique-id-mismatch",
        ),
        (
            "operator-metadata-two-lines",
            // error-conditions.json STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA
            // (Spark 4.0), pasted without its exception class.
            "[STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA] Streaming stateful operator name does not match with the operator in state metadata. This likely to happen when user adds/removes/changes stateful operator of existing streaming query.\nStateful operators in the metadata: [(OperatorId: 0 -> OperatorName: stateStoreSave)]; Stateful operators in current batch: [(OperatorId: 0 -> OperatorName: dedupe)]. SQLSTATE: 42K03\n",
            Verdict::PlanChange,
            "stateful-operators-changed",
        ),
        (
            "iceberg-snapshot-expired",
            // https://github.com/apache/iceberg/issues/18000 (SparkMicroBatchStream; #6480).
            "Cannot load current offset at snapshot 4402934938571739010,\nthe snapshot was expired or removed\n",
            Verdict::KafkaDataLoss,
            "iceberg-snapshot-expired",
        ),
        (
            "third-party-rocksdb-lock",
            // RocksDbInstance.open of the third-party RocksDbStateStoreProvider wraps
            // `Error while creating rocksDb instance ${e.getMessage}`; RocksDB's LockFile
            // error on NFS (ENOLCK).
            "java.lang.IllegalStateException: Error while creating rocksDb instance While lock file: /mnt/nfs/state/0/3/db/LOCK: No locks available\n\tat org.apache.spark.sql.execution.streaming.state.RocksDbInstance.open(RocksDbInstance.scala:71)\n",
            Verdict::StateStoreError,
            "rocksdb-open-failed",
        ),
        (
            "rocksdb-current-missing",
            // RocksDB DB::Open on a copy without its CURRENT file (db/version_set.cc).
            "org.rocksdb.RocksDBException: While opening a file for sequentially reading: /tmp/spark-1/StateStoreId(opId=0,partId=1,name=default)-2/workingDir-3/CURRENT: No such file or directory\n",
            Verdict::StateStoreError,
            "rocksdb-open-failed",
        ),
        (
            "delta-rename-failed",
            // HDFSBackedStateStoreProvider.commitUpdates (git:v2.4.8).
            "java.io.IOException: Failed to rename /ckpt/state/0/3/temp-8872364.delta to /ckpt/state/0/3/5.delta\n",
            Verdict::StateStoreError,
            "state-delta-rename-failed",
        ),
        (
            "snapshot-eof-unindented-frames",
            // HDFSBackedStateStoreProvider.readSnapshotFile reads sizes with
            // DataInputStream.readInt (apache/spark#11645, SPARK-13809); frames pasted without
            // their indentation.
            "java.io.EOFException\nat java.io.DataInputStream.readInt(DataInputStream.java:392)\nat org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider.readSnapshotFile(HDFSBackedStateStoreProvider.scala:528)\nat org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider.loadMap(HDFSBackedStateStoreProvider.scala:399)\n",
            Verdict::StateStoreError,
            "state-store-frame",
        ),
        (
            "kinesis-shard-commit-missing",
            // https://github.com/qubole/kinesis-sql/issues/57 (the connector's own log).
            "java.lang.IllegalStateException: /checkpoint/round/sources/0/shard-commit/1 does not exist\n\tat org.apache.spark.sql.kinesis.KinesisSource.getBatch(KinesisSource.scala:205)\n",
            Verdict::OffsetLogError,
            "kinesis-shard-commit-missing",
        ),
        (
            "file-source-log-gap",
            // FileStreamSource.getBatch → FileStreamSourceLog.get → HDFSMetadataLog's batch-id
            // check ("batch N doesn't exist"); the file at fault is sources/<n>/N.
            "java.lang.IllegalStateException: batch 4 doesn't exist\n\tat org.apache.spark.sql.execution.streaming.HDFSMetadataLog$.verifyBatchIds(HDFSMetadataLog.scala:470)\n\tat org.apache.spark.sql.execution.streaming.FileStreamSourceLog.get(FileStreamSourceLog.scala:120)\n\tat org.apache.spark.sql.execution.streaming.FileStreamSource.getBatch(FileStreamSource.scala:254)\n",
            Verdict::OffsetLogError,
            "file-source-log-gap",
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for &(name, text, verdict, rule) in cases {
        let file = tmp.path().join(format!("{name}.log"));
        std::fs::write(&file, text).unwrap();
        let out = rehearse()
            .arg("classify")
            .arg(&file)
            .arg("--json")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(exit::Outcome::Verdict(verdict).code()),
            "{name}: {}{stderr}",
            String::from_utf8_lossy(&out.stdout)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert_eq!(v["verdict"], verdict.name(), "{name}: {v}");
        assert_eq!(v["rule"], rule, "{name}: {v}");
        assert_eq!(v["excerpt"], true, "{name}: an excerpt is marked: {v}");
        assert_eq!(
            v["first_batch_after_restart"],
            serde_json::Value::Null,
            "{name}"
        );
        let text_out = rehearse().arg("classify").arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&text_out.stdout);
        assert!(stdout.contains("an excerpt"), "{name}: {stdout}");
    }
}

/// Issue 14: the cited failure texts of `tests/fixtures/texts/` (its README says where each came
/// from), each as a user pastes it: every one gets its manifest verdict and rule, is marked an
/// excerpt, and none is `resumed`.
#[test]
fn every_pasted_failure_text_gets_its_verdict() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/texts");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut n = 0;
    let mut listed = Vec::new();
    for row in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = row.split('\t').collect();
        assert_eq!(cols.len(), 4, "file, verdict, rule, source: {row}");
        let (file, verdict, rule, source) = (cols[0], cols[1], cols[2], cols[3]);
        assert!(!source.trim().is_empty(), "{file}: no source");
        let expected = Verdict::from_name(verdict).unwrap_or_else(|| panic!("{file}: {verdict}"));
        assert_ne!(expected, Verdict::Resumed, "{file}");
        let out = rehearse()
            .arg("classify")
            .arg(dir.join(file))
            .arg("--json")
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!("{file}: no JSON: {}", String::from_utf8_lossy(&out.stderr))
        });
        assert_eq!(
            (v["verdict"].as_str(), v["rule"].as_str()),
            (Some(verdict), Some(rule)),
            "{file}"
        );
        assert_eq!(
            out.status.code(),
            Some(exit::Outcome::Verdict(expected).code()),
            "{file}"
        );
        assert_eq!(v["excerpt"], true, "{file}");
        listed.push(file.to_string());
        n += 1;
    }
    assert!(n >= 20, "{n} texts");
    // Every text file has its row.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".txt") {
            assert!(listed.contains(&name), "{name} has no MANIFEST.tsv row");
        }
    }
}
