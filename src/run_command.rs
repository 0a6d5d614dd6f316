//! `rehearse run` and `rehearse gc`: glue between the CLI and the library's trial runner.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use rehearse::exit::Outcome;
use rehearse::report::{self, RunReport, RUN_SCHEMA};
use rehearse::runtime::RuntimeKind;
use rehearse::scenario::{CheckpointSource, Scenario};
use rehearse::trial::{self, Generate, TrialEvent, TrialSettings};

use crate::cli::RunArgs;

/// `eprintln!` that ignores a closed stderr: a progress line is not worth a panic, which would
/// skip the cleanup of this run's containers and local processes.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Progress of a run as one line per event on stderr (stdout carries the report).
fn progress() -> impl FnMut(TrialEvent) + Send {
    move |event: TrialEvent| {
        let line = match event {
            TrialEvent::SandboxCreated { path, files } => format!(
                "sandbox {} ({files} files copied and hashed)",
                path.display()
            ),
            TrialEvent::KafkaReady { bootstrap, seconds } => {
                format!("kafka ready at {bootstrap} after {seconds:.1} s")
            }
            TrialEvent::KafkaSeeded(s) => format!(
                "kafka seeded: {} filler + {} fresh records over {}",
                s.filler_records,
                s.fresh_records,
                s.topics
                    .iter()
                    .map(|(t, p)| format!("{t} ({p} partitions)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TrialEvent::SparkStarted { image } => format!("spark-submit started in {image}"),
            TrialEvent::BatchCommitted { done, of } => {
                format!("source checkpoint: batch {done}/{of} committed")
            }
            TrialEvent::VerdictReached {
                target,
                classification,
            } => {
                format!(
                    "spark {target}: {} (rule {})",
                    classification.verdict, classification.rule
                )
            }
        };
        say!("  {line}");
    }
}

/// `rehearse run SCENARIO`.
pub fn run(args: RunArgs) -> anyhow::Result<Outcome> {
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
        tokio::select! {
            r = run_scenario(&scenario, &settings) => r,
            _ = tokio::signal::ctrl_c() => {
                say!("interrupted: removing this rehearsal's containers and processes");
                sweep_this_process().await;
                std::process::exit(Outcome::Interrupted.code());
            }
        }
    })?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        report::write(report::ReportFormat::Json, &report, &mut out)?;
    } else {
        let style = report::TerminalStyle {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        report::write(report::ReportFormat::Terminal(style), &report, &mut out)?;
    }
    out.flush()?;
    if let Some(path) = &args.junit {
        let mut f = std::fs::File::create(path)
            .with_context(|| format!("cannot write JUnit report {}", path.display()))?;
        report::write(report::ReportFormat::Junit, &report, &mut f)?;
    }
    if let Some(path) = &args.markdown {
        let mut f = std::fs::File::create(path)
            .with_context(|| format!("cannot write Markdown report {}", path.display()))?;
        report::write(report::ReportFormat::Markdown, &report, &mut f)?;
    }
    if report.trials.iter().any(|t| !t.source_untouched) {
        say!("error: the source checkpoint changed during the rehearsal; see the notes in the report");
        return Ok(Outcome::SourceChanged);
    }
    Ok(report::outcome(&report))
}

async fn run_scenario(scenario: &Scenario, settings: &TrialSettings) -> anyhow::Result<RunReport> {
    let mut on_event = progress();
    let mut versions: Vec<String> = scenario.targets.clone();
    let (source, source_version) = match &scenario.checkpoint {
        CheckpointSource::Path(p) => (p.clone(), None),
        CheckpointSource::Generate { spark, .. } => {
            versions.push(spark.clone());
            (std::path::PathBuf::new(), Some(spark.clone()))
        }
    };
    let (runtime, kafka, wanted) = (
        settings.runtime,
        scenario.kafka_version.clone(),
        versions.clone(),
    );
    // Off the async thread, so Ctrl-C is still heard during a long first build or install.
    tokio::task::spawn_blocking(move || prepare_runtime(runtime, &wanted, &kafka))
        .await
        .context("preparing the runtime stopped")??;
    let source = match &scenario.checkpoint {
        CheckpointSource::Path(_) => source,
        CheckpointSource::Generate {
            spark,
            batches,
            records_per_batch,
            extra_args,
        } => {
            let g = Generate {
                spark: spark.clone(),
                batches: *batches,
                records_per_batch: *records_per_batch,
                extra_args: extra_args.clone(),
                runtime: settings.runtime,
                spark_memory_mb: None,
            };
            match trial::cached_checkpoint(scenario, &g) {
                Some(path) => say!(
                    "using the source checkpoint generated earlier with Spark {spark}: {} (remove it to generate anew)",
                    path.display()
                ),
                None => say!("generating the source checkpoint with Spark {spark} ({batches} data batches)"),
            }
            trial::generate_checkpoint(scenario, &g, trial::Broker::Own, &mut on_event).await?
        }
    };
    let inspection = rehearse::checkpoint::inspect(&source)?;
    let mut trials = Vec::new();
    for target in &scenario.targets {
        say!("rehearsing on Spark {target}");
        trials.push(
            trial::run_trial(
                scenario,
                &source,
                &inspection,
                target,
                settings,
                trial::Broker::Own,
                &mut on_event,
            )
            .await?,
        );
    }
    Ok(RunReport {
        schema: RUN_SCHEMA,
        scenario: scenario.name.clone(),
        source_checkpoint: source,
        source_version,
        trials,
    })
}

/// Makes `runtime` ready for these Spark versions and the Kafka version: the images (built if
/// missing) for Docker, the host installs (after checking the host can run them) for local.
pub(crate) fn prepare_runtime(
    runtime: RuntimeKind,
    spark_versions: &[String],
    kafka_version: &str,
) -> anyhow::Result<()> {
    match runtime {
        RuntimeKind::Docker => ensure_images(spark_versions, kafka_version),
        RuntimeKind::Local => {
            let mut unique = spark_versions.to_vec();
            unique.sort();
            unique.dedup();
            let mut progress = |line: &str| say!("  {line}");
            rehearse::runtime::prepare_local(&unique, kafka_version, &mut progress)?;
            Ok(())
        }
    }
}

fn ensure_images(spark_versions: &[String], kafka_version: &str) -> anyhow::Result<()> {
    let mut progress = |line: &str| say!("  {line}");
    rehearse::images::ensure_kafka(
        kafka_version,
        rehearse::images::ImageSourceKind::default(),
        &mut progress,
    )?;
    let mut seen = std::collections::BTreeSet::new();
    for v in spark_versions {
        if seen.insert(v.clone()) {
            rehearse::images::ensure_spark(
                v,
                rehearse::images::ImageSourceKind::default(),
                &mut progress,
            )?;
        }
    }
    Ok(())
}

/// Removes this process's containers and host processes after Ctrl-C, twice: a container
/// whose creation was in flight when the run was dropped appears only after the first sweep
/// (seen: a suite's Kafka broker left running).
pub(crate) async fn sweep_this_process() {
    let _ = rehearse::runtime::gc(rehearse::runtime::GcScope::ThisProcess).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let _ = rehearse::runtime::gc(rehearse::runtime::GcScope::ThisProcess).await;
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
