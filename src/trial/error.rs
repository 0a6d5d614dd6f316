//! Why a trial or a generation could not run ([`TrialError`]). A failed restart is not one of
//! these: it is a verdict.

use std::path::PathBuf;

use crate::runtime;
use crate::sandbox::SandboxError;

/// Why a trial (or generation) could not run. A failed restart is NOT an error: it is a verdict.
#[derive(Debug, thiserror::Error)]
pub enum TrialError {
    /// Making or checking the sandbox failed.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// A container could not be started or stopped.
    #[error(transparent)]
    Runtime(#[from] runtime::RuntimeError),
    /// Kafka did not answer or refused seeding.
    #[error(transparent)]
    Kafka(#[from] crate::kafka::KafkaError),
    /// The production cluster of `[kafka.mirror]` could not be read.
    #[error(transparent)]
    Mirror(#[from] crate::kafka::MirrorError),
    /// A job argument names something the scenario does not define.
    #[error("scenario {scenario}: {message}")]
    Args {
        /// Scenario file.
        scenario: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Staging files into the sandbox failed.
    #[error("cannot stage {path} into the sandbox")]
    Stage {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Generating the source checkpoint failed: the job exited or timed out before its batches
    /// were committed. Its driver log is classified with a trial's rules ([`GenerationCause`]),
    /// so the message shows the cause line and a fix, not only the log's last lines.
    #[error("generating the source checkpoint with Spark {spark} failed: {reason}\n{cause}\n  driver log: {log} (the generation's work directory is kept: {work})")]
    Generation {
        /// Source Spark version.
        spark: String,
        /// What went wrong, one sentence (`the job exited with code 1 after 0 of 3 batches`).
        reason: String,
        /// What its driver log was classified as.
        cause: Box<GenerationCause>,
        /// Full driver log path.
        log: PathBuf,
        /// The kept work directory (the sandbox the generation ran in).
        work: PathBuf,
    },
    /// The restart benchmark's bare restart (`trial::baseline`) showed no progress.
    #[error("the bare restart on Spark {spark} failed: {reason}")]
    Baseline {
        /// Target Spark version.
        spark: String,
        /// What went wrong.
        reason: String,
    },
    /// Rebasing offsets in the sandbox copy failed.
    #[error(transparent)]
    Rebase(#[from] crate::kafka::RebaseError),
    /// The generated checkpoint could not be inspected.
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
    /// The job's dependencies could not be resolved or staged (boxed: the error is large).
    #[error(transparent)]
    Deps(Box<crate::deps::DepsError>),
}

impl From<crate::deps::DepsError> for TrialError {
    fn from(e: crate::deps::DepsError) -> Self {
        TrialError::Deps(Box::new(e))
    }
}

/// A trial that could not start is the environment's fault; a generation whose job failed has
/// its own kind (exit 23: the job or the scenario is at fault, not the machine); the other
/// variants name a file or scenario key to fix.
impl crate::exit::HasErrorKind for TrialError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        use crate::exit::ErrorKind;
        match self {
            TrialError::Kafka(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Mirror(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Deps(e) => crate::exit::HasErrorKind::error_kind(e.as_ref()),
            TrialError::Runtime(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Generation { .. } => ErrorKind::GenerationFailed,
            TrialError::Baseline { .. } => ErrorKind::Environment,
            // The sandbox's own kind: written or stopped is the machine's fault.
            TrialError::Sandbox(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Args { .. }
            | TrialError::Stage { .. }
            | TrialError::Rebase(_)
            | TrialError::Checkpoint(_) => ErrorKind::BadInput,
        }
    }
}

/// A failed generation's driver log, classified with the rules a trial's log gets
/// (`verdict::classify` with no checkpoint context): the rule that matched, the lines it
/// matched on (the cause, e.g. `Failed to connect to master spark-master:7077` on line 6 rather
/// than `Cannot call methods on a stopped SparkContext` at the end) and its remedy. When no line
/// explains the failure, the log's last lines stand in for the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationCause {
    /// The verdict the log got, as its word (`environment-error`, `unclassified-failure`, …).
    pub verdict: String,
    /// Id of the rule that matched.
    pub rule: String,
    /// The cause lines, verbatim (each clipped), at most [`GenerationCause::MAX_LINES`].
    pub lines: Vec<String>,
    /// One sentence a data engineer can act on (empty when no rule explained the log).
    pub remedy: String,
}

impl GenerationCause {
    /// At most this many cause lines are shown.
    pub const MAX_LINES: usize = 6;
}

impl std::fmt::Display for GenerationCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "  cause ({}, rule {}):", self.verdict, self.rule)?;
        for line in &self.lines {
            writeln!(f, "    {line}")?;
        }
        if self.remedy.is_empty() {
            write!(f, "  fix: read the driver log below; the job failed before its first batches were committed")
        } else {
            write!(f, "  fix: {}", self.remedy)
        }
    }
}
