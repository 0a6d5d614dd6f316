//! The trial's own parts failing under it: the broker dying, the driver killed by the kernel's
//! OOM killer or by SIGKILL from outside, the Docker engine going away. The log cannot say
//! these (a dead broker reads as a Kafka client error, an OOM kill as silence), so the trial
//! asks the runtime (`docker inspect`: `State.Running`, `State.ExitCode`, `State.OOMKilled`)
//! and says `environment-error` with that as evidence ([`BuiltinRule::SandboxKafkaDied`],
//! [`BuiltinRule::SparkOomKilled`], [`BuiltinRule::SparkKilled`], [`BuiltinRule::EngineLost`]).
//! A `resumed` proved before the failure stands: the proof needed both parts working. So does
//! a verdict the watch had reached before it read on until every seeded record was read (a
//! control runs): a part failing then ends the reading on, and the parity says why it is not
//! checked ([`BrokerStopped::AfterVerdict`]; the trial does not [`judge`] such a verdict again).

use std::future::Future;
use std::time::Duration;

use super::watch::{AtVerdict, SoFar};
use crate::runtime::{KafkaBroker, PartState, SparkDriver};
use crate::verdict::{BuiltinRule, Classification, Verdict};

/// How often the broker is asked whether it still runs while a restart is watched.
const POLL: Duration = Duration::from_secs(2);

/// How a watch ended when the broker stopped under it.
#[derive(Debug)]
pub(super) enum BrokerStopped {
    /// Before the verdict: `environment-error` with the harness's evidence, what the watch had
    /// proved kept after it.
    BeforeVerdict(Classification),
    /// After the verdict, while the watch read on until every seeded record was read (a
    /// control runs): the verdict stands (it was reached with the broker working), and the
    /// reading on did not finish — why, for the parity's `not-checked`.
    AfterVerdict(AtVerdict, String),
}

/// Runs `watching` (the watch of a restart) until it ends, or until `kafka` stops running (or
/// the engine stops answering): then `Err` with the harness's evidence, and the watch is
/// dropped (a restart without its broker tests nothing; Spark's Kafka client would retry for
/// minutes). What the watch had proved by then (`so_far`: the batches that ran, the paths they
/// proved, the warnings) is kept after the harness's evidence; the verdict stays the
/// harness's — unless the watch had reached its verdict and was only reading on
/// ([`BrokerStopped::AfterVerdict`]).
pub(super) async fn unless_broker_dies<T>(
    kafka: &KafkaBroker,
    watching: impl Future<Output = T>,
    so_far: &SoFar,
) -> Result<T, BrokerStopped> {
    let broker_down = async {
        loop {
            tokio::time::sleep(POLL).await;
            match kafka.state().await {
                PartState::Running => continue,
                state => return state,
            }
        }
    };
    tokio::select! {
        watched = watching => Ok(watched),
        state = broker_down => Err(broker_stopped(&kafka.describe(), &state, so_far)),
    }
}

/// What a broker (`kafka`, as evidence names it) found in `state` means for the watch that
/// `so_far` describes: see [`BrokerStopped`].
fn broker_stopped(kafka: &str, state: &PartState, so_far: &SoFar) -> BrokerStopped {
    match so_far.verdict() {
        Some(at) => {
            let how = match state {
                PartState::Unreachable(e) => format!(
                    "the trial's Kafka broker ({kafka}) could not be inspected: the container engine answered: {e}"
                ),
                PartState::Exited { code, oom_killed } => format!(
                    "the trial's Kafka broker ({kafka}) ended: {}",
                    ended(*code, *oom_killed)
                ),
                PartState::Running => format!("the trial's Kafka broker ({kafka}) stopped"),
            };
            BrokerStopped::AfterVerdict(
                at,
                format!("the sandbox broker stopped under the trial after the verdict: {how}"),
            )
        }
        None => BrokerStopped::BeforeVerdict(keep_proven(broker_died(kafka, state), so_far.take())),
    }
}

/// `harness` (a part failed under the watch) with what the watch had proved before it: the
/// batches that ran and the log's evidence, batch facts, paths and warnings ([`with_log`]).
fn keep_proven(
    mut harness: Classification,
    so_far: Option<(Classification, u64)>,
) -> Classification {
    let Some((log, batches)) = so_far else {
        return harness;
    };
    if batches > 0 {
        harness.evidence.push(format!(
            "before it, the restarted query ran {batches} batch{}{} (its progress reports; the paths they proved are kept)",
            if batches == 1 { "" } else { "es" },
            log.first_batch_after_restart
                .map(|b| format!(" from batch {}", b.0))
                .unwrap_or_default()
        ));
    }
    with_log(harness, log)
}

/// The verdict for a broker (`kafka`, as evidence names it) found in `state` (not running)
/// before the verdict.
fn broker_died(kafka: &str, state: &PartState) -> Classification {
    let (rule, what) = match state {
        PartState::Unreachable(e) => (
            BuiltinRule::EngineLost,
            format!(
                "the trial's Kafka broker ({kafka}) could not be inspected: the container engine answered: {e}"
            ),
        ),
        PartState::Exited { code, oom_killed } => (
            BuiltinRule::SandboxKafkaDied,
            format!(
                "the trial's Kafka broker ({kafka}) stopped before the verdict: {}",
                ended(*code, *oom_killed)
            ),
        ),
        PartState::Running => (BuiltinRule::SandboxKafkaDied, String::new()),
    };
    Classification::of_builtin(rule, vec![what])
}

/// `exit code 137 (SIGKILL), OOMKilled` for evidence.
fn ended(code: Option<i64>, oom_killed: bool) -> String {
    let code = match code {
        Some(c) if c > 128 && c < 128 + 65 => format!("exit code {c} (signal {})", c - 128),
        Some(c) => format!("exit code {c}"),
        None => "exit code unknown".to_string(),
    };
    if oom_killed {
        format!("{code}, State.OOMKilled = true")
    } else {
        code
    }
}

/// The watcher's `classification` once the driver ended or the watch stopped, corrected by how
/// the parts stand now: a driver the kernel OOM-killed (under `memory_mb`), a driver killed by
/// SIGKILL, a broker that died, an engine that went away — each `environment-error` with the
/// runtime's answer first in the evidence and the log's lines after it. Unchanged when the
/// verdict is `resumed` or every part answers as expected.
pub(super) async fn judge(
    classification: Classification,
    spark: &SparkDriver,
    kafka: &KafkaBroker,
    memory_mb: Option<u64>,
) -> Classification {
    if classification.verdict == Verdict::Resumed {
        return classification;
    }
    let spark_state = spark.state().await;
    let (rule, what) = match &spark_state {
        PartState::Exited {
            code,
            oom_killed: true,
        } => (
            BuiltinRule::SparkOomKilled,
            format!(
                "the kernel's OOM killer killed the Spark driver ({}) under its memory cap{}: {}",
                spark.describe(),
                memory_mb
                    .map(|mb| format!(" of {mb} MiB (--spark-memory)"))
                    .unwrap_or_default(),
                ended(*code, true)
            ),
        ),
        PartState::Exited {
            code: Some(137), ..
        } => (
            BuiltinRule::SparkKilled,
            format!(
                "the Spark driver ({}) was killed: {}, not an exit of Spark's own",
                spark.describe(),
                ended(Some(137), false)
            ),
        ),
        PartState::Unreachable(e) => (
            BuiltinRule::EngineLost,
            format!(
                "the Spark driver ({}) could not be inspected after its output ended: the container engine answered: {e}",
                spark.describe()
            ),
        ),
        _ => match kafka.state().await {
            PartState::Running => return classification,
            state => {
                let died = broker_died(&kafka.describe(), &state);
                return with_log(died, classification);
            }
        },
    };
    with_log(Classification::of_builtin(rule, vec![what]), classification)
}

/// `harness` with what the log said after it: the evidence lines and batch facts of `log`,
/// labelled as what Spark logged.
fn with_log(mut harness: Classification, log: Classification) -> Classification {
    if !log.evidence.is_empty() {
        harness.evidence.push(format!(
            "what the driver logged (the log alone gave {}, rule {}):",
            log.verdict, log.rule
        ));
        harness.evidence.extend(log.evidence);
    }
    Classification {
        last_committed_batch: log.last_committed_batch,
        first_batch_after_restart: log.first_batch_after_restart,
        start_offsets_match: log.start_offsets_match,
        resuming_at: log.resuming_at,
        warnings: log.warnings,
        exercised: log.exercised,
        ..harness
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_are_said_with_the_signal_and_the_oom_flag() {
        assert_eq!(ended(Some(137), false), "exit code 137 (signal 9)");
        assert_eq!(ended(Some(1), true), "exit code 1, State.OOMKilled = true");
        assert_eq!(ended(None, false), "exit code unknown");
    }

    #[test]
    fn the_harness_rules_are_environment_errors_and_keep_the_log_after_their_evidence() {
        for rule in [
            BuiltinRule::SandboxKafkaDied,
            BuiltinRule::SparkOomKilled,
            BuiltinRule::SparkKilled,
            BuiltinRule::EngineLost,
        ] {
            assert_eq!(rule.verdict(), Verdict::EnvironmentError, "{rule:?}");
        }
        let log = Classification {
            verdict: Verdict::UnclassifiedFailure,
            rule: "no-rule-matched".into(),
            evidence: vec!["ConfigException: No resolvable bootstrap urls".into()],
            ..Classification::of_builtin(BuiltinRule::NoRuleMatched, Vec::new())
        };
        let c = with_log(
            Classification::of_builtin(
                BuiltinRule::SandboxKafkaDied,
                vec!["broker stopped".into()],
            ),
            log,
        );
        assert_eq!(c.verdict, Verdict::EnvironmentError);
        assert_eq!(c.rule, "sandbox-kafka-died");
        assert_eq!(c.evidence[0], "broker stopped");
        assert!(
            c.evidence[1].contains("unclassified-failure"),
            "{:?}",
            c.evidence
        );
        assert!(c.evidence[2].contains("bootstrap"));
    }

    #[test]
    fn a_part_failing_under_the_watch_keeps_the_batches_and_paths_proved_before_it() {
        use crate::verdict::{BatchId, Exercised, PathProof};
        let proof = |ran: bool, evidence: &str| {
            Some(PathProof {
                ran,
                evidence: evidence.into(),
            })
        };
        let log = Classification {
            verdict: Verdict::ResumeUnproven,
            rule: "paths-did-not-run".into(),
            evidence: vec!["batch 4: startOffsets = committed offsets".into()],
            first_batch_after_restart: Some(BatchId(4)),
            last_committed_batch: Some(BatchId(3)),
            exercised: Some(Exercised {
                state_loaded: proof(true, "batch 4: numRowsTotal 5 > numRowsUpdated 2"),
                state_evicted: proof(false, "no batch removed a row"),
                ..Exercised::default()
            }),
            ..Classification::of_builtin(BuiltinRule::NoRuleMatched, Vec::new())
        };
        let died = || {
            Classification::of_builtin(BuiltinRule::SandboxKafkaDied, vec!["broker stopped".into()])
        };
        let kept = keep_proven(died(), Some((log.clone(), 2)));
        assert_eq!(
            (kept.verdict, kept.rule.as_str()),
            (Verdict::EnvironmentError, "sandbox-kafka-died"),
            "the parts' verdict stays"
        );
        assert_eq!(kept.evidence[0], "broker stopped");
        assert!(
            kept.evidence[1].contains("ran 2 batches from batch 4"),
            "{:?}",
            kept.evidence
        );
        assert!(kept.evidence.iter().any(|e| e.contains("startOffsets")));
        assert_eq!(kept.first_batch_after_restart, Some(BatchId(4)));
        assert_eq!(kept.exercised, log.exercised);
        // Nothing proved yet (no progress report before the failure): the harness alone.
        let alone = keep_proven(died(), None);
        assert_eq!(alone.evidence, ["broker stopped"]);
        assert_eq!(alone.exercised, None);
    }

    /// The breaker pass: a control's target proved `resumed`, the watch read on until every
    /// seeded record was read, and the broker was killed then — the trial said
    /// `environment-error` (`sandbox-kafka-died`, exit 11). The verdict stands; the reading on
    /// ends with why (the parity is then `not-checked` saying it). The same for a fresh run
    /// whose batch 0 ran. Before the verdict the broker's death is still the verdict.
    #[test]
    fn a_broker_stopping_after_the_verdict_keeps_the_verdict_and_ends_the_reading_on() {
        use crate::verdict::BatchId;
        let killed = PartState::Exited {
            code: Some(137),
            oom_killed: false,
        };
        let so_far = SoFar::default();
        match broker_stopped("container k", &killed, &so_far) {
            BrokerStopped::BeforeVerdict(c) => {
                assert_eq!(
                    (c.verdict, c.rule.as_str()),
                    (Verdict::EnvironmentError, "sandbox-kafka-died")
                );
                assert_eq!(
                    c.evidence[0],
                    "the trial's Kafka broker (container k) stopped before the verdict: exit code 137 (signal 9)"
                );
            }
            other => panic!("no verdict was reached: {other:?}"),
        }
        let resumed = Classification {
            verdict: Verdict::Resumed,
            rule: BuiltinRule::ProgressAfterRestart.id().to_string(),
            evidence: vec!["batch 4 read 6 fresh rows from the committed offsets".into()],
            first_batch_after_restart: Some(BatchId(4)),
            ..Classification::of_builtin(BuiltinRule::NoRuleMatched, Vec::new())
        };
        let fresh = Classification {
            verdict: Verdict::StartedFresh,
            rule: BuiltinRule::NewQueryRanBatchZero.id().to_string(),
            first_batch_after_restart: Some(BatchId(0)),
            ..Classification::of_builtin(BuiltinRule::NoRuleMatched, Vec::new())
        };
        assert!(super::super::fresh::ran(&fresh));
        for verdict in [resumed, fresh] {
            let so_far = SoFar::default();
            so_far.reached(AtVerdict {
                classification: verdict.clone(),
                executors: Default::default(),
                at: tokio::time::Instant::now(),
            });
            match broker_stopped("container k", &killed, &so_far) {
                BrokerStopped::AfterVerdict(at, why) => {
                    let c = at.classification;
                    assert_eq!(
                        (c.verdict, &c.rule, &c.evidence),
                        (verdict.verdict, &verdict.rule, &verdict.evidence),
                        "the verdict stands"
                    );
                    assert_eq!(
                        why,
                        "the sandbox broker stopped under the trial after the verdict: the trial's Kafka broker (container k) ended: exit code 137 (signal 9)"
                    );
                }
                other => panic!("the verdict was reached: {other:?}"),
            }
        }
    }
}
