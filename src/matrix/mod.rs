//! Regression suites: `rehearse matrix SUITE` runs query shapes × state store providers ×
//! source versions × target versions as trials on one machine (in parallel, within a memory
//! budget) or spread over CI runners in shards, and reports the grid.
//!
//! `scenario::suite` reads and validates the suite file; `run.rs` runs it with the pieces of
//! the rehearsal pipeline (`crate::rehearsal`); the report model and its writers live in
//! `report::matrix`. This module only declares and re-exports.

mod cluster;
mod run;

pub use crate::scenario::suite::{
    CellKey, Expectation, Group, Shape, Shard, Suite, SuiteError, SuiteFile, PROVIDERS,
    PROVIDER_CONF,
};
pub use run::{
    cells_per_grid, default_jobs, empty_report, prepare_runtime, refuse_nested_paths, run_matrix,
    spark_versions, MatrixError, MatrixEvent, MatrixOptions, DEFAULT_SPARK_MEMORY_MB,
    RESERVED_MEMORY_MB,
};
