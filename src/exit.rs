//! Exit codes of the `rehearse` binary: the stable contract CI scripts read.
//!
//! "rehearse could not run" (usage, bad input, environment) is kept apart from "the rehearsal ran
//! and found a problem" (a verdict other than `resumed`).

/// Every target resumed (or, in a suite, every target matched its expected verdict);
/// `inspect` found no error-severity finding; `classify` found `resumed`.
pub const SUCCESS: i32 = 0;
/// The rehearsal ran and at least one target did not resume (or did not match its expected
/// verdict). The per-verdict codes below are used when all failing targets agree; this one when
/// they differ.
pub const VERDICT_MIXED: i32 = 1;
/// Command line could not be parsed (clap's own code).
pub const USAGE: i32 = 2;
/// Bad input: the checkpoint, scenario, or log given is missing, unreadable or malformed.
pub const BAD_INPUT: i32 = 3;
/// The environment could not run a rehearsal: Docker engine down, image missing, port taken.
pub const ENVIRONMENT: i32 = 4;
/// `inspect` ran and reported at least one error-severity finding.
pub const FINDINGS: i32 = 5;
/// A bug in rehearse (a panic); please report it.
pub const INTERNAL: i32 = 70;
