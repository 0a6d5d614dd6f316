//! What a finished trial hands its report, apart from the verdict: `trial.json` kept beside its
//! logs, the rows it wrote for the parity comparison, the output topics as a sink's proof, and
//! the artifact it ran.

use std::path::Path;

use super::Restart;
use crate::checkpoint::KafkaOffsets;
use crate::report::TrialReport;
use crate::scenario::Scenario;
use crate::trial::control::Collected;

/// Writes `trial.json` (the trial's report, [`crate::report::write_trial_json`]) beside its kept
/// logs in `dir`. Best effort: the report itself still reaches the user when this fails.
pub(super) fn keep_trial_json(dir: &Path, report: &TrialReport) {
    let path = dir.join("trial.json");
    // Through userfile: with --keep `dir` is the sandbox the job wrote into as root, and a
    // `trial.json` link it planted must be replaced, never written through (breaker pass).
    let written = crate::userfile::write_with(
        &path,
        "trial report",
        crate::userfile::Existing::Replace,
        |mut out| crate::report::write_trial_json(report, &mut out),
    );
    if let Err(e) = written {
        tracing::debug!(path = %path.display(), error = %e, "trial.json not written");
    }
}

/// What a trial collected for the parity comparison, once its driver stopped: the rows of the
/// file sinks under its sandbox's `{output}` and of its output topics after the restart.
pub(super) async fn collect_rows(
    r: &Restart<'_>,
    scenario: &Scenario,
    output_before: &KafkaOffsets,
    digest: Result<crate::kafka::InputDigest, String>,
    read_all: Option<Result<String, String>>,
) -> Collected {
    let mut rows = crate::trial::sink_rows::file_sink_rows(&r.sandbox.join("output"));
    let names: Vec<String> = scenario
        .output_topics
        .iter()
        .map(|o| o.name.clone())
        .collect();
    let read = crate::kafka::records_after(&r.kafka.host_bootstrap, &names, output_before)
        .await
        .map_err(|e| e.to_string());
    rows.extend(crate::trial::control::output_topic_rows(
        &scenario.output_topics,
        read,
    ));
    Collected {
        rows,
        digest: Some(digest),
        read_all,
        start: None,
    }
}

/// The exercised paths with the output topics' records as the sink's evidence where progress
/// could not prove it (a sink reporting `numOutputRows` -1): records written to a declared
/// output topic after the restart prove the sink wrote. Only adds a proof; a sink the progress
/// reports keeps its own.
pub(super) fn with_output_topics(
    exercised: Option<crate::verdict::Exercised>,
    output: &[crate::report::OutputCount],
) -> Option<crate::verdict::Exercised> {
    let mut e = exercised?;
    if e.sink_wrote.is_none() {
        if let Some(o) = output.iter().find(|o| o.records_after_restart > 0) {
            e.sink_wrote = Some(crate::verdict::PathProof {
                ran: true,
                evidence: format!(
                    "output topic {}: {} records after the restart (read back by the harness)",
                    o.topic, o.records_after_restart
                ),
            });
        }
    }
    Some(e)
}

/// The artifact a trial ran, for its report: where it came from, its path and main class, and
/// blake3 of its bytes (`None` when it cannot be read now).
pub(super) fn job_artifact(job: &crate::scenario::ResolvedJob) -> crate::report::JobArtifact {
    let (kind, main_class) = match &job.job {
        crate::scenario::Job::Python { .. } => ("file", None),
        crate::scenario::Job::Jar { main_class, .. } => ("jar", Some(main_class.clone())),
    };
    let mut h = blake3::Hasher::new();
    let blake3 = crate::userfile::stream_into(job.artifact(), "job file", &mut h)
        .ok()
        .map(|_| h.finalize().to_hex().to_string());
    crate::report::JobArtifact {
        table: job.table(),
        kind: kind.to_owned(),
        path: job.artifact().to_path_buf(),
        main_class,
        blake3,
    }
}
