//! The baseline of the restart benchmark (`benches/restart.rs`): the same restart as a trial,
//! without the watcher. Used by the benchmark only.

use std::path::Path;
use std::time::{Duration, Instant};

use super::broker::{seed_and_check, start_ready_kafka};
use super::job::{stage_job, submit, SubmitCommand};
use super::TrialError;
use crate::checkpoint::Inspection;
use crate::runtime::{self, RuntimeKind, TrialIds};
use crate::sandbox::Sandbox;
use crate::scenario::Scenario;
use crate::versions::SparkVersion;

/// Baseline for the restart benchmark (`cargo bench --bench restart`): restarts a fresh copy of
/// `source` on `target` exactly as a trial does (same image, Kafka seeding, submit command) but
/// with no watcher, and returns the seconds from starting spark-submit to the first
/// "Streaming query made progress" line — what a bare `spark-submit` restart costs.
pub async fn bare_restart_seconds(
    scenario: &Scenario,
    source: &Path,
    inspection: &Inspection,
    target: &SparkVersion,
) -> Result<f64, TrialError> {
    let sandbox = Sandbox::create(source, None, &format!("{}-bare-{target}", scenario.name))?;
    let job = scenario.job_for(target.as_str());
    let app = stage_job(
        &job,
        &scenario.dependencies,
        sandbox.path(),
        target,
        RuntimeKind::Docker,
    )?;
    let ids = TrialIds::new(&scenario.name);
    let kafka = start_ready_kafka(&ids, scenario, &mut |_| {}).await?;
    let result = async {
        seed_and_check(&kafka, inspection, inspection, scenario).await?;
        let job_sandbox = ids.runtime.job_sandbox(sandbox.path());
        let cmd = submit(&SubmitCommand {
            ids: &ids,
            scenario,
            job: &job,
            version: target,
            sandbox: &job_sandbox,
            staged: &app,
            args: &job.args,
            kafka: &kafka,
            starting_offsets: Some(&inspection.committed_kafka_offsets()),
        })?;
        let started = Instant::now();
        let spark = runtime::start_spark(&ids, target.as_str(), sandbox.path(), cmd, None).await?;
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
        seconds.ok_or_else(|| TrialError::Baseline {
            spark: target.to_string(),
            reason: "the bare restart printed no progress line before the timeout".into(),
        })
    }
    .await;
    kafka.remove().await?;
    result
}
