//! The driver's output as one ordered stream for the watcher: its stdout and stderr lines (also
//! written to `logs/driver.log` in the sandbox) interleaved with the new lines of the event log
//! (`event_log.rs`), then its end. Judges nothing.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::event_log::EventLogTail;
use crate::runtime::{LogLine, SparkDriver};

/// What the driver said next.
pub(super) enum Next {
    /// A driver-output line (stdout or stderr).
    Line(String),
    /// An event-log line.
    Event(String),
    /// The driver exited and everything it wrote was read.
    Exited,
    /// The deadline passed with nothing new.
    TimedOut,
}

/// The driver's output as one ordered stream: log lines (also written to `logs/driver.log`),
/// new event-log lines every half second, then the end.
pub(super) struct DriverStream {
    lines: tokio::sync::mpsc::Receiver<LogLine>,
    log: Option<std::fs::File>,
    events: EventLogTail,
    pending: VecDeque<String>,
    tick: tokio::time::Interval,
}

impl DriverStream {
    /// The output of `spark` (read once: see [`SparkDriver::lines`]), written to
    /// `<sandbox>/logs/driver.log`, and the event log under `<sandbox>/eventlog`.
    pub(super) fn new(spark: &SparkDriver, sandbox: &Path) -> DriverStream {
        DriverStream {
            lines: spark.lines(),
            log: std::fs::File::create(sandbox.join("logs/driver.log")).ok(),
            events: EventLogTail::new(sandbox.join("eventlog")),
            pending: VecDeque::new(),
            tick: tokio::time::interval(Duration::from_millis(500)),
        }
    }

    /// The next line of either stream, [`Next::Exited`] once both ended, or
    /// [`Next::TimedOut`] once `deadline` passed with nothing new.
    pub(super) async fn next(&mut self, deadline: tokio::time::Instant) -> Next {
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

/// The exit code of a driver whose output ended, waiting up to 5 s for the runtime to report it.
pub(super) async fn exit_code_after_exit(spark: &SparkDriver) -> Option<i64> {
    for _ in 0..20 {
        if let Some(code) = spark.exit_code().await {
            return Some(code);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}
