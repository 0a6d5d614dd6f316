//! `rehearse run` and `rehearse gc`: arguments in, the library's pipeline (`rehearsal.rs`)
//! called, its events rendered as progress on stderr (`progress_render.rs`), the report written.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use rehearse::exit::Outcome;
use rehearse::rehearsal;
use rehearse::report::ProgressMode;
use rehearse::report::{self, RunReport};
use rehearse::scenario::Scenario;
use rehearse::trial::TrialSettings;
use rehearse::userfile::{self, Existing};

use crate::cli::RunArgs;
use crate::progress_render::Progress;

/// `rehearse run SCENARIO`.
pub fn run(args: RunArgs, mode: ProgressMode) -> anyhow::Result<Outcome> {
    args.cluster.check(args.runtime)?;
    check_outputs(
        args.report_dir.as_deref(),
        &[("--junit", &args.junit), ("--markdown", &args.markdown)],
    )?;
    let mut scenario = Scenario::load(&args.scenario)?;
    scenario.deny_warnings |= args.deny_warnings;
    scenario.parity.control |= args.control;
    if !args.targets.is_empty() {
        for (i, t) in args.targets.iter().enumerate() {
            rehearse::scenario::check_release(t).map_err(|m| anyhow::anyhow!("--target: {m}"))?;
            if args.targets[..i].contains(t) {
                anyhow::bail!("--target {t} is given twice: each target is rehearsed once");
            }
        }
        scenario.targets = args.targets.clone();
    }
    if args.fresh {
        scenario.parity.fresh = scenario.targets.clone();
    } else {
        // `--target` may narrow the targets: a fresh target not rehearsed is not run.
        let targets = scenario.targets.clone();
        scenario.parity.fresh.retain(|t| targets.contains(t));
    }
    scenario
        .check_fresh()
        .map_err(|message| rehearse::scenario::ScenarioError::Invalid {
            path: scenario.file.clone(),
            message: format!(
                "{}: {message}",
                if args.fresh { "--fresh" } else { "fresh" }
            ),
        })?;
    add_conf(&mut scenario, &args.conf)?;
    let kind = match &args.master {
        Some(master) => external_cluster(
            master,
            args.report_dir.as_deref(),
            args.advertised_host.as_deref(),
        )?,
        None => args.cluster.runtime(args.runtime, scenario.cluster)?,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let settings = TrialSettings {
        report_dir: args.report_dir.clone(),
        keep: args.keep,
        spark_memory_mb: args.spark_memory,
        runtime: kind,
        full_copy: args.full_copy,
        jobs: run_jobs(args.jobs, &kind, args.spark_memory)?,
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
    if let Some(remote) = report
        .remote_source
        .as_ref()
        .filter(|r| r.unchanged == Some(false))
    {
        say!(
            "error: the remote source checkpoint {} changed during the rehearsal: {}",
            remote.url,
            remote.changes.join(", ")
        );
        return Ok(Outcome::SourceChanged);
    }
    if report.trials.iter().any(|t| !t.source_untouched) {
        say!("error: the source checkpoint changed during the rehearsal; see the notes in the report");
        return Ok(Outcome::SourceChanged);
    }
    Ok(report::outcome(&report))
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

/// `--master URL`: an existing cluster, checked before anything starts. Client mode only; the
/// sandbox must be where the cluster reads it (`--report-dir` on a shared directory).
/// (`rehearse matrix --master` too.)
pub(crate) fn external_cluster(
    master: &str,
    report_dir: Option<&Path>,
    advertised_host: Option<&str>,
) -> anyhow::Result<rehearse::runtime::RuntimeKind> {
    let known = ["spark://", "k8s://", "yarn", "mesos://"];
    if !known.iter().any(|p| master.starts_with(p)) || master.contains(char::is_whitespace) {
        anyhow::bail!(
            "--master {master}: give a cluster manager URL spark-submit takes in client mode \
             (spark://HOST:PORT, k8s://https://HOST:PORT, yarn); for a cluster in containers \
             use --runtime standalone"
        );
    }
    if report_dir.is_none() {
        anyhow::bail!(
            "--master {master} needs --report-dir DIR on a directory every node of the cluster \
             mounts at the same path: the executors read and write the sandbox copy of the \
             checkpoint there (an object-store or HDFS sandbox is not supported yet)"
        );
    }
    if let Some(host) = advertised_host {
        // It becomes spark.driver.host and the Kafka listener's host: a name or an address.
        let plain = |c: char| c.is_ascii_alphanumeric() || ".-_:[]".contains(c);
        if host.is_empty() || !host.chars().all(plain) {
            anyhow::bail!(
                "--advertised-host {host:?}: give a host name or an IP address the cluster's \
                 nodes reach this machine at (e.g. 10.0.0.5 or driver.example.com)"
            );
        }
    }
    let advertised_host = advertised_host
        .map(str::to_string)
        .unwrap_or_else(rehearse::runtime::default_advertised_host);
    Ok(rehearse::runtime::RuntimeKind::Master(
        rehearse::runtime::ExternalCluster {
            master: master.to_string(),
            advertised_host,
        }
        .leak(),
    ))
}

/// `--conf KEY=VALUE` flags into `scenario`'s conf (after its `[job.conf]`: they win); a flag
/// without `=` or with an empty key is refused (bad input). (`rehearse matrix --conf` too.)
pub(crate) fn add_conf(scenario: &mut Scenario, conf: &[String]) -> anyhow::Result<()> {
    for kv in conf {
        let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            anyhow::bail!("--conf {kv}: give KEY=VALUE, e.g. --conf spark.executor.instances=2");
        };
        rehearse::scenario::check_conf(k, v)
            .map_err(|m| anyhow::anyhow!("--conf {}: {m}", k.trim()))?;
        scenario.conf.insert(k.trim().to_string(), v.to_string());
    }
    Ok(())
}

/// The report on stdout (terminal text or JSON), and as JUnit and Markdown files if asked.
fn write_reports(args: &RunArgs, report: &RunReport) -> anyhow::Result<()> {
    // Rendered first, then written: a failing stdout (a full disk behind `>`) is then told
    // apart from a report that cannot be rendered, and named.
    let mut out = Vec::new();
    if args.json {
        report::write(report::ReportFormat::Json, report, &mut out)?;
    } else {
        let style = report::TerminalStyle {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        report::write(report::ReportFormat::Terminal(style), report, &mut out)?;
    }
    crate::write_stdout(|stdout| stdout.write_all(&out))?;
    for (path, what, format) in [
        (&args.junit, "JUnit report", report::ReportFormat::Junit),
        (
            &args.markdown,
            "Markdown report",
            report::ReportFormat::Markdown,
        ),
    ] {
        if let Some(path) = path {
            userfile::write_with(path, what, Existing::Replace, |mut out| {
                report::write(format, report, &mut out)
            })?;
        }
    }
    Ok(())
}

/// `rehearse gc`: what was removed or skipped, one line each, then the sandboxes killed
/// rehearsals left — in the temp dir, and wherever else they recorded one (`--report-dir`,
/// remote sources staged there) — deleted with `--sandboxes`, else listed with the command.
pub fn gc(args: crate::cli::GcArgs) -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let lines = runtime.block_on(rehearse::runtime::gc(rehearse::runtime::GcScope::Orphans))?;
    // The temp dir's, and every other a rehearsal recorded (under --report-dir, remote sources
    // staged there).
    let mut sandboxes = rehearse::runtime::left_sandboxes(&std::env::temp_dir());
    sandboxes.extend(rehearse::runtime::registered_sandboxes());
    sandboxes.sort();
    sandboxes.dedup();
    if lines.is_empty() && sandboxes.is_empty() {
        println!("nothing to remove");
    }
    for line in lines {
        println!("{line}");
    }
    for s in &sandboxes {
        if args.sandboxes {
            match std::fs::remove_dir_all(s) {
                Ok(()) => println!("removed sandbox {}", s.display()),
                Err(e) => println!("skipped sandbox {}: {e}", s.display()),
            }
        } else {
            println!(
                "left behind by a rehearsal that was killed: sandbox {}",
                s.display()
            );
        }
    }
    if !sandboxes.is_empty() && !args.sandboxes {
        println!("(delete these sandboxes with `rehearse gc --sandboxes`)");
    }
    Ok(Outcome::Success)
}

/// Checks, before anything runs, where a command will write: the sandbox directory
/// (`--report-dir`: a directory, or creatable — its first existing ancestor a directory), each
/// report file (`--junit` …: not a directory, in a directory that exists) and the cache roots
/// (`$REHEARSE_CACHE` …: not a file). Otherwise these were found only after every trial ran —
/// or a finished generation was thrown away.
pub fn check_outputs(
    report_dir: Option<&Path>,
    files: &[(&str, &Option<PathBuf>)],
) -> anyhow::Result<()> {
    if let Some(dir) = report_dir {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!(
                "--report-dir {} is not a directory: sandboxes are created inside it\n  hint: name a directory (it is created if missing), or leave --report-dir out to use the temp dir",
                dir.display()
            );
        }
        if let Some(blocker) = dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
            anyhow::bail!(
                "--report-dir {} cannot be created: {} is a file\n  hint: name a directory (it is created if missing)",
                dir.display(),
                blocker.display()
            );
        }
    }
    // Two reports to one file: the second written would silently replace the first (breaker
    // pass: `matrix merge --markdown m.md --html m.md` left only the HTML). Compared as the
    // directory (links resolved) and the name.
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for (flag, path) in files {
        let Some(path) = path else { continue };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let key = std::fs::canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf())
            .join(path.file_name().unwrap_or_default());
        if let Some((other, _)) = seen.iter().find(|(_, k)| *k == key) {
            anyhow::bail!(
                "{flag} {} is also {other}'s file: the second report would replace the first\n  hint: give each report its own file",
                path.display()
            );
        }
        seen.push((flag, key));
    }
    for (flag, path) in files {
        let Some(path) = path else { continue };
        // The output rule's own check (a directory, FIFO, socket or device refused; a link is
        // replaced, not followed), here before anything runs and again when written.
        userfile::check_writable(path, flag, Existing::Replace)?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            anyhow::bail!(
                "{flag} {}: the directory {} does not exist, so the report could be written only after every trial, and would fail then\n  hint: create it first (mkdir -p {}), or write the file elsewhere",
                path.display(),
                parent.display(),
                parent.display()
            );
        }
    }
    rehearse::cache::check_roots().map_err(|m| anyhow::anyhow!(m))?;
    Ok(())
}
