//! rehearse's leaves (layer 0 of docs/ARCHITECTURE.md): what every layer above uses and that
//! imports nothing of rehearse.
//!
//! - [`text`]: sanitizing untrusted text for a terminal and the one home of secret masking;
//! - [`cache`]: the cache roots (`$REHEARSE_CACHE_DIR`, XDG, `~/.cache/rehearse`);
//! - [`versions`]: `SparkVersion`, `KafkaVersion` and the per-Spark-line table;
//! - [`userfile`]: the one way a file the user names is read or written;
//! - [`ErrorKind`] / [`HasErrorKind`]: which kind of "rehearse could not run" an error is, which
//!   every crate's error types report and the binary turns into an exit code (`rehearse::exit`).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod cache;
mod error_kind;
pub mod text;
pub mod userfile;
pub mod versions;

pub use error_kind::{ErrorKind, HasErrorKind};
