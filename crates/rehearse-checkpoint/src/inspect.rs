//! `inspect`: list the checkpoint once, read the small files that matter, parse them with the
//! pure parsers, then interpret: batches, sources and Kafka offsets, state, writer version and
//! integrity findings.
//!
//! Reads a checkpoint; never writes, reads through a link only to a regular file (as Spark does),
//! never walks a link to a directory, never opens a FIFO or device (Spark lists one as a file:
//! it gets its own `not-a-regular-file` finding, never a "missing" one). One bad file becomes a
//! finding naming that file; only a path that is not a readable checkpoint directory is an error.
//!
//! `inspect/files.rs` is the listing pass (counts, links, special files, orphan `.crc` files);
//! `inspect/batches.rs` reads the offset and commit logs and checks what a restart reads of them.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use super::commits::{parse_commit_log, CommitLogFile};
use super::error::{CheckpointError, ParseError, ParseErrorKind};
use super::findings::{Finding, Severity};
use super::fingerprint::{self, markers, Observation, WriterVersion};
use super::loader::{self, Entry, EntryKind, LinkTarget, Listing};
use super::metadata::parse_query_metadata;
use super::model::{
    CommitLogInfo, FileSummary, Inspection, OffsetLogInfo, Operator, PinnedConf, WriterSegment,
};
use super::offsets::{parse_offset_log, OffsetLogFile};
use super::state;
use super::BatchId;

mod batches;
mod files;

use batches::*;
pub(crate) use batches::{criticality, list_ids, offset_file_fix};
pub use batches::{describe_ranges, gap_ranges};

const TOP_LEVEL: &[&str] = &["metadata", "offsets", "commits", "sources", "state"];

/// How many of the newest offset and commit files are read and checked: Spark's default
/// `spark.sql.streaming.minBatchesToRetain`, so a checkpoint with default retention is read
/// whole, and a huge one costs little more than listing it.
pub const LOG_WINDOW: usize = 100;

/// Inspects the checkpoint at `path`, read-only.
///
/// Errors only when it cannot inspect at all: the path is missing, a file, a symbolic link loop,
/// an unreadable directory, or a directory with none of `metadata`, `offsets/`, `commits/`,
/// `sources/`, `state/`. Everything else is reported in [`Inspection::findings`].
pub fn inspect(path: &Path) -> Result<Inspection, CheckpointError> {
    inspect_listing(loader::list(path)?)
}

/// What inspecting a checkpoint through a store asked of it: one recursive listing, then the
/// files read (relative path, bytes received), in the order read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreReads {
    /// Recursive listings made (one per inspection).
    pub listings: u32,
    /// Every file read whole, with the bytes received.
    pub files: Vec<(String, u64)>,
}

impl StoreReads {
    /// Bytes received by all reads together (listings not counted).
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|(_, n)| n).sum()
    }
}

/// Inspects the checkpoint a store reads, read-only, giving the same [`Inspection`] as
/// [`inspect`] of a local copy (its `path` is the URL). Async: it lists once through
/// [`CheckpointStore::list`](rehearse_store::CheckpointStore::list), then runs the inspection on a
/// blocking thread that reads, one at a time and capped at [`READ_CAP`](super::READ_CAP), only
/// the files it parses (`metadata`, the newest [`LOG_WINDOW`] offset and commit files,
/// `sources/<n>/0`, state `_metadata` and schema files) — never a state data file (`.delta`,
/// `.snapshot`, `.zip`, `.sst`, `.changelog`). A local location is inspected by [`inspect`].
///
/// # Errors
/// [`CheckpointError::Store`] when the location cannot be listed; the others as for
/// [`inspect`].
pub async fn inspect_store(
    store: &rehearse_store::CheckpointStore,
) -> Result<Inspection, CheckpointError> {
    Ok(inspect_store_counted(store).await?.0)
}

/// [`inspect_store`], plus what it asked of the store.
pub async fn inspect_store_counted(
    store: &rehearse_store::CheckpointStore,
) -> Result<(Inspection, StoreReads), CheckpointError> {
    let blocking = |f: Box<dyn FnOnce() -> Result<Inspection, CheckpointError> + Send>| async {
        tokio::task::spawn_blocking(f).await.map_err(|e| {
            CheckpointError::Store(rehearse_store::StoreError::Io {
                operation: "inspect",
                path: store.location().to_string(),
                source: std::io::Error::other(e.to_string()),
            })
        })?
    };
    if let rehearse_store::CheckpointLocation::Local { path } = store.location() {
        let path = path.clone();
        let inspection = blocking(Box::new(move || inspect(&path))).await?;
        return Ok((inspection, StoreReads::default()));
    }
    let (listing, reads) = loader::list_store(store).await?;
    let inspection = blocking(Box::new(move || inspect_listing(listing))).await?;
    let files = reads.lock().map(|r| r.clone()).unwrap_or_default();
    let reads = StoreReads { listings: 1, files };
    tracing::debug!(
        url = %store.location(),
        listings = reads.listings,
        reads = reads.files.len(),
        bytes = reads.bytes(),
        "checkpoint inspected through its store"
    );
    Ok((inspection, reads))
}

fn inspect_listing(mut listing: Listing) -> Result<Inspection, CheckpointError> {
    check_is_checkpoint(&listing)?;
    // Without the listing of a log, every batch finding would be false ("missing", "deleted"):
    // that is no inspection, but one error with its cause.
    if let Some(i) = listing
        .unlisted
        .iter()
        .position(|(dir, _)| dir == "offsets" || dir == "commits")
    {
        let (dir, source) = listing.unlisted.swap_remove(i);
        return Err(CheckpointError::LogUnreadable {
            path: listing.root.join(dir),
            source,
        });
    }
    Ok(Inspector::new(listing).run())
}

fn check_is_checkpoint(listing: &Listing) -> Result<(), CheckpointError> {
    let top: Vec<&str> = listing
        .entries
        .iter()
        .map(|e| e.rel.as_str())
        .filter(|r| !r.contains('/'))
        .collect();
    if top.iter().any(|name| TOP_LEVEL.contains(name)) {
        return Ok(());
    }
    let nested = nested_checkpoints(listing);
    let what = if !nested.is_empty() {
        let shown: Vec<String> = nested
            .iter()
            .take(10)
            .map(|d| listing.child_name(d))
            .collect();
        let more = if nested.len() > 10 {
            format!(" and {} more", nested.len() - 10)
        } else {
            String::new()
        };
        format!(
            "it holds {} checkpoint{}: {}{more}; inspect each one by its own path (a query's checkpointLocation)",
            nested.len(),
            if nested.len() == 1 { "" } else { "s" },
            shown.join(", ")
        )
    } else if top.is_empty() {
        "the directory is empty".to_string()
    } else {
        let mut shown: Vec<&str> = top.iter().copied().take(5).collect();
        shown.sort_unstable();
        let more = if top.len() > 5 {
            format!(" and {} more", top.len() - 5)
        } else {
            String::new()
        };
        // A checkpoint's own subdirectory (`ck/offsets`): name the checkpoint it belongs to.
        let enclosing = match &listing.source {
            loader::Source::Local => loader::enclosing_checkpoint(&listing.root)
                .map(|c| {
                    format!(
                        "; it is inside the checkpoint {}: pass that directory",
                        c.display()
                    )
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        format!(
            "it has no metadata, offsets/, commits/ or state/ (found: {}{more}){enclosing}",
            shown.join(", ")
        )
    };
    Err(CheckpointError::NotACheckpoint {
        path: listing.root.clone(),
        what,
    })
}

/// Directories below the root (up to three levels down) that look like checkpoints themselves:
/// they hold `offsets/`, `commits/` or a `metadata` file. A checkpoint's own subdirectories are
/// not searched.
fn nested_checkpoints(listing: &Listing) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for entry in &listing.entries {
        let Some((dir, name)) = entry.rel.rsplit_once('/') else {
            continue;
        };
        let marks = match name {
            "offsets" | "commits" => entry.kind == EntryKind::Dir,
            "metadata" => entry.kind.is_file_like(),
            _ => false,
        };
        if marks && dir.matches('/').count() < 3 {
            found.push(dir.to_string());
        }
    }
    found.sort();
    found.dedup();
    // `a/` found, so `a/state/x/` (inside a checkpoint) is not another one.
    let mut out: Vec<String> = Vec::new();
    for dir in found {
        if !out.iter().any(|o| dir.starts_with(&format!("{o}/"))) {
            out.push(dir);
        }
    }
    out
}

/// A parsed log file, or why it could not be.
pub(crate) enum Parsed<T> {
    Ok(T),
    Failed,
}

impl<T> Parsed<T> {
    pub(crate) fn ok(&self) -> Option<&T> {
        match self {
            Parsed::Ok(t) => Some(t),
            Parsed::Failed => None,
        }
    }
}

pub(crate) struct Inspector {
    pub(crate) listing: Listing,
    findings: Vec<Finding>,
    observations: Vec<Observation>,
    /// FIFOs, sockets, devices (and links to them): each gets one `not-a-regular-file` finding,
    /// from the check that knows whether Spark reads it, or else a generic one at the end.
    specials: Vec<String>,
}

impl Inspector {
    fn new(listing: Listing) -> Self {
        Inspector {
            listing,
            findings: Vec::new(),
            observations: Vec::new(),
            specials: Vec::new(),
        }
    }

    /// Whether the listing holds what Spark sees as a file at `rel`: a regular file, a link to
    /// one, or a special file (which a read then reports, never opens). A linear scan: it is
    /// asked about a handful of files per inspection, and an index of every path would cost more.
    pub(crate) fn has_file(&self, rel: &str) -> bool {
        self.listing
            .entries
            .iter()
            .any(|e| e.kind.is_file_like() && e.rel == rel)
    }

    pub(crate) fn finding(
        &mut self,
        severity: Severity,
        code: &'static str,
        file: Option<&str>,
        message: impl Into<String>,
    ) {
        self.findings
            .push(Finding::new(severity, code, file, message));
    }

    pub(crate) fn findings_push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    pub(crate) fn observe(&mut self, id: &'static str, file: &str, latest: bool) {
        self.observations.push(Observation {
            id,
            file: file.to_string(),
            latest,
        });
    }

    /// Reads a small text file; a problem becomes a finding of the given severity.
    pub(crate) fn read_text(&mut self, rel: &str, severity: Severity, why: &str) -> Option<String> {
        let bytes = match self.listing.read(rel) {
            Ok(bytes) => bytes,
            Err(e) => {
                let hint = match e {
                    loader::ReadError::NotRegular => {
                        "; Spark lists it as a file and blocks or fails reading it: replace it with the real file from a backup of the checkpoint"
                    }
                    _ => "",
                };
                self.finding(
                    severity,
                    e.code(),
                    Some(rel),
                    format!("cannot read {rel}: {e}{why}{hint}"),
                );
                return None;
            }
        };
        match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                self.finding(
                    severity,
                    "not-utf8",
                    Some(rel),
                    format!("{rel} is not UTF-8 text (invalid byte at offset {at}): it is damaged or not a Spark log file{why}"),
                );
                None
            }
        }
    }

    pub(crate) fn parse_failed(
        &mut self,
        rel: &str,
        err: &ParseError,
        severity: Severity,
        why: &str,
    ) {
        let code = match err.kind {
            ParseErrorKind::Empty => "log-empty",
            ParseErrorKind::UnsupportedVersion { .. } | ParseErrorKind::MalformedVersion(_) => {
                "log-version"
            }
            _ => "log-garbled",
        };
        self.findings.push(
            Finding::new(
                severity,
                code,
                Some(rel),
                format!("{rel} line {}: {}{why}", err.line, err.kind),
            )
            .at_line(err.line),
        );
    }

    /// The interpretation pass, step by step; findings come out in the order the steps run, then
    /// sorted worst first (stable, so that order decides ties).
    fn run(mut self) -> Inspection {
        let files = self.scan_files();
        self.check_escaped_path();
        self.check_top_level_kinds();
        let offset_ids = self.batch_ids("offsets");
        let commit_ids = self.batch_ids("commits");
        self.observe_commits_dir();

        let latest = offset_ids.last().copied();
        let last_committed = commit_ids.last().copied();
        let pending = latest.filter(|n| commit_ids.binary_search(n).is_err());
        let gaps = gaps(&offset_ids);
        let critical_offsets = critical_offsets(latest);

        let offsets =
            self.read_offset_window(&offset_ids, last_committed, pending, &critical_offsets);
        let commits = self.read_commit_window(&commit_ids, last_committed);
        self.report_partly_read(&offset_ids, &commit_ids, offsets.len(), commits.len());

        self.check_offset_lines(&offsets, &critical_offsets, pending);
        let query_id = self.read_query_id(!offset_ids.is_empty() || !commit_ids.is_empty());
        // Spark 2.0 and 2.1 kept no commit log: their offset files have no conf (issue 14,
        // Spark's own checkpoint-version-2.1.0 test checkpoint).
        let before_commit_log = !self.has_commits_dir()
            && latest
                .and_then(|n| offsets.get(&n))
                .and_then(Parsed::ok)
                .is_some_and(|log| log.metadata().is_none_or(|m| m.conf.is_none()));
        self.check_batches(&offset_ids, &commit_ids, pending, &gaps, before_commit_log);

        let offset_log = self.newest_offset_log(&offsets, latest);
        let last_commit = last_committed.and_then(|c| commits.get(&c).and_then(Parsed::ok));
        let commit_log = last_committed
            .zip(last_commit)
            .map(|(c, f)| commit_log_info(c, f));
        self.observe_commits(&commits, last_committed);

        let sources = self.sources(&offsets, &commit_ids, latest);
        let required_kafka = self.kafka_across_batches(&offsets);
        self.check_kafka_conflicts(&sources);

        let conf = offset_log
            .as_ref()
            .and_then(|o| o.metadata.as_ref())
            .and_then(|m| m.conf.clone());
        let operators = self.state_operators(conf.as_ref(), last_committed, latest, last_commit);
        let writer_version =
            self.writer_version(conf.as_ref(), offset_log.as_ref(), operators.is_empty());
        let writer_history = writer_history(&offsets, &writer_version);

        self.report_specials();
        let findings = self.sorted_findings();
        Inspection {
            path: self.listing.root.clone(),
            query_id,
            offset_batches: offset_ids.iter().map(|&n| BatchId(n)).collect(),
            commit_batches: commit_ids.iter().map(|&n| BatchId(n)).collect(),
            latest_batch: latest.map(BatchId),
            last_committed_batch: last_committed.map(BatchId),
            pending_batch: pending.map(BatchId),
            gaps: gaps.into_iter().map(BatchId).collect(),
            offset_log,
            commit_log,
            sources,
            operators,
            writer_version,
            writer_history,
            files,
            findings,
            required_kafka,
        }
    }

    /// `offsets`, `commits`, `sources` and `state` are directories and `metadata` a file: the
    /// wrong kind is said as what it is, never as missing.
    fn check_top_level_kinds(&mut self) {
        let wrong: Vec<(String, EntryKind)> = self
            .listing
            .entries
            .iter()
            .filter(|e| match e.rel.as_str() {
                "offsets" | "commits" | "sources" | "state" => {
                    e.kind != EntryKind::Dir && e.kind != EntryKind::Symlink(LinkTarget::Dir)
                }
                "metadata" => !e.kind.is_file_like(),
                _ => false,
            })
            .map(|e| (e.rel.clone(), e.kind))
            .collect();
        for (rel, kind) in wrong {
            let message = if rel == "metadata" {
                "metadata is a directory, but Spark reads the query id from a file of that name (StreamMetadata.read) and fails on every start: replace it with the metadata file from a backup of the checkpoint".to_string()
            } else {
                let what = if kind.is_file_like() {
                    "a file"
                } else {
                    "not a directory"
                };
                format!("{rel} is {what}, but Spark keeps a directory there and fails listing it on restart (HDFSMetadataLog): replace it with the {rel}/ directory from a backup of the checkpoint")
            };
            self.finding(Severity::Error, "wrong-file-kind", Some(&rel), message);
        }
    }

    /// A checkpoint path that looks URI-escaped (`%20`, `%25`): Spark 2.4 and earlier wrote a
    /// checkpoint location with special characters to its escaped form, and Spark 3.0+ refuses to
    /// start when it finds that directory (SPARK-26824, StreamExecution's
    /// `spark.sql.streaming.checkpoint.escapedPathCheck.enabled`; Spark's `escaped-path-2.4.0` test
    /// checkpoint).
    fn check_escaped_path(&mut self) {
        let path = self.listing.root.to_string_lossy().into_owned();
        let bytes = path.as_bytes();
        let escaped = bytes
            .windows(3)
            .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit());
        if escaped {
            self.finding(
                Severity::Warning,
                "escaped-checkpoint-path",
                None,
                format!("the checkpoint path {path} holds URI escapes (%XX): Spark 2.4 and earlier wrote a checkpointLocation with special characters (a space, %) to such an escaped directory (SPARK-26824); Spark 3.0+ started with the real, unescaped location fails when this escaped directory exists: move the checkpoint to the unescaped path, or set spark.sql.streaming.checkpoint.escapedPathCheck.enabled=false to have Spark ignore it"),
            );
        }
    }

    /// Whether the top-level `name` exists but is not a directory (`wrong-file-kind` says so;
    /// what follows from it, such as offsets "missing", is not said again).
    pub(crate) fn not_a_dir(&self, name: &str) -> bool {
        self.listing.entries.iter().any(|e| {
            e.rel == name
                && e.kind != EntryKind::Dir
                && e.kind != EntryKind::Symlink(LinkTarget::Dir)
        })
    }

    /// A `commits` directory at all (Spark 2.2+ writes one).
    fn has_commits_dir(&self) -> bool {
        self.listing
            .entries
            .iter()
            .any(|e| e.rel == "commits" && e.kind == EntryKind::Dir)
    }

    /// Observes the `commits` directory (Spark 2.2+ writes one).
    fn observe_commits_dir(&mut self) {
        if self.has_commits_dir() {
            self.observe("commits-dir", "commits", false);
        }
    }

    /// Reads the newest [`LOG_WINDOW`] offset files (all of them with Spark's default
    /// retention), the oldest one (who started the query) and the last committed one; older
    /// files are only listed. Spark itself reads just the latest two on restart.
    fn read_offset_window(
        &mut self,
        offset_ids: &[u64],
        last_committed: Option<u64>,
        pending: Option<u64>,
        critical_offsets: &[u64],
    ) -> BTreeMap<u64, Parsed<OffsetLogFile>> {
        let mut offsets: BTreeMap<u64, Parsed<OffsetLogFile>> = BTreeMap::new();
        let window = offset_ids.len().saturating_sub(LOG_WINDOW);
        let wanted = offset_ids[window..]
            .iter()
            .chain(offset_ids.first())
            .chain(last_committed.iter());
        for &id in wanted {
            if offsets.contains_key(&id) || offset_ids.binary_search(&id).is_err() {
                continue;
            }
            let critical = critical_offsets.contains(&id);
            let parsed = self.read_offsets(id, critical, Some(id) == pending);
            offsets.insert(id, parsed);
        }
        offsets
    }

    /// Reads the newest [`LOG_WINDOW`] commit files.
    fn read_commit_window(
        &mut self,
        commit_ids: &[u64],
        last_committed: Option<u64>,
    ) -> BTreeMap<u64, Parsed<CommitLogFile>> {
        let mut commits: BTreeMap<u64, Parsed<CommitLogFile>> = BTreeMap::new();
        for &id in &commit_ids[commit_ids.len().saturating_sub(LOG_WINDOW)..] {
            commits.insert(id, self.read_commit(id, Some(id) == last_committed));
        }
        commits
    }

    /// Says so when the logs hold more files than were read (retention above its default).
    fn report_partly_read(
        &mut self,
        offset_ids: &[u64],
        commit_ids: &[u64],
        offsets_read: usize,
        commits_read: usize,
    ) {
        let unread = (
            offset_ids.len() - offsets_read,
            commit_ids.len() - commits_read,
        );
        if unread != (0, 0) {
            self.finding(
                Severity::Info,
                "logs-partly-read",
                None,
                format!(
                    "the logs hold {} offset and {} commit files (spark.sql.streaming.minBatchesToRetain above its default 100?): the newest {LOG_WINDOW} of each and the oldest offset file were read, the other {} and {} only listed; Spark reads only the newest ones on restart",
                    offset_ids.len(),
                    commit_ids.len(),
                    unread.0,
                    unread.1
                ),
            );
        }
    }

    /// The newest offset file that parses describes the latest writer; when the latest one is
    /// damaged (already a finding), the one before it still tells the conf and the version.
    fn newest_offset_log(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
        latest: Option<u64>,
    ) -> Option<OffsetLogInfo> {
        let (n, log) = offsets
            .iter()
            .rev()
            .find_map(|(id, p)| p.ok().map(|log| (*id, log)))?;
        let file = format!("offsets/{n}");
        let is_latest = Some(n) == latest;
        match log.metadata() {
            None => self.observe("offsets-metadata-empty", &file, is_latest),
            Some(m) if m.conf.is_none() => {
                self.observe("offsets-metadata-without-conf", &file, is_latest)
            }
            Some(_) => {}
        }
        if log.version() >= 2 {
            self.observe("offset-log-v2", &file, is_latest);
        }
        Some(offset_log_info(n, log))
    }

    /// The stateful operators under `state/`, checked against the pinned conf and the logs.
    fn state_operators(
        &mut self,
        conf: Option<&BTreeMap<String, String>>,
        last_committed: Option<u64>,
        latest: Option<u64>,
        last_commit: Option<&CommitLogFile>,
    ) -> Vec<Operator> {
        let tree = state::collect(
            self.listing
                .entries
                .iter()
                .filter(|e| e.rel.starts_with("state/")),
        );
        self.operators(&tree, conf, last_committed, latest, last_commit)
    }

    /// The writer's Spark version from the pinned conf and every observation; conflicting
    /// evidence becomes findings.
    fn writer_version(
        &mut self,
        conf: Option<&BTreeMap<String, String>>,
        offset_log: Option<&OffsetLogInfo>,
        stateless: bool,
    ) -> WriterVersion {
        let latest_file = offset_log.map(|o| o.file.clone()).unwrap_or_default();
        let (writer_version, conflicts) = fingerprint::infer(
            conf.map(|c| (c, latest_file.as_str())),
            &self.observations,
            stateless,
        );
        self.findings.extend(conflicts);
        writer_version
    }

    /// The findings, worst first, then by file (a stable sort: ties keep the order found).
    fn sorted_findings(&mut self) -> Vec<Finding> {
        let mut findings = std::mem::take(&mut self.findings);
        findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.file.cmp(&b.file))
        });
        findings
    }
}

/// Runs of batches whose offset files carry the same conf keys. The last run is the latest
/// writer's, so it says what `writer_version` says (which also weighs the file formats: RocksDB
/// changelogs, operator metadata); earlier runs have only their conf keys to go by.
fn writer_history(
    offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
    latest: &WriterVersion,
) -> Vec<WriterSegment> {
    let mut segments: Vec<(WriterSegment, Vec<String>)> = Vec::new();
    for (&id, parsed) in offsets {
        let Some(conf) = parsed
            .ok()
            .and_then(|l| l.metadata())
            .and_then(|m| m.conf.as_ref())
        else {
            continue;
        };
        if let Some((seg, keys)) = segments.last_mut() {
            if keys.len() == conf.len() && keys.iter().zip(conf.keys()).all(|(a, b)| a == b) {
                seg.last_batch = BatchId(id);
                continue;
            }
        }
        let (range, _) = fingerprint::conf_range(conf, &format!("offsets/{id}"));
        let seg = WriterSegment {
            first_batch: BatchId(id),
            last_batch: BatchId(id),
            max: range.max(),
            min: range.min,
        };
        segments.push((seg, conf.keys().cloned().collect()));
    }
    let mut segments: Vec<WriterSegment> = segments.into_iter().map(|(s, _)| s).collect();
    let newest_read = offsets.iter().rev().find_map(|(id, p)| p.ok().map(|_| *id));
    if let Some(last) = segments.last_mut() {
        if Some(last.last_batch.0) == newest_read {
            last.min = latest.min.clone();
            last.max = latest.max.clone();
        }
    }
    segments
}

#[cfg(test)]
mod gap_tests {
    #[test]
    fn duplicate_batch_ids_are_no_gap_and_no_panic() {
        assert_eq!(super::gaps(&[0, 0, 1, 4, 4]), vec![2, 3]);
    }
}
