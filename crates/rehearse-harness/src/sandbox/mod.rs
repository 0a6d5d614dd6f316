//! The sandbox: a private copy of the source checkpoint plus everything a trial writes.
//!
//! The source checkpoint is only ever read. The copy goes through the engine in `copy.rs`
//! ([`copy_checkpoint`]): the restart's working set by default (`--full-copy`: everything),
//! streamed, hashed with blake3 while copying, several files in flight; [`verify_source`] checks
//! the source again at the end of a trial, so a report can state that the source was untouched
//! (or fail loudly if it was not). A link to a regular file is copied as the file it points at
//! (Spark reads through it); a link to a directory is refused (it may lead anywhere, `/`
//! included); so are FIFOs, sockets, devices and links to nothing, named, never opened
//! ([`SandboxError::NotRegular`]: a copy without them would restart something other than the
//! source, the same refusal `run` gives up front from inspect's findings). A sandbox parent inside the
//! source, or a source inside the report dir, is refused before anything starts
//! ([`refuse_nesting`]).
//!
//! Layout of a sandbox directory (mounted at `/sandbox` in the Spark container):
//! ```text
//! checkpoint/   the copy the restarted query uses
//! output/       the job's sink ({output})
//! job/          the job file(s)
//! conf/         logging config chosen by the harness
//! eventlog/     Spark's event log (spark.eventLog.dir)
//! logs/         driver.log (stdout and stderr of spark-submit, in arrival order)
//! ```

mod copy;
mod nesting;
mod verify;

pub use copy::{
    copy_checkpoint, copy_checkpoint_for, set_local_method, CopyOptions, CopySummary, LocalMethod,
    BUFFER, DEFAULT_PARALLEL_LOCAL, DEFAULT_PARALLEL_REMOTE,
};
pub use nesting::{refuse_cache_inside, refuse_nesting, refuse_output_inside};
pub use verify::verify_source;

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Why a sandbox could not be made or checked.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// Reading a file of the source checkpoint failed.
    #[error("cannot read {path} of the source checkpoint")]
    ReadSource {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Writing into the sandbox failed (disk full, permissions).
    #[error("cannot write {path} in the sandbox\n(hint: check free space and permissions of the report dir, or pass --report-dir)")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The checkpoint holds a symlink to a directory, which Spark would follow.
    #[error("{path} in the source checkpoint is a symlink to the directory {target}; rehearse copies a checkpoint without following directory links (one may lead out of it)\n(hint: copy the checkpoint with its links resolved, `cp -rL CHECKPOINT COPY`, and rehearse the copy)")]
    LinkedDirectory {
        /// The link.
        path: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// The checkpoint holds a FIFO, socket, device or a link to nothing: a copy cannot hold
    /// it, so a sandbox without it would restart something other than the source. Never opened.
    #[error("{path} in the source checkpoint is {what}, not a regular file or directory; a rehearsal restarts a copy, which cannot hold it, so it would not restart this checkpoint\n(hint: remove it, or replace it with the real file from a backup of the checkpoint; `rehearse inspect` lists every such entry)")]
    NotRegular {
        /// The entry.
        path: PathBuf,
        /// `a FIFO`, `a socket`, `a block device`, `a character device`, `a link to nothing (…)`.
        what: String,
    },
    /// The copy of a file differs from the source: the bytes read are not the size the listing
    /// gave (the file changed while it was copied, or the server sends more than it listed).
    #[error("the sandbox copy of {path} differs from the source: the listing said {listed} bytes, reading it gave {read} (the file changed while it was copied — is a query still writing to this checkpoint? — or the server sends other bytes than it lists)\n(hint: stop the query, or rehearse a copy taken while it is stopped; if nothing writes to it, check the endpoint)")]
    CopyMismatch {
        /// The file, relative to the checkpoint.
        path: PathBuf,
        /// Its size in the listing, in bytes.
        listed: u64,
        /// What reading it gave: `12 bytes`, or `more than 4 bytes` when the read was stopped.
        read: String,
    },
    /// The sandbox's filesystem has less free space than the files chosen for the copy: found
    /// before the first byte is written, so a multi-GiB copy does not fill the disk and fail
    /// half-way (a sparse file counts at its full length: the copy writes it whole).
    #[error("the sandbox copy needs {} ({files} files) but {dir} has {} free\n(hint: free space there, or pass --report-dir on a larger disk; without --full-copy only the restart's working set is copied)", rehearse_base::text::bytes(*needed), rehearse_base::text::bytes(*free))]
    NoSpace {
        /// The sandbox's checkpoint directory.
        dir: PathBuf,
        /// Bytes the chosen files take on that filesystem (each rounded up to whole blocks).
        needed: u64,
        /// Bytes available to this user there (`statvfs` f_bavail × f_frsize).
        free: u64,
        /// How many files were chosen.
        files: usize,
    },
    /// Listing or reading the source's store failed.
    #[error(transparent)]
    Store(#[from] rehearse_store::StoreError),
    /// A copy or check stopped before it finished (its thread panicked or was cancelled).
    #[error("copying the checkpoint stopped: {0}")]
    Stopped(String),
    /// The sandbox parent (report dir) and the source checkpoint lie inside one another.
    #[error("{message}")]
    Nested {
        /// The one-paragraph error, naming both directories and the fix.
        message: String,
    },
}

/// The sandbox could not be written (disk full or too small for the copy, permissions of the
/// report dir) or the copy stopped: the machine's fault (exit 4). Anything else names a file of
/// the source checkpoint or a path to fix (exit 3) — a remote source's store error too, as a
/// trial has always reported it.
impl rehearse_base::HasErrorKind for SandboxError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        match self {
            SandboxError::Write { .. }
            | SandboxError::NoSpace { .. }
            | SandboxError::Stopped(_) => rehearse_base::ErrorKind::Environment,
            _ => rehearse_base::ErrorKind::BadInput,
        }
    }
}

/// blake3 hashes of every regular file of a checkpoint, keyed by path relative to its root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceHashes {
    /// Relative path → hex blake3 of the file's bytes.
    pub files: BTreeMap<PathBuf, String>,
}

impl SourceHashes {
    /// Hashes every regular file under `root`, and every link to one (as the file it points at).
    pub fn of(root: &Path) -> Result<SourceHashes, SandboxError> {
        let mut files = BTreeMap::new();
        let mut buf = vec![0u8; BUFFER];
        for entry in WalkDir::new(root).follow_links(false).sort_by_file_name() {
            let entry = entry.map_err(|e| SandboxError::ReadSource {
                path: e.path().unwrap_or(root).to_path_buf(),
                source: e.into(),
            })?;
            if !matches!(kind(&entry)?, Kind::File) {
                continue;
            }
            let rel = relative(root, entry.path());
            files.insert(rel, verify::hash_path(entry.path(), &mut buf)?);
        }
        Ok(SourceHashes { files })
    }

    /// Hashes `root` again and lists what changed since `self` was taken: files added,
    /// removed or rewritten. Empty means the source was untouched.
    pub fn changes_since(&self, root: &Path) -> Result<Vec<String>, SandboxError> {
        let now = SourceHashes::of(root)?;
        let mut changes = Vec::new();
        for (path, hash) in &self.files {
            match now.files.get(path) {
                None => changes.push(format!("removed {}", path.display())),
                Some(h) if h != hash => changes.push(format!("changed {}", path.display())),
                Some(_) => {}
            }
        }
        for path in now.files.keys() {
            if !self.files.contains_key(path) {
                changes.push(format!("added {}", path.display()));
            }
        }
        Ok(changes)
    }

    /// One hash over all files (paths and contents), for reports.
    pub fn digest(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        for (path, hash) in &self.files {
            hasher.update(path.to_string_lossy().as_bytes());
            hasher.update(b"\0");
            hasher.update(hash.as_bytes());
            hasher.update(b"\n");
        }
        hasher.finalize().to_hex().to_string()
    }
}

/// A trial's private directory. Removed on drop unless [`Sandbox::keep`] was called.
#[derive(Debug)]
pub struct Sandbox {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
    /// Made under a directory the user named (`--report-dir`), not the system temp dir.
    in_report_dir: bool,
    /// What the copy of the source checkpoint did (files, bytes, hashes, the listing).
    pub copy: CopySummary,
}

impl Sandbox {
    /// Creates a sandbox under `parent` (or the system temp dir) and copies all of the local
    /// checkpoint at `source` into `checkpoint/`, hashing each file (the generation's work
    /// directory and the restart benchmark use it; trials use [`Sandbox::create_from`]).
    pub fn create(
        source: &Path,
        parent: Option<&Path>,
        label: &str,
    ) -> Result<Sandbox, SandboxError> {
        let (dir, path) = Self::make(source, parent, label)?;
        let copy = copy::copy_local(
            source,
            None,
            &path.join("checkpoint"),
            &CopyOptions::default(),
        )?;
        Ok(Sandbox {
            dir: Some(dir),
            path,
            in_report_dir: parent.is_some(),
            copy,
        })
    }

    /// Creates a sandbox under `parent` (or the system temp dir) and copies the checkpoint
    /// `source` (inspected as `inspection`) into `checkpoint/` through the copy engine: the
    /// working set of a restart on `targets`, or everything (`options.full_copy`, or when the
    /// working set is uncertain).
    pub async fn create_from(
        source: &rehearse_store::CheckpointStore,
        inspection: &rehearse_checkpoint::Inspection,
        targets: &[rehearse_base::versions::SparkVersion],
        parent: Option<&Path>,
        label: &str,
        options: &CopyOptions,
    ) -> Result<Sandbox, SandboxError> {
        let local = match source.location() {
            rehearse_store::CheckpointLocation::Local { path } => path.clone(),
            _ => PathBuf::new(),
        };
        let (dir, path) = Self::make(&local, parent, label)?;
        let copy = copy_checkpoint_for(
            source,
            inspection,
            targets,
            &path.join("checkpoint"),
            options,
        )
        .await?;
        Ok(Sandbox {
            dir: Some(dir),
            path,
            in_report_dir: parent.is_some(),
            copy,
        })
    }

    /// The sandbox directory and its subdirectories, refusing a place inside `source`.
    fn make(
        source: &Path,
        parent: Option<&Path>,
        label: &str,
    ) -> Result<(tempfile::TempDir, PathBuf), SandboxError> {
        let prefix = format!("rehearse-{}-", sanitize(label));
        let base = parent
            .map(Path::to_path_buf)
            .unwrap_or_else(std::env::temp_dir);
        if !source.as_os_str().is_empty() {
            refuse_nesting(source, &base, false)?;
        }
        fs::create_dir_all(&base).map_err(|source| SandboxError::Write {
            path: base.clone(),
            source,
        })?;
        let dir = tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(&base)
            .map_err(|source| SandboxError::Write {
                path: base.clone(),
                source,
            })?;
        let path = dir.path().to_path_buf();
        for sub in ["checkpoint", "output", "job", "conf", "eventlog", "logs"] {
            let p = path.join(sub);
            fs::create_dir_all(&p).map_err(|source| SandboxError::Write {
                path: p.clone(),
                source,
            })?;
        }
        Ok((dir, path))
    }

    /// The sandbox root.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checkpoint copy the restarted query uses.
    pub fn checkpoint(&self) -> PathBuf {
        self.path.join("checkpoint")
    }

    /// Keeps the directory after drop and returns its path.
    pub fn keep(&mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
        self.path.clone()
    }

    /// Keeps a trial's evidence — its driver logs (`logs/`), event log (`eventlog/`) and
    /// Spark's logging config (`conf/`) — after the rest goes, and returns where it is: a verdict
    /// must stay checkable after the run without `--keep` (issue 26 §6).
    ///
    /// Under `--report-dir` the sandbox directory itself stays with only those (the checkpoint
    /// copy, the job, its dependencies and the sink output are removed: the copy can be as large
    /// as production's working set). Under the system temp dir they are copied to
    /// `<cache>/reports/<sandbox name>/` ([`rehearse_base::cache::reports`]; the oldest beyond
    /// [`KEPT_REPORTS`] are pruned) and the sandbox is removed when dropped.
    ///
    /// # Errors
    /// [`SandboxError::Write`] when the evidence directory cannot be written.
    pub fn keep_evidence(&mut self) -> Result<PathBuf, SandboxError> {
        if self.in_report_dir {
            let entries = fs::read_dir(&self.path).map_err(|source| SandboxError::Write {
                path: self.path.clone(),
                source,
            })?;
            for entry in entries.flatten() {
                let name = entry.file_name();
                let p = entry.path();
                let kept = EVIDENCE.iter().any(|e| name == *e);
                match entry.file_type() {
                    // Kept, without what the job may have planted in it (below).
                    Ok(t) if kept && t.is_dir() => drop_planted(&p),
                    // Not followed: a link (a job's `-> /data`) is removed as the link.
                    Ok(t) if t.is_dir() => {
                        let _ = fs::remove_dir_all(&p);
                    }
                    _ => {
                        let _ = fs::remove_file(&p);
                    }
                }
            }
            return Ok(self.keep());
        }
        let root = rehearse_base::cache::reports();
        let name = self.path.file_name().unwrap_or_default();
        let dest = root.join(name);
        let mut budget = MAX_EVIDENCE_BYTES;
        for sub in EVIDENCE {
            copy_evidence(&self.path.join(sub), &dest.join(sub), &mut budget)?;
        }
        prune_reports(&root, KEPT_REPORTS);
        Ok(dest)
    }
}

/// The parts of a sandbox kept as a trial's evidence ([`Sandbox::keep_evidence`]).
const EVIDENCE: [&str; 3] = ["logs", "eventlog", "conf"];

/// At most this many bytes of evidence are copied per trial (a job may log without end); files
/// past it are left out.
pub const MAX_EVIDENCE_BYTES: u64 = 1 << 30;

/// Copies the regular files and directories below `from` to `to`, never through a link: the job
/// ran as root in a container with the sandbox mounted, so anything in it may be a link it
/// planted (`logs/x.log -> /etc/shadow`, `eventlog -> /root/.ssh`), and rehearse, reading on the
/// host, would resolve it there (breaker pass, session 13: the host's /etc/shadow was copied into
/// the cache, mode 644). A `from` that is not a directory itself is skipped, as are links,
/// FIFOs, sockets and devices below it, and files past `budget` bytes.
fn copy_evidence(from: &Path, to: &Path, budget: &mut u64) -> Result<(), SandboxError> {
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SandboxError::Write { path, source }
    };
    match fs::symlink_metadata(from) {
        Ok(m) if m.is_dir() => {}
        _ => return Ok(()),
    }
    for entry in WalkDir::new(from)
        .follow_links(false)
        .follow_root_links(false)
        .sort_by_file_name()
    {
        let Ok(entry) = entry else { continue };
        let Ok(rel) = entry.path().strip_prefix(from) else {
            continue;
        };
        let target = to.join(rel);
        let t = entry.file_type();
        if t.is_dir() {
            fs::create_dir_all(&target).map_err(write(&target))?;
        } else if t.is_file() {
            let len = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if len > *budget {
                continue;
            }
            *budget -= len;
            fs::copy(entry.path(), &target).map_err(write(&target))?;
        }
    }
    Ok(())
}

/// Removes what is not a regular file or a directory below the kept directory `dir` (links,
/// FIFOs, sockets, devices the job may have planted), so the evidence left under `--report-dir`
/// leads nowhere else.
fn drop_planted(dir: &Path) {
    for entry in WalkDir::new(dir)
        .follow_links(false)
        .follow_root_links(false)
        .into_iter()
        .flatten()
    {
        let t = entry.file_type();
        if !t.is_dir() && !t.is_file() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// How many trials' evidence directories `<cache>/reports/` keeps; older ones are removed when
/// a new one is written (a nightly CI run must not fill the disk).
pub const KEPT_REPORTS: usize = 200;

/// Removes the oldest entries of `root` (by modification time) beyond `keep`.
fn prune_reports(root: &Path, keep: usize) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| {
            let at = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (at, e.path())
        })
        .collect();
    if dirs.len() <= keep {
        return;
    }
    dirs.sort();
    for (_, dir) in &dirs[..dirs.len() - keep] {
        let _ = fs::remove_dir_all(dir);
    }
}

/// Copies all of `from` into `to` (which exists) through the copy engine; returns the hashes
/// of the files copied. Directories and empty files (Hadoop markers) are kept; `.crc` side files
/// are ordinary files here. A link to a regular file is copied as that file; a link to a
/// directory is [`SandboxError::LinkedDirectory`]; FIFOs, sockets, devices and links to nothing
/// are [`SandboxError::NotRegular`].
pub fn copy_tree(from: &Path, to: &Path) -> Result<SourceHashes, SandboxError> {
    Ok(copy::copy_local(from, None, to, &CopyOptions::default())?.hashes)
}

/// What a walked entry is to a copy: a file to read (a regular file, or a link to one) or a
/// directory. A link to a directory, a FIFO, a socket, a device and a link to nothing are
/// errors naming the path (one behaviour for every caller: `run`, the generation's work
/// directory, the bare-restart baseline, the source check).
enum Kind {
    File,
    Dir,
}

/// What a non-regular, non-directory file type is, in words.
fn special(t: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else {
        "neither a file nor a directory"
    }
}

fn kind(entry: &walkdir::DirEntry) -> Result<Kind, SandboxError> {
    let t = entry.file_type();
    if t.is_dir() {
        return Ok(Kind::Dir);
    }
    if t.is_file() {
        return Ok(Kind::File);
    }
    if t.is_symlink() {
        return match fs::metadata(entry.path()) {
            Ok(m) if m.is_file() => Ok(Kind::File),
            Ok(m) if m.is_dir() => Err(SandboxError::LinkedDirectory {
                path: entry.path().to_path_buf(),
                target: fs::read_link(entry.path()).unwrap_or_default(),
            }),
            Ok(m) => Err(SandboxError::NotRegular {
                path: entry.path().to_path_buf(),
                what: format!("a link to {}", special(m.file_type())),
            }),
            Err(e) => Err(SandboxError::NotRegular {
                path: entry.path().to_path_buf(),
                what: format!(
                    "a link to {} that cannot be followed ({e})",
                    fs::read_link(entry.path()).unwrap_or_default().display()
                ),
            }),
        };
    }
    Err(SandboxError::NotRegular {
        path: entry.path().to_path_buf(),
        what: special(t).to_string(),
    })
}

fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

fn sanitize(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_keeps_hidden_crc_and_empty_files_and_source_is_unchanged() {
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("offsets")).unwrap();
        fs::write(src.path().join("offsets/0"), "v1\n{}\n{\"t\":{\"0\":3}}").unwrap();
        fs::write(src.path().join("offsets/.0.crc"), [0u8, 1, 2]).unwrap();
        fs::write(src.path().join("empty-marker"), "").unwrap();
        let sb = Sandbox::create(src.path(), None, "unit test").unwrap();
        assert_eq!(sb.copy.hashes.files.len(), 3);
        assert!(sb.checkpoint().join("offsets/.0.crc").exists());
        assert!(sb.path().join("eventlog").is_dir());
        assert!(sb.copy.hashes.changes_since(src.path()).unwrap().is_empty());
        fs::write(src.path().join("offsets/0"), "v2").unwrap();
        assert_eq!(
            sb.copy.hashes.changes_since(src.path()).unwrap(),
            vec!["changed offsets/0"]
        );
    }

    /// Issue 26 §6: without `--keep` the sandbox — and the driver log the report pointed to — was
    /// deleted, so a verdict could not be checked afterwards. Under `--report-dir` the logs, the
    /// event log and the logging config stay; the copy, the job, its dependencies, the sink
    /// output go, and a link in the sandbox is removed as a link (its target untouched).
    #[test]
    fn kept_evidence_under_a_report_dir_is_the_logs_without_the_copy() {
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("offsets")).unwrap();
        fs::write(src.path().join("offsets/0"), "v1\n{}\n{}").unwrap();
        let report_dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("data"), "keep me").unwrap();
        let mut sb = Sandbox::create(src.path(), Some(report_dir.path()), "evidence").unwrap();
        fs::write(sb.path().join("logs/driver.log"), "INFO the log\n").unwrap();
        fs::write(sb.path().join("eventlog/app-1"), "{}\n").unwrap();
        fs::write(sb.path().join("output/part-0"), "rows").unwrap();
        fs::create_dir_all(sb.path().join("deps")).unwrap();
        fs::write(sb.path().join("deps/big.jar"), "jar").unwrap();
        std::os::unix::fs::symlink(outside.path(), sb.path().join("job/data")).unwrap();
        let at = sb.keep_evidence().unwrap();
        let path = sb.path().to_path_buf();
        drop(sb);
        assert_eq!(at, path);
        assert_eq!(
            fs::read_to_string(at.join("logs/driver.log")).unwrap(),
            "INFO the log\n"
        );
        assert!(at.join("eventlog/app-1").is_file());
        assert!(at.join("conf").is_dir());
        for gone in ["checkpoint", "output", "job", "deps"] {
            assert!(!at.join(gone).exists(), "{gone} was kept");
        }
        assert_eq!(
            fs::read_to_string(outside.path().join("data")).unwrap(),
            "keep me"
        );
        assert!(
            src.path().join("offsets/0").is_file(),
            "the source is untouched"
        );
    }

    /// Breaker pass, session 13: the job runs as root with the sandbox mounted and planted
    /// `logs/evil.log -> <host secret>`, `conf/evil.conf -> /etc/shadow`; the kept evidence in
    /// the cache held the host's files (mode 644). Nothing planted is followed: a link to a
    /// file, a link in place of a whole kept directory, a FIFO.
    #[test]
    fn kept_evidence_never_follows_what_the_job_planted() {
        let host = tempfile::tempdir().unwrap();
        fs::write(host.path().join("secret"), "HOST-ONLY").unwrap();
        fs::create_dir_all(host.path().join("ssh")).unwrap();
        fs::write(host.path().join("ssh/id_rsa"), "PRIVATE KEY").unwrap();
        let plant = |sandbox: &Path| {
            fs::write(sandbox.join("logs/driver.log"), "INFO the log\n").unwrap();
            std::os::unix::fs::symlink(host.path().join("secret"), sandbox.join("logs/evil.log"))
                .unwrap();
            fs::remove_dir_all(sandbox.join("eventlog")).unwrap();
            std::os::unix::fs::symlink(host.path().join("ssh"), sandbox.join("eventlog")).unwrap();
            let fifo = sandbox.join("conf/fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        };
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("offsets")).unwrap();
        fs::write(src.path().join("offsets/0"), "v1\n{}\n{}").unwrap();
        // The cache's copy: only the regular files below real directories.
        let sb = Sandbox::create(src.path(), None, "planted").unwrap();
        plant(sb.path());
        let dest = tempfile::tempdir().unwrap();
        let mut budget = MAX_EVIDENCE_BYTES;
        for sub in EVIDENCE {
            copy_evidence(&sb.path().join(sub), &dest.path().join(sub), &mut budget).unwrap();
        }
        assert_eq!(
            fs::read_to_string(dest.path().join("logs/driver.log")).unwrap(),
            "INFO the log\n"
        );
        for gone in ["logs/evil.log", "eventlog", "conf/fifo"] {
            assert!(
                fs::symlink_metadata(dest.path().join(gone)).is_err(),
                "{gone} was copied"
            );
        }
        // Under --report-dir: the sandbox stays, what was planted goes.
        let report_dir = tempfile::tempdir().unwrap();
        let mut sb = Sandbox::create(src.path(), Some(report_dir.path()), "planted").unwrap();
        plant(sb.path());
        let at = sb.keep_evidence().unwrap();
        assert!(at.join("logs/driver.log").is_file());
        for gone in ["logs/evil.log", "eventlog", "conf/fifo"] {
            assert!(
                fs::symlink_metadata(at.join(gone)).is_err(),
                "{gone} is left"
            );
        }
        assert_eq!(
            fs::read_to_string(host.path().join("secret")).unwrap(),
            "HOST-ONLY"
        );
        assert!(
            host.path().join("ssh/id_rsa").is_file(),
            "the link's target is untouched"
        );
    }

    /// `<cache>/reports/` keeps the newest [`KEPT_REPORTS`]: a nightly run must not fill the disk.
    #[test]
    fn the_oldest_kept_reports_beyond_the_bound_are_pruned() {
        let root = tempfile::tempdir().unwrap();
        for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
            let d = root.path().join(name);
            fs::create_dir_all(&d).unwrap();
            let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i as u64);
            fs::File::open(&d).unwrap().set_modified(at).unwrap();
        }
        fs::write(root.path().join("not-a-report"), "x").unwrap();
        prune_reports(root.path(), 2);
        let mut left: Vec<String> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["c", "d", "not-a-report"]);
    }

    #[test]
    fn links_to_files_are_copied_as_files_fifos_and_linked_dirs_refused() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("1.delta"), "state bytes").unwrap();
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("state/0/0")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("1.delta"),
            src.path().join("state/0/0/1.delta"),
        )
        .unwrap();
        let sb = Sandbox::create(src.path(), None, "links").unwrap();
        let copied = sb.checkpoint().join("state/0/0/1.delta");
        assert_eq!(fs::read_to_string(&copied).unwrap(), "state bytes");
        assert!(!fs::symlink_metadata(&copied)
            .unwrap()
            .file_type()
            .is_symlink());
        drop(sb);
        // A FIFO, a socket, a link to nothing, a link to a FIFO: refused with the path, by
        // `create` and `copy_tree` alike, and never opened (a FIFO would block the open). One
        // at a time: the walk stops at the first.
        let mkfifo = |p: &Path| {
            let made = std::process::Command::new("mkfifo")
                .arg(p)
                .status()
                .unwrap();
            assert!(made.success());
        };
        let outside_fifo = outside.path().join("pipe");
        mkfifo(&outside_fifo);
        for (entry, what) in [
            ("state/0/0/pipe", "a FIFO"),
            ("state/0/0/s", "a socket"),
            ("state/0/0/gone", "cannot be followed"),
            ("state/0/0/to-pipe", "a link to a FIFO"),
        ] {
            let path = src.path().join(entry);
            let _socket = match what {
                "a FIFO" => {
                    mkfifo(&path);
                    None
                }
                "a socket" => Some(std::os::unix::net::UnixListener::bind(&path).unwrap()),
                "cannot be followed" => {
                    std::os::unix::fs::symlink(outside.path().join("missing"), &path).unwrap();
                    None
                }
                _ => {
                    std::os::unix::fs::symlink(&outside_fifo, &path).unwrap();
                    None
                }
            };
            for err in [
                Sandbox::create(src.path(), None, "special").unwrap_err(),
                copy_tree(src.path(), tempfile::tempdir().unwrap().path()).unwrap_err(),
            ] {
                assert!(matches!(err, SandboxError::NotRegular { .. }), "{err}");
                let text = err.to_string();
                assert!(text.contains(&path.display().to_string()), "{text}");
                assert!(text.contains(what), "{entry}: {text}");
            }
            fs::remove_file(&path).unwrap();
        }
        std::os::unix::fs::symlink(outside.path(), src.path().join("state/0/1")).unwrap();
        let err = Sandbox::create(src.path(), None, "links").unwrap_err();
        assert!(matches!(err, SandboxError::LinkedDirectory { .. }), "{err}");
        assert!(err.to_string().contains("cp -rL"), "{err}");
    }

    #[test]
    fn sandbox_is_removed_on_drop_unless_kept() {
        let src = tempfile::tempdir().unwrap();
        let sb = Sandbox::create(src.path(), None, "drop").unwrap();
        let p = sb.path().to_path_buf();
        drop(sb);
        assert!(!p.exists());
        let mut sb = Sandbox::create(src.path(), None, "keep").unwrap();
        let p = sb.keep();
        drop(sb);
        assert!(p.exists());
        fs::remove_dir_all(p).unwrap();
    }
}
