//! Rebasing Kafka offsets in the sandbox copy of a checkpoint, when producing every record up to
//! the production offsets would be too slow (production offsets are often 10⁸–10¹⁰).
//!
//! For each topic-partition a base is chosen: the lowest offset any retained `offsets/N` file
//! names for it. Every retained offset log file of the SANDBOX copy is rewritten with
//! `offset - base`, so batch-to-batch differences (what each batch reads) are kept, and the
//! sandbox Kafka only needs `max - base` filler records. Hadoop's `.N.crc` side file of a
//! rewritten file is removed: its checksum would no longer match and a local-filesystem read
//! would fail with a ChecksumException. The source checkpoint is never touched.

use std::path::Path;

use rehearse_checkpoint::{parse_offset_log, KafkaOffsets, KafkaSourceOffset};

/// What a rebase did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rebase {
    /// Per topic-partition, the base subtracted.
    pub bases: KafkaOffsets,
    /// Offset log files rewritten (batch ids).
    pub files: Vec<u64>,
}

/// Why rebasing failed.
#[derive(Debug, thiserror::Error)]
pub enum RebaseError {
    /// An offset log file could not be read or written.
    #[error("cannot rebase {path}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An offset log file could not be parsed.
    #[error("cannot rebase {path}: {message}")]
    Parse {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Whether rebasing is needed: some partition would need more than `threshold` filler records.
pub fn needed(required: &KafkaOffsets, threshold: u64) -> bool {
    required
        .values()
        .flat_map(|p| p.values())
        .any(|o| *o > 0 && *o as u64 > threshold)
}

/// The base per topic-partition: the lowest offset any retained offset log file names.
pub fn bases(offsets_dir: &Path) -> Result<KafkaOffsets, RebaseError> {
    let mut bases = KafkaOffsets::new();
    for (_, file) in offset_files(offsets_dir)? {
        for source in file.sources() {
            if let Some(k) = source.kafka() {
                for (topic, parts) in k.offsets() {
                    for (p, o) in parts {
                        if o >= 0 {
                            let e = bases
                                .entry(topic.clone())
                                .or_default()
                                .entry(p)
                                .or_insert(o);
                            *e = (*e).min(o);
                        }
                    }
                }
            }
        }
    }
    Ok(bases)
}

/// Rewrites every offset log file under `checkpoint/offsets` with Kafka offsets minus their
/// partition's base. Only ever call this on a sandbox copy.
pub fn rebase(checkpoint: &Path) -> Result<Rebase, RebaseError> {
    let dir = checkpoint.join("offsets");
    let bases = bases(&dir)?;
    let mut files = Vec::new();
    for (batch, mut file) in offset_files(&dir)? {
        let mut changed = false;
        for source in file.sources_mut() {
            if let Some(k) = source.kafka() {
                let mut rebased: KafkaSourceOffset = k.clone();
                for (topic, parts) in k.offsets() {
                    for (p, o) in parts {
                        let base = bases
                            .get(&topic)
                            .and_then(|m| m.get(&p))
                            .copied()
                            .unwrap_or(0);
                        if o >= 0 && base > 0 {
                            rebased.set(&topic, p, o - base);
                            changed = true;
                        }
                    }
                }
                source.set_kafka(&rebased);
            }
        }
        if changed {
            let path = dir.join(batch.to_string());
            std::fs::write(&path, file.to_text()).map_err(|source| RebaseError::Io {
                path: path.clone(),
                source,
            })?;
            let crc = dir.join(format!(".{batch}.crc"));
            if crc.exists() {
                std::fs::remove_file(&crc)
                    .map_err(|source| RebaseError::Io { path: crc, source })?;
            }
            files.push(batch);
        }
    }
    Ok(Rebase { bases, files })
}

fn offset_files(dir: &Path) -> Result<Vec<(u64, rehearse_checkpoint::OffsetLogFile)>, RebaseError> {
    let entries = std::fs::read_dir(dir).map_err(|source| RebaseError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(batch) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(|source| RebaseError::Io {
            path: path.clone(),
            source,
        })?;
        let file = parse_offset_log(&text).map_err(|e| RebaseError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        out.push((batch, file));
    }
    out.sort_by_key(|(b, _)| *b);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#"{"batchWatermarkMs":0,"batchTimestampMs":1,"conf":{"spark.sql.shuffle.partitions":"2"}}"#;

    #[test]
    fn rebase_keeps_batch_differences_and_drops_stale_crc() {
        let dir = tempfile::tempdir().unwrap();
        let offsets = dir.path().join("offsets");
        std::fs::create_dir_all(&offsets).unwrap();
        std::fs::write(
            offsets.join("7"),
            format!("v1\n{META}\n{{\"events\":{{\"1\":9000000100,\"0\":5000000000}}}}"),
        )
        .unwrap();
        std::fs::write(
            offsets.join("8"),
            format!("v1\n{META}\n{{\"events\":{{\"1\":9000000150,\"0\":5000000020}}}}"),
        )
        .unwrap();
        std::fs::write(offsets.join(".8.crc"), [1u8, 2]).unwrap();
        let mut required = KafkaOffsets::new();
        required
            .entry("events".into())
            .or_default()
            .insert(1, 9_000_000_150);
        assert!(needed(&required, 2_000_000));
        let r = rebase(dir.path()).unwrap();
        assert_eq!(r.files, vec![7, 8]);
        assert_eq!(r.bases["events"][&1], 9_000_000_100);
        assert_eq!(
            std::fs::read_to_string(offsets.join("8")).unwrap(),
            format!("v1\n{META}\n{{\"events\":{{\"1\":50,\"0\":20}}}}"),
            "written order and every other byte kept"
        );
        assert_eq!(
            std::fs::read_to_string(offsets.join("7")).unwrap(),
            format!("v1\n{META}\n{{\"events\":{{\"1\":0,\"0\":0}}}}")
        );
        assert!(!offsets.join(".8.crc").exists());
    }

    #[test]
    fn small_offsets_need_no_rebase() {
        let mut required = KafkaOffsets::new();
        required.entry("t".into()).or_default().insert(0, 15);
        assert!(!needed(&required, 2_000_000));
    }
}
