//! `inspect`: list the checkpoint once, read the small files that matter, parse them with the
//! pure parsers, then interpret: batches, sources and Kafka offsets, state, writer version and
//! integrity findings.
//!
//! Reads a checkpoint; never writes, reads through a link only to a regular file (as Spark does),
//! never walks a link to a directory, never opens a FIFO or device (Spark lists one as a file:
//! it gets its own `not-a-regular-file` finding, never a "missing" one). One bad file becomes a
//! finding naming that file; only a path that is not a readable checkpoint directory is an error.

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
        let shown: Vec<String> = nested.iter().take(10).map(|d| format!("{d}/")).collect();
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
        let bytes = match loader::read_bounded(&self.listing.root, rel) {
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
        self.check_batches(&offset_ids, &commit_ids, pending, &gaps);

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
        let writer_version = self.writer_version(conf.as_ref(), offset_log.as_ref());
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
    fn observe_commits_dir(&mut self) {
        if self
            .listing
            .entries
            .iter()
            .any(|e| e.rel == "commits" && e.kind == EntryKind::Dir)
        {
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
    ) -> WriterVersion {
        let latest_file = offset_log.map(|o| o.file.clone()).unwrap_or_default();
        let (writer_version, conflicts) =
            fingerprint::infer(conf.map(|c| (c, latest_file.as_str())), &self.observations);
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

    /// Counts files, side files and leftovers; reports links, special files, unlisted directories
    /// and `.crc` side files whose file is gone.
    fn scan_files(&mut self) -> FileSummary {
        let FileScan {
            mut summary,
            mut orphans,
            spark_crc,
            mut links,
            specials,
        } = scan_entries(&self.listing.entries);
        self.specials.extend(specials);
        if let Some(file) = spark_crc {
            self.observe("spark-crc-files", &file, false);
        }
        summary.symlinks.sort();
        summary.tmp_files.sort();
        orphans.sort();
        links.sort_by(|a, b| a.0.cmp(&b.0));
        self.report_links(links);
        for tmp in summary.tmp_files.clone() {
            self.finding(
                Severity::Warning,
                "tmp-file-left",
                Some(&tmp),
                format!("{tmp} is a temporary file left by an interrupted write (CheckpointFileManager.createAtomic); Spark ignores it, it is safe to delete in a copy"),
            );
        }
        self.report_orphan_crcs(&orphans);
        self.report_unlisted_dirs();
        summary
    }

    /// One warning per symbolic link (sorted by path), saying what it means for Spark and for a
    /// copy. Links to special files are reported with the special files.
    fn report_links(&mut self, links: Vec<(String, LinkTarget)>) {
        for (link, target) in links {
            let (code, message) = match target {
                LinkTarget::File => ("symlink-to-file", format!("{link} is a symbolic link to a regular file: Spark reads through it, and so did rehearse; rehearse run's sandbox copies the file it points at, but other copies that skip or keep links (cp -r, hdfs dfs -cp) lose it: replace the link with a copy of its target")),
                LinkTarget::Dir => ("symlink-not-followed", format!("{link} is a symbolic link to a directory; rehearse does not walk links inside a checkpoint (they can lead out of it, or in a circle), so what it holds was not inspected and is not counted missing either; replace the link with the directory to have it checked")),
                LinkTarget::Broken => ("symlink-not-followed", format!("{link} is a symbolic link to nothing (dangling, a loop, or unreadable): Spark cannot read it either; restore what it pointed to, or remove the link")),
                // Reported with the special files.
                LinkTarget::Other => continue,
            };
            self.finding(Severity::Warning, code, Some(&link), message);
        }
    }

    /// One warning for `.x.crc` side files whose `x` is gone (sorted; the first one named).
    fn report_orphan_crcs(&mut self, orphans: &[(String, String)]) {
        let Some((first_crc, first_target)) = orphans.first() else {
            return;
        };
        let more = if orphans.len() > 1 {
            format!(" ({} such side files in all)", orphans.len())
        } else {
            String::new()
        };
        self.finding(
            Severity::Warning,
            "crc-without-file",
            Some(first_target),
            format!("{first_crc} exists but {first_target} does not: the file was deleted after Spark wrote it{more}"),
        );
    }

    /// Directories the loader could not list: an error under the logs and state, else a warning.
    fn report_unlisted_dirs(&mut self) {
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
    }

    /// Special files no specific check reported (one Spark does not read on restart, or one
    /// outside the logs and state): a warning each.
    fn report_specials(&mut self) {
        for rel in std::mem::take(&mut self.specials) {
            let reported = self
                .findings
                .iter()
                .any(|f| f.code == "not-a-regular-file" && f.file.as_deref() == Some(&rel));
            if !reported {
                self.finding(
                    Severity::Warning,
                    "not-a-regular-file",
                    Some(&rel),
                    format!("{rel} is not a regular file or directory (a FIFO, socket or device, or a link to one) and was not opened; Spark does not need it on restart, but it has no place in a checkpoint: remove it"),
                );
            }
        }
    }

    /// Batch ids of `offsets/` or `commits/`, ascending; other names become findings.
    fn batch_ids(&mut self, dir: &str) -> Vec<u64> {
        let prefix = format!("{dir}/");
        let mut ids = Vec::new();
        let mut odd = Vec::new();
        let mut spark_crc = None;
        let mut odd_names: Vec<(String, u64)> = Vec::new();
        let mut negative: Vec<String> = Vec::new();
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
                // Spark's listing shows a link to a file, and a FIFO, as a batch file; reading
                // a FIFO is refused and reported.
                (Ok(id), kind) if kind.is_file_like() => {
                    if name != id.to_string() {
                        odd_names.push((entry.rel.clone(), id));
                    }
                    ids.push(id)
                }
                (Ok(_), EntryKind::Dir) => odd.push((
                    entry.rel.clone(),
                    "is a directory where Spark expects a log file",
                )),
                (Ok(_), _) => {}
                (Err(_), kind) if kind.is_file_like() && name.parse::<i64>().is_ok() => {
                    negative.push(entry.rel.clone())
                }
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
        self.report_odd_batch_names(dir, &ids, &odd_names);
        // A negative name is a batch file to Spark (`isBatchFile`: `name.toLong`), not ignored:
        // harmless below other batches, fatal as the newest (it then reads batch id - 1).
        for rel in negative {
            let (severity, what) = if ids.is_empty() {
                (Severity::Error, "it is the newest batch Spark finds here, so a restart reads it as batch -1 and fails (no Spark writes a negative batch id)")
            } else {
                (Severity::Warning, "Spark's listing takes it for a batch below all the others, so a restart does not read it, but no Spark writes a negative batch id")
            };
            self.finding(
                severity,
                "batch-file-negative",
                Some(&rel),
                format!("{rel} has a negative batch id: {what}; fix: delete it in a copy of the checkpoint"),
            );
        }
        ids
    }

    /// Batch files whose name is not the batch id as Spark writes it (`offsets/007`): Spark's
    /// listing takes `007` for batch 7 (`isBatchFile`: `name.toLong`), but reads batch 7 from
    /// `offsets/7` (`batchIdToPath`). An error when the restart reads that batch and `offsets/7`
    /// does not exist.
    fn report_odd_batch_names(&mut self, dir: &str, ids: &[u64], odd: &[(String, u64)]) {
        let latest = ids.last().copied();
        for (rel, id) in odd {
            let canonical = format!("{dir}/{id}");
            let exists = self.has_file(&canonical);
            let read = match dir {
                "offsets" => latest.is_some_and(|l| *id == l || *id + 1 == l),
                _ => latest == Some(*id),
            };
            let (severity, what) = match (exists, read) {
                (true, _) => (Severity::Info, format!("{canonical} exists too, and Spark reads that one; {rel} is ignored")),
                (false, true) => (Severity::Error, format!("Spark reads batch {id} on restart from {canonical}, which does not exist, and fails")),
                (false, false) => (Severity::Warning, format!("Spark reads batch {id} from {canonical}, which does not exist; the restart does not need it, but a rollback to batch {id} would")),
            };
            self.finding(
                severity,
                "batch-file-name",
                Some(rel),
                format!("{rel} is named batch {id} with extra characters (Spark lists it as batch {id} but never writes such a name): {what}; fix: rename it to {canonical} in a copy of the checkpoint"),
            );
        }
    }

    fn read_offsets(&mut self, id: u64, critical: bool, pending: bool) -> Parsed<OffsetLogFile> {
        let rel = format!("offsets/{id}");
        let (severity, why) = criticality(critical);
        let Some(text) = self.read_text(&rel, severity, why) else {
            return Parsed::Failed;
        };
        match parse_offset_log(&text) {
            Ok(log) => Parsed::Ok(log),
            Err(err) => {
                let why = format!("{why}; {}", offset_file_fix(id, pending));
                self.parse_failed(&rel, &err, severity, &why);
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
            let wrong_kind = self.listing.entries.iter().any(|e| e.rel == "metadata");
            if has_batches && !wrong_kind {
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

    /// What the two logs' batch ids say: a pending batch, where each log ends, commits without
    /// offsets, gaps in the offset log.
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
            // When offsets/(n-1) is missing the restart fails instead (`check_gaps`).
            (Some(n), Some(c)) if c + 1 < n && offsets.binary_search(&(n - 1)).is_ok() => self.finding(
                Severity::Warning,
                "offsets-ahead-of-commits",
                Some(&format!("offsets/{n}")),
                format!("the offset log reaches batch {n} but the last commit is batch {c}: {} planned and never committed; Spark warns \"Batch completion log latest batch id is {c}, which is not trailing batchid {n} by one\" and re-runs batch {n} only", describe_ranges(&[(c + 1, n - 1)])),
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
        self.check_commits_have_offsets(offsets, commits);
        self.check_gaps(offsets, commits, gaps);
    }

    /// Gaps in the offset log. On restart Spark reads the latest offset file L and L−1
    /// (`populateStartOffsets`; 3.4+ `validateOffsetLogAndGetPrevOffset`), and fails with
    /// `IllegalStateException: batch L-1 doesn't exist` when L−1 is missing. Only async progress
    /// tracking (3.4+, `AsyncProgressTrackingMicroBatchExecution`) reads the previous file present
    /// instead, and it refuses stateful queries. So a missing L−1 is an error, unless the query is
    /// stateless and its commit log skips batches too (as async progress tracking writes it);
    /// gaps further back are never read.
    fn check_gaps(&mut self, offsets: &[u64], commits: &[u64], gaps: &[u64]) {
        if gaps.is_empty() {
            return;
        }
        let ranges = gap_ranges(offsets);
        let latest = offsets.last().copied().unwrap_or(0);
        let read_missing = latest
            .checked_sub(1)
            .filter(|prev| offsets.binary_search(prev).is_err());
        let stateful = self.has_state_operators();
        let commit_gaps = !gap_ranges(commits).is_empty();
        let what = describe_ranges(&ranges);
        match read_missing {
            Some(prev) if stateful || !commit_gaps => {
                let why = if stateful {
                    "the query is stateful, and async progress tracking (the one mode that allows gaps) refuses stateful queries".to_string()
                } else {
                    "unless the query runs with asyncProgressTrackingEnabled=true (Spark 3.4+), which reads the newest earlier offset file instead; the commit log has no gap, so it was not written that way".to_string()
                };
                self.finding(
                    Severity::Error,
                    "offset-gap-read",
                    Some(&format!("offsets/{prev}")),
                    format!("offsets/{prev} is missing (the offset log lacks {what}), but Spark reads it on restart to check batch {latest}: it fails with \"batch {prev} doesn't exist\" (MicroBatchExecution's offset-log validation); {why}; fix: restore offsets/{prev} from a backup of the checkpoint, or delete offsets/{latest} (and its .{latest}.crc) in a copy if batch {latest} is not committed"),
                );
            }
            _ => self.finding(
                Severity::Warning,
                "offset-gaps",
                Some("offsets"),
                format!("the offset log lacks {what}: normal with asyncProgressTrackingEnabled (Spark 3.4+), otherwise offset files were deleted; Spark does not read them on restart"),
            ),
        }
    }

    /// Whether `state/` holds an operator directory (a numeric name).
    fn has_state_operators(&self) -> bool {
        self.listing.entries.iter().any(|e| {
            e.rel
                .strip_prefix("state/")
                .is_some_and(|rest| !rest.contains('/') && rest.parse::<u32>().is_ok())
        })
    }

    /// Commit files without an offset file: inside the offset log's range the offset log lost
    /// them (an error when it is the last commit), below it they are cleanup leftovers.
    fn check_commits_have_offsets(&mut self, offsets: &[u64], commits: &[u64]) {
        if self.not_a_dir("offsets") {
            return;
        }
        let committed = commits.last().copied();
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
        if !inside.is_empty() {
            let severity = if committed.is_some_and(|c| inside.contains(&c)) {
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

/// What one pass over the listing found, before any finding is made of it.
#[derive(Default)]
struct FileScan {
    summary: FileSummary,
    /// `.x.crc` side files whose `x` is gone: (side file, missing file).
    orphans: Vec<(String, String)>,
    /// The first Spark-written `.crc` file (not a Hadoop side file): a version marker.
    spark_crc: Option<String>,
    links: Vec<(String, LinkTarget)>,
    /// FIFOs, sockets, devices and links to them, in listing order.
    specials: Vec<String>,
}

/// Counts and collects what [`Inspector::scan_files`] reports, one directory at a time.
fn scan_entries(entries: &[Entry]) -> FileScan {
    let mut scan = FileScan::default();
    // The loader lists one directory completely before the next, so the entries of a
    // directory are contiguous: check `.x.crc` side files against their own directory only.
    let mut start = 0;
    while start < entries.len() {
        let dir = parent(&entries[start].rel);
        let end = entries[start..]
            .iter()
            .position(|e| parent(&e.rel) != dir)
            .map_or(entries.len(), |n| start + n);
        scan_dir(&mut scan, dir, &entries[start..end]);
        start = end;
    }
    scan
}

/// Adds the entries of one directory (`dir`, all of its entries) to the scan.
fn scan_dir(scan: &mut FileScan, dir: &str, group: &[Entry]) {
    let names: HashSet<&str> = group
        .iter()
        .filter(|e| e.kind.is_file_like())
        .map(|e| file_name(&e.rel))
        .collect();
    for entry in group {
        let name = file_name(&entry.rel);
        if let EntryKind::Symlink(target) = entry.kind {
            scan.summary.symlinks.push(entry.rel.clone());
            scan.links.push((entry.rel.clone(), target));
        }
        if entry.kind.is_special() {
            scan.specials.push(entry.rel.clone());
        }
        if entry.kind != EntryKind::File {
            continue;
        }
        scan.summary.total += 1;
        if let Some(target) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".crc")) {
            scan.summary.crc_sidecars += 1;
            if !names.contains(target) {
                let target = if dir.is_empty() {
                    target.to_string()
                } else {
                    format!("{dir}/{target}")
                };
                scan.orphans.push((entry.rel.clone(), target));
            }
        } else if name.starts_with('.') && name.ends_with(".tmp") {
            scan.summary.tmp_files.push(entry.rel.clone());
        } else if name.ends_with(".crc") && scan.spark_crc.is_none() {
            scan.spark_crc = Some(entry.rel.clone());
        }
    }
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn file_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, name)| name)
}

/// How to repair a damaged `offsets/<id>`: a pending batch's file can simply go (Spark plans the
/// batch anew from the committed offsets); any other needs a backup or a fresh start.
pub(crate) fn offset_file_fix(id: u64, pending: bool) -> String {
    let rel = format!("offsets/{id}");
    if pending {
        format!("fix: {rel} is the pending batch (there is no commits/{id}): delete it and its .{id}.crc side file in a copy of the checkpoint, and Spark plans batch {id} anew from the committed offsets of batch {}", id.saturating_sub(1))
    } else {
        format!("fix: restore {rel} from a backup of the checkpoint, or start the query on a new checkpoint with the startingOffsets rehearse inspect prints")
    }
}

pub(crate) fn criticality(critical: bool) -> (Severity, &'static str) {
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

/// Files Spark reads on restart: the latest offset file and the one before it (and the latest
/// commit file). A problem there fails the restart; elsewhere it is a warning.
fn critical_offsets(latest: Option<u64>) -> Vec<u64> {
    latest
        .into_iter()
        .flat_map(|n| [Some(n), n.checked_sub(1)])
        .flatten()
        .collect()
}

/// Ids missing between the first and the last of a sorted list. Equal neighbours (`4` and
/// `04` both parse as batch 4) are no gap.
fn gaps(ids: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for pair in ids.windows(2) {
        let missing = pair[1].saturating_sub(pair[0]).saturating_sub(1);
        if missing > 0 {
            out.extend((pair[0] + 1..pair[1]).take(1000usize.saturating_sub(out.len())));
        }
    }
    out
}

/// The runs of ids missing between the first and the last of a sorted list, as `(first, last)`.
fn gap_ranges(ids: &[u64]) -> Vec<(u64, u64)> {
    ids.windows(2)
        .filter(|pair| pair[1] > pair[0].saturating_add(1))
        .map(|pair| (pair[0] + 1, pair[1] - 1))
        .collect()
}

/// Runs of batches for people: `batch 3`, `batches 5 to 1004 (1,000 batches)`,
/// `batches 3, 7 to 9 (4 batches)`; at most 8 runs are named.
pub(crate) fn describe_ranges(ranges: &[(u64, u64)]) -> String {
    let total: u64 = ranges.iter().map(|(a, b)| b - a + 1).sum();
    let mut parts: Vec<String> = ranges
        .iter()
        .take(8)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a} to {b}")
            }
        })
        .collect();
    if ranges.len() > 8 {
        parts.push(format!("and {} more runs", ranges.len() - 8));
    }
    if total == 1 {
        format!("batch {}", parts.join(", "))
    } else {
        format!(
            "batches {} ({} batches)",
            parts.join(", "),
            thousands(total)
        )
    }
}

/// `1,000` for people.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1, 2, 4..9` for people.
pub(crate) fn list_ids(ids: &[u64]) -> String {
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
    fn gap_runs_are_said_readably() {
        assert_eq!(gap_ranges(&[0, 1, 2, 4]), vec![(3, 3)]);
        assert_eq!(describe_ranges(&gap_ranges(&[0, 1, 2, 4])), "batch 3");
        assert_eq!(
            describe_ranges(&gap_ranges(&[4, 2005])),
            "batches 5 to 2004 (2,000 batches)"
        );
        assert_eq!(
            describe_ranges(&gap_ranges(&[1, 3, 6])),
            "batches 2, 4 to 5 (3 batches)"
        );
    }

    #[test]
    fn gaps_and_id_lists() {
        assert_eq!(gaps(&[1, 2, 4]), vec![3]);
        assert!(gaps(&[5, 6, 7]).is_empty());
        assert_eq!(list_ids(&[1, 2, 3, 5, 7, 8]), "1..3, 5, 7..8");
    }
}

#[cfg(test)]
mod unreadable_log_tests {
    use super::*;

    /// Issue 15: an unreadable `offsets/` gave false "deleted"/"missing" findings next to the
    /// real error (exit 5). It is one error with its cause (exit 3). Built from a listing, since
    /// a test running as root can read a mode-000 directory.
    #[test]
    fn an_unlistable_log_is_one_error_with_its_cause() {
        let listing = Listing {
            root: "/ckpt".into(),
            entries: vec![
                Entry {
                    rel: "offsets".into(),
                    kind: EntryKind::Dir,
                },
                Entry {
                    rel: "commits".into(),
                    kind: EntryKind::Dir,
                },
            ],
            unlisted: vec![(
                "offsets".into(),
                std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            )],
        };
        let err = inspect_listing(listing).unwrap_err();
        assert!(
            matches!(err, CheckpointError::LogUnreadable { .. }),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "cannot list /ckpt/offsets, which Spark lists on every restart to find the batches"
        );
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert!(source.is_some_and(|s| s.contains("ermission denied")));
    }
}

#[cfg(test)]
mod gap_tests {
    #[test]
    fn duplicate_batch_ids_are_no_gap_and_no_panic() {
        assert_eq!(super::gaps(&[0, 0, 1, 4, 4]), vec![2, 3]);
    }
}
