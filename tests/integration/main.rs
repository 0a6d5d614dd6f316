//! Integration tests: one binary, one module per command. Tests that need Docker live in
//! `docker.rs`-style modules and fail (never skip) when `CI=true` and no engine answers.
mod architecture;
mod classify;
mod cluster;
mod deps;
mod faults;
mod fuzz;
mod images;
mod init;
mod inspect;
mod jvm;
mod local;
mod matrix;
mod mirror;
mod parity;
mod properties;
mod remote;
mod report;
mod run;
mod secrets;
mod store;
mod trial_logs;
mod warnings;
