//! Reading a file the user named — a scenario, a suite, a `sample_file`, a matrix report to
//! merge, a job's Python files for the generation's cache key: [`read_text`] and [`read_bytes`]
//! are the one way rehearse reads them, [`stream_into`] the one way it hashes a file of any size
//! (a job's jar for the generation's cache key). A leaf module: it imports nothing of rehearse.
//!
//! Each read checks the file before reading a byte of it: it must exist, be a **regular file**
//! (a FIFO would block `open` or `read` forever, `/dev/zero` never ends, a socket or device is no
//! input), and be at most a size bound chosen per kind of input. The file is opened with
//! `O_NONBLOCK` and checked again through the open handle (`fstat`), so a FIFO swapped in after
//! the first check cannot hang the open, and the read itself stops one byte past the bound, so a
//! file that grows while read cannot exhaust memory. Text must be UTF-8: UTF-16 (what PowerShell's
//! `>` and Notepad's "Unicode" write) gets its own message with the fix, "save it as UTF-8".
//!
//! Writing a file the user named — a report (`--junit`, `--markdown`, `--html`), a capture's
//! `<topic>.jsonl`, init's scenario — goes through [`write`] and [`write_with`], the one rule for
//! outputs: an existing FIFO, socket, device or directory at the path is refused (writing to it
//! would block or go nowhere), a symbolic link is never written through but replaced, and the
//! content goes to a temporary file in the same directory renamed over the path once complete
//! (a hard link to another file is never written into, and a failed write leaves the old file).
//!
//! (`checkpoint/loader.rs` reads checkpoint files and `verdict/input.rs` streams logs line by
//! line, each with the same checks and bounds of their own; a checkpoint is not "a file the
//! user named" but a directory Spark wrote.)

use crate::{ErrorKind, HasErrorKind};
use std::fs::{File, Metadata};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bound of a scenario or suite file (TOML): hand-written files are a few kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Bound of a `sample_file` of record values (read whole into memory at load).
pub const MAX_SAMPLE_BYTES: u64 = 64 << 20;
/// Bound of one matrix report (JSON) given to `matrix merge`: a suite of 50,000 cells with
/// evidence is about 60 MB.
pub const MAX_REPORT_BYTES: u64 = 512 << 20;
/// Bound of a job's source file read whole (its Python files beside it, for a cache key).
pub const MAX_JOB_BYTES: u64 = 64 << 20;

/// Why a file the user named could not be read. Each message names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum UserFileError {
    /// Nothing at the path.
    #[error("{what} {} does not exist\n(hint: check the path; relative paths in a scenario or suite are relative to that file)", path.display())]
    Missing {
        /// What the file was meant to be (`scenario`, `sample_file`, …).
        what: String,
        /// The path.
        path: PathBuf,
    },
    /// A directory where a file was expected.
    #[error("{what} {} is a directory, not a file\n(hint: name the file itself)", path.display())]
    Directory {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
    },
    /// A FIFO, socket or device.
    #[error("{what} {} is a {kind}, not a regular file: rehearse reads only regular files (a pipe or device could block or never end)\n(hint: save the content to a file and name that file)", path.display())]
    NotRegular {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
        /// `FIFO`, `socket`, `character device`, `block device`.
        kind: &'static str,
    },
    /// Over the size bound.
    #[error("{what} {} is {size} bytes, over rehearse's limit of {max} bytes for a {what}\n(hint: check it is the file you meant)", path.display())]
    TooBig {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
        /// Its size (at least `max + 1` when it grew while read).
        size: u64,
        /// The bound.
        max: u64,
    },
    /// UTF-16 text (a byte-order mark, or ASCII paired with NUL bytes).
    #[error("{what} {} is UTF-16 text (as PowerShell's `>` or Notepad's \"Unicode\" write it); rehearse reads UTF-8\n(hint: save it as UTF-8, e.g. `iconv -f UTF-16 -t UTF-8`, or Out-File -Encoding utf8)", path.display())]
    Utf16 {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
    },
    /// Not UTF-8.
    #[error("{what} {} is not UTF-8 text (invalid byte at offset {offset})\n(hint: save it as UTF-8)", path.display())]
    NotUtf8 {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The file exists but could not be opened or read (permissions, I/O).
    #[error("cannot read {what} {}: {source}", path.display())]
    Io {
        /// What the file was meant to be.
        what: String,
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl UserFileError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            UserFileError::Missing { path, .. }
            | UserFileError::Directory { path, .. }
            | UserFileError::NotRegular { path, .. }
            | UserFileError::TooBig { path, .. }
            | UserFileError::Utf16 { path, .. }
            | UserFileError::NotUtf8 { path, .. }
            | UserFileError::Io { path, .. } => path,
        }
    }
}

/// The kind of a file that is neither regular nor a directory.
fn special_kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Checks `meta` (of the file at `path`, links followed) is a regular file of at most `max`
/// bytes.
fn check(meta: &Metadata, what: &str, path: &Path, max: u64) -> Result<(), UserFileError> {
    if meta.is_dir() {
        return Err(UserFileError::Directory {
            what: what.into(),
            path: path.into(),
        });
    }
    if !meta.is_file() {
        return Err(UserFileError::NotRegular {
            what: what.into(),
            path: path.into(),
            kind: special_kind(meta),
        });
    }
    if meta.len() > max {
        return Err(UserFileError::TooBig {
            what: what.into(),
            path: path.into(),
            size: meta.len(),
            max,
        });
    }
    Ok(())
}

/// Checks, without opening it, that `path` is a regular file of at most `max` bytes (links
/// followed): for files rehearse passes on rather than reads (a job file, a jar).
pub fn check_regular(path: &Path, what: &str, max: u64) -> Result<(), UserFileError> {
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => UserFileError::Missing {
            what: what.into(),
            path: path.into(),
        },
        _ => UserFileError::Io {
            what: what.into(),
            path: path.into(),
            source,
        },
    })?;
    check(&meta, what, path, max)
}

/// The bytes of the regular file at `path`, at most `max` of them (see the module doc);
/// `what` names the file in errors (`"scenario"`, `"matrix report"`).
pub fn read_bytes(path: &Path, what: &str, max: u64) -> Result<Vec<u8>, UserFileError> {
    check_regular(path, what, max)?;
    let io = |source| UserFileError::Io {
        what: what.into(),
        path: path.into(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    check(&file.metadata().map_err(io)?, what, path, max)?;
    read_bounded(file, what, path, max)
}

/// Streams the bytes of the regular file at `path` into `out` (a hasher), of any size, through
/// a fixed buffer, and returns how many were written: for files rehearse hashes but never holds
/// whole (a job's jar, a `jars` or `requirements` file). The same checks as [`read_bytes`]
/// before and after the non-blocking open, so a FIFO never hangs it.
pub fn stream_into(
    path: &Path,
    what: &str,
    out: &mut dyn std::io::Write,
) -> Result<u64, UserFileError> {
    check_regular(path, what, u64::MAX)?;
    let io = |source| UserFileError::Io {
        what: what.into(),
        path: path.into(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    check(&file.metadata().map_err(io)?, what, path, u64::MAX)?;
    std::io::copy(&mut file, out).map_err(io)
}

fn read_bounded(file: File, what: &str, path: &Path, max: u64) -> Result<Vec<u8>, UserFileError> {
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| UserFileError::Io {
            what: what.into(),
            path: path.into(),
            source,
        })?;
    if bytes.len() as u64 > max {
        return Err(UserFileError::TooBig {
            what: what.into(),
            path: path.into(),
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

/// Whether `bytes` start as UTF-16: a byte-order mark, or the first (up to 64) byte pairs all
/// ASCII paired with a NUL — no UTF-8 text starts so.
pub fn looks_like_utf16(bytes: &[u8]) -> bool {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return true;
    }
    let pairs: Vec<&[u8]> = bytes.chunks_exact(2).take(64).collect();
    if pairs.len() < 2 {
        return false;
    }
    let le = pairs.iter().all(|p| p[1] == 0 && p[0] != 0 && p[0] < 0x80);
    let be = pairs.iter().all(|p| p[0] == 0 && p[1] != 0 && p[1] < 0x80);
    le || be
}

/// [`read_bytes`], as UTF-8 text (a UTF-8 byte-order mark is dropped). UTF-16 and other
/// encodings are refused with the fix.
pub fn read_text(path: &Path, what: &str, max: u64) -> Result<String, UserFileError> {
    let bytes = read_bytes(path, what, max)?;
    if looks_like_utf16(&bytes) {
        return Err(UserFileError::Utf16 {
            what: what.into(),
            path: path.into(),
        });
    }
    let bytes = match bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| UserFileError::NotUtf8 {
        what: what.into(),
        path: path.into(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// What [`write`] does with a regular file (or a link) already at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Refuse it ([`WriteError::Exists`]): `init` and `capture` without `--force`.
    Refuse,
    /// Replace it (the link itself, not what it points at): reports, `--force`.
    Replace,
}

/// Why an output file could not be written. Each message names the file, what is wrong and
/// the fix.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Something is at the path and [`Existing::Refuse`] was asked.
    #[error("{what} {} already exists\n(hint: pass --force to replace it, or choose another path)", path.display())]
    Exists {
        /// What the file is (`JUnit report`, `records file`, …).
        what: String,
        /// The path.
        path: PathBuf,
    },
    /// A directory at the path.
    #[error("{what} {} is a directory, not a file\n(hint: name a file to write, e.g. {}/report)", path.display(), path.display())]
    Directory {
        /// What the file is.
        what: String,
        /// The path.
        path: PathBuf,
    },
    /// A FIFO, socket or device at the path.
    #[error("{what} {} is a {kind}; rehearse writes only regular files (writing to a pipe or device would block or go nowhere)\n(hint: remove it, or choose another path)", path.display())]
    NotRegular {
        /// What the file is.
        what: String,
        /// The path.
        path: PathBuf,
        /// `FIFO (named pipe)`, `socket`, `character device`, `block device`.
        kind: &'static str,
    },
    /// Creating, writing or renaming failed (permissions, a missing directory, a full disk).
    #[error("cannot write {what} {}: {source}\n(hint: check that its directory exists and this user can write there)", path.display())]
    Io {
        /// What the file is.
        what: String,
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Checks what is at `path` before anything is written (see [`write_with`]): nothing, a regular
/// file or a link (refused under [`Existing::Refuse`]); a directory, FIFO, socket or device is
/// refused always. Never follows a link and never opens anything. `capture` calls it for every
/// output before it reads a record.
///
/// # Errors
/// [`WriteError`] naming the path.
pub fn check_writable(path: &Path, what: &str, existing: Existing) -> Result<(), WriteError> {
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(WriteError::Io {
                what: what.into(),
                path: path.into(),
                source,
            })
        }
        Ok(meta) => meta,
    };
    let t = meta.file_type();
    if t.is_dir() {
        return Err(WriteError::Directory {
            what: what.into(),
            path: path.into(),
        });
    }
    if !(t.is_file() || t.is_symlink()) {
        return Err(WriteError::NotRegular {
            what: what.into(),
            path: path.into(),
            kind: special_kind(&meta),
        });
    }
    match existing {
        Existing::Refuse => Err(WriteError::Exists {
            what: what.into(),
            path: path.into(),
        }),
        Existing::Replace => Ok(()),
    }
}

/// Writes `bytes` to `path` by the output rule of the module doc; `what` names the file in
/// errors (`"JUnit report"`).
///
/// # Errors
/// [`WriteError`] naming the path; the file at `path` is then as it was.
pub fn write(path: &Path, what: &str, existing: Existing, bytes: &[u8]) -> Result<(), WriteError> {
    write_with(path, what, existing, |out| out.write_all(bytes))
}

/// [`write`] for streamed output: `fill` writes the content into a buffered writer on the
/// temporary file, which is renamed over `path` only when `fill` returns `Ok`. The new file
/// gets the mode a plain create would (0666 less the umask).
///
/// # Errors
/// [`WriteError`] naming the path: what [`check_writable`] refuses, or an I/O error of `fill`,
/// the temporary file or the rename; the file at `path` is then as it was.
pub fn write_with(
    path: &Path,
    what: &str,
    existing: Existing,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    use std::os::unix::fs::PermissionsExt;
    check_writable(path, what, existing)?;
    let io = |source| WriteError::Io {
        what: what.into(),
        path: path.into(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.as_deref().unwrap_or("rehearse")))
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(io)?;
    let mut out = std::io::BufWriter::new(temp);
    fill(&mut out).map_err(io)?;
    let temp = out.into_inner().map_err(|e| io(e.into_error()))?;
    temp.as_file().sync_all().map_err(io)?;
    let persisted = match existing {
        // Atomic: a file (or link) created at the path meanwhile is not replaced.
        Existing::Refuse => temp.persist_noclobber(path),
        // rename(2) replaces a link itself, never what it points at.
        Existing::Replace => temp.persist(path),
    };
    match persisted {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Err(WriteError::Exists {
            what: what.into(),
            path: path.into(),
        }),
        Err(e) => Err(io(e.error)),
    }
}

/// A file the user names that cannot be read is theirs to fix (exit 3).
impl HasErrorKind for UserFileError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

/// An output the user names that cannot be written (a directory, FIFO or existing file at the
/// path) is theirs to fix (exit 3), as it always was.
impl HasErrorKind for WriteError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        mknodat(CWD, path, FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
    }

    /// Issue 25 §2: outputs never follow a link or block. A link (to a file outside, or to
    /// nothing) is replaced by the file and its target untouched; a FIFO, a device and a
    /// directory are refused at once, naming the path and the kind; `Refuse` keeps an existing
    /// file (or link) as it was; a failed fill leaves the old content and no temporary file.
    #[test]
    fn write_replaces_links_refuses_fifos_devices_and_directories() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("victim");
        std::fs::write(&target, "precious").unwrap();
        let link = dir.path().join("report.md");
        symlink(&target, &link).unwrap();
        write(&link, "Markdown report", Existing::Replace, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");

        let dangling = dir.path().join("t.jsonl");
        symlink(outside.path().join("created"), &dangling).unwrap();
        let e = write(&dangling, "records file", Existing::Refuse, b"x").unwrap_err();
        assert!(matches!(e, WriteError::Exists { .. }), "{e}");
        write(&dangling, "records file", Existing::Replace, b"x").unwrap();
        assert!(!outside.path().join("created").exists());

        let fifo = dir.path().join("pipe.md");
        mkfifo(&fifo);
        let started = std::time::Instant::now();
        let e = write(&fifo, "Markdown report", Existing::Replace, b"x").unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let text = e.to_string();
        assert!(
            matches!(e, WriteError::NotRegular { .. })
                && text.contains("pipe.md")
                && text.contains("FIFO")
                && text.contains("hint:"),
            "{text}"
        );
        let e = write(
            Path::new("/dev/null"),
            "HTML report",
            Existing::Replace,
            b"x",
        )
        .unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let e = write(dir.path(), "JUnit report", Existing::Replace, b"x").unwrap_err();
        assert!(matches!(e, WriteError::Directory { .. }), "{e}");

        let kept = dir.path().join("scenario.toml");
        std::fs::write(&kept, "old").unwrap();
        let e = write(&kept, "--output", Existing::Refuse, b"new").unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        let e = write_with(&kept, "--output", Existing::Replace, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "old");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    /// A hard link to another file is replaced, not written into, and a new file gets the mode
    /// a plain create gives (not the 0600 of a temporary file).
    #[test]
    fn write_never_writes_into_a_hard_link_and_keeps_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("commits-0");
        std::fs::write(&other, "v1").unwrap();
        let out = dir.path().join("out.toml");
        std::fs::hard_link(&other, &out).unwrap();
        write(&out, "--output", Existing::Replace, b"scenario").unwrap();
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "v1");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "scenario");
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let fresh = dir.path().join("fresh.md");
        write(&fresh, "Markdown report", Existing::Refuse, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&fresh), mode(&plain));
    }

    /// Issue 17: a jar over [`MAX_JOB_BYTES`] was refused by the generation's cache key, which
    /// read it whole; streamed, any size hashes (a sparse file of 96 MiB + 1 byte), and a FIFO
    /// is still refused without blocking.
    #[test]
    fn a_file_over_every_read_bound_streams_and_a_fifo_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("big.jar");
        let size = (96 << 20) + 1;
        File::create(&jar).unwrap().set_len(size).unwrap();
        assert!(size > MAX_JOB_BYTES);
        let mut sink = std::io::sink();
        assert_eq!(stream_into(&jar, "job file", &mut sink).unwrap(), size);
        let fifo = dir.path().join("pipe.jar");
        mkfifo(&fifo);
        let e = stream_into(&fifo, "job file", &mut sink).unwrap_err();
        assert!(matches!(e, UserFileError::NotRegular { .. }), "{e}");
    }

    #[test]
    fn a_fifo_a_device_and_a_directory_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("scenario.toml");
        mkfifo(&fifo);
        let e = read_text(&fifo, "scenario", MAX_CONFIG_BYTES).unwrap_err();
        assert!(matches!(e, UserFileError::NotRegular { .. }), "{e}");
        assert!(e.to_string().contains("FIFO") && e.to_string().contains("scenario.toml"));
        let e = read_text(Path::new("/dev/zero"), "suite", MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let e = read_text(dir.path(), "suite", MAX_CONFIG_BYTES).unwrap_err();
        assert!(matches!(e, UserFileError::Directory { .. }), "{e}");
        let e = read_text(&dir.path().join("nope"), "suite", MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }

    #[test]
    fn a_file_over_the_bound_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big.json");
        std::fs::write(&f, vec![b'x'; 11]).unwrap();
        let e = read_bytes(&f, "matrix report", 10).unwrap_err();
        assert!(e.to_string().contains("11 bytes"), "{e}");
        assert_eq!(read_bytes(&f, "matrix report", 11).unwrap().len(), 11);
        // The bound holds on the read itself, not only on the size seen before it.
        let e = read_bounded(File::open(&f).unwrap(), "x", &f, 5).unwrap_err();
        assert!(matches!(e, UserFileError::TooBig { size: 6, .. }), "{e}");
    }

    #[test]
    fn utf16_gets_the_save_as_utf8_hint_and_a_utf8_bom_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.toml");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("name = \"x\"\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        std::fs::write(&f, &utf16).unwrap();
        let e = read_text(&f, "scenario", MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("save it as UTF-8"), "{e}");
        // Without a BOM too.
        std::fs::write(&f, &utf16[2..]).unwrap();
        assert!(matches!(
            read_text(&f, "scenario", MAX_CONFIG_BYTES),
            Err(UserFileError::Utf16 { .. })
        ));
        std::fs::write(&f, b"\xEF\xBB\xBFname = 1").unwrap();
        assert_eq!(
            read_text(&f, "scenario", MAX_CONFIG_BYTES).unwrap(),
            "name = 1"
        );
        std::fs::write(&f, b"name = \xff").unwrap();
        let e = read_text(&f, "scenario", MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("offset 7"), "{e}");
    }
}
