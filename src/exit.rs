//! Exit codes of the `rehearse` binary: the stable contract CI scripts read, in one table.
//!
//! Every way a command can end is an [`Outcome`], and [`Outcome::code`] is the only place a
//! number is chosen — by an exhaustive match, with one code written out per verdict (never
//! derived from `Verdict`'s declaration order, so reordering the enum cannot change what CI
//! scripts read). [`Outcome::DOCUMENTED`] lists what each code means: `rehearse --help` is
//! generated from it ([`help_text`]) and a test checks README.md's table against
//! [`markdown_table`].
//!
//! "rehearse could not run" (usage, bad input, environment) is kept apart from "the rehearsal ran
//! and found a problem" (a verdict other than `resumed`, findings, a differing matrix cell).
//! Errors that stop a command say which kind of "could not run" they are through
//! [`HasErrorKind`]; the binary turns the kind into an outcome ([`Outcome::from`]).
//!
//! This module decides codes only: which outcome a report implies is decided next to the report
//! (`report::outcome`, `report::matrix::outcome`), and nothing here prints or exits.

use crate::verdict::Verdict;

/// How a `rehearse` command ended, as far as its exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report: every target resumed (or matched its expected verdict), inspect found
    /// no error-severity finding, every matrix cell agreed.
    Success,
    /// Every failing target got this verdict (`run`), or the log got it (`classify`).
    /// `Verdict(Resumed)` is a success.
    Verdict(Verdict),
    /// `run`: the failing targets got different verdicts, or resumed where the scenario expected
    /// another verdict.
    VerdictsDiffer,
    /// `matrix`: a cell differs from the suite's expectation, or a merge lacks shards of its split.
    MatrixDiffers,
    /// The command line could not be parsed (clap exits with this code itself) or names nothing
    /// to do.
    Usage,
    /// A checkpoint, scenario, suite or log given is missing, unreadable or malformed.
    BadInput,
    /// The environment could not run a rehearsal: Docker engine down, image missing, port taken,
    /// Kafka not answering.
    Environment,
    /// `inspect` ran and reported at least one error-severity finding.
    Findings,
    /// `run --deny-warnings` (or `deny_warnings = true`): every target passed, but one resumed
    /// with a semantic warning (its meaning may have changed); `matrix --deny-warnings` (or the
    /// suite's `deny_warnings = true`): every cell agreed, but one carries a warning.
    WarningsDenied,
    /// `run --control`: every target passed, but one's output after the restart differs from
    /// the control's (the same copy restarted on the source version with the unchanged job)
    /// and the scenario does not allow it (`parity = "may-differ"`).
    ParityDiffers,
    /// `run --fresh` (or `fresh = …`): every target passed, but a remedy run — the target's
    /// job on a new empty checkpoint with `{starting_offsets}` — failed, or its first batch is
    /// not proven to start at the checkpoint's last committed offsets.
    FreshFailed,
    /// The scenario's `[checkpoint.generate]` job failed or timed out before any target ran: the
    /// job (or its scenario) is at fault, not the machine. The error shows the cause line its
    /// driver log was classified on and a fix.
    GenerationFailed,
    /// A bug in rehearse (a panic).
    Internal,
    /// The source checkpoint changed during a rehearsal: rehearse must never write it.
    SourceChanged,
    /// Interrupted by Ctrl-C (the shell's 128 + SIGINT).
    Interrupted,
}

impl Outcome {
    /// The exit code: the one table.
    ///
    /// Codes 0–5 and 10–17 are those rehearse always had; 18 (`no-outcome`) came with issue 14; 19
    /// (warnings denied), 20 (`resume-unproven`), 21 (parity differs) and 22 (fresh failed) with issue 13;
    /// 23 (the generation failed; exit 4 before) with issue 26; 70 is BSD's `EX_SOFTWARE`; 71 is the
    /// source checkpoint changing (it shared 70 until issue 10); 130 is what a shell reports
    /// for a process ended by Ctrl-C.
    pub const fn code(self) -> i32 {
        match self {
            Outcome::Success => 0,
            Outcome::Verdict(verdict) => match verdict {
                Verdict::Resumed => 0,
                Verdict::Timeout => 10,
                Verdict::EnvironmentError => 11,
                Verdict::KafkaDataLoss => 12,
                Verdict::StartedFresh => 13,
                Verdict::UnclassifiedFailure => 14,
                Verdict::PlanChange => 15,
                Verdict::OffsetLogError => 16,
                Verdict::StateStoreError => 17,
                Verdict::NoOutcome => 18,
                Verdict::ResumeUnproven => 20,
            },
            Outcome::WarningsDenied => 19,
            Outcome::ParityDiffers => 21,
            Outcome::FreshFailed => 22,
            Outcome::GenerationFailed => 23,
            Outcome::VerdictsDiffer | Outcome::MatrixDiffers => 1,
            Outcome::Usage => 2,
            Outcome::BadInput => 3,
            Outcome::Environment => 4,
            Outcome::Findings => 5,
            Outcome::Internal => 70,
            Outcome::SourceChanged => 71,
            Outcome::Interrupted => 130,
        }
    }

    /// What the outcome's code tells a CI script, one line (the `--help` and README wording).
    pub fn meaning(self) -> String {
        match self {
            Outcome::Success => "every target resumed (or matched its expected verdict); \
                inspect: no error finding; classify: resumed; matrix: every cell agrees"
                .into(),
            Outcome::Verdict(Verdict::Resumed) => "classify: resumed".into(),
            // A finished log is judged on what it shows: classify never waits for paths.
            Outcome::Verdict(Verdict::ResumeUnproven) => format!(
                "every failing target got {} (not from classify: a resumed log whose paths did not run says so in its remedy)",
                Verdict::ResumeUnproven
            ),
            Outcome::Verdict(verdict) => {
                format!("every failing target got {verdict} (classify: the log did)")
            }
            Outcome::VerdictsDiffer => "targets failed with different verdicts".into(),
            Outcome::MatrixDiffers => {
                "matrix: a cell differs from the suite's expectation, or a merge lacks shards"
                    .into()
            }
            Outcome::Usage => "usage error".into(),
            Outcome::BadInput => {
                "bad input: checkpoint, scenario or log missing or malformed".into()
            }
            Outcome::Environment => {
                "environment: Docker down, image missing, port taken, Kafka not answering".into()
            }
            Outcome::Findings => "inspect found error-severity findings".into(),
            Outcome::WarningsDenied => "run/matrix --deny-warnings: a target (a cell) resumed \
                with a semantic warning (watermark removed, state schema names changed)"
                .into(),
            Outcome::ParityDiffers => "run --control (or a suite's control = true): every \
                target (cell) passed, but one's output after the restart differs from the control \
                run's (parity differs)"
                .into(),
            Outcome::FreshFailed => "run --fresh: every target passed, but a fresh run (the \
                job on a new empty checkpoint with {starting_offsets}) failed or its start is not \
                proven at the last committed offsets"
                .into(),
            Outcome::GenerationFailed => "the scenario's [checkpoint.generate] job failed or \
                timed out before any target ran (the error names the cause line of its driver log \
                and a fix)"
                .into(),
            Outcome::Internal => "a bug in rehearse (a panic); please report it".into(),
            Outcome::SourceChanged => "the source checkpoint changed during a rehearsal".into(),
            Outcome::Interrupted => {
                "interrupted (Ctrl-C, SIGTERM or SIGHUP); matrix still reports the cells that \
                 finished"
                    .into()
            }
        }
    }

    /// Every outcome the docs list, in code order (`Verdict(Resumed)` is [`Outcome::Success`]'s
    /// code and is not listed apart). A test checks that every outcome is here.
    pub const DOCUMENTED: [Outcome; 24] = [
        Outcome::Success,
        Outcome::VerdictsDiffer,
        Outcome::MatrixDiffers,
        Outcome::Usage,
        Outcome::BadInput,
        Outcome::Environment,
        Outcome::Findings,
        Outcome::Verdict(Verdict::Timeout),
        Outcome::Verdict(Verdict::EnvironmentError),
        Outcome::Verdict(Verdict::KafkaDataLoss),
        Outcome::Verdict(Verdict::StartedFresh),
        Outcome::Verdict(Verdict::UnclassifiedFailure),
        Outcome::Verdict(Verdict::PlanChange),
        Outcome::Verdict(Verdict::OffsetLogError),
        Outcome::Verdict(Verdict::StateStoreError),
        Outcome::Verdict(Verdict::NoOutcome),
        Outcome::WarningsDenied,
        Outcome::Verdict(Verdict::ResumeUnproven),
        Outcome::ParityDiffers,
        Outcome::FreshFailed,
        Outcome::GenerationFailed,
        Outcome::Internal,
        Outcome::SourceChanged,
        Outcome::Interrupted,
    ];
}

impl From<ErrorKind> for Outcome {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::BadInput => Outcome::BadInput,
            ErrorKind::Environment => Outcome::Environment,
            ErrorKind::GenerationFailed => Outcome::GenerationFailed,
        }
    }
}

/// Why a command could not run, as an error type reports it ([`HasErrorKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The user's input is at fault: fix the file or argument named in the message.
    BadInput,
    /// The machine is at fault: Docker, images, Kafka, ports.
    Environment,
    /// The scenario's generating job failed (its driver log says why): fix the job or the
    /// scenario's `[checkpoint.generate]`.
    GenerationFailed,
}

/// An error type that knows which kind of "could not run" it is. Every library error that can
/// stop a command implements it; the binary takes the kind where the typed error becomes the
/// command's failure (`?` into `commands::Failure`), and a site with no typed error says its
/// kind itself.
pub trait HasErrorKind {
    /// Which kind of "rehearse could not run" this error is.
    fn error_kind(&self) -> ErrorKind;
}

/// Bad input (exit 3) or environment (exit 4), by variant:
///
/// | variant | kind |
/// |---|---|
/// | BadLocation, MissingBucket, NothingThere, IsAFile, NotFound, UnsafeName | BadInput |
/// | Config, BadCredentials, AccessDenied, NoCredentials, NoToken, Unreachable, NotAStore, TimedOut, ListingRunsAway, Throttled, RedirectLoop, Other, Io | Environment |
///
/// Written here, not in `store/error.rs`: `store` is a leaf (layer 0) and may not import this
/// layer; once the kinds live in a leaf of their own, this impl moves beside the error.
impl HasErrorKind for crate::store::StoreError {
    fn error_kind(&self) -> ErrorKind {
        use crate::store::StoreError as E;
        match self {
            E::BadLocation { .. }
            | E::MissingBucket { .. }
            | E::NothingThere { .. }
            | E::IsAFile { .. }
            | E::NotFound { .. }
            | E::UnsafeName { .. } => ErrorKind::BadInput,
            E::NotAStore { .. }
            | E::TimedOut { .. }
            | E::ListingRunsAway { .. }
            | E::Throttled { .. }
            | E::RedirectLoop { .. } => ErrorKind::Environment,
            E::Config { .. }
            | E::BadCredentials { .. }
            | E::AccessDenied { .. }
            | E::NoCredentials { .. }
            | E::NoToken { .. }
            | E::Unreachable { .. }
            | E::Other { .. }
            | E::Io { .. } => ErrorKind::Environment,
        }
    }
}

/// The user's input is at fault (a missing or mistyped checkpoint: exit 3), unless a remote
/// checkpoint's store says the environment is (credentials, permissions, network: exit 4).
/// Here for the reason [`crate::store::StoreError`]'s impl is.
impl HasErrorKind for crate::checkpoint::CheckpointError {
    fn error_kind(&self) -> ErrorKind {
        match self {
            crate::checkpoint::CheckpointError::Store(e) => e.error_kind(),
            _ => ErrorKind::BadInput,
        }
    }
}

/// A file the user names that cannot be read is theirs to fix (exit 3). Here for the reason
/// [`crate::store::StoreError`]'s impl is.
impl HasErrorKind for crate::userfile::UserFileError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

/// An output the user names that cannot be written (a directory, FIFO or existing file at the
/// path) is theirs to fix (exit 3), as it always was. Here for the reason
/// [`crate::store::StoreError`]'s impl is.
impl HasErrorKind for crate::userfile::WriteError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

/// A log given to `classify` that cannot be read is the user's to fix (exit 3). Here, not in
/// `verdict/input.rs`: `verdict` sits below this layer.
impl HasErrorKind for crate::verdict::InputError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::BadInput
    }
}

/// The documented codes, one `(code, meaning)` row per code; outcomes sharing a code share a row.
pub fn rows() -> Vec<(i32, String)> {
    let mut rows: Vec<(i32, String)> = Vec::new();
    for outcome in Outcome::DOCUMENTED {
        match rows.last_mut() {
            Some((code, meaning)) if *code == outcome.code() => {
                meaning.push_str("; ");
                meaning.push_str(&outcome.meaning());
            }
            _ => rows.push((outcome.code(), outcome.meaning())),
        }
    }
    rows
}

/// The "Exit codes:" section of `rehearse --help`, wrapped at 80 columns with the meanings
/// aligned (clap keeps a line's indent when it wraps further, but not a hanging indent).
pub fn help_text() -> String {
    const WIDTH: usize = 80;
    let mut text = String::from("Exit codes:\n");
    for (code, meaning) in rows() {
        let mut line = format!("  {code:>3} ");
        for word in meaning.split(' ') {
            if line.len() + 1 + word.len() > WIDTH {
                text.push_str(&line);
                text.push('\n');
                line = " ".repeat(6);
            }
            line.push(' ');
            line.push_str(word);
        }
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// The exit-code table of README.md, as Markdown (header included, newline-terminated).
pub fn markdown_table() -> String {
    let mut table = String::from("| code | meaning |\n|---|---|\n");
    for (code, meaning) in rows() {
        table.push_str(&format!("| {code} | {meaning} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each verdict's code, written out: CI scripts read these numbers.
    #[test]
    fn every_verdict_has_its_pinned_code() {
        let pinned = [
            (Verdict::Resumed, 0),
            (Verdict::Timeout, 10),
            (Verdict::EnvironmentError, 11),
            (Verdict::KafkaDataLoss, 12),
            (Verdict::StartedFresh, 13),
            (Verdict::UnclassifiedFailure, 14),
            (Verdict::PlanChange, 15),
            (Verdict::OffsetLogError, 16),
            (Verdict::StateStoreError, 17),
            (Verdict::NoOutcome, 18),
            (Verdict::ResumeUnproven, 20),
        ];
        assert_eq!(pinned.len(), Verdict::ALL.len());
        for (verdict, code) in pinned {
            assert_eq!(Outcome::Verdict(verdict).code(), code, "{verdict}");
        }
    }

    #[test]
    fn the_other_codes_are_pinned() {
        let pinned = [
            (Outcome::Success, 0),
            (Outcome::VerdictsDiffer, 1),
            (Outcome::MatrixDiffers, 1),
            (Outcome::Usage, 2),
            (Outcome::BadInput, 3),
            (Outcome::Environment, 4),
            (Outcome::Findings, 5),
            (Outcome::WarningsDenied, 19),
            (Outcome::ParityDiffers, 21),
            (Outcome::FreshFailed, 22),
            (Outcome::GenerationFailed, 23),
            (Outcome::Internal, 70),
            (Outcome::SourceChanged, 71),
            (Outcome::Interrupted, 130),
        ];
        for (outcome, code) in pinned {
            assert_eq!(outcome.code(), code, "{outcome:?}");
        }
        assert_eq!(Outcome::from(ErrorKind::BadInput).code(), 3);
        assert_eq!(Outcome::from(ErrorKind::Environment).code(), 4);
        assert_eq!(Outcome::from(ErrorKind::GenerationFailed).code(), 23);
    }

    /// Adding an `Outcome` variant breaks this match: add it to `DOCUMENTED` too.
    fn documented(outcome: Outcome) -> bool {
        match outcome {
            Outcome::Verdict(Verdict::Resumed) => true, // shares Success's row
            Outcome::Success
            | Outcome::Verdict(_)
            | Outcome::VerdictsDiffer
            | Outcome::MatrixDiffers
            | Outcome::Usage
            | Outcome::BadInput
            | Outcome::Environment
            | Outcome::Findings
            | Outcome::WarningsDenied
            | Outcome::ParityDiffers
            | Outcome::FreshFailed
            | Outcome::GenerationFailed
            | Outcome::Internal
            | Outcome::SourceChanged
            | Outcome::Interrupted => Outcome::DOCUMENTED.contains(&outcome),
        }
    }

    #[test]
    fn every_outcome_is_documented_once_in_code_order() {
        let unit = [
            Outcome::Success,
            Outcome::VerdictsDiffer,
            Outcome::MatrixDiffers,
            Outcome::Usage,
            Outcome::BadInput,
            Outcome::Environment,
            Outcome::Findings,
            Outcome::WarningsDenied,
            Outcome::ParityDiffers,
            Outcome::FreshFailed,
            Outcome::GenerationFailed,
            Outcome::Internal,
            Outcome::SourceChanged,
            Outcome::Interrupted,
        ];
        for outcome in unit.into_iter().chain(Verdict::ALL.map(Outcome::Verdict)) {
            assert!(
                documented(outcome),
                "{outcome:?} is not in Outcome::DOCUMENTED"
            );
        }
        let codes: Vec<i32> = Outcome::DOCUMENTED.iter().map(|o| o.code()).collect();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]), "{codes:?}");
        let rows: Vec<i32> = rows().iter().map(|(code, _)| *code).collect();
        assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
    }

    /// README.md's "Exit codes" table is this module's table; on a mismatch, paste the expected
    /// table printed below into the README.
    #[test]
    fn readme_table_matches() {
        let readme = include_str!("../README.md");
        let section = readme
            .split("\n## Exit codes\n")
            .nth(1)
            .expect("README.md has a '## Exit codes' section");
        let table: String = section
            .lines()
            .skip_while(|line| !line.starts_with('|'))
            .take_while(|line| line.starts_with('|'))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(
            table,
            markdown_table(),
            "README.md's exit-code table differs; expected:\n{}",
            markdown_table()
        );
    }

    #[test]
    fn help_text_lists_every_code() {
        let help = help_text();
        let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for (code, meaning) in rows() {
            assert!(words.contains(&format!("{code} {meaning}")), "{help}");
        }
        assert!(
            help.lines().all(|line| line.chars().count() <= 80),
            "{help}"
        );
    }
}
