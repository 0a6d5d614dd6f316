//! One trial: restart one checkpoint on one target Spark version and reach a verdict; and the
//! generation of a source checkpoint with real Spark for scenarios that ask for one.
//!
//! Flow of a trial (DESIGN.md): sandbox copy (hashed) → Kafka container → seeding → Spark
//! container running the job against the copy → the watcher reads the driver log and the
//! event log until the verdict is certain or the timeout passes → containers removed → the
//! source is hashed again. A trial never prints: it reports progress as [`TrialEvent`]s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::checkpoint::{Inspection, KafkaOffsets};
use crate::report::{SeedingSummary, TrialReport};
use crate::runtime::{self, KafkaBroker, SparkDriver, TrialIds};
use crate::sandbox::{Sandbox, SandboxError};
use crate::scenario::{fill, Job, Placeholders, Scenario};
use crate::spark::{self, Submit};
use crate::verdict::{Classification, Ended, TrialContext, Verdict, Watcher};

/// Something that happened during a trial or a generation, in the past tense.
#[derive(Debug, Clone)]
pub enum TrialEvent {
    /// The sandbox copy was made and hashed.
    SandboxCreated {
        /// Sandbox root.
        path: PathBuf,
        /// Files copied.
        files: usize,
    },
    /// The Kafka container answered a metadata request.
    KafkaReady {
        /// Bootstrap servers for the host.
        bootstrap: String,
        /// Seconds from start to ready.
        seconds: f64,
    },
    /// Kafka was seeded.
    KafkaSeeded(SeedingSummary),
    /// The Spark container started running spark-submit.
    SparkStarted {
        /// The image.
        image: String,
    },
    /// While generating: a data batch was committed.
    BatchCommitted {
        /// Batches committed so far.
        done: u32,
        /// Batches wanted.
        of: u32,
    },
    /// The verdict was reached.
    VerdictReached {
        /// Target version.
        target: String,
        /// The classification.
        classification: Box<Classification>,
    },
}

/// Why a trial (or generation) could not run. A failed restart is NOT an error: it is a verdict.
#[derive(Debug, thiserror::Error)]
pub enum TrialError {
    /// Making or checking the sandbox failed.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// A container could not be started or stopped.
    #[error(transparent)]
    Runtime(#[from] runtime::RuntimeError),
    /// Kafka did not answer or refused seeding.
    #[error(transparent)]
    Kafka(#[from] crate::kafka::KafkaError),
    /// A job argument names something the scenario does not define.
    #[error("scenario {scenario}: {message}")]
    Args {
        /// Scenario file.
        scenario: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Staging files into the sandbox failed.
    #[error("cannot stage {path} into the sandbox")]
    Stage {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Generating the source checkpoint failed; the tail of the driver log says why.
    #[error("generating the source checkpoint with Spark {spark} failed: {reason}\n--- last driver log lines ({log}) ---\n{tail}")]
    Generation {
        /// Source Spark version.
        spark: String,
        /// What went wrong.
        reason: String,
        /// Full driver log path.
        log: PathBuf,
        /// Its last lines.
        tail: String,
    },
    /// Rebasing offsets in the sandbox copy failed.
    #[error(transparent)]
    Rebase(#[from] crate::kafka::RebaseError),
    /// The generated checkpoint could not be inspected.
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
}

/// A trial that could not start or whose source checkpoint could not be generated is the
/// environment's fault; the other variants name a file or scenario key to fix.
impl crate::exit::HasErrorKind for TrialError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        use crate::exit::ErrorKind;
        match self {
            TrialError::Runtime(_) | TrialError::Kafka(_) | TrialError::Generation { .. } => {
                ErrorKind::Environment
            }
            TrialError::Sandbox(_)
            | TrialError::Args { .. }
            | TrialError::Stage { .. }
            | TrialError::Rebase(_)
            | TrialError::Checkpoint(_) => ErrorKind::BadInput,
        }
    }
}

/// Settings shared by the trials of one run.
#[derive(Debug, Clone, Default)]
pub struct TrialSettings {
    /// Parent directory for sandboxes (default: system temp dir).
    pub report_dir: Option<PathBuf>,
    /// Keep sandboxes after the trial.
    pub keep: bool,
    /// Memory cap of each Spark container in MiB (`rehearse matrix` sets it; `None`: no cap;
    /// not applied on the local runtime).
    pub spark_memory_mb: Option<u64>,
    /// Where Kafka and Spark run: containers (default) or host processes.
    pub runtime: runtime::RuntimeKind,
}

/// Runs one trial of `scenario` on `target`, restarting a copy of `source` (inspected as
/// `inspection`). Returns the report of the trial, whatever its verdict.
pub async fn run_trial(
    scenario: &Scenario,
    source: &Path,
    inspection: &Inspection,
    target: &str,
    settings: &TrialSettings,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<TrialReport, TrialError> {
    run_trial_with(
        scenario, source, inspection, target, settings, None, on_event,
    )
    .await
}

/// A Kafka broker shared by several trials (a suite): its topics for this trial's checkpoint
/// were already seeded (`seeding` says how), so the trial only checks the broker is not short.
pub struct SharedKafka<'a> {
    /// The broker.
    pub kafka: &'a KafkaBroker,
    /// Its Docker network, which the trial's Spark container joins.
    pub network: &'a str,
    /// How the topics of this checkpoint were seeded.
    pub seeding: SeedingSummary,
}

/// [`run_trial`] on a broker of its own (`shared` = `None`), or on a suite's shared broker.
/// With a shared broker the sandbox copy is never rebased (the suite seeded the topics for the
/// checkpoint as it is).
pub async fn run_trial_with(
    scenario: &Scenario,
    source: &Path,
    inspection: &Inspection,
    target: &str,
    settings: &TrialSettings,
    shared: Option<SharedKafka<'_>>,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<TrialReport, TrialError> {
    let mut sandbox = Sandbox::create(
        source,
        settings.report_dir.as_deref(),
        &format!("{}-{target}", scenario.name),
    )?;
    on_event(TrialEvent::SandboxCreated {
        path: sandbox.path().to_path_buf(),
        files: sandbox.source_hashes.files.len(),
    });
    let app = stage_job(scenario, sandbox.path(), target)?;
    let ids = match &shared {
        Some(s) => TrialIds::joining(&scenario.name, s.network),
        None => TrialIds::new(&scenario.name),
    }
    .with_runtime(settings.runtime);
    let job_sandbox = settings.runtime.job_sandbox(sandbox.path());
    let mut notes = Vec::new();
    // Production offsets are often far too large to produce: rebase them in the copy, and read
    // the copy back so seeding and the resume proof use the rebased offsets.
    let rebased = if shared.is_none()
        && crate::kafka::rebase_needed(
            &inspection.required_kafka_offsets(),
            scenario.rebase_threshold,
        ) {
        let r = crate::kafka::rebase(&sandbox.checkpoint())?;
        notes.push(format!(
            "Kafka offsets rebased in the sandbox copy (more than {} records per partition to produce): \
             subtracted {} from offset log files {:?}; batch-to-batch differences kept",
            scenario.rebase_threshold,
            crate::checkpoint::kafka_offsets_json(&r.bases),
            r.files
        ));
        Some(crate::checkpoint::inspect(&sandbox.checkpoint())?)
    } else {
        None
    };
    let used = rebased.as_ref().unwrap_or(inspection);

    let (own_kafka, preseeded) = match shared {
        Some(s) => (None, Some((s.kafka, s.seeding))),
        None => (
            Some(start_ready_kafka(&ids, scenario, on_event).await?),
            None,
        ),
    };
    let Some(kafka) = own_kafka.as_ref().or(preseeded.as_ref().map(|(k, _)| *k)) else {
        // Unreachable: exactly one of the two is set just above.
        return Err(TrialError::Args {
            scenario: scenario.file.clone(),
            message: "internal: a trial without a Kafka broker".into(),
        });
    };
    let result = async {
        let (mut seeding, kafka_short) = match preseeded {
            Some((_, seeding)) => {
                let short = kafka_short_of(kafka, used).await?;
                (seeding, short)
            }
            None => seed_for(kafka, used, scenario).await?,
        };
        seeding.rebased = rebased.is_some();
        on_event(TrialEvent::KafkaSeeded(seeding.clone()));

        let mut args = scenario.args.clone();
        args.extend(scenario.restart_args.iter().cloned());
        let cmd = submit(scenario, target, &job_sandbox, &app, &args, kafka)?;
        let started = Instant::now();
        let spark =
            runtime::start_spark(&ids, target, sandbox.path(), cmd, settings.spark_memory_mb)
                .await?;
        on_event(TrialEvent::SparkStarted {
            image: spark.describe().to_string(),
        });
        let ctx = crate::verdict::TrialContext {
            // Fresh records were seeded: a resume must also be seen reading them. (A Kafka short
            // of the checkpoint has its own proof below: Spark's data-loss error, or the grace.)
            require_input_rows: seeding.fresh_records > 0 && kafka_short.is_none(),
            ..crate::verdict::TrialContext::from_inspection(used)
        };
        let classification = watch(
            &spark,
            sandbox.path(),
            ctx,
            scenario.timeout_seconds,
            kafka_short,
        )
        .await;
        let seconds = started.elapsed().as_secs_f64();
        let _ = spark.stop(Duration::from_secs(5)).await;
        spark.remove().await?;
        Ok::<_, TrialError>((classification, seconds, seeding))
    }
    .await;
    if let Some(k) = own_kafka {
        k.remove().await?;
    }
    let (classification, seconds, seeding) = result?;
    on_event(TrialEvent::VerdictReached {
        target: target.to_string(),
        classification: Box::new(classification.clone()),
    });

    let changes = sandbox.source_hashes.changes_since(source)?;
    if !changes.is_empty() {
        notes.push(format!(
            "THE SOURCE CHECKPOINT CHANGED during the trial: {}",
            changes.join(", ")
        ));
    }
    let kept = if settings.keep {
        Some(sandbox.keep())
    } else {
        None
    };
    Ok(TrialReport {
        target_version: target.to_string(),
        verdict: classification.verdict,
        expected_verdict: scenario.expect.get(target).copied(),
        rule: classification.rule,
        evidence: classification.evidence,
        last_committed_batch: classification.last_committed_batch,
        first_batch_after_restart: classification.first_batch_after_restart,
        start_offsets_match: classification.start_offsets_match,
        seconds_to_verdict: seconds,
        source_untouched: changes.is_empty(),
        remedy: classification.remedy,
        starting_offsets: inspection.starting_offsets(),
        seeding,
        sandbox: kept,
        notes,
    })
}

/// Seeds the trial's Kafka for `inspection` (the checkpoint the restart will read) and returns
/// the seeding summary and, when the broker still ends below the checkpoint's offsets (topics
/// the scenario leaves short), the harness's evidence of it.
async fn seed_for(
    kafka: &KafkaBroker,
    inspection: &Inspection,
    scenario: &Scenario,
) -> Result<(SeedingSummary, Option<String>), TrialError> {
    let required = inspection.required_kafka_offsets();
    let plan = crate::kafka::plan(
        &required,
        &inspection.kafka_partition_counts(),
        &scenario.topics,
    );
    let seeding = crate::kafka::seed(&kafka.host_bootstrap, &plan).await?;
    Ok((seeding, kafka_short_of(kafka, inspection).await?))
}

/// The harness's evidence that `kafka` ends below the offsets `inspection` needs, if it does.
async fn kafka_short_of(
    kafka: &KafkaBroker,
    inspection: &Inspection,
) -> Result<Option<String>, TrialError> {
    let required = inspection.required_kafka_offsets();
    let topics: Vec<String> = required.keys().cloned().collect();
    let ends = crate::kafka::end_offsets(&kafka.host_bootstrap, &topics).await?;
    Ok(kafka_shortfall(&ends, &required))
}

/// Starts the scenario's Kafka image on `ids.network` and waits until it answers a metadata
/// request (at most 120 s); removes it again if it never does.
pub async fn start_ready_kafka(
    ids: &TrialIds,
    scenario: &Scenario,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<KafkaBroker, TrialError> {
    let started = Instant::now();
    let kafka = runtime::start_kafka(ids, &scenario.kafka_version).await?;
    if let Err(e) = crate::kafka::wait_ready(&kafka.host_bootstrap, Duration::from_secs(120)).await
    {
        let _ = kafka.remove().await;
        return Err(e.into());
    }
    on_event(TrialEvent::KafkaReady {
        bootstrap: kafka.host_bootstrap.clone(),
        seconds: started.elapsed().as_secs_f64(),
    });
    Ok(kafka)
}

/// Copies the job (a PySpark file and the `.py` files beside it, or a jar) into `job/` and the
/// harness's logging config into `conf/`. Returns the app path relative to the sandbox.
fn stage_job(scenario: &Scenario, sandbox: &Path, version: &str) -> Result<String, TrialError> {
    let stage = |from: &Path, to: PathBuf| -> Result<(), TrialError> {
        std::fs::copy(from, &to)
            .map(|_| ())
            .map_err(|source| TrialError::Stage {
                path: from.to_path_buf(),
                source,
            })
    };
    let app = match &scenario.job {
        Job::Python { file } => {
            if let Some(dir) = file.parent() {
                let siblings = std::fs::read_dir(dir).map_err(|source| TrialError::Stage {
                    path: dir.to_path_buf(),
                    source,
                })?;
                for entry in siblings.flatten() {
                    let p = entry.path();
                    if p.extension().is_some_and(|e| e == "py") && p.is_file() {
                        stage(&p, sandbox.join("job").join(entry.file_name()))?;
                    }
                }
            }
            stage(
                file,
                sandbox
                    .join("job")
                    .join(file.file_name().unwrap_or_default()),
            )?;
            file.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        }
        Job::Jar { jar, .. } => {
            stage(
                jar,
                sandbox
                    .join("job")
                    .join(jar.file_name().unwrap_or_default()),
            )?;
            jar.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        }
    };
    let (name, text) = spark::logging_config(version);
    let conf = sandbox.join("conf").join(name);
    std::fs::write(&conf, text).map_err(|source| TrialError::Stage { path: conf, source })?;
    Ok(format!("job/{app}"))
}

/// The spark-submit argv of `scenario`'s job, with `sandbox` the sandbox as the job sees it
/// (`RuntimeKind::job_sandbox`) and `app` relative to it.
fn submit(
    scenario: &Scenario,
    version: &str,
    sandbox: &Path,
    app: &str,
    args: &[String],
    kafka: &KafkaBroker,
) -> Result<Vec<String>, TrialError> {
    let placeholders = Placeholders {
        checkpoint: sandbox.join("checkpoint").to_string_lossy().into_owned(),
        bootstrap_servers: kafka.internal_bootstrap.clone(),
        output: sandbox.join("output").to_string_lossy().into_owned(),
    };
    let args = args
        .iter()
        .map(|a| fill(a, &placeholders, &scenario.topics))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|message| TrialError::Args {
            scenario: scenario.file.clone(),
            message,
        })?;
    let main_class = match &scenario.job {
        Job::Jar { main_class, .. } => Some(main_class.clone()),
        Job::Python { .. } => None,
    };
    Ok(spark::submit_command(&Submit {
        version: version.to_string(),
        sandbox: sandbox.to_path_buf(),
        app: sandbox.join(app).to_string_lossy().into_owned(),
        main_class,
        args,
        conf: scenario.conf.clone(),
    }))
}

/// Feeds the driver log and the event log to the watcher until it is certain, the container
/// exits, or the timeout passes. Every line is also appended to `logs/driver.log`.
///
/// `kafka_short` is the harness's own evidence that the sandbox Kafka ends below offsets the
/// checkpoint needs. Then a `resumed` is not final: Spark can re-run what Kafka still holds
/// before it reads past the end, so the driver is watched on (at most [`SHORT_KAFKA_GRACE`]) for
/// Spark's own data-loss failure, and the verdict is `kafka-data-loss` either way.
async fn watch(
    spark: &SparkDriver,
    sandbox: &Path,
    ctx: TrialContext,
    timeout_seconds: u64,
    kafka_short: Option<String>,
) -> Classification {
    let mut stream = DriverStream {
        lines: spark.lines(),
        log: std::fs::File::create(sandbox.join("logs/driver.log")).ok(),
        events: EventLogTail::new(sandbox.join("eventlog")),
        pending: std::collections::VecDeque::new(),
        tick: tokio::time::interval(Duration::from_millis(500)),
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout_seconds);
    let mut watcher = Watcher::new(ctx.clone());
    let first = loop {
        match stream.next(deadline).await {
            Next::Line(text) => {
                if let Some(c) = watcher.push_line(&text) {
                    break c;
                }
            }
            Next::Event(event) => {
                if let Some(c) = watcher.push_event(&event) {
                    break c;
                }
            }
            Next::Exited => break watcher.finish(Ended::Exited(exit_code_after_exit(spark).await)),
            Next::TimedOut => break watcher.finish(Ended::TimedOut(timeout_seconds)),
        }
    };
    let Some(short) = kafka_short else {
        return first;
    };
    if first.verdict != Verdict::Resumed {
        return first;
    }
    // Collect what the driver says after the re-run batch, then judge those lines alone.
    let grace = deadline.min(tokio::time::Instant::now() + SHORT_KAFKA_GRACE);
    let mut after = Vec::new();
    loop {
        match stream.next(grace).await {
            Next::Line(text) => after.push(text),
            Next::Event(_) => {}
            Next::Exited | Next::TimedOut => break,
        }
    }
    let spark_says =
        crate::verdict::classify(after.iter().map(String::as_str), std::iter::empty(), &ctx);
    let mut evidence = vec![short];
    let rule = if spark_says.verdict == Verdict::KafkaDataLoss {
        evidence.extend(spark_says.evidence);
        spark_says.rule
    } else {
        evidence.push(format!(
            "Spark re-ran the batches Kafka still holds (first: {}) and gave no data-loss error within {} s; \
             a production restart with this Kafka would miss the records the checkpoint points past",
            first.first_batch_after_restart.map(|b| b.to_string()).unwrap_or_else(|| "-".into()),
            SHORT_KAFKA_GRACE.as_secs()
        ));
        "kafka-short-of-checkpoint".to_string()
    };
    Classification {
        verdict: Verdict::KafkaDataLoss,
        rule,
        evidence,
        remedy: "Kafka no longer holds records the checkpoint needs (retention, or a recreated topic): \
                 restore them, or restart on a fresh checkpoint with startingOffsets at what Kafka still has, accepting the loss."
            .to_string(),
        ..first
    }
}

/// How long a trial watches on after a `resumed` when Kafka is short of the checkpoint.
const SHORT_KAFKA_GRACE: Duration = Duration::from_secs(60);

/// The harness's evidence that Kafka ends below what the checkpoint needs, if it does:
/// one line naming each short topic-partition.
fn kafka_shortfall(ends: &KafkaOffsets, required: &KafkaOffsets) -> Option<String> {
    let mut short = Vec::new();
    for (topic, parts) in required {
        for (p, need) in parts {
            let end = ends.get(topic).and_then(|m| m.get(p)).copied().unwrap_or(0);
            if end < *need {
                short.push(format!(
                    "{topic}/{p} ends at {end}, the checkpoint needs {need}"
                ));
            }
        }
    }
    (!short.is_empty()).then(|| {
        format!(
            "sandbox Kafka is short of the checkpoint's offsets: {}",
            short.join("; ")
        )
    })
}

enum Next {
    Line(String),
    Event(String),
    Exited,
    TimedOut,
}

/// The driver's output as one ordered stream: log lines (also written to `logs/driver.log`),
/// new event-log lines every half second, then the end.
struct DriverStream {
    lines: tokio::sync::mpsc::Receiver<crate::runtime::LogLine>,
    log: Option<std::fs::File>,
    events: EventLogTail,
    pending: std::collections::VecDeque<String>,
    tick: tokio::time::Interval,
}

impl DriverStream {
    async fn next(&mut self, deadline: tokio::time::Instant) -> Next {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Next::Event(e);
            }
            tokio::select! {
                line = self.lines.recv() => match line {
                    Some(line) => {
                        if let Some(f) = self.log.as_mut() {
                            let _ = writeln!(f, "{}", line.text);
                        }
                        return Next::Line(line.text);
                    }
                    None => {
                        // Both streams ended: the driver exited. The event log may still hold more.
                        self.pending.extend(self.events.read_new());
                        return match self.pending.pop_front() {
                            Some(e) => Next::Event(e),
                            None => Next::Exited,
                        };
                    }
                },
                _ = self.tick.tick() => {
                    self.pending.extend(self.events.read_new());
                    if self.pending.is_empty() && tokio::time::Instant::now() >= deadline {
                        return Next::TimedOut;
                    }
                }
            }
        }
    }
}

async fn exit_code_after_exit(spark: &SparkDriver) -> Option<i64> {
    for _ in 0..20 {
        if let Some(code) = spark.exit_code().await {
            return Some(code);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

/// Follows the newest event-log file in a directory (Spark writes `<app-id>.inprogress`,
/// renamed when the application ends), returning complete new lines.
struct EventLogTail {
    dir: PathBuf,
    file: Option<PathBuf>,
    offset: u64,
}

impl EventLogTail {
    fn new(dir: PathBuf) -> EventLogTail {
        EventLogTail {
            dir,
            file: None,
            offset: 0,
        }
    }

    fn read_new(&mut self) -> Vec<String> {
        use std::io::{Read, Seek, SeekFrom};
        if self.file.as_ref().is_none_or(|f| !f.exists()) {
            let stem = self
                .file
                .as_ref()
                .and_then(|f| f.file_stem())
                .map(|s| s.to_os_string());
            let found = std::fs::read_dir(&self.dir).ok().and_then(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .find(|p| {
                        stem.as_ref()
                            .is_none_or(|s| p.file_stem() == Some(s) || p.file_name() == Some(s))
                    })
            });
            if found.is_none() {
                return Vec::new();
            }
            self.file = found;
        }
        let Some(path) = &self.file else {
            return Vec::new();
        };
        let Ok(mut f) = std::fs::File::open(path) else {
            return Vec::new();
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return Vec::new();
        }
        let Some(last_newline) = buf.iter().rposition(|b| *b == b'\n') else {
            return Vec::new();
        };
        self.offset += last_newline as u64 + 1;
        String::from_utf8_lossy(&buf[..last_newline])
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// The cached source checkpoint for `g`, if an earlier run generated it.
pub fn cached_checkpoint(scenario: &Scenario, g: &Generate) -> Option<PathBuf> {
    let key = generation_key(scenario, g).ok()?;
    let dir = crate::cache::checkpoints().join(key);
    dir.join("complete")
        .exists()
        .then(|| dir.join("checkpoint"))
}

/// What a generation run needs.
#[derive(Debug, Clone)]
pub struct Generate {
    /// Source Spark version.
    pub spark: String,
    /// Data batches to commit.
    pub batches: u32,
    /// Records per partition per batch.
    pub records_per_batch: u64,
    /// Extra job args while generating.
    pub extra_args: Vec<String>,
    /// Where the generating Kafka and Spark run (with a suite's shared broker: the broker's).
    pub runtime: runtime::RuntimeKind,
    /// Memory cap of the generating Spark container, MiB (`None`: no cap).
    pub spark_memory_mb: Option<u64>,
}

/// Writes a source checkpoint with real Spark (cached by job, args, conf, topics, version and
/// batches) and returns its directory. Kafka gets `records_per_batch` records per partition,
/// one round per batch; the next round is produced once `commits/` holds a batch whose end
/// offsets cover the previous round, so exactly `batches` data batches are committed.
pub async fn generate_checkpoint(
    scenario: &Scenario,
    g: &Generate,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<PathBuf, TrialError> {
    generate_checkpoint_with(scenario, g, None, on_event).await
}

/// [`generate_checkpoint`] on a broker of its own (`shared` = `None`) or on a suite's broker
/// and network (`(kafka, network)`); the scenario's topics must then be the generation's alone.
pub async fn generate_checkpoint_with(
    scenario: &Scenario,
    g: &Generate,
    shared: Option<(&KafkaBroker, &str)>,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<PathBuf, TrialError> {
    let key = generation_key(scenario, g)?;
    let dest = crate::cache::checkpoints().join(&key);
    if dest.join("complete").exists() {
        return Ok(dest.join("checkpoint"));
    }
    let empty = tempfile::tempdir().map_err(|source| TrialError::Stage {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut work = Sandbox::create(
        empty.path(),
        None,
        &format!("{}-generate-{}", scenario.name, g.spark),
    )?;
    let app = stage_job(scenario, work.path(), &g.spark)?;
    let result = match shared {
        Some((kafka, network)) => {
            let ids = TrialIds::joining(&scenario.name, network).with_runtime(kafka.runtime());
            generate_with(scenario, g, &ids, kafka, &app, work.path(), on_event).await
        }
        None => {
            let ids = TrialIds::new(&scenario.name).with_runtime(g.runtime);
            let kafka = start_ready_kafka(&ids, scenario, on_event).await?;
            let result =
                generate_with(scenario, g, &ids, &kafka, &app, work.path(), on_event).await;
            kafka.remove().await?;
            result
        }
    };
    if let Err(e) = result {
        work.keep();
        return Err(e);
    }
    let staging = crate::cache::checkpoints().join(format!("{key}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(staging.join("checkpoint")).map_err(|source| TrialError::Stage {
        path: staging.clone(),
        source,
    })?;
    crate::sandbox::copy_tree(&work.checkpoint(), &staging.join("checkpoint"))?;
    let _ = std::fs::copy(
        work.path().join("logs/driver.log"),
        staging.join("driver.log"),
    );
    std::fs::write(
        staging.join("complete"),
        format!("spark {}\nbatches {}\n", g.spark, g.batches),
    )
    .map_err(|source| TrialError::Stage {
        path: staging.clone(),
        source,
    })?;
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::rename(&staging, &dest).map_err(|source| TrialError::Stage {
        path: dest.clone(),
        source,
    })?;
    Ok(dest.join("checkpoint"))
}

async fn generate_with(
    scenario: &Scenario,
    g: &Generate,
    ids: &TrialIds,
    kafka: &KafkaBroker,
    app: &str,
    work: &Path,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<(), TrialError> {
    let topics: Vec<(String, u32)> = scenario
        .topics
        .iter()
        .map(|t| (t.name.clone(), t.partitions))
        .collect();
    crate::kafka::create_topics(&kafka.host_bootstrap, &topics).await?;
    let produce_round = |round: u64| {
        let bootstrap = kafka.host_bootstrap.clone();
        let topics = scenario.topics.clone();
        let per = g.records_per_batch;
        async move {
            tokio::task::spawn_blocking(move || {
                for t in &topics {
                    for p in 0..t.partitions {
                        crate::kafka::produce(
                            &bootstrap,
                            &t.name,
                            p,
                            &t.records,
                            round * per,
                            per,
                        )?;
                    }
                }
                Ok::<_, crate::kafka::KafkaError>(())
            })
            .await
            .map_err(|e| crate::kafka::KafkaError::Client {
                bootstrap: String::new(),
                message: e.to_string(),
            })?
        }
    };
    produce_round(0).await?;
    let mut args = scenario.args.clone();
    args.extend(g.extra_args.iter().cloned());
    let job_sandbox = ids.runtime.job_sandbox(work);
    let cmd = submit(scenario, &g.spark, &job_sandbox, app, &args, kafka)?;
    let spark = runtime::start_spark(ids, &g.spark, work, cmd, g.spark_memory_mb).await?;
    on_event(TrialEvent::SparkStarted {
        image: spark.describe().to_string(),
    });
    let log_path = work.join("logs/driver.log");
    let outcome = follow_generation(
        &spark,
        scenario,
        g,
        work,
        &log_path,
        &produce_round,
        on_event,
    )
    .await;
    let _ = spark.stop(Duration::from_secs(20)).await;
    let _ = spark.remove().await;
    outcome.map_err(|reason| TrialError::Generation {
        spark: g.spark.clone(),
        reason,
        tail: tail(&log_path, 40),
        log: log_path,
    })
}

async fn follow_generation<F, Fut>(
    spark: &SparkDriver,
    scenario: &Scenario,
    g: &Generate,
    work: &Path,
    log_path: &Path,
    produce_round: &F,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<(), String>
where
    F: Fn(u64) -> Fut,
    Fut: std::future::Future<Output = Result<(), crate::kafka::KafkaError>>,
{
    let mut lines = spark.lines();
    let mut log = std::fs::File::create(log_path)
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(scenario.timeout_seconds);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut done = 0u32;
    let checkpoint = work.join("checkpoint");
    loop {
        tokio::select! {
            line = lines.recv() => match line {
                Some(line) => { let _ = writeln!(log, "{}", line.text); }
                None => return Err(format!("the job exited (code {:?}) after {done} of {} batches", exit_code_after_exit(spark).await, g.batches)),
            },
            _ = tick.tick() => {
                let want = expected_offsets(scenario, (done as u64 + 1) * g.records_per_batch);
                if committed_offsets_reached(&checkpoint, &want) {
                    done += 1;
                    on_event(TrialEvent::BatchCommitted { done, of: g.batches });
                    if done == g.batches {
                        return Ok(());
                    }
                    produce_round(done as u64).await.map_err(|e| e.to_string())?;
                }
                if tokio::time::Instant::now() >= deadline {
                    return Err(format!("timed out after {} s with {done} of {} batches committed", scenario.timeout_seconds, g.batches));
                }
            }
        }
    }
}

fn expected_offsets(scenario: &Scenario, end: u64) -> KafkaOffsets {
    scenario
        .topics
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                (0..t.partitions).map(|p| (p, end as i64)).collect(),
            )
        })
        .collect()
}

/// Whether the last committed batch of the (live) checkpoint has Kafka end offsets ≥ `want`.
fn committed_offsets_reached(checkpoint: &Path, want: &KafkaOffsets) -> bool {
    let Ok(inspection) = crate::checkpoint::inspect(checkpoint) else {
        return false;
    };
    let have = inspection.committed_kafka_offsets();
    want.iter().all(|(topic, parts)| {
        parts.iter().all(|(p, off)| {
            have.get(topic)
                .and_then(|m| m.get(p))
                .is_some_and(|h| h >= off)
        })
    })
}

fn generation_key(scenario: &Scenario, g: &Generate) -> Result<String, TrialError> {
    let mut h = blake3::Hasher::new();
    let job = match &scenario.job {
        Job::Python { file } => file,
        Job::Jar { jar, .. } => jar,
    };
    let bytes = std::fs::read(job).map_err(|source| TrialError::Stage {
        path: job.clone(),
        source,
    })?;
    h.update(&bytes);
    if let (Job::Python { .. }, Some(dir)) = (&scenario.job, job.parent()) {
        let mut siblings: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "py"))
                    .collect()
            })
            .unwrap_or_default();
        siblings.sort();
        for s in siblings {
            h.update(s.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(&std::fs::read(&s).unwrap_or_default());
        }
    }
    let topics: Vec<_> = scenario
        .topics
        .iter()
        .map(|t| format!("{}:{}:{:?}", t.name, t.partitions, t.records))
        .collect();
    h.update(
        format!(
            "{:?}|{:?}|{:?}|{:?}|{}|{}|{}|{}",
            scenario.args,
            g.extra_args,
            scenario.conf,
            topics,
            g.spark,
            g.batches,
            g.records_per_batch,
            scenario.kafka_version
        )
        .as_bytes(),
    );
    Ok(format!(
        "{}-{}-{}",
        scenario.name,
        g.spark,
        &h.finalize().to_hex()[..16]
    ))
}

fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Baseline for the restart benchmark (`cargo bench --bench restart`): restarts a fresh copy of
/// `source` on `target` exactly as a trial does (same image, Kafka seeding, submit command) but
/// with no watcher, and returns the seconds from starting spark-submit to the first
/// "Streaming query made progress" line — what a bare `spark-submit` restart costs.
pub async fn bare_restart_seconds(
    scenario: &Scenario,
    source: &Path,
    inspection: &Inspection,
    target: &str,
) -> Result<f64, TrialError> {
    let sandbox = Sandbox::create(source, None, &format!("{}-bare-{target}", scenario.name))?;
    let app = stage_job(scenario, sandbox.path(), target)?;
    let ids = TrialIds::new(&scenario.name);
    let kafka = start_ready_kafka(&ids, scenario, &mut |_| {}).await?;
    let result = async {
        seed_for(&kafka, inspection, scenario).await?;
        let job_sandbox = ids.runtime.job_sandbox(sandbox.path());
        let cmd = submit(scenario, target, &job_sandbox, &app, &scenario.args, &kafka)?;
        let started = Instant::now();
        let spark = runtime::start_spark(&ids, target, sandbox.path(), cmd, None).await?;
        let mut lines = spark.lines();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(scenario.timeout_seconds);
        let mut seconds = None;
        while let Ok(Some(line)) = tokio::time::timeout_at(deadline, lines.recv()).await {
            if line.text.contains("Streaming query made progress") {
                seconds = Some(started.elapsed().as_secs_f64());
                break;
            }
        }
        let _ = spark.stop(Duration::from_secs(5)).await;
        spark.remove().await?;
        seconds.ok_or_else(|| TrialError::Generation {
            spark: target.to_string(),
            reason: "the bare restart printed no progress line before the timeout".into(),
            log: PathBuf::new(),
            tail: String::new(),
        })
    }
    .await;
    kafka.remove().await?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(rows: &[(&str, u32, i64)]) -> KafkaOffsets {
        let mut out = KafkaOffsets::new();
        for (t, p, o) in rows {
            out.entry(t.to_string()).or_default().insert(*p, *o);
        }
        out
    }

    #[test]
    fn kafka_short_of_the_checkpoint_is_named_per_partition() {
        let required = offsets(&[("events", 0, 15), ("events", 1, 15)]);
        assert_eq!(
            kafka_shortfall(&offsets(&[("events", 0, 20), ("events", 1, 15)]), &required),
            None
        );
        let short =
            kafka_shortfall(&offsets(&[("events", 0, 5), ("events", 1, 20)]), &required).unwrap();
        assert!(
            short.contains("events/0 ends at 5, the checkpoint needs 15"),
            "{short}"
        );
        assert!(!short.contains("events/1"), "{short}");
        let missing = kafka_shortfall(&KafkaOffsets::new(), &required).unwrap();
        assert!(missing.contains("events/1 ends at 0"), "{missing}");
    }

    #[test]
    fn generation_waits_for_the_offsets_of_every_round() {
        let scenario_dir = tempfile::tempdir().unwrap();
        std::fs::write(scenario_dir.path().join("job.py"), "").unwrap();
        std::fs::create_dir(scenario_dir.path().join("x")).unwrap();
        let text = "targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n[[topics]]\nname = \"a\"\npartitions = 3\n";
        let s = Scenario::parse(text, &scenario_dir.path().join("s.toml")).unwrap();
        assert_eq!(
            expected_offsets(&s, 10),
            offsets(&[("a", 0, 10), ("a", 1, 10), ("a", 2, 10)])
        );
    }
}
