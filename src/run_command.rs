//! `rehearse run` and `rehearse gc`: arguments in, the library's pipeline (`rehearsal.rs`)
//! called, its events rendered as progress on stderr (`progress_render.rs`), the report written.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use rehearse::exit::Outcome;
use rehearse::rehearsal;
use rehearse::report::ProgressMode;
use rehearse::report::{self, RunReport};
use rehearse::scenario::Scenario;
use rehearse::trial::TrialSettings;

use crate::cli::RunArgs;
use crate::progress_render::Progress;

/// `rehearse run SCENARIO`.
pub fn run(args: RunArgs, mode: ProgressMode) -> anyhow::Result<Outcome> {
    let mut scenario = Scenario::load(&args.scenario)?;
    if !args.targets.is_empty() {
        for t in &args.targets {
            rehearse::scenario::check_version(t).map_err(|m| anyhow::anyhow!("--target: {m}"))?;
        }
        scenario.targets = args.targets.clone();
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let settings = TrialSettings {
        report_dir: args.report_dir.clone(),
        keep: args.keep,
        spark_memory_mb: None,
        runtime: args.runtime.into(),
    };
    let report = runtime.block_on(async {
        let mut progress = Progress::new(mode, std::io::stderr());
        let mut on_event = |event| progress.rehearsal(event);
        let run = rehearsal::run_scenario(&scenario, &settings, &mut on_event);
        let Some(report) = rehearsal::or_interrupted(run).await else {
            progress.clear();
            say!("interrupted: removing this rehearsal's containers and processes");
            rehearsal::sweep_after_interrupt().await;
            // Exit here, inside the runtime: dropping it would wait for a build or an install
            // still running on a blocking thread.
            std::process::exit(Outcome::Interrupted.code());
        };
        report
    })?;
    write_reports(&args, &report)?;
    if report.trials.iter().any(|t| !t.source_untouched) {
        say!("error: the source checkpoint changed during the rehearsal; see the notes in the report");
        return Ok(Outcome::SourceChanged);
    }
    Ok(report::outcome(&report))
}

/// The report on stdout (terminal text or JSON), and as JUnit and Markdown files if asked.
fn write_reports(args: &RunArgs, report: &RunReport) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        report::write(report::ReportFormat::Json, report, &mut out)?;
    } else {
        let style = report::TerminalStyle {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        report::write(report::ReportFormat::Terminal(style), report, &mut out)?;
    }
    out.flush()?;
    if let Some(path) = &args.junit {
        let mut f = std::fs::File::create(path)
            .with_context(|| format!("cannot write JUnit report {}", path.display()))?;
        report::write(report::ReportFormat::Junit, report, &mut f)?;
    }
    if let Some(path) = &args.markdown {
        let mut f = std::fs::File::create(path)
            .with_context(|| format!("cannot write Markdown report {}", path.display()))?;
        report::write(report::ReportFormat::Markdown, report, &mut f)?;
    }
    Ok(())
}

/// `rehearse gc`.
pub fn gc() -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let removed = runtime.block_on(rehearse::runtime::gc(rehearse::runtime::GcScope::Orphans))?;
    if removed.is_empty() {
        println!("nothing to remove");
    }
    for r in removed {
        println!("removed {r}");
    }
    Ok(Outcome::Success)
}
