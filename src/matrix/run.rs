//! Running a suite: one Kafka broker and network for the whole suite, each source checkpoint
//! generated once (cached like a scenario's), its topics seeded once, then every target
//! restarted as a trial — at most `jobs` Spark containers at a time, each memory-capped.
//!
//! Cells flow out as they finish (a channel to the caller's callback); the report is built
//! from them. Nothing here prints.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, Semaphore};

use crate::report::matrix::{Cell, CellStatus, MatrixReport, MATRIX_SCHEMA};
use crate::runtime::{KafkaBroker, TrialIds};
use crate::scenario::suite::{CellKey, Group, Suite};
use crate::scenario::Scenario;
use crate::trial::{self, Broker, Generate, TrialError, TrialSettings};

/// Memory cap of each Spark container of a suite, MiB, unless `--spark-memory` says otherwise:
/// a local-mode driver with Spark's default 1 GiB heap, its off-heap and Python workers
/// (measured peak of the example jobs: under 1.5 GiB).
pub const DEFAULT_SPARK_MEMORY_MB: u64 = 2048;
/// Memory kept back for the shared Kafka broker, the host and Docker, MiB.
pub const RESERVED_MEMORY_MB: u64 = 2048;

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
}

/// `--jobs` default: as many cells as free memory holds at `spark_memory_mb` each after
/// [`RESERVED_MEMORY_MB`] (MemAvailable of /proc/meminfo), but no more than the CPU count
/// (at least 2): a Spark driver is CPU-bound while it starts, and more drivers than cores only
/// stretch every trial towards its timeout. Without /proc/meminfo: 2.
pub fn default_jobs(spark_memory_mb: u64) -> usize {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2);
    let by_memory = available_memory_mb()
        .map(|mb| (mb.saturating_sub(RESERVED_MEMORY_MB) / spark_memory_mb.max(256)) as usize)
        .unwrap_or(2);
    by_memory.clamp(1, cpus)
}

/// MemAvailable in MiB, from /proc/meminfo (Linux).
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Runs `suite` (or one shard of it) and returns its report; `on_cell` sees each cell as it
/// finishes, with the number finished and the total.
pub async fn run_matrix(
    suite: &Suite,
    options: &MatrixOptions,
    on_cell: &mut dyn FnMut(usize, usize, &Cell),
) -> Result<MatrixReport, MatrixError> {
    let started = Instant::now();
    let groups = suite.groups(options.shard);
    let total: usize = groups.iter().map(|g| g.targets.len()).sum();
    let (tx, mut rx) = mpsc::unbounded_channel::<Cell>();
    let mut cells = Vec::new();

    // Groups whose every cell is not applicable need no checkpoint and no broker.
    let mut runnable = Vec::new();
    for g in groups {
        let keys = keys(suite, &g);
        if keys.iter().all(|k| suite.not_applicable(k).is_some()) {
            for k in keys {
                let cell = not_applicable(suite, &k);
                cells.push(cell.clone());
                on_cell(cells.len(), total, &cell);
            }
        } else {
            runnable.push(g);
        }
    }

    if !runnable.is_empty() {
        let first = suite.group_scenario(&runnable[0]);
        let ids = TrialIds::new(&suite.name).with_runtime(options.settings.runtime);
        let kafka = trial::start_ready_kafka(&ids, &first, &mut |_| {})
            .await
            .map_err(MatrixError::Kafka)?;
        let kafka = Arc::new(kafka);
        let gate = Arc::new(Semaphore::new(options.jobs.max(1)));
        let suite_arc = Arc::new(suite.clone());
        let mut tasks = tokio::task::JoinSet::new();
        for g in runnable {
            tasks.spawn(run_group(
                suite_arc.clone(),
                g,
                kafka.clone(),
                ids.network.clone(),
                gate.clone(),
                options.settings.clone(),
                tx.clone(),
            ));
        }
        drop(tx);
        while let Some(cell) = rx.recv().await {
            cells.push(cell.clone());
            on_cell(cells.len(), total, &cell);
        }
        while tasks.join_next().await.is_some() {}
        if let Ok(kafka) = Arc::try_unwrap(kafka) {
            let _ = kafka.remove().await;
        }
    }

    let mut report = MatrixReport {
        schema: MATRIX_SCHEMA.to_string(),
        suite: suite.name.clone(),
        suite_file: Some(suite.file.display().to_string()),
        shapes: suite.shapes.iter().map(|s| s.name.clone()).collect(),
        providers: suite.providers.clone(),
        sources: suite.sources.clone(),
        targets: suite.targets.clone(),
        shards: options.shard.map(|s| s.to_string()).into_iter().collect(),
        cells,
        seconds: started.elapsed().as_secs_f64(),
        jobs: options.jobs,
        incomplete: false,
    };
    report.sort();
    Ok(report)
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
        (&k.shape, &k.provider, &k.source, &k.target),
        CellStatus::NotApplicable,
        suite.not_applicable(k).unwrap_or_default(),
        expected,
        reason,
    )
}

/// One group: generate (or reuse) the source checkpoint, seed its topics once, then restart it
/// on every applicable target in parallel (each trial waits for a permit of `gate`).
async fn run_group(
    suite: Arc<Suite>,
    group: Group,
    kafka: Arc<KafkaBroker>,
    network: String,
    gate: Arc<Semaphore>,
    settings: TrialSettings,
    tx: mpsc::UnboundedSender<Cell>,
) {
    let scenario = suite.group_scenario(&group);
    let all = keys(&suite, &group);
    let (applicable, na): (Vec<CellKey>, Vec<CellKey>) = all
        .into_iter()
        .partition(|k| suite.not_applicable(k).is_none());
    for k in &na {
        let _ = tx.send(not_applicable(&suite, k));
    }
    let fail_all = |status: CellStatus, message: String| {
        for k in &applicable {
            let (expected, reason) = suite.expected(k);
            let _ = tx.send(Cell::not_run(
                (&k.shape, &k.provider, &k.source, &k.target),
                status,
                message.clone(),
                expected,
                reason,
            ));
        }
    };
    let prepared = {
        let _permit = gate.acquire().await;
        prepare(&scenario, &kafka, &network, &settings).await
    };
    let (source, inspection, seeding) = match prepared {
        Ok(p) => p,
        Err((status, message)) => return fail_all(status, message),
    };
    let mut trials = tokio::task::JoinSet::new();
    for k in applicable {
        let (scenario, source, inspection, seeding, kafka, network, gate, settings, tx, suite) = (
            scenario.clone(),
            source.clone(),
            inspection.clone(),
            seeding.clone(),
            kafka.clone(),
            network.clone(),
            gate.clone(),
            settings.clone(),
            tx.clone(),
            suite.clone(),
        );
        trials.spawn(async move {
            let _permit = gate.acquire().await;
            let (expected, reason) = suite.expected(&k);
            let broker = Broker::Shared {
                kafka: &kafka,
                network: &network,
                seeded: Some(seeding),
            };
            let result = trial::run_trial(
                &scenario,
                &source,
                &inspection,
                &k.target,
                &settings,
                broker,
                &mut |_| {},
            )
            .await;
            let cell = match result {
                Ok(report) => Cell {
                    source_checkpoint: Some(source.display().to_string()),
                    ..Cell::from_trial(
                        (&k.shape, &k.provider, &k.source),
                        &report,
                        expected,
                        reason,
                    )
                },
                Err(e) => Cell::not_run(
                    (&k.shape, &k.provider, &k.source, &k.target),
                    CellStatus::HarnessError,
                    format!("{e:#}"),
                    expected,
                    reason,
                ),
            };
            let _ = tx.send(cell);
        });
    }
    while trials.join_next().await.is_some() {}
}

/// Generates (or finds cached) the group's source checkpoint on the shared broker, inspects
/// it, and seeds its topics for the restarts.
async fn prepare(
    scenario: &Scenario,
    kafka: &KafkaBroker,
    network: &str,
    settings: &TrialSettings,
) -> Result<
    (
        std::path::PathBuf,
        crate::checkpoint::Inspection,
        crate::report::SeedingSummary,
    ),
    (CellStatus, String),
> {
    let Some(g) = Generate::of(scenario, kafka.runtime(), settings.spark_memory_mb) else {
        return Err((
            CellStatus::GenerationFailed,
            "the shape's scenario has no [checkpoint.generate]".into(),
        ));
    };
    let broker = Broker::Shared {
        kafka,
        network,
        seeded: None,
    };
    let source = trial::generate_checkpoint(scenario, &g, broker, &mut |_| {})
        .await
        .map_err(|e| (CellStatus::GenerationFailed, format!("{e:#}")))?;
    let inspection = crate::checkpoint::inspect(&source)
        .map_err(|e| (CellStatus::GenerationFailed, format!("{e:#}")))?;
    let seeding = trial::seed(kafka, &inspection, scenario)
        .await
        .map_err(|e| {
            (
                CellStatus::HarnessError,
                format!("seeding the suite's Kafka: {e:#}"),
            )
        })?;
    Ok((source, inspection, seeding))
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
