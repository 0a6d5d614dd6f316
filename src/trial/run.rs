//! The trial itself, step by step: copy the source into a sandbox (hashed) → stage the job →
//! rebase the copy's offsets when they are too large to produce (own broker only) → the broker
//! (`broker.rs`) → seed it, or check the suite's seeding → start the Spark driver on the copy →
//! watch it to a verdict (`watch.rs`) → stop it, count what it wrote to the output topics →
//! release the broker → hash the source again and write the [`TrialReport`]. Reports progress as [`TrialEvent`]s; never prints.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::broker::{seed_and_check, Broker};
use super::control::{Collected, TrialRole};
use super::job::{redacted_argv, stage_job, submit, SubmitCommand};
use super::watch::watch;
use super::{kafka_short, parts, TrialError, TrialEvent};
use crate::checkpoint::Inspection;
use crate::checkpoint::KafkaOffsets;
use crate::kafka::{OutputCount, SeedingSummary};
use crate::report::{CopyReport, TrialReport};
use crate::runtime::{self, KafkaBroker, TrialIds};
use crate::sandbox::{CopyOptions, Sandbox, SandboxError};
use crate::scenario::{CheckpointSource, Scenario};
use crate::store::{CheckpointLocation, CheckpointStore, StoreEnv};
use crate::verdict::{Classification, TrialContext};
use crate::versions::SparkVersion;
use finished::{collect_rows, job_artifact, keep_trial_json, with_output_topics};

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
    /// Copy every file of the source into each sandbox, not only the restart's working set
    /// (`--full-copy`).
    pub full_copy: bool,
    /// Trials `rehearse run` runs at once (`--jobs`; 0 and 1: one after another). Each has a
    /// broker and sandbox of its own.
    pub jobs: usize,
}

/// Runs one trial of `scenario` on `target`, restarting a copy of `source` (inspected as
/// `inspection`) against `broker`. Returns the report of the trial, whatever its verdict.
/// On a shared broker the sandbox copy is never rebased (the suite seeded the topics for the
/// checkpoint as it is).
pub async fn run_trial(
    scenario: &Scenario,
    source: &Path,
    inspection: &Inspection,
    target: &SparkVersion,
    settings: &TrialSettings,
    broker: Broker<'_>,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<TrialReport, TrialError> {
    let request = TrialRequest {
        scenario,
        source,
        inspection,
        target,
        settings,
        broker,
        role: TrialRole::Target,
        collect: false,
    };
    let (report, _) = run_trial_as(request, on_event).await?;
    Ok(report)
}

/// One trial to run, as [`run_trial_as`] takes it: plain data its callers (`rehearse run`'s
/// rehearsal, a suite's cells and controls) build.
pub struct TrialRequest<'a> {
    /// The scenario whose job restarts (on a shared broker with output topics, the trial
    /// renames them per trial).
    pub scenario: &'a Scenario,
    /// The source checkpoint directory, copied into the sandbox and never written.
    pub source: &'a Path,
    /// `source`, inspected.
    pub inspection: &'a Inspection,
    /// The Spark version the trial runs on: a target, or for the control the source version.
    pub target: &'a SparkVersion,
    /// Settings shared by the trials of the run.
    pub settings: &'a TrialSettings,
    /// The broker: one of the trial's own, or a suite's shared one.
    pub broker: Broker<'a>,
    /// A target, its fresh run, or the control (`target` is then the source version and the job
    /// the one that wrote the checkpoint, without `restart_args`).
    pub role: TrialRole,
    /// Whether the trial collects for parity (a control runs): it also digests its broker's
    /// input records, keeps watching after a `resumed` until the query read every seeded record,
    /// and reads back what it wrote after the restart (file sinks under `{output}`, output
    /// topics) for the parity comparison.
    pub collect: bool,
}

/// [`run_trial`] as `request` asks: in its role, collecting or not (see [`TrialRequest`]).
pub async fn run_trial_as(
    request: TrialRequest<'_>,
    on_event: &mut (dyn FnMut(TrialEvent) + Send),
) -> Result<(TrialReport, Collected), TrialError> {
    let TrialRequest {
        scenario,
        source,
        inspection,
        target,
        settings,
        broker,
        role,
        collect,
    } = request;
    let per_trial;
    let scenario = match broker {
        Broker::Shared { .. } if !scenario.output_topics.is_empty() => {
            per_trial = output_topics_of_trial(scenario, target.as_str());
            &per_trial
        }
        _ => scenario,
    };
    let job = match role {
        TrialRole::Target | TrialRole::Fresh => scenario.job_for(target.as_str()),
        TrialRole::Control => scenario.generation_job(target.as_str()),
    };
    let trial = Trial {
        scenario,
        job: &job,
        source,
        inspection,
        target,
        settings,
        role,
        collect,
    };
    let (store, sandbox) = trial.copy_source(on_event).await?;
    let app = stage_job(
        &job,
        &scenario.dependencies,
        sandbox.path(),
        target,
        settings.runtime,
    )?;
    let ids = broker.ids(&scenario.name, settings.runtime);
    let mut notes = Vec::new();
    let rebased = match broker {
        Broker::Own => trial.rebase_if_needed(&sandbox, &mut notes)?,
        Broker::Shared { .. } => None,
    };
    let used = rebased.as_ref().unwrap_or(inspection);
    if role == TrialRole::Fresh {
        // The expected offsets come from the (rebased) copy; the job gets an empty checkpoint.
        super::fresh::set_aside(sandbox.path())?;
    }
    let (kafka, seeded) = broker.start(&ids, scenario, on_event).await?;
    let restart = Restart {
        ids: &ids,
        sandbox: sandbox.path(),
        app: &app,
        inspection: used,
        production: inspection,
        kafka: kafka.kafka(),
    };
    let result = async {
        let seeding = restart
            .seed(scenario, seeded, rebased.is_some(), collect, on_event)
            .await?;
        trial.restart(&restart, seeding, on_event).await
    }
    .await;
    let released = kafka.release().await;
    let mut watched = result?;
    let collected = std::mem::take(&mut watched.collected);
    if let Err(e) = released {
        // The verdict stands; the broker is left for `rehearse gc` (the engine went away).
        watched.left.push(format!(
            "{e}; `rehearse gc` removes it once the engine answers"
        ));
    }
    let changes = crate::sandbox::verify_source(&store, &sandbox.copy).await?;
    on_event(TrialEvent::VerdictReached {
        target: target.to_string(),
        role,
        classification: Box::new(watched.classification.clone()),
    });
    let report = trial.report(sandbox, watched, notes, changes, &app.deps.report)?;
    Ok((report, collected))
}

/// What a trial was asked to do.
struct Trial<'a> {
    scenario: &'a Scenario,
    /// The job this target runs (`[job]` or its `[job.per_target]` entry).
    job: &'a crate::scenario::ResolvedJob,
    source: &'a Path,
    inspection: &'a Inspection,
    target: &'a SparkVersion,
    settings: &'a TrialSettings,
    /// A target, or the control.
    role: TrialRole,
    /// Collect what the parity comparison needs (a control runs).
    collect: bool,
}

/// What the restart runs against, once the sandbox and the broker are ready.
struct Restart<'a> {
    ids: &'a TrialIds,
    sandbox: &'a Path,
    /// The job, relative to the sandbox.
    app: &'a super::job::StagedJob,
    /// The checkpoint the restart reads (the rebased copy's, if it was rebased).
    inspection: &'a Inspection,
    /// The checkpoint as written (production offsets, for `[kafka.mirror]`).
    production: &'a Inspection,
    kafka: &'a KafkaBroker,
}

/// How Kafka was seeded for the restart, the harness's evidence that it is short of the
/// checkpoint, if it is, and the output topics' end offsets before the job starts.
struct Seeded {
    seeding: SeedingSummary,
    kafka_short: Option<String>,
    output_before: KafkaOffsets,
    /// With a control: the input topics' end offsets after seeding (what the query must read)
    /// and the digest of their records.
    parity: Option<(KafkaOffsets, Result<crate::kafka::InputDigest, String>)>,
}

/// What watching the restart gave.
struct Watched {
    classification: Classification,
    seconds: f64,
    seeding: SeedingSummary,
    /// What the job wrote to each output topic after the restart.
    output: Vec<OutputCount>,
    /// Why the output topics could not be read back, if they could not.
    output_error: Option<String>,
    /// The executors of a restart on a cluster.
    executors: Option<crate::report::ExecutorsReport>,
    /// What could not be removed after the verdict (the engine went away), for the notes.
    left: Vec<String>,
    /// What the parity comparison needs (empty without a control).
    collected: Collected,
}

/// `scenario` with its output topics renamed for one trial on a suite's shared broker
/// (`<topic>.<target>`, dots of the version as `_`): the cells of a group run at once against
/// one broker, and each must count only what its own restart wrote. A Kafka sink's topic is
/// not in the checkpoint, so the restart may write elsewhere than the generation did.
fn output_topics_of_trial(scenario: &Scenario, target: &str) -> Scenario {
    let mut s = scenario.clone();
    let mut outputs = std::mem::take(&mut s.output_topics);
    for o in &mut outputs {
        let to = crate::scenario::trial_output_topic(&o.name, target);
        let (from, to_placeholder) = (format!("{{topic.{}}}", o.name), format!("{{topic.{to}}}"));
        s.map_job_args(|a| *a = a.replace(&from, &to_placeholder));
        o.name = to;
    }
    s.output_topics = outputs;
    s
}

impl Trial<'_> {
    /// The job this trial runs and the Spark version its artifact ran on before: the
    /// generation's, when the generation ran the same artifact; for a given checkpoint run by
    /// the base `[job]`, the writer's line when the checkpoint pins it to one line.
    fn job_facts(&self) -> crate::verdict::JobFacts {
        let artifact = self.job.artifact();
        let built_for = match &self.scenario.checkpoint {
            CheckpointSource::Generate { spark, .. } => {
                (self.scenario.generation_job(spark.as_str()).artifact() == artifact)
                    .then(|| spark.to_string())
            }
            CheckpointSource::Path(_) | CheckpointSource::Remote(_) => {
                let w = &self.inspection.writer_version;
                match (&w.min, &w.max, &self.job.per_target) {
                    (Some(min), Some(max), None) => min
                        .line()
                        .filter(|(a, b)| max.starts_with(&format!("{a}.{b}.")))
                        .map(|_| min.to_string()),
                    _ => None,
                }
            }
        };
        crate::verdict::JobFacts {
            artifact: artifact.file_name().map_or_else(
                || artifact.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            built_for,
            target: self.target.to_string(),
            not_shipped: self.not_shipped(),
        }
    }

    /// Names beside a PySpark job that do not travel with it (`JobDir::not_shipped`), for the
    /// verdict of a `ModuleNotFoundError`. Empty for a jar, or a directory load could not read
    /// (load refused that already).
    fn not_shipped(&self) -> Vec<(String, String)> {
        let crate::scenario::Job::Python { file } = &self.job.job else {
            return Vec::new();
        };
        crate::scenario::JobDir::read(file)
            .map(|d| d.not_shipped.into_iter().map(|n| (n.name, n.why)).collect())
            .unwrap_or_default()
    }

    /// The sandbox copy of the source (hashed while copied): the working set of a restart on
    /// this target, or everything (`--full-copy`, or an uncertain working set). Also returns the
    /// source's read-only client, for the check at the end.
    async fn copy_source(
        &self,
        on_event: &mut (dyn FnMut(TrialEvent) + Send),
    ) -> Result<(CheckpointStore, Sandbox), TrialError> {
        let location = CheckpointLocation::Local {
            path: self.source.to_path_buf(),
        };
        let store = CheckpointStore::open(location, &StoreEnv::from_process())
            .await
            .map_err(SandboxError::from)?;
        let targets = [self.target.clone()];
        let options = CopyOptions {
            full_copy: self.settings.full_copy,
            ..CopyOptions::default()
        };
        let sandbox = Sandbox::create_from(
            &store,
            self.inspection,
            &targets,
            self.settings.report_dir.as_deref(),
            &match self.role {
                TrialRole::Target => format!("{}-{}", self.scenario.name, self.target),
                TrialRole::Control => format!("{}-{}-control", self.scenario.name, self.target),
                TrialRole::Fresh => format!("{}-{}-fresh", self.scenario.name, self.target),
            },
            &options,
        )
        .await?;
        // Names this process, so `rehearse gc` can offer the sandbox if this process is killed.
        let _ = crate::runtime::mark_sandbox(sandbox.path(), self.settings.keep);
        let mut sandbox = sandbox;
        if self.settings.keep {
            // Kept from now on, not only at the report: an interrupted run (Ctrl-C, SIGTERM)
            // drops the trial before it reports, and `--keep` means the user wants to look.
            sandbox.keep();
        }
        tracing::debug!(sandbox = %sandbox.path().display(), files = sandbox.copy.files, bytes = sandbox.copy.bytes, working_set = sandbox.copy.working_set, why_full = ?sandbox.copy.why_full, "sandbox created: the source copied and hashed");
        on_event(TrialEvent::SandboxCreated {
            path: sandbox.path().to_path_buf(),
            files: sandbox.copy.files as usize,
        });
        Ok((store, sandbox))
    }

    /// Production offsets are often far too large to produce: rebases them in the copy (with a
    /// note saying so) and reads the copy back, so seeding and the resume proof use the rebased
    /// offsets. `None` when no rebase is needed.
    fn rebase_if_needed(
        &self,
        sandbox: &Sandbox,
        notes: &mut Vec<String>,
    ) -> Result<Option<Inspection>, TrialError> {
        let threshold = self.scenario.rebase_threshold;
        if !crate::kafka::rebase_needed(&self.inspection.required_kafka_offsets(), threshold) {
            return Ok(None);
        }
        let r = crate::kafka::rebase(&sandbox.checkpoint())?;
        notes.push(format!(
            "Kafka offsets rebased in the sandbox copy (more than {threshold} records per partition to produce): \
             subtracted {} from offset log files {:?}; batch-to-batch differences kept",
            crate::checkpoint::kafka_offsets_json(&r.bases),
            r.files
        ));
        Ok(Some(crate::checkpoint::inspect(&sandbox.checkpoint())?))
    }

    /// Starts the driver on the copy with the restart arguments, watches it to a verdict, and
    /// stops and removes it.
    async fn restart(
        &self,
        r: &Restart<'_>,
        seeded: Seeded,
        on_event: &mut (dyn FnMut(TrialEvent) + Send),
    ) -> Result<Watched, TrialError> {
        let scenario = self.scenario;
        let mut args = self.job.args.clone();
        if self.role != TrialRole::Control {
            // The control runs the job as it wrote the checkpoint: no restart-only arguments.
            args.extend(self.job.restart_args.iter().cloned());
        }
        let job_sandbox = self.settings.runtime.job_sandbox(r.sandbox);
        let cmd = submit(&SubmitCommand {
            ids: r.ids,
            scenario,
            job: self.job,
            version: self.target,
            sandbox: &job_sandbox,
            staged: r.app,
            args: &args,
            kafka: r.kafka,
            starting_offsets: Some(&r.inspection.committed_kafka_offsets()),
        })?;
        tracing::debug!(version = self.target.as_str(), argv = ?redacted_argv(&cmd), "starting the restart's spark-submit");
        let started = Instant::now();
        let spark = runtime::start_spark(
            r.ids,
            self.target.as_str(),
            r.sandbox,
            cmd,
            self.settings.spark_memory_mb,
        )
        .await?;
        on_event(TrialEvent::SparkStarted {
            image: spark.describe().to_string(),
        });
        let ctx = if self.role == TrialRole::Fresh {
            super::fresh::context(self.job_facts())
        } else {
            TrialContext {
                // Fresh records were seeded: a resume must also be seen reading them. (A Kafka short
                // of the checkpoint has its own proof: Spark's data-loss error, or the grace.)
                require_input_rows: seeded.seeding.fresh_records > 0
                    && seeded.kafka_short.is_none(),
                // ... and every path the query has must run (issue 13 §1: state loaded and updated,
                // watermark advanced, state evicted, sink wrote), else `resume-unproven`.
                require_paths: seeded.seeding.fresh_records > 0 && seeded.kafka_short.is_none(),
                // Nothing fresh to read (fresh_records = 0, or a records_file with nothing past
                // the checkpoint's offsets): only the offsets can be proved, no path can run.
                nothing_fresh: seeded.seeding.fresh_records == 0 && seeded.kafka_short.is_none(),
                job: Some(self.job_facts()),
                ..TrialContext::from_inspection(r.inspection)
            }
        };
        let so_far = super::watch::SoFar::default();
        let watching = watch(
            &spark,
            r.sandbox,
            ctx,
            scenario.timeout_seconds,
            seeded.kafka_short,
            seeded
                .parity
                .as_ref()
                .map(|(ends, _)| (ends, super::fresh::reads_on_after(self.role))),
            &so_far,
            on_event,
        );
        // The trial's own parts failing (broker died, driver OOM-killed or killed, engine gone)
        // are the runtime's evidence, not the log's.
        // A verdict reached before the watch read on (a control runs) stands whatever fails
        // after it: the reading on ends, and the parity says why it is not checked.
        let (classification, executors, read_all) =
            match parts::unless_broker_dies(r.kafka, watching, &so_far).await {
                Ok((c, executors, read_all)) if so_far.verdict().is_some() => {
                    (c, executors, read_all)
                }
                Ok((c, executors, read_all)) => (
                    parts::judge(c, &spark, r.kafka, self.settings.spark_memory_mb).await,
                    executors,
                    read_all,
                ),
                Err(parts::BrokerStopped::AfterVerdict(at, why)) => (
                    at.classification,
                    at.executors,
                    Some((Err(why), at.at.elapsed())),
                ),
                Err(parts::BrokerStopped::BeforeVerdict(died)) => (
                    died,
                    super::event_log::ExecutorLog::default(),
                    Some((
                        Err("the sandbox broker stopped under the trial".to_string()),
                        Duration::ZERO,
                    )),
                ),
            };
        // The time to the verdict, not counting the wait to read every record (a control runs).
        let drained = read_all.as_ref().map_or(Duration::ZERO, |(_, d)| *d);
        let read_all = read_all.map(|(r, _)| r);
        let seconds = started.elapsed().saturating_sub(drained).as_secs_f64();
        tracing::debug!(version = self.target.as_str(), verdict = %classification.verdict, rule = %classification.rule, seconds, "the watcher reached a verdict");
        let _ = spark.stop(Duration::from_secs(5)).await;
        // A driver that cannot be removed (the engine went away) does not lose the verdict and
        // the source check: the report says what was left for `rehearse gc`.
        let mut left = Vec::new();
        if let Err(e) = spark.remove().await {
            left.push(format!(
                "{e}; `rehearse gc` removes it once the engine answers"
            ));
        }
        let (output, output_error) = match crate::kafka::read_output(
            &r.kafka.host_bootstrap,
            &scenario.output_topics,
            &seeded.output_before,
        )
        .await
        {
            Ok(output) => (output, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        tracing::debug!(?output, "output topics read back after the restart");
        let mut collected = match seeded.parity {
            Some((_, digest)) if self.collect => {
                collect_rows(r, scenario, &seeded.output_before, digest, read_all).await
            }
            _ => Collected::default(),
        };
        if self.role == TrialRole::Fresh {
            collected.start = Some(super::fresh::start_proof(
                &r.sandbox.join("checkpoint"),
                &r.inspection.committed_kafka_offsets(),
                seeded.seeding.fresh_records > 0,
            ));
        }
        // Local mode announces no executor: only a cluster's restart reports them.
        let executors = matches!(
            self.settings.runtime,
            runtime::RuntimeKind::Standalone(_)
                | runtime::RuntimeKind::SharedStandalone(_)
                | runtime::RuntimeKind::Master(_)
        )
        .then(|| executors.report());
        Ok(Watched {
            classification,
            seconds,
            seeding: seeded.seeding,
            output,
            output_error,
            executors,
            left,
            collected,
        })
    }

    /// The watcher's warnings with those of the state files (issue 13 §2, `verdict/state_files.rs`):
    /// for a restart Spark accepted, the sandbox copy is read again after it and its schema
    /// files and operator metadata compared with the source's, and a compatible-schema
    /// warning gets the names the state was written under. A copy that cannot be read adds
    /// nothing (said in the log): warnings only ever add.
    fn state_file_warnings(
        &self,
        sandbox: &Sandbox,
        c: &crate::verdict::Classification,
    ) -> Vec<crate::verdict::Warning> {
        let mut warnings = c.warnings.clone();
        if !matches!(
            c.verdict,
            crate::verdict::Verdict::Resumed | crate::verdict::Verdict::ResumeUnproven
        ) {
            return warnings;
        }
        let before = &self.inspection.operators;
        match crate::checkpoint::inspect(&sandbox.checkpoint()) {
            Ok(after) => crate::verdict::merge_warnings(
                &mut warnings,
                crate::verdict::state_file_warnings(before, &after.operators),
            ),
            Err(e) => {
                tracing::warn!(error = %e, "the sandbox copy could not be read after the restart; its state files were not compared")
            }
        }
        if let Some(w) = warnings
            .iter_mut()
            .find(|w| w.code == "state-schema-names-changed")
        {
            for e in crate::verdict::stored_schema_evidence(before) {
                if !w.evidence.contains(&e) {
                    w.evidence.push(e);
                }
            }
        }
        warnings
    }

    /// The report: the verdict, the seeding, whether the source stayed untouched (hashed
    /// again now), and the sandbox if it is kept.
    fn report(
        &self,
        mut sandbox: Sandbox,
        watched: Watched,
        mut notes: Vec<String>,
        changes: Vec<String>,
        dependencies: &Option<crate::deps::DependencyReport>,
    ) -> Result<TrialReport, TrialError> {
        if !changes.is_empty() {
            notes.push(format!(
                "THE SOURCE CHECKPOINT CHANGED during the trial: {}",
                changes.join(", ")
            ));
        }
        let kept = if self.settings.keep {
            Some(sandbox.keep())
        } else {
            None
        };
        // The evidence stays without `--keep` too: a verdict must be checkable afterwards.
        let logs = match &kept {
            Some(path) => Some(path.clone()),
            None => match sandbox.keep_evidence() {
                Ok(path) => {
                    if path == sandbox.path() {
                        // Kept now: `rehearse gc` must not offer it as a leftover.
                        let _ = crate::runtime::mark_sandbox(&path, true);
                    }
                    Some(path)
                }
                Err(e) => {
                    notes.push(format!(
                        "the trial's driver and event logs could not be kept: {e}"
                    ));
                    None
                }
            },
        };
        let Watched {
            classification,
            seconds,
            seeding,
            output,
            output_error,
            executors,
            left,
            collected: _,
        } = watched;
        notes.extend(left);
        if let Some(m) = &seeding.mirrored {
            notes.push(format!(
                "{} records ({} bytes of keys, values and headers) came from the production cluster {} (read-only: no consumer group, no commits, nothing produced there), {} of them at or past the checkpoint's offsets; {} template records filled the sandbox below them{}",
                m.records,
                m.bytes,
                m.from,
                m.fresh_records,
                seeding.filler_records - m.gap_fillers,
                if m.gap_fillers > 0 {
                    format!(" and {} filled offsets the production log has no record at (compaction, transaction markers)", m.gap_fillers)
                } else {
                    String::new()
                }
            ));
        }
        notes.extend(seeding.below_base.iter().map(below_base_note));
        if let Some(e) = output_error {
            notes.push(format!(
                "the output topics could not be read back after the restart: {e}"
            ));
        }
        for o in output.iter().filter(|o| o.records_after_restart == 0) {
            notes.push(format!(
                "no record was written to output topic {} after the restart before the verdict: \
                 an append-mode aggregation writes a window only once the watermark passes its end \
                 (give the fresh records later event times with {{timestamp_ms}} and time_step_ms, \
                 or more fresh_records), and a filter may drop them all",
                o.topic
            ));
        }
        // On a downgrade some signs are also seen for an unchanged query: they become notes.
        let writer = match &self.scenario.checkpoint {
            CheckpointSource::Generate { spark, .. } => Some(spark.clone()),
            _ => self.inspection.writer_version.min.clone(),
        };
        // A fresh run's checkpoint is a new one: nothing of the copy's state files to compare.
        let warnings = match self.role {
            TrialRole::Fresh => classification.warnings.clone(),
            TrialRole::Target | TrialRole::Control => {
                self.state_file_warnings(&sandbox, &classification)
            }
        };
        let (warnings, downgrade_notes) =
            crate::verdict::settle_for_versions(warnings, writer.as_ref(), Some(self.target));
        notes.extend(downgrade_notes);
        let exercised = with_output_topics(classification.exercised, &output);
        let report = TrialReport {
            target_version: self.target.to_string(),
            verdict: classification.verdict,
            expected_verdict: match self.role {
                TrialRole::Target => self.scenario.expect.get(self.target.as_str()).copied(),
                TrialRole::Control | TrialRole::Fresh => None,
            },
            rule: classification.rule,
            evidence: classification.evidence,
            last_committed_batch: classification.last_committed_batch,
            first_batch_after_restart: classification.first_batch_after_restart,
            start_offsets_match: classification.start_offsets_match,
            seconds_to_verdict: seconds,
            source_untouched: changes.is_empty(),
            remedy: classification.remedy,
            starting_offsets: self.inspection.starting_offsets(),
            seeding,
            output,
            sandbox: kept,
            logs,
            notes,
            warnings,
            copy: CopyReport::from(&sandbox.copy),
            job: Some(job_artifact(self.job)),
            dependencies: dependencies.clone(),
            executors,
            exercised,
            parity: None,
            fresh: None,
        };
        if let Some(dir) = &report.logs {
            keep_trial_json(dir, &report);
        }
        Ok(report)
    }
}

impl Restart<'_> {
    /// Seeds the broker for the checkpoint the restart reads, or, when the suite seeded it
    /// already (`seeded`), only checks it is not short; records whether the copy was rebased;
    /// creates the output topics (empty) and takes their end offsets. With `collect`, also the
    /// input topics' end offsets and the digest of their records.
    async fn seed(
        &self,
        scenario: &Scenario,
        seeded: Option<SeedingSummary>,
        rebased: bool,
        collect: bool,
        on_event: &mut (dyn FnMut(TrialEvent) + Send),
    ) -> Result<Seeded, TrialError> {
        let (mut seeding, kafka_short) = match seeded {
            Some(seeding) => (
                seeding,
                kafka_short::evidence(self.kafka, self.inspection).await?,
            ),
            None => seed_and_check(self.kafka, self.inspection, self.production, scenario).await?,
        };
        seeding.rebased = rebased;
        tracing::debug!(
            filler = seeding.filler_records,
            fresh = seeding.fresh_records,
            topics = seeding.topics.len(),
            rebased,
            kafka_short = kafka_short.is_some(),
            "kafka seeded for the restart"
        );
        on_event(TrialEvent::KafkaSeeded(seeding.clone()));
        crate::kafka::ensure_output_topics(&self.kafka.host_bootstrap, &scenario.output_topics)
            .await?;
        let output_before =
            crate::kafka::output_offsets(&self.kafka.host_bootstrap, &scenario.output_topics)
                .await?;
        let parity = if collect {
            let inputs: Vec<String> = seeding.topics.iter().map(|(t, _)| t.clone()).collect();
            let ends = crate::kafka::end_offsets(&self.kafka.host_bootstrap, &inputs).await?;
            let digest = crate::kafka::input_digest(&self.kafka.host_bootstrap, &inputs)
                .await
                .map_err(|e| e.to_string());
            Some((ends, digest))
        } else {
            None
        };
        Ok(Seeded {
            seeding,
            kafka_short,
            output_before,
            parity,
        })
    }
}

mod finished;
#[cfg(test)]
mod tests;

/// The note for records of a `records_file` that were not seeded because they lie below the
/// rebase base (issue 25: a capture from another day was dropped whole without a word).
fn below_base_note(b: &crate::kafka::BelowBase) -> String {
    format!(
        "{} records of the records_file for {}-{} lie below offset {}, the lowest the checkpoint's retained batches name: they were not seeded, as the restart never reads them{}",
        b.records,
        b.topic,
        b.partition,
        b.base,
        if b.seeded == 0 {
            " — none of the file's records of this partition were, so the restart read template records there, not production's (was the file captured at another time than the checkpoint?)"
        } else {
            ""
        }
    )
}
