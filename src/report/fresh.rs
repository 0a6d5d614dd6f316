//! The remedy rehearsed (issue 13 §4, `rehearse run --fresh`, `fresh = …`): the target's job
//! started on a new empty checkpoint with `{starting_offsets}` — the offsets of the
//! checkpoint's last committed batch — beside the control, over the same records. Never a
//! resume: the report keeps it apart from the target's verdict, in [`FreshReport`], with the
//! proof of where it started ([`StartProof`]) and its parity. The judgements are the trial's
//! (`trial/fresh.rs`: whether batch 0 ran, the start proof from the new checkpoint's files, the
//! parity with its precondition); here the values are held, summarised for the writers
//! ([`FreshReport::summary`]) and read for the outcome ([`FreshReport::failed`]).

use std::path::PathBuf;

use serde::Serialize;

use super::parity::Parity;
use crate::verdict::Verdict;

/// Where the fresh run's Kafka sources started, as its new checkpoint shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartStatus {
    /// Every Kafka source's initial offsets (`sources/<n>/0`) are the expected offsets of its
    /// topics, batch 0 is committed, and (fresh records were seeded) the run read records.
    Proven,
    /// Some source started at other offsets (the job ignored `{starting_offsets}`, or a topic
    /// of the checkpoint is read by no source).
    Elsewhere,
    /// The files that would prove it are missing or unreadable (no `sources/<n>/0`, batch 0 not
    /// committed, no record read).
    Unproven,
}

impl std::fmt::Display for StartStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StartStatus::Proven => "proven",
            StartStatus::Elsewhere => "elsewhere",
            StartStatus::Unproven => "unproven",
        })
    }
}

/// The proof that a fresh run's first batch started at the checkpoint's last committed offsets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StartProof {
    /// `proven`, `elsewhere` or `unproven`.
    pub status: StartStatus,
    /// The offsets it had to start at: the `startingOffsets` JSON of the checkpoint's last
    /// committed batch (after a rebase, the sandbox copy's).
    pub expected: String,
    /// The initial offsets its Kafka sources wrote (merged), when any were read.
    pub found: Option<String>,
    /// The files and lines behind the status (`sources/0/0 line 2: {…}`, `commits/0`).
    pub evidence: Vec<String>,
    /// Why it is not `proven`; `None` when it is.
    pub reason: Option<String>,
}

/// A target's remedy run: its job on a new empty checkpoint with `{starting_offsets}`.
#[derive(Debug, Clone, Serialize)]
pub struct FreshReport {
    /// Whether the job ran its first batch on the empty checkpoint: the watcher's
    /// `started-fresh` at a progress report of batch 0 (rule `new-query-started`). A failure
    /// (also one after "Starting new streaming query") or no batch by the timeout is `false`.
    pub ran: bool,
    /// The watcher's verdict on the run (`started-fresh` when it ran; never `resumed`).
    pub verdict: Verdict,
    /// The rule behind it.
    pub rule: String,
    /// The watcher's evidence.
    pub evidence: Vec<String>,
    /// Where its first batch started.
    pub start: StartProof,
    /// Why it was stopped before it read every seeded record, if it was: the driver exited
    /// after batch 0 (a failure on a later batch: the remedy does not hold either) or the
    /// timeout passed. `None` when it read them all, or nothing was collected (no control).
    pub stopped_early: Option<String>,
    /// Its output against the control's (`None`: no control ran).
    pub parity: Option<Parity>,
    /// Seconds from the driver's start to the watcher's verdict.
    pub seconds_to_verdict: f64,
    /// Whether the source checkpoint was byte-identical after the run.
    pub source_untouched: bool,
    /// The sandbox, when kept (`--keep`): the new checkpoint is `checkpoint/`, the copy it
    /// was not given `checkpoint-copy/`.
    pub sandbox: Option<PathBuf>,
    /// Notes of the run (seeding, rebase, what it left).
    pub notes: Vec<String>,
}

impl FreshReport {
    /// Whether the remedy failed: the job did not run its first batch on the empty checkpoint,
    /// its start is not proven at the expected offsets, or it stopped before it read every
    /// seeded record.
    pub fn failed(&self) -> bool {
        !self.ran || self.start.status != StartStatus::Proven || self.stopped_early.is_some()
    }

    /// Whether its parity fails the run (`differs`, not expected: see `trial/fresh.rs`).
    pub fn parity_failed(&self) -> bool {
        self.parity.as_ref().is_some_and(Parity::fails)
    }

    /// One line for the terminal, Markdown and JUnit reports.
    pub fn summary(&self) -> String {
        let run = if self.ran {
            "ran its first batch on a new empty checkpoint".to_string()
        } else {
            format!(
                "FAILED on a new empty checkpoint ({} by rule {})",
                self.verdict, self.rule
            )
        };
        let start = match self.start.status {
            StartStatus::Proven => format!("start proven at {}", self.start.expected),
            other => format!(
                "start {other}: {}",
                self.start.reason.as_deref().unwrap_or("")
            ),
        };
        match &self.stopped_early {
            Some(why) => format!("{run}; {start}; FAILED to read every seeded record: {why}"),
            None => format!("{run}; {start}"),
        }
    }
}
