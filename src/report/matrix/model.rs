//! The result of `rehearse matrix`: one cell per (shape, provider, source, target). This model
//! IS the `rehearse.matrix/v1` JSON document (Serialize + Deserialize), so shard results can
//! be read back and merged ([`merge`]).

use serde::{Deserialize, Serialize};

use crate::report::TrialReport;
use crate::verdict::{BatchId, Verdict};

/// Schema id in the `"schema"` field of the JSON document. Bump on breaking changes.
pub const MATRIX_SCHEMA: &str = "rehearse.matrix/v1";

/// A suite's results (all of it, one shard, or merged shards).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixReport {
    /// Always [`MATRIX_SCHEMA`].
    pub schema: String,
    /// Suite name.
    pub suite: String,
    /// The suite file as given on the command line (to regenerate the report).
    #[serde(default)]
    pub suite_file: Option<String>,
    /// Axes of the grid, in suite order (all of the suite's, also in a shard's report).
    pub shapes: Vec<String>,
    /// Provider names.
    pub providers: Vec<String>,
    /// Source versions.
    pub sources: Vec<String>,
    /// Target versions.
    pub targets: Vec<String>,
    /// Shards this report holds (`"1/4"`…), empty for a whole suite run in one go.
    pub shards: Vec<String>,
    /// Cells run (or not applicable), in grid order.
    pub cells: Vec<Cell>,
    /// Wall-clock seconds of the run (sum over merged shards).
    pub seconds: f64,
    /// Cells run at once (`--jobs`); for merged shards, the largest.
    pub jobs: usize,
    /// The run was interrupted: cells it did not finish are missing.
    #[serde(default)]
    pub incomplete: bool,
}

/// What happened to a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellStatus {
    /// The trial ran and gave a verdict.
    Ran,
    /// The shape or provider does not exist on the source or target version.
    NotApplicable,
    /// The source checkpoint could not be written (the job failed on the source version, or
    /// the harness did): no trial ran.
    GenerationFailed,
    /// The trial could not run (container, Kafka, sandbox): a harness problem, not a finding.
    HarnessError,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Shape name.
    pub shape: String,
    /// Provider name.
    pub provider: String,
    /// Source version (wrote the checkpoint).
    pub source: String,
    /// Target version (restarted it).
    pub target: String,
    /// What happened.
    pub status: CellStatus,
    /// The verdict, when the trial ran.
    pub verdict: Option<Verdict>,
    /// The verdict the suite expects (`resumed` unless an `[[expect]]` row says otherwise).
    pub expected: Verdict,
    /// Why that verdict is expected, when the suite says.
    pub expected_reason: Option<String>,
    /// Rule that decided the verdict.
    pub rule: Option<String>,
    /// Evidence lines verbatim (driver log, events) — or the error, when no trial ran.
    pub evidence: Vec<String>,
    /// One sentence a data engineer can act on.
    pub remedy: Option<String>,
    /// Last committed batch of the source checkpoint.
    pub last_committed_batch: Option<BatchId>,
    /// First batch completed after the restart.
    pub first_batch_after_restart: Option<BatchId>,
    /// Whether that batch started at the checkpoint's committed end offsets.
    pub start_offsets_match: Option<bool>,
    /// Seconds from submit to verdict.
    pub seconds: Option<f64>,
    /// Notes from the trial (rebasing, a changed source…).
    pub notes: Vec<String>,
    /// Kept sandbox (`--keep`).
    pub sandbox: Option<String>,
    /// The source checkpoint the trial restarted a copy of (the generation cache), when one
    /// was written.
    #[serde(default)]
    pub source_checkpoint: Option<String>,
}

impl Cell {
    /// `shape/provider/source->target`, unique in a suite.
    pub fn id(&self) -> String {
        format!(
            "{}/{}/{}->{}",
            self.shape, self.provider, self.source, self.target
        )
    }

    /// Whether the cell agrees with its expectation. Not-applicable cells always agree.
    pub fn passed(&self) -> bool {
        match self.status {
            CellStatus::NotApplicable => true,
            CellStatus::Ran => self.verdict == Some(self.expected),
            CellStatus::GenerationFailed | CellStatus::HarnessError => false,
        }
    }

    /// The short text shown in a grid cell: the verdict, `n/a`, `no checkpoint`, `harness error`.
    pub fn label(&self) -> &'static str {
        match (self.status, self.verdict) {
            (CellStatus::Ran, Some(v)) => v.name(),
            (CellStatus::Ran, None) => "?",
            (CellStatus::NotApplicable, _) => "n/a",
            (CellStatus::GenerationFailed, _) => "no checkpoint",
            (CellStatus::HarnessError, _) => "harness error",
        }
    }

    /// A cell whose trial ran.
    pub fn from_trial(
        key: (&str, &str, &str),
        trial: &TrialReport,
        expected: Verdict,
        reason: Option<String>,
    ) -> Cell {
        let (shape, provider, source) = key;
        Cell {
            shape: shape.into(),
            provider: provider.into(),
            source: source.into(),
            target: trial.target_version.clone(),
            status: CellStatus::Ran,
            verdict: Some(trial.verdict),
            expected,
            expected_reason: reason,
            rule: Some(trial.rule.clone()),
            evidence: trial.evidence.clone(),
            remedy: Some(trial.remedy.clone()),
            last_committed_batch: trial.last_committed_batch,
            first_batch_after_restart: trial.first_batch_after_restart,
            start_offsets_match: trial.start_offsets_match,
            seconds: Some(trial.seconds_to_verdict),
            notes: trial.notes.clone(),
            sandbox: trial.sandbox.as_ref().map(|p| p.display().to_string()),
            source_checkpoint: None,
        }
    }

    /// A cell that did not run: `status` says why, `message` is the evidence.
    pub fn not_run(
        key: (&str, &str, &str, &str),
        status: CellStatus,
        message: String,
        expected: Verdict,
        reason: Option<String>,
    ) -> Cell {
        let (shape, provider, source, target) = key;
        Cell {
            shape: shape.into(),
            provider: provider.into(),
            source: source.into(),
            target: target.into(),
            status,
            verdict: None,
            expected,
            expected_reason: reason,
            rule: None,
            evidence: message.lines().map(str::to_string).collect(),
            remedy: None,
            last_committed_batch: None,
            first_batch_after_restart: None,
            start_offsets_match: None,
            seconds: None,
            notes: Vec::new(),
            sandbox: None,
            source_checkpoint: None,
        }
    }
}

impl MatrixReport {
    /// Cells that disagree with their expectation, in grid order: what a reader needs first.
    pub fn differences(&self) -> Vec<&Cell> {
        self.cells.iter().filter(|c| !c.passed()).collect()
    }

    /// The cell of a grid position, if the report holds it.
    pub fn cell(&self, shape: &str, provider: &str, source: &str, target: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.shape == shape && c.provider == provider && c.source == source && c.target == target
        })
    }

    /// Sorts cells into grid order (the order of the axes).
    pub fn sort(&mut self) {
        let pos = |list: &[String], v: &str| list.iter().position(|x| x == v).unwrap_or(usize::MAX);
        let (shapes, providers, sources, targets) = (
            self.shapes.clone(),
            self.providers.clone(),
            self.sources.clone(),
            self.targets.clone(),
        );
        self.cells.sort_by_key(|c| {
            (
                pos(&shapes, &c.shape),
                pos(&providers, &c.provider),
                pos(&sources, &c.source),
                pos(&targets, &c.target),
            )
        });
    }
}

/// Why shard reports could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No reports given.
    #[error("nothing to merge: give the JSON reports of the shards (rehearse matrix SUITE --shard I/N --json > shard-I.json)")]
    Empty,
    /// A report is of another suite or another grid.
    #[error("{file}: suite {found:?} with other axes than {expected:?} in the first report; merge only shards of one suite file")]
    OtherSuite {
        /// The file.
        file: String,
        /// Its suite.
        found: String,
        /// The first report's suite.
        expected: String,
    },
    /// Two reports hold the same cell.
    #[error("cell {cell} is in more than one report (shard {first} and {second}); was a shard run twice?")]
    Duplicate {
        /// The cell id.
        cell: String,
        /// Shards of the first report.
        first: String,
        /// Shards of the second.
        second: String,
    },
}

/// Joins shard reports (`(file name, report)`) into one: same suite and axes required; every
/// cell at most once; cells in grid order; seconds summed.
pub fn merge(reports: Vec<(String, MatrixReport)>) -> Result<MatrixReport, MergeError> {
    let mut iter = reports.into_iter();
    let (_, mut merged) = iter.next().ok_or(MergeError::Empty)?;
    for (file, r) in iter {
        if r.suite != merged.suite
            || r.shapes != merged.shapes
            || r.providers != merged.providers
            || r.sources != merged.sources
            || r.targets != merged.targets
        {
            return Err(MergeError::OtherSuite {
                file,
                found: r.suite,
                expected: merged.suite,
            });
        }
        for c in r.cells {
            if merged.cells.iter().any(|m| m.id() == c.id()) {
                return Err(MergeError::Duplicate {
                    cell: c.id(),
                    first: merged.shards.join(","),
                    second: r.shards.join(","),
                });
            }
            merged.cells.push(c);
        }
        merged.shards.extend(r.shards);
        merged.seconds += r.seconds;
        merged.jobs = merged.jobs.max(r.jobs);
        merged.incomplete |= r.incomplete;
    }
    merged.sort();
    Ok(merged)
}
