//! The kinds of "rehearse could not run", apart from "the rehearsal ran and found a problem":
//! each error type of every layer says which one it is, and the binary maps the kind to an exit
//! code through one table (`rehearse::exit::Outcome::from`).

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

/// An error type that knows whether it is bad input or the environment; the binary reads it off
/// the first error in a cause chain that has one (an error without one counts as bad input).
pub trait HasErrorKind {
    /// Which kind of "rehearse could not run" this error is.
    fn error_kind(&self) -> ErrorKind;
}
