//! The end-of-run check that the source checkpoint is unchanged ([`verify_source`]): locally by
//! hashing again what was copied, remotely by listing again. Split from `copy.rs`, which makes
//! the [`CopySummary`] this check compares against.

use std::collections::BTreeMap;

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::copy::{
    list_local, local_root, open_source, CopySummary, BUFFER, DEFAULT_PARALLEL_LOCAL,
};
use super::SandboxError;
use rehearse_store::{CheckpointStore, ObjectInfo};

/// Checks the source against what `copied` saw: an empty list means untouched; otherwise one
/// line per difference (`changed offsets/12`, `removed …`, `added …`).
///
/// - Local: the files that were copied are hashed again (blake3, streamed, in parallel) and
///   compared with the hashes of the copy; the directory is listed again for added and removed
///   files, and the files not copied are compared by size and modification time.
/// - Remote: the location is listed again and each file compared by size, ETag, and version id
///   and content MD5 where the backend reports them both times (S3: ETag, version id on
///   versioned buckets; GCS: ETag, generation, MD5; Azure: ETag, MD5; HDFS: size and
///   modification time, as WebHDFS reports no checksum in a listing).
///
/// # Errors
/// [`SandboxError`] when the source cannot be listed or read.
pub async fn verify_source(
    source: &CheckpointStore,
    copied: &CopySummary,
) -> Result<Vec<String>, SandboxError> {
    match local_root(source) {
        Some(root) => {
            let copied = copied.clone();
            tokio::task::spawn_blocking(move || verify_local(&root, &copied))
                .await
                .map_err(|e| SandboxError::Stopped(e.to_string()))?
        }
        None => {
            let now = match source.list().await {
                Ok(now) => now,
                Err(rehearse_store::StoreError::NothingThere { .. }) => Vec::new(),
                Err(e) => return Err(e.into()),
            };
            Ok(compare_listings(&copied.listing, &now, true))
        }
    }
}

/// Differences between two listings: removed, changed (size and every change marker both
/// sides report; modification time only when `mtime`), added.
pub(super) fn compare_listings(
    before: &[ObjectInfo],
    now: &[ObjectInfo],
    mtime: bool,
) -> Vec<String> {
    let now_by: BTreeMap<&str, &ObjectInfo> = now.iter().map(|f| (f.path.as_str(), f)).collect();
    let before_by: BTreeMap<&str, &ObjectInfo> =
        before.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut changes = Vec::new();
    for (path, b) in &before_by {
        match now_by.get(path) {
            None => changes.push(format!("removed {path}")),
            Some(n) => {
                let differs = |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a != b);
                let etag_tags_hdfs = b.etag.is_none() && b.content_md5.is_none();
                if b.size != n.size
                    || differs(&b.etag, &n.etag)
                    || differs(&b.version, &n.version)
                    || differs(&b.content_md5, &n.content_md5)
                    || (mtime
                        && etag_tags_hdfs
                        && b.last_modified.is_some()
                        && b.last_modified != n.last_modified)
                {
                    changes.push(format!("changed {path}"));
                }
            }
        }
    }
    for path in now_by.keys() {
        if !before_by.contains_key(path) {
            changes.push(format!("added {path}"));
        }
    }
    changes
}

fn verify_local(root: &Path, copied: &CopySummary) -> Result<Vec<String>, SandboxError> {
    let (entries, _) = match list_local(root) {
        Ok(l) => l,
        Err(SandboxError::ReadSource { source, .. })
            if source.kind() == io::ErrorKind::NotFound =>
        {
            (Vec::new(), Vec::new())
        }
        Err(e) => return Err(e),
    };
    let now: Vec<ObjectInfo> = entries.into_iter().map(|e| e.info).collect();
    // Added and removed from the listings; changed: the files copied by their hashes, the
    // others by size and modification time.
    let hashed = |c: &str| {
        c.strip_prefix("changed ")
            .is_some_and(|p| copied.hashes.files.contains_key(Path::new(p)))
    };
    let mut changes: Vec<String> = compare_listings(&copied.listing, &now, true)
        .into_iter()
        .filter(|c| !hashed(c))
        .collect();
    let present: std::collections::BTreeSet<&str> = now.iter().map(|f| f.path.as_str()).collect();
    let todo: Vec<(&PathBuf, &String)> = copied
        .hashes
        .files
        .iter()
        .filter(|(p, _)| present.contains(p.to_string_lossy().as_ref()))
        .collect();
    let changed = hash_many(root, &todo)?;
    changes.extend(changed.into_iter().map(|p| format!("changed {p}")));
    changes.sort_by(|a, b| {
        let key = |s: &str| {
            s.split_once(' ')
                .map(|(_, p)| p.to_string())
                .unwrap_or_default()
        };
        key(a).cmp(&key(b))
    });
    Ok(changes)
}

/// Re-hashes `files` under `root` on a few threads; returns the paths whose hash differs.
fn hash_many(root: &Path, files: &[(&PathBuf, &String)]) -> Result<Vec<String>, SandboxError> {
    let queue = Mutex::new(files.iter());
    let changed = Mutex::new(Vec::new());
    let failure: Mutex<Option<SandboxError>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..DEFAULT_PARALLEL_LOCAL.min(files.len().max(1)) {
            s.spawn(|| {
                let mut buf = vec![0u8; BUFFER];
                loop {
                    let Some((rel, want)) = queue.lock().ok().and_then(|mut q| q.next()) else {
                        return;
                    };
                    match hash_path(&root.join(rel), &mut buf) {
                        Ok(h) if &h == *want => {}
                        Ok(_) => {
                            if let Ok(mut c) = changed.lock() {
                                c.push(rel.to_string_lossy().into_owned());
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(changed.into_inner().unwrap_or_default())
}

/// blake3 of a file, streamed through `buf`.
pub(crate) fn hash_path(path: &Path, buf: &mut [u8]) -> Result<String, SandboxError> {
    let mut file = open_source(path)?;
    let mut hasher = blake3::Hasher::new();
    loop {
        let n = file.read(buf).map_err(|source| SandboxError::ReadSource {
            path: path.to_path_buf(),
            source,
        })?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().to_hex().to_string())
}
