//! The human-readable report of `rehearse inspect`, written to any writer.
//!
//! Free to change between releases (the stable surface is the JSON document, `json.rs`).
//! No colour and no terminal detection here: the caller decides where the text goes.

use std::io::{self, Write};

use crate::checkpoint::{
    describe_ranges, gap_ranges, BatchId, CommitLogInfo, Inspection, OffsetLogInfo, Operator,
    Provider, Severity, SourceKind, SourceOffset,
};
use crate::text::sanitize;

/// Writes the text report of an inspection. File names, the query id, conf values and offsets
/// come from the checkpoint's files: the report is [`sanitize`]d as a whole, so
/// none of them can send escape sequences to a terminal (the JSON document keeps them, escaped).
pub fn write_text(inspection: &Inspection, out: &mut impl Write) -> io::Result<()> {
    let mut buf = Vec::new();
    write_raw(inspection, &mut buf)?;
    out.write_all(sanitize(&String::from_utf8_lossy(&buf)).as_bytes())
}

/// The report, section by section; each section after the first two starts with a blank line.
fn write_raw(inspection: &Inspection, out: &mut impl Write) -> io::Result<()> {
    write_identity(inspection, out)?;
    write_batches(inspection, out)?;
    write_latest_logs(inspection, out)?;
    write_sources(inspection, out)?;
    write_state(inspection, out)?;
    write_files(inspection, out)?;
    write_findings(inspection, out)?;
    write_fresh_start(inspection, out)
}

/// The path, the query id, and which Spark wrote the checkpoint (per run of batches when it
/// changed).
fn write_identity(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "checkpoint      {}", i.path.display())?;
    writeln!(
        out,
        "query id        {}",
        i.query_id
            .as_deref()
            .unwrap_or("(unknown: no readable metadata file)")
    )?;
    writeln!(out, "written by      Spark {}", i.writer_version.describe())?;
    for e in i
        .writer_version
        .evidence
        .iter()
        .filter(|e| e.consistent)
        .take(4)
    {
        writeln!(
            out,
            "                  {} ({}): {}",
            e.observed, e.file, e.implies
        )?;
    }
    if i.writer_history.len() > 1 {
        for seg in &i.writer_history {
            let range = match (&seg.min, &seg.max) {
                (Some(a), Some(b)) => format!("{a} – {b}"),
                (Some(a), None) => format!(">= {a}"),
                (None, Some(b)) => format!("<= {b}"),
                (None, None) => "unknown".into(),
            };
            writeln!(
                out,
                "                  batches {}..{}: Spark {range}",
                seg.first_batch, seg.last_batch
            )?;
        }
    }
    Ok(())
}

/// Which batches the offset and commit logs hold, the pending batch and any gaps.
fn write_batches(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "offset log      {}", span(&i.offset_batches))?;
    writeln!(out, "commit log      {}", span(&i.commit_batches))?;
    writeln!(out, "last committed  {}", opt_batch(i.last_committed_batch))?;
    writeln!(
        out,
        "pending batch   {}",
        match i.pending_batch {
            Some(p) => format!("{p} (offsets without commit: Spark re-runs it on restart)"),
            None => "none".into(),
        }
    )?;
    // The missing batches as runs with their count (`batches 5 to 1004 (1,000 batches)`), from
    // the offset log's ids: a list of the first ten said neither where the gap ends nor its size.
    let ids: Vec<u64> = i.offset_batches.iter().map(|b| b.0).collect();
    let missing = gap_ranges(&ids);
    if !missing.is_empty() {
        writeln!(
            out,
            "gaps            offsets/ lacks {}",
            describe_ranges(&missing)
        )?;
    }
    Ok(())
}

/// The latest offset file (its metadata, the confs pinned on restart) and the last commit file.
fn write_latest_logs(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    if let Some(log) = &i.offset_log {
        write_offset_log(log, out)?;
    }
    if let Some(c) = &i.commit_log {
        write_commit_log(c, out)?;
    }
    Ok(())
}

/// The latest offset file: version, watermark and batch time, then the confs a restart takes
/// from it.
fn write_offset_log(log: &OffsetLogInfo, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    write!(out, "latest offsets  {}: v{}", log.file, log.version)?;
    match &log.metadata {
        Some(m) => {
            if let Some(w) = m.batch_watermark_ms {
                write!(out, ", watermark {}", timestamp(w))?;
            }
            if let Some(t) = m.batch_timestamp_ms {
                write!(out, ", batch time {}", timestamp(t))?;
            }
            writeln!(out)?;
            if m.conf.is_none() {
                writeln!(out, "  no conf in the log (written by Spark 2.1): the session's confs apply on restart")?;
            }
        }
        None => writeln!(out, ", empty metadata line (Spark 2.0)")?,
    }
    write_restart_confs(log, out)
}

/// The confs a restart reads from the offset log (pinned over the job's settings) and those it
/// misses (so a newer Spark uses its default).
fn write_restart_confs(log: &OffsetLogInfo, out: &mut impl Write) -> io::Result<()> {
    if !log.pinned.is_empty() {
        writeln!(
            out,
            "  pinned on restart (Spark restores these from the log over the job's own settings):"
        )?;
        // Align the meanings, but do not let one long value (a provider class) push all of them out.
        let width = log
            .pinned
            .iter()
            .map(|p| p.key.len() + p.value.len() + 3)
            .filter(|w| *w <= 72)
            .max()
            .unwrap_or(0);
        for p in &log.pinned {
            let kv = format!("{} = {}", p.key, p.value);
            match &p.meaning {
                Some(m) => writeln!(out, "    {kv:<width$}  {m}")?,
                None => writeln!(out, "    {kv}")?,
            }
        }
    }
    if !log.defaults_on_restart.is_empty() {
        writeln!(
            out,
            "  missing from the log, so a newer Spark sets them to their default on restart:"
        )?;
        for p in &log.defaults_on_restart {
            writeln!(out, "    {} = {}", p.key, p.value)?;
        }
    }
    Ok(())
}

/// The last commit file: version, next watermark, state unique ids.
fn write_commit_log(c: &CommitLogInfo, out: &mut impl Write) -> io::Result<()> {
    write!(out, "last commit     {}: v{}", c.file, c.version)?;
    if let Some(w) = c.next_batch_watermark_ms {
        write!(out, ", next watermark {}", timestamp(w))?;
    }
    if c.state_unique_ids.is_some() {
        write!(out, ", with state unique ids (checkpoint format v2)")?;
    }
    writeln!(out)?;
    Ok(())
}

/// Each source's offset at the last committed (or latest) batch.
fn write_sources(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    match i.sources.first() {
        None => writeln!(out, "sources         none recorded")?,
        Some(first) => {
            writeln!(
                out,
                "sources         at batch {} ({})",
                first.batch,
                if first.committed {
                    "last committed"
                } else {
                    "not committed yet"
                }
            )?;
            for s in &i.sources {
                write_source(out, s)?;
            }
        }
    }
    Ok(())
}

/// The stateful operators under `state/`.
fn write_state(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    if i.operators.is_empty() {
        writeln!(out, "state           no stateful operator")?;
    } else {
        writeln!(
            out,
            "state           {} stateful operator(s)",
            i.operators.len()
        )?;
        for op in &i.operators {
            write_operator(out, op)?;
        }
    }
    Ok(())
}

/// File counts: the Hadoop `.crc` side files and leftover `.tmp` files.
fn write_files(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "files           {} ({} Hadoop .crc side files, {} leftover .tmp)",
        i.files.total,
        i.files.crc_sidecars,
        i.files.tmp_files.len()
    )?;
    Ok(())
}

/// The findings, counted by severity, each with its place.
fn write_findings(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    writeln!(out)?;
    if i.findings.is_empty() {
        writeln!(out, "findings        none")?;
    } else {
        let count = |s: Severity| i.findings.iter().filter(|f| f.severity == s).count();
        writeln!(
            out,
            "findings        {} error(s), {} warning(s), {} info",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        )?;
        for f in &i.findings {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                (None, _) => "checkpoint".into(),
            };
            writeln!(out, "  {:<7}  {place}", f.severity.name())?;
            writeln!(out, "           {}", f.message)?;
        }
    }
    Ok(())
}

/// The `startingOffsets` option for a fresh start from where this checkpoint stopped (Kafka).
fn write_fresh_start(i: &Inspection, out: &mut impl Write) -> io::Result<()> {
    if let Some(start) = i.starting_offsets() {
        writeln!(out)?;
        writeln!(out, "fresh start     to restart on a new checkpoint from where this one stopped, set on the Kafka source:")?;
        writeln!(
            out,
            "                .option(\"startingOffsets\", '{start}')"
        )?;
    }
    Ok(())
}

fn write_source(out: &mut impl Write, s: &SourceOffset) -> io::Result<()> {
    let id = s
        .source_id
        .as_deref()
        .map(|id| format!(" ({id})"))
        .unwrap_or_default();
    match (&s.kind, &s.kafka) {
        (SourceKind::Kafka, Some(kafka)) => {
            writeln!(out, "  #{}{id} kafka", s.index)?;
            for (topic, parts) in kafka {
                let parts: Vec<String> = parts.iter().map(|(p, o)| format!("{p}:{o}")).collect();
                writeln!(out, "      {topic}  partition:offset {}", parts.join(" "))?;
            }
        }
        (kind, _) => {
            let raw = s.raw.as_deref().unwrap_or("- (no offset yet)");
            writeln!(
                out,
                "  #{}{id} {:<6} {}",
                s.index,
                kind.name(),
                clip(raw, 100)
            )?;
        }
    }
    Ok(())
}

fn write_operator(out: &mut impl Write, op: &Operator) -> io::Result<()> {
    let name = op.name.as_deref().unwrap_or("operator");
    let provider = match op.provider {
        Provider::Hdfs => "HDFS-backed".to_string(),
        Provider::Rocksdb if op.changelog_checkpointing => {
            "RocksDB (changelog checkpointing)".to_string()
        }
        Provider::Rocksdb => "RocksDB".to_string(),
        Provider::Unknown => "unknown provider".to_string(),
    };
    let latest: Vec<u64> = op
        .partition_states
        .iter()
        .filter_map(|p| p.latest_version)
        .collect();
    let versions = match (latest.iter().min(), latest.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("latest state version {b} in every partition"),
        (Some(a), Some(b)) => format!("latest state version {a}..{b} across partitions"),
        _ => "no state files".into(),
    };
    writeln!(
        out,
        "  #{} {name}: {provider}, {} partition(s), {versions}",
        op.id, op.partitions
    )?;
    if op.stores.len() > 1 || op.stores.first().is_some_and(|s| s != "default") {
        writeln!(out, "      stores {}", op.stores.join(", "))?;
    }
    for s in &op.schemas {
        match &s.schema {
            Some(schema) => writeln!(out, "      schema v{} in {}", schema.version, s.file)?,
            None => writeln!(out, "      schema {} (unreadable)", s.file)?,
        }
    }
    if let Some(m) = &op.operator_metadata {
        writeln!(
            out,
            "      operator metadata v{} in {}",
            m.metadata.version, m.file
        )?;
    }
    if op.unique_id_files {
        writeln!(
            out,
            "      state files carry unique ids (checkpoint format v2)"
        )?;
    }
    Ok(())
}

fn span(ids: &[BatchId]) -> String {
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("batch {a} (1 file)"),
        (Some(a), Some(b)) => format!("batches {a}..{b} ({} files)", ids.len()),
        _ => "empty".into(),
    }
}

fn opt_batch(b: Option<BatchId>) -> String {
    b.map_or_else(|| "none".into(), |b| b.to_string())
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// Epoch milliseconds as an ISO-8601 UTC time; 0 and below as the number (no time yet).
fn timestamp(ms: i64) -> String {
    if ms <= 0 {
        return format!("{ms}");
    }
    crate::text::utc_seconds(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_render_in_utc() {
        assert_eq!(timestamp(1704067224000), "2024-01-01T00:00:24Z");
        assert_eq!(timestamp(0), "0");
        assert_eq!(timestamp(951_782_400_000), "2000-02-29T00:00:00Z");
    }
}
