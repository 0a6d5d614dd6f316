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
    /// Generating the source checkpoint failed; the tail of the driver log says why.
    #[error("generating the source checkpoint with Spark {spark} failed: {reason}\n--- last driver log lines ({log}) ---\n{tail}")]
    Generation {
        /// Source Spark version.
        spark: String,
        /// What went wrong.
        reason: String,
        /// Full driver log path.
        log: PathBuf,
        /// Its last lines.
        tail: String,
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

/// A trial that could not start or whose source checkpoint could not be generated is the
/// environment's fault; the other variants name a file or scenario key to fix.
impl crate::exit::HasErrorKind for TrialError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        use crate::exit::ErrorKind;
        match self {
            TrialError::Kafka(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Mirror(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Deps(e) => crate::exit::HasErrorKind::error_kind(e.as_ref()),
            TrialError::Runtime(e) => crate::exit::HasErrorKind::error_kind(e),
            TrialError::Generation { .. } => ErrorKind::Environment,
            // The sandbox could not be written (disk full or too small for the copy, permissions of
            // the report dir) or
            // the copy stopped: the machine's fault, not the checkpoint's.
            TrialError::Sandbox(
                SandboxError::Write { .. }
                | SandboxError::NoSpace { .. }
                | SandboxError::Stopped(_),
            ) => ErrorKind::Environment,
            TrialError::Sandbox(_)
            | TrialError::Args { .. }
            | TrialError::Stage { .. }
            | TrialError::Rebase(_)
            | TrialError::Checkpoint(_) => ErrorKind::BadInput,
        }
    }
}
