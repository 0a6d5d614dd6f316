//! The one library pipeline behind `rehearse run` (and, piece by piece, `rehearse matrix`):
//! make the runtime ready → generate or locate the source checkpoint → inspect it → per target,
//! a trial (copy → seed → restart → verdict) → the [`RunReport`]. Progress goes to the caller
//! as [`RehearsalEvent`]s; nothing here prints.
//!
//! The suite runner (`matrix/run.rs`) calls the same pieces with a shared broker:
//! [`source_checkpoint`], then `trial::seed` once per source checkpoint, then the trials.
//! Ctrl-C is the caller's to watch ([`or_interrupted`]); after it, [`sweep_after_interrupt`]
//! removes what this process started.

use std::path::{Path, PathBuf};

use futures::StreamExt as _;

mod remote;

use crate::checkpoint::{CheckpointError, Inspection};
use crate::images::ImageError;
use crate::report::{RunReport, RUN_SCHEMA};
use crate::runtime::{RuntimeError, RuntimeKind};
use crate::scenario::{CheckpointSource, Scenario};
use crate::trial::{self, Broker, Generate, TrialError, TrialEvent, TrialSettings};
use crate::versions::SparkVersion;

/// Something that happened during a rehearsal, in the past tense.
#[derive(Debug, Clone)]
pub enum RehearsalEvent {
    /// A step of making the runtime ready (an image build, a local install) reported progress.
    RuntimeProgressed {
        /// The step's line.
        line: String,
    },
    /// The source checkpoint was found in the cache: an earlier run generated it.
    CachedSourceFound {
        /// The Spark version that generated it.
        spark: String,
        /// The cached checkpoint.
        path: PathBuf,
    },
    /// Generating the source checkpoint started.
    GenerationStarted {
        /// The generating Spark version.
        spark: String,
        /// Data batches it will commit.
        batches: u32,
    },
    /// The trial on a target version started.
    TrialStarted {
        /// The target Spark version.
        target: String,
    },
    /// Something happened inside the generation or a trial (trials one at a time).
    Trial(TrialEvent),
    /// Trials on `targets` start at once, at most `at_once` running together (`run --jobs`
    /// above 1 with more than one target); their events come as [`RehearsalEvent::TrialOf`]
    /// until [`RehearsalEvent::TrialsFinished`].
    TrialsStarting {
        /// The trials' labels, in report order.
        targets: Vec<String>,
        /// How many run together.
        at_once: usize,
    },
    /// Something happened inside one of the trials running at once.
    TrialOf {
        /// The trial's target version.
        target: String,
        /// What happened.
        event: TrialEvent,
    },
    /// Every trial started by [`RehearsalEvent::TrialsStarting`] finished.
    TrialsFinished,
    /// A remote source checkpoint was inspected by URL; staging it into a local directory
    /// started.
    RemoteSourceStaging {
        /// Its URL.
        url: String,
    },
    /// A remote source checkpoint was staged: the trials copy from `path`.
    RemoteSourceStaged {
        /// Its URL.
        url: String,
        /// The local copy.
        path: PathBuf,
        /// Files staged.
        files: u64,
        /// Bytes staged.
        bytes: u64,
    },
}

/// Why a rehearsal could not run (a failed restart is a verdict, not this).
#[derive(Debug, thiserror::Error)]
pub enum RehearsalError {
    /// An image could not be built or checked.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The local runtime could not be prepared (host check, install).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// Preparing the runtime stopped before it finished (its thread panicked or was cancelled).
    #[error("preparing the runtime stopped")]
    PrepareStopped(#[source] tokio::task::JoinError),
    /// The source checkpoint could not be inspected.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The generation or a trial could not run.
    #[error(transparent)]
    Trial(#[from] TrialError),
    /// A remote source checkpoint could not be opened, listed or read (the message names the
    /// URL and the fix).
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A remote source checkpoint's location holds no checkpoint (or several): the
    /// inspection's message with its fix.
    #[error("{message}\n(hint: {hint})")]
    RemoteNotACheckpoint {
        /// What is there instead (names the URL).
        message: String,
        /// The fix.
        hint: &'static str,
    },
    /// A remote source checkpoint reached a pipeline that does not stage one (a suite's sources
    /// are generated; `rehearse run` stages it before this point).
    #[error("{url} is not staged: only `rehearse run` takes a remote source checkpoint\n(hint: name it in a scenario's [checkpoint] path and run that scenario)")]
    RemoteNotStaged {
        /// The checkpoint's URL.
        url: String,
    },
    /// The scenario does not fit its source checkpoint (a topic the checkpoint does not read).
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
}

/// The kind of the error it wraps. A checkpoint that cannot be inspected is bad input; so is a
/// preparation that stopped (a panic, reported as a bug before this is read), as it was when
/// the binary prepared the runtime itself.
impl crate::exit::HasErrorKind for RehearsalError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        match self {
            RehearsalError::Image(e) => e.error_kind(),
            RehearsalError::Runtime(e) => e.error_kind(),
            RehearsalError::PrepareStopped(_) => crate::exit::ErrorKind::BadInput,
            RehearsalError::Checkpoint(e) => e.error_kind(),
            RehearsalError::Scenario(_) => crate::exit::ErrorKind::BadInput,
            RehearsalError::Trial(e) => e.error_kind(),
            RehearsalError::Store(e) => e.error_kind(),
            RehearsalError::RemoteNotStaged { .. }
            | RehearsalError::RemoteNotACheckpoint { .. } => crate::exit::ErrorKind::BadInput,
        }
    }
}

/// A source checkpoint, found or generated, and inspected.
#[derive(Debug, Clone)]
pub struct SourceCheckpoint {
    /// Its directory.
    pub path: PathBuf,
    /// The Spark version that generated it (`None`: the scenario gave a path).
    pub generated_by: Option<String>,
    /// What inspecting it found.
    pub inspection: Inspection,
}

/// Refuses, before anything starts, a sandbox parent (`--report-dir`, or the system temp dir)
/// inside the scenario's source checkpoint, and a source checkpoint inside an explicit
/// `--report-dir` ([`crate::sandbox::refuse_nesting`]): a copy into its own source would write
/// into the production checkpoint.
///
/// # Errors
/// [`RehearsalError::Trial`] with the sandbox's one-paragraph error (bad input, exit 3).
pub fn refuse_nested_paths(
    scenario: &Scenario,
    settings: &TrialSettings,
) -> Result<(), RehearsalError> {
    if let CheckpointSource::Path(source) = &scenario.checkpoint {
        let (parent, explicit) = match &settings.report_dir {
            Some(dir) => (dir.clone(), true),
            None => (std::env::temp_dir(), false),
        };
        crate::sandbox::refuse_nesting(source, &parent, explicit).map_err(TrialError::from)?;
        crate::sandbox::refuse_cache_inside(source, &crate::cache::root())
            .map_err(TrialError::from)?;
    }
    // The local runtime refuses a sandbox path with whitespace when it starts Spark — after
    // the copy, Kafka and seeding (breaker pass, issue 25 §6): said here, before any of them.
    if matches!(settings.runtime, crate::runtime::RuntimeKind::Local) {
        let parent = settings
            .report_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        crate::runtime::local::check_sandbox_path(&parent).map_err(TrialError::from)?;
    }
    Ok(())
}

/// `rehearse run`: rehearses `scenario` on each of its targets, one trial at a time, each on a
/// Kafka broker of its own, and returns the report (whatever the verdicts).
pub async fn run_scenario(
    scenario: &Scenario,
    settings: &TrialSettings,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<RunReport, RehearsalError> {
    refuse_nested_paths(scenario, settings)?;
    // Cheapest first: a given checkpoint is inspected (and its topics checked against the
    // scenario's) before the job's dependencies are resolved (downloads) and before any image
    // is built: bad input is refused first (issues 15, 17). A remote one is inspected by URL
    // now and staged once after the dependencies (a copy of its working set); the trials copy
    // from the staged directory.
    let mut staged = None;
    let mut remote_source = None;
    let mut given = match &scenario.checkpoint {
        CheckpointSource::Remote(location) => {
            let inspected = remote::inspect(location).await?;
            scenario.check_topics_named(&inspected.inspection)?;
            remote_source = Some(inspected);
            None
        }
        CheckpointSource::Path(_) => {
            let source = source_checkpoint(
                scenario,
                settings.runtime.for_generation(),
                None,
                settings.report_dir.as_deref(),
                Broker::Own,
                on_event,
            )
            .await?;
            scenario.check_topics_named(&source.inspection)?;
            scenario.check_regular_files(&source.inspection)?;
            Some(source)
        }
        CheckpointSource::Generate { .. } => None,
    };
    // [kafka.mirror]: the production cluster answers, takes the credentials and has every
    // checkpointed topic and partition — checked with one record per partition before any
    // image or container; each trial reads its records then.
    if let (Some(m), Some(source)) = (&scenario.mirror, &given) {
        let probe = crate::scenario::MirrorConfig {
            history: 0,
            fresh: 1,
            ..m.clone()
        };
        crate::kafka::read_mirror_async(&probe, &source.inspection.required_kafka_offsets())
            .await
            .map_err(TrialError::from)?;
    }
    // --fresh: a checkpoint without a committed batch has no offsets to start from.
    if let Some(inspected) = given
        .as_ref()
        .map(|g| &g.inspection)
        .or(remote_source.as_ref().map(|r| &r.inspection))
    {
        fresh_possible(scenario, inspected)?;
    }
    // --control: the version the control runs on is known now (the scenario's, the generating
    // version, or the checkpoint's writer) or refused before anything is built or started.
    let control_version = if scenario.parity.control {
        let inspected = given
            .as_ref()
            .map(|g| &g.inspection)
            .or(remote_source.as_ref().map(|r| &r.inspection));
        Some(
            trial::control_version(scenario, inspected).map_err(|message| {
                crate::scenario::ScenarioError::Invalid {
                    path: scenario.file.clone(),
                    message,
                }
            })?,
        )
    } else {
        None
    };
    resolve_dependencies_async(scenario, settings.runtime, on_event).await?;
    if let Some(inspected) = remote_source {
        let stage = remote::stage(inspected, scenario, settings, on_event).await?;
        given = Some(stage.source.clone());
        staged = Some(stage);
    }
    let mut versions = spark_versions(scenario);
    versions.extend(control_version.as_ref().map(ToString::to_string));
    prepare_runtime_async(
        settings.runtime,
        versions,
        scenario.kafka_version.clone(),
        on_event,
    )
    .await?;
    let source = match given {
        Some(source) => source,
        None => {
            source_checkpoint(
                scenario,
                settings.runtime.for_generation(),
                None,
                settings.report_dir.as_deref(),
                Broker::Own,
                on_event,
            )
            .await?
        }
    };
    fresh_possible(scenario, &source.inspection)?;
    // The control first (issue 13 §3): its own copy and broker, the unchanged job on the
    // source version; every target is then compared with it.
    let control = match &control_version {
        Some(version) => {
            let shown = format!("{version} (the control: the unchanged job on the source version)");
            let role = (trial::TrialRole::Control, true);
            Some(one_trial(scenario, &source, version, settings, role, shown, on_event).await?)
        }
        None => None,
    };
    let jobs = settings.jobs.clamp(1, scenario.targets.len().max(1));
    let at_once = jobs > 1;
    if at_once {
        on_event(RehearsalEvent::TrialsStarting {
            targets: scenario.targets.iter().map(ToString::to_string).collect(),
            at_once: jobs,
        });
    }
    // Each trial has a broker and sandbox of its own, so trials run at once share nothing but
    // the event sink; `buffered` keeps the reports in target order. Every trial runs to its
    // end before an error is returned: a trial dropped mid-way would leave its containers.
    let events = std::sync::Mutex::new(on_event);
    let emit = |target: &SparkVersion, e: RehearsalEvent| {
        let e = match e {
            RehearsalEvent::Trial(event) if at_once => RehearsalEvent::TrialOf {
                target: target.to_string(),
                event,
            },
            other => other,
        };
        if let Ok(mut f) = events.lock() {
            (*f)(e);
        }
    };
    let control_ref = control.as_ref();
    let source_ref = &source;
    let results: Vec<Result<crate::report::TrialReport, TrialError>> =
        futures::stream::iter(scenario.targets.iter())
            .map(|target| {
                let emit = &emit;
                async move {
                    let mut on_event = |e| emit(target, e);
                    target_trial(
                        scenario,
                        source_ref,
                        target,
                        settings,
                        control_ref,
                        &mut on_event,
                    )
                    .await
                }
            })
            .buffered(jobs)
            .collect()
            .await;
    let on_event = events
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if at_once {
        on_event(RehearsalEvent::TrialsFinished);
    }
    let trials = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let (source_checkpoint, remote_source) = match staged {
        Some(staged) => (
            PathBuf::from(staged.url()),
            Some(staged.finish(settings.keep).await),
        ),
        None => (source.path, None),
    };
    Ok(RunReport {
        schema: RUN_SCHEMA,
        scenario: scenario.name.clone(),
        source_checkpoint,
        source_version: source.generated_by,
        trials,
        control: control.map(|(report, _)| Box::new(report)),
        deny_warnings: scenario.deny_warnings,
        remote_source,
    })
}

/// Refuses `fresh` targets on a checkpoint (`inspection`) without a committed batch: there are
/// no offsets to give `{starting_offsets}`, so the remedy cannot be rehearsed.
fn fresh_possible(scenario: &Scenario, inspection: &Inspection) -> Result<(), RehearsalError> {
    if scenario.parity.fresh.is_empty() || inspection.starting_offsets().is_some() {
        return Ok(());
    }
    Err(crate::scenario::ScenarioError::Invalid {
        path: scenario.file.clone(),
        message: format!(
            "fresh ({}): the checkpoint has no committed batch with Kafka offsets, so there is no startingOffsets to start a new checkpoint from (`rehearse inspect` shows its batches)\n(hint: drop fresh / --fresh for this checkpoint, or rehearse one that committed a batch)",
            crate::scenario::version_list(&scenario.parity.fresh)
        ),
    }
    .into())
}

/// The trial on `target`, compared with the `control` when one ran, and its fresh run (the
/// remedy) when the scenario asks for one.
async fn target_trial(
    scenario: &Scenario,
    source: &SourceCheckpoint,
    target: &SparkVersion,
    settings: &TrialSettings,
    control: Option<&(crate::report::TrialReport, trial::Collected)>,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<crate::report::TrialReport, TrialError> {
    let role = (trial::TrialRole::Target, control.is_some());
    let (mut report, collected) = one_trial(
        scenario,
        source,
        target,
        settings,
        role,
        target.to_string(),
        on_event,
    )
    .await?;
    if let Some((control, c)) = control {
        report.parity = Some(trial::parity_of(scenario, &report, &collected, control, c));
    }
    if scenario.parity.fresh.iter().any(|t| t == target) {
        // The remedy (issue 13 §4): the target's job on a new empty checkpoint.
        let shown = format!(
            "{target} (fresh: its job on a new empty checkpoint with {{starting_offsets}})"
        );
        let role = (trial::TrialRole::Fresh, control.is_some());
        let (fresh, f) =
            one_trial(scenario, source, target, settings, role, shown, on_event).await?;
        let control = control.map(|(r, c)| (r, c));
        report.fresh = Some(Box::new(trial::fresh_report(
            scenario,
            &source.inspection,
            fresh,
            &f,
            control,
        )));
    }
    Ok(report)
}

/// One trial of `role` on `version` against `source`, on a broker of its own, announced as
/// `shown`: the control, a target, or a target's fresh run.
async fn one_trial(
    scenario: &Scenario,
    source: &SourceCheckpoint,
    version: &SparkVersion,
    settings: &TrialSettings,
    role: (trial::TrialRole, bool),
    shown: String,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<(crate::report::TrialReport, trial::Collected), TrialError> {
    on_event(RehearsalEvent::TrialStarted { target: shown });
    let mut on_trial = |e| on_event(RehearsalEvent::Trial(e));
    let request = trial::TrialRequest {
        scenario,
        source: &source.path,
        inspection: &source.inspection,
        target: version,
        settings,
        broker: Broker::Own,
        role: role.0,
        collect: role.1,
    };
    trial::run_trial_as(request, &mut on_trial).await
}

/// The Spark versions `scenario` needs ready: its targets, then the generating version if it
/// generates its checkpoint.
pub fn spark_versions(scenario: &Scenario) -> Vec<String> {
    let mut versions: Vec<String> = scenario.targets.iter().map(ToString::to_string).collect();
    if let CheckpointSource::Generate { spark, .. } = &scenario.checkpoint {
        versions.push(spark.to_string());
    }
    versions
}

/// The scenario's source checkpoint, inspected: its path, or the one generated with real Spark
/// on `runtime` (the driver capped at `spark_memory_mb`) against `broker` — from the cache when
/// an earlier run generated it. A generation works in a sandbox under `report_dir` (else the
/// system temp dir), kept there when it fails.
pub async fn source_checkpoint(
    scenario: &Scenario,
    runtime: RuntimeKind,
    spark_memory_mb: Option<u64>,
    report_dir: Option<&Path>,
    broker: Broker<'_>,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<SourceCheckpoint, RehearsalError> {
    if let CheckpointSource::Remote(location) = &scenario.checkpoint {
        return Err(RehearsalError::RemoteNotStaged {
            url: location.to_string(),
        });
    }
    let (path, generated_by) = match Generate::of(scenario, runtime, spark_memory_mb) {
        None => (scenario_path(scenario), None),
        Some(mut g) => {
            g.work_parent = report_dir.map(Path::to_path_buf);
            match trial::cached_checkpoint(scenario, &g) {
                Some(path) => on_event(RehearsalEvent::CachedSourceFound {
                    spark: g.spark.to_string(),
                    path,
                }),
                None => on_event(RehearsalEvent::GenerationStarted {
                    spark: g.spark.to_string(),
                    batches: g.batches,
                }),
            }
            let mut on_trial = |e| on_event(RehearsalEvent::Trial(e));
            let path = trial::generate_checkpoint(scenario, &g, broker, &mut on_trial).await?;
            (path, Some(g.spark.to_string()))
        }
    };
    let inspection = crate::checkpoint::inspect(&path)?;
    crate::kafka::check_records_fit(&inspection, &scenario.topics).map_err(TrialError::from)?;
    tracing::debug!(path = %path.display(), generated_by = ?generated_by, latest_batch = ?inspection.latest_batch, "source checkpoint ready");
    Ok(SourceCheckpoint {
        path,
        generated_by,
        inspection,
    })
}

/// The checkpoint path a scenario gives (empty when it generates one).
fn scenario_path(scenario: &Scenario) -> PathBuf {
    match &scenario.checkpoint {
        CheckpointSource::Path(p) => p.clone(),
        CheckpointSource::Remote(_) | CheckpointSource::Generate { .. } => PathBuf::new(),
    }
}

/// Resolves the job's dependencies (`[job] packages`, `requirements`) on the host for every Spark
/// version the scenario runs — each target and the generating version — before any image or
/// container, off the async thread; progress lines (one per download) as
/// [`RehearsalEvent::RuntimeProgressed`]. Resolved once, they come from the cache
/// (`crate::deps`), so the trials' staging finds them without the network. A package that
/// does not exist for a version is bad input naming the coordinate and the version.
pub async fn resolve_dependencies_async(
    scenario: &Scenario,
    runtime: RuntimeKind,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<(), RehearsalError> {
    if scenario.dependencies.packages.is_empty() && scenario.dependencies.requirements.is_none() {
        return Ok(());
    }
    let mut versions: Vec<(String, String)> = scenario
        .targets
        .iter()
        .map(|t| (t.to_string(), format!("target {t}")))
        .collect();
    if let CheckpointSource::Generate { spark, .. } = &scenario.checkpoint {
        versions.insert(
            0,
            (spark.to_string(), format!("the generating Spark {spark}")),
        );
    }
    let dependencies = scenario.dependencies.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let resolved = tokio::task::spawn_blocking(move || {
        for (version, role) in &versions {
            trial::resolve_dependencies(&dependencies, version, role, runtime, &mut |line| {
                let _ = tx.send(line);
            })?;
        }
        Ok::<_, TrialError>(())
    });
    while let Some(line) = rx.recv().await {
        on_event(RehearsalEvent::RuntimeProgressed { line });
    }
    Ok(resolved.await.map_err(RehearsalError::PrepareStopped)??)
}

/// [`prepare_runtime`] off the async thread (so Ctrl-C is still heard during a long first build
/// or install), its progress lines sent as [`RehearsalEvent::RuntimeProgressed`].
pub async fn prepare_runtime_async(
    runtime: RuntimeKind,
    spark_versions: Vec<String>,
    kafka_version: String,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<(), RehearsalError> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let prepared = tokio::task::spawn_blocking(move || {
        prepare_runtime(runtime, &spark_versions, &kafka_version, &mut |line| {
            let _ = tx.send(line.to_string());
        })
    });
    while let Some(line) = rx.recv().await {
        on_event(RehearsalEvent::RuntimeProgressed { line });
    }
    prepared.await.map_err(RehearsalError::PrepareStopped)?
}

/// Makes `runtime` ready for these Spark versions and the Kafka version: the images (built if
/// missing) for Docker, the host installs (after checking the host can run them) for local.
/// Blocking; progress one line per step.
pub fn prepare_runtime(
    runtime: RuntimeKind,
    spark_versions: &[String],
    kafka_version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), RehearsalError> {
    tracing::debug!(
        ?runtime,
        ?spark_versions,
        kafka = kafka_version,
        "preparing the runtime"
    );
    match runtime {
        RuntimeKind::Docker
        | RuntimeKind::Standalone(_)
        | RuntimeKind::SharedStandalone(_)
        | RuntimeKind::Master(_) => ensure_images(spark_versions, kafka_version, progress),
        RuntimeKind::Local => {
            let mut unique = spark_versions.to_vec();
            unique.sort();
            unique.dedup();
            crate::runtime::prepare_local(&unique, kafka_version, progress)?;
            Ok(())
        }
    }
}

/// The Kafka image and each Spark image (once per version), built if missing.
fn ensure_images(
    spark_versions: &[String],
    kafka_version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), RehearsalError> {
    use crate::images::{ensure_kafka, ensure_spark, ImageSourceKind};
    ensure_kafka(kafka_version, ImageSourceKind::default(), progress)?;
    let mut seen = std::collections::BTreeSet::new();
    for v in spark_versions {
        if seen.insert(v.clone()) {
            ensure_spark(v, ImageSourceKind::default(), progress)?;
        }
    }
    Ok(())
}

/// `work`'s output, or `None` when the user pressed Ctrl-C, or the process got SIGTERM or SIGHUP
/// (a CI job cancelled, `timeout`, a closed terminal), first — then `work` is dropped; call
/// [`sweep_after_interrupt`] to remove what it started. (Only Ctrl-C was heard before: the
/// breaker pass's `timeout 20 rehearse run …` left its Kafka container running.)
pub async fn or_interrupted<T>(work: impl std::future::Future<Output = T>) -> Option<T> {
    #[cfg(unix)]
    let terminated = async {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(mut term), Ok(mut hup)) => {
                tokio::select! {
                    _ = term.recv() => {},
                    _ = hup.recv() => {},
                }
            }
            // No handler could be installed: only Ctrl-C interrupts.
            _ => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminated = std::future::pending::<()>();
    tokio::select! {
        r = work => Some(r),
        _ = tokio::signal::ctrl_c() => None,
        _ = terminated => None,
    }
}

/// Removes this process's containers and host processes after Ctrl-C, twice: a container
/// whose creation was in flight when the run was dropped appears only after the first sweep
/// (seen: a suite's Kafka broker left running).
pub async fn sweep_after_interrupt() {
    use crate::runtime::{gc, GcScope};
    let _ = gc(GcScope::ThisProcess).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let _ = gc(GcScope::ThisProcess).await;
}
