//! Watching a restart: the driver's output and event log fed to the [`Watcher`] until the verdict
//! is certain, the driver exits or the timeout passes; then, when Kafka is short of the
//! checkpoint, the override of `kafka_short.rs`. Starts and stops nothing.

use std::path::Path;
use std::time::Duration;

use super::driver::{exit_code_after_exit, DriverStream, Next};
use super::event_log::ExecutorLog;
use super::kafka_short;
use crate::runtime::SparkDriver;
use crate::verdict::{BuiltinRule, Classification, Ended, TrialContext, Verdict, Watcher};

/// How long a restart on a cluster may run with no executor before it is judged
/// [`BuiltinRule::ExecutorsLost`]: Spark's own retry (the master relaunching executors on the
/// workers left, each registering in seconds) gets this long first.
pub(super) const EXECUTORS_LOST_GRACE: Duration = Duration::from_secs(45);

/// The seeded end offsets a run must read to, and which verdicts let it read on (`resumed`; a
/// fresh run's batch 0 on its empty checkpoint).
pub(super) type ReadTo<'a> = (
    &'a crate::checkpoint::KafkaOffsets,
    fn(&Classification) -> bool,
);

/// What a watch had proved when it was last asked: the watcher's [`Watcher::so_far`] and the
/// batches it saw, updated at each progress report and at the verdict; and, once the verdict is
/// final and the watch reads on until every seeded record was read (`read_all.rs`), that verdict
/// ([`AtVerdict`]). A watch dropped because a part of the trial failed under it (`parts.rs`)
/// leaves this behind, so the report keeps the batches and paths that ran before the failure —
/// and a verdict reached before it stands.
#[derive(Debug, Default)]
pub(super) struct SoFar(std::sync::Mutex<Slot>);

/// What [`SoFar`] holds.
#[derive(Debug, Default)]
struct Slot {
    /// The last classification and the batches seen.
    proved: Option<(Classification, u64)>,
    /// The final verdict, once the watch reads on after it.
    verdict: Option<AtVerdict>,
}

/// A watch's final verdict, reached with every part of the trial working, and what it had when
/// it went on reading until every seeded record was read (a control runs: `read_all.rs`).
#[derive(Debug, Clone)]
pub(super) struct AtVerdict {
    /// The verdict (`resumed`; a fresh run's batch 0 on its empty checkpoint), as the watch
    /// returns it.
    pub classification: Classification,
    /// The executors the event log announced until then.
    pub executors: ExecutorLog,
    /// When the watch began reading on (the time after it is not the verdict's).
    pub at: tokio::time::Instant,
}

impl SoFar {
    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set(&self, classification: Classification, batches: Option<u64>) {
        let mut slot = self.slot();
        let batches = batches.unwrap_or_else(|| slot.proved.as_ref().map_or(0, |(_, b)| *b));
        slot.proved = Some((classification, batches));
    }

    /// Records the final verdict as the watch starts reading on after it.
    pub(super) fn reached(&self, verdict: AtVerdict) {
        self.slot().verdict = Some(verdict);
    }

    /// The last classification and batch count, if the watch got as far as a progress report
    /// or a verdict.
    pub(super) fn take(&self) -> Option<(Classification, u64)> {
        self.slot().proved.take()
    }

    /// The final verdict, if the watch had reached it and was reading on.
    pub(super) fn verdict(&self) -> Option<AtVerdict> {
        self.slot().verdict.clone()
    }
}

/// Feeds the driver log and the event log to the watcher until it is certain, the driver
/// exits, or the timeout passes. Every line is also appended to `logs/driver.log`.
///
/// `kafka_short` is the harness's own evidence that the sandbox Kafka ends below offsets the
/// checkpoint needs. Then a `resumed` is not final: see [`kafka_short::judge_after_resume`].
///
/// Also returns the executors the event log announced until the verdict; when every one of
/// them was removed and none replaced them for [`EXECUTORS_LOST_GRACE`] before the restart was
/// proved, the verdict is [`BuiltinRule::ExecutorsLost`] with the removals as evidence.
///
/// `read_to` (a control run's parity, issue 13 §3; hook for `read_all.rs`): after a verdict
/// the predicate accepts (`resumed`; a fresh run's batch 0 on its empty checkpoint), keep reading until the query read every record up to these end offsets and settled, within
/// the same timeout — the third value says whether it did, and how long that took after the
/// verdict. The verdict is not changed by it.
///
/// `so_far` is kept up to date with what the watch proved (see [`SoFar`]).
#[expect(
    clippy::too_many_arguments,
    reason = "the restart's parts and settings, each used once"
)]
pub(super) async fn watch(
    spark: &SparkDriver,
    sandbox: &Path,
    ctx: TrialContext,
    timeout_seconds: u64,
    kafka_short: Option<String>,
    read_to: Option<ReadTo<'_>>,
    so_far: &SoFar,
    on_event: &mut (dyn FnMut(super::TrialEvent) + Send),
) -> (
    Classification,
    ExecutorLog,
    Option<(Result<String, String>, Duration)>,
) {
    let mut stream = DriverStream::new(spark, sandbox);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout_seconds);
    let mut executors = ExecutorLog::default();
    let first = until_verdict(
        &mut stream,
        spark,
        &ctx,
        deadline,
        timeout_seconds,
        &mut executors,
        so_far,
        on_event,
    )
    .await;
    so_far.set(first.clone(), None);
    let c = match kafka_short {
        Some(short) if first.verdict == Verdict::Resumed => {
            kafka_short::judge_after_resume(&mut stream, deadline, &ctx, short, first).await
        }
        _ => first,
    };
    so_far.set(c.clone(), None);
    let drain = tokio::time::Instant::now();
    let read_all = match read_to {
        Some((seeded, ran)) if ran(&c) => {
            so_far.reached(AtVerdict {
                classification: c.clone(),
                executors: executors.clone(),
                at: drain,
            });
            Some(super::read_all::until_read_all(&mut stream, deadline, seeded).await)
        }
        Some(_) => Some(Err(format!(
            "the run did not get to read its records ({} by rule {})",
            c.verdict, c.rule
        ))),
        None => None,
    };
    (c, executors, read_all.map(|r| (r, drain.elapsed())))
}

/// The watcher's first verdict: at the line or event that makes it certain, else when the
/// driver exits or `deadline` (`timeout_seconds` after the start) passes.
#[expect(
    clippy::too_many_arguments,
    reason = "the watch's stream, parts and outputs, each used once"
)]
async fn until_verdict(
    stream: &mut DriverStream,
    spark: &SparkDriver,
    ctx: &TrialContext,
    deadline: tokio::time::Instant,
    timeout_seconds: u64,
    executors: &mut ExecutorLog,
    so_far: &SoFar,
    on_event: &mut (dyn FnMut(super::TrialEvent) + Send),
) -> Classification {
    let mut watcher = Watcher::new(ctx.clone());
    let mut waiting: Option<Vec<String>> = None;
    let mut reports = 0;
    loop {
        // What depends on progress changes only at a progress report (not per driver line):
        // say what a proved resume still waits for, each time that changes, and keep what the
        // watch proved so far for a trial whose parts fail under it.
        if watcher.progress_reports() != reports {
            reports = watcher.progress_reports();
            let now = watcher.waiting_for();
            if now.is_some() && now != waiting {
                on_event(super::TrialEvent::WaitingFor {
                    what: now.clone().unwrap_or_default(),
                });
            }
            waiting = now;
            so_far.set(watcher.so_far(), Some(watcher.batches_seen()));
        }
        let lost_by = executors
            .all_lost_at()
            .map(|at| at + EXECUTORS_LOST_GRACE)
            .filter(|&by| by < deadline);
        match stream.next(lost_by.unwrap_or(deadline)).await {
            Next::Line(text) => {
                if let Some(c) = watcher.push_line(&text) {
                    return c;
                }
            }
            Next::Event(event) => {
                executors.observe(&event);
                if let Some(c) = watcher.push_event(&event) {
                    return c;
                }
            }
            Next::Exited => {
                return watcher.finish(Ended::Exited(exit_code_after_exit(spark).await))
            }
            Next::TimedOut if lost_by.is_some() && executors.all_lost_at().is_some() => {
                let base = watcher.finish(Ended::TimedOut(timeout_seconds));
                return executors_lost(base, executors);
            }
            // Lost executors were replaced in time: keep watching.
            Next::TimedOut if tokio::time::Instant::now() < deadline => {}
            Next::TimedOut => return watcher.finish(Ended::TimedOut(timeout_seconds)),
        }
    }
}

/// The verdict once every executor was lost (`base`: what the watcher says of the log so far).
/// A proved resume stays (it has its proof); anything else becomes
/// [`BuiltinRule::ExecutorsLost`], the removals first in the evidence, then the watcher's.
fn executors_lost(base: Classification, executors: &ExecutorLog) -> Classification {
    if base.verdict == Verdict::Resumed {
        return base;
    }
    let rule = BuiltinRule::ExecutorsLost;
    let mut evidence = executors.removals();
    evidence.push(format!(
        "no executor for {} s after the last was removed, and the restart was not proved",
        EXECUTORS_LOST_GRACE.as_secs()
    ));
    evidence.extend(base.evidence.iter().cloned());
    Classification {
        verdict: rule.verdict(),
        rule: rule.id().to_string(),
        evidence,
        remedy: rule.remedy().to_string(),
        ..base
    }
}
