//! The only code of the checkpoint model that touches the file system or a checkpoint store:
//! list the tree once and read single files, bounded.
//!
//! Read-only: files are opened for reading, nothing is created, renamed or locked. A link inside
//! the checkpoint is `stat`ed to learn what it points to: a link to a regular file is read like
//! the file (Hadoop's local file system, and so Spark, reads through it); a link to a directory
//! is never walked (it could lead out of the checkpoint, or in a circle). Nothing that is not a
//! regular file (FIFO, socket, device) is ever opened: opening a FIFO for reading blocks.
//!
//! A remote checkpoint ([`list_store`]) is listed once through [`CheckpointStore::list`] (one
//! recursive listing: sizes come with it) and each file the inspection parses is read whole
//! through [`CheckpointStore::read_small`], capped at [`READ_CAP`]; a file the listing shows
//! larger than that is never requested. The store client has no write operation.
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::error::CheckpointError;
use rehearse_store::CheckpointStore;

/// Cap on any file read, to bound memory: Spark has no such cap, and a Spark log or metadata file
/// is a few KiB (a Kafka offset line with thousands of partitions stays well under 1 MiB), so a
/// file over 256 MiB is not one Spark wrote. It is reported, not read.
pub const READ_CAP: u64 = 256 * 1024 * 1024;

/// What a directory entry is, as the listing saw it (a link is not walked, only `stat`ed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    Dir,
    /// A symbolic link, and what it points to.
    Symlink(LinkTarget),
    /// FIFO, socket, device.
    Other,
}

/// What a symbolic link inside the checkpoint points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkTarget {
    /// A regular file: Spark reads through the link, and so does inspect.
    File,
    /// A directory: not walked.
    Dir,
    /// A FIFO, socket or device: never opened.
    Other,
    /// Nothing (dangling), a loop, or a target that cannot be `stat`ed.
    Broken,
}

impl EntryKind {
    /// A regular file, or a link to one: a file Spark can read.
    pub(crate) fn is_readable_file(self) -> bool {
        matches!(self, EntryKind::File | EntryKind::Symlink(LinkTarget::File))
    }

    /// A FIFO, socket or device, or a link to one: Spark's file listing shows it as a file, but
    /// it holds no data and must never be opened.
    pub(crate) fn is_special(self) -> bool {
        matches!(
            self,
            EntryKind::Other | EntryKind::Symlink(LinkTarget::Other)
        )
    }

    /// Whatever Spark's listing (Hadoop's local file system) shows as a file: a regular file,
    /// a special file, or a link to either. Spark takes such a name for the file it names.
    pub(crate) fn is_file_like(self) -> bool {
        self.is_readable_file() || self.is_special()
    }
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
    /// The directory, or the URL of a remote checkpoint (as a path, for reports).
    pub root: PathBuf,
    pub entries: Vec<Entry>,
    pub unlisted: Vec<(String, io::Error)>,
    /// Where the files are read from: the directory `root`, or a store.
    pub source: Source,
}

/// Where a [`Listing`]'s files are read from.
#[derive(Debug, Default)]
pub(crate) enum Source {
    /// The local directory `root`.
    #[default]
    Local,
    /// A checkpoint store (a remote location).
    Store(Box<StoreSource>),
}

/// A store to read through, from a blocking thread.
#[derive(Debug)]
pub(crate) struct StoreSource {
    store: CheckpointStore,
    handle: tokio::runtime::Handle,
    /// Size of every listed file, by relative path.
    sizes: HashMap<String, u64>,
    /// Every read made: relative path and bytes received.
    reads: Arc<Mutex<Vec<(String, u64)>>>,
}

impl Listing {
    /// Reads one listed file, bounded by [`READ_CAP`]: from the directory, or through the store
    /// (then from a blocking thread: [`tokio::runtime::Handle::block_on`]).
    pub(crate) fn read(&self, rel: &str) -> Result<Vec<u8>, ReadError> {
        let remote = match &self.source {
            Source::Local => return read_bounded(&self.root, rel),
            Source::Store(remote) => remote,
        };
        let Some(&size) = remote.sizes.get(rel) else {
            return Err(ReadError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                "not in the listing",
            )));
        };
        if size > READ_CAP {
            return Err(ReadError::TooLarge(size));
        }
        let bytes = remote
            .handle
            .block_on(remote.store.read_small(rel, READ_CAP))
            .map_err(|e| {
                // The message's first line: the hint is about the whole location, not one file.
                let text = e.to_string();
                let first = text.lines().next().unwrap_or_default().to_string();
                ReadError::Io(io::Error::other(first))
            })?;
        if let Ok(mut reads) = remote.reads.lock() {
            reads.push((rel.to_string(), bytes.len() as u64));
        }
        Ok(bytes)
    }

    /// How to name a directory below the root in a message: `a/b/` for a local checkpoint, the
    /// full URL (`s3://bucket/prefix/a/b/`) for a remote one, so it can be passed on as is.
    pub(crate) fn child_name(&self, rel: &str) -> String {
        match self.source {
            Source::Local => format!("{rel}/"),
            Source::Store(_) => format!("{}/{rel}/", self.root.display()),
        }
    }
}

/// Lists a remote checkpoint once through `store` (recursively, sizes included). Directories
/// are what the object paths imply (object stores have none of their own). Returns the listing,
/// ready to be read from a blocking thread of the current tokio runtime, and the log its reads
/// are recorded in.
///
/// # Errors
/// [`CheckpointError::Store`] when the listing fails (no such bucket, nothing at the prefix,
/// credentials, network).
#[allow(clippy::type_complexity)]
pub(crate) async fn list_store(
    store: &CheckpointStore,
) -> Result<(Listing, Arc<Mutex<Vec<(String, u64)>>>), CheckpointError> {
    let objects = store.list().await?;
    let mut dirs = std::collections::BTreeSet::new();
    let mut sizes = HashMap::with_capacity(objects.len());
    for object in &objects {
        let mut at = 0;
        while let Some(i) = object.path[at..].find('/') {
            dirs.insert(object.path[..at + i].to_string());
            at += i + 1;
        }
        sizes.insert(object.path.clone(), object.size);
    }
    let mut entries: Vec<Entry> = dirs
        .into_iter()
        .map(|rel| Entry {
            rel,
            kind: EntryKind::Dir,
        })
        .chain(objects.into_iter().map(|o| Entry {
            rel: o.path,
            kind: EntryKind::File,
        }))
        .collect();
    // As the local listing does: the entries of one directory contiguous (the `.crc` check
    // compares a side file with its own directory's entries only).
    let parent = |rel: &str| rel.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    entries.sort_by_cached_key(|e| (parent(&e.rel), e.rel.clone()));
    let reads = Arc::new(Mutex::new(Vec::new()));
    let listing = Listing {
        root: PathBuf::from(store.location().to_string()),
        entries,
        unlisted: Vec::new(),
        source: Source::Store(Box::new(StoreSource {
            store: store.clone(),
            handle: tokio::runtime::Handle::current(),
            sizes,
            reads: Arc::clone(&reads),
        })),
    };
    Ok((listing, reads))
}

/// Why one file could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    TooLarge(u64),
    /// A FIFO, socket or device (or a link to one): not opened.
    NotRegular,
    Io(io::Error),
}

impl ReadError {
    /// The finding code of a file that could not be read.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            ReadError::TooLarge(_) => "file-too-large",
            ReadError::NotRegular => "not-a-regular-file",
            ReadError::Io(_) => "file-unreadable",
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge(size) => write!(
                f,
                "it is {size} bytes, more than the {} MiB rehearse reads of one file; Spark has no such cap, but it writes a few KiB here, so the file is damaged or not Spark's",
                READ_CAP / (1024 * 1024)
            ),
            ReadError::NotRegular => write!(
                f,
                "it is not a regular file (a FIFO, socket or device) and was not opened"
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
        source: Source::Local,
    };
    let top = fs::read_dir(root).map_err(|source| CheckpointError::Unreadable {
        path: path.clone(),
        source,
    })?;
    // Directories still to list are queued by name, never as open handles: one directory is
    // open at a time, so thousands of state partitions cannot exhaust the open-file limit
    // (`ulimit -n`). Each directory is listed whole before the next one is opened, so the
    // entries of a directory stay contiguous in the listing.
    let mut queue: Vec<String> = Vec::new();
    list_dir(&mut listing, "", top, &mut queue);
    while let Some(rel) = queue.pop() {
        match fs::read_dir(root.join(&rel)) {
            Ok(dir) => list_dir(&mut listing, &format!("{rel}/"), dir, &mut queue),
            Err(e) => listing.unlisted.push((rel, e)),
        }
    }
    Ok(listing)
}

/// Adds the entries of one open directory (`prefix`: its path under the root plus `/`, or empty
/// for the root) to the listing, and queues its subdirectories; the handle is closed on return.
fn list_dir(listing: &mut Listing, prefix: &str, dir: fs::ReadDir, queue: &mut Vec<String>) {
    let mut subdirs = Vec::new();
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
            Ok(t) if t.is_symlink() => EntryKind::Symlink(link_target(&item.path())),
            Ok(t) if t.is_dir() => EntryKind::Dir,
            Ok(t) if t.is_file() => EntryKind::File,
            Ok(_) => EntryKind::Other,
            Err(e) => {
                listing.unlisted.push((rel, e));
                continue;
            }
        };
        if kind == EntryKind::Dir {
            subdirs.push(rel.clone());
        }
        listing.entries.push(Entry { rel, kind });
    }
    // Reversed, so that popping the queue lists them in the order they were found.
    queue.extend(subdirs.into_iter().rev());
}

/// What a link points to, by one `stat` of its target (never opened, never walked).
fn link_target(path: &Path) -> LinkTarget {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => LinkTarget::File,
        Ok(meta) if meta.is_dir() => LinkTarget::Dir,
        Ok(_) => LinkTarget::Other,
        Err(_) => LinkTarget::Broken,
    }
}

/// The nearest local ancestor of `dir` (up to four levels up) that looks like a checkpoint —
/// it holds an `offsets/` or `commits/` directory — for a user who passed one of a checkpoint's
/// own subdirectories (`ck/offsets`, `ck/state/0`). Only `stat`s, never opens.
pub(crate) fn enclosing_checkpoint(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().skip(1).take(4).find_map(|a| {
        let is_dir = |name: &str| fs::symlink_metadata(a.join(name)).is_ok_and(|m| m.is_dir());
        (is_dir("offsets") || is_dir("commits")).then(|| a.to_path_buf())
    })
}

/// Reads one file under the root (through a link to a regular file), refusing files over
/// [`READ_CAP`] and anything that is not a regular file: that is checked before opening, and the
/// open itself is non-blocking, so a FIFO put in place meanwhile cannot hang the read either.
pub(crate) fn read_bounded(root: &Path, rel: &str) -> Result<Vec<u8>, ReadError> {
    let path = root.join(rel);
    if !fs::metadata(&path).map_err(ReadError::Io)?.is_file() {
        return Err(ReadError::NotRegular);
    }
    let mut file = open_nonblocking(&path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    let size = meta.len();
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

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; it
    // changes nothing for a regular file.
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    fs::File::open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_are_classified_by_target_and_special_files_are_never_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::write(root.join("real"), "v1\n{}").unwrap();
        fs::create_dir(root.join("dir")).unwrap();
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        mknodat(
            CWD,
            root.join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        for (name, target) in [
            ("to-file", "real"),
            ("to-dir", "dir"),
            ("to-fifo", "fifo"),
            ("dangling", "nothing"),
            ("loop", "loop"),
        ] {
            std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        }
        let listing = list(root).unwrap();
        let kind = |rel: &str| {
            listing
                .entries
                .iter()
                .find(|e| e.rel == rel)
                .map(|e| e.kind)
                .unwrap()
        };
        assert_eq!(kind("to-file"), EntryKind::Symlink(LinkTarget::File));
        assert_eq!(kind("to-dir"), EntryKind::Symlink(LinkTarget::Dir));
        assert_eq!(kind("to-fifo"), EntryKind::Symlink(LinkTarget::Other));
        assert_eq!(kind("dangling"), EntryKind::Symlink(LinkTarget::Broken));
        assert_eq!(kind("loop"), EntryKind::Symlink(LinkTarget::Broken));
        assert_eq!(kind("fifo"), EntryKind::Other);
        assert_eq!(read_bounded(root, "to-file").unwrap(), b"v1\n{}");
        // Neither blocks: a FIFO without a writer is refused before it is opened.
        assert!(matches!(
            read_bounded(root, "fifo"),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_bounded(root, "to-fifo"),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_bounded(root, "to-dir"),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_bounded(root, "dangling"),
            Err(ReadError::Io(_))
        ));
    }
}
