//! Stateful operators of an inspection: provider, partitions, schema and operator metadata files,
//! and whether the state version a restart loads can be rebuilt from the retained files.
//!
//! Part of the interpretation pass of `inspect.rs`; the directory grouping is `state.rs`.

use std::collections::BTreeMap;

use super::commits::CommitLogFile;
use super::findings::Severity;
use super::inspect::{list_ids, Inspector};
use super::metadata::{parse_operator_metadata, parse_state_schema, StateSchema};
use super::model::{Operator, OperatorMetadataFile, SchemaFile};
use super::state::{self, OperatorDir, Provider, StateTree, DEFAULT_STORE};

const SHUFFLE_PARTITIONS: &str = "spark.sql.shuffle.partitions";
const PROVIDER_CLASS: &str = "spark.sql.streaming.stateStore.providerClass";
const JOIN_FORMAT: &str = "spark.sql.streaming.join.stateFormatVersion";

/// What the state checks need to know about the logs.
struct StateContext<'a> {
    /// `spark.sql.shuffle.partitions` pinned in the latest offset file.
    expected_partitions: Option<u32>,
    /// The provider class pinned in the latest offset file, and what it names.
    conf_provider: Option<(String, Provider)>,
    conf: Option<&'a BTreeMap<String, String>>,
    committed: Option<u64>,
    latest: Option<u64>,
    commit: Option<&'a CommitLogFile>,
}

impl Inspector {
    pub(crate) fn operators(
        &mut self,
        tree: &StateTree,
        conf: Option<&BTreeMap<String, String>>,
        committed: Option<u64>,
        latest: Option<u64>,
        commit: Option<&CommitLogFile>,
    ) -> Vec<Operator> {
        for rel in &tree.unknown {
            self.finding(
                Severity::Info,
                "unexpected-entry",
                Some(rel),
                format!("{rel} is not an operator directory; Spark ignores it"),
            );
        }
        let expected_partitions = conf
            .and_then(|c| c.get(SHUFFLE_PARTITIONS))
            .and_then(|v| v.parse::<u32>().ok());
        let conf_provider = conf
            .and_then(|c| c.get(PROVIDER_CLASS))
            .map(|c| (c.clone(), Provider::from_class(c)));
        let ids: Vec<u32> = tree.operators.keys().copied().collect();
        if let Some(missing) =
            (0..ids.last().map_or(0, |l| l + 1)).find(|i| !tree.operators.contains_key(i))
        {
            self.finding(
                Severity::Warning,
                "operator-missing",
                Some(&format!("state/{missing}")),
                format!("state/ has operators {} but no state/{missing}: stateful operator ids are consecutive, so its state was deleted or never written", list_ids(&ids.iter().map(|&i| u64::from(i)).collect::<Vec<_>>())),
            );
        }
        self.check_partitions_pinned(tree, conf, latest);
        let ctx = StateContext {
            expected_partitions,
            conf_provider,
            conf,
            committed,
            latest,
            commit,
        };
        let mut out = Vec::new();
        for (&id, dir) in &tree.operators {
            out.push(self.operator(id, dir, &ctx));
        }
        out
    }

    /// A checkpoint whose offset log does not pin `spark.sql.shuffle.partitions` (Spark 2.1
    /// wrote no conf): the restart takes the session's value, and only the partition count the
    /// state was written with can load it (Spark's StreamSuite "recover from a Spark v2.1
    /// checkpoint": 10 partitions resume, 15 fail; OffsetSeqMetadata.setSessionConf keeps the
    /// session value for a key the log lacks). Said as the value the restart must set.
    fn check_partitions_pinned(
        &mut self,
        tree: &StateTree,
        conf: Option<&BTreeMap<String, String>>,
        latest: Option<u64>,
    ) {
        if latest.is_none() || conf.is_some_and(|c| c.contains_key(SHUFFLE_PARTITIONS)) {
            return;
        }
        let Some(n) = tree
            .operators
            .values()
            .filter_map(|op| op.partitions.keys().next_back())
            .max()
            .map(|p| u64::from(*p) + 1)
        else {
            return;
        };
        let latest = latest.unwrap_or_default();
        self.finding(
            Severity::Warning,
            "shuffle-partitions-not-pinned",
            Some(&format!("offsets/{latest}")),
            format!("the offset log does not record {SHUFFLE_PARTITIONS} (Spark 2.1 wrote no conf), so the restart uses the session's value, but the state was written with {n} partitions: run the restart with {SHUFFLE_PARTITIONS}={n}; any other value fails loading the state or loses it"),
        );
    }

    /// One operator directory: what it holds, and every check on it (findings in a fixed order).
    fn operator(&mut self, id: u32, dir: &OperatorDir, ctx: &StateContext<'_>) -> Operator {
        let op_dir = format!("state/{id}");
        self.report_unexpected_state_entries(dir);
        let provider = dir.provider();
        let stores = dir.store_names();
        let partition_states = dir.partition_states();
        let latest_version = partition_states
            .iter()
            .filter_map(|p| p.latest_version)
            .max();
        let any_files = |f: &dyn Fn(&state::StoreFiles) -> bool| {
            dir.partitions.values().flat_map(|s| s.values()).any(f)
        };
        let changelog = any_files(&|f| !f.changelogs.is_empty());
        let unique_ids = any_files(&|f| !f.unique_ids.is_empty());
        self.observe_state_layout(&op_dir, provider, changelog, unique_ids, &stores);
        self.check_provider(&op_dir, dir, provider, ctx.conf_provider.as_ref());
        let schemas = self.schema_files(dir);
        let operator_metadata = self.operator_metadata(id, dir);
        let single = single_partition(dir, &schemas, operator_metadata.as_ref());
        if let (Some(meta), None) = (&operator_metadata, single) {
            self.check_metadata_partitions(&op_dir, dir, meta);
        }
        let name = operator_name(operator_metadata.as_ref(), &stores);
        self.check_join_state_format(&op_dir, &stores, ctx.conf);

        self.check_state_versions(id, dir, provider, ctx, single);

        Operator {
            id,
            name,
            partitions: dir.partitions.len() as u32,
            provider,
            stores,
            latest_version,
            partition_states,
            changelog_checkpointing: changelog,
            unique_id_files: unique_ids,
            schemas,
            operator_metadata,
            state_schema_v3_files: dir.state_schema_v3_files,
        }
    }

    /// Entries in the operator's directory (and its store directories) that Spark did not write.
    fn report_unexpected_state_entries(&mut self, dir: &OperatorDir) {
        for rel in dir.unknown.iter().chain(
            dir.partitions
                .values()
                .flat_map(|s| s.values())
                .flat_map(|f| f.unknown.iter()),
        ) {
            self.finding(
                Severity::Info,
                "unexpected-entry",
                Some(rel),
                format!(
                    "{rel} is not a state file or store directory Spark writes; Spark ignores it"
                ),
            );
        }
    }

    /// Version markers the state files carry (RocksDB, changelog checkpointing, unique ids, join
    /// stores), for the writer-version inference.
    fn observe_state_layout(
        &mut self,
        op_dir: &str,
        provider: Provider,
        changelog: bool,
        unique_ids: bool,
        stores: &[String],
    ) {
        if provider == Provider::Rocksdb {
            self.observe("rocksdb-files", op_dir, false);
        }
        if changelog {
            self.observe("rocksdb-changelog", op_dir, false);
        }
        if unique_ids {
            self.observe("state-unique-id-files", op_dir, false);
        }
        if stores
            .iter()
            .any(|s| s.starts_with("left-") || s.starts_with("right-"))
        {
            self.observe("join-state-stores", op_dir, false);
        }
    }

    /// The files of one provider only, and of the provider the offset log pins (Spark restores
    /// the provider from the log).
    fn check_provider(
        &mut self,
        op_dir: &str,
        dir: &OperatorDir,
        provider: Provider,
        conf_provider: Option<&(String, Provider)>,
    ) {
        if dir.mixed_providers() {
            self.finding(
                Severity::Error,
                "state-provider-mixed",
                Some(op_dir),
                format!("{op_dir} holds both HDFS-backed (.delta/.snapshot) and RocksDB (.zip/.changelog) files: state from two providers was mixed into one checkpoint"),
            );
        }
        if let (Some((class, wanted)), true) = (conf_provider, provider != Provider::Unknown) {
            if *wanted != Provider::Unknown && *wanted != provider {
                self.finding(
                    Severity::Error,
                    "state-provider-mismatch",
                    Some(op_dir),
                    format!("the offset log pins the state store provider {class}, but {op_dir} holds {} files: Spark restores the provider from the log and will not find its files", provider.name()),
                );
            }
        }
    }

    /// The state schema files (partition 0, one per store), each read and parsed.
    fn schema_files(&mut self, dir: &OperatorDir) -> Vec<SchemaFile> {
        let mut schemas = Vec::new();
        let Some(p0) = dir.partitions.get(&0) else {
            return schemas;
        };
        for (store, files) in p0 {
            let Some(rel) = &files.schema_file else {
                continue;
            };
            self.observe("state-schema-file", rel, false);
            let schema = self.state_schema(rel);
            schemas.push(SchemaFile {
                file: rel.clone(),
                store: store.clone(),
                schema,
            });
        }
        schemas
    }

    /// One state schema file, or `None` (with an error finding) when it cannot be read or parsed.
    fn state_schema(&mut self, rel: &str) -> Option<StateSchema> {
        match self.listing.read(rel) {
            Ok(bytes) => match parse_state_schema(&bytes) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.finding(
                        Severity::Error,
                        "state-schema-garbled",
                        Some(rel),
                        format!("{rel} is not a readable state schema file ({}): Spark 3.1+ checks the state schema against it on restart and fails", e.kind),
                    );
                    None
                }
            },
            Err(e) => {
                self.finding(
                    Severity::Error,
                    e.code(),
                    Some(rel),
                    format!("cannot read {rel}: {e}; Spark 3.1+ reads it on restart to check the state schema: restore it from a backup of the checkpoint"),
                );
                None
            }
        }
    }

    /// The partition count the operator metadata declares must be the one on disk.
    fn check_metadata_partitions(
        &mut self,
        op_dir: &str,
        dir: &OperatorDir,
        meta: &OperatorMetadataFile,
    ) {
        let declared = meta
            .metadata
            .stores
            .iter()
            .filter_map(|s| s.partitions)
            .max();
        if let Some(n) = declared.filter(|n| *n as usize != dir.partitions.len()) {
            self.finding(
                Severity::Warning,
                "operator-metadata-partitions",
                Some(&meta.file),
                format!(
                    "{} declares {n} partitions but {op_dir} has {}",
                    meta.file,
                    dir.partitions.len()
                ),
            );
        }
    }

    /// A stream-stream join (its `left-…` stores) with state format version 1, which Spark 3.0+
    /// refuses for outer joins.
    fn check_join_state_format(
        &mut self,
        op_dir: &str,
        stores: &[String],
        conf: Option<&BTreeMap<String, String>>,
    ) {
        if stores.iter().any(|s| s.starts_with("left-")) {
            let format = conf.and_then(|c| c.get(JOIN_FORMAT)).map(String::as_str);
            if conf.is_some() && format.is_none_or(|f| f == "1") {
                self.finding(
                    Severity::Warning,
                    "join-state-format-1",
                    Some(op_dir),
                    format!("{op_dir} is a stream-stream join with state format version 1: if it is an outer join, Spark 3.0+ refuses to restart it (SPARK-26154, \"correctness issue is discovered\")"),
                );
            }
        }
    }

    fn operator_metadata(&mut self, id: u32, dir: &OperatorDir) -> Option<OperatorMetadataFile> {
        if dir.state_schema_v3_files > 0 {
            self.observe(
                "state-schema-v3",
                &format!("state/{id}/_stateSchema"),
                false,
            );
        }
        let v2 = dir
            .metadata_v2
            .last()
            .map(|b| format!("state/{id}/_metadata/v2/{b}"));
        if let Some(rel) = &v2 {
            self.observe("operator-metadata-v2", rel, false);
        }
        if let Some(rel) = &dir.metadata_v1 {
            self.observe("operator-metadata-v1", rel, false);
        }
        let rel = v2.or_else(|| dir.metadata_v1.clone())?;
        let text = self.read_text(
            &rel,
            Severity::Error,
            "; Spark 4.0+ validates the operators against it on restart",
        )?;
        match parse_operator_metadata(&text) {
            Ok(metadata) => Some(OperatorMetadataFile {
                file: rel,
                metadata,
            }),
            Err(err) => {
                self.parse_failed(
                    &rel,
                    &err,
                    Severity::Error,
                    "; Spark 4.0+ validates the operators against it on restart",
                );
                None
            }
        }
    }

    /// The state version a restart loads is `last committed batch + 1`; every partition and store
    /// must be able to rebuild it from the retained files.
    fn check_state_versions(
        &mut self,
        id: u32,
        dir: &OperatorDir,
        provider: Provider,
        ctx: &StateContext<'_>,
        single: Option<SinglePartition>,
    ) {
        let StateContext {
            expected_partitions,
            committed,
            latest,
            commit,
            ..
        } = *ctx;
        let op_dir = format!("state/{id}");
        if dir.linked {
            // A link to a directory: not walked (the symlink finding says so), so nothing in it
            // can be said to be missing.
            return;
        }
        self.check_special_state_files(dir, committed.map(|c| c + 1));
        if dir.partitions.is_empty() {
            self.finding(
                Severity::Warning,
                "state-operator-empty",
                Some(&op_dir),
                format!("{op_dir} has no partition directories"),
            );
            return;
        }
        let Some(c) = committed else { return };
        let version = c + 1;
        match single {
            Some(why) => self.check_single_partition(&op_dir, dir, expected_partitions, why),
            None => self.check_partition_count(&op_dir, dir, expected_partitions, version),
        }
        self.check_state_files(&op_dir, dir, provider, c);
        if let Some(n) = latest {
            self.check_state_ahead(&op_dir, dir, n);
        }
        // Checkpoint format v2: the commit names the exact store files to load.
        if let Some(commit) = commit.filter(|c| c.state_unique_ids.is_some()) {
            self.check_unique_id_files(id, dir, commit, c);
        }
    }

    /// Every partition present must hold, per store, the files that rebuild the state version a
    /// restart loads (`committed + 1`).
    fn check_state_files(
        &mut self,
        op_dir: &str,
        dir: &OperatorDir,
        provider: Provider,
        committed: u64,
    ) {
        let version = committed + 1;
        let missing = missing_state_files(op_dir, dir, provider, version);
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(5).map(String::as_str).collect();
            let more = if missing.len() > 5 {
                format!(" and {} more", missing.len() - 5)
            } else {
                String::new()
            };
            self.finding(
            Severity::Error,
            "state-version-missing",
            Some(&missing[0]),
            format!("the restart loads state version {version} (last committed batch {committed} + 1), but {}{more} {} missing: Spark will fail to load the state store", shown.join(", "), if missing.len() == 1 { "is" } else { "are" }),
        );
        }
    }

    /// State files that are FIFOs, sockets or devices: present by name to Spark, never opened
    /// here, and an error when the restart has to read one (to load state version `load`).
    fn check_special_state_files(&mut self, dir: &OperatorDir, load: Option<u64>) {
        for files in dir.partitions.values().flat_map(|s| s.values()) {
            for (v, ext, rel) in &files.specials {
                let read = load.is_some_and(|version| files.reads(version, *v, ext));
                let (severity, what) = match load {
                    Some(version) if read => (Severity::Error, format!("Spark reads it to load state version {version} on restart and blocks or fails")),
                    _ => (Severity::Warning, "the restart does not read it, but a rollback to an older batch or the state data source would".to_string()),
                };
                self.finding(
                    severity,
                    "not-a-regular-file",
                    Some(rel),
                    format!("{rel} is not a regular file (a FIFO, socket or device, or a link to one) where Spark keeps a state file, and was not opened: {what}; replace it with the real file from a backup of the checkpoint"),
                );
            }
        }
    }

    /// Partitions missing below the expected count (the pinned `spark.sql.shuffle.partitions`,
    /// or the highest partition present + 1), and partitions beyond the pinned count.
    fn check_partition_count(
        &mut self,
        op_dir: &str,
        dir: &OperatorDir,
        expected_partitions: Option<u32>,
        version: u64,
    ) {
        // Partition ids come from directory names: never loop up to a huge one, only over what
        // exists plus (at most 1,000 of) the ids missing below the expected count.
        let count = expected_partitions.unwrap_or(0).max(
            dir.partitions
                .keys()
                .next_back()
                .map_or(0, |l| l.saturating_add(1)),
        );
        let missing_partitions: Vec<u64> = (0..count)
            .filter(|p| !dir.partitions.contains_key(p))
            .take(1000)
            .map(u64::from)
            .collect();
        if !missing_partitions.is_empty() {
            self.finding(
                Severity::Error,
                "state-partition-missing",
                Some(&format!("{op_dir}/{}", missing_partitions[0])),
                format!("{op_dir} lacks partition(s) {} of {count}: Spark cannot load their state for batch {version} (state version {version})", list_ids(&missing_partitions)),
            );
        }
        if let Some(n) = expected_partitions {
            if let Some(extra) = dir.partitions.keys().find(|p| **p >= n) {
                self.finding(
                    Severity::Warning,
                    "state-partition-extra",
                    Some(&format!("{op_dir}/{extra}")),
                    format!("{op_dir} has partition {extra}, but the offset log pins {SHUFFLE_PARTITIONS}={n}"),
                );
            }
        }
    }

    /// An operator that keeps all its state in partition 0 (see [`SinglePartition`]): the pinned
    /// partition count does not apply; a layout that only suggests it is said, not taken as lost
    /// partitions.
    fn check_single_partition(
        &mut self,
        op_dir: &str,
        dir: &OperatorDir,
        expected_partitions: Option<u32>,
        why: SinglePartition,
    ) {
        if !dir.partitions.contains_key(&0) {
            self.finding(
                Severity::Error,
                "state-partition-missing",
                Some(&format!("{op_dir}/0")),
                format!("{op_dir} lacks partition 0, the one partition of this operator ({}): Spark cannot load its state", why.what()),
            );
            return;
        }
        let n = expected_partitions.unwrap_or(1);
        if why == SinglePartition::Layout && n > 1 {
            self.finding(
                Severity::Warning,
                "state-single-partition",
                Some(op_dir),
                format!("{op_dir} holds only partition 0, though the offset log pins {SHUFFLE_PARTITIONS}={n}: right for an operator that needs all rows in one partition ({}); for any other operator, partitions 1..{} were deleted and Spark fails loading their state", SinglePartition::Layout.what(), n - 1),
            );
        }
    }

    /// State newer than the latest batch `latest` (+1): the offset log was cut back.
    fn check_state_ahead(&mut self, op_dir: &str, dir: &OperatorDir, latest: u64) {
        if let Some(ahead) = dir
            .partition_states()
            .iter()
            .filter_map(|p| p.latest_version)
            .find(|v| *v > latest + 1)
        {
            self.finding(
                Severity::Warning,
                "state-ahead-of-offsets",
                Some(op_dir),
                format!("{op_dir} holds state version {ahead}, beyond the latest batch {latest} (+1): the offset log was cut back or the state comes from another copy"),
            );
        }
    }

    /// Checkpoint format v2: `commits/<committed>` names the exact store files (by unique id) the
    /// restart loads; each must exist.
    fn check_unique_id_files(
        &mut self,
        id: u32,
        dir: &OperatorDir,
        commit: &CommitLogFile,
        committed: u64,
    ) {
        let op_dir = format!("state/{id}");
        let version = committed + 1;
        let mut absent = Vec::new();
        for (&p, part) in &dir.partitions {
            for uuid in commit.unique_ids(id, p) {
                let found = part.values().any(|f| {
                    f.unique_ids
                        .iter()
                        .any(|(v, u)| *v == version && *u == uuid)
                });
                if !found {
                    absent.push(format!("{op_dir}/{p}/{version}_{uuid}.*"));
                }
            }
        }
        if let Some(first) = absent.first().cloned() {
            self.finding(
                Severity::Error,
                "state-unique-id-missing",
                Some(&first),
                format!("commits/{committed} names state files that do not exist ({}): Spark 4.0+ with checkpoint format v2 cannot load them", absent.join(", ")),
            );
        }
    }
}

/// The state files (paths under the checkpoint) a restart needs to load state `version` and that
/// are missing, per partition present and store. Linked directories are not walked, so nothing in
/// them counts as missing.
fn missing_state_files(
    op_dir: &str,
    dir: &OperatorDir,
    provider: Provider,
    version: u64,
) -> Vec<String> {
    let stores = dir.store_names();
    let mut missing = Vec::new();
    for (p, part) in &dir.partitions {
        if dir.linked_partitions.contains(p) {
            continue;
        }
        for store in &stores {
            if part.get(store).is_some_and(|f| f.linked) {
                continue;
            }
            let file = part
                .get(store)
                .and_then(|f| f.missing_for(version))
                .or_else(|| {
                    (!part.contains_key(store)).then(|| {
                        format!(
                            "{version}.{}",
                            if provider == Provider::Rocksdb {
                                "zip"
                            } else {
                                "delta"
                            }
                        )
                    })
                });
            if let Some(file) = file {
                let rel = if store == DEFAULT_STORE && !stores.iter().any(|s| s != DEFAULT_STORE) {
                    format!("{op_dir}/{p}/{file}")
                } else {
                    format!("{op_dir}/{p}/{store}/{file}")
                };
                missing.push(rel);
            }
        }
    }
    missing
}

/// Why an operator keeps exactly one state partition, whatever `spark.sql.shuffle.partitions`
/// and its operator metadata say: its required child distribution is `AllTuples`, so the
/// planner shuffles its input into a single partition and the state store RDD has one.
/// Those operators are `StreamingGlobalLimitExec` (`requiredChildDistribution = AllTuples ::
/// Nil`, key schema `struct<key: null>`) and a streaming aggregation without grouping keys
/// (`StateStoreRestoreExec`/`StateStoreSaveExec`: `if (keyExpressions.isEmpty) AllTuples`, key
/// schema `struct<>`); statefulOperators.scala, StreamingGlobalLimitExec.scala.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SinglePartition {
    /// The state schema's key (or the operator metadata's name) is that of one of them.
    Known,
    /// No schema says either way (before 3.1, or not readable), but only partition 0 exists
    /// and the pinned count is larger.
    Layout,
}

impl SinglePartition {
    fn what(self) -> &'static str {
        match self {
            SinglePartition::Known => "its state key is that of a streaming global limit or an aggregation without grouping keys, which Spark keeps in a single partition (AllTuples)",
            SinglePartition::Layout => "a streaming global limit or an aggregation without grouping keys, which Spark keeps in a single partition (AllTuples)",
        }
    }
}

/// Whether the operator keeps one state partition (see [`SinglePartition`]).
fn single_partition(
    dir: &OperatorDir,
    schemas: &[SchemaFile],
    meta: Option<&OperatorMetadataFile>,
) -> Option<SinglePartition> {
    let named_limit = meta
        .and_then(|m| m.metadata.operator_name.as_deref())
        .is_some_and(|n| n.to_ascii_lowercase().contains("limit"));
    let keys: Vec<Option<bool>> = schemas
        .iter()
        .map(|s| {
            s.schema
                .as_ref()
                .and_then(|s| s.key_schema.as_ref())
                .map(is_all_tuples_key)
        })
        .collect();
    if named_limit || (!keys.is_empty() && keys.iter().all(|k| *k == Some(true))) {
        return Some(SinglePartition::Known);
    }
    if keys.contains(&Some(false)) {
        return None;
    }
    let only_zero = dir.partitions.len() == 1 && dir.partitions.contains_key(&0);
    let stores = dir.store_names();
    let default_store_only = stores.iter().all(|s| s == DEFAULT_STORE);
    (only_zero && default_store_only).then_some(SinglePartition::Layout)
}

/// A state key schema (Spark's StructType JSON) of an `AllTuples` operator: no field (an
/// aggregation without grouping keys) or the global limit's one null-typed `key` field.
fn is_all_tuples_key(schema: &serde_json::Value) -> bool {
    let Some(fields) = schema.get("fields").and_then(|f| f.as_array()) else {
        return false;
    };
    match fields.as_slice() {
        [] => true,
        [field] => {
            field.get("name").and_then(|n| n.as_str()) == Some("key")
                && field.get("type").and_then(|t| t.as_str()) == Some("null")
        }
        _ => false,
    }
}

/// The operator's name: from its metadata file, else `join` for a stream-stream join's stores.
fn operator_name(meta: Option<&OperatorMetadataFile>, stores: &[String]) -> Option<String> {
    meta.and_then(|m| m.metadata.operator_name.clone())
        .or_else(|| {
            stores
                .iter()
                .any(|s| s.starts_with("left-"))
                .then(|| "join".to_string())
        })
}
