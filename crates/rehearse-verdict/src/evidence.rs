//! Evidence lines: clipped to a bounded length, deduplicated, offsets rendered for reading.

use std::borrow::Cow;

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

/// The line as evidence may quote it: its secrets masked ([`rehearse_base::text::mask`]: a driver log
/// quotes JAAS `password="…"` and `s3a://KEY:SECRET@bucket` as they were configured, and
/// evidence goes into every report and the terminal), then cut to [`EVIDENCE_LINE_MAX`] bytes on
/// a character boundary. Masked before it is cut, so a cut cannot leave half a secret unmasked.
/// No copy when there is nothing to mask and nothing to cut.
pub(crate) fn clip(line: &str) -> Cow<'_, str> {
    let cut = |line: &str| -> usize {
        if line.len() <= EVIDENCE_LINE_MAX {
            return line.len();
        }
        let mut end = EVIDENCE_LINE_MAX;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        end
    };
    match rehearse_base::text::mask(line) {
        Cow::Borrowed(line) => Cow::Borrowed(&line[..cut(line)]),
        Cow::Owned(mut masked) => {
            masked.truncate(cut(&masked));
            Cow::Owned(masked)
        }
    }
}

/// A log line as evidence quotes it, owned: its secrets masked, cut to 500 bytes on a character
/// boundary and marked with `…` when cut. The generation error quotes its cause lines with it.
pub fn clip_owned(line: &str) -> String {
    let line = rehearse_base::text::mask(line.trim_end());
    let c = clip(&line);
    if c.len() < line.len() {
        format!("{c}…")
    } else {
        c.into_owned()
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
        assert!(c.len() <= EVIDENCE_LINE_MAX && s.starts_with(&*c));
        assert!(clip_owned(&s).ends_with('…'));
    }

    /// Breaker pass (issue 25 §3): a JAAS password and an S3 URL's secret in a driver-log line
    /// were quoted verbatim as evidence, into every report.
    #[test]
    fn evidence_lines_are_masked_before_they_are_cut() {
        let line = "ERROR kafka.sasl.jaas.config=PlainLoginModule required username=\"u\" password=\"jaas-Secret1\"; at s3a://AKIAX:wJal/K7MD@bucket/x";
        for quoted in [clip(line).into_owned(), clip_owned(line)] {
            assert!(!quoted.contains("jaas-Secret1"), "{quoted}");
            assert!(!quoted.contains("wJal"), "{quoted}");
            assert!(quoted.contains("s3a://AKIAX:***@bucket/x"), "{quoted}");
        }
        // A secret straddling the cut is masked whole, not cut into a visible half.
        let long = format!("{}password=\"{}\"", "x ".repeat(240), "S".repeat(100));
        assert!(!clip_owned(&long).contains("SSS"), "{}", clip_owned(&long));
    }
}
