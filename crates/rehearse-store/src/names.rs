//! Names from a listing or from a checkpoint's own files are untrusted paths: the one rule
//! for a plain relative path below the root, checked before rehearse joins one onto a local
//! directory (issue 25 §1).

/// The longest name one path segment may have on a local filesystem (Linux `NAME_MAX`, ext4,
/// XFS, Btrfs, tmpfs alike), in bytes.
pub const NAME_MAX: usize = 255;

/// Why a path named by a listing (or by a checkpoint's own files) is not a plain relative path
/// below the root; [`CheckpointLocation::unsafe_name`](super::CheckpointLocation::unsafe_name) makes it the store error naming the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsafeName {
    /// The path as the listing gave it.
    pub key: String,
    /// What is wrong with it, a lowercase fragment: `it has a `..` segment`.
    pub reason: String,
}

/// `key` itself when it is a plain relative path: `/`-separated segments, none empty, `.` or
/// `..`, none over [`NAME_MAX`] bytes, no NUL and no backslash, not absolute. The one check
/// every path from a listing or a checkpoint file passes before rehearse joins it onto a local
/// directory: a WebHDFS name `offsets/../../tmp/x` or an S3 key `../x` would otherwise lead out
/// of the copy (issue 25 §1).
///
/// # Errors
/// [`UnsafeName`] with the first reason found.
pub fn safe_relative(key: &str) -> Result<&str, UnsafeName> {
    let refuse = |reason: String| UnsafeName {
        key: key.to_string(),
        reason,
    };
    if key.is_empty() {
        return Err(refuse("it is empty".into()));
    }
    if key.starts_with('/') {
        return Err(refuse("it is an absolute path (it starts with `/`)".into()));
    }
    if key.contains('\0') {
        return Err(refuse("it holds a NUL byte".into()));
    }
    // A newline or an ESC in a name is no Spark file's (breaker pass, session 18: `offsets/9\n
    // x`, `offsets/9\x1b[31mred` were staged as local names and echoed to the terminal).
    if let Some(c) = key.chars().find(|c| c.is_control() && *c != '\0') {
        return Err(refuse(format!(
            "it holds the control character U+{:04X}, which no checkpoint file's name holds",
            c as u32
        )));
    }
    if key.contains('\\') {
        return Err(refuse(
            "it holds a backslash, which some tools read as a path separator".into(),
        ));
    }
    for segment in key.split('/') {
        match segment {
            "" => {
                return Err(refuse(
                    "it has an empty segment (`//`, or a trailing `/`)".into(),
                ))
            }
            "." => return Err(refuse("it has a `.` segment".into())),
            ".." => {
                return Err(refuse(
                    "it has a `..` segment, which would lead out of the checkpoint's copy".into(),
                ))
            }
            s if s.len() > NAME_MAX => {
                return Err(refuse(format!(
                    "one of its names is {} bytes long, over the {NAME_MAX} bytes a local filesystem holds in one name",
                    s.len()
                )))
            }
            _ => {}
        }
    }
    Ok(key)
}

/// The first path of `paths` (sorted or not) that a local copy cannot hold beside the others:
/// one [`safe_relative`] refuses, or a file that is also the directory of another path
/// (`offsets/0` and `offsets/0/x`: a copy would fail half-way with "File exists").
///
/// # Errors
/// [`UnsafeName`] for the first such path.
pub fn safe_listing<'a>(
    paths: impl IntoIterator<Item = &'a str> + Clone,
) -> Result<(), UnsafeName> {
    let mut files = std::collections::HashSet::new();
    for path in paths.clone() {
        files.insert(safe_relative(path)?);
    }
    for path in paths {
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            let dir = &path[..at + i];
            if files.contains(dir) {
                return Err(UnsafeName {
                    key: dir.to_string(),
                    reason: format!(
                        "it is a file, and the listing also names {path:?} inside it as a directory; a local copy cannot hold both"
                    ),
                });
            }
            at += i + 1;
        }
    }
    Ok(())
}
