//! The state directory `state/<operatorId>/<partitionId>[/<storeName>]/`: what each stateful
//! operator holds, and whether the state version a restart loads can be rebuilt from the files.
//!
//! Pure: works on the names the loader listed; never reads a state file's contents (the schema
//! and operator metadata files are read by the caller and passed in parsed).
//!
//! File names (spark-checkpoints.md §1.4–1.7): HDFS-backed `<v>.delta` / `<v>.snapshot`;
//! RocksDB `<v>.zip`, `<v>.changelog` (3.4+), `SSTs/`, `logs/`; with checkpoint format v2 (4.0+)
//! `<v>_<uuid>.zip` / `<v>_<uuid>.changelog`. State version `v` is written by batch `v - 1`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::loader::{Entry, EntryKind, LinkTarget};

/// Which state store provider wrote an operator's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// HDFSBackedStateStoreProvider (`.delta`, `.snapshot`).
    Hdfs,
    /// RocksDBStateStoreProvider (`.zip`, `.changelog`, `SSTs/`), 3.2+.
    Rocksdb,
    /// No state files yet, both kinds mixed, or a custom provider.
    Unknown,
}

impl Provider {
    /// `hdfs`, `rocksdb` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Hdfs => "hdfs",
            Provider::Rocksdb => "rocksdb",
            Provider::Unknown => "unknown",
        }
    }

    /// The provider a `spark.sql.streaming.stateStore.providerClass` value names.
    pub fn from_class(class: &str) -> Provider {
        if class.ends_with("HDFSBackedStateStoreProvider") {
            Provider::Hdfs
        } else if class.ends_with("RocksDBStateStoreProvider") {
            Provider::Rocksdb
        } else {
            Provider::Unknown
        }
    }
}

/// The state files of one store of one partition, by version.
#[derive(Debug, Default, Clone)]
pub(crate) struct StoreFiles {
    pub deltas: Vec<u64>,
    pub snapshots: Vec<u64>,
    pub zips: Vec<u64>,
    pub changelogs: Vec<u64>,
    /// `(version, uuid)` of files named `<v>_<uuid>.*` (checkpoint format v2).
    pub unique_ids: Vec<(u64, String)>,
    pub sst_files: usize,
    pub schema_file: Option<String>,
    pub unknown: Vec<String>,
    /// State files that are FIFOs, sockets or devices (or links to one): `(version, extension,
    /// path)`. Counted as present (Spark lists them), and reported on their own.
    pub specials: Vec<(u64, String, String)>,
    /// The store directory is a link to a directory: not walked, so not checked.
    pub linked: bool,
}

impl StoreFiles {
    fn sort(&mut self) {
        for v in [
            &mut self.deltas,
            &mut self.snapshots,
            &mut self.zips,
            &mut self.changelogs,
        ] {
            v.sort_unstable();
            v.dedup();
        }
    }

    fn latest(&self) -> Option<u64> {
        [&self.deltas, &self.snapshots, &self.zips, &self.changelogs]
            .iter()
            .filter_map(|v| v.last().copied())
            .max()
    }

    fn oldest(&self) -> Option<u64> {
        [&self.deltas, &self.snapshots, &self.zips, &self.changelogs]
            .iter()
            .filter_map(|v| v.first().copied())
            .min()
    }

    fn provider(&self) -> Provider {
        let hdfs = !self.deltas.is_empty() || !self.snapshots.is_empty();
        let rocks = !self.zips.is_empty() || !self.changelogs.is_empty() || self.sst_files > 0;
        match (hdfs, rocks) {
            (true, false) => Provider::Hdfs,
            (false, true) => Provider::Rocksdb,
            _ => Provider::Unknown,
        }
    }

    /// Whether loading `version` reads the state file `<v>.<ext>` (the same chain as
    /// [`StoreFiles::missing_for`]: the newest full copy at or below it, then the increments).
    pub fn reads(&self, version: u64, v: u64, ext: &str) -> bool {
        if version == 0 || v > version {
            return false;
        }
        match self.provider() {
            Provider::Hdfs => {
                let base = below_or_at(&self.snapshots, version);
                match ext {
                    "snapshot" => v == base,
                    "delta" => v > base,
                    _ => false,
                }
            }
            Provider::Rocksdb => {
                let base = below_or_at(&self.zips, version);
                match ext {
                    "zip" => v == base,
                    "changelog" => v > base,
                    _ => false,
                }
            }
            Provider::Unknown => v == version,
        }
    }

    /// The first file missing to rebuild `version`, as Spark's providers load it: the newest
    /// full copy at or below it (HDFS snapshot or RocksDB zip; none means "start empty"), then
    /// every increment (delta or changelog) up to it. `None` when it can be rebuilt.
    pub fn missing_for(&self, version: u64) -> Option<String> {
        if version == 0 {
            return None;
        }
        match self.provider() {
            Provider::Hdfs => {
                let base = below_or_at(&self.snapshots, version);
                ((base + 1)..=version)
                    .find(|v| self.deltas.binary_search(v).is_err())
                    .map(|v| format!("{v}.delta"))
            }
            Provider::Rocksdb => {
                let base = below_or_at(&self.zips, version);
                if base == version {
                    return None;
                }
                if self.changelogs.is_empty() {
                    return Some(format!("{version}.zip"));
                }
                ((base + 1)..=version)
                    .find(|v| self.changelogs.binary_search(v).is_err())
                    .map(|v| format!("{v}.changelog"))
            }
            Provider::Unknown => Some(format!("{version}.delta or {version}.zip")),
        }
    }
}

fn below_or_at(sorted: &[u64], version: u64) -> u64 {
    match sorted.binary_search(&version) {
        Ok(_) => version,
        Err(0) => 0,
        Err(i) => sorted[i - 1],
    }
}

/// One operator's directory as listed.
#[derive(Debug, Default, Clone)]
pub(crate) struct OperatorDir {
    /// partition → store name → files.
    pub partitions: BTreeMap<u32, BTreeMap<String, StoreFiles>>,
    pub metadata_v1: Option<String>,
    /// Batch ids of `_metadata/v2/<batchId>`.
    pub metadata_v2: Vec<u64>,
    pub state_schema_v3_files: usize,
    pub unknown: Vec<String>,
    /// The operator directory is a link to a directory: not walked, so not checked.
    pub linked: bool,
    /// Partition directories that are links to directories: not walked, so not checked.
    pub linked_partitions: Vec<u32>,
}

/// All of `state/`, by operator id.
#[derive(Debug, Default)]
pub(crate) struct StateTree {
    pub operators: BTreeMap<u32, OperatorDir>,
    pub unknown: Vec<String>,
}

pub(crate) const DEFAULT_STORE: &str = "default";

/// Groups the listing's entries under `state/` by operator, partition and store.
pub(crate) fn collect<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> StateTree {
    let mut tree = StateTree::default();
    for entry in entries {
        let Some(rest) = entry.rel.strip_prefix("state/") else {
            continue;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let name = parts[parts.len() - 1];
        if name.starts_with('.') {
            // Hadoop .crc side files and .tmp leftovers are handled on the whole listing.
            continue;
        }
        let Ok(op) = parts[0].parse::<u32>() else {
            tree.unknown.push(entry.rel.clone());
            continue;
        };
        let operator = tree.operators.entry(op).or_default();
        if parts.len() == 1 {
            if entry.kind == EntryKind::Symlink(LinkTarget::Dir) {
                operator.linked = true;
            } else if entry.kind != EntryKind::Dir {
                tree.unknown.push(entry.rel.clone());
            }
            continue;
        }
        add_operator_entry(operator, entry, &parts[1..]);
    }
    for operator in tree.operators.values_mut() {
        operator.metadata_v2.sort_unstable();
        for stores in operator.partitions.values_mut() {
            for files in stores.values_mut() {
                files.sort();
            }
        }
    }
    tree
}

/// An entry below `state/<op>/` (`parts`: its path from there): operator metadata, a state
/// schema file (v3), or something in a partition.
fn add_operator_entry(operator: &mut OperatorDir, entry: &Entry, parts: &[&str]) {
    // What Spark's listing shows as a file: a regular file, a link to one, or a special file
    // (present by name; reported on its own, never opened).
    let is_file = entry.kind.is_file_like();
    match parts[0] {
        "_metadata" => {
            match (&parts[1..], is_file) {
                ([], _) | (["v2"], false) => {}
                (["metadata"], true) => operator.metadata_v1 = Some(entry.rel.clone()),
                (["v2", batch], true) if batch.parse::<u64>().is_ok() => {
                    operator.metadata_v2.push(batch.parse().unwrap_or_default())
                }
                _ => operator.unknown.push(entry.rel.clone()),
            }
            return;
        }
        "_stateSchema" => {
            if is_file {
                operator.state_schema_v3_files += 1;
            }
            return;
        }
        _ => {}
    }
    let Ok(partition) = parts[0].parse::<u32>() else {
        operator.unknown.push(entry.rel.clone());
        return;
    };
    if parts.len() == 1 && entry.kind == EntryKind::Symlink(LinkTarget::Dir) {
        operator.linked_partitions.push(partition);
    }
    let stores = operator.partitions.entry(partition).or_default();
    add_partition_entry(stores, &mut operator.unknown, entry, &parts[1..]);
}

/// The store directories Spark writes inside a partition directory: a stream-stream join's four
/// stores, `<side>-<type>` (SymmetricHashJoinStateManager.allStateStoreNames: sides `left` and
/// `right`, types `keyToNumValues` and `keyWithIndexToValue`). Every other operator keeps its
/// one store, `default`, in the partition directory itself (StateStoreId.storeCheckpointLocation
/// adds no directory for the default name), so any other subdirectory (a stray `backup/`) is not
/// a store: Spark never opens it, and nothing in it can be missing.
pub(crate) const JOIN_STORES: &[&str] = &[
    "left-keyToNumValues",
    "left-keyWithIndexToValue",
    "right-keyToNumValues",
    "right-keyWithIndexToValue",
];

/// An entry below `state/<op>/<partition>/` (`rest`: its path from there), into the store it
/// belongs to: the default store's files sit in the partition directory itself.
fn add_partition_entry(
    stores: &mut BTreeMap<String, StoreFiles>,
    unknown: &mut Vec<String>,
    entry: &Entry,
    rest: &[&str],
) {
    let is_file = entry.kind.is_file_like();
    let linked_dir = entry.kind == EntryKind::Symlink(LinkTarget::Dir);
    // A store dir is a partition's subdirectory other than RocksDB's and the schema's own.
    let (store, inner) = match rest {
        [] => return,
        [first, ..] if matches!(*first, "SSTs" | "logs" | "archive" | "_metadata") => {
            (DEFAULT_STORE, rest)
        }
        [_file] if is_file => (DEFAULT_STORE, rest),
        [store, inner @ ..] if JOIN_STORES.contains(store) => (*store, inner),
        // Not a store: reported once (the directory itself), its contents ignored as Spark does.
        [_, inner @ ..] => {
            if inner.is_empty() {
                unknown.push(entry.rel.clone());
            }
            return;
        }
    };
    // Look up before inserting: most entries hit an existing store, so avoid a String each.
    if !stores.contains_key(store) {
        stores.insert(store.to_string(), StoreFiles::default());
    }
    let Some(files) = stores.get_mut(store) else {
        return;
    };
    match (inner, is_file) {
        ([], _) => files.linked |= linked_dir,
        ([file], true) => {
            classify(files, file, &entry.rel);
            if entry.kind.is_special() {
                if let Some((v, ext)) = state_file_name(file) {
                    files.specials.push((v, ext.to_string(), entry.rel.clone()));
                }
            }
        }
        (["SSTs" | "logs" | "archive"], false) | (["_metadata"], false) => {}
        (["SSTs", _], true) => files.sst_files += 1,
        (["logs" | "archive", _], true) => {}
        (["_metadata", "schema"], true) => files.schema_file = Some(entry.rel.clone()),
        _ => files.unknown.push(entry.rel.clone()),
    }
}

/// `(version, extension)` of a state file name `<v>[_<uuid>].<ext>`.
fn state_file_name(name: &str) -> Option<(u64, &str)> {
    let (stem, ext) = name.rsplit_once('.')?;
    let version = stem.split_once('_').map_or(stem, |(v, _)| v);
    Some((version.parse().ok()?, ext))
}

fn classify(files: &mut StoreFiles, name: &str, rel: &str) {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        files.unknown.push(rel.to_string());
        return;
    };
    let (version, uuid) = match stem.split_once('_') {
        Some((v, uuid)) => (v, Some(uuid)),
        None => (stem, None),
    };
    let Ok(version) = version.parse::<u64>() else {
        files.unknown.push(rel.to_string());
        return;
    };
    let list = match ext {
        "delta" => &mut files.deltas,
        "snapshot" => &mut files.snapshots,
        "zip" => &mut files.zips,
        "changelog" => &mut files.changelogs,
        _ => {
            files.unknown.push(rel.to_string());
            return;
        }
    };
    list.push(version);
    if let Some(uuid) = uuid {
        files.unique_ids.push((version, uuid.to_string()));
    }
}

/// One state partition's versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionState {
    /// Partition id.
    pub id: u32,
    /// Newest state version in any of its stores (`None`: no state file).
    pub latest_version: Option<u64>,
    /// Oldest state version retained.
    pub oldest_version: Option<u64>,
}

impl OperatorDir {
    /// Which kinds of state files the operator holds: (HDFS-backed, RocksDB).
    fn kinds(&self) -> (bool, bool) {
        let (mut hdfs, mut rocks) = (false, false);
        for f in self.partitions.values().flat_map(|s| s.values()) {
            hdfs |= !f.deltas.is_empty() || !f.snapshots.is_empty();
            rocks |= !f.zips.is_empty() || !f.changelogs.is_empty() || f.sst_files > 0;
        }
        (hdfs, rocks)
    }

    pub(crate) fn provider(&self) -> Provider {
        match self.kinds() {
            (true, false) => Provider::Hdfs,
            (false, true) => Provider::Rocksdb,
            _ => Provider::Unknown,
        }
    }

    /// Both HDFS-backed and RocksDB files under one operator.
    pub(crate) fn mixed_providers(&self) -> bool {
        self.kinds() == (true, true)
    }

    pub(crate) fn store_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .partitions
            .values()
            .flat_map(|s| s.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    pub(crate) fn partition_states(&self) -> Vec<PartitionState> {
        self.partitions
            .iter()
            .map(|(id, stores)| PartitionState {
                id: *id,
                latest_version: stores.values().filter_map(StoreFiles::latest).max(),
                oldest_version: stores.values().filter_map(StoreFiles::oldest).min(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(paths: &[&str]) -> Vec<Entry> {
        paths
            .iter()
            .map(|p| Entry {
                rel: p.trim_end_matches('/').to_string(),
                kind: if p.ends_with('/') {
                    EntryKind::Dir
                } else {
                    EntryKind::File
                },
            })
            .collect()
    }

    #[test]
    fn hdfs_join_and_rocksdb_layouts() {
        let tree = collect(&entries(&[
            "state/",
            "state/0/",
            "state/0/0/",
            "state/0/0/1.delta",
            "state/0/0/2.delta",
            "state/0/0/.2.delta.crc",
            "state/0/0/_metadata/schema",
            "state/1/0/left-keyToNumValues/1.delta",
            "state/1/0/left-keyToNumValues/_metadata/schema",
            "state/2/0/1_u1.zip",
            "state/2/0/SSTs/000008-x.sst",
            "state/2/_metadata/metadata",
            "state/2/_metadata/v2/3",
            "state/2/_stateSchema/default/0_u",
            "state/2/0/weird.bin",
        ]));
        let op0 = &tree.operators[&0];
        assert_eq!(op0.provider(), Provider::Hdfs);
        assert_eq!(op0.partitions[&0][DEFAULT_STORE].deltas, vec![1, 2]);
        assert!(op0.partitions[&0][DEFAULT_STORE].schema_file.is_some());
        assert_eq!(
            tree.operators[&1].store_names(),
            vec!["left-keyToNumValues".to_string()]
        );
        let op2 = &tree.operators[&2];
        assert_eq!(op2.provider(), Provider::Rocksdb);
        assert_eq!(
            op2.partitions[&0][DEFAULT_STORE].unique_ids,
            vec![(1, "u1".to_string())]
        );
        assert_eq!(op2.partitions[&0][DEFAULT_STORE].sst_files, 1);
        assert!(op2.metadata_v1.is_some());
        assert_eq!(op2.metadata_v2, vec![3]);
        assert_eq!(op2.state_schema_v3_files, 1);
        assert_eq!(
            op2.partitions[&0][DEFAULT_STORE].unknown,
            vec!["state/2/0/weird.bin".to_string()]
        );
    }

    #[test]
    fn a_version_is_loadable_from_the_newest_full_copy_and_the_increments_after_it() {
        let hdfs = StoreFiles {
            deltas: vec![1, 2, 4, 11, 12],
            snapshots: vec![10],
            ..Default::default()
        };
        assert_eq!(hdfs.missing_for(12), None, "snapshot 10 + deltas 11, 12");
        assert_eq!(hdfs.missing_for(4), Some("3.delta".into()));
        assert_eq!(hdfs.missing_for(13), Some("13.delta".into()));
        assert_eq!(hdfs.missing_for(0), None);

        let rocks = StoreFiles {
            zips: vec![1, 2, 3],
            ..Default::default()
        };
        assert_eq!(rocks.missing_for(3), None);
        assert_eq!(rocks.missing_for(4), Some("4.zip".into()));

        let changelog = StoreFiles {
            zips: vec![10],
            changelogs: vec![1, 2, 3, 11, 13],
            ..Default::default()
        };
        assert_eq!(changelog.missing_for(3), None);
        assert_eq!(changelog.missing_for(13), Some("12.changelog".into()));
    }

    /// The file trees of the real restarts in the shared case corpus (`ckpt-tree.txt`: "size
    /// path" lines of what the writing Spark version left): provider, partitions and the
    /// loadability of the last committed state version. Skipped when the corpus is absent,
    /// required when `CI=true`.
    #[test]
    #[allow(clippy::print_stderr)] // says why it is skipped
    fn shared_corpus_trees_are_understood() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/cases/restarts");
        if !root.is_dir() {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "CI=true but {} is missing",
                root.display()
            );
            eprintln!(
                "SKIPPED: {} is absent; the shared-corpus tree test needs it",
                root.display()
            );
            return;
        }
        let mut seen = 0;
        for case in std::fs::read_dir(&root).unwrap() {
            let case = case.unwrap().path();
            let Ok(text) = std::fs::read_to_string(case.join("ckpt-tree.txt")) else {
                continue;
            };
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let mut paths: Vec<String> = Vec::new();
            for line in text.lines() {
                let Some((_, path)) = line.split_once(' ') else {
                    continue;
                };
                // "<dir>/state/0/1/2.delta" → "state/0/1/2.delta"
                if let Some(i) = path.find("/state/") {
                    paths.push(path[i + 1..].to_string());
                }
            }
            let entries: Vec<Entry> = paths
                .iter()
                .map(|p| Entry {
                    rel: p.clone(),
                    kind: EntryKind::File,
                })
                .collect();
            let tree = collect(&entries);
            let op = &tree.operators[&0];
            let rocks = name.contains("rocks") && !name.starts_with("x4-provider-hdfs");
            assert_eq!(
                op.provider(),
                if rocks {
                    Provider::Rocksdb
                } else {
                    Provider::Hdfs
                },
                "{name}"
            );
            assert_eq!(op.partitions.len(), 2, "{name}");
            let latest = op
                .partition_states()
                .iter()
                .filter_map(|p| p.latest_version)
                .max()
                .unwrap();
            for (p, stores) in &op.partitions {
                for (store, files) in stores {
                    assert_eq!(
                        files.missing_for(latest),
                        None,
                        "{name}: partition {p} store {store}"
                    );
                }
            }
            assert_eq!(
                name.contains("ckptv2"),
                op.partitions[&0][DEFAULT_STORE].unique_ids.len() == latest as usize,
                "{name}"
            );
            seen += 1;
        }
        assert!(seen >= 30, "only {seen} trees");
    }
}
