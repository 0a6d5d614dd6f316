//! The control runs of a matrix (the suite's `control = true`, issue 13 §3): one per source
//! checkpoint, the checkpoint restarted on its source version with the job that wrote it. Each
//! cell's `parity` compares with its group's; the report keeps what the control itself did (its
//! verdict, rule and evidence, or why it could not run), so a `not-checked` parity can be
//! traced to it.

use serde::{Deserialize, Serialize};

use crate::report::TrialReport;
use crate::verdict::Verdict;

/// One source checkpoint's control run, in `rehearse.matrix/v1`'s `controls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlRun {
    /// Shape name.
    pub shape: String,
    /// Provider name.
    pub provider: String,
    /// Source version (wrote the checkpoint).
    pub source: String,
    /// The version the control ran on (the source version).
    pub version: String,
    /// Its verdict, when it ran (`resumed` makes it a reference for its cells).
    pub verdict: Option<Verdict>,
    /// The rule that decided it.
    pub rule: Option<String>,
    /// Evidence lines verbatim, or the error when it could not run.
    pub evidence: Vec<String>,
    /// Seconds from submit to verdict.
    pub seconds: Option<f64>,
}

impl ControlRun {
    /// `shape/provider/source`: the source checkpoint it belongs to, unique in a suite.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.shape, self.provider, self.source)
    }

    /// A control that ran.
    pub fn from_trial(key: (&str, &str, &str), trial: &TrialReport) -> ControlRun {
        let (shape, provider, source) = key;
        ControlRun {
            shape: shape.into(),
            provider: provider.into(),
            source: source.into(),
            version: trial.target_version.clone(),
            verdict: Some(trial.verdict),
            rule: Some(trial.rule.clone()),
            evidence: trial.evidence.clone(),
            seconds: Some(trial.seconds_to_verdict),
        }
    }

    /// A control that could not run, and why.
    pub fn not_run(key: (&str, &str, &str), version: &str, message: &str) -> ControlRun {
        let (shape, provider, source) = key;
        ControlRun {
            shape: shape.into(),
            provider: provider.into(),
            source: source.into(),
            version: version.into(),
            verdict: None,
            rule: None,
            evidence: message.lines().map(str::to_string).collect(),
            seconds: None,
        }
    }

    /// `resumed (rule …, 58.1s)` or `could not run`, for progress lines and reports.
    pub fn outcome(&self) -> String {
        match self.verdict {
            Some(v) => {
                let mut s = v.name().to_string();
                if let Some(rule) = &self.rule {
                    s.push_str(&format!(" (rule {}", crate::report::text::sanitize(rule)));
                    if let Some(secs) = self.seconds {
                        s.push_str(&format!(", {}", crate::report::text::seconds(secs)));
                    }
                    s.push(')');
                }
                s
            }
            None => "could not run".into(),
        }
    }
}
