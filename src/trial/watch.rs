//! Watching a restart: the driver's output and event log fed to the [`Watcher`] until the verdict
//! is certain, the driver exits or the timeout passes; then, when Kafka is short of the
//! checkpoint, the override of `kafka_short.rs`. Starts and stops nothing.

use std::path::Path;
use std::time::Duration;

use super::driver::{exit_code_after_exit, DriverStream, Next};
use super::kafka_short;
use crate::runtime::SparkDriver;
use crate::verdict::{Classification, Ended, TrialContext, Verdict, Watcher};

/// Feeds the driver log and the event log to the watcher until it is certain, the driver
/// exits, or the timeout passes. Every line is also appended to `logs/driver.log`.
///
/// `kafka_short` is the harness's own evidence that the sandbox Kafka ends below offsets the
/// checkpoint needs. Then a `resumed` is not final: see [`kafka_short::judge_after_resume`].
pub(super) async fn watch(
    spark: &SparkDriver,
    sandbox: &Path,
    ctx: TrialContext,
    timeout_seconds: u64,
    kafka_short: Option<String>,
) -> Classification {
    let mut stream = DriverStream::new(spark, sandbox);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout_seconds);
    let first = until_verdict(&mut stream, spark, &ctx, deadline, timeout_seconds).await;
    match kafka_short {
        Some(short) if first.verdict == Verdict::Resumed => {
            kafka_short::judge_after_resume(&mut stream, deadline, &ctx, short, first).await
        }
        _ => first,
    }
}

/// The watcher's first verdict: at the line or event that makes it certain, else when the
/// driver exits or `deadline` (`timeout_seconds` after the start) passes.
async fn until_verdict(
    stream: &mut DriverStream,
    spark: &SparkDriver,
    ctx: &TrialContext,
    deadline: tokio::time::Instant,
    timeout_seconds: u64,
) -> Classification {
    let mut watcher = Watcher::new(ctx.clone());
    loop {
        match stream.next(deadline).await {
            Next::Line(text) => {
                if let Some(c) = watcher.push_line(&text) {
                    return c;
                }
            }
            Next::Event(event) => {
                if let Some(c) = watcher.push_event(&event) {
                    return c;
                }
            }
            Next::Exited => {
                return watcher.finish(Ended::Exited(exit_code_after_exit(spark).await))
            }
            Next::TimedOut => return watcher.finish(Ended::TimedOut(timeout_seconds)),
        }
    }
}
