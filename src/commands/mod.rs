//! The commands, one file each (cargo's `commands/<name>.rs`): each holds its clap arguments
//! and an `exec` that calls the library and returns the [`Outcome`] its exit code comes from,
//! or a [`Failure`]. [`exec`] dispatches; what several commands share is in `common.rs`.
//!
//! A command never exits the process and never calls up into `main.rs` or sideways into
//! another command.

pub mod capture;
pub mod classify;
pub mod common;
pub mod gc;
pub mod images;
pub mod init;
pub mod inspect;
pub mod matrix;
pub mod run;

use rehearse::exit::{ErrorKind, HasErrorKind, Outcome};
use rehearse::report::ProgressMode;

use crate::cli::Command;

/// Runs one command to its outcome, or to the failure that stopped it.
pub fn exec(command: Command, progress: ProgressMode) -> Result<Outcome, Failure> {
    tracing::debug!(?command, ?progress, "command line parsed");
    match command {
        Command::Inspect(args) => inspect::exec(args),
        Command::Init(args) => init::exec(args),
        Command::Run(args) => run::exec(args, progress),
        Command::Matrix(args) => matrix::exec(args, progress),
        Command::Gc(args) => gc::exec(args),
        Command::Classify(args) => classify::exec(args),
        Command::Capture(args) => capture::exec(args),
        Command::Images(cmd) => images::exec(cmd),
    }
}

/// Why a command stopped before it could report: the error to say, and which kind of "could
/// not run" it is. The kind is taken where the error is made: from its type when it has one
/// ([`HasErrorKind`], through `?`), or said at the site ([`Failure::bad_input`], [`Kind::kind`]).
#[derive(Debug)]
pub struct Failure {
    /// Bad input, environment, or a failed generation.
    pub kind: ErrorKind,
    /// The message and its causes.
    pub error: anyhow::Error,
}

impl Failure {
    /// `error`, of `kind`.
    pub fn new(kind: ErrorKind, error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            kind,
            error: error.into(),
        }
    }

    /// `error`, the user's input at fault (what a site that says no kind always meant).
    pub fn bad_input(error: impl Into<anyhow::Error>) -> Failure {
        Failure::new(ErrorKind::BadInput, error)
    }

    /// The same failure, `context` said before its message (the kind kept).
    pub fn context(self, context: impl std::fmt::Display + Send + Sync + 'static) -> Failure {
        Failure {
            kind: self.kind,
            error: self.error.context(context),
        }
    }

    /// The outcome its kind means ([`Outcome::from`]).
    pub fn outcome(&self) -> Outcome {
        Outcome::from(self.kind)
    }

    /// The exit code: the one table's, for [`Failure::outcome`].
    pub fn process_exit_code(&self) -> i32 {
        self.outcome().code()
    }
}

/// A typed error of the library (or the binary's own, e.g. `StdoutError`) keeps its kind
/// through `?`.
impl<E: HasErrorKind + std::error::Error + Send + Sync + 'static> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::new(error.error_kind(), error)
    }
}

/// `.kind(…)` on a result whose error has no kind of its own (an `anyhow` bail or context, a
/// scenario's error, an I/O error): the site says which it is.
pub trait Kind<T> {
    /// The error as a [`Failure`] of `kind`.
    fn kind(self, kind: ErrorKind) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> Kind<T> for Result<T, E> {
    fn kind(self, kind: ErrorKind) -> Result<T, Failure> {
        self.map_err(|e| Failure::new(kind, e))
    }
}

/// `.context(…)` on a result whose error keeps its kind ([`Failure::context`]).
pub trait KeptContext<T> {
    /// The failure with `context` before its message, its kind kept.
    fn context_kept(
        self,
        context: impl std::fmt::Display + Send + Sync + 'static,
    ) -> Result<T, Failure>;
}

impl<T, E: Into<Failure>> KeptContext<T> for Result<T, E> {
    fn context_kept(
        self,
        context: impl std::fmt::Display + Send + Sync + 'static,
    ) -> Result<T, Failure> {
        self.map_err(|e| e.into().context(context))
    }
}

#[cfg(test)]
mod tests {
    use rehearse::trial::TrialError;

    use super::*;

    /// The kind is the one the error's type reports, also under a context; an error without
    /// one is bad input.
    #[test]
    fn errors_map_to_the_kind_their_type_reports() {
        let generation = Failure::from(TrialError::Generation {
            spark: "3.5.3".into(),
            reason: "the job exited".into(),
            cause: Box::new(rehearse::trial::GenerationCause {
                verdict: "environment-error".into(),
                rule: "failed-before-query-start".into(),
                lines: Vec::new(),
                remedy: String::new(),
            }),
            log: "driver.log".into(),
            work: "work".into(),
        });
        assert_eq!(generation.kind, ErrorKind::GenerationFailed);
        assert_eq!(generation.process_exit_code(), 23);
        let environment = Failure::from(TrialError::Baseline {
            spark: "3.5.3".into(),
            reason: "no progress".into(),
        });
        assert_eq!(environment.kind, ErrorKind::Environment);
        let bad_input = Failure::from(TrialError::Args {
            scenario: "s.toml".into(),
            message: "no such topic".into(),
        });
        assert_eq!(bad_input.kind, ErrorKind::BadInput);
        let docker = Err::<(), _>(rehearse::images::ImageError::NoDocker {
            detail: "connection refused".into(),
        })
        .context_kept("preparing the runtime")
        .unwrap_err();
        assert_eq!(docker.kind, ErrorKind::Environment, "found under a context");
        assert!(
            format!("{:#}", docker.error).starts_with("preparing the runtime: "),
            "{:#}",
            docker.error
        );
        let plain = Err::<(), _>(anyhow::anyhow!("no kind"))
            .kind(ErrorKind::BadInput)
            .unwrap_err();
        assert_eq!(plain.kind, ErrorKind::BadInput);
        assert_eq!(plain.process_exit_code(), Outcome::BadInput.code());
        let store = Failure::from(rehearse::checkpoint::CheckpointError::Store(
            rehearse::store::StoreError::NothingThere {
                url: "s3://b/p".into(),
            },
        ));
        assert_eq!(store.kind, ErrorKind::BadInput);
    }
}
