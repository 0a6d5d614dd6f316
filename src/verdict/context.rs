//! Reads the few facts a classifier needs from a checkpoint directory: query id, last
//! committed and pending batch, the committed offsets per source, the stateful operator ids.
//!
//! A stopgap for `rehearse classify --checkpoint` until `checkpoint::inspect` offers
//! `Inspection::trial_context()`; switch the caller then and delete this file. Reads only;
//! never writes, never follows links out of the directory, and reads at most the
//! `metadata` file and one `offsets/N` file.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{BatchId, TrialContext};

/// Why the checkpoint directory could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The path is missing, unreadable or not a directory.
    #[error("checkpoint {path} cannot be read as a directory")]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The directory has no `offsets/` log, so it is not a streaming checkpoint.
    #[error("{path} has no offsets/ directory\n(hint: give the query's checkpointLocation, the directory holding metadata, offsets/ and commits/)")]
    NotACheckpoint {
        /// The path given.
        path: PathBuf,
    },
}

/// Builds the [`TrialContext`] of the checkpoint at `dir` (read-only).
pub fn trial_context_from_dir(dir: &Path) -> Result<TrialContext, ContextError> {
    let unreadable = |source| ContextError::Unreadable {
        path: dir.to_path_buf(),
        source,
    };
    let meta = std::fs::symlink_metadata(dir).map_err(unreadable)?;
    if !meta.is_dir() {
        return Err(unreadable(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a directory",
        )));
    }
    let offsets_dir = dir.join("offsets");
    if !offsets_dir.is_dir() {
        return Err(ContextError::NotACheckpoint {
            path: dir.to_path_buf(),
        });
    }
    let offsets = batch_ids(&offsets_dir);
    let commits = batch_ids(&dir.join("commits"));
    let last_committed = commits.iter().max().copied();
    let last_offsets = offsets.iter().max().copied();
    let pending = match (last_offsets, last_committed) {
        (Some(o), Some(c)) if o > c => Some(o),
        (Some(o), None) => Some(o),
        _ => None,
    };
    let committed_offsets = last_committed
        .and_then(|c| std::fs::read_to_string(offsets_dir.join(c.to_string())).ok())
        .map(|text| source_offsets(&text))
        .unwrap_or_default();
    let query_id = std::fs::read_to_string(dir.join("metadata"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(t.trim()).ok())
        .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_owned));
    let mut operator_ids: Vec<u32> = std::fs::read_dir(dir.join("state"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .collect();
    operator_ids.sort_unstable();
    Ok(TrialContext {
        query_id,
        last_committed_batch: last_committed.map(BatchId),
        pending_batch: pending.map(BatchId),
        committed_offsets,
        operator_ids,
    })
}

/// Decimal file names of a metadata log directory (`.crc` and temp files skipped).
fn batch_ids(dir: &Path) -> Vec<u64> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .collect()
}

/// Source lines of an `offsets/N` file: `v1`, metadata, then one offset per source (`-` for
/// none); in `v2` (4.2+) each line is `<sourceId>:<offset>`.
fn source_offsets(text: &str) -> Vec<Option<Value>> {
    let mut lines = text.lines();
    let v2 = lines.next().is_some_and(|v| v.trim() == "v2");
    lines.next();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let l = if v2 {
                l.split_once(':').map_or(l, |(_, rest)| rest)
            } else {
                l
            };
            match l.trim() {
                "-" => None,
                json => Some(
                    serde_json::from_str(json).unwrap_or_else(|_| Value::String(json.to_owned())),
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_file_sources() {
        let v1 = "v1\n{\"batchWatermarkMs\":0}\n{\"t\":{\"0\":42}}\n-";
        assert_eq!(
            source_offsets(v1),
            vec![Some(serde_json::json!({"t":{"0":42}})), None]
        );
        let v2 = "v2\n{}\n0:{\"logOffset\":2}";
        assert_eq!(
            source_offsets(v2),
            vec![Some(serde_json::json!({"logOffset":2}))]
        );
    }
}
