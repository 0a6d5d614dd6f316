//! Running a suite: one Kafka broker and network for the whole suite, each source checkpoint
//! generated once (cached like a scenario's), its topics seeded once, then every target
//! restarted as a trial — at most `jobs` Spark containers at a time, each memory-capped.
//!
//! Each group runs the pieces of the rehearsal pipeline (`rehearsal.rs`) on the shared broker:
//! the source checkpoint found or generated and inspected, seeded once, then its trials. Cells
//! flow out as they finish (a channel to the caller's callback); the report is built from them.
//! Nothing here prints.
//!
//! With the suite's `control = true` (issue 13 §3), a group runs one control trial first — the
//! source checkpoint restarted on the source version with the job that wrote it — and every
//! cell of the group is compared with it ([`trial::parity_of`]). All of them collect on the
//! suite's broker: the group's input topics are seeded once before any trial and only read
//! after, so every trial digests the very records the control read (timestamps included);
//! output topics are per trial (the control's `<topic>.control.<source>`), file sinks per
//! sandbox. Shards split by group, so a control runs in the one shard that holds its cells.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, Semaphore};

use crate::kafka::SeedingSummary;
use crate::rehearsal::{self, RehearsalError, SourceCheckpoint};
use crate::report::matrix::{Cell, CellStatus, ControlRun, MatrixReport, MATRIX_SCHEMA};
use crate::report::{Parity, TrialReport};
use crate::runtime::{KafkaBroker, RuntimeKind, TrialIds};
use crate::scenario::suite::{CellKey, Group, Suite};
use crate::scenario::Scenario;
use crate::trial::{self, Broker, Collected, TrialError, TrialRole, TrialSettings};

use super::cluster::SuiteClusters;

/// Memory cap of each Spark container of a suite, MiB, unless `--spark-memory` says otherwise:
/// a local-mode driver with Spark's default 1 GiB heap, its off-heap and Python workers
/// (measured peak of the example jobs: under 1.5 GiB).
pub const DEFAULT_SPARK_MEMORY_MB: u64 = 2048;
pub use crate::runtime::{default_jobs, RESERVED_MEMORY_MB};

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct MatrixOptions {
    /// Cells (generations and trials) running at once.
    pub jobs: usize,
    /// Only this shard's groups.
    pub shard: Option<super::Shard>,
    /// Sandboxes, `--keep`, and the memory cap of each Spark container.
    pub settings: TrialSettings,
}

/// Why a suite could not run at all (a cell's failure is a cell, not this).
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// The suite's Kafka broker could not be started.
    #[error("cannot start the suite's Kafka broker: {0}")]
    Kafka(#[source] TrialError),
    /// The directory the suite's standalone clusters mount for the cells' sandboxes could not
    /// be made.
    #[error("cannot make the directory for the sandboxes of the suite's standalone clusters: {0}")]
    Sandboxes(#[source] std::io::Error),
}

/// A suite that cannot run at all is the environment's (its broker, its sandbox directory).
impl crate::exit::HasErrorKind for MatrixError {
    fn error_kind(&self) -> crate::exit::ErrorKind {
        crate::exit::ErrorKind::Environment
    }
}

/// Something that happened while a suite ran, in the past tense.
#[derive(Debug, Clone)]
pub enum MatrixEvent {
    /// A group's source checkpoint started being generated (or looked up in the cache); its
    /// cells wait for it.
    SourceStarted {
        /// `shape/provider/source`.
        group: String,
    },
    /// A cell's trial started.
    CellStarted {
        /// [`CellKey::id`].
        cell: String,
    },
    /// A source checkpoint's control run finished (the suite's `control = true`); its cells
    /// start after it.
    ControlFinished {
        /// The control: its source checkpoint, version, verdict or why it could not run.
        control: Box<ControlRun>,
    },
    /// A cell finished: ran, could not run, or is not applicable.
    CellFinished {
        /// Cells finished so far, this one included.
        done: usize,
        /// Cells in the suite (or shard).
        total: usize,
        /// The cell.
        cell: Box<Cell>,
    },
}

/// What a group task sends the runner.
enum Update {
    SourceStarted(String),
    ControlFinished(Box<ControlRun>),
    CellStarted(String),
    CellFinished(Box<Cell>),
}

/// Refuses, before anything starts, a `--report-dir` inside a source checkpoint a cell names by
/// path, or such a source inside it ([`rehearsal::refuse_nested_paths`]).
///
/// # Errors
/// The first refusal, as a [`RehearsalError`] (bad input).
pub fn refuse_nested_paths(suite: &Suite, options: &MatrixOptions) -> Result<(), RehearsalError> {
    for g in suite.groups(options.shard) {
        rehearsal::refuse_nested_paths(&suite.group_scenario(&g), &options.settings)?;
    }
    Ok(())
}

/// Runs `suite` (or one shard of it) and returns its report; `on_event` sees each cell start
/// and finish (with the number finished and the total).
pub async fn run_matrix(
    suite: &Suite,
    options: &MatrixOptions,
    on_event: &mut dyn FnMut(MatrixEvent),
) -> Result<MatrixReport, MatrixError> {
    let started = Instant::now();
    let groups = suite.groups(options.shard);
    let total: usize = groups.iter().map(|g| g.targets.len()).sum();
    let mut cells = Vec::new();
    let mut controls = Vec::new();
    let mut on_update = |update: Update| match update {
        Update::SourceStarted(group) => on_event(MatrixEvent::SourceStarted { group }),
        Update::ControlFinished(control) => {
            controls.push((*control).clone());
            on_event(MatrixEvent::ControlFinished { control });
        }
        Update::CellStarted(cell) => on_event(MatrixEvent::CellStarted { cell }),
        Update::CellFinished(cell) => {
            cells.push((*cell).clone());
            on_event(MatrixEvent::CellFinished {
                done: cells.len(),
                total,
                cell,
            });
        }
    };

    // Groups whose every cell is not applicable need no checkpoint and no broker.
    let mut runnable = Vec::new();
    for g in groups {
        let keys = keys(suite, &g);
        if keys.iter().all(|k| suite.not_applicable(k).is_some()) {
            for k in keys {
                on_update(Update::CellFinished(Box::new(not_applicable(suite, &k))));
            }
        } else {
            runnable.push(g);
        }
    }
    if !runnable.is_empty() {
        run_groups(suite, options, runnable, &mut on_update).await?;
    }

    let mut report = empty_report(suite, options);
    report.cells = cells;
    report.controls = controls;
    report.seconds = started.elapsed().as_secs_f64();
    report.sort();
    Ok(report)
}

/// The report of `suite` run with `options` before any cell finished (no cells, 0 s); the
/// suite runner fills it in, and so does a caller that reports the cells finished before an
/// interruption.
pub fn empty_report(suite: &Suite, options: &MatrixOptions) -> MatrixReport {
    MatrixReport {
        schema: MATRIX_SCHEMA.to_string(),
        suite: suite.name.clone(),
        suite_file: Some(suite.file.display().to_string()),
        shapes: suite.shapes.iter().map(|s| s.name.clone()).collect(),
        providers: suite.providers.clone(),
        sources: suite.sources.iter().map(ToString::to_string).collect(),
        targets: suite.targets.iter().map(ToString::to_string).collect(),
        shards: options.shard.map(|s| s.to_string()).into_iter().collect(),
        cells: Vec::new(),
        seconds: 0.0,
        jobs: options.jobs,
        incomplete: false,
        deny_warnings: suite.deny_warnings,
        controls: Vec::new(),
        merged: false,
    }
}

/// Starts the suite's broker (the Kafka version of the first group's scenario), runs every
/// group on it as a task of its own, passes their updates to `on_update` as they come, and
/// removes the broker.
async fn run_groups(
    suite: &Suite,
    options: &MatrixOptions,
    groups: Vec<Group>,
    on_update: &mut dyn FnMut(Update),
) -> Result<(), MatrixError> {
    let first = suite.group_scenario(&groups[0]);
    let ids = TrialIds::new(&suite.name).with_runtime(options.settings.runtime);
    let kafka = trial::start_ready_kafka(&ids, &first, &mut |_| {})
        .await
        .map_err(MatrixError::Kafka)?;
    let clusters = match options.settings.runtime {
        RuntimeKind::Standalone(shape) => {
            let mut per_version = BTreeMap::new();
            for g in &groups {
                for k in keys(suite, g) {
                    if suite.not_applicable(&k).is_none() {
                        *per_version.entry(k.target.to_string()).or_insert(0) += 1;
                    }
                }
            }
            let report_dir = options.settings.report_dir.as_deref();
            match SuiteClusters::new(&ids, shape, report_dir, per_version) {
                Ok(c) => Some(Arc::new(c)),
                Err(e) => {
                    let _ = kafka.remove().await;
                    return Err(MatrixError::Sandboxes(e));
                }
            }
        }
        _ => None,
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<Update>();
    let run = SuiteRun {
        suite: Arc::new(suite.clone()),
        kafka: Arc::new(kafka),
        network: ids.network.clone(),
        gate: Arc::new(Semaphore::new(options.jobs.max(1))),
        settings: options.settings.clone(),
        clusters: clusters.clone(),
        tx,
    };
    let kafka = run.kafka.clone();
    let mut tasks = tokio::task::JoinSet::new();
    for g in groups {
        tasks.spawn(run.clone().run_group(g));
    }
    drop(run);
    while let Some(update) = rx.recv().await {
        on_update(update);
    }
    while tasks.join_next().await.is_some() {}
    if let Some(c) = clusters {
        c.remove(options.settings.keep).await;
    }
    if let Ok(kafka) = Arc::try_unwrap(kafka) {
        let _ = kafka.remove().await;
    }
    Ok(())
}

fn keys(suite: &Suite, g: &Group) -> Vec<CellKey> {
    g.targets
        .iter()
        .map(|t| CellKey {
            shape: suite.shapes[g.shape].name.clone(),
            provider: g.provider.clone(),
            source: g.source.clone(),
            target: t.clone(),
        })
        .collect()
}

fn not_applicable(suite: &Suite, k: &CellKey) -> Cell {
    let (expected, reason) = suite.expected(k);
    Cell::not_run(
        k.names(),
        CellStatus::NotApplicable,
        suite.not_applicable(k).unwrap_or_default(),
        expected,
        reason,
    )
}

/// What every group task of a suite shares: the suite, its broker and network, the gate that
/// lets at most `jobs` generations and trials run at once, and the channel updates go out on.
#[derive(Clone)]
struct SuiteRun {
    suite: Arc<Suite>,
    kafka: Arc<KafkaBroker>,
    network: String,
    gate: Arc<Semaphore>,
    settings: TrialSettings,
    /// The suite's standalone clusters, one per target version, on `--runtime standalone`.
    clusters: Option<Arc<SuiteClusters>>,
    tx: mpsc::UnboundedSender<Update>,
}

/// A group's source checkpoint, seeded on the suite's broker.
struct Seeded {
    source: SourceCheckpoint,
    seeding: SeedingSummary,
}

/// A group's control trial (`control = true`): its report and what it collected, or why it
/// could not run (then every cell's parity is `not-checked` with that reason).
type Control = Result<(TrialReport, Collected), String>;

impl SuiteRun {
    /// One group: generate (or reuse) the source checkpoint, seed its topics once, then restart
    /// it on every applicable target in parallel (each trial waits for a permit of the gate).
    async fn run_group(self, group: Group) {
        let scenario = self.suite.group_scenario(&group);
        let (applicable, na): (Vec<CellKey>, Vec<CellKey>) = keys(&self.suite, &group)
            .into_iter()
            .partition(|k| self.suite.not_applicable(k).is_none());
        for k in &na {
            let _ = self.tx.send(Update::CellFinished(Box::new(not_applicable(
                &self.suite,
                k,
            ))));
        }
        let prepared = {
            let _permit = self.gate.acquire().await;
            let group = format!(
                "{}/{}/{}",
                self.suite.shapes[group.shape].name, group.provider, group.source
            );
            tracing::debug!(%group, "suite group: preparing its source checkpoint");
            let _ = self.tx.send(Update::SourceStarted(group));
            self.prepare(&scenario).await
        };
        let seeded = match prepared {
            Ok(p) => Arc::new(p),
            Err((status, message)) => return self.fail_all(&applicable, status, message),
        };
        // The control before the cells (as `rehearse run` does): each cell is compared with it
        // as it finishes. Cells of other groups run meanwhile.
        let control = if scenario.parity.control && !applicable.is_empty() {
            let control = self.control(&group, &scenario, &seeded).await;
            let key = (
                self.suite.shapes[group.shape].name.as_str(),
                group.provider.as_str(),
                group.source.as_str(),
            );
            let run = match &control {
                Ok((report, _)) => ControlRun::from_trial(key, report),
                Err(why) => ControlRun::not_run(key, group.source.as_str(), why),
            };
            let _ = self.tx.send(Update::ControlFinished(Box::new(run)));
            Some(Arc::new(control))
        } else {
            None
        };
        let mut trials = tokio::task::JoinSet::new();
        for k in applicable {
            trials.spawn(self.clone().run_cell(
                k,
                scenario.clone(),
                seeded.clone(),
                control.clone(),
            ));
        }
        while trials.join_next().await.is_some() {}
    }

    /// Generates (or finds cached) the group's source checkpoint on the shared broker, inspects
    /// it, and seeds its topics for the restarts.
    async fn prepare(&self, scenario: &Scenario) -> Result<Seeded, (CellStatus, String)> {
        let broker = Broker::Shared {
            kafka: &self.kafka,
            network: &self.network,
            seeded: None,
        };
        let runtime = self.kafka.runtime();
        let memory = self.settings.spark_memory_mb;
        let report_dir = self.settings.report_dir.as_deref();
        let source = rehearsal::source_checkpoint(
            scenario,
            runtime,
            memory,
            report_dir,
            broker,
            &mut |_| {},
        )
        .await
        .map_err(|e| (CellStatus::GenerationFailed, format!("{e:#}")))?;
        // A suite's scenarios have no [kafka.mirror] (suite files do not take one): no
        // production evidence to keep.
        let (seeding, _) = trial::seed(
            &self.kafka,
            &source.inspection,
            &source.inspection,
            scenario,
        )
        .await
        .map_err(|e| {
            (
                CellStatus::HarnessError,
                format!("seeding the suite's Kafka: {e:#}"),
            )
        })?;
        Ok(Seeded { source, seeding })
    }

    /// The group's control trial, once the gate lets it run: the seeded checkpoint restarted
    /// on the control's version (the group's source version) with the unchanged job, on the
    /// suite's broker with output topics of its own, on the runtime the generation used,
    /// collecting what it wrote.
    async fn control(&self, group: &Group, scenario: &Scenario, seeded: &Seeded) -> Control {
        let _permit = self.gate.acquire().await;
        let source = &seeded.source;
        let version = trial::control_version(scenario, Some(&source.inspection))?;
        tracing::debug!(
            group = %format!("{}/{}/{}", self.suite.shapes[group.shape].name, group.provider, group.source),
            %version,
            "suite group: its control started"
        );
        let broker = Broker::Shared {
            kafka: &self.kafka,
            network: &self.network,
            seeded: Some(seeded.seeding.clone()),
        };
        // Where the generation ran (on a suite's standalone clusters: in a container,
        // `local[2]`), as the job wrote the checkpoint.
        let settings = TrialSettings {
            runtime: self.kafka.runtime(),
            ..self.settings.clone()
        };
        let control = crate::scenario::suite::control_scenario(scenario);
        let request = trial::TrialRequest {
            scenario: &control,
            source: &source.path,
            inspection: &source.inspection,
            target: &version,
            settings: &settings,
            broker,
            role: TrialRole::Control,
            collect: true,
        };
        trial::run_trial_as(request, &mut |_| {})
            .await
            .map_err(|e| format!("the control on {version} could not run: {e:#}"))
    }

    /// Every applicable cell of a group whose checkpoint could not be prepared, not run.
    fn fail_all(&self, keys: &[CellKey], status: CellStatus, message: String) {
        for k in keys {
            let (expected, reason) = self.suite.expected(k);
            let _ = self.tx.send(Update::CellFinished(Box::new(Cell::not_run(
                k.names(),
                status,
                message.clone(),
                expected,
                reason,
            ))));
        }
    }

    /// One cell: a trial of the group's seeded checkpoint on the cell's target, once the gate
    /// lets it run; its cell goes out whatever happened.
    async fn run_cell(
        self,
        k: CellKey,
        scenario: Scenario,
        seeded: Arc<Seeded>,
        control: Option<Arc<Control>>,
    ) {
        let control = control.as_deref();
        let cell = match &self.clusters {
            Some(clusters) => {
                // A slot on the version's cluster first, then a place among the `jobs`.
                let place = clusters.place(k.target.as_str()).await;
                let cell = match &place.runtime {
                    Ok(runtime) => {
                        let settings = TrialSettings {
                            runtime: *runtime,
                            report_dir: Some(clusters.sandboxes().to_path_buf()),
                            ..self.settings.clone()
                        };
                        self.trial_cell(&k, &scenario, &seeded, control, &settings)
                            .await
                    }
                    Err(message) => {
                        let (expected, reason) = self.suite.expected(&k);
                        Cell::not_run(
                            k.names(),
                            CellStatus::HarnessError,
                            message.clone(),
                            expected,
                            reason,
                        )
                    }
                };
                drop(place);
                clusters.cell_done(k.target.as_str()).await;
                cell
            }
            None => {
                self.trial_cell(&k, &scenario, &seeded, control, &self.settings)
                    .await
            }
        };
        tracing::debug!(cell = %cell.id(), passed = cell.passed(), "suite cell finished");
        let _ = self.tx.send(Update::CellFinished(Box::new(cell)));
    }

    /// A cell's trial with `settings`, once the gate lets it run; with the group's `control`,
    /// its parity against it.
    async fn trial_cell(
        &self,
        k: &CellKey,
        scenario: &Scenario,
        seeded: &Seeded,
        control: Option<&Control>,
        settings: &TrialSettings,
    ) -> Cell {
        let _permit = self.gate.acquire().await;
        tracing::debug!(cell = %k.id(), "suite cell started");
        let _ = self.tx.send(Update::CellStarted(k.id()));
        let (expected, reason) = self.suite.expected(k);
        let source = &seeded.source;
        let broker = Broker::Shared {
            kafka: &self.kafka,
            network: &self.network,
            seeded: Some(seeded.seeding.clone()),
        };
        let request = trial::TrialRequest {
            scenario,
            source: &source.path,
            inspection: &source.inspection,
            target: &k.target,
            settings,
            broker,
            role: TrialRole::Target,
            collect: control.is_some(),
        };
        let result = trial::run_trial_as(request, &mut |_| {}).await;
        match result {
            Ok((mut report, collected)) => {
                report.parity = control.map(|c| cell_parity(scenario, &report, &collected, c));
                Cell {
                    source_checkpoint: Some(source.path.display().to_string()),
                    ..Cell::from_trial(
                        (k.shape.as_str(), k.provider.as_str(), k.source.as_str()),
                        &report,
                        expected,
                        reason,
                    )
                }
            }
            Err(e) => Cell::not_run(
                k.names(),
                CellStatus::HarnessError,
                format!("{e:#}"),
                expected,
                reason,
            ),
        }
    }
}

/// A cell's parity against its group's control, or `not-checked` with why the control could not
/// run (its version: the cell's source).
fn cell_parity(
    scenario: &Scenario,
    report: &TrialReport,
    collected: &Collected,
    control: &Control,
) -> Parity {
    match control {
        Ok((c, cc)) => trial::parity_of(scenario, report, collected, c, cc),
        Err(why) => {
            let version = match &scenario.checkpoint {
                crate::scenario::CheckpointSource::Generate { spark, .. } => spark.as_str(),
                _ => "?",
            };
            Parity {
                volatile_columns: scenario.parity.volatile_columns.clone(),
                may_differ: scenario.parity.may_differ,
                ..Parity::not_checked(version, why.clone())
            }
        }
    }
}

/// The Spark versions the cells of `suite` in `shard` need ready: the source and the target of
/// every cell that runs. A version every cell of which is not applicable (an old source for a
/// new shape) needs no image, and a shard of only such cells none at all.
pub fn spark_versions(suite: &Suite, shard: Option<super::Shard>) -> Vec<String> {
    let mut versions = Vec::new();
    for cell in suite.cells_of(&suite.groups(shard)) {
        if suite.not_applicable(&cell).is_none() {
            versions.push(cell.source.to_string());
            versions.push(cell.target.to_string());
        }
    }
    versions
}

/// Makes `runtime` ready for the cells of `suite` in `shard` ([`spark_versions`], and the
/// Kafka version of the suite's first shape): nothing when no cell runs. A shape's job
/// dependencies (`[job] packages`, `requirements`) are resolved first for every version, so a
/// package missing for a line is refused before any image or container. Blocking; progress one
/// line per step.
pub fn prepare_runtime(
    suite: &Suite,
    shard: Option<super::Shard>,
    runtime: RuntimeKind,
    progress: &mut dyn FnMut(&str),
) -> Result<(), RehearsalError> {
    let versions = spark_versions(suite, shard);
    for shape in &suite.shapes {
        for v in &versions {
            crate::trial::resolve_dependencies(
                &shape.scenario.dependencies,
                v,
                &format!("Spark {v} (shape {})", shape.name),
                runtime,
                &mut |line| progress(&line),
            )?;
        }
    }
    if let (Some(s), false) = (suite.shapes.first(), versions.is_empty()) {
        rehearsal::prepare_runtime(runtime, &versions, &s.scenario.kafka_version, progress)?;
    }
    Ok(())
}

/// Counts of cells per (shape, provider) in a shard, for callers that print a grid once it is
/// complete.
pub fn cells_per_grid(
    suite: &Suite,
    shard: Option<super::Shard>,
) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for g in suite.groups(shard) {
        *out.entry((suite.shapes[g.shape].name.clone(), g.provider.clone()))
            .or_insert(0) += g.targets.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A control that could not run leaves every cell of its group `not-checked`, saying why,
    /// on the group's source version, with the group's parity settings — never `same`.
    #[test]
    fn a_control_that_could_not_run_makes_each_cells_parity_not_checked() {
        let dir = tempfile::tempdir().unwrap();
        let shape = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/shapes/windowed-count.toml");
        let text = format!(
            "name = \"t\"\nsources = [\"3.5.3\"]\ntargets = [\"4.0.1\"]\ncontrol = true\nparity = \"may-differ\"\n[[shapes]]\nscenario = \"{}\"\n",
            shape.display()
        );
        let suite = Suite::parse(&text, &dir.path().join("s.toml")).unwrap();
        let scenario = suite.group_scenario(&suite.groups(None)[0]);
        let report = crate::report::test_helpers::resumed().trials.remove(0);
        let control: Control = Err("the control on 3.5.3 could not run: no engine".into());
        let p = cell_parity(&scenario, &report, &Collected::default(), &control);
        assert_eq!(p.status, crate::report::ParityStatus::NotChecked);
        assert_eq!(p.control_version, "3.5.3");
        assert!(p.may_differ);
        assert_eq!(
            p.reason.as_deref(),
            Some("the control on 3.5.3 could not run: no engine")
        );
    }
}
