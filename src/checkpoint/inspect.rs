//! `inspect`: list the checkpoint once, read the small files that matter, parse them with the
//! pure parsers, then interpret: batches, sources and Kafka offsets, state, writer version and
//! integrity findings.
//!
//! Reads a checkpoint; never writes, never follows links inside it. One bad file becomes a
//! finding naming that file; only a path that is not a readable checkpoint directory is an error.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use super::commits::{parse_commit_log, CommitLogFile};
use super::error::{CheckpointError, ParseError, ParseErrorKind};
use super::findings::{Finding, Severity};
use super::fingerprint::{self, markers, Observation};
use super::loader::{self, EntryKind, Listing};
use super::metadata::{parse_operator_metadata, parse_query_metadata, parse_state_schema};
use super::model::{
    CommitLogInfo, FileSummary, Inspection, OffsetLogInfo, Operator, OperatorMetadataFile,
    PinnedConf, SchemaFile, SourceKind, SourceOffset, WriterSegment,
};
use super::offsets::{
    kafka_offsets_json, offset_shape, parse_offset_log, OffsetLogFile, OffsetShape,
};
use super::state::{self, OperatorDir, Provider, StateTree, DEFAULT_STORE};
use super::{BatchId, KafkaOffsets};

const TOP_LEVEL: &[&str] = &["metadata", "offsets", "commits", "sources", "state"];
const SHUFFLE_PARTITIONS: &str = "spark.sql.shuffle.partitions";
const PROVIDER_CLASS: &str = "spark.sql.streaming.stateStore.providerClass";
const JOIN_FORMAT: &str = "spark.sql.streaming.join.stateFormatVersion";

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
    let listing = loader::list(path)?;
    check_is_checkpoint(&listing)?;
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
    let what = if top.is_empty() {
        "the directory is empty".to_string()
    } else {
        let mut shown: Vec<&str> = top.iter().copied().take(5).collect();
        shown.sort_unstable();
        let more = if top.len() > 5 {
            format!(" and {} more", top.len() - 5)
        } else {
            String::new()
        };
        format!(
            "it has no metadata, offsets/, commits/ or state/ (found: {}{more})",
            shown.join(", ")
        )
    };
    Err(CheckpointError::NotACheckpoint {
        path: listing.root.clone(),
        what,
    })
}

/// A parsed log file, or why it could not be.
enum Parsed<T> {
    Ok(T),
    Failed,
}

impl<T> Parsed<T> {
    fn ok(&self) -> Option<&T> {
        match self {
            Parsed::Ok(t) => Some(t),
            Parsed::Failed => None,
        }
    }
}

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

struct Inspector {
    listing: Listing,
    findings: Vec<Finding>,
    observations: Vec<Observation>,
}

impl Inspector {
    fn new(listing: Listing) -> Self {
        Inspector {
            listing,
            findings: Vec::new(),
            observations: Vec::new(),
        }
    }

    /// Whether the listing holds a regular file at `rel`. A linear scan: it is asked about a
    /// handful of files per inspection, and an index of every path would cost more.
    fn has_file(&self, rel: &str) -> bool {
        self.listing
            .entries
            .iter()
            .any(|e| e.kind == EntryKind::File && e.rel == rel)
    }

    fn finding(
        &mut self,
        severity: Severity,
        code: &'static str,
        file: Option<&str>,
        message: impl Into<String>,
    ) {
        self.findings
            .push(Finding::new(severity, code, file, message));
    }

    fn observe(&mut self, id: &'static str, file: &str, latest: bool) {
        self.observations.push(Observation {
            id,
            file: file.to_string(),
            latest,
        });
    }

    /// Reads a small text file; a problem becomes a finding of the given severity.
    fn read_text(&mut self, rel: &str, severity: Severity, why: &str) -> Option<String> {
        let bytes = match loader::read_bounded(&self.listing.root, rel) {
            Ok(bytes) => bytes,
            Err(e) => {
                let code = match e {
                    loader::ReadError::TooLarge(_) => "file-too-large",
                    loader::ReadError::Io(_) => "file-unreadable",
                };
                self.finding(
                    severity,
                    code,
                    Some(rel),
                    format!("cannot read {rel}: {e}{why}"),
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

    fn parse_failed(&mut self, rel: &str, err: &ParseError, severity: Severity, why: &str) {
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
                format!("{rel}: {}{why}", err.kind),
            )
            .at_line(err.line),
        );
    }

    fn run(mut self) -> Inspection {
        let files = self.scan_files();
        let offset_ids = self.batch_ids("offsets");
        let commit_ids = self.batch_ids("commits");
        if self
            .listing
            .entries
            .iter()
            .any(|e| e.rel == "commits" && e.kind == EntryKind::Dir)
        {
            self.observe("commits-dir", "commits", false);
        }

        let latest = offset_ids.last().copied();
        let last_committed = commit_ids.last().copied();
        let pending = latest.filter(|n| commit_ids.binary_search(n).is_err());
        let gaps = gaps(&offset_ids);

        // Files Spark reads on restart: the latest offset file and the one before it, and the
        // latest commit file. A problem there fails the restart; elsewhere it is a warning.
        let critical_offsets: Vec<u64> = latest
            .into_iter()
            .flat_map(|n| [Some(n), n.checked_sub(1)])
            .flatten()
            .collect();

        // Read the newest LOG_WINDOW files of each log (all of them with Spark's default
        // retention), the oldest offset file (who started the query) and the last committed
        // one; older files are only listed. Spark itself reads just the latest two on restart.
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
            let parsed = self.read_offsets(id, critical);
            offsets.insert(id, parsed);
        }
        let mut commits: BTreeMap<u64, Parsed<CommitLogFile>> = BTreeMap::new();
        for &id in &commit_ids[commit_ids.len().saturating_sub(LOG_WINDOW)..] {
            commits.insert(id, self.read_commit(id, Some(id) == last_committed));
        }
        let unread = (
            offset_ids.len() - offsets.len(),
            commit_ids.len() - commits.len(),
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

        let query_id = self.read_query_id(!offset_ids.is_empty() || !commit_ids.is_empty());
        self.check_batches(&offset_ids, &commit_ids, pending, &gaps);

        // The newest offset file that parses describes the latest writer; when the latest one is
        // damaged (already a finding), the one before it still tells the conf and the version.
        let newest = offsets
            .iter()
            .rev()
            .find_map(|(id, p)| p.ok().map(|log| (*id, log)));
        let offset_log = newest.map(|(n, log)| offset_log_info(n, log));
        if let Some((n, log)) = newest {
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
        }
        let commit_log = last_committed.and_then(|c| {
            commits
                .get(&c)
                .and_then(Parsed::ok)
                .map(|f| commit_log_info(c, f))
        });
        self.observe_commits(&commits, last_committed);

        let sources = self.sources(&offsets, &commit_ids, latest);
        let required_kafka = self.kafka_across_batches(&offsets);
        self.check_kafka_conflicts(&sources);

        let conf = offset_log
            .as_ref()
            .and_then(|o| o.metadata.as_ref())
            .and_then(|m| m.conf.clone());
        let tree = state::collect(
            self.listing
                .entries
                .iter()
                .filter(|e| e.rel.starts_with("state/")),
        );
        let commit_file = last_committed
            .and_then(|c| commits.get(&c))
            .and_then(Parsed::ok)
            .cloned();
        let operators = self.operators(
            &tree,
            conf.as_ref(),
            last_committed,
            latest,
            commit_file.as_ref(),
        );

        let latest_file = offset_log
            .as_ref()
            .map(|o| o.file.clone())
            .unwrap_or_default();
        let (writer_version, conflicts) = fingerprint::infer(
            conf.as_ref().map(|c| (c, latest_file.as_str())),
            &self.observations,
        );
        self.findings.extend(conflicts);
        let writer_history = self.writer_history(&offsets);

        let mut findings = std::mem::take(&mut self.findings);
        findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.file.cmp(&b.file))
        });
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

    /// Counts files, side files and leftovers; reports links, special files, unlisted directories
    /// and `.crc` side files whose file is gone.
    fn scan_files(&mut self) -> FileSummary {
        let mut summary = FileSummary::default();
        let mut orphans = Vec::new();
        let mut spark_crc = None;
        let mut others = Vec::new();
        // The loader lists one directory completely before the next, so the entries of a
        // directory are contiguous: check `.x.crc` side files against their own directory only.
        let entries = &self.listing.entries;
        let mut start = 0;
        while start < entries.len() {
            let dir = parent(&entries[start].rel);
            let end = entries[start..]
                .iter()
                .position(|e| parent(&e.rel) != dir)
                .map_or(entries.len(), |n| start + n);
            let group = &entries[start..end];
            let names: HashSet<&str> = group
                .iter()
                .filter(|e| e.kind == EntryKind::File)
                .map(|e| file_name(&e.rel))
                .collect();
            for entry in group {
                let name = file_name(&entry.rel);
                match entry.kind {
                    EntryKind::Symlink => summary.symlinks.push(entry.rel.clone()),
                    EntryKind::Other => others.push(entry.rel.clone()),
                    EntryKind::Dir => {}
                    EntryKind::File => {
                        summary.total += 1;
                        if let Some(target) =
                            name.strip_prefix('.').and_then(|n| n.strip_suffix(".crc"))
                        {
                            summary.crc_sidecars += 1;
                            if !names.contains(target) {
                                let target = if dir.is_empty() {
                                    target.to_string()
                                } else {
                                    format!("{dir}/{target}")
                                };
                                orphans.push((entry.rel.clone(), target));
                            }
                        } else if name.starts_with('.') && name.ends_with(".tmp") {
                            summary.tmp_files.push(entry.rel.clone());
                        } else if name.ends_with(".crc") && spark_crc.is_none() {
                            spark_crc = Some(entry.rel.clone());
                        }
                    }
                }
            }
            start = end;
        }
        if let Some(file) = spark_crc {
            self.observe("spark-crc-files", &file, false);
        }
        summary.symlinks.sort();
        summary.tmp_files.sort();
        orphans.sort();
        for link in summary.symlinks.clone() {
            self.finding(
                Severity::Warning,
                "symlink-not-followed",
                Some(&link),
                format!("{link} is a symbolic link; rehearse does not follow links inside a checkpoint, so whatever it points to was not inspected"),
            );
        }
        for other in others {
            self.finding(
                Severity::Warning,
                "not-a-regular-file",
                Some(&other),
                format!("{other} is not a regular file or directory (a FIFO, socket or device) and was not read"),
            );
        }
        for tmp in summary.tmp_files.clone() {
            self.finding(
                Severity::Warning,
                "tmp-file-left",
                Some(&tmp),
                format!("{tmp} is a temporary file left by an interrupted write (CheckpointFileManager.createAtomic); Spark ignores it, it is safe to delete in a copy"),
            );
        }
        if !orphans.is_empty() {
            let (first_crc, first_target) = orphans[0].clone();
            let more = if orphans.len() > 1 {
                format!(" ({} such side files in all)", orphans.len())
            } else {
                String::new()
            };
            self.finding(
                Severity::Warning,
                "crc-without-file",
                Some(&first_target),
                format!("{first_crc} exists but {first_target} does not: the file was deleted after Spark wrote it{more}"),
            );
        }
        for (dir, err) in std::mem::take(&mut self.listing.unlisted) {
            let critical = TOP_LEVEL
                .iter()
                .any(|t| dir == *t || dir.starts_with(&format!("{t}/")));
            self.finding(
                if critical {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                "dir-unreadable",
                Some(&dir),
                format!("cannot list {dir}: {err}; what it holds was not inspected"),
            );
        }
        summary
    }

    /// Batch ids of `offsets/` or `commits/`, ascending; other names become findings.
    fn batch_ids(&mut self, dir: &str) -> Vec<u64> {
        let prefix = format!("{dir}/");
        let mut ids = Vec::new();
        let mut odd = Vec::new();
        let mut spark_crc = None;
        for entry in &self.listing.entries {
            let Some(name) = entry.rel.strip_prefix(&prefix) else {
                continue;
            };
            if name.contains('/') || name.starts_with('.') {
                continue;
            }
            // Spark's batch ids are Longs: a larger number is not a batch file to it.
            let id = name
                .parse::<u64>()
                .ok()
                .filter(|id| *id <= i64::MAX as u64)
                .ok_or(());
            match (id, entry.kind) {
                (Ok(id), EntryKind::File) => ids.push(id),
                (Ok(_), EntryKind::Dir) => odd.push((
                    entry.rel.clone(),
                    "is a directory where Spark expects a log file",
                )),
                (Ok(_), _) => {}
                (Err(_), _) if name.ends_with(".crc") => spark_crc = Some(entry.rel.clone()),
                (Err(_), _) => {
                    odd.push((entry.rel.clone(), "is not a batch file; Spark ignores it"))
                }
            }
        }
        if let Some(file) = spark_crc {
            self.observe("spark-crc-files", &file, false);
        }
        for (rel, what) in odd {
            let severity = if what.contains("directory") {
                Severity::Warning
            } else {
                Severity::Info
            };
            self.finding(
                severity,
                "unexpected-entry",
                Some(&rel),
                format!("{rel} {what}"),
            );
        }
        ids.sort_unstable();
        ids
    }

    fn read_offsets(&mut self, id: u64, critical: bool) -> Parsed<OffsetLogFile> {
        let rel = format!("offsets/{id}");
        let (severity, why) = criticality(critical);
        let Some(text) = self.read_text(&rel, severity, why) else {
            return Parsed::Failed;
        };
        match parse_offset_log(&text) {
            Ok(log) => Parsed::Ok(log),
            Err(err) => {
                self.parse_failed(&rel, &err, severity, why);
                Parsed::Failed
            }
        }
    }

    fn read_commit(&mut self, id: u64, critical: bool) -> Parsed<CommitLogFile> {
        let rel = format!("commits/{id}");
        let (severity, why) = criticality(critical);
        let Some(text) = self.read_text(&rel, severity, why) else {
            return Parsed::Failed;
        };
        match parse_commit_log(&text) {
            Ok(commit) => Parsed::Ok(commit),
            Err(err) => {
                self.parse_failed(&rel, &err, severity, why);
                Parsed::Failed
            }
        }
    }

    fn read_query_id(&mut self, has_batches: bool) -> Option<String> {
        if !self.has_file("metadata") {
            if has_batches {
                self.finding(
                    Severity::Error,
                    "metadata-missing",
                    Some("metadata"),
                    "metadata (the query id) is missing but the offset and commit logs hold batches: Spark 4.2+ refuses to start (STREAMING_CHECKPOINT_MISSING_METADATA_FILE), older releases silently give the query a new id; restore the file from a backup of the checkpoint",
                );
            }
            return None;
        }
        let text = self.read_text(
            "metadata",
            Severity::Error,
            "; Spark reads the query id from it on every start",
        )?;
        match parse_query_metadata(&text) {
            Ok(id) => Some(id),
            Err(err) => {
                self.parse_failed(
                    "metadata",
                    &err,
                    Severity::Error,
                    "; Spark reads the query id from it on every start",
                );
                None
            }
        }
    }

    fn check_batches(
        &mut self,
        offsets: &[u64],
        commits: &[u64],
        pending: Option<u64>,
        gaps: &[u64],
    ) {
        let latest = offsets.last().copied();
        let committed = commits.last().copied();
        if let Some(p) = pending {
            self.finding(
                Severity::Info,
                "pending-batch",
                Some(&format!("offsets/{p}")),
                format!("batch {p} has offsets but no commit: the query stopped during it, and Spark re-runs it on restart with the same offsets"),
            );
        }
        match (latest, committed) {
            (Some(n), Some(c)) if c + 1 < n => self.finding(
                Severity::Warning,
                "offsets-ahead-of-commits",
                Some(&format!("offsets/{n}")),
                format!("the offset log reaches batch {n} but the last commit is batch {c}: batches {}..{} were planned and never committed; Spark warns \"Batch completion log latest batch id is {c}, which is not trailing batchid {n} by one\" and re-runs batch {n} only", c + 1, n - 1),
            ),
            (Some(n), None) if n > 0 => self.finding(
                Severity::Warning,
                "no-commits",
                Some("commits"),
                format!("the offset log reaches batch {n} but no batch is committed (commits/ is missing or empty)"),
            ),
            _ => {}
        }
        if offsets.is_empty() && commits.is_empty() {
            self.finding(
                Severity::Info,
                "no-batches",
                None,
                "no batch has been planned yet: a restart starts from the source's startingOffsets",
            );
        }
        let oldest_offset = offsets.first().copied();
        let mut inside = Vec::new();
        let mut below = 0usize;
        for c in commits {
            if offsets.binary_search(c).is_err() {
                if oldest_offset.is_some_and(|o| *c < o) {
                    below += 1;
                } else {
                    inside.push(*c);
                }
            }
        }
        if let Some(&first) = inside.first() {
            let severity =
                if Some(first) == committed || inside.contains(&committed.unwrap_or(u64::MAX)) {
                    Severity::Error
                } else {
                    Severity::Warning
                };
            self.finding(
                severity,
                "commit-without-offsets",
                Some(&format!("commits/{}", inside[inside.len() - 1])),
                format!("{} commit file(s) have no offset file (batches {}): the offset log was deleted or restored from another copy", inside.len(), list_ids(&inside)),
            );
        }
        if below > 0 {
            self.finding(
                Severity::Info,
                "old-commits-kept",
                Some("commits"),
                format!("{below} commit file(s) are older than the oldest offset file: left behind by log cleanup, harmless"),
            );
        }
        if !gaps.is_empty() {
            self.finding(
                Severity::Warning,
                "offset-gaps",
                Some("offsets"),
                format!("batch ids missing inside the offset log: {} — normal with asyncProgressTrackingEnabled (Spark 3.4+), otherwise offset files were deleted", list_ids(gaps)),
            );
        }
    }

    fn observe_commits(
        &mut self,
        commits: &BTreeMap<u64, Parsed<CommitLogFile>>,
        last: Option<u64>,
    ) {
        let Some(c) = last else { return };
        let Some(commit) = commits.get(&c).and_then(Parsed::ok) else {
            return;
        };
        let file = format!("commits/{c}");
        if commit.empty_body {
            self.observe("commit-body-empty", &file, true);
        } else if commit.next_batch_watermark_ms.is_some() {
            self.observe("commit-next-batch-watermark", &file, true);
        }
        match commit.version {
            2 => {
                self.observe("commit-log-v2", &file, true);
                self.finding(
                    Severity::Warning,
                    "commit-log-v2",
                    Some(&file),
                    format!("{file} is commit log v2 (spark.sql.streaming.stateStore.checkpointFormatVersion=2): only Spark 4.0+ reads it, and 4.0/4.1 only with that conf set to 2 (otherwise INVALID_LOG_VERSION.EXACT_MATCH_VERSION)"),
                );
            }
            3 => {
                self.observe("commit-log-v3", &file, true);
                self.finding(
                    Severity::Warning,
                    "commit-log-v3",
                    Some(&file),
                    format!("{file} is commit log v3 (sink metadata): only Spark 4.2+ reads it"),
                );
            }
            _ => {}
        }
    }

    /// Sources at the last committed batch (or the latest batch before any commit). When that
    /// batch's offset file is missing or damaged, the newest committed batch before it whose file
    /// parses stands in: a fresh start from there re-processes the batches in between.
    fn sources(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
        commit_ids: &[u64],
        latest: Option<u64>,
    ) -> Vec<SourceOffset> {
        let committed = commit_ids.last().copied();
        let Some(wanted) = committed.or(latest) else {
            return Vec::new();
        };
        let is_committed = committed.is_some();
        let mut batch = wanted;
        let log = match offsets.get(&wanted).and_then(Parsed::ok) {
            Some(log) => log,
            None if is_committed => {
                let rel = format!("offsets/{wanted}");
                let fallback = commit_ids
                    .iter()
                    .rev()
                    .skip_while(|c| **c >= wanted)
                    .find_map(|c| offsets.get(c).and_then(Parsed::ok).map(|log| (*c, log)));
                let missing = !offsets.contains_key(&wanted);
                match fallback {
                    Some((b, log)) => {
                        self.finding(
                            if missing { Severity::Error } else { Severity::Warning },
                            "committed-offsets-fallback",
                            Some(&rel),
                            format!("{rel}, the offsets of the last committed batch, is {}; the source offsets shown are those of batch {b}, so a fresh start from them re-processes batches {}..{wanted}", if missing { "missing" } else { "unreadable" }, b + 1),
                        );
                        batch = b;
                        log
                    }
                    None => {
                        if missing {
                            self.finding(
                                Severity::Error,
                                "committed-offsets-missing",
                                Some(&rel),
                                format!("{rel}, the offsets of the last committed batch, is missing: the committed source positions are unknown"),
                            );
                        }
                        return Vec::new();
                    }
                }
            }
            None => return Vec::new(),
        };
        let mut out = Vec::new();
        for (index, line) in log.sources().iter().enumerate() {
            let raw = line.offset_text().map(str::to_string);
            let mut source = SourceOffset {
                index,
                source_id: line.source_id().map(str::to_string),
                kind: SourceKind::Unknown,
                batch: BatchId(batch),
                committed: is_committed,
                offset: line.offset_json(),
                raw: raw.clone(),
                kafka: None,
                starting_offsets: None,
                initial_offsets: None,
            };
            let rel = format!("offsets/{batch}");
            match raw.as_deref().map(offset_shape) {
                Some(OffsetShape::Kafka(k)) => {
                    let offsets = k.offsets();
                    source.kind = SourceKind::Kafka;
                    if offsets.values().flat_map(|p| p.values()).any(|o| *o < 0) {
                        self.finding(
                            Severity::Warning,
                            "kafka-offset-negative",
                            Some(&rel),
                            format!("source {index} has a negative Kafka offset in {rel}; Spark writes real offsets (>= 0) there"),
                        );
                    }
                    source.starting_offsets = Some(kafka_offsets_json(&offsets));
                    source.kafka = Some(offsets);
                    source.initial_offsets = self.kafka_initial_offsets(index);
                }
                Some(OffsetShape::FileLog(n)) => {
                    source.kind = SourceKind::File;
                    self.check_file_source_log(index, n);
                }
                Some(OffsetShape::RatePerMicroBatch) => source.kind = SourceKind::Rate,
                Some(OffsetShape::Long(_)) if self.is_rate_source(index) => {
                    source.kind = SourceKind::Rate
                }
                Some(OffsetShape::Other)
                    if raw.as_deref().is_some_and(|t| {
                        serde_json::from_str::<serde::de::IgnoredAny>(t).is_err()
                    }) =>
                {
                    self.finding(
                        Severity::Error,
                        "source-offset-garbled",
                        Some(&rel),
                        format!("source {index}'s offset in {rel} is not JSON: the source will fail to read it on restart"),
                    );
                }
                Some(OffsetShape::Long(_) | OffsetShape::Other) => {}
                None => {}
            }
            out.push(source);
        }
        out
    }

    /// `sources/<n>/0` of a Kafka source: a 0x00 byte, `v1\n`, then the initial offsets JSON
    /// (2.1.1+), or the length-prefixed JSON of 2.1.0.
    fn kafka_initial_offsets(&mut self, index: usize) -> Option<KafkaOffsets> {
        let rel = format!("sources/{index}/0");
        if !self.has_file(&rel) {
            return None;
        }
        let bytes = match loader::read_bounded(&self.listing.root, &rel) {
            Ok(b) => b,
            Err(e) => {
                self.finding(
                    Severity::Warning,
                    "file-unreadable",
                    Some(&rel),
                    format!("cannot read {rel}: {e}"),
                );
                return None;
            }
        };
        let body = bytes.get(1..).unwrap_or_default();
        let text = String::from_utf8_lossy(body);
        let json = if let Some(rest) = text.strip_prefix('v') {
            match rest.split_once('\n') {
                Some(("1", json)) => json.to_string(),
                _ => {
                    self.finding(
                        Severity::Warning,
                        "kafka-initial-offsets-version",
                        Some(&rel),
                        format!("{rel} does not start with version v1: a Kafka source that needs its initial offsets fails with \"Log file was malformed\" or UnsupportedLogVersion"),
                    );
                    return None;
                }
            }
        } else {
            self.observe("kafka-initial-offset-2-1-0", &rel, false);
            text.into_owned()
        };
        super::offsets::KafkaSourceOffset::parse(json.trim()).map(|k| k.offsets())
    }

    fn check_file_source_log(&mut self, index: usize, log_offset: i64) {
        if log_offset < 0 {
            return;
        }
        let base = format!("sources/{index}/{log_offset}");
        if self.has_file(&base) || self.has_file(&format!("{base}.compact")) {
            return;
        }
        // A compacted log keeps entries of older batches in the next `.compact` file.
        let dir = format!("sources/{index}/");
        let has_later_compact = self.listing.entries.iter().any(|e| {
            e.rel
                .strip_prefix(&dir)
                .and_then(|n| n.strip_suffix(".compact"))
                .and_then(|n| n.parse::<i64>().ok())
                .is_some_and(|n| n >= log_offset)
        });
        if !has_later_compact {
            self.finding(
                Severity::Warning,
                "file-source-log-missing",
                Some(&base),
                format!("the file source {index} committed log offset {log_offset}, but {base} (its file list) is missing: Spark cannot tell which input files it already processed"),
            );
        }
    }

    fn is_rate_source(&mut self, index: usize) -> bool {
        let rel = format!("sources/{index}/0");
        if !self.has_file(&rel) {
            return false;
        }
        let Ok(bytes) = loader::read_bounded(&self.listing.root, &rel) else {
            return false;
        };
        let text = String::from_utf8_lossy(&bytes);
        text.strip_prefix("v1\n")
            .is_some_and(|rest| !rest.is_empty() && rest.trim().bytes().all(|b| b.is_ascii_digit()))
    }

    /// Per topic-partition, the highest offset over every retained offset file; reports offsets
    /// that went backwards between batches and changes of the source count.
    fn kafka_across_batches(
        &mut self,
        offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>,
    ) -> KafkaOffsets {
        let mut required = KafkaOffsets::new();
        let mut previous: Option<(u64, KafkaOffsets)> = None;
        let mut went_back: Option<(u64, String, u32, i64, i64)> = None;
        let mut source_count: Option<(u64, usize)> = None;
        let mut count_changed: Option<(u64, usize, usize)> = None;
        for (&id, parsed) in offsets {
            let Some(log) = parsed.ok() else { continue };
            match source_count {
                Some((_, n)) if n != log.sources().len() => {
                    count_changed = Some((id, n, log.sources().len()));
                    source_count = Some((id, log.sources().len()));
                }
                None => source_count = Some((id, log.sources().len())),
                _ => {}
            }
            let mut this = KafkaOffsets::new();
            for line in log.sources() {
                let Some(text) = line.offset_text() else {
                    continue;
                };
                if !text.starts_with('{') {
                    continue;
                }
                let Some(kafka) = super::offsets::KafkaSourceOffset::parse(text) else {
                    continue;
                };
                for (topic, parts) in kafka.offsets() {
                    let req = required.entry(topic.clone()).or_default();
                    let cur = this.entry(topic).or_default();
                    for (p, o) in parts {
                        req.entry(p).and_modify(|x| *x = (*x).max(o)).or_insert(o);
                        cur.insert(p, o);
                    }
                }
            }
            if let Some((_, prev)) = &previous {
                for (topic, parts) in &this {
                    for (p, o) in parts {
                        if let Some(before) = prev.get(topic).and_then(|m| m.get(p)) {
                            if o < before && went_back.is_none() {
                                went_back = Some((id, topic.clone(), *p, *before, *o));
                            }
                        }
                    }
                }
            }
            if !this.is_empty() {
                previous = Some((id, this));
            }
        }
        if let Some((id, topic, p, before, after)) = went_back {
            self.finding(
                Severity::Warning,
                "kafka-offset-went-back",
                Some(&format!("offsets/{id}")),
                format!("Kafka offset of {topic}-{p} went back from {before} to {after} at batch {id}: the topic was recreated or the offset log was edited"),
            );
        }
        if let Some((id, before, after)) = count_changed {
            self.finding(
                Severity::Info,
                "source-count-changed",
                Some(&format!("offsets/{id}")),
                format!("the number of sources changed from {before} to {after} at batch {id}: the query's plan changed between runs"),
            );
        }
        required
    }

    fn check_kafka_conflicts(&mut self, sources: &[SourceOffset]) {
        let mut seen: BTreeMap<(String, u32), (usize, i64)> = BTreeMap::new();
        for s in sources {
            for (topic, parts) in s.kafka.iter().flatten() {
                for (p, o) in parts {
                    if let Some((other, o2)) = seen.insert((topic.clone(), *p), (s.index, *o)) {
                        if o2 != *o {
                            self.finding(
                                Severity::Warning,
                                "kafka-sources-overlap",
                                Some(&format!("offsets/{}", s.batch)),
                                format!("sources {other} and {} both read {topic}-{p}, at offsets {o2} and {o}: the merged startingOffsets uses the lower one; prefer each source's own", s.index),
                            );
                            return;
                        }
                    }
                }
            }
        }
    }

    fn operators(
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

    fn operator(&mut self, id: u32, dir: &OperatorDir, ctx: &StateContext<'_>) -> Operator {
        let StateContext {
            conf_provider,
            conf,
            ..
        } = ctx;
        let op_dir = format!("state/{id}");
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
                format!("{rel} is not a state file Spark writes; Spark ignores it"),
            );
        }
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
        if provider == Provider::Rocksdb {
            self.observe("rocksdb-files", &op_dir, false);
        }
        if changelog {
            self.observe("rocksdb-changelog", &op_dir, false);
        }
        if unique_ids {
            self.observe("state-unique-id-files", &op_dir, false);
        }
        if stores
            .iter()
            .any(|s| s.starts_with("left-") || s.starts_with("right-"))
        {
            self.observe("join-state-stores", &op_dir, false);
        }
        if dir.mixed_providers() {
            self.finding(
                Severity::Error,
                "state-provider-mixed",
                Some(&op_dir),
                format!("{op_dir} holds both HDFS-backed (.delta/.snapshot) and RocksDB (.zip/.changelog) files: state from two providers was mixed into one checkpoint"),
            );
        }
        if let (Some((class, wanted)), true) =
            (conf_provider.as_ref(), provider != Provider::Unknown)
        {
            if *wanted != Provider::Unknown && *wanted != provider {
                self.finding(
                    Severity::Error,
                    "state-provider-mismatch",
                    Some(&op_dir),
                    format!("the offset log pins the state store provider {class}, but {op_dir} holds {} files: Spark restores the provider from the log and will not find its files", provider.name()),
                );
            }
        }

        // Schema files (partition 0, one per store) and operator metadata.
        let mut schemas = Vec::new();
        if let Some(p0) = dir.partitions.get(&0) {
            for (store, files) in p0 {
                let Some(rel) = &files.schema_file else {
                    continue;
                };
                self.observe("state-schema-file", rel, false);
                let schema = match loader::read_bounded(&self.listing.root, rel) {
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
                            "file-unreadable",
                            Some(rel),
                            format!("cannot read {rel}: {e}"),
                        );
                        None
                    }
                };
                schemas.push(SchemaFile {
                    file: rel.clone(),
                    store: store.clone(),
                    schema,
                });
            }
        }
        let operator_metadata = self.operator_metadata(id, dir);
        if let Some(meta) = &operator_metadata {
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
        let name = operator_metadata
            .as_ref()
            .and_then(|m| m.metadata.operator_name.clone())
            .or_else(|| {
                stores
                    .iter()
                    .any(|s| s.starts_with("left-"))
                    .then(|| "join".to_string())
            });
        if stores.iter().any(|s| s.starts_with("left-")) {
            let format = conf.and_then(|c| c.get(JOIN_FORMAT)).map(String::as_str);
            if conf.is_some() && format.is_none_or(|f| f == "1") {
                self.finding(
                    Severity::Warning,
                    "join-state-format-1",
                    Some(&op_dir),
                    format!("{op_dir} is a stream-stream join with state format version 1: if it is an outer join, Spark 3.0+ refuses to restart it (SPARK-26154, \"correctness issue is discovered\")"),
                );
            }
        }

        self.check_state_versions(id, dir, provider, ctx);

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
    ) {
        let StateContext {
            expected_partitions,
            committed,
            latest,
            commit,
            ..
        } = *ctx;
        let op_dir = format!("state/{id}");
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
        let stores = dir.store_names();
        let mut missing: Vec<String> = Vec::new();
        let mut missing_partitions: Vec<u64> = Vec::new();
        // Partition ids come from directory names: never loop up to a huge one, only over what
        // exists plus (at most 1,000 of) the ids missing below the expected count.
        let count = expected_partitions.unwrap_or(0).max(
            dir.partitions
                .keys()
                .next_back()
                .map_or(0, |l| l.saturating_add(1)),
        );
        missing_partitions.extend(
            (0..count)
                .filter(|p| !dir.partitions.contains_key(p))
                .take(1000)
                .map(u64::from),
        );
        for (p, part) in &dir.partitions {
            for store in &stores {
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
                    let rel =
                        if store == DEFAULT_STORE && !stores.iter().any(|s| s != DEFAULT_STORE) {
                            format!("{op_dir}/{p}/{file}")
                        } else {
                            format!("{op_dir}/{p}/{store}/{file}")
                        };
                    missing.push(rel);
                }
            }
        }
        if !missing_partitions.is_empty() {
            self.finding(
                Severity::Error,
                "state-partition-missing",
                Some(&format!("{op_dir}/{}", missing_partitions[0])),
                format!("{op_dir} lacks partition(s) {} of {count}: Spark cannot load their state for batch {} (state version {version})", list_ids(&missing_partitions), c + 1),
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
                format!("the restart loads state version {version} (last committed batch {c} + 1), but {}{more} {} missing: Spark will fail to load the state store", shown.join(", "), if missing.len() == 1 { "is" } else { "are" }),
            );
        }
        if let Some(n) = latest {
            if let Some(ahead) = dir
                .partition_states()
                .iter()
                .filter_map(|p| p.latest_version)
                .find(|v| *v > n + 1)
            {
                self.finding(
                    Severity::Warning,
                    "state-ahead-of-offsets",
                    Some(&op_dir),
                    format!("{op_dir} holds state version {ahead}, beyond the latest batch {n} (+1): the offset log was cut back or the state comes from another copy"),
                );
            }
        }
        // Checkpoint format v2: the commit names the exact store files to load.
        if let Some(commit) = commit.filter(|c| c.state_unique_ids.is_some()) {
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
                    format!("commits/{c} names state files that do not exist ({}): Spark 4.0+ with checkpoint format v2 cannot load them", absent.join(", ")),
                );
            }
        }
    }

    /// Runs of batches whose offset files carry the same conf keys.
    fn writer_history(&self, offsets: &BTreeMap<u64, Parsed<OffsetLogFile>>) -> Vec<WriterSegment> {
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
                min: range.min,
                max: range.before.map(fingerprint::last_before),
            };
            segments.push((seg, conf.keys().cloned().collect()));
        }
        segments.into_iter().map(|(s, _)| s).collect()
    }
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn file_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, name)| name)
}

fn criticality(critical: bool) -> (Severity, &'static str) {
    if critical {
        (
            Severity::Error,
            "; Spark reads this file on restart and will fail",
        )
    } else {
        (Severity::Warning, "; Spark does not read this file on restart, but the state data source and a rollback to this batch would fail")
    }
}

fn offset_log_info(batch: u64, log: &OffsetLogFile) -> OffsetLogInfo {
    let table = markers();
    let conf = log.metadata().and_then(|m| m.conf.as_ref());
    let pinned = conf
        .map(|c| {
            c.iter()
                .map(|(k, v)| PinnedConf {
                    key: k.clone(),
                    value: v.clone(),
                    meaning: table.conf_key(k).map(|m| m.meaning.clone()),
                })
                .collect()
        })
        .unwrap_or_default();
    let defaults_on_restart = conf
        .map(|c| {
            table
                .conf_key
                .iter()
                .filter(|m| !c.contains_key(&m.key) && !m.default.is_empty())
                .map(|m| PinnedConf {
                    key: m.key.clone(),
                    value: m.default.clone(),
                    meaning: Some(m.meaning.clone()),
                })
                .collect()
        })
        .unwrap_or_default();
    OffsetLogInfo {
        batch: BatchId(batch),
        file: format!("offsets/{batch}"),
        version: log.version(),
        metadata: log.metadata().cloned(),
        pinned,
        defaults_on_restart,
    }
}

fn commit_log_info(batch: u64, commit: &CommitLogFile) -> CommitLogInfo {
    CommitLogInfo {
        batch: BatchId(batch),
        file: format!("commits/{batch}"),
        version: commit.version,
        next_batch_watermark_ms: commit.next_batch_watermark_ms,
        state_unique_ids: commit.state_unique_ids.clone(),
        sink_metadata: commit.sink_metadata.clone(),
    }
}

/// Ids missing between the first and the last of a sorted list.
fn gaps(ids: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for pair in ids.windows(2) {
        let missing = pair[1] - pair[0] - 1;
        if missing > 0 {
            out.extend((pair[0] + 1..pair[1]).take(1000usize.saturating_sub(out.len())));
        }
    }
    out
}

/// `1, 2, 4..9` for people.
fn list_ids(ids: &[u64]) -> String {
    let set: BTreeSet<u64> = ids.iter().copied().collect();
    let mut parts = Vec::new();
    let mut iter = set.into_iter().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter.peek() == Some(&(end + 1)) {
            end = iter.next().unwrap_or(end);
        }
        parts.push(if end > start {
            format!("{start}..{end}")
        } else {
            start.to_string()
        });
        if parts.len() >= 8 {
            parts.push("…".into());
            break;
        }
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_and_id_lists() {
        assert_eq!(gaps(&[1, 2, 4]), vec![3]);
        assert!(gaps(&[5, 6, 7]).is_empty());
        assert_eq!(list_ids(&[1, 2, 3, 5, 7, 8]), "1..3, 5, 7..8");
    }
}
