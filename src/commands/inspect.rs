//! `rehearse inspect`: a checkpoint (a directory or a store's URL) described, read-only, as
//! text or the `rehearse.inspect/v1` document on stdout.

use std::path::PathBuf;

use clap::Args;
use rehearse::exit::Outcome;
use rehearse::report::{Format, TerminalStyle};

use super::{common, Failure};

/// `rehearse inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The checkpoint (the query's checkpointLocation): a directory, or a URL (s3://, gs://,
    /// az://, wasbs://, abfss://, hdfs://, webhdfs://, file://) read with the platform's standard
    /// credentials. Only listed and read, never written to.
    pub checkpoint: PathBuf,
    /// Print the versioned JSON document (schema "rehearse.inspect/v1") instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `rehearse inspect`: the checkpoint as text or JSON on stdout; findings of error severity
/// decide the outcome.
pub fn exec(args: InspectArgs) -> Result<Outcome, Failure> {
    let inspection = match common::inspect_location(&args.checkpoint) {
        Ok(inspection) => inspection,
        Err(err) => return Ok(common::location_failed(err)),
    };
    tracing::debug!(
        path = %inspection.path.display(),
        latest_batch = ?inspection.latest_batch,
        has_errors = inspection.has_errors(),
        "checkpoint inspected"
    );
    let format = if args.json {
        Format::Json
    } else {
        Format::Terminal(TerminalStyle::default())
    };
    common::write_stdout(|out| rehearse::report::inspect::write(format, &inspection, out))?;
    Ok(if inspection.has_errors() {
        Outcome::Findings
    } else {
        Outcome::Success
    })
}
