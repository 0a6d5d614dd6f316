//! Tailing Spark's event log while the driver runs; reads only, never blocks.

use std::path::PathBuf;

/// Follows the newest event-log file in a directory (Spark writes `<app-id>.inprogress`,
/// renamed when the application ends), returning complete new lines.
pub(super) struct EventLogTail {
    dir: PathBuf,
    file: Option<PathBuf>,
    offset: u64,
}

impl EventLogTail {
    /// Follows the event log Spark writes into `dir` (nothing is read yet).
    pub(super) fn new(dir: PathBuf) -> EventLogTail {
        EventLogTail {
            dir,
            file: None,
            offset: 0,
        }
    }

    /// The complete lines written since the last call (none while no file exists yet).
    pub(super) fn read_new(&mut self) -> Vec<String> {
        use std::io::{Read, Seek, SeekFrom};
        if self.file.as_ref().is_none_or(|f| !f.exists()) {
            let stem = self
                .file
                .as_ref()
                .and_then(|f| f.file_stem())
                .map(|s| s.to_os_string());
            let found = std::fs::read_dir(&self.dir).ok().and_then(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .find(|p| {
                        stem.as_ref()
                            .is_none_or(|s| p.file_stem() == Some(s) || p.file_name() == Some(s))
                    })
            });
            if found.is_none() {
                return Vec::new();
            }
            self.file = found;
        }
        let Some(path) = &self.file else {
            return Vec::new();
        };
        let Ok(mut f) = std::fs::File::open(path) else {
            return Vec::new();
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return Vec::new();
        }
        let Some(last_newline) = buf.iter().rposition(|b| *b == b'\n') else {
            return Vec::new();
        };
        self.offset += last_newline as u64 + 1;
        String::from_utf8_lossy(&buf[..last_newline])
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// The executors a driver's event log announced (`SparkListenerExecutorAdded`) and removed
/// (`SparkListenerExecutorRemoved`, with Spark's reason: `worker lost`, `Worker shutting down`,
/// a `Command exited with code …`). Spark's `JsonProtocol` writes `"Executor ID"`,
/// `"Executor Info": {"Host": …}` and `"Removed Reason"` (1.x–4.x). Local mode announces no
/// executor; on a standalone cluster the host is the worker's `--host`, its container name.
#[derive(Debug, Default, Clone)]
pub(super) struct ExecutorLog {
    /// Executor id → host, in order of arrival.
    added: Vec<(String, String)>,
    /// Executor id → Spark's reason, in order of removal.
    removed: Vec<(String, String)>,
    /// When the last live executor was removed (and none came since).
    all_lost_at: Option<tokio::time::Instant>,
}

impl ExecutorLog {
    /// Takes note of one event-log line (other events are ignored).
    pub(super) fn observe(&mut self, line: &str) {
        if !line.contains("SparkListenerExecutor") {
            return;
        }
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        let id = event["Executor ID"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match event["Event"].as_str() {
            Some("SparkListenerExecutorAdded") => {
                let host = event["Executor Info"]["Host"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                self.added.push((id, host));
                self.all_lost_at = None;
            }
            Some("SparkListenerExecutorRemoved") => {
                let reason = event["Removed Reason"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                self.removed.push((id, reason));
                if self.live() == 0 {
                    self.all_lost_at = Some(tokio::time::Instant::now());
                }
            }
            _ => {}
        }
    }

    /// Executors added and not removed.
    pub(super) fn live(&self) -> usize {
        self.added
            .iter()
            .filter(|(id, _)| !self.removed.iter().any(|(r, _)| r == id))
            .count()
    }

    /// When every executor that ran was removed and none replaced them, if so.
    pub(super) fn all_lost_at(&self) -> Option<tokio::time::Instant> {
        self.all_lost_at
    }

    /// One line per removed executor: `executor 0 on <host> removed: <reason>`.
    pub(super) fn removals(&self) -> Vec<String> {
        self.removed
            .iter()
            .map(|(id, reason)| {
                let host = self
                    .added
                    .iter()
                    .find(|(a, _)| a == id)
                    .map_or("?", |(_, h)| h.as_str());
                format!("executor {id} on {host} removed: {reason}")
            })
            .collect()
    }

    /// What the report says: how many executors ran, on which hosts (sorted, once each), and
    /// the removals.
    pub(super) fn report(&self) -> crate::report::ExecutorsReport {
        let mut workers: Vec<String> = self.added.iter().map(|(_, h)| h.clone()).collect();
        workers.sort();
        workers.dedup();
        crate::report::ExecutorsReport {
            count: self.added.len() as u64,
            workers,
            removed: self.removals(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn executors_are_counted_per_worker_and_their_loss_is_noticed() {
        let mut log = ExecutorLog::default();
        log.observe(r#"{"Event":"SparkListenerApplicationStart","App Name":"x"}"#);
        log.observe(r#"{"Event":"SparkListenerExecutorAdded","Timestamp":1,"Executor ID":"0","Executor Info":{"Host":"rehearse-worker-2-a","Total Cores":1}}"#);
        log.observe(r#"{"Event":"SparkListenerExecutorAdded","Timestamp":2,"Executor ID":"1","Executor Info":{"Host":"rehearse-worker-1-a","Total Cores":1}}"#);
        assert_eq!(log.live(), 2);
        assert!(log.all_lost_at().is_none());
        log.observe(r#"{"Event":"SparkListenerExecutorRemoved","Timestamp":3,"Executor ID":"0","Removed Reason":"worker lost"}"#);
        assert_eq!(log.live(), 1);
        assert!(log.all_lost_at().is_none(), "one executor still runs");
        log.observe(r#"{"Event":"SparkListenerExecutorRemoved","Timestamp":4,"Executor ID":"1","Removed Reason":"Worker shutting down"}"#);
        assert!(log.all_lost_at().is_some());
        let r = log.report();
        assert_eq!(r.count, 2);
        assert_eq!(r.workers, ["rehearse-worker-1-a", "rehearse-worker-2-a"]);
        assert_eq!(
            r.removed,
            [
                "executor 0 on rehearse-worker-2-a removed: worker lost",
                "executor 1 on rehearse-worker-1-a removed: Worker shutting down"
            ]
        );
        // A replacement executor ends the loss.
        log.observe(r#"{"Event":"SparkListenerExecutorAdded","Timestamp":5,"Executor ID":"2","Executor Info":{"Host":"rehearse-worker-1-a"}}"#);
        assert!(log.all_lost_at().is_none());
        assert_eq!(log.report().count, 3);
    }
}
