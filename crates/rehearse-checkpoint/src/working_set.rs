//! The restart working set: which files of a checkpoint a restart from its last committed batch
//! reads, so a sandbox copy can leave the rest out (issue 11 §2).
//!
//! Every rule comes from the shared design doc `restart-working-set.md` (cited as WS§n), which
//! cites the Spark source of each (`MicroBatchExecution.populateStartOffsets`,
//! `HDFSBackedStateStoreProvider.loadMap`, `RocksDB.load`, …) for Spark 3.0 to 4.2. With
//! L = the newest offset file, P = the one below it, C = the newest commit:
//!
//! | files | rule | WS§ |
//! |---|---|---|
//! | `metadata` | read once (`StreamMetadata.read`) | 1 |
//! | `offsets/o`, o ≥ min(P, C, L) | `getLatest`, L−1 check, `offsetSeqMetadataForBatchId(B−1)`, 4.2 repartition check | 1 |
//! | `commits/C` | only the newest commit is read; its `stateUniqueIds` name v2 state files | 1 |
//! | `sources/**` | copying all of it is safe (Kafka initial offsets, file-source logs) | 2 |
//! | `state/<op>/_metadata/**`, `_stateSchema/**` | operator metadata and schema v3 (4.0+) | 4.4 |
//! | `state/<op>/<p>[/<store>]/_metadata/**` | state schema (3.1+) | 4.4 |
//! | HDFS `.snapshot`/`.delta` | newest snapshot n ≤ V, deltas n+1..V (4.2: also the snapshot before, for auto repair) | 4.2 |
//! | RocksDB v1 `.zip`/`.changelog` | newest zip n ≤ V, the files its `metadata` names, changelogs n+1..V | 4.3 |
//! | RocksDB v2 `V_<id>.zip` | the zip of the id in `commits/C`, and its files; without it every zip/changelog ≤ V and all `SSTs/`, `logs/` | 4.3 |
//! | `.F.crc`, `F.crc`, `.F.crc.crc` | side files of every chosen F, byte for byte | 3 |
//! | `*.tmp`, `*.inprogress`, state versions > V | never read | 3, 4.1 |
//!
//! V = B = the first batch of the restart (C + 1 when C = L, else L). Whenever something does not
//! fit these rules (an unknown Spark line, file name or provider, a file that cannot be parsed, a
//! file the rules need that is missing) the answer is [`WorkingSet::Everything`] with the
//! reason: a trial must never fail because a copy left out a file Spark needed.

use std::collections::{BTreeMap, BTreeSet};

use super::model::Inspection;
use rehearse_base::versions::SparkVersion;

/// The Spark lines the rules were derived for (WS§0: sources 3.0.3 to 4.2.0). A restart on a
/// line outside this range copies everything.
pub const RULES_COVER: ((u32, u32), (u32, u32)) = ((3, 0), (4, 2));

/// A version fact the rules depend on: from which Spark line on it holds, and its source.
#[derive(Debug, Clone, Copy)]
pub struct VersionFact {
    /// First Spark line (major, minor) the fact holds for.
    pub since: (u32, u32),
    /// What it changes for the working set.
    pub what: &'static str,
    /// Where it comes from.
    pub source: &'static str,
}

/// 4.2 turns `stateStore.autoSnapshotRepair.enabled` on: a corrupt snapshot (or zip, with
/// changelogs on) falls back to an older one, so the copy also holds the one before (WS§4.2).
pub const AUTO_SNAPSHOT_REPAIR: VersionFact = VersionFact {
    since: (4, 2),
    what: "a corrupt snapshot falls back to an older snapshot and the deltas after it",
    source: "SPARK-54121, StateStoreConf autoSnapshotRepair (restart-working-set.md §4.2, §4.3)",
};

/// The four stores of a stream-stream join (formats 1 and 2), in the order their ids appear
/// in `stateUniqueIds` (`SymmetricHashJoinStateManager`, `mergeStateStoreCheckpointInfo`, WS§4.3).
pub const JOIN_STORES: [&str; 4] = [
    "left-keyToNumValues",
    "left-keyWithIndexToValue",
    "right-keyToNumValues",
    "right-keyWithIndexToValue",
];

/// The most bytes read of one RocksDB zip to find the files its `metadata` names (the zips hold
/// `metadata`, `OPTIONS-*`, `MANIFEST-*` and `CURRENT`: kilobytes to a few MiB).
pub const ZIP_READ_CAP: u64 = 256 << 20;

/// What a restart reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkingSet {
    /// Exactly these files (relative, `/`-separated), a subset of the listing.
    Files(BTreeSet<String>),
    /// Everything must be copied, for this reason (one sentence).
    Everything(String),
}

/// Reads one small file of the checkpoint (a RocksDB zip) by its relative path; the error is
/// a sentence naming the cause.
pub type ReadSmall<'a> = dyn FnMut(&str) -> Result<Vec<u8>, String> + 'a;

/// The working set of a restart of the checkpoint `inspection` describes, whose files are
/// `listing` (relative, `/`-separated, as listed now), on each of `targets` (empty: any line the
/// rules cover, with the union of their needs). `read` is called for RocksDB zips only.
pub fn working_set(
    inspection: &Inspection,
    listing: &[String],
    targets: &[SparkVersion],
    read: &mut ReadSmall<'_>,
) -> WorkingSet {
    match plan(inspection, listing, targets, read) {
        Ok(files) => WorkingSet::Files(files),
        Err(why) => WorkingSet::Everything(why),
    }
}

/// A directory of the listing: its files and subdirectories by name.
#[derive(Debug, Default)]
struct Dir {
    files: BTreeSet<String>,
    dirs: BTreeSet<String>,
}

struct Tree {
    dirs: BTreeMap<String, Dir>,
    all: BTreeSet<String>,
}

impl Tree {
    fn new(listing: &[String]) -> Tree {
        let mut dirs: BTreeMap<String, Dir> = BTreeMap::new();
        dirs.entry(String::new()).or_default();
        for path in listing {
            let parts: Vec<&str> = path.split('/').collect();
            let mut parent = String::new();
            for (i, part) in parts.iter().enumerate() {
                let here = if parent.is_empty() {
                    part.to_string()
                } else {
                    format!("{parent}/{part}")
                };
                let entry = dirs.entry(parent.clone()).or_default();
                if i + 1 == parts.len() {
                    entry.files.insert(part.to_string());
                } else {
                    entry.dirs.insert(part.to_string());
                    dirs.entry(here.clone()).or_default();
                }
                parent = here;
            }
        }
        Tree {
            dirs,
            all: listing.iter().cloned().collect(),
        }
    }

    fn dir(&self, path: &str) -> Option<&Dir> {
        self.dirs.get(path)
    }

    /// Every file under `prefix` (a directory).
    fn under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        let start = format!("{prefix}/");
        self.all
            .range(start.clone()..)
            .take_while(move |p| p.starts_with(&start))
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn numeric(name: &str) -> Option<u64> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok()
}

/// Batch ids of a log directory: the names that parse as a Long (`HDFSMetadataLog.isBatchFile`;
/// `.crc` and `.tmp` files drop out, WS§1).
fn batches(tree: &Tree, dir: &str) -> BTreeSet<u64> {
    tree.dir(dir)
        .map(|d| d.files.iter().filter_map(|f| numeric(f)).collect())
        .unwrap_or_default()
}

fn line_of(v: &SparkVersion) -> Option<(u32, u32)> {
    v.line()
}

fn plan(
    inspection: &Inspection,
    listing: &[String],
    targets: &[SparkVersion],
    read: &mut ReadSmall<'_>,
) -> Result<BTreeSet<String>, String> {
    let (first, last) = RULES_COVER;
    let covered = |line: (u32, u32)| line >= first && line <= last;
    let mut repair = targets.is_empty();
    for t in targets {
        match line_of(t) {
            Some(line) if covered(line) => repair |= line >= AUTO_SNAPSHOT_REPAIR.since,
            _ => {
                return Err(format!(
                    "the restart working-set rules cover Spark {}.{} to {}.{}, not the target {t}",
                    first.0, first.1, last.0, last.1
                ))
            }
        }
    }
    if let Some(min) = &inspection.writer_version.min {
        if min.line().is_some_and(|line| line > last) {
            return Err(format!(
                "the checkpoint was written by Spark {min} or later, newer than the restart working-set rules (up to {}.{})",
                last.0, last.1
            ));
        }
    }
    let tree = Tree::new(listing);
    let mut out = BTreeSet::new();
    let root = tree.dir("").ok_or("the listing is empty")?;

    // Root: `metadata` and anything unknown are copied; the logs, sources and state by rule.
    for file in root.files.iter().filter(|f| !is_side_or_leftover(f)) {
        out.insert(file.clone());
    }
    for dir in &root.dirs {
        if !matches!(dir.as_str(), "offsets" | "commits" | "state") {
            // sources/** (WS§2), and directories no rule knows: copied whole.
            out.extend(tree.under(dir).cloned());
        }
    }

    // Offset and commit logs (WS§1).
    let offsets = batches(&tree, "offsets");
    let commits = batches(&tree, "commits");
    let Some(&l) = offsets.last() else {
        return Err("offsets/ holds no batch file, so the restart starts over".into());
    };
    let p = offsets.range(..l).next_back().copied();
    let c = commits.last().copied();
    if c.is_some_and(|c| c > l) {
        return Err(format!(
            "commits/{} is newer than the newest offset file offsets/{l}",
            c.unwrap_or_default()
        ));
    }
    let low = [Some(l), p, c].into_iter().flatten().min().unwrap_or(l);
    for o in offsets.range(low..) {
        out.insert(format!("offsets/{o}"));
    }
    if let Some(c) = c {
        out.insert(format!("commits/{c}"));
    }
    let v = if c == Some(l) { l + 1 } else { l };

    // State (WS§4).
    if let Some(state) = tree.dir("state") {
        for file in &state.files {
            out.insert(format!("state/{file}"));
        }
        let ops: Vec<&String> = state.dirs.iter().collect();
        let mut partitions_conf: Option<u64> = None;
        for op in ops {
            let op_dir = format!("state/{op}");
            if numeric(op).is_none() {
                out.extend(tree.under(&op_dir).cloned());
                continue;
            }
            let n = match partitions_conf {
                Some(n) => n,
                None => {
                    let n = shuffle_partitions(inspection, l)?;
                    partitions_conf = Some(n);
                    n
                }
            };
            StateLoad {
                tree: &tree,
                version: v,
                repair,
                read: &mut *read,
                out: &mut out,
            }
            .operator(inspection, op, n)?;
        }
    }

    // Side files of every chosen file (WS§3).
    let chosen: Vec<String> = out.iter().cloned().collect();
    for f in chosen {
        let (dir, name) = match f.rsplit_once('/') {
            Some((d, n)) => (d.to_string(), n.to_string()),
            None => (String::new(), f.clone()),
        };
        for side in [
            format!(".{name}.crc"),
            format!("{name}.crc"),
            format!(".{name}.crc.crc"),
        ] {
            let side = join(&dir, &side);
            if tree.all.contains(&side) {
                out.insert(side);
            }
        }
    }
    Ok(out)
}

/// N = `spark.sql.shuffle.partitions` in the conf of offsets/L (WS§4.1).
fn shuffle_partitions(inspection: &Inspection, l: u64) -> Result<u64, String> {
    let log = inspection
        .offset_log
        .as_ref()
        .filter(|log| log.batch.0 == l)
        .ok_or_else(|| {
            format!("offsets/{l} could not be read, so the number of state partitions is unknown")
        })?;
    let conf = log
        .metadata
        .as_ref()
        .and_then(|m| m.conf.as_ref())
        .ok_or_else(|| {
            format!("offsets/{l} has no conf, so the number of state partitions is unknown")
        })?;
    conf.get("spark.sql.shuffle.partitions")
        .and_then(|n| n.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("offsets/{l} names no spark.sql.shuffle.partitions, so the number of state partitions is unknown"))
}

/// Loading state version `version` of a checkpoint's stores (WS§4): what every operator and
/// store directory below `state/` is walked with — the listing, whether the snapshot before is
/// kept for auto repair, the reader of small files (a RocksDB zip's `metadata`) and the files
/// chosen so far.
struct StateLoad<'a, 'r> {
    /// The checkpoint's listing.
    tree: &'a Tree,
    /// V: the state version the restart loads (the first batch of the restart).
    version: u64,
    /// Whether the snapshot before the loaded one is kept too (4.2's auto repair, WS§4.2).
    repair: bool,
    /// Reads a small file of the checkpoint.
    read: &'a mut ReadSmall<'r>,
    /// The working set so far.
    out: &'a mut BTreeSet<String>,
}

impl StateLoad<'_, '_> {
    /// The files of operator `op`'s directory (`state/<op>`, `n` partitions) that the load reads.
    fn operator(&mut self, inspection: &Inspection, op: &str, n: u64) -> Result<(), String> {
        let tree = self.tree;
        let op_dir = format!("state/{op}");
        let dir = tree.dir(&op_dir).ok_or("listing changed")?;
        if let Some(f) = dir.files.iter().find(|f| !is_side_or_leftover(f)) {
            return Err(format!("{op_dir}/{f} is a file no restart rule knows"));
        }
        let mut parts = BTreeSet::new();
        for sub in &dir.dirs {
            match sub.as_str() {
                "_metadata" | "_stateSchema" => {
                    self.out.extend(tree.under(&join(&op_dir, sub)).cloned())
                }
                other => match numeric(other) {
                    Some(p) => {
                        parts.insert(p);
                    }
                    None => {
                        return Err(format!(
                            "{op_dir}/{other} is a directory no restart rule knows"
                        ))
                    }
                },
            }
        }
        if parts.is_empty() {
            return Ok(());
        }
        if parts.len() as u64 != n || parts.last() != Some(&(n - 1)) {
            return Err(format!(
                "{op_dir} has {} partition directories where spark.sql.shuffle.partitions is {n}",
                parts.len()
            ));
        }
        let ids = unique_ids(inspection, op);
        for p in parts {
            let p_dir = format!("{op_dir}/{p}");
            let pd = tree.dir(&p_dir).ok_or("listing changed")?;
            let joined: Vec<&String> = pd
                .dirs
                .iter()
                .filter(|d| JOIN_STORES.contains(&d.as_str()))
                .collect();
            if joined.is_empty() {
                self.store(&p_dir, (p, 0), ids.as_ref())?;
                continue;
            }
            if let Some(f) = pd.files.iter().find(|f| !is_side_or_leftover(f)) {
                return Err(format!(
                    "{p_dir}/{f} is a file no restart rule knows beside join stores"
                ));
            }
            for sub in &pd.dirs {
                if sub == "_metadata" {
                    self.out.extend(tree.under(&join(&p_dir, sub)).cloned());
                } else if !JOIN_STORES.contains(&sub.as_str()) {
                    return Err(format!(
                        "{p_dir}/{sub} is a directory no restart rule knows beside join stores"
                    ));
                }
            }
            for (i, name) in JOIN_STORES.iter().enumerate() {
                if !pd.dirs.contains(*name) {
                    return Err(format!("{p_dir} lacks the join store {name}"));
                }
                self.store(&join(&p_dir, name), (p, i), ids.as_ref())?;
            }
        }
        Ok(())
    }

    /// The files of one store directory (store `i` of partition `p`; `ids` the state ids of
    /// commits/C) that loading the version reads.
    fn store(
        &mut self,
        dir: &str,
        (p, i): (u64, usize),
        ids: Option<&Vec<Vec<String>>>,
    ) -> Result<(), String> {
        let (tree, v, repair) = (self.tree, self.version, self.repair);
        let (read, out) = (&mut *self.read, &mut *self.out);
        let d = tree.dir(dir).ok_or("listing changed")?;
        for sub in &d.dirs {
            match sub.as_str() {
                "_metadata" => out.extend(tree.under(&join(dir, sub)).cloned()),
                "SSTs" | "logs" => {}
                other => {
                    return Err(format!(
                        "{dir}/{other} is a directory no restart rule knows"
                    ))
                }
            }
        }
        // (version, id) -> ext present
        let mut hdfs: BTreeMap<u64, BTreeSet<Ext>> = BTreeMap::new();
        let mut v1: BTreeMap<u64, BTreeSet<Ext>> = BTreeMap::new();
        let mut v2: BTreeMap<u64, Vec<(String, Ext)>> = BTreeMap::new();
        for f in &d.files {
            if is_side_or_leftover(f) {
                continue;
            }
            if let Some(main) = f.strip_suffix(".crc") {
                if state_file(main).is_some() {
                    continue; // Spark's checksum file of a state file (SPARK-51972)
                }
            }
            match state_file(f) {
                Some((n, None, e @ (Ext::Delta | Ext::Snapshot))) => {
                    hdfs.entry(n).or_default().insert(e);
                }
                Some((n, None, e)) => {
                    v1.entry(n).or_default().insert(e);
                }
                Some((n, Some(id), e)) => v2.entry(n).or_default().push((id.to_string(), e)),
                None => return Err(format!("{dir}/{f} is a file no restart rule knows")),
            }
        }
        let kinds = [!hdfs.is_empty(), !v1.is_empty(), !v2.is_empty()]
            .iter()
            .filter(|k| **k)
            .count();
        if kinds > 1 {
            return Err(format!(
                "{dir} mixes state files of several providers or formats"
            ));
        }
        if v == 0 {
            return Ok(()); // version 0 is the empty store: nothing is read
        }
        let need = |name: String, out: &mut BTreeSet<String>| -> Result<(), String> {
            let path = join(dir, &name);
            if !tree.all.contains(&path) {
                return Err(format!(
                "{path}, which loading state version {v} needs, is missing: a production restart fails too"
            ));
            }
            out.insert(path);
            Ok(())
        };
        if kinds == 0 {
            return Err(format!(
            "{dir} holds no state file, and the restart loads state version {v}: a production restart fails too"
        ));
        }
        if !hdfs.is_empty() {
            // HDFS-backed provider: newest snapshot n <= V, deltas n+1..=V (WS§4.2).
            let snap = |below: u64| {
                hdfs.range(..=below)
                    .rev()
                    .find(|(_, e)| e.contains(&Ext::Snapshot))
                    .map(|(n, _)| *n)
                    .unwrap_or(0)
            };
            let n = snap(v);
            if n > 0 {
                need(format!("{n}.snapshot"), out)?;
            }
            for k in n + 1..=v {
                need(format!("{k}.delta"), out)?;
            }
            if repair && n > 0 {
                let older = snap(n - 1);
                if older > 0 {
                    out.insert(join(dir, &format!("{older}.snapshot")));
                }
                for k in older + 1..=n {
                    if hdfs.get(&k).is_some_and(|e| e.contains(&Ext::Delta)) {
                        out.insert(join(dir, &format!("{k}.delta")));
                    }
                }
            }
            return Ok(());
        }
        if !v1.is_empty() {
            // RocksDB, v1 names: newest zip n <= V, its files, changelogs n+1..=V (WS§4.3).
            let zip_at = |below: u64| {
                v1.range(..=below)
                    .rev()
                    .find(|(_, e)| e.contains(&Ext::Zip))
                    .map(|(n, _)| *n)
                    .unwrap_or(0)
            };
            let n = zip_at(v);
            if n > 0 {
                need(format!("{n}.zip"), out)?;
                zip_refs(tree, dir, &format!("{n}.zip"), read, out)?;
            }
            for k in n + 1..=v {
                need(format!("{k}.changelog"), out)?;
            }
            let changelogs = v1.values().any(|e| e.contains(&Ext::Changelog));
            if repair && changelogs && n > 0 {
                let older = zip_at(n - 1);
                if older > 0 {
                    out.insert(join(dir, &format!("{older}.zip")));
                    zip_refs(tree, dir, &format!("{older}.zip"), read, out)?;
                }
                for k in older + 1..=n {
                    if v1.get(&k).is_some_and(|e| e.contains(&Ext::Changelog)) {
                        out.insert(join(dir, &format!("{k}.changelog")));
                    }
                }
            }
            return Ok(());
        }
        // RocksDB, v2 names (4.0+): the id commits/C names for this store (WS§4.3).
        let id = ids
        .and_then(|ids| ids.get(p as usize))
        .and_then(|stores| stores.get(i))
        .ok_or_else(|| {
            format!("{dir} holds checkpoint format v2 files but the last commit names no state id for it")
        })?;
        let zip = format!("{v}_{id}.zip");
        if d.files.contains(&zip) {
            out.insert(join(dir, &zip));
            return zip_refs(tree, dir, &zip, read, out);
        }
        // Without V's zip Spark follows the lineage in the changelog's (compressed) header; rather
        // than decode it, copy every zip and changelog up to V and all their files (COPY_LE_V).
        for (k, files) in v2.range(..=v) {
            for (id, e) in files {
                let ext = if *e == Ext::Zip { "zip" } else { "changelog" };
                out.insert(join(dir, &format!("{k}_{id}.{ext}")));
            }
        }
        for sub in ["SSTs", "logs"] {
            out.extend(tree.under(&join(dir, sub)).cloned());
        }
        Ok(())
    }
}

/// `stateUniqueIds[op]` of commits/C (checkpoint format v2, WS§4.3): per partition, per store.
fn unique_ids(inspection: &Inspection, op: &str) -> Option<Vec<Vec<String>>> {
    let ids = inspection.commit_log.as_ref()?.state_unique_ids.as_ref()?;
    let per_op = ids.get(op)?.as_array()?;
    per_op
        .iter()
        .map(|stores| {
            stores
                .as_array()?
                .iter()
                .map(|id| id.as_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()
        })
        .collect()
}

/// Hadoop `.F.crc`, Spark `F.crc` (checked per name below), leftovers never read (WS§3).
fn is_side_or_leftover(name: &str) -> bool {
    (name.starts_with('.') && name.ends_with(".crc"))
        || name.ends_with(".tmp")
        || name.ends_with(".inprogress")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ext {
    Delta,
    Snapshot,
    Zip,
    Changelog,
}

/// A state file name: `<v>.<ext>` or `<v>_<id>.<ext>` (WS§4.2, §4.3).
fn state_file(name: &str) -> Option<(u64, Option<&str>, Ext)> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ext = match ext {
        "delta" => Ext::Delta,
        "snapshot" => Ext::Snapshot,
        "zip" => Ext::Zip,
        "changelog" => Ext::Changelog,
        _ => return None,
    };
    match stem.split_once('_') {
        Some((v, id)) if !id.is_empty() && matches!(ext, Ext::Zip | Ext::Changelog) => {
            Some((numeric(v)?, Some(id), ext))
        }
        Some(_) => None,
        None => Some((numeric(stem)?, None, ext)),
    }
}

/// Adds the files a RocksDB zip's `metadata` names: `SSTs/<dfsSstFileName>` and
/// `logs/<dfsLogFileName>` (`RocksDBCheckpointMetadata`, WS§4.3).
fn zip_refs(
    tree: &Tree,
    dir: &str,
    zip: &str,
    read: &mut ReadSmall<'_>,
    out: &mut BTreeSet<String>,
) -> Result<(), String> {
    let path = join(dir, zip);
    let bytes = read(&path).map_err(|e| format!("{path} could not be read: {e}"))?;
    let metadata = zip_member(&bytes, "metadata")
        .map_err(|e| format!("{path} could not be read as a RocksDB checkpoint zip: {e}"))?;
    let refs = rocksdb_refs(&metadata)
        .map_err(|e| format!("the metadata in {path} could not be parsed: {e}"))?;
    for r in refs {
        let file = join(dir, &r);
        if !tree.all.contains(&file) {
            return Err(format!(
                "{file}, which {path} names, is missing: a production restart fails too"
            ));
        }
        out.insert(file);
    }
    Ok(())
}

/// `SSTs/…` and `logs/…` named by a RocksDB checkpoint `metadata` file (`v1` then one JSON line
/// with `sstFiles[].dfsSstFileName` and `logFiles[].dfsLogFileName`).
pub fn rocksdb_refs(metadata: &[u8]) -> Result<Vec<String>, String> {
    let text = std::str::from_utf8(metadata).map_err(|_| "not UTF-8".to_string())?;
    let mut lines = text.lines();
    let version = lines.next().unwrap_or_default().trim();
    if !matches!(version, "v1" | "v2") {
        return Err(format!("unknown version line {version:?}"));
    }
    let json: serde_json::Value =
        serde_json::from_str(lines.next().unwrap_or_default()).map_err(|e| e.to_string())?;
    let mut refs = Vec::new();
    for (key, field, sub) in [
        ("sstFiles", "dfsSstFileName", "SSTs"),
        ("logFiles", "dfsLogFileName", "logs"),
    ] {
        let Some(list) = json.get(key) else {
            if key == "sstFiles" {
                return Err("no sstFiles".into());
            }
            continue;
        };
        for item in list.as_array().ok_or(format!("{key} is not a list"))? {
            let name = item
                .get(field)
                .and_then(|n| n.as_str())
                .ok_or(format!("an entry of {key} has no usable {field}"))?;
            // A name from a checkpoint file is untrusted like a listing's: one plain name (the
            // store's one rule), never a path of its own.
            if name.contains('/') {
                return Err(format!(
                    "{field} {name:?} in {key} is a path, not a file name"
                ));
            }
            let path = format!("{sub}/{name}");
            rehearse_store::safe_relative(&path).map_err(|e| {
                format!(
                    "{field} {name:?} in {key} is not a plain file name: {}",
                    e.reason
                )
            })?;
            refs.push(path);
        }
    }
    Ok(refs)
}

/// The most bytes one zip member may inflate to: a RocksDB zip's `metadata` (the JSON naming
/// its SST and log files) is kilobytes, a megabyte for tens of thousands of SSTs. A member
/// declaring 4 GiB would have been inflated to 64 GiB (16 × its declared size).
pub const ZIP_MEMBER_CAP: usize = 64 << 20;

/// The bytes of one member of a zip archive (stored or deflated; no ZIP64), from its central
/// directory (APPNOTE 4.3.12, 4.3.16), at most [`ZIP_MEMBER_CAP`] bytes.
///
/// # Errors
/// A text naming what is wrong: truncated, no such member, another compression method, or
/// larger than the cap (a zip bomb or no RocksDB zip).
pub fn zip_member(zip: &[u8], name: &str) -> Result<Vec<u8>, String> {
    zip_member_capped(zip, name, ZIP_MEMBER_CAP)
}

fn zip_member_capped(zip: &[u8], name: &str, cap: usize) -> Result<Vec<u8>, String> {
    let u16_at = |at: usize| -> Result<usize, String> {
        zip.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
            .ok_or_else(|| "truncated".to_string())
    };
    let u32_at = |at: usize| -> Result<usize, String> {
        zip.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| "truncated".to_string())
    };
    const EOCD: u32 = 0x0605_4b50;
    let lowest = zip.len().saturating_sub(22 + 65_535);
    let eocd = (lowest..=zip.len().saturating_sub(22))
        .rev()
        .find(|&at| u32_at(at).ok() == Some(EOCD as usize))
        .ok_or("no end of central directory")?;
    let entries = u16_at(eocd + 10)?;
    let mut at = u32_at(eocd + 16)?;
    for _ in 0..entries {
        if u32_at(at)? != 0x0201_4b50 {
            return Err("bad central directory".into());
        }
        let method = u16_at(at + 10)?;
        let compressed = u32_at(at + 20)?;
        let size = u32_at(at + 24)?;
        let name_len = u16_at(at + 28)?;
        let extra_len = u16_at(at + 30)?;
        let comment_len = u16_at(at + 32)?;
        let local = u32_at(at + 42)?;
        let entry_name = zip.get(at + 46..at + 46 + name_len).ok_or("truncated")?;
        at += 46 + name_len + extra_len + comment_len;
        if entry_name != name.as_bytes() {
            continue;
        }
        if u32_at(local)? != 0x0403_4b50 {
            return Err("bad local header".into());
        }
        let data_at = local + 30 + u16_at(local + 26)? + u16_at(local + 28)?;
        let data = zip
            .get(data_at..data_at + compressed)
            .ok_or("truncated member")?;
        let too_big = || {
            format!("its member {name:?} holds more than {cap} bytes, far more than a RocksDB checkpoint's metadata")
        };
        return match method {
            0 if data.len() > cap => Err(too_big()),
            0 => Ok(data.to_vec()),
            8 => {
                let limit = (size.max(1) << 4).min(cap);
                miniz_oxide::inflate::decompress_to_vec_with_limit(data, limit).map_err(|e| {
                    if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput && limit == cap
                    {
                        too_big()
                    } else {
                        format!("deflate: {:?}", e.status)
                    }
                })
            }
            m => Err(format!("compression method {m}")),
        };
    }
    Err(format!("no member {name:?}"))
}

#[cfg(test)]
mod tests;
