//! Semantic warnings: a restart Spark accepted (the verdict stays `resumed`) whose meaning may
//! have changed. The rows are data (`warning-rules.toml`, each citing its Spark source); the
//! watcher asks [`line_warning`] of every driver-log line and [`progress_warnings`] of the
//! progress report that proved the resume.
//!
//! A warning only ever adds to a verdict: it never turns a failure into `resumed`, and an
//! unknown (a progress report cut before its `eventTime`) gives no warning rather than a
//! guess.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::progress::{Progress, WatermarkSeen};
use super::TrialContext;
use rehearse_base::versions::SparkVersion;

/// The warning table compiled into the binary (`crates/rehearse-verdict/src/warning-rules.toml`).
pub const WARNING_RULES_TOML: &str = include_str!("warning-rules.toml");

/// A restart Spark accepted whose meaning may have changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Stable code: `state-schema-names-changed`, `watermark-removed`,
    /// `stateful-operators-changed`.
    pub code: String,
    /// What changed and what to do.
    pub message: String,
    /// The driver-log lines or progress facts behind it, verbatim.
    pub evidence: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Table {
    warning: Vec<Row>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    code: String,
    #[serde(default)]
    line: Option<String>,
    #[serde(default)]
    check: Option<String>,
    message: String,
    #[serde(default)]
    on_downgrade: Option<String>,
    /// (documented rows) why this warning cannot be derived yet: no line, no check.
    #[serde(default)]
    #[allow(dead_code)]
    unavailable: Option<String>,
    #[allow(dead_code)]
    source: String,
}

fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| {
        toml::from_str::<Table>(WARNING_RULES_TOML)
            .expect("warning-rules.toml is valid (a unit test parses it)")
            .warning
    })
}

/// The code and message of the row a built-in check decides (`state_files.rs`).
pub(crate) fn row_for_check(check: &str) -> (&'static str, &'static str) {
    let r = row_with_check(check);
    (&r.code, &r.message)
}

fn row_with_check(check: &str) -> &'static Row {
    rows()
        .iter()
        .find(|r| r.check.as_deref() == Some(check))
        .expect("warning-rules.toml has a row for every built-in check (a unit test checks)")
}

/// The warning a driver-log line (ANSI colour already removed) is evidence of, if any.
pub(crate) fn line_warning(line: &str) -> Option<Warning> {
    rows().iter().find_map(|r| {
        let needle = r.line.as_deref()?;
        line.contains(needle).then(|| Warning {
            code: r.code.clone(),
            message: r.message.clone(),
            evidence: vec![line.to_owned()],
        })
    })
}

/// Settles `warnings` for a restart from a checkpoint written by `writer` on `target`: on a
/// downgrade (`target` below `writer`), a row with `on_downgrade` becomes that note instead of
/// a warning. Unknown versions change nothing. Returns (warnings, notes).
pub fn settle_for_versions(
    warnings: Vec<Warning>,
    writer: Option<&SparkVersion>,
    target: Option<&SparkVersion>,
) -> (Vec<Warning>, Vec<String>) {
    let downgrade = matches!((writer, target), (Some(w), Some(t)) if t < w);
    if !downgrade {
        return (warnings, Vec::new());
    }
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for w in warnings {
        match rows()
            .iter()
            .find(|r| r.code == w.code)
            .and_then(|r| r.on_downgrade.clone())
        {
            Some(note) => notes.push(note),
            None => kept.push(w),
        }
    }
    (kept, notes)
}

/// The warnings the progress report that proved a resume gives: `watermark-removed` when the
/// checkpoint had a watermark above 0 and the report's `eventTime` holds none.
pub(crate) fn progress_warnings(ctx: &TrialContext, p: &Progress) -> Vec<Warning> {
    let mut out = Vec::new();
    if let (Some(ms), WatermarkSeen::Absent) = (ctx.checkpoint_watermark_ms, &p.watermark) {
        if ms > 0 {
            let row = row_with_check("progress-without-watermark");
            out.push(Warning {
                code: row.code.clone(),
                message: row.message.clone(),
                evidence: vec![format!(
                    "the checkpoint's watermark is {ms} ms ({}); batch {} after the restart reports no eventTime.watermark",
                    rehearse_base::text::utc_millis(ms),
                    p.batch_id.map(|b| b.to_string()).unwrap_or_else(|| "-".into())
                )],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_check_has_a_row() {
        assert!(rows().len() >= 2);
        for r in rows() {
            let kinds = [r.line.is_some(), r.check.is_some(), r.unavailable.is_some()];
            assert_eq!(
                kinds.iter().filter(|k| **k).count(),
                1,
                "{}: a row has a line, a check, or says why it is unavailable",
                r.code
            );
            assert!(!r.source.is_empty(), "{}: a row cites its source", r.code);
        }
        for check in [
            "progress-without-watermark",
            "schema-files-names-differ",
            "operator-metadata-differs",
        ] {
            let _ = row_with_check(check);
        }
    }

    /// The new-user pass: the unchanged demo, written by 3.5.3 and restarted on 3.3.4, logs
    /// the compatible-schema line; on a downgrade it is a note, not a warning. The removed
    /// watermark stays a warning whatever the versions.
    #[test]
    fn on_a_downgrade_the_compatible_schema_line_is_a_note_not_a_warning() {
        let line = "26/11/30 INFO StateSchemaCompatibilityChecker: Detected schema change which is compatible. Allowing to put rows.";
        let schema = line_warning(line).expect("a warning");
        let watermark = Warning {
            code: "watermark-removed".into(),
            message: "m".into(),
            evidence: vec![],
        };
        let v = |s: &str| SparkVersion::parse(s).unwrap();
        let both = vec![schema.clone(), watermark.clone()];
        let (kept, notes) = settle_for_versions(both.clone(), Some(&v("3.5.3")), Some(&v("3.3.4")));
        assert_eq!(kept, vec![watermark.clone()]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("older Spark"), "{notes:?}");
        for (writer, target) in [("3.5.3", "3.5.3"), ("3.5.3", "4.0.1")] {
            let (kept, notes) =
                settle_for_versions(both.clone(), Some(&v(writer)), Some(&v(target)));
            assert_eq!(kept, both, "{writer} → {target}");
            assert!(notes.is_empty());
        }
        let (kept, _) = settle_for_versions(both.clone(), None, Some(&v("3.3.4")));
        assert_eq!(kept, both, "an unknown writer changes nothing");
    }

    #[test]
    fn the_compatible_schema_change_line_is_a_warning() {
        let line = "26/11/30 13:16:22 INFO StateSchemaCompatibilityChecker: Detected schema change which is compatible. Allowing to put rows.";
        let w = line_warning(line).expect("a warning");
        assert_eq!(w.code, "state-schema-names-changed");
        assert_eq!(w.evidence, vec![line.to_owned()]);
        assert!(line_warning("26/11/30 INFO MicroBatchExecution: Resuming at batch 4").is_none());
    }

    #[test]
    fn a_removed_watermark_is_a_warning_and_an_unknown_one_is_not() {
        let ctx = TrialContext {
            checkpoint_watermark_ms: Some(1_704_067_224_000),
            job: None,
            ..TrialContext::default()
        };
        let absent = Progress::from_json(&serde_json::json!({
            "id":"q","batchId":4,"numInputRows":10,"eventTime":{}
        }));
        let w = progress_warnings(&ctx, &absent);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "watermark-removed");
        assert!(
            w[0].evidence[0].contains("2024-01-01T00:00:24.000Z"),
            "{:?}",
            w[0].evidence
        );
        let null = Progress::from_json(&serde_json::json!({
            "id":"q","batchId":4,"numInputRows":10,"eventTime":{"watermark":null}
        }));
        assert_eq!(progress_warnings(&ctx, &null).len(), 1);
        let kept = Progress::from_json(&serde_json::json!({
            "id":"q","batchId":4,"numInputRows":10,"eventTime":{"watermark":"2024-01-01T00:00:24.000Z"}
        }));
        assert!(progress_warnings(&ctx, &kept).is_empty());
        let cut = Progress::from_text(r#"{"id":"q","batchId":4,"numInputRows":10,"#);
        assert!(
            progress_warnings(&ctx, &cut).is_empty(),
            "unknown: no guess"
        );
        let never_advanced = TrialContext {
            checkpoint_watermark_ms: Some(0),
            job: None,
            ..TrialContext::default()
        };
        assert!(progress_warnings(&never_advanced, &absent).is_empty());
    }
}
