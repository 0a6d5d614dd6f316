//! Small text helpers shared by the human-readable writers (terminal, Markdown, JUnit): how a
//! batch id, an offsets check, a duration or a count is spelled, and how evidence is made safe to
//! show. No writer logic lives here, and nothing here decides colour.

use crate::verdict::BatchId;

/// `3`, or `-` when there is no batch.
pub(crate) fn batch(id: Option<BatchId>) -> String {
    id.map_or_else(|| "-".to_owned(), |id| id.to_string())
}

/// `3 → 4`: the last committed batch before the restart, then the first one after it.
pub(crate) fn batches(before: Option<BatchId>, after: Option<BatchId>) -> String {
    format!("{} → {}", batch(before), batch(after))
}

/// `match`, `differ`, or `-` when no batch completed or the committed offsets were unknown.
pub(crate) fn offsets_check(start_offsets_match: Option<bool>) -> &'static str {
    match start_offsets_match {
        Some(true) => "match",
        Some(false) => "differ",
        None => "-",
    }
}

/// `41.3s`: one decimal is enough for a restart that takes tens of seconds.
pub(crate) fn seconds(secs: f64) -> String {
    format!("{secs:.1}s")
}

/// `1.2 MiB`: bytes in binary units, one decimal above KiB.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `working set, 38 of 136 files (1.2 MiB of 9.8 MiB)`, or `everything, 136 files (9.8 MiB):
/// <why>`: what a trial's sandbox copy held.
pub(crate) fn copy(c: &super::model::CopyReport) -> String {
    if c.working_set {
        format!(
            "working set, {} of {} files ({} of {})",
            c.files,
            c.source_files,
            bytes(c.bytes),
            bytes(c.source_bytes)
        )
    } else {
        format!(
            "everything, {} ({}){}",
            count(c.files as usize, "file", "files"),
            bytes(c.bytes),
            c.why_full
                .as_deref()
                .map(|w| format!(": {}", sanitize(w)))
                .unwrap_or_default()
        )
    }
}

/// `1 target`, `3 targets`.
pub(crate) fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Removes ANSI escape sequences and control characters (a leaf helper every human-readable
/// writer shares).
pub(crate) use crate::text::sanitize;

/// Every line of the evidence, sanitized, with embedded newlines split into lines of their own.
pub(crate) fn evidence_lines(evidence: &[String]) -> Vec<String> {
    evidence
        .iter()
        .flat_map(|entry| entry.lines().map(|line| sanitize(line).into_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_lines_splits_embedded_newlines() {
        let evidence = vec!["one\ntwo".to_owned(), "three".to_owned()];
        assert_eq!(evidence_lines(&evidence), ["one", "two", "three"]);
    }

    #[test]
    fn batches_and_offsets_spell_missing_values_as_dash() {
        assert_eq!(batches(Some(BatchId(3)), None), "3 → -");
        assert_eq!(offsets_check(None), "-");
        assert_eq!(count(1, "target", "targets"), "1 target");
        assert_eq!(count(2, "target", "targets"), "2 targets");
    }
}
