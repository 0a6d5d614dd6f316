//! The only code of the checkpoint model that touches the file system: list the tree once and
//! read single files, bounded.
//!
//! Read-only: files are opened for reading, nothing is created, renamed or locked. Links inside
//! the checkpoint are listed but never followed (a link could lead out of the checkpoint, or in a
//! circle); only the path given by the user is resolved.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::error::CheckpointError;

/// Cap on any file read: a Spark log file is a few KiB (a Kafka offset line with thousands of
/// partitions stays well under 1 MiB). Anything larger is reported, not read.
pub const READ_CAP: u64 = 16 * 1024 * 1024;

/// What a directory entry is, as the listing saw it (without following links).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    Dir,
    Symlink,
    /// FIFO, socket, device.
    Other,
}

/// One entry under the checkpoint root: its path relative to the root, `/`-separated.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub rel: String,
    pub kind: EntryKind,
}

/// Every entry under the checkpoint root, plus the directories that could not be listed.
#[derive(Debug)]
pub(crate) struct Listing {
    pub root: PathBuf,
    pub entries: Vec<Entry>,
    pub unlisted: Vec<(String, io::Error)>,
}

/// Why one file could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    TooLarge(u64),
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge(size) => write!(
                f,
                "it is {size} bytes, over the {READ_CAP}-byte cap for a checkpoint file"
            ),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
const ELOOP: i32 = 40;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const ELOOP: i32 = 62;

/// Checks the root and lists everything under it (names only, no `stat` per file where the file
/// system reports entry types).
pub(crate) fn list(root: &Path) -> Result<Listing, CheckpointError> {
    let path = root.to_path_buf();
    match fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(CheckpointError::NotADirectory { path }),
        Err(e) if e.raw_os_error() == Some(ELOOP) => {
            return Err(CheckpointError::SymlinkLoop { path })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A dangling link is "not found" too; say which.
            return Err(CheckpointError::NotFound { path });
        }
        Err(source) => return Err(CheckpointError::Unreadable { path, source }),
    }
    let mut listing = Listing {
        root: path.clone(),
        entries: Vec::new(),
        unlisted: Vec::new(),
    };
    let top = fs::read_dir(root).map_err(|source| CheckpointError::Unreadable {
        path: path.clone(),
        source,
    })?;
    let mut stack: Vec<(String, fs::ReadDir)> = vec![(String::new(), top)];
    while let Some((prefix, dir)) = stack.pop() {
        for item in dir {
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    listing
                        .unlisted
                        .push((prefix.trim_end_matches('/').to_string(), e));
                    break;
                }
            };
            let name = item.file_name();
            let name = name.to_string_lossy();
            let rel = format!("{prefix}{name}");
            let kind = match item.file_type() {
                Ok(t) if t.is_symlink() => EntryKind::Symlink,
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_file() => EntryKind::File,
                Ok(_) => EntryKind::Other,
                Err(e) => {
                    listing.unlisted.push((rel, e));
                    continue;
                }
            };
            if kind == EntryKind::Dir {
                match fs::read_dir(item.path()) {
                    Ok(sub) => stack.push((format!("{rel}/"), sub)),
                    Err(e) => listing.unlisted.push((rel.clone(), e)),
                }
            }
            listing.entries.push(Entry { rel, kind });
        }
    }
    Ok(listing)
}

/// Reads one file under the root, refusing files over [`READ_CAP`].
pub(crate) fn read_bounded(root: &Path, rel: &str) -> Result<Vec<u8>, ReadError> {
    let mut file = fs::File::open(root.join(rel)).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    if size > READ_CAP {
        return Err(ReadError::TooLarge(size));
    }
    let mut buf = Vec::with_capacity(size as usize + 1);
    // `take` guards against a file that grows while it is read.
    file.by_ref()
        .take(READ_CAP + 1)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > READ_CAP {
        return Err(ReadError::TooLarge(buf.len() as u64));
    }
    Ok(buf)
}
