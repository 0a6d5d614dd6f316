//! The result of `rehearse matrix`: one cell per (shape, provider, source, target). This model
//! IS the `rehearse.matrix/v1` JSON document (Serialize + Deserialize), so shard results can
//! be read back and merged ([`merge`]).

use serde::{Deserialize, Serialize};

use crate::report::{OutputCount, TrialReport};
use crate::verdict::{BatchId, Verdict, Warning};

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
    /// Semantic warnings fail the suite (`rehearse matrix --deny-warnings`, or the suite's
    /// `deny_warnings = true`): a cell that agrees but carries a warning then exits 19. A merge
    /// denies them when any shard did.
    #[serde(default)]
    pub deny_warnings: bool,
    /// The control runs (the suite's `control = true`): one per source checkpoint, in grid
    /// order; each cell's `parity` compares with its own. Left out when none ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<super::ControlRun>,
    /// Made by [`merge`] (not written to JSON): its missing shards make it incomplete even
    /// when it holds one shard, while one shard's own report is not incomplete for lacking the
    /// others.
    #[serde(skip)]
    pub merged: bool,
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
    /// What the restarted job wrote to each of the shape's output topics (`[]` when it has
    /// none, or in a report written before output topics existed).
    #[serde(default)]
    pub output: Vec<OutputCount>,
    /// Kept sandbox (`--keep`).
    pub sandbox: Option<String>,
    /// The source checkpoint the trial restarted a copy of (the generation cache), when one
    /// was written.
    #[serde(default)]
    pub source_checkpoint: Option<String>,
    /// Semantic warnings of the trial (a removed watermark, state read under other names):
    /// the cell still agrees, and the grids mark it `⚠`.
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// The job artifact the trial ran: `[job]` or the `[job.per_target."4.*"]` entry, its path,
    /// main class and blake3 — absent for a cell that did not run, and in reports written
    /// before cells named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<crate::report::JobArtifact>,
    /// The paths the restarted query has and whether each ran (`verdict/exercised.rs`); absent
    /// for cells that did not run a restart, and in shards written before issue 13.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercised: Option<crate::verdict::Exercised>,
    /// The executors of a restart on a standalone cluster, from its event log; absent for
    /// `local[2]` cells and cells that did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executors: Option<crate::report::ExecutorsReport>,
    /// Output parity against the control of the cell's source checkpoint (the suite's
    /// `control = true`): what this cell's restart wrote compared with what the control (the
    /// same checkpoint restarted on the source version with the unchanged job) wrote. Absent
    /// when no control ran, and for cells that did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parity: Option<crate::report::Parity>,
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

    /// Whether the cell agrees with its expectation but its output differs from the control's
    /// and the suite does not allow it (`parity = "must-match"`): a finding, and the matrix
    /// exits 21 for it when every cell agrees.
    pub fn parity_failed(&self) -> bool {
        self.passed()
            && self
                .parity
                .as_ref()
                .is_some_and(crate::report::Parity::fails)
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

    /// [`Cell::label`], with ` ⚠` when the trial resumed with semantic warnings and `, parity
    /// differs` when its output differs from the control's (allowed or not).
    pub fn label_marked(&self) -> String {
        let mut label = self.label().to_owned();
        if !self.warnings.is_empty() {
            label.push_str(" ⚠");
        }
        label.push_str(self.parity_mark());
        label
    }

    /// `, parity differs` (or `, parity differs (allowed)` under `parity = "may-differ"`) when
    /// the cell's output differs from its control's; empty otherwise.
    pub fn parity_mark(&self) -> &'static str {
        match self.parity_differs() {
            Some(p) if p.may_differ => ", parity differs (allowed)",
            Some(_) => ", parity differs",
            None => "",
        }
    }

    /// The cell's parity when it `differs` from the control's.
    pub fn parity_differs(&self) -> Option<&crate::report::Parity> {
        self.parity
            .as_ref()
            .filter(|p| p.status == crate::report::ParityStatus::Differs)
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
            output: trial.output.clone(),
            sandbox: trial.sandbox.as_ref().map(|p| p.display().to_string()),
            source_checkpoint: None,
            warnings: trial.warnings.clone(),
            job: trial.job.clone(),
            exercised: trial.exercised.clone(),
            executors: trial.executors.clone(),
            parity: trial.parity.clone(),
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
            output: Vec::new(),
            sandbox: None,
            source_checkpoint: None,
            warnings: Vec::new(),
            job: None,
            exercised: None,
            executors: None,
            parity: None,
        }
    }
}

impl MatrixReport {
    /// Shards of an `I/N` split that this report lacks (empty when it holds no shards, or all).
    pub fn missing_shards(&self) -> Vec<String> {
        let parsed: Vec<(usize, usize)> = self
            .shards
            .iter()
            .filter_map(|s| {
                let (i, n) = s.split_once('/')?;
                Some((i.parse().ok()?, n.parse().ok()?))
            })
            .collect();
        let Some(&(_, n)) = parsed.first() else {
            return Vec::new();
        };
        if n > 4096 || parsed.iter().any(|&(_, m)| m != n) {
            return Vec::new();
        }
        (1..=n)
            .filter(|i| !parsed.iter().any(|&(j, _)| j == *i))
            .map(|i| format!("{i}/{n}"))
            .collect()
    }

    /// `160 cells (5 shapes × 2 providers × 4 sources × 4 targets, shards 1/8, …)`: what the
    /// report covers, for the first line of the Markdown and HTML reports (plain text).
    pub fn scope(&self) -> String {
        use crate::report::text::count;
        let mut extra = if self.shards.is_empty() {
            String::new()
        } else {
            format!(", shards {}", self.shards.join(", "))
        };
        if let Some(why) = self.incompleteness() {
            extra.push_str(&format!(". {why}"));
        }
        format!(
            "{} ({} × {} × {} × {}{extra})",
            count(self.cells.len(), "cell", "cells"),
            count(self.shapes.len(), "shape", "shapes"),
            count(self.providers.len(), "provider", "providers"),
            count(self.sources.len(), "source", "sources"),
            count(self.targets.len(), "target", "targets"),
        )
    }

    /// Why the report is incomplete, for its header: shards missing from a merge, or an
    /// interrupted run. `None` when complete.
    pub fn incompleteness(&self) -> Option<String> {
        let missing = self.missing_shards();
        if !missing.is_empty() && (self.shards.len() > 1 || self.merged) {
            Some(format!(
                "INCOMPLETE: shards {} are missing from the merge (their cells show as ·)",
                missing.join(", ")
            ))
        } else if self.incomplete {
            Some("INCOMPLETE: the run was interrupted (cells not finished show as ·)".into())
        } else {
            None
        }
    }

    /// Cells that disagree with their expectation, in grid order: what a reader needs first.
    pub fn differences(&self) -> Vec<&Cell> {
        self.cells.iter().filter(|c| !c.passed()).collect()
    }

    /// Cells that agree with the suite but carry a semantic warning (what `deny_warnings`
    /// fails on).
    pub fn warned(&self) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.passed() && !c.parity_failed() && !c.warnings.is_empty())
            .collect()
    }

    /// Cells that agree with the suite but whose output differs from their control's where
    /// the suite does not allow it (what exit 21 fails on).
    pub fn parity_failures(&self) -> Vec<&Cell> {
        self.cells.iter().filter(|c| c.parity_failed()).collect()
    }

    /// The cell of a grid position, if the report holds it.
    pub fn cell(&self, shape: &str, provider: &str, source: &str, target: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.shape == shape && c.provider == provider && c.source == source && c.target == target
        })
    }

    /// The job artifacts the cells of one grid ran, each once (`jar app_2.13-4.0.1.jar (Main)
    /// from [job.per_target."4.*"]`) with the targets that ran it, in target order; empty when
    /// no cell names its artifact (a report written before cells did).
    pub fn artifacts(&self, shape: &str, provider: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for t in &self.targets {
            for s in &self.sources {
                let Some(job) = self
                    .cell(shape, provider, s, t)
                    .and_then(|c| c.job.as_ref())
                else {
                    continue;
                };
                let what = job.describe();
                match out.iter_mut().find(|(w, _)| *w == what) {
                    Some((_, targets)) if !targets.contains(t) => targets.push(t.clone()),
                    Some(_) => {}
                    None => out.push((what, vec![t.clone()])),
                }
            }
        }
        out
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
        self.controls.sort_by_key(|c| {
            (
                pos(&shapes, &c.shape),
                pos(&providers, &c.provider),
                pos(&sources, &c.source),
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
    #[error("{file}: {what} [{found}], but [{expected}] in {first}; merge only the shards of one suite file (unchanged between the shards)")]
    OtherSuite {
        /// The file.
        file: String,
        /// What differs: `suite`, `shapes`, `providers`, `sources`, `targets`.
        what: &'static str,
        /// Its value in `file`.
        found: String,
        /// Its value in the first report.
        expected: String,
        /// The first report's file.
        first: String,
    },
    /// A report holds what `rehearse matrix` never writes: a cell outside its axes or twice,
    /// a name that is not a suite/shape/provider/version name, a malformed shard.
    #[error("{file} is not a report `rehearse matrix --json` wrote: {message}; rerun that shard with --json")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// Reports of different splits (`1/2` and `1/3`), a shard given twice, or a whole-suite
    /// report with shard reports: their cells cannot be told complete.
    #[error("{file}: {message}; merge the reports of one split only (every I/N with the same N, each once)")]
    MixedSplits {
        /// The file.
        file: String,
        /// What is mixed.
        message: String,
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

/// Shard reports that do not merge are the user's to fix (exit 3).
impl crate::exit::HasErrorKind for MergeError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        crate::exit::ErrorKind::BadInput
    }
}

/// A name `rehearse matrix` accepts in a suite (suite, shape, provider): it becomes part of
/// Kafka topic names, so `[A-Za-z0-9._-]+`; nothing a report renders can escape from it.
fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

impl MatrixReport {
    /// Checks what a report read back from a file must hold if `rehearse matrix` wrote it: names
    /// and versions as a suite file allows them, no axis value twice, every cell inside the
    /// axes and at most once, shards like `2/4`. Renderers rely on it (a name is put into
    /// Markdown tables and terminal lines as it is).
    pub fn validate(&self) -> Result<(), String> {
        if !plain_name(&self.suite) {
            return Err(format!("suite name {:?} is not a suite name", self.suite));
        }
        let axes: [(&str, &Vec<String>, bool); 4] = [
            ("shapes", &self.shapes, false),
            ("providers", &self.providers, false),
            ("sources", &self.sources, true),
            ("targets", &self.targets, true),
        ];
        for (what, list, versions) in axes {
            for (i, v) in list.iter().enumerate() {
                let ok = if versions {
                    crate::scenario::check_version(v).is_ok()
                } else {
                    plain_name(v)
                };
                if !ok {
                    return Err(format!("{what} holds {v:?}"));
                }
                if list[..i].contains(v) {
                    return Err(format!("{what} names {v:?} twice"));
                }
            }
        }
        for s in &self.shards {
            s.parse::<crate::scenario::suite::Shard>()?;
        }
        if !(self.seconds.is_finite() && self.seconds >= 0.0) {
            return Err(format!("seconds is {}", self.seconds));
        }
        let mut controls = std::collections::HashSet::new();
        for c in &self.controls {
            if !(self.shapes.contains(&c.shape)
                && self.providers.contains(&c.provider)
                && self.sources.contains(&c.source)
                && crate::scenario::check_version(&c.version).is_ok())
            {
                return Err(format!(
                    "control {:?} is outside the report's shapes, providers and sources",
                    c.id()
                ));
            }
            if !controls.insert(c.id()) {
                return Err(format!("control {} is in it twice", c.id()));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for c in &self.cells {
            if !(self.shapes.contains(&c.shape)
                && self.providers.contains(&c.provider)
                && self.sources.contains(&c.source)
                && self.targets.contains(&c.target))
            {
                return Err(format!(
                    "cell {:?} is outside the report's shapes, providers, sources and targets",
                    c.id()
                ));
            }
            if !seen.insert(c.id()) {
                return Err(format!("cell {} is in it twice", c.id()));
            }
        }
        Ok(())
    }
}

/// Joins shard reports (`(file name, report)`) into one: each must be valid
/// ([`MatrixReport::validate`]); same suite and axes required; every cell at most once; cells in
/// grid order; seconds summed.
pub fn merge(reports: Vec<(String, MatrixReport)>) -> Result<MatrixReport, MergeError> {
    let splits: Vec<(String, Vec<String>)> = reports
        .iter()
        .map(|(file, r)| (file.clone(), r.shards.clone()))
        .collect();
    for (file, r) in &reports {
        r.validate().map_err(|message| MergeError::Invalid {
            file: file.clone(),
            message,
        })?;
    }
    let mut iter = reports.into_iter();
    let (first, mut merged) = iter.next().ok_or(MergeError::Empty)?;
    // Cell ids seen so far, and the shards of the report each came from: a set, so a merge of
    // 50,000 cells stays linear.
    let mut seen: std::collections::HashMap<String, String> = merged
        .cells
        .iter()
        .map(|c| (c.id(), merged.shards.join(",")))
        .collect();
    let mut control_ids: std::collections::HashSet<String> =
        merged.controls.iter().map(super::ControlRun::id).collect();
    for (file, r) in iter {
        let differs = [
            ("suite", vec![merged.suite.clone()], vec![r.suite.clone()]),
            ("shapes", merged.shapes.clone(), r.shapes.clone()),
            ("providers", merged.providers.clone(), r.providers.clone()),
            ("sources", merged.sources.clone(), r.sources.clone()),
            ("targets", merged.targets.clone(), r.targets.clone()),
        ]
        .into_iter()
        .find(|(_, a, b)| a != b);
        if let Some((what, a, b)) = differs {
            return Err(MergeError::OtherSuite {
                file,
                what,
                found: b.join(", "),
                expected: a.join(", "),
                first,
            });
        }
        let shards = r.shards.join(",");
        for c in r.cells {
            let id = c.id();
            if let Some(first) = seen.get(&id) {
                return Err(MergeError::Duplicate {
                    cell: id,
                    first: first.clone(),
                    second: shards,
                });
            }
            seen.insert(id, shards.clone());
            merged.cells.push(c);
        }
        // Shards split by source checkpoint: a control is in the shard of its cells only.
        for c in r.controls {
            if !control_ids.insert(c.id()) {
                return Err(MergeError::Duplicate {
                    cell: format!("{} (control)", c.id()),
                    first: merged.shards.join(","),
                    second: shards,
                });
            }
            merged.controls.push(c);
        }
        merged.shards.extend(r.shards);
        merged.seconds += r.seconds;
        merged.jobs = merged.jobs.max(r.jobs);
        merged.incomplete |= r.incomplete;
        merged.deny_warnings |= r.deny_warnings;
    }
    // A merge of some shards of a split is incomplete — one shard merged alone too: its exit
    // code must not say "all agree".
    check_one_split(&splits)?;
    merged.merged = true;
    if !merged.missing_shards().is_empty() {
        merged.incomplete = true;
    }
    merged.sort();
    Ok(merged)
}

/// The reports are of one split: every shard `I/N` with the same N, no shard twice, and no
/// whole-suite report (no shards) beside shard reports. Reports were validated, so each shard
/// parses.
fn check_one_split(reports: &[(String, Vec<String>)]) -> Result<(), MergeError> {
    let mut split: Option<(usize, &str)> = None;
    let mut seen: std::collections::HashMap<&str, &str> = Default::default();
    let whole = reports.iter().find(|(_, shards)| shards.is_empty());
    let sharded = reports.iter().find(|(_, shards)| !shards.is_empty());
    if let (Some((whole, _)), Some((file, shards))) = (whole, sharded) {
        return Err(MergeError::MixedSplits {
            file: file.clone(),
            message: format!(
                "shard {} merged with {whole}, a report of the whole suite (no --shard)",
                shards.join(",")
            ),
        });
    }
    if let Some((file, _)) = reports
        .iter()
        .filter(|(_, shards)| shards.is_empty())
        .nth(1)
    {
        return Err(MergeError::MixedSplits {
            file: file.clone(),
            message: format!(
                "a second report of the whole suite (no --shard) after {}",
                reports[0].0
            ),
        });
    }
    for (file, shards) in reports {
        for shard in shards {
            let count = shard
                .parse::<crate::scenario::suite::Shard>()
                .map(|s| s.count)
                .map_err(|message| MergeError::Invalid {
                    file: file.clone(),
                    message,
                })?;
            match split {
                None => split = Some((count, file)),
                Some((n, other)) if n != count => {
                    return Err(MergeError::MixedSplits {
                        file: file.clone(),
                        message: format!(
                            "shard {shard} is of a split into {count}, but {other} is of a split into {n}"
                        ),
                    })
                }
                Some(_) => {}
            }
            if let Some(other) = seen.insert(shard, file) {
                return Err(MergeError::MixedSplits {
                    file: file.clone(),
                    message: format!("shard {shard} is also in {other}: was a shard run twice?"),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::report;
    use super::*;

    fn merge_one(r: MatrixReport) -> Result<MatrixReport, MergeError> {
        merge(vec![("x.json".into(), r)])
    }

    #[test]
    fn merge_refuses_what_rehearse_matrix_never_writes_even_in_a_single_report() {
        let mut outside = report();
        outside.cells[0].source = "9.9.9".into();
        let e = merge_one(outside).unwrap_err().to_string();
        assert!(e.contains("x.json") && e.contains("outside"), "{e}");
        let mut twice = report();
        twice.cells.push(twice.cells[1].clone());
        let e = merge_one(twice).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let mut evil = report();
        evil.shapes[0] = "de|dup`\n# h".into();
        for c in &mut evil.cells {
            c.shape = evil.shapes[0].clone();
        }
        assert!(merge_one(evil).unwrap_err().to_string().contains("shapes"));
        let mut suite = report();
        suite.suite = "\x1b[2Jx".into();
        assert!(merge_one(suite).is_err());
        let mut shard = report();
        shard.shards = vec!["1/2<b>".into()];
        assert!(merge_one(shard).is_err());
        let mut version = report();
        version.targets[1] = "4.0.1|x".into();
        assert!(merge_one(version).is_err());
        let mut secs = report();
        secs.seconds = -1e308;
        assert!(merge_one(secs).is_err());
        merge_one(report()).unwrap();
    }

    #[test]
    fn merge_says_which_axis_differs_and_in_which_files() {
        let a = report();
        let mut b = report();
        b.cells.clear();
        b.targets.reverse();
        let e = merge(vec![("a.json".into(), a), ("b.json".into(), b)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("b.json: targets [4.0.1, 3.5.3], but [3.5.3, 4.0.1] in a.json"),
            "{e}"
        );
    }
}
