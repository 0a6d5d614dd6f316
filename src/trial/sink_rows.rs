//! What a restart wrote to file sinks under its sandbox's `{output}` directory, as rows for the
//! parity comparison (issue 13 §3). The directory is created empty for each trial, so every
//! file in it was written after the restart began; where a sink keeps its `_spark_metadata`
//! log (Spark's `FileStreamSinkLog`: one `v1` header line, then one JSON `SinkFileStatus` per
//! line, `path` the file's URI; `N.compact` files repeat the earlier batches' entries), only
//! the files that log names count — the files of a committed batch, not a task's leftovers.
//! JSON and CSV files are read line by line; Parquet, ORC, Avro and compressed files are not
//! read (no reader here) and are reported as such. Reads only; never writes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::parity::RowSet;

/// Most bytes read from one sink's files for a comparison.
const MAX_SINK_BYTES: u64 = 256 * 1024 * 1024;

/// One row set per directory under `output` that holds a file sink's files (a `_spark_metadata`
/// directory, or data files), named `file sink output/<dir>`; empty when nothing is there.
pub fn file_sink_rows(output: &Path) -> Vec<RowSet> {
    let mut dirs = BTreeSet::new();
    // Never through a link: the job ran as root with the sandbox mounted, so `output` itself
    // may be a link it planted to a host directory (breaker pass, session 13). Links below it
    // are not files here either (their file type is a link).
    for e in walkdir::WalkDir::new(output)
        .follow_links(false)
        .follow_root_links(false)
        .into_iter()
        .flatten()
    {
        let p = e.path();
        if e.file_type().is_dir() && p.file_name().is_some_and(|n| n == "_spark_metadata") {
            if let Some(parent) = p.parent() {
                dirs.insert(parent.to_path_buf());
            }
        } else if e.file_type().is_file() && is_data_file(p) && !under_metadata(p, output) {
            // The sink directory of a data file: the nearest ancestor with _spark_metadata, else
            // its own directory (a partitioned sink's files sit in col=value/ subdirectories).
            let dir = p
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(output))
                .find(|a| a.join("_spark_metadata").is_dir())
                .or_else(|| {
                    // Above its `col=value` partition directories.
                    p.ancestors()
                        .skip(1)
                        .take_while(|a| a.starts_with(output))
                        .find(|a| {
                            !a.file_name()
                                .is_some_and(|n| n.to_string_lossy().contains('='))
                        })
                })
                .map(Path::to_path_buf);
            if let Some(d) = dir {
                dirs.insert(d);
            }
        }
    }
    // A partitioned sink without a log is one set too: its directory above the `col=value`
    // ones, whose values each row then carries.
    dirs.into_iter().map(|d| sink_rows(output, &d)).collect()
}

/// `1 file`, `3 files`.
fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

/// Whether `p` is inside a `_spark_metadata` directory below `output`.
fn under_metadata(p: &Path, output: &Path) -> bool {
    p.strip_prefix(output)
        .map(|r| r.components().any(|c| c.as_os_str() == "_spark_metadata"))
        .unwrap_or(false)
}

/// A data file of a sink: not hidden (`.part-….crc`, `_SUCCESS`), not in `_spark_metadata`.
fn is_data_file(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    !name.starts_with('.') && !name.starts_with('_')
}

/// The rows of the sink in `dir`.
fn sink_rows(output: &Path, dir: &Path) -> RowSet {
    let rel = dir.strip_prefix(output).unwrap_or(dir);
    let name = format!("file sink output/{}", rel.display())
        .trim_end_matches('/')
        .to_string();
    let data = data_files(dir);
    let (files, how) = match committed_files(&dir.join("_spark_metadata")) {
        Some(paths) => {
            // A log entry is the file's URI as the job saw it (a container path): match by the
            // path below the sink directory.
            let named: Vec<PathBuf> = data
                .iter()
                .filter(|f| {
                    let r = f.strip_prefix(dir).unwrap_or(f).to_string_lossy().into_owned();
                    paths.iter().any(|p| p.ends_with(&format!("/{r}")))
                })
                .cloned()
                .collect();
            let how = format!(
                "{} named by _spark_metadata ({} files in the directory)",
                files(named.len()),
                data.len()
            );
            (named, how)
        }
        None => (
            data.clone(),
            format!(
                "{}, no _spark_metadata: every file in the directory (it was empty when the restart began)",
                files(data.len())
            ),
        ),
    };
    let mut set = RowSet {
        name,
        rows: Vec::new(),
        how,
        unreadable: None,
    };
    let mut bytes = 0u64;
    for f in &files {
        let ext = f
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if !matches!(ext.as_str(), "json" | "csv" | "txt") {
            set.unreadable = Some(format!(
                "{} is not JSON or CSV text ({}); rehearse reads JSON and CSV sinks only",
                f.file_name().unwrap_or_default().to_string_lossy(),
                if ext.is_empty() {
                    "no extension".to_string()
                } else {
                    format!(".{ext} files are not read")
                }
            ));
            return set;
        }
        bytes += std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        if bytes > MAX_SINK_BYTES {
            set.unreadable = Some(format!(
                "its files hold more than {} MiB; rehearse compares smaller outputs",
                MAX_SINK_BYTES / 1024 / 1024
            ));
            return set;
        }
        let partition = partition_values(f.strip_prefix(dir).unwrap_or(f));
        match std::fs::read_to_string(f) {
            Ok(text) => set.rows.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| with_partition_values(l, &partition)),
            ),
            Err(e) => {
                set.unreadable = Some(format!("{} cannot be read: {e}", f.display()));
                return set;
            }
        }
    }
    set
}

/// The `column=value` directories of a partitioned file sink (`partitionBy`) on the way to a
/// data file, in path order: Spark writes partition columns only in these names, never in the
/// rows (FileFormatWriter; Hive-style paths, `__HIVE_DEFAULT_PARTITION__` for null). Breaker
/// pass, session 7: `tags=-1` against `tags=__HIVE_DEFAULT_PARTITION__` compared `same`.
fn partition_values(rel: &Path) -> Vec<(String, String)> {
    rel.parent()
        .into_iter()
        .flat_map(Path::components)
        .filter_map(|c| {
            let c = c.as_os_str().to_string_lossy();
            let (k, v) = c.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .collect()
}

/// A row with its file's partition values: a JSON object gains them as string fields (as the
/// directory names spell them), any other line is prefixed with `col=value/…|`.
fn with_partition_values(line: &str, partition: &[(String, String)]) -> String {
    if partition.is_empty() {
        return line.to_owned();
    }
    if let Ok(serde_json::Value::Object(mut row)) = serde_json::from_str(line) {
        for (k, v) in partition {
            row.insert(
                format!("{k} (partition directory)"),
                serde_json::Value::String(v.clone()),
            );
        }
        return serde_json::Value::Object(row).to_string();
    }
    let dirs: Vec<String> = partition.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{}|{line}", dirs.join("/"))
}

/// The data files directly in `dir` or in its partition subdirectories (not `_spark_metadata`,
/// not hidden), sorted.
fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || {
                let n = e.file_name().to_string_lossy();
                !n.starts_with('_') && !n.starts_with('.')
            }
        })
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

/// The `path`s every file of `log` names (`FileStreamSinkLog`, `CompactibleFileStreamLog`:
/// files `N` and `N.compact`, a version line, then one JSON entry per line); `None` when
/// there is no log directory. Entries whose `action` is `delete` are left out.
fn committed_files(log: &Path) -> Option<Vec<String>> {
    let entries = std::fs::read_dir(log).ok()?;
    let mut paths = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let batch = name.strip_suffix(".compact").unwrap_or(&name);
        if batch.parse::<u64>().is_err() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if v.get("action").and_then(|a| a.as_str()) == Some("delete") {
                continue;
            }
            if let Some(p) = v.get("path").and_then(|p| p.as_str()) {
                paths.push(p.to_string());
            }
        }
    }
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn only_files_the_sink_log_names_are_read() {
        let out = tempfile::tempdir().unwrap();
        let data = out.path().join("data");
        write(&data.join("part-0-a.json"), "{\"n\":1}\n{\"n\":2}\n");
        write(&data.join("part-0-b.json"), "{\"n\":3}\n");
        write(&data.join("part-9-leftover.json"), "{\"n\":99}\n");
        write(&data.join(".part-0-a.json.crc"), "crc");
        write(
            &data.join("_spark_metadata/4"),
            "v1\n{\"path\":\"file:///sandbox/output/data/part-0-a.json\",\"size\":14,\"isDir\":false,\"modificationTime\":1,\"blockReplication\":1,\"blockSize\":1,\"action\":\"add\"}\n",
        );
        write(
            &data.join("_spark_metadata/5"),
            "v1\n{\"path\":\"file:/sandbox/output/data/part-0-b.json\",\"action\":\"add\"}\n",
        );
        let sets = file_sink_rows(out.path());
        assert_eq!(sets.len(), 1, "{sets:?}");
        assert_eq!(sets[0].name, "file sink output/data");
        assert_eq!(sets[0].rows, ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
        assert!(
            sets[0]
                .how
                .contains("2 files named by _spark_metadata (3 files"),
            "{}",
            sets[0].how
        );
        assert!(sets[0].unreadable.is_none());
    }

    /// Breaker pass, session 13: the job may replace `output` (or a data file) with a link to a
    /// host directory; rows are never read through it.
    #[test]
    fn rows_are_never_read_through_a_link_the_job_planted() {
        let host = tempfile::tempdir().unwrap();
        write(&host.path().join("data/part-0.json"), "{\"secret\":1}\n");
        let sandbox = tempfile::tempdir().unwrap();
        let output = sandbox.path().join("output");
        std::os::unix::fs::symlink(host.path(), &output).unwrap();
        assert!(file_sink_rows(&output).is_empty());
        let real = sandbox.path().join("output2");
        write(&real.join("data/part-1.json"), "{\"n\":1}\n");
        std::os::unix::fs::symlink(
            host.path().join("data/part-0.json"),
            real.join("data/part-2.json"),
        )
        .unwrap();
        let sets = file_sink_rows(&real);
        assert_eq!(sets.len(), 1, "{sets:?}");
        assert_eq!(sets[0].rows, ["{\"n\":1}"]);
    }

    /// Breaker pass, session 7: a `partitionBy("tags")` sink writes the column only in the
    /// directory name; `tags=-1` and `tags=__HIVE_DEFAULT_PARTITION__` compared `same`.
    #[test]
    fn partition_directories_are_part_of_each_row() {
        let out = tempfile::tempdir().unwrap();
        let data = out.path().join("data");
        write(&data.join("tags=-1/part-0-a.json"), "{\"n\":1}\n");
        write(&data.join("tags=-1/day=2/part-0-b.csv"), "1,a\n");
        let sets = file_sink_rows(out.path());
        assert_eq!(
            sets.len(),
            1,
            "one sink, not one per partition directory: {sets:?}"
        );
        assert_eq!(
            sets[0].rows,
            [
                "tags=-1/day=2|1,a",
                "{\"n\":1,\"tags (partition directory)\":\"-1\"}"
            ]
        );
        assert_ne!(
            with_partition_values("{\"n\":1}", &[("tags".into(), "-1".into())]),
            with_partition_values(
                "{\"n\":1}",
                &[("tags".into(), "__HIVE_DEFAULT_PARTITION__".into())]
            )
        );
    }

    #[test]
    fn without_a_log_every_file_counts_and_parquet_is_not_read() {
        let out = tempfile::tempdir().unwrap();
        write(&out.path().join("csv/part-0.csv"), "a,1\nb,2\n");
        write(&out.path().join("pq/part-0.snappy.parquet"), "PAR1");
        write(
            &out.path().join("pq/_spark_metadata/0"),
            "v1\n{\"path\":\"file:/x/pq/part-0.snappy.parquet\",\"action\":\"add\"}\n",
        );
        let sets = file_sink_rows(out.path());
        assert_eq!(sets.len(), 2, "{sets:?}");
        assert_eq!(sets[0].name, "file sink output/csv");
        assert_eq!(sets[0].rows, ["a,1", "b,2"]);
        assert!(sets[0].how.contains("no _spark_metadata"));
        assert!(
            sets[1]
                .unreadable
                .as_deref()
                .unwrap()
                .contains(".parquet files are not read"),
            "{sets:?}"
        );
    }

    #[test]
    fn an_empty_output_directory_has_no_sink() {
        let out = tempfile::tempdir().unwrap();
        assert!(file_sink_rows(out.path()).is_empty());
        assert!(file_sink_rows(&out.path().join("missing")).is_empty());
    }
}
