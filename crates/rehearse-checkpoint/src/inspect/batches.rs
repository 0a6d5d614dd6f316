//! The batches of `inspect`: which offset and commit files exist, reading them, and the checks
//! on gaps and on commits without offsets (what Spark reads on restart is an error, the rest a
//! warning), with the helpers that say batch ranges readably.

use super::*;

impl Inspector {
    /// Batch ids of `offsets/` or `commits/`, ascending; other names become findings.
    pub(super) fn batch_ids(&mut self, dir: &str) -> Vec<u64> {
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
    pub(super) fn report_odd_batch_names(&mut self, dir: &str, ids: &[u64], odd: &[(String, u64)]) {
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

    pub(super) fn read_offsets(
        &mut self,
        id: u64,
        critical: bool,
        pending: bool,
    ) -> Parsed<OffsetLogFile> {
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

    pub(super) fn read_commit(&mut self, id: u64, critical: bool) -> Parsed<CommitLogFile> {
        let rel = format!("commits/{id}");
        let (severity, why) = criticality(critical);
        let Some(text) = self.read_text(&rel, severity, why) else {
            return Parsed::Failed;
        };
        match parse_commit_log(&text) {
            Ok(commit) => Parsed::Ok(commit),
            Err(err) => {
                // A fix line as a damaged offset file has (a commit log `v99` had none).
                let has_offsets = self.has_file(&format!("offsets/{id}"));
                let why = format!("{why}; {}", commit_file_fix(id, has_offsets));
                self.parse_failed(&rel, &err, severity, &why);
                Parsed::Failed
            }
        }
    }

    pub(super) fn read_query_id(&mut self, has_batches: bool) -> Option<String> {
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
                    "; Spark reads the query id from it on every start (StreamMetadata.read); fix: restore metadata from a backup of the checkpoint, or write {\"id\":\"<the query's UUID>\"} into it in a copy (the id is in the driver log's \"Starting … [id = …]\" line)",
                );
                None
            }
        }
    }

    /// What the two logs' batch ids say: a pending batch, where each log ends, commits without
    /// offsets, gaps in the offset log. `before_commit_log`: no `commits/` directory and the
    /// latest offset file has no conf, as Spark 2.0 and 2.1 wrote them (no commit log yet).
    pub(super) fn check_batches(
        &mut self,
        offsets: &[u64],
        commits: &[u64],
        pending: Option<u64>,
        gaps: &[u64],
        before_commit_log: bool,
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
            // Spark 2.2+ restarts such a log as one whose latest batch is pending
            // (MicroBatchExecution.populateStartOffsets: "no commit log present").
            (Some(n), None) if n > 0 && before_commit_log => self.finding(
                Severity::Info,
                "no-commit-log-yet",
                Some("commits"),
                format!("no commits/: Spark 2.0 and 2.1 (which wrote this offset log without a conf) kept no commit log; Spark 2.2+ restarts it by re-running batch {n}, as for a pending batch"),
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
    pub(super) fn check_gaps(&mut self, offsets: &[u64], commits: &[u64], gaps: &[u64]) {
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
    pub(super) fn has_state_operators(&self) -> bool {
        self.listing.entries.iter().any(|e| {
            e.rel
                .strip_prefix("state/")
                .is_some_and(|rest| !rest.contains('/') && rest.parse::<u32>().is_ok())
        })
    }

    /// Commit files without an offset file: inside the offset log's range the offset log lost
    /// them (an error when it is the last commit), below it they are cleanup leftovers.
    pub(super) fn check_commits_have_offsets(&mut self, offsets: &[u64], commits: &[u64]) {
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
            format!("commits/ holds {} with no offset file: the offset log was deleted or restored from another copy", describe_ranges(&runs(&inside))),
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

    pub(super) fn observe_commits(
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

/// How to repair a damaged `commits/<id>`: from a backup; or, when `offsets/<id>` is there,
/// by deleting it in a copy, which makes batch `id` the pending batch that Spark runs again from
/// its offsets on restart (MicroBatchExecution.populateStartOffsets) — writing its output again.
pub(crate) fn commit_file_fix(id: u64, has_offsets: bool) -> String {
    let rel = format!("commits/{id}");
    if has_offsets {
        format!("fix: restore {rel} from a backup of the checkpoint, or delete it and its .{id}.crc side file in a copy: batch {id} then becomes the pending batch and Spark runs it again from offsets/{id} (its output is written again)")
    } else {
        format!("fix: restore {rel} from a backup of the checkpoint (offsets/{id} is missing too, so Spark cannot run batch {id} again without it)")
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

pub(super) fn offset_log_info(batch: u64, log: &OffsetLogFile) -> OffsetLogInfo {
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

pub(super) fn commit_log_info(batch: u64, commit: &CommitLogFile) -> CommitLogInfo {
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
pub(super) fn critical_offsets(latest: Option<u64>) -> Vec<u64> {
    latest
        .into_iter()
        .flat_map(|n| [Some(n), n.checked_sub(1)])
        .flatten()
        .collect()
}

/// Ids missing between the first and the last of a sorted list. Equal neighbours (`4` and
/// `04` both parse as batch 4) are no gap.
pub(super) fn gaps(ids: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for pair in ids.windows(2) {
        let missing = pair[1].saturating_sub(pair[0]).saturating_sub(1);
        if missing > 0 {
            out.extend((pair[0] + 1..pair[1]).take(1000usize.saturating_sub(out.len())));
        }
    }
    out
}

/// The runs of consecutive ids of a sorted list, as `(first, last)`: `[1, 2, 3, 7]` →
/// `[(1, 3), (7, 7)]`.
pub(crate) fn runs(ids: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(id) => *last = id,
            Some((_, last)) if *last == id => {}
            _ => out.push((id, id)),
        }
    }
    out
}

/// The runs of ids missing between the first and the last of a sorted list, as `(first, last)`.
/// Public for `rehearse inspect`'s text report (`src/report/inspect/text.rs`), which names the
/// offset log's gaps in the findings' words.
pub fn gap_ranges(ids: &[u64]) -> Vec<(u64, u64)> {
    ids.windows(2)
        .filter(|pair| pair[1] > pair[0].saturating_add(1))
        .map(|pair| (pair[0] + 1, pair[1] - 1))
        .collect()
}

/// Runs of batches for people: `batch 3`, `batches 5 to 1004 (1,000 batches)`,
/// `batches 3, 7 to 9 (4 batches)`; at most 8 runs are named. The one wording of batch runs:
/// the findings and `rehearse inspect`'s text report (`src/report/inspect/text.rs`) use it.
pub fn describe_ranges(ranges: &[(u64, u64)]) -> String {
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
        assert_eq!(runs(&[1, 2, 3, 7, 7, 9]), vec![(1, 3), (7, 7), (9, 9)]);
        assert_eq!(describe_ranges(&runs(&[1004])), "batch 1004");
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
            source: Default::default(),
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
