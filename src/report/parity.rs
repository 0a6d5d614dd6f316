//! Output parity (issue 13 §3) as the reports hold and show it: a target's [`Parity`] against
//! the control — the same sandbox copy restarted on the source version with the unchanged job,
//! over the same seeded records — its [`ParityStatus`], whether it fails its trial
//! ([`Parity::fails`], read by the outcome) and its one-line [`Parity::summary`]. The judgement
//! itself, comparing the row sets the two runs wrote, is the trial's (`trial/parity.rs`:
//! `compare`, its decision table and the normalisation of rows). Parity never changes a verdict.

use serde::Serialize;

/// Whether a target's output matched the control's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParityStatus {
    /// Every row set holds the same rows on both sides (as multisets, volatile columns left out).
    Same,
    /// At least one row is only on one side.
    Differs,
    /// Not compared, or not wholly: `reason` says why.
    NotChecked,
}

impl std::fmt::Display for ParityStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ParityStatus::Same => "same",
            ParityStatus::Differs => "differs",
            ParityStatus::NotChecked => "not-checked",
        })
    }
}

/// The parity of one target against the control, as the reports show it (also a matrix
/// cell's `parity` in `rehearse.matrix/v1`, read back by `matrix merge`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Parity {
    /// `same`, `differs` or `not-checked`.
    pub status: ParityStatus,
    /// The Spark version the control ran on (the source version).
    pub control_version: String,
    /// Rows only the target wrote (counted with multiplicity).
    pub rows_only_in_target: u64,
    /// Rows only the control wrote.
    pub rows_only_in_control: u64,
    /// Up to five rows only the target wrote (`PARITY_EXAMPLES`, `trial/parity.rs`), normalised,
    /// `<set>: <row>`.
    pub examples_only_in_target: Vec<String>,
    /// Up to five rows only the control wrote.
    pub examples_only_in_control: Vec<String>,
    /// What was compared, one line per row set (`file sink output/data: 12 rows (target), 12
    /// (control), 3 files named by _spark_metadata`).
    pub compared: Vec<String>,
    /// The columns left out of JSON rows (the scenario's `volatile_columns`).
    pub volatile_columns: Vec<String>,
    /// Why the status is `not-checked`, or what a `differs` is expected to mean (`parity =
    /// "may-differ"`); `None` for a plain `same` or `differs`.
    pub reason: Option<String>,
    /// The scenario allows this target's output to differ (`parity = "may-differ"`): a
    /// `differs` is reported and does not fail the run.
    pub may_differ: bool,
}

impl Parity {
    /// A parity that could not be checked, and why.
    pub fn not_checked(control_version: &str, reason: impl Into<String>) -> Parity {
        Parity {
            status: ParityStatus::NotChecked,
            control_version: control_version.to_string(),
            rows_only_in_target: 0,
            rows_only_in_control: 0,
            examples_only_in_target: Vec::new(),
            examples_only_in_control: Vec::new(),
            compared: Vec::new(),
            volatile_columns: Vec::new(),
            reason: Some(reason.into()),
            may_differ: false,
        }
    }

    /// Whether this parity fails its trial: it `differs` and the scenario does not allow it.
    pub fn fails(&self) -> bool {
        self.status == ParityStatus::Differs && !self.may_differ
    }

    /// One line for terminal and Markdown reports.
    pub fn summary(&self) -> String {
        match self.status {
            ParityStatus::Same => format!(
                "same as the control on {} ({})",
                self.control_version,
                self.compared.join("; ")
            ),
            ParityStatus::Differs => format!(
                "differs from the control on {}: {} rows only in the target, {} only in the control{}",
                self.control_version,
                self.rows_only_in_target,
                self.rows_only_in_control,
                // Why it is allowed: the scenario's `parity = "may-differ"`, or a fresh run
                // over a checkpoint with state (new-user pass, session 8: the latter was
                // shown as the setting the user never wrote).
                match (self.may_differ, &self.reason) {
                    (true, Some(why)) => format!(" (allowed: {why})"),
                    (true, None) => " (allowed: parity = \"may-differ\")".to_string(),
                    (false, _) => String::new(),
                }
            ),
            ParityStatus::NotChecked => format!(
                "not checked against the control on {}: {}",
                self.control_version,
                self.reason.as_deref().unwrap_or("no reason given")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Every writer shows a parity, and a differing one fails the trial in each (the verdict
    /// stays `resumed`).
    #[test]
    fn every_writer_shows_parity_and_a_difference_fails_the_trial() {
        let report = crate::report::test_helpers::resumed_with_parity(ParityStatus::Differs);
        let render = |f: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
            let mut out = Vec::new();
            f(&mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let json = render(&|o| crate::report::write_json(&report, o));
        let doc: Value = serde_json::from_str(&json).unwrap();
        let p = &doc["trials"][0]["parity"];
        assert_eq!(p["status"], "differs", "{json}");
        assert_eq!(p["rows_only_in_target"], 1);
        assert_eq!(
            p["examples"]["only_in_control"][0],
            r#"file sink output/data: {"count":1,"user":"a"}"#
        );
        assert_eq!(doc["trials"][0]["verdict"], "resumed");
        assert_eq!(doc["trials"][0]["passed"], false);
        assert_eq!(doc["exit_code"], 21);
        let terminal = render(&|o| {
            crate::report::write_summary(&report, o, crate::report::TerminalStyle::default())
        });
        assert!(
            terminal.contains("FAIL spark-4.0.1: resumed, but its output differs"),
            "{terminal}"
        );
        assert!(
            terminal.contains("only in target: file sink output/data"),
            "{terminal}"
        );
        assert!(terminal.contains("0 passed, 1 failed"), "{terminal}");
        let markdown = render(&|o| crate::report::write_markdown(&report, o));
        assert!(markdown.contains("**parity `differs`**"), "{markdown}");
        // The row and the section say it failed (new-user pass, session 8: "| 4.0.1 | pass |"
        // and the difference under "Notes on passing targets").
        assert!(
            markdown.contains("| **FAIL** (parity differs) | `resumed` |"),
            "{markdown}"
        );
        assert!(!markdown.contains("| pass |"), "{markdown}");
        assert!(!markdown.contains("Notes on passing targets"), "{markdown}");
        let junit = render(&|o| crate::report::write_junit(&report, o));
        assert!(junit.contains(r#"type="parity-differs""#), "{junit}");
        let same = crate::report::test_helpers::resumed_with_parity(ParityStatus::Same);
        let json = render(&|o| crate::report::write_json(&same, o));
        let doc: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["trials"][0]["parity"]["status"], "same");
        assert_eq!(doc["trials"][0]["passed"], true);
        let plain = crate::report::test_helpers::resumed();
        let json = render(&|o| crate::report::write_json(&plain, o));
        assert!(!json.contains("\"parity\""), "absent without a control");
    }
}
