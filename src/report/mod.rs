//! Reporters: one result model ([`RunReport`]) in, four writers out — terminal summary, JSON
//! (`rehearse.run/v1`), JUnit XML, Markdown. Writers are generic over `std::io::Write` so tests
//! render into memory. Nothing here runs a trial.

mod model;

pub use model::{RunReport, SeedingSummary, TrialReport, RUN_SCHEMA};
