//! The sandbox: a private, hashed copy of the source checkpoint plus everything a trial writes.
//!
//! The source checkpoint is only ever read: [`Sandbox::create`] hashes every source file while
//! copying it, and [`SourceHashes::changes_since`] hashes the source again at the end of a trial, so a
//! report can state that the source was untouched (or fail loudly if it was not). A link to a
//! regular file is copied as the file it points at (Spark reads through it); a link to a
//! directory is refused (it may lead anywhere, `/` included); FIFOs, sockets and devices are
//! skipped, never opened.
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
    /// The copy's hash differs from the source's right after copying.
    #[error("the sandbox copy of {path} differs from the source right after copying (disk or concurrent writer?)")]
    CopyMismatch {
        /// The file, relative to the checkpoint.
        path: PathBuf,
    },
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
        for entry in WalkDir::new(root).follow_links(false).sort_by_file_name() {
            let entry = entry.map_err(|e| SandboxError::ReadSource {
                path: e.path().unwrap_or(root).to_path_buf(),
                source: e.into(),
            })?;
            if !matches!(kind(&entry)?, Kind::File) {
                continue;
            }
            let rel = relative(root, entry.path());
            files.insert(rel, hash_file(entry.path())?);
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
    /// Hashes of the source checkpoint taken while copying it.
    pub source_hashes: SourceHashes,
}

impl Sandbox {
    /// Creates a sandbox under `parent` (or the system temp dir) and copies the checkpoint at
    /// `source` into `checkpoint/`, hashing each file on both sides.
    pub fn create(
        source: &Path,
        parent: Option<&Path>,
        label: &str,
    ) -> Result<Sandbox, SandboxError> {
        let prefix = format!("rehearse-{}-", sanitize(label));
        let builder = {
            let mut b = tempfile::Builder::new();
            b.prefix(&prefix);
            b
        };
        let base = parent
            .map(Path::to_path_buf)
            .unwrap_or_else(std::env::temp_dir);
        fs::create_dir_all(&base).map_err(|source| SandboxError::Write {
            path: base.clone(),
            source,
        })?;
        let dir = builder
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
        let source_hashes = copy_tree(source, &path.join("checkpoint"))?;
        Ok(Sandbox {
            dir: Some(dir),
            path,
            source_hashes,
        })
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
}

/// Copies `from` into `to` (which exists), hashing each file on both sides; returns the hashes
/// of the source files. Directories and empty files (Hadoop markers) are kept; `.crc` side files
/// are ordinary files here. A link to a regular file is copied as that file; a link to a
/// directory is [`SandboxError::LinkedDirectory`]; FIFOs, sockets and devices are skipped.
pub fn copy_tree(from: &Path, to: &Path) -> Result<SourceHashes, SandboxError> {
    let mut files = BTreeMap::new();
    for entry in WalkDir::new(from).follow_links(false).sort_by_file_name() {
        let entry = entry.map_err(|e| SandboxError::ReadSource {
            path: e.path().unwrap_or(from).to_path_buf(),
            source: e.into(),
        })?;
        let rel = relative(from, entry.path());
        let dest = to.join(&rel);
        let kind = kind(&entry)?;
        if matches!(kind, Kind::Dir) {
            fs::create_dir_all(&dest).map_err(|source| SandboxError::Write {
                path: dest.clone(),
                source,
            })?;
        } else if matches!(kind, Kind::File) {
            let bytes = fs::read(entry.path()).map_err(|source| SandboxError::ReadSource {
                path: entry.path().to_path_buf(),
                source,
            })?;
            let hash = blake3::hash(&bytes).to_hex().to_string();
            fs::write(&dest, &bytes).map_err(|source| SandboxError::Write {
                path: dest.clone(),
                source,
            })?;
            if hash_file(&dest)? != hash {
                return Err(SandboxError::CopyMismatch { path: rel });
            }
            files.insert(rel, hash);
        }
    }
    Ok(SourceHashes { files })
}

/// What a walked entry is to a copy: a file to read (a regular file, or a link to one), a
/// directory, or something to skip (FIFO, socket, device, dangling link). A link to a
/// directory is an error.
enum Kind {
    File,
    Dir,
    Skip,
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
            _ => Ok(Kind::Skip),
        };
    }
    Ok(Kind::Skip)
}

fn hash_file(path: &Path) -> Result<String, SandboxError> {
    let bytes = fs::read(path).map_err(|source| SandboxError::ReadSource {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(blake3::hash(&bytes).to_hex().to_string())
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
        assert_eq!(sb.source_hashes.files.len(), 3);
        assert!(sb.checkpoint().join("offsets/.0.crc").exists());
        assert!(sb.path().join("eventlog").is_dir());
        assert!(sb
            .source_hashes
            .changes_since(src.path())
            .unwrap()
            .is_empty());
        fs::write(src.path().join("offsets/0"), "v2").unwrap();
        assert_eq!(
            sb.source_hashes.changes_since(src.path()).unwrap(),
            vec!["changed offsets/0"]
        );
    }

    #[test]
    fn links_to_files_are_copied_as_files_fifos_skipped_linked_dirs_refused() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("1.delta"), "state bytes").unwrap();
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("state/0/0")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("1.delta"),
            src.path().join("state/0/0/1.delta"),
        )
        .unwrap();
        let fifo = src.path().join("state/0/0/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let sb = Sandbox::create(src.path(), None, "links").unwrap();
        let copied = sb.checkpoint().join("state/0/0/1.delta");
        assert_eq!(fs::read_to_string(&copied).unwrap(), "state bytes");
        assert!(!fs::symlink_metadata(&copied)
            .unwrap()
            .file_type()
            .is_symlink());
        if made.is_ok_and(|s| s.success()) {
            assert!(!sb.checkpoint().join("state/0/0/pipe").exists());
        }
        drop(sb);
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
