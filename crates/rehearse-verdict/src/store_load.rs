//! A RocksDB state store reading a version of the checkpoint's state, from the driver log
//! (issue 13 §1: `state_loaded` where the rows cannot tell).
//!
//! When the first batch after a restart updates every row its store holds, its progress report
//! cannot tell a store loaded from the checkpoint from an empty one (`exercised.rs`). The
//! HDFS-backed store says it in `customMetrics.loadedMapCacheMissCount`; the RocksDB store has
//! no such metric on 3.3–4.x: its `rocksdbBytesCopied` / `rocksdbFilesCopied` are the file
//! manager's metrics of the UPLOAD at commit (`RocksDB.commit` sets `fileManagerMetrics =
//! fileManager.latestSaveCheckpointMetrics`, sql/core `streaming/state/RocksDB.scala`, 3.3–4.x),
//! and 4.2.0's `rocksdbNumLoadedFromDfs` reads 0 on the first batch after a restart that did
//! load from DFS (measured: the store is loaded again, from memory, by the batch's second task,
//! and the metric is the last load's). What the store does say, in every version, is the line
//! `RocksDBFileManager.loadCheckpointFromDfs` logs before it reads a version's files:
//!
//! | Spark | line (INFO, logger `RocksDBFileManager`, the store's id in the message) |
//! |-------|---------------------------------------------------------------------------|
//! | 3.3.4, 3.5.3 | `StateStoreId(opId=0,partId=1,name=default): Loading checkpoint files for version 5` |
//! | 4.0.1 | `StateStoreId(opId=0,partId=1,name=default): Loading checkpoint files for version 4 checkpointUniqueId: ` |
//! | 4.2.0 | `StateStoreProviderId[ storeId=StateStoreId[ operatorId=0, partitionId=1, storeName=default ], queryRunId=… ]: Loading checkpoint files for version 4 checkpointUniqueId: ` |
//!
//! (seen in tests/fixtures/logs/atlas/*-rocksdb-*-to-3.3.4.log and in real 3.5.3 → 3.5.3,
//! 4.0.1 and 4.2.0 restarts, session 8). A batch that completed after its store logged this
//! for version V read V from the checkpoint's files (a failed read fails the task, and the
//! batch). Version V is the one the first batch after a restart runs on, its batch id
//! (`StateStoreRDD` opens `storeVersion = currentBatchId`). Version 0 is an empty store, and
//! with changelog checkpointing (3.5+) the version read is the last snapshot at or below V,
//! the rest replayed from changelog files: only a load of exactly V is taken as proof, so such
//! stores, like stores on a cluster (whose executors keep these lines in their own logs),
//! still rely on the rows.

/// One "Loading checkpoint files for version V" line of a RocksDB store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoreLoad {
    /// The stateful operator (`opId` / `operatorId`).
    pub operator: u64,
    /// The version whose files were read.
    pub version: u64,
    /// The query run, where the line names it (4.x `queryRunId`).
    pub run_id: Option<String>,
}

const LOADING: &str = "Loading checkpoint files for version ";

/// The store load a log record's message (after the level) says, if it is one.
pub(crate) fn parse(msg: &str) -> Option<StoreLoad> {
    let rest = msg.strip_prefix("RocksDBFileManager ")?;
    let at = rest.find(LOADING)?;
    let (id, tail) = (&rest[..at], &rest[at + LOADING.len()..]);
    let version: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let version = version.parse().ok()?;
    let operator = number_after(id, "opId=").or_else(|| number_after(id, "operatorId="))?;
    let run_id = id.find("queryRunId=").map(|i| {
        id[i + "queryRunId=".len()..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit() || *c == '-')
            .collect()
    });
    Some(StoreLoad {
        operator,
        version,
        run_id,
    })
}

fn number_after(s: &str, key: &str) -> Option<u64> {
    let i = s.find(key)? + key.len();
    let n: String = s[i..].chars().take_while(char::is_ascii_digit).collect();
    n.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(line: &str) -> &str {
        crate::scan::parse_header(line)
            .expect("a record header")
            .msg
    }

    #[test]
    fn the_load_lines_of_3_x_and_4_x_are_read() {
        // Real lines: tests/fixtures/logs/atlas/windowed-count-rocksdb-4.0.1-to-3.3.4.log
        // (3.3.4), and 3.5.3 → 4.0.1 and → 4.2.0 restarts of the windowed-count shape (session 8).
        let v3 = "26/11/30 19:04:07 INFO RocksDBFileManager StateStoreId(opId=0,partId=1,name=default): Loading checkpoint files for version 5";
        assert_eq!(
            parse(msg(v3)),
            Some(StoreLoad {
                operator: 0,
                version: 5,
                run_id: None
            })
        );
        let v4 = "26/12/02 02:40:11 INFO RocksDBFileManager StateStoreProviderId[ storeId=StateStoreId[ operatorId=2, partitionId=1, storeName=default ], queryRunId=d79ef120-bb48-40b3-b3bd-89831f3f973b ]: Loading checkpoint files for version 4 checkpointUniqueId: ";
        assert_eq!(
            parse(msg(v4)),
            Some(StoreLoad {
                operator: 2,
                version: 4,
                run_id: Some("d79ef120-bb48-40b3-b3bd-89831f3f973b".into())
            })
        );
        let v401 = "26/12/02 02:40:56 INFO RocksDBFileManager StateStoreId(opId=1,partId=1,name=default): Loading checkpoint files for version 4 checkpointUniqueId: ";
        assert_eq!(
            parse(msg(v401)),
            Some(StoreLoad {
                operator: 1,
                version: 4,
                run_id: None
            })
        );
        // The end of the load, the upload, and the RocksDB instance's own "Loading 4" are not it.
        for other in [
            "26/11/30 19:04:07 INFO RocksDBFileManager StateStoreId(opId=0,partId=1,name=default): Loaded checkpoint files for version 5 - 8 files",
            "26/11/30 19:04:07 INFO RocksDB StateStoreId(opId=0,partId=1,name=default): Loading 5",
            "26/12/02 02:40:13 INFO RocksDBFileManager StateStoreProviderId[ storeId=StateStoreId[ operatorId=0, partitionId=0, storeName=default ], queryRunId=d ]: Copied 1 files (1310 bytes) from local to DFS for version 5",
            "26/11/30 13:09:11.086 INFO HDFSBackedStateStoreProvider: Retrieved version 4 of HDFSStateStoreProvider[id = (op=0,part=0),dir = x] for readonly",
        ] {
            assert_eq!(parse(msg(other)), None, "{other}");
        }
    }

    #[test]
    fn every_rocksdb_fixture_log_has_the_line_for_the_version_it_resumes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/logs/atlas");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("atlas fixture logs") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.contains("-rocksdb-") || !name.ends_with(".log") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("log");
            let resuming: u64 = text
                .lines()
                .find_map(|l| l.split("Resuming at batch ").nth(1))
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .expect("a resume line");
            let loads: Vec<StoreLoad> = text
                .lines()
                .filter_map(crate::scan::parse_header)
                .filter_map(|h| parse(h.msg))
                .collect();
            assert!(
                loads.iter().any(|l| l.version == resuming),
                "{name}: no load of version {resuming} in {loads:?}"
            );
            seen += 1;
        }
        assert!(seen >= 8, "only {seen} RocksDB fixture logs");
    }
}
