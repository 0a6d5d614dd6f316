//! `rehearse classify`: a driver log (and event log) of a restart run by hand, judged with the
//! rules a trial uses; the verdict as text or JSON on stdout decides the outcome.

use std::path::PathBuf;

use clap::Args;
use rehearse::exit::Outcome;
use rehearse::report::{Format, TerminalStyle};

use super::{common, Failure};

/// `rehearse classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The driver log (stderr and stdout of spark-submit) of the restart.
    pub driver_log: PathBuf,
    /// The Spark event log file (or a directory holding one) of the restart.
    #[arg(long, value_name = "PATH")]
    pub event_log: Option<PathBuf>,
    /// The checkpoint as it was before the restart, to prove resumed offsets and plan changes.
    #[arg(long, value_name = "PATH")]
    pub checkpoint: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `rehearse classify`: the verdict of a driver log (with the checkpoint as it was before the
/// restart, when given) as text or JSON on stdout; the verdict decides the outcome.
pub fn exec(args: ClassifyArgs) -> Result<Outcome, Failure> {
    let ctx = match &args.checkpoint {
        Some(dir) => match rehearse::checkpoint::inspect(dir) {
            Ok(inspection) => rehearse::verdict::TrialContext::from_inspection(&inspection),
            Err(err) => return Ok(common::bad_input(&err, Some(err.hint()))),
        },
        None => rehearse::verdict::TrialContext::default(),
    };
    let c =
        match rehearse::verdict::classify_files(&args.driver_log, args.event_log.as_deref(), ctx) {
            Ok(c) => c,
            Err(err) => return Ok(common::bad_input(&err, err.hint())),
        };
    tracing::debug!(verdict = %c.verdict, rule = %c.rule, "log classified");
    let format = if args.json {
        Format::Json
    } else {
        Format::Terminal(TerminalStyle::default())
    };
    common::write_stdout(|out| rehearse::report::classify::write(format, &c, out))?;
    Ok(Outcome::Verdict(c.verdict))
}
