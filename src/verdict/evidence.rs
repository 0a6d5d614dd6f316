//! Evidence lines: clipped to a bounded length, deduplicated, offsets rendered for reading.

use serde_json::Value;

/// `[{"logOffset":2}]`-style rendering for evidence.
pub(crate) fn show_offsets(o: &[Option<Value>]) -> String {
    let parts: Vec<String> = o
        .iter()
        .map(|v| v.as_ref().map_or_else(|| "-".to_owned(), Value::to_string))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Longest evidence line kept, in bytes.
pub(crate) const EVIDENCE_LINE_MAX: usize = 500;

/// The line cut to [`EVIDENCE_LINE_MAX`] bytes on a character boundary (no copy).
pub(crate) fn clip(line: &str) -> &str {
    if line.len() <= EVIDENCE_LINE_MAX {
        return line;
    }
    let mut end = EVIDENCE_LINE_MAX;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// [`clip`] as an owned evidence line, marked with `…` when cut.
pub(crate) fn clip_owned(line: &str) -> String {
    let c = clip(line.trim_end());
    if c.len() < line.trim_end().len() {
        format!("{c}…")
    } else {
        c.to_owned()
    }
}

pub(crate) fn dedup_keep_order(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|l| seen.insert(l.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_respects_char_boundaries() {
        let s = "é".repeat(400);
        let c = clip(&s);
        assert!(c.len() <= EVIDENCE_LINE_MAX && s.starts_with(c));
        assert!(clip_owned(&s).ends_with('…'));
    }
}
