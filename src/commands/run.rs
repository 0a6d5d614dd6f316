//! `rehearse run`: arguments in, the library's pipeline (`rehearsal.rs`) called, its events
//! rendered as progress on stderr (`progress_render.rs`), the report written.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use rehearse::exit::{ErrorKind, Outcome};
use rehearse::rehearsal;
use rehearse::report::ProgressMode;
use rehearse::report::{self, RunReport};
use rehearse::scenario::{Overrides, Scenario};
use rehearse::trial::TrialSettings;
use rehearse::userfile::{self, Existing};

use super::{common, Failure, Kind as _};
use crate::cli::PlacementArgs;
use crate::progress_render::Progress;

/// `rehearse run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (TOML; see scenarios/README.md).
    pub scenario: PathBuf,
    /// Target Spark versions to rehearse on, replacing the scenario's `targets`.
    #[arg(long = "target", value_name = "VERSION")]
    pub targets: Vec<String>,
    /// Keep the sandbox (checkpoint copy, logs, event log) and print its path.
    #[arg(long, env = "REHEARSE_KEEP")]
    pub keep: bool,
    /// Where sandboxes are created (default: the system temp dir). Without --keep each trial's
    /// driver log, event log and trial.json stay there (without --report-dir: under
    /// ~/.cache/rehearse/reports/); the checkpoint copy goes.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Copy every file of the checkpoint into each sandbox, not only what a restart from the
    /// last committed batch reads (the default).
    #[arg(long)]
    pub full_copy: bool,
    /// Targets rehearsed at once, each with a Kafka and sandbox of its own (default: what free
    /// memory holds, at most the CPU count, on the docker runtime; 1 on the others). The
    /// control runs first; a target's fresh run follows its trial.
    #[arg(long, value_name = "N", env = "REHEARSE_JOBS", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// Cap the memory of each Spark container (MiB; Docker --memory, no swap on top), as
    /// production's driver limit would; no cap by default. A driver the kernel kills over it
    /// gets environment-error, rule spark-oom-killed. Not applied on the local runtime.
    #[arg(long, value_name = "MIB", env = "REHEARSE_SPARK_MEMORY", value_parser = clap::value_parser!(u64).range(64..=(1 << 20)))]
    pub spark_memory: Option<u64>,
    /// Print the versioned JSON report (schema "rehearse.run/v1") on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write a Markdown report (fit for a CI job summary) to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Where the trials run (`--runtime`, the cluster's shape, `--master`) and `--conf`.
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Fail (exit 19) when a target resumed with a semantic warning — a removed watermark,
    /// state read under other field names — as the scenario's `deny_warnings = true` does.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Also run a control: the same checkpoint restarted on the source version with the
    /// unchanged job (no restart_args), over the same records, and compare what each target
    /// wrote after the restart with it (output parity; a difference exits 21) — as the
    /// scenario's `control = true` does.
    #[arg(long)]
    pub control: bool,
    /// Also rehearse the remedy on every target: its job (with restart_args) on a new empty
    /// checkpoint with `{starting_offsets}` (the last committed batch's Kafka offsets), its
    /// first batch proved to start there, its output compared with the control's (turns
    /// --control on; a failed or unproven fresh start exits 22) — as the scenario's
    /// `fresh = true` does.
    #[arg(long)]
    pub fresh: bool,
}

/// `rehearse run SCENARIO`.
pub fn exec(args: RunArgs, mode: ProgressMode) -> Result<Outcome, Failure> {
    args.placement
        .cluster
        .check(args.placement.runtime)
        .kind(ErrorKind::BadInput)?;
    common::check_outputs(
        args.report_dir.as_deref(),
        &[("--junit", &args.junit), ("--markdown", &args.markdown)],
    )
    .kind(ErrorKind::BadInput)?;
    let mut warnings = Vec::new();
    let loaded = Scenario::load_with(&args.scenario, &mut warnings);
    common::say_warnings(&warnings);
    let mut scenario = loaded?;
    scenario.apply(&Overrides {
        targets: args.targets.clone(),
        fresh: args.fresh,
        control: args.control,
        deny_warnings: args.deny_warnings,
        conf: args.placement.conf.clone(),
    })?;
    let kind = common::runtime_kind(
        &args.placement,
        args.report_dir.as_deref(),
        scenario.cluster,
    )
    .kind(ErrorKind::BadInput)?;
    // No kind of its own: bad input, as it always was.
    let runtime = tokio::runtime::Runtime::new().map_err(|e| {
        Failure::bad_input(anyhow::Error::new(e).context("cannot start the async runtime"))
    })?;
    let settings = TrialSettings {
        report_dir: args.report_dir.clone(),
        keep: args.keep,
        spark_memory_mb: args.spark_memory,
        runtime: kind,
        full_copy: args.full_copy,
        jobs: run_jobs(args.jobs, &kind, args.spark_memory).kind(ErrorKind::BadInput)?,
    };
    let report = runtime.block_on(async {
        let mut progress = Progress::new(mode, std::io::stderr());
        let mut on_event = |event| progress.rehearsal(event);
        let run = rehearsal::run_scenario(&scenario, &settings, &mut on_event);
        let Some(report) = rehearsal::or_interrupted(run).await else {
            progress.clear();
            say!("interrupted: removing this rehearsal's containers and processes");
            rehearsal::sweep_after_interrupt().await;
            // Not dropped, as when this exited here: nothing is drawn after the message.
            std::mem::forget(progress);
            return None;
        };
        Some(report)
    });
    let Some(report) = report else {
        // Interrupted: main exits at once with 130. The runtime is forgotten, not dropped:
        // dropping it would wait for a build or an install still running on a blocking
        // thread (`process::exit` in main then ends those threads with the process).
        std::mem::forget(runtime);
        return Ok(Outcome::Interrupted);
    };
    let report = report?;
    write_reports(&args, &report)?;
    let (outcome, error) = report::ending(&report);
    if let Some(error) = error {
        say!("error: {error}");
    }
    Ok(outcome)
}

/// `--jobs`, or its default: on the docker runtime what free memory holds at a trial's Spark
/// cap (2 GiB when uncapped) plus its own Kafka broker (1 GiB), at most the CPU count
/// ([`rehearse::runtime::default_jobs`], the matrix's rule); one at a time on the local
/// runtime (host processes share the machine's ports and Spark install) and on clusters (a
/// standalone cluster per trial, or a cluster someone else runs).
fn run_jobs(
    jobs: Option<u16>,
    runtime: &rehearse::runtime::RuntimeKind,
    spark_memory: Option<u64>,
) -> anyhow::Result<usize> {
    use rehearse::runtime::RuntimeKind;
    const KAFKA_MB: u64 = 1024;
    Ok(match (jobs, runtime) {
        (Some(n), RuntimeKind::Docker) => usize::from(n),
        (Some(n), _) if n > 1 => anyhow::bail!(
            "--jobs {n} (or REHEARSE_JOBS): targets run at once on the docker runtime only; on the local runtime trials share the host's ports and Spark install, and on a cluster each trial has a cluster of its own or shares one someone else runs\n(hint: drop --jobs, or give --runtime docker)"
        ),
        (Some(_), _) => 1,
        (None, RuntimeKind::Docker) => {
            rehearse::runtime::default_jobs(spark_memory.unwrap_or(2048) + KAFKA_MB)
        }
        (None, _) => 1,
    })
}

/// The report on stdout (terminal text or JSON), and as JUnit and Markdown files if asked.
fn write_reports(args: &RunArgs, report: &RunReport) -> Result<(), Failure> {
    // Rendered first, then written: a failing stdout (a full disk behind `>`) is then told
    // apart from a report that cannot be rendered, and named.
    let mut out = Vec::new();
    if args.json {
        report::write(report::Format::Json, report, &mut out).kind(ErrorKind::BadInput)?;
    } else {
        let style = report::TerminalStyle {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        report::write(report::Format::Terminal(style), report, &mut out)
            .kind(ErrorKind::BadInput)?;
    }
    common::write_stdout(|stdout| stdout.write_all(&out))?;
    for (path, what, format) in [
        (&args.junit, "JUnit report", report::Format::Junit),
        (&args.markdown, "Markdown report", report::Format::Markdown),
    ] {
        if let Some(path) = path {
            userfile::write_with(path, what, Existing::Replace, |mut out| {
                report::write(format, report, &mut out)
            })?;
        }
    }
    Ok(())
}
